//! `cargo xtask testdata`: compile sources and record upstream's output.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::time::SystemTime;

use iree_tooling::testcases::{self, Case, Expectation, EXPECTED_DIR};

use crate::cli::Options;
use crate::proc;
use crate::venv::{self, Venv};
use crate::Result;

/// Builds `<dir>/<group>.vmfb` from its source when stale (or `force`):
/// `<group>.mlir` with `iree-compile <flags> <group>.mlir -o <group>.vmfb`,
/// or `<group>.vmasm` with `iree-as-module <flags> --output=<group>.vmfb
/// <group>.vmasm`; `<flags>` come from the `// COMPILE:` header line.
/// Returns whether it built.
pub fn compile_group(venv: &Venv, dir: &Path, group: &str, force: bool) -> Result<bool> {
    let mlir = dir.join(format!("{group}.mlir"));
    let vmasm = dir.join(format!("{group}.vmasm"));
    let (src, tool, name) = if mlir.exists() {
        (mlir, venv.iree_compile(), "iree-compile")
    } else {
        (vmasm, venv.iree_as_module(), "iree-as-module")
    };
    let vmfb = dir.join(format!("{group}.vmfb"));
    if !force && !is_stale(&src, &vmfb) {
        return Ok(false);
    }
    let source = fs::read_to_string(&src).map_err(|e| format!("reading {}: {e}", src.display()))?;
    let flags = testcases::compile_flags(&source)
        .map_err(|s| format!("{}: {}", src.display(), s.message()))?;
    let src_name = src
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let mut args = flags;
    if name == "iree-compile" {
        args.push(src_name);
        args.push("-o".to_string());
        args.push(format!("{group}.vmfb"));
    } else {
        args.push(format!("--output={group}.vmfb"));
        args.push(src_name);
    }
    let out = proc::run(&tool, &args, dir, std::time::Duration::from_secs(600))?;
    if out.exit_code != 0 {
        let _ = fs::remove_file(&vmfb);
        return Err(format!(
            "{name} {} failed (exit {}):\n{}{}",
            args.iter()
                .map(|a| proc::shell_quote(a))
                .collect::<Vec<_>>()
                .join(" "),
            out.exit_code,
            out.stdout,
            out.stderr
        ));
    }
    Ok(true)
}

fn mtime(p: &Path) -> Option<SystemTime> {
    fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// Whether `out` is missing or older than `src`.
pub fn is_stale(src: &Path, out: &Path) -> bool {
    match (mtime(src), mtime(out)) {
        (Some(s), Some(o)) => o < s,
        _ => true,
    }
}

/// Runs one case through the upstream tool.
pub fn run_upstream(venv: &Venv, case: &Case, extra: &[String]) -> Result<proc::Output> {
    let mut args = case.args.clone();
    args.extend(extra.iter().cloned());
    proc::run(
        &venv.iree_run_module(),
        &args,
        &case.dir,
        proc::CASE_TIMEOUT,
    )
}

/// A suite's data generator, run with the venv's Python in the suite
/// directory before compiling (`testdata/params` writes its parameter
/// files with it).
const GENERATOR: &str = "generate.py";

/// Runs `<dir>/generate.py` with the venv's Python, handing it upstream's
/// and our (freshly built) `iree-create-parameters`.
fn generate(venv: &Venv, root: &Path, dir: &Path) -> Result<()> {
    let ours = crate::conformance::build_release_tool(root, "iree-create-parameters")?;
    let status = std::process::Command::new(venv.python())
        .arg(GENERATOR)
        .current_dir(dir)
        .env(
            "IREE_CREATE_PARAMETERS_UPSTREAM",
            venv.iree_create_parameters(),
        )
        .env("IREE_CREATE_PARAMETERS_OURS", ours)
        .env("IREE_DUMP_PARAMETERS_UPSTREAM", venv.iree_dump_parameters())
        .env(
            "IREE_CONVERT_PARAMETERS_UPSTREAM",
            venv.runtime_libs.join("iree-convert-parameters"),
        )
        .status()
        .map_err(|e| format!("cannot run {}: {e}", venv.python().display()))?;
    if !status.success() {
        return Err(format!("{}/{GENERATOR} failed ({status})", dir.display()));
    }
    Ok(())
}

/// The `cargo xtask testdata` command.
pub fn run(opts: &Options) -> Result<bool> {
    let root = crate::repo_root();
    let venv = venv::ensure(&root)?;
    let mut ok = true;
    for dir in opts.suite_dirs(&root)? {
        let suite = dir
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        // 0. Generate the suite's data files (parameter files), if it
        //    has a generator.
        if dir.join(GENERATOR).exists() && opts.filter.is_none() {
            generate(&venv, &root, &dir)?;
        }
        // 1. Compile.
        let mut failed_groups = BTreeSet::new();
        let mut compiled = 0;
        let mut sources = testcases::list_stems(&dir, "mlir").map_err(|s| s.to_string())?;
        sources.extend(testcases::list_stems(&dir, "vmasm").map_err(|s| s.to_string())?);
        sources.sort();
        sources.dedup();
        for group in sources {
            if !opts.group_selected(&group) {
                continue;
            }
            match compile_group(&venv, &dir, &group, opts.force) {
                Ok(true) => compiled += 1,
                Ok(false) => {}
                Err(e) => {
                    eprintln!("error: {suite}/{group}: {e}");
                    failed_groups.insert(group);
                    ok = false;
                }
            }
        }
        // 2. Record.
        let all_cases =
            testcases::load_suite(&dir).map_err(|s| format!("loading {}: {s}", dir.display()))?;
        // Skip cases of groups that failed to build, or that load a module
        // of such a group, rather than recording a load failure.
        let uses_failed = |c: &Case| {
            failed_groups.contains(&c.group)
                || c.args.iter().any(|a| {
                    a.strip_prefix("--module=")
                        .and_then(|m| m.strip_suffix(".vmfb"))
                        .is_some_and(|g| failed_groups.contains(g))
                })
        };
        let cases: Vec<&Case> = all_cases
            .iter()
            .filter(|c| opts.case_selected(c) && !uses_failed(c))
            .collect();
        let results = proc::par_map(&cases, opts.jobs, |c| run_upstream(&venv, c, &[]));
        let (mut written, mut unchanged) = (0, 0);
        for (case, result) in cases.iter().zip(results) {
            let out = match result {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("error: {}: {e}", case.id());
                    ok = false;
                    continue;
                }
            };
            if out.timed_out || out.signal.is_some() {
                eprintln!(
                    "error: {}: upstream {} — not recorded; such a case cannot be compared \
                     (remove it from {}.cases){}",
                    case.id(),
                    if out.timed_out {
                        "timed out".to_string()
                    } else {
                        format!("died with signal {}", out.signal.unwrap_or(0))
                    },
                    case.group,
                    if out.stderr.is_empty() {
                        String::new()
                    } else {
                        format!("\n{}", out.stderr)
                    }
                );
                ok = false;
                continue;
            }
            let exp = Expectation::from_run(out.exit_code, out.stdout, out.stderr);
            let path = case.expected_path();
            let text = exp.render();
            if fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
                unchanged += 1;
                continue;
            }
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)
                    .map_err(|e| format!("creating {}: {e}", parent.display()))?;
            }
            fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
            written += 1;
        }
        // 3. Remove stale expectations (only within the selection; a
        //    `--filter` run touches nothing it did not run).
        let removed = if opts.filter.is_none() {
            remove_stale(&dir, &all_cases, opts)?
        } else {
            0
        };
        if compiled > 0 || !cases.is_empty() || removed > 0 || !failed_groups.is_empty() {
            println!(
                "{suite}: compiled {compiled}, {} cases: {written} written, {unchanged} unchanged, \
                 {removed} stale removed",
                cases.len()
            );
        }
    }
    Ok(ok)
}

fn remove_stale(dir: &Path, cases: &[Case], opts: &Options) -> Result<usize> {
    let expected = dir.join(EXPECTED_DIR);
    if !expected.is_dir() {
        return Ok(0);
    }
    let wanted: BTreeSet<(String, String)> = cases
        .iter()
        .map(|c| (c.group.clone(), c.name.clone()))
        .collect();
    let groups: BTreeSet<&str> = cases.iter().map(|c| c.group.as_str()).collect();
    let mut removed = 0;
    let entries = fs::read_dir(&expected).map_err(|e| format!("{}: {e}", expected.display()))?;
    for entry in entries.flatten() {
        let gpath = entry.path();
        let Some(group) = gpath.file_name().and_then(|s| s.to_str()).map(String::from) else {
            continue;
        };
        if !opts.group_selected(&group) || !gpath.is_dir() {
            continue;
        }
        if !groups.contains(group.as_str()) {
            let n = fs::read_dir(&gpath).map(|d| d.count()).unwrap_or(0);
            fs::remove_dir_all(&gpath).map_err(|e| format!("removing {}: {e}", gpath.display()))?;
            removed += n;
            continue;
        }
        for f in fs::read_dir(&gpath)
            .map_err(|e| format!("{}: {e}", gpath.display()))?
            .flatten()
        {
            let fpath = f.path();
            let name = fpath
                .file_name()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let keep = name
                .strip_suffix(".txt")
                .is_some_and(|n| wanted.contains(&(group.clone(), n.to_string())));
            if !keep {
                fs::remove_file(&fpath)
                    .map_err(|e| format!("removing {}: {e}", fpath.display()))?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}
