//! Upstream's dynamic modules: shared libraries exporting
//! `iree_vm_dynamic_module_create` (dynamic module ABI version 1) that make
//! an `iree_vm_module_t` through upstream's C API.
//!
//! Such a library calls `iree_*` functions it expects the host process to
//! provide. This process provides them: the C API of this crate is linked
//! into every host that loads these libraries (the tools, the Python
//! extension, `libiree_runtime.so` itself), [`keep_exported_symbols`]
//! keeps all of it in the image, executables export it (`-Wl,
//! --export-dynamic-symbol=iree_*`), and before loading a library the host's
//! image is made global (`RTLD_GLOBAL`), which a Python extension loaded
//! with `RTLD_LOCAL` needs. The library's references then bind to the one
//! runtime of the process, whose objects it is handed, even when it was
//! linked against `libiree_runtime.so` (a copy then loaded beside it stays
//! unused). The module it returns becomes a VM module through its vtable
//! ([`crate::vm_module`]). Libraries stay loaded for the life of the process.

use std::ffi::{c_void, CString};
use std::path::Path;
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_vm::{Instance, Module};

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::exported::keep_exported_symbols;
use crate::handles;
use crate::status::{iree_status_t, take_status};
use crate::strings::{iree_host_size_t, iree_string_pair_t, iree_string_view_t};
use crate::vm_module::{self, iree_vm_module_release, iree_vm_module_t};

/// `IREE_VM_DYNAMIC_MODULE_VERSION_LATEST`.
pub const DYNAMIC_MODULE_VERSION: u32 = 0x0000_0001;

/// The default entry point (`IREE_VM_DYNAMIC_MODULE_EXPORT_NAME`).
pub const DEFAULT_ENTRY_POINT: &str = "iree_vm_dynamic_module_create";

/// The symbol every library of this project's own dynamic module ABI
/// exports (`iree_vm_dynamic`); upstream's libraries do not.
const RUST_ABI_MARKER: &str = "iree_rs_vm_dynamic_module_abi";

/// `iree_vm_dynamic_module_create_fn_t`.
type CreateFn = unsafe extern "C" fn(
    max_version: u32,
    instance: *mut Instance,
    param_count: iree_host_size_t,
    params: *const iree_string_pair_t,
    allocator: iree_allocator_t,
    out_module: *mut *mut iree_vm_module_t,
) -> iree_status_t;

/// Makes the image holding this C API global, so libraries loaded next
/// resolve `iree_*` against it.
fn make_host_symbols_global() {
    keep_exported_symbols();
    let mut info = libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    let address = crate::vm::iree_vm_instance_create as *const c_void;
    // SAFETY: `dladdr` only reads the address and fills `info`.
    if unsafe { libc::dladdr(address, &mut info) } == 0 || info.dli_fname.is_null() {
        return;
    }
    // Re-opening an already loaded image with RTLD_NOLOAD | RTLD_GLOBAL
    // adds it to the global scope (the main program is there already, and
    // then this finds nothing to do).
    // SAFETY: the path names an image already loaded in this process.
    let handle = unsafe {
        libc::dlopen(
            info.dli_fname,
            libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_GLOBAL,
        )
    };
    if !handle.is_null() {
        // The image stays loaded: this only drops the count just taken.
        // SAFETY: a handle from `dlopen`.
        unsafe { libc::dlclose(handle) };
    }
}

/// The error of the last `dl*` call.
fn dl_error() -> String {
    // SAFETY: `dlerror` returns NULL or a NUL-terminated message.
    let message = unsafe { libc::dlerror() };
    if message.is_null() {
        "unknown error".to_string()
    } else {
        // SAFETY: as above.
        unsafe { std::ffi::CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    }
}

/// A loaded library (kept loaded for the life of the process).
struct Library(*mut c_void);

impl Library {
    fn open(path: &Path) -> Result<Library> {
        make_host_symbols_global();
        let c_path = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
            Status::new(
                StatusCode::InvalidArgument,
                "library path contains a NUL byte",
            )
        })?;
        // SAFETY: loading a library runs its initializers; the user named
        // it to be loaded.
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(Status::new(
                StatusCode::Unavailable,
                format!("cannot load library '{}': {}", path.display(), dl_error()),
            ));
        }
        Ok(Library(handle))
    }

    fn symbol(&self, name: &str) -> Option<*mut c_void> {
        let name = CString::new(name).ok()?;
        // SAFETY: a live handle and a NUL-terminated name.
        let symbol = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        (!symbol.is_null()).then_some(symbol)
    }
}

/// The entry point name for `export_name` (empty: the default).
fn entry_name(export_name: &str) -> &str {
    if export_name.is_empty() {
        DEFAULT_ENTRY_POINT
    } else {
        export_name
    }
}

/// What a library offers.
enum Probe {
    /// Upstream's entry point (and not this project's ABI marker).
    Upstream(CreateFn),
    /// A library of this project's own dynamic-module ABI.
    OwnAbi,
    /// Neither: no entry point of that name.
    NoEntry,
}

/// Opens `path` and looks for the entry point `export_name` names.
fn probe(path: &Path, export_name: &str) -> Result<Probe> {
    let library = Library::open(path)?;
    if library.symbol(RUST_ABI_MARKER).is_some() {
        return Ok(Probe::OwnAbi);
    }
    let Some(entry) = library.symbol(entry_name(export_name)) else {
        return Ok(Probe::NoEntry);
    };
    // SAFETY: upstream's ABI declares the entry point's signature.
    let entry: CreateFn = unsafe { std::mem::transmute::<*mut c_void, CreateFn>(entry) };
    // The library stays loaded (a `Library` never closes its handle):
    // modules and the objects they made may outlive any handle here.
    let _ = library;
    Ok(Probe::Upstream(entry))
}

/// Loads `path` as an upstream dynamic module when it is one (it exports
/// the entry point and not this project's ABI marker); `None` otherwise,
/// including when it cannot be opened, so that the loader of this
/// project's own ABI (`iree_vm_dynamic`) handles and reports it.
pub fn try_load(
    instance: &Arc<Instance>,
    path: &Path,
    export_name: &str,
    params: &[(String, String)],
) -> Result<Option<Arc<dyn Module>>> {
    let Ok(Probe::Upstream(entry)) = probe(path, export_name) else {
        return Ok(None);
    };
    // SAFETY: the entry point of a loaded library.
    unsafe { create(entry, instance, params) }
        .annotate_with(|| format!("creating the module of '{}'", path.display()))
        .map(Some)
}

/// Loads `path` as an upstream dynamic module (UNAVAILABLE when it cannot
/// be opened, NOT_FOUND when it has no such entry point,
/// FAILED_PRECONDITION for this project's own ABI).
pub fn load(
    instance: &Arc<Instance>,
    path: &Path,
    export_name: &str,
    params: &[(String, String)],
) -> Result<Arc<dyn Module>> {
    match probe(path, export_name)? {
        // SAFETY: the entry point of a loaded library.
        Probe::Upstream(entry) => unsafe { create(entry, instance, params) }
            .annotate_with(|| format!("creating the module of '{}'", path.display())),
        Probe::OwnAbi => Err(Status::new(
            StatusCode::FailedPrecondition,
            format!(
                "'{}' is a module of this runtime's own dynamic module ABI; load it with iree_vm_dynamic",
                path.display()
            ),
        )),
        Probe::NoEntry => Err(Status::new(
            StatusCode::NotFound,
            format!(
                "dynamic module library '{}' does not export '{}'",
                path.display(),
                entry_name(export_name)
            ),
        )),
    }
}

/// Calls an entry point and adapts the module it makes.
///
/// # Safety
/// `entry` follows upstream's ABI and its code stays loaded.
unsafe fn create(
    entry: CreateFn,
    instance: &Arc<Instance>,
    params: &[(String, String)],
) -> Result<Arc<dyn Module>> {
    // SAFETY: forwarded contract.
    let module = unsafe { create_handle(entry, instance, params) }?;
    // SAFETY: a live module with one count, which the adapter's own count
    // replaces.
    let adapted = unsafe { vm_module::module_from_handle(module) };
    // SAFETY: as above.
    unsafe { iree_vm_module_release(module) };
    adapted
}

/// Calls an entry point; returns the module it made (one count).
///
/// # Safety
/// As [`create`].
unsafe fn create_handle(
    entry: CreateFn,
    instance: &Arc<Instance>,
    params: &[(String, String)],
) -> Result<*mut iree_vm_module_t> {
    let pairs: Vec<iree_string_pair_t> = params
        .iter()
        .map(|(k, v)| iree_string_pair_t {
            key: iree_string_view_t::from_str(k),
            value: iree_string_view_t::from_str(v),
        })
        .collect();
    let mut module = std::ptr::null_mut();
    // SAFETY: per the contract; the instance handle is the `Arc`'s address
    // (the module may retain it).
    unsafe {
        take_status(entry(
            DYNAMIC_MODULE_VERSION,
            Arc::as_ptr(instance).cast_mut(),
            pairs.len(),
            pairs.as_ptr(),
            iree_allocator_t::system(),
            &mut module,
        ))?;
    }
    if module.is_null() {
        return Err(Status::new(
            StatusCode::Internal,
            "the entry point returned no module",
        ));
    }
    Ok(module)
}

/// `iree_vm_dynamic_module_load_from_file`: loads a library and creates
/// its module (through `export_name`, default `iree_vm_dynamic_module_create`).
///
/// # Safety
/// `instance` is live; the views and `params` (`param_count` pairs) are
/// valid; `out_module` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_vm_dynamic_module_load_from_file(
    instance: *mut Instance,
    path: iree_string_view_t,
    export_name: iree_string_view_t,
    param_count: iree_host_size_t,
    params: *const iree_string_pair_t,
    _allocator: iree_allocator_t,
    out_module: *mut *mut iree_vm_module_t,
) -> iree_status_t {
    boundary::status("iree_vm_dynamic_module_load_from_file", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_module.as_mut() }.ok_or_else(|| handles::null_argument("out_module"))?;
        *out = std::ptr::null_mut();
        if instance.is_null() {
            return Err(handles::null_argument("instance"));
        }
        // SAFETY: per the contract.
        let instance = unsafe { handles::clone_arc(instance) };
        // SAFETY: per the contract.
        let (path, export_name) =
            unsafe { (path.to_string_lossy(), export_name.to_string_lossy()) };
        let params = (0..param_count)
            .map(|i| {
                // SAFETY: `params` holds `param_count` pairs.
                let pair = unsafe { &*params.add(i) };
                // SAFETY: as above.
                unsafe { (pair.key.to_string_lossy(), pair.value.to_string_lossy()) }
            })
            .collect::<Vec<_>>();
        let path = Path::new(&path);
        let library = Library::open(path)?;
        let name = entry_name(&export_name);
        let entry = library.symbol(name).ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!(
                    "dynamic module library '{}' does not export '{name}'",
                    path.display()
                ),
            )
        })?;
        // SAFETY: upstream's ABI declares the entry point's signature.
        let entry: CreateFn = unsafe { std::mem::transmute::<*mut c_void, CreateFn>(entry) };
        // Never unloaded (as above).
        let _ = library;
        // SAFETY: the entry point of a loaded library.
        *out = unsafe { create_handle(entry, &instance, &params) }?;
        Ok(())
    })
}
