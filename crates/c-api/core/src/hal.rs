//! `iree/hal`: devices, allocators, buffers, buffer views, and the `hal`
//! ref types' helpers (`iree/modules/hal/types.h`).
//!
//! Handles are the VM's `hal.*` objects ([`HalDevice`], [`HalBuffer`], ...)
//! in their `Arc`s. What upstream returns borrowed from an object that
//! holds it by value here (a view's buffer, a device's allocator) is kept
//! in a `DerivedHandles` set for as long as the object lives.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::buffer::{validate_access, validate_memory_type, DeviceAccess};
use iree_hal::{
    compute_view_size, Buffer, BufferParams, BufferUsage, BufferView, ElementType, EncodingType,
    MemoryAccess, MemoryType, Semaphore,
};
use iree_modules_hal::{HalAllocator, HalBuffer, HalBufferView, HalDevice};
use iree_vm::{Instance, List, RefObject, RefType, StaticRefObject};

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::handles::{self, DerivedHandles};
use crate::refs::{builtin, builtin_type_value, iree_vm_ref_t};
use crate::status::{iree_status_t, write_to_file};
use crate::strings::{
    iree_byte_span_t, iree_const_byte_span_t, iree_device_size_t, iree_host_size_t,
};

/// A `hal.semaphore` object (the `hal` module passes semaphores inside
/// fences; C creates them directly).
pub struct HalSemaphore(pub Arc<Semaphore>);

impl RefObject for HalSemaphore {
    fn ref_type(&self) -> RefType {
        iree_modules_hal::semaphore_type()
    }
}

impl StaticRefObject for HalSemaphore {
    fn static_ref_type() -> RefType {
        iree_modules_hal::semaphore_type()
    }
}

/// `iree_hal_buffer_params_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct iree_hal_buffer_params_t {
    /// `iree_hal_buffer_usage_t`.
    pub usage: u32,
    /// `iree_hal_memory_access_t`.
    pub access: u16,
    /// `iree_hal_memory_type_t`.
    pub type_: u32,
    /// `iree_hal_queue_affinity_t`.
    pub queue_affinity: u64,
    /// Minimum alignment (0: the allocator's).
    pub min_alignment: iree_device_size_t,
}

impl iree_hal_buffer_params_t {
    /// The runtime's parameters (canonicalized as upstream does).
    pub(crate) fn to_params(self) -> BufferParams {
        BufferParams {
            usage: BufferUsage(self.usage),
            access: MemoryAccess(self.access),
            memory_type: MemoryType(self.type_),
            queue_affinity: self.queue_affinity,
            min_alignment: self.min_alignment,
        }
        .canonicalize()
    }
}

//===----------------------------------------------------------------------===//
// Derived handles
//===----------------------------------------------------------------------===//

/// The buffer of each view that handed one out.
static VIEW_BUFFERS: DerivedHandles<HalBufferView, Arc<HalBuffer>> = DerivedHandles::new();

/// The allocator of each device that handed one out.
static DEVICE_ALLOCATORS: DerivedHandles<HalDevice, Arc<HalAllocator>> = DerivedHandles::new();

/// The buffer handle of a view, valid while the view lives.
fn view_buffer(view: &Arc<HalBufferView>) -> Result<*mut HalBuffer> {
    VIEW_BUFFERS.get_or_make(
        view,
        |buffer| Arc::as_ptr(buffer).cast_mut(),
        || Ok(Arc::new(HalBuffer(view.0.buffer().clone()))),
    )
}

/// The allocator handle of a device, valid while the device lives.
pub(crate) fn device_allocator(device: &Arc<HalDevice>) -> Result<*mut HalAllocator> {
    DEVICE_ALLOCATORS.get_or_make(
        device,
        |allocator| Arc::as_ptr(allocator).cast_mut(),
        || Ok(Arc::new(HalAllocator(device.0.allocator()))),
    )
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

/// `iree_hal_device_retain`.
///
/// # Safety
/// `device` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_retain(device: *mut HalDevice) {
    // SAFETY: per the contract.
    unsafe { handles::retain(device) }
}

/// `iree_hal_device_release`.
///
/// # Safety
/// `device` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_release(device: *mut HalDevice) {
    boundary::value("iree_hal_device_release", (), || {
        if device.is_null() {
            return;
        }
        // SAFETY: per the contract.
        if unsafe { handles::with_arc(device, Arc::strong_count) } == 1 {
            DEVICE_ALLOCATORS.forget(device as usize);
        }
        // SAFETY: per the contract.
        unsafe { handles::release(device) }
    })
}

/// `iree_hal_device_allocator`: borrowed.
///
/// # Safety
/// `device` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_allocator(device: *mut HalDevice) -> *mut HalAllocator {
    if device.is_null() {
        return std::ptr::null_mut();
    }
    boundary::value("iree_hal_device_allocator", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { handles::with_arc(device, device_allocator) }.unwrap_or(std::ptr::null_mut())
    })
}

/// `iree_hal_device_transfer_d2h`: copies device bytes to host memory.
///
/// # Safety
/// `device` and `source` are live; `target` holds `data_length` bytes.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_transfer_d2h(
    device: *mut HalDevice,
    source: *mut HalBuffer,
    source_offset: iree_device_size_t,
    target: *mut c_void,
    data_length: iree_device_size_t,
    _flags: u32,
    _timeout: Timeout,
) -> iree_status_t {
    boundary::status("iree_hal_device_transfer_d2h", || {
        // SAFETY: per the contract.
        unsafe { handles::require(device, "device") }?;
        // SAFETY: per the contract.
        let source = unsafe { handles::require(source, "source_buffer") }?;
        let out = host_bytes_mut(target, data_length)?;
        source.0.read(source_offset, out)
    })
}

/// `iree_hal_device_transfer_h2d`: copies host bytes into a device buffer.
///
/// # Safety
/// `device` and `target` are live; `source` holds `data_length` bytes.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_transfer_h2d(
    device: *mut HalDevice,
    source: *const c_void,
    target: *mut HalBuffer,
    target_offset: iree_device_size_t,
    data_length: iree_device_size_t,
    _flags: u32,
    _timeout: Timeout,
) -> iree_status_t {
    boundary::status("iree_hal_device_transfer_h2d", || {
        // SAFETY: per the contract.
        unsafe { handles::require(device, "device") }?;
        // SAFETY: per the contract.
        let target = unsafe { handles::require(target, "target_buffer") }?;
        target
            .0
            .write(target_offset, host_bytes(source, data_length)?)
    })
}

/// `iree_timeout_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Timeout {
    /// ABSOLUTE (0) or RELATIVE (1).
    pub type_: u32,
    /// A deadline or a duration, in nanoseconds.
    pub nanos: i64,
}

/// Host memory from C as a slice.
fn host_bytes<'a>(ptr: *const c_void, length: u64) -> Result<&'a [u8]> {
    let length = usize::try_from(length)
        .map_err(|_| Status::new(StatusCode::OutOfRange, "length exceeds host memory"))?;
    if length == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(handles::null_argument("host pointer"));
    }
    // SAFETY: the exported functions' contract: `ptr` holds `length` bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast(), length) })
}

/// Host memory from C as a mutable slice.
fn host_bytes_mut<'a>(ptr: *mut c_void, length: u64) -> Result<&'a mut [u8]> {
    let length = usize::try_from(length)
        .map_err(|_| Status::new(StatusCode::OutOfRange, "length exceeds host memory"))?;
    if length == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(handles::null_argument("host pointer"));
    }
    // SAFETY: the exported functions' contract: `ptr` holds `length` bytes.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr.cast(), length) })
}

//===----------------------------------------------------------------------===//
// Allocators
//===----------------------------------------------------------------------===//

/// `iree_hal_allocator_retain`.
///
/// # Safety
/// `allocator` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_allocator_retain(allocator: *mut HalAllocator) {
    // SAFETY: per the contract.
    unsafe { handles::retain(allocator) }
}

/// `iree_hal_allocator_release`.
///
/// # Safety
/// `allocator` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_allocator_release(allocator: *mut HalAllocator) {
    // SAFETY: per the contract.
    boundary::value("iree_hal_allocator_release", (), || unsafe {
        handles::release(allocator)
    })
}

/// `iree_hal_allocator_allocate_buffer`: a zeroed buffer.
///
/// # Safety
/// `allocator` is live; `out_buffer` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_allocator_allocate_buffer(
    allocator: *mut HalAllocator,
    params: iree_hal_buffer_params_t,
    allocation_size: iree_device_size_t,
    out_buffer: *mut *mut HalBuffer,
) -> iree_status_t {
    boundary::status("iree_hal_allocator_allocate_buffer", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_buffer.as_mut() }.ok_or_else(|| handles::null_argument("out_buffer"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let allocator = unsafe { handles::require(allocator, "allocator") }?;
        let buffer = allocator
            .0
            .allocate_buffer(params.to_params(), allocation_size)?;
        *out = handles::into_handle(Arc::new(HalBuffer(buffer)));
        Ok(())
    })
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// The buffer behind a handle.
///
/// # Safety
/// `buffer` is NULL or live.
unsafe fn buffer<'a>(buffer: *const HalBuffer) -> Result<&'a Buffer> {
    // SAFETY: forwarded contract.
    unsafe { handles::require(buffer, "buffer") }.map(|b| &b.0)
}

/// `iree_hal_buffer_retain`.
///
/// # Safety
/// `buffer` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_retain(buffer: *mut HalBuffer) {
    // SAFETY: per the contract.
    unsafe { handles::retain(buffer) }
}

/// `iree_hal_buffer_release`.
///
/// # Safety
/// `buffer` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_release(buffer: *mut HalBuffer) {
    // SAFETY: per the contract.
    boundary::value("iree_hal_buffer_release", (), || unsafe {
        handles::release(buffer)
    })
}

macro_rules! buffer_getters {
    ($($(#[$doc:meta])* $name:ident -> $ty:ty = |$b:ident| $body:expr;)+) => {
        $(
            $(#[$doc])*
            ///
            /// # Safety
            /// `buffer` is NULL or live.
            #[no_mangle]
            pub unsafe extern "C" fn $name(buffer: *const HalBuffer) -> $ty {
                // SAFETY: per the contract.
                match unsafe { handles::borrow(buffer) } {
                    Some(HalBuffer($b)) => $body,
                    None => Default::default(),
                }
            }
        )+
    };
}

buffer_getters! {
    /// `iree_hal_buffer_byte_length`.
    iree_hal_buffer_byte_length -> iree_device_size_t = |b| b.byte_length();
    /// `iree_hal_buffer_byte_offset`.
    iree_hal_buffer_byte_offset -> iree_device_size_t = |b| b.byte_offset();
    /// `iree_hal_buffer_allocation_size`.
    iree_hal_buffer_allocation_size -> iree_device_size_t = |b| b.allocation_size();
    /// `iree_hal_buffer_memory_type`.
    iree_hal_buffer_memory_type -> u32 = |b| b.memory_type().0;
    /// `iree_hal_buffer_allowed_access`.
    iree_hal_buffer_allowed_access -> u16 = |b| b.allowed_access().0;
    /// `iree_hal_buffer_allowed_usage`.
    iree_hal_buffer_allowed_usage -> u32 = |b| b.allowed_usage().0;
}

/// `iree_hal_buffer_map_read`: copies bytes out.
///
/// # Safety
/// `source_buffer` is live; `target_buffer` holds `data_length` bytes.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_map_read(
    source_buffer: *mut HalBuffer,
    source_offset: iree_device_size_t,
    target_buffer: *mut c_void,
    data_length: iree_device_size_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_map_read", || {
        // SAFETY: per the contract.
        let source = unsafe { buffer(source_buffer) }?;
        source.read(source_offset, host_bytes_mut(target_buffer, data_length)?)
    })
}

/// `iree_hal_buffer_map_write`: copies bytes in.
///
/// # Safety
/// `target_buffer` is live; `source_buffer` holds `data_length` bytes.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_map_write(
    target_buffer: *mut HalBuffer,
    target_offset: iree_device_size_t,
    source_buffer: *const c_void,
    data_length: iree_device_size_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_map_write", || {
        // SAFETY: per the contract.
        let target = unsafe { buffer(target_buffer) }?;
        target.write(target_offset, host_bytes(source_buffer, data_length)?)
    })
}

/// `iree_hal_buffer_map_fill`: a repeated 1, 2 or 4 byte pattern.
///
/// # Safety
/// `buffer` is live; `pattern` holds `pattern_length` bytes.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_map_fill(
    buffer: *mut HalBuffer,
    byte_offset: iree_device_size_t,
    byte_length: iree_device_size_t,
    pattern: *const c_void,
    pattern_length: iree_host_size_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_map_fill", || {
        // SAFETY: per the contract.
        let target = unsafe { self::buffer(buffer) }?;
        target.fill(
            byte_offset,
            byte_length,
            host_bytes(pattern, pattern_length as u64)?,
        )
    })
}

/// `iree_hal_buffer_map_zero`.
///
/// # Safety
/// `buffer` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_map_zero(
    buffer: *mut HalBuffer,
    byte_offset: iree_device_size_t,
    byte_length: iree_device_size_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_map_zero", || {
        // SAFETY: per the contract.
        unsafe { self::buffer(buffer) }?.fill(byte_offset, byte_length, &[0])
    })
}

/// `iree_hal_buffer_map_copy`.
///
/// # Safety
/// Both buffers are live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_map_copy(
    source_buffer: *mut HalBuffer,
    source_offset: iree_device_size_t,
    target_buffer: *mut HalBuffer,
    target_offset: iree_device_size_t,
    data_length: iree_device_size_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_map_copy", || {
        // SAFETY: per the contract.
        let (source, target) = unsafe { (buffer(source_buffer)?, buffer(target_buffer)?) };
        target.copy_from(target_offset, source, source_offset, data_length)
    })
}

/// `iree_hal_buffer_subspan`.
///
/// # Safety
/// `buffer` is live; `out_buffer` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_subspan(
    buffer: *mut HalBuffer,
    byte_offset: iree_device_size_t,
    byte_length: iree_device_size_t,
    _host_allocator: iree_allocator_t,
    out_buffer: *mut *mut HalBuffer,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_subspan", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_buffer.as_mut() }.ok_or_else(|| handles::null_argument("out_buffer"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let span = unsafe { self::buffer(buffer) }?.subspan(byte_offset, byte_length)?;
        *out = handles::into_handle(Arc::new(HalBuffer(span)));
        Ok(())
    })
}

/// `iree_hal_buffer_mapping_impl_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_hal_buffer_mapping_impl_t {
    /// Offset of the mapping within the buffer.
    pub byte_offset: iree_device_size_t,
    /// Access the mapping allows.
    pub allowed_access: u16,
    /// `is_persistent : 1` and reserved bits.
    pub flags: u32,
    /// Here: the `Mapping` that holds the memory (owned).
    pub reserved: [u64; 1],
}

/// `iree_hal_buffer_mapping_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_hal_buffer_mapping_t {
    /// The mapped bytes.
    pub contents: iree_byte_span_t,
    /// The mapped buffer.
    pub buffer: *mut HalBuffer,
    /// Implementation fields.
    pub impl_: iree_hal_buffer_mapping_impl_t,
}

/// What keeps a mapping's memory valid until it is unmapped: device use
/// of host memory (no other host access may start meanwhile), or a staging
/// copy of device-only memory written back when the mapping allowed writes.
struct Mapping {
    /// Declared first so it is released before `buffer` drops.
    access: Option<DeviceAccess<'static>>,
    staging: Option<Vec<u8>>,
    buffer: Box<Buffer>,
    offset: u64,
    write_back: bool,
}

/// `iree_hal_buffer_map_range`: maps `[byte_offset, +byte_length)` until
/// `iree_hal_buffer_unmap_range`.
///
/// # Safety
/// `buffer` is live; `out_buffer_mapping` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_map_range(
    buffer: *mut HalBuffer,
    _mapping_mode: u32,
    memory_access: u16,
    byte_offset: iree_device_size_t,
    byte_length: iree_device_size_t,
    out_buffer_mapping: *mut iree_hal_buffer_mapping_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_map_range", || {
        // SAFETY: per the contract.
        let out = unsafe { out_buffer_mapping.as_mut() }
            .ok_or_else(|| handles::null_argument("out_buffer_mapping"))?;
        // SAFETY: the struct is plain data; zeroing is its empty state.
        unsafe { std::ptr::write_bytes(out as *mut iree_hal_buffer_mapping_t, 0, 1) };
        // SAFETY: per the contract.
        let source = unsafe { self::buffer(buffer) }?;
        validate_memory_type(source.memory_type(), MemoryType::HOST_VISIBLE)?;
        let access = MemoryAccess(memory_access);
        validate_access(
            source.allowed_access(),
            MemoryAccess(access.0 & !MemoryAccess::DISCARD.0),
        )?;
        let view = source.subspan(byte_offset, byte_length)?;
        let length = usize::try_from(view.byte_length())
            .map_err(|_| Status::new(StatusCode::OutOfRange, "mapping exceeds host memory"))?;
        let mut mapping = Box::new(Mapping {
            access: None,
            staging: None,
            buffer: Box::new(view),
            offset: byte_offset,
            write_back: access.0 & MemoryAccess::WRITE.0 != 0,
        });
        let data = if mapping.buffer.host_memory().is_some() {
            let guard = mapping.buffer.begin_device_access()?;
            let base = guard.base_ptr();
            // SAFETY: the guard borrows the allocation behind the boxed
            // buffer, which lives (at a fixed address) until the mapping
            // drops, and the mapping drops the guard first.
            let guard: DeviceAccess<'static> = unsafe { std::mem::transmute(guard) };
            mapping.access = Some(guard);
            // SAFETY: the subspan lies within the allocation.
            unsafe { base.add(mapping.buffer.byte_offset() as usize) }
        } else {
            let mut staging = vec![0u8; length];
            mapping.buffer.read(0, &mut staging)?;
            let data = staging.as_mut_ptr();
            mapping.staging = Some(staging);
            data
        };
        out.contents = iree_byte_span_t {
            data,
            data_length: length,
        };
        out.buffer = buffer;
        out.impl_ = iree_hal_buffer_mapping_impl_t {
            byte_offset,
            allowed_access: memory_access,
            flags: 0,
            reserved: [Box::into_raw(mapping) as u64],
        };
        Ok(())
    })
}

/// `iree_hal_buffer_unmap_range`: ends a mapping (writing staged bytes of
/// device-only memory back).
///
/// # Safety
/// `buffer_mapping` is NULL, zeroed or a live mapping.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_unmap_range(
    buffer_mapping: *mut iree_hal_buffer_mapping_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_unmap_range", || {
        // SAFETY: per the contract.
        let Some(out) = (unsafe { buffer_mapping.as_mut() }) else {
            return Ok(());
        };
        let raw = out.impl_.reserved[0] as usize as *mut Mapping;
        out.impl_.reserved[0] = 0;
        out.contents = iree_byte_span_t {
            data: std::ptr::null_mut(),
            data_length: 0,
        };
        if raw.is_null() {
            return Ok(());
        }
        // SAFETY: made by `iree_hal_buffer_map_range` and taken once.
        let mapping = unsafe { Box::from_raw(raw) };
        let _ = mapping.offset;
        if let (Some(staging), true) = (&mapping.staging, mapping.write_back) {
            mapping.buffer.write(0, staging)?;
        }
        Ok(())
    })
}

//===----------------------------------------------------------------------===//
// Buffer views
//===----------------------------------------------------------------------===//

/// The view behind a handle.
///
/// # Safety
/// `view` is NULL or live.
unsafe fn view<'a>(view: *const HalBufferView) -> Result<&'a BufferView> {
    // SAFETY: forwarded contract.
    unsafe { handles::require(view, "buffer_view") }.map(|v| &v.0)
}

/// A shape from C.
fn shape_of(rank: iree_host_size_t, shape: *const u64) -> Result<Vec<usize>> {
    if rank == 0 {
        return Ok(Vec::new());
    }
    if shape.is_null() {
        return Err(handles::null_argument("shape"));
    }
    // SAFETY: the exported functions' contract: `shape` holds `rank` dims.
    unsafe { std::slice::from_raw_parts(shape, rank) }
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .map_err(|_| Status::new(StatusCode::OutOfRange, "dimension too large"))
        })
        .collect()
}

/// Hands a new view to C, remembering `buffer` as its buffer handle when
/// given.
fn new_view(view: BufferView, buffer: Option<Arc<HalBuffer>>) -> *mut HalBufferView {
    let view = Arc::new(HalBufferView(view));
    if let Some(buffer) = buffer {
        VIEW_BUFFERS.insert(&view, buffer);
    }
    handles::into_handle(view)
}

/// `iree_hal_buffer_view_create`.
///
/// # Safety
/// `buffer` is live; `shape` holds `shape_rank` dims; `out_buffer_view`
/// is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_create(
    buffer: *mut HalBuffer,
    shape_rank: iree_host_size_t,
    shape: *const u64,
    element_type: u32,
    encoding_type: u32,
    _host_allocator: iree_allocator_t,
    out_buffer_view: *mut *mut HalBufferView,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_view_create", || {
        // SAFETY: per the contract.
        let out = unsafe { out_buffer_view.as_mut() }
            .ok_or_else(|| handles::null_argument("out_buffer_view"))?;
        *out = std::ptr::null_mut();
        if buffer.is_null() {
            return Err(handles::null_argument("buffer"));
        }
        // SAFETY: per the contract.
        let buffer = unsafe { handles::clone_arc(buffer) };
        let view = BufferView::new(
            buffer.0.clone(),
            shape_of(shape_rank, shape)?,
            ElementType(element_type),
            EncodingType(encoding_type),
        )?;
        *out = new_view(view, Some(buffer));
        Ok(())
    })
}

/// `iree_hal_buffer_view_create_like`: a view of `buffer` with the shape
/// and types of `like_view`.
///
/// # Safety
/// Both are live; `out_buffer_view` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_create_like(
    buffer: *mut HalBuffer,
    like_view: *mut HalBufferView,
    host_allocator: iree_allocator_t,
    out_buffer_view: *mut *mut HalBufferView,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_view_create_like", || {
        // SAFETY: per the contract.
        let like = unsafe { view(like_view) }?;
        let shape: Vec<u64> = like.shape().iter().map(|&d| d as u64).collect();
        // SAFETY: per the contract.
        let status = unsafe {
            iree_hal_buffer_view_create(
                buffer,
                shape.len(),
                shape.as_ptr(),
                like.element_type().0,
                like.encoding().0,
                host_allocator,
                out_buffer_view,
            )
        };
        // SAFETY: a status we made.
        unsafe { crate::status::take_status(status) }
    })
}

/// `iree_hal_buffer_view_allocate_buffer_copy`: a new buffer of
/// `device_allocator` holding `initial_data`, viewed with the shape and
/// types given.
///
/// # Safety
/// `device_allocator` is live; `shape` holds `shape_rank` dims;
/// `initial_data` is valid; `out_buffer_view` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_allocate_buffer_copy(
    _device: *mut HalDevice,
    device_allocator: *mut HalAllocator,
    shape_rank: iree_host_size_t,
    shape: *const u64,
    element_type: u32,
    encoding_type: u32,
    buffer_params: iree_hal_buffer_params_t,
    initial_data: iree_const_byte_span_t,
    out_buffer_view: *mut *mut HalBufferView,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_view_allocate_buffer_copy", || {
        // SAFETY: per the contract.
        let out = unsafe { out_buffer_view.as_mut() }
            .ok_or_else(|| handles::null_argument("out_buffer_view"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let allocator = unsafe { handles::require(device_allocator, "device_allocator") }?;
        let shape = shape_of(shape_rank, shape)?;
        let (element_type, encoding) = (ElementType(element_type), EncodingType(encoding_type));
        let size = compute_view_size(&shape, element_type, encoding)?;
        // SAFETY: per the contract.
        let data = unsafe { initial_data.as_slice() };
        if data.len() > size {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "initial data of {} bytes exceeds the {size}-byte buffer view",
                    data.len()
                ),
            ));
        }
        let mut params = buffer_params.to_params();
        params.usage = BufferUsage(params.usage.0 | BufferUsage::TRANSFER_TARGET.0);
        let buffer = if data.len() == size {
            allocator.0.allocate_buffer_with(params, data)?
        } else {
            let buffer = allocator.0.allocate_buffer(params, size as u64)?;
            buffer.write(0, data)?;
            buffer
        };
        *out = new_view(
            BufferView::new(buffer, shape, element_type, encoding)?,
            None,
        );
        Ok(())
    })
}

/// `iree_hal_buffer_view_retain`.
///
/// # Safety
/// `buffer_view` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_retain(buffer_view: *mut HalBufferView) {
    // SAFETY: per the contract.
    unsafe { handles::retain(buffer_view) }
}

/// `iree_hal_buffer_view_release`.
///
/// # Safety
/// `buffer_view` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_release(buffer_view: *mut HalBufferView) {
    boundary::value("iree_hal_buffer_view_release", (), || {
        if buffer_view.is_null() {
            return;
        }
        // SAFETY: per the contract.
        if unsafe { handles::with_arc(buffer_view, Arc::strong_count) } == 1 {
            VIEW_BUFFERS.forget(buffer_view as usize);
        }
        // SAFETY: per the contract.
        unsafe { handles::release(buffer_view) }
    })
}

/// `iree_hal_buffer_view_buffer`: borrowed, valid while the view lives.
///
/// # Safety
/// `buffer_view` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_buffer(
    buffer_view: *const HalBufferView,
) -> *mut HalBuffer {
    if buffer_view.is_null() {
        return std::ptr::null_mut();
    }
    boundary::value("iree_hal_buffer_view_buffer", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { handles::with_arc(buffer_view, view_buffer) }.unwrap_or(std::ptr::null_mut())
    })
}

macro_rules! view_getters {
    ($($(#[$doc:meta])* $name:ident -> $ty:ty = |$v:ident| $body:expr;)+) => {
        $(
            $(#[$doc])*
            ///
            /// # Safety
            /// `buffer_view` is NULL or live.
            #[no_mangle]
            pub unsafe extern "C" fn $name(buffer_view: *const HalBufferView) -> $ty {
                // SAFETY: per the contract.
                match unsafe { handles::borrow(buffer_view) } {
                    Some(HalBufferView($v)) => $body,
                    None => Default::default(),
                }
            }
        )+
    };
}

view_getters! {
    /// `iree_hal_buffer_view_shape_rank`.
    iree_hal_buffer_view_shape_rank -> iree_host_size_t = |v| v.rank();
    /// `iree_hal_buffer_view_element_count`.
    iree_hal_buffer_view_element_count -> iree_host_size_t = |v| v.element_count();
    /// `iree_hal_buffer_view_element_type`.
    iree_hal_buffer_view_element_type -> u32 = |v| v.element_type().0;
    /// `iree_hal_buffer_view_element_size`: bytes per element (rounded up).
    iree_hal_buffer_view_element_size -> iree_host_size_t = |v| v.element_type().bit_count().div_ceil(8);
    /// `iree_hal_buffer_view_encoding_type`.
    iree_hal_buffer_view_encoding_type -> u32 = |v| v.encoding().0;
    /// `iree_hal_buffer_view_byte_length`: the bytes the shape covers.
    iree_hal_buffer_view_byte_length -> iree_device_size_t = |v| {
        compute_view_size(v.shape(), v.element_type(), v.encoding()).unwrap_or(0) as u64
    };
}

// Dimensions are `usize` here and `iree_hal_dim_t` (64 bits) in C.
const _: () = assert!(std::mem::size_of::<usize>() == std::mem::size_of::<u64>());

/// `iree_hal_buffer_view_shape_dims`: borrowed, valid while the view lives.
///
/// # Safety
/// `buffer_view` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_shape_dims(
    buffer_view: *const HalBufferView,
) -> *const u64 {
    boundary::value("iree_hal_buffer_view_shape_dims", std::ptr::null(), || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(buffer_view) }
            .map_or(std::ptr::null(), |v| v.0.shape().as_ptr().cast())
    })
}

/// `iree_hal_buffer_view_shape_dim`: dimension `index`, 0 when out of range.
///
/// # Safety
/// `buffer_view` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_shape_dim(
    buffer_view: *const HalBufferView,
    index: iree_host_size_t,
) -> u64 {
    boundary::value("iree_hal_buffer_view_shape_dim", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(buffer_view) }
            .and_then(|v| v.0.shape().get(index).copied())
            .unwrap_or(0) as u64
    })
}

/// `iree_hal_buffer_view_shape`: copies the dims; OUT_OF_RANGE (with the
/// rank written) when `rank_capacity` is too small.
///
/// # Safety
/// `buffer_view` is live; `out_shape` holds `rank_capacity` dims;
/// `out_shape_rank` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_shape(
    buffer_view: *const HalBufferView,
    rank_capacity: iree_host_size_t,
    out_shape: *mut u64,
    out_shape_rank: *mut iree_host_size_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_view_shape", || {
        // SAFETY: per the contract.
        let view = unsafe { view(buffer_view) }?;
        // SAFETY: per the contract.
        if let Some(out) = unsafe { out_shape_rank.as_mut() } {
            *out = view.rank();
        }
        if rank_capacity < view.rank() {
            return Err(Status::from_code(StatusCode::OutOfRange));
        }
        for (i, &d) in view.shape().iter().enumerate() {
            // SAFETY: `i < rank <= rank_capacity`.
            unsafe { *out_shape.add(i) = d as u64 };
        }
        Ok(())
    })
}

/// The text of a view, elided past `max_element_count` elements.
fn format_view(view: &BufferView, max_element_count: usize) -> Result<String> {
    view.format(max_element_count)
}

/// `iree_hal_buffer_view_format`: the view's text into `buffer`
/// (NUL-terminated); RESOURCE_EXHAUSTED (with the length written) when it
/// does not fit.
///
/// # Safety
/// `buffer_view` is live; `buffer` holds `buffer_capacity` bytes;
/// `out_buffer_length` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_format(
    buffer_view: *const HalBufferView,
    max_element_count: iree_host_size_t,
    buffer_capacity: iree_host_size_t,
    buffer: *mut c_char,
    out_buffer_length: *mut iree_host_size_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_view_format", || {
        // SAFETY: per the contract.
        let text = format_view(unsafe { view(buffer_view) }?, max_element_count)?;
        // SAFETY: per the contract.
        if let Some(out) = unsafe { out_buffer_length.as_mut() } {
            *out = text.len();
        }
        if buffer.is_null() || buffer_capacity <= text.len() {
            return Err(Status::from_code(StatusCode::ResourceExhausted));
        }
        // SAFETY: `buffer` holds more than `text.len()` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buffer.cast::<u8>(), text.len());
            *buffer.add(text.len()) = 0;
        }
        Ok(())
    })
}

/// `iree_hal_buffer_view_fprint`: the view's text (no newline), through
/// stdio.
///
/// # Safety
/// `file` is a valid open `FILE*`; `buffer_view` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_buffer_view_fprint(
    file: *mut libc::FILE,
    buffer_view: *const HalBufferView,
    max_element_count: iree_host_size_t,
    _host_allocator: iree_allocator_t,
) -> iree_status_t {
    boundary::status("iree_hal_buffer_view_fprint", || {
        if file.is_null() {
            return Err(handles::null_argument("file"));
        }
        // SAFETY: per the contract.
        let text = format_view(unsafe { view(buffer_view) }?, max_element_count)?;
        // SAFETY: per the contract.
        if unsafe { write_to_file(file, &text) } {
            Ok(())
        } else {
            Err(Status::new(
                StatusCode::DataLoss,
                "failed to write the buffer view",
            ))
        }
    })
}

//===----------------------------------------------------------------------===//
// iree/modules/hal/types.h
//===----------------------------------------------------------------------===//

/// `iree_hal_module_register_all_types`.
///
/// # Safety
/// `instance` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_module_register_all_types(
    instance: *mut Instance,
) -> iree_status_t {
    boundary::status("iree_hal_module_register_all_types", || {
        // SAFETY: per the contract.
        let instance = unsafe { handles::require(instance, "instance") }?;
        iree_modules_hal::register_types(instance)
    })
}

/// `iree_hal_module_resolve_all_types`: the types' values are fixed in
/// this library; nothing to resolve.
#[no_mangle]
pub extern "C" fn iree_hal_module_resolve_all_types(_instance: *mut Instance) -> iree_status_t {
    boundary::forward("iree_hal_module_resolve_all_types", || iree_status_t::OK)
}

/// The object of builtin type `index` at list element `i`, borrowed.
///
/// # Safety
/// `list` is live.
unsafe fn list_get(list: *const List, i: usize, index: usize) -> *mut c_void {
    // SAFETY: forwarded contract.
    unsafe { crate::vm::iree_vm_list_get_ref_deref(list, i, builtin_type_value(index)) }
}

macro_rules! list_accessors {
    ($($ty:ty, $index:expr, $assign:ident, $retain:ident, $set:ident;)+) => {
        $(
            #[doc = concat!("`", stringify!($assign), "`: borrowed, NULL when not of the type.")]
            ///
            /// # Safety
            /// `list` is live.
            #[no_mangle]
            pub unsafe extern "C" fn $assign(list: *const List, i: iree_host_size_t) -> *mut $ty {
                // SAFETY: per the contract.
                unsafe { list_get(list, i, $index) }.cast()
            }

            #[doc = concat!("`", stringify!($retain), "`: with a count for the caller.")]
            ///
            /// # Safety
            /// `list` is live.
            #[no_mangle]
            pub unsafe extern "C" fn $retain(list: *const List, i: iree_host_size_t) -> *mut $ty {
                // SAFETY: per the contract.
                let value = unsafe { list_get(list, i, $index) };
                // SAFETY: a live object of the type, held by the list.
                unsafe { crate::refs::retain_object(value, builtin_type_value($index)) };
                value.cast()
            }

            #[doc = concat!("`", stringify!($set), "`.")]
            ///
            /// # Safety
            /// `list` is live; `value` is NULL or live.
            #[no_mangle]
            pub unsafe extern "C" fn $set(list: *mut List, i: iree_host_size_t, value: *mut $ty) -> iree_status_t {
                let r = if value.is_null() {
                    iree_vm_ref_t::NULL
                } else {
                    iree_vm_ref_t { ptr: value.cast(), type_: builtin_type_value($index) }
                };
                // SAFETY: per the contract.
                unsafe { crate::vm::iree_vm_list_set_ref_retain(list, i, &r) }
            }
        )+
    };
}

list_accessors! {
    HalBuffer, builtin::HAL_BUFFER, iree_vm_list_get_buffer_assign, iree_vm_list_get_buffer_retain, iree_vm_list_set_buffer_retain;
    HalBufferView, builtin::HAL_BUFFER_VIEW, iree_vm_list_get_buffer_view_assign, iree_vm_list_get_buffer_view_retain, iree_vm_list_set_buffer_view_retain;
    iree_modules_hal::HalFence, builtin::HAL_FENCE, iree_vm_list_get_fence_assign, iree_vm_list_get_fence_retain, iree_vm_list_set_fence_retain;
}

/// The C handle of a device the runtime made, for C (count 1).
pub(crate) fn device_handle(device: Arc<dyn iree_hal::Device>) -> *mut HalDevice {
    handles::into_handle(Arc::new(HalDevice(device)))
}
