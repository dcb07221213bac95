//! What both sides of the ABI (and host extensions) share: carrying
//! statuses through [`StatusSink`]s and keeping panics from unwinding across
//! the boundary.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use iree_base::{Result, Status, StatusCode};

use crate::abi::{StatusSink, StringView, STATUS_OK};

/// What a [`StatusSink`] made by [`call_with_status`] recorded.
#[derive(Default)]
struct StatusSlot {
    reported: Option<(u32, String)>,
}

unsafe extern "C" fn record_status(context: *mut c_void, code: u32, message: StringView) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `context` is the `StatusSlot` that `call_with_status`
        // lent to this sink for the duration of the call.
        let slot = unsafe { &mut *(context as *mut StatusSlot) };
        if slot.reported.is_none() {
            // SAFETY: the ABI requires `message` to be valid for this call.
            slot.reported = Some((code, unsafe { message.to_string_lossy() }));
        }
    }));
}

/// Calls `f` with a status sink and turns its returned code (and any
/// message it reported) into a [`Result`]. `what` describes the call for a
/// failure that came without a message.
pub fn call_with_status(
    what: impl FnOnce() -> String,
    f: impl FnOnce(*const StatusSink) -> u32,
) -> Result<()> {
    let mut slot = StatusSlot::default();
    let sink = StatusSink {
        context: &mut slot as *mut StatusSlot as *mut c_void,
        set: record_status,
    };
    let code = f(&sink);
    if code == STATUS_OK {
        return Ok(());
    }
    let message = match slot.reported {
        Some((_, message)) if !message.is_empty() => message,
        _ => format!("{} failed", what()),
    };
    Err(Status::new(StatusCode::from_raw(code), message))
}

/// Reports `status` through `sink` (when not null) and returns its code.
///
/// # Safety
/// `sink` must be null or a valid [`StatusSink`].
pub unsafe fn report(sink: *const StatusSink, status: &Status) -> u32 {
    let code = match status.code().raw() {
        STATUS_OK => StatusCode::Internal.raw(),
        code => code,
    };
    let mut message = status.message().to_string();
    for annotation in status.annotations() {
        message.push_str("; ");
        message.push_str(annotation);
    }
    if !sink.is_null() {
        // SAFETY: the caller guarantees a valid sink.
        let sink = unsafe { &*sink };
        // SAFETY: the sink's function is called as the ABI specifies, with a
        // message that outlives the call.
        unsafe { (sink.set)(sink.context, code, StringView::new(&message)) };
    }
    code
}

/// Runs `f` at an ABI boundary: its error, or a panic (as INTERNAL), is
/// reported through `sink` and returned as a code.
///
/// # Safety
/// `sink` must be null or a valid [`StatusSink`].
pub unsafe fn guard(sink: *const StatusSink, f: impl FnOnce() -> Result<()>) -> u32 {
    let status = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return STATUS_OK,
        Ok(Err(status)) => status,
        Err(panic) => Status::new(
            StatusCode::Internal,
            format!("panicked: {}", panic_message(&*panic)),
        ),
    };
    // SAFETY: forwarded from the caller.
    unsafe { report(sink, &status) }
}

/// The text of a panic payload.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// The text a [`StringView`] from the other side holds.
///
/// # Safety
/// As [`StringView::to_string_lossy`].
pub unsafe fn text(view: StringView) -> String {
    // SAFETY: forwarded from the caller.
    unsafe { view.to_string_lossy() }
}
