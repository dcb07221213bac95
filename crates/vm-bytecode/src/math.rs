//! Scalar semantics of the arithmetic, conversion and comparison ops, matching
//! upstream's C definitions (wrapping integer math, masked shift amounts,
//! `lroundf`-style float-to-int casts, `remainder` for float rem).
//!
//! Integer division by zero (and `INT_MIN / -1`) is undefined in upstream's C
//! and traps the process; here it is an error status instead.

use iree_base::{Result, Status, StatusCode};

#[cold]
fn div_error(what: &str) -> Status {
    Status::new(StatusCode::InvalidArgument, format!("integer {what}"))
}

macro_rules! checked_division {
    ($($name:ident($t:ty as $u:ty).$op:ident, $what:literal;)*) => {$(
        #[doc = concat!("`", stringify!($name), "`, computed as `", stringify!($u),
                        "`: an error status for a zero divisor or overflow.")]
        #[inline]
        #[allow(clippy::unnecessary_cast, reason = "one macro for signed and unsigned")]
        pub fn $name(a: $t, b: $t) -> Result<$t> {
            match (a as $u).$op(b as $u) {
                Some(v) => Ok(v as $t),
                None => Err(div_error(if b == 0 {
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
    div_u_i32(i32 as u32).checked_div, "division";
    rem_s_i32(i32 as i32).checked_rem, "remainder";
    rem_u_i32(i32 as u32).checked_rem, "remainder";
    div_s_i64(i64 as i64).checked_div, "division";
    div_u_i64(i64 as u64).checked_div, "division";
    rem_s_i64(i64 as i64).checked_rem, "remainder";
    rem_u_i64(i64 as u64).checked_rem, "remainder";
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
