//! `iree/runtime`: instances, sessions and calls, over the VM context of
//! [`crate::vm_context`] and the drivers of [`iree_runtime::Instance`].

use std::ffi::c_char;
use std::sync::{Arc, LazyLock};

use iree_base::{Result, Status, StatusCode};
use iree_hal::DriverRegistry;
use iree_modules_hal::{HalAllocator, HalBufferView, HalDevice};
use iree_vm::{Instance, List};

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::bytecode;
use crate::hal;
use crate::handles;
use crate::io;
use crate::refs::{builtin, builtin_type_value, iree_vm_ref_t};
use crate::status::{iree_status_t, take_status};
use crate::strings::{iree_const_byte_span_t, iree_string_view_t};
use crate::vm::{self, iree_vm_list_create};
use crate::vm_context::{self, CContext};
use crate::vm_module::{iree_vm_function_call_t, iree_vm_function_t, iree_vm_module_t, RustModule};

/// Every driver this build has, shared by all instances that ask for them
/// (`iree_hal_driver_registry_default`).
static DEFAULT_RUNTIME: LazyLock<iree_runtime::Instance> =
    LazyLock::new(iree_runtime::Instance::new);

/// `iree_hal_driver_registry_t`: the registry of every driver.
#[allow(non_camel_case_types)]
pub type iree_hal_driver_registry_t = DriverRegistry;

/// `iree_hal_driver_registry_default`.
#[no_mangle]
pub extern "C" fn iree_hal_driver_registry_default() -> *mut iree_hal_driver_registry_t {
    boundary::value(
        "iree_hal_driver_registry_default",
        std::ptr::null_mut(),
        || DEFAULT_RUNTIME.drivers() as *const DriverRegistry as *mut DriverRegistry,
    )
}

//===----------------------------------------------------------------------===//
// Instances
//===----------------------------------------------------------------------===//

/// `iree_runtime_instance_options_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_runtime_instance_options_t {
    /// Drivers sessions may create devices with (NULL: none).
    pub driver_registry: *mut iree_hal_driver_registry_t,
}

/// `iree_runtime_instance_t`.
#[allow(non_camel_case_types)]
pub struct iree_runtime_instance_t {
    host_allocator: iree_allocator_t,
    drivers: Option<&'static DriverRegistry>,
    vm: Arc<Instance>,
}

/// `iree_runtime_instance_options_initialize`.
///
/// # Safety
/// `out_options` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_options_initialize(
    out_options: *mut iree_runtime_instance_options_t,
) {
    // SAFETY: per the contract.
    if let Some(out) = unsafe { out_options.as_mut() } {
        out.driver_registry = std::ptr::null_mut();
    }
}

/// `iree_runtime_instance_options_use_all_available_drivers`.
///
/// # Safety
/// `options` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_options_use_all_available_drivers(
    options: *mut iree_runtime_instance_options_t,
) {
    boundary::value(
        "iree_runtime_instance_options_use_all_available_drivers",
        (),
        || {
            // SAFETY: per the contract.
            if let Some(options) = unsafe { options.as_mut() } {
                options.driver_registry = iree_hal_driver_registry_default();
            }
        },
    )
}

/// `iree_runtime_instance_create`: a VM instance with the HAL types.
///
/// # Safety
/// `options` and `out_instance` are valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_create(
    options: *const iree_runtime_instance_options_t,
    host_allocator: iree_allocator_t,
    out_instance: *mut *mut iree_runtime_instance_t,
) -> iree_status_t {
    boundary::status("iree_runtime_instance_create", || {
        // SAFETY: per the contract.
        let out = unsafe { out_instance.as_mut() }
            .ok_or_else(|| handles::null_argument("out_instance"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let options = unsafe { handles::require(options, "options") }?;
        let vm = Instance::new();
        iree_modules_hal::register_types(&vm)?;
        let drivers = (!options.driver_registry.is_null()).then(|| DEFAULT_RUNTIME.drivers());
        *out = handles::into_handle(Arc::new(iree_runtime_instance_t {
            host_allocator,
            drivers,
            vm,
        }));
        Ok(())
    })
}

/// `iree_runtime_instance_retain`.
///
/// # Safety
/// `instance` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_retain(instance: *mut iree_runtime_instance_t) {
    // SAFETY: per the contract.
    unsafe { handles::retain(instance) }
}

/// `iree_runtime_instance_release`.
///
/// # Safety
/// `instance` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_release(instance: *mut iree_runtime_instance_t) {
    // SAFETY: per the contract.
    boundary::value("iree_runtime_instance_release", (), || unsafe {
        handles::release(instance)
    })
}

/// `iree_runtime_instance_host_allocator`.
///
/// # Safety
/// `instance` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_host_allocator(
    instance: *const iree_runtime_instance_t,
) -> iree_allocator_t {
    // SAFETY: per the contract.
    unsafe { handles::borrow(instance) }.map_or(iree_allocator_t::null(), |i| i.host_allocator)
}

/// `iree_runtime_instance_vm_instance`: borrowed.
///
/// # Safety
/// `instance` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_vm_instance(
    instance: *const iree_runtime_instance_t,
) -> *mut Instance {
    boundary::value(
        "iree_runtime_instance_vm_instance",
        std::ptr::null_mut(),
        || {
            // SAFETY: per the contract.
            unsafe { handles::borrow(instance) }
                .map_or(std::ptr::null_mut(), |i| Arc::as_ptr(&i.vm).cast_mut())
        },
    )
}

/// `iree_runtime_instance_driver_registry`: borrowed; NULL when the
/// instance was made without drivers.
///
/// # Safety
/// `instance` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_driver_registry(
    instance: *const iree_runtime_instance_t,
) -> *mut iree_hal_driver_registry_t {
    boundary::value(
        "iree_runtime_instance_driver_registry",
        std::ptr::null_mut(),
        || {
            // SAFETY: per the contract.
            unsafe { handles::borrow(instance) }
                .and_then(|i| i.drivers)
                .map_or(std::ptr::null_mut(), |d| {
                    d as *const DriverRegistry as *mut DriverRegistry
                })
        },
    )
}

/// `iree_runtime_instance_try_create_default_device`: the default device of
/// driver `driver_name` (`local-task`, `local-sync`, `cuda`, `hip`).
///
/// # Safety
/// `instance` is live; `driver_name` is valid; `out_device` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_instance_try_create_default_device(
    instance: *mut iree_runtime_instance_t,
    driver_name: iree_string_view_t,
    out_device: *mut *mut HalDevice,
) -> iree_status_t {
    boundary::status("iree_runtime_instance_try_create_default_device", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_device.as_mut() }.ok_or_else(|| handles::null_argument("out_device"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let instance = unsafe { handles::require(instance, "instance") }?;
        let drivers = instance.drivers.ok_or_else(|| {
            Status::new(
                StatusCode::FailedPrecondition,
                "instance was created without a driver registry and cannot perform enumeration",
            )
        })?;
        // SAFETY: per the contract.
        let name = unsafe { driver_name.to_string_lossy() };
        *out = hal::device_handle(drivers.create_device(&name)?);
        Ok(())
    })
}

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

/// `iree_runtime_session_options_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_runtime_session_options_t {
    /// `iree_vm_context_flags_t`.
    pub context_flags: u32,
    /// `iree_runtime_session_builtins_t`.
    pub builtin_modules: u64,
}

/// `iree_runtime_session_t`: a context with the `hal` module on one
/// device, and the modules appended to it.
#[allow(non_camel_case_types)]
pub struct iree_runtime_session_t {
    instance: Arc<iree_runtime_instance_t>,
    host_allocator: iree_allocator_t,
    device: Arc<HalDevice>,
    context: Arc<CContext>,
}

/// `iree_runtime_session_options_initialize`.
///
/// # Safety
/// `out_options` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_options_initialize(
    out_options: *mut iree_runtime_session_options_t,
) {
    // SAFETY: per the contract.
    if let Some(out) = unsafe { out_options.as_mut() } {
        out.context_flags = 0;
        out.builtin_modules = u64::MAX;
    }
}

/// `iree_runtime_session_create_with_device`.
///
/// # Safety
/// `instance`, `options` and `device` are live; `out_session` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_create_with_device(
    instance: *mut iree_runtime_instance_t,
    options: *const iree_runtime_session_options_t,
    device: *mut HalDevice,
    host_allocator: iree_allocator_t,
    out_session: *mut *mut iree_runtime_session_t,
) -> iree_status_t {
    boundary::status("iree_runtime_session_create_with_device", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_session.as_mut() }.ok_or_else(|| handles::null_argument("out_session"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let options = unsafe { handles::require(options, "options") }?;
        if instance.is_null() {
            return Err(handles::null_argument("instance"));
        }
        if device.is_null() {
            return Err(handles::null_argument("device"));
        }
        // SAFETY: per the contract.
        let (instance, device) =
            unsafe { (handles::clone_arc(instance), handles::clone_arc(device)) };
        let context = Arc::new(CContext::new(instance.vm.clone(), options.context_flags));
        let hal = iree_modules_hal::create_hal_module_with_debug_sink(
            vec![device.0.clone()],
            Some(iree_modules_hal::stderr_debug_sink()),
        )?;
        context.register_rust(hal)?;
        *out = handles::into_handle(Arc::new(iree_runtime_session_t {
            instance,
            host_allocator,
            device,
            context,
        }));
        Ok(())
    })
}

/// The session behind a handle.
///
/// # Safety
/// `session` is NULL or live.
unsafe fn session<'a>(
    session: *const iree_runtime_session_t,
) -> Result<&'a iree_runtime_session_t> {
    // SAFETY: forwarded contract.
    unsafe { handles::require(session, "session") }
}

/// `iree_runtime_session_retain`.
///
/// # Safety
/// `session` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_retain(session: *mut iree_runtime_session_t) {
    // SAFETY: per the contract.
    unsafe { handles::retain(session) }
}

/// `iree_runtime_session_release`.
///
/// # Safety
/// `session` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_release(session: *mut iree_runtime_session_t) {
    // SAFETY: per the contract.
    boundary::value("iree_runtime_session_release", (), || unsafe {
        handles::release(session)
    })
}

/// `iree_runtime_session_host_allocator`.
///
/// # Safety
/// `session` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_host_allocator(
    session: *const iree_runtime_session_t,
) -> iree_allocator_t {
    // SAFETY: per the contract.
    unsafe { handles::borrow(session) }.map_or(iree_allocator_t::null(), |s| s.host_allocator)
}

/// `iree_runtime_session_instance`: borrowed.
///
/// # Safety
/// `session` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_instance(
    session: *const iree_runtime_session_t,
) -> *mut iree_runtime_instance_t {
    boundary::value(
        "iree_runtime_session_instance",
        std::ptr::null_mut(),
        || {
            // SAFETY: per the contract.
            unsafe { handles::borrow(session) }.map_or(std::ptr::null_mut(), |s| {
                Arc::as_ptr(&s.instance).cast_mut()
            })
        },
    )
}

/// `iree_runtime_session_context`: borrowed.
///
/// # Safety
/// `session` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_context(
    session: *const iree_runtime_session_t,
) -> *mut CContext {
    boundary::value("iree_runtime_session_context", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(session) }
            .map_or(std::ptr::null_mut(), |s| Arc::as_ptr(&s.context).cast_mut())
    })
}

/// `iree_runtime_session_device`: borrowed.
///
/// # Safety
/// `session` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_device(
    session: *const iree_runtime_session_t,
) -> *mut HalDevice {
    boundary::value("iree_runtime_session_device", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(session) }
            .map_or(std::ptr::null_mut(), |s| Arc::as_ptr(&s.device).cast_mut())
    })
}

/// `iree_runtime_session_device_allocator`: borrowed.
///
/// # Safety
/// `session` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_device_allocator(
    session: *const iree_runtime_session_t,
) -> *mut HalAllocator {
    boundary::value(
        "iree_runtime_session_device_allocator",
        std::ptr::null_mut(),
        || {
            // SAFETY: per the contract.
            unsafe { handles::borrow(session) }
                .and_then(|s| hal::device_allocator(&s.device).ok())
                .unwrap_or(std::ptr::null_mut())
        },
    )
}

/// `iree_runtime_session_trim`: the LOW_MEMORY signal to every module.
///
/// # Safety
/// `session` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_trim(
    session: *mut iree_runtime_session_t,
) -> iree_status_t {
    boundary::status("iree_runtime_session_trim", || {
        // SAFETY: per the contract.
        unsafe { self::session(session) }?.context.notify(2)
    })
}

/// `iree_runtime_session_append_module`.
///
/// # Safety
/// `session` and `module` are live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_append_module(
    session: *mut iree_runtime_session_t,
    module: *mut iree_vm_module_t,
) -> iree_status_t {
    boundary::status("iree_runtime_session_append_module", || {
        // SAFETY: per the contract.
        let session = unsafe { self::session(session) }?;
        if module.is_null() {
            return Err(handles::null_argument("module"));
        }
        // SAFETY: per the contract.
        unsafe { session.context.register(module) }
    })
}

/// Loads a bytecode module from `contents` and appends it.
///
/// # Safety
/// As [`iree_runtime_session_append_bytecode_module_from_memory`].
unsafe fn append_bytecode(
    session: &iree_runtime_session_t,
    contents: iree_const_byte_span_t,
    allocator: iree_allocator_t,
) -> Result<()> {
    // SAFETY: forwarded contract.
    let module = match unsafe { bytecode::load(&session.instance.vm, contents, allocator) } {
        Ok(module) => module,
        Err(error) => {
            // On failure the session frees the bytes, as upstream's does.
            // SAFETY: per the contract the allocator owns the bytes.
            unsafe { allocator.free(contents.data.cast_mut().cast()) };
            return Err(error);
        }
    };
    session.context.register_rust(module).map(|_| ())
}

/// `iree_runtime_session_append_bytecode_module_from_memory`: the session
/// owns the bytes on success and on failure (freed with
/// `flatbuffer_allocator`).
///
/// # Safety
/// `session` is live; `flatbuffer_data` stays valid until freed through
/// `flatbuffer_allocator` (for good with the null allocator).
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_append_bytecode_module_from_memory(
    session: *mut iree_runtime_session_t,
    flatbuffer_data: iree_const_byte_span_t,
    flatbuffer_allocator: iree_allocator_t,
) -> iree_status_t {
    boundary::status(
        "iree_runtime_session_append_bytecode_module_from_memory",
        || {
            // SAFETY: per the contract.
            let session = unsafe { self::session(session) }?;
            if flatbuffer_data.data.is_null() {
                return Err(handles::null_argument("flatbuffer_data"));
            }
            // SAFETY: per the contract.
            unsafe { append_bytecode(session, flatbuffer_data, flatbuffer_allocator) }
        },
    )
}

/// Appends a bytecode module read by `read`.
fn append_read(
    session: &iree_runtime_session_t,
    read: impl FnOnce() -> Result<iree_vm::buffer::SharedBytes>,
) -> Result<()> {
    let module = iree_vm_bytecode::BytecodeModule::from_bytes(&session.instance.vm, read()?)?;
    session.context.register_rust(module).map(|_| ())
}

/// `iree_runtime_session_append_bytecode_module_from_file`.
///
/// # Safety
/// `session` is live; `file_path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_append_bytecode_module_from_file(
    session: *mut iree_runtime_session_t,
    file_path: *const c_char,
) -> iree_status_t {
    boundary::status(
        "iree_runtime_session_append_bytecode_module_from_file",
        || {
            // SAFETY: per the contract.
            let session = unsafe { self::session(session) }?;
            if file_path.is_null() {
                return Err(handles::null_argument("file_path"));
            }
            // SAFETY: per the contract.
            let path = unsafe { std::ffi::CStr::from_ptr(file_path) }
                .to_string_lossy()
                .into_owned();
            append_read(session, || io::read_file(&path))
        },
    )
}

/// `iree_runtime_session_append_bytecode_module_from_stdin`.
///
/// # Safety
/// `session` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_append_bytecode_module_from_stdin(
    session: *mut iree_runtime_session_t,
) -> iree_status_t {
    boundary::status(
        "iree_runtime_session_append_bytecode_module_from_stdin",
        || {
            // SAFETY: per the contract.
            append_read(unsafe { self::session(session) }?, io::read_stdin)
        },
    )
}

/// `iree_runtime_session_lookup_function`.
///
/// # Safety
/// `session` is live; `full_name` is valid; `out_function` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_lookup_function(
    session: *const iree_runtime_session_t,
    full_name: iree_string_view_t,
    out_function: *mut iree_vm_function_t,
) -> iree_status_t {
    boundary::status("iree_runtime_session_lookup_function", || {
        // SAFETY: per the contract.
        let session = unsafe { self::session(session) }?;
        // SAFETY: per the contract.
        let out = unsafe { out_function.as_mut() }
            .ok_or_else(|| handles::null_argument("out_function"))?;
        // SAFETY: per the contract.
        let name = unsafe { full_name.to_string_lossy() };
        *out = session.context.resolve_function(&name)?;
        Ok(())
    })
}

/// `iree_runtime_session_call`.
///
/// # Safety
/// `session` and `function` are live; the lists are NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_call(
    session: *mut iree_runtime_session_t,
    function: *const iree_vm_function_t,
    input_list: *mut List,
    output_list: *mut List,
) -> iree_status_t {
    boundary::status("iree_runtime_session_call", || {
        // SAFETY: per the contract.
        let session = unsafe { self::session(session) }?;
        // SAFETY: per the contract.
        let function = unsafe { handles::require(function, "function") }?;
        // SAFETY: per the contract.
        let (inputs, outputs) =
            unsafe { (handles::borrow(input_list), handles::borrow(output_list)) };
        session.context.invoke(function, inputs, outputs)
    })
}

/// `iree_runtime_session_call_by_name`.
///
/// # Safety
/// `session` is live; `full_name` is valid; the lists are NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_call_by_name(
    session: *mut iree_runtime_session_t,
    full_name: iree_string_view_t,
    input_list: *mut List,
    output_list: *mut List,
) -> iree_status_t {
    boundary::status("iree_runtime_session_call_by_name", || {
        // SAFETY: per the contract.
        let session = unsafe { self::session(session) }?;
        // SAFETY: per the contract.
        let name = unsafe { full_name.to_string_lossy() };
        let function = session.context.resolve_function(&name)?;
        // SAFETY: per the contract.
        let (inputs, outputs) =
            unsafe { (handles::borrow(input_list), handles::borrow(output_list)) };
        session.context.invoke(&function, inputs, outputs)
    })
}

/// `iree_runtime_session_call_direct`: runs `call` on its module with a
/// stack resolving states in the session's context.
///
/// # Safety
/// `session` is live; `call` names a live module and valid buffers.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_session_call_direct(
    session: *mut iree_runtime_session_t,
    call: iree_vm_function_call_t,
) -> iree_status_t {
    boundary::status("iree_runtime_session_call_direct", || {
        // SAFETY: per the contract.
        vm_context::call_direct(&unsafe { self::session(session) }?.context, call)
    })
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

/// `iree_runtime_call_t`: a function of a session with input and output
/// lists (caller-allocated; 40 bytes).
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_runtime_call_t {
    /// The session (counted).
    pub session: *mut iree_runtime_session_t,
    /// The function.
    pub function: iree_vm_function_t,
    /// Arguments, in order.
    pub inputs: *mut List,
    /// Results, appended by the call.
    pub outputs: *mut List,
}

/// `iree_runtime_call_initialize`: lists sized for `function`'s cconv.
///
/// # Safety
/// `session` is live; `function` names one of its modules; `out_call` is
/// valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_initialize(
    session: *mut iree_runtime_session_t,
    function: iree_vm_function_t,
    out_call: *mut iree_runtime_call_t,
) -> iree_status_t {
    boundary::status("iree_runtime_call_initialize", || {
        // SAFETY: per the contract.
        let out = unsafe { out_call.as_mut() }.ok_or_else(|| handles::null_argument("out_call"))?;
        *out = iree_runtime_call_t {
            session: std::ptr::null_mut(),
            function: iree_vm_function_t::NULL,
            inputs: std::ptr::null_mut(),
            outputs: std::ptr::null_mut(),
        };
        // SAFETY: per the contract.
        let context = &unsafe { self::session(session) }?.context;
        let instance = context.instance_of(function.module)?;
        let export = instance
            .module()
            .exports()
            .get(function.ordinal as usize)
            .ok_or_else(|| Status::new(StatusCode::OutOfRange, "function ordinal out of range"))?;
        let cconv = iree_vm::Cconv::parse(&export.cconv)?;
        // SAFETY: per the contract.
        unsafe { iree_runtime_session_retain(session) };
        out.session = session;
        out.function = function;
        let result = (|| {
            // SAFETY: valid out pointers into `out`.
            unsafe {
                take_status(iree_vm_list_create(
                    0,
                    cconv.args.len(),
                    iree_allocator_t::system(),
                    &mut out.inputs,
                ))?;
                take_status(iree_vm_list_create(
                    0,
                    cconv.results.len(),
                    iree_allocator_t::system(),
                    &mut out.outputs,
                ))
            }
        })();
        if result.is_err() {
            // SAFETY: `out` holds what was made above.
            unsafe { iree_runtime_call_deinitialize(out) };
        }
        result
    })
}

/// `iree_runtime_call_initialize_by_name`.
///
/// # Safety
/// As [`iree_runtime_call_initialize`]; `full_name` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_initialize_by_name(
    session: *mut iree_runtime_session_t,
    full_name: iree_string_view_t,
    out_call: *mut iree_runtime_call_t,
) -> iree_status_t {
    boundary::forward("iree_runtime_call_initialize_by_name", || {
        let mut function = iree_vm_function_t::NULL;
        // SAFETY: forwarded contract.
        let status =
            unsafe { iree_runtime_session_lookup_function(session, full_name, &mut function) };
        if !status.is_ok() {
            return status;
        }
        // SAFETY: forwarded contract.
        unsafe { iree_runtime_call_initialize(session, function, out_call) }
    })
}

/// `iree_runtime_call_deinitialize`: releases the lists and the session.
///
/// # Safety
/// `call` was initialized (or zeroed).
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_deinitialize(call: *mut iree_runtime_call_t) {
    boundary::value("iree_runtime_call_deinitialize", (), || {
        // SAFETY: per the contract.
        let Some(call) = (unsafe { call.as_mut() }) else {
            return;
        };
        // SAFETY: the call owns a count of each.
        unsafe {
            vm::iree_vm_list_release(call.inputs);
            vm::iree_vm_list_release(call.outputs);
            iree_runtime_session_release(call.session);
        }
        call.inputs = std::ptr::null_mut();
        call.outputs = std::ptr::null_mut();
        call.session = std::ptr::null_mut();
    })
}

/// `iree_runtime_call_reset`: empties both lists.
///
/// # Safety
/// `call` is initialized.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_reset(call: *mut iree_runtime_call_t) {
    boundary::value("iree_runtime_call_reset", (), || {
        // SAFETY: per the contract.
        if let Some(call) = unsafe { call.as_ref() } {
            // SAFETY: the call's lists.
            unsafe {
                vm::iree_vm_list_clear(call.inputs);
                vm::iree_vm_list_clear(call.outputs);
            }
        }
    })
}

/// `iree_runtime_call_inputs`: borrowed.
///
/// # Safety
/// `call` is initialized.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_inputs(call: *const iree_runtime_call_t) -> *mut List {
    boundary::value("iree_runtime_call_inputs", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { call.as_ref() }.map_or(std::ptr::null_mut(), |c| c.inputs)
    })
}

/// `iree_runtime_call_outputs`: borrowed.
///
/// # Safety
/// `call` is initialized.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_outputs(call: *const iree_runtime_call_t) -> *mut List {
    boundary::value("iree_runtime_call_outputs", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { call.as_ref() }.map_or(std::ptr::null_mut(), |c| c.outputs)
    })
}

/// `iree_runtime_call_invoke`: calls the function with the inputs and
/// appends its results to the outputs.
///
/// # Safety
/// `call` is initialized.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_invoke(
    call: *mut iree_runtime_call_t,
    _flags: u32,
) -> iree_status_t {
    boundary::status("iree_runtime_call_invoke", || {
        // SAFETY: per the contract.
        let call = unsafe { handles::require(call, "call") }?;
        // SAFETY: an initialized call holds its session and lists.
        unsafe {
            let session = self::session(call.session)?;
            session.context.invoke(
                &call.function,
                handles::borrow(call.inputs),
                handles::borrow(call.outputs),
            )
        }
    })
}

/// `iree_runtime_call_inputs_push_back_buffer_view`: appends a counted
/// reference to `buffer_view`.
///
/// # Safety
/// `call` is initialized; `buffer_view` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_inputs_push_back_buffer_view(
    call: *mut iree_runtime_call_t,
    buffer_view: *mut HalBufferView,
) -> iree_status_t {
    boundary::status("iree_runtime_call_inputs_push_back_buffer_view", || {
        // SAFETY: per the contract.
        let call = unsafe { handles::require(call, "call") }?;
        if buffer_view.is_null() {
            return Err(handles::null_argument("buffer_view"));
        }
        let value = iree_vm_ref_t {
            ptr: buffer_view.cast(),
            type_: builtin_type_value(builtin::HAL_BUFFER_VIEW),
        };
        // SAFETY: the call's input list; `value` names a live view.
        unsafe { take_status(vm::iree_vm_list_push_ref_retain(call.inputs, &value)) }
    })
}

/// `iree_runtime_call_outputs_pop_front_buffer_view`: removes the first
/// output, which must be a buffer view; its count passes to the caller.
///
/// # Safety
/// `call` is initialized; `out_buffer_view` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_runtime_call_outputs_pop_front_buffer_view(
    call: *mut iree_runtime_call_t,
    out_buffer_view: *mut *mut HalBufferView,
) -> iree_status_t {
    boundary::status("iree_runtime_call_outputs_pop_front_buffer_view", || {
        // SAFETY: per the contract.
        let out = unsafe { out_buffer_view.as_mut() }
            .ok_or_else(|| handles::null_argument("out_buffer_view"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let call = unsafe { handles::require(call, "call") }?;
        // SAFETY: the call's output list.
        let outputs = unsafe { handles::require(call.outputs, "outputs") }?;
        let iree_vm::Value::Ref(Some(first)) = outputs.get_value(0)? else {
            return Err(Status::new(StatusCode::InvalidArgument, "ref is null"));
        };
        let view = first
            .downcast_arc::<HalBufferView>()
            .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "ref type mismatch"))?;
        vm::pop_front(outputs)?;
        *out = handles::into_handle(view);
        Ok(())
    })
}

/// A C handle (count 1) for a module of this runtime; for embedders that
/// build modules in Rust and hand them to C.
pub fn module_handle(module: Arc<dyn iree_vm::Module>) -> *mut iree_vm_module_t {
    RustModule::for_module(module)
}
