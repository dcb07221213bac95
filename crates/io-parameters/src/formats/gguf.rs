//! GGUF files (versions 2 and 3): tensor infos become parameters keyed by
//! tensor name.
//!
//! GGUF stores no tensor sizes, so each size is computed from the GGML
//! type's block size and bytes per block. Types 0 to 18 follow upstream
//! IREE's table exactly (its 16, 17 and 18 are I8, I16 and I32, from an
//! older GGML numbering); upstream rejects every later type, and so do we
//! except the plain ones current GGML defines (I8 24, I16 25, I32 26,
//! I64 27, F64 28, BF16 30), which we also accept.

use iree_base::{Result, ResultExt, Status, StatusCode};

use super::{ParsedEntry, ParsedSource, Reader};

/// `"GGUF"` read as a little-endian u32.
pub const MAGIC: u32 = 0x4655_4747;
/// Tensor data alignment when the file sets no `general.alignment`.
pub const DEFAULT_ALIGNMENT: u64 = 32;

/// Elements per block and bytes per block of a GGML tensor type.
fn type_traits(ggml_type: u32) -> Option<(u64, u64)> {
    Some(match ggml_type {
        0 => (1, 4),      // F32
        1 => (1, 2),      // F16
        2 => (32, 18),    // Q4_0
        3 => (32, 20),    // Q4_1
        6 => (32, 22),    // Q5_0
        7 => (32, 24),    // Q5_1
        8 => (32, 34),    // Q8_0
        9 => (32, 40),    // Q8_1
        10 => (256, 84),  // Q2_K
        11 => (256, 110), // Q3_K
        12 => (256, 144), // Q4_K
        13 => (256, 176), // Q5_K
        14 => (256, 210), // Q6_K
        15 => (256, 292), // Q8_K
        16 => (1, 1),     // I8 (upstream IREE's numbering)
        17 => (1, 2),     // I16 (upstream IREE's numbering)
        18 => (1, 4),     // I32 (upstream IREE's numbering)
        24 => (1, 1),     // I8
        25 => (1, 2),     // I16
        26 => (1, 4),     // I32
        27 => (1, 8),     // I64
        28 => (1, 8),     // F64
        30 => (1, 2),     // BF16
        _ => return None,
    })
}

/// Metadata value type codes.
mod value_type {
    pub const UINT8: u32 = 0;
    pub const INT8: u32 = 1;
    pub const UINT16: u32 = 2;
    pub const INT16: u32 = 3;
    pub const UINT32: u32 = 4;
    pub const INT32: u32 = 5;
    pub const FLOAT32: u32 = 6;
    pub const BOOL: u32 = 7;
    pub const STRING: u32 = 8;
    pub const ARRAY: u32 = 9;
    pub const UINT64: u32 = 10;
    pub const INT64: u32 = 11;
    pub const FLOAT64: u32 = 12;
}

/// Bytes of a fixed-size metadata value type.
fn scalar_size(ty: u32) -> Option<u64> {
    use value_type::*;
    Some(match ty {
        UINT8 | INT8 | BOOL => 1,
        UINT16 | INT16 => 2,
        UINT32 | INT32 | FLOAT32 => 4,
        UINT64 | INT64 | FLOAT64 => 8,
        _ => return None,
    })
}

fn string<'a>(reader: &mut Reader<'a>, what: &str) -> Result<&'a [u8]> {
    let length = reader.u64(what)?;
    reader.take(length, what)
}

fn unsupported_type(ty: u32) -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        format!("unsupported metadata value type {ty}"),
    )
}

/// Skips one metadata value, returning a u32 scalar's value when it is one.
fn skip_value(reader: &mut Reader<'_>, ty: u32) -> Result<Option<u32>> {
    if ty == value_type::UINT32 {
        return Ok(Some(reader.u32("metadata value")?));
    }
    if let Some(size) = scalar_size(ty) {
        reader.take(size, "metadata value")?;
        return Ok(None);
    }
    match ty {
        value_type::STRING => {
            string(reader, "metadata string")?;
        }
        value_type::ARRAY => {
            let element_type = reader.u32("metadata array type")?;
            let count = reader.u64("metadata array length")?;
            if let Some(size) = scalar_size(element_type) {
                let total = count.checked_mul(size).ok_or_else(|| {
                    Status::new(StatusCode::OutOfRange, "metadata array length overflows")
                })?;
                reader.take(total, "metadata array")?;
            } else if element_type == value_type::STRING {
                // Each string is at least 8 bytes, so a truncated file ends
                // this loop after at most len/8 iterations.
                for _ in 0..count {
                    string(reader, "metadata array string")?;
                }
            } else if element_type == value_type::ARRAY {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    "nested arrays not supported in gguf",
                ));
            } else {
                return Err(unsupported_type(element_type));
            }
        }
        _ => return Err(unsupported_type(ty)),
    }
    Ok(None)
}

/// One tensor info record.
struct TensorInfo<'a> {
    name: &'a [u8],
    ggml_type: u32,
    element_count: Option<u64>,
    offset: u64,
}

fn tensor_info<'a>(reader: &mut Reader<'a>) -> Result<TensorInfo<'a>> {
    let name = string(reader, "tensor name")?;
    let rank = reader.u32("tensor rank")?;
    let dims = reader.take(u64::from(rank) * 8, "tensor dimensions")?;
    let element_count = dims
        .chunks_exact(8)
        .map(|d| u64::from_le_bytes(d.try_into().expect("8-byte chunk")))
        .try_fold(1u64, |acc, d| acc.checked_mul(d));
    let ggml_type = reader.u32("tensor type")?;
    let offset = reader.u64("tensor offset")?;
    Ok(TensorInfo {
        name,
        ggml_type,
        element_count,
        offset,
    })
}

/// Parses a GGUF file.
pub fn parse(bytes: &[u8]) -> Result<Vec<ParsedEntry>> {
    let mut reader = Reader::new(bytes);
    let magic = reader.u32("header magic")?;
    if magic != MAGIC {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("GGUF file magic missing or invalid {magic:08X}; expected {MAGIC:08X}"),
        ));
    }
    let version = reader.u32("header version")?;
    if !(2..=3).contains(&version) {
        return Err(Status::new(
            StatusCode::Unimplemented,
            format!("GGUF format version {version} is unsupported; expected version 2-3"),
        ));
    }
    let tensor_count = reader.u64("tensor count")?;
    let metadata_count = reader.u64("metadata count")?;
    if tensor_count == 0 {
        return Ok(Vec::new());
    }
    let mut alignment = DEFAULT_ALIGNMENT;
    for i in 0..metadata_count {
        let key = string(&mut reader, "metadata key")?;
        let ty = reader.u32("metadata value type")?;
        let value = skip_value(&mut reader, ty)
            .annotate_with(|| format!("metadata entry {i} (`{}`)", String::from_utf8_lossy(key)))?;
        if key == b"general.alignment" {
            match value {
                Some(value) if value.is_power_of_two() => alignment = u64::from(value),
                Some(value) => {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        format!("general.alignment must be a power of two (got {value})"),
                    ))
                }
                None => {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        "general.alignment metadata value must be uint32",
                    ))
                }
            }
        }
    }
    // Tensor infos are variable length: read them all to find where the
    // data starts, then resolve each against it.
    let mut infos = Vec::new();
    for i in 0..tensor_count {
        infos.push(tensor_info(&mut reader).annotate_with(|| format!("tensor info {i}"))?);
    }
    let data_offset = (reader.position() as u64)
        .div_ceil(alignment)
        .saturating_mul(alignment);
    let data_size = (bytes.len() as u64)
        .checked_sub(data_offset)
        .ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                format!(
                    "tensor data would start at offset {data_offset}, past the end of the {}-byte file; the file may be truncated",
                    bytes.len()
                ),
            )
        })?;
    let mut entries = Vec::with_capacity(infos.len());
    for info in infos {
        let name = String::from_utf8_lossy(info.name);
        let (block, block_bytes) = type_traits(info.ggml_type).ok_or_else(|| {
            Status::new(
                StatusCode::Unimplemented,
                format!(
                    "GGML tensor type {} not supported (tensor `{name}`)",
                    info.ggml_type
                ),
            )
        })?;
        let length = info
            .element_count
            .and_then(|count| count.checked_mul(block_bytes))
            .map(|bytes| bytes / block)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    format!("tensor `{name}` size overflows"),
                )
            })?;
        let end = info.offset.checked_add(length);
        if end.is_none_or(|end| end > data_size) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "entry has data offsets outside of the available data (begin={}, end={}, available={data_size}) (tensor `{name}`); the file may be truncated",
                    info.offset,
                    info.offset.saturating_add(length)
                ),
            ));
        }
        entries.push(ParsedEntry {
            key: info.name.into(),
            metadata: Box::default(),
            length,
            source: ParsedSource::Data {
                offset: data_offset + info.offset,
            },
        });
    }
    Ok(entries)
}
