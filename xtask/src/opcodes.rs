//! `cargo xtask opcodes`: which core VM opcodes the test modules contain,
//! read from upstream's `iree-dump-module --output=disassembly`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use iree_tooling::testcases;

use crate::cli::Options;
use crate::proc;
use crate::venv::{self, Venv};
use crate::Result;

/// The mnemonics of the 136 executable core opcodes (0x00..0x88 without the
/// 0x79 block marker), in opcode order, from the bytecode ISA table.
pub fn core_mnemonics() -> Vec<&'static str> {
    (0..=0xFFu8)
        .filter_map(|code| {
            iree_vm_bytecode::isa::op_info(iree_vm_bytecode::isa::OpcodeSet::Core, code)
        })
        .map(|info| info.mnemonic)
        .collect()
}

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
    // Functions upstream's disassembler fails on, and the ops counted for them
    // from `iree-compile --output-format=vm-asm` instead.
    let mut undecodable: Vec<String> = Vec::new();
    let mut modules = 0;
    for suite in &suites {
        let dir = root.join("testdata").join(suite);
        for group in testcases::list_stems(&dir, "vmfb").map_err(|s| s.to_string())? {
            if !opts.group_selected(&group) {
                continue;
            }
            modules += 1;
            let scan = scan_module(&venv, &dir, &group)?;
            for op in scan.ops {
                seen.entry(op)
                    .or_default()
                    .insert(format!("{suite}/{group}"));
            }
            for (func, ops) in scan.failed {
                undecodable.push(format!(
                    "{suite}/{group}:@{func} [{}]",
                    ops.iter().cloned().collect::<Vec<_>>().join(" ")
                ));
                for op in ops {
                    seen.entry(op)
                        .or_default()
                        .insert(format!("{suite}/{group} (vm-asm)"));
                }
            }
        }
    }
    let core_mnemonics = core_mnemonics();
    let core: BTreeSet<&str> = core_mnemonics.iter().copied().collect();
    let covered = core_mnemonics
        .iter()
        .filter(|m| seen.contains_key(**m))
        .count();
    let missing: Vec<&str> = core_mnemonics
        .iter()
        .copied()
        .filter(|m| !seen.contains_key(*m))
        .collect();
    let others: Vec<&String> = seen.keys().filter(|k| !core.contains(k.as_str())).collect();
    if opts.verbose {
        for &m in &core_mnemonics {
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
    if !undecodable.is_empty() {
        println!(
            "functions iree-dump-module cannot disassemble (ops taken from \
             iree-compile --output-format=vm-asm instead):"
        );
        for u in &undecodable {
            println!("  {u}");
        }
    }
    println!(
        "core opcodes covered: {covered}/{} across {modules} modules",
        core_mnemonics.len()
    );
    Ok(true)
}

/// What a module holds: the ops upstream's disassembler printed, and for
/// each function it could not disassemble, the ops of that function in the
/// compiler's final VM IR.
struct ModuleScan {
    ops: BTreeSet<String>,
    failed: Vec<(String, BTreeSet<String>)>,
}

fn dump(venv: &Venv, dir: &Path, args: Vec<String>) -> Result<proc::Output> {
    proc::run(
        &venv.iree_dump_module(),
        &args,
        dir,
        Duration::from_secs(120),
    )
}

fn scan_module(venv: &Venv, dir: &Path, group: &str) -> Result<ModuleScan> {
    let vmfb = format!("{group}.vmfb");
    let whole = dump(venv, dir, vec!["--output=disassembly".into(), vmfb.clone()])?;
    let mut scan = ModuleScan {
        ops: ops_in_disassembly(&whole.stdout),
        failed: Vec::new(),
    };
    if whole.exit_code == 0 {
        return Ok(scan);
    }
    // The disassembler stops at the first function it cannot decode (3.13
    // fails on `vm.switch.ref`); disassemble function by function instead.
    let meta = dump(venv, dir, vec!["--output=metadata".into(), vmfb.clone()])?;
    if meta.exit_code != 0 {
        return Err(format!(
            "iree-dump-module --output=metadata {vmfb} failed: {}",
            meta.stderr
        ));
    }
    let mut vm_asm: Option<String> = None;
    for func in function_names(&meta.stdout) {
        let one = dump(
            venv,
            dir,
            vec![
                "--output=disassembly".into(),
                format!("--function={func}"),
                vmfb.clone(),
            ],
        )?;
        scan.ops.extend(ops_in_disassembly(&one.stdout));
        if one.exit_code == 0 {
            continue;
        }
        if vm_asm.is_none() {
            vm_asm = Some(compile_to_vm_asm(venv, dir, group)?);
        }
        let ops = ops_in_vm_asm_function(vm_asm.as_deref().unwrap_or(""), &func);
        scan.failed.push((func, ops));
    }
    Ok(scan)
}

/// The function names in the bytecode table of `--output=metadata` (the
/// last column, `Aliases`), falling back to the exported function names.
fn function_names(metadata: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in metadata.lines() {
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        if cols.len() == 8 && cols[0].parse::<usize>().is_ok() && !cols[7].is_empty() {
            names.push(cols[7].to_string());
        }
    }
    names
}

fn compile_to_vm_asm(venv: &Venv, dir: &Path, group: &str) -> Result<String> {
    let mlir = dir.join(format!("{group}.mlir"));
    let source = std::fs::read_to_string(&mlir).map_err(|e| {
        format!(
            "{}: {e} (needed to list ops of an undecodable function)",
            mlir.display()
        )
    })?;
    let mut args = testcases::compile_flags(&source).map_err(|s| s.to_string())?;
    args.push("--output-format=vm-asm".into());
    args.push(format!("{group}.mlir"));
    let out = proc::run(&venv.iree_compile(), &args, dir, Duration::from_secs(600))?;
    if out.exit_code != 0 {
        return Err(format!(
            "iree-compile --output-format=vm-asm {group}.mlir failed: {}",
            out.stderr
        ));
    }
    Ok(out.stdout)
}

/// The `vm.` op names used in the body of `vm.func @name` in compiler VM IR.
pub fn ops_in_vm_asm_function(text: &str, name: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let header = format!("vm.func @{name}(");
    let header_private = format!("vm.func private @{name}(");
    let mut depth: Option<usize> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match depth {
            None => {
                if trimmed.starts_with(&header) || trimmed.starts_with(&header_private) {
                    depth = Some(line.len() - trimmed.len());
                }
            }
            Some(indent) => {
                if trimmed == "}" && line.len() - trimmed.len() == indent {
                    break;
                }
                let body = match trimmed.split_once(" = ") {
                    Some((lhs, rhs)) if lhs.starts_with('%') => rhs,
                    _ => trimmed,
                };
                if let Some(rest) = body.strip_prefix("vm.") {
                    let op: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
                        .collect();
                    if !op.is_empty() {
                        out.insert(op);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_mnemonics_come_from_the_isa_table() {
        let m = core_mnemonics();
        assert_eq!(m.len(), 136);
        assert_eq!(m[0], "global.load.i32");
        assert_eq!(m[135], "call.variadic.yieldable");
    }

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

    #[test]
    fn finds_ops_in_vm_asm() {
        let text = "module {\n  vm.module public @m {\n    vm.func @g() {\n      vm.return\n    }\n    \
                    vm.func @f(%arg0: i32) -> i32 {\n      %0 = vm.switch.ref %arg0[] else %x : !vm.buffer\n      \
                    vm.return %arg0 : i32\n    }\n  }\n}\n";
        let ops = ops_in_vm_asm_function(text, "f");
        assert_eq!(
            ops.into_iter().collect::<Vec<_>>(),
            vec!["return", "switch.ref"]
        );
        let meta = "  # | Offset | Length | Blocks | i32 # | ref # | Requirements | Aliases\n\
                    ----+---\n  0 | 00000000 |  16 |  1 |  3 |  0 |   | select_i32\n";
        assert_eq!(function_names(meta), vec!["select_i32"]);
    }
}
