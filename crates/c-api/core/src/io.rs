//! `iree_io_file_contents_t`: a file read (or mapped) into memory, which a
//! bytecode module can take over through its deallocator.

use std::ffi::c_void;
use std::io::Read;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_vm::buffer::SharedBytes;

use crate::allocator::{iree_allocator_t, COMMAND_FREE};
use crate::boundary;
use crate::handles;
use crate::status::iree_status_t;
use crate::strings::{iree_byte_span_t, iree_string_view_t};

/// `iree_io_file_contents_t` followed by the bytes' owner.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_io_file_contents_t {
    /// The allocator given at creation.
    pub allocator: iree_allocator_t,
    /// The contents (`buffer` / `const_buffer`).
    pub buffer: iree_byte_span_t,
    /// Unused here.
    pub mapping: *mut c_void,
    bytes: SharedBytes,
}

impl iree_io_file_contents_t {
    fn new(bytes: SharedBytes, allocator: iree_allocator_t) -> *mut iree_io_file_contents_t {
        let span = {
            let slice = bytes.bytes();
            iree_byte_span_t {
                data: slice.as_ptr().cast_mut(),
                data_length: slice.len(),
            }
        };
        let contents = Box::into_raw(Box::new(iree_io_file_contents_t {
            allocator,
            buffer: span,
            mapping: std::ptr::null_mut(),
            bytes,
        }));
        LIVE_CONTENTS.insert(contents as usize);
        contents
    }
}

/// The status of a failed read of `path`.
fn io_error(path: &str, error: std::io::Error) -> Status {
    let code = match error.kind() {
        std::io::ErrorKind::NotFound => StatusCode::NotFound,
        std::io::ErrorKind::PermissionDenied => StatusCode::PermissionDenied,
        _ => StatusCode::Unavailable,
    };
    Status::new(code, format!("failed to open file '{path}': {error}"))
}

/// Reads `path` (mapped, as the runtime reads modules).
pub(crate) fn read_file(path: &str) -> Result<SharedBytes> {
    iree_runtime::image::read_image(path).map_err(|e| io_error(path, e))
}

/// Reads all of stdin.
pub(crate) fn read_stdin() -> Result<SharedBytes> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| {
            Status::new(
                StatusCode::Unavailable,
                format!("failed to read stdin: {e}"),
            )
        })?;
    Ok(Arc::new(bytes))
}

fn hand_out(
    read: impl FnOnce() -> Result<SharedBytes>,
    allocator: iree_allocator_t,
    out_contents: *mut *mut iree_io_file_contents_t,
) -> Result<()> {
    // SAFETY: the exported functions' contract.
    let out =
        unsafe { out_contents.as_mut() }.ok_or_else(|| handles::null_argument("out_contents"))?;
    *out = std::ptr::null_mut();
    *out = iree_io_file_contents_t::new(read()?, allocator);
    Ok(())
}

/// The live file contents this library made.
static LIVE_CONTENTS: crate::handles::LiveSet = crate::handles::LiveSet::new();

/// `iree_io_file_contents_read`.
///
/// # Safety
/// `path` is valid; `out_contents` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_io_file_contents_read(
    path: iree_string_view_t,
    host_allocator: iree_allocator_t,
    out_contents: *mut *mut iree_io_file_contents_t,
) -> iree_status_t {
    boundary::status("iree_io_file_contents_read", || {
        // SAFETY: per the contract.
        let path = unsafe { path.to_string_lossy() };
        hand_out(|| read_file(&path), host_allocator, out_contents)
    })
}

/// `iree_io_file_contents_read_stdin`.
///
/// # Safety
/// `out_contents` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_io_file_contents_read_stdin(
    host_allocator: iree_allocator_t,
    out_contents: *mut *mut iree_io_file_contents_t,
) -> iree_status_t {
    boundary::status("iree_io_file_contents_read_stdin", || {
        hand_out(read_stdin, host_allocator, out_contents)
    })
}

/// `iree_io_file_contents_free`.
///
/// # Safety
/// `contents` is NULL or live, not used after.
#[no_mangle]
pub unsafe extern "C" fn iree_io_file_contents_free(contents: *mut iree_io_file_contents_t) {
    if !contents.is_null() {
        LIVE_CONTENTS.remove(contents as usize);
        boundary::value("iree_io_file_contents_free", (), || {
            // SAFETY: per the contract.
            drop(unsafe { Box::from_raw(contents) })
        })
    }
}

/// The `ctl` of [`iree_io_file_contents_deallocator`]: FREE frees the
/// contents (whatever pointer is given); nothing can be allocated.
unsafe extern "C" fn contents_deallocator_ctl(
    self_: *mut c_void,
    command: u32,
    _params: *const c_void,
    _inout_ptr: *mut *mut c_void,
) -> iree_status_t {
    if command == COMMAND_FREE {
        // SAFETY: `self` is the contents this deallocator was made for.
        unsafe { iree_io_file_contents_free(self_.cast()) };
        return iree_status_t::OK;
    }
    iree_status_t::from_code(StatusCode::Unimplemented)
}

/// `iree_io_file_contents_deallocator`: an allocator whose free releases
/// `contents` (hand it with the bytes to whoever keeps them).
#[no_mangle]
pub extern "C" fn iree_io_file_contents_deallocator(
    contents: *mut iree_io_file_contents_t,
) -> iree_allocator_t {
    iree_allocator_t {
        self_: contents.cast(),
        ctl: Some(contents_deallocator_ctl),
    }
}

/// The bytes of file contents behind a deallocator made by
/// [`iree_io_file_contents_deallocator`], if `allocator` is one.
pub(crate) fn shared_bytes_of_deallocator(allocator: &iree_allocator_t) -> Option<SharedBytes> {
    if allocator.ctl.is_none() || !LIVE_CONTENTS.contains(allocator.self_ as usize) {
        return None;
    }
    // SAFETY: our deallocators carry their live contents.
    Some(
        unsafe { &*(allocator.self_ as *const iree_io_file_contents_t) }
            .bytes
            .clone(),
    )
}

/// Caller memory a module keeps: freed through the caller's allocator when
/// the module drops it.
pub(crate) struct CallerBytes {
    ptr: *const u8,
    len: usize,
    allocator: iree_allocator_t,
    /// Set once the bytes are ours to free (a module loaded from them).
    owned: std::sync::atomic::AtomicBool,
}

// SAFETY: the bytes are immutable while held and the allocator callable
// from any thread (upstream's contract for module data).
unsafe impl Send for CallerBytes {}
// SAFETY: as above.
unsafe impl Sync for CallerBytes {}

impl CallerBytes {
    /// Wraps `len` bytes at `ptr`, to be freed with `allocator` once
    /// [`CallerBytes::take_ownership`] is called.
    ///
    /// # Safety
    /// The bytes stay valid and unchanged while wrapped, and after
    /// `take_ownership` until `allocator` frees them (for good when it is
    /// the null allocator).
    pub(crate) unsafe fn new(
        ptr: *const u8,
        len: usize,
        allocator: iree_allocator_t,
    ) -> CallerBytes {
        CallerBytes {
            ptr,
            len,
            allocator,
            owned: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Makes the wrapper free the bytes when dropped.
    pub(crate) fn take_ownership(&self) {
        self.owned.store(true, std::sync::atomic::Ordering::Release);
    }
}

impl AsRef<[u8]> for CallerBytes {
    fn as_ref(&self) -> &[u8] {
        if self.ptr.is_null() {
            &[]
        } else {
            // SAFETY: per `new`'s contract.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }
}

impl Drop for CallerBytes {
    fn drop(&mut self) {
        if self.owned.load(std::sync::atomic::Ordering::Acquire) {
            // SAFETY: per `new`'s contract the allocator owns the bytes.
            unsafe { self.allocator.free(self.ptr.cast_mut().cast()) }
        }
    }
}
