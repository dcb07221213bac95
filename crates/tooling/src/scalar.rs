//! Scalar (primitive) function arguments and results as `iree-run-module`
//! reads and prints them.
//!
//! Upstream parses a bare `--input=` value for an argument whose calling
//! convention type is `i`, `I`, `f` or `F` with `iree_string_view_atoi_*` /
//! `atof` / `atod`, which copy the text into a small NUL-terminated buffer and
//! call libc `strtol` / `strtoll` / `strtof` / `strtod` with base 0. That has
//! consequences this module reproduces exactly:
//!
//! * only a **prefix** has to parse: `1abc`, `1.5`, `4xf32=1` all read as an
//!   i32 of `1`, `1` and `4`; `1,5` reads as an f32 of `1`;
//! * integers take C base prefixes: `0x10` is 16, `010` is 8, `08` is 0 and
//!   `0x`/`0b1` are 0;
//! * i32 parses as a C `long` (64-bit) and is then **truncated** to 32 bits:
//!   `2147483648` is -2147483648, `4294967295` is -1, `-2147483649` is
//!   2147483647;
//! * texts of 16 or more bytes are rejected for i32 (and u32), of 32 or more
//!   for i64, u64, f32 and f64, even when they are valid numbers;
//! * i64 values outside the range of `long long` are rejected;
//! * floats accept `inf`, `infinity`, `nan`, `nan(...)` (any case, with a
//!   sign), hexadecimal floats (`0x1.8p1`), overflow to infinity (`1e400`)
//!   and subnormal results, but reject values that underflow to zero
//!   (`1e-400`, and `1e-46` for f32);
//! * NaN signs and payloads follow glibc (`-nan` is negative, `nan(0x5)`
//!   carries payload 5).
//!
//! The tool first trims ASCII whitespace from the whole `--input=` text and
//! handles the empty text, `(null)`, `(ignored)` and texts starting with `@`,
//! `+`, `*` or `&` before it gets to a primitive parse, so a leading `+`
//! never reaches these functions in the tool. That dispatch is not part of
//! this module: [`parse_i32`] and friends are the primitive step
//! (`iree_tooling_parse_primitive_into`).

use iree_base::{Result, Status, StatusCode};

use crate::cformat::format_g;

//===----------------------------------------------------------------------===//
// Function inputs and results
//===----------------------------------------------------------------------===//

fn parse_error(text: &str, type_name: &str) -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        format!("parsing value `{text}` as {type_name}"),
    )
}

/// Parses a scalar argument of cconv type `i` (i32) the way
/// `iree-run-module` does. Fails with INVALID_ARGUMENT ("parsing value
/// `TEXT` as i32").
pub fn parse_i32(text: &str) -> Result<i32> {
    atoi_i32(text).ok_or_else(|| parse_error(text, "i32"))
}

/// Parses a scalar argument of cconv type `I` (i64) the way
/// `iree-run-module` does. Fails with INVALID_ARGUMENT ("parsing value
/// `TEXT` as i64").
pub fn parse_i64(text: &str) -> Result<i64> {
    atoi_i64(text).ok_or_else(|| parse_error(text, "i64"))
}

/// Parses a scalar argument of cconv type `f` (f32) the way
/// `iree-run-module` does. Fails with INVALID_ARGUMENT ("parsing value
/// `TEXT` as f32").
pub fn parse_f32(text: &str) -> Result<f32> {
    atof(text).ok_or_else(|| parse_error(text, "f32"))
}

/// Parses a scalar argument of cconv type `F` (f64) the way
/// `iree-run-module` does. Fails with INVALID_ARGUMENT ("parsing value
/// `TEXT` as f64").
pub fn parse_f64(text: &str) -> Result<f64> {
    atod(text).ok_or_else(|| parse_error(text, "f64"))
}

/// The text upstream prints for an i8 value: `i8=-5`.
pub fn format_scalar_i8(value: i8) -> String {
    format!("i8={value}")
}

/// The text upstream prints for an i16 value: `i16=-5`.
pub fn format_scalar_i16(value: i16) -> String {
    format!("i16={value}")
}

/// The text upstream prints for an i32 value (after `result[0]: `):
/// `i32=21`.
pub fn format_scalar_i32(value: i32) -> String {
    format!("i32={value}")
}

/// The text upstream prints for an i64 value: `i64=1234567890123`.
pub fn format_scalar_i64(value: i64) -> String {
    format!("i64={value}")
}

/// The text upstream prints for an f32 value: the value widened to double
/// and formatted with `%g` (`f32=0.1`, `f32=1.67772e+07`, `f32=-nan`).
pub fn format_scalar_f32(value: f32) -> String {
    format!("f32={}", format_g(f64::from(value)))
}

/// The text upstream prints for an f64 value, formatted with `%g`
/// (`f64=1e+300`).
pub fn format_scalar_f64(value: f64) -> String {
    format!("f64={}", format_g(value))
}

pub use iree_base::cnumber::{atod, atof, atoi_i32, atoi_i64, atoi_u32, atoi_u64};
