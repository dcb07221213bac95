//! `iree-dump-replay`'s output: a file's header and summary, then one line
//! per record, as text or as JSON lines, byte for byte as upstream prints
//! them. Payload bytes are never printed, only their ranges in the file.
//!
//! A file is checked completely (the summary pass reads every record)
//! before anything is printed; a payload that fails its checks stops the
//! dump after the lines already printed.

use std::io::Write;
use std::ops::Range;

use iree_base::{Result, Status, StatusCode};

use crate::format::*;
use crate::layout::{exact, head, items, sections};
use crate::reader::{Record, ReplayFile};

/// The output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Jsonl,
}

/// Counts over a whole file, as the summary prints them.
#[derive(Default)]
struct Summary {
    records: u64,
    objects: u64,
    operations: u64,
    scope_begins: u64,
    scope_ends: u64,
    unsupported: u64,
    files: u64,
    external_files: u64,
    inline_files: u64,
    range_files: u64,
    unknown_file_references: u64,
    identity_validations: u64,
    digest_validations: u64,
    no_validations: u64,
    unknown_validations: u64,
    external_bytes: u64,
    inline_bytes: u64,
    range_bytes: u64,
    captured_read_bytes: u64,
}

impl Summary {
    fn scan(file: &ReplayFile<'_>) -> Result<Summary> {
        let mut s = Summary::default();
        for record in file.records() {
            let record = record?;
            s.records += 1;
            match RecordType(record.header.record_type) {
                RecordType::Object => {
                    s.objects += 1;
                    if PayloadType(record.header.payload_type) == PayloadType::FileObject {
                        s.count_file(&record)?;
                    }
                }
                RecordType::Operation => {
                    s.operations += 1;
                    match OperationCode(record.header.operation_code) {
                        OperationCode::ReplayScopeBegin => s.scope_begins += 1,
                        OperationCode::ReplayScopeEnd => s.scope_ends += 1,
                        _ => {}
                    }
                    if PayloadType(record.header.payload_type) == PayloadType::DeviceQueueRead {
                        let payload: QueueReadPayload = head(record.payload, "queue read")?;
                        s.captured_read_bytes += payload.captured_data_length;
                    }
                }
                RecordType::Unsupported => s.unsupported += 1,
                _ => {}
            }
        }
        Ok(s)
    }

    fn count_file(&mut self, record: &Record<'_>) -> Result<()> {
        let payload = file_object(record)?;
        self.files += 1;
        match FileReferenceType(payload.reference_type) {
            FileReferenceType::ExternalPath => {
                self.external_files += 1;
                self.external_bytes += payload.file_length;
            }
            FileReferenceType::InlineBytes => {
                self.inline_files += 1;
                self.inline_bytes += payload.reference_length;
            }
            FileReferenceType::CapturedRanges => {
                self.range_files += 1;
                self.range_bytes += payload.file_length;
            }
            _ => self.unknown_file_references += 1,
        }
        match FileValidationType(payload.validation_type) {
            FileValidationType::None => self.no_validations += 1,
            FileValidationType::Identity => self.identity_validations += 1,
            FileValidationType::ContentDigest => self.digest_validations += 1,
            _ => self.unknown_validations += 1,
        }
        Ok(())
    }

    fn environment_referenced(&self) -> bool {
        self.external_files != 0
    }

    fn hermetic(&self) -> bool {
        !self.environment_referenced() && self.unknown_file_references == 0
    }

    fn strict_replay_supported(&self) -> bool {
        self.unsupported == 0 && self.unknown_file_references == 0 && self.unknown_validations == 0
    }
}

/// A file object's head, checked against the payload's length.
pub(crate) fn file_object(record: &Record<'_>) -> Result<FileObjectPayload> {
    let payload: FileObjectPayload = head(record.payload, "file object")?;
    if (FileObjectPayload::SIZE as u64).checked_add(payload.reference_length)
        != Some(record.payload.len() as u64)
    {
        return Err(Status::new(
            StatusCode::DataLoss,
            "replay file object payload length mismatch",
        ));
    }
    Ok(payload)
}

/// A scope marker's name, checked.
pub(crate) fn scope_name<'a>(record: &Record<'a>) -> Result<&'a [u8]> {
    let payload: ScopePayload = head(record.payload, "scope")?;
    if payload.flags != 0 || payload.reserved0 != 0 || payload.reserved1 != 0 {
        return Err(Status::new(
            StatusCode::DataLoss,
            "replay scope payload reserved fields must be zero",
        ));
    }
    if (ScopePayload::SIZE as u64).checked_add(payload.name_length)
        != Some(record.payload.len() as u64)
        || payload.name_length == 0
    {
        return Err(Status::new(
            StatusCode::DataLoss,
            "replay scope payload name length mismatch",
        ));
    }
    Ok(&record.payload[ScopePayload::SIZE..])
}

/// The sections of an executable prepare payload: format, data, constants,
/// metadata.
pub(crate) fn prepare_sections(
    record: &Record<'_>,
    payload: &ExecutablePreparePayload,
) -> Result<[Range<usize>; 4]> {
    let overflow = || {
        Status::new(
            StatusCode::OutOfRange,
            "replay executable prepare payload overflow",
        )
    };
    let constant_bytes = payload.constant_count.checked_mul(4).ok_or_else(overflow)?;
    usize::try_from(payload.executable_data_length).map_err(|_| overflow())?;
    sections(
        record.payload.len(),
        ExecutablePreparePayload::SIZE,
        [
            (u64::from(payload.executable_format_length), 1),
            (payload.executable_data_length, 1),
            (constant_bytes, 1),
            (u64::from(payload.executable_metadata_length), 1),
        ],
        "executable prepare",
    )
}

/// The header of an executable's ABI metadata, checked against its length;
/// `None` when there is no metadata.
pub(crate) fn metadata_header(metadata: &[u8]) -> Result<Option<ExecutableMetadataHeader>> {
    let Some(header) = ExecutableMetadataHeader::read(metadata) else {
        if metadata.is_empty() {
            return Ok(None);
        }
        return Err(Status::new(
            StatusCode::DataLoss,
            "replay executable metadata is too short",
        ));
    };
    if header.reserved1 != 0 {
        return Err(Status::new(
            StatusCode::DataLoss,
            "replay executable metadata reserved fields must be zero",
        ));
    }
    let expected = header
        .function_count
        .checked_mul(FunctionMetadata::SIZE as u64)
        .and_then(|f| {
            header
                .parameter_count
                .checked_mul(ParameterMetadata::SIZE as u64)
                .and_then(|p| f.checked_add(p))
        })
        .and_then(|n| n.checked_add(ExecutableMetadataHeader::SIZE as u64))
        .and_then(|n| n.checked_add(header.function_name_storage_length))
        .ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                "replay executable metadata count overflow",
            )
        })?;
    if expected != metadata.len() as u64 {
        return Err(Status::new(
            StatusCode::DataLoss,
            "replay executable metadata length mismatch",
        ));
    }
    Ok(Some(header))
}

/// Prints `bytes` (a replay file) to `out`.
pub fn dump(bytes: &[u8], format: DumpFormat, out: &mut dyn Write) -> Result<()> {
    let file = ReplayFile::parse(bytes)?;
    let summary = Summary::scan(&file)?;
    let mut line = Vec::new();
    match format {
        DumpFormat::Text => text_file(&mut line, &file, &summary),
        DumpFormat::Jsonl => json_file(&mut line, &file, &summary),
    }
    emit(out, &mut line)?;
    for record in file.records() {
        let record = record?;
        match format {
            DumpFormat::Text => text_record(&mut line, &record)?,
            DumpFormat::Jsonl => json_record(&mut line, &record)?,
        }
        emit(out, &mut line)?;
    }
    Ok(())
}

fn emit(out: &mut dyn Write, line: &mut Vec<u8>) -> Result<()> {
    let result = out
        .write_all(line)
        .map_err(|_| Status::new(StatusCode::Internal, "failed to write replay dump output"));
    line.clear();
    result
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn text_file(out: &mut Vec<u8>, file: &ReplayFile<'_>, s: &Summary) {
    let h = &file.header;
    let _ = write!(
        out,
        "IREE HAL replay v{}.{}\nfile_length: {}\nheader_length: {}\nsummary:\n  hermetic: {}\n  environment_referenced: {}\n  strict_replay_supported: {}\n  records: total={} objects={} operations={} unsupported={}\n  scopes: begin={} end={}\n  files: total={} external={} inline={} ranges={} unknown={}\n  file_bytes: external={} inline={} ranges={} captured_reads={}\n  file_validation: identity={} digest={} none={} unknown={}\nrecords:\n",
        h.version_major,
        h.version_minor,
        file.file_length(),
        h.header_length,
        yes(s.hermetic()),
        yes(s.environment_referenced()),
        yes(s.strict_replay_supported()),
        s.records,
        s.objects,
        s.operations,
        s.unsupported,
        s.scope_begins,
        s.scope_ends,
        s.files,
        s.external_files,
        s.inline_files,
        s.range_files,
        s.unknown_file_references,
        s.external_bytes,
        s.inline_bytes,
        s.range_bytes,
        s.captured_read_bytes,
        s.identity_validations,
        s.digest_validations,
        s.no_validations,
        s.unknown_validations,
    );
}

fn json_file(out: &mut Vec<u8>, file: &ReplayFile<'_>, s: &Summary) {
    let h = &file.header;
    let _ = writeln!(
        out,
        "{{\"kind\":\"file\",\"version_major\":{},\"version_minor\":{},\"header_length\":{},\"flags\":{},\"file_length\":{}}}",
        h.version_major,
        h.version_minor,
        h.header_length,
        h.flags,
        file.file_length()
    );
    let _ = writeln!(
        out,
        "{{\"kind\":\"summary\",\"hermetic\":{},\"environment_referenced\":{},\"strict_replay_supported\":{},\"record_count\":{},\"object_count\":{},\"operation_count\":{},\"unsupported_count\":{},\"scope_begin_count\":{},\"scope_end_count\":{},\"file_object_count\":{},\"external_file_count\":{},\"inline_file_count\":{},\"range_file_count\":{},\"unknown_file_reference_count\":{},\"external_file_total_length\":{},\"inline_file_total_length\":{},\"range_file_total_length\":{},\"captured_read_total_length\":{},\"file_validation\":{{\"identity\":{},\"digest\":{},\"none\":{},\"unknown\":{}}}}}",
        s.hermetic(),
        s.environment_referenced(),
        s.strict_replay_supported(),
        s.records,
        s.objects,
        s.operations,
        s.unsupported,
        s.scope_begins,
        s.scope_ends,
        s.files,
        s.external_files,
        s.inline_files,
        s.range_files,
        s.unknown_file_references,
        s.external_bytes,
        s.inline_bytes,
        s.range_bytes,
        s.captured_read_bytes,
        s.identity_validations,
        s.digest_validations,
        s.no_validations,
        s.unknown_validations,
    );
}

/// A JSON string as upstream escapes it (other bytes, UTF-8 or not, as is).
fn json_string(out: &mut Vec<u8>, value: &[u8]) {
    out.push(b'"');
    for &c in value {
        match c {
            b'\\' | b'"' => out.extend_from_slice(&[b'\\', c]),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            c if c < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c);
            }
            c => out.push(c),
        }
    }
    out.push(b'"');
}

/// `,"name":{"offset":..,"length":..,...}` for `length` bytes at `offset`
/// of the file (stored uncompressed, no digest).
fn json_range(out: &mut Vec<u8>, name: &str, offset: u64, length: u64) {
    let _ = write!(
        out,
        ",\"{name}\":{{\"offset\":{offset},\"length\":{length},\"uncompressed_length\":{length},\"compression_type\":0,\"digest_type\":0}}"
    );
}

/// A section of a payload as a file range.
fn json_section(out: &mut Vec<u8>, name: &str, base: u64, section: &Range<usize>) {
    json_range(out, name, base + section.start as u64, section.len() as u64);
}

/// ` name=[offset, +length]` for a section.
fn text_section(out: &mut Vec<u8>, name: &str, base: u64, section: &Range<usize>) {
    let _ = write!(
        out,
        " {name}=[{}, +{}]",
        base + section.start as u64,
        section.len()
    );
}

fn text_ref(out: &mut Vec<u8>, label: &str, r: &BufferRef) {
    let _ = write!(
        out,
        " {label}={{buffer_id={} offset={} length={} slot={}}}",
        r.buffer_id, r.offset, r.length, r.buffer_slot
    );
}

fn json_ref(out: &mut Vec<u8>, name: &str, r: &BufferRef) {
    let _ = write!(
        out,
        ",\"{name}\":{{\"buffer_id\":{},\"offset\":{},\"length\":{},\"buffer_slot\":{}}}",
        r.buffer_id, r.offset, r.length, r.buffer_slot
    );
}

fn text_timepoints(out: &mut Vec<u8>, label: &str, bytes: &[u8]) {
    let _ = write!(out, " {label}=[");
    for (i, t) in items::<Timepoint>(bytes).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = write!(out, "{{semaphore_id={} value={}}}", t.semaphore_id, t.value);
    }
    out.push(b']');
}

fn json_timepoints(out: &mut Vec<u8>, name: &str, bytes: &[u8]) {
    let _ = write!(out, ",\"{name}\":[");
    for (i, t) in items::<Timepoint>(bytes).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = write!(
            out,
            "{{\"semaphore_id\":{},\"value\":{}}}",
            t.semaphore_id, t.value
        );
    }
    out.push(b']');
}

fn text_refs(out: &mut Vec<u8>, label: &str, bytes: &[u8]) {
    let _ = write!(out, " {label}=[");
    for (i, r) in items::<BufferRef>(bytes).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = write!(
            out,
            "{{buffer_id={} offset={} length={} slot={}}}",
            r.buffer_id, r.offset, r.length, r.buffer_slot
        );
    }
    out.push(b']');
}

fn json_refs(out: &mut Vec<u8>, name: &str, bytes: &[u8]) {
    let _ = write!(out, ",\"{name}\":[");
    for (i, r) in items::<BufferRef>(bytes).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = write!(
            out,
            "{{\"buffer_id\":{},\"offset\":{},\"length\":{},\"buffer_slot\":{}}}",
            r.buffer_id, r.offset, r.length, r.buffer_slot
        );
    }
    out.push(b']');
}

/// The wait and signal timepoint sections and one trailing byte section
/// of a queue payload with a `head_size`-byte head.
fn queue_sections(
    record: &Record<'_>,
    head_size: usize,
    wait: u64,
    signal: u64,
    trailing: u64,
) -> Result<[Range<usize>; 3]> {
    sections(
        record.payload.len(),
        head_size,
        [
            (wait, Timepoint::SIZE),
            (signal, Timepoint::SIZE),
            (trailing, 1),
        ],
        "queue",
    )
}

/// The trailing byte section after a fixed head, which must end the payload.
fn trailing_bytes(record: &Record<'_>, head_size: usize, length: u64, what: &str) -> Result<()> {
    if (head_size as u64).checked_add(length) != Some(record.payload.len() as u64) {
        return Err(Status::new(
            StatusCode::DataLoss,
            format!("replay {what} payload length mismatch"),
        ));
    }
    Ok(())
}

/// Checks that `length` bytes fit after a `head_size` head.
fn fits(record: &Record<'_>, head_size: usize, length: u64, what: &str) -> Result<()> {
    if length > (record.payload.len() - head_size) as u64 {
        return Err(Status::new(
            StatusCode::DataLoss,
            format!("replay {what} extends past record"),
        ));
    }
    Ok(())
}

fn text_record(out: &mut Vec<u8>, record: &Record<'_>) -> Result<()> {
    let h = &record.header;
    let _ = write!(
        out,
        "  @{} #{} {:<11} dev={} obj={} rel={} thread={} status={}",
        record.offset,
        h.sequence_ordinal,
        RecordType(h.record_type).name(),
        h.device_id,
        h.object_id,
        h.related_object_id,
        h.thread_id,
        status_code_name(h.status_code)
    );
    if h.object_type != 0 {
        let _ = write!(
            out,
            " object={}({})",
            ObjectType(h.object_type).name(),
            h.object_type
        );
    }
    if h.operation_code != 0 {
        let _ = write!(
            out,
            " op={}({})",
            OperationCode(h.operation_code).name(),
            h.operation_code
        );
    }
    if h.payload_type != 0 || h.payload_length != 0 {
        let _ = write!(
            out,
            " payload={}({}) range=[{}, +{}]",
            PayloadType(h.payload_type).name(),
            h.payload_type,
            record.payload_offset(),
            h.payload_length
        );
        text_payload(out, record)?;
    }
    out.push(b'\n');
    Ok(())
}

fn text_payload(out: &mut Vec<u8>, record: &Record<'_>) -> Result<()> {
    let base = record.payload_offset();
    let p = record.payload;
    let payload_type = record.header.payload_type;
    match PayloadType(payload_type) {
        PayloadType::ReplayScope => {
            let name = scope_name(record)?;
            out.extend_from_slice(b" name=\"");
            out.extend_from_slice(name);
            out.push(b'"');
        }
        PayloadType::BufferObject => {
            let b: BufferObjectPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                " allocation_size={} byte_offset={} byte_length={} queue_affinity={} placement_flags=0x{:08x} memory_type=0x{:08x} allowed_usage=0x{:08x} allowed_access=0x{:04x}",
                b.allocation_size, b.byte_offset, b.byte_length, b.queue_affinity, b.placement_flags, b.memory_type, b.allowed_usage, b.allowed_access
            );
        }
        PayloadType::AllocatorAllocateBuffer => {
            let a: AllocateBufferPayload = exact(p, payload_type)?;
            text_allocation(out, &a);
        }
        PayloadType::AllocatorImportBuffer => {
            let b: ImportBufferPayload = head(p, "import buffer")?;
            fits(
                record,
                ImportBufferPayload::SIZE,
                b.data_length,
                "import buffer data",
            )?;
            text_allocation(out, &b.allocation);
            let _ = write!(
                out,
                " external_type={} external_flags=0x{:08x} data_range=[{}, +{}]",
                b.external_type,
                b.external_flags,
                base + ImportBufferPayload::SIZE as u64,
                b.data_length
            );
        }
        PayloadType::BufferRange => {
            let b: BufferRangePayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                " byte_offset={} byte_length={} mapping_mode=0x{:08x} memory_access=0x{:04x}",
                b.byte_offset, b.byte_length, b.mapping_mode, b.memory_access
            );
        }
        PayloadType::BufferRangeData => {
            let b: BufferRangeDataPayload = head(p, "buffer range data")?;
            fits(
                record,
                BufferRangeDataPayload::SIZE,
                b.data_length,
                "buffer range data",
            )?;
            let _ = write!(
                out,
                " byte_offset={} byte_length={} data_range=[{}, +{}] memory_access=0x{:04x}",
                b.byte_offset,
                b.byte_length,
                base + BufferRangeDataPayload::SIZE as u64,
                b.data_length,
                b.memory_access
            );
        }
        PayloadType::CommandBufferObject => {
            let c: CommandBufferObjectPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                " mode=0x{:08x} categories=0x{:08x} queue_affinity={} binding_capacity={}",
                c.mode, c.command_categories, c.queue_affinity, c.binding_capacity
            );
        }
        PayloadType::ExecutableCacheObject => {
            let c: ExecutableCacheObjectPayload = head(p, "executable cache")?;
            fits(
                record,
                ExecutableCacheObjectPayload::SIZE,
                c.identifier_length,
                "executable cache identifier",
            )?;
            let _ = write!(
                out,
                " identifier_range=[{}, +{}]",
                base + ExecutableCacheObjectPayload::SIZE as u64,
                c.identifier_length
            );
        }
        PayloadType::ExecutablePrepare => {
            let e: ExecutablePreparePayload = head(p, "executable prepare")?;
            let [format, data, constants, metadata] = prepare_sections(record, &e)?;
            let _ = write!(
                out,
                " queue_affinity={} caching_mode=0x{:08x}",
                e.queue_affinity, e.caching_mode
            );
            text_section(out, "format_range", base, &format);
            text_section(out, "data_range", base, &data);
            text_section(out, "constants_range", base, &constants);
            text_section(out, "metadata_range", base, &metadata);
            if let Some(m) = metadata_header(&p[metadata])? {
                let _ = write!(
                    out,
                    " metadata_functions={} metadata_parameters={} metadata_function_name_storage_length={}",
                    m.function_count, m.parameter_count, m.function_name_storage_length
                );
            }
        }
        PayloadType::SemaphoreObject => {
            let s: SemaphoreObjectPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                " queue_affinity={} initial_value={} flags=0x{:016x}",
                s.queue_affinity, s.initial_value, s.flags
            );
        }
        PayloadType::EventObject => {
            let e: EventObjectPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                " queue_affinity={} flags=0x{:08x}",
                e.queue_affinity, e.flags
            );
        }
        PayloadType::FileObject => {
            let f = file_object(record)?;
            let _ = write!(
                out,
                " queue_affinity={} file_length={} access=0x{:08x} flags=0x{:08x} handle_type={} reference_type={}({}) file_device={} file_inode={} file_mtime_ns={} validation_type={}({}) digest_type={} digest_fnv1a64=0x{:016x} reference_range=[{}, +{}]",
                f.queue_affinity,
                f.file_length,
                f.access,
                f.flags,
                f.handle_type,
                FileReferenceType(f.reference_type).name(),
                f.reference_type,
                f.file_device,
                f.file_inode,
                f.file_mtime_ns,
                FileValidationType(f.validation_type).name(),
                f.validation_type,
                f.digest_type,
                digest_of_field(&f.digest),
                base + FileObjectPayload::SIZE as u64,
                f.reference_length
            );
        }
        PayloadType::Dispatch => {
            let d: DispatchPayload = head(p, "dispatch")?;
            let [_, _, constants, bindings] = dispatch_sections(record, &d)?;
            let _ = write!(
                out,
                " executable_id={} queue_affinity={} function_ordinal={} flags=0x{:08x} workgroup_count=[{},{},{}] workgroup_size=[{},{},{}] wait_count={} signal_count={}",
                d.executable_id,
                d.queue_affinity,
                d.function_ordinal,
                d.flags,
                d.workgroup_count[0],
                d.workgroup_count[1],
                d.workgroup_count[2],
                d.workgroup_size[0],
                d.workgroup_size[1],
                d.workgroup_size[2],
                d.wait_semaphore_count,
                d.signal_semaphore_count
            );
            text_section(out, "constants_range", base, &constants);
            text_section(out, "bindings_range", base, &bindings);
            text_ref(out, "workgroup_count_ref", &d.workgroup_count_ref);
        }
        PayloadType::DeviceQueueExecute => {
            let q: QueueExecutePayload = head(p, "queue execute")?;
            let [wait, signal, bindings] = execute_sections(record, &q)?;
            let _ = write!(
                out,
                " command_buffer_id={} queue_affinity={} flags=0x{:016x} wait_count={} signal_count={}",
                q.command_buffer_id, q.queue_affinity, q.flags, q.wait_semaphore_count, q.signal_semaphore_count
            );
            text_section(out, "wait_range", base, &wait);
            text_section(out, "signal_range", base, &signal);
            text_section(out, "bindings_range", base, &bindings);
            text_timepoints(out, "wait_semaphores", &p[wait]);
            text_timepoints(out, "signal_semaphores", &p[signal]);
            text_refs(out, "bindings", &p[bindings]);
        }
        PayloadType::DeviceQueueAlloca => {
            let q: QueueAllocaPayload = head(p, "queue alloca")?;
            let [wait, signal] = alloca_sections(record, &q)?;
            text_allocation(out, &q.allocation);
            let _ = write!(
                out,
                " submit_queue_affinity={} flags=0x{:016x} wait_count={} signal_count={}",
                q.queue_affinity, q.flags, q.wait_semaphore_count, q.signal_semaphore_count
            );
            text_section(out, "wait_range", base, &wait);
            text_section(out, "signal_range", base, &signal);
        }
        PayloadType::DeviceQueueDealloca => {
            let q: QueueDeallocaPayload = head(p, "queue dealloca")?;
            let [wait, signal, _] = queue_sections(
                record,
                QueueDeallocaPayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                0,
            )?;
            text_queue_common(
                out,
                q.queue_affinity,
                q.flags,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
            );
            text_section(out, "wait_range", base, &wait);
            text_section(out, "signal_range", base, &signal);
            text_ref(out, "buffer_ref", &q.buffer_ref);
        }
        PayloadType::DeviceQueueFill => {
            let q: QueueFillPayload = head(p, "queue fill")?;
            let [wait, signal, pattern] = queue_sections(
                record,
                QueueFillPayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                q.pattern_length,
            )?;
            text_queue_common(
                out,
                q.queue_affinity,
                q.flags,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
            );
            text_section(out, "wait_range", base, &wait);
            text_section(out, "signal_range", base, &signal);
            text_section(out, "pattern_range", base, &pattern);
            text_ref(out, "target_ref", &q.target_ref);
        }
        PayloadType::DeviceQueueUpdate => {
            let q: QueueUpdatePayload = head(p, "queue update")?;
            let [wait, signal, data] = queue_sections(
                record,
                QueueUpdatePayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                q.data_length,
            )?;
            let _ = write!(
                out,
                " queue_affinity={} flags=0x{:016x} source_offset={} wait_count={} signal_count={}",
                q.queue_affinity,
                q.flags,
                q.source_offset,
                q.wait_semaphore_count,
                q.signal_semaphore_count
            );
            text_section(out, "wait_range", base, &wait);
            text_section(out, "signal_range", base, &signal);
            text_section(out, "data_range", base, &data);
            text_ref(out, "target_ref", &q.target_ref);
        }
        PayloadType::DeviceQueueCopy => {
            let q: QueueCopyPayload = head(p, "queue copy")?;
            let [wait, signal, _] = queue_sections(
                record,
                QueueCopyPayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                0,
            )?;
            text_queue_common(
                out,
                q.queue_affinity,
                q.flags,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
            );
            text_section(out, "wait_range", base, &wait);
            text_section(out, "signal_range", base, &signal);
            text_ref(out, "source_ref", &q.source_ref);
            text_ref(out, "target_ref", &q.target_ref);
        }
        PayloadType::DeviceQueueRead => {
            let q: QueueReadPayload = head(p, "queue read")?;
            let [wait, signal, captured] = queue_sections(
                record,
                QueueReadPayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                q.captured_data_length,
            )?;
            let _ = write!(
                out,
                " source_file_id={} source_offset={} queue_affinity={} flags=0x{:016x} captured_data_length={} wait_count={} signal_count={}",
                q.source_file_id, q.source_offset, q.queue_affinity, q.flags, q.captured_data_length, q.wait_semaphore_count, q.signal_semaphore_count
            );
            text_section(out, "wait_range", base, &wait);
            text_section(out, "signal_range", base, &signal);
            text_section(out, "captured_data_range", base, &captured);
            text_ref(out, "target_ref", &q.target_ref);
        }
        PayloadType::DeviceQueueWrite => {
            let q: QueueWritePayload = head(p, "queue write")?;
            let [wait, signal, _] = queue_sections(
                record,
                QueueWritePayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                0,
            )?;
            let _ = write!(
                out,
                " target_file_id={} target_offset={} queue_affinity={} flags=0x{:016x} wait_count={} signal_count={}",
                q.target_file_id, q.target_offset, q.queue_affinity, q.flags, q.wait_semaphore_count, q.signal_semaphore_count
            );
            text_section(out, "wait_range", base, &wait);
            text_section(out, "signal_range", base, &signal);
            text_ref(out, "source_ref", &q.source_ref);
        }
        PayloadType::CommandBufferExecutionBarrier => {
            let b: ExecutionBarrierPayload = head(p, "execution barrier")?;
            let [memory, buffers] = barrier_sections(record, &b)?;
            let _ = write!(
                out,
                " source_stage_mask=0x{:016x} target_stage_mask=0x{:016x} flags=0x{:016x} memory_count={} buffer_count={}",
                b.source_stage_mask, b.target_stage_mask, b.flags, b.memory_barrier_count, b.buffer_barrier_count
            );
            text_section(out, "memory_barriers_range", base, &memory);
            text_section(out, "buffer_barriers_range", base, &buffers);
        }
        PayloadType::CommandBufferEvent => {
            let e: CommandBufferEventPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                " event_id={} source_stage_mask=0x{:016x}",
                e.event_id, e.source_stage_mask
            );
        }
        PayloadType::CommandBufferWaitEvents => {
            let w: WaitEventsPayload = head(p, "wait events")?;
            let [events, memory, buffers] = wait_events_sections(record, &w)?;
            let _ = write!(
                out,
                " source_stage_mask=0x{:016x} target_stage_mask=0x{:016x} event_count={} memory_count={} buffer_count={}",
                w.source_stage_mask, w.target_stage_mask, w.event_count, w.memory_barrier_count, w.buffer_barrier_count
            );
            text_section(out, "events_range", base, &events);
            text_section(out, "memory_barriers_range", base, &memory);
            text_section(out, "buffer_barriers_range", base, &buffers);
        }
        PayloadType::CommandBufferFillBuffer => {
            let f: CommandBufferFillPayload = head(p, "command buffer fill")?;
            trailing_bytes(
                record,
                CommandBufferFillPayload::SIZE,
                f.pattern_length,
                "command buffer fill",
            )?;
            let _ = write!(
                out,
                " flags=0x{:08x} pattern_range=[{}, +{}]",
                f.flags,
                base + CommandBufferFillPayload::SIZE as u64,
                f.pattern_length
            );
            text_ref(out, "target", &f.target_ref);
        }
        PayloadType::CommandBufferUpdateBuffer => {
            let u: CommandBufferUpdatePayload = head(p, "command buffer update")?;
            trailing_bytes(
                record,
                CommandBufferUpdatePayload::SIZE,
                u.data_length,
                "command buffer update",
            )?;
            let _ = write!(
                out,
                " flags=0x{:08x} source_offset={} data_range=[{}, +{}]",
                u.flags,
                u.source_offset,
                base + CommandBufferUpdatePayload::SIZE as u64,
                u.data_length
            );
            text_ref(out, "target", &u.target_ref);
        }
        PayloadType::CommandBufferCopyBuffer => {
            let c: CommandBufferCopyPayload = exact(p, payload_type)?;
            let _ = write!(out, " flags=0x{:08x}", c.flags);
            text_ref(out, "source", &c.source_ref);
            text_ref(out, "target", &c.target_ref);
        }
        _ => {}
    }
    Ok(())
}

fn text_allocation(out: &mut Vec<u8>, a: &AllocateBufferPayload) {
    let _ = write!(
        out,
        " allocation_size={} queue_affinity={} min_alignment={} usage=0x{:08x} type=0x{:08x} access=0x{:04x}",
        a.allocation_size, a.queue_affinity, a.min_alignment, a.usage, a.memory_type, a.access
    );
}

fn text_queue_common(out: &mut Vec<u8>, affinity: u64, flags: u64, wait: u64, signal: u64) {
    let _ = write!(
        out,
        " queue_affinity={affinity} flags=0x{flags:016x} wait_count={wait} signal_count={signal}"
    );
}

/// A dispatch's sections: wait and signal timepoints, constants, bindings.
pub(crate) fn dispatch_sections(
    record: &Record<'_>,
    d: &DispatchPayload,
) -> Result<[Range<usize>; 4]> {
    sections(
        record.payload.len(),
        DispatchPayload::SIZE,
        [
            (d.wait_semaphore_count, Timepoint::SIZE),
            (d.signal_semaphore_count, Timepoint::SIZE),
            (d.constants_length, 1),
            (d.binding_count, BufferRef::SIZE),
        ],
        "dispatch",
    )
}

/// A queue execute's sections: wait and signal timepoints, binding table.
pub(crate) fn execute_sections(
    record: &Record<'_>,
    q: &QueueExecutePayload,
) -> Result<[Range<usize>; 3]> {
    sections(
        record.payload.len(),
        QueueExecutePayload::SIZE,
        [
            (q.wait_semaphore_count, Timepoint::SIZE),
            (q.signal_semaphore_count, Timepoint::SIZE),
            (q.binding_count, BufferRef::SIZE),
        ],
        "queue execute",
    )
}

/// A queue alloca's sections: wait and signal timepoints.
pub(crate) fn alloca_sections(
    record: &Record<'_>,
    q: &QueueAllocaPayload,
) -> Result<[Range<usize>; 2]> {
    sections(
        record.payload.len(),
        QueueAllocaPayload::SIZE,
        [
            (q.wait_semaphore_count, Timepoint::SIZE),
            (q.signal_semaphore_count, Timepoint::SIZE),
        ],
        "queue alloca",
    )
}

/// An execution barrier's sections: memory and buffer barriers.
pub(crate) fn barrier_sections(
    record: &Record<'_>,
    b: &ExecutionBarrierPayload,
) -> Result<[Range<usize>; 2]> {
    sections(
        record.payload.len(),
        ExecutionBarrierPayload::SIZE,
        [
            (b.memory_barrier_count, MemoryBarrier::SIZE),
            (b.buffer_barrier_count, BufferBarrier::SIZE),
        ],
        "execution barrier",
    )
}

/// A wait-events command's sections: event ids, memory and buffer barriers.
pub(crate) fn wait_events_sections(
    record: &Record<'_>,
    w: &WaitEventsPayload,
) -> Result<[Range<usize>; 3]> {
    sections(
        record.payload.len(),
        WaitEventsPayload::SIZE,
        [
            (w.event_count, 8),
            (w.memory_barrier_count, MemoryBarrier::SIZE),
            (w.buffer_barrier_count, BufferBarrier::SIZE),
        ],
        "wait events",
    )
}

fn json_record(out: &mut Vec<u8>, record: &Record<'_>) -> Result<()> {
    let h = &record.header;
    out.extend_from_slice(b"{\"kind\":");
    json_string(out, RecordType(h.record_type).name().as_bytes());
    let _ = write!(
        out,
        ",\"file_offset\":{},\"record_length\":{},\"payload_length\":{},\"sequence_ordinal\":{},\"thread_id\":{},\"device_id\":{},\"object_id\":{},\"related_object_id\":{},\"record_type_code\":{},\"record_flags\":{}",
        record.offset,
        h.record_length,
        h.payload_length,
        h.sequence_ordinal,
        h.thread_id,
        h.device_id,
        h.object_id,
        h.related_object_id,
        h.record_type,
        h.record_flags
    );
    out.extend_from_slice(b",\"object_type\":");
    json_string(out, ObjectType(h.object_type).name().as_bytes());
    let _ = write!(out, ",\"object_type_code\":{}", h.object_type);
    out.extend_from_slice(b",\"operation\":");
    json_string(out, OperationCode(h.operation_code).name().as_bytes());
    let _ = write!(
        out,
        ",\"operation_code\":{},\"status_code\":{},\"status\":",
        h.operation_code, h.status_code
    );
    json_string(out, status_code_name(h.status_code).as_bytes());
    out.extend_from_slice(b",\"payload_type\":");
    json_string(out, PayloadType(h.payload_type).name().as_bytes());
    let _ = write!(out, ",\"payload_type_code\":{}", h.payload_type);
    json_range(
        out,
        "payload_range",
        record.payload_offset(),
        h.payload_length,
    );
    json_payload(out, record)?;
    out.extend_from_slice(b"}\n");
    Ok(())
}

fn json_allocation(out: &mut Vec<u8>, a: &AllocateBufferPayload, affinity_name: &str) {
    let _ = write!(
        out,
        ",\"payload\":{{\"allocation_size\":{},\"{affinity_name}\":{},\"min_alignment\":{},\"usage\":{},\"type\":{},\"access\":{}",
        a.allocation_size, a.queue_affinity, a.min_alignment, a.usage, a.memory_type, a.access
    );
}

fn json_queue_common(out: &mut Vec<u8>, affinity: u64, flags: u64, wait: u64, signal: u64) {
    let _ = write!(
        out,
        ",\"payload\":{{\"queue_affinity\":{affinity},\"flags\":{flags},\"wait_semaphore_count\":{wait},\"signal_semaphore_count\":{signal}"
    );
}

fn json_payload(out: &mut Vec<u8>, record: &Record<'_>) -> Result<()> {
    let base = record.payload_offset();
    let p = record.payload;
    let payload_type = record.header.payload_type;
    match PayloadType(payload_type) {
        PayloadType::None => return Ok(()),
        PayloadType::ReplayScope => {
            let name = scope_name(record)?;
            out.extend_from_slice(b",\"payload\":{\"name\":");
            json_string(out, name);
        }
        PayloadType::BufferObject => {
            let b: BufferObjectPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"allocation_size\":{},\"byte_offset\":{},\"byte_length\":{},\"queue_affinity\":{},\"placement_flags\":{},\"memory_type\":{},\"allowed_usage\":{},\"allowed_access\":{}",
                b.allocation_size, b.byte_offset, b.byte_length, b.queue_affinity, b.placement_flags, b.memory_type, b.allowed_usage, b.allowed_access
            );
        }
        PayloadType::AllocatorAllocateBuffer => {
            let a: AllocateBufferPayload = exact(p, payload_type)?;
            json_allocation(out, &a, "queue_affinity");
        }
        PayloadType::AllocatorImportBuffer => {
            let b: ImportBufferPayload = head(p, "import buffer")?;
            fits(
                record,
                ImportBufferPayload::SIZE,
                b.data_length,
                "import buffer data",
            )?;
            json_allocation(out, &b.allocation, "queue_affinity");
            let _ = write!(
                out,
                ",\"external_type\":{},\"external_flags\":{}",
                b.external_type, b.external_flags
            );
            json_range(
                out,
                "data_range",
                base + ImportBufferPayload::SIZE as u64,
                b.data_length,
            );
        }
        PayloadType::BufferRange => {
            let b: BufferRangePayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"byte_offset\":{},\"byte_length\":{},\"mapping_mode\":{},\"memory_access\":{}",
                b.byte_offset, b.byte_length, b.mapping_mode, b.memory_access
            );
        }
        PayloadType::BufferRangeData => {
            let b: BufferRangeDataPayload = head(p, "buffer range data")?;
            fits(
                record,
                BufferRangeDataPayload::SIZE,
                b.data_length,
                "buffer range data",
            )?;
            let _ = write!(
                out,
                ",\"payload\":{{\"byte_offset\":{},\"byte_length\":{},\"mapping_mode\":{},\"memory_access\":{}",
                b.byte_offset, b.byte_length, b.mapping_mode, b.memory_access
            );
            json_range(
                out,
                "data_range",
                base + BufferRangeDataPayload::SIZE as u64,
                b.data_length,
            );
        }
        PayloadType::CommandBufferObject => {
            let c: CommandBufferObjectPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"mode\":{},\"command_categories\":{},\"queue_affinity\":{},\"binding_capacity\":{}",
                c.mode, c.command_categories, c.queue_affinity, c.binding_capacity
            );
        }
        PayloadType::ExecutableCacheObject => {
            let c: ExecutableCacheObjectPayload = head(p, "executable cache")?;
            fits(
                record,
                ExecutableCacheObjectPayload::SIZE,
                c.identifier_length,
                "executable cache identifier",
            )?;
            let _ = write!(
                out,
                ",\"payload\":{{\"identifier_length\":{}",
                c.identifier_length
            );
            json_range(
                out,
                "identifier_range",
                base + ExecutableCacheObjectPayload::SIZE as u64,
                c.identifier_length,
            );
        }
        PayloadType::ExecutablePrepare => {
            let e: ExecutablePreparePayload = head(p, "executable prepare")?;
            let [format, data, constants, metadata] = prepare_sections(record, &e)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"queue_affinity\":{},\"caching_mode\":{},\"executable_format_length\":{},\"executable_data_length\":{},\"constant_count\":{},\"executable_metadata_length\":{}",
                e.queue_affinity, e.caching_mode, e.executable_format_length, e.executable_data_length, e.constant_count, e.executable_metadata_length
            );
            json_section(out, "format_range", base, &format);
            json_section(out, "data_range", base, &data);
            json_section(out, "constants_range", base, &constants);
            json_section(out, "metadata_range", base, &metadata);
            if let Some(m) = metadata_header(&p[metadata])? {
                let _ = write!(
                    out,
                    ",\"metadata_function_count\":{},\"metadata_parameter_count\":{},\"metadata_function_name_storage_length\":{}",
                    m.function_count, m.parameter_count, m.function_name_storage_length
                );
            }
        }
        PayloadType::SemaphoreObject => {
            let s: SemaphoreObjectPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"queue_affinity\":{},\"initial_value\":{},\"flags\":{}",
                s.queue_affinity, s.initial_value, s.flags
            );
        }
        PayloadType::EventObject => {
            let e: EventObjectPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"queue_affinity\":{},\"flags\":{}",
                e.queue_affinity, e.flags
            );
        }
        PayloadType::FileObject => {
            let f = file_object(record)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"queue_affinity\":{},\"file_length\":{},\"file_device\":{},\"file_inode\":{},\"file_mtime_ns\":{},\"reference_length\":{},\"access\":{},\"flags\":{},\"handle_type\":{},\"reference_type\":{},\"reference_type_name\":\"{}\",\"validation_type\":{},\"validation_type_name\":\"{}\",\"digest_type\":{},\"digest_fnv1a64\":\"0x{:016x}\"",
                f.queue_affinity,
                f.file_length,
                f.file_device,
                f.file_inode,
                f.file_mtime_ns,
                f.reference_length,
                f.access,
                f.flags,
                f.handle_type,
                f.reference_type,
                FileReferenceType(f.reference_type).name(),
                f.validation_type,
                FileValidationType(f.validation_type).name(),
                f.digest_type,
                digest_of_field(&f.digest)
            );
            json_range(
                out,
                "reference_range",
                base + FileObjectPayload::SIZE as u64,
                f.reference_length,
            );
        }
        PayloadType::Dispatch => {
            let d: DispatchPayload = head(p, "dispatch")?;
            let [wait, signal, constants, bindings] = dispatch_sections(record, &d)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"executable_id\":{},\"queue_affinity\":{},\"function_ordinal\":{},\"flags\":{},\"workgroup_count\":[{},{},{}],\"workgroup_size\":[{},{},{}],\"dynamic_workgroup_local_memory\":{},\"wait_semaphore_count\":{},\"signal_semaphore_count\":{},\"constants_length\":{},\"binding_count\":{}",
                d.executable_id,
                d.queue_affinity,
                d.function_ordinal,
                d.flags,
                d.workgroup_count[0],
                d.workgroup_count[1],
                d.workgroup_count[2],
                d.workgroup_size[0],
                d.workgroup_size[1],
                d.workgroup_size[2],
                d.dynamic_workgroup_local_memory,
                d.wait_semaphore_count,
                d.signal_semaphore_count,
                d.constants_length,
                d.binding_count
            );
            json_ref(out, "workgroup_count_ref", &d.workgroup_count_ref);
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
            json_section(out, "constants_range", base, &constants);
            json_section(out, "bindings_range", base, &bindings);
        }
        PayloadType::DeviceQueueExecute => {
            let q: QueueExecutePayload = head(p, "queue execute")?;
            let [wait, signal, bindings] = execute_sections(record, &q)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"command_buffer_id\":{},\"queue_affinity\":{},\"flags\":{},\"wait_semaphore_count\":{},\"signal_semaphore_count\":{},\"binding_count\":{}",
                q.command_buffer_id, q.queue_affinity, q.flags, q.wait_semaphore_count, q.signal_semaphore_count, q.binding_count
            );
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
            json_section(out, "bindings_range", base, &bindings);
            json_timepoints(out, "wait_semaphores", &p[wait]);
            json_timepoints(out, "signal_semaphores", &p[signal]);
            json_refs(out, "bindings", &p[bindings]);
        }
        PayloadType::DeviceQueueAlloca => {
            let q: QueueAllocaPayload = head(p, "queue alloca")?;
            let [wait, signal] = alloca_sections(record, &q)?;
            json_allocation(out, &q.allocation, "allocation_queue_affinity");
            let _ = write!(
                out,
                ",\"queue_affinity\":{},\"flags\":{},\"wait_semaphore_count\":{},\"signal_semaphore_count\":{}",
                q.queue_affinity, q.flags, q.wait_semaphore_count, q.signal_semaphore_count
            );
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
        }
        PayloadType::DeviceQueueDealloca => {
            let q: QueueDeallocaPayload = head(p, "queue dealloca")?;
            let [wait, signal, _] = queue_sections(
                record,
                QueueDeallocaPayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                0,
            )?;
            json_queue_common(
                out,
                q.queue_affinity,
                q.flags,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
            );
            json_ref(out, "buffer_ref", &q.buffer_ref);
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
        }
        PayloadType::DeviceQueueFill => {
            let q: QueueFillPayload = head(p, "queue fill")?;
            let [wait, signal, pattern] = queue_sections(
                record,
                QueueFillPayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                q.pattern_length,
            )?;
            json_queue_common(
                out,
                q.queue_affinity,
                q.flags,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
            );
            let _ = write!(out, ",\"pattern_length\":{}", q.pattern_length);
            json_ref(out, "target_ref", &q.target_ref);
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
            json_section(out, "pattern_range", base, &pattern);
        }
        PayloadType::DeviceQueueUpdate => {
            let q: QueueUpdatePayload = head(p, "queue update")?;
            let [wait, signal, data] = queue_sections(
                record,
                QueueUpdatePayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                q.data_length,
            )?;
            let _ = write!(
                out,
                ",\"payload\":{{\"queue_affinity\":{},\"flags\":{},\"source_offset\":{},\"wait_semaphore_count\":{},\"signal_semaphore_count\":{},\"data_length\":{}",
                q.queue_affinity, q.flags, q.source_offset, q.wait_semaphore_count, q.signal_semaphore_count, q.data_length
            );
            json_ref(out, "target_ref", &q.target_ref);
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
            json_section(out, "data_range", base, &data);
        }
        PayloadType::DeviceQueueCopy => {
            let q: QueueCopyPayload = head(p, "queue copy")?;
            let [wait, signal, _] = queue_sections(
                record,
                QueueCopyPayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                0,
            )?;
            json_queue_common(
                out,
                q.queue_affinity,
                q.flags,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
            );
            json_ref(out, "source_ref", &q.source_ref);
            json_ref(out, "target_ref", &q.target_ref);
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
        }
        PayloadType::DeviceQueueRead => {
            let q: QueueReadPayload = head(p, "queue read")?;
            let [wait, signal, captured] = queue_sections(
                record,
                QueueReadPayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                q.captured_data_length,
            )?;
            let _ = write!(
                out,
                ",\"payload\":{{\"source_file_id\":{},\"source_offset\":{},\"queue_affinity\":{},\"flags\":{},\"captured_data_length\":{},\"wait_semaphore_count\":{},\"signal_semaphore_count\":{}",
                q.source_file_id, q.source_offset, q.queue_affinity, q.flags, q.captured_data_length, q.wait_semaphore_count, q.signal_semaphore_count
            );
            json_ref(out, "target_ref", &q.target_ref);
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
            json_section(out, "captured_data_range", base, &captured);
        }
        PayloadType::DeviceQueueWrite => {
            let q: QueueWritePayload = head(p, "queue write")?;
            let [wait, signal, _] = queue_sections(
                record,
                QueueWritePayload::SIZE,
                q.wait_semaphore_count,
                q.signal_semaphore_count,
                0,
            )?;
            let _ = write!(
                out,
                ",\"payload\":{{\"target_file_id\":{},\"target_offset\":{},\"queue_affinity\":{},\"flags\":{},\"wait_semaphore_count\":{},\"signal_semaphore_count\":{}",
                q.target_file_id, q.target_offset, q.queue_affinity, q.flags, q.wait_semaphore_count, q.signal_semaphore_count
            );
            json_ref(out, "source_ref", &q.source_ref);
            json_section(out, "wait_semaphores_range", base, &wait);
            json_section(out, "signal_semaphores_range", base, &signal);
        }
        PayloadType::CommandBufferExecutionBarrier => {
            let b: ExecutionBarrierPayload = head(p, "execution barrier")?;
            let [memory, buffers] = barrier_sections(record, &b)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"source_stage_mask\":{},\"target_stage_mask\":{},\"flags\":{},\"memory_barrier_count\":{},\"buffer_barrier_count\":{}",
                b.source_stage_mask, b.target_stage_mask, b.flags, b.memory_barrier_count, b.buffer_barrier_count
            );
            json_section(out, "memory_barriers_range", base, &memory);
            json_section(out, "buffer_barriers_range", base, &buffers);
        }
        PayloadType::CommandBufferEvent => {
            let e: CommandBufferEventPayload = exact(p, payload_type)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"event_id\":{},\"source_stage_mask\":{}",
                e.event_id, e.source_stage_mask
            );
        }
        PayloadType::CommandBufferWaitEvents => {
            let w: WaitEventsPayload = head(p, "wait events")?;
            let [events, memory, buffers] = wait_events_sections(record, &w)?;
            let _ = write!(
                out,
                ",\"payload\":{{\"source_stage_mask\":{},\"target_stage_mask\":{},\"event_count\":{},\"memory_barrier_count\":{},\"buffer_barrier_count\":{}",
                w.source_stage_mask, w.target_stage_mask, w.event_count, w.memory_barrier_count, w.buffer_barrier_count
            );
            json_section(out, "events_range", base, &events);
            json_section(out, "memory_barriers_range", base, &memory);
            json_section(out, "buffer_barriers_range", base, &buffers);
        }
        PayloadType::CommandBufferFillBuffer => {
            let f: CommandBufferFillPayload = head(p, "command buffer fill")?;
            trailing_bytes(
                record,
                CommandBufferFillPayload::SIZE,
                f.pattern_length,
                "command buffer fill",
            )?;
            let _ = write!(
                out,
                ",\"payload\":{{\"flags\":{},\"pattern_length\":{}",
                f.flags, f.pattern_length
            );
            json_ref(out, "target", &f.target_ref);
            json_range(
                out,
                "pattern_range",
                base + CommandBufferFillPayload::SIZE as u64,
                f.pattern_length,
            );
        }
        PayloadType::CommandBufferUpdateBuffer => {
            let u: CommandBufferUpdatePayload = head(p, "command buffer update")?;
            trailing_bytes(
                record,
                CommandBufferUpdatePayload::SIZE,
                u.data_length,
                "command buffer update",
            )?;
            let _ = write!(
                out,
                ",\"payload\":{{\"flags\":{},\"source_offset\":{},\"data_length\":{}",
                u.flags, u.source_offset, u.data_length
            );
            json_ref(out, "target", &u.target_ref);
            json_range(
                out,
                "data_range",
                base + CommandBufferUpdatePayload::SIZE as u64,
                u.data_length,
            );
        }
        PayloadType::CommandBufferCopyBuffer => {
            let c: CommandBufferCopyPayload = exact(p, payload_type)?;
            let _ = write!(out, ",\"payload\":{{\"flags\":{}", c.flags);
            json_ref(out, "source", &c.source_ref);
            json_ref(out, "target", &c.target_ref);
        }
        _ => {
            out.extend_from_slice(b",\"payload\":null");
            return Ok(());
        }
    }
    out.push(b'}');
    Ok(())
}
