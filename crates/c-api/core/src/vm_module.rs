//! `iree_vm_module_t`: upstream's module interface (a vtable C fills), in
//! both directions.
//!
//! * A module of this runtime (bytecode, `hal`, Rust native modules) is
//!   handed to C as a `RustModule`: the C struct with this library's
//!   functions in its slots, followed by the module.
//! * A module whose vtable C filled (upstream's C and C++ native modules,
//!   dynamic modules, `iree_vm_native_module_create`) becomes a VM
//!   [`Module`] through `CModule`: its exports and imports are read
//!   through the vtable, its state is made with `alloc_state`, its imports
//!   are bound with `resolve_import`, and calls pack the VM's values into
//!   the native calling convention's buffers (`crate::abi`) and run
//!   `begin_call` on a C stack whose resolver knows the states the module
//!   can reach.

use std::ffi::c_void;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_vm::{
    CallStatus, Cconv, ExportInfo, Function, ImportInfo, Instance, Module, ModuleDependency,
    ModuleInstance, ResolvedImport, Stack, Value,
};

use crate::abi;
use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::handles;
use crate::status::{iree_status_t, take_status, IntoCStatus};
use crate::strings::{iree_byte_span_t, iree_host_size_t, iree_string_pair_t, iree_string_view_t};
use crate::vm_stack::{self, iree_vm_stack_t, iree_vm_state_resolver_t};

/// `iree_vm_function_linkage_t` values.
pub mod linkage {
    /// An internal function.
    pub const INTERNAL: u16 = 0;
    /// An import.
    pub const IMPORT: u16 = 1;
    /// An export.
    pub const EXPORT: u16 = 2;
    /// An optional import.
    pub const IMPORT_OPTIONAL: u16 = 3;
    /// An optional export.
    pub const EXPORT_OPTIONAL: u16 = 4;
}

/// `iree_vm_function_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct iree_vm_function_t {
    /// The module, NULL for the null function.
    pub module: *mut iree_vm_module_t,
    /// `iree_vm_function_linkage_t`.
    pub linkage: u16,
    /// The ordinal within the linkage's table.
    pub ordinal: u16,
}

impl iree_vm_function_t {
    /// The null function.
    pub const NULL: iree_vm_function_t = iree_vm_function_t {
        module: std::ptr::null_mut(),
        linkage: 0,
        ordinal: 0,
    };
}

/// `iree_vm_function_signature_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_vm_function_signature_t {
    /// The cconv string (`0ri_r`).
    pub calling_convention: iree_string_view_t,
}

/// `iree_vm_module_signature_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct iree_vm_module_signature_t {
    /// The module version.
    pub version: u32,
    /// Module attributes.
    pub attr_count: iree_host_size_t,
    /// Imports.
    pub import_function_count: iree_host_size_t,
    /// Exports.
    pub export_function_count: iree_host_size_t,
    /// Internal functions.
    pub internal_function_count: iree_host_size_t,
}

/// `iree_vm_module_dependency_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_vm_module_dependency_t {
    /// The module name.
    pub name: iree_string_view_t,
    /// The lowest acceptable version.
    pub minimum_version: u32,
    /// REQUIRED (1) or OPTIONAL (2).
    pub flags: u32,
}

/// `iree_vm_module_dependency_callback_t`.
#[allow(non_camel_case_types)]
pub type iree_vm_module_dependency_callback_t = unsafe extern "C" fn(
    user_data: *mut c_void,
    dependency: *const iree_vm_module_dependency_t,
) -> iree_status_t;

/// `iree_vm_function_call_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_vm_function_call_t {
    /// The callee.
    pub function: iree_vm_function_t,
    /// Packed arguments (owned refs).
    pub arguments: iree_byte_span_t,
    /// Zeroed space for the results.
    pub results: iree_byte_span_t,
}

type SelfFn<R> = unsafe extern "C" fn(self_: *mut c_void) -> R;

/// `iree_vm_module_t`: the module interface.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_vm_module_t {
    /// Passed to every function below.
    pub self_: *mut c_void,
    /// The module's count; `destroy` runs when it reaches zero.
    pub ref_count: AtomicI32,
    /// Frees the module.
    pub destroy: Option<SelfFn<()>>,
    /// The module name.
    pub name: Option<SelfFn<iree_string_view_t>>,
    /// Counts and version.
    pub signature: Option<SelfFn<iree_vm_module_signature_t>>,
    /// Lists the modules this one needs.
    pub enumerate_dependencies: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            callback: Option<iree_vm_module_dependency_callback_t>,
            user_data: *mut c_void,
        ) -> iree_status_t,
    >,
    /// Module attribute `index`.
    pub get_module_attr: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            index: iree_host_size_t,
            out_attr: *mut iree_string_pair_t,
        ) -> iree_status_t,
    >,
    /// A function by name.
    pub lookup_function: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            linkage: u32,
            name: iree_string_view_t,
            expected_signature: *const iree_vm_function_signature_t,
            out_function: *mut iree_vm_function_t,
        ) -> iree_status_t,
    >,
    /// A function by ordinal, with its name and signature.
    pub get_function: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            linkage: u32,
            ordinal: iree_host_size_t,
            out_function: *mut iree_vm_function_t,
            out_name: *mut iree_string_view_t,
            out_signature: *mut iree_vm_function_signature_t,
        ) -> iree_status_t,
    >,
    /// Attribute `index` of a function.
    pub get_function_attr: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            linkage: u32,
            ordinal: iree_host_size_t,
            index: iree_host_size_t,
            out_attr: *mut iree_string_pair_t,
        ) -> iree_status_t,
    >,
    /// Source locations (UNAVAILABLE here).
    pub resolve_source_location: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            function: iree_vm_function_t,
            pc: i64,
            out_source_location: *mut c_void,
        ) -> iree_status_t,
    >,
    /// Makes per-context state.
    pub alloc_state: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            allocator: iree_allocator_t,
            out_module_state: *mut *mut c_void,
        ) -> iree_status_t,
    >,
    /// Frees per-context state.
    pub free_state: Option<unsafe extern "C" fn(self_: *mut c_void, module_state: *mut c_void)>,
    /// Copies state for a forked context.
    pub fork_state: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            parent_state: *mut c_void,
            allocator: iree_allocator_t,
            out_child_state: *mut *mut c_void,
        ) -> iree_status_t,
    >,
    /// Binds import `ordinal` to `function`.
    pub resolve_import: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            module_state: *mut c_void,
            ordinal: iree_host_size_t,
            function: *const iree_vm_function_t,
            signature: *const iree_vm_function_signature_t,
        ) -> iree_status_t,
    >,
    /// Delivers a signal.
    pub notify: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            module_state: *mut c_void,
            signal: u32,
        ) -> iree_status_t,
    >,
    /// Runs a call.
    pub begin_call: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            stack: *mut iree_vm_stack_t,
            call: iree_vm_function_call_t,
        ) -> iree_status_t,
    >,
    /// Resumes a call that yielded.
    pub resume_call: Option<
        unsafe extern "C" fn(
            self_: *mut c_void,
            stack: *mut iree_vm_stack_t,
            call_results: iree_byte_span_t,
        ) -> iree_status_t,
    >,
}

/// `iree_vm_module_initialize`: zeroes the interface and sets `self` and a
/// count of 1.
///
/// # Safety
/// `module` is valid for writes.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_module_initialize(
    module: *mut iree_vm_module_t,
    self_: *mut c_void,
) -> iree_status_t {
    boundary::status("iree_vm_module_initialize", || {
        if module.is_null() {
            return Err(handles::null_argument("module"));
        }
        // SAFETY: per the contract; every field is valid when zeroed.
        unsafe {
            std::ptr::write_bytes(module, 0, 1);
            (*module).self_ = self_;
            (*module).ref_count = AtomicI32::new(1);
        }
        Ok(())
    })
}

/// `iree_vm_module_retain`.
///
/// # Safety
/// `module` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_module_retain(module: *mut iree_vm_module_t) {
    // SAFETY: per the contract.
    if let Some(module) = unsafe { module.as_ref() } {
        module.ref_count.fetch_add(1, Ordering::Relaxed);
    }
}

/// `iree_vm_module_release`: runs `destroy` when the count reaches zero.
///
/// # Safety
/// `module` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_module_release(module: *mut iree_vm_module_t) {
    // SAFETY: per the contract.
    let Some(m) = (unsafe { module.as_ref() }) else {
        return;
    };
    if m.ref_count.fetch_sub(1, Ordering::AcqRel) == 1 {
        if let Some(destroy) = m.destroy {
            // SAFETY: the last count is gone; the module's own destroy.
            boundary::value("iree_vm_module_release", (), || unsafe { destroy(m.self_) })
        }
    }
}

/// `iree_vm_module_name`.
///
/// # Safety
/// `module` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_module_name(
    module: *const iree_vm_module_t,
) -> iree_string_view_t {
    boundary::value("iree_vm_module_name", iree_string_view_t::empty(), || {
        // SAFETY: per the contract.
        match unsafe { module.as_ref() } {
            None => iree_string_view_t::from_str("null"),
            // SAFETY: the module's own function.
            Some(m) => m
                .name
                .map_or(iree_string_view_t::empty(), |name| unsafe { name(m.self_) }),
        }
    })
}

/// `iree_vm_module_signature`.
///
/// # Safety
/// `module` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_module_signature(
    module: *const iree_vm_module_t,
) -> iree_vm_module_signature_t {
    boundary::value("iree_vm_module_signature", Default::default(), || {
        // SAFETY: per the contract.
        match unsafe { module.as_ref() } {
            // SAFETY: the module's own function.
            Some(m) => m
                .signature
                .map_or(Default::default(), |f| unsafe { f(m.self_) }),
            None => Default::default(),
        }
    })
}

/// Looks a function up through a module's vtable.
///
/// # Safety
/// `module` is live.
unsafe fn vtable_lookup(
    module: *const iree_vm_module_t,
    linkage: u32,
    name: iree_string_view_t,
) -> Result<iree_vm_function_t> {
    // SAFETY: per the contract.
    let m = unsafe { handles::require(module, "module") }?;
    let lookup = m
        .lookup_function
        .ok_or_else(|| Status::new(StatusCode::Unimplemented, "module has no lookup_function"))?;
    let mut function = iree_vm_function_t::NULL;
    // SAFETY: the module's own function.
    unsafe {
        take_status(lookup(
            m.self_,
            linkage,
            name,
            std::ptr::null(),
            &mut function,
        ))
    }?;
    Ok(function)
}

/// `iree_vm_module_lookup_function_by_name`.
///
/// # Safety
/// `module` is live; `out_function` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_module_lookup_function_by_name(
    module: *const iree_vm_module_t,
    linkage: u32,
    name: iree_string_view_t,
    out_function: *mut iree_vm_function_t,
) -> iree_status_t {
    boundary::status("iree_vm_module_lookup_function_by_name", || {
        // SAFETY: per the contract.
        let function = unsafe { vtable_lookup(module, linkage, name) }?;
        // SAFETY: per the contract.
        *unsafe { out_function.as_mut() }
            .ok_or_else(|| handles::null_argument("out_function"))? = function;
        Ok(())
    })
}

/// The name and signature of a function through its module's vtable.
///
/// # Safety
/// `function.module` is live.
unsafe fn vtable_function_info(
    function: &iree_vm_function_t,
) -> Result<(iree_string_view_t, iree_vm_function_signature_t)> {
    // SAFETY: per the contract.
    let m = unsafe { handles::require(function.module, "function module") }?;
    let get = m
        .get_function
        .ok_or_else(|| Status::new(StatusCode::Unimplemented, "module has no get_function"))?;
    let mut name = iree_string_view_t::empty();
    let mut signature = iree_vm_function_signature_t {
        calling_convention: iree_string_view_t::empty(),
    };
    // SAFETY: the module's own function.
    unsafe {
        take_status(get(
            m.self_,
            function.linkage as u32,
            function.ordinal as usize,
            std::ptr::null_mut(),
            &mut name,
            &mut signature,
        ))
    }?;
    Ok((name, signature))
}

/// `iree_vm_function_name`.
///
/// # Safety
/// `function` is valid with a live module.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_function_name(
    function: *const iree_vm_function_t,
) -> iree_string_view_t {
    boundary::value("iree_vm_function_name", iree_string_view_t::empty(), || {
        // SAFETY: per the contract.
        unsafe { function.as_ref() }
            .and_then(|f| unsafe { vtable_function_info(f) }.ok())
            .map_or(iree_string_view_t::empty(), |(name, _)| name)
    })
}

/// `iree_vm_function_signature`.
///
/// # Safety
/// `function` is valid with a live module.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_function_signature(
    function: *const iree_vm_function_t,
) -> iree_vm_function_signature_t {
    let empty = iree_vm_function_signature_t {
        calling_convention: iree_string_view_t::empty(),
    };
    boundary::value("iree_vm_function_signature", empty, || {
        // SAFETY: per the contract.
        unsafe { function.as_ref() }
            .and_then(|f| unsafe { vtable_function_info(f) }.ok())
            .map_or(empty, |(_, signature)| signature)
    })
}

/// `iree_vm_function_lookup_attr_by_name`: the value of reflection
/// attribute `key`, or empty.
///
/// # Safety
/// `function` is valid with a live module.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_function_lookup_attr_by_name(
    function: *const iree_vm_function_t,
    key: iree_string_view_t,
) -> iree_string_view_t {
    boundary::value(
        "iree_vm_function_lookup_attr_by_name",
        iree_string_view_t::empty(),
        || {
            // SAFETY: per the contract.
            let Some(f) = (unsafe { function.as_ref() }) else {
                return iree_string_view_t::empty();
            };
            // SAFETY: as above.
            let Some(m) = (unsafe { f.module.as_ref() }) else {
                return iree_string_view_t::empty();
            };
            let Some(get_attr) = m.get_function_attr else {
                return iree_string_view_t::empty();
            };
            // SAFETY: per the contract.
            let key = unsafe { key.as_bytes() };
            for index in 0.. {
                let mut attr = iree_string_pair_t {
                    key: iree_string_view_t::empty(),
                    value: iree_string_view_t::empty(),
                };
                // SAFETY: the module's own function.
                let status = unsafe {
                    get_attr(
                        m.self_,
                        f.linkage as u32,
                        f.ordinal as usize,
                        index,
                        &mut attr,
                    )
                };
                // SAFETY: a returned status is ours.
                if unsafe { take_status(status) }.is_err() {
                    break;
                }
                // SAFETY: attribute views live as long as the module.
                if unsafe { attr.key.as_bytes() } == key {
                    return attr.value;
                }
            }
            iree_string_view_t::empty()
        },
    )
}

/// `iree_vm_function_call_get_cconv_fragments`: splits a cconv into its
/// argument and result fragments (without the version and `_`).
///
/// # Safety
/// `signature` is valid; the out views are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_function_call_get_cconv_fragments(
    signature: *const iree_vm_function_signature_t,
    out_arguments: *mut iree_string_view_t,
    out_results: *mut iree_string_view_t,
) -> iree_status_t {
    boundary::status("iree_vm_function_call_get_cconv_fragments", || {
        // SAFETY: per the contract.
        let signature =
            unsafe { signature.as_ref() }.ok_or_else(|| handles::null_argument("signature"))?;
        let cconv = signature.calling_convention;
        // SAFETY: per the contract.
        let bytes = unsafe { cconv.as_bytes() };
        let (arguments, results) = if bytes.is_empty() {
            (iree_string_view_t::empty(), iree_string_view_t::empty())
        } else {
            if bytes[0] != b'0' {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "unsupported cconv version {}",
                        String::from_utf8_lossy(&bytes[..1])
                    ),
                ));
            }
            let body = 1;
            let split = bytes.iter().position(|&c| c == b'_');
            // SAFETY: offsets stay within the view.
            unsafe {
                match split {
                    Some(p) => (
                        iree_string_view_t::from_raw(cconv.data.add(body), p - body),
                        iree_string_view_t::from_raw(cconv.data.add(p + 1), bytes.len() - p - 1),
                    ),
                    None => (
                        iree_string_view_t::from_raw(cconv.data.add(body), bytes.len() - body),
                        iree_string_view_t::empty(),
                    ),
                }
            }
        };
        // SAFETY: per the contract.
        unsafe {
            if let Some(out) = out_arguments.as_mut() {
                *out = arguments;
            }
            if let Some(out) = out_results.as_mut() {
                *out = results;
            }
        }
        Ok(())
    })
}

//===----------------------------------------------------------------------===//
// Modules of this runtime, as C modules
//===----------------------------------------------------------------------===//

/// What a `RustModule` handle stands for: a module (state found through
/// the stack's resolver) or one module instance (an import binding).
enum Bound {
    Module(Arc<dyn Module>),
    Instance(Arc<dyn ModuleInstance>),
}

/// The C handle of a module of this runtime.
#[repr(C)]
pub(crate) struct RustModule {
    interface: iree_vm_module_t,
    bound: Bound,
}

impl RustModule {
    fn module(&self) -> &dyn Module {
        match &self.bound {
            Bound::Module(m) => &**m,
            Bound::Instance(i) => i.module(),
        }
    }

    fn make_handle(bound: Bound) -> *mut iree_vm_module_t {
        let handle = Box::into_raw(Box::new(RustModule {
            interface: iree_vm_module_t {
                self_: std::ptr::null_mut(),
                ref_count: AtomicI32::new(1),
                destroy: Some(rust_destroy),
                name: Some(rust_name),
                signature: Some(rust_signature),
                enumerate_dependencies: Some(rust_enumerate_dependencies),
                get_module_attr: Some(rust_get_module_attr),
                lookup_function: Some(rust_lookup_function),
                get_function: Some(rust_get_function),
                get_function_attr: Some(rust_get_function_attr),
                resolve_source_location: Some(rust_resolve_source_location),
                alloc_state: Some(rust_alloc_state),
                free_state: Some(rust_free_state),
                fork_state: Some(rust_fork_state),
                resolve_import: Some(rust_resolve_import),
                notify: Some(rust_notify),
                begin_call: Some(rust_begin_call),
                resume_call: Some(rust_resume_call),
            },
            bound,
        }));
        // SAFETY: just allocated; `self` points at the handle itself.
        unsafe { (*handle).interface.self_ = handle.cast() };
        RUST_MODULES.insert(handle as usize);
        handle.cast()
    }

    /// A new C handle (count 1) for `module`.
    pub(crate) fn for_module(module: Arc<dyn Module>) -> *mut iree_vm_module_t {
        RustModule::make_handle(Bound::Module(module))
    }

    /// A new C handle (count 1) bound to one instance of a module.
    pub(crate) fn for_instance(instance: Arc<dyn ModuleInstance>) -> *mut iree_vm_module_t {
        RustModule::make_handle(Bound::Instance(instance))
    }

    /// The handle's `RustModule`, if it is one.
    ///
    /// # Safety
    /// `module` is a live module handle.
    unsafe fn from_handle<'a>(module: *const iree_vm_module_t) -> Option<&'a RustModule> {
        if RUST_MODULES.contains(module as usize) {
            // SAFETY: the address is a live `RustModule`.
            Some(unsafe { &*(module as *const RustModule) })
        } else {
            None
        }
    }
}

/// The VM module a C handle stands for: the module itself for handles of
/// this runtime, else a `CModule` over the handle's vtable.
///
/// # Safety
/// `module` is a live module handle.
pub(crate) unsafe fn module_from_handle(module: *mut iree_vm_module_t) -> Result<Arc<dyn Module>> {
    if module.is_null() {
        return Err(handles::null_argument("module"));
    }
    // SAFETY: per the contract.
    if let Some(rust) = unsafe { RustModule::from_handle(module) } {
        return match &rust.bound {
            Bound::Module(m) => Ok(m.clone()),
            Bound::Instance(_) => Err(Status::new(
                StatusCode::InvalidArgument,
                "an import binding cannot be registered as a module",
            )),
        };
    }
    // SAFETY: per the contract.
    let adapter = Arc::new(unsafe { CModule::new(module) }?);
    C_MODULES.insert(Arc::as_ptr(&adapter) as usize);
    Ok(adapter)
}

/// The live `CModule` adapters.
static C_MODULES: handles::LiveSet = handles::LiveSet::new();

/// True when `module` is a C module's adapter (its instances are
/// [`CModuleInstance`]s).
pub(crate) fn is_c_module(module: &dyn Module) -> bool {
    C_MODULES.contains(module as *const dyn Module as *const () as usize)
}

macro_rules! rust_self {
    ($self_:expr) => {
        // SAFETY: the vtable's `self` is the `RustModule` that installed it.
        unsafe { &*($self_ as *const RustModule) }
    };
}

/// The live `RustModule` handles.
static RUST_MODULES: handles::LiveSet = handles::LiveSet::new();

unsafe extern "C" fn rust_destroy(self_: *mut c_void) {
    RUST_MODULES.remove(self_ as usize);
    // SAFETY: the last count is gone; the box is ours.
    drop(unsafe { Box::from_raw(self_.cast::<RustModule>()) });
}

unsafe extern "C" fn rust_name(self_: *mut c_void) -> iree_string_view_t {
    iree_string_view_t::from_str(rust_self!(self_).module().name())
}

unsafe extern "C" fn rust_signature(self_: *mut c_void) -> iree_vm_module_signature_t {
    let module = rust_self!(self_).module();
    iree_vm_module_signature_t {
        version: module.version(),
        attr_count: 0,
        import_function_count: module.imports().len(),
        export_function_count: module.exports().len(),
        internal_function_count: 0,
    }
}

unsafe extern "C" fn rust_enumerate_dependencies(
    self_: *mut c_void,
    callback: Option<iree_vm_module_dependency_callback_t>,
    user_data: *mut c_void,
) -> iree_status_t {
    boundary::status("enumerate_dependencies", || {
        let Some(callback) = callback else {
            return Ok(());
        };
        for dependency in rust_self!(self_).module().dependencies() {
            let c = iree_vm_module_dependency_t {
                name: iree_string_view_t::from_str(&dependency.name),
                minimum_version: dependency.minimum_version,
                flags: if dependency.optional { 2 } else { 1 },
            };
            // SAFETY: the caller's callback.
            unsafe { take_status(callback(user_data, &c)) }?;
        }
        Ok(())
    })
}

unsafe extern "C" fn rust_get_module_attr(
    _self: *mut c_void,
    index: iree_host_size_t,
    _out_attr: *mut iree_string_pair_t,
) -> iree_status_t {
    Err::<(), _>(Status::new(
        StatusCode::OutOfRange,
        format!("module attribute {index} out of range"),
    ))
    .into_c_status()
}

unsafe extern "C" fn rust_lookup_function(
    self_: *mut c_void,
    linkage: u32,
    name: iree_string_view_t,
    _expected_signature: *const iree_vm_function_signature_t,
    out_function: *mut iree_vm_function_t,
) -> iree_status_t {
    boundary::status("lookup_function", || {
        let this = rust_self!(self_);
        // SAFETY: the caller's view.
        let name = unsafe { name.to_string_lossy() };
        let module = this.module();
        let ordinal = match linkage as u16 {
            linkage::IMPORT | linkage::IMPORT_OPTIONAL => {
                module.imports().iter().position(|i| i.full_name == name)
            }
            _ => module.lookup_export(&name).map(|o| o as usize),
        }
        .ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!("function {name} not exported"),
            )
        })?;
        // SAFETY: the caller's out pointer.
        let out = unsafe { out_function.as_mut() }
            .ok_or_else(|| handles::null_argument("out_function"))?;
        *out = iree_vm_function_t {
            module: self_.cast(),
            linkage: if matches!(linkage as u16, linkage::IMPORT | linkage::IMPORT_OPTIONAL) {
                linkage::IMPORT
            } else {
                linkage::EXPORT
            },
            ordinal: ordinal as u16,
        };
        Ok(())
    })
}

unsafe extern "C" fn rust_get_function(
    self_: *mut c_void,
    linkage: u32,
    ordinal: iree_host_size_t,
    out_function: *mut iree_vm_function_t,
    out_name: *mut iree_string_view_t,
    out_signature: *mut iree_vm_function_signature_t,
) -> iree_status_t {
    boundary::status("get_function", || {
        let module = rust_self!(self_).module();
        let (name, cconv, linkage) = match linkage as u16 {
            linkage::IMPORT | linkage::IMPORT_OPTIONAL => {
                let import = module
                    .imports()
                    .get(ordinal)
                    .ok_or_else(|| out_of_range(ordinal))?;
                let linkage = if import.optional {
                    linkage::IMPORT_OPTIONAL
                } else {
                    linkage::IMPORT
                };
                (import.full_name.as_str(), import.cconv.as_str(), linkage)
            }
            _ => {
                let export = module
                    .exports()
                    .get(ordinal)
                    .ok_or_else(|| out_of_range(ordinal))?;
                (export.name.as_str(), export.cconv.as_str(), linkage::EXPORT)
            }
        };
        // SAFETY: the caller's out pointers (each may be NULL).
        unsafe {
            if let Some(out) = out_function.as_mut() {
                *out = iree_vm_function_t {
                    module: self_.cast(),
                    linkage,
                    ordinal: ordinal as u16,
                };
            }
            if let Some(out) = out_name.as_mut() {
                *out = iree_string_view_t::from_str(name);
            }
            if let Some(out) = out_signature.as_mut() {
                out.calling_convention = iree_string_view_t::from_str(cconv);
            }
        }
        Ok(())
    })
}

#[cold]
fn out_of_range(ordinal: usize) -> Status {
    Status::new(
        StatusCode::OutOfRange,
        format!("function ordinal {ordinal} out of range"),
    )
}

unsafe extern "C" fn rust_get_function_attr(
    self_: *mut c_void,
    linkage: u32,
    ordinal: iree_host_size_t,
    index: iree_host_size_t,
    out_attr: *mut iree_string_pair_t,
) -> iree_status_t {
    boundary::status("get_function_attr", || {
        let module = rust_self!(self_).module();
        if matches!(linkage as u16, linkage::IMPORT | linkage::IMPORT_OPTIONAL) {
            return Err(Status::new(
                StatusCode::OutOfRange,
                "imports have no attributes",
            ));
        }
        let export = module
            .exports()
            .get(ordinal)
            .ok_or_else(|| out_of_range(ordinal))?;
        let (key, value) = export.attrs.get(index).ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                format!("attribute {index} out of range"),
            )
        })?;
        // SAFETY: the caller's out pointer.
        let out = unsafe { out_attr.as_mut() }.ok_or_else(|| handles::null_argument("out_attr"))?;
        *out = iree_string_pair_t {
            key: iree_string_view_t::from_str(key),
            value: iree_string_view_t::from_str(value),
        };
        Ok(())
    })
}

unsafe extern "C" fn rust_resolve_source_location(
    _self: *mut c_void,
    _function: iree_vm_function_t,
    _pc: i64,
    _out: *mut c_void,
) -> iree_status_t {
    iree_status_t::from_code(StatusCode::Unavailable)
}

#[cold]
fn state_from_c() -> Status {
    Status::new(
        StatusCode::Unimplemented,
        "module state of this runtime's modules is created by contexts, not by callers",
    )
}

unsafe extern "C" fn rust_alloc_state(
    _self: *mut c_void,
    _allocator: iree_allocator_t,
    _out: *mut *mut c_void,
) -> iree_status_t {
    Err::<(), _>(state_from_c()).into_c_status()
}

unsafe extern "C" fn rust_free_state(_self: *mut c_void, _state: *mut c_void) {}

unsafe extern "C" fn rust_fork_state(
    _self: *mut c_void,
    _parent: *mut c_void,
    _allocator: iree_allocator_t,
    _out: *mut *mut c_void,
) -> iree_status_t {
    Err::<(), _>(state_from_c()).into_c_status()
}

unsafe extern "C" fn rust_resolve_import(
    _self: *mut c_void,
    _state: *mut c_void,
    _ordinal: iree_host_size_t,
    _function: *const iree_vm_function_t,
    _signature: *const iree_vm_function_signature_t,
) -> iree_status_t {
    Err::<(), _>(state_from_c()).into_c_status()
}

unsafe extern "C" fn rust_notify(
    self_: *mut c_void,
    state: *mut c_void,
    signal: u32,
) -> iree_status_t {
    boundary::status("notify", || {
        let this = rust_self!(self_);
        match &this.bound {
            Bound::Instance(instance) => instance.notify(signal as i32),
            // SAFETY: states of this runtime's modules are `RustState`s.
            Bound::Module(_) => match unsafe { (state as *const RustState).as_ref() } {
                Some(state) => state.instance.notify(signal as i32),
                None => Ok(()),
            },
        }
    })
}

unsafe extern "C" fn rust_resume_call(
    _self: *mut c_void,
    _stack: *mut iree_vm_stack_t,
    _results: iree_byte_span_t,
) -> iree_status_t {
    Err::<(), _>(Status::new(
        StatusCode::Unimplemented,
        "calls into this runtime's modules do not yield to C callers",
    ))
    .into_c_status()
}

/// The state the context resolver gives for a module of this runtime: the
/// module instance in that context.
pub(crate) struct RustState {
    /// The instance.
    pub(crate) instance: Arc<dyn ModuleInstance>,
}

/// `begin_call` of this runtime's modules: unpacks the arguments, runs the
/// export through the VM, packs the results.
unsafe extern "C" fn rust_begin_call(
    self_: *mut c_void,
    stack: *mut iree_vm_stack_t,
    call: iree_vm_function_call_t,
) -> iree_status_t {
    boundary::status("begin_call", || {
        let this = rust_self!(self_);
        let instance = match &this.bound {
            Bound::Instance(instance) => instance.clone(),
            Bound::Module(_) => {
                // SAFETY: the caller's stack.
                let stack =
                    unsafe { stack.as_ref() }.ok_or_else(|| handles::null_argument("stack"))?;
                let state = stack.resolver().resolve(self_.cast())?;
                // SAFETY: the resolver gives `RustState`s for our modules.
                let state = unsafe { (state as *const RustState).as_ref() }.ok_or_else(|| {
                    Status::new(StatusCode::NotFound, "module not registered in the context")
                })?;
                state.instance.clone()
            }
        };
        if !matches!(
            call.function.linkage,
            linkage::EXPORT | linkage::EXPORT_OPTIONAL
        ) {
            return Err(Status::new(
                StatusCode::Unimplemented,
                "only exports of this runtime's modules can be called from C",
            ));
        }
        let ordinal = call.function.ordinal as u32;
        let export = instance
            .module()
            .exports()
            .get(ordinal as usize)
            .ok_or_else(|| out_of_range(ordinal as usize))?;
        let cconv = Cconv::parse(&export.cconv)?;
        let arguments = byte_span_mut(call.arguments);
        // SAFETY: the caller packed owned refs into the arguments.
        let args = unsafe { abi::unpack(&cconv.args, arguments) }?;
        let results = iree_vm::invoke(&Function::new(instance, ordinal), &args)?;
        abi::write_results(&cconv.results, &results, byte_span_mut(call.results))
    })
}

/// The bytes of a span (empty for NULL).
fn byte_span_mut<'a>(span: iree_byte_span_t) -> &'a mut [u8] {
    if span.data.is_null() || span.data_length == 0 {
        &mut []
    } else {
        // SAFETY: a call's spans are valid for the call (the ABI's contract).
        unsafe { std::slice::from_raw_parts_mut(span.data, span.data_length) }
    }
}

//===----------------------------------------------------------------------===//
// C modules, as modules of this runtime
//===----------------------------------------------------------------------===//

/// A module whose vtable C filled, as a VM [`Module`]. Holds a count of the
/// C module.
pub(crate) struct CModule {
    handle: *mut iree_vm_module_t,
    name: String,
    version: u32,
    exports: Vec<ExportInfo>,
    export_cconvs: Vec<Cconv>,
    imports: Vec<ImportInfo>,
    dependencies: Vec<ModuleDependency>,
}

// SAFETY: upstream's module interface is callable from any thread; states
// are per context and calls on one state are serialized by their callers as
// upstream's are.
unsafe impl Send for CModule {}
// SAFETY: as above.
unsafe impl Sync for CModule {}

impl Drop for CModule {
    fn drop(&mut self) {
        C_MODULES.remove(self as *const CModule as usize);
        // SAFETY: this adapter owns one count.
        unsafe { iree_vm_module_release(self.handle) }
    }
}

unsafe extern "C" fn collect_dependency(
    user_data: *mut c_void,
    dependency: *const iree_vm_module_dependency_t,
) -> iree_status_t {
    boundary::status("enumerate_dependencies", || {
        // SAFETY: `user_data` is the vector `CModule::new` lent.
        let out = unsafe { &mut *(user_data as *mut Vec<ModuleDependency>) };
        // SAFETY: the module's dependency is valid for the callback.
        let dependency = unsafe { &*dependency };
        out.push(ModuleDependency {
            // SAFETY: as above.
            name: unsafe { dependency.name.to_string_lossy() },
            minimum_version: dependency.minimum_version,
            optional: dependency.flags & 2 != 0,
        });
        Ok(())
    })
}

impl CModule {
    /// Reads a C module's interface (adding a count of its own).
    ///
    /// # Safety
    /// `handle` is a live module with a valid vtable.
    unsafe fn new(handle: *mut iree_vm_module_t) -> Result<CModule> {
        // SAFETY: per the contract.
        let m = unsafe { &*handle };
        let missing = |what: &str| {
            Status::new(
                StatusCode::InvalidArgument,
                format!("module interface has no {what} function"),
            )
        };
        let name_fn = m.name.ok_or_else(|| missing("name"))?;
        let signature_fn = m.signature.ok_or_else(|| missing("signature"))?;
        let get_function = m.get_function.ok_or_else(|| missing("get_function"))?;
        m.begin_call.ok_or_else(|| missing("begin_call"))?;
        m.alloc_state.ok_or_else(|| missing("alloc_state"))?;
        // SAFETY: the module's own functions.
        let (name, signature) =
            unsafe { (name_fn(m.self_).to_string_lossy(), signature_fn(m.self_)) };
        let function = |linkage: u16, ordinal: usize| -> Result<(String, String)> {
            let mut name = iree_string_view_t::empty();
            let mut signature = iree_vm_function_signature_t {
                calling_convention: iree_string_view_t::empty(),
            };
            let mut function = iree_vm_function_t::NULL;
            // SAFETY: the module's own function.
            unsafe {
                take_status(get_function(
                    m.self_,
                    linkage as u32,
                    ordinal,
                    &mut function,
                    &mut name,
                    &mut signature,
                ))?;
                Ok((
                    name.to_string_lossy(),
                    signature.calling_convention.to_string_lossy(),
                ))
            }
        };
        let mut exports = Vec::with_capacity(signature.export_function_count);
        let mut export_cconvs = Vec::with_capacity(signature.export_function_count);
        for ordinal in 0..signature.export_function_count {
            let (export_name, cconv) = function(linkage::EXPORT, ordinal)?;
            // SAFETY: `m` is the live C module this adapter wraps.
            let attrs = unsafe { CModule::function_attrs(m, ordinal) };
            export_cconvs.push(
                Cconv::parse(&cconv)
                    .annotate_with(|| format!("reading export {export_name} of module {name}"))?,
            );
            exports.push(ExportInfo {
                name: export_name,
                cconv,
                attrs,
            });
        }
        let mut imports = Vec::with_capacity(signature.import_function_count);
        for ordinal in 0..signature.import_function_count {
            let mut function_handle = iree_vm_function_t::NULL;
            let mut import_name = iree_string_view_t::empty();
            let mut import_signature = iree_vm_function_signature_t {
                calling_convention: iree_string_view_t::empty(),
            };
            // SAFETY: the module's own function.
            unsafe {
                take_status(get_function(
                    m.self_,
                    linkage::IMPORT as u32,
                    ordinal,
                    &mut function_handle,
                    &mut import_name,
                    &mut import_signature,
                ))?;
                imports.push(ImportInfo {
                    full_name: import_name.to_string_lossy(),
                    cconv: import_signature.calling_convention.to_string_lossy(),
                    optional: function_handle.linkage == linkage::IMPORT_OPTIONAL,
                });
            }
        }
        let mut dependencies = Vec::new();
        if let Some(enumerate) = m.enumerate_dependencies {
            // SAFETY: the module's own function with our callback.
            unsafe {
                take_status(enumerate(
                    m.self_,
                    Some(collect_dependency),
                    (&mut dependencies as *mut Vec<ModuleDependency>).cast(),
                ))
            }?;
        }
        // SAFETY: the adapter keeps a count of its own.
        unsafe { iree_vm_module_retain(handle) };
        Ok(CModule {
            handle,
            name,
            version: signature.version,
            exports,
            export_cconvs,
            imports,
            dependencies,
        })
    }

    /// Reflection attributes of export `ordinal`.
    ///
    /// # Safety
    /// `m` is a live module.
    unsafe fn function_attrs(m: &iree_vm_module_t, ordinal: usize) -> Vec<(String, String)> {
        let mut attrs = Vec::new();
        let Some(get_attr) = m.get_function_attr else {
            return attrs;
        };
        for index in 0..256 {
            let mut attr = iree_string_pair_t {
                key: iree_string_view_t::empty(),
                value: iree_string_view_t::empty(),
            };
            // SAFETY: the module's own function.
            let status =
                unsafe { get_attr(m.self_, linkage::EXPORT as u32, ordinal, index, &mut attr) };
            // SAFETY: a returned status is ours.
            if unsafe { take_status(status) }.is_err() {
                break;
            }
            // SAFETY: attribute views are valid while the module lives.
            unsafe { attrs.push((attr.key.to_string_lossy(), attr.value.to_string_lossy())) };
        }
        attrs
    }

    fn interface(&self) -> &iree_vm_module_t {
        // SAFETY: the adapter holds a count.
        unsafe { &*self.handle }
    }
}

impl Module for CModule {
    fn name(&self) -> &str {
        &self.name
    }

    fn version(&self) -> u32 {
        self.version
    }

    fn dependencies(&self) -> &[ModuleDependency] {
        &self.dependencies
    }

    fn exports(&self) -> &[ExportInfo] {
        &self.exports
    }

    fn imports(&self) -> &[ImportInfo] {
        &self.imports
    }

    fn instantiate(
        self: Arc<Self>,
        _instance: &Arc<Instance>,
        imports: Vec<Option<ResolvedImport>>,
    ) -> Result<Arc<dyn ModuleInstance>> {
        let m = self.interface();
        let alloc_state = m.alloc_state.expect("checked at creation");
        let mut state = std::ptr::null_mut();
        // SAFETY: the module's own function.
        unsafe { take_status(alloc_state(m.self_, iree_allocator_t::system(), &mut state)) }?;
        let mut instance = CModuleInstance {
            module: self.clone(),
            state,
            bindings: Vec::new(),
        };
        for (ordinal, import) in imports.into_iter().enumerate() {
            let Some(import) = import else { continue };
            let handle = RustModule::for_instance(import.instance.clone());
            instance.bindings.push(ImportBinding {
                handle,
                state: Box::new(RustState {
                    instance: import.instance.clone(),
                }),
            });
            let Some(resolve) = m.resolve_import else {
                continue;
            };
            let function = iree_vm_function_t {
                module: handle,
                linkage: linkage::EXPORT,
                ordinal: import.export_ordinal as u16,
            };
            let provider = &import.instance.module().exports()[import.export_ordinal as usize];
            let signature = iree_vm_function_signature_t {
                calling_convention: iree_string_view_t::from_str(&provider.cconv),
            };
            // SAFETY: the module's own function; the binding outlives the
            // state.
            unsafe { take_status(resolve(m.self_, state, ordinal, &function, &signature)) }
                .annotate_with(|| {
                    format!("resolving import {ordinal} of module '{}'", self.name)
                })?;
        }
        Ok(Arc::new(instance))
    }
}

/// An import of a C module bound to the instance that provides it: a C
/// handle for the provider and the state its resolver returns.
struct ImportBinding {
    handle: *mut iree_vm_module_t,
    state: Box<RustState>,
}

/// A C module's state in one context.
pub(crate) struct CModuleInstance {
    module: Arc<CModule>,
    state: *mut c_void,
    bindings: Vec<ImportBinding>,
}

// SAFETY: as for `CModule`; the state belongs to this instance.
unsafe impl Send for CModuleInstance {}
// SAFETY: as above.
unsafe impl Sync for CModuleInstance {}

impl Drop for CModuleInstance {
    fn drop(&mut self) {
        let m = self.module.interface();
        if let Some(free_state) = m.free_state {
            // SAFETY: the state was made by this module's `alloc_state`.
            unsafe { free_state(m.self_, self.state) };
        }
        for binding in &self.bindings {
            // SAFETY: each binding owns its handle's count.
            unsafe { iree_vm_module_release(binding.handle) };
        }
    }
}

/// The resolver of stacks made for calls into a C module: the module's own
/// state, and the states of the modules its imports are bound to.
unsafe extern "C" fn c_instance_resolve(
    resolver: *mut c_void,
    module: *mut iree_vm_module_t,
    out_module_state: *mut *mut c_void,
) -> iree_status_t {
    boundary::status("query_module_state", || {
        // SAFETY: the resolver's `self` is the instance making the call.
        let instance = unsafe { &*(resolver as *const CModuleInstance) };
        let state = if module == instance.module.handle {
            instance.state
        } else {
            instance
                .bindings
                .iter()
                .find(|b| b.handle == module)
                .map(|b| &*b.state as *const RustState as *mut c_void)
                .ok_or_else(|| {
                    Status::new(
                        StatusCode::NotFound,
                        "module state not found: the module is not imported by the caller",
                    )
                })?
        };
        // SAFETY: the caller's out pointer.
        *unsafe { out_module_state.as_mut() }
            .ok_or_else(|| handles::null_argument("out_module_state"))? = state;
        Ok(())
    })
}

impl CModuleInstance {
    /// The module's state pointer.
    pub(crate) fn state(&self) -> *mut c_void {
        self.state
    }

    fn call_c(&self, export_ordinal: u32, args: &[Value], results: &mut Vec<Value>) -> Result<()> {
        let cconv = self
            .module
            .export_cconvs
            .get(export_ordinal as usize)
            .ok_or_else(|| out_of_range(export_ordinal as usize))?;
        let mut arguments = Vec::new();
        abi::pack(&cconv.args, args, &mut arguments)?;
        let mut result_bytes = vec![0u8; abi::fragment_size(&cconv.results, &[])?];
        let m = self.module.interface();
        let begin_call = m.begin_call.expect("checked at creation");
        let call = iree_vm_function_call_t {
            function: iree_vm_function_t {
                module: self.module.handle,
                linkage: linkage::EXPORT,
                ordinal: export_ordinal as u16,
            },
            arguments: iree_byte_span_t {
                data: arguments.as_mut_ptr(),
                data_length: arguments.len(),
            },
            results: iree_byte_span_t {
                data: result_bytes.as_mut_ptr(),
                data_length: result_bytes.len(),
            },
        };
        let resolver = iree_vm_state_resolver_t {
            self_: self as *const CModuleInstance as *mut c_void,
            query_module_state: Some(c_instance_resolve),
        };
        let status = vm_stack::with_stack(resolver, |stack| {
            // SAFETY: the module's own function, with buffers laid out for
            // the export's cconv and a stack that resolves its states.
            let status = unsafe { begin_call(m.self_, stack, call) };
            vm_stack::callee_status(status)
        });
        // SAFETY: `arguments` was packed for these types; the callee may
        // have taken some refs (zeroing their slots).
        unsafe { abi::release_refs(&cconv.args, &mut arguments) };
        if let Err(error) = status {
            if error.code() == StatusCode::Deferred {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    "native modules that yield are not supported",
                ));
            }
            // SAFETY: the results may hold refs the callee wrote.
            unsafe { abi::release_refs(&cconv.results, &mut result_bytes) };
            return Err(error);
        }
        // SAFETY: the callee wrote owned refs into the results.
        results.extend(unsafe { abi::unpack(&cconv.results, &mut result_bytes) }?);
        Ok(())
    }
}

impl ModuleInstance for CModuleInstance {
    fn module(&self) -> &dyn Module {
        &*self.module
    }

    fn call(
        &self,
        _stack: &mut Stack,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        self.call_c(export_ordinal, args, results)?;
        Ok(CallStatus::Done)
    }

    fn notify(&self, signal: i32) -> Result<()> {
        let m = self.module.interface();
        match m.notify {
            // SAFETY: the module's own function with its own state.
            Some(notify) => unsafe { take_status(notify(m.self_, self.state, signal as u32)) },
            None => Ok(()),
        }
    }
}
