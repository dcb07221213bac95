//! C `printf`-style formatting of floating-point values (`%g`, `%G`, `%e`,
//! `%E`, `%f`, `%F`), byte-compatible with what the upstream tools print.
//!
//! Two flavours are provided because upstream uses two different `printf`s:
//!
//! * [`format_g`], [`format_g_upper`], [`format_g_precision`], [`format_e`]
//!   and [`format_f`] reproduce **IREE's own printf** (`iree/base/printf.c`),
//!   which the 3.13 runtime uses for everything it formats through
//!   `iree_snprintf` / `iree_string_builder_append_format`: scalar results
//!   (`f32=%g`), buffer-view elements (`%G`), comparison messages and status
//!   messages. That implementation is *not* always correctly rounded: for
//!   values whose decimal expansion lies very close to a rounding tie it can
//!   pick the other neighbour (for example the double nearest `5.435605e49`
//!   prints as `5.4356e+49`, where glibc prints `5.43561e+49`), and `%f` of
//!   huge values keeps only 17 significant digits. These functions reproduce
//!   those results exactly (verified against `iree-run-module` 3.13.0 and
//!   against the C implementation built for x86-64 without FMA).
//! * [`format_g_glibc`], [`format_e_glibc`] and [`format_f_glibc`] reproduce
//!   **glibc** `printf`, which rounds the exact binary value correctly
//!   (round-half-even on exact ties). Upstream uses libc `fprintf` directly
//!   only in a few places (for example the flag dump of `--help`).
//!
//! Both flavours print infinities as `inf`/`INF` and NaNs as `nan`/`NAN`,
//! with a leading `-` whenever the sign bit is set (`-0`, `-inf`, `-nan`).
//! Flags and field widths (`%+8.3g`) are not supported; only precision is.

/// The most precision IREE's printf honours; larger requests are clamped.
const IREE_MAX_PRECISION: usize = 10_000;

/// Significant digits IREE's printf computes; more are padded with zeros.
const MAX_FLOAT_PRECISION: i32 = 17;

/// Fraction digits the fixed-point path may compute for small fractions.
const MAX_FIXED_FRACTION_DIGITS: i32 = 19;

/// 2^52: doubles at or above this magnitude have no fractional bits.
const TWO_POW_52: f64 = 4_503_599_627_370_496.0;

/// 2^53: doubles at or above this magnitude are even integers.
const TWO_POW_53: f64 = 9_007_199_254_740_992.0;

/// 2^64.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// Formats `x` like IREE's `printf("%g", x)`: six significant digits.
///
/// This is the text upstream prints for scalar `f32`/`f64` results
/// (`result[0]: f32=0.1`).
pub fn format_g(x: f64) -> String {
    format_g_precision(x, 6, false)
}

/// Formats `x` like IREE's `printf("%G", x)`: six significant digits with
/// upper-case `E`, `INF` and `NAN`.
///
/// This is the text upstream prints for floating-point buffer-view elements.
pub fn format_g_upper(x: f64) -> String {
    format_g_precision(x, 6, true)
}

/// Formats `x` like IREE's `printf("%.*g", precision, x)` (`%.*G` when
/// `upper`). A precision of 0 means 1; precisions above 10000 are clamped
/// to 10000 as upstream does.
pub fn format_g_precision(x: f64, precision: usize, upper: bool) -> String {
    iree_format(x, Conv::G, precision, upper)
}

/// Formats `x` like IREE's `printf("%.*e", precision, x)` (`%.*E` when
/// `upper`).
pub fn format_e(x: f64, precision: usize, upper: bool) -> String {
    iree_format(x, Conv::E, precision, upper)
}

/// Formats `x` like IREE's `printf("%.*f", precision, x)` (`%.*F` when
/// `upper`, which only changes `INF`/`NAN`).
pub fn format_f(x: f64, precision: usize, upper: bool) -> String {
    iree_format(x, Conv::F, precision, upper)
}

/// Formats `x` like glibc's `printf("%.*g", precision, x)` (`%.*G` when
/// `upper`): correctly rounded, round-half-even on exact ties.
pub fn format_g_glibc(x: f64, precision: usize, upper: bool) -> String {
    glibc_format(x, Conv::G, precision, upper)
}

/// Formats `x` like glibc's `printf("%.*e", precision, x)` (`%.*E` when
/// `upper`).
pub fn format_e_glibc(x: f64, precision: usize, upper: bool) -> String {
    glibc_format(x, Conv::E, precision, upper)
}

/// Formats `x` like glibc's `printf("%.*f", precision, x)` (`%.*F` when
/// `upper`).
pub fn format_f_glibc(x: f64, precision: usize, upper: bool) -> String {
    glibc_format(x, Conv::F, precision, upper)
}

/// A floating-point conversion.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Conv {
    F,
    E,
    G,
}

/// Writes the sign and returns the magnitude, or writes the whole text of a
/// non-finite value and returns `None`.
fn sign_and_special(x: f64, upper: bool, out: &mut String) -> Option<f64> {
    if x.is_sign_negative() {
        out.push('-');
    }
    if x.is_nan() {
        out.push_str(if upper { "NAN" } else { "nan" });
        None
    } else if x.is_infinite() {
        out.push_str(if upper { "INF" } else { "inf" });
        None
    } else {
        Some(x.abs())
    }
}

/// Appends `count` copies of `c`.
fn push_repeated(out: &mut String, c: char, count: usize) {
    out.extend(std::iter::repeat_n(c, count));
}

/// Appends an exponent suffix: `e+05`, `E-123`.
fn push_exponent(out: &mut String, exponent: i32, upper: bool) {
    out.push(if upper { 'E' } else { 'e' });
    out.push(if exponent < 0 { '-' } else { '+' });
    let magnitude = exponent.unsigned_abs();
    if magnitude < 10 {
        out.push('0');
    }
    out.push_str(&magnitude.to_string());
}

/// Removes trailing fractional zeros (and then a bare decimal point) from the
/// mantissa in `text`, keeping any exponent suffix, as `%g` does.
fn strip_fraction_zeros(text: &mut String) {
    let exponent_at = text.find(['e', 'E']).unwrap_or(text.len());
    let (mantissa, exponent) = text.split_at(exponent_at);
    if !mantissa.contains('.') {
        return;
    }
    let trimmed = mantissa.trim_end_matches('0').trim_end_matches('.');
    *text = format!("{trimmed}{exponent}");
}

//===----------------------------------------------------------------------===//
// glibc flavour: exact, built on Rust's exact (round-half-even) formatting.
//===----------------------------------------------------------------------===//

fn glibc_format(x: f64, conv: Conv, precision: usize, upper: bool) -> String {
    let mut out = String::new();
    let Some(value) = sign_and_special(x, upper, &mut out) else {
        return out;
    };
    match conv {
        Conv::F => out.push_str(&format!("{value:.precision$}")),
        Conv::E => push_glibc_exponential(&mut out, value, precision, upper),
        Conv::G => {
            let significant = precision.max(1);
            let (_, exponent) = exact_exponential(value, significant - 1);
            let mut body = String::new();
            if exponent < -4 || exponent >= significant as i64 {
                push_glibc_exponential(&mut body, value, significant - 1, upper);
            } else {
                let decimals = (significant as i64 - 1 - exponent) as usize;
                body.push_str(&format!("{value:.decimals$}"));
            }
            strip_fraction_zeros(&mut body);
            out.push_str(&body);
        }
    }
    out
}

/// The correctly rounded mantissa text (`1.2346`) and decimal exponent of a
/// non-negative finite `value` with `precision` fraction digits.
fn exact_exponential(value: f64, precision: usize) -> (String, i64) {
    let text = format!("{value:.precision$e}");
    let (mantissa, exponent) = text
        .split_once('e')
        .expect("exponential format has an exponent");
    (
        mantissa.to_owned(),
        exponent.parse().expect("exponent is an integer"),
    )
}

fn push_glibc_exponential(out: &mut String, value: f64, precision: usize, upper: bool) {
    let (mantissa, exponent) = exact_exponential(value, precision);
    out.push_str(&mantissa);
    push_exponent(out, exponent as i32, upper);
}

//===----------------------------------------------------------------------===//
// IREE flavour: the arithmetic of iree/base/printf.c, step by step.
//===----------------------------------------------------------------------===//

/// The exact rounding error of `a * b` given its rounded `product`, by the
/// Dekker-Veltkamp two-product that upstream uses on targets without FMA.
fn mul_error(a: f64, b: f64, product: f64) -> f64 {
    const SPLIT: f64 = 134_217_729.0; // 2^27 + 1
    let a_big = SPLIT * a;
    let a_hi = a_big - (a_big - a);
    let a_lo = a - a_hi;
    let b_big = SPLIT * b;
    let b_hi = b_big - (b_big - b);
    let b_lo = b - b_hi;
    ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
}

/// `floor` for the finite values the formatter passes.
fn floor(x: f64) -> f64 {
    if x >= TWO_POW_52 || x <= -TWO_POW_52 {
        return x;
    }
    let truncated = x as i64 as f64;
    if truncated > x {
        truncated - 1.0
    } else {
        truncated
    }
}

/// `modf`: (fractional part, integral part).
fn modf(value: f64) -> (f64, f64) {
    if value >= TWO_POW_52 || value <= -TWO_POW_52 {
        return (0.0, value);
    }
    let truncated = value as i64 as f64;
    (value - truncated, truncated)
}

/// Whether an integer-valued double is odd.
fn is_odd(x: f64) -> bool {
    if x >= TWO_POW_53 || x <= -TWO_POW_53 {
        return false;
    }
    (x as i64) & 1 != 0
}

/// An estimate of `floor(log10(value))` for positive finite `value`; may be
/// off by one.
fn log10_approx(value: f64) -> i32 {
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7FF) as i32;
    let log2 = if biased == 0 {
        let mantissa = bits & 0x000F_FFFF_FFFF_FFFF;
        if mantissa == 0 {
            return 0;
        }
        -1074 + (63 - mantissa.leading_zeros() as i32)
    } else {
        biased - 1023
    };
    let product = log2 * 301;
    let mut estimate = product / 1000;
    if product < 0 && product % 1000 != 0 {
        estimate -= 1;
    }
    estimate
}

/// `10^n`: exact from a table for |n| <= 22, otherwise by repeated squaring
/// (inexact, as upstream).
fn pow10(n: i32) -> f64 {
    const TABLE: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let magnitude = n.unsigned_abs();
    if magnitude <= 22 {
        let p = TABLE[magnitude as usize];
        return if n < 0 { 1.0 / p } else { p };
    }
    let mut result = 1.0;
    let mut base = 10.0;
    let mut exp = magnitude;
    while exp > 0 {
        if exp & 1 != 0 {
            if n > 0 {
                result *= base;
            } else {
                result /= base;
            }
        }
        base *= base;
        exp >>= 1;
    }
    result
}

/// `value * 10^n` as a rounded product and its error term.
fn mul_pow10_error(value: f64, n: i32) -> (f64, f64) {
    if n <= 22 {
        let scale = pow10(n);
        let result = value * scale;
        (result, mul_error(value, scale, result))
    } else if n <= 44 {
        let first = pow10(22);
        let second = pow10(n - 22);
        let partial = value * first;
        let error_first = mul_error(value, first, partial);
        let result = partial * second;
        let error_second = mul_error(partial, second, result);
        (result, error_second + error_first * second)
    } else {
        let scale = pow10(n);
        let result = value * scale;
        (result, mul_error(value, scale, result))
    }
}

/// Appends the decimal digits of `value` (nothing for 0).
fn push_u64_digits(out: &mut String, value: u64) {
    if value != 0 {
        out.push_str(&value.to_string());
    }
}

/// `%f` of a non-negative finite value.
fn iree_fixed(out: &mut String, value: f64, precision: i32) {
    let (fractional, mut integral) = modf(value);

    let mut effective = precision;
    if effective > MAX_FLOAT_PRECISION {
        effective = MAX_FLOAT_PRECISION;
        if fractional > 0.0 {
            while effective < precision && effective < MAX_FIXED_FRACTION_DIGITS {
                if fractional * pow10(effective + 1) >= 9.0e15 {
                    break;
                }
                effective += 1;
            }
        }
    }

    let frac_scale = pow10(effective);
    let frac_scaled = fractional * frac_scale;
    let frac_max = frac_scale as u64;
    let error = mul_error(fractional, frac_scale, frac_scaled);
    let mut frac_digits = frac_scaled as u64;
    let remainder = (frac_scaled - frac_digits as f64) + error;
    if remainder > 0.5 {
        frac_digits += 1;
    } else if remainder == 0.5 {
        let odd = if effective > 0 {
            frac_digits & 1 != 0
        } else {
            (integral as u64 % 10) & 1 != 0
        };
        if odd {
            frac_digits += 1;
        }
    }
    if frac_digits >= frac_max {
        frac_digits = 0;
        integral += 1.0;
    }

    if integral == 0.0 {
        out.push('0');
    } else if integral < TWO_POW_64 {
        push_u64_digits(out, integral as u64);
    } else {
        let mut exponent = log10_approx(integral);
        let mut normalized = integral / pow10(exponent);
        if normalized >= 10.0 {
            normalized /= 10.0;
            exponent += 1;
        } else if normalized < 1.0 {
            normalized *= 10.0;
            exponent -= 1;
        }
        let significant = MAX_FLOAT_PRECISION.min(exponent + 1);
        let scaled = normalized * pow10(significant - 1);
        let digits = (scaled + 0.5) as u64;
        let before = out.len();
        push_u64_digits(out, digits);
        let count = (out.len() - before) as i32;
        push_repeated(out, '0', (exponent + 1 - count).max(0) as usize);
    }

    if precision > 0 {
        out.push('.');
        let digits = frac_digits.to_string();
        let shown = effective as usize;
        // frac_digits < 10^effective, so this only adds leading zeros.
        push_repeated(out, '0', shown.saturating_sub(digits.len()));
        if shown > 0 {
            out.push_str(&digits);
        }
        push_repeated(out, '0', (precision - effective) as usize);
    }
}

/// Brings `value` into [1, 10) by steps of at most 10^22, adjusting
/// `exponent`; returns the normalized value scaled by 10^(significant - 1).
fn normalize_in_steps(value: f64, exponent: &mut i32, significant: i32) -> f64 {
    let mut normalized = value;
    let mut remaining = *exponent;
    if remaining > 0 {
        while remaining > 22 {
            normalized /= 1e22;
            remaining -= 22;
        }
        normalized /= pow10(remaining);
    } else if remaining < 0 {
        remaining = -remaining;
        while remaining > 22 {
            normalized *= 1e22;
            remaining -= 22;
        }
        normalized *= pow10(remaining);
    }
    while normalized >= 10.0 {
        normalized /= 10.0;
        *exponent += 1;
    }
    while normalized < 1.0 && normalized > 0.0 {
        normalized *= 10.0;
        *exponent -= 1;
    }
    normalized * pow10(significant - 1)
}

/// Rounds `value / 10^scale_exponent` (0 < scale_exponent <= 22) to an
/// integer, half to even, using an exact remainder.
fn round_divided(value: f64, scale_exponent: i32) -> u64 {
    let divisor = pow10(scale_exponent);
    let mut integer = (value / divisor) as u64;
    let high = integer as f64 * divisor;
    let low = mul_error(integer as f64, divisor, high);
    let mut residual = (value - high) - low;
    if residual < 0.0 {
        integer = integer.wrapping_sub(1);
        residual += divisor;
    }
    let half = divisor * 0.5;
    if residual > half || (residual == half && integer & 1 != 0) {
        integer = integer.wrapping_add(1);
    }
    integer
}

/// Rounds `value * 10^(-scale_exponent)` (-290 <= scale_exponent < 0) to an
/// integer, half to even, using the product's error term.
fn round_multiplied(value: f64, scale_exponent: i32) -> u64 {
    let (product, error) = mul_pow10_error(value, -scale_exponent);
    let mut integer = product as u64;
    let mut remainder = (product - integer as f64) + error;
    while remainder >= 1.0 {
        integer = integer.wrapping_add(1);
        remainder -= 1.0;
    }
    while remainder < 0.0 {
        integer = integer.wrapping_sub(1);
        remainder += 1.0;
    }
    if remainder > 0.5 || (remainder == 0.5 && integer & 1 != 0) {
        integer = integer.wrapping_add(1);
    }
    integer
}

/// Rounds an already scaled value to an integer, half to even.
fn round_scaled(scaled: f64) -> u64 {
    let mut integer = scaled as u64;
    let remainder = scaled - integer as f64;
    if remainder > 0.5 || (remainder == 0.5 && integer & 1 != 0) {
        integer = integer.wrapping_add(1);
    }
    integer
}

/// `%e` of a non-negative finite value.
fn iree_exponential(out: &mut String, value: f64, precision: i32, upper: bool) {
    if value == 0.0 {
        out.push('0');
        if precision > 0 {
            out.push('.');
            push_repeated(out, '0', precision as usize);
        }
        push_exponent(out, 0, upper);
        return;
    }

    let mut exponent = log10_approx(value);
    let significant = (precision + 1).min(MAX_FLOAT_PRECISION);
    let sig_max = pow10(significant) as u64;
    let sig_min = sig_max / 10;

    let mut scale_exponent = exponent - significant + 1;
    let extreme = |e: i32| !(-290..=290).contains(&e);
    let scaled = if extreme(scale_exponent) {
        normalize_in_steps(value, &mut exponent, significant)
    } else if scale_exponent >= 0 {
        value / pow10(scale_exponent)
    } else {
        value * pow10(-scale_exponent)
    };

    let mut integer = if scale_exponent > 0 && scale_exponent <= 22 {
        round_divided(value, scale_exponent)
    } else if (-290..0).contains(&scale_exponent) {
        round_multiplied(value, scale_exponent)
    } else {
        round_scaled(scaled)
    };

    if integer >= sig_max || (integer < sig_min && integer > 0) {
        if integer >= sig_max {
            exponent += 1;
        } else {
            exponent -= 1;
        }
        scale_exponent = exponent - significant + 1;
        let rescaled = if extreme(scale_exponent) {
            normalize_in_steps(value, &mut exponent, significant)
        } else if scale_exponent >= 0 {
            value / pow10(scale_exponent)
        } else {
            value * pow10(-scale_exponent)
        };
        integer = if scale_exponent > 0 && scale_exponent <= 22 {
            round_divided(value, scale_exponent)
        } else if (-290..0).contains(&scale_exponent) {
            round_multiplied(value, scale_exponent)
        } else {
            round_scaled(rescaled)
        };
        while integer >= sig_max {
            integer /= 10;
            exponent += 1;
        }
    }

    // Digits, most significant first, left-padded with zeros to
    // `significant` digits.
    let mut digits = if integer == 0 {
        String::new()
    } else {
        integer.to_string()
    };
    if digits.len() < significant as usize {
        digits.insert_str(0, &"0".repeat(significant as usize - digits.len()));
    }
    let bytes = digits.as_bytes();
    out.push(bytes[0] as char);
    if precision > 0 {
        out.push('.');
    }
    let emitted = (bytes.len() - 1).min(precision as usize);
    out.push_str(&digits[1..1 + emitted]);
    push_repeated(out, '0', precision as usize - emitted);
    push_exponent(out, exponent, upper);
}

/// The decimal exponent `%g` uses to pick between `%e` and `%f`: that of
/// `value` after rounding to `significant` digits.
fn iree_g_exponent(value: f64, significant: i32) -> i32 {
    if value == 0.0 {
        return 0;
    }
    let mut exponent = log10_approx(value);
    let check = value / pow10(exponent);
    if check >= 10.0 {
        exponent += 1;
    } else if check < 1.0 {
        exponent -= 1;
    }
    let mul_exp = significant - exponent - 1;
    if (0..=22).contains(&mul_exp) {
        let scale = pow10(mul_exp);
        let scaled = value * scale;
        let error = mul_error(value, scale, scaled);
        let mut int_part = floor(scaled);
        let mut frac = (scaled - int_part) + error;
        if frac < 0.0 {
            int_part -= 1.0;
            frac += 1.0;
        }
        let rounds_up = frac > 0.5 || (frac == 0.5 && is_odd(int_part));
        if rounds_up && int_part + 1.0 >= pow10(significant) {
            exponent += 1;
        }
    } else if (-22..0).contains(&mul_exp) {
        let divisor = pow10(-mul_exp);
        let mut int_part = floor(value / divisor);
        let high = int_part * divisor;
        let low = mul_error(int_part, divisor, high);
        let mut remainder = (value - high) - low;
        if remainder < 0.0 {
            int_part -= 1.0;
            remainder += divisor;
        }
        let half = divisor * 0.5;
        let rounds_up = remainder > half || (remainder == half && is_odd(int_part));
        if rounds_up && int_part + 1.0 >= pow10(significant) {
            exponent += 1;
        }
    }
    exponent
}

fn iree_format(x: f64, conv: Conv, precision: usize, upper: bool) -> String {
    let mut out = String::new();
    let Some(value) = sign_and_special(x, upper, &mut out) else {
        return out;
    };
    let precision = precision.min(IREE_MAX_PRECISION) as i32;
    match conv {
        Conv::F => iree_fixed(&mut out, value, precision),
        Conv::E => iree_exponential(&mut out, value, precision, upper),
        Conv::G => {
            let significant = precision.max(1);
            let exponent = iree_g_exponent(value, significant);
            let mut body = String::new();
            if exponent < -4 || exponent >= significant {
                iree_exponential(&mut body, value, significant - 1, upper);
            } else {
                iree_fixed(&mut body, value, (significant - exponent - 1).max(0));
            }
            strip_fraction_zeros(&mut body);
            out.push_str(&body);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basics() {
        assert_eq!(format_g(0.0), "0");
        assert_eq!(format_g(-0.0), "-0");
        assert_eq!(format_g(1e-5), "1e-05");
        assert_eq!(format_g(123456789.0), "1.23457e+08");
        assert_eq!(format_g(1e300), "1e+300");
        assert_eq!(format_g(f64::NAN), "nan");
        assert_eq!(format_g(-f64::NAN), "-nan");
        assert_eq!(format_g_upper(f64::NEG_INFINITY), "-INF");
        assert_eq!(format_g_upper(1e-5), "1E-05");
        assert_eq!(format_e(0.0, 3, false), "0.000e+00");
        assert_eq!(format_f(2.5, 0, false), "2");
        assert_eq!(format_g_glibc(5.435605e49, 6, false), "5.43561e+49");
        assert_eq!(format_g(5.435605e49), "5.4356e+49");
    }
}
