//! The bytecode disassembler: upstream 3.13's `iree-dump-module
//! --output=disassembly` text, derived from the ISA table
//! ([`crate::isa::op_info`]): each instruction's operands are read by their
//! [`Operand`] kinds and printed through the row's syntax.
//!
//! The module is verified first (as upstream verifies it on load, printing
//! nothing when that fails); then the module header, and per function its
//! header and body. A function whose body cannot be printed fails the whole
//! dump after its header, as upstream's does.

use std::fmt::Write;

use iree_base::{Result, Status, StatusCode};
use iree_vm::{Cconv, CconvType, TypeDef};

use crate::decode::{decode_function, ModuleView, MOVE_BIT, REF_BIT, REF_MASK};
use crate::format::{parse_module, ModuleMetadata};
use crate::isa::{op_info, BranchOperand, Operand, OperandReader, Syntax, Value};
use crate::module::{cconvs, check_features};

/// What to print.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Only the function with this name or internal ordinal (all when
    /// empty).
    pub function: String,
    /// Prefix every body line with its bytecode offset (`[%08X]`).
    pub bytecode_offsets: bool,
}

fn invalid(msg: impl Into<String>) -> Status {
    Status::new(StatusCode::InvalidArgument, msg)
}

/// Disassembles the module file image `file` into `out`. On failure `out`
/// holds what upstream prints before it fails.
pub fn disassemble(file: &[u8], options: &Options, out: &mut String) -> Result<()> {
    let meta = parse_module(file)?;
    let function_cconvs = verify(&meta, file)?;
    let _ = writeln!(out, "vm.module @{} version {}", meta.name, meta.version);
    for ty in &meta.types {
        let _ = writeln!(out, "vm.type {ty}");
    }
    for import in &meta.imports {
        let _ = writeln!(
            out,
            "vm.import {}@{} cconv \"{}\"",
            if import.optional { "optional " } else { "" },
            import.full_name,
            import.signature.calling_convention
        );
    }
    for ordinal in 0..meta.rodata.len() {
        let bytes = meta.rodata_bytes(file, ordinal).unwrap_or_default();
        let _ = write!(out, "vm.rodata[{ordinal}] = ");
        for b in bytes {
            let _ = write!(out, "{b:02X}");
        }
        out.push('\n');
    }
    // A blank line ends the module-level declarations, when there are any.
    if !(meta.types.is_empty() && meta.imports.is_empty() && meta.rodata.is_empty()) {
        out.push('\n');
    }
    let filter_ordinal = parse_ordinal(&options.function);
    let mut first = true;
    for (ordinal, cconv) in function_cconvs.iter().enumerate() {
        let name = function_display_name(&meta, ordinal);
        if !options.function.is_empty() {
            match filter_ordinal {
                Some(o) if o as usize != ordinal => continue,
                None if name != options.function => continue,
                _ => {}
            }
        }
        // Functions are separated by a blank line.
        if !std::mem::take(&mut first) {
            out.push('\n');
        }
        if let Some(export) = meta
            .exports
            .iter()
            .find(|e| e.internal_ordinal as usize == ordinal)
        {
            let _ = writeln!(out, "vm.export @{}", export.local_name);
        }
        write_function_header(out, &name, cconv);
        let mut body = String::new();
        disassemble_body(&meta, file, ordinal, options.bytecode_offsets, &mut body)?;
        out.push_str(&body);
        out.push_str("}\n");
    }
    Ok(())
}

/// `iree_string_view_atoi_uint32`: decimal digits only.
fn parse_ordinal(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Checks the module as upstream's loader does before anything is printed:
/// features, calling conventions and every function's bytecode. Returns the
/// function cconvs.
fn verify(meta: &ModuleMetadata, file: &[u8]) -> Result<Vec<Cconv>> {
    check_features(meta)?;
    let (function_cconvs, import_cconvs) = cconvs(meta)?;
    // Type names are placeholders here: only the count is checked.
    let types: Vec<TypeDef> = meta.types.iter().map(|_| TypeDef::AnyRef).collect();
    let view = ModuleView {
        meta,
        types: &types,
        function_cconvs: &function_cconvs,
        import_cconvs: &import_cconvs,
    };
    for ordinal in 0..meta.functions.len() {
        decode_function(&view, file, ordinal)?;
    }
    Ok(function_cconvs)
}

/// The name the disassembly gives internal function `ordinal`: its export's,
/// else its debug database entry's, else `fn<ordinal>`.
pub fn function_display_name(meta: &ModuleMetadata, ordinal: usize) -> String {
    if let Some(e) = meta
        .exports
        .iter()
        .find(|e| e.internal_ordinal as usize == ordinal)
    {
        return e.local_name.clone();
    }
    match meta.source_maps.get(ordinal) {
        Some(map) if !map.local_name.is_empty() => map.local_name.clone(),
        _ => format!("fn{ordinal}"),
    }
}

fn type_name(ty: &CconvType) -> &'static str {
    match ty {
        CconvType::I32 => "i32",
        CconvType::I64 => "i64",
        CconvType::F32 => "f32",
        CconvType::F64 => "f64",
        _ => "!vm.ref<?>",
    }
}

fn write_function_header(out: &mut String, name: &str, cconv: &Cconv) {
    let _ = write!(out, "vm.func @{name}(");
    let (mut i, mut r) = (0u32, 0u32);
    for (n, ty) in cconv.args.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        match ty {
            CconvType::I32 | CconvType::F32 => {
                let _ = write!(out, "%i{i}");
                i += 1;
            }
            CconvType::I64 | CconvType::F64 => {
                let _ = write!(out, "%i{i}:{}", i + 1);
                i += 2;
            }
            _ => {
                let _ = write!(out, "%r{r}");
                r += 1;
            }
        }
        let _ = write!(out, ": {}", type_name(ty));
    }
    out.push_str(") -> (");
    for (n, ty) in cconv.results.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        out.push_str(type_name(ty));
    }
    out.push_str(") {\n");
}

/// The bytecode offsets of the instructions of one function's `code` (block
/// markers excluded), found by the ISA table alone: what the verifier
/// (`decode.rs`) must agree with.
pub fn instruction_offsets(code: &[u8]) -> Result<Vec<u32>> {
    let mut r = OperandReader { code, pc: 0 };
    let mut starts = Vec::new();
    while r.pc < code.len() {
        let pc = r.pc;
        // As the verifier: a function's last byte alone is never an op.
        if pc + 1 == code.len() && !starts.is_empty() {
            break;
        }
        let Some((set, byte)) = r.opcode()? else {
            continue;
        };
        let Some(info) = op_info(set, byte) else {
            if code[pc..].iter().all(|&b| b == 0) {
                break;
            }
            return Err(invalid(format!("invalid opcode at {pc:08X}")));
        };
        for &kind in info.operands {
            r.operand(kind)?;
        }
        starts.push(pc as u32);
    }
    Ok(starts)
}

/// One decoded instruction.
struct Inst<'a> {
    pc: usize,
    info: crate::isa::OpInfo,
    values: Vec<Value<'a>>,
}

enum Line<'a> {
    Block(usize),
    Inst(Inst<'a>),
}

fn disassemble_body(
    meta: &ModuleMetadata,
    file: &[u8],
    ordinal: usize,
    offsets: bool,
    out: &mut String,
) -> Result<()> {
    let range = meta
        .function_range(ordinal)
        .ok_or_else(|| invalid("function bytecode out of range"))?;
    let code = &file[range];
    let mut r = OperandReader { code, pc: 0 };
    let mut lines = Vec::new();
    let mut blocks = Vec::new();
    while r.pc < code.len() {
        let pc = r.pc;
        let Some((set, byte)) = r.opcode()? else {
            blocks.push(pc as u32);
            lines.push(Line::Block(pc));
            continue;
        };
        let info = match op_info(set, byte) {
            Some(info) => info,
            // Trailing zero padding after the last instruction.
            None if code[pc..].iter().all(|&b| b == 0) => break,
            None => return Err(invalid(format!("unhandled opcode at {pc:08X}"))),
        };
        if !info.disassembled {
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!("unhandled opcode vm.{} at {pc:08X}", info.mnemonic),
            ));
        }
        let mut values = Vec::with_capacity(info.operands.len());
        for &kind in info.operands {
            values.push(r.operand(kind)?);
        }
        lines.push(Line::Inst(Inst { pc, info, values }));
    }
    let block_count = usize::from(meta.functions[ordinal].block_count);
    if blocks.len() != block_count {
        return Err(invalid(format!(
            "invalid descriptor block count {block_count}; found {} blocks",
            blocks.len()
        )));
    }
    let p = Printer { meta, blocks };
    for line in &lines {
        match line {
            Line::Block(pc) => {
                if offsets {
                    let _ = write!(out, "[{pc:08X}]");
                }
                let _ = writeln!(out, "^bb{}:", p.block(*pc as u32)?);
            }
            Line::Inst(inst) => {
                if offsets {
                    let _ = write!(out, "[{:08X}]", inst.pc);
                }
                out.push_str("  ");
                p.inst(out, inst)?;
                out.push('\n');
            }
        }
    }
    Ok(())
}

struct Printer<'m> {
    meta: &'m ModuleMetadata,
    blocks: Vec<u32>,
}

fn reg(out: &mut String, raw: u16) {
    if raw & REF_BIT != 0 {
        let m = if raw & MOVE_BIT != 0 { 'R' } else { 'r' };
        let _ = write!(out, "%{m}{}", raw & REF_MASK);
    } else {
        let _ = write!(out, "%i{raw}");
    }
}

fn reg_list(out: &mut String, regs: &[u16]) {
    for (n, &r) in regs.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        reg(out, r);
    }
}

impl Printer<'_> {
    fn block(&self, target: u32) -> Result<usize> {
        self.blocks
            .binary_search(&target)
            .map_err(|_| invalid(format!("branch target {target:08X} is not a block")))
    }

    fn branch(&self, out: &mut String, b: &BranchOperand) -> Result<()> {
        let _ = write!(out, "^bb{}(", self.block(b.target)?);
        for (n, &(src, dst)) in b.remap.iter().enumerate() {
            if n > 0 {
                out.push_str(", ");
            }
            reg(out, src);
            out.push_str("->");
            reg(out, dst);
        }
        out.push(')');
        Ok(())
    }

    fn inst(&self, out: &mut String, inst: &Inst<'_>) -> Result<()> {
        let info = &inst.info;
        match info.syntax {
            Syntax::Alu => {
                let (result, args) = inst.values.split_last().unwrap_or((&Value::Imm(0), &[]));
                self.operand(out, *info.operands.last().unwrap_or(&Operand::I32), result)?;
                let _ = write!(out, " = vm.{}", info.mnemonic);
                for (n, (v, &kind)) in args.iter().zip(info.operands).enumerate() {
                    out.push_str(if n > 0 { ", " } else { " " });
                    self.operand(out, kind, v)?;
                }
            }
            Syntax::Template(template) => {
                let mut chars = template.chars().peekable();
                while let Some(c) = chars.next() {
                    if c != '$' {
                        out.push(c);
                        continue;
                    }
                    match chars.next() {
                        Some('m') => {
                            let _ = write!(out, "vm.{}", info.mnemonic);
                        }
                        Some('?') => {
                            let n = chars.next().and_then(|d| d.to_digit(10)).unwrap_or(0);
                            if let Some(Value::List(l)) = inst.values.get(n as usize) {
                                if !l.is_empty() {
                                    out.push(' ');
                                    reg_list(out, l);
                                }
                            }
                        }
                        Some(d) => {
                            let n = d.to_digit(10).unwrap_or(0) as usize;
                            let (Some(v), Some(&kind)) = (inst.values.get(n), info.operands.get(n))
                            else {
                                continue;
                            };
                            self.operand(out, kind, v)?;
                        }
                        None => {}
                    }
                }
            }
        }
        Ok(())
    }

    fn operand(&self, out: &mut String, kind: Operand, value: &Value<'_>) -> Result<()> {
        match (kind, value) {
            (Operand::I32 | Operand::Ref, Value::Reg(r)) => reg(out, *r),
            (Operand::I64, Value::Reg(r)) => {
                let _ = write!(out, "%i{r}:{}", u32::from(*r) + 1);
            }
            (Operand::ConstI32, Value::Imm(v)) => {
                let _ = write!(out, "{}  // 0x{:08X}", *v as u32 as i32, *v as u32);
            }
            (Operand::ConstI64, Value::Imm(v)) => {
                let _ = write!(out, "{}  // 0x{v:016X}", *v as i64);
            }
            (Operand::ConstF32, Value::Imm(v)) => {
                out.push_str(&c_format_g(f64::from(f32::from_bits(*v as u32)), 9));
            }
            (Operand::ConstF64, Value::Imm(v)) => {
                out.push_str(&c_format_g(f64::from_bits(*v), 17));
            }
            (Operand::Type, Value::Imm(t)) => {
                let name = self.meta.types.get(*t as usize).map(String::as_str);
                out.push_str(name.unwrap_or("<invalid type>"));
            }
            (Operand::Global4 | Operand::Global8 | Operand::GlobalRef, Value::Imm(v)) => {
                let _ = write!(out, "{v}");
            }
            (Operand::Target, Value::Imm(v)) => {
                let _ = write!(out, "^bb{}", self.block(*v as u32)?);
            }
            (Operand::Rodata, Value::Imm(v)) => {
                let len = self.meta.rodata.get(*v as usize).map_or(0, |r| r.len());
                let _ = write!(out, "{v}  // {len}b");
            }
            (Operand::Func | Operand::Import, Value::Imm(f)) => self.func(out, *f as u32),
            (
                Operand::RegsI32 | Operand::RegsI64 | Operand::RegsRef | Operand::RegsAny,
                Value::List(l),
            ) => reg_list(out, l),
            (Operand::Results, Value::List(l)) => {
                if !l.is_empty() {
                    reg_list(out, l);
                    out.push_str(" = ");
                }
            }
            (Operand::Segments, Value::List(l)) => {
                for (n, s) in l.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{s}");
                }
            }
            (Operand::Branch, Value::Branch(b)) => self.branch(out, b)?,
            (Operand::Str, Value::Str(s)) => {
                let _ = write!(out, "\"{}\"", String::from_utf8_lossy(s));
            }
            (Operand::Cases, Value::Cases(cases)) => {
                for (n, b) in cases.iter().enumerate() {
                    let _ = write!(out, ", {n}: ");
                    self.branch(out, b)?;
                }
            }
            _ => return Err(invalid("operand does not match its kind")),
        }
        Ok(())
    }

    fn func(&self, out: &mut String, f: u32) {
        let ordinal = (f & 0x7FFF_FFFF) as usize;
        if f & 0x8000_0000 != 0 {
            match self.meta.imports.get(ordinal) {
                Some(import) => {
                    let _ = write!(out, "@{}", import.full_name);
                }
                None => {
                    let _ = write!(out, "@<import {ordinal}>");
                }
            }
            return;
        }
        let module = &self.meta.name;
        match self.meta.source_maps.get(ordinal) {
            Some(map) if !map.local_name.is_empty() => {
                let _ = write!(out, "@{module}.{}", map.local_name);
            }
            _ => {
                let _ = write!(out, "@{module}:{ordinal}");
            }
        }
    }
}

/// C's `%.<precision>g` of `x` (glibc's spelling of infinities and NaNs).
pub fn c_format_g(x: f64, precision: usize) -> String {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_nan() {
        return format!("{sign}nan");
    }
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    if x == 0.0 {
        return format!("{sign}0");
    }
    let p = precision.max(1);
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i32 {
        let mantissa = strip_zeros(mantissa);
        let (es, ea) = if exp < 0 { ('-', -exp) } else { ('+', exp) };
        format!("{mantissa}e{es}{ea:02}")
    } else {
        let fixed = format!("{:.*}", (p as i32 - 1 - exp) as usize, x);
        strip_zeros(&fixed).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_c_g() {
        let f = |x: f32| c_format_g(f64::from(x), 9);
        assert_eq!(f(1e-4), "9.99999975e-05");
        assert_eq!(f(1.5), "1.5");
        assert_eq!(f(-1.25), "-1.25");
        assert_eq!(f(0.001), "0.00100000005");
        assert_eq!(f(f32::from_bits(1)), "1.40129846e-45");
        assert_eq!(f(f32::INFINITY), "inf");
        assert_eq!(c_format_g(0.1, 17), "0.10000000000000001");
        assert_eq!(c_format_g(f64::from_bits(1), 17), "4.9406564584124654e-324");
        assert_eq!(c_format_g(1e20, 17), "1e+20");
        assert_eq!(c_format_g(123456.0, 17), "123456");
    }
}
