//! `cargo xtask opcodes`: which core VM opcodes the test modules contain,
//! read from upstream's `iree-dump-module --output=disassembly`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use iree_tooling::testcases;

use crate::cli::Options;
use crate::proc;
use crate::venv;
use crate::Result;

/// The mnemonics of the 136 executable core opcodes (0x00..0x88 without the
/// 0x79 block marker), in opcode order, as in the bytecode ISA table.
pub const CORE_MNEMONICS: [&str; 136] = [
    "global.load.i32", "global.store.i32", "global.load.indirect.i32", "global.store.indirect.i32",
    "global.load.i64", "global.store.i64", "global.load.indirect.i64", "global.store.indirect.i64",
    "global.load.ref", "global.store.ref", "global.load.indirect.ref", "global.store.indirect.ref",
    "const.i32.zero", "const.i32", "const.i64.zero", "const.i64", "const.ref.zero",
    "const.ref.rodata", "list.alloc", "list.reserve", "list.size", "list.resize", "list.get.i32",
    "list.set.i32", "list.get.i64", "list.set.i64", "list.get.ref", "list.set.ref", "select.i32",
    "select.i64", "select.ref", "switch.i32", "switch.i64", "switch.ref", "add.i32", "sub.i32",
    "mul.i32", "div.i32.s", "div.i32.u", "rem.i32.s", "rem.i32.u", "fma.i32", "add.i64",
    "sub.i64", "mul.i64", "div.i64.s", "div.i64.u", "rem.i64.s", "rem.i64.u", "fma.i64",
    "not.i32", "and.i32", "or.i32", "xor.i32", "not.i64", "and.i64", "or.i64", "xor.i64",
    "shl.i32", "shr.i32.s", "shr.i32.u", "shl.i64", "shr.i64.s", "shr.i64.u", "trunc.i32.i8",
    "trunc.i32.i16", "trunc.i64.i32", "ext.i8.i32.s", "ext.i8.i32.u", "ext.i16.i32.s",
    "ext.i16.i32.u", "ext.i32.i64.s", "ext.i32.i64.u", "cmp.eq.i32", "cmp.ne.i32",
    "cmp.lt.i32.s", "cmp.lt.i32.u", "cmp.nz.i32", "cmp.eq.i64", "cmp.ne.i64", "cmp.lt.i64.s",
    "cmp.lt.i64.u", "cmp.nz.i64", "cmp.eq.ref", "cmp.ne.ref", "cmp.nz.ref", "br", "cond_br",
    "call", "call.variadic", "return", "fail", "import.resolved", "yield", "trace", "print",
    "cond_break", "break", "buffer.load.i8.u", "buffer.load.i8.s", "buffer.load.i16.u",
    "buffer.load.i16.s", "buffer.load.i32", "buffer.load.i64", "buffer.store.i8",
    "buffer.store.i16", "buffer.store.i32", "buffer.store.i64", "buffer.alloc", "buffer.clone",
    "buffer.length", "buffer.copy", "buffer.compare", "buffer.fill.i8", "buffer.fill.i16",
    "buffer.fill.i32", "buffer.fill.i64", "ctlz.i32", "ctlz.i64", "abs.i32", "abs.i64",
    "min.i32.s", "min.i32.u", "max.i32.s", "max.i32.u", "min.i64.s", "min.i64.u", "max.i64.s",
    "max.i64.u", "cast.any.ref", "br_table", "buffer.hash", "discard.refs", "assign.ref",
    "call.yieldable", "call.variadic.yieldable",
];

/// The op mnemonics (without `vm.`) inside function bodies of a disassembly.
pub fn ops_in_disassembly(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut in_func = false;
    for line in text.lines() {
        if line.starts_with("vm.func") {
            in_func = true;
            continue;
        }
        if line.starts_with('}') {
            in_func = false;
            continue;
        }
        if !in_func {
            continue;
        }
        // `  %i1 = vm.add.i32 ...` or `  vm.return ...`.
        let body = line.trim_start();
        let body = match body.split_once(" = ") {
            Some((lhs, rhs)) if lhs.starts_with('%') => rhs,
            _ => body,
        };
        if let Some(rest) = body.strip_prefix("vm.") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// The `cargo xtask opcodes` command.
pub fn run(opts: &Options) -> Result<bool> {
    let root = crate::repo_root();
    let venv = venv::ensure(&root)?;
    let suites = if opts.suites.is_empty() {
        vec!["vm".to_string()]
    } else {
        opts.suites.clone()
    };
    // op -> groups containing it.
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut modules = 0;
    for suite in &suites {
        let dir = root.join("testdata").join(suite);
        for group in testcases::list_stems(&dir, "vmfb").map_err(|s| s.to_string())? {
            if !opts.group_selected(&group) {
                continue;
            }
            let text = disassemble(&venv.iree_dump_module(), &dir, &group)?;
            modules += 1;
            for op in ops_in_disassembly(&text) {
                seen.entry(op)
                    .or_default()
                    .insert(format!("{suite}/{group}"));
            }
        }
    }
    let core: BTreeSet<&str> = CORE_MNEMONICS.iter().copied().collect();
    let covered = CORE_MNEMONICS
        .iter()
        .filter(|m| seen.contains_key(**m))
        .count();
    let missing: Vec<&str> = CORE_MNEMONICS
        .iter()
        .copied()
        .filter(|m| !seen.contains_key(*m))
        .collect();
    let others: Vec<&String> = seen.keys().filter(|k| !core.contains(k.as_str())).collect();
    if opts.verbose {
        for m in CORE_MNEMONICS {
            match seen.get(m) {
                Some(g) => println!(
                    "  {m:<26} {}",
                    g.iter().cloned().collect::<Vec<_>>().join(" ")
                ),
                None => println!("  {m:<26} MISSING"),
            }
        }
    }
    if !missing.is_empty() {
        println!("missing core ops: {}", missing.join(" "));
    }
    if !others.is_empty() {
        println!(
            "non-core ops seen: {}",
            others
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    println!(
        "core opcodes covered: {covered}/{} across {modules} modules",
        CORE_MNEMONICS.len()
    );
    Ok(true)
}

fn disassemble(tool: &Path, dir: &Path, group: &str) -> Result<String> {
    let args = vec![
        "--output=disassembly".to_string(),
        format!("{group}.vmfb"),
    ];
    let out = proc::run(tool, &args, dir, Duration::from_secs(120))?;
    if out.exit_code != 0 {
        return Err(format!(
            "iree-dump-module {group}.vmfb failed: {}",
            out.stderr
        ));
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_ops() {
        let text = "vm.module @a version 0\nvm.export @f\nvm.func @f(%i0: i32) -> (i32) {\n\
                    ^bb0:\n  %i1 = vm.add.i32 %i0, %i0\n  vm.return %i1\n}\n";
        let ops = ops_in_disassembly(text);
        assert_eq!(
            ops.into_iter().collect::<Vec<_>>(),
            vec!["add.i32", "return"]
        );
    }
}
