//! The VM's register-to-register instructions in one table.
//!
//! `for_each_alu_op!` lists every arithmetic, bitwise, shift, compare,
//! conversion and float-math opcode of the core, EXT_F32 and EXT_F64 sets
//! once: its opcode set and byte, its upstream mnemonic, the executable op
//! variant it becomes, its operand and result value types in encoding order,
//! and its semantics. Everything per-opcode about these instructions follows
//! from this table:
//!
//! * the [`Op`](crate::op::Op) variants (`op.rs`),
//! * decoding and verification of their operands (`decode.rs`),
//! * their interpreter arms, all on the dispatch loop's fast path
//!   (`interp.rs`),
//! * their mnemonics ([`alu_mnemonic`]).
//!
//! Row syntax: `SET BYTE "mnemonic" Variant(operand: Type, ...) -> Type =
//! ok EXPR;` where each operand and the result are `I32`, `I64`, `F32` or
//! `F64` (read from and written to the register file as such) and `EXPR`
//! computes the result from the operands by name. `try EXPR` marks a
//! fallible instruction: `EXPR` is a `Result`, and its error fails the call
//! with the instruction's position. Instructions with side effects, side
//! tables or control flow (globals, constants, lists, refs, buffers,
//! branches, calls) are decoded and executed by hand in `decode.rs` and
//! `interp.rs`.
//!
//! Semantics match upstream's C definitions: wrapping integer math, masked
//! shift amounts, `lroundf`-style float-to-int casts, `remainder` for float
//! `rem` (see `math.rs` for the helpers).

/// Invokes `$m! { ($($args)*) ROWS... }` with every row of the table.
macro_rules! for_each_alu_op {
    ($m:ident ! { $($args:tt)* }) => {
        $m! {
            ($($args)*)
            // ---- i32 ----
            Core 0x22 "add.i32" AddI32(a: I32, b: I32) -> I32 = ok a.wrapping_add(b);
            Core 0x23 "sub.i32" SubI32(a: I32, b: I32) -> I32 = ok a.wrapping_sub(b);
            Core 0x24 "mul.i32" MulI32(a: I32, b: I32) -> I32 = ok a.wrapping_mul(b);
            Core 0x25 "div.i32.s" DivSI32(a: I32, b: I32) -> I32 = try $crate::math::div_s_i32(a, b);
            Core 0x26 "div.i32.u" DivUI32(a: I32, b: I32) -> I32 = try $crate::math::div_u_i32(a, b);
            Core 0x27 "rem.i32.s" RemSI32(a: I32, b: I32) -> I32 = try $crate::math::rem_s_i32(a, b);
            Core 0x28 "rem.i32.u" RemUI32(a: I32, b: I32) -> I32 = try $crate::math::rem_u_i32(a, b);
            Core 0x29 "fma.i32" FmaI32(a: I32, b: I32, c: I32) -> I32 = ok a.wrapping_mul(b).wrapping_add(c);
            Core 0x32 "not.i32" NotI32(a: I32) -> I32 = ok !a;
            Core 0x33 "and.i32" AndI32(a: I32, b: I32) -> I32 = ok a & b;
            Core 0x34 "or.i32" OrI32(a: I32, b: I32) -> I32 = ok a | b;
            Core 0x35 "xor.i32" XorI32(a: I32, b: I32) -> I32 = ok a ^ b;
            Core 0x3A "shl.i32" ShlI32(a: I32, b: I32) -> I32 = ok a.wrapping_shl(b as u32);
            Core 0x3B "shr.i32.s" ShrSI32(a: I32, b: I32) -> I32 = ok a.wrapping_shr(b as u32);
            Core 0x3C "shr.i32.u" ShrUI32(a: I32, b: I32) -> I32 = ok (a as u32).wrapping_shr(b as u32) as i32;
            Core 0x40 "trunc.i32.i8" TruncI32I8(a: I32) -> I32 = ok a as u8 as i32;
            Core 0x41 "trunc.i32.i16" TruncI32I16(a: I32) -> I32 = ok a as u16 as i32;
            Core 0x43 "ext.i8.i32.s" ExtI8I32S(a: I32) -> I32 = ok a as i8 as i32;
            Core 0x44 "ext.i8.i32.u" ExtI8I32U(a: I32) -> I32 = ok a as u8 as i32;
            Core 0x45 "ext.i16.i32.s" ExtI16I32S(a: I32) -> I32 = ok a as i16 as i32;
            Core 0x46 "ext.i16.i32.u" ExtI16I32U(a: I32) -> I32 = ok a as u16 as i32;
            Core 0x49 "cmp.eq.i32" CmpEqI32(a: I32, b: I32) -> I32 = ok i32::from(a == b);
            Core 0x4A "cmp.ne.i32" CmpNeI32(a: I32, b: I32) -> I32 = ok i32::from(a != b);
            Core 0x4B "cmp.lt.i32.s" CmpLtSI32(a: I32, b: I32) -> I32 = ok i32::from(a < b);
            Core 0x4C "cmp.lt.i32.u" CmpLtUI32(a: I32, b: I32) -> I32 = ok i32::from((a as u32) < (b as u32));
            Core 0x4D "cmp.nz.i32" CmpNzI32(a: I32) -> I32 = ok i32::from(a != 0);
            Core 0x75 "ctlz.i32" CtlzI32(a: I32) -> I32 = ok (a as u32).leading_zeros() as i32;
            Core 0x77 "abs.i32" AbsI32(a: I32) -> I32 = ok a.wrapping_abs();
            Core 0x7A "min.i32.s" MinSI32(a: I32, b: I32) -> I32 = ok a.min(b);
            Core 0x7B "min.i32.u" MinUI32(a: I32, b: I32) -> I32 = ok (a as u32).min(b as u32) as i32;
            Core 0x7C "max.i32.s" MaxSI32(a: I32, b: I32) -> I32 = ok a.max(b);
            Core 0x7D "max.i32.u" MaxUI32(a: I32, b: I32) -> I32 = ok (a as u32).max(b as u32) as i32;
            // ---- i64 ----
            Core 0x2A "add.i64" AddI64(a: I64, b: I64) -> I64 = ok a.wrapping_add(b);
            Core 0x2B "sub.i64" SubI64(a: I64, b: I64) -> I64 = ok a.wrapping_sub(b);
            Core 0x2C "mul.i64" MulI64(a: I64, b: I64) -> I64 = ok a.wrapping_mul(b);
            Core 0x2D "div.i64.s" DivSI64(a: I64, b: I64) -> I64 = try $crate::math::div_s_i64(a, b);
            Core 0x2E "div.i64.u" DivUI64(a: I64, b: I64) -> I64 = try $crate::math::div_u_i64(a, b);
            Core 0x2F "rem.i64.s" RemSI64(a: I64, b: I64) -> I64 = try $crate::math::rem_s_i64(a, b);
            Core 0x30 "rem.i64.u" RemUI64(a: I64, b: I64) -> I64 = try $crate::math::rem_u_i64(a, b);
            Core 0x31 "fma.i64" FmaI64(a: I64, b: I64, c: I64) -> I64 = ok a.wrapping_mul(b).wrapping_add(c);
            Core 0x36 "not.i64" NotI64(a: I64) -> I64 = ok !a;
            Core 0x37 "and.i64" AndI64(a: I64, b: I64) -> I64 = ok a & b;
            Core 0x38 "or.i64" OrI64(a: I64, b: I64) -> I64 = ok a | b;
            Core 0x39 "xor.i64" XorI64(a: I64, b: I64) -> I64 = ok a ^ b;
            Core 0x3D "shl.i64" ShlI64(a: I64, b: I32) -> I64 = ok a.wrapping_shl(b as u32);
            Core 0x3E "shr.i64.s" ShrSI64(a: I64, b: I32) -> I64 = ok a.wrapping_shr(b as u32);
            Core 0x3F "shr.i64.u" ShrUI64(a: I64, b: I32) -> I64 = ok (a as u64).wrapping_shr(b as u32) as i64;
            Core 0x42 "trunc.i64.i32" TruncI64I32(a: I64) -> I32 = ok a as i32;
            Core 0x47 "ext.i32.i64.s" ExtI32I64S(a: I32) -> I64 = ok i64::from(a);
            Core 0x48 "ext.i32.i64.u" ExtI32I64U(a: I32) -> I64 = ok i64::from(a as u32);
            Core 0x4E "cmp.eq.i64" CmpEqI64(a: I64, b: I64) -> I32 = ok i32::from(a == b);
            Core 0x4F "cmp.ne.i64" CmpNeI64(a: I64, b: I64) -> I32 = ok i32::from(a != b);
            Core 0x50 "cmp.lt.i64.s" CmpLtSI64(a: I64, b: I64) -> I32 = ok i32::from(a < b);
            Core 0x51 "cmp.lt.i64.u" CmpLtUI64(a: I64, b: I64) -> I32 = ok i32::from((a as u64) < (b as u64));
            Core 0x52 "cmp.nz.i64" CmpNzI64(a: I64) -> I32 = ok i32::from(a != 0);
            Core 0x76 "ctlz.i64" CtlzI64(a: I64) -> I64 = ok i64::from((a as u64).leading_zeros());
            Core 0x78 "abs.i64" AbsI64(a: I64) -> I64 = ok a.wrapping_abs();
            Core 0x7E "min.i64.s" MinSI64(a: I64, b: I64) -> I64 = ok a.min(b);
            Core 0x7F "min.i64.u" MinUI64(a: I64, b: I64) -> I64 = ok (a as u64).min(b as u64) as i64;
            Core 0x80 "max.i64.s" MaxSI64(a: I64, b: I64) -> I64 = ok a.max(b);
            Core 0x81 "max.i64.u" MaxUI64(a: I64, b: I64) -> I64 = ok (a as u64).max(b as u64) as i64;
            // ---- f32 ----
            F32 0x0A "add.f32" AddF32(a: F32, b: F32) -> F32 = ok a + b;
            F32 0x0B "sub.f32" SubF32(a: F32, b: F32) -> F32 = ok a - b;
            F32 0x0C "mul.f32" MulF32(a: F32, b: F32) -> F32 = ok a * b;
            F32 0x0D "div.f32" DivF32(a: F32, b: F32) -> F32 = ok a / b;
            F32 0x0E "rem.f32" RemF32(a: F32, b: F32) -> F32 = ok libm::remainderf(a, b);
            F32 0x0F "fma.f32" FmaF32(a: F32, b: F32, c: F32) -> F32 = ok a * b + c;
            F32 0x10 "abs.f32" AbsF32(a: F32) -> F32 = ok a.abs();
            F32 0x11 "neg.f32" NegF32(a: F32) -> F32 = ok -a;
            F32 0x12 "ceil.f32" CeilF32(a: F32) -> F32 = ok a.ceil();
            F32 0x13 "floor.f32" FloorF32(a: F32) -> F32 = ok a.floor();
            F32 0x14 "cast.si32.f32" CastSi32F32(a: I32) -> F32 = ok a as f32;
            F32 0x15 "cast.ui32.f32" CastUi32F32(a: I32) -> F32 = ok a as u32 as f32;
            F32 0x16 "cast.f32.si32" CastF32Si32(a: F32) -> I32 = ok $crate::math::llround(f64::from(a.round())) as i32;
            F32 0x17 "cast.f32.ui32" CastF32Ui32(a: F32) -> I32 = ok $crate::math::llround(f64::from(a.round())) as u32 as i32;
            F32 0x18 "bitcast.i32.f32" BitcastI32F32(a: I32) -> F32 = ok f32::from_bits(a as u32);
            F32 0x19 "bitcast.f32.i32" BitcastF32I32(a: F32) -> I32 = ok a.to_bits() as i32;
            F32 0x1A "atan.f32" AtanF32(a: F32) -> F32 = ok a.atan();
            F32 0x1B "atan2.f32" Atan2F32(a: F32, b: F32) -> F32 = ok a.atan2(b);
            F32 0x1C "cos.f32" CosF32(a: F32) -> F32 = ok a.cos();
            F32 0x1D "sin.f32" SinF32(a: F32) -> F32 = ok a.sin();
            F32 0x1E "exp.f32" ExpF32(a: F32) -> F32 = ok a.exp();
            F32 0x1F "exp2.f32" Exp2F32(a: F32) -> F32 = ok a.exp2();
            F32 0x20 "expm1.f32" Expm1F32(a: F32) -> F32 = ok a.exp_m1();
            F32 0x21 "log.f32" LogF32(a: F32) -> F32 = ok a.ln();
            F32 0x22 "log10.f32" Log10F32(a: F32) -> F32 = ok a.log10();
            F32 0x23 "log1p.f32" Log1pF32(a: F32) -> F32 = ok a.ln_1p();
            F32 0x24 "log2.f32" Log2F32(a: F32) -> F32 = ok a.log2();
            F32 0x25 "pow.f32" PowF32(a: F32, b: F32) -> F32 = ok a.powf(b);
            F32 0x26 "rsqrt.f32" RsqrtF32(a: F32) -> F32 = ok 1.0 / a.sqrt();
            F32 0x27 "sqrt.f32" SqrtF32(a: F32) -> F32 = ok a.sqrt();
            F32 0x28 "tanh.f32" TanhF32(a: F32) -> F32 = ok a.tanh();
            F32 0x29 "erf.f32" ErfF32(a: F32) -> F32 = ok libm::erff(a);
            F32 0x2A "cmp.eq.f32.o" CmpEqOF32(a: F32, b: F32) -> I32 = ok i32::from(a == b);
            F32 0x2B "cmp.eq.f32.u" CmpEqUF32(a: F32, b: F32) -> I32 = ok i32::from(a.is_nan() || b.is_nan() || a == b);
            F32 0x2C "cmp.ne.f32.o" CmpNeOF32(a: F32, b: F32) -> I32 = ok i32::from(a != b);
            F32 0x2D "cmp.ne.f32.u" CmpNeUF32(a: F32, b: F32) -> I32 = ok i32::from(a.is_nan() || b.is_nan() || a != b);
            F32 0x2E "cmp.lt.f32.o" CmpLtOF32(a: F32, b: F32) -> I32 = ok i32::from(a < b);
            F32 0x2F "cmp.lt.f32.u" CmpLtUF32(a: F32, b: F32) -> I32 = ok i32::from(a.is_nan() || b.is_nan() || a < b);
            F32 0x30 "cmp.lte.f32.o" CmpLteOF32(a: F32, b: F32) -> I32 = ok i32::from(a <= b);
            F32 0x31 "cmp.lte.f32.u" CmpLteUF32(a: F32, b: F32) -> I32 = ok i32::from(a.is_nan() || b.is_nan() || a <= b);
            F32 0x32 "cmp.nan.f32" CmpNanF32(a: F32) -> I32 = ok i32::from(a.is_nan());
            F32 0x36 "round.f32" RoundF32(a: F32) -> F32 = ok a.round();
            F32 0x37 "min.f32" MinF32(a: F32, b: F32) -> F32 = ok if b < a { b } else { a };
            F32 0x38 "max.f32" MaxF32(a: F32, b: F32) -> F32 = ok if a < b { b } else { a };
            F32 0x39 "round.f32.even" RoundEvenF32(a: F32) -> F32 = ok $crate::math::round_even_f32(a);
            F32 0x3A "cast.f32.si64" CastF32Si64(a: F32) -> I64 = ok $crate::math::llround(f64::from(a.round()));
            F32 0x3B "cast.f32.ui64" CastF32Ui64(a: F32) -> I64 = ok $crate::math::to_u64_like_c(f64::from(a.round())) as i64;
            F32 0x3C "cast.si64.f32" CastSi64F32(a: I64) -> F32 = ok a as f32;
            F32 0x3D "cast.ui64.f32" CastUi64F32(a: I64) -> F32 = ok a as u64 as f32;
            F32 0x3E "fpowi.f32" FpowiF32(a: F32, b: I64) -> F32 = ok $crate::math::fpowi_f32(a, b);
            // ---- f64 ----
            F64 0x0A "add.f64" AddF64(a: F64, b: F64) -> F64 = ok a + b;
            F64 0x0B "sub.f64" SubF64(a: F64, b: F64) -> F64 = ok a - b;
            F64 0x0C "mul.f64" MulF64(a: F64, b: F64) -> F64 = ok a * b;
            F64 0x0D "div.f64" DivF64(a: F64, b: F64) -> F64 = ok a / b;
            F64 0x0E "rem.f64" RemF64(a: F64, b: F64) -> F64 = ok libm::remainder(a, b);
            F64 0x0F "fma.f64" FmaF64(a: F64, b: F64, c: F64) -> F64 = ok a * b + c;
            F64 0x10 "abs.f64" AbsF64(a: F64) -> F64 = ok a.abs();
            F64 0x11 "neg.f64" NegF64(a: F64) -> F64 = ok -a;
            F64 0x12 "ceil.f64" CeilF64(a: F64) -> F64 = ok a.ceil();
            F64 0x13 "floor.f64" FloorF64(a: F64) -> F64 = ok a.floor();
            F64 0x14 "trunc.f64.f32" TruncF64F32(a: F64) -> F32 = ok a as f32;
            F64 0x15 "ext.f32.f64" ExtF32F64(a: F32) -> F64 = ok f64::from(a);
            F64 0x16 "cast.si32.f64" CastSi32F64(a: I32) -> F64 = ok f64::from(a);
            F64 0x17 "cast.ui32.f64" CastUi32F64(a: I32) -> F64 = ok f64::from(a as u32);
            // Upstream narrows to f32 and uses `lroundf` for these two.
            F64 0x18 "cast.f64.si32" CastF64Si32(a: F64) -> I32 = ok $crate::math::llround(f64::from((a as f32).round())) as i32;
            F64 0x19 "cast.f64.ui32" CastF64Ui32(a: F64) -> I32 = ok $crate::math::llround(f64::from((a as f32).round())) as u32 as i32;
            F64 0x1A "cast.si64.f64" CastSi64F64(a: I64) -> F64 = ok a as f64;
            F64 0x1B "cast.ui64.f64" CastUi64F64(a: I64) -> F64 = ok a as u64 as f64;
            F64 0x1C "cast.f64.si64" CastF64Si64(a: F64) -> I64 = ok $crate::math::llround(a);
            F64 0x1D "cast.f64.ui64" CastF64Ui64(a: F64) -> I64 = ok $crate::math::llround(a);
            F64 0x1E "bitcast.i64.f64" BitcastI64F64(a: I64) -> F64 = ok f64::from_bits(a as u64);
            F64 0x1F "bitcast.f64.i64" BitcastF64I64(a: F64) -> I64 = ok a.to_bits() as i64;
            F64 0x20 "atan.f64" AtanF64(a: F64) -> F64 = ok a.atan();
            F64 0x21 "atan2.f64" Atan2F64(a: F64, b: F64) -> F64 = ok a.atan2(b);
            F64 0x22 "cos.f64" CosF64(a: F64) -> F64 = ok a.cos();
            F64 0x23 "sin.f64" SinF64(a: F64) -> F64 = ok a.sin();
            F64 0x24 "exp.f64" ExpF64(a: F64) -> F64 = ok a.exp();
            F64 0x25 "exp2.f64" Exp2F64(a: F64) -> F64 = ok a.exp2();
            F64 0x26 "expm1.f64" Expm1F64(a: F64) -> F64 = ok a.exp_m1();
            F64 0x27 "log.f64" LogF64(a: F64) -> F64 = ok $crate::math::log_f64(a);
            F64 0x28 "log10.f64" Log10F64(a: F64) -> F64 = ok a.log10();
            F64 0x29 "log1p.f64" Log1pF64(a: F64) -> F64 = ok a.ln_1p();
            F64 0x2A "log2.f64" Log2F64(a: F64) -> F64 = ok $crate::math::log2_f64(a);
            F64 0x2B "pow.f64" PowF64(a: F64, b: F64) -> F64 = ok a.powf(b);
            F64 0x2C "rsqrt.f64" RsqrtF64(a: F64) -> F64 = ok 1.0 / a.sqrt();
            F64 0x2D "sqrt.f64" SqrtF64(a: F64) -> F64 = ok a.sqrt();
            F64 0x2E "tanh.f64" TanhF64(a: F64) -> F64 = ok a.tanh();
            F64 0x2F "erf.f64" ErfF64(a: F64) -> F64 = ok libm::erf(a);
            F64 0x30 "cmp.eq.f64.o" CmpEqOF64(a: F64, b: F64) -> I32 = ok i32::from(a == b);
            F64 0x31 "cmp.eq.f64.u" CmpEqUF64(a: F64, b: F64) -> I32 = ok i32::from(a.is_nan() || b.is_nan() || a == b);
            F64 0x32 "cmp.ne.f64.o" CmpNeOF64(a: F64, b: F64) -> I32 = ok i32::from(a != b);
            F64 0x33 "cmp.ne.f64.u" CmpNeUF64(a: F64, b: F64) -> I32 = ok i32::from(a.is_nan() || b.is_nan() || a != b);
            F64 0x34 "cmp.lt.f64.o" CmpLtOF64(a: F64, b: F64) -> I32 = ok i32::from(a < b);
            F64 0x35 "cmp.lt.f64.u" CmpLtUF64(a: F64, b: F64) -> I32 = ok i32::from(a.is_nan() || b.is_nan() || a < b);
            F64 0x36 "cmp.lte.f64.o" CmpLteOF64(a: F64, b: F64) -> I32 = ok i32::from(a <= b);
            F64 0x37 "cmp.lte.f64.u" CmpLteUF64(a: F64, b: F64) -> I32 = ok i32::from(a.is_nan() || b.is_nan() || a <= b);
            F64 0x38 "cmp.nan.f64" CmpNanF64(a: F64) -> I32 = ok i32::from(a.is_nan());
            F64 0x3C "round.f64" RoundF64(a: F64) -> F64 = ok a.round();
            F64 0x3D "min.f64" MinF64(a: F64, b: F64) -> F64 = ok if b < a { b } else { a };
            F64 0x3E "max.f64" MaxF64(a: F64, b: F64) -> F64 = ok if a < b { b } else { a };
            F64 0x3F "round.f64.even" RoundEvenF64(a: F64) -> F64 = ok $crate::math::round_even_f64(a);
            F64 0x40 "fpowi.f64" FpowiF64(a: F64, b: I64) -> F64 = ok $crate::math::fpowi_f64(a, b);
        }
    };
}
pub(crate) use for_each_alu_op;

/// The opcode sets: the core set and the EXT_F32 / EXT_F64 prefixed sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpcodeSet {
    /// Unprefixed opcodes.
    Core,
    /// Opcodes after the `0xE0` prefix.
    F32,
    /// Opcodes after the `0xE1` prefix.
    F64,
}

macro_rules! define_alu_mnemonic {
    (() $( $set:ident $code:literal $mnemonic:literal $name:ident
           ( $($arg:ident : $arg_ty:ident),* ) -> $result_ty:ident = $kind:ident $sem:expr ; )*) => {
        /// The upstream mnemonic (without `vm.`) of a register-to-register
        /// instruction, or `None` for other opcodes.
        pub fn alu_mnemonic(set: OpcodeSet, code: u8) -> Option<&'static str> {
            match (set, code) {
                $( (OpcodeSet::$set, $code) => Some($mnemonic), )*
                _ => None,
            }
        }
    };
}
for_each_alu_op!(define_alu_mnemonic! {});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alu_opcode_is_listed_once() {
        let mut seen = std::collections::HashSet::new();
        for set in [OpcodeSet::Core, OpcodeSet::F32, OpcodeSet::F64] {
            for code in 0..=255u8 {
                if let Some(m) = alu_mnemonic(set, code) {
                    assert!(seen.insert(m), "{m} listed twice");
                }
            }
        }
        assert_eq!(seen.len(), 163);
    }
}
