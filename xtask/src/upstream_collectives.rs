//! `cargo xtask upstream-collectives-tests --iree-src DIR`: upstream's own
//! collectives tests (`tests/e2e/collectives/collectives_test.py` with its
//! `run_rank.py` and `test_utils.py`, from an iree-org/iree checkout) run
//! against `iree_rust.runtime`, with only the package name of the
//! `iree.runtime` imports swapped. Each test compiles an MLIR program with
//! upstream's compiler (`--target_backend=llvm-cpu`) and runs it on
//! `local-task` as 1, 2 or 4 MPI ranks (`mpirun --oversubscribe ...
//! run_rank.py`, each rank importing mpi4py before our runtime).
//!
//! Nothing of upstream's is kept in this repository: the three files are
//! copied into `target/upstream-collectives/tests/` for each run, next to a
//! small driver of ours that runs every test case and prints one line per
//! test. The venv (`target/upstream-collectives/venv`) holds the pinned
//! `iree-base-compiler`, numpy, mpi4py (built against the installed MPI
//! with `mpicc`) and our wheel, built here.
//!
//! The closing line is `N passed, N failed`; failures whose program the
//! pinned compiler cannot compile (3.13 no longer has the `shard` dialect
//! the `shard.*` tests are written in) are counted as failures and named
//! as such.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::upstream_py::{install_our_wheel, swap_import};
use crate::venv::{ensure_tool_venv, IREE_VERSION};
use crate::{proc, repo_root, Result};

/// What the venv holds besides our wheel.
const REQUIREMENTS: [&str; 6] = [
    "iree-base-compiler==3.13.0",
    "numpy==2.4.6",
    "ml_dtypes==0.6.0",
    "pytest==8.4.2",
    "maturin==1.16.0",
    "mpi4py==4.1.2",
];

/// The test folder inside an iree-org/iree checkout, and its files.
const TESTS_DIR: &str = "tests/e2e/collectives";
const FILES: [&str; 3] = ["collectives_test.py", "run_rank.py", "test_utils.py"];
/// How long the whole run may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(1200);

const USAGE: &str = "usage: cargo xtask upstream-collectives-tests --iree-src DIR [--release] [-v]";

/// Runs every test of `collectives_test.py` (with the module's `args` set as
/// its `__main__` would) and prints `RESULT <id> PASSED|FAILED <reason>`.
const DRIVER: &str = r#"
import os, sys, traceback, unittest
if hasattr(os, "geteuid") and os.geteuid() == 0:
    # Open MPI refuses root unless told; the test's mpirun inherits this.
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
import collectives_test as ct
ct.args, _ = ct.parse_args()

def cases(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from cases(t)
        else:
            yield t

for test in cases(unittest.defaultTestLoader.loadTestsFromModule(ct)):
    result = unittest.TestResult()
    test.run(result)
    problems = result.errors + result.failures
    if not problems and result.wasSuccessful() and result.testsRun == 1:
        print(f"RESULT {test.id()} PASSED", flush=True)
        continue
    text = problems[0][1] if problems else "not run"
    print(text, file=sys.stderr, flush=True)
    if "Dialect `shard' not found" in text:
        reason = "iree-compile has no `shard` dialect"
    elif "CompilerToolError" in text:
        reason = "iree-compile failed"
    elif "CalledProcessError" in text:
        reason = "a rank failed under mpirun"
    else:
        lines = [l for l in text.strip().splitlines() if l.strip()]
        reason = lines[-1].strip()[:160] if lines else "failed"
    print(f"RESULT {test.id()} FAILED {reason}", flush=True)
"#;

/// Options of the command.
struct Options {
    iree_src: PathBuf,
    release: bool,
    verbose: bool,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut iree_src = None;
    let (mut release, mut verbose) = (false, false);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--iree-src" => iree_src = it.next().map(PathBuf::from),
            s if s.starts_with("--iree-src=") => iree_src = Some(PathBuf::from(&s[11..])),
            "--release" => release = true,
            "-v" | "--verbose" => verbose = true,
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    let iree_src = iree_src.ok_or_else(|| format!("--iree-src is required\n{USAGE}"))?;
    for file in FILES {
        if !iree_src.join(TESTS_DIR).join(file).is_file() {
            return Err(format!(
                "{} has no {TESTS_DIR}/{file}: point --iree-src at an iree-org/iree checkout",
                iree_src.display()
            ));
        }
    }
    Ok(Options {
        iree_src,
        release,
        verbose,
    })
}

/// Runs the command; Ok(true) when every test passes.
pub fn run(args: &[String]) -> Result<bool> {
    let options = parse(args)?;
    if Command::new("mpirun").arg("--version").output().is_err() {
        return Err("mpirun not found: install Open MPI (openmpi-bin libopenmpi-dev)".into());
    }
    let root = repo_root();
    let work = root.join("target").join("upstream-collectives");
    // mpi4py builds with mpicc.
    let python = ensure_tool_venv(
        &work.join("venv"),
        &REQUIREMENTS,
        "iree-base-compiler",
        &["mpi4py", "maturin"],
    )?;
    install_our_wheel(&root, &work, &python, options.release)?;

    let tests = work.join("tests");
    let _ = std::fs::remove_dir_all(&tests);
    std::fs::create_dir_all(&tests).map_err(|e| format!("creating {}: {e}", tests.display()))?;
    for file in FILES {
        let from = options.iree_src.join(TESTS_DIR).join(file);
        let text = std::fs::read_to_string(&from)
            .map_err(|e| format!("reading {}: {e}", from.display()))?;
        std::fs::write(tests.join(file), swap_import(&text))
            .map_err(|e| format!("writing {file}: {e}"))?;
    }
    std::fs::write(tests.join("run_all.py"), DRIVER)
        .map_err(|e| format!("writing the driver: {e}"))?;

    eprintln!("xtask: running upstream's collectives tests against iree_rust.runtime (local-task, llvm-cpu)");
    let args: Vec<String> = [
        "run_all.py",
        "--target_backend=llvm-cpu",
        "--driver=local-task",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = proc::run(&python, &args, &tests, RUN_TIMEOUT)?;
    let log = work.join("tests.log");
    std::fs::write(&log, format!("{}{}", out.stdout, out.stderr))
        .map_err(|e| format!("writing the log: {e}"))?;
    if out.timed_out {
        return Err(format!(
            "the tests ran past {RUN_TIMEOUT:?} (log: {})",
            log.display()
        ));
    }
    if options.verbose {
        eprint!("{}", out.stderr);
    }
    let results = parse_results(&out.stdout);
    if results.is_empty() {
        return Err(format!(
            "no test ran (exit code {}; log: {})\n{}",
            out.exit_code,
            log.display(),
            out.stderr
        ));
    }
    Ok(report(&results, &log))
}

/// One test's outcome: its id, whether it passed, and why not.
#[derive(Debug, PartialEq)]
struct TestResult {
    id: String,
    passed: bool,
    reason: String,
}

/// The `RESULT` lines of the driver's output.
fn parse_results(stdout: &str) -> Vec<TestResult> {
    stdout
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("RESULT ")?;
            let mut words = rest.splitn(3, ' ');
            let id = words.next()?.to_string();
            let passed = match words.next()? {
                "PASSED" => true,
                "FAILED" => false,
                _ => return None,
            };
            let reason = words.next().unwrap_or("").to_string();
            Some(TestResult { id, passed, reason })
        })
        .collect()
}

/// Prints each test and the closing counts; true when all passed.
fn report(results: &[TestResult], log: &Path) -> bool {
    for r in results {
        let id = r.id.strip_prefix("collectives_test.").unwrap_or(&r.id);
        if r.passed {
            println!("PASSED {id}");
        } else {
            println!("FAILED {id}: {}", r.reason);
        }
    }
    let passed = results.iter().filter(|r| r.passed).count();
    let failed = results.len() - passed;
    let no_shard = results
        .iter()
        .filter(|r| !r.passed && r.reason.contains("`shard` dialect"))
        .count();
    if no_shard > 0 {
        println!(
            "({no_shard} of the failures are programs iree-compile {IREE_VERSION} cannot compile: \
             it has no `shard` dialect, so they fail on any runtime)"
        );
    }
    println!("log: {}", log.display());
    println!("{passed} passed, {failed} failed");
    failed == 0
}

#[cfg(test)]
mod tests {
    use super::{parse_results, TestResult};

    #[test]
    fn reads_the_driver_lines() {
        let out = "noise\nRESULT collectives_test.TwoRanks.test_a PASSED\n\
                   RESULT collectives_test.FourRanks.test_b FAILED iree-compile has no `shard` dialect\n\
                   RESULT x MAYBE\n";
        assert_eq!(
            parse_results(out),
            vec![
                TestResult {
                    id: "collectives_test.TwoRanks.test_a".into(),
                    passed: true,
                    reason: String::new()
                },
                TestResult {
                    id: "collectives_test.FourRanks.test_b".into(),
                    passed: false,
                    reason: "iree-compile has no `shard` dialect".into()
                },
            ]
        );
    }
}
