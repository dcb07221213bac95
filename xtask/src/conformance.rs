//! `cargo xtask conformance`: our `iree-run-module` against upstream's.

use std::path::{Path, PathBuf};
use std::process::Command;

use iree_tooling::testcases::{Case, Expectation};

use crate::cli::{Options, Selection};
use crate::diff::line_diff;
use crate::proc;
use crate::venv;
use crate::Result;

/// The environment variable that names the binary to test instead of
/// building `target/release/iree-run-module`.
pub const OVERRIDE_ENV: &str = "IREE_RS_RUN_MODULE";

/// Finds (building if needed) the binary under test.
pub fn our_binary(root: &Path) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(OVERRIDE_ENV) {
        let p = PathBuf::from(p);
        if !p.exists() {
            return Err(format!("{OVERRIDE_ENV}={} does not exist", p.display()));
        }
        return p
            .canonicalize()
            .map_err(|e| format!("{OVERRIDE_ENV}={}: {e}", p.display()));
    }
    build_release_tool(root, "iree-run-module")
}

/// Cargo's target directory (`$CARGO_TARGET_DIR`, relative to `root`, or
/// `root/target`).
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"))
}

/// Builds one of our tools in release mode and returns its path.
pub fn build_release_tool(root: &Path, package: &str) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args(["build", "--release", "-p", package])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo build --release -p {package} failed ({status})"
        ));
    }
    let bin = target_dir(root).join("release").join(package);
    if !bin.exists() {
        return Err(format!("{} was not built", bin.display()));
    }
    Ok(bin)
}

/// A run's output as the expectation it is compared with (a timeout is
/// status `TIMEOUT`).
pub(crate) fn to_expectation(out: proc::Output) -> Expectation {
    let mut e = Expectation::from_run(out.exit_code, out.stdout, out.stderr);
    if out.timed_out {
        e.status = "TIMEOUT".to_string();
    }
    e
}

struct Outcome {
    failures: Vec<String>,
    warnings: Vec<String>,
}

/// The `cargo xtask conformance` command.
pub fn run(opts: &Options) -> Result<bool> {
    let root = crate::repo_root();
    let Selection { mut cases, ignored } = opts.cases(&root)?;
    if opts.device.is_some() {
        // `--device D` replaces the cases' own devices: both tools use the
        // first `--device=`, so appending alone would not change anything
        // for a case that names one.
        for case in &mut cases {
            case.args.retain(|a| !a.starts_with("--device="));
        }
    }
    let venv = if opts.recorded {
        None
    } else {
        Some(venv::ensure(&root)?)
    };
    let ours = our_binary(&root)?;
    let extra: Vec<String> = opts
        .device
        .iter()
        .map(|d| format!("--device={d}"))
        .collect();
    eprintln!(
        "conformance: {} cases; ours: {}; upstream: {}",
        cases.len(),
        ours.display(),
        match &venv {
            Some(v) => v.iree_run_module().display().to_string(),
            None => "recorded expected/ files".to_string(),
        }
    );
    let outcomes = proc::par_map(&cases, opts.jobs, |case| {
        check_case(case, &ours, venv.as_ref(), &extra)
    });
    let (mut passed, mut failed) = (0usize, 0usize);
    for (case, outcome) in cases.iter().zip(outcomes) {
        for w in &outcome.warnings {
            eprintln!("warning: {}: {w}", case.id());
        }
        if outcome.failures.is_empty() {
            passed += 1;
            if opts.verbose {
                println!("PASS {}", case.id());
            }
        } else {
            failed += 1;
            println!("FAIL {}", case.id());
            let mut args = case.args.clone();
            args.extend(extra.iter().cloned());
            println!(
                "  (cd {} && iree-run-module {})",
                case.dir.strip_prefix(&root).unwrap_or(&case.dir).display(),
                args.iter()
                    .map(|a| proc::shell_quote(a))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            for f in &outcome.failures {
                for line in f.lines() {
                    println!("  {line}");
                }
            }
        }
    }
    if !ignored.is_empty() {
        println!(
            "ignored {} host-specific cases (recorded on another machine; compared only live, \
             without --recorded):",
            ignored.len()
        );
        for case in &ignored {
            println!("  {}", case.id());
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

fn check_case(case: &Case, ours: &Path, venv: Option<&venv::Venv>, extra: &[String]) -> Outcome {
    let mut outcome = Outcome {
        failures: Vec::new(),
        warnings: Vec::new(),
    };
    let recorded = case.load_expectation();
    let expected = match venv {
        Some(v) => match crate::testdata::run_upstream(v, case, extra) {
            Ok(out) => {
                let live = to_expectation(out);
                // The recorded file is meaningful only for the plain arguments.
                if extra.is_empty() {
                    match &recorded {
                        Ok(r) if !r.mismatches(&live).is_empty() => outcome.warnings.push(
                            "upstream's output differs from the recorded expectation \
                             (rerun `cargo xtask testdata`)"
                                .to_string(),
                        ),
                        Err(_) => outcome.warnings.push(
                            "no recorded expectation (run `cargo xtask testdata`)".to_string(),
                        ),
                        _ => {}
                    }
                }
                live
            }
            Err(e) => {
                outcome.failures.push(format!("running upstream: {e}"));
                return outcome;
            }
        },
        None => match recorded {
            Ok(r) => r,
            Err(e) => {
                outcome.failures.push(format!("no usable expectation: {e}"));
                return outcome;
            }
        },
    };
    let mut args = case.args.clone();
    args.extend(extra.iter().cloned());
    let actual = match proc::run(ours, &args, &case.dir, proc::CASE_TIMEOUT) {
        Ok(out) => to_expectation(out),
        Err(e) => {
            outcome.failures.push(format!("running ours: {e}"));
            return outcome;
        }
    };
    for m in case.mismatches(&expected, &actual) {
        // The stdout mismatch is shown as a diff below.
        if m != "stdout differs" {
            outcome.failures.push(m);
        }
    }
    if expected.stdout != actual.stdout {
        let d = line_diff(&expected.stdout, &actual.stdout, 30);
        outcome.failures.push(format!(
            "stdout diff (- upstream, + ours):\n{}",
            d.join("\n")
        ));
    }
    if !outcome.failures.is_empty() && expected.stderr != actual.stderr {
        outcome.failures.push(format!(
            "stderr (informational):\n  upstream: {}\n  ours:     {}",
            first_lines(&expected.stderr, 3),
            first_lines(&actual.stderr, 3)
        ));
    }
    outcome
}

fn first_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().take(n).collect();
    let mut out = lines.join("\n            ");
    if s.lines().count() > n {
        out.push_str(" ...");
    }
    if out.is_empty() {
        out.push_str("(empty)");
    }
    out
}
