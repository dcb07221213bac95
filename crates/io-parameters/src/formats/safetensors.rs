//! Hugging Face safetensors files, read with the `safetensors` crate: an
//! 8-byte little-endian header length, a JSON header naming each tensor's
//! dtype, shape and `[begin, end)` data offsets (relative to the end of the
//! header), then the data. The crate validates the header (offsets
//! contiguous, sizes matching dtype and shape, the data filling the rest of
//! the file), which is stricter than upstream IREE's own parser.

use iree_base::{Result, Status, StatusCode};
use safetensors::SafeTensors;

use super::{ParsedEntry, ParsedSource};

/// Parses a safetensors file; entries come in data order.
pub fn parse(bytes: &[u8]) -> Result<Vec<ParsedEntry>> {
    let (header_length, metadata) = SafeTensors::read_metadata(bytes).map_err(|e| {
        Status::new(
            StatusCode::InvalidArgument,
            format!("invalid safetensors header: {e}"),
        )
    })?;
    let base = 8 + header_length as u64;
    let mut entries = Vec::new();
    for key in metadata.offset_keys() {
        let Some(info) = metadata.info(&key) else {
            continue;
        };
        let (begin, end) = info.data_offsets;
        entries.push(ParsedEntry {
            key: key.into_bytes().into_boxed_slice(),
            metadata: Box::default(),
            length: (end - begin) as u64,
            source: ParsedSource::Data {
                offset: base + begin as u64,
            },
        });
    }
    Ok(entries)
}
