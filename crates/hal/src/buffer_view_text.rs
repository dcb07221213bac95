//! The text form of buffer views, in both directions, exactly as upstream's
//! `iree-run-module` parses `--input=2x2xf32=[1 2][3 4]` and prints results
//! (`iree/hal/string_util.c`, `iree/hal/buffer_view_util.c`).
//!
//! The functions mirror upstream's layering:
//!
//! * [`parse_shape`] / [`format_shape`]: `2x3`;
//! * [`ElementType::parse`] / [`ElementType::name`]: `f32`;
//! * [`parse_element`] / [`format_element`]: one value;
//! * [`parse_buffer_elements`] / [`format_buffer_elements`]: the values of a
//!   whole buffer (splats, zero fill, elision);
//! * [`parse_buffer_view_text`] / [`format_buffer_view`]: the whole
//!   `shape x type = values` literal.
//!
//! Errors carry upstream's status codes and messages. Where upstream returns
//! a bare status code (an element that does not parse, a buffer too short to
//! print) the [`Status`] has an empty message.

use iree_base::cformat::format_g_upper;
use iree_base::{Result, Status, StatusCode};

use crate::element_compare::float_element;
use crate::element_type::{ElementType, EncodingType};
use crate::math;
use iree_base::cnumber::{atod, atof, atoi_i32, atoi_i64, atoi_u32, atoi_u64};

/// The highest rank [`parse_buffer_view_text`] accepts.
pub const MAX_PARSED_RANK: usize = 128;

/// C `isspace` in the C locale (bytes >= 0x80 are never spaces).
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// `iree_string_view_trim`: strips C whitespace from both ends.
fn trim_c_space(text: &str) -> &str {
    let bytes = text.as_bytes();
    let start = bytes
        .iter()
        .position(|&b| !is_c_space(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| !is_c_space(b))
        .map_or(start, |i| i + 1);
    // Only ASCII bytes were skipped, so both ends are character boundaries.
    &text[start..end.max(start)]
}

/// A status with a code and no message, as upstream's
/// `iree_status_from_code`.
fn bare(code: StatusCode) -> Status {
    Status::from_code(code)
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// Parses `AxBxC` (`iree_hal_parse_shape`); the empty text is rank 0.
///
/// Each dimension is read as a C `long long` (base prefixes allowed, any
/// parsed prefix accepted, so ` 2 ` and `0x10` work) and must not be
/// negative. Fails with `INVALID_ARGUMENT; shape[i] invalid value 'v' of
/// 'text'`, or `INVALID_ARGUMENT; invalid shape specification: 'text'` when a
/// dimension is empty (`2x`, `x3`, `2xx3`).
pub fn parse_shape(text: &str) -> Result<Vec<usize>> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let rank = text.bytes().filter(|&b| b == b'x').count() + 1;
    let mut shape = Vec::with_capacity(rank);
    for (index, dim) in text.split('x').enumerate() {
        if dim.is_empty() {
            break;
        }
        let value = atoi_i64(dim)
            .filter(|&v| v >= 0)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::InvalidArgument,
                    format!("shape[{index}] invalid value '{dim}' of '{text}'"),
                )
            })?;
        shape.push(value);
    }
    if shape.len() != rank {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("invalid shape specification: '{text}'"),
        ));
    }
    Ok(shape)
}

/// Formats a shape as upstream prints it: dimensions joined by `x`, the
/// empty string for rank 0 (`iree_hal_format_shape`).
pub fn format_shape(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    dims.join("x")
}

/// Splits `shape x type` (anything after a `=` is ignored) and parses both
/// halves (`iree_hal_parse_shape_and_element_type`). The type is whatever
/// follows the last `x`, so `xf32` is a rank-0 f32 and opaque types must be
/// spelled `*8` rather than `x8` after a shape.
pub fn parse_shape_and_element_type(text: &str) -> Result<(Vec<usize>, ElementType)> {
    let text = strip_quotes(trim_c_space(text));
    if text.is_empty() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "empty string input",
        ));
    }
    let metadata = text.split_once('=').map_or(text, |(m, _)| m);
    let (shape_text, type_text) = split_shape_and_type(metadata);
    let shape = parse_shape(shape_text)?;
    let element_type = ElementType::parse(type_text)?;
    Ok((shape, element_type))
}

/// Formats `shape x type` (`iree_hal_append_shape_and_element_type_string`):
/// `2x3xf32`, or just `f32` at rank 0.
pub fn format_shape_and_element_type(shape: &[usize], element_type: ElementType) -> String {
    if shape.is_empty() {
        element_type.name()
    } else {
        format!("{}x{}", format_shape(shape), element_type.name())
    }
}

/// Strips one leading and one trailing `"`.
fn strip_quotes(text: &str) -> &str {
    let text = text.strip_prefix('"').unwrap_or(text);
    text.strip_suffix('"').unwrap_or(text)
}

/// Splits metadata at its last `x` into (shape, type).
fn split_shape_and_type(metadata: &str) -> (&str, &str) {
    match metadata.rfind('x') {
        Some(i) => (&metadata[..i], &metadata[i + 1..]),
        None => ("", metadata),
    }
}

/// Bytes a view of `shape` and `element_type` occupies
/// (`iree_hal_buffer_compute_view_size`). Sub-byte elements are packed.
///
/// Fails with `INVALID_ARGUMENT; opaque element types cannot be indexed` for
/// a zero bit count, `UNIMPLEMENTED; unimplemented encoding type size
/// calculation` for encodings other than dense row-major, and as upstream
/// 3.13 when a count does not fit in 64 bits: `OUT_OF_RANGE; shape element
/// count overflows device size at dimension N`, `OUT_OF_RANGE; packed byte
/// count overflows device size`.
pub fn compute_view_size(
    shape: &[usize],
    element_type: ElementType,
    encoding_type: EncodingType,
) -> Result<usize> {
    if encoding_type != EncodingType::DENSE_ROW_MAJOR {
        return Err(Status::new(
            StatusCode::Unimplemented,
            "unimplemented encoding type size calculation",
        ));
    }
    if element_type.bit_count() == 0 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "opaque element types cannot be indexed",
        ));
    }
    let mut count: usize = 1;
    for (i, &dim) in shape.iter().enumerate() {
        count = count.checked_mul(dim).ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                format!("shape element count overflows device size at dimension {i}"),
            )
        })?;
    }
    element_type.packed_byte_count(count).ok_or_else(|| {
        Status::new(
            StatusCode::OutOfRange,
            "packed byte count overflows device size",
        )
    })
}

/// What upstream reports when the host allocator refuses a request.
#[track_caller]
fn allocation_failure() -> Status {
    Status::new(
        StatusCode::ResourceExhausted,
        "libc allocator failed the request",
    )
}

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

/// The value of an ASCII hex digit, or 0 for any other byte (upstream's
/// `kHexValue` table).
fn hex_value(b: u8) -> u8 {
    (b as char).to_digit(16).map_or(0, |d| d as u8)
}

/// Parses one element into `out` (`iree_hal_parse_element`), which must
/// hold at least one element.
///
/// Integers are read as C integers (base prefixes allowed, any parsed prefix
/// accepted) and range-checked as upstream does: `i8` takes -128..=255 and
/// `i16` -32768..=65535 (stored truncated), `si8`/`si16` only have an upper
/// bound (`-200` as `si8` stores 56), `ui8`/`ui16` take 0..=MAX, `i32` and
/// `ui32` wrap to 32 bits, `i64` must fit `long long`. Floats are read with
/// `strtof` (`strtod` for f64) and narrowed with upstream's conversions;
/// results that underflow to zero are rejected. Any other type (booleans,
/// complex, sub-byte and opaque types) takes exactly two hex digits per
/// byte, in memory order.
///
/// A value that does not parse fails with a bare `INVALID_ARGUMENT`; a
/// hex value of the wrong length with `INVALID_ARGUMENT; binary hex element
/// count mismatch: buffer length=L < expected=E`.
pub fn parse_element(text: &str, element_type: ElementType, out: &mut [u8]) -> Result<()> {
    let element_size = element_type.dense_byte_count();
    if out.len() < element_size {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "output data buffer overflow: data_length={} < element_size={}",
                out.len(),
                element_size
            ),
        ));
    }
    parse_element_unchecked(text, element_type, &mut out[..element_size])
}

/// Parses one element into `out`, which is exactly one element long.
fn parse_element_unchecked(text: &str, element_type: ElementType, out: &mut [u8]) -> Result<()> {
    let invalid = || bare(StatusCode::InvalidArgument);
    let float = |text: &str| atof(text).ok_or_else(invalid);
    match element_type {
        ElementType::INT_8 => {
            let v = atoi_i32(text)
                .filter(|v| (-128..=255).contains(v))
                .ok_or_else(invalid)?;
            out[0] = v as u8;
        }
        ElementType::SINT_8 => {
            let v = atoi_i32(text).filter(|&v| v <= 127).ok_or_else(invalid)?;
            out[0] = v as u8;
        }
        ElementType::UINT_8 => {
            let v = atoi_u32(text).filter(|&v| v <= 255).ok_or_else(invalid)?;
            out[0] = v as u8;
        }
        ElementType::INT_16 => {
            let v = atoi_i32(text)
                .filter(|v| (-32768..=65535).contains(v))
                .ok_or_else(invalid)?;
            out.copy_from_slice(&(v as u16).to_le_bytes());
        }
        ElementType::SINT_16 => {
            let v = atoi_i32(text).filter(|&v| v <= 32767).ok_or_else(invalid)?;
            out.copy_from_slice(&(v as u16).to_le_bytes());
        }
        ElementType::UINT_16 => {
            let v = atoi_u32(text).filter(|&v| v <= 65535).ok_or_else(invalid)?;
            out.copy_from_slice(&(v as u16).to_le_bytes());
        }
        ElementType::INT_32 | ElementType::SINT_32 => {
            let v = atoi_i32(text).ok_or_else(invalid)?;
            out.copy_from_slice(&v.to_le_bytes());
        }
        ElementType::UINT_32 => {
            let v = atoi_u32(text).ok_or_else(invalid)?;
            out.copy_from_slice(&v.to_le_bytes());
        }
        ElementType::INT_64 | ElementType::SINT_64 => {
            let v = atoi_i64(text).ok_or_else(invalid)?;
            out.copy_from_slice(&v.to_le_bytes());
        }
        ElementType::UINT_64 => {
            let v = atoi_u64(text).ok_or_else(invalid)?;
            out.copy_from_slice(&v.to_le_bytes());
        }
        ElementType::FLOAT_8_E5M2 => out[0] = math::f32_to_f8e5m2(float(text)?),
        ElementType::FLOAT_8_E4M3_FN => out[0] = math::f32_to_f8e4m3fn(float(text)?),
        ElementType::FLOAT_8_E5M2_FNUZ => out[0] = math::f32_to_f8e5m2fnuz(float(text)?),
        ElementType::FLOAT_8_E4M3_FNUZ => out[0] = math::f32_to_f8e4m3fnuz(float(text)?),
        ElementType::FLOAT_8_E8M0_FNU => out[0] = math::f32_to_f8e8m0fnu(float(text)?),
        ElementType::BFLOAT_16 => {
            out.copy_from_slice(&math::f32_to_bf16(float(text)?).to_le_bytes());
        }
        ElementType::FLOAT_16 => {
            out.copy_from_slice(&math::f32_to_f16(float(text)?).to_le_bytes());
        }
        ElementType::FLOAT_32 => out.copy_from_slice(&float(text)?.to_le_bytes()),
        ElementType::FLOAT_64 => {
            let v = atod(text).ok_or_else(invalid)?;
            out.copy_from_slice(&v.to_le_bytes());
        }
        _ => {
            let bytes = text.as_bytes();
            if bytes.len() != out.len() * 2 {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "binary hex element count mismatch: buffer length={} < expected={}",
                        bytes.len(),
                        out.len() * 2
                    ),
                ));
            }
            for (byte, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *byte = (hex_value(pair[0]) << 4) + hex_value(pair[1]);
            }
        }
    }
    Ok(())
}

/// Appends one element as upstream prints it (`iree_hal_format_element`):
/// integers in decimal (signless and `si` types signed, `ui` unsigned),
/// floats of every width widened to f32 (f64 kept) and printed with IREE's
/// `%G` (`1E-05`, `NAN`, `-INF`), anything else (booleans, complex,
/// sub-byte and opaque types) as upper-case hex of its bytes in memory
/// order.
///
/// Fails with `OUT_OF_RANGE; data buffer underflow: data_length=L <
/// element_size=S` when `data` is shorter than one element.
pub fn format_element(data: &[u8], element_type: ElementType, out: &mut String) -> Result<()> {
    let element_size = element_type.dense_byte_count();
    if data.len() < element_size {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!(
                "data buffer underflow: data_length={} < element_size={}",
                data.len(),
                element_size
            ),
        ));
    }
    let data = &data[..element_size];
    let u16_at = || u16::from_le_bytes([data[0], data[1]]);
    if let Some(value) = float_element(data, element_type) {
        out.push_str(&format_g_upper(value));
        return Ok(());
    }
    let text = match element_type {
        ElementType::INT_8 | ElementType::SINT_8 => (data[0] as i8).to_string(),
        ElementType::UINT_8 => data[0].to_string(),
        ElementType::INT_16 | ElementType::SINT_16 => (u16_at() as i16).to_string(),
        ElementType::UINT_16 => u16_at().to_string(),
        ElementType::INT_32 | ElementType::SINT_32 => {
            i32::from_le_bytes(data.try_into().expect("4 bytes")).to_string()
        }
        ElementType::UINT_32 => u32::from_le_bytes(data.try_into().expect("4 bytes")).to_string(),
        ElementType::INT_64 | ElementType::SINT_64 => {
            i64::from_le_bytes(data.try_into().expect("8 bytes")).to_string()
        }
        ElementType::UINT_64 => u64::from_le_bytes(data.try_into().expect("8 bytes")).to_string(),
        _ => {
            for b in data {
                out.push_str(&format!("{b:02X}"));
            }
            return Ok(());
        }
    };
    out.push_str(&text);
    Ok(())
}

//===----------------------------------------------------------------------===//
// Whole buffers
//===----------------------------------------------------------------------===//

/// Parses the values of a buffer into `out` (`iree_hal_parse_buffer_elements`),
/// whose length fixes the element count (`out.len() / element size`).
///
/// Values are separated by C whitespace, `,`, `[` and `]` in any number and
/// nesting (brackets are not checked against the shape). An empty text
/// fills `out` with zeros; a single value is splatted to every element;
/// otherwise the count must match exactly:
///
/// * too many values: `OUT_OF_RANGE; output data buffer overflow:
///   element_capacity=N < dst_i=N+` when a separator follows the extra
///   value, `OUT_OF_RANGE; output data overflow: element_capacity=N <
///   dst_i=N` when it ends the text;
/// * too few: `OUT_OF_RANGE; input data string underflow: dst_i=I <
///   element_capacity=N`;
/// * a value that does not parse: see [`parse_element`].
pub fn parse_buffer_elements(text: &str, element_type: ElementType, out: &mut [u8]) -> Result<()> {
    let element_size = element_type.dense_byte_count();
    if element_size == 0 {
        // Upstream divides by zero here; its callers never get this far.
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "opaque element types cannot be indexed",
        ));
    }
    let capacity = out.len() / element_size;
    if text.is_empty() {
        out.fill(0);
        return Ok(());
    }
    let bytes = text.as_bytes();
    let is_separator = |b: u8| is_c_space(b) || matches!(b, b',' | b'[' | b']');
    let mut count = 0usize;
    let mut token_start: Option<usize> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (token_start, is_separator(b)) {
            (None, false) => token_start = Some(i),
            (Some(start), true) => {
                if count >= capacity {
                    return Err(Status::new(
                        StatusCode::OutOfRange,
                        format!(
                            "output data buffer overflow: element_capacity={capacity} < dst_i={count}+"
                        ),
                    ));
                }
                let slot = &mut out[count * element_size..(count + 1) * element_size];
                parse_element_unchecked(&text[start..i], element_type, slot)?;
                count += 1;
                token_start = None;
            }
            _ => {}
        }
    }
    if let Some(start) = token_start {
        if count >= capacity {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!("output data overflow: element_capacity={capacity} < dst_i={count}"),
            ));
        }
        let slot = &mut out[count * element_size..(count + 1) * element_size];
        parse_element_unchecked(&text[start..], element_type, slot)?;
        count += 1;
    }
    if count == 1 && capacity > 1 {
        // A splat: the first element's bytes repeated over the rest (whole
        // elements only, as the capacity counts them).
        let (first, rest) = out[..capacity * element_size].split_at_mut(element_size);
        iree_base::bytes::fill_pattern(rest, first, 0);
    } else if count < capacity {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!("input data string underflow: dst_i={count} < element_capacity={capacity}"),
        ));
    }
    Ok(())
}

/// Formats the values of a buffer of `shape` (`iree_hal_format_buffer_elements`):
/// rows of the innermost dimension are space-separated, every outer
/// dimension wraps each of its rows in `[...]` with no separators
/// (`[[1 2][3 4]][[5 6][7 8]]`), rank 0 prints the single value.
///
/// At most `max_element_count` values are printed **in total**: each
/// innermost row prints as many as the remaining budget allows and then
/// `...` if it was cut short, so rows after the budget is spent print just
/// `...` (`[[1 2][3 4]][[5...][...]]` with a budget of 5).
///
/// Fails with `OUT_OF_RANGE; input data underflow...` when `data` is
/// shorter than the values to print (as with packed sub-byte elements).
pub fn format_buffer_elements(
    data: &[u8],
    shape: &[usize],
    element_type: ElementType,
    max_element_count: usize,
) -> Result<String> {
    // A view with no elements can still have huge outer dimensions
    // (`2x2000000000x0xf32`): its text is nothing but brackets, gigabytes of
    // them, which upstream grinds through for minutes. Refuse past a bound
    // instead; views with elements are bounded by their data.
    if shape.contains(&0) {
        let mut rows: usize = 0;
        let mut product: usize = 1;
        for &dim in &shape[..shape.len().saturating_sub(1)] {
            product = product.saturating_mul(dim);
            rows = rows.saturating_add(product);
        }
        if rows > MAX_EMPTY_VIEW_ROWS {
            return Err(Status::new(
                StatusCode::ResourceExhausted,
                format!(
                    "printing a view of shape {} would emit {rows} empty rows (limit {MAX_EMPTY_VIEW_ROWS})",
                    format_shape(shape)
                ),
            ));
        }
    }
    let mut out = String::new();
    let mut budget = max_element_count;
    format_recursive(data, shape, element_type, &mut budget, &mut out)?;
    Ok(out)
}

/// The most bracket pairs printed for a view with no elements.
pub const MAX_EMPTY_VIEW_ROWS: usize = 1 << 24;

fn format_recursive(
    data: &[u8],
    shape: &[usize],
    element_type: ElementType,
    budget: &mut usize,
    out: &mut String,
) -> Result<()> {
    let element_size = element_type.dense_byte_count();
    match shape {
        [] => format_recursive(data, &[1], element_type, budget, out),
        [count] => {
            let count = (*budget).min(*count);
            let expected = count.saturating_mul(element_size);
            if data.len() < expected {
                return Err(Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "input data underflow; data_length={} < expected={}",
                        data.len(),
                        expected
                    ),
                ));
            }
            *budget -= count;
            for i in 0..count {
                if i > 0 {
                    out.push(' ');
                }
                format_element(&data[i * element_size..], element_type, out)?;
            }
            if count < shape[0] {
                out.push_str("...");
            }
            Ok(())
        }
        [outer, inner @ ..] => {
            let stride = inner
                .iter()
                .try_fold(element_size, |n, &d| n.checked_mul(d))
                .unwrap_or(usize::MAX);
            let expected = stride.saturating_mul(*outer);
            if data.len() < expected {
                return Err(Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "input data underflow: data_length={} < expected={}",
                        data.len(),
                        expected
                    ),
                ));
            }
            for i in 0..*outer {
                out.push('[');
                format_recursive(
                    &data[i * stride..(i + 1) * stride],
                    inner,
                    element_type,
                    budget,
                    out,
                )?;
                out.push(']');
            }
            Ok(())
        }
    }
}

//===----------------------------------------------------------------------===//
// Whole buffer views
//===----------------------------------------------------------------------===//

/// Parses a buffer view literal, `[dims x]type[=values]`, the way
/// `iree_hal_buffer_view_parse` does for `iree-run-module --input=`, into
/// its shape, element type and dense row-major contents.
///
/// * C whitespace around the text and one pair of surrounding `"` are
///   stripped; the empty text fails with `INVALID_ARGUMENT; empty string
///   input`.
/// * The metadata ends at the first `=`; the element type follows its last
///   `x`; a missing `=` means no values (zeros).
/// * More than [`MAX_PARSED_RANK`] dimensions fail with
///   `RESOURCE_EXHAUSTED; a shape rank of N is just a little bit excessive,
///   eh?`.
/// * Shape and type errors are those of [`parse_shape`] and
///   [`ElementType::parse`]; sizes of [`compute_view_size`]; values of
///   [`parse_buffer_elements`].
///
/// File forms (`=@file`, `=+file`, `.npy`) are the tool's business, not
/// this function's.
pub fn parse_buffer_view_text(text: &str) -> Result<(Vec<usize>, ElementType, Vec<u8>)> {
    let literal = parse_buffer_view_header(text)?;
    let mut contents = Vec::new();
    contents
        .try_reserve_exact(literal.byte_length)
        .map_err(|_| allocation_failure())?;
    contents.resize(literal.byte_length, 0);
    parse_buffer_elements(literal.values, literal.element_type, &mut contents)?;
    Ok((literal.shape, literal.element_type, contents))
}

/// A buffer view literal split into its metadata and its (unparsed) values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferViewLiteral<'a> {
    /// Dimensions, outermost first.
    pub shape: Vec<usize>,
    /// Element type.
    pub element_type: ElementType,
    /// Dense row-major size of the contents in bytes.
    pub byte_length: usize,
    /// The text after `=` (empty when there is none).
    pub values: &'a str,
}

/// The first half of [`parse_buffer_view_text`]: checks the text and parses
/// the shape and element type, leaving the values for
/// [`parse_buffer_elements`] to write straight into their destination
/// (which must start zeroed, for literals without values).
pub fn parse_buffer_view_header(text: &str) -> Result<BufferViewLiteral<'_>> {
    let text = strip_quotes(trim_c_space(text));
    if text.is_empty() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "empty string input",
        ));
    }
    let (metadata, values) = text.split_once('=').unwrap_or((text, ""));
    let (shape_text, type_text) = split_shape_and_type(metadata);
    let rank = if shape_text.is_empty() {
        0
    } else {
        shape_text.bytes().filter(|&b| b == b'x').count() + 1
    };
    if rank > MAX_PARSED_RANK {
        return Err(Status::new(
            StatusCode::ResourceExhausted,
            format!("a shape rank of {rank} is just a little bit excessive, eh?"),
        ));
    }
    let shape = parse_shape(shape_text)?;
    let element_type = ElementType::parse(type_text)?;
    let byte_length = compute_view_size(&shape, element_type, EncodingType::DENSE_ROW_MAJOR)?;
    Ok(BufferViewLiteral {
        shape,
        element_type,
        byte_length,
        values,
    })
}

/// Formats a buffer view as upstream prints it (`iree_hal_buffer_view_format`):
/// `2x2xi32=[1 2][3 4]`, `f32=4` at rank 0, `0xf32=` when empty, with at
/// most `max_element_count` values (see [`format_buffer_elements`];
/// `iree-run-module` passes `--output_max_element_count`, 1024 by default).
///
/// When `data` is too short for the values to print, fails with a bare
/// `OUT_OF_RANGE`, as upstream does (its message is lost on the way up).
pub fn format_buffer_view(
    shape: &[usize],
    element_type: ElementType,
    data: &[u8],
    max_element_count: usize,
) -> Result<String> {
    let mut out = format_shape_and_element_type(shape, element_type);
    out.push('=');
    match format_buffer_elements(data, shape, element_type, max_element_count) {
        Ok(values) => {
            out.push_str(&values);
            Ok(out)
        }
        Err(status) if status.code() == StatusCode::OutOfRange => Err(bare(StatusCode::OutOfRange)),
        Err(status) => Err(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_views_print_brackets_up_to_a_bound() {
        let f32 = ElementType::FLOAT_32;
        assert_eq!(
            format_buffer_view(&[2, 3, 0], f32, &[], 1024).unwrap(),
            "2x3x0xf32=[[][][]][[][][]]"
        );
        // Found by the parse_buffer_view fuzz target: gigabytes of `[]`.
        let err = format_buffer_view(&[2, 2_000_200_000, 0], f32, &[], 1024).unwrap_err();
        assert_eq!(err.code(), StatusCode::ResourceExhausted, "{err}");
    }

    #[test]
    fn trims_c_space() {
        assert_eq!(trim_c_space(" \x0b a b\t\r\n"), "a b");
        assert_eq!(trim_c_space("   "), "");
        assert_eq!(trim_c_space(""), "");
    }

    #[test]
    fn shapes() {
        assert_eq!(parse_shape("").unwrap(), Vec::<usize>::new());
        assert_eq!(parse_shape("2x0x10").unwrap(), vec![2, 0, 10]);
        assert_eq!(parse_shape("0x10").unwrap(), vec![0, 10]);
        assert_eq!(parse_shape(" 1 x 2 ").unwrap(), vec![1, 2]);
        for bad in [
            "abc", "1xf", "1xf32", "x", "x1", "1x", "x1x2", "1xx2", "1x2x", "0x-1",
        ] {
            assert!(parse_shape(bad).is_err(), "{bad}");
        }
        assert_eq!(format_shape(&[2, 3]), "2x3");
    }
}
