//! The library side (the SDK a module author uses): serving an
//! [`iree_vm::Module`] through the ABI, and the host objects a module sees.
//!
//! A library builds its module with the ordinary native-module API
//! ([`iree_vm::native::NativeModuleBuilder`]) and exports it with
//! [`crate::dynamic_module!`]. Refs it receives are [`HostRef`]s: handles
//! to host objects, opaque except through host extensions. Refs it returns
//! must be host objects too (received ones, or ones a host extension made).

use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, OnceLock};

use iree_base::{Result, Status, StatusCode};
use iree_vm::native::{Arg, ArgReader, ResultValue};
use iree_vm::{
    CallStatus, CconvType, ExportInfo, Instance, Module, ModuleInstance, Ref, RefObject, RefType,
    RefTypeDescriptor, ResolvedImport, Stack, Value,
};

use crate::abi::{
    AbiValue, DependencyDesc, ExportDesc, HostApi, ImportDesc, ModuleApi, StatusSink, StringPair,
    StringView, ValueSink, ABI_VERSION, VALUE_F32, VALUE_F64, VALUE_I32, VALUE_I64, VALUE_REF,
};
use crate::boundary::{call_with_status, guard, text};

/// The host a library module was loaded into: its [`HostApi`] table.
///
/// Valid from the entry-point call until the host destroys the module, so
/// modules keep it in their state and may use it in any call; it must not
/// be used after the module is gone (for example from a global).
#[derive(Clone, Copy)]
pub struct Host {
    api: NonNull<HostApi>,
}

// SAFETY: the host table is immutable and its functions are thread-safe,
// as the ABI requires.
unsafe impl Send for Host {}
// SAFETY: as for Send.
unsafe impl Sync for Host {}

impl Host {
    fn api(&self) -> &HostApi {
        // SAFETY: the table is valid while the module lives (see `Host`).
        unsafe { self.api.as_ref() }
    }

    /// The function table of host extension `name` at `version`, or `None`
    /// when the host offers none. The table stays valid as long as the
    /// `Host`; its layout is defined by whoever documents the extension.
    pub fn extension(&self, name: &str, version: u32) -> Option<NonNull<c_void>> {
        let api = self.api();
        // SAFETY: a host-provided function called with valid arguments.
        let table = unsafe { (api.lookup_extension)(api.context, StringView::new(name), version) };
        NonNull::new(table as *mut c_void)
    }
}

/// A reference to a host object held by a library (a VM ref of the
/// library's own VM). Dropping it releases the host handle.
pub struct HostRef {
    host: Host,
    handle: NonNull<c_void>,
    ref_type: RefType,
}

// SAFETY: host handles may be used and released from any thread (ABI).
unsafe impl Send for HostRef {}
// SAFETY: as for Send; a `HostRef` is never mutated.
unsafe impl Sync for HostRef {}

impl HostRef {
    /// Wraps an owned host handle (`None` for null).
    ///
    /// # Safety
    /// `handle` must be null or an owned handle of `host`.
    pub unsafe fn from_handle(host: Host, handle: *mut c_void) -> Option<HostRef> {
        let handle = NonNull::new(handle)?;
        let api = host.api();
        // SAFETY: a live handle of this host.
        let name = unsafe { text((api.ref_type_name)(handle.as_ptr())) };
        Some(HostRef {
            host,
            handle,
            ref_type: interned_ref_type(&name),
        })
    }

    /// The host handle (borrowed: it stays owned by this `HostRef`).
    pub fn handle(&self) -> *mut c_void {
        self.handle.as_ptr()
    }

    /// The host the object lives in.
    pub fn host(&self) -> Host {
        self.host
    }

    /// The host type name (`hal.buffer_view`).
    pub fn type_name(&self) -> &'static str {
        self.ref_type.name()
    }

    /// A new owned handle to the same object, for passing to the host.
    pub fn retain_handle(&self) -> *mut c_void {
        let api = self.host.api();
        // SAFETY: a live handle of this host.
        unsafe { (api.ref_retain)(self.handle.as_ptr()) }
    }

    /// Borrows the `HostRef` behind `r` if `r` is a host object of type
    /// `type_name`, failing with INVALID_ARGUMENT naming both types.
    pub fn checked<'a>(r: &'a Ref, type_name: &str) -> Result<&'a HostRef> {
        match r.downcast::<HostRef>() {
            Some(h) if h.type_name() == type_name => Ok(h),
            _ => Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "ref type mismatch: expected '{type_name}' but have '{}'",
                    r.ref_type().name()
                ),
            )),
        }
    }
}

impl Drop for HostRef {
    fn drop(&mut self) {
        let api = self.host.api();
        // SAFETY: the handle is owned by this `HostRef` and released once.
        unsafe { (api.ref_release)(self.handle.as_ptr()) };
    }
}

impl RefObject for HostRef {
    fn ref_type(&self) -> RefType {
        self.ref_type
    }
}

/// The library-side [`RefType`] for a host type name: one leaked
/// descriptor per distinct name (a handful per process).
fn interned_ref_type(name: &str) -> RefType {
    static TYPES: OnceLock<Mutex<HashMap<String, &'static RefTypeDescriptor>>> = OnceLock::new();
    let mut types = TYPES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let descriptor = *types.entry(name.to_string()).or_insert_with(|| {
        Box::leak(Box::new(RefTypeDescriptor {
            name: Box::leak(name.to_string().into_boxed_str()),
        }))
    });
    RefType::new(descriptor)
}

/// A typed host object of the type named by `T`, as a typed native-function
/// argument or result (see [`HostRefType`]).
pub struct TypedHostRef<T: HostRefType> {
    object: Arc<HostRef>,
    _type: std::marker::PhantomData<T>,
}

/// Names a host reference type for [`TypedHostRef`].
pub trait HostRefType: 'static {
    /// The registered host type name (`hal.buffer_view`).
    const NAME: &'static str;
}

impl<T: HostRefType> TypedHostRef<T> {
    /// Checks that `r` is a host object of type `T`.
    pub fn new(r: Ref) -> Result<Self> {
        HostRef::checked(&r, T::NAME)?;
        let object = r.into_arc::<HostRef>().map_err(|r| {
            Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "expected a host '{}' but have '{}'",
                    T::NAME,
                    r.ref_type().name()
                ),
            )
        })?;
        Ok(TypedHostRef {
            object,
            _type: std::marker::PhantomData,
        })
    }

    /// The host object.
    pub fn host_ref(&self) -> &HostRef {
        &self.object
    }

    /// As a VM ref.
    pub fn into_ref(self) -> Ref {
        Ref::from_arc(self.object)
    }
}

impl<T: HostRefType> Arg for TypedHostRef<T> {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    fn read<R: ArgReader>(reader: &mut R) -> Result<Self> {
        TypedHostRef::new(Ref::read(reader)?)
    }
}

impl<T: HostRefType> ResultValue for TypedHostRef<T> {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    fn into_value(self) -> Value {
        Value::from(self.into_ref())
    }
}

impl<T: HostRefType> iree_vm::native::FromArgs for TypedHostRef<T> {
    fn cconv_types() -> Vec<CconvType> {
        vec![CconvType::Ref]
    }
    fn from_args<R: ArgReader>(reader: &mut R) -> Result<Self> {
        Self::read(reader)
    }
}

impl<T: HostRefType> iree_vm::native::IntoResults for TypedHostRef<T> {
    fn cconv_types() -> Vec<CconvType> {
        vec![CconvType::Ref]
    }
    fn into_results<W: iree_vm::native::ResultWriter>(self, out: &mut W) {
        out.push(self.into_value());
    }
}

/// What a library's module factory is given.
pub struct ModuleParams {
    host: Host,
    params: Vec<(String, String)>,
}

impl ModuleParams {
    /// The host.
    pub fn host(&self) -> Host {
        self.host
    }

    /// The `key=value` parameters (`--module=lib.so@name?key=value&…`).
    pub fn params(&self) -> &[(String, String)] {
        &self.params
    }

    /// The value of parameter `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The library's module object behind a [`ModuleApi`]; the table is its
/// first field and points back at it.
struct ExportedModule {
    api: ModuleApi,
    module: Arc<dyn Module>,
    instance: Arc<Instance>,
    host: Host,
    _dependencies: Vec<DependencyDesc>,
    _imports: Vec<ImportDesc>,
    _exports: Vec<ExportDesc>,
}

/// One context's state of an exported module.
struct ExportedState {
    instance: Arc<dyn ModuleInstance>,
}

/// The entry point's body, used by [`crate::dynamic_module!`].
///
/// # Safety
/// The arguments must be as [`crate::abi::CreateModuleFn`] specifies.
#[doc(hidden)]
pub unsafe fn create_module(
    max_version: u32,
    host: *const HostApi,
    param_count: usize,
    params: *const StringPair,
    out_module: *mut *const ModuleApi,
    status: *const StatusSink,
    factory: impl FnOnce(&ModuleParams) -> Result<Arc<dyn Module>>,
) -> u32 {
    let body = || {
        if max_version != ABI_VERSION {
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!(
                    "unsupported runtime version {max_version:#010x}, module compiled with \
                         version {ABI_VERSION:#010x}"
                ),
            ));
        }
        let Some(api) = NonNull::new(host as *mut HostApi) else {
            return Err(Status::new(StatusCode::InvalidArgument, "no host table"));
        };
        if out_module.is_null() {
            return Err(Status::new(StatusCode::InvalidArgument, "no output module"));
        }
        let host = Host { api };
        let pairs: &[StringPair] = if param_count == 0 || params.is_null() {
            &[]
        } else {
            // SAFETY: the host passes `param_count` pairs.
            unsafe { std::slice::from_raw_parts(params, param_count) }
        };
        let params = ModuleParams {
            host,
            params: pairs
                .iter()
                // SAFETY: the host's strings are valid for the call.
                .map(|p| unsafe { (text(p.key), text(p.value)) })
                .collect(),
        };
        let module = factory(&params)?;
        let exported = export(module, host);
        // SAFETY: checked non-null above.
        unsafe { *out_module = &(*exported).api };
        Ok(())
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

/// Boxes `module` behind a table; freed by `module_destroy`.
fn export(module: Arc<dyn Module>, host: Host) -> *mut ExportedModule {
    // The descriptions point into `module`'s own strings, which live as
    // long as the `Arc` kept beside them.
    let dependencies: Vec<DependencyDesc> = module
        .dependencies()
        .iter()
        .map(|d| DependencyDesc {
            name: StringView::new(&d.name),
            minimum_version: d.minimum_version,
            optional: d.optional as u32,
        })
        .collect();
    let imports: Vec<ImportDesc> = module
        .imports()
        .iter()
        .map(|i| ImportDesc {
            full_name: StringView::new(&i.full_name),
            cconv: StringView::new(&i.cconv),
            optional: i.optional as u32,
        })
        .collect();
    let exports: Vec<ExportDesc> = module
        .exports()
        .iter()
        .map(|e| ExportDesc {
            name: StringView::new(&e.name),
            cconv: StringView::new(&e.cconv),
        })
        .collect();
    let exported = Box::new(ExportedModule {
        api: ModuleApi {
            abi_version: ABI_VERSION,
            module: std::ptr::null_mut(),
            name: StringView::new(module.name()),
            version: module.version(),
            dependencies: dependencies.as_ptr(),
            dependency_count: dependencies.len(),
            imports: imports.as_ptr(),
            import_count: imports.len(),
            exports: exports.as_ptr(),
            export_count: exports.len(),
            create_state: module_create_state,
            destroy_state: module_destroy_state,
            call: module_call,
            notify: module_notify,
            destroy: module_destroy,
        },
        module: module.clone(),
        instance: Instance::new(),
        host,
        _dependencies: dependencies,
        _imports: imports,
        _exports: exports,
    });
    let raw = Box::into_raw(exported);
    // SAFETY: `raw` was just made from a box and is not shared yet.
    unsafe { (*raw).api.module = raw as *mut c_void };
    raw
}

unsafe extern "C" fn module_destroy(module: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: `module` is the box made by `export`, destroyed once.
        drop(unsafe { Box::from_raw(module as *mut ExportedModule) });
    });
}

/// Calls into the host's import table for one state.
struct HostImports {
    host: Host,
    imports: *mut c_void,
    module: ImportsModule,
}

// SAFETY: the host's import table may be used from any thread (ABI).
unsafe impl Send for HostImports {}
// SAFETY: as for Send.
unsafe impl Sync for HostImports {}

/// Describes a state's imports as the exports of a stand-in module, so
/// library code calls them like any resolved import.
struct ImportsModule {
    exports: Vec<ExportInfo>,
}

impl Module for ImportsModule {
    fn name(&self) -> &str {
        "host"
    }
    fn version(&self) -> u32 {
        0
    }
    fn exports(&self) -> &[ExportInfo] {
        &self.exports
    }
    fn instantiate(
        self: Arc<Self>,
        _instance: &Arc<Instance>,
        _imports: Vec<Option<ResolvedImport>>,
    ) -> Result<Arc<dyn ModuleInstance>> {
        Err(Status::new(
            StatusCode::Unimplemented,
            "host imports are not a module of their own",
        ))
    }
}

impl ModuleInstance for HostImports {
    fn module(&self) -> &dyn Module {
        &self.module
    }

    fn call(
        &self,
        _stack: &mut Stack,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        let mut abi_args = values_to_abi(args.iter_mut().map(std::mem::take))?;
        let api = self.host.api();
        let mut collector = Collector {
            host: self.host,
            values: Vec::new(),
            malformed: None,
        };
        let sink = ValueSink {
            context: &mut collector as *mut Collector as *mut c_void,
            push: collect,
        };
        call_with_status(
            || "calling an import".to_string(),
            |status| {
                // SAFETY: the argument handles pass to the host; the sink
                // lives for the call.
                unsafe {
                    (api.call_import)(
                        self.imports,
                        export_ordinal,
                        abi_args.as_mut_ptr(),
                        abi_args.len(),
                        &sink,
                        status,
                    )
                }
            },
        )?;
        if let Some(e) = collector.malformed {
            return Err(e);
        }
        results.extend(collector.values);
        Ok(CallStatus::Done)
    }
}

unsafe extern "C" fn module_create_state(
    module: *mut c_void,
    imports: *mut c_void,
    import_resolved: *const u8,
    import_count: usize,
    out_state: *mut *mut c_void,
    status: *const StatusSink,
) -> u32 {
    let body = || {
        // SAFETY: `module` is the live box made by `export`.
        let exported = unsafe { &*(module as *const ExportedModule) };
        let declared = exported.module.imports();
        if import_count != declared.len() || (import_count > 0 && import_resolved.is_null()) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "host resolved {import_count} imports but the module declares {}",
                    declared.len()
                ),
            ));
        }
        let resolved: &[u8] = if import_count == 0 {
            &[]
        } else {
            // SAFETY: `import_count` bytes, checked non-null above.
            unsafe { std::slice::from_raw_parts(import_resolved, import_count) }
        };
        let host_imports: Arc<dyn ModuleInstance> = Arc::new(HostImports {
            host: exported.host,
            imports,
            module: ImportsModule {
                exports: declared
                    .iter()
                    .map(|i| ExportInfo {
                        name: i.full_name.clone(),
                        cconv: i.cconv.clone(),
                        attrs: Vec::new(),
                    })
                    .collect(),
            },
        });
        let resolved_imports = resolved
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                (r != 0).then(|| ResolvedImport {
                    instance: host_imports.clone(),
                    export_ordinal: i as u32,
                })
            })
            .collect();
        let instance = exported
            .module
            .clone()
            .instantiate(&exported.instance, resolved_imports)?;
        let state = Box::new(ExportedState { instance });
        // SAFETY: the host passes a writable output.
        unsafe { *out_state = Box::into_raw(state) as *mut c_void };
        Ok(())
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

unsafe extern "C" fn module_destroy_state(_module: *mut c_void, state: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        if !state.is_null() {
            // SAFETY: `state` is a box made by `module_create_state`,
            // destroyed once.
            drop(unsafe { Box::from_raw(state as *mut ExportedState) });
        }
    });
}

unsafe extern "C" fn module_call(
    module: *mut c_void,
    state: *mut c_void,
    ordinal: u32,
    args: *mut AbiValue,
    arg_count: usize,
    results: *const ValueSink,
    status: *const StatusSink,
) -> u32 {
    // SAFETY: `module` is the live box made by `export`.
    let host = unsafe { &*(module as *const ExportedModule) }.host;
    // Take every argument handle first, so none leaks on any error.
    // SAFETY: the host passes ownership of `arg_count` values.
    let args = unsafe { values_from_abi(host, args, arg_count) };
    let body = || {
        let mut args = args?;
        // SAFETY: `state` is a live box made by `module_create_state`.
        let state = unsafe { &*(state as *const ExportedState) };
        let mut values = Vec::new();
        let mut stack = Stack::new();
        match state
            .instance
            .call(&mut stack, ordinal, &mut args, &mut values)?
        {
            CallStatus::Done => {}
            CallStatus::Deferred => {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    "dynamic module functions cannot yield",
                ))
            }
        }
        let out = values_to_abi(values)?;
        // SAFETY: the host's sink is valid for the call.
        let sink = unsafe { &*results };
        for v in out {
            // SAFETY: the sink's function, called as the ABI specifies.
            unsafe { (sink.push)(sink.context, v) };
        }
        Ok(())
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

unsafe extern "C" fn module_notify(
    _module: *mut c_void,
    state: *mut c_void,
    signal: i32,
    status: *const StatusSink,
) -> u32 {
    let body = || {
        // SAFETY: `state` is a live box made by `module_create_state`.
        let state = unsafe { &*(state as *const ExportedState) };
        state.instance.notify(signal)
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

/// Converts library values for the host; refs must be host objects and
/// are passed as new owned handles. Everything is checked before any handle
/// is made, so a failure leaves none behind.
fn values_to_abi(values: impl IntoIterator<Item = Value>) -> Result<Vec<AbiValue>> {
    let values: Vec<Value> = values.into_iter().collect();
    for v in &values {
        match v {
            Value::I32(_) | Value::I64(_) | Value::F32(_) | Value::F64(_) | Value::Ref(None) => {}
            Value::Ref(Some(r)) if r.downcast::<HostRef>().is_some() => {}
            Value::Ref(Some(r)) => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "a '{}' made inside a dynamic module cannot be passed to the host; only \
                         host objects (refs the module received, or made through a host \
                         extension) can",
                        r.ref_type().name()
                    ),
                ))
            }
            other => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!("{other:?} cannot be passed to the host"),
                ))
            }
        }
    }
    Ok(values
        .into_iter()
        .map(|v| {
            let (kind, bits, handle) = match v {
                Value::I32(v) => (VALUE_I32, v as u32 as u64, std::ptr::null_mut()),
                Value::I64(v) => (VALUE_I64, v as u64, std::ptr::null_mut()),
                Value::F32(v) => (VALUE_F32, v.to_bits() as u64, std::ptr::null_mut()),
                Value::F64(v) => (VALUE_F64, v.to_bits(), std::ptr::null_mut()),
                Value::Ref(r) => (
                    VALUE_REF,
                    0,
                    r.as_ref()
                        .and_then(|r| r.downcast::<HostRef>())
                        .map_or(std::ptr::null_mut(), HostRef::retain_handle),
                ),
                // Checked above.
                _ => (VALUE_I32, 0, std::ptr::null_mut()),
            };
            AbiValue { kind, bits, handle }
        })
        .collect())
}

/// Takes ownership of `count` host values as library values; every handle
/// is consumed even when a value is malformed.
///
/// # Safety
/// `values` must point at `count` values whose handles are null or owned
/// handles of `host`.
unsafe fn values_from_abi(host: Host, values: *mut AbiValue, count: usize) -> Result<Vec<Value>> {
    if count == 0 || values.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: forwarded from the caller.
    let values = unsafe { std::slice::from_raw_parts(values, count) };
    let mut out = Vec::with_capacity(count);
    let mut error = None;
    for v in values {
        // SAFETY: forwarded from the caller.
        match unsafe { value_from_abi(host, *v) } {
            Ok(v) => out.push(v),
            Err(e) => error = error.or(Some(e)),
        }
    }
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// # Safety
/// A ref value's handle must be null or an owned handle of `host`.
unsafe fn value_from_abi(host: Host, v: AbiValue) -> Result<Value> {
    Ok(match v.kind {
        VALUE_I32 => Value::I32(v.bits as u32 as i32),
        VALUE_I64 => Value::I64(v.bits as i64),
        VALUE_F32 => Value::F32(f32::from_bits(v.bits as u32)),
        VALUE_F64 => Value::F64(f64::from_bits(v.bits)),
        // SAFETY: forwarded from the caller.
        VALUE_REF => Value::Ref(unsafe { HostRef::from_handle(host, v.handle) }.map(Ref::new)),
        kind => {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("host passed a value of unknown kind {kind}"),
            ))
        }
    })
}

/// Collects the results the host pushes for an import call.
struct Collector {
    host: Host,
    values: Vec<Value>,
    malformed: Option<Status>,
}

unsafe extern "C" fn collect(context: *mut c_void, value: AbiValue) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: `context` is the collector lent for the call.
        let collector = unsafe { &mut *(context as *mut Collector) };
        // SAFETY: the host passes ownership of the value's handle.
        match unsafe { value_from_abi(collector.host, value) } {
            Ok(v) => collector.values.push(v),
            Err(e) => collector.malformed = collector.malformed.take().or(Some(e)),
        }
    }));
}
