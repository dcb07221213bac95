//! `iree-check-module`: runs each exported function of the last module as a
//! test, with the `check` module providing the `check.expect_*` imports
//! compiled tests call; prints gtest's report (`[ RUN      ]`,
//! `[       OK ]`, `[  FAILED  ]`, a summary) and exits non-zero iff a test
//! failed. Takes every module and device flag of `iree-run-module`.

mod filter;
mod runner;

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;
use iree_tooling::flags::{parse_args, ModuleFlags};

use crate::filter::TestFilter;
use crate::runner::{run_tests, CheckOptions};

/// Command-line flags, spelled as upstream spells them (`--flag=value`).
#[derive(Parser, Debug)]
#[command(
    name = "iree-check-module",
    about = "Runs each exported function of a compiled IREE test module as a test, checking its check.expect_* calls."
)]
struct Flags {
    #[command(flatten)]
    common: ModuleFlags,
    /// Whether the module is expected to fail: a failing run then exits 0
    /// ("Test failed as expected") and a passing one 1.
    #[arg(long = "expect_failure", num_args = 0..=1, default_missing_value = "true")]
    expect_failure: Option<String>,
    /// Runs only the tests (`module.function`) matching these `:`-separated
    /// `*`/`?` patterns, minus those after a `-`.
    #[arg(long = "gtest_filter", default_value = "*", allow_hyphen_values = true)]
    gtest_filter: String,
    /// Lists the tests (after `--gtest_filter`) instead of running them.
    #[arg(long = "gtest_list_tests")]
    gtest_list_tests: bool,
}

/// Runs `iree-check-module` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
/// Output goes to this process's stdout and stderr; a caller that keeps
/// running afterwards flushes stdout (as the process exit would).
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_tooling::finish_distributed(main_inner(args))
}

/// The tool, without the MPI job's ending on failure.
fn main_inner(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    let flags: Flags = match parse_args(args) {
        Ok(flags) => flags,
        Err(code) => return code,
    };
    let options = match flags.common.into_run_options() {
        Ok(options) => options,
        Err(code) => return code,
    };
    let check = CheckOptions {
        filter: TestFilter::parse(&flags.gtest_filter),
        list_only: flags.gtest_list_tests,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let passed = match run_tests(&options, &check, &mut out) {
        Ok(passed) => passed,
        Err(status) => {
            let _ = out.flush();
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{status}");
            let _ = err.flush();
            false
        }
    };
    let _ = out.flush();
    let expect_failure = flags
        .expect_failure
        .as_deref()
        .is_some_and(|v| v != "false" && v != "0");
    if expect_failure {
        if passed {
            println!("Test passed but expected failure");
            return 1;
        }
        println!("Test failed as expected");
        return 0;
    }
    if passed {
        0
    } else {
        1
    }
}
