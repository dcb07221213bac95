//! A library of broken dynamic modules, for the error-handling tests of
//! `iree-run-module` (`tools/iree-run-module/tests/dynamic_modules.rs`).
//! Built as `libiree_vm_dynamic_fixtures.so`. It deliberately does not
//! export the default entry point; each case has its own, selected with
//! `--module=libiree_vm_dynamic_fixtures.so@<name>`:
//!
//! * `fixture_failing`: the factory fails (PERMISSION_DENIED).
//! * `fixture_panicking`: the factory panics.
//! * `fixture_refuses_version`: refuses the host's ABI version, as a library
//!   built for another version does.
//! * `fixture_future_abi`: returns a module table reporting another ABI
//!   version.

use std::ffi::c_void;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_vm::Module;
use iree_vm_dynamic::abi::{HostApi, ModuleApi, StatusSink, StringPair, StringView, ABI_VERSION};
use iree_vm_dynamic::ModuleParams;

fn failing(_: &ModuleParams) -> Result<Arc<dyn Module>> {
    Err(Status::new(
        StatusCode::PermissionDenied,
        "fixture_failing refuses to create its module",
    ))
}

fn panicking(_: &ModuleParams) -> Result<Arc<dyn Module>> {
    panic!("fixture_panicking panicked while creating its module")
}

iree_vm_dynamic::dynamic_module!(fixture_failing = failing, fixture_panicking = panicking);

/// Refuses every host: what a library built for another ABI version
/// answers.
///
/// # Safety
/// Called by the host as the ABI specifies.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fixture_refuses_version(
    max_version: u32,
    _host: *const HostApi,
    _param_count: usize,
    _params: *const StringPair,
    _out_module: *mut *const ModuleApi,
    status: *const StatusSink,
) -> u32 {
    let message = format!(
        "unsupported runtime version {max_version:#010x}, module compiled with version {:#010x}",
        ABI_VERSION + 1
    );
    if !status.is_null() {
        // SAFETY: the host passes a valid sink.
        unsafe { ((*status).set)((*status).context, 12, StringView::new(&message)) };
    }
    12
}

unsafe extern "C" fn no_state(
    _: *mut c_void,
    _: *mut c_void,
    _: *const u8,
    _: usize,
    _: *mut *mut c_void,
    _: *const StatusSink,
) -> u32 {
    12
}
unsafe extern "C" fn no_destroy_state(_: *mut c_void, _: *mut c_void) {}
unsafe extern "C" fn no_call(
    _: *mut c_void,
    _: *mut c_void,
    _: u32,
    _: *mut iree_vm_dynamic::abi::AbiValue,
    _: usize,
    _: *const iree_vm_dynamic::abi::ValueSink,
    _: *const StatusSink,
) -> u32 {
    12
}
unsafe extern "C" fn no_notify(
    _: *mut c_void,
    _: *mut c_void,
    _: i32,
    _: *const StatusSink,
) -> u32 {
    0
}
unsafe extern "C" fn no_destroy(_: *mut c_void) {}

/// A module table from the future: everything in place, but a different
/// `abi_version`.
struct FutureTable(ModuleApi);
// SAFETY: the table only points at static data.
unsafe impl Sync for FutureTable {}

static FUTURE: FutureTable = FutureTable(ModuleApi {
    abi_version: ABI_VERSION + 1,
    module: std::ptr::null_mut(),
    name: StringView {
        data: b"future".as_ptr(),
        size: 6,
    },
    version: 0,
    dependencies: std::ptr::null(),
    dependency_count: 0,
    imports: std::ptr::null(),
    import_count: 0,
    exports: std::ptr::null(),
    export_count: 0,
    create_state: no_state,
    destroy_state: no_destroy_state,
    call: no_call,
    notify: no_notify,
    destroy: no_destroy,
});

/// Returns a module table reporting ABI version `ABI_VERSION + 1`.
///
/// # Safety
/// Called by the host as the ABI specifies.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fixture_future_abi(
    _max_version: u32,
    _host: *const HostApi,
    _param_count: usize,
    _params: *const StringPair,
    out_module: *mut *const ModuleApi,
    _status: *const StatusSink,
) -> u32 {
    // SAFETY: the host passes a writable output.
    unsafe { *out_module = &FUTURE.0 };
    0
}
