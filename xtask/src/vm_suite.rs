//! `cargo xtask vm-suite DIR`: upstream's VM test suite
//! (`runtime/src/iree/vm/test/*.vmasm` of an iree-org/iree checkout) run in
//! process as upstream's `bytecode_module_test.cc` runs it.
//!
//! Each `DIR/*.vmasm` is assembled with the pinned `iree-as-module` into
//! `target/vm-suite/`; every export of every module is called in a fresh
//! context holding the `yieldable_test` module
//! ([`iree_vm::testing::yieldable_test_module`]) and the module, resumed
//! until it completes (at most 10,000 resumes, as upstream). Exports named
//! `fail_*` must fail, every other export must succeed. Nothing is skipped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use iree_vm::testing::yieldable_test_module;
use iree_vm::{CallStatus, Context, Instance, Module, Stack};
use iree_vm_bytecode::BytecodeModule;

use crate::proc;
use crate::venv;
use crate::Result;

/// Upstream's limit on resumes of one test call (`test_runner.h`).
const MAX_RESUMES: usize = 10_000;

/// Runs the suite in the directory given as the one argument; returns
/// whether every case passed.
pub fn run(args: &[String]) -> Result<bool> {
    let mut verbose = false;
    let mut dir = None;
    for arg in args {
        match arg.as_str() {
            "-v" | "--verbose" => verbose = true,
            a if !a.starts_with('-') && dir.is_none() => dir = Some(PathBuf::from(a)),
            other => return Err(format!("vm-suite: unexpected argument '{other}'")),
        }
    }
    let dir =
        dir.ok_or("usage: cargo xtask vm-suite DIR (DIR holding upstream's vm/test/*.vmasm)")?;
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("reading {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "vmasm"))
        .collect();
    sources.sort();
    if sources.is_empty() {
        return Err(format!("no .vmasm files in {}", dir.display()));
    }
    let venv = venv::ensure(&crate::repo_root())?;
    let out_dir = crate::repo_root().join("target").join("vm-suite");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let (mut passed, mut failed) = (0usize, 0usize);
    for src in &sources {
        let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("module");
        let vmfb = out_dir.join(format!("{stem}.vmfb"));
        let src_abs = std::fs::canonicalize(src).map_err(|e| format!("{}: {e}", src.display()))?;
        let args = vec![
            format!("--output={}", vmfb.display()),
            src_abs.display().to_string(),
        ];
        let out = proc::run(
            &venv.iree_as_module(),
            &args,
            &out_dir,
            std::time::Duration::from_secs(120),
        )?;
        if out.exit_code != 0 {
            return Err(format!(
                "iree-as-module {} failed:\n{}{}",
                src.display(),
                out.stdout,
                out.stderr
            ));
        }
        for (name, outcome) in run_module(&vmfb) {
            match outcome {
                Ok(()) => {
                    passed += 1;
                    if verbose {
                        println!("PASS {stem}.{name}");
                    }
                }
                Err(e) => {
                    failed += 1;
                    println!("FAIL {stem}.{name}: {e}");
                }
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

/// Runs every export of the module at `vmfb`; one entry per export (or one
/// entry named `<load>` when the module does not load).
pub fn run_module(vmfb: &Path) -> Vec<(String, Result<()>)> {
    let loaded = std::fs::read(vmfb)
        .map_err(|e| format!("{}: {e}", vmfb.display()))
        .and_then(|bytes| {
            BytecodeModule::from_vec(&Instance::new(), bytes).map_err(|e| e.to_string())
        });
    let module = match loaded {
        Ok(m) => m,
        Err(e) => return vec![("<load>".into(), Err(e))],
    };
    let names: Vec<String> = module.exports().iter().map(|e| e.name.clone()).collect();
    names
        .into_iter()
        .map(|name| {
            let expect_failure = name.starts_with("fail_");
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_export(&module, &name)
            }))
            .unwrap_or_else(|_| Err("panicked".into()));
            let outcome = match (outcome, expect_failure) {
                (Ok(()), false) | (Err(_), true) => Ok(()),
                (Ok(()), true) => Err("expected failure but succeeded".into()),
                (Err(e), false) => Err(e),
            };
            (name, outcome)
        })
        .collect()
}

/// Calls export `name` of `module` in a fresh context, as upstream's test
/// runner does.
fn run_export(module: &Arc<BytecodeModule>, name: &str) -> Result<()> {
    let context = Context::with_modules(
        Instance::new(),
        [
            yieldable_test_module() as Arc<dyn Module>,
            module.clone() as Arc<dyn Module>,
        ],
    )
    .map_err(|e| e.to_string())?;
    let function = context
        .lookup_function(&format!("{}.{name}", module.name()))
        .map_err(|e| e.to_string())?;
    let mut stack = Stack::new();
    let mut results = Vec::new();
    let mut args = Vec::new();
    let mut status = function
        .instance()
        .call(&mut stack, function.ordinal(), &mut args, &mut results)
        .map_err(|e| e.to_string())?;
    let mut resumes = 0;
    while status == CallStatus::Deferred {
        resumes += 1;
        if resumes > MAX_RESUMES {
            return Err(format!("resume limit ({MAX_RESUMES}) exceeded"));
        }
        status = function
            .instance()
            .resume(&mut stack, &mut results)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}
