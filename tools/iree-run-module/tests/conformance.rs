//! Replays every committed test case under `testdata/` through our
//! `iree-run-module` and compares stdout, exit code and status code with what
//! upstream printed (`testdata/<suite>/expected/`). No compiler or network is
//! needed: the `.vmfb` files and expectations are checked in.

use std::path::{Path, PathBuf};
use std::process::Command;

use iree_tooling::testcases::{
    list_suites, load_suite, missing_requirements, Case, Expectation, RECORDING_HOST,
};
use libtest_mimic::{Arguments, Completion, Failed, Trial};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_case(case: &Case) -> Result<(), Failed> {
    let expected = case
        .load_expectation()
        .map_err(|e| Failed::from(e.to_string()))?;
    let output = Command::new(env!("CARGO_BIN_EXE_iree-run-module"))
        .args(&case.args)
        .current_dir(&case.dir)
        .output()
        .map_err(|e| Failed::from(format!("spawning iree-run-module: {e}")))?;
    let actual = Expectation::from_run(
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    let mismatches = case.mismatches(&expected, &actual);
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(Failed::from(format!(
            "{}\n--- expected stdout:\n{}--- actual stdout:\n{}--- actual stderr:\n{}",
            mismatches.join("\n"),
            expected.stdout,
            actual.stdout,
            actual.stderr
        )))
    }
}

fn main() {
    let args = Arguments::from_args();
    // Cases a suite's `REQUIRES` says this build or machine cannot replay
    // are reported as ignored with the reason; `--ignored` or
    // `--include-ignored` runs them anyway (on the recording host, say).
    let run_ignored = args.ignored || args.include_ignored;
    let mut trials = Vec::new();
    for suite in list_suites(&repo_root().join("testdata")).expect("listing test suites") {
        let missing = missing_requirements(&suite).expect("reading suite requirements");
        let reason = skip_reason(&missing);
        for case in load_suite(&suite).expect("loading test cases") {
            let name = case.id();
            let reason = reason.clone().filter(|_| !run_ignored);
            trials.push(Trial::ignorable_test(name, move || match reason {
                Some(reason) => Ok(Completion::ignored_with(reason)),
                None => run_case(&case).map(|()| Completion::Completed),
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Why a suite with these missing requirements is not replayed here.
fn skip_reason(missing: &[String]) -> Option<String> {
    if missing.is_empty() {
        None
    } else if missing == [RECORDING_HOST] {
        Some(
            "recorded output describes the recording machine (`recording-host`): \
             compared live by `cargo xtask conformance`"
                .to_string(),
        )
    } else {
        Some(format!(
            "needs {}, which this build lacks",
            missing.join(", ")
        ))
    }
}
