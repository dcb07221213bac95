//! `iree-run-module`: runs one exported function of an IREE module and prints
//! its results, accepting upstream's flags and printing upstream's output.

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;
use iree_tooling::compare::Equality;
use iree_tooling::flags::{parse_args, ModuleFlags};
use iree_tooling::run::{run, RunOptions};

/// Command-line flags, spelled as upstream spells them (`--flag=value`).
#[derive(Parser, Debug)]
#[command(
    name = "iree-run-module",
    about = "Runs a function within a compiled IREE module and handles I/O parsing and processing."
)]
struct Flags {
    #[command(flatten)]
    common: ModuleFlags,
    /// Name of the function to run; empty picks the single export.
    #[arg(long = "function", default_value = "")]
    function: String,
    /// An input value or buffer, once per argument in order.
    #[arg(long = "input", allow_hyphen_values = true)]
    input: Vec<OsString>,
    /// Where each result goes: empty skips it, `-` prints it bare.
    #[arg(long = "output", allow_hyphen_values = true)]
    output: Vec<OsString>,
    /// Elide printed tensors after this many elements in total.
    #[arg(long = "output_max_element_count", default_value_t = 1024)]
    output_max_element_count: usize,
    /// An expected result, in `--input=` form; `(ignored)` skips one. When
    /// given, results are compared instead of printed.
    #[arg(long = "expected_output", allow_hyphen_values = true)]
    expected_output: Vec<OsString>,
    /// `approximate` (default) or `exact` (byte equality) comparison.
    #[arg(long = "equality_mode", default_value = "approximate")]
    equality_mode: String,
    /// Absolute tolerance for f16 in approximate mode.
    #[arg(
        long = "expected_f16_threshold",
        default_value_t = 0.001,
        allow_hyphen_values = true
    )]
    expected_f16_threshold: f32,
    /// Absolute tolerance for f32 in approximate mode.
    #[arg(
        long = "expected_f32_threshold",
        default_value_t = 0.0001,
        allow_hyphen_values = true
    )]
    expected_f32_threshold: f32,
    /// Absolute tolerance for f64 in approximate mode.
    #[arg(
        long = "expected_f64_threshold",
        default_value_t = 0.0001,
        allow_hyphen_values = true
    )]
    expected_f64_threshold: f64,
    /// Absolute tolerance for bf16 in approximate mode.
    #[arg(
        long = "expected_bf16_threshold",
        default_value_t = 0.01,
        allow_hyphen_values = true
    )]
    expected_bf16_threshold: f32,
    /// Relative tolerance shared across float types in approximate mode.
    #[arg(
        long = "expected_rtol",
        default_value_t = 1e-5,
        allow_hyphen_values = true
    )]
    expected_rtol: f64,
}

/// Runs `iree-run-module` with the command line `args` (the program name
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
    let common = match flags.common.into_run_options() {
        Ok(options) => options,
        Err(code) => return code,
    };
    let options = RunOptions {
        function: flags.function,
        inputs: flags.input,
        output_max_element_count: flags.output_max_element_count,
        outputs: flags.output,
        expected_outputs: flags.expected_output,
        equality: Equality {
            exact: flags.equality_mode == "exact",
            f16_atol: flags.expected_f16_threshold,
            bf16_atol: flags.expected_bf16_threshold,
            f32_atol: flags.expected_f32_threshold,
            f64_atol: flags.expected_f64_threshold,
            rtol: flags.expected_rtol,
        },
        ..common
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run(&options, &mut out) {
        Ok(code) => {
            let _ = out.flush();
            code as u8
        }
        Err(status) => {
            let _ = out.flush();
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{status}");
            let _ = err.flush();
            1
        }
    }
}
