//! The one way every exported function crosses from C into Rust: a panic
//! never unwinds into the caller's frames. Functions that return a status
//! turn it into INTERNAL ([`status`], [`forward`]); the others return a
//! safe default ([`value`]).
//!
//! Every exported function runs its body through one of them, except those
//! whose bodies cannot panic: `*_retain` (a count increment, which aborts
//! rather than panics on overflow), initializers and `*_default`/`_null`
//! constructors that only fill a plain struct, accessors that only copy a
//! field of a struct the caller passed, `iree_status_abort` (which never
//! returns) and the empty `iree_vm_instance_unregister_type`.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use iree_base::{Result, Status, StatusCode};

use crate::status::{iree_status_t, IntoCStatus};

/// The text of a panic payload.
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "(no message)"
    }
}

/// The status a caught panic in `function` becomes.
#[cold]
pub(crate) fn panic_status(function: &str, payload: &(dyn Any + Send)) -> Status {
    Status::new(
        StatusCode::Internal,
        format!(
            "panic in {function}: {}; the call did not complete",
            panic_message(payload)
        ),
    )
}

/// Runs the body of exported function `function`, returning its result as
/// a C status; a panic becomes INTERNAL.
#[inline]
pub(crate) fn status(function: &str, body: impl FnOnce() -> Result<()>) -> iree_status_t {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result.into_c_status(),
        Err(payload) => Err::<(), _>(panic_status(function, &*payload)).into_c_status(),
    }
}

/// Runs the body of exported function `function` that makes its C status
/// itself (functions forwarding to others, or handing statuses on); a
/// panic becomes INTERNAL.
#[inline]
pub(crate) fn forward(function: &str, body: impl FnOnce() -> iree_status_t) -> iree_status_t {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(status) => status,
        Err(payload) => Err::<(), _>(panic_status(function, &*payload)).into_c_status(),
    }
}

/// Runs the body of exported function `function`, returning `fallback` if
/// it panics (functions without a status to report through).
#[inline]
pub(crate) fn value<T>(function: &str, fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            let status = panic_status(function, &*payload);
            eprintln!("{status}");
            fallback
        }
    }
}
