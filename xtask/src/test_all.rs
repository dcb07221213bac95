//! `cargo xtask test`: every test of the project, and one summary at the end.
//!
//! The steps are what CI runs after its format and lint gates (`.ci/run`):
//! `cargo test --workspace`, the async serving example, the runtime's
//! `ndarray` feature, the Python package's pytest suite, the loom model
//! checks, and the README's commands against the output it shows. Each
//! step's output streams through as it runs; the summary then gives the
//! test counts and names every test that did not run on this machine with
//! its reason (tests that need `mpirun`, a GPU driver or upstream's tools
//! report themselves as ignored with the reason, `iree-test-support`), so a
//! run on a machine that lacks a component never reads as all green.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Command;

use crate::Result;

/// The steps, in order: (name, what it runs).
const STEPS: [(&str, &str); 6] = [
    ("cargo-test", "cargo test --workspace"),
    (
        "serve-async",
        "cargo run -p iree-runtime --example serve_async",
    ),
    (
        "ndarray",
        "cargo test -p iree-runtime --features ndarray --test sessions",
    ),
    ("python", "bindings/python/test.sh"),
    ("loom", "cargo xtask loom"),
    ("readme", "cargo xtask readme"),
];

/// What one step did.
struct StepOutcome {
    name: &'static str,
    /// `Ok(true)`: passed; `Ok(false)`: failed; `Err(reason)`: not run.
    result: Result<bool>,
}

/// The `cargo xtask test [--skip STEP,...]` command.
pub fn run(args: &[String]) -> Result<bool> {
    let mut skip: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--skip" => skip.extend(
                it.next()
                    .ok_or("--skip needs a list of steps")?
                    .split(',')
                    .map(str::to_string),
            ),
            other => match other.strip_prefix("--skip=") {
                Some(list) => skip.extend(list.split(',').map(str::to_string)),
                None => return Err(format!("unknown option `{other}` (see cargo xtask --help)")),
            },
        }
    }
    if let Some(unknown) = skip.iter().find(|s| !STEPS.iter().any(|(n, _)| n == s)) {
        return Err(format!(
            "--skip: no step `{unknown}` (steps: {})",
            STEPS.map(|(n, _)| n).join(", ")
        ));
    }
    let root = crate::repo_root();
    let mut tally = Tally::default();
    let mut outcomes = Vec::new();
    for (name, what) in STEPS {
        if skip.iter().any(|s| s == name) {
            outcomes.push(StepOutcome {
                name,
                result: Err("skipped with --skip".into()),
            });
            continue;
        }
        eprintln!("\n==> {name}: {what}");
        let result = match name {
            "cargo-test" => cargo_test(&root, &["test", "--workspace"], &mut tally),
            "serve-async" => status(cargo(&root).args([
                "run",
                "-q",
                "-p",
                "iree-runtime",
                "--example",
                "serve_async",
            ])),
            "ndarray" => cargo_test(
                &root,
                &[
                    "test",
                    "-p",
                    "iree-runtime",
                    "--features",
                    "ndarray",
                    "--test",
                    "sessions",
                ],
                &mut tally,
            ),
            "python" => match python_missing() {
                Some(reason) => Err(reason),
                None => streamed(
                    &mut Command::new(root.join("bindings/python/test.sh")),
                    |line| tally.read_pytest_line(line),
                ),
            },
            "loom" => crate::loom(),
            "readme" => crate::readme::run(),
            _ => unreachable!("every step is matched"),
        };
        outcomes.push(StepOutcome { name, result });
    }
    Ok(summarize(&tally, &outcomes))
}

fn cargo(root: &Path) -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(root);
    command
}

fn status(command: &mut Command) -> Result<bool> {
    command
        .status()
        .map(|s| s.success())
        .map_err(|e| format!("running {:?}: {e}", command.get_program()))
}

/// Why the Python step cannot run here, if it cannot.
fn python_missing() -> Option<String> {
    let ok = Command::new("python3")
        .args(["-c", "import sys, venv; assert sys.version_info >= (3, 9)"])
        .output()
        .is_ok_and(|o| o.status.success());
    (!ok).then(|| "needs python3 (>= 3.9) with its venv module".to_string())
}

/// Test counts and the ignored tests, over every test binary a step ran.
#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    ignored: u64,
    binaries: u64,
    /// Ignored tests by reason: (source of the test binary, test name).
    ignored_by_reason: BTreeMap<String, Vec<(String, String)>>,
    /// Test binaries that failed (their source).
    failed_binaries: Vec<String>,
}

/// Runs `cargo <args>` (a `cargo test`), streaming its output, and adds its
/// libtest results to `tally`.
fn cargo_test(root: &Path, args: &[&str], tally: &mut Tally) -> Result<bool> {
    let sources = test_sources(root, args)?;
    let mut current = String::from("?");
    streamed(cargo(root).args(args), |line| {
        tally.read_line(line, &sources, &mut current)
    })
}

/// Runs `command` with its stdout and stderr merged into one stream, echoed
/// line by line and handed to `on_line`; true when it exits successfully.
fn streamed(command: &mut Command, mut on_line: impl FnMut(&str)) -> Result<bool> {
    let program = command.get_program().to_string_lossy().into_owned();
    let (reader, writer) = std::io::pipe().map_err(|e| format!("making a pipe: {e}"))?;
    let stdout = writer
        .try_clone()
        .map_err(|e| format!("making a pipe: {e}"))?;
    let mut child = command
        .stdout(stdout)
        .stderr(writer)
        .spawn()
        .map_err(|e| format!("running {program}: {e}"))?;
    // The command keeps the pipe's write ends open until it is dropped or
    // reconfigured: give it fresh ones so the reader sees the end of the
    // output when the child exits.
    command
        .stdout(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::inherit());
    for line in BufReader::new(reader).lines() {
        let line = line.map_err(|e| format!("reading {program}'s output: {e}"))?;
        println!("{line}");
        on_line(&line);
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for {program}: {e}"))?;
    Ok(status.success())
}

/// The source file of each test executable `cargo <args>` would run, by the
/// executable's file name (building everything first).
fn test_sources(root: &Path, args: &[&str]) -> Result<BTreeMap<String, String>> {
    Ok(crate::proc::build_tests(root, args)?
        .into_iter()
        .map(|test| {
            let source = test.source.strip_prefix(root).unwrap_or(&test.source);
            (file_name(&test.path), source.display().to_string())
        })
        .collect())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Tally {
    /// Reads one line of `cargo test` output. `current` is the source of the
    /// test binary running now (from cargo's `Running` / `Doc-tests` lines).
    fn read_line(&mut self, line: &str, sources: &BTreeMap<String, String>, current: &mut String) {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("Running ") {
            // `Running tests/x.rs (target/debug/deps/x-0123abcd)`
            let executable = rest
                .rsplit_once('(')
                .map(|(_, e)| e.trim_end_matches(')'))
                .unwrap_or(rest);
            let name = file_name(Path::new(executable));
            *current = sources.get(&name).cloned().unwrap_or(name);
        } else if let Some(krate) = trimmed.strip_prefix("Doc-tests ") {
            *current = format!("doc tests of {krate}");
        } else if let Some(result) = line.strip_prefix("test result: ") {
            self.binaries += 1;
            for part in result.split(['.', ';']) {
                let mut words = part.split_whitespace();
                if let (Some(count), Some(what)) = (words.next(), words.next()) {
                    let Ok(count) = count.parse::<u64>() else {
                        continue;
                    };
                    match what {
                        "passed" => self.passed += count,
                        "failed" => self.failed += count,
                        "ignored" => self.ignored += count,
                        _ => {}
                    }
                }
            }
        } else if let Some((name, outcome)) = line
            .strip_prefix("test ")
            .and_then(|rest| rest.split_once(" ... "))
        {
            if let Some(after) = outcome.strip_prefix("ignored") {
                // libtest: `ignored, reason`; libtest-mimic: `ignored (reason)`.
                let reason = after
                    .strip_prefix(", ")
                    .or_else(|| after.strip_prefix(" (").and_then(|r| r.strip_suffix(')')))
                    .unwrap_or("");
                self.ignore(reason, current.clone(), name.trim());
            } else if outcome.starts_with("FAILED") && !self.failed_binaries.contains(current) {
                self.failed_binaries.push(current.clone());
            }
        }
    }

    /// Reads one line of pytest's output (`-q -rs`): its short skip summary
    /// (`SKIPPED [1] tests/x.py:75: reason`) and its final counts
    /// (`170 passed, 2 skipped in 29.67s`).
    fn read_pytest_line(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("SKIPPED [") {
            if let Some((_, rest)) = rest.split_once("] ") {
                // `location: reason`; the location is `file:line`.
                let (location, reason) = match rest.match_indices(": ").next() {
                    Some((i, _)) => (&rest[..i], &rest[i + 2..]),
                    None => (rest, ""),
                };
                self.ignore(reason, format!("bindings/python/{location}"), "pytest");
            }
        } else if line.contains(" passed") && line.contains(" in ") {
            self.binaries += 1;
            for part in line.split(',') {
                let mut words = part.split_whitespace();
                if let (Some(count), Some(what)) = (words.next(), words.next()) {
                    let Ok(count) = count.parse::<u64>() else {
                        continue;
                    };
                    match what {
                        "passed" => self.passed += count,
                        "failed" => self.failed += count,
                        "skipped" => self.ignored += count,
                        _ => {}
                    }
                }
            }
        }
    }

    fn ignore(&mut self, reason: &str, source: String, name: &str) {
        let reason = if reason.is_empty() {
            "(no reason given)"
        } else {
            reason
        };
        self.ignored_by_reason
            .entry(reason.to_string())
            .or_default()
            .push((source, name.to_string()));
    }
}

/// Prints the summary; true when every step that ran passed.
fn summarize(tally: &Tally, outcomes: &[StepOutcome]) -> bool {
    println!("\n==> summary");
    println!(
        "tests: {} passed, {} failed, {} ignored ({} test binaries)",
        tally.passed, tally.failed, tally.ignored, tally.binaries
    );
    for binary in &tally.failed_binaries {
        println!("  failed in {binary}");
    }
    if !tally.ignored_by_reason.is_empty() {
        println!("ignored tests, by reason:");
        for (reason, tests) in &tally.ignored_by_reason {
            println!("  {reason}:");
            for (source, name) in tests {
                println!("    {source}: {name}");
            }
        }
    }
    let mut ok = true;
    for outcome in outcomes {
        let state = match &outcome.result {
            Ok(true) => "passed".to_string(),
            Ok(false) => {
                ok = false;
                "FAILED".to_string()
            }
            Err(reason) => format!("not run: {reason}"),
        };
        println!("step {}: {state}", outcome.name);
    }
    // A step that could not run for want of a component is reported, not
    // failed, like an ignored test; one skipped by `--skip` likewise.
    ok && tally.failed == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignored_tests_are_grouped_by_reason_with_their_binary() {
        let sources = BTreeMap::from([(
            "collectives-0123".to_string(),
            "crates/hal-local/tests/collectives.rs".to_string(),
        )]);
        let mut tally = Tally::default();
        let mut current = String::new();
        for line in [
            "     Running tests/collectives.rs (target/debug/deps/collectives-0123)",
            "test collectives_over_mpi        ... ignored (needs mpirun)",
            "test one_rank_without_a_launcher ... ok",
            "test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out",
            "   Doc-tests iree_base",
            "test crates/base/src/lib.rs - x (line 3) ... ignored",
            "test result: ok. 0 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out",
        ] {
            tally.read_line(line, &sources, &mut current);
        }
        assert_eq!((tally.passed, tally.failed, tally.ignored), (1, 0, 2));
        assert_eq!(tally.binaries, 2);
        assert_eq!(
            tally.ignored_by_reason["needs mpirun"],
            [(
                "crates/hal-local/tests/collectives.rs".to_string(),
                "collectives_over_mpi".to_string()
            )]
        );
        assert_eq!(tally.ignored_by_reason["(no reason given)"].len(), 1);
    }

    #[test]
    fn pytest_skips_and_counts_are_read() {
        let mut tally = Tally::default();
        tally.read_pytest_line("SKIPPED [1] tests/test_collectives.py:75: mpirun not found");
        tally.read_pytest_line("170 passed, 2 skipped in 29.67s");
        assert_eq!((tally.passed, tally.ignored, tally.binaries), (170, 2, 1));
        assert_eq!(
            tally.ignored_by_reason["mpirun not found"],
            [(
                "bindings/python/tests/test_collectives.py:75".to_string(),
                "pytest".to_string()
            )]
        );
    }
}
