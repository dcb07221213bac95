//! Scalar semantics of the arithmetic, conversion and comparison ops, matching
//! upstream's C definitions (wrapping integer math, masked shift amounts,
//! `lroundf`-style float-to-int casts, IEEE `remainder` for float rem).
//!
//! Integer division by zero (and `INT_MIN / -1`) is undefined in upstream's C
//! and traps the process; here it is an error status instead.

use iree_base::{Status, StatusCode};

/// A failed integer division: what went wrong, as upstream words it. A
/// plain value, so the interpreter builds the [`Status`] only on the
/// failure path ([`DivisionError::status`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivisionError(&'static str);

impl DivisionError {
    /// The error status (`INVALID_ARGUMENT`).
    #[cold]
    pub fn status(self) -> Status {
        Status::new(StatusCode::InvalidArgument, format!("integer {}", self.0))
    }
}

macro_rules! checked_division {
    ($($name:ident($t:ty as $u:ty).$op:ident, $what:literal
       $(, power_of_two |$pa:ident, $pb:ident| $fast:expr)?;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`, computed as `", stringify!($u),
                        "`: an error for a zero divisor or overflow.")]
        #[inline]
        #[allow(clippy::unnecessary_cast, reason = "one macro for signed and unsigned")]
        pub fn $name(a: $t, b: $t) -> Result<$t, DivisionError> {
            $(
                // A power-of-two divisor (compiled code divides by constant
                // tile sizes and strides) shifts or masks: one cycle where a
                // division takes a dozen or more. The branch is on the
                // divisor, usually loop-invariant, so it predicts well.
                let ($pa, $pb) = (a as $u, b as $u);
                if $pb.is_power_of_two() {
                    return Ok($fast as $t);
                }
            )?
            match (a as $u).$op(b as $u) {
                Some(v) => Ok(v as $t),
                None => Err(DivisionError(if b == 0 {
                    concat!($what, " by zero")
                } else {
                    concat!($what, " overflow")
                })),
            }
        }
    )*};
}
checked_division! {
    div_s_i32(i32 as i32).checked_div, "division";
    div_u_i32(i32 as u32).checked_div, "division", power_of_two |a, b| a >> b.trailing_zeros();
    rem_s_i32(i32 as i32).checked_rem, "remainder";
    rem_u_i32(i32 as u32).checked_rem, "remainder", power_of_two |a, b| a & (b - 1);
    div_s_i64(i64 as i64).checked_div, "division";
    div_u_i64(i64 as u64).checked_div, "division", power_of_two |a, b| a >> b.trailing_zeros();
    rem_s_i64(i64 as i64).checked_rem, "remainder";
    rem_u_i64(i64 as u64).checked_rem, "remainder", power_of_two |a, b| a & (b - 1);
}

/// `llround` as x86-64 glibc computes it: out-of-range and NaN give `i64::MIN`.
pub fn llround(x: f64) -> i64 {
    let r = x.round();
    if r.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
        i64::MIN
    } else {
        r as i64
    }
}

/// x86-64 `cvttsd2si`: truncation, with NaN and out-of-range giving `i64::MIN`.
fn cvtt(x: f64) -> i64 {
    if x.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// A C `(uint64_t)` cast of a float as upstream's x86-64 build computes it
/// (branch-free: `(a >> 63 & b) | a` with `a = cvtt(x)`, `b = cvtt(x - 2^63)`).
pub fn to_u64_like_c(x: f64) -> u64 {
    let a = cvtt(x);
    let b = cvtt(x - 9.223_372_036_854_776e18);
    (((a >> 63) & b) | a) as u64
}

macro_rules! round_even {
    ($name:ident, $t:ty) => {
        /// `round.even` in upstream's pre-C23 formulation (note: it turns
        /// -0.5 into +0).
        #[inline]
        pub fn $name(a: $t) -> $t {
            let mut rounded = a.round();
            if (a - rounded).abs() == 0.5 && rounded % 2.0 != 0.0 {
                rounded += if rounded > 0.0 { -1.0 } else { 1.0 };
            }
            rounded
        }
    };
}
round_even!(round_even_f32, f32);
round_even!(round_even_f64, f64);

/// `log.f64`: upstream's build returns a positive NaN for negative inputs,
/// where glibc's gives a negative one.
#[inline]
pub fn log_f64(a: f64) -> f64 {
    if a < 0.0 {
        f64::NAN
    } else {
        a.ln()
    }
}

/// `log2.f64`, with `log_f64`'s NaN sign.
#[inline]
pub fn log2_f64(a: f64) -> f64 {
    if a < 0.0 {
        f64::NAN
    } else {
        a.log2()
    }
}

macro_rules! powi {
    ($name:ident, $t:ty) => {
        /// `fpowi`: compiler-rt's `__powi` on the exponent truncated to i32.
        #[inline]
        pub fn $name(base: $t, exponent: i64) -> $t {
            let mut b = exponent as i32;
            let recip = b < 0;
            let mut a = base;
            let mut r: $t = 1.0;
            loop {
                if b & 1 != 0 {
                    r *= a;
                }
                b /= 2;
                if b == 0 {
                    break;
                }
                a *= a;
            }
            if recip {
                1.0 / r
            } else {
                r
            }
        }
    };
}
powi!(fpowi_f32, f32);
powi!(fpowi_f64, f64);

/// `rem.f64`: IEEE 754 `remainder`, `x - n*y` with `n` the quotient rounded
/// to nearest, ties to even. The result is always exact, so it has one
/// correct value whatever the method.
///
/// When the operands' exponents are within 64 of each other this computes
/// it on the significands as integers (one 128-bit division); a quotient
/// of 2^22 costs the same as one of 2. Non-finite operands, a zero divisor
/// and wider exponent gaps go to `libm::remainder`, whose shift-and-subtract
/// loop takes one step per bit of the quotient.
#[inline]
pub fn remainder_f64(x: f64, y: f64) -> f64 {
    const MAGNITUDE: u64 = !(1 << 63);
    const INFINITY: u64 = 0x7FF0_0000_0000_0000;
    let (ux, uy) = (x.to_bits() & MAGNITUDE, y.to_bits() & MAGNITUDE);
    if ux >= INFINITY || uy >= INFINITY || uy == 0 {
        return libm::remainder(x, y);
    }
    let ((mx, ex), (my, ey)) = (integer_significand(ux), integer_significand(uy));
    if ex.abs_diff(ey) > 64 {
        return libm::remainder(x, y);
    }
    // |x| = n * 2^e and |y| = d * 2^e exactly, with n and d below 2^118.
    let e = ex.min(ey);
    let n = u128::from(mx) << (ex - e);
    let d = u128::from(my) << (ey - e);
    let quotient = n / d;
    let rest = n - quotient * d;
    // Round the quotient to nearest, ties to the even quotient: past the
    // half-way point the remainder is `rest - d`, negative.
    let round_up = 2 * rest > d || (2 * rest == d && quotient & 1 == 1);
    // Either way the magnitude is at most d / 2 and below 2^53 (when d is
    // wider, the quotient is 0 and `rest` is |x|'s significand), so the
    // integer converts exactly and the power-of-two scaling is exact.
    let magnitude = if round_up { d - rest } else { rest } as u64 as f64 * power_of_two(e);
    let negative = x.is_sign_negative() != round_up;
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// `rem.f32`: IEEE 754 `remainder` in f32. Widening to f64 is exact and the
/// remainder is exact in either width (a multiple of the f32 operands'
/// unit, at most half the divisor), so the f64 remainder narrows without
/// rounding. Non-finite operands and a zero divisor keep
/// `libm::remainderf`'s NaN.
#[inline]
pub fn remainder_f32(x: f32, y: f32) -> f32 {
    if !x.is_finite() || !y.is_finite() || y == 0.0 {
        return libm::remainderf(x, y);
    }
    remainder_f64(f64::from(x), f64::from(y)) as f32
}

/// A finite, non-negative double's bits as `(m, e)` with value `m * 2^e`,
/// `m < 2^53` and `e >= -1074`.
fn integer_significand(bits: u64) -> (u64, i32) {
    let exponent = (bits >> 52) as i32;
    let fraction = bits & ((1 << 52) - 1);
    if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exponent - 1075)
    }
}

/// `2^e` for `-1074 <= e <= 971`, subnormal below -1022.
fn power_of_two(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (e + 1074))
    }
}

#[cfg(test)]
mod tests {
    use super::{div_u_i32, div_u_i64, rem_u_i32, rem_u_i64, remainder_f32, remainder_f64};

    /// Unsigned division and remainder by powers of two (the shift and mask
    /// path) equal the division's, at both widths; zero still fails.
    #[test]
    fn power_of_two_divisors_match_division() {
        let values32 = [
            0u32,
            1,
            2,
            3,
            7,
            8,
            1000,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
        ];
        for k in 0..32 {
            let b = 1u32 << k;
            for &a in &values32 {
                assert_eq!(
                    div_u_i32(a as i32, b as i32),
                    Ok((a / b) as i32),
                    "{a} / {b}"
                );
                assert_eq!(
                    rem_u_i32(a as i32, b as i32),
                    Ok((a % b) as i32),
                    "{a} % {b}"
                );
            }
        }
        let values64 = [0u64, 1, 5, 1 << 40, u64::MAX / 3, 1 << 63, u64::MAX];
        for k in 0..64 {
            let b = 1u64 << k;
            for &a in &values64 {
                assert_eq!(
                    div_u_i64(a as i64, b as i64),
                    Ok((a / b) as i64),
                    "{a} / {b}"
                );
                assert_eq!(
                    rem_u_i64(a as i64, b as i64),
                    Ok((a % b) as i64),
                    "{a} % {b}"
                );
            }
        }
        assert!(div_u_i32(5, 0).is_err() && rem_u_i64(5, 0).is_err());
    }

    /// The exact remainders against `libm::remainder(f)` (musl's
    /// algorithm) on quotient ties, sign and zero cases, subnormals, wide
    /// exponent gaps and a deterministic sweep of random bit patterns.
    #[test]
    fn remainders_match_libm_bit_for_bit() {
        let check = |x: f64, y: f64| {
            let (ours, theirs) = (remainder_f64(x, y), libm::remainder(x, y));
            assert!(
                ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()),
                "remainder({x:e}, {y:e}): {ours:e} ({:#x}) vs {theirs:e} ({:#x})",
                ours.to_bits(),
                theirs.to_bits()
            );
        };
        let specials = [
            0.0,
            -0.0,
            0.5,
            1.0,
            1.5,
            2.5,
            3.0,
            7.0,
            -7.5,
            1e7,
            1e-300,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            2.2e-308,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            0.1,
            1.0 / 3.0,
            9_007_199_254_740_993.0,
        ];
        for &x in &specials {
            for &y in &specials {
                check(x, y);
                check(-x, y);
                check(x, -y);
            }
        }
        // Half-way quotients round to the even one.
        for k in 0..if cfg!(miri) { 4 } else { 64 } {
            for y in [3.0, 0.75, 1e-310, 6e300] {
                check((2 * k + 1) as f64 * y / 2.0, y);
                check(-((2 * k + 1) as f64) * y / 2.0, y);
            }
        }
        // xorshift over bit patterns: all exponents, then exponents near
        // each other (the integer path), then small-magnitude divisors.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let sweep = if cfg!(miri) { 500 } else { 300_000 };
        for _ in 0..sweep {
            let (x, y) = (f32::from_bits(next() as u32), f32::from_bits(next() as u32));
            let y_near =
                f32::from_bits((next() as u32 & 0x807F_FFFF) | (x.to_bits() & 0x7F80_0000));
            for y in [y, y_near] {
                let (ours, theirs) = (remainder_f32(x, y), libm::remainderf(x, y));
                assert!(
                    ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()),
                    "remainder({x:e}, {y:e}): {ours:e} vs {theirs:e}"
                );
            }
        }
        for i in 0..sweep {
            let (a, b) = (next(), next());
            let x = f64::from_bits(a);
            let y = match i % 3 {
                0 => f64::from_bits(b),
                1 => {
                    let exponent = ((a >> 52) & 0x7FF) as i64 + (b >> 56) as i64 % 140 - 70;
                    let exponent = exponent.clamp(0, 0x7FE) as u64;
                    f64::from_bits((b & 0x800F_FFFF_FFFF_FFFF) | (exponent << 52))
                }
                _ => f64::from_bits(b & 0x800F_FFFF_FFFF_FFFF | 0x3FF0_0000_0000_0000),
            };
            check(x, y);
        }
    }
}
