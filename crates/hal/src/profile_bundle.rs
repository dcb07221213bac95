//! Upstream IREE's raw HAL profiling bundle (`.ireeprof`): the file its
//! tools write for `--device_profiling_output=FILE.ireeprof` and its
//! `iree-profile` reads (`summary`, `statistics`, `dispatch`,
//! `executable`, ...).
//!
//! A bundle is a 24-byte file header followed by records. Each record is a
//! 104-byte little-endian header, a content-type string, a name string and
//! a payload. A session-begin record opens the bundle and a session-end
//! record closes it; between them, chunk records carry arrays of
//! fixed-layout typed records (each starting with its own byte length),
//! selected by the content type (`application/vnd.iree.hal.profile.*`).
//!
//! [`write_bundle`] renders a [`ProfileCapture`]: the device and its queue,
//! the executables with their exports, two clock-correlation samples (the
//! local devices time dispatches on the host's monotonic clock, so one
//! device tick is one nanosecond), and one dispatch event per executed
//! dispatch. [`parse_bundle`] reads a bundle back (ours or upstream's):
//! every length is checked, and malformed input is a `DATA_LOSS` status,
//! never a panic.

use std::collections::HashMap;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

use crate::profiling::{EventKind, ProfileCapture, ProfileExport};

/// The file magic (`IRPF` in file order).
pub const FILE_MAGIC: u32 = 0x4650_5249;
/// The format's major version this module writes and reads.
pub const VERSION_MAJOR: u16 = 1;
/// The format's minor version this module writes.
pub const VERSION_MINOR: u16 = 6;
/// Byte length of the file header.
pub const FILE_HEADER_LENGTH: usize = 24;
/// Byte length of a record header.
pub const RECORD_HEADER_LENGTH: usize = 104;

/// Session begin/end records.
pub const CONTENT_TYPE_SESSION: &str = "application/vnd.iree.hal.profile.session";
/// Physical device records.
pub const CONTENT_TYPE_DEVICES: &str = "application/vnd.iree.hal.profile.devices";
/// Queue records.
pub const CONTENT_TYPE_QUEUES: &str = "application/vnd.iree.hal.profile.queues";
/// Executable records.
pub const CONTENT_TYPE_EXECUTABLES: &str = "application/vnd.iree.hal.profile.executables";
/// Executable function (export) records.
pub const CONTENT_TYPE_EXECUTABLE_FUNCTIONS: &str =
    "application/vnd.iree.hal.profile.executable-functions";
/// Clock-correlation samples.
pub const CONTENT_TYPE_CLOCK_CORRELATIONS: &str =
    "application/vnd.iree.hal.profile.clock-correlations";
/// Device-timestamped dispatch events.
pub const CONTENT_TYPE_DISPATCH_EVENTS: &str = "application/vnd.iree.hal.profile.dispatch-events";
/// Host-timestamped queue operation events.
pub const CONTENT_TYPE_QUEUE_EVENTS: &str = "application/vnd.iree.hal.profile.queue-events";

/// Sizes of the fixed parts of the typed records.
const DEVICE_RECORD_LENGTH: usize = 32;
const QUEUE_RECORD_LENGTH: usize = 24;
const EXECUTABLE_RECORD_LENGTH: usize = 40;
const FUNCTION_RECORD_LENGTH: usize = 64;
const CLOCK_RECORD_LENGTH: usize = 72;
const DISPATCH_EVENT_LENGTH: usize = 88;
const QUEUE_EVENT_LENGTH: usize = 104;

/// Queue event types, by the operation names the local drivers record.
fn queue_event_type(name: &str) -> u32 {
    match name {
        "execute" => 3,
        "alloca" => 9,
        "dealloca" => 10,
        // Host-side queue operations (reads, writes, host calls).
        _ => 11,
    }
}

/// Clock-correlation flags: `device_tick` and `host_cpu_timestamp_ns` set.
const CLOCK_FLAG_DEVICE_TICK: u32 = 1 << 0;
const CLOCK_FLAG_HOST_CPU_TIMESTAMP: u32 = 1 << 1;

/// The type of a bundle record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordType {
    /// Opens a profiling session.
    SessionBegin,
    /// A chunk of typed records.
    Chunk,
    /// Closes a profiling session (with its status code).
    SessionEnd,
    /// A type this reader does not know (kept, as upstream's reader does).
    Unknown(u16),
}

impl RecordType {
    fn from_u16(value: u16) -> RecordType {
        match value {
            1 => RecordType::SessionBegin,
            2 => RecordType::Chunk,
            3 => RecordType::SessionEnd,
            other => RecordType::Unknown(other),
        }
    }

    fn to_u16(self) -> u16 {
        match self {
            RecordType::SessionBegin => 1,
            RecordType::Chunk => 2,
            RecordType::SessionEnd => 3,
            RecordType::Unknown(other) => other,
        }
    }
}

/// One record of a parsed bundle, borrowing the file's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleRecord<'a> {
    /// What the record is.
    pub record_type: RecordType,
    /// Its content type (`application/vnd.iree.hal.profile.*`).
    pub content_type: &'a str,
    /// Its name (the producing device's, in bundles this module writes).
    pub name: &'a str,
    /// The profiling session it belongs to.
    pub session_id: u64,
    /// The stream (queue) its events belong to.
    pub stream_id: u64,
    /// The physical device ordinal of its events (`u32::MAX`: none).
    pub physical_device_ordinal: u32,
    /// The queue ordinal of its events (`u32::MAX`: none).
    pub queue_ordinal: u32,
    /// Records the producer dropped from this chunk.
    pub dropped_record_count: u64,
    /// The session's status code (session-end records).
    pub session_status_code: u32,
    /// The payload: typed records for chunks.
    pub payload: &'a [u8],
}

/// A parsed bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle<'a> {
    /// The file's `(major, minor)` format version.
    pub version: (u16, u16),
    /// Its records, in file order.
    pub records: Vec<BundleRecord<'a>>,
}

/// An executable record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutableRecord {
    /// Session-local id, referenced by dispatch events.
    pub executable_id: u64,
    /// How many functions (exports) it has.
    pub function_count: u32,
}

/// An executable-function (export) record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionRecord {
    /// The executable it belongs to.
    pub executable_id: u64,
    /// Its ordinal, referenced by dispatch events.
    pub function_ordinal: u32,
    /// Push constants it takes.
    pub constant_count: u32,
    /// Bindings it takes.
    pub binding_count: u32,
    /// Its workgroup size.
    pub workgroup_size: [u32; 3],
    /// Its name.
    pub name: String,
}

/// A queue operation event record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueEventRecord {
    /// The operation's type (3 execute, 9 alloca, 10 dealloca, 11 host
    /// call, ...).
    pub event_type: u32,
    /// Unique within the queue event stream.
    pub event_id: u64,
    /// Host time (ns) when it was submitted.
    pub host_time_ns: i64,
    /// The queue's physical device ordinal.
    pub physical_device_ordinal: u32,
    /// The queue's ordinal.
    pub queue_ordinal: u32,
}

/// A dispatch event record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchEventRecord {
    /// The chunk's physical device ordinal.
    pub physical_device_ordinal: u32,
    /// The chunk's queue ordinal.
    pub queue_ordinal: u32,
    /// Unique within the event stream.
    pub event_id: u64,
    /// The queue submission it ran in (0: not tracked).
    pub submission_id: u64,
    /// The command buffer it was recorded into (0: none or not tracked).
    pub command_buffer_id: u64,
    /// The executable dispatched.
    pub executable_id: u64,
    /// Its index in the command buffer (`u32::MAX`: not tracked).
    pub command_index: u32,
    /// The function (export) dispatched.
    pub function_ordinal: u32,
    /// Workgroups per dimension.
    pub workgroup_count: [u32; 3],
    /// Workgroup size per dimension.
    pub workgroup_size: [u32; 3],
    /// Device tick when it started.
    pub start_tick: u64,
    /// Device tick when it ended.
    pub end_tick: u64,
}

/// A little-endian byte cursor whose every read is bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
    offset: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], what: &'static str) -> Reader<'a> {
        Reader {
            bytes,
            offset: 0,
            what,
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .offset
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| {
                data_loss(format!(
                    "{} truncated: {} bytes at offset {} of {}",
                    self.what,
                    n,
                    self.offset,
                    self.bytes.len()
                ))
            })?;
        let slice = &self.bytes[self.offset..end];
        self.offset = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn u32x3(&mut self) -> Result<[u32; 3]> {
        Ok([self.u32()?, self.u32()?, self.u32()?])
    }
}

fn data_loss(message: String) -> Status {
    Status::new(StatusCode::DataLoss, message)
}

fn to_usize(value: u64, what: &str) -> Result<usize> {
    usize::try_from(value).map_err(|_| data_loss(format!("{what} {value} is too large")))
}

fn utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|_| data_loss(format!("{what} is not UTF-8")))
}

/// Parses a bundle: the file header, then every record up to the file's
/// logical length (the whole input when the bundle was not finalized).
/// Malformed input is a `DATA_LOSS` status.
pub fn parse_bundle(bytes: &[u8]) -> Result<Bundle<'_>> {
    let mut header = Reader::new(bytes, "profile bundle header");
    let magic = header.u32()?;
    if magic != FILE_MAGIC {
        return Err(data_loss(format!(
            "not an IREE HAL profile bundle (magic 0x{magic:08x}, expected 0x{FILE_MAGIC:08x})"
        )));
    }
    let major = header.u16()?;
    let minor = header.u16()?;
    if major != VERSION_MAJOR {
        return Err(Status::new(
            StatusCode::Unimplemented,
            format!(
                "profile bundle version {major}.{minor} is not supported (major {VERSION_MAJOR})"
            ),
        ));
    }
    let header_length = to_usize(u64::from(header.u32()?), "file header length")?;
    let _flags = header.u32()?;
    let file_length = to_usize(header.u64()?, "file length")?;
    if header_length < FILE_HEADER_LENGTH || header_length > bytes.len() {
        return Err(data_loss(format!(
            "profile bundle header length {header_length} is invalid for a {}-byte file",
            bytes.len()
        )));
    }
    let end = match file_length {
        0 => bytes.len(),
        n if n >= header_length && n <= bytes.len() => n,
        n => {
            return Err(data_loss(format!(
                "profile bundle length {n} does not fit the {}-byte file",
                bytes.len()
            )))
        }
    };
    let mut records = Vec::new();
    let mut offset = header_length;
    while offset < end {
        let (record, length) = parse_record(&bytes[offset..end])
            .map_err(|e| e.annotate(format!("profile bundle record at offset {offset}")))?;
        records.push(record);
        offset += length;
    }
    Ok(Bundle {
        version: (major, minor),
        records,
    })
}

/// Parses the record at the start of `bytes`; returns it and its length.
fn parse_record(bytes: &[u8]) -> Result<(BundleRecord<'_>, usize)> {
    let mut r = Reader::new(bytes, "profile record header");
    let record_length = to_usize(r.u64()?, "record length")?;
    let payload_length = to_usize(r.u64()?, "payload length")?;
    let session_id = r.u64()?;
    let stream_id = r.u64()?;
    let _event_id = r.u64()?;
    let _executable_id = r.u64()?;
    let _command_buffer_id = r.u64()?;
    let header_length = to_usize(u64::from(r.u32()?), "record header length")?;
    let content_type_length = to_usize(u64::from(r.u32()?), "content type length")?;
    let name_length = to_usize(u64::from(r.u32()?), "name length")?;
    let physical_device_ordinal = r.u32()?;
    let queue_ordinal = r.u32()?;
    let _padding = r.u32()?;
    let _chunk_flags = r.u64()?;
    let dropped_record_count = r.u64()?;
    let session_status_code = r.u32()?;
    let record_type = RecordType::from_u16(r.u16()?);
    let _flags = r.u16()?;
    let needed = [content_type_length, name_length, payload_length]
        .into_iter()
        .try_fold(header_length, usize::checked_add);
    match needed {
        Some(needed)
            if header_length >= RECORD_HEADER_LENGTH
                && needed <= record_length
                && record_length <= bytes.len() => {}
        _ => {
            return Err(data_loss(format!(
                "record lengths are inconsistent (record {record_length}, header {header_length}, \
                 content type {content_type_length}, name {name_length}, payload {payload_length}, \
                 {} bytes left)",
                bytes.len()
            )))
        }
    }
    let mut body = Reader::new(&bytes[header_length..record_length], "profile record");
    let content_type = utf8(body.take(content_type_length)?, "record content type")?;
    let name = utf8(body.take(name_length)?, "record name")?;
    let payload = body.take(payload_length)?;
    Ok((
        BundleRecord {
            record_type,
            content_type,
            name,
            session_id,
            stream_id,
            physical_device_ordinal,
            queue_ordinal,
            dropped_record_count,
            session_status_code,
            payload,
        },
        record_length,
    ))
}

/// Splits a chunk payload into its typed records: each starts with its own
/// `u32` byte length, at least `minimum` and within the payload.
fn typed_records<'a>(payload: &'a [u8], minimum: usize, what: &str) -> Result<Vec<&'a [u8]>> {
    let mut out = Vec::new();
    let mut offset = 0;
    while offset < payload.len() {
        let rest = &payload[offset..];
        let length = Reader::new(rest, "typed record length").u32()?;
        let length = to_usize(u64::from(length), "typed record length")?;
        if length < minimum || length > rest.len() {
            return Err(data_loss(format!(
                "{what} record at payload offset {offset} has length {length} \
                 (at least {minimum}, {} bytes left)",
                rest.len()
            )));
        }
        out.push(&rest[..length]);
        offset += length;
    }
    Ok(out)
}

impl<'a> Bundle<'a> {
    /// The chunk records of `content_type`.
    pub fn chunks(&self, content_type: &'a str) -> impl Iterator<Item = &BundleRecord<'a>> + '_ {
        self.records
            .iter()
            .filter(move |r| r.record_type == RecordType::Chunk && r.content_type == content_type)
    }

    /// Every executable record.
    pub fn executables(&self) -> Result<Vec<ExecutableRecord>> {
        let mut out = Vec::new();
        for chunk in self.chunks(CONTENT_TYPE_EXECUTABLES) {
            for bytes in typed_records(chunk.payload, EXECUTABLE_RECORD_LENGTH, "executable")? {
                let mut r = Reader::new(bytes, "executable record");
                r.take(8)?;
                let executable_id = r.u64()?;
                let function_count = r.u32()?;
                out.push(ExecutableRecord {
                    executable_id,
                    function_count,
                });
            }
        }
        Ok(out)
    }

    /// Every executable-function record.
    pub fn functions(&self) -> Result<Vec<FunctionRecord>> {
        let mut out = Vec::new();
        for chunk in self.chunks(CONTENT_TYPE_EXECUTABLE_FUNCTIONS) {
            for bytes in typed_records(chunk.payload, FUNCTION_RECORD_LENGTH, "function")? {
                let mut r = Reader::new(bytes, "function record");
                r.take(8)?;
                let executable_id = r.u64()?;
                let function_ordinal = r.u32()?;
                let constant_count = r.u32()?;
                let binding_count = r.u32()?;
                let _parameter_count = r.u32()?;
                let workgroup_size = r.u32x3()?;
                let name_length = to_usize(u64::from(r.u32()?), "function name length")?;
                r.take(16)?;
                let name = utf8(r.take(name_length)?, "function name")?.to_string();
                out.push(FunctionRecord {
                    executable_id,
                    function_ordinal,
                    constant_count,
                    binding_count,
                    workgroup_size,
                    name,
                });
            }
        }
        Ok(out)
    }

    /// Every dispatch event.
    pub fn dispatch_events(&self) -> Result<Vec<DispatchEventRecord>> {
        let mut out = Vec::new();
        for chunk in self.chunks(CONTENT_TYPE_DISPATCH_EVENTS) {
            for bytes in typed_records(chunk.payload, DISPATCH_EVENT_LENGTH, "dispatch event")? {
                let mut r = Reader::new(bytes, "dispatch event");
                r.take(8)?;
                out.push(DispatchEventRecord {
                    physical_device_ordinal: chunk.physical_device_ordinal,
                    queue_ordinal: chunk.queue_ordinal,
                    event_id: r.u64()?,
                    submission_id: r.u64()?,
                    command_buffer_id: r.u64()?,
                    executable_id: r.u64()?,
                    command_index: r.u32()?,
                    function_ordinal: r.u32()?,
                    workgroup_count: r.u32x3()?,
                    workgroup_size: r.u32x3()?,
                    start_tick: r.u64()?,
                    end_tick: r.u64()?,
                });
            }
        }
        Ok(out)
    }

    /// Every queue operation event.
    pub fn queue_events(&self) -> Result<Vec<QueueEventRecord>> {
        let mut out = Vec::new();
        for chunk in self.chunks(CONTENT_TYPE_QUEUE_EVENTS) {
            for bytes in typed_records(chunk.payload, QUEUE_EVENT_LENGTH, "queue event")? {
                let mut r = Reader::new(bytes, "queue event");
                r.take(4)?;
                let event_type = r.u32()?;
                r.take(8)?;
                let event_id = r.u64()?;
                let host_time_ns = r.u64()? as i64;
                r.take(32)?;
                let physical_device_ordinal = r.u32()?;
                let queue_ordinal = r.u32()?;
                out.push(QueueEventRecord {
                    event_type,
                    event_id,
                    host_time_ns,
                    physical_device_ordinal,
                    queue_ordinal,
                });
            }
        }
        Ok(out)
    }

    /// The name of the function `event` dispatched, when the bundle lists
    /// it.
    pub fn function_name(
        functions: &'a [FunctionRecord],
        event: &DispatchEventRecord,
    ) -> Option<&'a str> {
        functions
            .iter()
            .find(|f| {
                f.executable_id == event.executable_id
                    && f.function_ordinal == event.function_ordinal
            })
            .map(|f| f.name.as_str())
    }
}

/// A little-endian byte sink.
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u16(&mut self, v: u16) -> &mut Writer {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Writer {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Writer {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32x3(&mut self, v: [u32; 3]) -> &mut Writer {
        v.iter().for_each(|&d| {
            self.u32(d);
        });
        self
    }
    fn bytes(&mut self, v: &[u8]) -> &mut Writer {
        self.0.extend_from_slice(v);
        self
    }
}

/// Where a chunk's events ran: `None` for session-level metadata.
#[derive(Clone, Copy)]
struct ChunkScope {
    physical_device_ordinal: u32,
    queue_ordinal: u32,
}

/// Appends one record to `out`.
fn push_record(
    out: &mut Writer,
    record_type: RecordType,
    content_type: &str,
    name: &str,
    scope: Option<ChunkScope>,
    payload: &[u8],
) {
    let length = RECORD_HEADER_LENGTH + content_type.len() + name.len() + payload.len();
    let (device, queue) = scope.map_or((u32::MAX, u32::MAX), |s| {
        (s.physical_device_ordinal, s.queue_ordinal)
    });
    out.u64(length as u64)
        .u64(payload.len() as u64)
        .u64(1) // session id
        .u64(0) // stream id: queue 0's
        .u64(0) // event id
        .u64(0) // executable id
        .u64(0) // command buffer id
        .u32(RECORD_HEADER_LENGTH as u32)
        .u32(u32::try_from(content_type.len()).unwrap_or(u32::MAX))
        .u32(u32::try_from(name.len()).unwrap_or(u32::MAX))
        .u32(device)
        .u32(queue)
        .u32(0) // padding
        .u64(0) // chunk flags
        .u64(0) // dropped records
        .u32(0) // session status: OK
        .u16(record_type.to_u16())
        .u16(0) // flags
        .bytes(content_type.as_bytes())
        .bytes(name.as_bytes())
        .bytes(payload);
}

/// One executable of the bundle: its label and exports.
struct BundleExecutable {
    label: Arc<str>,
    exports: Vec<ProfileExport>,
}

/// Device ticks are nanoseconds since the capture began, plus one: a tick
/// of 0 means "not recorded" to readers.
const TICK_BASE: u64 = 1;

/// Renders `capture` (recorded on the device named `device`) as a bundle.
///
/// The bundle holds one physical device with one queue (stream 0), every
/// executable the capture lists (ids from 1, in load order; executables a
/// dispatch names but the capture does not list are added from the events),
/// their exports (function ordinal = export ordinal), two clock samples at
/// the capture's start and end, one queue event per recorded queue
/// operation, and one dispatch event per
/// executed dispatch, in start order.
pub fn write_bundle(capture: &ProfileCapture, device: &str) -> Vec<u8> {
    // The executable table: listed ones first, then any only events name.
    let mut executables: Vec<BundleExecutable> = Vec::new();
    let mut ids: HashMap<Arc<str>, usize> = HashMap::new();
    for e in &capture.executables {
        if !ids.contains_key(&e.label) {
            ids.insert(e.label.clone(), executables.len());
            executables.push(BundleExecutable {
                label: e.label.clone(),
                exports: e.exports.clone(),
            });
        }
    }
    let mut dispatches: Vec<_> = capture
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Dispatch {
                executable,
                ordinal,
                workgroup_count,
            } => Some((e, executable, *ordinal, *workgroup_count)),
            _ => None,
        })
        .collect();
    dispatches.sort_by_key(|(e, ..)| e.start_ns);
    for &(event, label, ordinal, _) in &dispatches {
        let index = *ids.entry(label.clone()).or_insert_with(|| {
            executables.push(BundleExecutable {
                label: label.clone(),
                exports: Vec::new(),
            });
            executables.len() - 1
        });
        let exports = &mut executables[index].exports;
        let ordinal = ordinal as usize;
        // Bounded by the export ordinals a driver reports.
        if ordinal < u16::MAX as usize {
            while exports.len() <= ordinal {
                exports.push(ProfileExport {
                    name: Arc::from(""),
                    constant_count: 0,
                    binding_count: 0,
                    workgroup_size: [1, 1, 1],
                });
            }
            if exports[ordinal].name.is_empty() {
                exports[ordinal].name = Arc::from(&*event.name);
            }
        }
    }

    let mut out = Writer::default();
    out.u32(FILE_MAGIC)
        .u16(VERSION_MAJOR)
        .u16(VERSION_MINOR)
        .u32(FILE_HEADER_LENGTH as u32)
        .u32(0) // flags
        .u64(0); // file length, patched below
    push_record(
        &mut out,
        RecordType::SessionBegin,
        CONTENT_TYPE_SESSION,
        device,
        None,
        &[],
    );
    let chunk = |out: &mut Writer, content_type: &str, scope, payload: Writer| {
        push_record(
            out,
            RecordType::Chunk,
            content_type,
            device,
            scope,
            &payload.0,
        );
    };

    let mut devices = Writer::default();
    devices
        .u32(DEVICE_RECORD_LENGTH as u32)
        .u32(0) // flags: no UUID
        .u32(0) // physical device ordinal
        .u32(1) // queue count
        .bytes(&[0; 16]);
    chunk(&mut out, CONTENT_TYPE_DEVICES, None, devices);
    let mut queues = Writer::default();
    queues
        .u32(QUEUE_RECORD_LENGTH as u32)
        .u32(0) // physical device ordinal
        .u32(0) // queue ordinal
        .u32(0)
        .u64(0); // stream id
    chunk(&mut out, CONTENT_TYPE_QUEUES, None, queues);

    if !executables.is_empty() {
        let mut records = Writer::default();
        let mut functions = Writer::default();
        for (index, executable) in executables.iter().enumerate() {
            let id = index as u64 + 1;
            records
                .u32(EXECUTABLE_RECORD_LENGTH as u32)
                .u32(0) // flags: no code-object hash
                .u64(id)
                .u32(u32::try_from(executable.exports.len()).unwrap_or(u32::MAX))
                .u32(0)
                .u64(0)
                .u64(0);
            for (ordinal, export) in executable.exports.iter().enumerate() {
                let name = export.name.as_bytes();
                functions
                    .u32(u32::try_from(FUNCTION_RECORD_LENGTH + name.len()).unwrap_or(u32::MAX))
                    .u32(0) // flags: no function hash
                    .u64(id)
                    .u32(ordinal as u32)
                    .u32(export.constant_count)
                    .u32(export.binding_count)
                    .u32(0) // parameter count
                    .u32x3(export.workgroup_size)
                    .u32(u32::try_from(name.len()).unwrap_or(u32::MAX))
                    .u64(0)
                    .u64(0)
                    .bytes(name);
            }
            tracing::trace!(
                executable = &*executable.label,
                id,
                "profile bundle executable"
            );
        }
        chunk(&mut out, CONTENT_TYPE_EXECUTABLES, None, records);
        chunk(&mut out, CONTENT_TYPE_EXECUTABLE_FUNCTIONS, None, functions);
    }

    // Two samples bracketing every event: tick = host nanoseconds (since
    // the capture began) + TICK_BASE, so readers fit 1 ns per tick.
    let last_end = dispatches
        .iter()
        .map(|(e, ..)| e.start_ns.saturating_add(e.duration_ns))
        .max()
        .unwrap_or(0);
    let end_ns = capture.duration_ns.max(last_end).max(1);
    let mut clocks = Writer::default();
    for (sample, ns) in [(1u64, 0u64), (2, end_ns)] {
        let tick = ns.saturating_add(TICK_BASE);
        clocks
            .u32(CLOCK_RECORD_LENGTH as u32)
            .u32(CLOCK_FLAG_DEVICE_TICK | CLOCK_FLAG_HOST_CPU_TIMESTAMP)
            .u32(0) // physical device ordinal
            .u32(0)
            .u64(sample)
            .u64(tick) // device tick
            .u64(tick) // host CPU timestamp (ns)
            .u64(0) // host system timestamp
            .u64(0) // its frequency
            .u64(0) // host time bracket: not sampled
            .u64(0);
    }
    let scope = Some(ChunkScope {
        physical_device_ordinal: 0,
        queue_ordinal: 0,
    });
    chunk(&mut out, CONTENT_TYPE_CLOCK_CORRELATIONS, scope, clocks);

    let queue_ops: Vec<_> = capture
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Queue))
        .collect();
    if !queue_ops.is_empty() {
        let mut events = Writer::default();
        for (n, event) in queue_ops.iter().enumerate() {
            let time = event.start_ns.saturating_add(TICK_BASE);
            // The local drivers time an alloca from its submission to when
            // the queue ran it (became ready); other operations from when
            // they ran, so their submission is not observed apart from it.
            let ready = match &*event.name {
                "alloca" => time.saturating_add(event.duration_ns),
                _ => time,
            };
            events
                .u32(QUEUE_EVENT_LENGTH as u32)
                .u32(queue_event_type(&event.name))
                .u32(0) // flags
                .u32(0) // dependency strategy: not tracked
                .u64(n as u64 + 1) // event id
                .u64(time) // submitted (host ns since the capture began)
                .u64(0) // submission id
                .u64(0) // command buffer id
                .u64(0) // allocation id
                .u64(0) // stream id
                .u32(0) // physical device ordinal
                .u32(0) // queue ordinal
                .u32(0) // wait count
                .u32(0) // signal count
                .u32(0) // barrier count
                .u32(1) // operation count
                .u64(0) // payload length
                .u64(ready);
        }
        chunk(&mut out, CONTENT_TYPE_QUEUE_EVENTS, scope, events);
    }

    if !dispatches.is_empty() {
        let mut events = Writer::default();
        for (n, &(event, label, ordinal, workgroup_count)) in dispatches.iter().enumerate() {
            let index = ids.get(label).copied().unwrap_or(0);
            let workgroup_size = executables
                .get(index)
                .and_then(|e| e.exports.get(ordinal as usize))
                .map_or([1, 1, 1], |e| e.workgroup_size);
            let start = event.start_ns.saturating_add(TICK_BASE);
            events
                .u32(DISPATCH_EVENT_LENGTH as u32)
                .u32(0) // flags
                .u64(n as u64 + 1) // event id
                .u64(0) // submission id: not tracked
                .u64(0) // command buffer id: not tracked
                .u64(index as u64 + 1)
                .u32(u32::MAX) // command index: not tracked
                .u32(ordinal)
                .u32x3(workgroup_count)
                .u32x3(workgroup_size)
                .u64(start)
                .u64(start.saturating_add(event.duration_ns));
        }
        chunk(&mut out, CONTENT_TYPE_DISPATCH_EVENTS, scope, events);
    }

    push_record(
        &mut out,
        RecordType::SessionEnd,
        CONTENT_TYPE_SESSION,
        device,
        None,
        &[],
    );
    let length = out.0.len() as u64;
    out.0[16..24].copy_from_slice(&length.to_le_bytes());
    out.0
}

impl ProfileCapture {
    /// This capture as upstream's `.ireeprof` bundle (see
    /// [`write_bundle`]).
    pub fn to_ireeprof(&self, device: &str) -> Vec<u8> {
        write_bundle(self, device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiling::{EventName, ProfileEvent, ProfileExecutable, Track};

    fn capture() -> ProfileCapture {
        let label: Arc<str> = Arc::from("embedded-elf-x86_64#0");
        let export = |name: &str| ProfileExport {
            name: Arc::from(name),
            constant_count: 1,
            binding_count: 2,
            workgroup_size: [4, 1, 1],
        };
        let dispatch = |name: &str, ordinal, start_ns| ProfileEvent {
            name: EventName::from(Arc::<str>::from(name)),
            kind: EventKind::Dispatch {
                executable: label.clone(),
                ordinal,
                workgroup_count: [14, 1, 1],
            },
            track: Track::Dispatches { queue: 0, lane: 0 },
            start_ns,
            duration_ns: 100,
        };
        ProfileCapture {
            duration_ns: 10_000,
            events: vec![
                dispatch("b", 1, 500),
                dispatch("a", 0, 100),
                ProfileEvent {
                    name: EventName::from("execute"),
                    kind: EventKind::Queue,
                    track: Track::Queue(0),
                    start_ns: 0,
                    duration_ns: 900,
                },
                dispatch("a", 0, 700),
            ],
            executables: vec![Arc::new(ProfileExecutable {
                label: label.clone(),
                exports: vec![export("a"), export("b"), export("never_run")],
            })],
        }
    }

    #[test]
    fn a_bundle_round_trips_dispatches_and_their_exports() {
        let bytes = write_bundle(&capture(), "local-task");
        let bundle = parse_bundle(&bytes).unwrap();
        assert_eq!(bundle.version, (1, 6));
        let types: Vec<_> = bundle.records.iter().map(|r| r.record_type).collect();
        assert_eq!(types.first(), Some(&RecordType::SessionBegin));
        assert_eq!(types.last(), Some(&RecordType::SessionEnd));
        assert!(bundle.records.iter().all(|r| r.name == "local-task"));
        let executables = bundle.executables().unwrap();
        assert_eq!(
            executables,
            [ExecutableRecord {
                executable_id: 1,
                function_count: 3
            }]
        );
        let functions = bundle.functions().unwrap();
        let names: Vec<_> = functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "never_run"]);
        assert_eq!(functions[1].binding_count, 2);
        assert_eq!(functions[1].workgroup_size, [4, 1, 1]);
        let queue = bundle.queue_events().unwrap();
        assert_eq!(queue.len(), 1);
        assert_eq!((queue[0].event_type, queue[0].host_time_ns), (3, 1));
        let events = bundle.dispatch_events().unwrap();
        assert_eq!(events.len(), 3);
        let named: Vec<_> = events
            .iter()
            .map(|e| Bundle::function_name(&functions, e).unwrap())
            .collect();
        // In start order.
        assert_eq!(named, ["a", "b", "a"]);
        assert_eq!(events[0].start_tick, 101);
        assert_eq!(events[0].end_tick, 201);
        assert_eq!(events[1].workgroup_count, [14, 1, 1]);
        assert_eq!(
            usize::try_from(u64::from_le_bytes(bytes[16..24].try_into().unwrap())).unwrap(),
            bytes.len()
        );
    }

    #[test]
    fn executables_only_events_name_are_added() {
        let mut c = capture();
        c.executables.clear();
        let bundle_bytes = write_bundle(&c, "local-sync");
        let bundle = parse_bundle(&bundle_bytes).unwrap();
        let functions = bundle.functions().unwrap();
        let names: Vec<_> = functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(bundle.dispatch_events().unwrap().len(), 3);
    }

    #[test]
    fn an_empty_capture_is_a_valid_bundle() {
        let bytes = write_bundle(&ProfileCapture::default(), "");
        let bundle = parse_bundle(&bytes).unwrap();
        assert!(bundle.dispatch_events().unwrap().is_empty());
        assert!(bundle.functions().unwrap().is_empty());
    }

    #[test]
    fn malformed_bundles_are_errors_not_panics() {
        let good = write_bundle(&capture(), "local-task");
        // Every truncation and every single-byte corruption either parses
        // or fails with a status.
        for len in 0..good.len() {
            let _ = parse_bundle(&good[..len]).and_then(|b| b.dispatch_events().map(|_| ()));
        }
        for i in 0..good.len() {
            for value in [0x00, 0xff, 0x80, 0x7f] {
                let mut bad = good.clone();
                bad[i] = value;
                if let Ok(b) = parse_bundle(&bad) {
                    let _ = b.executables();
                    let _ = b.functions();
                    let _ = b.dispatch_events();
                    let _ = b.queue_events();
                }
            }
        }
        let err = parse_bundle(b"not a bundle at all, no").unwrap_err();
        assert_eq!(err.code(), StatusCode::DataLoss);
        let err = parse_bundle(&good[..100]).unwrap_err();
        assert_eq!(err.code(), StatusCode::DataLoss);
    }
}
