//! Foundation types shared by every crate of the runtime: status codes and
//! errors carrying context, in the form upstream IREE prints them.
//!
//! Errors are values: every fallible operation returns [`Result<T>`], whose
//! error is a [`Status`] holding an IREE [`StatusCode`], a message, the source
//! location that raised it and a chain of annotations added while it
//! propagated (`CODE; message; annotation; annotation`).
//!
//! [`cformat`] formats floating-point numbers exactly as upstream's own
//! `printf` does (`%g`, `%G`, `%e`, `%f`).

pub mod bytes;
pub mod cformat;
pub mod cnumber;
pub mod flagfile;
pub mod json;
pub mod os_args;
pub mod progress;
mod status;
pub mod sync;
#[cfg(feature = "tool-setup")]
pub mod tool_setup;

pub use status::{Result, ResultExt, Status, StatusCode};
