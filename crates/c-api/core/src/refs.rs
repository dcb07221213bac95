//! `iree_vm_ref_t` and ref types: the bridge between C refs (`{ptr, type}`
//! with an intrusive count) and the VM's [`Ref`].
//!
//! * **The library's own objects** (`vm.buffer`, `vm.list`, `hal.*`) are
//!   handed to C as the address of the VM object itself inside its `Arc`
//!   (the same object the VM holds, so identity survives every crossing);
//!   their count is the `Arc`'s. Each has a static descriptor exported as
//!   `<name>_registration` (read by the inline `*_type()`/`*_isa()` in user
//!   code), and a [`BuiltinType`] entry that knows its Rust type.
//! * **Types registered from C** (`iree_vm_instance_register_type`) keep
//!   upstream's intrusive count at `offsetof_counter` words into the object
//!   and are destroyed by their descriptor's `destroy`. The VM holds them as
//!   a `ForeignRef` that owns one count.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_modules_hal::{
    HalAllocator, HalBuffer, HalBufferView, HalChannel, HalCommandBuffer, HalDevice, HalExecutable,
    HalFence, HalFile,
};
use iree_vm::{Ref, RefObject, RefType, RefTypeDescriptor};
use parking_lot::RwLock;

use crate::boundary;
use crate::hal::HalSemaphore;
use crate::status::{iree_status_t, IntoCStatus};
use crate::strings::iree_string_view_t;

/// `iree_vm_ref_type_t`: a descriptor address with the counter offset (in
/// 4-byte words) in the low 3 bits.
#[allow(non_camel_case_types)]
pub type iree_vm_ref_type_t = usize;

/// The low bits of a ref type that hold the counter offset.
const TAG_MASK: usize = 0b111;

/// `IREE_VM_REF_COUNTER_ALIGNMENT`: counters are `int32_t` words.
const COUNTER_ALIGNMENT: usize = 4;

/// `iree_vm_ref_destroy_t`.
#[allow(non_camel_case_types)]
pub type iree_vm_ref_destroy_t = unsafe extern "C" fn(ptr: *mut c_void);

/// `iree_vm_ref_type_descriptor_t` (8-byte aligned; `bits` holds the
/// `offsetof_counter : 3` bitfield and the reserved bits above it).
#[allow(non_camel_case_types)]
#[repr(C, align(8))]
pub struct iree_vm_ref_type_descriptor_t {
    /// Destroys an object whose count reached zero.
    pub destroy: Option<iree_vm_ref_destroy_t>,
    /// The type name (`custom.string`).
    pub type_name: iree_string_view_t,
    /// `offsetof_counter` in the low 3 bits.
    pub bits: usize,
}

/// `iree_vm_ref_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct iree_vm_ref_t {
    /// The object, or NULL.
    pub ptr: *mut c_void,
    /// Its type, 0 for null.
    pub type_: iree_vm_ref_type_t,
}

impl iree_vm_ref_t {
    /// The null ref.
    pub const NULL: iree_vm_ref_t = iree_vm_ref_t {
        ptr: std::ptr::null_mut(),
        type_: 0,
    };

    /// True for the null ref.
    pub fn is_null(&self) -> bool {
        self.type_ == 0 || self.ptr.is_null()
    }
}

/// A descriptor the library defines, shareable between threads.
#[repr(transparent)]
pub struct StaticDescriptor(iree_vm_ref_type_descriptor_t);

// SAFETY: the descriptor is immutable and its name points at static text.
unsafe impl Sync for StaticDescriptor {}

impl StaticDescriptor {
    const fn new(name: &'static str, destroy: iree_vm_ref_destroy_t) -> StaticDescriptor {
        StaticDescriptor(iree_vm_ref_type_descriptor_t {
            destroy: Some(destroy),
            type_name: iree_string_view_t {
                data: name.as_ptr().cast(),
                size: name.len(),
            },
            bits: 0,
        })
    }
}

/// An exported `<name>_registration` variable: a ref type value (the
/// descriptor address; the library's objects keep no intrusive counter).
#[repr(transparent)]
pub struct Registration(*const StaticDescriptor);

// SAFETY: the pointer targets an immutable static.
unsafe impl Sync for Registration {}

/// How the library handles objects of one of its own ref types.
pub struct BuiltinType {
    /// The VM's type.
    pub rust_type: fn() -> RefType,
    /// Adds a count to the object at a C handle.
    pub retain: unsafe fn(*mut c_void),
    /// Drops a count from the object at a C handle.
    pub release: unsafe fn(*mut c_void),
    /// A VM ref (with its own count) of the object at a C handle.
    pub to_ref: unsafe fn(*mut c_void) -> Ref,
    /// The C handle of a VM ref of this type (borrowed: no count added).
    pub handle_of: fn(&Ref) -> Option<*mut c_void>,
}

/// C handles of the library's objects are `Arc::into_raw` addresses.
mod arc_handle {
    use super::*;

    pub unsafe fn retain<T>(ptr: *mut c_void) {
        // SAFETY: the caller's handle is a live `Arc<T>` address.
        unsafe { Arc::increment_strong_count(ptr as *const T) }
    }

    pub unsafe fn release<T>(ptr: *mut c_void) {
        // SAFETY: the caller's handle owns one count of a live `Arc<T>`.
        unsafe { Arc::decrement_strong_count(ptr as *const T) }
    }

    pub unsafe fn to_ref<T: RefObject>(ptr: *mut c_void) -> Ref {
        // SAFETY: the handle is a live `Arc<T>` address; the new count is
        // owned by the returned ref.
        unsafe {
            Arc::increment_strong_count(ptr as *const T);
            Ref::from_arc(Arc::from_raw(ptr as *const T))
        }
    }

    pub fn handle_of<T: RefObject>(r: &Ref) -> Option<*mut c_void> {
        r.downcast::<T>()
            .map(|object| object as *const T as *mut c_void)
    }

    pub unsafe extern "C" fn destroy<T>(ptr: *mut c_void) {
        if !ptr.is_null() {
            // SAFETY: as `release`.
            unsafe { release::<T>(ptr) }
        }
    }
}

/// `hal.executable_cache` has no VM objects here; its type exists so that
/// programs naming it link.
static EXECUTABLE_CACHE_TYPE: RefTypeDescriptor = RefTypeDescriptor {
    name: "hal.executable_cache",
};

/// A descriptor for types whose objects the library never hands out.
unsafe extern "C" fn destroy_nothing(_ptr: *mut c_void) {}

macro_rules! builtin_types {
    ($(
        $index:literal: $name:literal, $adapter:ident, $registration:ident, $rust_type:expr,
        $kind:ident $(($($kind_args:tt)*))?;
    )+) => {
        /// The descriptors of the library's ref types, in one array so that
        /// an address identifies a builtin type by a range check.
        static DESCRIPTORS: [StaticDescriptor; BUILTIN_COUNT] = [
            $(StaticDescriptor::new($name, builtin_types!(@destroy $kind $(($($kind_args)*))?)),)+
        ];

        /// The handling of each builtin type, in [`DESCRIPTORS`] order.
        static BUILTINS: [Option<BuiltinType>; BUILTIN_COUNT] = [
            $(builtin_types!(@ops $rust_type; $kind $(($($kind_args)*))?),)+
        ];

        /// The VM type of each builtin type, in [`DESCRIPTORS`] order.
        fn builtin_rust_type(index: usize) -> RefType {
            const TYPES: [fn() -> RefType; BUILTIN_COUNT] = [$($rust_type,)+];
            TYPES[index]()
        }

        $(
            #[doc = concat!("`", stringify!($registration), "`: the `", $name, "` ref type.")]
            #[no_mangle]
            pub static $registration: Registration = Registration(&DESCRIPTORS[$index]);

            builtin_types!(@adapters $index, $adapter, $kind);
        )+
    };
    (@destroy arc($object:ty)) => { arc_handle::destroy::<$object> };
    (@destroy custom($ops:expr, $destroy:expr)) => { $destroy };
    (@destroy none) => { destroy_nothing };
    (@ops $rust_type:expr; arc($object:ty)) => {
        Some(BuiltinType {
            rust_type: $rust_type,
            retain: arc_handle::retain::<$object>,
            release: arc_handle::release::<$object>,
            to_ref: arc_handle::to_ref::<$object>,
            handle_of: arc_handle::handle_of::<$object>,
        })
    };
    (@ops $rust_type:expr; custom($ops:expr, $destroy:expr)) => { Some($ops) };
    (@ops $rust_type:expr; none) => { None };
    (@adapters $index:literal, $adapter:ident, none) => {};
    (@adapters $index:literal, $adapter:ident, $kind:ident) => {
        pastey::paste! {
            #[doc = concat!("`", stringify!($adapter), "_retain_ref`: a ref with a new count.")]
            ///
            /// # Safety
            /// `value` is NULL or a live handle of this type.
            #[no_mangle]
            pub unsafe extern "C" fn [<$adapter _retain_ref>](value: *mut c_void) -> iree_vm_ref_t {
                if value.is_null() {
                    return iree_vm_ref_t::NULL;
                }
                let type_ = builtin_type_value($index);
                // SAFETY: per the contract.
                unsafe { retain_object(value, type_) };
                iree_vm_ref_t { ptr: value, type_ }
            }

            #[doc = concat!("`", stringify!($adapter), "_move_ref`: a ref taking over the caller's count.")]
            #[no_mangle]
            pub extern "C" fn [<$adapter _move_ref>](value: *mut c_void) -> iree_vm_ref_t {
                if value.is_null() {
                    return iree_vm_ref_t::NULL;
                }
                iree_vm_ref_t { ptr: value, type_: builtin_type_value($index) }
            }

            #[doc = concat!("`", stringify!($adapter), "_check_deref`: the object, or INVALID_ARGUMENT.")]
            ///
            /// # Safety
            /// `out_ptr` is valid.
            #[no_mangle]
            pub unsafe extern "C" fn [<$adapter _check_deref>](
                value: iree_vm_ref_t,
                out_ptr: *mut *mut c_void,
            ) -> iree_status_t {
                // SAFETY: forwarded contract.
                unsafe { check_deref($index, value, out_ptr, false) }
            }

            #[doc = concat!("`", stringify!($adapter), "_check_deref_or_null`: the object or NULL, or INVALID_ARGUMENT.")]
            ///
            /// # Safety
            /// `out_ptr` is valid.
            #[no_mangle]
            pub unsafe extern "C" fn [<$adapter _check_deref_or_null>](
                value: iree_vm_ref_t,
                out_ptr: *mut *mut c_void,
            ) -> iree_status_t {
                // SAFETY: forwarded contract.
                unsafe { check_deref($index, value, out_ptr, true) }
            }
        }
    };
}

/// How many ref types the library defines.
const BUILTIN_COUNT: usize = 14;

builtin_types! {
    0: "vm.buffer", iree_vm_buffer, iree_vm_buffer_registration,
        iree_vm::buffer::buffer_type, custom(crate::vm::VM_BUFFER_OPS, crate::vm::destroy_vm_buffer);
    1: "vm.list", iree_vm_list, iree_vm_list_registration,
        iree_vm::list::list_type, arc(iree_vm::List);
    2: "hal.allocator", iree_hal_allocator, iree_hal_allocator_registration,
        iree_modules_hal::allocator_type, arc(HalAllocator);
    3: "hal.buffer", iree_hal_buffer, iree_hal_buffer_registration,
        iree_modules_hal::buffer_type, arc(HalBuffer);
    4: "hal.buffer_view", iree_hal_buffer_view, iree_hal_buffer_view_registration,
        iree_modules_hal::buffer_view_type, arc(HalBufferView);
    5: "hal.channel", iree_hal_channel, iree_hal_channel_registration,
        iree_modules_hal::channel_type, arc(HalChannel);
    6: "hal.command_buffer", iree_hal_command_buffer, iree_hal_command_buffer_registration,
        iree_modules_hal::command_buffer_type, arc(HalCommandBuffer);
    7: "hal.device", iree_hal_device, iree_hal_device_registration,
        iree_modules_hal::device_type, arc(HalDevice);
    8: "hal.event", iree_hal_event, iree_hal_event_registration,
        iree_modules_hal::event_type, none;
    9: "hal.executable", iree_hal_executable, iree_hal_executable_registration,
        iree_modules_hal::executable_type, arc(HalExecutable);
    10: "hal.executable_cache", iree_hal_executable_cache, iree_hal_executable_cache_registration,
        executable_cache_type, none;
    11: "hal.fence", iree_hal_fence, iree_hal_fence_registration,
        iree_modules_hal::fence_type, arc(HalFence);
    12: "hal.file", iree_hal_file, iree_hal_file_registration,
        iree_modules_hal::file_type, arc(HalFile);
    13: "hal.semaphore", iree_hal_semaphore, iree_hal_semaphore_registration,
        iree_modules_hal::semaphore_type, arc(HalSemaphore);
}

fn executable_cache_type() -> RefType {
    RefType::new(&EXECUTABLE_CACHE_TYPE)
}

/// Indices of builtin types other modules name.
pub mod builtin {
    /// `vm.buffer`.
    pub const VM_BUFFER: usize = 0;
    /// `vm.list`.
    pub const VM_LIST: usize = 1;
    /// `hal.allocator`.
    pub const HAL_ALLOCATOR: usize = 2;
    /// `hal.buffer`.
    pub const HAL_BUFFER: usize = 3;
    /// `hal.buffer_view`.
    pub const HAL_BUFFER_VIEW: usize = 4;
    /// `hal.device`.
    pub const HAL_DEVICE: usize = 7;
    /// `hal.fence`.
    pub const HAL_FENCE: usize = 11;
    /// `hal.semaphore`.
    pub const HAL_SEMAPHORE: usize = 13;
}

/// The C type value of builtin type `index`.
pub fn builtin_type_value(index: usize) -> iree_vm_ref_type_t {
    &DESCRIPTORS[index] as *const StaticDescriptor as usize
}

/// The builtin type index of a C type value, if it is one of ours.
fn builtin_index(type_: iree_vm_ref_type_t) -> Option<usize> {
    let address = type_ & !TAG_MASK;
    let start = DESCRIPTORS.as_ptr() as usize;
    let size = std::mem::size_of::<StaticDescriptor>();
    (address >= start
        && address < start + BUILTIN_COUNT * size
        && (address - start).is_multiple_of(size))
    .then(|| (address - start) / size)
}

/// `_check_deref` of the adapters: the object of a ref of builtin type
/// `index` (NULL allowed when `or_null`).
unsafe fn check_deref(
    index: usize,
    value: iree_vm_ref_t,
    out_ptr: *mut *mut c_void,
    or_null: bool,
) -> iree_status_t {
    boundary::status("check_deref", || {
        if out_ptr.is_null() {
            return Err(Status::new(StatusCode::InvalidArgument, "null out_ptr"));
        }
        if or_null && value.type_ == 0 {
            // SAFETY: checked non-null; valid per the contract.
            unsafe { *out_ptr = std::ptr::null_mut() };
            return Ok(());
        }
        if value.type_ != builtin_type_value(index) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                if value.type_ == 0 {
                    "ref is null"
                } else {
                    "ref type mismatch"
                },
            ));
        }
        // SAFETY: as above.
        unsafe { *out_ptr = value.ptr };
        Ok(())
    })
}

/// A type registered from C.
#[derive(Clone, Copy)]
struct ForeignType {
    /// The VM's type for it.
    rust_type: RefType,
}

/// Types registered from C, by descriptor address, and back.
#[derive(Default)]
struct ForeignTypes {
    by_descriptor: HashMap<usize, ForeignType>,
    by_rust_type: HashMap<RefType, usize>,
}

static FOREIGN_TYPES: RwLock<Option<ForeignTypes>> = RwLock::new(None);

/// The VM type for a C-registered descriptor, made (once per descriptor)
/// from its name.
///
/// # Safety
/// `descriptor` is valid and outlives the process's use of the type.
pub(crate) unsafe fn register_foreign_type(
    descriptor: *const iree_vm_ref_type_descriptor_t,
) -> Result<RefType> {
    let address = descriptor as usize;
    if let Some(index) = builtin_index(address) {
        return Ok(builtin_rust_type(index));
    }
    if let Some(found) = FOREIGN_TYPES
        .read()
        .as_ref()
        .and_then(|types| types.by_descriptor.get(&address))
    {
        return Ok(found.rust_type);
    }
    // SAFETY: per the contract.
    let name = unsafe { (*descriptor).type_name.to_string_lossy() };
    if name.is_empty() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "ref type descriptor has no name",
        ));
    }
    let mut guard = FOREIGN_TYPES.write();
    let types = guard.get_or_insert_with(ForeignTypes::default);
    if let Some(found) = types.by_descriptor.get(&address) {
        return Ok(found.rust_type);
    }
    // The VM compares types by descriptor identity: one leaked descriptor
    // per C descriptor, for the life of the process (as upstream's are).
    let leaked: &'static RefTypeDescriptor = Box::leak(Box::new(RefTypeDescriptor {
        name: Box::leak(name.into_boxed_str()),
    }));
    let rust_type = RefType::new(leaked);
    types
        .by_descriptor
        .insert(address, ForeignType { rust_type });
    types.by_rust_type.insert(rust_type, address);
    Ok(rust_type)
}

/// The VM type of a C type value, for types this process knows.
pub(crate) fn rust_type_of(type_: iree_vm_ref_type_t) -> Option<RefType> {
    let address = type_ & !TAG_MASK;
    if let Some(index) = builtin_index(address) {
        return Some(builtin_rust_type(index));
    }
    FOREIGN_TYPES
        .read()
        .as_ref()
        .and_then(|types| types.by_descriptor.get(&address))
        .map(|found| found.rust_type)
}

/// The C type value (without counter bits) of a VM type; 0 when C has
/// never seen it.
pub(crate) fn c_type_of(rust_type: RefType) -> iree_vm_ref_type_t {
    if let Some(index) = (0..BUILTIN_COUNT).find(|&i| builtin_rust_type(i) == rust_type) {
        return builtin_type_value(index);
    }
    FOREIGN_TYPES
        .read()
        .as_ref()
        .and_then(|types| types.by_rust_type.get(&rust_type).copied())
        .map_or(0, |address| {
            // SAFETY: registered descriptors live for the process.
            let bits = unsafe { (*(address as *const iree_vm_ref_type_descriptor_t)).bits };
            address | (bits & TAG_MASK)
        })
}

/// A C object of a C-registered type held by the VM; owns one count.
pub(crate) struct ForeignRef {
    ptr: *mut c_void,
    type_: iree_vm_ref_type_t,
    rust_type: RefType,
}

// SAFETY: C ref objects are shared between threads by design in upstream's
// VM; their counts are atomic and their contents the module's business.
unsafe impl Send for ForeignRef {}
// SAFETY: as above.
unsafe impl Sync for ForeignRef {}

impl RefObject for ForeignRef {
    fn ref_type(&self) -> RefType {
        self.rust_type
    }
}

impl Drop for ForeignRef {
    fn drop(&mut self) {
        // SAFETY: this value owns one count of a live object.
        unsafe { foreign_release(self.ptr, self.type_) }
    }
}

/// The intrusive counter of a C-typed object.
///
/// # Safety
/// `ptr` is a live object of C type `type_`.
unsafe fn foreign_counter<'a>(ptr: *mut c_void, type_: iree_vm_ref_type_t) -> &'a AtomicI32 {
    let offset = (type_ & TAG_MASK) * COUNTER_ALIGNMENT;
    // SAFETY: the descriptor's `offsetof_counter` locates an aligned
    // `iree_atomic_ref_count_t` inside the object.
    unsafe { &*(ptr.cast::<u8>().add(offset) as *const AtomicI32) }
}

/// # Safety
/// As [`foreign_counter`].
unsafe fn foreign_retain(ptr: *mut c_void, type_: iree_vm_ref_type_t) {
    // SAFETY: forwarded contract.
    unsafe { foreign_counter(ptr, type_) }.fetch_add(1, Ordering::Relaxed);
}

/// # Safety
/// As [`foreign_counter`]; drops the caller's count.
unsafe fn foreign_release(ptr: *mut c_void, type_: iree_vm_ref_type_t) {
    // SAFETY: forwarded contract.
    if unsafe { foreign_counter(ptr, type_) }.fetch_sub(1, Ordering::AcqRel) == 1 {
        let descriptor = (type_ & !TAG_MASK) as *const iree_vm_ref_type_descriptor_t;
        // SAFETY: the type value carries the registered descriptor.
        if let Some(destroy) = unsafe { (*descriptor).destroy } {
            // SAFETY: the count reached zero; the descriptor's destroy owns
            // the object now.
            unsafe { destroy(ptr) };
        }
    }
}

/// Adds a count to the object of a non-null C ref.
///
/// # Safety
/// `ptr` is a live object of type `type_`.
pub(crate) unsafe fn retain_object(ptr: *mut c_void, type_: iree_vm_ref_type_t) {
    if ptr.is_null() || type_ == 0 {
        return;
    }
    match builtin_index(type_).and_then(|index| BUILTINS[index].as_ref()) {
        // SAFETY: per the contract.
        Some(ops) => unsafe { (ops.retain)(ptr) },
        // SAFETY: per the contract.
        None => unsafe { foreign_retain(ptr, type_) },
    }
}

/// Drops a count from the object of a non-null C ref.
///
/// # Safety
/// `ptr` is a live object of type `type_` and the caller owns a count.
pub(crate) unsafe fn release_object(ptr: *mut c_void, type_: iree_vm_ref_type_t) {
    if ptr.is_null() || type_ == 0 {
        return;
    }
    match builtin_index(type_).and_then(|index| BUILTINS[index].as_ref()) {
        // SAFETY: per the contract.
        Some(ops) => unsafe { (ops.release)(ptr) },
        // SAFETY: per the contract.
        None => unsafe { foreign_release(ptr, type_) },
    }
}

/// A VM ref of the object of a C ref (with its own count; the C ref keeps
/// its count). None for the null ref.
///
/// # Safety
/// `value` is null or a live ref.
pub(crate) unsafe fn to_vm_ref(value: &iree_vm_ref_t) -> Result<Option<Ref>> {
    if value.is_null() {
        return Ok(None);
    }
    if let Some(index) = builtin_index(value.type_) {
        return match &BUILTINS[index] {
            // SAFETY: per the contract.
            Some(ops) => Ok(Some(unsafe { (ops.to_ref)(value.ptr) })),
            None => Err(Status::new(
                StatusCode::Unimplemented,
                format!(
                    "refs of type '{}' are not supported by this runtime",
                    builtin_rust_type(index).name()
                ),
            )),
        };
    }
    let rust_type = rust_type_of(value.type_).ok_or_else(|| {
        Status::new(
            StatusCode::InvalidArgument,
            "ref type is not registered with any instance",
        )
    })?;
    // SAFETY: per the contract; the new count is owned by the ForeignRef.
    unsafe { foreign_retain(value.ptr, value.type_) };
    Ok(Some(Ref::new(ForeignRef {
        ptr: value.ptr,
        type_: value.type_,
        rust_type,
    })))
}

/// As [`to_vm_ref`], taking over the C ref's count (the C ref is reset to
/// null).
///
/// # Safety
/// As [`to_vm_ref`]; the caller owns the C ref's count.
pub(crate) unsafe fn move_to_vm_ref(value: &mut iree_vm_ref_t) -> Result<Option<Ref>> {
    // SAFETY: per the contract.
    let converted = unsafe { to_vm_ref(value) }?;
    // SAFETY: the converted ref holds its own count; drop the C ref's.
    unsafe { release_object(value.ptr, value.type_) };
    *value = iree_vm_ref_t::NULL;
    Ok(converted)
}

/// The C ref of a VM ref, borrowed (no count added): valid while `r` is.
pub(crate) fn borrow_c_ref(r: &Ref) -> Result<iree_vm_ref_t> {
    if let Some(foreign) = r.downcast::<ForeignRef>() {
        return Ok(iree_vm_ref_t {
            ptr: foreign.ptr,
            type_: foreign.type_,
        });
    }
    let rust_type = r.ref_type();
    for (index, ops) in BUILTINS.iter().enumerate() {
        if builtin_rust_type(index) == rust_type {
            if let Some(ptr) = ops.as_ref().and_then(|ops| (ops.handle_of)(r)) {
                return Ok(iree_vm_ref_t {
                    ptr,
                    type_: builtin_type_value(index),
                });
            }
        }
    }
    Err(Status::new(
        StatusCode::Unimplemented,
        format!(
            "refs of type '{}' cannot be passed to C by this runtime",
            rust_type.name()
        ),
    ))
}

/// The C ref of a VM ref with a count of its own (the caller owns it).
pub(crate) fn retain_c_ref(r: &Ref) -> Result<iree_vm_ref_t> {
    let c = borrow_c_ref(r)?;
    // SAFETY: `c` refers to the live object `r` holds.
    unsafe { retain_object(c.ptr, c.type_) };
    Ok(c)
}

/// The C ref of an optional VM ref, borrowed.
pub(crate) fn borrow_c_ref_opt(r: &Option<Ref>) -> Result<iree_vm_ref_t> {
    match r {
        Some(r) => borrow_c_ref(r),
        None => Ok(iree_vm_ref_t::NULL),
    }
}

//===----------------------------------------------------------------------===//
// Exported ref functions
//===----------------------------------------------------------------------===//

/// `iree_vm_ref_type_name`.
#[no_mangle]
pub extern "C" fn iree_vm_ref_type_name(type_: iree_vm_ref_type_t) -> iree_string_view_t {
    boundary::value("iree_vm_ref_type_name", iree_string_view_t::empty(), || {
        if type_ == 0 {
            return iree_string_view_t::empty();
        }
        let descriptor = (type_ & !TAG_MASK) as *const iree_vm_ref_type_descriptor_t;
        // SAFETY: a non-null type value carries a valid descriptor.
        unsafe { (*descriptor).type_name }
    })
}

/// `iree_vm_ref_object_retain`.
///
/// # Safety
/// `ptr` is NULL or a live object of type `type_`.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_object_retain(ptr: *mut c_void, type_: iree_vm_ref_type_t) {
    // SAFETY: per the contract.
    boundary::value("iree_vm_ref_object_retain", (), || unsafe {
        retain_object(ptr, type_)
    })
}

/// `iree_vm_ref_object_release`.
///
/// # Safety
/// `ptr` is NULL or a live object of type `type_` whose count the caller owns.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_object_release(ptr: *mut c_void, type_: iree_vm_ref_type_t) {
    // SAFETY: per the contract.
    boundary::value("iree_vm_ref_object_release", (), || unsafe {
        release_object(ptr, type_)
    })
}

/// Checks the arguments of the `wrap` functions.
fn check_wrap(
    ptr: *mut c_void,
    type_: iree_vm_ref_type_t,
    out_ref: *mut iree_vm_ref_t,
) -> Result<()> {
    if out_ref.is_null() {
        return Err(Status::new(StatusCode::InvalidArgument, "null out_ref"));
    }
    if ptr.is_null() || type_ == 0 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "cannot wrap a null pointer or a null type",
        ));
    }
    Ok(())
}

/// `iree_vm_ref_wrap_assign`: a ref taking over the caller's count.
///
/// # Safety
/// `ptr` is a live object of type `type_`; `out_ref` is valid (a ref it
/// holds is released).
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_wrap_assign(
    ptr: *mut c_void,
    type_: iree_vm_ref_type_t,
    out_ref: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_ref_wrap_assign", || {
        check_wrap(ptr, type_, out_ref)?;
        // SAFETY: per the contract.
        unsafe {
            let previous = *out_ref;
            *out_ref = iree_vm_ref_t { ptr, type_ };
            if !previous.is_null() && previous.ptr != ptr {
                release_object(previous.ptr, previous.type_);
            }
        }
        Ok(())
    })
}

/// `iree_vm_ref_wrap_retain`: a ref with a new count.
///
/// # Safety
/// As [`iree_vm_ref_wrap_assign`].
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_wrap_retain(
    ptr: *mut c_void,
    type_: iree_vm_ref_type_t,
    out_ref: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_ref_wrap_retain", || {
        check_wrap(ptr, type_, out_ref)?;
        // SAFETY: per the contract.
        unsafe {
            retain_object(ptr, type_);
            let previous = *out_ref;
            *out_ref = iree_vm_ref_t { ptr, type_ };
            release_object(previous.ptr, previous.type_);
        }
        Ok(())
    })
}

/// `iree_vm_ref_retain_inplace`: adds a count to the object of `ref_`.
///
/// # Safety
/// `ref_` is NULL or a valid ref.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_retain_inplace(ref_: *mut iree_vm_ref_t) {
    // SAFETY: per the contract.
    if let Some(r) = unsafe { ref_.as_ref() } {
        // SAFETY: as above.
        unsafe { iree_vm_ref_object_retain(r.ptr, r.type_) }
    }
}

/// `iree_vm_ref_retain`: `out_ref` becomes a counted copy of `ref_`
/// (releasing what it held).
///
/// # Safety
/// Both are valid refs (`ref_` may be NULL: copies null).
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_retain(ref_: *mut iree_vm_ref_t, out_ref: *mut iree_vm_ref_t) {
    boundary::value("iree_vm_ref_retain", (), || {
        // SAFETY: per the contract.
        unsafe {
            let Some(out) = out_ref.as_mut() else { return };
            let source = ref_.as_ref().copied().unwrap_or(iree_vm_ref_t::NULL);
            retain_object(source.ptr, source.type_);
            let previous = *out;
            *out = source;
            release_object(previous.ptr, previous.type_);
        }
    })
}

/// `iree_vm_ref_retain_checked`: as [`iree_vm_ref_retain`] when `ref_` is
/// null or of type `type_`, else INVALID_ARGUMENT.
///
/// # Safety
/// As [`iree_vm_ref_retain`].
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_retain_checked(
    ref_: *mut iree_vm_ref_t,
    type_: iree_vm_ref_type_t,
    out_ref: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::forward("iree_vm_ref_retain_checked", || {
        // SAFETY: per the contract.
        let actual = unsafe { ref_.as_ref() }.map_or(0, |r| r.type_);
        if actual != 0 && type_ != 0 && actual != type_ {
            return Err::<(), _>(Status::new(
                StatusCode::InvalidArgument,
                "source ref type mismatch",
            ))
            .into_c_status();
        }
        // SAFETY: per the contract.
        unsafe { iree_vm_ref_retain(ref_, out_ref) };
        iree_status_t::OK
    })
}

/// `iree_vm_ref_retain_or_move`: a move when `is_move`, else a retain.
///
/// # Safety
/// As [`iree_vm_ref_retain`].
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_retain_or_move(
    is_move: i32,
    ref_: *mut iree_vm_ref_t,
    out_ref: *mut iree_vm_ref_t,
) {
    boundary::value("iree_vm_ref_retain_or_move", (), || {
        // SAFETY: per the contract.
        unsafe {
            if is_move != 0 {
                iree_vm_ref_move(ref_, out_ref)
            } else {
                iree_vm_ref_retain(ref_, out_ref)
            }
        }
    })
}

/// `iree_vm_ref_retain_or_move_checked`.
///
/// # Safety
/// As [`iree_vm_ref_retain`].
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_retain_or_move_checked(
    is_move: i32,
    ref_: *mut iree_vm_ref_t,
    type_: iree_vm_ref_type_t,
    out_ref: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::forward("iree_vm_ref_retain_or_move_checked", || {
        // SAFETY: per the contract.
        let actual = unsafe { ref_.as_ref() }.map_or(0, |r| r.type_);
        if actual != 0 && type_ != 0 && actual != type_ {
            return Err::<(), _>(Status::new(
                StatusCode::InvalidArgument,
                "source ref type mismatch",
            ))
            .into_c_status();
        }
        // SAFETY: per the contract.
        unsafe { iree_vm_ref_retain_or_move(is_move, ref_, out_ref) };
        iree_status_t::OK
    })
}

/// `iree_vm_ref_release`: drops the ref's count and resets it to null.
///
/// # Safety
/// `ref_` is NULL or a valid ref whose count the caller owns.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_release(ref_: *mut iree_vm_ref_t) {
    boundary::value("iree_vm_ref_release", (), || {
        // SAFETY: per the contract.
        if let Some(r) = unsafe { ref_.as_mut() } {
            let previous = *r;
            *r = iree_vm_ref_t::NULL;
            // SAFETY: as above.
            unsafe { release_object(previous.ptr, previous.type_) };
        }
    })
}

/// `iree_vm_ref_assign`: `out_ref` becomes an uncounted copy of `ref_`
/// (releasing what it held).
///
/// # Safety
/// Both are valid refs.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_assign(ref_: *mut iree_vm_ref_t, out_ref: *mut iree_vm_ref_t) {
    boundary::value("iree_vm_ref_assign", (), || {
        // SAFETY: per the contract.
        unsafe {
            let Some(out) = out_ref.as_mut() else { return };
            let source = ref_.as_ref().copied().unwrap_or(iree_vm_ref_t::NULL);
            let previous = *out;
            *out = source;
            if previous.ptr != source.ptr {
                iree_vm_ref_object_release(previous.ptr, previous.type_);
            }
        }
    })
}

/// `iree_vm_ref_move`: `out_ref` takes `ref_`'s count; `ref_` becomes null.
///
/// # Safety
/// Both are valid refs.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_move(ref_: *mut iree_vm_ref_t, out_ref: *mut iree_vm_ref_t) {
    boundary::value("iree_vm_ref_move", (), || {
        // SAFETY: per the contract.
        unsafe {
            let Some(out) = out_ref.as_mut() else { return };
            if std::ptr::eq(ref_, out_ref) {
                return;
            }
            let source = match ref_.as_mut() {
                Some(r) => std::mem::replace(r, iree_vm_ref_t::NULL),
                None => iree_vm_ref_t::NULL,
            };
            let previous = std::mem::replace(out, source);
            iree_vm_ref_object_release(previous.ptr, previous.type_);
        }
    })
}

/// `iree_vm_ref_is_null`.
///
/// # Safety
/// `ref_` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_is_null(ref_: *const iree_vm_ref_t) -> bool {
    boundary::value("iree_vm_ref_is_null", false, || {
        // SAFETY: per the contract.
        unsafe { ref_.as_ref() }.is_none_or(|r| r.type_ == 0)
    })
}

/// `iree_vm_ref_equal`: same object.
///
/// # Safety
/// Both are valid refs.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_ref_equal(
    lhs: *const iree_vm_ref_t,
    rhs: *const iree_vm_ref_t,
) -> bool {
    boundary::value("iree_vm_ref_equal", false, || {
        // SAFETY: per the contract.
        unsafe {
            match (lhs.as_ref(), rhs.as_ref()) {
                (Some(a), Some(b)) => a.ptr == b.ptr,
                (None, None) => true,
                _ => false,
            }
        }
    })
}
