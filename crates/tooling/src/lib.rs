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
pub mod run;
pub mod scalar;
pub mod testcases;
