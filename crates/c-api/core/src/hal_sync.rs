//! `iree/hal` timelines: semaphores, fences (sets of semaphore timepoints)
//! and queue-ordered allocation.
//!
//! A semaphore's C handle is one [`HalSemaphore`] per runtime semaphore
//! (the same pointer wherever it appears while it lives); a fence's
//! semaphore list is kept for the fence's life in C layout.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use iree_base::{Result, Status, StatusCode};
use iree_hal::{Fence, Semaphore};
use iree_modules_hal::{HalBuffer, HalDevice, HalFence};
use parking_lot::Mutex;

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::hal::{iree_hal_buffer_params_t, HalSemaphore, Timeout};
use crate::handles::{self, DerivedHandles};
use crate::status::{iree_status_t, take_status};
use crate::strings::iree_host_size_t;
use crate::time;

/// `iree_hal_semaphore_list_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_hal_semaphore_list_t {
    /// Entries.
    pub count: iree_host_size_t,
    /// The semaphores.
    pub semaphores: *mut *mut HalSemaphore,
    /// The payload value of each.
    pub payload_values: *mut u64,
}

impl iree_hal_semaphore_list_t {
    const EMPTY: iree_hal_semaphore_list_t = iree_hal_semaphore_list_t {
        count: 0,
        semaphores: std::ptr::null_mut(),
        payload_values: std::ptr::null_mut(),
    };

    /// The list as a fence.
    ///
    /// # Safety
    /// The arrays hold `count` live semaphores and values.
    unsafe fn to_fence(self) -> Result<Fence> {
        let mut fence = Fence::new();
        for i in 0..self.count {
            // SAFETY: per the contract.
            let (semaphore, value) =
                unsafe { (*self.semaphores.add(i), *self.payload_values.add(i)) };
            // SAFETY: as above.
            let semaphore = unsafe { handles::require(semaphore, "semaphore") }?;
            fence.insert(semaphore.0.clone(), value);
        }
        Ok(fence)
    }
}

/// The live C handle of each runtime semaphore, by the semaphore's
/// address: one handle per semaphore while C holds any.
static SEMAPHORE_HANDLES: Mutex<Option<HashMap<usize, Weak<HalSemaphore>>>> = Mutex::new(None);

/// The C handle of `semaphore` (a new count of the live one, or a new one).
fn semaphore_handle(semaphore: &Arc<Semaphore>) -> Arc<HalSemaphore> {
    let mut guard = SEMAPHORE_HANDLES.lock();
    let map = guard.get_or_insert_with(HashMap::new);
    let address = Arc::as_ptr(semaphore) as usize;
    if let Some(handle) = map.get(&address).and_then(Weak::upgrade) {
        if Arc::ptr_eq(&handle.0, semaphore) {
            return handle;
        }
    }
    let handle = Arc::new(HalSemaphore(semaphore.clone()));
    map.insert(address, Arc::downgrade(&handle));
    if map.len() > 64 && map.len().is_power_of_two() {
        map.retain(|_, weak| weak.strong_count() > 0);
    }
    handle
}

/// A fence's semaphores and values in C layout (semaphore pointers stored
/// as addresses of the handles kept in `handles`).
struct SemaphoreList {
    handles: Vec<Arc<HalSemaphore>>,
    semaphores: Vec<usize>,
    values: Vec<u64>,
}

/// The semaphore list of each fence that handed one out.
static FENCE_LISTS: DerivedHandles<HalFence, SemaphoreList> = DerivedHandles::new();

/// `iree_hal_semaphore_create`.
///
/// # Safety
/// `device` is NULL or live; `out_semaphore` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_semaphore_create(
    _device: *mut HalDevice,
    _queue_affinity: u64,
    initial_value: u64,
    _flags: u64,
    out_semaphore: *mut *mut HalSemaphore,
) -> iree_status_t {
    boundary::status("iree_hal_semaphore_create", || {
        // SAFETY: per the contract.
        let out = unsafe { out_semaphore.as_mut() }
            .ok_or_else(|| handles::null_argument("out_semaphore"))?;
        *out = handles::into_handle(semaphore_handle(&Semaphore::new(initial_value)));
        Ok(())
    })
}

/// `iree_hal_semaphore_retain`.
///
/// # Safety
/// `semaphore` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_semaphore_retain(semaphore: *mut HalSemaphore) {
    // SAFETY: per the contract.
    unsafe { handles::retain(semaphore) }
}

/// `iree_hal_semaphore_release`.
///
/// # Safety
/// `semaphore` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_semaphore_release(semaphore: *mut HalSemaphore) {
    // SAFETY: per the contract.
    boundary::value("iree_hal_semaphore_release", (), || unsafe {
        handles::release(semaphore)
    })
}

/// `iree_hal_semaphore_query`: the current value, or the failure.
///
/// # Safety
/// `semaphore` is live; `out_value` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_semaphore_query(
    semaphore: *mut HalSemaphore,
    out_value: *mut u64,
) -> iree_status_t {
    boundary::status("iree_hal_semaphore_query", || {
        // SAFETY: per the contract.
        let value = unsafe { handles::require(semaphore, "semaphore") }?
            .0
            .query()?;
        // SAFETY: per the contract.
        if let Some(out) = unsafe { out_value.as_mut() } {
            *out = value;
        }
        Ok(())
    })
}

/// `iree_hal_semaphore_signal`: raises the value (the frontier is
/// ignored).
///
/// # Safety
/// `semaphore` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_semaphore_signal(
    semaphore: *mut HalSemaphore,
    new_value: u64,
    _frontier: *const std::ffi::c_void,
) -> iree_status_t {
    boundary::status("iree_hal_semaphore_signal", || {
        // SAFETY: per the contract.
        unsafe { handles::require(semaphore, "semaphore") }?
            .0
            .signal(new_value)
    })
}

/// `iree_hal_semaphore_fail`: fails the semaphore with `status` (taken).
///
/// # Safety
/// `semaphore` is live; `status` is a live status.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_semaphore_fail(
    semaphore: *mut HalSemaphore,
    status: iree_status_t,
) {
    boundary::value("iree_hal_semaphore_fail", (), || {
        // SAFETY: per the contract.
        let error = unsafe { take_status(status) }
            .err()
            .unwrap_or_else(|| Status::from_code(StatusCode::Unknown));
        // SAFETY: per the contract.
        if let Some(semaphore) = unsafe { handles::borrow(semaphore) } {
            semaphore.0.fail(error);
        }
    })
}

/// `iree_hal_semaphore_wait`: blocks until the value is reached, the
/// semaphore fails or the timeout passes (DEADLINE_EXCEEDED).
///
/// # Safety
/// `semaphore` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_semaphore_wait(
    semaphore: *mut HalSemaphore,
    value: u64,
    timeout: Timeout,
    _flags: u32,
) -> iree_status_t {
    boundary::status("iree_hal_semaphore_wait", || {
        // SAFETY: per the contract.
        let semaphore = unsafe { handles::require(semaphore, "semaphore") }?;
        semaphore
            .0
            .wait(value, time::deadline(timeout.type_, timeout.nanos))
    })
}

/// `iree_hal_fence_create`: an empty fence (already reached).
///
/// # Safety
/// `out_fence` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_create(
    _capacity: iree_host_size_t,
    _host_allocator: iree_allocator_t,
    out_fence: *mut *mut HalFence,
) -> iree_status_t {
    boundary::status("iree_hal_fence_create", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_fence.as_mut() }.ok_or_else(|| handles::null_argument("out_fence"))?;
        *out = handles::into_handle(Arc::new(HalFence(Fence::new())));
        Ok(())
    })
}

/// `iree_hal_fence_create_at`: a fence of one timepoint.
///
/// # Safety
/// `semaphore` is live; `out_fence` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_create_at(
    semaphore: *mut HalSemaphore,
    value: u64,
    _host_allocator: iree_allocator_t,
    out_fence: *mut *mut HalFence,
) -> iree_status_t {
    boundary::status("iree_hal_fence_create_at", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_fence.as_mut() }.ok_or_else(|| handles::null_argument("out_fence"))?;
        // SAFETY: per the contract.
        let semaphore = unsafe { handles::require(semaphore, "semaphore") }?;
        let mut fence = Fence::new();
        fence.insert(semaphore.0.clone(), value);
        *out = handles::into_handle(Arc::new(HalFence(fence)));
        Ok(())
    })
}

/// `iree_hal_fence_retain`.
///
/// # Safety
/// `fence` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_retain(fence: *mut HalFence) {
    // SAFETY: per the contract.
    unsafe { handles::retain(fence) }
}

/// `iree_hal_fence_release`.
///
/// # Safety
/// `fence` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_release(fence: *mut HalFence) {
    boundary::value("iree_hal_fence_release", (), || {
        if fence.is_null() {
            return;
        }
        // SAFETY: per the contract.
        if unsafe { handles::with_arc(fence, Arc::strong_count) } == 1 {
            FENCE_LISTS.forget(fence as usize);
        }
        // SAFETY: per the contract.
        unsafe { handles::release(fence) }
    })
}

/// `iree_hal_fence_insert`: adds a timepoint (the larger value wins for a
/// semaphore already present). Only while the caller holds the fence's
/// only reference (FAILED_PRECONDITION once it is shared).
///
/// # Safety
/// `fence` and `semaphore` are live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_insert(
    fence: *mut HalFence,
    semaphore: *mut HalSemaphore,
    value: u64,
) -> iree_status_t {
    boundary::status("iree_hal_fence_insert", || {
        if fence.is_null() {
            return Err(handles::null_argument("fence"));
        }
        // SAFETY: per the contract.
        let semaphore = unsafe { handles::require(semaphore, "semaphore") }?
            .0
            .clone();
        // SAFETY: per the contract; the count is unchanged.
        unsafe {
            handles::with_arc(fence, |arc| {
                let mut arc = arc.clone();
                let result = match Arc::get_mut(&mut arc) {
                    Some(HalFence(fence)) => {
                        fence.insert(semaphore, value);
                        Ok(())
                    }
                    // Two counts: ours and the clone above.
                    None => Err(Status::new(
                        StatusCode::FailedPrecondition,
                        "timepoints can only be inserted into a fence nothing else holds",
                    )),
                };
                result
            })
        }
    })
}

/// `iree_hal_fence_semaphore_list`: the fence's semaphores and values
/// (valid while the fence lives).
///
/// # Safety
/// `fence` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_semaphore_list(
    fence: *mut HalFence,
) -> iree_hal_semaphore_list_t {
    if fence.is_null() {
        return iree_hal_semaphore_list_t::EMPTY;
    }
    boundary::value(
        "iree_hal_fence_semaphore_list",
        iree_hal_semaphore_list_t::EMPTY,
        || {
            // SAFETY: per the contract.
            let list = unsafe {
                handles::with_arc(fence, |arc| {
                    FENCE_LISTS.get_or_make(
                        arc,
                        |list| {
                            (
                                list.semaphores.as_ptr(),
                                list.values.as_ptr(),
                                list.values.len(),
                            )
                        },
                        || {
                            let mut list = SemaphoreList {
                                handles: Vec::new(),
                                semaphores: Vec::new(),
                                values: Vec::new(),
                            };
                            for (semaphore, value) in arc.0.timepoints() {
                                let handle = semaphore_handle(semaphore);
                                list.semaphores.push(Arc::as_ptr(&handle) as usize);
                                list.handles.push(handle);
                                list.values.push(*value);
                            }
                            Ok(list)
                        },
                    )
                })
            };
            match list {
                Ok((semaphores, values, count)) => iree_hal_semaphore_list_t {
                    count,
                    semaphores: semaphores.cast_mut().cast(),
                    payload_values: values.cast_mut(),
                },
                Err(_) => iree_hal_semaphore_list_t::EMPTY,
            }
        },
    )
}

/// `iree_hal_fence_timepoint_count`.
///
/// # Safety
/// `fence` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_timepoint_count(
    fence: *const HalFence,
) -> iree_host_size_t {
    boundary::value("iree_hal_fence_timepoint_count", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(fence) }.map_or(0, |f| f.0.timepoints().len())
    })
}

/// `iree_hal_fence_query`: OK when reached, DEFERRED while pending, or the
/// failure.
///
/// # Safety
/// `fence` is NULL or live (NULL is reached).
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_query(fence: *mut HalFence) -> iree_status_t {
    boundary::status("iree_hal_fence_query", || {
        // SAFETY: per the contract.
        match unsafe { handles::borrow(fence) } {
            None => Ok(()),
            Some(f) if f.0.query()? => Ok(()),
            Some(_) => Err(Status::from_code(StatusCode::Deferred)),
        }
    })
}

/// `iree_hal_fence_signal`: signals every timepoint.
///
/// # Safety
/// `fence` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_signal(fence: *mut HalFence) -> iree_status_t {
    boundary::status("iree_hal_fence_signal", || {
        // SAFETY: per the contract.
        match unsafe { handles::borrow(fence) } {
            None => Ok(()),
            Some(f) => f.0.signal(),
        }
    })
}

/// `iree_hal_fence_fail`: fails every semaphore with `signal_status`
/// (taken).
///
/// # Safety
/// `fence` is NULL or live; `signal_status` is a live status.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_fail(fence: *mut HalFence, signal_status: iree_status_t) {
    boundary::value("iree_hal_fence_fail", (), || {
        // SAFETY: per the contract.
        let error = unsafe { take_status(signal_status) }
            .err()
            .unwrap_or_else(|| Status::from_code(StatusCode::Unknown));
        // SAFETY: per the contract.
        if let Some(f) = unsafe { handles::borrow(fence) } {
            f.0.fail(error);
        }
    })
}

/// `iree_hal_fence_wait`: blocks until reached, failed (its status) or the
/// timeout passes (DEADLINE_EXCEEDED).
///
/// # Safety
/// `fence` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_fence_wait(
    fence: *mut HalFence,
    timeout: Timeout,
    _flags: u32,
) -> iree_status_t {
    boundary::status("iree_hal_fence_wait", || {
        // SAFETY: per the contract.
        match unsafe { handles::borrow(fence) } {
            None => Ok(()),
            Some(f) => f.0.wait(time::deadline(timeout.type_, timeout.nanos)),
        }
    })
}

/// `iree_hal_device_queue_alloca`: a buffer allocated once the wait list
/// is reached, then the signal list is signaled.
///
/// # Safety
/// `device` is live; the lists are valid; `out_buffer` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_queue_alloca(
    device: *mut HalDevice,
    _queue_affinity: u64,
    wait_semaphore_list: iree_hal_semaphore_list_t,
    signal_semaphore_list: iree_hal_semaphore_list_t,
    _pool: *mut std::ffi::c_void,
    params: iree_hal_buffer_params_t,
    allocation_size: u64,
    _flags: u64,
    out_buffer: *mut *mut HalBuffer,
) -> iree_status_t {
    boundary::status("iree_hal_device_queue_alloca", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_buffer.as_mut() }.ok_or_else(|| handles::null_argument("out_buffer"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let device = unsafe { handles::require(device, "device") }?;
        // SAFETY: per the contract.
        let (wait, signal) = unsafe {
            (
                wait_semaphore_list.to_fence()?,
                signal_semaphore_list.to_fence()?,
            )
        };
        let buffer = device
            .0
            .queue_alloca(&wait, &signal, params.to_params(), allocation_size)?;
        *out = handles::into_handle(Arc::new(HalBuffer(buffer)));
        Ok(())
    })
}
