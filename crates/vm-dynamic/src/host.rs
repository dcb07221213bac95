//! The host side: loading a library's module ([`load_from_file`]) and
//! serving it as an [`iree_vm::Module`].

use std::any::Any;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_vm::{
    invoke, CallStatus, Cconv, ExportInfo, Function, ImportInfo, Instance, Module,
    ModuleDependency, ModuleInstance, Ref, ResolvedImport, Stack, Value,
};

use crate::abi::{
    AbiValue, CreateModuleFn, HostApi, ModuleApi, StatusSink, StringPair, StringView, ValueSink,
    ABI_MARKER_SYMBOL, ABI_VERSION, ENTRY_POINT_NAME, VALUE_F32, VALUE_F64, VALUE_I32, VALUE_I64,
    VALUE_REF,
};
use crate::boundary::{call_with_status, guard, text};

/// A function table the host offers libraries under a name and version
/// (see [`HostApi::lookup_extension`]), such as the `hal.buffer_view`
/// table of `iree-modules-hal`.
pub struct Extension {
    name: String,
    version: u32,
    table: *const c_void,
    _owner: Arc<dyn Any + Send + Sync>,
}

// SAFETY: `table` points into `_owner`, which is Send + Sync, and tables
// are immutable function tables whose functions are thread-safe (the
// contract of `Extension::new`).
unsafe impl Send for Extension {}
// SAFETY: as for Send.
unsafe impl Sync for Extension {}

impl Extension {
    /// An extension `name` at `version` whose `#[repr(C)]` function table is
    /// at `table`.
    ///
    /// # Safety
    /// `table` must stay valid while `owner` lives, and its functions must
    /// be callable from any thread and never unwind.
    pub unsafe fn new(
        name: &str,
        version: u32,
        table: *const c_void,
        owner: Arc<dyn Any + Send + Sync>,
    ) -> Extension {
        Extension {
            name: name.to_string(),
            version,
            table,
            _owner: owner,
        }
    }
}

/// Wraps a ref as an owned ABI handle.
pub fn handle_from_ref(r: Ref) -> *mut c_void {
    Box::into_raw(Box::new(r)) as *mut c_void
}

/// Borrows the ref behind a handle (`None` for null).
///
/// # Safety
/// `handle` must be null or a live handle made by [`handle_from_ref`] (or
/// given to a library by this host), and stay live while the borrow does.
pub unsafe fn ref_from_handle<'a>(handle: *mut c_void) -> Option<&'a Ref> {
    // SAFETY: the caller guarantees a live handle, which is a `Box<Ref>`.
    unsafe { (handle as *const Ref).as_ref() }
}

/// Takes the ref out of an owned handle (`None` for null).
///
/// # Safety
/// `handle` must be null or an owned live handle; it is consumed.
pub unsafe fn take_handle(handle: *mut c_void) -> Option<Ref> {
    if handle.is_null() {
        return None;
    }
    // SAFETY: the caller passes ownership of a `Box<Ref>` handle.
    Some(*unsafe { Box::from_raw(handle as *mut Ref) })
}

unsafe extern "C" fn host_ref_retain(handle: *mut c_void) -> *mut c_void {
    // SAFETY: the ABI requires a live handle.
    match unsafe { ref_from_handle(handle) } {
        Some(r) => handle_from_ref(r.clone()),
        None => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn host_ref_release(handle: *mut c_void) {
    // SAFETY: the ABI passes ownership of a live handle.
    drop(unsafe { take_handle(handle) });
}

unsafe extern "C" fn host_ref_type_name(handle: *mut c_void) -> StringView {
    // SAFETY: the ABI requires a live handle.
    match unsafe { ref_from_handle(handle) } {
        // Type names are `'static`.
        Some(r) => StringView::new(r.ref_type().name()),
        None => StringView::EMPTY,
    }
}

/// The host's side of one loaded module: the table given to the library and
/// the extensions it may look up. Boxed, so the table's address is stable.
struct HostState {
    api: HostApi,
    extensions: Vec<Extension>,
}

unsafe extern "C" fn host_lookup_extension(
    context: *mut c_void,
    name: StringView,
    version: u32,
) -> *const c_void {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `context` is the `HostState` the table belongs to, alive
        // while the library may call it.
        let state = unsafe { &*(context as *const HostState) };
        // SAFETY: the ABI requires a valid name.
        let name = unsafe { text(name) };
        state
            .extensions
            .iter()
            .find(|e| e.name == name && e.version == version)
            .map_or(std::ptr::null(), |e| e.table)
    }))
    .unwrap_or(std::ptr::null())
}

/// What [`HostApi::call_import`] is given for one module state: the imports
/// resolved for it.
struct ImportTable {
    module_name: String,
    imports: Vec<Option<ResolvedImport>>,
    names: Vec<String>,
}

unsafe extern "C" fn host_call_import(
    imports: *mut c_void,
    ordinal: u32,
    args: *mut AbiValue,
    arg_count: usize,
    results: *const ValueSink,
    status: *const StatusSink,
) -> u32 {
    // SAFETY: the ABI passes ownership of `arg_count` values at `args`.
    let args = unsafe { take_values(args, arg_count) };
    let body = || {
        // SAFETY: `imports` is the `ImportTable` of a live state.
        let table = unsafe { &*(imports as *const ImportTable) };
        let name = table
            .names
            .get(ordinal as usize)
            .cloned()
            .unwrap_or_default();
        let resolved = match table.imports.get(ordinal as usize) {
            Some(Some(resolved)) => resolved,
            Some(None) => {
                return Err(Status::new(
                    StatusCode::NotFound,
                    format!("optional import '{name}' is not resolved"),
                ))
            }
            None => {
                return Err(Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "import ordinal {ordinal} out of range for module '{}'",
                        table.module_name
                    ),
                ))
            }
        };
        let function = Function::new(resolved.instance.clone(), resolved.export_ordinal);
        let values =
            invoke(&function, &args?).annotate_with(|| format!("calling import '{name}'"))?;
        // SAFETY: `results` is a valid sink, as the ABI requires.
        unsafe { push_values(results, values) };
        Ok(())
    };
    // SAFETY: `status` is valid or null, as the ABI requires.
    unsafe { guard(status, body) }
}

/// Converts a value for the ABI, moving a ref into an owned handle.
fn value_to_abi(value: Value) -> Result<AbiValue> {
    let (kind, bits, handle) = match value {
        Value::I32(v) => (VALUE_I32, v as u32 as u64, std::ptr::null_mut()),
        Value::I64(v) => (VALUE_I64, v as u64, std::ptr::null_mut()),
        Value::F32(v) => (VALUE_F32, v.to_bits() as u64, std::ptr::null_mut()),
        Value::F64(v) => (VALUE_F64, v.to_bits(), std::ptr::null_mut()),
        Value::Ref(r) => (
            VALUE_REF,
            0,
            r.map_or(std::ptr::null_mut(), handle_from_ref),
        ),
        other => {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("{other:?} cannot be passed to a dynamic module"),
            ))
        }
    };
    Ok(AbiValue { kind, bits, handle })
}

/// Converts a value from the ABI, taking ownership of its handle.
///
/// # Safety
/// A ref value's handle must be null or an owned live handle.
unsafe fn value_from_abi(value: AbiValue) -> Result<Value> {
    Ok(match value.kind {
        VALUE_I32 => Value::I32(value.bits as u32 as i32),
        VALUE_I64 => Value::I64(value.bits as i64),
        VALUE_F32 => Value::F32(f32::from_bits(value.bits as u32)),
        VALUE_F64 => Value::F64(f64::from_bits(value.bits)),
        // SAFETY: forwarded from the caller.
        VALUE_REF => Value::Ref(unsafe { take_handle(value.handle) }),
        kind => {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("dynamic module passed a value of unknown kind {kind}"),
            ))
        }
    })
}

/// Takes ownership of `count` values at `values`; every handle is consumed
/// even when a value is malformed.
///
/// # Safety
/// `values` must point at `count` values (or `count` be 0) whose handles
/// are null or owned live handles.
unsafe fn take_values(values: *mut AbiValue, count: usize) -> Result<Vec<Value>> {
    if count == 0 || values.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: the caller guarantees `count` values.
    let values = unsafe { std::slice::from_raw_parts(values, count) };
    let mut out = Vec::with_capacity(count);
    let mut error = None;
    for v in values {
        // SAFETY: forwarded from the caller.
        match unsafe { value_from_abi(*v) } {
            Ok(v) => out.push(v),
            Err(e) => error = error.or(Some(e)),
        }
    }
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Pushes `values` into a library's sink, passing ref ownership.
///
/// # Safety
/// `sink` must be a valid [`ValueSink`].
unsafe fn push_values(sink: *const ValueSink, values: Vec<Value>) {
    // SAFETY: the caller guarantees a valid sink.
    let sink = unsafe { &*sink };
    for v in values {
        // Only scalars and refs come out of a call; anything else is skipped
        // (and then fails the importer's result check).
        if let Ok(v) = value_to_abi(v) {
            // SAFETY: the sink's function is called as the ABI specifies.
            unsafe { (sink.push)(sink.context, v) };
        }
    }
}

/// Collects the results a library pushes.
struct ResultCollector<'a> {
    results: &'a mut Vec<Value>,
    malformed: Option<Status>,
}

unsafe extern "C" fn collect_result(context: *mut c_void, value: AbiValue) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `context` is the collector lent for the call.
        let collector = unsafe { &mut *(context as *mut ResultCollector<'_>) };
        // SAFETY: the ABI passes ownership of the value's handle.
        match unsafe { value_from_abi(value) } {
            Ok(v) => collector.results.push(v),
            Err(e) => collector.malformed = collector.malformed.take().or(Some(e)),
        }
    }));
}

/// Where a module came from, for messages.
fn describe(label: &str) -> String {
    format!("dynamic module library '{label}'")
}

/// A module served by a library through the ABI.
pub struct DynamicModule {
    api: *const ModuleApi,
    name: String,
    version: u32,
    dependencies: Vec<ModuleDependency>,
    imports: Vec<ImportInfo>,
    exports: Vec<ExportInfo>,
    export_cconvs: Vec<Cconv>,
    label: String,
    // Dropped after the module is destroyed (see `Drop`), in this order:
    // the host table the library may use until then, then the library.
    _host: Box<HostState>,
    _library: Option<libloading::Library>,
}

// SAFETY: the ABI requires a module's functions to be callable from any
// thread; everything else here is owned plain data.
unsafe impl Send for DynamicModule {}
// SAFETY: as for Send.
unsafe impl Sync for DynamicModule {}

impl Drop for DynamicModule {
    fn drop(&mut self) {
        // SAFETY: `api` is the library's live table; every state was
        // destroyed first (each instance holds an `Arc` of this module).
        unsafe { ((*self.api).destroy)((*self.api).module) };
    }
}

impl DynamicModule {
    /// The library path (or label) the module came from.
    pub fn label(&self) -> &str {
        &self.label
    }
}

/// The default entry-point name, or `export_name` when not empty.
fn entry_point_name(export_name: &str) -> &str {
    if export_name.is_empty() {
        ENTRY_POINT_NAME
    } else {
        export_name
    }
}

/// Loads the library at `path` and creates the module its entry point
/// (`export_name`, or [`ENTRY_POINT_NAME`] when empty) makes, passing
/// `params` and offering `extensions`.
///
/// Fails, naming the library, when it cannot be loaded, lacks the entry
/// point or the [`ABI_MARKER_SYMBOL`], was built for another ABI version, or
/// its entry point fails.
pub fn load_from_file(
    path: impl AsRef<std::path::Path>,
    export_name: &str,
    params: &[(String, String)],
    extensions: Vec<Extension>,
) -> Result<Arc<DynamicModule>> {
    let path = path.as_ref();
    let what = describe(&path.to_string_lossy());
    // SAFETY: loading a library runs its initializers; loading a module
    // library is exactly what the user asked for by naming it.
    let library = unsafe { libloading::Library::new(path) }
        .map_err(|e| Status::new(StatusCode::Unavailable, format!("cannot load {what}: {e}")))?;
    let entry_name = entry_point_name(export_name);
    // SAFETY: the marker is declared by the ABI as a `u32` data symbol.
    let marker = unsafe { library.get::<*const u32>(ABI_MARKER_SYMBOL.as_bytes()) };
    let marker = match marker {
        // SAFETY: the symbol is a `u32` static of the library.
        Ok(symbol) => unsafe { std::ptr::read_unaligned(*symbol) },
        Err(_) => {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                format!(
                    "{what} does not export '{ABI_MARKER_SYMBOL}': it was not built as a module \
                     for this runtime's dynamic module ABI (libraries built for upstream IREE's C \
                     ABI cannot be loaded); see docs/native-modules.md"
                ),
            ))
        }
    };
    if marker != ABI_VERSION {
        return Err(Status::new(
            StatusCode::FailedPrecondition,
            format!(
                "{what} was built for dynamic module ABI version {marker:#010x} but this runtime \
                 supports version {ABI_VERSION:#010x}"
            ),
        ));
    }
    // SAFETY: the ABI declares the entry point's signature.
    let entry = unsafe { library.get::<CreateModuleFn>(entry_name.as_bytes()) }.map_err(|e| {
        Status::new(
            StatusCode::NotFound,
            format!("{what} does not export the entry point '{entry_name}': {e}"),
        )
    })?;
    let entry: CreateModuleFn = *entry;
    // SAFETY: `entry` is the library's entry point, and `library` moves
    // into the module so the code stays loaded while it is used.
    unsafe {
        create(
            entry,
            &path.to_string_lossy(),
            params,
            extensions,
            Some(library),
        )
    }
}

/// Creates a module through an entry point linked into this process (a
/// library's entry point obtained some other way, or one defined with
/// [`crate::dynamic_module!`] in the same program, as tests do).
///
/// # Safety
/// `entry` must follow the ABI, and its code stay loaded while the module
/// lives.
pub unsafe fn load_from_entry_point(
    entry: CreateModuleFn,
    label: &str,
    params: &[(String, String)],
    extensions: Vec<Extension>,
) -> Result<Arc<DynamicModule>> {
    // SAFETY: forwarded from the caller.
    unsafe { create(entry, label, params, extensions, None) }
}

/// # Safety
/// As [`load_from_entry_point`].
unsafe fn create(
    entry: CreateModuleFn,
    label: &str,
    params: &[(String, String)],
    extensions: Vec<Extension>,
    library: Option<libloading::Library>,
) -> Result<Arc<DynamicModule>> {
    let what = describe(label);
    let mut host = Box::new(HostState {
        api: HostApi {
            abi_version: ABI_VERSION,
            context: std::ptr::null_mut(),
            ref_retain: host_ref_retain,
            ref_release: host_ref_release,
            ref_type_name: host_ref_type_name,
            lookup_extension: host_lookup_extension,
            call_import: host_call_import,
        },
        extensions,
    });
    host.api.context = &mut *host as *mut HostState as *mut c_void;
    let pairs: Vec<StringPair> = params
        .iter()
        .map(|(k, v)| StringPair {
            key: StringView::new(k),
            value: StringView::new(v),
        })
        .collect();
    let mut api: *const ModuleApi = std::ptr::null();
    call_with_status(
        || format!("creating the module of {what}"),
        |status| {
            // SAFETY: the arguments are valid for the call and `host.api`
            // outlives the module (it is dropped after `destroy`).
            unsafe {
                entry(
                    ABI_VERSION,
                    &host.api,
                    pairs.len(),
                    pairs.as_ptr(),
                    &mut api,
                    status,
                )
            }
        },
    )
    .annotate_with(|| format!("creating the module of {what}"))?;
    if api.is_null() {
        return Err(Status::new(
            StatusCode::Internal,
            format!("{what} reported success but returned no module"),
        ));
    }
    // SAFETY: the library returned a live table.
    let table = unsafe { &*api };
    // From here on the module is destroyed on every path by `DynamicModule`'s
    // drop; build it with empty metadata first.
    let mut module = DynamicModule {
        api,
        name: String::new(),
        version: 0,
        dependencies: Vec::new(),
        imports: Vec::new(),
        exports: Vec::new(),
        export_cconvs: Vec::new(),
        label: label.to_string(),
        _host: host,
        _library: library,
    };
    if table.abi_version != ABI_VERSION {
        return Err(Status::new(
            StatusCode::FailedPrecondition,
            format!(
                "{what} reports dynamic module ABI version {:#010x} but this runtime supports \
                 version {ABI_VERSION:#010x}",
                table.abi_version
            ),
        ));
    }
    // SAFETY: the table's strings and arrays are valid until `destroy`.
    unsafe { read_metadata(table, &mut module) }.annotate_with(|| format!("reading {what}"))?;
    Ok(Arc::new(module))
}

/// A slice from an ABI array.
///
/// # Safety
/// `data` must point at `count` items, or `count` be 0.
unsafe fn items<'a, T>(data: *const T, count: usize, what: &str) -> Result<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("{count} {what} declared but none given"),
        ));
    }
    // SAFETY: forwarded from the caller.
    Ok(unsafe { std::slice::from_raw_parts(data, count) })
}

/// Copies a table's descriptions into `module`, checking cconvs.
///
/// # Safety
/// `table` must be a live library table.
unsafe fn read_metadata(table: &ModuleApi, module: &mut DynamicModule) -> Result<()> {
    // SAFETY: the table's strings are valid until `destroy` (caller).
    let string = |view: StringView| unsafe { text(view) };
    module.name = string(table.name);
    if module.name.is_empty() || module.name.contains('.') {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("invalid module name '{}'", module.name),
        ));
    }
    module.version = table.version;
    // SAFETY: the table's arrays are valid until `destroy` (caller).
    let dependencies =
        unsafe { items(table.dependencies, table.dependency_count, "dependencies") }?;
    for d in dependencies {
        module.dependencies.push(ModuleDependency {
            name: string(d.name),
            minimum_version: d.minimum_version,
            optional: d.optional != 0,
        });
    }
    // SAFETY: as above.
    let imports = unsafe { items(table.imports, table.import_count, "imports") }?;
    for i in imports {
        let import = ImportInfo {
            full_name: string(i.full_name),
            cconv: string(i.cconv),
            optional: i.optional != 0,
        };
        Cconv::parse(&import.cconv).annotate_with(|| format!("import '{}'", import.full_name))?;
        module.imports.push(import);
    }
    // SAFETY: as above.
    let exports = unsafe { items(table.exports, table.export_count, "exports") }?;
    for e in exports {
        let export = ExportInfo {
            name: string(e.name),
            cconv: string(e.cconv),
            attrs: Vec::new(),
        };
        let cconv = Cconv::parse(&export.cconv)
            .annotate_with(|| format!("export '{}.{}'", module.name, export.name))?;
        module.export_cconvs.push(cconv);
        module.exports.push(export);
    }
    Ok(())
}

impl Module for DynamicModule {
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
        let resolved: Vec<u8> = imports.iter().map(|i| i.is_some() as u8).collect();
        let mut table = Box::new(ImportTable {
            module_name: self.name.clone(),
            imports,
            names: self.imports.iter().map(|i| i.full_name.clone()).collect(),
        });
        // SAFETY: the library's table is live while `self` is.
        let api = unsafe { &*self.api };
        let mut state: *mut c_void = std::ptr::null_mut();
        call_with_status(
            || format!("creating the state of module '{}'", self.name),
            |status| {
                // SAFETY: `table` outlives the state (it moves into the
                // instance, which destroys the state first).
                unsafe {
                    (api.create_state)(
                        api.module,
                        &mut *table as *mut ImportTable as *mut c_void,
                        resolved.as_ptr(),
                        resolved.len(),
                        &mut state,
                        status,
                    )
                }
            },
        )
        .annotate_with(|| describe(&self.label))?;
        Ok(Arc::new(DynamicModuleInstance {
            module: self,
            state,
            _imports: table,
        }))
    }
}

/// A library module's state in one context.
pub struct DynamicModuleInstance {
    module: Arc<DynamicModule>,
    state: *mut c_void,
    _imports: Box<ImportTable>,
}

// SAFETY: as for `DynamicModule`: the ABI requires thread-safe functions.
unsafe impl Send for DynamicModuleInstance {}
// SAFETY: as for Send.
unsafe impl Sync for DynamicModuleInstance {}

impl Drop for DynamicModuleInstance {
    fn drop(&mut self) {
        // SAFETY: the state was made by this module's `create_state` and is
        // destroyed once.
        unsafe {
            let api = &*self.module.api;
            (api.destroy_state)(api.module, self.state)
        };
    }
}

impl ModuleInstance for DynamicModuleInstance {
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
        let module = &*self.module;
        let export = module.exports.get(export_ordinal as usize).ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!("export ordinal {export_ordinal} out of range"),
            )
        })?;
        let name = || {
            format!(
                "while invoking dynamic module function {}.{}",
                module.name, export.name
            )
        };
        if let Some(bad) = args
            .iter()
            .find(|v| matches!(v, Value::I8(_) | Value::I16(_)))
        {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("{bad:?} cannot be passed to a dynamic module"),
            ))
            .annotate_with(name);
        }
        let mut abi_args: Vec<AbiValue> = Vec::with_capacity(args.len());
        for v in args.iter_mut() {
            // Checked above: only scalars and refs remain.
            abi_args.push(value_to_abi(std::mem::take(v))?);
        }
        let first = results.len();
        let mut collector = ResultCollector {
            results,
            malformed: None,
        };
        let sink = ValueSink {
            context: &mut collector as *mut ResultCollector<'_> as *mut c_void,
            push: collect_result,
        };
        // SAFETY: the library's table is live while the module is.
        let api = unsafe { &*module.api };
        let outcome = call_with_status(
            || format!("{}.{}", module.name, export.name),
            |status| {
                // SAFETY: the arguments' handles pass to the library; the
                // sink and state are live for the call.
                unsafe {
                    (api.call)(
                        api.module,
                        self.state,
                        export_ordinal,
                        abi_args.as_mut_ptr(),
                        abi_args.len(),
                        &sink,
                        status,
                    )
                }
            },
        );
        let malformed = collector.malformed.take();
        let checked = outcome
            .and_then(|()| malformed.map_or(Ok(()), Err))
            .and_then(|()| {
                Cconv::check_values(
                    &module.export_cconvs[export_ordinal as usize].results,
                    &results[first..],
                    "result",
                )
            });
        if let Err(e) = checked {
            results.truncate(first);
            return Err(e).annotate_with(name);
        }
        Ok(CallStatus::Done)
    }

    fn notify(&self, signal: i32) -> Result<()> {
        // SAFETY: the library's table is live while the module is.
        let api = unsafe { &*self.module.api };
        call_with_status(
            || format!("notifying module '{}'", self.module.name),
            // SAFETY: the state is live.
            |status| unsafe { (api.notify)(api.module, self.state, signal, status) },
        )
    }
}
