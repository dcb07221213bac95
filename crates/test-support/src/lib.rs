//! A test harness for tests that need a component the machine may lack
//! (Open MPI's `mpirun`, a GPU driver library, upstream's tools).
//!
//! Such a test returns [`Skip`] with the reason when the component is
//! missing. The harness (libtest-mimic, with libtest's flags and output)
//! then reports it as *ignored, with the reason*, on its own line and in the
//! summary count, so a run on a machine without the component never reads
//! as all green while half of it did not run:
//!
//! ```text
//! test collectives_over_mpi ... ignored (needs mpirun (Open MPI), not found on PATH: install openmpi-bin libopenmpi-dev)
//! test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out
//! ```
//!
//! A test file using it sets `harness = false` for its `[[test]]` and ends
//! in `fn main() -> ExitCode { iree_test_support::run(vec![...]) }`.

use std::process::{Command, ExitCode, Stdio};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// Why a test could not run on this machine: the component it needs and how
/// to get it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip(pub String);

/// What a test body returns: `Ok(())` when it ran (failures panic, as in any
/// test), `Err(Skip)` when a component it needs is missing.
pub type TestResult = Result<(), Skip>;

/// One test: its name (as `cargo test` filters and prints it) and its body.
pub fn test(name: &str, body: fn() -> TestResult) -> Trial {
    Trial::ignorable_test(name, move || -> Result<Completion, Failed> {
        Ok(match body() {
            Ok(()) => Completion::Completed,
            Err(Skip(reason)) => Completion::ignored_with(reason),
        })
    })
}

/// Runs `trials` with libtest's command-line flags (`--exact`,
/// `--nocapture`, `--test-threads`, filters) and returns the exit code.
pub fn run(trials: Vec<Trial>) -> ExitCode {
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// `Ok` when Open MPI's `mpirun` is on `PATH` (what the collectives tests
/// launch their ranks with).
pub fn require_mpirun() -> TestResult {
    let found = Command::new("mpirun")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        Ok(())
    } else {
        Err(Skip(
            "needs mpirun (Open MPI), not found on PATH: install openmpi-bin libopenmpi-dev"
                .to_string(),
        ))
    }
}
