//! `iree_vm_context_t` and `iree_vm_invoke`, over the VM's [`Context`].
//!
//! A context remembers, for each registered module, the C handle it was
//! registered with (the `module` of the functions it resolves), the module
//! instance, and the state its resolver returns: a C module's own state,
//! or for modules of this runtime a `RustState` naming the instance.

use std::ffi::c_void;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, OnceLock};

use iree_base::{Result, Status, StatusCode};
use iree_vm::{
    Cconv, CconvType, Context, Function, Instance, List, Module, ModuleInstance, Value, ValueType,
};
use parking_lot::RwLock;

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::handles;
use crate::status::iree_status_t;
use crate::strings::{iree_host_size_t, iree_string_view_t};
use crate::vm_module::{
    self, iree_vm_function_call_t, iree_vm_function_t, iree_vm_module_release,
    iree_vm_module_retain, iree_vm_module_t, linkage, CModuleInstance, RustModule, RustState,
};
use crate::vm_stack::{self, iree_vm_state_resolver_t};

/// A registered module.
struct Entry {
    handle: *mut iree_vm_module_t,
    instance: Arc<dyn ModuleInstance>,
    /// What the resolver returns for `handle`.
    state: *mut c_void,
    /// Owns `state` for modules of this runtime (kept, never read).
    _rust_state: Option<Box<RustState>>,
    /// Each export's parsed cconv, parsed by its first invocation (a call
    /// in a loop does not parse it again).
    cconvs: Box<[OnceLock<Arc<Cconv>>]>,
}

impl Drop for Entry {
    fn drop(&mut self) {
        // SAFETY: each entry owns a count of its handle.
        unsafe { iree_vm_module_release(self.handle) }
    }
}

struct Registered {
    context: Context,
    entries: Vec<Entry>,
}

/// `iree_vm_context_t`.
pub struct CContext {
    instance: Arc<Instance>,
    id: isize,
    flags: u32,
    registered: RwLock<Registered>,
}

// SAFETY: entries hold handles and states of modules that are shareable
// between threads (upstream's contexts are); access is locked.
unsafe impl Send for CContext {}
// SAFETY: as above.
unsafe impl Sync for CContext {}

static NEXT_CONTEXT_ID: AtomicIsize = AtomicIsize::new(1);

impl CContext {
    /// An empty context.
    pub(crate) fn new(instance: Arc<Instance>, flags: u32) -> CContext {
        CContext {
            instance: instance.clone(),
            id: NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed),
            flags,
            registered: RwLock::new(Registered {
                context: Context::new(instance),
                entries: Vec::new(),
            }),
        }
    }

    /// Registers a module of this runtime; returns the C handle functions
    /// of it resolve to (owned by the context).
    pub(crate) fn register_rust(&self, module: Arc<dyn Module>) -> Result<*mut iree_vm_module_t> {
        let handle = RustModule::for_module(module.clone());
        let result = self.register_handle(handle, module);
        // SAFETY: the entry holds its own count (when registered).
        unsafe { iree_vm_module_release(handle) };
        result.map(|()| handle)
    }

    /// Registers the module of C handle `handle`.
    ///
    /// # Safety
    /// `handle` is a live module.
    pub(crate) unsafe fn register(&self, handle: *mut iree_vm_module_t) -> Result<()> {
        // SAFETY: per the contract.
        let module = unsafe { vm_module::module_from_handle(handle) }?;
        self.register_handle(handle, module)
    }

    fn register_handle(
        &self,
        handle: *mut iree_vm_module_t,
        module: Arc<dyn Module>,
    ) -> Result<()> {
        let mut registered = self.registered.write();
        registered.context.register(module)?;
        let instance = registered
            .context
            .modules()
            .last()
            .cloned()
            .expect("registered above");
        let (state, rust_state) = if vm_module::is_c_module(instance.module()) {
            // The instances of a C module's adapter are `CModuleInstance`s
            // (what `CModule::instantiate` makes).
            let c_instance = Arc::as_ptr(&instance) as *const CModuleInstance;
            // SAFETY: as above; the entry keeps the instance alive.
            (unsafe { (*c_instance).state() }, None)
        } else {
            let boxed = Box::new(RustState {
                instance: instance.clone(),
            });
            (&*boxed as *const RustState as *mut c_void, Some(boxed))
        };
        // SAFETY: the entry keeps a count of its own.
        unsafe { iree_vm_module_retain(handle) };
        let cconvs = (0..instance.module().exports().len())
            .map(|_| OnceLock::new())
            .collect();
        registered.entries.push(Entry {
            handle,
            instance,
            state,
            _rust_state: rust_state,
            cconvs,
        });
        Ok(())
    }

    /// The instance registered under `handle`.
    pub(crate) fn instance_of(
        &self,
        handle: *mut iree_vm_module_t,
    ) -> Result<Arc<dyn ModuleInstance>> {
        self.registered
            .read()
            .entries
            .iter()
            .rev()
            .find(|e| e.handle == handle)
            .map(|e| e.instance.clone())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    "module not registered with the context",
                )
            })
    }

    /// The instance registered under `handle` and the cconv of its export
    /// `ordinal`.
    fn export_of(
        &self,
        handle: *mut iree_vm_module_t,
        ordinal: usize,
    ) -> Result<(Arc<dyn ModuleInstance>, Arc<Cconv>)> {
        let registered = self.registered.read();
        let entry = registered
            .entries
            .iter()
            .rev()
            .find(|e| e.handle == handle)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    "module not registered with the context",
                )
            })?;
        let slot = entry
            .cconvs
            .get(ordinal)
            .ok_or_else(|| Status::new(StatusCode::OutOfRange, "function ordinal out of range"))?;
        let cconv = match slot.get() {
            Some(cconv) => cconv.clone(),
            None => {
                let export = &entry.instance.module().exports()[ordinal];
                let parsed = Arc::new(Cconv::parse(&export.cconv)?);
                slot.get_or_init(|| parsed).clone()
            }
        };
        Ok((entry.instance.clone(), cconv))
    }

    fn state_of(&self, handle: *mut iree_vm_module_t) -> Result<*mut c_void> {
        self.registered
            .read()
            .entries
            .iter()
            .rev()
            .find(|e| e.handle == handle)
            .map(|e| e.state)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    "module not registered with the context",
                )
            })
    }

    /// Resolves `module.function` to an export.
    pub(crate) fn resolve_function(&self, full_name: &str) -> Result<iree_vm_function_t> {
        let (module_name, function_name) = full_name.split_once('.').ok_or_else(|| {
            Status::new(
                StatusCode::InvalidArgument,
                format!("function name '{full_name}' is not of the form module.function"),
            )
        })?;
        let registered = self.registered.read();
        let entry = registered
            .entries
            .iter()
            .rev()
            .find(|e| e.instance.module().name() == module_name)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!(
                        "module '{module_name}' required for call not registered with the context"
                    ),
                )
            })?;
        let ordinal = entry
            .instance
            .module()
            .lookup_export(function_name)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!("function '{full_name}' not exported by module"),
                )
            })?;
        Ok(iree_vm_function_t {
            module: entry.handle,
            linkage: linkage::EXPORT,
            ordinal: ordinal as u16,
        })
    }

    /// Calls `function` with `inputs` (flattened per its cconv, spans not
    /// supported) and appends its results to `outputs`.
    pub(crate) fn invoke(
        &self,
        function: &iree_vm_function_t,
        inputs: Option<&List>,
        outputs: Option<&List>,
    ) -> Result<()> {
        if !matches!(function.linkage, linkage::EXPORT | linkage::EXPORT_OPTIONAL) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "only exported functions can be invoked",
            ));
        }
        let (instance, cconv) = self.export_of(function.module, function.ordinal as usize)?;
        let function = Function::new(instance, function.ordinal as u32);
        let input_count = inputs.map_or(0, List::len);
        if input_count != cconv.args.len() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "input list and function mismatch; expected {} arguments but passed {input_count}",
                    cconv.args.len()
                ),
            ));
        }
        let mut args = Vec::with_capacity(input_count);
        if let Some(inputs) = inputs {
            for (i, ty) in cconv.args.iter().enumerate() {
                args.push(match ty {
                    CconvType::I32 => inputs.get_value_as(i, ValueType::I32)?,
                    CconvType::I64 => inputs.get_value_as(i, ValueType::I64)?,
                    CconvType::F32 => inputs.get_value_as(i, ValueType::F32)?,
                    CconvType::F64 => inputs.get_value_as(i, ValueType::F64)?,
                    CconvType::Ref => Value::Ref(inputs.get_ref_at(i)?),
                    CconvType::Variadic(_) => {
                        return Err(Status::new(
                            StatusCode::Unimplemented,
                            "variadic arguments cannot be passed through an input list",
                        ))
                    }
                });
            }
        }
        let results = iree_vm::invoke(&function, &args)?;
        if let Some(outputs) = outputs {
            for result in results {
                outputs.push(result)?;
            }
        }
        Ok(())
    }

    /// A resolver over this context's registered modules.
    pub(crate) fn state_resolver(&self) -> iree_vm_state_resolver_t {
        iree_vm_state_resolver_t {
            self_: self as *const CContext as *mut c_void,
            query_module_state: Some(context_resolve_state),
        }
    }

    /// Delivers `signal` to every module.
    pub(crate) fn notify(&self, signal: i32) -> Result<()> {
        self.registered.read().context.notify(signal)
    }
}

unsafe extern "C" fn context_resolve_state(
    resolver: *mut c_void,
    module: *mut iree_vm_module_t,
    out_module_state: *mut *mut c_void,
) -> iree_status_t {
    boundary::status("query_module_state", || {
        // SAFETY: the resolver's `self` is the context (kept alive by the
        // caller while it uses the stack).
        let context = unsafe { &*(resolver as *const CContext) };
        let state = context.state_of(module)?;
        // SAFETY: the caller's out pointer.
        *unsafe { out_module_state.as_mut() }
            .ok_or_else(|| handles::null_argument("out_module_state"))? = state;
        Ok(())
    })
}

/// The context behind a handle.
///
/// # Safety
/// `context` is NULL or live.
pub(crate) unsafe fn context<'a>(context: *const CContext) -> Result<&'a CContext> {
    // SAFETY: forwarded contract.
    unsafe { handles::require(context, "context") }
}

/// `iree_vm_context_create`.
///
/// # Safety
/// `instance` is live; `out_context` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_create(
    instance: *mut Instance,
    flags: u32,
    allocator: iree_allocator_t,
    out_context: *mut *mut CContext,
) -> iree_status_t {
    boundary::forward("iree_vm_context_create", || {
        // SAFETY: forwarded contract.
        unsafe {
            iree_vm_context_create_with_modules(
                instance,
                flags,
                0,
                std::ptr::null_mut(),
                allocator,
                out_context,
            )
        }
    })
}

/// `iree_vm_context_create_with_modules`.
///
/// # Safety
/// `instance` is live; `modules` holds `module_count` live modules;
/// `out_context` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_create_with_modules(
    instance: *mut Instance,
    flags: u32,
    module_count: iree_host_size_t,
    modules: *mut *mut iree_vm_module_t,
    _allocator: iree_allocator_t,
    out_context: *mut *mut CContext,
) -> iree_status_t {
    boundary::status("iree_vm_context_create_with_modules", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_context.as_mut() }.ok_or_else(|| handles::null_argument("out_context"))?;
        *out = std::ptr::null_mut();
        if instance.is_null() {
            return Err(handles::null_argument("instance"));
        }
        // SAFETY: per the contract.
        let instance = unsafe { handles::clone_arc(instance) };
        let context = Arc::new(CContext::new(instance, flags));
        // SAFETY: per the contract.
        unsafe { register_all(&context, module_count, modules) }?;
        *out = handles::into_handle(context);
        Ok(())
    })
}

/// Registers `count` modules.
///
/// # Safety
/// `modules` holds `count` live modules.
unsafe fn register_all(
    context: &CContext,
    count: usize,
    modules: *mut *mut iree_vm_module_t,
) -> Result<()> {
    if count == 0 {
        return Ok(());
    }
    if modules.is_null() {
        return Err(handles::null_argument("modules"));
    }
    // SAFETY: per the contract.
    for &module in unsafe { std::slice::from_raw_parts(modules, count) } {
        // SAFETY: per the contract.
        unsafe { context.register(module) }?;
    }
    Ok(())
}

/// `iree_vm_context_retain`.
///
/// # Safety
/// `context` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_retain(context: *mut CContext) {
    // SAFETY: per the contract.
    unsafe { handles::retain(context) }
}

/// `iree_vm_context_release`: the last release runs the modules'
/// `__deinit` (reverse order) and frees their states.
///
/// # Safety
/// `context` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_release(context: *mut CContext) {
    // SAFETY: per the contract.
    boundary::value("iree_vm_context_release", (), || unsafe {
        handles::release(context)
    })
}

/// `iree_vm_context_instance`: borrowed.
///
/// # Safety
/// `context` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_instance(context: *const CContext) -> *mut Instance {
    boundary::value("iree_vm_context_instance", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(context) }.map_or(std::ptr::null_mut(), |c| {
            Arc::as_ptr(&c.instance).cast_mut()
        })
    })
}

/// `iree_vm_context_id`.
///
/// # Safety
/// `context` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_id(context: *const CContext) -> isize {
    boundary::value("iree_vm_context_id", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(context) }.map_or(-1, |c| c.id)
    })
}

/// `iree_vm_context_flags`.
///
/// # Safety
/// `context` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_flags(context: *const CContext) -> u32 {
    boundary::value("iree_vm_context_flags", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(context) }.map_or(0, |c| c.flags)
    })
}

/// `iree_vm_context_module_count`.
///
/// # Safety
/// `context` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_module_count(
    context: *const CContext,
) -> iree_host_size_t {
    boundary::value("iree_vm_context_module_count", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(context) }.map_or(0, |c| c.registered.read().entries.len())
    })
}

/// `iree_vm_context_module_at`: borrowed; NULL when out of range.
///
/// # Safety
/// `context` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_module_at(
    context: *const CContext,
    i: iree_host_size_t,
) -> *mut iree_vm_module_t {
    boundary::value("iree_vm_context_module_at", std::ptr::null_mut(), || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(context) }
            .and_then(|c| c.registered.read().entries.get(i).map(|e| e.handle))
            .unwrap_or(std::ptr::null_mut())
    })
}

/// `iree_vm_context_register_modules`.
///
/// # Safety
/// `context` is live; `modules` holds `module_count` live modules.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_register_modules(
    context: *mut CContext,
    module_count: iree_host_size_t,
    modules: *mut *mut iree_vm_module_t,
) -> iree_status_t {
    boundary::status("iree_vm_context_register_modules", || {
        // SAFETY: per the contract.
        unsafe { register_all(self::context(context)?, module_count, modules) }
    })
}

/// `iree_vm_context_freeze`: contexts here accept modules until released;
/// freezing changes nothing observable.
#[no_mangle]
pub extern "C" fn iree_vm_context_freeze(_context: *mut CContext) -> iree_status_t {
    boundary::forward("iree_vm_context_freeze", || iree_status_t::OK)
}

/// `iree_vm_context_state_resolver`.
///
/// # Safety
/// `context` is live for as long as the resolver is used.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_state_resolver(
    context: *const CContext,
) -> iree_vm_state_resolver_t {
    let none = iree_vm_state_resolver_t {
        self_: std::ptr::null_mut(),
        query_module_state: None,
    };
    boundary::value("iree_vm_context_state_resolver", none, || {
        // SAFETY: per the contract.
        match unsafe { handles::borrow(context) } {
            Some(c) => c.state_resolver(),
            None => none,
        }
    })
}

/// `iree_vm_context_resolve_module_state`.
///
/// # Safety
/// `context` is live; `out_module_state` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_resolve_module_state(
    context: *const CContext,
    module: *mut iree_vm_module_t,
    out_module_state: *mut *mut c_void,
) -> iree_status_t {
    boundary::status("iree_vm_context_resolve_module_state", || {
        // SAFETY: per the contract.
        let state = unsafe { self::context(context) }?.state_of(module)?;
        // SAFETY: per the contract.
        *unsafe { out_module_state.as_mut() }
            .ok_or_else(|| handles::null_argument("out_module_state"))? = state;
        Ok(())
    })
}

/// `iree_vm_context_resolve_function`: `module.function` to an export.
///
/// # Safety
/// `context` is live; `full_name` is valid; `out_function` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_resolve_function(
    context: *const CContext,
    full_name: iree_string_view_t,
    out_function: *mut iree_vm_function_t,
) -> iree_status_t {
    boundary::status("iree_vm_context_resolve_function", || {
        // SAFETY: per the contract.
        let out = unsafe { out_function.as_mut() }
            .ok_or_else(|| handles::null_argument("out_function"))?;
        *out = iree_vm_function_t::NULL;
        // SAFETY: per the contract.
        let name = unsafe { full_name.to_string_lossy() };
        // SAFETY: per the contract.
        *out = unsafe { self::context(context) }?.resolve_function(&name)?;
        Ok(())
    })
}

/// `iree_vm_context_notify`.
///
/// # Safety
/// `context` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_context_notify(
    context: *mut CContext,
    signal: u32,
) -> iree_status_t {
    boundary::status("iree_vm_context_notify", || {
        // SAFETY: per the contract.
        unsafe { self::context(context) }?.notify(signal as i32)
    })
}

/// `iree_vm_invoke`: calls `function` with the values of `inputs` and
/// appends its results to `outputs`.
///
/// # Safety
/// `context` is live; the lists are NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_invoke(
    context: *mut CContext,
    function: iree_vm_function_t,
    _flags: u32,
    _policy: *const c_void,
    inputs: *const List,
    outputs: *mut List,
    _host_allocator: iree_allocator_t,
) -> iree_status_t {
    boundary::status("iree_vm_invoke", || {
        // SAFETY: per the contract.
        let context = unsafe { self::context(context) }?;
        // SAFETY: per the contract.
        let (inputs, outputs) = unsafe {
            (
                handles::borrow(inputs),
                handles::borrow(outputs.cast_const()),
            )
        };
        context.invoke(&function, inputs, outputs)
    })
}

/// Runs `call` on its module's `begin_call` with a stack that resolves
/// states in `context` (`iree_runtime_session_call_direct`).
pub(crate) fn call_direct(context: &CContext, call: iree_vm_function_call_t) -> Result<()> {
    // SAFETY: the caller's call names a live module.
    let m = unsafe { handles::require(call.function.module, "call.function.module") }?;
    let begin_call = m
        .begin_call
        .ok_or_else(|| Status::new(StatusCode::Unimplemented, "module has no begin_call"))?;
    vm_stack::with_stack(context.state_resolver(), |stack| {
        // SAFETY: the module's own function with the caller's buffers.
        vm_stack::callee_status(unsafe { begin_call(m.self_, stack, call) })
    })
}
