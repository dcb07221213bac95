//! Tooling shared by the command-line tools: scalar parsing and C-compatible
//! printing, function I/O, running a module from flags, and the test-case
//! format of `testdata/`.

pub use iree_base::cformat;
pub mod compare;
pub mod compat_flags;
pub mod flags;
pub mod help;

pub mod numpy;
pub mod profiling;
pub mod replay;
pub mod robustness;
pub mod run;
pub mod scalar;
pub mod testcases;

/// A tool's exit code, after ending the whole MPI job when this process is
/// one failing rank of several (its error is already printed): peers
/// blocked in collectives would otherwise wait for it forever. Codes of
/// success, and processes outside MPI jobs, pass through unchanged.
pub fn finish_distributed(code: u8) -> u8 {
    if code != 0 {
        iree_hal::channel::mpi::abort_job(i32::from(code));
    }
    code
}
