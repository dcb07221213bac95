//! The C ABI between a host and a dynamic module library, version
//! [`ABI_VERSION`].
//!
//! Everything here is `#[repr(C)]` plain data and `extern "C"` function
//! pointers, so host and library may be built by different compilers (or
//! written in another language): no Rust trait objects, `String`s or `Vec`s
//! cross. The rules every function follows:
//!
//! * **Status.** Functions that can fail return a status code (`0` is OK,
//!   otherwise an IREE status code, [`iree_base::StatusCode::raw`]) and take a
//!   [`StatusSink`]: on failure the callee may call `sink.set` once with the
//!   code and a message, which the caller copies before the call returns.
//!   Strings are never freed across the boundary.
//! * **Strings** are [`StringView`]s: UTF-8, not NUL-terminated, borrowed.
//! * **Refs** are opaque host handles (`*mut c_void`, null is the null ref),
//!   each owning one reference. Handles passed as call arguments belong to
//!   the callee, handles pushed into a [`ValueSink`] to whoever owns the sink.
//!   Only the host creates, retains ([`HostApi::ref_retain`]) and releases
//!   ([`HostApi::ref_release`]) them; a library sees an object's contents
//!   only through host extensions ([`HostApi::lookup_extension`], for
//!   example `hal.buffer_view` in `iree-modules-hal`).
//! * **No unwinding** crosses the boundary: both sides catch panics and turn
//!   them into INTERNAL statuses.
//! * **Threads.** A module's functions may be called from several threads at
//!   once (one context may be used from several threads, and several
//!   contexts may share a module), as [`iree_vm::Module`] requires.
//!
//! Loading: the host resolves [`ENTRY_POINT_NAME`] (or the name given after
//! `@` in `--module=lib.so@name`) and [`ABI_MARKER_SYMBOL`], checks the marker
//! holds [`ABI_VERSION`], and calls the entry point ([`CreateModuleFn`]) with
//! the highest version it supports. The library fails the call if it cannot
//! serve that version, and otherwise fills in a [`ModuleApi`] whose
//! `abi_version` the host checks again.
//!
//! Upstream IREE names the same entry point and checks versions the same
//! way, but its C structures (`iree_vm_module_t`, `iree_vm_instance_t`, …)
//! are not this ABI: libraries built against upstream's runtime cannot be
//! loaded here, nor ours by upstream. The marker symbol lets the host tell
//! them apart before calling anything.

use std::ffi::c_void;

/// Upstream's default entry-point name (`IREE_VM_DYNAMIC_MODULE_EXPORT_NAME`).
pub const ENTRY_POINT_NAME: &str = "iree_vm_dynamic_module_create";

/// A `u32` data symbol every library of this ABI exports, holding the ABI
/// version it was built for. Its absence means the library was not built
/// for this ABI (for example, for upstream IREE's C ABI).
pub const ABI_MARKER_SYMBOL: &str = "iree_rs_vm_dynamic_module_abi";

/// The ABI version: `0x5253` (`"RS"`) in the high half, so that it never
/// equals upstream's `IREE_VM_DYNAMIC_MODULE_VERSION_*` values, and the
/// revision in the low half. Changes to any structure or rule of this
/// module change it; there is no compatibility between versions.
pub const ABI_VERSION: u32 = 0x5253_0001;

/// Status code for OK.
pub const STATUS_OK: u32 = 0;

/// A borrowed UTF-8 string.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StringView {
    /// The first byte (may be null when `size` is 0).
    pub data: *const u8,
    /// The length in bytes.
    pub size: usize,
}

impl StringView {
    /// A view of `text`; valid while `text` is.
    pub fn new(text: &str) -> StringView {
        StringView {
            data: text.as_ptr(),
            size: text.len(),
        }
    }

    /// The empty string.
    pub const EMPTY: StringView = StringView {
        data: std::ptr::null(),
        size: 0,
    };

    /// Copies the text out; invalid UTF-8 is replaced.
    ///
    /// # Safety
    /// `data` must point at `size` readable bytes (or `size` be 0).
    pub unsafe fn to_string_lossy(self) -> String {
        if self.data.is_null() || self.size == 0 {
            return String::new();
        }
        // SAFETY: the caller guarantees `size` readable bytes at `data`.
        let bytes = unsafe { std::slice::from_raw_parts(self.data, self.size) };
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// A key/value pair (`--module=lib.so@name?key=value&…` parameters).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct StringPair {
    /// The key.
    pub key: StringView,
    /// The value (empty when the parameter had no `=`).
    pub value: StringView,
}

/// Where a callee reports a failure's code and message.
#[repr(C)]
pub struct StatusSink {
    /// The caller's context for `set`.
    pub context: *mut c_void,
    /// Records the failure; the callee calls it at most once, and the
    /// caller copies the message before returning.
    pub set: unsafe extern "C" fn(context: *mut c_void, code: u32, message: StringView),
}

/// [`AbiValue::kind`] of an `i32`.
pub const VALUE_I32: u32 = 1;
/// [`AbiValue::kind`] of an `i64`.
pub const VALUE_I64: u32 = 2;
/// [`AbiValue::kind`] of an `f32`.
pub const VALUE_F32: u32 = 3;
/// [`AbiValue::kind`] of an `f64`.
pub const VALUE_F64: u32 = 4;
/// [`AbiValue::kind`] of a ref (a host handle, or null).
pub const VALUE_REF: u32 = 5;

/// One flattened argument or result, as the cconv lays them out (a variadic
/// span is an `i32` count followed by its tuples).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AbiValue {
    /// One of the `VALUE_*` constants.
    pub kind: u32,
    /// Scalars: the value's bits, zero-extended (`i32` as `u32`, floats as
    /// `to_bits`).
    pub bits: u64,
    /// Refs: the owned host handle, or null.
    pub handle: *mut c_void,
}

/// Where a callee appends results; each pushed ref handle passes to the
/// sink's owner.
#[repr(C)]
pub struct ValueSink {
    /// The owner's context for `push`.
    pub context: *mut c_void,
    /// Appends one value.
    pub push: unsafe extern "C" fn(context: *mut c_void, value: AbiValue),
}

/// What the host offers a library. Valid from the entry-point call until the
/// module's `destroy` returns.
#[repr(C)]
pub struct HostApi {
    /// [`ABI_VERSION`] of the host.
    pub abi_version: u32,
    /// The host's context for `lookup_extension`.
    pub context: *mut c_void,
    /// Returns a new handle owning another reference to the same object.
    pub ref_retain: unsafe extern "C" fn(handle: *mut c_void) -> *mut c_void,
    /// Releases a handle.
    pub ref_release: unsafe extern "C" fn(handle: *mut c_void),
    /// The registered type name of the handle's object (`hal.buffer_view`);
    /// valid while the handle is.
    pub ref_type_name: unsafe extern "C" fn(handle: *mut c_void) -> StringView,
    /// The function table of a host extension, or null when the host has
    /// none of that name and version. Tables live as long as the `HostApi`.
    pub lookup_extension:
        unsafe extern "C" fn(context: *mut c_void, name: StringView, version: u32) -> *const c_void,
    /// Calls import `ordinal` of a module state, passing the `imports`
    /// pointer the host gave [`ModuleApi::create_state`]. Argument handles
    /// pass to the host; result handles to the caller.
    pub call_import: unsafe extern "C" fn(
        imports: *mut c_void,
        ordinal: u32,
        args: *mut AbiValue,
        arg_count: usize,
        results: *const ValueSink,
        status: *const StatusSink,
    ) -> u32,
}

/// A module that must be registered before this one.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DependencyDesc {
    /// The module name.
    pub name: StringView,
    /// The lowest version that will do.
    pub minimum_version: u32,
    /// Nonzero when a missing module is tolerated.
    pub optional: u32,
}

/// A function the module imports.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImportDesc {
    /// `module.function`.
    pub full_name: StringView,
    /// The calling convention (`0i_i`).
    pub cconv: StringView,
    /// Nonzero when the import may stay unresolved.
    pub optional: u32,
}

/// A function the module exports.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ExportDesc {
    /// The local name (`accumulate`).
    pub name: StringView,
    /// The calling convention (`0i_i`).
    pub cconv: StringView,
}

/// A module as a library describes it. Everything it points at belongs to
/// the library and stays valid until `destroy(module)`.
#[repr(C)]
pub struct ModuleApi {
    /// [`ABI_VERSION`] of the library.
    pub abi_version: u32,
    /// The library's module object, passed back to every function.
    pub module: *mut c_void,
    /// The module name used for import resolution.
    pub name: StringView,
    /// The module version.
    pub version: u32,
    /// Dependencies (`dependency_count` entries).
    pub dependencies: *const DependencyDesc,
    /// Number of dependencies.
    pub dependency_count: usize,
    /// Imports, by import ordinal (`import_count` entries).
    pub imports: *const ImportDesc,
    /// Number of imports.
    pub import_count: usize,
    /// Exports, by export ordinal (`export_count` entries).
    pub exports: *const ExportDesc,
    /// Number of exports.
    pub export_count: usize,
    /// Creates the module's state in a new context. `imports` is the host's
    /// pointer for [`HostApi::call_import`]; `import_resolved` holds one byte
    /// per import, nonzero when it resolved (optional ones may not).
    pub create_state: unsafe extern "C" fn(
        module: *mut c_void,
        imports: *mut c_void,
        import_resolved: *const u8,
        import_count: usize,
        out_state: *mut *mut c_void,
        status: *const StatusSink,
    ) -> u32,
    /// Destroys a state made by `create_state`.
    pub destroy_state: unsafe extern "C" fn(module: *mut c_void, state: *mut c_void),
    /// Calls export `ordinal`; argument handles pass to the library.
    pub call: unsafe extern "C" fn(
        module: *mut c_void,
        state: *mut c_void,
        ordinal: u32,
        args: *mut AbiValue,
        arg_count: usize,
        results: *const ValueSink,
        status: *const StatusSink,
    ) -> u32,
    /// Delivers a context-wide signal (`__notify`).
    pub notify: unsafe extern "C" fn(
        module: *mut c_void,
        state: *mut c_void,
        signal: i32,
        status: *const StatusSink,
    ) -> u32,
    /// Destroys the module and this table; called once, after every state
    /// is destroyed.
    pub destroy: unsafe extern "C" fn(module: *mut c_void),
}

/// The entry point: creates a module. `max_version` is the highest ABI
/// version the host supports; a library that cannot serve it fails. `host`
/// stays valid until the module is destroyed. On success `*out_module`
/// points at the library's [`ModuleApi`].
pub type CreateModuleFn = unsafe extern "C" fn(
    max_version: u32,
    host: *const HostApi,
    param_count: usize,
    params: *const StringPair,
    out_module: *mut *const ModuleApi,
    status: *const StatusSink,
) -> u32;
