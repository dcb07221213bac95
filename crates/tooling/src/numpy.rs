//! `.npy` reading and writing with the semantics of upstream's
//! `iree/tooling/numpy_io.c` (as shipped in IREE 3.13.0), on plain data.
//!
//! Several arrays may be concatenated in one file: [`read_ndarray`] reads
//! the next one from the current position (upstream's `+f.npy`) and returns
//! `None` at a clean end of file (so `*f.npy` reads until then);
//! [`load_ndarray`] fails there instead, as `@f.npy`/`+f.npy` do.
//! [`write_ndarray`] appends one array in exactly the bytes upstream writes.
//!
//! Reading, as upstream:
//! - versions 1.x (2-byte header length), 2.x and 3.x (4-byte) are read;
//!   major 0 or above 3 fail `UNIMPLEMENTED; npy version M.m not supported`;
//! - the header dict is scanned, not parsed as Python: keys in any order,
//!   unknown keys ignored (their value must be `True`, `False`, a quoted
//!   string or a parenthesized tuple), each pair must end with `,`;
//! - `descr` is an optional byte order (`|`, `=`, `<`; `>` fails
//!   `UNIMPLEMENTED; big-endian data type '>f4' unsupported`), a kind (`b`
//!   boolean, `i` signed, `u` unsigned, `f` IEEE float, `c` complex, `V`
//!   opaque) and a byte width parsed as a C integer, giving the element type
//!   `kind << 24 | width * 8` (32-bit wrapping, unmasked);
//! - `fortran_order: True` fails, and a header without `fortran_order:
//!   False` fails when sizing the buffer; no `shape` means rank 0;
//! - the data is the packed byte count of the shape and element type.
//!
//! Writing, as upstream: `{'descr': '<f4', 'fortran_order': False,
//! 'shape': (2, 3), }` (`|` instead of `<` for one-byte elements; `(4,)` at
//! rank 1, `()` at rank 0), then spaces and a newline so that the magic,
//! version, length and header fill a multiple of 64 bytes. Version 1.0, or
//! 2.0 when the dict is over 65535 bytes. bf16 and the fp8 types fail
//! `UNIMPLEMENTED; unsupported data encoding`; sub-byte types are written
//! with their one-byte descr (`|i1` for i4) and their packed data.

use std::io::{ErrorKind, Read, Write};

use iree_base::cnumber::{atoi_u32, atoi_u64};
use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{ElementType, NumericalType};

/// A dense row-major array: its shape, element type and packed contents
/// (`iree_hal_element_packed_byte_count` of the element count bytes).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NdArray {
    /// Dimensions, outermost first; empty for a scalar.
    pub shape: Vec<usize>,
    /// Element type, exactly as read (may carry any 32-bit value).
    pub element_type: ElementType,
    /// Packed element bytes.
    pub data: Vec<u8>,
}

impl NdArray {
    /// The element count (product of the dimensions; 1 at rank 0), or
    /// `None` when it overflows.
    pub fn element_count(&self) -> Option<usize> {
        self.shape
            .iter()
            .try_fold(1usize, |count, &dim| count.checked_mul(dim))
    }
}

/// The magic bytes opening every `.npy` array.
pub const MAGIC: [u8; 6] = [0x93, b'N', b'U', b'M', b'P', b'Y'];

/// The largest rank upstream reads.
pub const MAX_RANK: usize = 128;

/// What an array's header declares: enough to allocate its storage before
/// reading the data (see [`read_header`] and [`read_data_into`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NdArrayHeader {
    /// Dimensions, outermost first; empty for a scalar.
    pub shape: Vec<usize>,
    /// Element type, exactly as read.
    pub element_type: ElementType,
    /// The packed byte length of the data that follows.
    pub byte_length: usize,
}

/// Reads the next array's header, leaving `reader` at the start of its
/// data. Returns `None` when the reader is at its end before the first
/// byte; a partial header is an error.
pub fn read_header(reader: &mut impl Read) -> Result<Option<NdArrayHeader>> {
    let mut prefix = [0u8; 8];
    let got = read_full(reader, &mut prefix)?;
    if got == 0 {
        return Ok(None);
    }
    if got < prefix.len() {
        return Err(eof_during_read().annotate("unable to read entire header prefix"));
    }
    read_header_after_prefix(reader, prefix).map(Some)
}

/// Reads an array's data (`out.len()` bytes, the header's `byte_length`)
/// straight into `out`, for example a mapped device buffer.
pub fn read_data_into(reader: &mut impl Read, out: &mut [u8]) -> Result<()> {
    if read_full(reader, out)? < out.len() {
        return Err(eof_during_read().annotate(format!(
            "failed to read npy contents of {} bytes",
            out.len()
        )));
    }
    Ok(())
}

/// Reads the next array from `reader`, leaving it positioned just after the
/// array's data. Returns `None` when the reader is at its end before the
/// first byte; a partial array is an error.
pub fn read_ndarray(reader: &mut impl Read) -> Result<Option<NdArray>> {
    let Some(header) = read_header(reader)? else {
        return Ok(None);
    };
    // The whole buffer is allocated first, as upstream does, so an absurd
    // size fails as an allocation.
    let mut data = Vec::new();
    data.try_reserve_exact(header.byte_length)
        .map_err(|_| alloc_failed())?;
    data.resize(header.byte_length, 0);
    read_data_into(reader, &mut data)?;
    Ok(Some(NdArray {
        shape: header.shape,
        element_type: header.element_type,
        data,
    }))
}

/// Reads the next array, failing `OUT_OF_RANGE; end-of-file` when the
/// reader is already at its end (upstream's `@f.npy` and `+f.npy`).
pub fn load_ndarray(reader: &mut impl Read) -> Result<NdArray> {
    read_ndarray(reader)?.ok_or_else(|| Status::new(StatusCode::OutOfRange, "end-of-file"))
}

/// Reads every remaining array (upstream's `*f.npy`).
pub fn read_all_ndarrays(reader: &mut impl Read) -> Result<Vec<NdArray>> {
    let mut arrays = Vec::new();
    while let Some(array) = read_ndarray(reader)? {
        arrays.push(array);
    }
    Ok(arrays)
}

fn read_header_after_prefix(reader: &mut impl Read, prefix: [u8; 8]) -> Result<NdArrayHeader> {
    if prefix[..6] != MAGIC {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "npy header magic mismatch",
        ));
    }
    let (major, minor) = (prefix[6], prefix[7]);
    if major == 0 || major > 3 {
        return Err(Status::new(
            StatusCode::Unimplemented,
            format!("npy version {major}.{minor} not supported"),
        ));
    }
    let header_length = if major == 1 {
        let mut bytes = [0u8; 2];
        read_exact(reader, &mut bytes).annotate_with(|| {
            format!("failed to read version {major}.{minor} 2-byte header length")
        })?;
        u64::from(u16::from_le_bytes(bytes))
    } else {
        let mut bytes = [0u8; 4];
        read_exact(reader, &mut bytes).annotate_with(|| {
            format!("failed to read version {major}.{minor} 4-byte header length")
        })?;
        u64::from(u32::from_le_bytes(bytes))
    };
    if header_length == 0 {
        // Upstream allocates the header string first; its allocator refuses
        // empty allocations.
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "allocations must be >0 bytes",
        ));
    }
    let header = read_to_vec(reader, header_length)
        .annotate_with(|| format!("failed to read header string of {header_length} bytes"))?;
    let parsed = parse_header(&header)?;
    let byte_length = compute_byte_length(&parsed)?;
    Ok(NdArrayHeader {
        shape: parsed.shape,
        element_type: parsed.element_type,
        byte_length,
    })
}

/// What the header dict declared.
struct Header {
    shape: Vec<usize>,
    element_type: ElementType,
    /// `fortran_order: False` was seen (upstream's dense row-major
    /// encoding); otherwise the encoding stays opaque.
    row_major: bool,
}

fn parse_header(header: &[u8]) -> Result<Header> {
    let mut dict = trim(header);
    dict = dict.strip_prefix(b"{").unwrap_or(dict);
    dict = dict.strip_suffix(b"}").unwrap_or(dict);
    let mut parsed = Header {
        shape: Vec::new(),
        element_type: ElementType::NONE,
        row_major: false,
    };
    while !dict.is_empty() {
        let (key, value, rest) = consume_dict_key_value(dict)?;
        dict = rest;
        match key {
            b"descr" => parsed.element_type = descr_to_element_type(value)?,
            b"fortran_order" => {
                if value == b"False" {
                    parsed.row_major = true;
                } else {
                    return Err(Status::new(
                        StatusCode::Unimplemented,
                        "fortran order arrays not supported",
                    ));
                }
            }
            b"shape" => parsed.shape = parse_shape(value)?,
            _ => {}
        }
    }
    Ok(parsed)
}

fn malformed() -> Status {
    Status::new(StatusCode::InvalidArgument, "malformed header dict")
}

/// Splits `'key': value,` off the front of `dict`, as upstream's scanner:
/// the key is everything before the first `:` less one quote on each side;
/// the value is `True`, `False`, up to the next `'` after a `'`, or up to
/// the next `)` after a `(`; a `,` must follow.
fn consume_dict_key_value(dict: &[u8]) -> Result<(&[u8], &[u8], &[u8])> {
    let (mut key, rest) = split(dict, b':').ok_or_else(malformed)?;
    key = key.strip_prefix(b"'").unwrap_or(key);
    key = key.strip_suffix(b"'").unwrap_or(key);
    let rest = trim(rest);
    let (value, rest) = if let Some(rest) = rest.strip_prefix(b"True") {
        (&b"True"[..], rest)
    } else if let Some(rest) = rest.strip_prefix(b"False") {
        (&b"False"[..], rest)
    } else if let Some(rest) = rest.strip_prefix(b"'") {
        split(rest, b'\'').unwrap_or((rest, &[]))
    } else if let Some(rest) = rest.strip_prefix(b"(") {
        split(rest, b')').unwrap_or((rest, &[]))
    } else {
        return Err(malformed());
    };
    let rest = rest.strip_prefix(b",").ok_or_else(malformed)?;
    Ok((key, value, trim(rest)))
}

/// Parses a numpy `descr` string into an element type, as upstream:
/// `<f4` is f32, `<i4` si32, `<u2` ui16, `|b1` i1 (boolean byte), `<c8`
/// cf64, `|V4` 32 opaque bits. The width is any C integer (`0x4`, ` 4`,
/// `4abc`); the bit count is `width * 8` wrapped to 32 bits and not masked
/// into the low byte, as upstream composes it.
pub fn descr_to_element_type(descr: &[u8]) -> Result<ElementType> {
    let rest = match descr.first() {
        None | Some(b'>') => {
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!("big-endian data type '{}' unsupported", c_text(descr)),
            ));
        }
        Some(b'|' | b'=' | b'<') => &descr[1..],
        Some(_) => descr,
    };
    let Some((&kind, width)) = rest.split_first() else {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "descr missing kind",
        ));
    };
    let numerical_type = match kind {
        b'b' => NumericalType::BOOLEAN,
        b'i' => NumericalType::INTEGER_SIGNED,
        b'u' => NumericalType::INTEGER_UNSIGNED,
        b'f' => NumericalType::FLOAT_IEEE,
        b'c' => NumericalType::FLOAT_COMPLEX,
        b'V' => NumericalType::UNKNOWN,
        _ => {
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!("unsupported data type {}", String::from_utf8_lossy(&[kind])),
            ));
        }
    };
    let byte_width = c_atoi(width, 16, atoi_u32)
        .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "invalid descr byte width"))?;
    Ok(ElementType(
        (u32::from(numerical_type.0) << 24) | byte_width.wrapping_mul(8),
    ))
}

/// The `descr` upstream writes for `element_type`: `|` for one-byte
/// elements, else `<`; `V` opaque, `b` boolean, `i` integer (signless or
/// signed), `u` unsigned, `f` IEEE float, `c` complex; then the bytes per
/// element rounded up (`|i1` for i4). Other types (bf16, fp8) fail
/// `UNIMPLEMENTED; unsupported data encoding`.
pub fn element_type_to_descr(element_type: ElementType) -> Result<String> {
    let byte_count = element_type.dense_byte_count();
    let order = if byte_count == 1 { '|' } else { '<' };
    let kind = match element_type.numerical_type() {
        NumericalType::UNKNOWN => 'V',
        NumericalType::BOOLEAN => 'b',
        NumericalType::INTEGER | NumericalType::INTEGER_SIGNED => 'i',
        NumericalType::INTEGER_UNSIGNED => 'u',
        NumericalType::FLOAT_IEEE => 'f',
        NumericalType::FLOAT_COMPLEX => 'c',
        _ => {
            return Err(Status::new(
                StatusCode::Unimplemented,
                "unsupported data encoding",
            ));
        }
    };
    Ok(format!("{order}{kind}{byte_count}"))
}

/// Parses the inside of a shape tuple (`2, 3`, `4,`, empty for rank 0).
fn parse_shape(value: &[u8]) -> Result<Vec<usize>> {
    let rank = if value.is_empty() {
        0
    } else {
        let counted = value.strip_suffix(b",").unwrap_or(value);
        1 + counted.iter().filter(|&&c| c == b',').count()
    };
    if rank > MAX_RANK {
        // Upstream's format string lacks its argument and prints as is.
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "shape rank %zu too large; be reasonable please",
        ));
    }
    let mut shape = Vec::with_capacity(rank);
    let mut rest = value;
    for i in 0..rank {
        let (dim_text, tail) = split(rest, b',').unwrap_or((rest, &[]));
        rest = tail;
        let dim_text = trim(dim_text);
        let dim = c_atoi(dim_text, 32, atoi_u64)
            .and_then(|dim| usize::try_from(dim).ok())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::InvalidArgument,
                    format!("invalid dimension {i} value {}", c_text(dim_text)),
                )
            })?;
        shape.push(dim);
    }
    Ok(shape)
}

/// The byte length of a dense row-major array of `shape` and
/// `element_type`, with upstream's checks and messages
/// (`iree_hal_buffer_compute_view_size`): opaque zero-bit elements fail
/// `INVALID_ARGUMENT`, overflowing counts fail `OUT_OF_RANGE`. A zero
/// dimension makes the array empty whatever the other dimensions are.
pub fn packed_byte_length(shape: &[usize], element_type: ElementType) -> Result<usize> {
    let bit_count = element_type.bit_count() as u64;
    if bit_count == 0 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "opaque element types cannot be indexed",
        ));
    }
    let mut element_count: u64 = 1;
    if !shape.contains(&0) {
        for (i, &dim) in shape.iter().enumerate() {
            element_count = element_count.checked_mul(dim as u64).ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    format!("shape element count overflows device size at dimension {i}"),
                )
            })?;
        }
    } else {
        element_count = 0;
    }
    // Byte-aligned elements are counted in bytes (2^60 f32s are 2^62
    // bytes, not an overflow of 2^65 bits); sub-byte ones in bits.
    let byte_length = if bit_count.is_multiple_of(8) {
        element_count.checked_mul(bit_count / 8)
    } else {
        element_count
            .checked_mul(bit_count)
            .and_then(|bits| bits.checked_add(7))
            .map(|bits| bits / 8)
    }
    .ok_or_else(|| {
        Status::new(
            StatusCode::OutOfRange,
            "packed byte count overflows device size",
        )
    })?;
    usize::try_from(byte_length).map_err(|_| alloc_failed())
}

fn compute_byte_length(header: &Header) -> Result<usize> {
    if !header.row_major {
        return Err(Status::new(
            StatusCode::Unimplemented,
            "unimplemented encoding type size calculation",
        ));
    }
    packed_byte_length(&header.shape, header.element_type)
}

fn alloc_failed() -> Status {
    Status::new(
        StatusCode::ResourceExhausted,
        "libc allocator failed the request",
    )
}

/// The header bytes upstream writes before the data of an array of
/// `shape` and `element_type`: magic, version, length, dict, space padding
/// to a multiple of 64 bytes and a newline.
pub fn encode_header(shape: &[usize], element_type: ElementType) -> Result<Vec<u8>> {
    let descr = element_type_to_descr(element_type)?;
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let mut shape_text = dims.join(", ");
    if shape.len() == 1 {
        shape_text.push(',');
    }
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape_text}), }}");
    let requires_v2 = dict.len() > 65535;
    let length_size = if requires_v2 { 4 } else { 2 };
    let current_length = 8 + length_size + dict.len() + 1;
    let padding = current_length.next_multiple_of(64) - current_length;
    let header_length = dict.len() + padding + 1;

    let mut out = Vec::with_capacity(current_length + padding);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&[if requires_v2 { 2 } else { 1 }, 0]);
    if requires_v2 {
        out.extend_from_slice(&(header_length as u32).to_le_bytes());
    } else {
        out.extend_from_slice(&(header_length as u16).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(out.len() + padding, b' ');
    out.push(b'\n');
    Ok(out)
}

/// Writes `array` as one `.npy` array (header and data), byte for byte as
/// upstream. Nothing is written when the element type has no descr. The
/// data must be exactly the packed byte length of the shape and element
/// type (`INVALID_ARGUMENT` otherwise; upstream's buffer views cannot
/// disagree).
pub fn write_ndarray(writer: &mut impl Write, array: &NdArray) -> Result<()> {
    let header = encode_header(&array.shape, array.element_type)?;
    let expected = if array.element_type.bit_count() == 0 {
        // Only empty opaque arrays exist (upstream's empty results).
        Ok(0)
    } else {
        packed_byte_length(&array.shape, array.element_type)
    };
    if expected.as_ref().ok() != Some(&array.data.len()) {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "ndarray of shape {:?} and type {} has {} data bytes, not its packed length",
                array.shape,
                array.element_type,
                array.data.len()
            ),
        ));
    }
    writer
        .write_all(&header)
        .map_err(|e| io_status(&e, WRITE_FAILED))
        .annotate("failed to write header contents")?;
    writer
        .write_all(&array.data)
        .map_err(|e| io_status(&e, WRITE_FAILED))
        .annotate("failed to write buffer contents")
}

const WRITE_FAILED: &str = "write failed, possibly out of disk space or device lost";

fn eof_during_read() -> Status {
    Status::new(
        StatusCode::OutOfRange,
        "end-of-file encountered during read",
    )
}

/// A failed read or write as upstream's stdio stream reports it, with a
/// code from the OS error where there is one.
fn io_status(error: &std::io::Error, message: &str) -> Status {
    let code = match error.kind() {
        ErrorKind::NotFound => StatusCode::NotFound,
        ErrorKind::PermissionDenied => StatusCode::PermissionDenied,
        ErrorKind::InvalidInput => StatusCode::InvalidArgument,
        ErrorKind::OutOfMemory => StatusCode::ResourceExhausted,
        ErrorKind::UnexpectedEof => StatusCode::OutOfRange,
        _ => StatusCode::Unknown,
    };
    Status::new(code, format!("{message}: {error}"))
}

/// Reads until `buffer` is full or the reader ends; returns the count read.
fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(io_status(&e, "read failed")),
        }
    }
    Ok(filled)
}

fn read_exact(reader: &mut impl Read, buffer: &mut [u8]) -> Result<()> {
    if read_full(reader, buffer)? < buffer.len() {
        return Err(eof_during_read());
    }
    Ok(())
}

/// Reads exactly `length` bytes without trusting `length` for the
/// allocation up front.
fn read_to_vec(reader: &mut impl Read, length: u64) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(length)
        .read_to_end(&mut bytes)
        .map_err(|e| io_status(&e, "read failed"))?;
    if (bytes.len() as u64) < length {
        return Err(eof_during_read());
    }
    Ok(bytes)
}

/// `iree_string_view_split`: the parts before and after the first
/// `separator`, or `None` when there is none.
fn split(value: &[u8], separator: u8) -> Option<(&[u8], &[u8])> {
    let at = value.iter().position(|&c| c == separator)?;
    Some((&value[..at], &value[at + 1..]))
}

/// `iree_string_view_trim`: strips C `isspace` bytes from both ends.
fn trim(mut value: &[u8]) -> &[u8] {
    let is_space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    while let Some((first, rest)) = value.split_first() {
        if !is_space(first) {
            break;
        }
        value = rest;
    }
    while let Some((last, rest)) = value.split_last() {
        if !is_space(last) {
            break;
        }
        value = rest;
    }
    value
}

/// Runs an `iree_string_view_atoi_*` on raw header bytes: too long for the
/// scratch buffer of `capacity` bytes fails; the C string ends at a NUL or,
/// here, at the first byte that is not UTF-8 (neither can be a digit).
fn c_atoi<T>(bytes: &[u8], capacity: usize, atoi: fn(&str) -> Option<T>) -> Option<T> {
    if bytes.len() >= capacity {
        return None;
    }
    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    let bytes = &bytes[..end];
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?,
    };
    atoi(text)
}

/// Header bytes as `%.*s` prints them: up to the first NUL, lossily
/// decoded (upstream copies raw bytes).
fn c_text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}
