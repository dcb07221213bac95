//! `cargo xtask e2e`: compiles the end-to-end check suites of
//! `testdata/e2e/` with the pinned compiler.
//!
//! * `src/<name>.mlir` is built once per CPU format into
//!   `<format>/<name>.vmfb` (formats in [`FORMATS`]); a first line
//!   `// TARGETS: <format> ...` limits it to some formats.
//! * `bad/<name>.mlir` carries its own `// COMPILE: <flags>` header and is
//!   built into `bad/<name>.vmfb` (modules that must fail, each its way).
//!
//! Modules are rebuilt when older than their source (or with `--force`);
//! `cargo test -p iree-check-module` runs them.

use std::fs;
use std::path::Path;
use std::time::Duration;

use iree_tooling::testcases;

use crate::proc;
use crate::testdata::{compile_group, is_stale};
use crate::venv;
use crate::Result;

/// The CPU formats every suite is built for: directory name and the
/// `iree-compile` flags that select it.
pub const FORMATS: &[(&str, &str)] = &[
    (
        "llvm-cpu",
        "--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic",
    ),
    (
        "llvm-cpu-system",
        "--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-llvmcpu-link-embedded=false",
    ),
    (
        "vmvx",
        "--iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx",
    ),
];

/// The header naming the formats a suite is built for.
const TARGETS_HEADER: &str = "// TARGETS:";

/// The formats `source` is built for.
fn targets(source: &str) -> Vec<&str> {
    match source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix(TARGETS_HEADER))
    {
        Some(list) => list.split_whitespace().collect(),
        None => FORMATS.iter().map(|(name, _)| *name).collect(),
    }
}

/// The `cargo xtask e2e [--force]` command.
pub fn run(args: &[String]) -> Result<bool> {
    let force = match args {
        [] => false,
        [flag] if flag == "--force" => true,
        _ => return Err("usage: cargo xtask e2e [--force]".to_string()),
    };
    let root = crate::repo_root();
    let venv = venv::ensure(&root)?;
    let e2e = root.join("testdata").join("e2e");
    let src = e2e.join("src");
    let mut ok = true;
    let mut built = 0;
    for name in testcases::list_stems(&src, "mlir").map_err(|s| s.to_string())? {
        let path = src.join(format!("{name}.mlir"));
        let source =
            fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        for target in targets(&source) {
            let Some((_, flags)) = FORMATS.iter().find(|(f, _)| *f == target) else {
                return Err(format!("{}: unknown target `{target}`", path.display()));
            };
            let out_dir = e2e.join(target);
            fs::create_dir_all(&out_dir)
                .map_err(|e| format!("creating {}: {e}", out_dir.display()))?;
            let vmfb = out_dir.join(format!("{name}.vmfb"));
            if !force && !is_stale(&path, &vmfb) {
                continue;
            }
            match compile(&venv.iree_compile(), flags, &path, &vmfb, &e2e) {
                Ok(()) => built += 1,
                Err(e) => {
                    eprintln!("error: {target}/{name}: {e}");
                    ok = false;
                }
            }
        }
    }
    let bad = e2e.join("bad");
    for name in testcases::list_stems(&bad, "mlir").map_err(|s| s.to_string())? {
        match compile_group(&venv, &bad, &name, force) {
            Ok(true) => built += 1,
            Ok(false) => {}
            Err(e) => {
                eprintln!("error: bad/{name}: {e}");
                ok = false;
            }
        }
    }
    println!("e2e: compiled {built} modules");
    Ok(ok)
}

/// `iree-compile <flags> <source> -o <vmfb>`.
fn compile(compiler: &Path, flags: &str, source: &Path, vmfb: &Path, cwd: &Path) -> Result<()> {
    let mut args = testcases::split_args(flags).map_err(|s| s.to_string())?;
    args.push(source.display().to_string());
    args.push("-o".to_string());
    args.push(vmfb.display().to_string());
    let out = proc::run(compiler, &args, cwd, Duration::from_secs(600))?;
    if out.exit_code != 0 {
        let _ = fs::remove_file(vmfb);
        return Err(format!(
            "iree-compile failed (exit {}):\n{}{}",
            out.exit_code, out.stdout, out.stderr
        ));
    }
    Ok(())
}
