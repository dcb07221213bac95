//! `iree_allocator_t`: a `{self, ctl}` pair passed by value. The library
//! allocates its own objects with Rust's allocator; allocators given by the
//! caller are used where upstream's API hands memory back to be freed by
//! the caller (`iree_status_to_string`) or takes memory to free later
//! (`flatbuffer_allocator` of a module's bytes).

use std::ffi::c_void;

use iree_base::{Result, Status, StatusCode};

use crate::boundary;
use crate::status::{iree_status_t, take_status, IntoCStatus};
use crate::strings::{iree_const_byte_span_t, iree_host_size_t};

/// `iree_allocator_command_t`: `MALLOC`.
pub const COMMAND_MALLOC: u32 = 0;
/// `iree_allocator_command_t`: `CALLOC`.
pub const COMMAND_CALLOC: u32 = 1;
/// `iree_allocator_command_t`: `REALLOC`.
pub const COMMAND_REALLOC: u32 = 2;
/// `iree_allocator_command_t`: `FREE`.
pub const COMMAND_FREE: u32 = 3;

/// `iree_allocator_alloc_params_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_allocator_alloc_params_t {
    /// Bytes requested.
    pub byte_length: iree_host_size_t,
}

/// `iree_allocator_ctl_fn_t`.
#[allow(non_camel_case_types)]
pub type iree_allocator_ctl_fn_t = unsafe extern "C" fn(
    self_: *mut c_void,
    command: u32,
    params: *const c_void,
    inout_ptr: *mut *mut c_void,
) -> iree_status_t;

/// `iree_allocator_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct iree_allocator_t {
    /// Passed to `ctl`.
    pub self_: *mut c_void,
    /// Serves every command; NULL for the null allocator.
    pub ctl: Option<iree_allocator_ctl_fn_t>,
}

// SAFETY: an allocator is a function and its context; upstream's allocators
// are callable from any thread, as are the callers' allocators by contract.
unsafe impl Send for iree_allocator_t {}
// SAFETY: as above.
unsafe impl Sync for iree_allocator_t {}

impl iree_allocator_t {
    /// The null allocator.
    pub const fn null() -> iree_allocator_t {
        iree_allocator_t {
            self_: std::ptr::null_mut(),
            ctl: None,
        }
    }

    /// The libc allocator (`iree_allocator_system()` in upstream's build).
    pub fn system() -> iree_allocator_t {
        iree_allocator_t {
            self_: std::ptr::null_mut(),
            ctl: Some(iree_allocator_libc_ctl),
        }
    }

    fn issue(&self, command: u32, byte_length: usize, inout: &mut *mut c_void) -> Result<()> {
        let Some(ctl) = self.ctl else {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "allocator has no control routine",
            ));
        };
        let params = iree_allocator_alloc_params_t { byte_length };
        // SAFETY: the allocator's contract: `ctl` serves MALLOC/CALLOC/
        // REALLOC with these parameters.
        unsafe {
            take_status(ctl(
                self.self_,
                command,
                (&params as *const iree_allocator_alloc_params_t).cast(),
                inout,
            ))
        }
    }

    /// `byte_length` uninitialized bytes from this allocator.
    pub fn allocate_uninit(&self, byte_length: usize) -> Result<*mut c_void> {
        let mut ptr = std::ptr::null_mut();
        self.issue(COMMAND_MALLOC, byte_length, &mut ptr)?;
        Ok(ptr)
    }

    /// Frees `ptr` (from this allocator); NULL or the null allocator do
    /// nothing.
    ///
    /// # Safety
    /// `ptr` came from this allocator and is not used afterwards.
    pub unsafe fn free(&self, ptr: *mut c_void) {
        let Some(ctl) = self.ctl else { return };
        if ptr.is_null() {
            return;
        }
        let mut ptr = ptr;
        // SAFETY: per the contract.
        drop(unsafe { take_status(ctl(self.self_, COMMAND_FREE, std::ptr::null(), &mut ptr)) });
    }
}

/// `iree_allocator_libc_ctl`: malloc, calloc, realloc and free.
///
/// # Safety
/// `params` points at `iree_allocator_alloc_params_t` for the allocating
/// commands; `inout_ptr` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_allocator_libc_ctl(
    _self: *mut c_void,
    command: u32,
    params: *const c_void,
    inout_ptr: *mut *mut c_void,
) -> iree_status_t {
    boundary::status("iree_allocator_libc_ctl", || {
        if inout_ptr.is_null() {
            return Err(Status::new(StatusCode::InvalidArgument, "null inout_ptr"));
        }
        // SAFETY: checked non-null; valid per the contract.
        let inout = unsafe { &mut *inout_ptr };
        if command == COMMAND_FREE {
            if !inout.is_null() {
                // SAFETY: the pointer came from this allocator (libc).
                unsafe { libc::free(*inout) };
                *inout = std::ptr::null_mut();
            }
            return Ok(());
        }
        if params.is_null() || command > COMMAND_REALLOC {
            return Err(Status::new(
                StatusCode::Unimplemented,
                "unsupported libc allocator command",
            ));
        }
        // SAFETY: allocating commands carry alloc params per the contract.
        let byte_length = unsafe { (*params.cast::<iree_allocator_alloc_params_t>()).byte_length };
        if byte_length == 0 {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "allocations must be >0 bytes",
            ));
        }
        // SAFETY: plain libc allocation calls; realloc only of a pointer
        // this allocator returned (the caller's contract).
        let new_ptr = unsafe {
            match command {
                COMMAND_REALLOC if !inout.is_null() => libc::realloc(*inout, byte_length),
                COMMAND_CALLOC => libc::calloc(1, byte_length),
                _ => libc::malloc(byte_length),
            }
        };
        if new_ptr.is_null() {
            return Err(Status::new(
                StatusCode::ResourceExhausted,
                "libc allocator failed the request",
            ));
        }
        *inout = new_ptr;
        Ok(())
    })
}

/// Issues an allocating command through `allocator`.
fn allocate_with(
    allocator: iree_allocator_t,
    command: u32,
    byte_length: usize,
    inout_ptr: *mut *mut c_void,
) -> iree_status_t {
    boundary::status("iree_allocator_malloc", || {
        if inout_ptr.is_null() {
            return Err(Status::new(StatusCode::InvalidArgument, "null out_ptr"));
        }
        // SAFETY: checked non-null; valid per the callers' contract.
        let inout = unsafe { &mut *inout_ptr };
        if command != COMMAND_REALLOC {
            *inout = std::ptr::null_mut();
        }
        allocator.issue(command, byte_length, inout)
    })
}

/// `iree_allocator_malloc`: zeroed memory.
///
/// # Safety
/// `out_ptr` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_allocator_malloc(
    allocator: iree_allocator_t,
    byte_length: iree_host_size_t,
    out_ptr: *mut *mut c_void,
) -> iree_status_t {
    boundary::forward("iree_allocator_malloc", || {
        allocate_with(allocator, COMMAND_CALLOC, byte_length, out_ptr)
    })
}

/// `iree_allocator_malloc_uninitialized`.
///
/// # Safety
/// `out_ptr` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_allocator_malloc_uninitialized(
    allocator: iree_allocator_t,
    byte_length: iree_host_size_t,
    out_ptr: *mut *mut c_void,
) -> iree_status_t {
    boundary::forward("iree_allocator_malloc_uninitialized", || {
        allocate_with(allocator, COMMAND_MALLOC, byte_length, out_ptr)
    })
}

/// `iree_allocator_realloc`.
///
/// # Safety
/// `inout_ptr` is valid and holds NULL or memory of this allocator.
#[no_mangle]
pub unsafe extern "C" fn iree_allocator_realloc(
    allocator: iree_allocator_t,
    byte_length: iree_host_size_t,
    inout_ptr: *mut *mut c_void,
) -> iree_status_t {
    boundary::forward("iree_allocator_realloc", || {
        allocate_with(allocator, COMMAND_REALLOC, byte_length, inout_ptr)
    })
}

/// `iree_allocator_malloc_array`: `count * element_size` zeroed bytes,
/// OUT_OF_RANGE on overflow.
///
/// # Safety
/// `out_ptr` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_allocator_malloc_array(
    allocator: iree_allocator_t,
    count: iree_host_size_t,
    element_size: iree_host_size_t,
    out_ptr: *mut *mut c_void,
) -> iree_status_t {
    boundary::forward("iree_allocator_malloc_array", || {
        match count.checked_mul(element_size) {
            Some(byte_length) => allocate_with(allocator, COMMAND_CALLOC, byte_length, out_ptr),
            None => Err::<(), _>(Status::new(
                StatusCode::OutOfRange,
                format!("array allocation size overflow ({count} * {element_size})"),
            ))
            .into_c_status(),
        }
    })
}

/// `iree_allocator_clone`: a copy of `source_bytes`.
///
/// # Safety
/// `source_bytes` is valid; `out_ptr` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_allocator_clone(
    allocator: iree_allocator_t,
    source_bytes: iree_const_byte_span_t,
    out_ptr: *mut *mut c_void,
) -> iree_status_t {
    boundary::forward("iree_allocator_clone", || {
        let status = allocate_with(allocator, COMMAND_MALLOC, source_bytes.data_length, out_ptr);
        if status.is_ok() {
            // SAFETY: the new block holds `data_length` bytes; the source is
            // valid per the contract.
            unsafe {
                let bytes = source_bytes.as_slice();
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), (*out_ptr).cast::<u8>(), bytes.len());
            }
        }
        status
    })
}

/// `iree_allocator_free`.
///
/// # Safety
/// `ptr` is NULL or memory of this allocator, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn iree_allocator_free(allocator: iree_allocator_t, ptr: *mut c_void) {
    boundary::value("iree_allocator_free", (), || {
        // SAFETY: per the contract.
        unsafe { allocator.free(ptr) }
    })
}
