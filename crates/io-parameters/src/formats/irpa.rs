//! IREE parameter archives (`.irpa`): reading and writing.
//!
//! Layout (little-endian, packed): an 88-byte v0 header (`IRPA` magic,
//! version, header size, next-header offset for linked archives, flags,
//! entry count, then entry, metadata and storage segments as header-relative
//! `{offset, length}` ranges), an entry table of 16-byte aligned entries
//! (splat, data, external or skip), a metadata segment holding names, and
//! a storage segment holding data entries at their alignment.

use std::io::Write;

use iree_base::progress::{Progress, ProgressWriter};
use iree_base::{Result, ResultExt, Status, StatusCode};

use super::{ParsedEntry, ParsedSource, Reader};

/// `"IRPA"` read as a little-endian u32.
pub const MAGIC: u32 = 0x4150_5249;
/// Size of the common header prefix.
pub const PREFIX_SIZE: u64 = 32;
/// Size of the version 0 header.
pub const HEADER_V0_SIZE: u64 = 88;
/// Alignment of each entry in the entry table.
pub const ENTRY_ALIGNMENT: u64 = 16;
/// Default alignment of data in the storage segment.
pub const DEFAULT_DATA_ALIGNMENT: u64 = 64;
/// Size of the header shared by every entry type.
const ENTRY_HEADER_SIZE: u64 = 60;
/// Bytes written per step of a large data entry (see [`Progress`]).
const COPY_CHUNK: usize = 8 << 20;
const SPLAT_ENTRY_SIZE: u64 = ENTRY_HEADER_SIZE + 8 + 16 + 1;
const DATA_ENTRY_SIZE: u64 = ENTRY_HEADER_SIZE + 16;
const EXTERNAL_ENTRY_SIZE: u64 = ENTRY_HEADER_SIZE + 32;

/// Entry type codes.
const ENTRY_SKIP: u32 = 0;
const ENTRY_SPLAT: u32 = 1;
const ENTRY_DATA: u32 = 2;
const ENTRY_EXTERNAL: u32 = 3;

/// A header-relative `{offset, length}` range.
#[derive(Clone, Copy, Debug, Default)]
struct Range {
    offset: u64,
    length: u64,
}

impl Range {
    fn read(reader: &mut Reader<'_>, what: &str) -> Result<Range> {
        Ok(Range {
            offset: reader.u64(what)?,
            length: reader.u64(what)?,
        })
    }

    /// `[base + offset, base + offset + length)` as absolute offsets,
    /// checked to lie within `limit` bytes.
    fn absolute(self, base: u64, limit: u64, what: &str) -> Result<(u64, u64)> {
        let start = base.checked_add(self.offset);
        let end = start.and_then(|s| s.checked_add(self.length));
        match (start, end) {
            (Some(start), Some(end)) if end <= limit => Ok((start, end)),
            _ => Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "{what} out of range (offset {} + {} + length {}, file is {limit} bytes)",
                    base, self.offset, self.length
                ),
            )),
        }
    }
}

/// The v0 header fields we use.
struct HeaderV0 {
    entry_count: u64,
    entries: (u64, u64),
    metadata: (u64, u64),
    storage: (u64, u64),
}

/// Parses every archive in a file (following `next_header_offset` links).
pub fn parse(bytes: &[u8]) -> Result<Vec<ParsedEntry>> {
    let mut entries = Vec::new();
    let mut base = 0u64;
    loop {
        let next = parse_archive(bytes, base, &mut entries)
            .annotate_with(|| format!("archive header at offset {base}"))?;
        match next {
            // Offsets only grow (a checked add of a non-zero value), so the
            // chain ends.
            Some(next) => base = next,
            None => return Ok(entries),
        }
    }
}

/// Parses the archive whose header starts at `base`; returns the absolute
/// offset of the next linked header, if any.
fn parse_archive(bytes: &[u8], base: u64, entries: &mut Vec<ParsedEntry>) -> Result<Option<u64>> {
    let file_size = bytes.len() as u64;
    if base
        .checked_add(PREFIX_SIZE)
        .is_none_or(|end| end > file_size)
    {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "not enough bytes for a valid IRPA header; file may be empty or truncated",
        ));
    }
    let mut reader = Reader::at(bytes, base, "header")?;
    let magic = reader.u32("header magic")?;
    if magic != MAGIC {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("IRPA file magic missing or invalid {magic:08X}; expected {MAGIC:08X}"),
        ));
    }
    let version_major = reader.u16("header version")?;
    let version_minor = reader.u16("header version")?;
    let header_size = reader.u64("header size")?;
    let next_header_offset = reader.u64("next header offset")?;
    let _flags = reader.u64("header flags")?;
    if base
        .checked_add(header_size)
        .is_none_or(|end| end > file_size)
    {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!(
                "file buffer underrun parsing header of reported size {header_size} (only {file_size} bytes available)"
            ),
        ));
    }
    let next = if next_header_offset == 0 {
        None
    } else {
        let next = base.checked_add(next_header_offset);
        if next
            .and_then(|n| n.checked_add(PREFIX_SIZE))
            .is_none_or(|end| end > file_size)
        {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "file buffer underrun verifying linked header at offset {} (only {file_size} bytes available)",
                    base.saturating_add(next_header_offset)
                ),
            ));
        }
        next
    };
    if version_major != 0 {
        return Err(Status::new(
            StatusCode::Unimplemented,
            format!(
                "IRPA major version {version_major}.{version_minor} not supported by this runtime"
            ),
        ));
    }
    if version_minor > 0 {
        return Err(Status::new(
            StatusCode::Unimplemented,
            format!(
                "IRPA version {version_major}.{version_minor} not supported (major supported but minor is newer than the runtime trying to parse it)"
            ),
        ));
    }
    if header_size != HEADER_V0_SIZE {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "IRPA v0 header expected to be exactly {HEADER_V0_SIZE} bytes but was reported as {header_size}"
            ),
        ));
    }
    let entry_count = reader.u64("entry count")?;
    let entry_range = Range::read(&mut reader, "entry segment")?;
    let metadata_range = Range::read(&mut reader, "metadata segment")?;
    let storage_range = Range::read(&mut reader, "storage segment")?;
    let header = HeaderV0 {
        entry_count,
        entries: entry_range
            .absolute(base, file_size, "entry table")
            .annotate("verifying entry table")?,
        metadata: metadata_range
            .absolute(base, file_size, "metadata segment")
            .annotate("verifying metadata segment")?,
        storage: storage_range
            .absolute(base, file_size, "storage segment")
            .annotate("verifying storage segment")?,
    };
    parse_entries(bytes, &header, entries)?;
    Ok(next)
}

/// Resolves a metadata-segment reference to its bytes.
fn metadata_bytes<'a>(
    bytes: &'a [u8],
    header: &HeaderV0,
    range: Range,
    what: &str,
) -> Result<&'a [u8]> {
    if range.length == 0 {
        return Ok(&[]);
    }
    let (segment_start, segment_end) = header.metadata;
    let (start, end) = range.absolute(segment_start, segment_end, what)?;
    Ok(&bytes[start as usize..end as usize])
}

fn parse_entries(bytes: &[u8], header: &HeaderV0, entries: &mut Vec<ParsedEntry>) -> Result<()> {
    let (table_start, table_end) = header.entries;
    let mut offset = table_start;
    for i in 0..header.entry_count {
        let remaining = table_end - offset;
        if remaining < ENTRY_HEADER_SIZE {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "entry table truncated; insufficient bytes for base entry header of entry {i}"
                ),
            ));
        }
        let table = &bytes[..table_end as usize];
        let mut reader = Reader::at(table, offset, "entry header")?;
        let entry_size = reader.u64("entry size")?;
        if entry_size < ENTRY_HEADER_SIZE || remaining < entry_size {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!("entry table truncated; insufficient bytes for sized header of entry {i}"),
            ));
        }
        let entry_type = reader.u32("entry type")?;
        let _flags = reader.u64("entry flags")?;
        let name = Range::read(&mut reader, "entry name")?;
        let metadata = Range::read(&mut reader, "entry metadata")?;
        let _minimum_alignment = reader.u64("entry alignment")?;
        let key =
            metadata_bytes(bytes, header, name, "entry name").annotate("resolving entry name")?;
        let metadata = metadata_bytes(bytes, header, metadata, "entry metadata")
            .annotate("resolving entry metadata")?;
        let describe = || format!("entry {i} (`{}`)", String::from_utf8_lossy(key));
        let body_size_check = |needed: u64, kind: &str| {
            if entry_size < needed {
                Err(Status::new(
                    StatusCode::OutOfRange,
                    format!("{kind} entry length underflow ({entry_size} < {needed} bytes)"),
                ))
            } else {
                Ok(())
            }
        };
        let parsed = match entry_type {
            ENTRY_SKIP => None,
            ENTRY_SPLAT => {
                body_size_check(SPLAT_ENTRY_SIZE, "splat").annotate_with(describe)?;
                let length = reader.u64("splat length")?;
                let pattern: [u8; 16] = reader.array("splat pattern")?;
                let pattern_length = reader.u8("splat pattern length")?;
                if !matches!(pattern_length, 1 | 2 | 4 | 8 | 16) {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        format!(
                            "splat pattern length {pattern_length} must be 1, 2, 4, 8 or 16 bytes"
                        ),
                    ))
                    .annotate_with(describe);
                }
                Some((
                    length,
                    ParsedSource::Splat {
                        pattern,
                        pattern_length,
                    },
                ))
            }
            ENTRY_DATA => {
                body_size_check(DATA_ENTRY_SIZE, "data").annotate_with(describe)?;
                let storage = Range::read(&mut reader, "data storage")?;
                let (segment_start, segment_end) = header.storage;
                let offset = if storage.length == 0 {
                    segment_start
                } else {
                    storage
                        .absolute(segment_start, segment_end, "storage segment reference")
                        .annotate_with(describe)?
                        .0
                };
                Some((storage.length, ParsedSource::Data { offset }))
            }
            ENTRY_EXTERNAL => {
                body_size_check(EXTERNAL_ENTRY_SIZE, "external").annotate_with(describe)?;
                let path = Range::read(&mut reader, "external path")?;
                let range = Range::read(&mut reader, "external range")?;
                let path =
                    metadata_bytes(bytes, header, path, "external path").annotate_with(describe)?;
                range.offset.checked_add(range.length).ok_or_else(|| {
                    Status::new(StatusCode::OutOfRange, "external range overflows")
                })?;
                Some((
                    range.length,
                    ParsedSource::External {
                        path: path.into(),
                        offset: range.offset,
                    },
                ))
            }
            other => {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    format!("parser does not support entry type {other}"),
                ))
                .annotate_with(describe)
            }
        };
        if let Some((length, source)) = parsed {
            entries.push(ParsedEntry {
                key: key.into(),
                metadata: metadata.into(),
                length,
                source,
            });
        }
        // The table is 16-byte aligned; the last entry's padding may be
        // missing.
        offset = offset
            .checked_add(align(entry_size, ENTRY_ALIGNMENT))
            .map(|next| next.min(table_end))
            .unwrap_or(table_end);
    }
    Ok(())
}

fn align(value: u64, alignment: u64) -> u64 {
    value.div_ceil(alignment).saturating_mul(alignment)
}

/// What a written data entry contains.
#[derive(Clone, Debug)]
pub enum DataContents {
    /// Zeros.
    Zeros,
    /// A pattern repeated over the whole entry.
    Pattern(Vec<u8>),
    /// Exactly these bytes.
    Bytes(Vec<u8>),
    /// The entry's length in bytes of a file starting at an offset
    /// (streamed from its mapping when written, not copied up front).
    FileRange(std::sync::Arc<crate::ParameterFile>, u64),
}

/// One entry to write.
#[derive(Clone, Debug)]
pub enum BuilderEntry {
    /// A splat of `pattern` (1, 2, 4, 8 or 16 bytes) over `length` bytes.
    Splat {
        /// Key.
        key: Vec<u8>,
        /// Length in bytes.
        length: u64,
        /// Pattern bytes.
        pattern: Vec<u8>,
    },
    /// `length` bytes stored in the archive.
    Data {
        /// Key.
        key: Vec<u8>,
        /// Length in bytes.
        length: u64,
        /// Contents.
        contents: DataContents,
    },
    /// `length` bytes at `offset` of another file.
    External {
        /// Key.
        key: Vec<u8>,
        /// The other file's path (relative to the archive's directory or
        /// absolute).
        path: Vec<u8>,
        /// Offset in that file.
        offset: u64,
        /// Length in bytes.
        length: u64,
    },
}

impl BuilderEntry {
    fn key(&self) -> &[u8] {
        match self {
            BuilderEntry::Splat { key, .. }
            | BuilderEntry::Data { key, .. }
            | BuilderEntry::External { key, .. } => key,
        }
    }
}

/// Writes a single-archive `.irpa` file: header, entry table, metadata
/// (names, then external paths) and data storage at `alignment`; the file
/// is padded to 4096 bytes as upstream's writer does.
#[derive(Debug)]
pub struct IrpaBuilder {
    entries: Vec<BuilderEntry>,
    alignment: u64,
}

impl Default for IrpaBuilder {
    fn default() -> Self {
        IrpaBuilder {
            entries: Vec::new(),
            alignment: DEFAULT_DATA_ALIGNMENT,
        }
    }
}

impl IrpaBuilder {
    /// A builder with the default 64-byte data alignment.
    pub fn new() -> IrpaBuilder {
        IrpaBuilder::default()
    }

    /// Sets the data alignment (a power of two).
    pub fn with_alignment(mut self, alignment: u64) -> Result<IrpaBuilder> {
        if !alignment.is_power_of_two() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("alignment {alignment} must be a power of two"),
            ));
        }
        self.alignment = alignment;
        Ok(self)
    }

    /// Adds an entry.
    pub fn add(&mut self, entry: BuilderEntry) -> Result<()> {
        match &entry {
            BuilderEntry::Splat {
                pattern, length, ..
            } => {
                if !matches!(pattern.len(), 1 | 2 | 4 | 8 | 16) {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        format!(
                            "splat patterns are 1, 2, 4, 8 or 16 bytes (got {})",
                            pattern.len()
                        ),
                    ));
                }
                if length % pattern.len() as u64 != 0 {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        format!(
                            "splat length {length} is not a multiple of the {}-byte pattern",
                            pattern.len()
                        ),
                    ));
                }
            }
            BuilderEntry::Data {
                contents: DataContents::FileRange(file, offset),
                length,
                ..
            } => {
                file.range(*offset, *length)?;
            }
            BuilderEntry::Data {
                contents: DataContents::Pattern(p),
                ..
            } if p.is_empty() => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    "data pattern must not be empty",
                ));
            }
            BuilderEntry::Data {
                contents: DataContents::Bytes(b),
                length,
                ..
            } if b.len() as u64 != *length => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!("data entry has {} bytes but a length of {length}", b.len()),
                ));
            }
            _ => {}
        }
        self.entries.push(entry);
        Ok(())
    }

    /// The bytes of data entries the archive stores (what most of writing
    /// it is).
    fn storage_bytes(&self) -> u64 {
        self.entries
            .iter()
            .map(|e| match e {
                BuilderEntry::Data { length, .. } => *length,
                _ => 0,
            })
            .sum()
    }

    /// Writes the archive to `out`, returning the number of bytes written.
    pub fn write(&self, out: &mut impl Write) -> Result<u64> {
        let io = |e: std::io::Error| {
            Status::new(StatusCode::Unavailable, format!("writing archive: {e}"))
        };
        // Entry table.
        let entry_sizes: Vec<u64> = self
            .entries
            .iter()
            .map(|e| match e {
                BuilderEntry::Splat { .. } => SPLAT_ENTRY_SIZE,
                BuilderEntry::Data { .. } => DATA_ENTRY_SIZE,
                BuilderEntry::External { .. } => EXTERNAL_ENTRY_SIZE,
            })
            .collect();
        let table_offset = align(HEADER_V0_SIZE, ENTRY_ALIGNMENT);
        // Each entry starts 16-byte aligned; the last one is not padded (as
        // upstream's writer lays tables out, so archives match byte for byte).
        let table_length: u64 = entry_sizes
            .iter()
            .map(|&s| align(s, ENTRY_ALIGNMENT))
            .sum::<u64>()
            - entry_sizes
                .last()
                .map_or(0, |&last| align(last, ENTRY_ALIGNMENT) - last);
        // Metadata: names, then external paths.
        let mut metadata = Vec::new();
        let mut name_refs = Vec::new();
        let mut path_refs = Vec::new();
        for entry in &self.entries {
            name_refs.push((metadata.len() as u64, entry.key().len() as u64));
            metadata.extend_from_slice(entry.key());
        }
        for entry in &self.entries {
            if let BuilderEntry::External { path, .. } = entry {
                path_refs.push((metadata.len() as u64, path.len() as u64));
                metadata.extend_from_slice(path);
            } else {
                path_refs.push((0, 0));
            }
        }
        let metadata_offset = table_offset + table_length;
        let metadata_end = metadata_offset + metadata.len() as u64;
        let has_data = self
            .entries
            .iter()
            .any(|e| matches!(e, BuilderEntry::Data { .. }));
        // An archive without data places its (empty) storage segment right
        // after the metadata, as upstream's writer does.
        let storage_offset = if has_data {
            align(metadata_end, self.alignment)
        } else {
            metadata_end
        };
        // Storage: each data entry aligned.
        let mut storage_refs = Vec::new();
        let mut storage_length = 0u64;
        for entry in &self.entries {
            if let BuilderEntry::Data { length, .. } = entry {
                let at = align(storage_length, self.alignment);
                storage_refs.push((at, *length));
                storage_length = at + length;
            } else {
                storage_refs.push((0, 0));
            }
        }
        let mut header = Vec::with_capacity(table_offset as usize);
        header.extend_from_slice(&MAGIC.to_le_bytes());
        header.extend_from_slice(&0u16.to_le_bytes());
        header.extend_from_slice(&0u16.to_le_bytes());
        header.extend_from_slice(&HEADER_V0_SIZE.to_le_bytes());
        header.extend_from_slice(&0u64.to_le_bytes()); // next header
        header.extend_from_slice(&0u64.to_le_bytes()); // flags
        header.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for (offset, length) in [
            (table_offset, table_length),
            (metadata_offset, metadata.len() as u64),
            (storage_offset, storage_length),
        ] {
            header.extend_from_slice(&offset.to_le_bytes());
            header.extend_from_slice(&length.to_le_bytes());
        }
        header.resize(table_offset as usize, 0);
        let mut table = Vec::with_capacity(table_length as usize);
        for (i, entry) in self.entries.iter().enumerate() {
            let start = table.len();
            let (entry_type, minimum_alignment) = match entry {
                BuilderEntry::Splat { .. } => (ENTRY_SPLAT, 0),
                BuilderEntry::Data { .. } => (ENTRY_DATA, self.alignment),
                BuilderEntry::External { .. } => (ENTRY_EXTERNAL, 0),
            };
            table.extend_from_slice(&entry_sizes[i].to_le_bytes());
            table.extend_from_slice(&entry_type.to_le_bytes());
            table.extend_from_slice(&0u64.to_le_bytes()); // flags
            table.extend_from_slice(&name_refs[i].0.to_le_bytes());
            table.extend_from_slice(&name_refs[i].1.to_le_bytes());
            table.extend_from_slice(&0u64.to_le_bytes()); // metadata
            table.extend_from_slice(&0u64.to_le_bytes());
            table.extend_from_slice(&minimum_alignment.to_le_bytes());
            match entry {
                BuilderEntry::Splat {
                    length, pattern, ..
                } => {
                    table.extend_from_slice(&length.to_le_bytes());
                    let mut padded = [0u8; 16];
                    padded[..pattern.len()].copy_from_slice(pattern);
                    table.extend_from_slice(&padded);
                    table.push(pattern.len() as u8);
                }
                BuilderEntry::Data { .. } => {
                    table.extend_from_slice(&storage_refs[i].0.to_le_bytes());
                    table.extend_from_slice(&storage_refs[i].1.to_le_bytes());
                }
                BuilderEntry::External { offset, length, .. } => {
                    table.extend_from_slice(&path_refs[i].0.to_le_bytes());
                    table.extend_from_slice(&path_refs[i].1.to_le_bytes());
                    table.extend_from_slice(&offset.to_le_bytes());
                    table.extend_from_slice(&length.to_le_bytes());
                }
            }
            if i + 1 < entry_sizes.len() {
                table.resize(start + align(entry_sizes[i], ENTRY_ALIGNMENT) as usize, 0);
            }
        }
        out.write_all(&header).map_err(io)?;
        out.write_all(&table).map_err(io)?;
        out.write_all(&metadata).map_err(io)?;
        let mut written = metadata_offset + metadata.len() as u64;
        let zeros = vec![0u8; 1 << 16];
        let pad_to = |out: &mut dyn Write, written: &mut u64, target: u64| -> Result<()> {
            while *written < target {
                let n = (target - *written).min(zeros.len() as u64) as usize;
                out.write_all(&zeros[..n]).map_err(io)?;
                *written += n as u64;
            }
            Ok(())
        };
        pad_to(out, &mut written, storage_offset)?;
        for (entry, &(at, length)) in self.entries.iter().zip(&storage_refs) {
            let BuilderEntry::Data { contents, .. } = entry else {
                continue;
            };
            pad_to(out, &mut written, storage_offset + at)?;
            match contents {
                DataContents::Zeros => pad_to(out, &mut written, storage_offset + at + length)?,
                DataContents::Bytes(bytes) => {
                    for chunk in bytes.chunks(COPY_CHUNK) {
                        out.write_all(chunk).map_err(io)?;
                    }
                    written += length;
                }
                DataContents::FileRange(file, offset) => {
                    // In steps, so progress moves while a large entry copies.
                    for chunk in file.range(*offset, length)?.chunks(COPY_CHUNK) {
                        out.write_all(chunk).map_err(io)?;
                    }
                    written += length;
                }
                DataContents::Pattern(pattern) => {
                    let chunk: Vec<u8> = pattern
                        .iter()
                        .copied()
                        .cycle()
                        .take(pattern.len().max(1 << 16) / pattern.len() * pattern.len())
                        .collect();
                    let mut left = length;
                    while left > 0 {
                        let n = left.min(chunk.len() as u64) as usize;
                        out.write_all(&chunk[..n]).map_err(io)?;
                        left -= n as u64;
                    }
                    written += length;
                }
            }
        }
        let end = align(written, 4096);
        pad_to(out, &mut written, end)?;
        Ok(written)
    }

    /// Writes the archive to a new file at `path` and indexes what was
    /// written (which also checks it parses), as the archive tools report.
    pub fn write_file_indexed(
        &self,
        path: impl AsRef<std::path::Path>,
    ) -> Result<crate::ParameterIndex> {
        let path = path.as_ref();
        self.write_file(path)?;
        let mut index = crate::ParameterIndex::new();
        let file = std::sync::Arc::new(crate::ParameterFile::open(path, crate::FileMode::Mapped)?);
        super::parse_file_index(
            super::Format::Irpa,
            file,
            crate::FileMode::Mapped,
            &mut index,
        )
        .annotate_with(|| format!("parsing the written archive `{}`", path.display()))?;
        Ok(index)
    }

    /// Writes the archive to a new file at `path`.
    pub fn write_file(&self, path: impl AsRef<std::path::Path>) -> Result<u64> {
        let path = path.as_ref();
        let _span = tracing::debug_span!("io_parameters.write_archive", path = %path.display(), entries = self.entries.len()).entered();
        let file = std::fs::File::create(path).map_err(|e| {
            Status::new(
                StatusCode::Unavailable,
                format!("creating `{}`: {e}", path.display()),
            )
        })?;
        let mut progress =
            Progress::start(&format!("writing {}", path.display()), self.storage_bytes());
        let mut out =
            std::io::BufWriter::with_capacity(1 << 20, ProgressWriter::new(file, &mut progress));
        let written = self.write(&mut out)?;
        out.flush().map_err(|e| {
            Status::new(
                StatusCode::Unavailable,
                format!("writing `{}`: {e}", path.display()),
            )
        })?;
        Ok(written)
    }
}
