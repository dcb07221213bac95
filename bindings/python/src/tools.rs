//! The project's command-line tools, run in this process: the wheel's
//! console scripts (`iree-run-module`, ... as upstream's wheel names them)
//! and `iree_rust.runtime.benchmark` call them through `_run_tool`, so the
//! wheel ships one native library rather than a binary per tool.

use std::ffi::OsString;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A tool's entry: the command line (program name first) to exit status.
type ToolMain = fn(Vec<OsString>) -> u8;

/// Every tool the package runs, by its executable name: the one table of
/// them (`[project.scripts]` in `pyproject.toml` names their scripts).
const TOOLS: &[(&str, ToolMain)] = &[
    ("iree-benchmark-executable", |args| {
        iree_benchmark_executable::main_with_args(args)
    }),
    ("iree-benchmark-module", |args| {
        iree_benchmark_module::main_with_args(args)
    }),
    ("iree-benchmark-replay", |args| {
        iree_benchmark_replay::main_with_args(args)
    }),
    ("iree-check-module", |args| {
        iree_check_module::main_with_args(args)
    }),
    ("iree-convert-parameters", |args| {
        iree_convert_parameters::main_with_args(args)
    }),
    ("iree-cpuinfo", |args| iree_cpuinfo::main_with_args(args)),
    ("iree-create-parameters", |args| {
        iree_create_parameters::main_with_args(args)
    }),
    ("iree-dump-module", |args| {
        iree_dump_module::main_with_args(args)
    }),
    ("iree-dump-parameters", |args| {
        iree_dump_parameters::main_with_args(args)
    }),
    ("iree-dump-replay", |args| {
        iree_dump_replay::main_with_args(args)
    }),
    ("iree-run-module", |args| {
        iree_run_module::main_with_args(args)
    }),
    ("iree-run-replay", |args| {
        iree_run_replay::main_with_args(args)
    }),
];

/// The exit status of a tool that panicked, as a Rust program's.
const PANIC_EXIT_STATUS: u8 = 101;

/// Adds `_tool_names` and `_run_tool` to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_tool_names, m)?)?;
    m.add_function(wrap_pyfunction!(_run_tool, m)?)?;
    Ok(())
}

/// The names of the tools `_run_tool` runs, sorted.
#[pyfunction]
fn _tool_names() -> Vec<&'static str> {
    TOOLS.iter().map(|(name, _)| *name).collect()
}

/// Runs tool `name` with the arguments `args` (after the program name,
/// which is `name`, so `--help` reads as the executable's) with the GIL
/// released, and returns its exit status. The tool writes to this
/// process's stdout and stderr (flushed before returning; the caller
/// flushes Python's own streams first). A panic is reported on stderr and
/// gives status 101, as it would in the executable. ValueError for an
/// unknown tool.
#[pyfunction]
fn _run_tool(py: Python<'_>, name: &str, args: Vec<OsString>) -> PyResult<u8> {
    let Some((name, main)) = TOOLS.iter().find(|(tool, _)| *tool == name) else {
        let names = _tool_names().join(", ");
        return Err(PyValueError::new_err(format!(
            "unknown tool '{name}' (expected one of: {names})"
        )));
    };
    let argv = std::iter::once(OsString::from(name)).chain(args).collect();
    Ok(py.allow_threads(move || {
        let status = catch_unwind(AssertUnwindSafe(|| main(argv))).unwrap_or(PANIC_EXIT_STATUS);
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        status
    }))
}
