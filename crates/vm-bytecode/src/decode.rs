//! The verifier: decodes each function's bytecode once, checks every field
//! against the module and the frame, and produces the [`Op`] form the
//! interpreter trusts.
//!
//! A function fails verification with INVALID_ARGUMENT naming the function
//! and the bytecode offset of the offending instruction.

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_vm::{CallSlot, Cconv, CconvType, TypeDef};
use smallvec::SmallVec;

use crate::format::{FeatureBits, ModuleMetadata};
use crate::isa::OpcodeSet;
use crate::op::*;

/// Marker byte that starts every block.
pub const BLOCK_MARKER: u8 = 0x79;
/// Prefix byte of the EXT_F32 opcode set.
pub const PREFIX_EXT_F32: u8 = 0xE0;
/// Prefix byte of the EXT_F64 opcode set.
pub const PREFIX_EXT_F64: u8 = 0xE1;

/// Bit set in a raw register ordinal for the ref bank.
pub const REF_BIT: u16 = 0x8000;
/// Bit set in a raw ref register ordinal for a move.
pub const MOVE_BIT: u16 = 0x4000;
/// Mask of the ordinal in a raw ref register.
pub const REF_MASK: u16 = 0x3FFF;

/// Register-bank kind of a call argument or result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// One i32-bank register (i32 or f32).
    I32,
    /// An i32-bank register pair (i64 or f64).
    I64,
    /// A ref register.
    Ref,
}

/// How a value moves between frames: kind, raw source ordinal, raw destination ordinal.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    /// The bank and width.
    pub slot: Slot,
    /// Raw source register (ref bit and move bit preserved).
    pub src: u16,
    /// Destination ordinal (masked).
    pub dst: u16,
}

/// The call slot of a value of type `ty` in raw register `reg` (a ref's
/// ordinal masked, its move bit kept as `moved`). `None` for a variadic.
fn call_slot(ty: &CconvType, reg: u16) -> Option<CallSlot> {
    Some(match ty {
        CconvType::I32 => CallSlot::I32(reg),
        CconvType::I64 => CallSlot::I64(reg),
        CconvType::F32 => CallSlot::F32(reg),
        CconvType::F64 => CallSlot::F64(reg),
        CconvType::Ref => CallSlot::Ref {
            ordinal: reg & REF_MASK,
            moved: reg & MOVE_BIT != 0,
        },
        CconvType::Variadic(_) => return None,
    })
}

/// What a call targets.
#[derive(Clone, Debug)]
pub enum CallTarget {
    /// A function in this module: args move into the callee's ABI registers.
    Internal {
        /// Internal function ordinal.
        function: u32,
        /// Argument moves into the callee frame.
        args: Box<[Move]>,
    },
    /// An imported function, called with its arguments in the caller's
    /// registers ([`iree_vm::RegisterCall`]).
    Import {
        /// Import ordinal.
        import: u32,
        /// Flattened argument sources.
        args: Box<[CallSlot]>,
    },
}

/// A decoded call site.
#[derive(Clone, Debug)]
pub struct CallInfo {
    /// The callee and its argument plan.
    pub target: CallTarget,
    /// Where results land in the caller (never moved refs).
    pub results: Box<[CallSlot]>,
    /// For yieldable calls, the branch (index into `branches`) taken after the call.
    pub resume: Option<u32>,
}

/// A branch edge: target op index plus register remapping.
#[derive(Clone, Debug)]
pub struct Branch {
    /// Op index of the first op of the target block.
    pub target: u32,
    /// Raw (src, dst) register pairs applied in order; most edges have one
    /// or two, kept inline so a taken branch reads them from its entry.
    pub remap: SmallVec<[(u16, u16); 2]>,
    /// Whether any pair of `remap` moves a ref (most move only i32 words).
    pub remaps_refs: bool,
}

/// A `br_table`.
#[derive(Clone, Debug)]
pub struct BranchTable {
    /// Branch index for out-of-range indices.
    pub default: u32,
    /// Branch index per case.
    pub cases: Box<[u32]>,
}

/// A decoded, verified function.
#[derive(Debug)]
pub struct FunctionCode {
    /// The instructions.
    pub ops: Box<[Op]>,
    /// Bytecode offset of each op (for errors).
    pub op_offsets: Box<[u32]>,
    /// Opcode of each op as `(set << 8) | opcode`, set 0 core, 1 f32, 2 f64.
    pub op_codes: Box<[u16]>,
    /// Raw register lists (switch values, return operands, discards).
    pub lists: Vec<Box<[u16]>>,
    /// Branch edges.
    pub branches: Vec<Branch>,
    /// Branch tables.
    pub tables: Vec<BranchTable>,
    /// Call sites.
    pub calls: Vec<CallInfo>,
    /// `fail` messages.
    pub strings: Vec<Box<str>>,
    /// Extra operands of wide buffer ops.
    pub aux: Vec<[u16; 6]>,
    /// i32-bank register count (rounded to a power of two).
    pub i32_count: u32,
    /// Ref-bank register count (rounded to a power of two).
    pub ref_count: u32,
    /// Bytes charged against the stack budget per activation.
    pub frame_bytes: usize,
    /// Argument slots of the function's own cconv (ABI entry registers).
    pub arg_slots: Box<[CconvType]>,
    /// The register each argument enters in, in cconv order.
    pub arg_registers: Box<[CallSlot]>,
    /// Result types of the function's own cconv.
    pub result_types: Box<[CconvType]>,
}

/// Module-level facts the verifier checks fields against.
pub struct ModuleView<'a> {
    /// Parsed metadata.
    pub meta: &'a ModuleMetadata,
    /// Resolved type table.
    pub types: &'a [TypeDef],
    /// Parsed cconv per internal function.
    pub function_cconvs: &'a [Cconv],
    /// Parsed cconv per import.
    pub import_cconvs: &'a [Cconv],
}

struct Reader<'a> {
    code: &'a [u8],
    pc: usize,
}

impl<'a> Reader<'a> {
    fn bytes<const N: usize>(&mut self) -> Result<[u8; N]> {
        let end = self
            .pc
            .checked_add(N)
            .filter(|&e| e <= self.code.len())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    "bytecode data overrun: instruction runs past the end of the function",
                )
            })?;
        let mut out = [0u8; N];
        out.copy_from_slice(&self.code[self.pc..end]);
        self.pc = end;
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.bytes()?))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }
    fn align2(&mut self) {
        self.pc += self.pc & 1;
    }
}

struct Decoder<'a, 'm> {
    r: Reader<'a>,
    m: &'m ModuleView<'m>,
    /// The i32 bank's storage: the bound of ordinary operands.
    i32_count: u32,
    /// The declared i32 count rounded to a power of two: the bound of the
    /// registers of call and return lists (upstream's verifier).
    i32_limit: u32,
    ref_count: u32,
    lists: Vec<Box<[u16]>>,
    branches: Vec<Branch>,
    tables: Vec<BranchTable>,
    calls: Vec<CallInfo>,
    strings: Vec<Box<str>>,
    aux: Vec<[u16; 6]>,
    /// Branch target byte offsets awaiting resolution, by branch index.
    branch_targets: Vec<u32>,
}

fn err(msg: impl Into<String>) -> Status {
    Status::new(StatusCode::InvalidArgument, msg)
}

impl<'a, 'm> Decoder<'a, 'm> {
    fn i32(&mut self) -> Result<Reg> {
        let raw = self.r.u16()?;
        self.check_i32(raw)?;
        Ok(raw)
    }
    fn check_i32(&self, raw: u16) -> Result<()> {
        if raw & REF_BIT != 0 {
            return Err(err(format!(
                "register {raw:#x} is a ref register where an i32 register is required"
            )));
        }
        if u32::from(raw) >= self.i32_count {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "i32 register {raw} out of bounds (count {})",
                    self.i32_count
                ),
            ));
        }
        Ok(())
    }
    fn i64(&mut self) -> Result<Reg> {
        let raw = self.r.u16()?;
        self.check_i64(raw)?;
        Ok(raw)
    }
    fn check_i64(&self, raw: u16) -> Result<()> {
        if raw & REF_BIT != 0 {
            return Err(err(format!(
                "register {raw:#x} is a ref register where an i64 register is required"
            )));
        }
        if u32::from(raw) + 1 >= self.i32_count {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "i64 register pair {raw} out of bounds (count {})",
                    self.i32_count
                ),
            ));
        }
        Ok(())
    }
    fn rref(&mut self) -> Result<RefReg> {
        let raw = self.r.u16()?;
        self.check_ref(raw)?;
        Ok(RefReg::new(raw & REF_MASK, raw & MOVE_BIT != 0))
    }
    fn check_ref(&self, raw: u16) -> Result<()> {
        if raw & REF_BIT == 0 {
            return Err(err(format!(
                "register {raw} is an i32 register where a ref register is required"
            )));
        }
        if u32::from(raw & REF_MASK) >= self.ref_count {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "ref register {} out of bounds (count {})",
                    raw & REF_MASK,
                    self.ref_count
                ),
            ));
        }
        Ok(())
    }
    fn check_any(&self, raw: u16) -> Result<()> {
        if raw & REF_BIT != 0 {
            self.check_ref(raw)
        } else {
            self.check_i32(raw)
        }
    }
    fn type_of(&mut self) -> Result<u32> {
        let t = self.r.u32()?;
        if t as usize >= self.m.types.len() {
            return Err(err(format!(
                "type ordinal {t} out of range ({} types)",
                self.m.types.len()
            )));
        }
        Ok(t)
    }
    fn global_offset(&mut self, size: u32) -> Result<u32> {
        let off = self.r.u32()?;
        let cap = self.m.meta.global_bytes_capacity;
        if off.checked_add(size).is_none_or(|end| end > cap) {
            return Err(err(format!(
                "global byte offset {off} (size {size}) out of range (capacity {cap})"
            )));
        }
        Ok(off)
    }
    fn global_ref(&mut self) -> Result<u32> {
        let g = self.r.u32()?;
        if g >= self.m.meta.global_ref_count {
            return Err(err(format!(
                "ref global ordinal {g} out of range ({})",
                self.m.meta.global_ref_count
            )));
        }
        Ok(g)
    }
    fn import(&mut self) -> Result<u32> {
        let f = self.r.u32()?;
        let import = f & 0x7FFF_FFFF;
        if f & 0x8000_0000 == 0 || import as usize >= self.m.import_cconvs.len() {
            return Err(err(format!("import.resolved of invalid import {f:#x}")));
        }
        Ok(import)
    }
    fn rodata(&mut self) -> Result<u32> {
        let rodata = self.r.u32()?;
        if rodata as usize >= self.m.meta.rodata.len() {
            return Err(err(format!("rodata ordinal {rodata} out of range")));
        }
        Ok(rodata)
    }
    fn raw_list(&mut self) -> Result<Box<[u16]>> {
        self.r.align2();
        let n = self.r.u16()? as usize;
        let mut regs = Vec::with_capacity(n);
        for _ in 0..n {
            regs.push(self.r.u16()?);
        }
        Ok(regs.into_boxed_slice())
    }
    fn list_of(&mut self, check: impl Fn(&Self, u16) -> Result<()>) -> Result<u32> {
        let regs = self.raw_list()?;
        for &reg in regs.iter() {
            check(self, reg)?;
        }
        self.lists.push(regs);
        Ok((self.lists.len() - 1) as u32)
    }
    fn branch(&mut self) -> Result<u32> {
        let target = self.r.u32()?;
        self.r.align2();
        let n = self.r.u16()? as usize;
        let mut remap = SmallVec::with_capacity(n);
        for _ in 0..n {
            let src = self.r.u16()?;
            let dst = self.r.u16()?;
            self.check_any(src)?;
            self.check_any(dst)?;
            if (src & REF_BIT) != (dst & REF_BIT) {
                return Err(err("branch remaps a register across banks"));
            }
            remap.push((src, dst));
        }
        self.branches.push(Branch {
            target: u32::MAX,
            remaps_refs: remap.iter().any(|&(src, _)| src & REF_BIT != 0),
            remap,
        });
        self.branch_targets.push(target);
        Ok((self.branches.len() - 1) as u32)
    }
    /// A branch target with no operand remapping (the resume block of a
    /// yieldable call).
    fn branch_target_only(&mut self) -> Result<u32> {
        let target = self.r.u32()?;
        self.branches.push(Branch {
            target: u32::MAX,
            remap: SmallVec::new(),
            remaps_refs: false,
        });
        self.branch_targets.push(target);
        Ok((self.branches.len() - 1) as u32)
    }

    fn aux(&mut self, regs: [u16; 6]) -> u32 {
        self.aux.push(regs);
        (self.aux.len() - 1) as u32
    }
    fn string(&mut self) -> Result<u32> {
        let len = self.r.u16()? as usize;
        let end = self
            .r
            .pc
            .checked_add(len)
            .filter(|&e| e <= self.r.code.len())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    "bytecode data overrun: string runs past the end of the function",
                )
            })?;
        let text = String::from_utf8_lossy(&self.r.code[self.r.pc..end]).into_owned();
        self.r.pc = end;
        self.strings.push(text.into_boxed_str());
        Ok((self.strings.len() - 1) as u32)
    }

    /// Decodes a call's operand list against a callee signature.
    fn call(&mut self, variadic: bool, yieldable: bool) -> Result<u32> {
        let func = self.r.u32()?;
        let segments = if variadic {
            Some(self.raw_list()?)
        } else {
            None
        };
        let operands = self.raw_list()?;
        let resume = if yieldable {
            Some(self.branch_target_only()?)
        } else {
            None
        };
        let results = self.raw_list()?;
        let is_import = func & 0x8000_0000 != 0;
        let ordinal = func & 0x7FFF_FFFF;
        let cconv = if is_import {
            self.m
                .import_cconvs
                .get(ordinal as usize)
                .ok_or_else(|| err(format!("import ordinal {ordinal} out of range")))?
        } else {
            if variadic {
                return Err(err("variadic calls are only supported for imports"));
            }
            self.m
                .function_cconvs
                .get(ordinal as usize)
                .ok_or_else(|| err(format!("function ordinal {ordinal} out of range")))?
        };
        // Results.
        if results.len() != cconv.results.len() {
            return Err(err(format!(
                "call result count {} does not match callee cconv {cconv:?}",
                results.len()
            )));
        }
        let mut result_plan = Vec::with_capacity(results.len());
        for (&reg, ty) in results.iter().zip(&cconv.results) {
            self.check_value_reg(reg, ty)?;
            result_plan.push(call_slot(ty, reg & !MOVE_BIT).ok_or_else(|| err("variadic result"))?);
        }
        let target = if is_import {
            let mut args = Vec::with_capacity(operands.len());
            let mut next = 0usize;
            let mut take = |d: &Self, ty: &CconvType, args: &mut Vec<CallSlot>| -> Result<()> {
                let reg = *operands
                    .get(next)
                    .ok_or_else(|| err("call has fewer operands than the callee cconv"))?;
                next += 1;
                d.check_value_reg(reg, ty)?;
                args.push(call_slot(ty, reg).ok_or_else(|| err("nested variadic"))?);
                Ok(())
            };
            for (segment_index, ty) in cconv.args.iter().enumerate() {
                match ty {
                    CconvType::Variadic(tuple) => {
                        let count = match &segments {
                            Some(s) => *s
                                .get(segment_index)
                                .ok_or_else(|| err("missing variadic segment size"))?,
                            None => {
                                return Err(err("variadic callee called without segment sizes"))
                            }
                        };
                        if count == 0xFFFF {
                            return Err(err("variadic argument has no segment size"));
                        }
                        args.push(CallSlot::Count(count));
                        for _ in 0..count {
                            for t in tuple {
                                take(self, t, &mut args)?;
                            }
                        }
                    }
                    // As upstream's verifier, a segment size given for a
                    // non-variadic argument is ignored (the compiler emits 1).
                    _ => {
                        take(self, ty, &mut args)?;
                    }
                }
            }
            if next != operands.len() {
                return Err(err(format!(
                    "call has {} operands but callee cconv {cconv:?} takes {next}",
                    operands.len()
                )));
            }
            CallTarget::Import {
                import: ordinal,
                args: args.into_boxed_slice(),
            }
        } else {
            if operands.len() != cconv.args.len() {
                return Err(err(format!(
                    "call has {} operands but callee cconv {cconv:?} takes {}",
                    operands.len(),
                    cconv.args.len()
                )));
            }
            let callee = &self.m.meta.functions[ordinal as usize];
            let (callee_i32, callee_ref) = (
                i32_storage_count(callee.i32_register_count),
                round_count(callee.ref_register_count),
            );
            let mut moves = Vec::with_capacity(operands.len());
            let (mut i32_next, mut ref_next) = (0u32, 0u32);
            for (&reg, ty) in operands.iter().zip(&cconv.args) {
                self.check_value_reg(reg, ty)?;
                let (slot, dst) = abi_slot(ty, &mut i32_next, &mut ref_next)?;
                if (slot == Slot::Ref && dst >= callee_ref)
                    || (slot != Slot::Ref && i32_next > callee_i32)
                {
                    return Err(err("call arguments exceed the callee's registers"));
                }
                moves.push(Move {
                    slot,
                    src: reg,
                    dst: dst as u16,
                });
            }
            CallTarget::Internal {
                function: ordinal,
                args: moves.into_boxed_slice(),
            }
        };
        self.calls.push(CallInfo {
            target,
            results: result_plan.into_boxed_slice(),
            resume,
        });
        Ok((self.calls.len() - 1) as u32)
    }

    /// Checks a register of a call's or return's register list against the
    /// cconv type it carries, as upstream's
    /// `iree_vm_bytecode_function_verify_cconv_register`: in range of the
    /// declared count rounded to a power of two, and i64/f64 pairs aligned.
    fn check_value_reg(&self, reg: u16, ty: &CconvType) -> Result<()> {
        let wide = match ty {
            CconvType::I32 | CconvType::F32 => false,
            CconvType::I64 | CconvType::F64 => true,
            CconvType::Ref => return self.check_ref(reg),
            CconvType::Variadic(_) => return Err(err("unexpected variadic type")),
        };
        if reg & REF_BIT != 0 {
            return Err(err(format!(
                "register {reg:#x} is a ref register where an i32/i64 register is required"
            )));
        }
        if u32::from(reg) >= self.i32_limit {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!("i32 register ordinal {reg} out of range {}", self.i32_limit),
            ));
        }
        if wide && reg & 1 != 0 {
            return Err(err(format!(
                "i64/f64 register ordinal {reg} not 8-byte aligned"
            )));
        }
        let last = u32::from(reg) + u32::from(wide);
        if last >= self.i32_limit {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "i64/f64 register ordinal {reg}:{last} out of range {}",
                    self.i32_limit
                ),
            ));
        }
        Ok(())
    }
}

/// Rounds a descriptor register count up to a power of two (at least 1).
pub fn round_count(count: u16) -> u32 {
    u32::from(count.max(1)).next_power_of_two()
}

/// The i32-bank storage of a frame: the rounded count padded to 16 bytes, as
/// upstream lays frames out. Registers are checked against the rounded count
/// (as upstream's verifier); the padding keeps the 8-byte access of
/// `global.load.indirect.f64`, which the 3.13 compiler also emits for
/// `global.load.indirect.f32`, inside the frame.
pub fn i32_storage_count(count: u16) -> u32 {
    (round_count(count) + 3) & !3
}

/// Assigns the next ABI register for an argument of type `ty`: i32/f32 take
/// the next i32 slot, i64/f64 an even-aligned pair, refs the next ref slot.
pub fn abi_slot(ty: &CconvType, i32_next: &mut u32, ref_next: &mut u32) -> Result<(Slot, u32)> {
    Ok(match ty {
        CconvType::I32 | CconvType::F32 => {
            let r = *i32_next;
            *i32_next += 1;
            (Slot::I32, r)
        }
        CconvType::I64 | CconvType::F64 => {
            let r = (*i32_next + 1) & !1;
            *i32_next = r + 2;
            (Slot::I64, r)
        }
        CconvType::Ref => {
            let r = *ref_next;
            *ref_next += 1;
            (Slot::Ref, r)
        }
        CconvType::Variadic(_) => {
            return Err(err("internal functions cannot take variadic arguments"))
        }
    })
}

/// Decodes and verifies internal function `ordinal`.
pub fn decode_function(m: &ModuleView<'_>, file: &[u8], ordinal: usize) -> Result<FunctionCode> {
    let name = function_name(m.meta, ordinal);
    decode_inner(m, file, ordinal).annotate_with(|| format!("verifying function '{name}'"))
}

/// A human-readable name for internal function `ordinal`.
pub fn function_name(meta: &ModuleMetadata, ordinal: usize) -> String {
    meta.exports
        .iter()
        .find(|e| e.internal_ordinal as usize == ordinal)
        .map(|e| format!("{}.{}", meta.name, e.local_name))
        .unwrap_or_else(|| format!("{}.<internal #{ordinal}>", meta.name))
}

fn decode_inner(m: &ModuleView<'_>, file: &[u8], ordinal: usize) -> Result<FunctionCode> {
    let desc = &m.meta.functions[ordinal];
    let supported =
        FeatureBits::EXT_F32 | FeatureBits::EXT_F64 | FeatureBits::YIELD | FeatureBits::UNWIND;
    if !supported.contains(desc.requirements) {
        return Err(Status::new(
            StatusCode::Unimplemented,
            format!(
                "required function features [{}] are not available",
                desc.requirements.names()
            ),
        ));
    }
    let range = m
        .meta
        .function_range(ordinal)
        .ok_or_else(|| err("function bytecode out of range"))?;
    let code = &file[range];
    let cconv = &m.function_cconvs[ordinal];
    let i32_count = i32_storage_count(desc.i32_register_count);
    let ref_count = round_count(desc.ref_register_count);
    if i32_count > 0x7FFF || ref_count > 0x3FFF + 1 {
        return Err(err("function uses too many registers"));
    }
    // Registers are checked, as upstream's verifier checks them, against the
    // declared count rounded up to a power of two; the frame holds
    // `i32_count` (that, padded to 16 bytes).
    let i32_limit = round_count(desc.i32_register_count);
    // The entry ABI must fit the registers (upstream's
    // `iree_vm_bytecode_function_verify_arguments`).
    let (mut i32_next, mut ref_next) = (0u32, 0u32);
    let mut arg_registers = Vec::with_capacity(cconv.args.len());
    for ty in &cconv.args {
        let (slot, r) = abi_slot(ty, &mut i32_next, &mut ref_next)?;
        if (slot == Slot::Ref && r >= ref_count) || (slot != Slot::Ref && i32_next > i32_limit) {
            return Err(err(
                "insufficient register storage for function arguments/results",
            ));
        }
        // Below the register counts (at most 2^16): fits in 16 bits.
        let r = r as u16;
        arg_registers.push(match slot {
            Slot::I32 => CallSlot::I32(r),
            Slot::I64 => CallSlot::I64(r),
            Slot::Ref => CallSlot::Ref {
                ordinal: r,
                moved: false,
            },
        });
    }
    let mut d = Decoder {
        r: Reader { code, pc: 0 },
        m,
        i32_count,
        i32_limit,
        ref_count,
        lists: Vec::new(),
        branches: Vec::new(),
        tables: Vec::new(),
        calls: Vec::new(),
        strings: Vec::new(),
        aux: Vec::new(),
        branch_targets: Vec::new(),
    };
    let mut ops = Vec::new();
    let mut op_offsets = Vec::new();
    let mut op_codes = Vec::new();
    // Byte offset of each block marker -> index of the op that follows it.
    let mut blocks: Vec<(u32, u32)> = Vec::new();
    // As upstream's verifier: every op lies in a block (after a block
    // marker, before the block's terminator), and the last block ends in a
    // terminator, so execution never runs past a function's ops.
    let mut in_block = false;
    while d.r.pc < code.len() {
        let start = d.r.pc as u32;
        let opcode = d.r.u8()?;
        if opcode == BLOCK_MARKER {
            if in_block {
                return Err(err(format!(
                    "op at pc {start:08X} is a block while still in a block"
                )));
            }
            in_block = true;
            blocks.push((start, ops.len() as u32));
            continue;
        }
        if !in_block {
            // Upstream's verifier walks ops while `pc < length - 1`: a last
            // byte alone is never an op. More than that after the last
            // block's terminator is an op outside every block.
            if start as usize + 1 == code.len() && !ops.is_empty() {
                break;
            }
            return Err(err(format!("op at pc {start:08X} is not in a block")));
        }
        let (set, code_byte) = match opcode {
            PREFIX_EXT_F32 => (1u16, d.r.u8()?),
            PREFIX_EXT_F64 => (2u16, d.r.u8()?),
            c => (0u16, c),
        };
        // An extension op needs its extension among the function's declared
        // requirements (upstream's `IREE_VM_VERIFY_REQUIREMENT`, whose
        // message calls the function's requirements what is available).
        let extension = [
            FeatureBits::empty(),
            FeatureBits::EXT_F32,
            FeatureBits::EXT_F64,
        ][usize::from(set)];
        if !desc.requirements.contains(extension) {
            return Err(err(format!(
                "required module features [{}] are not available in this runtime configuration; \
                 have [{}] while module requires [{}]",
                extension.names(),
                desc.requirements.names(),
                extension.names()
            )));
        }
        let opcode_set = [OpcodeSet::Core, OpcodeSet::F32, OpcodeSet::F64][usize::from(set)];
        let op = match decode_alu(&mut d, opcode_set, code_byte) {
            Ok(None) => decode_other(&mut d, opcode_set, code_byte),
            decoded => decoded,
        }
        .annotate_with(|| {
            format!(
                "at bytecode offset {start} (opcode {:#04x}{})",
                opcode,
                if set > 0 {
                    format!(" {code_byte:#04x}")
                } else {
                    String::new()
                }
            )
        })?;
        let Some(op) = op else {
            // Trailing zero padding after the last instruction.
            if opcode == 0 && set == 0 && code[start as usize..].iter().all(|&b| b == 0) {
                break;
            }
            return Err(err(format!("invalid opcode at bytecode offset {start}")));
        };
        if ends_block(&op, &d.calls) {
            in_block = false;
        }
        ops.push(op);
        op_offsets.push(start);
        op_codes.push((set << 8) | u16::from(code_byte));
    }
    if in_block || ops.is_empty() {
        return Err(err("function missing terminator in the last block"));
    }
    // Each return's registers carry the results' types (upstream verifies
    // `vm.return` against the result cconv).
    for (op, &offset) in ops.iter().zip(&op_offsets) {
        if let Op::Return { list } = *op {
            let regs = &d.lists[list as usize];
            if regs.len() < cconv.results.len() {
                return Err(Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "return at bytecode offset {offset} has {} registers; the function returns {}",
                        regs.len(),
                        cconv.results.len()
                    ),
                ));
            }
            for (&reg, ty) in regs.iter().zip(&cconv.results) {
                d.check_value_reg(reg, ty)
                    .annotate_with(|| format!("return at bytecode offset {offset}"))?;
            }
        }
    }
    // Resolve branch targets to op indices; each must land on a block marker.
    check_block_list(&blocks, &d.branch_targets, desc.block_count, code.len())?;
    for (branch, &target) in d.branches.iter_mut().zip(&d.branch_targets) {
        let idx = blocks
            .binary_search_by_key(&target, |&(off, _)| off)
            .map_err(|_| err(format!("branch target {target} is not a block marker")))?;
        let op_index = blocks[idx].1;
        if op_index as usize >= ops.len() {
            return Err(err(format!(
                "branch target {target} is an empty trailing block"
            )));
        }
        branch.target = op_index;
    }
    // Simple branches carry their target inline, as a jump from the branch
    // op, and an edge that copies one or two i32 words carries them too.
    for (at, op) in ops.iter_mut().enumerate() {
        let jump = |branch: u32| jump_between(at, d.branches[branch as usize].target);
        match *op {
            Op::BrRemap { branch } if d.branches[branch as usize].remap.is_empty() => {
                *op = Op::Br {
                    target: jump(branch),
                };
            }
            Op::BrRemap { branch } if !d.branches[branch as usize].remaps_refs => {
                let br = &d.branches[branch as usize];
                let moves = match br.remap[..] {
                    [one] => Some([one, one]),
                    [first, second] => Some([first, second]),
                    _ => None,
                };
                if let Some([(src0, dst0), (src1, dst1)]) = moves {
                    *op = Op::BrMove {
                        src0,
                        dst0,
                        src1,
                        dst1,
                        target: jump(branch),
                    };
                }
            }
            Op::CondBrRemap { cond, t, f }
                if d.branches[t as usize].remap.is_empty()
                    && d.branches[f as usize].remap.is_empty() =>
            {
                *op = Op::CondBr {
                    cond,
                    t: jump(t),
                    f: jump(f),
                };
            }
            Op::CondBrRemap { cond, t, f } => {
                let (taken, other) = (&d.branches[t as usize], &d.branches[f as usize]);
                if let ([(src, dst)], [], false) =
                    (&taken.remap[..], &other.remap[..], taken.remaps_refs)
                {
                    *op = Op::CondBrMove {
                        cond,
                        src: *src,
                        dst: *dst,
                        t: jump(t),
                        f: jump(f),
                    };
                }
            }
            _ => {}
        }
    }
    fuse_compare_branches(&mut ops, &blocks);
    thread_jumps_into_tests(&mut ops);
    fuse_loop_latches(&mut ops, &blocks);
    fuse_add_chains(&mut ops, &blocks);
    fuse_indexed_loads(&mut ops, &blocks);
    // Header + 16-byte aligned register banks, as upstream charges frames.
    let frame_bytes =
        FRAME_HEADER_BYTES + align16(i32_count as usize * 4) + align16(ref_count as usize * 16);
    Ok(FunctionCode {
        ops: ops.into_boxed_slice(),
        op_offsets: op_offsets.into_boxed_slice(),
        op_codes: op_codes.into_boxed_slice(),
        lists: d.lists,
        branches: d.branches,
        tables: d.tables,
        calls: d.calls,
        strings: d.strings,
        aux: d.aux,
        i32_count,
        ref_count,
        frame_bytes,
        arg_slots: cconv.args.clone().into_boxed_slice(),
        arg_registers: arg_registers.into_boxed_slice(),
        result_types: cconv.results.clone().into_boxed_slice(),
    })
}

/// Upstream's block list (`block_list.c`): the distinct offsets of block
/// markers and branch targets must be exactly the descriptor's block count,
/// each a block marker with at least one byte after it. `blocks` holds the
/// markers' offsets in order.
fn check_block_list(
    blocks: &[(u32, u32)],
    targets: &[u32],
    block_count: u16,
    code_len: usize,
) -> Result<()> {
    const PC_BLOCK_MAX: u32 = 0x00FF_FFFF;
    if let Some(&pc) = targets.iter().find(|&&pc| pc >= PC_BLOCK_MAX) {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!("block pc {pc:08X} greater than max {PC_BLOCK_MAX:08X}"),
        ));
    }
    let mut pcs: Vec<u32> = blocks
        .iter()
        .map(|&(pc, _)| pc)
        .chain(targets.iter().copied())
        .collect();
    pcs.sort_unstable();
    pcs.dedup();
    let capacity = usize::from(block_count);
    if pcs.len() > capacity {
        return Err(err(format!(
            "invalid descriptor block count {capacity}; found at least {} blocks",
            capacity + 1
        )));
    }
    if pcs.len() != capacity {
        return Err(err(format!(
            "invalid descriptor block count {capacity}; found {} blocks",
            pcs.len()
        )));
    }
    for &pc in &pcs {
        if blocks.binary_search_by_key(&pc, |&(at, _)| at).is_err() {
            return Err(err(format!("block at pc {pc:08X} not defined in bytecode")));
        }
        if pc as usize + 1 >= code_len {
            return Err(err(format!(
                "block at pc {pc:08X} ({pc}) out of bytecode data range {code_len}"
            )));
        }
    }
    Ok(())
}

/// Whether `op` ends its block (upstream's terminators: branches, returns,
/// `vm.fail`, yields, breaks and yieldable calls, which resume in another
/// block; a plain call falls through).
fn ends_block(op: &Op, calls: &[CallInfo]) -> bool {
    match op {
        Op::Return { .. }
        | Op::Br { .. }
        | Op::BrRemap { .. }
        | Op::BrTable { .. }
        | Op::CondBr { .. }
        | Op::CondBrRemap { .. }
        | Op::Fail { .. }
        | Op::Yield { .. }
        | Op::CondBreak { .. } => true,
        Op::Call { call } => calls
            .get(*call as usize)
            .is_some_and(|info| info.resume.is_some()),
        _ => false,
    }
}

/// The [`Jump`] from op `from` to op `to`. Op indices stay below 2^24
/// (block pcs are checked against upstream's `PC_BLOCK_MAX`), so it fits.
fn jump_between(from: usize, to: u32) -> Jump {
    to as Jump - from as Jump
}

/// True when a block begins at op `index`. `blocks` is in op order.
fn starts_block(blocks: &[(u32, u32)], index: usize) -> bool {
    blocks
        .binary_search_by_key(&index, |&(_, op)| op as usize)
        .is_ok()
}

macro_rules! define_fusions {
    (()
     compare_branches { $( $cmp:ident => $fused:ident, $moved:ident ($w:ident) $(latch $add:ident => $latch:ident)? ; )* }
     add_chains { $( $add2:ident => $chain:ident ($w2:ident) ; )* }
     indexed_loads { $add3:ident => $load3:ident ($w3:ident) ; chain $chain4:ident ($add4:ident) => $load4:ident ($w4:ident) ; }) => {
        /// The indexed load for the add (or fused add chain) at `ops[i]`
        /// and the index of the load it absorbs: the op after it (after the
        /// chain's absorbed add), when that is a word `buffer.load` at
        /// element `r`, the sum.
        fn indexed_load(ops: &[Op], i: usize) -> Option<(Op, usize)> {
            let word_load_at = |at: usize, sum: Reg| match ops.get(at) {
                Some(&Op::BufferLoadWord { buf, offset, r, .. })
                    if offset == sum => Some((buf, r)),
                _ => None,
            };
            match ops[i] {
                Op::$add3 { a, b, r } => word_load_at(i + 1, r)
                    .map(|(buf, dst)| (Op::$load3 { a, b, r, buf, dst }, i + 1)),
                Op::$chain4 { a, b, c, r } => word_load_at(i + 2, r)
                    .map(|(buf, dst)| (Op::$load4 { a, b, c, r, buf, dst }, i + 2)),
                _ => None,
            }
        }

        /// The compare-branch for compare `op` followed by `cond_br cond, t, f`,
        /// if `op` is a compare of [`for_each_fused_op!`](crate::isa) that
        /// writes `cond`. `t` and `f` are jumps from the compare.
        fn compare_branch(op: Op, cond: Reg, t: Jump, f: Jump) -> Option<Op> {
            match op {
                $( Op::$cmp { a, b, r } if r == cond => Some(Op::$fused { a, b, r, t, f }), )*
                _ => None,
            }
        }

        /// As [`compare_branch`], for a [`Op::CondBrMove`] whose jumps fit
        /// in 16 bits.
        fn compare_branch_move(op: Op, cond: Reg, src: Reg, dst: Reg, t: Jump, f: Jump) -> Option<Op> {
            let (t, f) = (ShortJump::try_from(t).ok()?, ShortJump::try_from(f).ok()?);
            match op {
                $( Op::$cmp { a, b, r } if r == cond => Some(Op::$moved { a, b, r, src, dst, t, f }), )*
                _ => None,
            }
        }

        /// A copy of the fused compare-branch `op` to run from the op `by`
        /// ops before it (negative: after it), jumping to the same targets;
        /// `None` for any other op.
        fn compare_branch_copied(op: Op, by: Jump) -> Option<Op> {
            match op {
                $( Op::$fused { a, b, r, t, f } => Some(Op::$fused { a, b, r, t: t + by, f: f + by }), )*
                _ => None,
            }
        }

        /// The loop latch for `add` followed by the compare-branch `test`
        /// of its sum, if the table has one and the jumps fit (the latch
        /// sits one op before `test`).
        fn latch(add: Op, test: Op) -> Option<Op> {
            match (add, test) {
                $($(
                    (Op::$add { a, b, r }, Op::$fused { a: x, b: n, r: c, t, f }) if x == r => {
                        let (t, f) = (ShortJump::try_from(t + 1).ok()?, ShortJump::try_from(f + 1).ok()?);
                        Some(Op::$latch { a, b, r, n, c, targets: latch_targets(t, f) })
                    }
                )?)*
                _ => None,
            }
        }

        /// The fused sum for `r = a + b` followed by `r = r + c` or
        /// `r = c + r` of the same width.
        fn add_chain(first: Op, second: Op) -> Option<Op> {
            match (first, second) {
                $(
                    (Op::$add2 { a, b, r }, Op::$add2 { a: x, b: y, r: r2 }) if r2 == r => {
                        let c = if x == r { y } else if y == r { x } else { return None };
                        Some(Op::$chain { a, b, c, r })
                    }
                )*
                _ => None,
            }
        }
    };
}
crate::isa::for_each_fused_op!(define_fusions! {});

/// Fuses an integer compare with the `cond_br` right after it that tests the
/// compare's result, unless a block starts at the `cond_br`. The absorbed op
/// stays in place (unreached) so op indices and branch targets are unchanged.
fn fuse_compare_branches(ops: &mut [Op], blocks: &[(u32, u32)]) {
    for i in 0..ops.len().saturating_sub(1) {
        // The fused op sits at the compare, one op before the `cond_br`.
        let fused = match ops[i + 1] {
            Op::CondBr { cond, t, f } => compare_branch(ops[i], cond, t + 1, f + 1),
            Op::CondBrMove {
                cond,
                src,
                dst,
                t,
                f,
            } => compare_branch_move(ops[i], cond, src, dst, t + 1, f + 1),
            _ => continue,
        };
        if let Some(fused) = fused {
            if !starts_block(blocks, i + 1) {
                ops[i] = fused;
            }
        }
    }
}

/// Fuses an `add` with the fused compare-and-branch right after it that tests
/// the sum: a counted-loop latch, unless a block starts at the test. Runs after
/// [`thread_jumps_into_tests`], so the usual back edge (`add`, then `br` to the
/// header's test) fuses too. The absorbed op stays in place, as above.
fn fuse_loop_latches(ops: &mut [Op], blocks: &[(u32, u32)]) {
    for i in 0..ops.len().saturating_sub(1) {
        if let Some(fused) = latch(ops[i], ops[i + 1]) {
            if !starts_block(blocks, i + 1) {
                ops[i] = fused;
            }
        }
    }
}

/// Jump threading: an unconditional `br` (without remapping) whose target
/// is a fused compare-and-branch runs a copy of it in its place, saving one
/// dispatch per taken jump. The back edge of every compiled counted loop is
/// such a jump to the loop header's test. The copy writes the same result
/// register and jumps to the same targets, so nothing else
/// changes.
fn thread_jumps_into_tests(ops: &mut [Op]) {
    for i in 0..ops.len() {
        if let Op::Br { target } = ops[i] {
            let test = ops[(i as Jump + target) as usize];
            if let Some(copy) = compare_branch_copied(test, target) {
                ops[i] = copy;
            }
        }
    }
}

/// Fuses two `add`s of one width where the second adds to the first's
/// result and overwrites it (`r = a + b; r = r + c`, or `c + r`): the
/// three-term address sums compiled kernels compute before most buffer
/// accesses. Not when a block starts at the second add. The absorbed op
/// stays in place (so indices and targets hold) and the fused op steps over
/// it.
fn fuse_add_chains(ops: &mut [Op], blocks: &[(u32, u32)]) {
    let mut i = 0;
    while i + 1 < ops.len() {
        match add_chain(ops[i], ops[i + 1]) {
            Some(fused) if !starts_block(blocks, i + 1) => {
                ops[i] = fused;
                // The absorbed add is not the start of another chain.
                i += 2;
            }
            _ => i += 1,
        }
    }
}

/// Fuses an i64 add, or a fused add chain, with the word `buffer.load`
/// that reads at the sum (see `indexed_loads` in
/// [`for_each_fused_op!`](crate::isa)), unless a block starts at the load.
/// Runs after [`fuse_add_chains`]. The load stays in place: the fused op
/// steps over it, or falls through to it when its fast path misses.
fn fuse_indexed_loads(ops: &mut [Op], blocks: &[(u32, u32)]) {
    for i in 0..ops.len() {
        if let Some((fused, load)) = indexed_load(ops, i) {
            if !starts_block(blocks, load) {
                ops[i] = fused;
            }
        }
    }
}

/// Bytes charged per frame besides its registers (about the size of
/// upstream's stack-frame and bytecode-frame headers).
const FRAME_HEADER_BYTES: usize = 128;

fn align16(n: usize) -> usize {
    (n + 15) & !15
}

/// Reads one register operand of an ALU instruction by its value type.
macro_rules! alu_operand {
    ($d:ident, I32) => {
        $d.i32()?
    };
    ($d:ident, F32) => {
        $d.i32()?
    };
    ($d:ident, I64) => {
        $d.i64()?
    };
    ($d:ident, F64) => {
        $d.i64()?
    };
}

macro_rules! define_decode_alu {
    (() $( $set:ident $code:literal $mnemonic:literal $name:ident
           ( $($arg:ident : $arg_ty:ident),* ) -> $result_ty:ident = $kind:ident $sem:expr ; )*) => {
        /// Decodes and verifies a register-to-register instruction (every row
        /// of [`for_each_alu_op!`](crate::isa)): operands, then the result, in
        /// encoding order. `None` for other opcodes.
        fn decode_alu(d: &mut Decoder<'_, '_>, set: OpcodeSet, code: u8) -> Result<Option<Op>> {
            Ok(Some(match (set, code) {
                $( (OpcodeSet::$set, $code) => Op::$name {
                    $($arg: alu_operand!(d, $arg_ty),)*
                    r: alu_operand!(d, $result_ty),
                }, )*
                _ => return Ok(None),
            }))
        }
    };
}
crate::isa::for_each_alu_op!(define_decode_alu! {});

/// Reads and verifies one operand of a table-derived instruction by its
/// [`Operand`](crate::isa::Operand) kind.
macro_rules! decode_operand {
    ($d:ident, I32) => {
        $d.i32()?
    };
    ($d:ident, I64) => {
        $d.i64()?
    };
    ($d:ident, Ref) => {
        $d.rref()?
    };
    ($d:ident, Type) => {
        $d.type_of()?
    };
    ($d:ident, Global4) => {
        $d.global_offset(4)?
    };
    ($d:ident, Global8) => {
        $d.global_offset(8)?
    };
    ($d:ident, GlobalRef) => {
        $d.global_ref()?
    };
    ($d:ident, ConstI32) => {
        $d.r.u32()?
    };
    ($d:ident, ConstF32) => {
        $d.r.u32()?
    };
    ($d:ident, ConstI64) => {{
        let lo = $d.r.u32()?;
        let hi = $d.r.u32()?;
        u64::from(hi) << 32 | u64::from(lo)
    }};
    ($d:ident, ConstF64) => {
        decode_operand!($d, ConstI64)
    };
    ($d:ident, Rodata) => {
        $d.rodata()?
    };
    ($d:ident, Import) => {
        $d.import()?
    };
    ($d:ident, RegsI32) => {
        $d.list_of(|d, r| d.check_i32(r))?
    };
    ($d:ident, RegsI64) => {
        $d.list_of(|d, r| d.check_i64(r))?
    };
    ($d:ident, RegsRef) => {
        $d.list_of(|d, r| d.check_ref(r))?
    };
    ($d:ident, RegsAny) => {
        $d.list_of(|d, r| d.check_any(r))?
    };
    ($d:ident, Branch) => {
        $d.branch()?
    };
    ($d:ident, Str) => {
        $d.string()?
    };
}

/// Reads (and verifies) an operand a row does not keep (`_: Kind`).
macro_rules! skip_operand {
    ($d:ident, Type) => {
        $d.type_of()?
    };
    ($d:ident, Str) => {{
        $d.string()?;
        $d.strings.pop();
    }};
}

/// Builds one row's `Op` from its operands (or hands `_` rows to
/// [`decode_by_hand`]).
macro_rules! decode_row {
    ($d:ident, $set:ident, $code:literal, _ [$($fixed:ident = $value:expr),*] { $($field:tt : $operand:ident $(($inner:ident))?),* }) => {
        return decode_by_hand($d, OpcodeSet::$set, $code)
    };
    ($d:ident, $set:ident, $code:literal, $variant:ident [$($fixed:ident = $value:expr),*] { $($field:tt : $operand:ident $(($inner:ident))?),* }) => {
        op_fields!($d; $variant; [$($fixed: $value,)*]; []; $($field : $operand $(($inner))?,)*)
    };
}

/// Reads a row's operands in encoding order into locals, then builds the
/// `Op`: `name: Kind` becomes field `name`, `_: Kind` is read and dropped,
/// `[lo, hi]: Kind` splits a 64-bit immediate into two u32 fields, and
/// `name: Aux(Kind)` registers are collected, in order, into one side-table
/// entry that field `aux` indexes.
macro_rules! op_fields {
    ($d:ident; $v:ident; [$($acc:tt)*]; [];) => {
        Op::$v { $($acc)* }
    };
    ($d:ident; $v:ident; [$($acc:tt)*]; [$($aux:ident,)+];) => {
        Op::$v { $($acc)* aux: $d.aux(aux_entry(&[$($aux),+])) }
    };
    ($d:ident; $v:ident; [$($acc:tt)*]; [$($aux:tt)*]; _ : $k:ident, $($rest:tt)*) => {{
        skip_operand!($d, $k);
        op_fields!($d; $v; [$($acc)*]; [$($aux)*]; $($rest)*)
    }};
    ($d:ident; $v:ident; [$($acc:tt)*]; [$($aux:tt)*]; [$lo:ident, $hi:ident] : $k:ident, $($rest:tt)*) => {{
        let value: u64 = decode_operand!($d, $k);
        let ($lo, $hi) = (value as u32, (value >> 32) as u32);
        op_fields!($d; $v; [$($acc)* $lo, $hi,]; [$($aux)*]; $($rest)*)
    }};
    ($d:ident; $v:ident; [$($acc:tt)*]; [$($aux:tt)*]; $f:ident : Aux($k:ident), $($rest:tt)*) => {{
        let $f = AuxReg::raw(decode_operand!($d, $k));
        op_fields!($d; $v; [$($acc)*]; [$($aux)* $f,]; $($rest)*)
    }};
    ($d:ident; $v:ident; [$($acc:tt)*]; [$($aux:tt)*]; $f:ident : $k:ident, $($rest:tt)*) => {{
        let $f = decode_operand!($d, $k);
        op_fields!($d; $v; [$($acc)* $f,]; [$($aux)*]; $($rest)*)
    }};
}

/// A register kept in a side-table entry: its raw `u16`.
trait AuxReg {
    fn raw(self) -> u16;
}
impl AuxReg for Reg {
    fn raw(self) -> u16 {
        self
    }
}
impl AuxReg for RefReg {
    fn raw(self) -> u16 {
        self.0
    }
}

/// A side-table entry: `regs` in order, zero-padded.
fn aux_entry(regs: &[u16]) -> [u16; 6] {
    let mut entry = [0; 6];
    entry[..regs.len()].copy_from_slice(regs);
    entry
}

macro_rules! define_decode_other {
    (() $( $set:ident $code:literal $dis:ident $mnemonic:literal $variant:tt
           $([ $($fixed:ident = $value:expr),* ])?
           { $($field:tt : $operand:ident $(($inner:ident))?),* } $syntax:literal ; )*) => {
        /// Decodes and verifies every instruction of
        /// [`for_each_other_op!`](crate::isa): operands in encoding order,
        /// by kind, into the row's `Op`. `None` for invalid opcodes.
        fn decode_other(d: &mut Decoder<'_, '_>, set: OpcodeSet, code: u8) -> Result<Option<Op>> {
            Ok(Some(match (set, code) {
                $( (OpcodeSet::$set, $code) => decode_row!(
                    d, $set, $code, $variant [$($($fixed = $value),*)?] { $($field : $operand $(($inner))?),* }
                ), )*
                _ => return Ok(None),
            }))
        }
    };
}
crate::isa::for_each_other_op!(define_decode_other! {});

/// The rows of [`for_each_other_op!`](crate::isa) marked `_`: calls, whose
/// operands are checked against and planned by the callee's cconv, and
/// `br_table`, whose branches go to a table.
fn decode_by_hand(d: &mut Decoder<'_, '_>, set: OpcodeSet, c: u8) -> Result<Option<Op>> {
    use Op::*;
    Ok(Some(match (set, c) {
        (OpcodeSet::Core, 0x58) => Call {
            call: d.call(false, false)?,
        },
        (OpcodeSet::Core, 0x59) => Call {
            call: d.call(true, false)?,
        },
        (OpcodeSet::Core, 0x83) => {
            let index = d.i32()?;
            let default = d.branch()?;
            let n = d.r.u16()?;
            let mut cases = Vec::with_capacity(n as usize);
            for _ in 0..n {
                cases.push(d.branch()?);
            }
            d.tables.push(BranchTable {
                default,
                cases: cases.into_boxed_slice(),
            });
            BrTable {
                index,
                table: (d.tables.len() - 1) as u32,
            }
        }
        (OpcodeSet::Core, 0x87) => Call {
            call: d.call(false, true)?,
        },
        (OpcodeSet::Core, 0x88) => Call {
            call: d.call(true, true)?,
        },
        _ => return Ok(None),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The usual back edge (`add`, then `br` to the header's compare-and-
    /// branch) becomes one latch op after jump threading; the header keeps
    /// its own test. Every copy jumps to the same ops as the original.
    #[test]
    fn back_edge_add_and_jump_fuse_into_a_latch() {
        // At op 1: on to op 2 (the body) or op 4 (the exit).
        let header = Op::CmpBrLtSI64 {
            a: 4,
            b: 6,
            r: 8,
            t: 1,
            f: 3,
        };
        let mut ops = vec![
            Op::ConstI32 { value: 0, r: 0 },
            header,
            Op::AddI64 { a: 4, b: 10, r: 4 },
            Op::Br { target: -2 },
            Op::ConstI32 { value: 1, r: 0 },
        ];
        // Blocks start at ops 0, 1 (header), 2 (body) and 4 (exit).
        let blocks = [(0, 0), (10, 1), (20, 2), (30, 4)];
        fuse_compare_branches(&mut ops, &blocks);
        thread_jumps_into_tests(&mut ops);
        // The threaded copy at op 3 jumps back 1 to the body, on 1 to the exit.
        assert!(matches!(ops[3], Op::CmpBrLtSI64 { t: -1, f: 1, .. }));
        fuse_loop_latches(&mut ops, &blocks);
        fuse_add_chains(&mut ops, &blocks);
        assert!(matches!(ops[1], Op::CmpBrLtSI64 { t: 1, f: 3, .. }));
        // The latch at op 2 jumps to itself (0) or on 2 to the exit.
        assert!(matches!(
            ops[2],
            Op::AddCmpBrLtSI64 {
                a: 4,
                b: 10,
                r: 4,
                n: 6,
                c: 8,
                targets: 0x0002_0000
            }
        ));
        // A jump that begins its own block is still threaded, but not fused
        // with the op before it.
        let mut ops = vec![
            Op::AddI64 { a: 4, b: 10, r: 4 },
            Op::Br { target: 1 },
            header,
        ];
        let blocks = [(0, 0), (10, 1), (20, 2)];
        thread_jumps_into_tests(&mut ops);
        fuse_loop_latches(&mut ops, &blocks);
        fuse_add_chains(&mut ops, &blocks);
        assert!(matches!(ops[0], Op::AddI64 { .. }));
        assert!(matches!(ops[1], Op::CmpBrLtSI64 { .. }));
    }

    /// An i64 add or fused add chain whose sum is the offset of the word
    /// load right after it fuses; a load at another offset, of another
    /// width, or starting a block does not.
    #[test]
    fn adds_fuse_with_the_word_load_at_their_sum() {
        let load = |elem, offset| {
            let buf = RefReg::new(0, false);
            match elem {
                BufElem::I64 => Op::BufferLoadDword {
                    elem,
                    buf,
                    offset,
                    r: 9,
                },
                _ => Op::BufferLoadWord {
                    elem,
                    buf,
                    offset,
                    r: 9,
                },
            }
        };
        let mut ops = vec![
            Op::AddI64 { a: 2, b: 4, r: 6 },
            load(BufElem::F32, 6),
            Op::AddI64 { a: 2, b: 4, r: 6 },
            Op::AddI64 { a: 6, b: 8, r: 6 },
            load(BufElem::I32, 6),
            Op::AddI64 { a: 2, b: 4, r: 6 },
            load(BufElem::I32, 8),
            Op::AddI64 { a: 2, b: 4, r: 6 },
            load(BufElem::I64, 6),
            Op::Br { target: 0 },
        ];
        let blocks = [(0, 0)];
        fuse_add_chains(&mut ops, &blocks);
        fuse_indexed_loads(&mut ops, &blocks);
        assert!(matches!(
            ops[0],
            Op::AddLoadWordI64 {
                a: 2,
                b: 4,
                r: 6,
                dst: 9,
                ..
            }
        ));
        assert!(matches!(
            ops[2],
            Op::AddAddLoadWordI64 {
                a: 2,
                b: 4,
                c: 8,
                r: 6,
                dst: 9,
                ..
            }
        ));
        assert!(matches!(ops[5], Op::AddI64 { .. }));
        assert!(matches!(ops[7], Op::AddI64 { .. }));
        let mut ops = vec![
            Op::AddI64 { a: 2, b: 4, r: 6 },
            load(BufElem::F32, 6),
            Op::Br { target: 0 },
        ];
        fuse_indexed_loads(&mut ops, &[(0, 0), (10, 1)]);
        assert!(matches!(ops[0], Op::AddI64 { .. }));
    }

    /// `r = a + b; r = r + c` (either operand order) fuses; a chain of three
    /// fuses its first two; a second add that keeps both values, or that
    /// starts a block, does not.
    #[test]
    fn add_chains_fuse_into_three_term_sums() {
        let add = |a, b, r| Op::AddI64 { a, b, r };
        let mut ops = vec![
            add(2, 4, 6),
            add(8, 6, 6),
            add(6, 10, 6),
            add(2, 4, 12),
            add(12, 6, 14),
            Op::Br { target: 0 },
        ];
        fuse_add_chains(&mut ops, &[(0, 0)]);
        assert!(matches!(
            ops[0],
            Op::AddAddI64 {
                a: 2,
                b: 4,
                c: 8,
                r: 6
            }
        ));
        assert!(matches!(ops[1], Op::AddI64 { .. }));
        assert!(matches!(ops[2], Op::AddI64 { .. }));
        assert!(matches!(ops[3], Op::AddI64 { .. }));
        let mut ops = vec![
            Op::AddI32 { a: 1, b: 2, r: 3 },
            Op::AddI32 { a: 3, b: 4, r: 3 },
            Op::Br { target: 0 },
        ];
        fuse_add_chains(&mut ops, &[(0, 0), (10, 1)]);
        assert!(matches!(ops[0], Op::AddI32 { .. }));
        fuse_add_chains(&mut ops, &[(0, 0)]);
        assert!(matches!(
            ops[0],
            Op::AddAddI32 {
                a: 1,
                b: 2,
                c: 4,
                r: 3
            }
        ));
    }
}
