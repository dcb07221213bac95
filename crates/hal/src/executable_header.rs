//! The 64-byte header IREE's compiler puts in front of flatbuffer-based
//! executables (`cuda-nvptx-fb`, `rocm-hsaco-fb`, ...): a 4-byte magic equal
//! to the flatbuffer's file identifier (`CDA1`, `HIP1`), a `u32` version
//! (0), a `u64` content size, then 48 reserved bytes; the flatbuffer follows.
//! Checked as upstream's `iree_hal_read_executable_flatbuffer_header` checks
//! it, with the same status codes.

use iree_base::{Result, Status, StatusCode};

/// Size of the header in bytes.
pub const EXECUTABLE_HEADER_SIZE: usize = 64;

/// The fields of a parsed header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecutableHeader {
    /// The magic (the flatbuffer's file identifier).
    pub magic: [u8; 4],
    /// The content version (only 0 exists).
    pub version: u32,
    /// Bytes of content after the header.
    pub content_size: u64,
}

/// Checks the header of `data` against `identifier` and returns the
/// flatbuffer it frames (exactly `content_size` bytes after the header).
///
/// Errors, as upstream: INVALID_ARGUMENT for data shorter than the header, a
/// wrong magic or a zero content size; INCOMPATIBLE for a version other than
/// 0; OUT_OF_RANGE for a content size past the end of `data`.
pub fn read_flatbuffer_header<'a>(
    data: &'a [u8],
    identifier: &[u8; 4],
) -> Result<(ExecutableHeader, &'a [u8])> {
    if data.len() < EXECUTABLE_HEADER_SIZE {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "executable flatbuffer data is not present or less than header size ({} < {EXECUTABLE_HEADER_SIZE} bytes)",
                data.len()
            ),
        ));
    }
    let word = |at: usize| [data[at], data[at + 1], data[at + 2], data[at + 3]];
    let magic = word(0);
    if &magic != identifier {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "executable file identifier does not match; expected `{}`",
                String::from_utf8_lossy(identifier)
            ),
        ));
    }
    let version = u32::from_le_bytes(word(4));
    let mut size = [0u8; 8];
    size.copy_from_slice(&data[8..16]);
    let content_size = u64::from_le_bytes(size);
    if content_size == 0 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "executable flatbuffer reported as zero-length",
        ));
    }
    if version != 0 {
        return Err(Status::new(
            StatusCode::Incompatible,
            format!("executable version {version} not compatible with this build"),
        ));
    }
    let remaining = data.len() - EXECUTABLE_HEADER_SIZE;
    let content = usize::try_from(content_size)
        .ok()
        .filter(|&size| size <= remaining)
        .ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                format!(
                    "executable flatbuffer size prefix out of bounds (size is {content_size} but only {remaining} bytes available)"
                ),
            )
        })?;
    let header = ExecutableHeader {
        magic,
        version,
        content_size,
    };
    Ok((
        header,
        &data[EXECUTABLE_HEADER_SIZE..EXECUTABLE_HEADER_SIZE + content],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(magic: &[u8; 4], version: u32, size: u64, body: &[u8]) -> Vec<u8> {
        let mut data = Vec::new();
        data.extend_from_slice(magic);
        data.extend_from_slice(&version.to_le_bytes());
        data.extend_from_slice(&size.to_le_bytes());
        data.resize(EXECUTABLE_HEADER_SIZE, 0);
        data.extend_from_slice(body);
        data
    }

    #[test]
    fn accepts_a_well_formed_header() {
        let data = framed(b"CDA1", 0, 3, &[1, 2, 3, 4]);
        let (header, content) = read_flatbuffer_header(&data, b"CDA1").unwrap();
        assert_eq!(header.content_size, 3);
        assert_eq!(content, &[1, 2, 3]);
    }

    #[test]
    fn rejects_bad_headers_with_upstreams_codes() {
        let code = |data: &[u8]| read_flatbuffer_header(data, b"CDA1").unwrap_err().code();
        assert_eq!(code(&[]), StatusCode::InvalidArgument);
        assert_eq!(code(&[b'C'; 63]), StatusCode::InvalidArgument);
        assert_eq!(
            code(&framed(b"HIP1", 0, 1, &[0])),
            StatusCode::InvalidArgument
        );
        assert_eq!(
            code(&framed(b"CDA1", 0, 0, &[0])),
            StatusCode::InvalidArgument
        );
        assert_eq!(code(&framed(b"CDA1", 1, 1, &[0])), StatusCode::Incompatible);
        assert_eq!(code(&framed(b"CDA1", 0, 2, &[0])), StatusCode::OutOfRange);
        assert_eq!(
            code(&framed(b"CDA1", 0, u64::MAX, &[0])),
            StatusCode::OutOfRange
        );
    }
}
