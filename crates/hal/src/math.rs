//! Conversions between `f32` and the narrow floating-point formats HAL
//! buffers hold (f16, bf16 and the 8-bit float variants), with exactly the
//! semantics of upstream's generic software routines
//! (`iree/base/internal/math.h`), which the tools use to parse and print
//! buffer contents.
//!
//! These are deliberately *not* IEEE-correct in a few corners, because
//! upstream is not:
//!
//! * widening any NaN gives the positive default NaN (so `-nan` in an f16
//!   prints as `NAN`, never `-NAN`);
//! * narrowing a NaN keeps its sign and sets every exponent and mantissa bit
//!   (`0x7FFF` / `0xFFFF` for f16), or gives the `-0` encoding for the FNUZ
//!   types;
//! * f32 subnormals narrow to (signed) zero for every type but bf16;
//! * a value at or below half the smallest subnormal of the target narrows to
//!   zero, and so do values that would need a rounding shift of more than 23
//!   bits (in f16, `4.5e-8` gives 0 where IEEE rounding gives `2^-24`);
//! * types without infinities (`f8E4M3FN`, the FNUZ types) narrow infinities
//!   and overflowing values to NaN; FNUZ types narrow `-0` to `+0`.

/// The shape of a narrow floating-point format (what upstream's
/// `IREE_MATH_MAKE_FLOAT_TYPE_HELPERS` takes).
#[derive(Clone, Copy)]
struct Format {
    exp_bits: u32,
    mantissa_bits: u32,
    have_infinity: bool,
    have_nan: bool,
    bias_tweak: i32,
    nan_as_neg_zero: bool,
}

impl Format {
    fn sign_shift(self) -> u32 {
        self.exp_bits + self.mantissa_bits
    }
    fn sign_mask(self) -> u32 {
        1 << self.sign_shift()
    }
    fn mantissa_mask(self) -> u32 {
        (1 << self.mantissa_bits) - 1
    }
    fn exp_mask(self) -> u32 {
        (1 << self.sign_shift()) - (1 << self.mantissa_bits)
    }
    fn exp_bias(self) -> i32 {
        self.bias_tweak + (1 << (self.exp_bits - 1)) - 1
    }
}

const F16: Format = Format {
    exp_bits: 5,
    mantissa_bits: 10,
    have_infinity: true,
    have_nan: true,
    bias_tweak: 0,
    nan_as_neg_zero: false,
};
const BF16: Format = Format {
    exp_bits: 8,
    mantissa_bits: 7,
    have_infinity: true,
    have_nan: true,
    bias_tweak: 0,
    nan_as_neg_zero: false,
};
const F8E5M2: Format = Format {
    exp_bits: 5,
    mantissa_bits: 2,
    have_infinity: true,
    have_nan: true,
    bias_tweak: 0,
    nan_as_neg_zero: false,
};
const F8E4M3FN: Format = Format {
    exp_bits: 4,
    mantissa_bits: 3,
    have_infinity: false,
    have_nan: true,
    bias_tweak: 0,
    nan_as_neg_zero: false,
};
const F8E5M2FNUZ: Format = Format {
    exp_bits: 5,
    mantissa_bits: 2,
    have_infinity: false,
    have_nan: true,
    bias_tweak: 1,
    nan_as_neg_zero: true,
};
const F8E4M3FNUZ: Format = Format {
    exp_bits: 4,
    mantissa_bits: 3,
    have_infinity: false,
    have_nan: true,
    bias_tweak: 1,
    nan_as_neg_zero: true,
};

/// `mantissa * 2^exponent` as an f32; exact for every value a narrow format
/// can hold.
fn ldexp(mantissa: u32, exponent: i32) -> f32 {
    (f64::from(mantissa) * 2f64.powi(exponent)) as f32
}

/// Widens the low bits of `src` in format `f` to f32
/// (`iree_math_make_f32_from_bits`).
fn widen(src: u32, f: Format) -> f32 {
    let sign = if src & f.sign_mask() != 0 { -1.0 } else { 1.0 };
    let exp = src & f.exp_mask();
    let mantissa = src & f.mantissa_mask();
    if exp == f.exp_mask() {
        if f.have_infinity {
            if f.have_nan && mantissa != 0 {
                return f32::NAN;
            }
            return sign * f32::INFINITY;
        }
        if f.have_nan && mantissa == f.mantissa_mask() && !f.nan_as_neg_zero {
            return f32::NAN;
        }
    } else if f.have_nan && f.nan_as_neg_zero && src == f.sign_mask() {
        return f32::NAN;
    } else if exp == 0 {
        return sign * ldexp(mantissa, 1 - f.exp_bias() - f.mantissa_bits as i32);
    }
    sign * ldexp(
        mantissa + (1 << f.mantissa_bits),
        (exp >> f.mantissa_bits) as i32 - f.exp_bias() - f.mantissa_bits as i32,
    )
}

/// Adds the round-to-nearest-even bias for a right shift by `shift`.
fn bias_to_nearest_even(input: u32, shift: u32) -> u32 {
    let even_bit = 1u32 << shift;
    let odd_bit = even_bit >> 1;
    let bias = if input & even_bit != 0 {
        odd_bit
    } else {
        odd_bit.wrapping_sub(1)
    };
    input.wrapping_add(bias)
}

/// Narrows `value` to format `f`, rounding to nearest even
/// (`iree_math_truncate_f32_to_bits_rounding_to_nearest_even`).
fn narrow(value: f32, f: Format) -> u32 {
    const F32_MANTISSA_BITS: u32 = 23;
    const F32_EXP_MASK: u32 = 0x7F80_0000;
    const F32_MANTISSA_MASK: u32 = 0x007F_FFFF;
    let bits = value.to_bits();
    let dst_sign = (bits & 0x8000_0000) >> (31 - f.sign_shift());
    let f32_exp = bits & F32_EXP_MASK;
    let f32_mantissa = bits & F32_MANTISSA_MASK;
    let mut dst_exp = 0u32;
    let mut dst_mantissa = 0u32;
    let mut generate_nan = false;
    let mut generate_inf = false;
    if f32_exp >= F32_EXP_MASK {
        if f32_mantissa != 0 {
            generate_nan = true;
        } else {
            generate_inf = true;
        }
    } else if f32_exp == 0 {
        if f.exp_bits == 8 {
            let shift = F32_MANTISSA_BITS - f.mantissa_bits;
            dst_mantissa = bias_to_nearest_even(f32_mantissa, shift) >> shift;
        }
    } else {
        let mut arithmetic_exp = (f32_exp >> F32_MANTISSA_BITS) as i32 - 127;
        if arithmetic_exp > (1 << (f.exp_bits - 1)) - i32::from(f.have_infinity) {
            generate_inf = true;
        } else if arithmetic_exp + f.exp_bias() <= 0 {
            let dst_arithmetic_exp = 1 - f.exp_bias();
            let shift = F32_MANTISSA_BITS as i32 - f.mantissa_bits as i32 - arithmetic_exp
                + dst_arithmetic_exp;
            if (0..=F32_MANTISSA_BITS as i32).contains(&shift) {
                let effective = (1u32 << F32_MANTISSA_BITS) + f32_mantissa;
                dst_mantissa = bias_to_nearest_even(effective, shift as u32) >> shift;
            }
        } else {
            let shift = F32_MANTISSA_BITS - f.mantissa_bits;
            let mut biased = bias_to_nearest_even(f32_mantissa, shift);
            if biased > F32_MANTISSA_MASK {
                biased = 0;
                arithmetic_exp += 1;
            }
            dst_exp = ((arithmetic_exp + f.exp_bias()) as u32) << f.mantissa_bits;
            dst_mantissa = biased >> shift;
            if !f.have_infinity && dst_exp > f.exp_mask() {
                generate_nan = true;
            }
        }
    }
    if generate_inf {
        if f.have_infinity {
            return dst_sign | f.exp_mask();
        }
        if f.have_nan {
            generate_nan = true;
        } else {
            return dst_sign | f.exp_mask() | f.mantissa_mask();
        }
    }
    if generate_nan {
        if !f.have_nan {
            return 0;
        }
        if f.nan_as_neg_zero {
            return f.sign_mask();
        }
        return dst_sign | f.exp_mask() | f.mantissa_mask();
    }
    if f.nan_as_neg_zero && dst_exp == 0 && dst_mantissa == 0 {
        return 0;
    }
    dst_sign | dst_exp | dst_mantissa
}

/// Widens IEEE half-precision bits to f32 (`iree_math_f16_to_f32`).
pub fn f16_to_f32(bits: u16) -> f32 {
    widen(u32::from(bits), F16)
}

/// Narrows f32 to IEEE half-precision bits (`iree_math_f32_to_f16`).
pub fn f32_to_f16(value: f32) -> u16 {
    narrow(value, F16) as u16
}

/// Widens bfloat16 bits to f32 (`iree_math_bf16_to_f32`).
pub fn bf16_to_f32(bits: u16) -> f32 {
    widen(u32::from(bits), BF16)
}

/// Narrows f32 to bfloat16 bits (`iree_math_f32_to_bf16`).
pub fn f32_to_bf16(value: f32) -> u16 {
    narrow(value, BF16) as u16
}

/// Widens `f8E5M2` bits to f32.
pub fn f8e5m2_to_f32(bits: u8) -> f32 {
    widen(u32::from(bits), F8E5M2)
}

/// Narrows f32 to `f8E5M2` bits.
pub fn f32_to_f8e5m2(value: f32) -> u8 {
    narrow(value, F8E5M2) as u8
}

/// Widens `f8E4M3FN` bits to f32.
pub fn f8e4m3fn_to_f32(bits: u8) -> f32 {
    widen(u32::from(bits), F8E4M3FN)
}

/// Narrows f32 to `f8E4M3FN` bits.
pub fn f32_to_f8e4m3fn(value: f32) -> u8 {
    narrow(value, F8E4M3FN) as u8
}

/// Widens `f8E5M2FNUZ` bits to f32.
pub fn f8e5m2fnuz_to_f32(bits: u8) -> f32 {
    widen(u32::from(bits), F8E5M2FNUZ)
}

/// Narrows f32 to `f8E5M2FNUZ` bits.
pub fn f32_to_f8e5m2fnuz(value: f32) -> u8 {
    narrow(value, F8E5M2FNUZ) as u8
}

/// Widens `f8E4M3FNUZ` bits to f32.
pub fn f8e4m3fnuz_to_f32(bits: u8) -> f32 {
    widen(u32::from(bits), F8E4M3FNUZ)
}

/// Narrows f32 to `f8E4M3FNUZ` bits.
pub fn f32_to_f8e4m3fnuz(value: f32) -> u8 {
    narrow(value, F8E4M3FNUZ) as u8
}

/// Widens `f8E8M0FNU` bits (a power-of-two scale) to f32: `0xFF` is NaN,
/// everything else is `2^(bits - 127)`.
pub fn f8e8m0fnu_to_f32(bits: u8) -> f32 {
    if bits == 0xFF {
        f32::NAN
    } else {
        ldexp(1, i32::from(bits) - 127)
    }
}

/// Narrows f32 to `f8E8M0FNU` bits: non-finite values give `0xFF` (NaN),
/// values `<= 0` give `0` (`2^-127`), others round the exponent to nearest
/// in linear terms (`3` gives `4`, `1.4` gives `1`) and clamp.
pub fn f32_to_f8e8m0fnu(value: f32) -> u8 {
    if !value.is_finite() {
        return 0xFF;
    }
    if value <= 0.0 {
        return 0;
    }
    let (normalized, exp) = frexp(value);
    let rounded = exp - i32::from(normalized < 0.75);
    (rounded + 127).clamp(0, 0xFF) as u8
}

/// C `frexpf` for finite nonzero values: `(m, e)` with `value = m * 2^e` and
/// `0.5 <= |m| < 1`.
fn frexp(value: f32) -> (f32, i32) {
    let bits = value.to_bits();
    let exp_field = ((bits >> 23) & 0xFF) as i32;
    if exp_field == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(value * 2f32.powi(25));
        return (m, e - 25);
    }
    let m = f32::from_bits((bits & 0x807F_FFFF) | (126 << 23));
    (m, exp_field - 126)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_edges() {
        assert_eq!(f32_to_f16(1.5), 0x3E00);
        assert_eq!(f32_to_f16(65520.0), 0x7C00);
        assert_eq!(f32_to_f16(f32::NAN), 0x7FFF);
        assert_eq!(f32_to_f16(-f32::NAN), 0xFFFF);
        assert_eq!(f32_to_f16(-1e-10), 0x8000);
        assert_eq!(f32_to_f16(4.5e-8), 0);
        assert!(f16_to_f32(0xFFFF).is_nan());
        assert!(f16_to_f32(0xFFFF).is_sign_positive());
        assert_eq!(f16_to_f32(1), 2f32.powi(-24));
    }

    #[test]
    fn fp8_edges() {
        assert_eq!(f32_to_f8e4m3fn(f32::INFINITY), 0x7F);
        assert_eq!(f32_to_f8e4m3fn(464.0), 0x7E);
        assert!(f8e4m3fn_to_f32(0x7F).is_nan());
        assert_eq!(f32_to_f8e5m2fnuz(-0.0), 0);
        assert_eq!(f32_to_f8e5m2fnuz(f32::NAN), 0x80);
        assert!(f8e5m2fnuz_to_f32(0x80).is_nan());
        assert_eq!(f32_to_f8e8m0fnu(3.0), 129);
        assert_eq!(f32_to_f8e8m0fnu(1.4), 127);
        assert_eq!(f8e8m0fnu_to_f32(0), 2f32.powi(-127));
    }
}
