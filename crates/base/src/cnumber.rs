//! Number parsing with the semantics of upstream's `iree_string_view_atoi_*`,
//! `iree_string_view_atof` and `iree_string_view_atod`: the text is copied
//! into a small NUL-terminated scratch buffer and handed to glibc `strtol` /
//! `strtoul` / `strtof` / `strtod` with base 0, accepting any parsed prefix.
//! Shared by tool input parsing and the HAL's buffer-view text parser.

/// The bytes upstream hands to libc: the text must fit a scratch buffer of
/// `capacity` bytes with its NUL terminator, and ends at an embedded NUL.
fn c_text(text: &str, capacity: usize) -> Option<&[u8]> {
    let bytes = text.as_bytes();
    if bytes.len() >= capacity {
        return None;
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    Some(&bytes[..end])
}

/// `iree_string_view_atoi_int32`: `strtol` with base 0 on at most 15 bytes,
/// the 64-bit result truncated to 32 bits.
pub fn atoi_i32(text: &str) -> Option<i32> {
    let (value, range_error) = strtol(c_text(text, 16)?)?;
    if range_error {
        return None;
    }
    Some(value as i32)
}

/// `iree_string_view_atoi_uint32`: `strtoul` with base 0 on at most 15
/// bytes, truncated to 32 bits (`-1` reads as 4294967295).
pub fn atoi_u32(text: &str) -> Option<u32> {
    let (value, range_error) = strtoul(c_text(text, 16)?)?;
    if range_error {
        return None;
    }
    Some(value as u32)
}

/// `iree_string_view_atoi_int64`: `strtoll` with base 0 on at most 31
/// bytes; out-of-range values are rejected.
pub fn atoi_i64(text: &str) -> Option<i64> {
    let (value, range_error) = strtol(c_text(text, 32)?)?;
    if range_error {
        return None;
    }
    Some(value)
}

/// `iree_string_view_atoi_uint64`: `strtoull` with base 0 on at most 31
/// bytes; values above `u64::MAX` are rejected, negative ones wrap.
pub fn atoi_u64(text: &str) -> Option<u64> {
    let (value, range_error) = strtoul(c_text(text, 32)?)?;
    if range_error {
        return None;
    }
    Some(value)
}

/// `iree_string_view_atof`: glibc `strtof` on at most 31 bytes; a result
/// that underflowed to zero is rejected.
pub fn atof(text: &str) -> Option<f32> {
    match scan_float(c_text(text, 32)?)? {
        FloatScan::Infinity { negative } => Some(if negative {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        }),
        FloatScan::Nan { negative, payload } => {
            let mut bits = 0x7FC0_0000u32;
            if let Some(payload) = payload {
                bits |= (payload & 0x003F_FFFF) as u32;
            }
            if negative {
                bits |= 0x8000_0000;
            }
            Some(f32::from_bits(bits))
        }
        FloatScan::Hex(hex) => {
            let bits = hex.round_to_bits(23, 8)? as u32;
            Some(f32::from_bits(bits))
        }
        FloatScan::Decimal { text, nonzero } => {
            let value: f32 = text.parse().ok()?;
            if value == 0.0 && nonzero {
                return None;
            }
            Some(value)
        }
    }
}

/// `iree_string_view_atod`: glibc `strtod` on at most 31 bytes; a result
/// that underflowed to zero is rejected.
pub fn atod(text: &str) -> Option<f64> {
    match scan_float(c_text(text, 32)?)? {
        FloatScan::Infinity { negative } => Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }),
        FloatScan::Nan { negative, payload } => {
            let mut bits = 0x7FF8_0000_0000_0000u64;
            if let Some(payload) = payload {
                bits |= payload & 0x0007_FFFF_FFFF_FFFF;
            }
            if negative {
                bits |= 0x8000_0000_0000_0000;
            }
            Some(f64::from_bits(bits))
        }
        FloatScan::Hex(hex) => Some(f64::from_bits(hex.round_to_bits(52, 11)?)),
        FloatScan::Decimal { text, nonzero } => {
            let value: f64 = text.parse().ok()?;
            if value == 0.0 && nonzero {
                return None;
            }
            Some(value)
        }
    }
}

//===----------------------------------------------------------------------===//
// libc number scanning (glibc semantics, C locale)
//===----------------------------------------------------------------------===//

/// C `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

fn skip_space(s: &[u8]) -> usize {
    s.iter().position(|&b| !is_c_space(b)).unwrap_or(s.len())
}

fn digit_value(b: u8, base: u32) -> Option<u32> {
    (b as char).to_digit(base)
}

/// An integer as `strtol` and friends read it with base 0.
struct IntScan {
    negative: bool,
    /// The magnitude, when it fits 64 bits.
    magnitude: Option<u64>,
    /// Bytes consumed.
    end: usize,
}

/// Scans a C integer (base 0) at the start of `s`; `None` when no
/// conversion is possible.
fn scan_integer(s: &[u8]) -> Option<IntScan> {
    let mut i = skip_space(s);
    let mut negative = false;
    match s.get(i) {
        Some(b'-') => {
            negative = true;
            i += 1;
        }
        Some(b'+') => i += 1,
        _ => {}
    }
    let base = if s.get(i) == Some(&b'0') && matches!(s.get(i + 1), Some(b'x' | b'X')) {
        i += 2;
        16
    } else if s.get(i) == Some(&b'0') {
        8
    } else {
        10
    };
    let start = i;
    let mut magnitude = Some(0u64);
    while let Some(d) = s.get(i).and_then(|&b| digit_value(b, base)) {
        magnitude = magnitude
            .and_then(|m| m.checked_mul(u64::from(base)))
            .and_then(|m| m.checked_add(u64::from(d)));
        i += 1;
    }
    if i == start {
        // `0x` without hex digits converts the `0` and stops at the `x`.
        if base == 16 {
            return Some(IntScan {
                negative,
                magnitude: Some(0),
                end: start - 1,
            });
        }
        return None;
    }
    Some(IntScan {
        negative,
        magnitude,
        end: i,
    })
}

/// glibc `strtol`/`strtoll` (64-bit `long`): the value and whether `ERANGE`
/// was raised; `None` when nothing converted.
fn strtol(s: &[u8]) -> Option<(i64, bool)> {
    let scan = scan_integer(s)?;
    let limit = if scan.negative {
        1u64 << 63
    } else {
        i64::MAX as u64
    };
    Some(match scan.magnitude {
        Some(m) if m <= limit => {
            let value = m as i64;
            (
                if scan.negative {
                    value.wrapping_neg()
                } else {
                    value
                },
                false,
            )
        }
        _ => (if scan.negative { i64::MIN } else { i64::MAX }, true),
    })
}

/// glibc `strtoul`/`strtoull`: the value and whether `ERANGE` was raised;
/// `None` when nothing converted.
fn strtoul(s: &[u8]) -> Option<(u64, bool)> {
    let scan = scan_integer(s)?;
    Some(match scan.magnitude {
        Some(m) => (if scan.negative { m.wrapping_neg() } else { m }, false),
        None => (u64::MAX, true),
    })
}

/// A hexadecimal float: `mantissa * 2^exponent`, with `sticky` set when
/// nonzero digits beyond the mantissa's capacity were dropped.
struct HexFloat {
    negative: bool,
    mantissa: u128,
    exponent: i64,
    sticky: bool,
}

impl HexFloat {
    /// Rounds to nearest-even in a binary format with `fraction_bits`
    /// stored mantissa bits and `exponent_bits` exponent bits; returns the
    /// bit pattern, or `None` when a nonzero value underflowed to zero
    /// (glibc raises `ERANGE` and upstream rejects it).
    fn round_to_bits(&self, fraction_bits: u32, exponent_bits: u32) -> Option<u64> {
        let sign = u64::from(self.negative) << (fraction_bits + exponent_bits);
        if self.mantissa == 0 {
            return Some(sign);
        }
        let precision = i64::from(fraction_bits) + 1;
        let bias = (1i64 << (exponent_bits - 1)) - 1;
        let min_lsb = (1 - bias) - (precision - 1);
        let (mut mantissa, mut exponent, mut sticky) = (self.mantissa, self.exponent, self.sticky);
        let mut msb = i64::from(127 - mantissa.leading_zeros());
        if msb + exponent < 1 - bias && msb >= precision {
            // glibc quirk: for a subnormal result, strtod first keeps the
            // leading `precision` bits and then forgets the bit right after
            // them (its first round bit), keeping only the bits beyond it as
            // sticky. `0x1.000001p-150` therefore reads as 0 for f32, where
            // correct rounding gives 2^-149.
            let extra = (msb + 1 - precision) as u32;
            sticky |= mantissa & ((1u128 << (extra - 1)) - 1) != 0;
            mantissa >>= extra;
            exponent += i64::from(extra);
            msb = precision - 1;
        }
        let mut lsb = (msb + exponent - (precision - 1)).max(min_lsb);
        let shift = lsb - exponent;
        let mut significand: u128;
        if shift <= 0 {
            significand = mantissa << (-shift);
        } else {
            let (kept, round, rest) = if shift > 128 {
                (0, false, true)
            } else if shift == 128 {
                (0, mantissa >> 127 != 0, mantissa & !(1u128 << 127) != 0)
            } else {
                let s = shift as u32;
                (
                    mantissa >> s,
                    (mantissa >> (s - 1)) & 1 != 0,
                    mantissa & ((1u128 << (s - 1)) - 1) != 0,
                )
            };
            significand = kept;
            if round && (rest || sticky || significand & 1 != 0) {
                significand += 1;
            }
            if significand >> precision != 0 {
                significand >>= 1;
                lsb += 1;
            }
        }
        if significand == 0 {
            return None;
        }
        let significand = significand as u64;
        let bits = if significand >> (precision - 1) != 0 {
            let biased = lsb + (precision - 1) + bias;
            if biased > 2 * bias {
                // Overflow: infinity (ERANGE, but nonzero, so accepted).
                ((2 * bias + 1) as u64) << fraction_bits
            } else {
                ((biased as u64) << fraction_bits) | (significand & ((1u64 << fraction_bits) - 1))
            }
        } else {
            significand
        };
        Some(sign | bits)
    }
}

/// What `strtod`/`strtof` found at the start of a text.
enum FloatScan<'a> {
    Infinity {
        negative: bool,
    },
    Nan {
        negative: bool,
        payload: Option<u64>,
    },
    Hex(HexFloat),
    /// A decimal number: its text (sign included, nothing trailing) and
    /// whether any mantissa digit is nonzero.
    Decimal {
        text: &'a str,
        nonzero: bool,
    },
}

fn starts_with_ignore_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Scans a C floating-point number at the start of `s` the way glibc's
/// `strtod` does; `None` when no conversion is possible.
fn scan_float(s: &[u8]) -> Option<FloatScan<'_>> {
    let sign_at = skip_space(s);
    let mut i = sign_at;
    let mut negative = false;
    match s.get(i) {
        Some(b'-') => {
            negative = true;
            i += 1;
        }
        Some(b'+') => i += 1,
        _ => {}
    }
    let rest = &s[i..];

    if starts_with_ignore_case(rest, b"inf") {
        return Some(FloatScan::Infinity { negative });
    }
    if starts_with_ignore_case(rest, b"nan") {
        let mut payload = None;
        if rest.get(3) == Some(&b'(') {
            let body = &rest[4..];
            let len = body
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
                .unwrap_or(body.len());
            if body.get(len) == Some(&b')') {
                // The payload counts only when strtoull reads the whole
                // sequence.
                if let Some(scan) = scan_integer(&body[..len]) {
                    if scan.end == len {
                        payload = Some(scan.magnitude.unwrap_or(u64::MAX));
                    }
                } else if len == 0 {
                    payload = Some(0);
                }
            }
        }
        return Some(FloatScan::Nan { negative, payload });
    }

    let is_hex_digit = |at: usize| rest.get(at).is_some_and(u8::is_ascii_hexdigit);
    if rest.first() == Some(&b'0')
        && matches!(rest.get(1), Some(b'x' | b'X'))
        && (is_hex_digit(2) || (rest.get(2) == Some(&b'.') && is_hex_digit(3)))
    {
        return Some(FloatScan::Hex(scan_hex_float(&rest[2..], negative)));
    }

    // Decimal: digits, an optional point and digits (at least one digit in
    // all), then an optional exponent with at least one digit.
    let mut j = 0;
    let mut digits = 0;
    let mut nonzero = false;
    while let Some(b) = rest.get(j).filter(|b| b.is_ascii_digit()) {
        nonzero |= *b != b'0';
        digits += 1;
        j += 1;
    }
    if rest.get(j) == Some(&b'.') {
        j += 1;
        while let Some(b) = rest.get(j).filter(|b| b.is_ascii_digit()) {
            nonzero |= *b != b'0';
            digits += 1;
            j += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if matches!(rest.get(j), Some(b'e' | b'E')) {
        let mut k = j + 1;
        if matches!(rest.get(k), Some(b'+' | b'-')) {
            k += 1;
        }
        if rest.get(k).is_some_and(u8::is_ascii_digit) {
            while rest.get(k).is_some_and(u8::is_ascii_digit) {
                k += 1;
            }
            j = k;
        }
    }
    // Only ASCII was consumed, so this is a character boundary.
    let text = std::str::from_utf8(&s[sign_at..i + j]).ok()?;
    Some(FloatScan::Decimal { text, nonzero })
}

/// Reads the hex digits (after `0x`) and binary exponent of a hex float.
fn scan_hex_float(s: &[u8], negative: bool) -> HexFloat {
    let mut mantissa = 0u128;
    let mut exponent = 0i64;
    let mut sticky = false;
    let mut i = 0;
    let mut after_point = false;
    loop {
        match s.get(i) {
            Some(b'.') if !after_point => after_point = true,
            Some(b) if b.is_ascii_hexdigit() => {
                let d = u128::from(digit_value(*b, 16).unwrap_or(0));
                if mantissa >> 120 == 0 {
                    mantissa = mantissa * 16 + d;
                    if after_point {
                        exponent -= 4;
                    }
                } else {
                    sticky |= d != 0;
                    if !after_point {
                        exponent += 4;
                    }
                }
            }
            _ => break,
        }
        i += 1;
    }
    if matches!(s.get(i), Some(b'p' | b'P')) {
        let mut k = i + 1;
        let mut exponent_negative = false;
        match s.get(k) {
            Some(b'-') => {
                exponent_negative = true;
                k += 1;
            }
            Some(b'+') => k += 1,
            _ => {}
        }
        let mut p = 0i64;
        let mut any = false;
        while let Some(d) = s.get(k).and_then(|&b| digit_value(b, 10)) {
            // Saturate far beyond any representable exponent.
            p = (p * 10 + i64::from(d)).min(1 << 40);
            any = true;
            k += 1;
        }
        if any {
            exponent += if exponent_negative { -p } else { p };
        }
    }
    HexFloat {
        negative,
        mantissa,
        exponent,
        sticky,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(atoi_i32("0x10"), Some(16));
        assert_eq!(atoi_i32("010"), Some(8));
        assert_eq!(atoi_i32("0x"), Some(0));
        assert_eq!(atoi_i32("4294967295"), Some(-1));
        assert_eq!(atoi_i32("0000000000000001"), None);
        assert_eq!(atoi_i64("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(atoi_i64("9223372036854775808"), None);
        assert_eq!(atoi_u32("-1"), Some(u32::MAX));
        assert_eq!(atoi_i32("abc"), None);
    }

    #[test]
    fn floats() {
        assert_eq!(atof("0x1.8p1"), Some(3.0));
        assert_eq!(atof("1e-46"), None);
        assert_eq!(atof("1e-45"), Some(f32::from_bits(1)));
        assert_eq!(atod("0x1p-1075"), None);
        assert_eq!(atod("0x1.8p-1074"), Some(f64::from_bits(2)));
        // glibc's subnormal hex rounding quirk.
        assert_eq!(atof("0x1.000001p-150"), None);
        assert_eq!(atof("0x1.400001p-148"), Some(f32::from_bits(2)));
        assert_eq!(atod("0x1.00000000000008p-1075"), None);
        assert_eq!(
            atod("nan(0x5)").map(f64::to_bits),
            Some(0x7FF8_0000_0000_0005)
        );
        assert_eq!(atod("-nan").map(f64::to_bits), Some(0xFFF8_0000_0000_0000));
        assert_eq!(atod("1.5abc"), Some(1.5));
        assert_eq!(atod("."), None);
    }
}
