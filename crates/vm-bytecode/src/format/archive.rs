//! The outer wrapper of a `.vmfb`: an optional ZIP local file header, the
//! size-prefixed flatbuffer, and the external rodata area after it.

use std::ops::Range;

use iree_base::{bail, Result};

/// Signature of a ZIP local file header (`PK\x03\x04`, little-endian).
pub const ZIP_LOCAL_FILE_HEADER_SIGNATURE: u32 = 0x0403_4B50;

/// Size of the fixed part of a ZIP local file header.
pub const ZIP_LOCAL_FILE_HEADER_SIZE: usize = 30;

/// Alignment of every segment of the archive; external rodata offsets are
/// relative to the end of the flatbuffer rounded up to this.
pub const ARCHIVE_SEGMENT_ALIGNMENT: usize = 64;

/// The smallest flatbuffer area (size prefix included) the header parser
/// accepts, as upstream does.
pub const MIN_FLATBUFFER_SIZE: usize = 16;

/// Where the parts of a `.vmfb` file image lie. All offsets are absolute
/// offsets into the file and are within it, except `rodata_base`, which may
/// point past the end of a file that has no external rodata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveLayout {
    /// Whether a ZIP local file header was skipped to find the flatbuffer.
    pub zip_wrapped: bool,
    /// Offset of the little-endian u32 size prefix of the flatbuffer.
    pub size_prefix_offset: usize,
    /// The flatbuffer bytes, size prefix excluded (length = the prefix value).
    pub flatbuffer: Range<usize>,
    /// Base of external rodata: the flatbuffer end aligned up to
    /// [`ARCHIVE_SEGMENT_ALIGNMENT`].
    pub rodata_base: usize,
}

impl ArchiveLayout {
    /// The size prefix and the flatbuffer together (the range a verifier of
    /// a size-prefixed buffer wants).
    pub fn size_prefixed_flatbuffer(&self) -> Range<usize> {
        self.size_prefix_offset..self.flatbuffer.end
    }
}

fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Rounds `value` up to a multiple of `alignment` (a power of two), or `None`
/// on overflow.
pub(crate) fn align_up(value: usize, alignment: usize) -> Option<usize> {
    debug_assert!(alignment.is_power_of_two());
    Some(value.checked_add(alignment - 1)? & !(alignment - 1))
}

/// Locates the flatbuffer inside a `.vmfb` image: skips a ZIP local file
/// header if the file starts with one, reads the size prefix and checks that
/// the flatbuffer it announces is inside `file`.
///
/// Nothing inside the flatbuffer is looked at; see
/// [`parse_module`](super::parse_module) for that.
pub fn parse_archive_header(file: &[u8]) -> Result<ArchiveLayout> {
    let mut zip_wrapped = false;
    let mut start = 0usize;
    if file.len() >= ZIP_LOCAL_FILE_HEADER_SIZE
        && read_u32(file, 0) == Some(ZIP_LOCAL_FILE_HEADER_SIGNATURE)
    {
        // Name and extra-field lengths are at offsets 26 and 28 of the
        // header; the file contents follow both.
        let name_len = read_u16(file, 26).unwrap_or(0) as usize;
        let extra_len = read_u16(file, 28).unwrap_or(0) as usize;
        let offset = ZIP_LOCAL_FILE_HEADER_SIZE + name_len + extra_len;
        if offset > file.len() {
            bail!(
                InvalidArgument,
                "archive self-reports as a zip but does not have enough data to contain a module"
            );
        }
        zip_wrapped = true;
        start = offset;
    }

    let available = file.len() - start;
    if available < MIN_FLATBUFFER_SIZE {
        bail!(
            InvalidArgument,
            "FlatBuffer data is not present or less than {MIN_FLATBUFFER_SIZE} bytes ({available} total)"
        );
    }
    let prefix = read_u32(file, start).unwrap_or(0) as usize;
    let remaining = available - 4;
    if prefix > remaining {
        bail!(
            InvalidArgument,
            "FlatBuffer length prefix out of bounds (prefix is {prefix} but only {remaining} available)"
        );
    }
    let flatbuffer = start + 4..start + 4 + prefix;
    let Some(rodata_base) = align_up(flatbuffer.end, ARCHIVE_SEGMENT_ALIGNMENT) else {
        bail!(OutOfRange, "rodata base offset overflows");
    };
    Ok(ArchiveLayout {
        zip_wrapped,
        size_prefix_offset: start,
        flatbuffer,
        rodata_base,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use iree_base::StatusCode;

    #[test]
    fn bare_layout() {
        let mut file = vec![0u8; 100];
        file[0..4].copy_from_slice(&20u32.to_le_bytes());
        let layout = parse_archive_header(&file).unwrap();
        assert!(!layout.zip_wrapped);
        assert_eq!(layout.flatbuffer, 4..24);
        assert_eq!(layout.rodata_base, 64);
    }

    #[test]
    fn zip_layout_and_truncation() {
        let mut file = vec![0u8; 128];
        file[0..4].copy_from_slice(b"PK\x03\x04");
        file[26..28].copy_from_slice(&9u16.to_le_bytes());
        file[28..30].copy_from_slice(&25u16.to_le_bytes());
        file[64..68].copy_from_slice(&60u32.to_le_bytes());
        let layout = parse_archive_header(&file).unwrap();
        assert!(layout.zip_wrapped);
        assert_eq!(layout.size_prefix_offset, 64);
        assert_eq!(layout.flatbuffer, 68..128);
        assert_eq!(layout.rodata_base, 128);

        let err = parse_archive_header(&file[..127]).unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument);
        assert!(
            err.message().contains("length prefix out of bounds"),
            "{err}"
        );
        let err = parse_archive_header(&file[..60]).unwrap_err();
        assert!(err.message().contains("self-reports as a zip"), "{err}");
        let err = parse_archive_header(&file[..70]).unwrap_err();
        assert!(
            err.message().contains("less than 16 bytes (6 total)"),
            "{err}"
        );
    }
}
