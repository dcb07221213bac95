//! Creating local devices by hand, as upstream's `simple_embedding` and
//! `static_library` samples do: executable loaders (`iree/hal/local`), the
//! synchronous device (`iree/hal/drivers/local_sync`), heap allocators,
//! device groups and the `hal` module (`iree/modules/hal/module.h`), and the
//! bits of `iree/async` and `iree/base/threading/numa.h` those calls take.
//!
//! Proactor pools and frontier trackers are accepted and counted but drive
//! nothing: this runtime's local devices need neither.

use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use iree_base::{Result, Status, StatusCode};
use iree_hal::{BufferView, HeapAllocator};
use iree_hal_local::library::QueryFn;
use iree_hal_local::{
    EmbeddedElfLoader, ExecutableLoader, LocalDevice, StaticLibraryLoader, VmvxLoader,
};
use iree_modules_hal::{DebugSink, HalAllocator, HalBufferView, HalDevice};
use iree_vm::Instance;

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::hal;
use crate::handles;
use crate::status::{iree_status_t, take_status, write_to_file};
use crate::strings::{iree_host_size_t, iree_string_view_t};
use crate::vm_module::{iree_vm_module_t, RustModule};

//===----------------------------------------------------------------------===//
// iree/base/threading/numa.h
//===----------------------------------------------------------------------===//

/// `iree_numa_node_count`: the NUMA nodes Linux reports online (1 where it
/// reports none, or elsewhere).
#[no_mangle]
pub extern "C" fn iree_numa_node_count() -> iree_host_size_t {
    boundary::value("iree_numa_node_count", 1, || {
        std::fs::read_to_string("/sys/devices/system/node/online")
            .ok()
            .and_then(|text| count_cpu_list(text.trim()))
            .filter(|&n| n > 0)
            .unwrap_or(1)
    })
}

/// The number of entries of a Linux CPU/node list (`0-3,5,7-8`).
fn count_cpu_list(list: &str) -> Option<usize> {
    let mut count = 0usize;
    for part in list.split(',').filter(|p| !p.is_empty()) {
        count += match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?);
                b.checked_sub(a)? + 1
            }
            None => {
                part.parse::<usize>().ok()?;
                1
            }
        };
    }
    Some(count)
}

//===----------------------------------------------------------------------===//
// iree/async: proactor pools and frontier trackers
//===----------------------------------------------------------------------===//

/// `iree_async_proactor_options_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_async_proactor_options_t {
    /// Hint: most operations in flight (0: the backend's default).
    pub max_concurrent_operations: iree_host_size_t,
    /// Name for diagnostics.
    pub debug_name: iree_string_view_t,
    /// `iree_async_proactor_capabilities_t` allowed.
    pub allowed_capabilities: u32,
    /// Cross-proactor message pool capacity (0: default).
    pub message_pool_capacity: iree_host_size_t,
    /// `iree_async_proactor_threading_mode_t`.
    pub threading_mode: u32,
}

/// `iree_async_proactor_pool_runner_factory_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_async_proactor_pool_runner_factory_t {
    /// Passed to each callback.
    pub user_data: *mut c_void,
    /// Creates a runner for a proactor (NULL: no runners).
    pub create: *const c_void,
    /// Asks runners to stop.
    pub request_stop: *const c_void,
    /// Destroys a runner.
    pub destroy: *const c_void,
}

/// `iree_async_proactor_pool_options_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_async_proactor_pool_options_t {
    /// Options of each proactor.
    pub proactor_options: iree_async_proactor_options_t,
    /// Runner factory.
    pub runner: iree_async_proactor_pool_runner_factory_t,
}

/// `iree_async_proactor_pool_t`: the NUMA nodes it was made for.
#[allow(non_camel_case_types)]
pub struct iree_async_proactor_pool_t {
    _node_ids: Vec<u32>,
}

/// `iree_async_proactor_pool_options_default`: every capability allowed,
/// no runner (this runtime's devices do not poll proactors).
#[no_mangle]
pub extern "C" fn iree_async_proactor_pool_options_default() -> iree_async_proactor_pool_options_t {
    iree_async_proactor_pool_options_t {
        proactor_options: iree_async_proactor_options_t {
            max_concurrent_operations: 0,
            debug_name: iree_string_view_t::empty(),
            allowed_capabilities: u32::MAX,
            message_pool_capacity: 0,
            threading_mode: 0,
        },
        runner: iree_async_proactor_pool_runner_factory_t {
            user_data: std::ptr::null_mut(),
            create: std::ptr::null(),
            request_stop: std::ptr::null(),
            destroy: std::ptr::null(),
        },
    }
}

/// `iree_async_proactor_pool_create`: a pool for `node_count` nodes
/// (`node_ids`, or 0..node_count when NULL).
///
/// # Safety
/// `node_ids` is NULL or holds `node_count` ids; `out_pool` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_async_proactor_pool_create(
    node_count: iree_host_size_t,
    node_ids: *const u32,
    _options: iree_async_proactor_pool_options_t,
    _allocator: iree_allocator_t,
    out_pool: *mut *mut iree_async_proactor_pool_t,
) -> iree_status_t {
    boundary::status("iree_async_proactor_pool_create", || {
        // SAFETY: per the contract.
        let out = unsafe { out_pool.as_mut() }.ok_or_else(|| handles::null_argument("out_pool"))?;
        *out = std::ptr::null_mut();
        if node_count == 0 {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "proactor pool needs at least one node",
            ));
        }
        let ids = if node_ids.is_null() {
            (0..node_count as u32).collect()
        } else {
            // SAFETY: per the contract.
            unsafe { std::slice::from_raw_parts(node_ids, node_count) }.to_vec()
        };
        *out = handles::into_handle(Arc::new(iree_async_proactor_pool_t { _node_ids: ids }));
        Ok(())
    })
}

/// `iree_async_proactor_pool_retain`.
///
/// # Safety
/// `pool` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_async_proactor_pool_retain(pool: *mut iree_async_proactor_pool_t) {
    // SAFETY: per the contract.
    unsafe { handles::retain(pool) }
}

/// `iree_async_proactor_pool_release`.
///
/// # Safety
/// `pool` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_async_proactor_pool_release(pool: *mut iree_async_proactor_pool_t) {
    // SAFETY: per the contract.
    boundary::value("iree_async_proactor_pool_release", (), || unsafe {
        handles::release(pool)
    })
}

/// `iree_async_frontier_tracker_options_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_async_frontier_tracker_options_t {
    /// Most axes the causal domain registers.
    pub axis_table_capacity: u32,
    /// Generation of the causal domain.
    pub session_epoch: u8,
    /// Local machine ordinal.
    pub machine_index: u8,
}

/// `iree_async_frontier_tracker_t`.
#[allow(non_camel_case_types)]
pub struct iree_async_frontier_tracker_t {
    _options: iree_async_frontier_tracker_options_t,
}

/// `iree_async_frontier_tracker_create`.
///
/// # Safety
/// `out_tracker` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_async_frontier_tracker_create(
    options: iree_async_frontier_tracker_options_t,
    _allocator: iree_allocator_t,
    out_tracker: *mut *mut iree_async_frontier_tracker_t,
) -> iree_status_t {
    boundary::status("iree_async_frontier_tracker_create", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_tracker.as_mut() }.ok_or_else(|| handles::null_argument("out_tracker"))?;
        *out = handles::into_handle(Arc::new(iree_async_frontier_tracker_t {
            _options: options,
        }));
        Ok(())
    })
}

/// `iree_async_frontier_tracker_retain`.
///
/// # Safety
/// `tracker` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_async_frontier_tracker_retain(
    tracker: *mut iree_async_frontier_tracker_t,
) {
    // SAFETY: per the contract.
    unsafe { handles::retain(tracker) }
}

/// `iree_async_frontier_tracker_release`.
///
/// # Safety
/// `tracker` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_async_frontier_tracker_release(
    tracker: *mut iree_async_frontier_tracker_t,
) {
    // SAFETY: per the contract.
    boundary::value("iree_async_frontier_tracker_release", (), || unsafe {
        handles::release(tracker)
    })
}

//===----------------------------------------------------------------------===//
// Heap allocators
//===----------------------------------------------------------------------===//

/// `iree_hal_allocator_create_heap`: a host-memory allocator (buffers
/// DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT), as local devices use.
///
/// # Safety
/// `identifier` is valid; `out_allocator` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_allocator_create_heap(
    _identifier: iree_string_view_t,
    _data_allocator: iree_allocator_t,
    _host_allocator: iree_allocator_t,
    out_allocator: *mut *mut HalAllocator,
) -> iree_status_t {
    boundary::status("iree_hal_allocator_create_heap", || {
        // SAFETY: per the contract.
        let out = unsafe { out_allocator.as_mut() }
            .ok_or_else(|| handles::null_argument("out_allocator"))?;
        *out = handles::into_handle(Arc::new(HalAllocator(HeapAllocator::new())));
        Ok(())
    })
}

//===----------------------------------------------------------------------===//
// Executable loaders
//===----------------------------------------------------------------------===//

/// `iree_hal_executable_loader_t`: one of this runtime's loaders (C code
/// cannot define its own: the struct is opaque in our header).
#[allow(non_camel_case_types)]
pub struct iree_hal_executable_loader_t {
    loader: Arc<dyn ExecutableLoader>,
}

fn loader_out(
    out: *mut *mut iree_hal_executable_loader_t,
    loader: impl FnOnce() -> Result<Arc<dyn ExecutableLoader>>,
) -> Result<()> {
    // SAFETY: the caller's out pointer (checked for NULL).
    let out =
        unsafe { out.as_mut() }.ok_or_else(|| handles::null_argument("out_executable_loader"))?;
    *out = std::ptr::null_mut();
    *out = handles::into_handle(Arc::new(iree_hal_executable_loader_t { loader: loader()? }));
    Ok(())
}

/// `iree_hal_executable_loader_retain`.
///
/// # Safety
/// `loader` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_executable_loader_retain(
    loader: *mut iree_hal_executable_loader_t,
) {
    // SAFETY: per the contract.
    unsafe { handles::retain(loader) }
}

/// `iree_hal_executable_loader_release`.
///
/// # Safety
/// `loader` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_executable_loader_release(
    loader: *mut iree_hal_executable_loader_t,
) {
    // SAFETY: per the contract.
    boundary::value("iree_hal_executable_loader_release", (), || unsafe {
        handles::release(loader)
    })
}

/// `iree_hal_executable_loader_query_support`: whether the loader takes
/// executables of `executable_format`.
///
/// # Safety
/// `loader` is live; `executable_format` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_executable_loader_query_support(
    loader: *mut iree_hal_executable_loader_t,
    _caching_mode: u32,
    executable_format: iree_string_view_t,
) -> bool {
    boundary::value("iree_hal_executable_loader_query_support", false, || {
        // SAFETY: per the contract.
        let Some(loader) = (unsafe { handles::borrow(loader) }) else {
            return false;
        };
        // SAFETY: per the contract.
        let format = unsafe { executable_format.to_string_lossy() };
        loader.loader.supports(&format)
    })
}

/// `iree_hal_embedded_elf_loader_create`: loads `embedded-elf-<arch>`
/// executables with this runtime's ELF loader. Plugins are not supported
/// (`plugin_manager` must be NULL).
///
/// # Safety
/// `out_executable_loader` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_embedded_elf_loader_create(
    plugin_manager: *mut c_void,
    _host_allocator: iree_allocator_t,
    out_executable_loader: *mut *mut iree_hal_executable_loader_t,
) -> iree_status_t {
    boundary::status("iree_hal_embedded_elf_loader_create", || {
        loader_out(out_executable_loader, || {
            if !plugin_manager.is_null() {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    "executable plugins are not supported by this runtime",
                ));
            }
            Ok(Arc::new(EmbeddedElfLoader))
        })
    })
}

/// `iree_hal_vmvx_module_loader_create`: loads `vmvx-bytecode-fb`
/// executables. User modules (imports of the VMVX programs) are not
/// supported (`user_module_count` must be 0).
///
/// # Safety
/// `out_executable_loader` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_vmvx_module_loader_create(
    _instance: *mut Instance,
    user_module_count: iree_host_size_t,
    _user_modules: *mut *mut iree_vm_module_t,
    _host_allocator: iree_allocator_t,
    out_executable_loader: *mut *mut iree_hal_executable_loader_t,
) -> iree_status_t {
    boundary::status("iree_hal_vmvx_module_loader_create", || {
        loader_out(out_executable_loader, || vmvx_loader(user_module_count))
    })
}

/// `iree_hal_vmvx_module_loader_create_isolated`: as
/// [`iree_hal_vmvx_module_loader_create`] (every VMVX loader of this
/// runtime has its own VM instance).
///
/// # Safety
/// `out_executable_loader` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_vmvx_module_loader_create_isolated(
    user_module_count: iree_host_size_t,
    _user_modules: *mut *mut iree_vm_module_t,
    _host_allocator: iree_allocator_t,
    out_executable_loader: *mut *mut iree_hal_executable_loader_t,
) -> iree_status_t {
    boundary::status("iree_hal_vmvx_module_loader_create_isolated", || {
        loader_out(out_executable_loader, || vmvx_loader(user_module_count))
    })
}

fn vmvx_loader(user_module_count: usize) -> Result<Arc<dyn ExecutableLoader>> {
    if user_module_count != 0 {
        return Err(Status::new(
            StatusCode::Unimplemented,
            "VMVX user modules are not supported by this runtime",
        ));
    }
    Ok(Arc::new(VmvxLoader::new()))
}

/// `iree_hal_executable_import_provider_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_hal_executable_import_provider_t {
    /// Passed to `resolve`.
    pub self_: *mut c_void,
    /// Resolves imports (NULL: none).
    pub resolve: *const c_void,
}

/// `iree_hal_static_library_loader_create`: loads executables of format
/// `static` from the libraries linked into the program whose query
/// functions are given. Import providers are not supported (`resolve`
/// must be NULL: required imports fail the load, optional ones stay NULL).
///
/// # Safety
/// `library_query_fns` holds `library_count` query functions of executable
/// libraries linked into this program; `out_executable_loader` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_static_library_loader_create(
    library_count: iree_host_size_t,
    library_query_fns: *const Option<QueryFn>,
    import_provider: iree_hal_executable_import_provider_t,
    _host_allocator: iree_allocator_t,
    out_executable_loader: *mut *mut iree_hal_executable_loader_t,
) -> iree_status_t {
    boundary::status("iree_hal_static_library_loader_create", || {
        loader_out(out_executable_loader, || {
            if !import_provider.resolve.is_null() {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    "executable import providers are not supported by this runtime",
                ));
            }
            let queries: &[Option<QueryFn>] = if library_count == 0 {
                &[]
            } else if library_query_fns.is_null() {
                return Err(handles::null_argument("library_query_fns"));
            } else {
                // SAFETY: per the contract.
                unsafe { std::slice::from_raw_parts(library_query_fns, library_count) }
            };
            let queries = queries
                .iter()
                .map(|q| q.ok_or_else(|| handles::null_argument("library query function")))
                .collect::<Result<Vec<QueryFn>>>()?;
            // SAFETY: per the contract, each is the query function of a
            // library linked into this program.
            Ok(Arc::new(unsafe { StaticLibraryLoader::new(&queries) }?))
        })
    })
}

//===----------------------------------------------------------------------===//
// The synchronous device
//===----------------------------------------------------------------------===//

/// `iree_hal_sync_device_params_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_hal_sync_device_params_t {
    /// Block size of the device's transient arena.
    pub arena_block_size: iree_host_size_t,
}

/// `iree_hal_device_create_params_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct iree_hal_device_create_params_t {
    /// Extension chain (unused).
    pub next: *const c_void,
    /// Proactor pool for the device's asynchronous I/O (accepted, unused).
    pub proactor_pool: *mut iree_async_proactor_pool_t,
}

/// `iree_hal_sync_device_params_initialize`.
///
/// # Safety
/// `out_params` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_sync_device_params_initialize(
    out_params: *mut iree_hal_sync_device_params_t,
) {
    // SAFETY: per the contract.
    if let Some(out) = unsafe { out_params.as_mut() } {
        out.arena_block_size = 32 * 1024;
    }
}

/// Device identifiers live as long as the process (devices name themselves
/// with a `&'static str`); each distinct name is kept once.
fn intern(name: String) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    if let Some(&known) = names.get(name.as_str()) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.insert(leaked);
    leaked
}

/// `iree_hal_sync_device_create`: a device running work inline on the
/// calling thread, loading executables with `loaders` (asked in order).
/// Its buffers come from a heap allocator of its own (the
/// `device_allocator` given must be a heap allocator, as upstream's samples
/// pass).
///
/// # Safety
/// `params` and `create_params` are NULL or valid; `loaders` holds
/// `loader_count` live loaders; `out_device` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_sync_device_create(
    identifier: iree_string_view_t,
    _params: *const iree_hal_sync_device_params_t,
    _create_params: *const iree_hal_device_create_params_t,
    loader_count: iree_host_size_t,
    loaders: *mut *mut iree_hal_executable_loader_t,
    device_allocator: *mut HalAllocator,
    _host_allocator: iree_allocator_t,
    out_device: *mut *mut HalDevice,
) -> iree_status_t {
    boundary::status("iree_hal_sync_device_create", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_device.as_mut() }.ok_or_else(|| handles::null_argument("out_device"))?;
        *out = std::ptr::null_mut();
        if device_allocator.is_null() {
            return Err(handles::null_argument("device_allocator"));
        }
        let handles: &[*mut iree_hal_executable_loader_t] = if loader_count == 0 {
            &[]
        } else if loaders.is_null() {
            return Err(handles::null_argument("loaders"));
        } else {
            // SAFETY: per the contract.
            unsafe { std::slice::from_raw_parts(loaders, loader_count) }
        };
        let loaders = handles
            .iter()
            .map(|&h| {
                // SAFETY: per the contract, each is a live loader.
                unsafe { handles::require(h, "loader") }.map(|l| l.loader.clone())
            })
            .collect::<Result<Vec<_>>>()?;
        // SAFETY: per the contract.
        let id = intern(unsafe { identifier.to_string_lossy() });
        *out = hal::device_handle(Arc::new(LocalDevice::with_loaders(id, 1, loaders)));
        Ok(())
    })
}

//===----------------------------------------------------------------------===//
// Device groups
//===----------------------------------------------------------------------===//

/// `iree_hal_device_group_t`: the devices a `hal` module serves.
#[allow(non_camel_case_types)]
pub struct iree_hal_device_group_t {
    devices: Vec<Arc<HalDevice>>,
}

/// `iree_hal_device_group_create_from_device`: a group of one device.
///
/// # Safety
/// `device` is live; `frontier_tracker` is NULL or live; `out_group` is
/// valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_group_create_from_device(
    device: *mut HalDevice,
    _frontier_tracker: *mut iree_async_frontier_tracker_t,
    _host_allocator: iree_allocator_t,
    out_group: *mut *mut iree_hal_device_group_t,
) -> iree_status_t {
    boundary::status("iree_hal_device_group_create_from_device", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_group.as_mut() }.ok_or_else(|| handles::null_argument("out_group"))?;
        *out = std::ptr::null_mut();
        if device.is_null() {
            return Err(handles::null_argument("device"));
        }
        // SAFETY: per the contract.
        let device = unsafe { handles::clone_arc(device) };
        *out = handles::into_handle(Arc::new(iree_hal_device_group_t {
            devices: vec![device],
        }));
        Ok(())
    })
}

/// `iree_hal_device_group_retain`.
///
/// # Safety
/// `group` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_group_retain(group: *mut iree_hal_device_group_t) {
    // SAFETY: per the contract.
    unsafe { handles::retain(group) }
}

/// `iree_hal_device_group_release`.
///
/// # Safety
/// `group` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_group_release(group: *mut iree_hal_device_group_t) {
    // SAFETY: per the contract.
    boundary::value("iree_hal_device_group_release", (), || unsafe {
        handles::release(group)
    })
}

/// `iree_hal_device_group_device_count`.
///
/// # Safety
/// `group` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_group_device_count(
    group: *const iree_hal_device_group_t,
) -> iree_host_size_t {
    boundary::value("iree_hal_device_group_device_count", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(group) }.map_or(0, |g| g.devices.len())
    })
}

/// `iree_hal_device_group_device_at`: borrowed (NULL out of range).
///
/// # Safety
/// `group` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_device_group_device_at(
    group: *const iree_hal_device_group_t,
    index: iree_host_size_t,
) -> *mut HalDevice {
    boundary::value(
        "iree_hal_device_group_device_at",
        std::ptr::null_mut(),
        || {
            // SAFETY: per the contract.
            unsafe { handles::borrow(group) }
                .and_then(|g| g.devices.get(index))
                .map_or(std::ptr::null_mut(), |d| Arc::as_ptr(d).cast_mut())
        },
    )
}

//===----------------------------------------------------------------------===//
// The hal module
//===----------------------------------------------------------------------===//

/// `iree_hal_module_device_allocator_select_callback_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_hal_module_device_allocator_select_callback_t {
    /// Picks a device's allocator (NULL: the default choice).
    pub fn_: *const c_void,
    /// Passed to `fn`.
    pub user_data: *mut c_void,
}

/// `iree_hal_module_device_policy_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_hal_module_device_policy_t {
    /// How `hal.allocator.select` picks among devices.
    pub allocator_select: iree_hal_module_device_allocator_select_callback_t,
}

/// `iree_hal_module_device_policy_default`.
#[no_mangle]
pub extern "C" fn iree_hal_module_device_policy_default() -> iree_hal_module_device_policy_t {
    iree_hal_module_device_policy_t {
        allocator_select: iree_hal_module_device_allocator_select_callback_t {
            fn_: std::ptr::null(),
            user_data: std::ptr::null_mut(),
        },
    }
}

/// `iree_hal_module_debug_sink_release_callback_fn_t`.
#[allow(non_camel_case_types)]
pub type iree_hal_module_debug_sink_release_callback_fn_t =
    Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// `iree_hal_module_buffer_view_trace_callback_fn_t`.
#[allow(non_camel_case_types)]
pub type iree_hal_module_buffer_view_trace_callback_fn_t = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        key: iree_string_view_t,
        buffer_view_count: iree_host_size_t,
        buffer_views: *mut *mut HalBufferView,
        host_allocator: iree_allocator_t,
    ) -> iree_status_t,
>;

/// `iree_hal_module_debug_sink_release_callback_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_hal_module_debug_sink_release_callback_t {
    /// Called once the module no longer uses the sink.
    pub fn_: iree_hal_module_debug_sink_release_callback_fn_t,
    /// Passed to `fn`.
    pub user_data: *mut c_void,
}

/// `iree_hal_module_buffer_view_trace_callback_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_hal_module_buffer_view_trace_callback_t {
    /// Receives `hal.buffer_view.trace` calls (NULL: traces are dropped).
    pub fn_: iree_hal_module_buffer_view_trace_callback_fn_t,
    /// Passed to `fn`.
    pub user_data: *mut c_void,
}

/// `iree_hal_module_debug_sink_t`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy)]
pub struct iree_hal_module_debug_sink_t {
    /// Release callback.
    pub release: iree_hal_module_debug_sink_release_callback_t,
    /// Buffer-view trace callback.
    pub buffer_view_trace: iree_hal_module_buffer_view_trace_callback_t,
}

/// `iree_hal_module_debug_sink_null`: traces are dropped.
#[no_mangle]
pub extern "C" fn iree_hal_module_debug_sink_null() -> iree_hal_module_debug_sink_t {
    iree_hal_module_debug_sink_t {
        release: iree_hal_module_debug_sink_release_callback_t {
            fn_: None,
            user_data: std::ptr::null_mut(),
        },
        buffer_view_trace: iree_hal_module_buffer_view_trace_callback_t {
            fn_: None,
            user_data: std::ptr::null_mut(),
        },
    }
}

/// Writes a trace to the `FILE*` in `user_data`: `=== key ===`, each view
/// in full on its own line, then an empty line (upstream's stdio sink).
unsafe extern "C" fn trace_to_file(
    user_data: *mut c_void,
    key: iree_string_view_t,
    buffer_view_count: iree_host_size_t,
    buffer_views: *mut *mut HalBufferView,
    _host_allocator: iree_allocator_t,
) -> iree_status_t {
    boundary::status("iree_hal_module_buffer_view_trace_stdio", || {
        // SAFETY: the module passes a valid key.
        let mut text = format!("=== {} ===\n", unsafe { key.to_string_lossy() });
        if buffer_view_count > 0 {
            // SAFETY: the module passes `buffer_view_count` live views.
            let views = unsafe { std::slice::from_raw_parts(buffer_views, buffer_view_count) };
            for &view in views {
                // SAFETY: as above.
                let view = unsafe { handles::require(view, "buffer_view") }?;
                text.push_str(&view.0.format(usize::MAX)?);
                text.push('\n');
            }
        }
        text.push('\n');
        // SAFETY: `user_data` is the FILE* given to the sink's constructor.
        unsafe { write_to_file(user_data.cast(), &text) };
        Ok(())
    })
}

/// `iree_hal_module_debug_sink_stdio`: traces written to `file` through
/// stdio.
#[no_mangle]
pub extern "C" fn iree_hal_module_debug_sink_stdio(
    file: *mut libc::FILE,
) -> iree_hal_module_debug_sink_t {
    let mut sink = iree_hal_module_debug_sink_null();
    sink.buffer_view_trace = iree_hal_module_buffer_view_trace_callback_t {
        fn_: Some(trace_to_file),
        user_data: file.cast(),
    };
    sink
}

/// A C debug sink, released when the module's last state is gone.
struct CDebugSink(iree_hal_module_debug_sink_t);

// SAFETY: upstream's modules call their sinks from whichever thread runs
// the traced function; a C sink is written for that.
unsafe impl Send for CDebugSink {}
// SAFETY: as above.
unsafe impl Sync for CDebugSink {}

impl Drop for CDebugSink {
    fn drop(&mut self) {
        if let Some(release) = self.0.release.fn_ {
            // SAFETY: the sink's own release callback, called once.
            unsafe { release(self.0.release.user_data) }
        }
    }
}

impl CDebugSink {
    fn trace(&self, key: &str, views: &[BufferView]) -> Result<()> {
        let Some(trace) = self.0.buffer_view_trace.fn_ else {
            return Ok(());
        };
        let mut handles: Vec<*mut HalBufferView> = views
            .iter()
            .map(|v| handles::into_handle(Arc::new(HalBufferView(v.clone()))))
            .collect();
        // SAFETY: the sink's callback with its user data, a valid key and
        // live views (released below).
        let status = unsafe {
            trace(
                self.0.buffer_view_trace.user_data,
                iree_string_view_t::from_str(key),
                handles.len(),
                handles.as_mut_ptr(),
                iree_allocator_t::system(),
            )
        };
        for handle in handles {
            // SAFETY: each handle owns the count made above.
            unsafe { handles::release(handle) };
        }
        // SAFETY: an owned status.
        unsafe { take_status(status) }
    }
}

/// `iree_hal_module_create`: the `hal` module serving the devices of
/// `device_group` (device 0 is the default). A custom allocator-selection
/// policy is not supported (its callback must be NULL).
///
/// # Safety
/// `instance` and `device_group` are live; `out_module` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_hal_module_create(
    instance: *mut Instance,
    device_policy: iree_hal_module_device_policy_t,
    device_group: *mut iree_hal_device_group_t,
    _flags: u32,
    debug_sink: iree_hal_module_debug_sink_t,
    _host_allocator: iree_allocator_t,
    out_module: *mut *mut iree_vm_module_t,
) -> iree_status_t {
    // The sink is the module's from here on, failure included (upstream
    // releases it with the module).
    let sink = Arc::new(CDebugSink(debug_sink));
    boundary::status("iree_hal_module_create", move || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_module.as_mut() }.ok_or_else(|| handles::null_argument("out_module"))?;
        *out = std::ptr::null_mut();
        if instance.is_null() {
            return Err(handles::null_argument("instance"));
        }
        // SAFETY: per the contract.
        let group = unsafe { handles::require(device_group, "device_group") }?;
        if group.devices.is_empty() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "device group has no devices",
            ));
        }
        if !device_policy.allocator_select.fn_.is_null() {
            return Err(Status::new(
                StatusCode::Unimplemented,
                "custom device allocator selection policies are not supported by this runtime",
            ));
        }
        let devices = group.devices.iter().map(|d| d.0.clone()).collect();
        let debug_sink: Option<DebugSink> = sink.0.buffer_view_trace.fn_.map(|_| {
            let sink = sink.clone();
            Arc::new(move |key: &str, views: &[BufferView]| sink.trace(key, views)) as DebugSink
        });
        let module = iree_modules_hal::create_hal_module_with_debug_sink(devices, debug_sink)?;
        *out = RustModule::for_module(module);
        Ok(())
    })
}
