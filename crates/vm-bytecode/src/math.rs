//! Scalar semantics of the arithmetic, conversion and comparison ops, matching
//! upstream's C definitions (wrapping integer math, masked shift amounts,
//! `lroundf`-style float-to-int casts, `remainder` for float rem).
//!
//! Integer division by zero (and `INT_MIN / -1`) is undefined in upstream's C
//! and traps the process; here it is an error status instead.

use iree_base::{Result, Status, StatusCode};

use crate::op::{BinF, BinI32, BinI64, CmpF, Conv, UnF, UnI32, UnI64};

#[cold]
fn div_error(what: &str) -> Status {
    Status::new(StatusCode::InvalidArgument, format!("integer {what}"))
}

/// Binary i32 ops other than the hot ones.
#[inline]
pub fn bin_i32(op: BinI32, a: i32, b: i32) -> Result<i32> {
    Ok(match op {
        BinI32::DivS => a.checked_div(b).ok_or_else(|| {
            div_error(if b == 0 {
                "division by zero"
            } else {
                "division overflow"
            })
        })?,
        BinI32::DivU => (a as u32)
            .checked_div(b as u32)
            .ok_or_else(|| div_error("division by zero"))? as i32,
        BinI32::RemS => a.checked_rem(b).ok_or_else(|| {
            div_error(if b == 0 {
                "remainder by zero"
            } else {
                "remainder overflow"
            })
        })?,
        BinI32::RemU => (a as u32)
            .checked_rem(b as u32)
            .ok_or_else(|| div_error("remainder by zero"))? as i32,
        BinI32::MinS => {
            if b < a {
                b
            } else {
                a
            }
        }
        BinI32::MinU => {
            if (b as u32) < (a as u32) {
                b
            } else {
                a
            }
        }
        BinI32::MaxS => {
            if a < b {
                b
            } else {
                a
            }
        }
        BinI32::MaxU => {
            if (a as u32) < (b as u32) {
                b
            } else {
                a
            }
        }
    })
}

/// Unary i32 ops.
#[inline]
pub fn un_i32(op: UnI32, a: i32) -> i32 {
    match op {
        UnI32::Not => !a,
        UnI32::TruncI8 => a as u8 as i32,
        UnI32::TruncI16 => a as u16 as i32,
        UnI32::ExtI8S => a as i8 as i32,
        UnI32::ExtI8U => a as u8 as i32,
        UnI32::ExtI16S => a as i16 as i32,
        UnI32::ExtI16U => a as u16 as i32,
        UnI32::Ctlz => (a as u32).leading_zeros() as i32,
        UnI32::Abs => a.wrapping_abs(),
    }
}

/// Binary i64 ops other than the hot ones.
#[inline]
pub fn bin_i64(op: BinI64, a: i64, b: i64) -> Result<i64> {
    Ok(match op {
        BinI64::DivS => a.checked_div(b).ok_or_else(|| {
            div_error(if b == 0 {
                "division by zero"
            } else {
                "division overflow"
            })
        })?,
        BinI64::DivU => (a as u64)
            .checked_div(b as u64)
            .ok_or_else(|| div_error("division by zero"))? as i64,
        BinI64::RemS => a.checked_rem(b).ok_or_else(|| {
            div_error(if b == 0 {
                "remainder by zero"
            } else {
                "remainder overflow"
            })
        })?,
        BinI64::RemU => (a as u64)
            .checked_rem(b as u64)
            .ok_or_else(|| div_error("remainder by zero"))? as i64,
        BinI64::MinS => {
            if b < a {
                b
            } else {
                a
            }
        }
        BinI64::MinU => {
            if (b as u64) < (a as u64) {
                b
            } else {
                a
            }
        }
        BinI64::MaxS => {
            if a < b {
                b
            } else {
                a
            }
        }
        BinI64::MaxU => {
            if (a as u64) < (b as u64) {
                b
            } else {
                a
            }
        }
        BinI64::And => a & b,
        BinI64::Or => a | b,
        BinI64::Xor => a ^ b,
    })
}

/// Unary i64 ops.
#[inline]
pub fn un_i64(op: UnI64, a: i64) -> i64 {
    match op {
        UnI64::Not => !a,
        UnI64::Ctlz => i64::from((a as u64).leading_zeros()),
        UnI64::Abs => a.wrapping_abs(),
    }
}

/// True when a conversion reads an i64/f64 register pair.
pub fn conv_input_is_wide(op: Conv) -> bool {
    matches!(
        op,
        Conv::TruncI64I32
            | Conv::Si64F32
            | Conv::Ui64F32
            | Conv::F64F32
            | Conv::F64Si32
            | Conv::F64Ui32
            | Conv::Si64F64
            | Conv::Ui64F64
            | Conv::F64Si64
            | Conv::F64Ui64
            | Conv::CmpNzI64
            | Conv::CmpNanF64
    )
}

/// `llround` as x86-64 glibc computes it: out-of-range and NaN give `i64::MIN`.
fn llround(x: f64) -> i64 {
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
fn to_u64_like_c(x: f64) -> u64 {
    let a = cvtt(x);
    let b = cvtt(x - 9.223_372_036_854_776e18);
    (((a >> 63) & b) | a) as u64
}

/// Applies a conversion; returns the result bits and whether they are 64-bit.
#[inline]
pub fn conv(op: Conv, a32: u32, a64: u64) -> (u64, bool) {
    let f32v = f32::from_bits(a32);
    let f64v = f64::from_bits(a64);
    match op {
        Conv::TruncI64I32 => (a64 as u32 as u64, false),
        Conv::ExtI32I64S => (a32 as i32 as i64 as u64, true),
        Conv::ExtI32I64U => (u64::from(a32), true),
        Conv::Si32F32 => (u64::from((a32 as i32 as f32).to_bits()), false),
        Conv::Ui32F32 => (u64::from((a32 as f32).to_bits()), false),
        Conv::F32Si32 => (llround(f64::from(f32v.round())) as i32 as u32 as u64, false),
        Conv::F32Ui32 => (llround(f64::from(f32v.round())) as u32 as u64, false),
        Conv::F32Si64 => (llround(f64::from(f32v.round())) as u64, true),
        Conv::F32Ui64 => (to_u64_like_c(f64::from(f32v.round())), true),
        Conv::Si64F32 => (u64::from((a64 as i64 as f32).to_bits()), false),
        Conv::Ui64F32 => (u64::from((a64 as f32).to_bits()), false),
        Conv::F64F32 => (u64::from((f64v as f32).to_bits()), false),
        Conv::F32F64 => (f64::from(f32v).to_bits(), true),
        Conv::Si32F64 => (f64::from(a32 as i32).to_bits(), true),
        Conv::Ui32F64 => (f64::from(a32).to_bits(), true),
        // Upstream narrows to f32 and uses `lroundf` for these two.
        Conv::F64Si32 => (
            llround(f64::from((f64v as f32).round())) as i32 as u32 as u64,
            false,
        ),
        Conv::F64Ui32 => (
            llround(f64::from((f64v as f32).round())) as u32 as u64,
            false,
        ),
        Conv::Si64F64 => ((a64 as i64 as f64).to_bits(), true),
        Conv::Ui64F64 => ((a64 as f64).to_bits(), true),
        Conv::F64Si64 => (llround(f64v) as u64, true),
        Conv::F64Ui64 => (llround(f64v) as u64, true),
        Conv::CmpNzI64 => (u64::from(a64 != 0), false),
        Conv::CmpNanF32 => (u64::from(f32v.is_nan()), false),
        Conv::CmpNanF64 => (u64::from(f64v.is_nan()), false),
    }
}

macro_rules! float_ops {
    ($bin:ident, $un:ident, $t:ty, $rem:path, $erf:path) => {
        /// Binary float ops.
        #[inline]
        pub fn $bin(op: BinF, a: $t, b: $t) -> $t {
            match op {
                BinF::Add => a + b,
                BinF::Sub => a - b,
                BinF::Mul => a * b,
                BinF::Div => a / b,
                BinF::Rem => $rem(a, b),
                BinF::Min => {
                    if b < a {
                        b
                    } else {
                        a
                    }
                }
                BinF::Max => {
                    if a < b {
                        b
                    } else {
                        a
                    }
                }
                BinF::Atan2 => a.atan2(b),
                BinF::Pow => a.powf(b),
            }
        }

        /// Unary float ops.
        #[inline]
        pub fn $un(op: UnF, a: $t) -> $t {
            match op {
                UnF::Abs => a.abs(),
                UnF::Neg => -a,
                UnF::Ceil => a.ceil(),
                UnF::Floor => a.floor(),
                UnF::Round => a.round(),
                UnF::RoundEven => {
                    // Upstream's pre-C23 formulation; note it turns -0.5 into +0.
                    let mut rounded = a.round();
                    if (a - rounded).abs() == 0.5 && rounded % 2.0 != 0.0 {
                        rounded += if rounded > 0.0 { -1.0 } else { 1.0 };
                    }
                    rounded
                }
                UnF::Atan => a.atan(),
                UnF::Cos => a.cos(),
                UnF::Sin => a.sin(),
                UnF::Exp => a.exp(),
                UnF::Exp2 => a.exp2(),
                UnF::Expm1 => a.exp_m1(),
                UnF::Log => a.ln(),
                UnF::Log10 => a.log10(),
                UnF::Log1p => a.ln_1p(),
                UnF::Log2 => a.log2(),
                UnF::Rsqrt => 1.0 / a.sqrt(),
                UnF::Sqrt => a.sqrt(),
                UnF::Tanh => a.tanh(),
                UnF::Erf => $erf(a),
            }
        }
    };
}
float_ops!(bin_f32, un_f32, f32, libm::remainderf, libm::erff);
float_ops!(bin_f64, un_f64_libm, f64, libm::remainder, libm::erf);

/// Unary f64 ops. Upstream's build returns a positive NaN from `log` and
/// `log2` of negative numbers, where glibc's gives a negative one.
#[inline]
pub fn un_f64(op: UnF, a: f64) -> f64 {
    match op {
        UnF::Log | UnF::Log2 if a < 0.0 => f64::NAN,
        _ => un_f64_libm(op, a),
    }
}

/// Float comparisons (f32 operands are widened exactly).
#[inline]
pub fn cmp_f64(op: CmpF, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match op {
        CmpF::EqO => a == b,
        CmpF::EqU => unordered || a == b,
        CmpF::NeO => a != b,
        CmpF::NeU => unordered || a != b,
        CmpF::LtO => a < b,
        CmpF::LtU => unordered || a < b,
        CmpF::LteO => a <= b,
        CmpF::LteU => unordered || a <= b,
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
