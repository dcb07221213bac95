//! `iree_vm_native_module_create`: modules written in C as a descriptor
//! (exports with their calling conventions, imports, dependencies) and a
//! table of shims and targets, plus optional callbacks for state. The
//! module made here fills upstream's interface from the descriptor and
//! forwards state and calls to the caller's callbacks, as upstream's does.

use std::ffi::c_void;

use iree_base::{Result, Status, StatusCode};

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::handles;
use crate::status::{iree_status_t, take_status, IntoCStatus};
use crate::strings::{iree_byte_span_t, iree_host_size_t, iree_string_pair_t, iree_string_view_t};
use crate::vm_module::{
    iree_vm_function_call_t, iree_vm_function_signature_t, iree_vm_function_t,
    iree_vm_module_dependency_callback_t, iree_vm_module_dependency_t, iree_vm_module_signature_t,
    iree_vm_module_t, linkage,
};
use crate::vm_stack::{
    iree_vm_stack_frame_t, iree_vm_stack_function_enter, iree_vm_stack_function_leave,
    iree_vm_stack_t,
};

/// `IREE_VM_NATIVE_IMPORT_OPTIONAL`.
const IMPORT_OPTIONAL: u32 = 1 << 1;
/// `IREE_VM_NATIVE_FUNCTION_CALL_BEGIN`.
const CALL_BEGIN: u32 = 1 << 0;
/// `IREE_VM_STACK_FRAME_NATIVE`.
const FRAME_NATIVE: u32 = 1;

/// `iree_vm_native_import_descriptor_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_vm_native_import_descriptor_t {
    /// REQUIRED (1) or OPTIONAL (2).
    pub flags: u32,
    /// `module.function`.
    pub full_name: iree_string_view_t,
}

/// `iree_vm_native_export_descriptor_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_vm_native_export_descriptor_t {
    /// The function's name in the module.
    pub local_name: iree_string_view_t,
    /// Its cconv (`0ri_r`).
    pub calling_convention: iree_string_view_t,
    /// Reflection attributes.
    pub attr_count: iree_host_size_t,
    /// `attr_count` pairs.
    pub attrs: *const iree_string_pair_t,
}

/// `iree_vm_native_function_target_t`.
#[allow(non_camel_case_types)]
pub type iree_vm_native_function_target_t = Option<
    unsafe extern "C" fn(
        stack: *mut iree_vm_stack_t,
        module: *mut c_void,
        module_state: *mut c_void,
    ) -> iree_status_t,
>;

/// `iree_vm_native_function_shim_t`.
#[allow(non_camel_case_types)]
pub type iree_vm_native_function_shim_t = Option<
    unsafe extern "C" fn(
        stack: *mut iree_vm_stack_t,
        flags: u32,
        args_storage: iree_byte_span_t,
        rets_storage: iree_byte_span_t,
        target_fn: iree_vm_native_function_target_t,
        module: *mut c_void,
        module_state: *mut c_void,
    ) -> iree_status_t,
>;

/// `iree_vm_native_function_ptr_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_vm_native_function_ptr_t {
    /// Unpacks arguments, calls `target`, packs results.
    pub shim: iree_vm_native_function_shim_t,
    /// The function.
    pub target: iree_vm_native_function_target_t,
}

/// `iree_vm_native_module_descriptor_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_vm_native_module_descriptor_t {
    /// The module name.
    pub name: iree_string_view_t,
    /// The module version.
    pub version: u32,
    /// Module attributes.
    pub attr_count: iree_host_size_t,
    /// `attr_count` pairs.
    pub attrs: *const iree_string_pair_t,
    /// Modules needed first.
    pub dependency_count: iree_host_size_t,
    /// `dependency_count` dependencies.
    pub dependencies: *const iree_vm_module_dependency_t,
    /// Imports.
    pub import_count: iree_host_size_t,
    /// `import_count` imports.
    pub imports: *const iree_vm_native_import_descriptor_t,
    /// Exports (sorted by name, as upstream requires).
    pub export_count: iree_host_size_t,
    /// `export_count` exports.
    pub exports: *const iree_vm_native_export_descriptor_t,
    /// Function pointers, one per export unless the caller implements
    /// `begin_call`.
    pub function_count: iree_host_size_t,
    /// `function_count` entries.
    pub functions: *const iree_vm_native_function_ptr_t,
}

/// A native module: upstream's interface (first, so the module pointer is
/// the interface pointer) and the caller's callbacks and descriptor.
#[repr(C)]
struct NativeModule {
    interface: iree_vm_module_t,
    user: iree_vm_module_t,
    user_self: *mut c_void,
    descriptor: *const iree_vm_native_module_descriptor_t,
    /// True when made by `iree_vm_native_module_create` (freed on destroy).
    owned: bool,
}

/// The module of a `self` pointer of our interface.
///
/// # Safety
/// `self_` is the interface's `self` (the `NativeModule`).
unsafe fn this<'a>(self_: *mut c_void) -> &'a NativeModule {
    // SAFETY: per the contract.
    unsafe { &*(self_ as *const NativeModule) }
}

impl NativeModule {
    fn descriptor(&self) -> &iree_vm_native_module_descriptor_t {
        // SAFETY: the descriptor outlives the module (caller's contract).
        unsafe { &*self.descriptor }
    }

    fn exports(&self) -> &[iree_vm_native_export_descriptor_t] {
        let d = self.descriptor();
        slice(d.exports, d.export_count)
    }

    fn imports(&self) -> &[iree_vm_native_import_descriptor_t] {
        let d = self.descriptor();
        slice(d.imports, d.import_count)
    }
}

/// A descriptor array as a slice (empty for NULL).
fn slice<'a, T>(ptr: *const T, count: usize) -> &'a [T] {
    if ptr.is_null() || count == 0 {
        &[]
    } else {
        // SAFETY: descriptor arrays hold their counts (caller's contract).
        unsafe { std::slice::from_raw_parts(ptr, count) }
    }
}

unsafe extern "C" fn native_destroy(self_: *mut c_void) {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    if let Some(destroy) = module.user.destroy {
        // SAFETY: the caller's callback with its own self.
        unsafe { destroy(module.user_self) };
    }
    if module.owned {
        // SAFETY: made by `iree_vm_native_module_create` as a box.
        drop(unsafe { Box::from_raw(self_.cast::<NativeModule>()) });
    }
}

unsafe extern "C" fn native_name(self_: *mut c_void) -> iree_string_view_t {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    match module.user.name {
        // SAFETY: the caller's callback.
        Some(name) => unsafe { name(module.user_self) },
        None => module.descriptor().name,
    }
}

unsafe extern "C" fn native_signature(self_: *mut c_void) -> iree_vm_module_signature_t {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    if let Some(signature) = module.user.signature {
        // SAFETY: the caller's callback.
        return unsafe { signature(module.user_self) };
    }
    let d = module.descriptor();
    iree_vm_module_signature_t {
        version: d.version,
        attr_count: d.attr_count,
        import_function_count: d.import_count,
        export_function_count: d.export_count,
        internal_function_count: 0,
    }
}

unsafe extern "C" fn native_get_module_attr(
    self_: *mut c_void,
    index: iree_host_size_t,
    out_attr: *mut iree_string_pair_t,
) -> iree_status_t {
    boundary::status("get_module_attr", || {
        // SAFETY: our interface's self.
        let d = unsafe { this(self_) }.descriptor();
        let attr = slice(d.attrs, d.attr_count).get(index).ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                "module attribute index out of range",
            )
        })?;
        // SAFETY: the caller's out pointer.
        *unsafe { out_attr.as_mut() }.ok_or_else(|| handles::null_argument("out_attr"))? = *attr;
        Ok(())
    })
}

unsafe extern "C" fn native_enumerate_dependencies(
    self_: *mut c_void,
    callback: Option<iree_vm_module_dependency_callback_t>,
    user_data: *mut c_void,
) -> iree_status_t {
    boundary::status("enumerate_dependencies", || {
        // SAFETY: our interface's self.
        let d = unsafe { this(self_) }.descriptor();
        let Some(callback) = callback else {
            return Ok(());
        };
        for dependency in slice(d.dependencies, d.dependency_count) {
            // SAFETY: the caller's callback.
            unsafe { take_status(callback(user_data, dependency)) }?;
        }
        Ok(())
    })
}

/// Fills the out parameters of `get_function` for export or import
/// `ordinal`.
fn function_info(
    module: &NativeModule,
    self_: *mut c_void,
    linkage_kind: u16,
    ordinal: usize,
) -> Result<(iree_vm_function_t, iree_string_view_t, iree_string_view_t)> {
    let out_of_range = || {
        Status::new(
            StatusCode::InvalidArgument,
            format!("function ordinal {ordinal} out of range"),
        )
    };
    if matches!(linkage_kind, linkage::IMPORT | linkage::IMPORT_OPTIONAL) {
        let import = module.imports().get(ordinal).ok_or_else(out_of_range)?;
        let kind = if import.flags & IMPORT_OPTIONAL != 0 {
            linkage::IMPORT_OPTIONAL
        } else {
            linkage::IMPORT
        };
        return Ok((
            iree_vm_function_t {
                module: self_.cast(),
                linkage: kind,
                ordinal: ordinal as u16,
            },
            import.full_name,
            iree_string_view_t::empty(),
        ));
    }
    let export = module.exports().get(ordinal).ok_or_else(out_of_range)?;
    Ok((
        iree_vm_function_t {
            module: self_.cast(),
            linkage: linkage::EXPORT,
            ordinal: ordinal as u16,
        },
        export.local_name,
        export.calling_convention,
    ))
}

unsafe extern "C" fn native_get_function(
    self_: *mut c_void,
    linkage_kind: u32,
    ordinal: iree_host_size_t,
    out_function: *mut iree_vm_function_t,
    out_name: *mut iree_string_view_t,
    out_signature: *mut iree_vm_function_signature_t,
) -> iree_status_t {
    boundary::status("get_function", || {
        // SAFETY: our interface's self.
        let module = unsafe { this(self_) };
        let (function, name, cconv) = function_info(module, self_, linkage_kind as u16, ordinal)?;
        // SAFETY: the caller's out pointers (each may be NULL).
        unsafe {
            if let Some(out) = out_function.as_mut() {
                *out = function;
            }
            if let Some(out) = out_name.as_mut() {
                *out = name;
            }
            if let Some(out) = out_signature.as_mut() {
                out.calling_convention = cconv;
            }
        }
        Ok(())
    })
}

unsafe extern "C" fn native_lookup_function(
    self_: *mut c_void,
    linkage_kind: u32,
    name: iree_string_view_t,
    _expected_signature: *const iree_vm_function_signature_t,
    out_function: *mut iree_vm_function_t,
) -> iree_status_t {
    boundary::status("lookup_function", || {
        // SAFETY: our interface's self.
        let module = unsafe { this(self_) };
        // SAFETY: the caller's view; descriptor names live with the module.
        let wanted = unsafe { name.as_bytes() };
        let is_import = matches!(
            linkage_kind as u16,
            linkage::IMPORT | linkage::IMPORT_OPTIONAL
        );
        let ordinal = if is_import {
            // SAFETY: as above.
            module
                .imports()
                .iter()
                .position(|i| unsafe { i.full_name.as_bytes() } == wanted)
        } else {
            // SAFETY: as above.
            module
                .exports()
                .iter()
                .position(|e| unsafe { e.local_name.as_bytes() } == wanted)
        }
        .ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!("function {} not exported", String::from_utf8_lossy(wanted)),
            )
        })?;
        let (function, _, _) = function_info(
            module,
            self_,
            if is_import {
                linkage::IMPORT
            } else {
                linkage::EXPORT
            },
            ordinal,
        )?;
        // SAFETY: the caller's out pointer.
        *unsafe { out_function.as_mut() }
            .ok_or_else(|| handles::null_argument("out_function"))? = function;
        Ok(())
    })
}

unsafe extern "C" fn native_get_function_attr(
    self_: *mut c_void,
    linkage_kind: u32,
    ordinal: iree_host_size_t,
    index: iree_host_size_t,
    out_attr: *mut iree_string_pair_t,
) -> iree_status_t {
    boundary::status("get_function_attr", || {
        // SAFETY: our interface's self.
        let module = unsafe { this(self_) };
        if matches!(
            linkage_kind as u16,
            linkage::IMPORT | linkage::IMPORT_OPTIONAL
        ) {
            return Err(Status::new(
                StatusCode::OutOfRange,
                "imports have no attributes",
            ));
        }
        let export = module.exports().get(ordinal).ok_or_else(|| {
            Status::new(StatusCode::InvalidArgument, "function ordinal out of range")
        })?;
        let attr = slice(export.attrs, export.attr_count)
            .get(index)
            .ok_or_else(|| Status::new(StatusCode::OutOfRange, "attribute index out of range"))?;
        // SAFETY: the caller's out pointer.
        *unsafe { out_attr.as_mut() }.ok_or_else(|| handles::null_argument("out_attr"))? = *attr;
        Ok(())
    })
}

unsafe extern "C" fn native_alloc_state(
    self_: *mut c_void,
    allocator: iree_allocator_t,
    out_state: *mut *mut c_void,
) -> iree_status_t {
    // SAFETY: our interface's self; the caller's out pointer.
    let module = unsafe { this(self_) };
    // SAFETY: the caller's out pointer.
    if let Some(out) = unsafe { out_state.as_mut() } {
        *out = std::ptr::null_mut();
    }
    match module.user.alloc_state {
        // SAFETY: the caller's callback.
        Some(alloc) => unsafe { alloc(module.user_self, allocator, out_state) },
        None => iree_status_t::OK,
    }
}

unsafe extern "C" fn native_free_state(self_: *mut c_void, state: *mut c_void) {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    if let Some(free) = module.user.free_state {
        // SAFETY: the caller's callback with its own state.
        unsafe { free(module.user_self, state) };
    }
}

unsafe extern "C" fn native_fork_state(
    self_: *mut c_void,
    parent: *mut c_void,
    allocator: iree_allocator_t,
    out_child: *mut *mut c_void,
) -> iree_status_t {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    match module.user.fork_state {
        // SAFETY: the caller's callback.
        Some(fork) => unsafe { fork(module.user_self, parent, allocator, out_child) },
        None => {
            // SAFETY: the caller's out pointer.
            if let Some(out) = unsafe { out_child.as_mut() } {
                *out = parent;
            }
            iree_status_t::OK
        }
    }
}

unsafe extern "C" fn native_resolve_import(
    self_: *mut c_void,
    state: *mut c_void,
    ordinal: iree_host_size_t,
    function: *const iree_vm_function_t,
    signature: *const iree_vm_function_signature_t,
) -> iree_status_t {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    match module.user.resolve_import {
        // SAFETY: the caller's callback.
        Some(resolve) => unsafe { resolve(module.user_self, state, ordinal, function, signature) },
        None => Err::<(), _>(Status::new(
            StatusCode::Unimplemented,
            "native module does not support imports",
        ))
        .into_c_status(),
    }
}

unsafe extern "C" fn native_notify(
    self_: *mut c_void,
    state: *mut c_void,
    signal: u32,
) -> iree_status_t {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    match module.user.notify {
        // SAFETY: the caller's callback.
        Some(notify) => unsafe { notify(module.user_self, state, signal) },
        None => iree_status_t::OK,
    }
}

unsafe extern "C" fn native_begin_call(
    self_: *mut c_void,
    stack: *mut iree_vm_stack_t,
    call: iree_vm_function_call_t,
) -> iree_status_t {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    let export_count = module.descriptor().export_count;
    if !matches!(
        call.function.linkage,
        linkage::EXPORT | linkage::EXPORT_OPTIONAL
    ) || call.function.ordinal as usize >= export_count
    {
        return Err::<(), _>(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "function ordinal out of bounds: 0 < {} < {export_count}",
                call.function.ordinal
            ),
        ))
        .into_c_status();
    }
    if let Some(begin_call) = module.user.begin_call {
        // SAFETY: the caller's callback.
        return unsafe { begin_call(module.user_self, stack, call) };
    }
    let d = module.descriptor();
    let Some(function) = slice(d.functions, d.function_count).get(call.function.ordinal as usize)
    else {
        return iree_status_t::from_code(StatusCode::InvalidArgument);
    };
    let Some(shim) = function.shim else {
        return Err::<(), _>(Status::new(
            StatusCode::Unimplemented,
            "native function has no shim",
        ))
        .into_c_status();
    };
    let mut frame: *mut iree_vm_stack_frame_t = std::ptr::null_mut();
    // SAFETY: the caller's stack; enters a native frame for the call.
    let status = unsafe {
        iree_vm_stack_function_enter(stack, &call.function, FRAME_NATIVE, 0, None, &mut frame)
    };
    if !status.is_ok() {
        return status;
    }
    // SAFETY: `frame` was just pushed.
    let state = unsafe { (*frame).module_state };
    // SAFETY: the caller's shim and target with its own module and state.
    let status = unsafe {
        shim(
            stack,
            CALL_BEGIN,
            call.arguments,
            call.results,
            function.target,
            module.user_self,
            state,
        )
    };
    if status.code() == StatusCode::Deferred {
        return status;
    }
    if !status.is_ok() {
        // SAFETY: our interface's self.
        let name = unsafe { native_name(self_).to_string_lossy() };
        // SAFETY: descriptor names live with the module.
        let function_name = unsafe {
            module.exports()[call.function.ordinal as usize]
                .local_name
                .to_string_lossy()
        };
        let message = format!("while invoking native function {name}.{function_name}");
        // SAFETY: `status` is owned here; the view outlives the call.
        return unsafe {
            crate::status::iree_status_annotate(status, iree_string_view_t::from_str(&message))
        };
    }
    // SAFETY: the frame pushed above.
    unsafe { iree_vm_stack_function_leave(stack) }
}

unsafe extern "C" fn native_resume_call(
    self_: *mut c_void,
    stack: *mut iree_vm_stack_t,
    results: iree_byte_span_t,
) -> iree_status_t {
    // SAFETY: our interface's self.
    let module = unsafe { this(self_) };
    match module.user.resume_call {
        // SAFETY: the caller's callback.
        Some(resume) => unsafe { resume(module.user_self, stack, results) },
        None => Err::<(), _>(Status::new(
            StatusCode::Unimplemented,
            "native module functions here do not resume",
        ))
        .into_c_status(),
    }
}

/// Checks the descriptor as upstream does.
fn verify(
    interface: &iree_vm_module_t,
    descriptor: &iree_vm_native_module_descriptor_t,
) -> Result<()> {
    if interface.begin_call.is_none() && descriptor.functions.is_null() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "native modules must provide call support or function pointers",
        ));
    }
    if interface.begin_call.is_none() && descriptor.export_count != descriptor.function_count {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "native modules using the default call support must have 1:1 exports:function pointers",
        ));
    }
    Ok(())
}

/// Fills `place` with a native module.
///
/// # Safety
/// `place` holds `size_of::<NativeModule>()` writable, aligned bytes;
/// `interface` and `descriptor` are valid (the descriptor for the module's
/// life).
unsafe fn initialize(
    place: *mut NativeModule,
    interface: &iree_vm_module_t,
    descriptor: *const iree_vm_native_module_descriptor_t,
    owned: bool,
) {
    let user_self = if interface.self_.is_null() {
        place.cast()
    } else {
        interface.self_
    };
    // SAFETY: a bitwise copy of the caller's interface (plain data).
    let user = unsafe { std::ptr::read(interface) };
    // SAFETY: per the contract.
    unsafe {
        place.write(NativeModule {
            interface: iree_vm_module_t {
                self_: place.cast(),
                ref_count: std::sync::atomic::AtomicI32::new(1),
                destroy: Some(native_destroy),
                name: Some(native_name),
                signature: Some(native_signature),
                enumerate_dependencies: Some(native_enumerate_dependencies),
                get_module_attr: Some(native_get_module_attr),
                lookup_function: Some(native_lookup_function),
                get_function: Some(native_get_function),
                get_function_attr: Some(native_get_function_attr),
                resolve_source_location: None,
                alloc_state: Some(native_alloc_state),
                free_state: Some(native_free_state),
                fork_state: Some(native_fork_state),
                resolve_import: Some(native_resolve_import),
                notify: Some(native_notify),
                begin_call: Some(native_begin_call),
                resume_call: Some(native_resume_call),
            },
            user,
            user_self,
            descriptor,
            owned,
        })
    };
}

/// `iree_vm_native_module_size`: the bytes `iree_vm_native_module_initialize`
/// needs.
#[no_mangle]
pub extern "C" fn iree_vm_native_module_size() -> iree_host_size_t {
    boundary::value("iree_vm_native_module_size", 0, || {
        std::mem::size_of::<NativeModule>()
    })
}

/// `iree_vm_native_module_create`.
///
/// # Safety
/// `module_interface` is valid; `module_descriptor` outlives the module;
/// `out_module` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_native_module_create(
    module_interface: *const iree_vm_module_t,
    module_descriptor: *const iree_vm_native_module_descriptor_t,
    instance: *mut c_void,
    _allocator: iree_allocator_t,
    out_module: *mut *mut iree_vm_module_t,
) -> iree_status_t {
    boundary::status("iree_vm_native_module_create", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_module.as_mut() }.ok_or_else(|| handles::null_argument("out_module"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let interface = unsafe { handles::require(module_interface, "module_interface") }?;
        // SAFETY: per the contract.
        let descriptor_ref = unsafe { handles::require(module_descriptor, "module_descriptor") }?;
        if instance.is_null() {
            return Err(handles::null_argument("instance"));
        }
        verify(interface, descriptor_ref)?;
        let place = Box::into_raw(Box::<std::mem::MaybeUninit<NativeModule>>::new_uninit())
            .cast::<NativeModule>();
        // SAFETY: a fresh allocation of the right size and alignment.
        unsafe { initialize(place, interface, module_descriptor, true) };
        *out = place.cast();
        Ok(())
    })
}

/// `iree_vm_native_module_initialize`: a native module in caller storage of
/// `iree_vm_native_module_size()` bytes (not freed on destroy).
///
/// # Safety
/// As [`iree_vm_native_module_create`]; `module` is that storage, aligned
/// for a pointer.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_native_module_initialize(
    module_interface: *const iree_vm_module_t,
    module_descriptor: *const iree_vm_native_module_descriptor_t,
    instance: *mut c_void,
    _allocator: iree_allocator_t,
    module: *mut iree_vm_module_t,
) -> iree_status_t {
    boundary::status("iree_vm_native_module_initialize", || {
        // SAFETY: per the contract.
        let interface = unsafe { handles::require(module_interface, "module_interface") }?;
        // SAFETY: per the contract.
        let descriptor_ref = unsafe { handles::require(module_descriptor, "module_descriptor") }?;
        if instance.is_null() {
            return Err(handles::null_argument("instance"));
        }
        if module.is_null() {
            return Err(handles::null_argument("module"));
        }
        verify(interface, descriptor_ref)?;
        // SAFETY: per the contract.
        unsafe { initialize(module.cast(), interface, module_descriptor, false) };
        Ok(())
    })
}
