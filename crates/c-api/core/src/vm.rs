//! `iree/vm` objects: instances, `vm.list`, `vm.buffer`, values and
//! variants.

use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_vm::list::ListElementType;
use iree_vm::{Instance, List, Ref, RefType, Value, ValueType};

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::handles::{self, DerivedHandles};
use crate::refs::{
    self, iree_vm_ref_t, iree_vm_ref_type_descriptor_t, iree_vm_ref_type_t, BuiltinType,
};
use crate::status::iree_status_t;
use crate::strings::{
    iree_byte_span_t, iree_const_byte_span_t, iree_host_size_t, iree_string_view_t,
};

//===----------------------------------------------------------------------===//
// iree_vm_instance_t
//===----------------------------------------------------------------------===//

/// `iree_vm_instance_create`: a VM instance with the builtin types
/// (`vm.buffer`, `vm.list`) registered.
///
/// # Safety
/// `out_instance` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_instance_create(
    _type_capacity: iree_host_size_t,
    _allocator: iree_allocator_t,
    out_instance: *mut *mut Instance,
) -> iree_status_t {
    boundary::status("iree_vm_instance_create", || {
        // SAFETY: per the contract.
        let out = unsafe { out_instance.as_mut() }
            .ok_or_else(|| handles::null_argument("out_instance"))?;
        *out = handles::into_handle(Instance::new());
        Ok(())
    })
}

/// `iree_vm_instance_retain`.
///
/// # Safety
/// `instance` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_instance_retain(instance: *mut Instance) {
    // SAFETY: per the contract.
    unsafe { handles::retain(instance) }
}

/// `iree_vm_instance_release`.
///
/// # Safety
/// `instance` is NULL or live, and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_instance_release(instance: *mut Instance) {
    // SAFETY: per the contract.
    boundary::value("iree_vm_instance_release", (), || unsafe {
        handles::release(instance)
    })
}

/// `iree_vm_instance_allocator`: the libc allocator.
#[no_mangle]
pub extern "C" fn iree_vm_instance_allocator(_instance: *mut Instance) -> iree_allocator_t {
    iree_allocator_t::system()
}

/// `iree_vm_instance_register_type`: registers a ref type defined in C
/// (idempotent per descriptor) and writes its type value.
///
/// # Safety
/// `instance` is live; `descriptor` is valid for the life of the process
/// (a static, as upstream requires); `out_registration` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_instance_register_type(
    instance: *mut Instance,
    descriptor: *const iree_vm_ref_type_descriptor_t,
    out_registration: *mut iree_vm_ref_type_t,
) -> iree_status_t {
    boundary::status("iree_vm_instance_register_type", || {
        // SAFETY: per the contract.
        let instance = unsafe { handles::require(instance, "instance") }?;
        if descriptor.is_null() {
            return Err(handles::null_argument("descriptor"));
        }
        // SAFETY: per the contract.
        let rust_type = unsafe { refs::register_foreign_type(descriptor) }?;
        instance.register_type(rust_type)?;
        // SAFETY: per the contract.
        if let Some(out) = unsafe { out_registration.as_mut() } {
            *out = refs::c_type_of(rust_type);
        }
        Ok(())
    })
}

/// `iree_vm_instance_unregister_type`: types stay registered for the life
/// of the process here (a later registration of the same descriptor gets
/// the same type).
#[no_mangle]
pub extern "C" fn iree_vm_instance_unregister_type(
    _instance: *mut Instance,
    _descriptor: *const iree_vm_ref_type_descriptor_t,
) {
}

/// `iree_vm_instance_lookup_type`: the type registered under `full_name`,
/// or 0.
///
/// # Safety
/// `instance` is live; `full_name` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_instance_lookup_type(
    instance: *mut Instance,
    full_name: iree_string_view_t,
) -> iree_vm_ref_type_t {
    boundary::value("iree_vm_instance_lookup_type", 0, || {
        // SAFETY: per the contract.
        let (Some(instance), Some(name)) = (unsafe { handles::borrow(instance) }, unsafe {
            full_name.as_str()
        }) else {
            return 0;
        };
        instance.types().lookup(name).map_or(0, refs::c_type_of)
    })
}

/// `iree_vm_resolve_builtin_types`: the builtin types' values are fixed
/// here; nothing to resolve.
#[no_mangle]
pub extern "C" fn iree_vm_resolve_builtin_types(_instance: *mut Instance) -> iree_status_t {
    boundary::forward("iree_vm_resolve_builtin_types", || iree_status_t::OK)
}

//===----------------------------------------------------------------------===//
// Values, type definitions and variants
//===----------------------------------------------------------------------===//

/// `iree_vm_value_type_t` codes.
pub(crate) mod value_type {
    pub const NONE: u32 = 0;
    pub const I8: u32 = 1;
    pub const I16: u32 = 2;
    pub const I32: u32 = 3;
    pub const I64: u32 = 4;
    pub const F32: u32 = 5;
    pub const F64: u32 = 6;
}

fn value_type_code(ty: ValueType) -> u32 {
    match ty {
        ValueType::I8 => value_type::I8,
        ValueType::I16 => value_type::I16,
        ValueType::I32 => value_type::I32,
        ValueType::I64 => value_type::I64,
        ValueType::F32 => value_type::F32,
        ValueType::F64 => value_type::F64,
    }
}

fn value_type_from_code(code: u32) -> Option<ValueType> {
    Some(match code {
        value_type::I8 => ValueType::I8,
        value_type::I16 => ValueType::I16,
        value_type::I32 => ValueType::I32,
        value_type::I64 => ValueType::I64,
        value_type::F32 => ValueType::F32,
        value_type::F64 => ValueType::F64,
        _ => return None,
    })
}

/// `iree_vm_value_t`: a type code and 8 bytes of storage (8-aligned, at
/// offset 8).
#[allow(non_camel_case_types)]
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct iree_vm_value_t {
    /// `iree_vm_value_type_t`.
    pub type_: u32,
    /// Padding before the 8-aligned union.
    pub _padding: u32,
    /// The value, in its type's width from the first byte.
    pub storage: [u8; 8],
}

impl iree_vm_value_t {
    fn from_value(value: &Value) -> iree_vm_value_t {
        let mut storage = [0u8; 8];
        let type_ = match *value {
            Value::I8(v) => {
                storage[..1].copy_from_slice(&v.to_ne_bytes());
                value_type::I8
            }
            Value::I16(v) => {
                storage[..2].copy_from_slice(&v.to_ne_bytes());
                value_type::I16
            }
            Value::I32(v) => {
                storage[..4].copy_from_slice(&v.to_ne_bytes());
                value_type::I32
            }
            Value::I64(v) => {
                storage.copy_from_slice(&v.to_ne_bytes());
                value_type::I64
            }
            Value::F32(v) => {
                storage[..4].copy_from_slice(&v.to_ne_bytes());
                value_type::F32
            }
            Value::F64(v) => {
                storage.copy_from_slice(&v.to_ne_bytes());
                value_type::F64
            }
            Value::Ref(_) => value_type::NONE,
        };
        iree_vm_value_t {
            type_,
            _padding: 0,
            storage,
        }
    }

    fn to_value(self) -> Result<Value> {
        let s = self.storage;
        Ok(match self.type_ {
            value_type::I8 => Value::I8(s[0] as i8),
            value_type::I16 => Value::I16(i16::from_ne_bytes([s[0], s[1]])),
            value_type::I32 => Value::I32(i32::from_ne_bytes([s[0], s[1], s[2], s[3]])),
            value_type::I64 => Value::I64(i64::from_ne_bytes(s)),
            value_type::F32 => Value::F32(f32::from_ne_bytes([s[0], s[1], s[2], s[3]])),
            value_type::F64 => Value::F64(f64::from_ne_bytes(s)),
            other => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!("invalid value type {other}"),
                ))
            }
        })
    }
}

/// `iree_vm_type_def_t`: a value type code in the low 3 bits, or a ref
/// descriptor address (whose low 3 bits are zero) above them.
#[allow(non_camel_case_types)]
pub type iree_vm_type_def_t = usize;

/// The list element type a C type definition asks for.
fn element_type_from_c(type_def: iree_vm_type_def_t) -> Result<ListElementType> {
    let value = (type_def & 0b111) as u32;
    let reference = type_def & !0b111;
    if value != value_type::NONE {
        return value_type_from_code(value)
            .map(ListElementType::Value)
            .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "invalid value type"));
    }
    if reference == 0 {
        return Ok(ListElementType::Variant);
    }
    refs::rust_type_of(reference)
        .map(ListElementType::Ref)
        .ok_or_else(|| {
            Status::new(
                StatusCode::InvalidArgument,
                "list element ref type is not registered",
            )
        })
}

/// The C type definition of a list element type.
fn element_type_to_c(element: ListElementType) -> iree_vm_type_def_t {
    match element {
        ListElementType::Value(ty) => value_type_code(ty) as usize,
        ListElementType::Ref(ty) => ref_type_def(ty),
        ListElementType::AnyRef | ListElementType::Variant => 0,
    }
}

fn ref_type_def(ty: RefType) -> iree_vm_type_def_t {
    refs::c_type_of(ty) & !0b111
}

/// `iree_vm_variant_t`: a type definition and 16 bytes holding a value or
/// an `iree_vm_ref_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_vm_variant_t {
    /// What the variant holds (0: empty).
    pub type_: iree_vm_type_def_t,
    /// A value's bytes or a ref.
    pub storage: iree_vm_ref_t,
}

//===----------------------------------------------------------------------===//
// iree_vm_list_t
//===----------------------------------------------------------------------===//

/// The list behind a handle.
///
/// # Safety
/// `list` is NULL or a live list handle.
unsafe fn list<'a>(list: *const List) -> Result<&'a List> {
    // SAFETY: forwarded contract.
    unsafe { handles::require(list, "list") }
}

/// `iree_vm_list_create`.
///
/// # Safety
/// `out_list` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_create(
    element_type: iree_vm_type_def_t,
    initial_capacity: iree_host_size_t,
    _allocator: iree_allocator_t,
    out_list: *mut *mut List,
) -> iree_status_t {
    boundary::status("iree_vm_list_create", || {
        // SAFETY: per the contract.
        let out = unsafe { out_list.as_mut() }.ok_or_else(|| handles::null_argument("out_list"))?;
        *out = std::ptr::null_mut();
        let list = List::with_capacity(element_type_from_c(element_type)?, initial_capacity)?;
        *out = handles::into_handle(Arc::new(list));
        Ok(())
    })
}

/// `iree_vm_list_retain`.
///
/// # Safety
/// `list` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_retain(list: *mut List) {
    // SAFETY: per the contract.
    unsafe { handles::retain(list) }
}

/// `iree_vm_list_release`.
///
/// # Safety
/// `list` is NULL or live, and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_release(list: *mut List) {
    // SAFETY: per the contract.
    boundary::value("iree_vm_list_release", (), || unsafe {
        handles::release(list)
    })
}

/// `iree_vm_list_element_type`.
///
/// # Safety
/// `list` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_element_type(list: *const List) -> iree_vm_type_def_t {
    boundary::value("iree_vm_list_element_type", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(list) }.map_or(0, |l| element_type_to_c(l.element_type()))
    })
}

/// `iree_vm_list_capacity`.
///
/// # Safety
/// `list` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_capacity(list: *const List) -> iree_host_size_t {
    boundary::value("iree_vm_list_capacity", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(list) }.map_or(0, List::capacity)
    })
}

/// `iree_vm_list_reserve`.
///
/// # Safety
/// `list` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_reserve(
    list: *mut List,
    minimum_capacity: iree_host_size_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_reserve", || {
        // SAFETY: per the contract.
        let list = unsafe { self::list(list) }?;
        let capacity = i32::try_from(minimum_capacity)
            .map_err(|_| Status::new(StatusCode::ResourceExhausted, "list capacity too large"))?;
        list.reserve(capacity)
    })
}

/// `iree_vm_list_size`.
///
/// # Safety
/// `list` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_size(list: *const List) -> iree_host_size_t {
    boundary::value("iree_vm_list_size", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(list) }.map_or(0, List::len)
    })
}

/// `iree_vm_list_resize`.
///
/// # Safety
/// `list` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_resize(
    list: *mut List,
    new_size: iree_host_size_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_resize", || {
        // SAFETY: per the contract.
        unsafe { self::list(list) }?.resize_len(new_size)
    })
}

/// `iree_vm_list_clear`.
///
/// # Safety
/// `list` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_clear(list: *mut List) {
    boundary::value("iree_vm_list_clear", (), || {
        // SAFETY: per the contract.
        if let Some(list) = unsafe { handles::borrow(list) } {
            list.clear()
        }
    })
}

/// Writes `value` into `out_value` (NULL checked).
fn write_out<T>(out: *mut T, value: T) -> Result<()> {
    // SAFETY: the exported functions' contracts make `out` NULL or valid.
    let out = unsafe { out.as_mut() }.ok_or_else(|| handles::null_argument("out"))?;
    *out = value;
    Ok(())
}

/// `iree_vm_list_get_value`: a primitive element as stored.
///
/// # Safety
/// `list` is live; `out_value` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_get_value(
    list: *const List,
    i: iree_host_size_t,
    out_value: *mut iree_vm_value_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_get_value", || {
        // SAFETY: per the contract.
        let value = unsafe { self::list(list) }?.get_value(i)?;
        if value.is_ref() {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "list element is not a value",
            ));
        }
        write_out(out_value, iree_vm_value_t::from_value(&value))
    })
}

/// `iree_vm_list_get_value_as`: a primitive element converted to
/// `value_type`.
///
/// # Safety
/// `list` is live; `out_value` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_get_value_as(
    list: *const List,
    i: iree_host_size_t,
    value_type: u32,
    out_value: *mut iree_vm_value_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_get_value_as", || {
        let ty = value_type_from_code(value_type)
            .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "invalid value type"))?;
        // SAFETY: per the contract.
        let value = unsafe { self::list(list) }?.get_value_as(i, ty)?;
        write_out(out_value, iree_vm_value_t::from_value(&value))
    })
}

/// `iree_vm_list_set_value`.
///
/// # Safety
/// `list` is live; `value` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_set_value(
    list: *mut List,
    i: iree_host_size_t,
    value: *const iree_vm_value_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_set_value", || {
        // SAFETY: per the contract.
        let value = unsafe { value.as_ref() }.ok_or_else(|| handles::null_argument("value"))?;
        // SAFETY: per the contract.
        unsafe { self::list(list) }?.set_value_at(i, value.to_value()?)
    })
}

/// `iree_vm_list_push_value`.
///
/// # Safety
/// `list` is live; `value` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_push_value(
    list: *mut List,
    value: *const iree_vm_value_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_push_value", || {
        // SAFETY: per the contract.
        let value = unsafe { value.as_ref() }.ok_or_else(|| handles::null_argument("value"))?;
        // SAFETY: per the contract.
        unsafe { self::list(list) }?.push(value.to_value()?)
    })
}

/// The ref at `i` of a list, as a VM ref.
///
/// # Safety
/// `list` is live.
unsafe fn get_ref(list: *const List, i: usize) -> Result<Option<Ref>> {
    // SAFETY: forwarded contract.
    unsafe { self::list(list) }?.get_ref_at(i)
}

/// `iree_vm_list_get_ref_deref`: the object at `i` when it is of `type_`,
/// else NULL (borrowed).
///
/// # Safety
/// `list` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_get_ref_deref(
    list: *const List,
    i: iree_host_size_t,
    type_: iree_vm_ref_type_t,
) -> *mut c_void {
    boundary::value("iree_vm_list_get_ref_deref", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        match unsafe { get_ref(list, i) } {
            Ok(Some(r)) => match refs::borrow_c_ref(&r) {
                Ok(c) if c.type_ & !0b111 == type_ & !0b111 => c.ptr,
                _ => std::ptr::null_mut(),
            },
            _ => std::ptr::null_mut(),
        }
    })
}

/// `iree_vm_list_get_ref_assign`: the ref at `i`, borrowed.
///
/// # Safety
/// `list` is live; `out_value` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_get_ref_assign(
    list: *const List,
    i: iree_host_size_t,
    out_value: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_get_ref_assign", || {
        // SAFETY: per the contract.
        let value = unsafe { get_ref(list, i) }?;
        write_out(out_value, refs::borrow_c_ref_opt(&value)?)
    })
}

/// `iree_vm_list_get_ref_retain`: the ref at `i`, with a count for the
/// caller (what `out_value` held is released).
///
/// # Safety
/// `list` is live; `out_value` is a valid ref.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_get_ref_retain(
    list: *const List,
    i: iree_host_size_t,
    out_value: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_get_ref_retain", || {
        // SAFETY: per the contract.
        let value = unsafe { get_ref(list, i) }?;
        let c = match &value {
            Some(r) => refs::retain_c_ref(r)?,
            None => iree_vm_ref_t::NULL,
        };
        // SAFETY: per the contract.
        let out =
            unsafe { out_value.as_mut() }.ok_or_else(|| handles::null_argument("out_value"))?;
        let previous = std::mem::replace(out, c);
        // SAFETY: the caller owned `previous`'s count.
        unsafe { refs::release_object(previous.ptr, previous.type_) };
        Ok(())
    })
}

/// `iree_vm_list_set_ref_retain`: stores a counted copy of `value`.
///
/// # Safety
/// `list` is live; `value` is a valid ref.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_set_ref_retain(
    list: *mut List,
    i: iree_host_size_t,
    value: *const iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_set_ref_retain", || {
        // SAFETY: per the contract.
        let value = unsafe { value.as_ref() }.ok_or_else(|| handles::null_argument("value"))?;
        // SAFETY: per the contract.
        let r = unsafe { refs::to_vm_ref(value) }?;
        // SAFETY: per the contract.
        unsafe { self::list(list) }?.set_ref_at(i, r)
    })
}

/// `iree_vm_list_set_ref_move`: stores `value`, taking its count (it is
/// reset to null on success).
///
/// # Safety
/// `list` is live; `value` is a valid ref whose count the caller owns.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_set_ref_move(
    list: *mut List,
    i: iree_host_size_t,
    value: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_set_ref_move", || {
        // SAFETY: per the contract.
        let list = unsafe { self::list(list) }?;
        // SAFETY: per the contract.
        let value = unsafe { value.as_mut() }.ok_or_else(|| handles::null_argument("value"))?;
        // SAFETY: per the contract.
        let r = unsafe { refs::to_vm_ref(value) }?;
        list.set_ref_at(i, r)?;
        // SAFETY: the list holds its own count now; drop the caller's.
        unsafe { refs::release_object(value.ptr, value.type_) };
        *value = iree_vm_ref_t::NULL;
        Ok(())
    })
}

/// `iree_vm_list_push_ref_retain`.
///
/// # Safety
/// `list` is live; `value` is a valid ref.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_push_ref_retain(
    list: *mut List,
    value: *const iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_push_ref_retain", || {
        // SAFETY: per the contract.
        let value = unsafe { value.as_ref() }.ok_or_else(|| handles::null_argument("value"))?;
        // SAFETY: per the contract.
        let r = unsafe { refs::to_vm_ref(value) }?;
        // SAFETY: per the contract.
        unsafe { self::list(list) }?.push(Value::Ref(r))
    })
}

/// `iree_vm_list_push_ref_move`: appends `value`, taking its count (reset
/// to null on success).
///
/// # Safety
/// `list` is live; `value` is a valid ref whose count the caller owns.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_push_ref_move(
    list: *mut List,
    value: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_push_ref_move", || {
        // SAFETY: per the contract.
        let list = unsafe { self::list(list) }?;
        // SAFETY: per the contract.
        let value = unsafe { value.as_mut() }.ok_or_else(|| handles::null_argument("value"))?;
        // SAFETY: per the contract.
        let r = unsafe { refs::to_vm_ref(value) }?;
        list.push(Value::Ref(r))?;
        // SAFETY: the list holds its own count now; drop the caller's.
        unsafe { refs::release_object(value.ptr, value.type_) };
        *value = iree_vm_ref_t::NULL;
        Ok(())
    })
}

/// Removes and returns the first element of `list`.
pub(crate) fn pop_front(list: &List) -> Result<Value> {
    let values = list.to_values();
    let Some(first) = values.first().cloned() else {
        return Err(Status::new(StatusCode::OutOfRange, "list is empty"));
    };
    list.resize_len(values.len() - 1)?;
    for (i, value) in values.into_iter().skip(1).enumerate() {
        list.set_value(i, value)?;
    }
    Ok(first)
}

/// `iree_vm_list_pop_front_ref_move`: removes the first element, a ref,
/// whose count passes to `out_value`.
///
/// # Safety
/// `list` is live; `out_value` is valid (overwritten).
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_pop_front_ref_move(
    list: *mut List,
    out_value: *mut iree_vm_ref_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_pop_front_ref_move", || {
        // SAFETY: per the contract.
        let list = unsafe { self::list(list) }?;
        if out_value.is_null() {
            return Err(handles::null_argument("out_value"));
        }
        let Value::Ref(r) = list.get_value(0)? else {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "list element is not a ref",
            ));
        };
        let c = match &r {
            Some(r) => refs::retain_c_ref(r)?,
            None => iree_vm_ref_t::NULL,
        };
        pop_front(list)?;
        write_out(out_value, c)
    })
}

/// A variant for a list element; refs counted when `retain`.
fn variant_of(value: &Value, retain: bool) -> Result<iree_vm_variant_t> {
    Ok(match value {
        Value::Ref(None) => iree_vm_variant_t {
            type_: 0,
            storage: iree_vm_ref_t::NULL,
        },
        Value::Ref(Some(r)) => {
            let c = if retain {
                refs::retain_c_ref(r)?
            } else {
                refs::borrow_c_ref(r)?
            };
            iree_vm_variant_t {
                type_: c.type_ & !0b111,
                storage: c,
            }
        }
        value => {
            let v = iree_vm_value_t::from_value(value);
            let mut storage = iree_vm_ref_t::NULL;
            // SAFETY: the storage is 16 plain bytes; the value's 8 go first.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    v.storage.as_ptr(),
                    (&mut storage as *mut iree_vm_ref_t).cast::<u8>(),
                    8,
                )
            };
            iree_vm_variant_t {
                type_: v.type_ as usize,
                storage,
            }
        }
    })
}

/// The VM value a C variant holds (refs with a count of their own).
///
/// # Safety
/// A ref variant holds a live ref.
unsafe fn value_of_variant(variant: &iree_vm_variant_t) -> Result<Value> {
    let value_code = (variant.type_ & 0b111) as u32;
    if value_code != value_type::NONE {
        let mut storage = [0u8; 8];
        // SAFETY: the variant's storage is at least 8 bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (&variant.storage as *const iree_vm_ref_t).cast::<u8>(),
                storage.as_mut_ptr(),
                8,
            )
        };
        return iree_vm_value_t {
            type_: value_code,
            _padding: 0,
            storage,
        }
        .to_value();
    }
    // SAFETY: per the contract.
    Ok(Value::Ref(unsafe { refs::to_vm_ref(&variant.storage) }?))
}

/// `iree_vm_list_get_variant_assign`: element `i`, refs borrowed.
///
/// # Safety
/// `list` is live; `out_variant` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_get_variant_assign(
    list: *const List,
    i: iree_host_size_t,
    out_variant: *mut iree_vm_variant_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_get_variant_assign", || {
        // SAFETY: per the contract.
        let value = unsafe { self::list(list) }?.get_value(i)?;
        write_out(out_variant, variant_of(&value, false)?)
    })
}

/// `iree_vm_list_get_variant_retain`: element `i`, refs counted for the
/// caller.
///
/// # Safety
/// `list` is live; `out_variant` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_get_variant_retain(
    list: *const List,
    i: iree_host_size_t,
    out_variant: *mut iree_vm_variant_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_get_variant_retain", || {
        // SAFETY: per the contract.
        let value = unsafe { self::list(list) }?.get_value(i)?;
        write_out(out_variant, variant_of(&value, true)?)
    })
}

/// `iree_vm_list_set_variant_retain`.
///
/// # Safety
/// `list` is live; `variant` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_set_variant_retain(
    list: *mut List,
    i: iree_host_size_t,
    variant: *const iree_vm_variant_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_set_variant_retain", || {
        // SAFETY: per the contract.
        let variant =
            unsafe { variant.as_ref() }.ok_or_else(|| handles::null_argument("variant"))?;
        // SAFETY: per the contract.
        let value = unsafe { value_of_variant(variant) }?;
        // SAFETY: per the contract.
        unsafe { self::list(list) }?.set_value(i, value)
    })
}

/// `iree_vm_list_push_variant_retain`.
///
/// # Safety
/// `list` is live; `variant` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_list_push_variant_retain(
    list: *mut List,
    variant: *const iree_vm_variant_t,
) -> iree_status_t {
    boundary::status("iree_vm_list_push_variant_retain", || {
        // SAFETY: per the contract.
        let variant =
            unsafe { variant.as_ref() }.ok_or_else(|| handles::null_argument("variant"))?;
        // SAFETY: per the contract.
        let value = unsafe { value_of_variant(variant) }?;
        // SAFETY: per the contract.
        unsafe { self::list(list) }?.push(value)
    })
}

//===----------------------------------------------------------------------===//
// iree_vm_buffer_t
//===----------------------------------------------------------------------===//

/// `iree_vm_buffer_access_t` bits.
const BUFFER_ACCESS_MUTABLE: u32 = 1 << 0;
const BUFFER_ACCESS_ORIGIN_HOST: u32 = 1 << 3;

/// The public layout of `iree_vm_buffer_t` (C++ module wrappers read
/// `data` directly).
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_vm_buffer_t {
    /// The intrusive count.
    pub counter: AtomicI32,
    /// `iree_vm_buffer_access_t`.
    pub access: u32,
    /// The bytes.
    pub data: iree_byte_span_t,
    /// Unused here (the bytes belong to the VM buffer).
    pub allocator: iree_allocator_t,
    /// Unused here.
    pub storage_module: *mut c_void,
}

/// The C handle of a `vm.buffer`: upstream's header followed by the VM
/// buffer the bytes belong to.
#[repr(C)]
struct VmBufferHandle {
    header: iree_vm_buffer_t,
    buffer: Ref,
}

/// A new C handle (count 1) for the VM buffer `r`.
fn new_buffer_handle(r: Ref) -> Result<*mut VmBufferHandle> {
    let buffer = r
        .downcast::<iree_vm::Buffer>()
        .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "not a vm.buffer"))?;
    let (data, len) = if buffer.is_empty() {
        (std::ptr::null_mut(), 0)
    } else {
        buffer.host_range(0, buffer.len() as u64)?
    };
    let access = if buffer.is_mutable() {
        BUFFER_ACCESS_MUTABLE | BUFFER_ACCESS_ORIGIN_HOST
    } else {
        BUFFER_ACCESS_ORIGIN_HOST
    };
    Ok(Box::into_raw(Box::new(VmBufferHandle {
        header: iree_vm_buffer_t {
            counter: AtomicI32::new(1),
            access,
            data: iree_byte_span_t {
                data,
                data_length: len,
            },
            allocator: iree_allocator_t::null(),
            storage_module: std::ptr::null_mut(),
        },
        buffer: r,
    })))
}

/// The descriptor's `destroy` for `vm.buffer` handles.
///
/// # Safety
/// `ptr` is a handle whose count reached zero.
pub(crate) unsafe extern "C" fn destroy_vm_buffer(ptr: *mut c_void) {
    if !ptr.is_null() {
        // SAFETY: handles are boxes made by `new_buffer_handle`.
        drop(unsafe { Box::from_raw(ptr.cast::<VmBufferHandle>()) });
    }
}

unsafe fn buffer_retain(ptr: *mut c_void) {
    // SAFETY: `ptr` is a live handle.
    unsafe { &*ptr.cast::<VmBufferHandle>() }
        .header
        .counter
        .fetch_add(1, Ordering::Relaxed);
}

unsafe fn buffer_release(ptr: *mut c_void) {
    // SAFETY: `ptr` is a live handle whose count the caller owns.
    if unsafe { &*ptr.cast::<VmBufferHandle>() }
        .header
        .counter
        .fetch_sub(1, Ordering::AcqRel)
        == 1
    {
        // SAFETY: the count reached zero.
        unsafe { destroy_vm_buffer(ptr) }
    }
}

unsafe fn buffer_to_ref(ptr: *mut c_void) -> Ref {
    // SAFETY: `ptr` is a live handle.
    unsafe { &*ptr.cast::<VmBufferHandle>() }.buffer.clone()
}

/// One count of a buffer handle, held for as long as its VM buffer lives.
struct BufferHandleCount(*mut VmBufferHandle);

// SAFETY: the handle's count is atomic; the handle is shared by design.
unsafe impl Send for BufferHandleCount {}

impl Drop for BufferHandleCount {
    fn drop(&mut self) {
        // SAFETY: this value owns one count.
        unsafe { buffer_release(self.0.cast()) }
    }
}

/// The C handle of each VM buffer that crossed into C.
static BUFFER_HANDLES: DerivedHandles<iree_vm::Buffer, BufferHandleCount> = DerivedHandles::new();

fn buffer_handle_of(r: &Ref) -> Option<*mut c_void> {
    let buffer = r.downcast_arc::<iree_vm::Buffer>()?;
    BUFFER_HANDLES
        .get_or_make(
            &buffer,
            |count| count.0.cast::<c_void>(),
            || new_buffer_handle(r.clone()).map(BufferHandleCount),
        )
        .ok()
}

/// How `vm.buffer` handles are counted and converted.
pub(crate) const VM_BUFFER_OPS: BuiltinType = BuiltinType {
    rust_type: iree_vm::buffer::buffer_type,
    retain: buffer_retain,
    release: buffer_release,
    to_ref: buffer_to_ref,
    handle_of: buffer_handle_of,
};

/// `iree_vm_buffer_create`: a zeroed mutable buffer.
///
/// # Safety
/// `out_buffer` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_buffer_create(
    access: u32,
    length: iree_host_size_t,
    alignment: iree_host_size_t,
    _allocator: iree_allocator_t,
    out_buffer: *mut *mut iree_vm_buffer_t,
) -> iree_status_t {
    boundary::status("iree_vm_buffer_create", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_buffer.as_mut() }.ok_or_else(|| handles::null_argument("out_buffer"))?;
        *out = std::ptr::null_mut();
        let alignment = i32::try_from(alignment)
            .map_err(|_| Status::new(StatusCode::InvalidArgument, "alignment too large"))?;
        let buffer = iree_vm::Buffer::alloc(length as i64, alignment)?;
        let handle = new_buffer_handle(Ref::new(buffer))?;
        // SAFETY: the handle was just made.
        unsafe { (*handle).header.access = access | BUFFER_ACCESS_ORIGIN_HOST };
        *out = handle.cast();
        Ok(())
    })
}

/// `iree_vm_buffer_retain`.
///
/// # Safety
/// `buffer` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_buffer_retain(buffer: *mut iree_vm_buffer_t) {
    if !buffer.is_null() {
        // SAFETY: per the contract.
        unsafe { buffer_retain(buffer.cast()) }
    }
}

/// `iree_vm_buffer_release`.
///
/// # Safety
/// `buffer` is NULL or live, and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_buffer_release(buffer: *mut iree_vm_buffer_t) {
    if !buffer.is_null() {
        // SAFETY: per the contract.
        boundary::value("iree_vm_buffer_release", (), || unsafe {
            buffer_release(buffer.cast())
        })
    }
}

/// `iree_vm_buffer_length`.
///
/// # Safety
/// `buffer` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_buffer_length(
    buffer: *const iree_vm_buffer_t,
) -> iree_host_size_t {
    boundary::value("iree_vm_buffer_length", 0, || {
        // SAFETY: per the contract.
        unsafe { buffer.as_ref() }.map_or(0, |b| b.data.data_length)
    })
}

/// `iree_vm_buffer_data`.
///
/// # Safety
/// `buffer` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_buffer_data(buffer: *const iree_vm_buffer_t) -> *mut u8 {
    boundary::value("iree_vm_buffer_data", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { buffer.as_ref() }.map_or(std::ptr::null_mut(), |b| b.data.data)
    })
}

/// `iree_vm_buffer_contents`.
///
/// # Safety
/// `buffer` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_buffer_contents(
    buffer: *const iree_vm_buffer_t,
) -> iree_byte_span_t {
    // SAFETY: per the contract.
    unsafe { buffer.as_ref() }.map_or(
        iree_byte_span_t {
            data: std::ptr::null_mut(),
            data_length: 0,
        },
        |b| b.data,
    )
}

/// `iree_vm_buffer_const_contents`.
///
/// # Safety
/// `buffer` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_buffer_const_contents(
    buffer: *const iree_vm_buffer_t,
) -> iree_const_byte_span_t {
    // SAFETY: per the contract.
    let span = unsafe { iree_vm_buffer_contents(buffer) };
    iree_const_byte_span_t {
        data: span.data,
        data_length: span.data_length,
    }
}
