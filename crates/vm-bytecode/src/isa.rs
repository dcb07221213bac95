//! The VM's instruction set in one table: every opcode of the core, EXT_F32
//! and EXT_F64 sets has one row, in one of two macros.
//!
//! `for_each_alu_op!` lists every arithmetic, bitwise, shift, compare,
//! conversion and float-math opcode once: its opcode set and byte, its
//! upstream mnemonic, the executable op variant it becomes, its operand and
//! result value types in encoding order, and its semantics. Everything
//! per-opcode about these instructions follows from this table:
//!
//! * the [`Op`](crate::op::Op) variants (`op.rs`),
//! * decoding and verification of their operands (`decode.rs`),
//! * their interpreter handlers, one function each, all on the threaded
//!   fast path (`interp/dispatch.rs`),
//! * their mnemonics ([`alu_mnemonic`]) and disassembly.
//!
//! Row syntax: `SET BYTE "mnemonic" Variant(operand: Type, ...) -> Type =
//! ok EXPR;` where each operand and the result are `I32`, `I64`, `F32` or
//! `F64` (read from and written to the register file as such) and `EXPR`
//! computes the result from the operands by name. `try EXPR` marks a
//! fallible instruction: `EXPR` is a `Result`, and its error fails the call
//! with the instruction's position.
//!
//! `for_each_other_op!` lists the other 101 opcodes (globals, constants,
//! lists, refs, buffers, branches, calls, `fail`, `yield`, trace): each
//! operand's encoding ([`Operand`]), the `Op` it is decoded into, and
//! upstream's print syntax. The decoder reads their operands by kind from
//! it (`decode.rs`), the disassembler reads and prints them
//! ([`crate::disasm`]); their interpreter handlers are written by hand in
//! `interp/dispatch.rs` (hot ops) and `interp.rs` (the slow path), named
//! by the `Op` variants. [`op_info`] answers for any
//! opcode.
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
            F32 0x0E "rem.f32" RemF32(a: F32, b: F32) -> F32 = ok $crate::math::remainder_f32(a, b);
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
            F64 0x0E "rem.f64" RemF64(a: F64, b: F64) -> F64 = ok $crate::math::remainder_f64(a, b);
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

/// Invokes `$m! { ($($args)*) ROWS... }` with every superinstruction: an
/// executable op the decoder forms from adjacent instructions, and runs as
/// the rows of [`for_each_alu_op!`] it is made of (through [`eval`]).
///
/// `compare_branches` rows, `Compare => Fused, FusedMove (Width)`: the
/// compare and the `cond_br` right after it that tests the compare's result
/// run as `Fused` (which still writes the result), or as `FusedMove` when
/// the `cond_br` is a `CondBrMove` (a loop latch passing one value around;
/// its targets below 2^16). `latch Add => Latch` adds a
/// loop latch: `Add` of the same width right before `Fused`, whose sum it
/// tests, runs as `Latch` (both results written; its branch targets are
/// below 2^16). Latch compares (`ne`, `lt`) are true while a counted loop
/// goes on, so the interpreter lays out the false (exit) arm as the cold
/// one. `add_chains` rows, `Add => Fused (Width)`: `r = a + b`
/// then `r = r + c` (or `c + r`). `indexed_loads` rows, `Add => Fused
/// (Width)` and `chain Chain (Add) => Fused (Width)` (a row of
/// `add_chains` and its add): an i64 `add` (or a fused add chain) whose
/// sum is the element offset of
/// the word-sized (`i32`/`f32`) `buffer.load` right after it: the address
/// computation before most loads of compiled kernels. The fused op runs the
/// add, then the load's in-bounds fast path, and steps over the load; when
/// that misses, the load runs as itself next, for its error.
///
/// The decoder's fusion passes and the `Op` variants (`decode.rs`,
/// `op.rs`) and the interpreter handlers (`interp/dispatch.rs`) follow from
/// this table.
macro_rules! for_each_fused_op {
    ($m:ident ! { $($args:tt)* }) => {
        $m! {
            ($($args)*)
            compare_branches {
                CmpEqI32 => CmpBrEqI32, CmpBrMoveEqI32 (I32);
                CmpNeI32 => CmpBrNeI32, CmpBrMoveNeI32 (I32) latch AddI32 => AddCmpBrNeI32;
                CmpLtSI32 => CmpBrLtSI32, CmpBrMoveLtSI32 (I32) latch AddI32 => AddCmpBrLtSI32;
                CmpLtUI32 => CmpBrLtUI32, CmpBrMoveLtUI32 (I32);
                CmpEqI64 => CmpBrEqI64, CmpBrMoveEqI64 (I64);
                CmpNeI64 => CmpBrNeI64, CmpBrMoveNeI64 (I64) latch AddI64 => AddCmpBrNeI64;
                CmpLtSI64 => CmpBrLtSI64, CmpBrMoveLtSI64 (I64) latch AddI64 => AddCmpBrLtSI64;
                CmpLtUI64 => CmpBrLtUI64, CmpBrMoveLtUI64 (I64);
            }
            add_chains {
                AddI32 => AddAddI32 (I32);
                AddI64 => AddAddI64 (I64);
            }
            indexed_loads {
                AddI64 => AddLoadWordI64 (I64);
                chain AddAddI64 (AddI64) => AddAddLoadWordI64 (I64);
            }
        }
    };
}
pub(crate) use for_each_fused_op;

/// The Rust type of an ALU value type.
macro_rules! alu_value_type {
    (I32) => {
        i32
    };
    (I64) => {
        i64
    };
    (F32) => {
        f32
    };
    (F64) => {
        f64
    };
}

/// The return type of an ALU row's semantics: the value, or for a `try`
/// row a `Result` of it.
macro_rules! alu_eval_type {
    (ok, $ty:ident) => { alu_value_type!($ty) };
    (try, $ty:ident) => { Result<alu_value_type!($ty), $crate::math::DivisionError> };
}

macro_rules! define_alu_eval {
    (() $( $set:ident $code:literal $mnemonic:literal $name:ident
           ( $($arg:ident : $arg_ty:ident),* ) -> $result_ty:ident = $kind:ident $sem:expr ; )*) => {
        /// Every [`for_each_alu_op!`] row's semantics as a function of its
        /// operand values, named by its `Op` variant. The interpreter's ALU
        /// arms and the superinstructions of [`for_each_fused_op!`] compute
        /// with these.
        #[allow(non_snake_case, reason = "named by the Op variant")]
        #[allow(dead_code, reason = "one per row; the interpreter inlines what it uses")]
        #[allow(clippy::unnecessary_cast, clippy::cast_lossless, reason = "table semantics")]
        pub(crate) mod eval {
            $(
                #[doc = concat!("`vm.", $mnemonic, "`")]
                #[inline(always)]
                pub(crate) fn $name($($arg: alu_value_type!($arg_ty)),*) -> alu_eval_type!($kind, $result_ty) {
                    $sem
                }
            )*
        }
    };
}
for_each_alu_op!(define_alu_eval! {});

/// Invokes `$m! { ($($args)*) ROWS... }` with every opcode that is not in
/// [`for_each_alu_op!`]: globals, constants, lists, selects and switches,
/// ref compares, branches, calls, `fail`, `yield`, trace, buffers and casts.
///
/// Row syntax: `SET BYTE dis|nodis "mnemonic" Variant [fixed = EXPR, ...]
/// { field: Kind, ... } "syntax";` (the bracketed fixed fields optional).
/// The fields are the operands in encoding order, each an [`Operand`] kind;
/// the decoder reads and verifies them by kind into `Op::Variant` (`fixed`
/// fields are set as given, `_: Kind` is read and not kept, `[lo, hi]:
/// Kind` splits a 64-bit immediate into two fields, `Aux(Kind)` registers
/// go, in order, to a side-table entry the `Op`'s `aux` field indexes). A
/// variant of `_` marks the instructions decoded by hand (calls, checked
/// against the callee's cconv, and `br_table`); the disassembler still
/// reads them by the kinds listed. `syntax` is upstream's text form: `$m` is
/// `vm.<mnemonic>`, `$N` operand `N` in its kind's form, `$?N` a register
/// list preceded by a space unless it is empty. `nodis` marks the opcodes
/// upstream 3.13's disassembler rejects (it fails the function instead).
macro_rules! for_each_other_op {
    ($m:ident ! { $($args:tt)* }) => {
        $m! {
            ($($args)*)
            // ---- globals ----
            Core 0x00 dis "global.load.i32" GlobalLoadI32 { offset: Global4, r: I32 } "$1 = $m .rwdata[$0]";
            Core 0x01 dis "global.store.i32" GlobalStoreI32 { offset: Global4, v: I32 } "$m $1, .rwdata[$0]";
            Core 0x02 dis "global.load.indirect.i32" GlobalLoadIndI32 { offset: I32, r: I32 } "$1 = $m .rwdata[$0]";
            Core 0x03 dis "global.store.indirect.i32" GlobalStoreIndI32 { offset: I32, v: I32 } "$m $1, .rwdata[$0]";
            Core 0x04 dis "global.load.i64" GlobalLoadI64 { offset: Global8, r: I64 } "$1 = $m .rwdata[$0]";
            Core 0x05 dis "global.store.i64" GlobalStoreI64 { offset: Global8, v: I64 } "$m $1, .rwdata[$0]";
            Core 0x06 dis "global.load.indirect.i64" GlobalLoadIndI64 { offset: I32, r: I64 } "$1 = $m .rwdata[$0]";
            Core 0x07 dis "global.store.indirect.i64" GlobalStoreIndI64 { offset: I32, v: I64 } "$m $1, .rwdata[$0]";
            Core 0x08 dis "global.load.ref" GlobalLoadRef { global: GlobalRef, ty: Type, r: Ref } "$2 = $m .refs[$0] : $1";
            Core 0x09 dis "global.store.ref" GlobalStoreRef { global: GlobalRef, ty: Type, v: Ref } "$m $2, .refs[$0] : $1";
            Core 0x0A dis "global.load.indirect.ref" GlobalLoadIndRef { global: I32, ty: Type, r: Ref } "$2 = $m .refs[$0] : $1";
            Core 0x0B dis "global.store.indirect.ref" GlobalStoreIndRef { global: I32, ty: Type, v: Ref } "$m $2, .refs[$0] : $1";
            // ---- constants ----
            Core 0x0C dis "const.i32.zero" ConstI32 [value = 0] { r: I32 } "$0 = $m";
            Core 0x0D dis "const.i32" ConstI32 { value: ConstI32, r: I32 } "$1 = $m $0";
            Core 0x0E dis "const.i64.zero" ConstI64 [lo = 0, hi = 0] { r: I64 } "$0 = $m";
            Core 0x0F dis "const.i64" ConstI64 { [lo, hi]: ConstI64, r: I64 } "$1 = $m $0";
            Core 0x10 dis "const.ref.zero" ConstRefZero { r: Ref } "$0 = $m";
            Core 0x11 dis "const.ref.rodata" ConstRefRodata { rodata: Rodata, r: Ref } "$1 = $m $0";
            // ---- lists ----
            Core 0x12 dis "list.alloc" ListAlloc { ty: Type, capacity: I32, r: Ref } "$2 = $m $1 : !vm.list<$0>";
            Core 0x13 dis "list.reserve" ListReserve { list: Ref, capacity: I32 } "$m $0, $1";
            Core 0x14 dis "list.size" ListSize { list: Ref, r: I32 } "$1 = $m $0";
            Core 0x15 dis "list.resize" ListResize { list: Ref, size: I32 } "$m $0, $1";
            Core 0x16 dis "list.get.i32" ListGet [elem = ListElem::I32] { list: Ref, index: I32, r: I32 } "$2 = $m $0, $1";
            Core 0x17 dis "list.set.i32" ListSet [elem = ListElem::I32] { list: Ref, index: I32, v: I32 } "$m $0, $1, $2";
            Core 0x18 dis "list.get.i64" ListGet [elem = ListElem::I64] { list: Ref, index: I32, r: I64 } "$2 = $m $0, $1";
            Core 0x19 dis "list.set.i64" ListSet [elem = ListElem::I64] { list: Ref, index: I32, v: I64 } "$m $0, $1, $2";
            Core 0x1A dis "list.get.ref" ListGetRef { list: Ref, index: I32, ty: Type, r: Ref } "$3 = $m $0, $1 : $2";
            Core 0x1B dis "list.set.ref" ListSetRef { list: Ref, index: I32, v: Ref } "$m $0, $1, $2";
            // ---- select / switch ----
            Core 0x1C dis "select.i32" SelectI32 { cond: I32, t: I32, f: I32, r: I32 } "$3 = $m $0 ? $1 : $2";
            Core 0x1D dis "select.i64" SelectI64 { cond: I32, t: I64, f: I64, r: I64 } "$3 = $m $0 ? $1 : $2";
            Core 0x1E dis "select.ref" SelectRef { cond: I32, ty: Type, t: Ref, f: Ref, r: Ref } "$4 = $m $0 ? $2 : $3 -> $1";
            Core 0x1F dis "switch.i32" SwitchI32 { index: I32, default: I32, list: RegsI32, r: I32 } "$3 = $m $0[$2] else $1";
            Core 0x20 dis "switch.i64" SwitchI64 { index: I32, default: I64, list: RegsI64, r: I64 } "$3 = $m $0[$2] else $1";
            Core 0x21 nodis "switch.ref" SwitchRef { index: I32, ty: Type, default: Ref, list: RegsRef, r: Ref } "$4 = $m $0[$3] else $2 -> $1";
            // ---- ref compares ----
            Core 0x53 dis "cmp.eq.ref" CmpEqRef { a: Ref, b: Ref, r: I32 } "$2 = $m $0, $1";
            Core 0x54 dis "cmp.ne.ref" CmpNeRef { a: Ref, b: Ref, r: I32 } "$2 = $m $0, $1";
            Core 0x55 dis "cmp.nz.ref" CmpNzRef { a: Ref, r: I32 } "$1 = $m $0";
            // ---- control flow ----
            Core 0x56 dis "br" BrRemap { branch: Branch } "$m $0";
            Core 0x57 dis "cond_br" CondBrRemap { cond: I32, t: Branch, f: Branch } "$m $0, $1, $2";
            Core 0x58 dis "call" _ { callee: Func, args: RegsAny, results: Results } "$2$m $0($1)";
            Core 0x59 dis "call.variadic" _ { callee: Func, segments: Segments, args: RegsAny, results: Results } "$3$m $0 segments[$1]($2)";
            Core 0x5A dis "return" Return { list: RegsAny } "$m$?0";
            Core 0x5B dis "fail" Fail { status: I32, message: Str } "$m $0, $1";
            Core 0x5C dis "import.resolved" ImportResolved { import: Import, r: I32 } "$1 = $m $0";
            Core 0x5D dis "yield" Yield { branch: Branch } "$m $0";
            Core 0x5E dis "trace" Trace { _: Str, list: RegsAny } "$m $0($1)";
            Core 0x5F dis "print" Trace { _: Str, list: RegsAny } "$m $0($1)";
            Core 0x60 dis "cond_break" CondBreak { cond: I32, branch: Branch } "$m $0, $1";
            Core 0x61 dis "break" BrRemap { branch: Branch } "$m $0";
            Core 0x83 dis "br_table" _ { index: I32, default: Branch, cases: Cases } "$m $0 { default: $1$2 }";
            Core 0x87 dis "call.yieldable" _ { callee: Func, args: RegsAny, resume: Target, results: RegsAny } "$m $0($1) -> $2($3)";
            Core 0x88 dis "call.variadic.yieldable" _ { callee: Func, segments: Segments, args: RegsAny, resume: Target, results: RegsAny } "$m $0 segments[$1]($2) -> $3($4)";
            // ---- buffers ----
            Core 0x62 dis "buffer.load.i8.u" BufferLoad [elem = BufElem::I8U] { buf: Ref, offset: I64, r: I32 } "$2 = $m $0, $1";
            Core 0x63 dis "buffer.load.i8.s" BufferLoad [elem = BufElem::I8S] { buf: Ref, offset: I64, r: I32 } "$2 = $m $0, $1";
            Core 0x64 dis "buffer.load.i16.u" BufferLoad [elem = BufElem::I16U] { buf: Ref, offset: I64, r: I32 } "$2 = $m $0, $1";
            Core 0x65 dis "buffer.load.i16.s" BufferLoad [elem = BufElem::I16S] { buf: Ref, offset: I64, r: I32 } "$2 = $m $0, $1";
            Core 0x66 dis "buffer.load.i32" BufferLoadWord [elem = BufElem::I32] { buf: Ref, offset: I64, r: I32 } "$2 = $m $0, $1";
            Core 0x67 dis "buffer.load.i64" BufferLoadDword [elem = BufElem::I64] { buf: Ref, offset: I64, r: I64 } "$2 = $m $0, $1";
            Core 0x68 dis "buffer.store.i8" BufferStore [elem = BufElem::I8U] { buf: Ref, offset: I64, v: I32 } "$m $2, $0, $1";
            Core 0x69 dis "buffer.store.i16" BufferStore [elem = BufElem::I16U] { buf: Ref, offset: I64, v: I32 } "$m $2, $0, $1";
            Core 0x6A dis "buffer.store.i32" BufferStoreWord [elem = BufElem::I32] { buf: Ref, offset: I64, v: I32 } "$m $2, $0, $1";
            Core 0x6B dis "buffer.store.i64" BufferStoreDword [elem = BufElem::I64] { buf: Ref, offset: I64, v: I64 } "$m $2, $0, $1";
            Core 0x6C dis "buffer.alloc" BufferAlloc { length: I64, alignment: I32, r: Ref } "$2 = $m $0, $1";
            Core 0x6D dis "buffer.clone" BufferClone { src: Aux(Ref), offset: Aux(I64), length: Aux(I64), alignment: Aux(I32), r: Aux(Ref) } "$4 = $m $0, $1, $2, $3";
            Core 0x6E dis "buffer.length" BufferLength { buf: Ref, r: I64 } "$1 = $m $0";
            Core 0x6F dis "buffer.copy" BufferCopy { src: Aux(Ref), src_offset: Aux(I64), dst: Aux(Ref), dst_offset: Aux(I64), length: Aux(I64) } "$m $0, $1, $2, $3, $4";
            Core 0x70 dis "buffer.compare" BufferCompare { a: Aux(Ref), a_offset: Aux(I64), b: Aux(Ref), b_offset: Aux(I64), length: Aux(I64), r: Aux(I32) } "$5 = $m $0, $1, $2, $3, $4";
            Core 0x71 dis "buffer.fill.i8" BufferFill [elem = BufElem::I8U] { buf: Ref, offset: I64, length: I64, v: I32 } "$m $0, $1, $2, $3";
            Core 0x72 dis "buffer.fill.i16" BufferFill [elem = BufElem::I16U] { buf: Ref, offset: I64, length: I64, v: I32 } "$m $0, $1, $2, $3";
            Core 0x73 dis "buffer.fill.i32" BufferFill [elem = BufElem::I32] { buf: Ref, offset: I64, length: I64, v: I32 } "$m $0, $1, $2, $3";
            Core 0x74 dis "buffer.fill.i64" BufferFill [elem = BufElem::I64] { buf: Ref, offset: I64, length: I64, v: I64 } "$m $0, $1, $2, $3";
            Core 0x84 dis "buffer.hash" BufferHash { buf: Aux(Ref), offset: Aux(I64), length: Aux(I64), r: Aux(I64) } "$3 = $m $0, $1, $2";
            // ---- refs ----
            Core 0x82 dis "cast.any.ref" CastAnyRef { a: Ref, ty: Type, r: Ref } "$2 = $m $0 : !vm.ref<?> -> $1";
            Core 0x85 dis "discard.refs" DiscardRefs { list: RegsRef } "$m $0";
            Core 0x86 dis "assign.ref" AssignRef { a: Ref, r: Ref } "$1 = $m $0";
            // ---- EXT_F32 ----
            F32 0x00 dis "global.load.f32" GlobalLoadI32 { offset: Global4, r: I32 } "$1 = $m .rwdata[$0]";
            F32 0x01 dis "global.store.f32" GlobalStoreI32 { offset: Global4, v: I32 } "$m $1, .rwdata[$0]";
            F32 0x02 dis "global.load.indirect.f32" GlobalLoadIndI32 { offset: I32, r: I32 } "$1 = $m .rwdata[$0]";
            F32 0x03 dis "global.store.indirect.f32" GlobalStoreIndI32 { offset: I32, v: I32 } "$m $1, .rwdata[$0]";
            F32 0x04 dis "const.f32.zero" ConstI32 [value = 0] { r: I32 } "$0 = $m";
            F32 0x05 dis "const.f32" ConstI32 { value: ConstF32, r: I32 } "$1 = $m $0";
            F32 0x06 dis "list.get.f32" ListGet [elem = ListElem::F32] { list: Ref, index: I32, r: I32 } "$2 = $m $0, $1";
            F32 0x07 dis "list.set.f32" ListSet [elem = ListElem::F32] { list: Ref, index: I32, v: I32 } "$m $0, $1, $2";
            F32 0x08 dis "select.f32" SelectI32 { cond: I32, t: I32, f: I32, r: I32 } "$3 = $m $0 ? $1 : $2";
            F32 0x09 dis "switch.f32" SwitchI32 { index: I32, default: I32, list: RegsI32, r: I32 } "$3 = $m $0[$2] else $1";
            F32 0x33 dis "buffer.load.f32" BufferLoadWord [elem = BufElem::F32] { buf: Ref, offset: I64, r: I32 } "$2 = $m $0, $1";
            F32 0x34 dis "buffer.store.f32" BufferStoreWord [elem = BufElem::F32] { buf: Ref, offset: I64, v: I32 } "$m $2, $0, $1";
            F32 0x35 dis "buffer.fill.f32" BufferFill [elem = BufElem::F32] { buf: Ref, offset: I64, length: I64, v: I32 } "$m $0, $1, $2, $3";
            // ---- EXT_F64 ----
            F64 0x00 dis "global.load.f64" GlobalLoadI64 { offset: Global8, r: I64 } "$1 = $m .rwdata[$0]";
            F64 0x01 dis "global.store.f64" GlobalStoreI64 { offset: Global8, v: I64 } "$m $1, .rwdata[$0]";
            // 3.13's compiler also encodes `global.load.indirect.f32` this way.
            F64 0x02 dis "global.load.indirect.f64" GlobalLoadIndF64 { offset: I32, r: I64 } "$1 = $m .rwdata[$0]";
            F64 0x03 dis "global.store.indirect.f64" GlobalStoreIndI64 { offset: I32, v: I64 } "$m $1, .rwdata[$0]";
            F64 0x04 dis "const.f64.zero" ConstI64 [lo = 0, hi = 0] { r: I64 } "$0 = $m";
            F64 0x05 dis "const.f64" ConstI64 { [lo, hi]: ConstF64, r: I64 } "$1 = $m $0";
            F64 0x06 dis "list.get.f64" ListGet [elem = ListElem::F64] { list: Ref, index: I32, r: I64 } "$2 = $m $0, $1";
            F64 0x07 dis "list.set.f64" ListSet [elem = ListElem::F64] { list: Ref, index: I32, v: I64 } "$m $0, $1, $2";
            F64 0x08 dis "select.f64" SelectI64 { cond: I32, t: I64, f: I64, r: I64 } "$3 = $m $0 ? $1 : $2";
            F64 0x09 dis "switch.f64" SwitchF64 { index: I32, default: I64, list: RegsI64, r: I64 } "$3 = $m $0[$2] else $1";
            F64 0x39 dis "buffer.load.f64" BufferLoadDword [elem = BufElem::F64] { buf: Ref, offset: I64, r: I64 } "$2 = $m $0, $1";
            F64 0x3A dis "buffer.store.f64" BufferStoreDword [elem = BufElem::F64] { buf: Ref, offset: I64, v: I64 } "$m $2, $0, $1";
            F64 0x3B dis "buffer.fill.f64" BufferFill [elem = BufElem::F64] { buf: Ref, offset: I64, length: I64, v: I64 } "$m $0, $1, $2, $3";
        }
    };
}
pub(crate) use for_each_other_op;

/// The opcode sets: the core set and the EXT_F32 / EXT_F64 prefixed sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpcodeSet {
    /// Unprefixed opcodes.
    Core,
    /// Opcodes after the `0xE0` prefix.
    F32,
    /// Opcodes after the `0xE1` prefix.
    F64,
}

/// How one operand of an instruction is encoded (and printed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// An i32-bank register (i32 or f32 value): u16, printed `%iN`.
    I32,
    /// An i32-bank register pair (i64 or f64 value): u16, printed `%iN:N+1`.
    I64,
    /// A ref register: u16 with the ref bit, printed `%rN` (retained) or
    /// `%RN` (moved).
    Ref,
    /// A 32-bit integer immediate, printed in decimal with a hex comment.
    ConstI32,
    /// A 64-bit integer immediate, printed in decimal with a hex comment.
    ConstI64,
    /// A 32-bit float immediate, printed like C's `%.9g`.
    ConstF32,
    /// A 64-bit float immediate, printed like C's `%.17g`.
    ConstF64,
    /// A u32 type ordinal, printed as the type's name.
    Type,
    /// A u32 global byte offset of a 4-byte global, printed as a number.
    Global4,
    /// A u32 global byte offset of an 8-byte global.
    Global8,
    /// A u32 ref global ordinal.
    GlobalRef,
    /// A u32 rodata segment ordinal, printed with the segment's length.
    Rodata,
    /// A u32 function ordinal (high bit: import), printed `@name`.
    Func,
    /// A u32 import ordinal (high bit set), printed `@name`.
    Import,
    /// A list of i32-bank registers: 2-byte aligned u16 count, then u16
    /// registers; printed `%a, %b`.
    RegsI32,
    /// A list of i32-bank register pairs, encoded like [`Operand::RegsI32`].
    RegsI64,
    /// A list of ref registers, encoded like [`Operand::RegsI32`].
    RegsRef,
    /// A list of registers of any bank, encoded like [`Operand::RegsI32`].
    RegsAny,
    /// Call results: encoded like [`Operand::RegsI32`], printed `a, b = `.
    Results,
    /// Variadic segment sizes: encoded like [`Operand::RegsI32`], printed as
    /// numbers.
    Segments,
    /// A branch: u32 block offset, then a 2-byte aligned u16 count of
    /// (source, destination) register pairs; printed `^bbN(%a->%b, ...)`.
    Branch,
    /// A bare u32 block offset (the resume block of a yieldable call).
    Target,
    /// A string: u16 length, then the bytes; printed quoted.
    Str,
    /// `br_table` cases: u16 count, then that many [`Operand::Branch`]es.
    Cases,
}

/// How upstream prints an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// A register-to-register instruction: `%r = vm.op %a, %b`.
    Alu,
    /// A template: `$m` is `vm.<mnemonic>`, `$N` operand `N` in its kind's
    /// form, `$?N` a register list after a space unless it is empty.
    Template(&'static str),
}

/// Everything the table says about one opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    /// The upstream mnemonic without `vm.`.
    pub mnemonic: &'static str,
    /// Operand encodings, in order.
    pub operands: &'static [Operand],
    /// The print syntax.
    pub syntax: Syntax,
    /// Whether upstream 3.13's disassembler prints it (it fails the
    /// function on the others).
    pub disassembled: bool,
}

/// Register-to-register opcodes upstream 3.13's disassembler does not
/// handle (it reports "unhandled ext opcode"); every other ALU row is
/// printed in the [`Syntax::Alu`] form.
const ALU_NOT_DISASSEMBLED: [(OpcodeSet, u8); 1] = [(OpcodeSet::F32, 0x3D)];

/// The operand kind of an ALU value type.
macro_rules! alu_operand_kind {
    (I32) => {
        Operand::I32
    };
    (F32) => {
        Operand::I32
    };
    (I64) => {
        Operand::I64
    };
    (F64) => {
        Operand::I64
    };
}

macro_rules! define_alu_info {
    (() $( $set:ident $code:literal $mnemonic:literal $name:ident
           ( $($arg:ident : $arg_ty:ident),* ) -> $result_ty:ident = $kind:ident $sem:expr ; )*) => {
        fn alu_info(set: OpcodeSet, code: u8) -> Option<OpInfo> {
            Some(match (set, code) {
                $( (OpcodeSet::$set, $code) => OpInfo {
                    mnemonic: $mnemonic,
                    operands: &[$(alu_operand_kind!($arg_ty),)* alu_operand_kind!($result_ty)],
                    syntax: Syntax::Alu,
                    disassembled: !ALU_NOT_DISASSEMBLED.contains(&(OpcodeSet::$set, $code)),
                }, )*
                _ => return None,
            })
        }
    };
}
for_each_alu_op!(define_alu_info! {});

/// The kind of a `for_each_other_op!` operand (`Aux(Kind)` is a `Kind`).
macro_rules! other_operand_kind {
    (Aux($kind:ident)) => {
        Operand::$kind
    };
    ($kind:ident) => {
        Operand::$kind
    };
}

macro_rules! define_other_info {
    (() $( $set:ident $code:literal $dis:ident $mnemonic:literal $variant:tt
           $([ $($fixed:ident = $value:expr),* ])?
           { $($field:tt : $operand:ident $(($inner:ident))?),* } $syntax:literal ; )*) => {
        fn other_info(set: OpcodeSet, code: u8) -> Option<OpInfo> {
            Some(match (set, code) {
                $( (OpcodeSet::$set, $code) => OpInfo {
                    mnemonic: $mnemonic,
                    operands: &[$(other_operand_kind!($operand $(($inner))?)),*],
                    syntax: Syntax::Template($syntax),
                    disassembled: stringify!($dis).len() == 3,
                }, )*
                _ => return None,
            })
        }
    };
}
for_each_other_op!(define_other_info! {});

/// The table row of an opcode, or `None` for an invalid opcode.
pub fn op_info(set: OpcodeSet, code: u8) -> Option<OpInfo> {
    alu_info(set, code).or_else(|| other_info(set, code))
}

/// A branch operand: the target block's bytecode offset and the register
/// remapping, raw (ref and move bits kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchOperand {
    /// Bytecode offset of the target block marker.
    pub target: u32,
    /// (source, destination) register pairs.
    pub remap: Vec<(u16, u16)>,
}

/// One decoded operand, as encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// A raw register (ref and move bits kept).
    Reg(u16),
    /// An immediate, ordinal or offset (32 or 64 bits).
    Imm(u64),
    /// A register list or segment sizes.
    List(Vec<u16>),
    /// A branch.
    Branch(BranchOperand),
    /// String bytes.
    Str(&'a [u8]),
    /// `br_table` cases.
    Cases(Vec<BranchOperand>),
}

/// A cursor over one function's bytecode that reads operands by their
/// [`Operand`] kind.
#[derive(Clone, Debug)]
pub struct OperandReader<'a> {
    /// The function's bytecode.
    pub code: &'a [u8],
    /// The offset of the next byte.
    pub pc: usize,
}

fn overrun() -> iree_base::Status {
    iree_base::Status::new(
        iree_base::StatusCode::OutOfRange,
        "bytecode data overrun: instruction runs past the end of the function",
    )
}

impl<'a> OperandReader<'a> {
    /// Takes `n` bytes.
    pub fn take(&mut self, n: usize) -> iree_base::Result<&'a [u8]> {
        let end = self
            .pc
            .checked_add(n)
            .filter(|&e| e <= self.code.len())
            .ok_or_else(overrun)?;
        let bytes = &self.code[self.pc..end];
        self.pc = end;
        Ok(bytes)
    }
    /// Reads a little-endian u8.
    pub fn u8(&mut self) -> iree_base::Result<u8> {
        Ok(self.take(1)?[0])
    }
    /// Reads a little-endian u16.
    pub fn u16(&mut self) -> iree_base::Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    /// Reads a little-endian u32.
    pub fn u32(&mut self) -> iree_base::Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// Skips to the next 2-byte boundary.
    pub fn align2(&mut self) {
        self.pc += self.pc & 1;
    }
    fn list(&mut self) -> iree_base::Result<Vec<u16>> {
        self.align2();
        let n = usize::from(self.u16()?);
        // The count is checked against the bytes left before allocating.
        self.take(n * 2).map(|b| {
            b.chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect()
        })
    }
    fn branch(&mut self) -> iree_base::Result<BranchOperand> {
        let target = self.u32()?;
        let pairs = self.list_pairs()?;
        Ok(BranchOperand {
            target,
            remap: pairs,
        })
    }
    fn list_pairs(&mut self) -> iree_base::Result<Vec<(u16, u16)>> {
        self.align2();
        let n = usize::from(self.u16()?);
        self.take(n * 4).map(|b| {
            b.chunks_exact(4)
                .map(|c| {
                    (
                        u16::from_le_bytes([c[0], c[1]]),
                        u16::from_le_bytes([c[2], c[3]]),
                    )
                })
                .collect()
        })
    }
    /// Reads one operand of kind `kind`.
    pub fn operand(&mut self, kind: Operand) -> iree_base::Result<Value<'a>> {
        Ok(match kind {
            Operand::I32 | Operand::I64 | Operand::Ref => Value::Reg(self.u16()?),
            Operand::ConstI32
            | Operand::ConstF32
            | Operand::Type
            | Operand::Global4
            | Operand::Global8
            | Operand::GlobalRef
            | Operand::Rodata
            | Operand::Func
            | Operand::Import
            | Operand::Target => Value::Imm(u64::from(self.u32()?)),
            Operand::ConstI64 | Operand::ConstF64 => {
                let lo = u64::from(self.u32()?);
                let hi = u64::from(self.u32()?);
                Value::Imm(hi << 32 | lo)
            }
            Operand::RegsI32
            | Operand::RegsI64
            | Operand::RegsRef
            | Operand::RegsAny
            | Operand::Results
            | Operand::Segments => Value::List(self.list()?),
            Operand::Branch => Value::Branch(self.branch()?),
            Operand::Str => {
                let n = usize::from(self.u16()?);
                Value::Str(self.take(n)?)
            }
            Operand::Cases => {
                let n = self.u16()?;
                let mut cases = Vec::new();
                for _ in 0..n {
                    cases.push(self.branch()?);
                }
                Value::Cases(cases)
            }
        })
    }
    /// Reads an opcode (with its prefix, if any): `None` for a block
    /// marker.
    pub fn opcode(&mut self) -> iree_base::Result<Option<(OpcodeSet, u8)>> {
        Ok(match self.u8()? {
            crate::decode::BLOCK_MARKER => None,
            crate::decode::PREFIX_EXT_F32 => Some((OpcodeSet::F32, self.u8()?)),
            crate::decode::PREFIX_EXT_F64 => Some((OpcodeSet::F64, self.u8()?)),
            code => Some((OpcodeSet::Core, code)),
        })
    }
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

    #[test]
    fn every_opcode_has_one_row() {
        let mut seen = std::collections::HashSet::new();
        let mut count = 0;
        for set in [OpcodeSet::Core, OpcodeSet::F32, OpcodeSet::F64] {
            for code in 0..=255u8 {
                let (alu, other) = (alu_info(set, code), other_info(set, code));
                assert!(
                    alu.is_none() || other.is_none(),
                    "{set:?} {code:#x} listed twice"
                );
                if let Some(info) = alu.or(other) {
                    assert!(seen.insert(info.mnemonic), "{} listed twice", info.mnemonic);
                    count += 1;
                }
            }
        }
        // 136 core opcodes (0x00..=0x88 without the block marker), 68 in
        // EXT_F32, 60 in EXT_F64.
        assert_eq!(count, 136 + 68 + 60);
    }
}
