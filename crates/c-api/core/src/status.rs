//! `iree_status_t`: a pointer-sized value whose low 5 bits hold the code.
//! Zero is OK; a code with no other bits set is a code-only status (what
//! `iree_status_from_code` makes in user code, no storage); otherwise the
//! rest points at a 32-byte aligned `StatusStorage` owning an
//! [`iree_base::Status`], so messages and annotations print exactly as the
//! runtime's own statuses do (`file:line: CODE; message; annotation`).

use std::cell::OnceCell;
use std::collections::HashSet;
use std::ffi::{c_char, c_void, CStr, CString};

use iree_base::{Result, Status, StatusCode};
use parking_lot::Mutex;

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::strings::{iree_host_size_t, iree_string_view_t};

/// The bits of a status that hold its code (`IREE_STATUS_CODE_MASK`).
const CODE_MASK: usize = 0x1F;

/// `iree_status_t`: OK (0), a code, or a code plus a pointer to storage.
#[allow(non_camel_case_types)]
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct iree_status_t(usize);

impl iree_status_t {
    /// The OK status.
    pub const OK: iree_status_t = iree_status_t(0);

    /// A code-only status, as `iree_status_from_code` makes in C.
    pub fn from_code(code: StatusCode) -> iree_status_t {
        iree_status_t(code.raw() as usize & CODE_MASK)
    }

    /// The status code.
    pub fn code(self) -> StatusCode {
        StatusCode::from_raw((self.0 & CODE_MASK) as u32)
    }

    /// True for OK.
    pub fn is_ok(self) -> bool {
        self.0 == 0
    }

    /// The storage, if the status has any.
    fn storage(self) -> Option<*mut StatusStorage> {
        let address = self.0 & !CODE_MASK;
        (address != 0).then_some(address as *mut StatusStorage)
    }
}

/// What a status with storage points at: the runtime's status plus a
/// NUL-terminated copy of its file name, made when C asks for it.
#[repr(C, align(32))]
struct StatusStorage {
    status: Status,
    file: OnceCell<CString>,
}

/// Conversion of a Rust result into an owned C status.
pub(crate) trait IntoCStatus {
    /// The C status (ownership passes to the caller).
    fn into_c_status(self) -> iree_status_t;
}

impl IntoCStatus for Result<()> {
    #[inline]
    fn into_c_status(self) -> iree_status_t {
        match self {
            Ok(()) => iree_status_t::OK,
            Err(status) => status_to_c(status),
        }
    }
}

/// Wraps `status` in storage (ownership passes to the caller). A status
/// with code OK (which the runtime never makes) becomes INTERNAL.
#[cold]
pub(crate) fn status_to_c(status: Status) -> iree_status_t {
    let status = if status.code() == StatusCode::Ok {
        Status::new(
            StatusCode::Internal,
            format!("an OK status carried an error: {status}"),
        )
    } else {
        status
    };
    let code = status.code();
    let storage = Box::into_raw(Box::new(StatusStorage {
        status,
        file: OnceCell::new(),
    }));
    iree_status_t(storage as usize | code.raw() as usize)
}

/// Takes ownership of a C status.
///
/// # Safety
/// `status` must be a status this library made (or a code-only status)
/// that has not been consumed.
#[inline]
pub(crate) unsafe fn take_status(status: iree_status_t) -> Result<()> {
    if status.is_ok() {
        return Ok(());
    }
    match status.storage() {
        // SAFETY: per the contract the storage came from `status_to_c`'s
        // `Box::into_raw` and is consumed only here.
        Some(storage) => Err(unsafe { Box::from_raw(storage) }.status),
        None => Err(Status::from_code(status.code())),
    }
}

/// Runs `f` with the status `status` holds, without consuming it.
///
/// # Safety
/// As [`take_status`]; the status stays owned by the caller.
unsafe fn with_status<R>(status: iree_status_t, f: impl FnOnce(&Status) -> R) -> R {
    match status.storage() {
        // SAFETY: the storage is live while the caller owns the status.
        Some(storage) => f(unsafe { &(*storage).status }),
        None => f(&Status::from_code(status.code())),
    }
}

/// The text upstream's `iree_status_format` produces (`OK` for OK).
///
/// # Safety
/// As [`with_status`].
unsafe fn formatted(status: iree_status_t) -> String {
    if status.is_ok() {
        return "OK".to_string();
    }
    // SAFETY: forwarded contract.
    unsafe { with_status(status, |s| s.to_string()) }
}

/// File names of C statuses made by `iree_status_allocate_copy`, kept for
/// the life of the process (one copy per distinct name).
static INTERNED_FILES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);

fn intern_file(name: &str) -> &'static str {
    let mut files = INTERNED_FILES.lock();
    let files = files.get_or_insert_with(HashSet::new);
    if let Some(existing) = files.get(name) {
        return existing;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    files.insert(leaked);
    leaked
}

/// A `__FILE__` string from C as the `'static` name the status keeps.
///
/// # Safety
/// `file` is NULL or a NUL-terminated string that lives as long as the
/// process (upstream's contract for `iree_status_allocate`'s file).
unsafe fn static_file(file: *const c_char) -> Option<&'static str> {
    if file.is_null() {
        return None;
    }
    // SAFETY: per the contract.
    let bytes: &'static CStr = unsafe { CStr::from_ptr(file) };
    Some(match bytes.to_str() {
        Ok(name) => name,
        Err(_) => intern_file(&bytes.to_string_lossy()),
    })
}

/// A status from parts given by C; OK when `code` is OK.
fn make_status(code: u32, file: Option<&'static str>, line: u32, message: String) -> iree_status_t {
    let code = StatusCode::from_raw(code);
    if code == StatusCode::Ok {
        return iree_status_t::OK;
    }
    let status = match file {
        Some(file) => Status::with_location(code, message, file, line),
        None => Status::without_location(code, message),
    };
    status_to_c(status)
}

/// `iree_status_code_from_errno`.
#[no_mangle]
pub extern "C" fn iree_status_code_from_errno(error_number: i32) -> u32 {
    boundary::value("iree_status_code_from_errno", 0, || {
        let code = match error_number {
            0 => StatusCode::Ok,
            libc::EINVAL
            | libc::E2BIG
            | libc::EBADF
            | libc::EFAULT
            | libc::EILSEQ
            | libc::ENOEXEC
            | libc::ENOTDIR
            | libc::ENOTSOCK => StatusCode::InvalidArgument,
            libc::ETIMEDOUT => StatusCode::DeadlineExceeded,
            libc::ENOENT | libc::ENODEV | libc::ENXIO | libc::ESRCH => StatusCode::NotFound,
            libc::EEXIST | libc::EADDRINUSE | libc::EALREADY => StatusCode::AlreadyExists,
            libc::EPERM | libc::EACCES | libc::EROFS => StatusCode::PermissionDenied,
            libc::ENOMEM
            | libc::ENOSPC
            | libc::EMFILE
            | libc::ENFILE
            | libc::ENOBUFS
            | libc::EMLINK
            | libc::EFBIG => StatusCode::ResourceExhausted,
            libc::EBUSY
            | libc::ENOTEMPTY
            | libc::EISDIR
            | libc::ENOTCONN
            | libc::EDEADLK
            | libc::ECHILD => StatusCode::FailedPrecondition,
            libc::ECONNABORTED | libc::ECONNRESET | libc::EINTR => StatusCode::Aborted,
            libc::ERANGE | libc::EOVERFLOW => StatusCode::OutOfRange,
            libc::ENOSYS
            | libc::ENOTSUP
            | libc::EAFNOSUPPORT
            | libc::EPROTONOSUPPORT
            | libc::ENOPROTOOPT => StatusCode::Unimplemented,
            libc::EAGAIN
            | libc::ECONNREFUSED
            | libc::EHOSTUNREACH
            | libc::ENETDOWN
            | libc::ENETUNREACH => StatusCode::Unavailable,
            _ => StatusCode::Unknown,
        };
        code.raw()
    })
}

/// `iree_status_code_string`: the code's name, `""` for unnamed codes.
#[no_mangle]
pub extern "C" fn iree_status_code_string(code: u32) -> *const c_char {
    boundary::value("iree_status_code_string", std::ptr::null(), || {
        const NAMES: [&CStr; 19] = [
            c"OK",
            c"CANCELLED",
            c"UNKNOWN",
            c"INVALID_ARGUMENT",
            c"DEADLINE_EXCEEDED",
            c"NOT_FOUND",
            c"ALREADY_EXISTS",
            c"PERMISSION_DENIED",
            c"RESOURCE_EXHAUSTED",
            c"FAILED_PRECONDITION",
            c"ABORTED",
            c"OUT_OF_RANGE",
            c"UNIMPLEMENTED",
            c"INTERNAL",
            c"UNAVAILABLE",
            c"DATA_LOSS",
            c"UNAUTHENTICATED",
            c"DEFERRED",
            c"INCOMPATIBLE",
        ];
        NAMES.get(code as usize).copied().unwrap_or(c"").as_ptr()
    })
}

/// `iree_status_allocate`: a status with a copy of `message`; `file` is
/// kept by pointer (a `__FILE__` string).
///
/// # Safety
/// `file` is NULL or a static NUL-terminated string; `message` is a valid
/// string view.
#[no_mangle]
pub unsafe extern "C" fn iree_status_allocate(
    code: u32,
    file: *const c_char,
    line: u32,
    message: iree_string_view_t,
) -> iree_status_t {
    boundary::value(
        "iree_status_allocate",
        iree_status_t::from_code(StatusCode::from_raw(code)),
        || {
            // SAFETY: per the contract.
            let (file, message) = unsafe { (static_file(file), message.to_string_lossy()) };
            make_status(code, file, line, message)
        },
    )
}

/// `iree_status_allocate_copy`: as [`iree_status_allocate`], copying the
/// file name too.
///
/// # Safety
/// Both views are valid.
#[no_mangle]
pub unsafe extern "C" fn iree_status_allocate_copy(
    code: u32,
    file: iree_string_view_t,
    line: u32,
    message: iree_string_view_t,
) -> iree_status_t {
    boundary::value(
        "iree_status_allocate_copy",
        iree_status_t::from_code(StatusCode::from_raw(code)),
        || {
            // SAFETY: per the contract.
            let (file, message) = unsafe { (file.to_string_lossy(), message.to_string_lossy()) };
            let file = (!file.is_empty()).then(|| intern_file(&file));
            make_status(code, file, line, message)
        },
    )
}

/// Called by `varargs.c` with the formatted message of
/// `iree_status_allocate_f` / `_vf`.
///
/// # Safety
/// `file` as for [`iree_status_allocate`]; `message` is NULL or valid for
/// `message_length` bytes.
#[no_mangle]
pub unsafe extern "C" fn iree_rs_status_allocate_formatted(
    code: u32,
    file: *const c_char,
    line: u32,
    message: *const c_char,
    message_length: iree_host_size_t,
) -> iree_status_t {
    boundary::forward("iree_rs_status_allocate_formatted", || {
        // SAFETY: forwarded contract.
        unsafe {
            iree_status_allocate(
                code,
                file,
                line,
                iree_string_view_t::from_raw(message, message_length),
            )
        }
    })
}

/// Called by `varargs.c` with the formatted message of
/// `iree_status_annotate_f`.
///
/// # Safety
/// As [`iree_status_annotate`].
#[no_mangle]
pub unsafe extern "C" fn iree_rs_status_annotate_copy(
    base_status: iree_status_t,
    message: *const c_char,
    message_length: iree_host_size_t,
) -> iree_status_t {
    boundary::forward("iree_rs_status_annotate_copy", || {
        // SAFETY: forwarded contract.
        unsafe {
            iree_status_annotate(
                base_status,
                iree_string_view_t::from_raw(message, message_length),
            )
        }
    })
}

/// `iree_status_clone`: an independent copy.
///
/// # Safety
/// `status` is a live status.
#[no_mangle]
pub unsafe extern "C" fn iree_status_clone(status: iree_status_t) -> iree_status_t {
    if status.storage().is_none() {
        return status;
    }
    boundary::value(
        "iree_status_clone",
        iree_status_t::from_code(status.code()),
        || {
            // SAFETY: per the contract.
            status_to_c(unsafe { with_status(status, Status::clone) })
        },
    )
}

/// `iree_status_freeze`: statuses here own their text already; returns
/// `status` unchanged.
#[no_mangle]
pub extern "C" fn iree_status_freeze(status: iree_status_t) -> iree_status_t {
    boundary::forward("iree_status_freeze", || status)
}

/// `iree_status_free`.
///
/// # Safety
/// `status` is a live status, consumed here.
#[no_mangle]
pub unsafe extern "C" fn iree_status_free(status: iree_status_t) {
    boundary::value("iree_status_free", (), || {
        // SAFETY: per the contract.
        drop(unsafe { take_status(status) });
    })
}

/// `iree_status_ignore`: frees `status` and returns OK.
///
/// # Safety
/// As [`iree_status_free`].
#[no_mangle]
pub unsafe extern "C" fn iree_status_ignore(status: iree_status_t) -> iree_status_t {
    boundary::forward("iree_status_ignore", || {
        // SAFETY: forwarded contract.
        unsafe { iree_status_free(status) };
        iree_status_t::OK
    })
}

/// `iree_status_consume_code`: frees `status` and returns its code.
///
/// # Safety
/// As [`iree_status_free`].
#[no_mangle]
pub unsafe extern "C" fn iree_status_consume_code(status: iree_status_t) -> u32 {
    boundary::value("iree_status_consume_code", 0, || {
        let code = status.code();
        // SAFETY: forwarded contract.
        unsafe { iree_status_free(status) };
        code.raw()
    })
}

/// `iree_status_join`: `base_status` if it failed (annotated with
/// `additional failure: ...` when `new_status` failed too), else
/// `new_status`.
///
/// # Safety
/// Both are live statuses, consumed here.
#[no_mangle]
pub unsafe extern "C" fn iree_status_join(
    base_status: iree_status_t,
    new_status: iree_status_t,
) -> iree_status_t {
    if base_status.is_ok() {
        return new_status;
    }
    if new_status.is_ok() {
        return base_status;
    }
    boundary::value("iree_status_join", base_status, || {
        // SAFETY: per the contract; each is consumed once.
        let (base, new) = unsafe { (take_status(base_status), take_status(new_status)) };
        let (Err(base), Err(new)) = (base, new) else {
            unreachable!("both statuses failed")
        };
        status_to_c(base.annotate(format!("additional failure: {new}")))
    })
}

/// `iree_status_abort`: prints `status` to stderr and aborts.
///
/// # Safety
/// As [`iree_status_free`].
#[no_mangle]
pub unsafe extern "C" fn iree_status_abort(status: iree_status_t) -> ! {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: stderr is libc's stream; `status` per the contract.
        unsafe { iree_status_fprint(stderr(), status) };
    });
    std::process::abort()
}

/// `iree_status_annotate`: appends a copy of `message`; an empty message
/// or an OK status is returned unchanged.
///
/// # Safety
/// `base_status` is a live status (consumed; the result replaces it) and
/// `message` a valid view.
#[no_mangle]
pub unsafe extern "C" fn iree_status_annotate(
    base_status: iree_status_t,
    message: iree_string_view_t,
) -> iree_status_t {
    if base_status.is_ok() || message.size == 0 || message.data.is_null() {
        return base_status;
    }
    boundary::value("iree_status_annotate", base_status, || {
        // SAFETY: per the contract.
        let message = unsafe { message.to_string_lossy() };
        // SAFETY: per the contract; consumed once.
        match unsafe { take_status(base_status) } {
            Ok(()) => iree_status_t::OK,
            Err(status) if status.message().is_empty() && status.annotations().is_empty() => {
                let rebuilt = match status.location() {
                    Some((file, line)) => Status::with_location(status.code(), message, file, line),
                    None => Status::without_location(status.code(), message),
                };
                status_to_c(rebuilt)
            }
            Err(status) => status_to_c(status.annotate(message)),
        }
    })
}

/// `iree_status_format`: formats into `buffer` (NUL-terminated, truncated
/// to fit); `out_buffer_length` gets the full length.
///
/// # Safety
/// `status` is live; `buffer` is NULL or valid for `buffer_capacity`
/// bytes; `out_buffer_length` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_status_format(
    status: iree_status_t,
    buffer_capacity: iree_host_size_t,
    buffer: *mut c_char,
    out_buffer_length: *mut iree_host_size_t,
) -> bool {
    boundary::value("iree_status_format", false, || {
        // SAFETY: per the contract.
        let text = unsafe { formatted(status) };
        if !out_buffer_length.is_null() {
            // SAFETY: checked non-null; valid per the contract.
            unsafe { *out_buffer_length = text.len() };
        }
        if !buffer.is_null() && buffer_capacity > 0 {
            let n = text.len().min(buffer_capacity - 1);
            // SAFETY: `buffer` holds `buffer_capacity > n` bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(text.as_ptr(), buffer.cast::<u8>(), n);
                *buffer.add(n) = 0;
            }
        }
        true
    })
}

/// Signature of `iree_status_format_to`'s output callback.
pub type OutputFn = unsafe extern "C" fn(iree_string_view_t, *mut c_void) -> bool;

/// `iree_status_format_to`: streams the formatted status to `output_fn`.
///
/// # Safety
/// `status` is live; `output_fn` is callable with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn iree_status_format_to(
    status: iree_status_t,
    output_fn: Option<OutputFn>,
    user_data: *mut c_void,
) -> bool {
    let Some(output_fn) = output_fn else {
        return false;
    };
    // SAFETY: per the contract.
    let text = boundary::value("iree_status_format_to", String::new(), || unsafe {
        formatted(status)
    });
    // SAFETY: `text` outlives the call; the callback per the contract.
    unsafe { output_fn(iree_string_view_t::from_str(&text), user_data) }
}

/// `iree_status_to_string`: the formatted status in a NUL-terminated
/// buffer from `allocator` (the caller frees it there).
///
/// # Safety
/// `status` is live; `allocator` points at a valid allocator; the out
/// pointers are valid.
#[no_mangle]
pub unsafe extern "C" fn iree_status_to_string(
    status: iree_status_t,
    allocator: *const iree_allocator_t,
    out_buffer: *mut *mut c_char,
    out_buffer_length: *mut iree_host_size_t,
) -> bool {
    boundary::value("iree_status_to_string", false, || {
        if out_buffer.is_null() || out_buffer_length.is_null() || allocator.is_null() {
            return false;
        }
        // SAFETY: checked non-null; valid per the contract.
        unsafe {
            *out_buffer = std::ptr::null_mut();
            *out_buffer_length = 0;
        }
        // SAFETY: per the contract.
        let text = unsafe { formatted(status) };
        // SAFETY: checked non-null above.
        let allocator = unsafe { *allocator };
        match allocator.allocate_uninit(text.len() + 1) {
            Ok(memory) => {
                let memory = memory.cast::<u8>();
                // SAFETY: `memory` holds `text.len() + 1` bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(text.as_ptr(), memory, text.len());
                    *memory.add(text.len()) = 0;
                    *out_buffer = memory.cast();
                    *out_buffer_length = text.len();
                }
                true
            }
            Err(_) => false,
        }
    })
}

/// libc's `stderr` stream.
pub(crate) fn stderr() -> *mut libc::FILE {
    extern "C" {
        static mut stderr: *mut libc::FILE;
    }
    // SAFETY: reading the C library's global stream pointer.
    unsafe { stderr }
}

/// Writes `text` to `file` through stdio, so it interleaves with the
/// caller's own output to the same stream.
///
/// # Safety
/// `file` is a valid open `FILE*`.
pub(crate) unsafe fn write_to_file(file: *mut libc::FILE, text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    // SAFETY: `text` is valid for its length; `file` per the contract.
    unsafe { libc::fwrite(text.as_ptr().cast(), 1, text.len(), file) == text.len() }
}

/// `iree_status_fprint`: the formatted status and a newline, through
/// stdio, then a flush.
///
/// # Safety
/// `file` is a valid open `FILE*`; `status` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_status_fprint(file: *mut libc::FILE, status: iree_status_t) {
    if file.is_null() {
        return;
    }
    boundary::value("iree_status_fprint", (), || {
        // SAFETY: per the contract.
        unsafe {
            let text = formatted(status);
            write_to_file(file, &text);
            libc::fputc(b'\n' as i32, file);
            libc::fflush(file);
        }
    })
}

/// `iree_status_source_location_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_status_source_location_t {
    /// The file, or NULL.
    pub file: *const c_char,
    /// The line.
    pub line: u32,
}

/// `iree_status_source_location`: where the status was made; the file
/// string lives as long as the status.
///
/// # Safety
/// `status` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_status_source_location(
    status: iree_status_t,
) -> iree_status_source_location_t {
    let none = iree_status_source_location_t {
        file: std::ptr::null(),
        line: 0,
    };
    let Some(storage) = status.storage() else {
        return none;
    };
    boundary::value("iree_status_source_location", none, || {
        // SAFETY: per the contract the storage is live.
        let storage = unsafe { &*storage };
        match storage.status.location() {
            Some((file, line)) => {
                let file = storage
                    .file
                    .get_or_init(|| CString::new(file.replace('\0', "")).unwrap_or_default());
                iree_status_source_location_t {
                    file: file.as_ptr(),
                    line,
                }
            }
            None => iree_status_source_location_t {
                file: std::ptr::null(),
                line: 0,
            },
        }
    })
}

/// `iree_status_message`: the primary message (empty for code-only
/// statuses); valid as long as the status.
///
/// # Safety
/// `status` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_status_message(status: iree_status_t) -> iree_string_view_t {
    boundary::value("iree_status_message", iree_string_view_t::empty(), || {
        match status.storage() {
            // SAFETY: per the contract the storage is live.
            Some(storage) => iree_string_view_t::from_str(unsafe { (*storage).status.message() }),
            None => iree_string_view_t::empty(),
        }
    })
}

// The variadic entry points: tail jumps to their C halves in varargs.c,
// which format the message and call back into the functions above. A jump
// leaves every argument register (and the vector-register count of
// variadic calls) untouched.
extern "C" {
    fn iree_rs_status_allocate_f_impl();
    fn iree_rs_status_allocate_vf_impl();
    fn iree_rs_status_annotate_f_impl();
}

macro_rules! tail_jump {
    ($($name:ident => $target:ident;)+) => {
        $(
            #[doc = concat!("`", stringify!($name), "`: forwarded to `", stringify!($target), "` in varargs.c.")]
            ///
            /// # Safety
            /// Called from C with the C prototype of the public header.
            #[no_mangle]
            #[unsafe(naked)]
            pub unsafe extern "C" fn $name() {
                #[cfg(target_arch = "x86_64")]
                core::arch::naked_asm!("jmp {0}", sym $target);
                #[cfg(target_arch = "aarch64")]
                core::arch::naked_asm!("b {0}", sym $target);
            }
        )+
    };
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
tail_jump! {
    iree_status_allocate_f => iree_rs_status_allocate_f_impl;
    iree_status_allocate_vf => iree_rs_status_allocate_vf_impl;
    iree_status_annotate_f => iree_rs_status_annotate_f_impl;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_c() {
        let status = Status::with_location(StatusCode::NotFound, "no such thing", "x.c", 7)
            .annotate("while looking");
        let c = status_to_c(status);
        assert_eq!(c.code(), StatusCode::NotFound);
        // SAFETY: `c` is live.
        let text = unsafe { formatted(c) };
        assert_eq!(text, "x.c:7: NOT_FOUND; no such thing; while looking");
        // SAFETY: consumed once.
        let back = unsafe { take_status(c) }.unwrap_err();
        assert_eq!(back.message(), "no such thing");
    }

    #[test]
    fn code_only_statuses_format_as_their_code() {
        let c = iree_status_t::from_code(StatusCode::Aborted);
        // SAFETY: code-only statuses have no storage.
        assert_eq!(unsafe { formatted(c) }, "ABORTED");
        // SAFETY: as above.
        let annotated = unsafe { iree_status_annotate(c, iree_string_view_t::from_str("why")) };
        // SAFETY: `annotated` is live.
        assert_eq!(unsafe { formatted(annotated) }, "ABORTED; why");
        // SAFETY: consumed once.
        unsafe { iree_status_free(annotated) };
    }
}
