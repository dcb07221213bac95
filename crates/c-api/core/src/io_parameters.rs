//! Parameters from C (`iree/io/file_handle.h`, `parameter_index.h`,
//! `parameter_provider.h`, `parameter_index_provider.h`,
//! `formats/parser_registry.h` and `iree/modules/io/parameters/module.h` of
//! upstream IREE): files opened as handles, indexed (IRPA, GGUF,
//! safetensors) by [`iree_io_parameters`], served by index providers
//! through the `io_parameters` module.

use std::path::PathBuf;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_io_parameters::{FileMode, Format, IndexProvider, ParameterFile, ParameterIndex};
use iree_vm::Instance;
use parking_lot::Mutex;

use crate::allocator::iree_allocator_t;
use crate::boundary;
use crate::handles;
use crate::status::{iree_status_t, write_to_file};
use crate::strings::{iree_host_size_t, iree_string_view_t};
use crate::vm_module::{iree_vm_module_t, RustModule};

/// `IREE_IO_FILE_MODE_WRITE`.
const FILE_MODE_WRITE: u64 = 1 << 1;

//===----------------------------------------------------------------------===//
// File handles
//===----------------------------------------------------------------------===//

/// `iree_io_file_handle_t`: an open parameter file.
#[allow(non_camel_case_types)]
pub struct iree_io_file_handle_t {
    file: Arc<ParameterFile>,
    mode: FileMode,
}

fn open_handle(
    mode: u64,
    path: iree_string_view_t,
    file_mode: FileMode,
    out_handle: *mut *mut iree_io_file_handle_t,
) -> Result<()> {
    // SAFETY: the caller's out pointer (checked for NULL).
    let out = unsafe { out_handle.as_mut() }.ok_or_else(|| handles::null_argument("out_handle"))?;
    *out = std::ptr::null_mut();
    // SAFETY: the caller passes a valid string view.
    let path = PathBuf::from(unsafe { path.to_string_lossy() });
    let file = if mode & FILE_MODE_WRITE != 0 {
        ParameterFile::open_writable(&path)?
    } else {
        ParameterFile::open(&path, file_mode)?
    };
    *out = handles::into_handle(Arc::new(iree_io_file_handle_t {
        file: Arc::new(file),
        mode: file_mode,
    }));
    Ok(())
}

/// `iree_io_file_handle_open`: the file at `path`, mapped (or writable with
/// `IREE_IO_FILE_MODE_WRITE`). NOT_FOUND when it does not exist.
///
/// # Safety
/// `path` is valid; `out_handle` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_io_file_handle_open(
    mode: u64,
    path: iree_string_view_t,
    _host_allocator: iree_allocator_t,
    out_handle: *mut *mut iree_io_file_handle_t,
) -> iree_status_t {
    boundary::status("iree_io_file_handle_open", || {
        open_handle(mode, path, FileMode::Mapped, out_handle)
    })
}

/// `iree_io_file_handle_preload`: the file at `path`, read whole into
/// memory now.
///
/// # Safety
/// `path` is valid; `out_handle` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_io_file_handle_preload(
    mode: u64,
    path: iree_string_view_t,
    _host_allocator: iree_allocator_t,
    out_handle: *mut *mut iree_io_file_handle_t,
) -> iree_status_t {
    boundary::status("iree_io_file_handle_preload", || {
        open_handle(mode & !FILE_MODE_WRITE, path, FileMode::Preload, out_handle)
    })
}

/// `iree_io_file_handle_retain`.
///
/// # Safety
/// `handle` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_io_file_handle_retain(handle: *mut iree_io_file_handle_t) {
    // SAFETY: per the contract.
    unsafe { handles::retain(handle) }
}

/// `iree_io_file_handle_release`.
///
/// # Safety
/// `handle` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_io_file_handle_release(handle: *mut iree_io_file_handle_t) {
    // SAFETY: per the contract.
    boundary::value("iree_io_file_handle_release", (), || unsafe {
        handles::release(handle)
    })
}

//===----------------------------------------------------------------------===//
// Parameter indices
//===----------------------------------------------------------------------===//

/// `iree_io_parameter_index_t`: named parameters and where their bytes are.
#[allow(non_camel_case_types)]
pub struct iree_io_parameter_index_t {
    index: Mutex<ParameterIndex>,
}

/// `iree_io_parameter_index_create`: an empty index.
///
/// # Safety
/// `out_index` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_index_create(
    _host_allocator: iree_allocator_t,
    out_index: *mut *mut iree_io_parameter_index_t,
) -> iree_status_t {
    boundary::status("iree_io_parameter_index_create", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_index.as_mut() }.ok_or_else(|| handles::null_argument("out_index"))?;
        *out = handles::into_handle(Arc::new(iree_io_parameter_index_t {
            index: Mutex::new(ParameterIndex::new()),
        }));
        Ok(())
    })
}

/// `iree_io_parameter_index_retain`.
///
/// # Safety
/// `index` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_index_retain(index: *mut iree_io_parameter_index_t) {
    // SAFETY: per the contract.
    unsafe { handles::retain(index) }
}

/// `iree_io_parameter_index_release`.
///
/// # Safety
/// `index` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_index_release(index: *mut iree_io_parameter_index_t) {
    // SAFETY: per the contract.
    boundary::value("iree_io_parameter_index_release", (), || unsafe {
        handles::release(index)
    })
}

/// `iree_io_parameter_index_count`: entries (0 for NULL).
///
/// # Safety
/// `index` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_index_count(
    index: *mut iree_io_parameter_index_t,
) -> iree_host_size_t {
    boundary::value("iree_io_parameter_index_count", 0, || {
        // SAFETY: per the contract.
        unsafe { handles::borrow(index) }.map_or(0, |i| i.index.lock().len())
    })
}

/// `iree_io_parameter_index_fprint`: the entries as upstream's
/// `iree-dump-parameters` lists them, through stdio.
///
/// # Safety
/// `file` is a valid open `FILE*`; `scope` is valid; `index` is live.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_index_fprint(
    file: *mut libc::FILE,
    scope: iree_string_view_t,
    index: *mut iree_io_parameter_index_t,
) -> iree_status_t {
    boundary::status("iree_io_parameter_index_fprint", || {
        // SAFETY: per the contract.
        let index = unsafe { handles::require(index, "index") }?;
        // SAFETY: per the contract.
        let text = index.index.lock().dump(&unsafe { scope.to_string_lossy() });
        // SAFETY: per the contract.
        if !unsafe { write_to_file(file, &text) } {
            return Err(Status::new(
                StatusCode::DataLoss,
                "writing the parameter index failed",
            ));
        }
        Ok(())
    })
}

/// `iree_io_parse_file_index`: appends the entries of the parameter file
/// behind `file_handle` to `index`; the format comes from `path`'s
/// extension (`.irpa`, `.gguf`, `.safetensors`).
///
/// # Safety
/// `path` is valid; `file_handle` and `index` are live.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parse_file_index(
    path: iree_string_view_t,
    file_handle: *mut iree_io_file_handle_t,
    index: *mut iree_io_parameter_index_t,
    _host_allocator: iree_allocator_t,
) -> iree_status_t {
    boundary::status("iree_io_parse_file_index", || {
        // SAFETY: per the contract.
        let (handle, index) = unsafe {
            (
                handles::require(file_handle, "file_handle")?,
                handles::require(index, "index")?,
            )
        };
        // SAFETY: per the contract.
        let path = unsafe { path.to_string_lossy() };
        let format = Format::from_path(&path)?;
        iree_io_parameters::formats::parse_file_index(
            format,
            handle.file.clone(),
            handle.mode,
            &mut index.index.lock(),
        )
    })
}

//===----------------------------------------------------------------------===//
// Providers and the io_parameters module
//===----------------------------------------------------------------------===//

/// `iree_io_parameter_provider_t`: serves the parameters of one scope.
#[allow(non_camel_case_types)]
pub struct iree_io_parameter_provider_t {
    provider: Arc<dyn iree_io_parameters::ParameterProvider>,
}

/// `iree_io_parameter_index_provider_create`: serves `scope` from a
/// snapshot of `index` (entries added to the index later are not seen).
///
/// # Safety
/// `scope` is valid; `index` is live; `out_provider` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_index_provider_create(
    scope: iree_string_view_t,
    index: *mut iree_io_parameter_index_t,
    _max_concurrent_operations: iree_host_size_t,
    _host_allocator: iree_allocator_t,
    out_provider: *mut *mut iree_io_parameter_provider_t,
) -> iree_status_t {
    boundary::status("iree_io_parameter_index_provider_create", || {
        // SAFETY: per the contract.
        let out = unsafe { out_provider.as_mut() }
            .ok_or_else(|| handles::null_argument("out_provider"))?;
        *out = std::ptr::null_mut();
        // SAFETY: per the contract.
        let index = unsafe { handles::require(index, "index") }?;
        // SAFETY: per the contract.
        let scope = unsafe { scope.as_bytes() }.to_vec();
        let snapshot = index.index.lock().clone();
        *out = handles::into_handle(Arc::new(iree_io_parameter_provider_t {
            provider: Arc::new(IndexProvider::new(scope, snapshot)),
        }));
        Ok(())
    })
}

/// `iree_io_parameter_provider_retain`.
///
/// # Safety
/// `provider` is NULL or live.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_provider_retain(
    provider: *mut iree_io_parameter_provider_t,
) {
    // SAFETY: per the contract.
    unsafe { handles::retain(provider) }
}

/// `iree_io_parameter_provider_release`.
///
/// # Safety
/// `provider` is NULL or live and the caller owns a count.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_provider_release(
    provider: *mut iree_io_parameter_provider_t,
) {
    // SAFETY: per the contract.
    boundary::value("iree_io_parameter_provider_release", (), || unsafe {
        handles::release(provider)
    })
}

/// `iree_io_parameter_provider_query_support`: whether the provider serves
/// `scope`.
///
/// # Safety
/// `provider` is live; `scope` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameter_provider_query_support(
    provider: *mut iree_io_parameter_provider_t,
    scope: iree_string_view_t,
) -> bool {
    boundary::value("iree_io_parameter_provider_query_support", false, || {
        // SAFETY: per the contract.
        let Some(provider) = (unsafe { handles::borrow(provider) }) else {
            return false;
        };
        // SAFETY: per the contract.
        provider
            .provider
            .supports_scope(unsafe { scope.as_bytes() })
    })
}

/// `iree_io_parameters_module_create`: the `io_parameters` module over
/// `providers` (asked in order for the first that serves a scope).
///
/// # Safety
/// `instance` is live; `providers` holds `provider_count` live providers;
/// `out_module` is valid.
#[no_mangle]
pub unsafe extern "C" fn iree_io_parameters_module_create(
    instance: *mut Instance,
    provider_count: iree_host_size_t,
    providers: *const *mut iree_io_parameter_provider_t,
    _host_allocator: iree_allocator_t,
    out_module: *mut *mut iree_vm_module_t,
) -> iree_status_t {
    boundary::status("iree_io_parameters_module_create", || {
        // SAFETY: per the contract.
        let out =
            unsafe { out_module.as_mut() }.ok_or_else(|| handles::null_argument("out_module"))?;
        *out = std::ptr::null_mut();
        if instance.is_null() {
            return Err(handles::null_argument("instance"));
        }
        let handles_: &[*mut iree_io_parameter_provider_t] = if provider_count == 0 {
            &[]
        } else if providers.is_null() {
            return Err(handles::null_argument("providers"));
        } else {
            // SAFETY: per the contract.
            unsafe { std::slice::from_raw_parts(providers, provider_count) }
        };
        let providers = handles_
            .iter()
            .map(|&p| {
                // SAFETY: per the contract, each is live.
                unsafe { handles::require(p, "provider") }.map(|p| p.provider.clone())
            })
            .collect::<Result<Vec<_>>>()?;
        let module = iree_io_parameters::create_io_parameters_module(providers)?;
        *out = RustModule::for_module(module);
        Ok(())
    })
}
