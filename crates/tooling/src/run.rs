//! `iree-run-module`'s job: load modules, build a context, parse inputs,
//! invoke one function and print its results exactly as upstream does.
//!
//! The flow and the error annotations follow upstream's tool so that failures
//! read the same: `loading modules and dependencies`, `creating VM context`,
//! `looking up function '…'`, `creating run context`, `parsing function
//! inputs`, `invoking function '…'`, and the function's ABI declaration.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::collections::HashMap;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{
    BufferParams, BufferUsage, BufferView, Device, DriverRegistry, EncodingType, Fence, MemoryType,
};
use iree_hal_cuda::CudaDriver;
pub use iree_hal_gpu::{GpuOptions, Recording};
use iree_hal_hip::HipDriver;
pub use iree_hal_local::TaskTopologyOptions;
use iree_hal_local::{LocalSyncDriver, LocalTaskDriver};
use iree_io_parameters::FileMode;
use iree_modules_hal::dynamic::BufferViewHost;
use iree_modules_hal::{HalBufferView, HalFence};
use iree_vm::buffer::SharedBytes;
use iree_vm::list::List;
use iree_vm::{CconvType, Context, Function, Instance, Module, ModuleInstance, Ref, Value};
use iree_vm_bytecode::BytecodeModule;

use crate::compare::{compare_results, Equality};
use crate::numpy;
use crate::profiling::ProfilingOptions;
use crate::replay::{start_capture, Capture, ReplayCapture};

use crate::scalar;

/// Options of one run, as the flags give them.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// `--module=` values in order; `-` reads standard input, and a shared
    /// library (`lib.so[@export_name][?key=value&…]`) is a dynamic module.
    pub modules: Vec<OsString>,
    /// `--function=`; empty picks the single export.
    pub function: String,
    /// `--input=` values in order (paths in them may hold any bytes).
    pub inputs: Vec<OsString>,
    /// `--device=` URIs; the first serves modules that import `hal`.
    pub devices: Vec<String>,
    /// `--output_max_element_count=` (default 1024).
    pub output_max_element_count: usize,
    /// `--output=` per result (one each when given): empty skips it, `-`
    /// prints it without the `result[i]: ` prefix, `@path`/`+path` write or
    /// append it (`.npy` as a NumPy array, otherwise raw bytes).
    pub outputs: Vec<OsString>,
    /// `--expected_output=` per result; when present results are compared
    /// instead of printed (`(ignored)` skips one).
    pub expected_outputs: Vec<OsString>,
    /// `--equality_mode=` and the `--expected_*` tolerances.
    pub equality: Equality,
    /// `--print_statistics`: the device allocator's statistics on stderr
    /// after the run.
    pub print_statistics: bool,
    /// `--device_profiling_mode`, `--device_profiling_output` and
    /// `--print_device_statistics`.
    pub profiling: ProfilingOptions,
    /// The `--task_*` flags for `local-task` devices.
    pub task_topology: TaskTopologyOptions,
    /// `--parameters=` values (`scope=path` or `path`), in order.
    pub parameters: Vec<OsString>,
    /// `--parameter_mode=`: `file` (map) or `preload` (read up front).
    pub parameter_mode: String,
    /// The `--cuda_*` flags for `cuda` devices.
    pub cuda: GpuOptions,
    /// The `--hip_*` flags for `hip` devices.
    pub hip: GpuOptions,
    /// The `--device_replay_*` flags: a HAL replay capture of the run.
    pub replay: ReplayCapture,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            modules: Vec::new(),
            function: String::new(),
            inputs: Vec::new(),
            devices: Vec::new(),
            output_max_element_count: DEFAULT_OUTPUT_MAX_ELEMENT_COUNT,
            outputs: Vec::new(),
            expected_outputs: Vec::new(),
            equality: Equality::default(),
            print_statistics: false,
            profiling: ProfilingOptions::default(),
            task_topology: TaskTopologyOptions::default(),
            parameters: Vec::new(),
            parameter_mode: "file".to_string(),
            cuda: GpuOptions::default(),
            hip: GpuOptions::default(),
            replay: ReplayCapture::default(),
        }
    }
}

/// Loads a `.vmfb` from a path, or from standard input for `-`.
///
/// A file is read into page-aligned memory: constants the compiler aligned
/// within the file stay aligned in memory, and devices can use them in
/// place (`hal.allocator.import`) instead of copying them.
pub fn load_module(
    instance: &Arc<Instance>,
    path: impl AsRef<Path>,
) -> Result<Arc<BytecodeModule>> {
    let path = path.as_ref();
    let bytes: SharedBytes = if path == Path::new("-") {
        Arc::new(read_stdin("module")?)
    } else {
        iree_runtime::image::read_image(path).map_err(|e| open_error(path, e))?
    };
    BytecodeModule::from_bytes(instance, bytes)
        .annotate_with(|| format!("loading module '{}'", path.display()))
}

/// Reads all of standard input (a `-` path for `what`: "module").
pub fn read_stdin(what: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| {
        Status::new(
            StatusCode::Unavailable,
            format!("reading {what} from stdin: {e}"),
        )
    })?;
    Ok(bytes)
}

/// The status for a file that could not be read, as upstream words it:
/// NOT_FOUND for a missing file, UNAVAILABLE otherwise.
pub fn open_error(path: impl AsRef<Path>, error: std::io::Error) -> Status {
    let code = if error.kind() == std::io::ErrorKind::NotFound {
        StatusCode::NotFound
    } else {
        StatusCode::Unavailable
    };
    Status::new(
        code,
        format!("failed to open file '{}': {error}", path.as_ref().display()),
    )
}

/// A `--module=` value split as upstream splits it:
/// `path[@export_name][?key=value&key=value]`. The export name and the
/// parameters only mean something for dynamic modules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleFlag {
    /// The file (`-` for standard input); any bytes the OS allows.
    pub path: PathBuf,
    /// The dynamic module entry point; empty for the default
    /// (`iree_vm_dynamic_module_create`).
    pub export_name: String,
    /// `key=value` parameters for the dynamic module's factory.
    pub params: Vec<(String, String)>,
}

impl ModuleFlag {
    /// Splits a `--module=` value; the export name and parameters must be
    /// UTF-8 (INVALID_ARGUMENT otherwise), the path may hold any bytes.
    pub fn parse(flag: impl AsRef<OsStr>) -> Result<ModuleFlag> {
        let flag = flag.as_ref();
        let (path, rest) =
            iree_base::os_args::split_once(flag, b'@').unwrap_or((flag, OsStr::new("")));
        let rest = iree_base::os_args::to_text(rest, "--module")?;
        let (export_name, params) = rest.split_once('?').unwrap_or((rest, ""));
        let params = params
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.to_string(), v.to_string())
            })
            .collect();
        Ok(ModuleFlag {
            path: PathBuf::from(path),
            export_name: export_name.to_string(),
            params,
        })
    }
}

/// Loads the module a `--module=` value names: a shared library (`.so`,
/// `.dylib`, `.dll`) as a dynamic module offered `buffer_views`, anything
/// else as bytecode.
pub fn load_module_from_flag(
    instance: &Arc<Instance>,
    flag: &OsStr,
    buffer_views: &Arc<BufferViewHost>,
) -> Result<Arc<dyn Module>> {
    let flag = ModuleFlag::parse(flag)?;
    if iree_vm_dynamic::is_dynamic_library_path(&flag.path) {
        // Libraries built against upstream's C API (`iree_vm_dynamic_module_create`
        // of ABI version 1) run on this process's C API; the others are of
        // this project's own ABI.
        if let Some(module) =
            iree_c_api::dynamic::try_load(instance, &flag.path, &flag.export_name, &flag.params)
                .annotate_with(|| format!("loading dynamic module at '{}'", flag.path.display()))?
        {
            return Ok(module);
        }
        let module = iree_vm_dynamic::load_from_file(
            &flag.path,
            &flag.export_name,
            &flag.params,
            vec![buffer_views.extension()],
        )
        .annotate_with(|| format!("loading dynamic module at '{}'", flag.path.display()))?;
        return Ok(module);
    }
    Ok(load_module(instance, &flag.path)?)
}

/// Picks the only exported function, ignoring `__*` and names containing `$`.
pub fn find_single_export(module: &dyn Module) -> Result<u32> {
    let candidates: Vec<u32> = module
        .exports()
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.name.starts_with("__") && !e.name.contains('$'))
        .map(|(i, _)| i as u32)
        .collect();
    match candidates.as_slice() {
        [one] => Ok(*one),
        [] => Err(Status::new(
            StatusCode::InvalidArgument,
            "no exported functions found in module; at least one must be present",
        )),
        _ => Err(Status::new(
            StatusCode::InvalidArgument,
            "more than one exported function present; --function= must be specified explicitly",
        )),
    }
}

/// The drivers this build provides, with default options.
pub fn driver_registry() -> DriverRegistry {
    driver_registry_with(&RunOptions::default())
}

/// The drivers this build provides, configured by the run's driver flags
/// (`--task_*` for `local-task`, `--cuda_*`, `--hip_*`).
pub fn driver_registry_with(options: &RunOptions) -> DriverRegistry {
    let mut registry = DriverRegistry::new();
    // Registering into an empty registry cannot collide. Drivers are listed
    // in name order, as upstream lists them.
    let _ = registry.register(Arc::new(CudaDriver::with_options(options.cuda)));
    let _ = registry.register(Arc::new(HipDriver::with_options(options.hip)));
    let _ = registry.register(Arc::new(LocalSyncDriver));
    let _ = registry.register(Arc::new(LocalTaskDriver::with_options(
        options.task_topology.clone(),
    )));
    registry
}

/// The device URI used when no `--device=` is given (upstream's default).
pub const DEFAULT_DEVICE: &str = "local-task";

/// What a run needs: the context, the function and the device (when a module
/// uses the HAL).
pub struct RunContext {
    /// The VM context.
    pub context: Context,
    /// The function to run.
    pub function: Function,
    /// The device serving the `hal` module, if any module imports it.
    pub device: Option<Arc<dyn Device>>,
}

/// Builds the context and resolves the function to run. When a module
/// depends on `hal`, a device is created from the first `--device=` and the
/// `hal` module is registered ahead of the user modules.
pub fn create_run_context(options: &RunOptions) -> Result<RunContext> {
    create_run_context_with(options, None)
}

/// As [`create_run_context`], but modules that import `hal` get `device`
/// instead of one created from `--device=` (embedders, and tests that drive
/// a device they built themselves).
pub fn create_run_context_on(options: &RunOptions, device: Arc<dyn Device>) -> Result<RunContext> {
    create_run_context_with(options, Some(device))
}

fn create_run_context_with(
    options: &RunOptions,
    given_device: Option<Arc<dyn Device>>,
) -> Result<RunContext> {
    let LoadedContext {
        context,
        device,
        main,
        main_instance: instance,
    } = load_context(options, given_device)?;
    let ordinal = if options.function.is_empty() {
        find_single_export(&*main)?
    } else {
        main.lookup_export(&options.function)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!("no function `{}` exported by module", options.function),
                )
            })
            .annotate_with(|| format!("looking up function '{}'", options.function))?
    };
    Ok(RunContext {
        context,
        function: Function::new(instance, ordinal),
        device,
    })
}

/// A context of the `--module=` modules and their system modules.
pub struct LoadedContext {
    /// The VM context.
    pub context: Context,
    /// The device serving `hal`, if any module depends on it.
    pub device: Option<Arc<dyn Device>>,
    /// The last `--module=`, whose functions the tools call.
    pub main: Arc<dyn Module>,
    /// `main`'s instance in `context`.
    pub main_instance: Arc<dyn ModuleInstance>,
}

/// Loads the `--module=` files and builds their context ([`load_modules`],
/// [`create_context`]); `hal` runs on `device` when given, else on a device
/// created from the first `--device=`.
pub fn load_context(
    options: &RunOptions,
    device: Option<Arc<dyn Device>>,
) -> Result<LoadedContext> {
    let instance = Instance::new();
    iree_modules_hal::register_types(&instance)?;
    let modules = load_modules(&instance, options)?;
    let main = modules.last().cloned().ok_or_else(no_user_module)?;
    let (context, device) = create_context(instance, modules, options, device, &[])?;
    let main_instance = main_instance(&context, &main)?;
    Ok(LoadedContext {
        context,
        device,
        main,
        main_instance,
    })
}

/// The error for a run without `--module=`.
pub fn no_user_module() -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        "no user module specified; use --module=file.vmfb to load from a file or --module=- to load from stdin",
    )
}

/// Loads the `--module=` files in order (the last is the main module).
pub fn load_modules(
    instance: &Arc<Instance>,
    options: &RunOptions,
) -> Result<Vec<Arc<dyn Module>>> {
    // Dynamic modules read and make buffer views through this extension
    // (host heap memory, which the local devices use in place).
    let buffer_views = BufferViewHost::new();
    let mut modules: Vec<Arc<dyn Module>> = Vec::new();
    for flag in &options.modules {
        modules.push(
            load_module_from_flag(instance, flag, &buffer_views)
                .annotate("loading modules and dependencies")?,
        );
    }
    Ok(modules)
}

/// Builds a context of `modules` (user modules, in dependency order) and
/// the system modules they depend on, created in the order their
/// dependencies are first named (as upstream resolves them): `hal` on
/// `device` or, when none is given, on a device created from the first
/// `--device=`; `hal_inline` and `hal_loader` for the inline execution
/// models (no device); `io_parameters` from `--parameters=`; and any module
/// of `provided` (a tool's own, such as `check`) by its name. Traces go to
/// stderr, as upstream's tools print them. Returns the
/// context and the device serving `hal`, if any module depends on it.
pub fn create_context(
    instance: Arc<Instance>,
    modules: Vec<Arc<dyn Module>>,
    options: &RunOptions,
    device: Option<Arc<dyn Device>>,
    provided: &[Arc<dyn Module>],
) -> Result<(Context, Option<Arc<dyn Device>>)> {
    let mut created: Option<Arc<dyn Device>> = None;
    let mut system = iree_runtime::system_modules(
        &modules,
        || {
            let hal_device = match &device {
                Some(given) => given.clone(),
                None => {
                    let uri = options
                        .devices
                        .first()
                        .map(String::as_str)
                        .unwrap_or(DEFAULT_DEVICE);
                    driver_registry_with(options)
                        .create_device(uri)
                        .annotate("creating VM context")?
                }
            };
            created = Some(hal_device.clone());
            Ok(hal_device)
        },
        || {
            let mode = FileMode::parse(&options.parameter_mode).annotate("creating VM context")?;
            iree_io_parameters::providers_from_flags(&options.parameters, mode)
                .annotate("creating VM context")
        },
        provided,
        Some(iree_modules_hal::stderr_debug_sink()),
    )?;
    let device = created;
    system.extend(modules);
    let context = Context::with_modules(instance, system).annotate("creating VM context")?;
    Ok((context, device))
}

/// The instance of `main` (a module registered in `context`).
pub fn main_instance(context: &Context, main: &Arc<dyn Module>) -> Result<Arc<dyn ModuleInstance>> {
    context
        .modules()
        .iter()
        .rev()
        .find(|m| std::ptr::addr_eq(m.module() as *const dyn Module, Arc::as_ptr(main)))
        .cloned()
        .ok_or_else(|| Status::new(StatusCode::Internal, "main module missing from context"))
}

/// Parses `--input=` texts into argument values following the cconv, in
/// upstream's order of checks: empty text, `(null)`/`(ignored)`, file forms
/// (`@`, `+`, `*`), output storage (`&`), primitives, then tensors. Tensors
/// and `.npy` arrays become buffer views on `device`.
pub fn parse_inputs(
    args: &[CconvType],
    inputs: &[impl AsRef<OsStr>],
    device: Option<&Arc<dyn Device>>,
) -> Result<Vec<Value>> {
    Ok(parse_values(args, inputs, device)?
        .into_iter()
        .map(|(value, _)| value)
        .collect())
}

/// Parses `--expected_output=` texts against the result types; `(ignored)`
/// (and `(null)`) become `None`, which matches any result.
pub fn parse_expected_outputs(
    results: &[CconvType],
    texts: &[impl AsRef<OsStr>],
    device: Option<&Arc<dyn Device>>,
) -> Result<Vec<Option<Value>>> {
    Ok(parse_values(results, texts, device)?
        .into_iter()
        .map(|(value, ignored)| (!ignored).then_some(value))
        .collect())
}

/// Parses texts into values, each with whether it was `(null)`/`(ignored)`.
fn parse_values(
    types: &[CconvType],
    texts: &[impl AsRef<OsStr>],
    device: Option<&Arc<dyn Device>>,
) -> Result<Vec<(Value, bool)>> {
    let mut parser = InputParser {
        device,
        streams: HashMap::new(),
        values: Vec::with_capacity(texts.len()),
        ignored: Vec::new(),
    };
    let mut next = types.iter();
    for text in texts {
        let text = text.as_ref();
        match text.to_str() {
            Some(text) => {
                let text = text.trim();
                parser
                    .parse(&mut next, text)
                    .annotate_with(|| format!("parsing input `{text}`"))?;
            }
            None => parser
                .parse_with_path(&mut next, text)
                .annotate_with(|| format!("parsing input `{}`", text.to_string_lossy()))?,
        }
    }
    let mut ignored = vec![false; parser.values.len()];
    for i in parser.ignored {
        ignored[i] = true;
    }
    Ok(parser.values.into_iter().zip(ignored).collect())
}

struct InputParser<'a> {
    device: Option<&'a Arc<dyn Device>>,
    /// Open files, for `+` (continue) and `*` (all remaining).
    streams: HashMap<PathBuf, std::io::BufReader<std::fs::File>>,
    values: Vec<Value>,
    /// Indices into `values` given as `(null)` or `(ignored)`.
    ignored: Vec<usize>,
}

/// Checks that an argument slot takes a reference, as upstream's
/// `consume_cconv(cconv, 'r')`.
fn expect_ref(ty: &CconvType) -> Result<()> {
    let found = match ty {
        CconvType::Ref => return Ok(()),
        CconvType::I32 => 'i',
        CconvType::I64 => 'I',
        CconvType::F32 => 'f',
        CconvType::F64 => 'F',
        CconvType::Variadic(_) => 'C',
    };
    Err(Status::new(
        StatusCode::InvalidArgument,
        format!("function signature mismatch: expected cconv type `r` but provided type `{found}`"),
    ))
}

fn consume<'a>(next: &mut std::slice::Iter<'a, CconvType>) -> Result<&'a CconvType> {
    next.next().ok_or_else(|| {
        Status::new(
            StatusCode::InvalidArgument,
            "function expected fewer input values",
        )
    })
}

impl InputParser<'_> {
    /// Opens `path` fresh (`@`) or continues an open stream (`+`, `*`).
    fn stream(
        &mut self,
        path: &Path,
        fresh: bool,
    ) -> Result<&mut std::io::BufReader<std::fs::File>> {
        if fresh || !self.streams.contains_key(path) {
            let file = std::fs::File::open(path).map_err(|e| {
                Status::new(
                    StatusCode::Unknown,
                    format!("unable to open file `{}` with mode 2: {e}", path.display()),
                )
            })?;
            self.streams
                .insert(path.to_path_buf(), std::io::BufReader::new(file));
        }
        Ok(self.streams.get_mut(path).expect("inserted above"))
    }

    /// An input that is not UTF-8: only the forms holding a path can be
    /// (`@x.npy`, `+x.npy`, `*x.npy`, `4xf32=@x.bin`, `4xf32=+x.bin`);
    /// anything else is INVALID_ARGUMENT.
    fn parse_with_path(
        &mut self,
        next: &mut std::slice::Iter<'_, CconvType>,
        text: &OsStr,
    ) -> Result<()> {
        for mode in ['@', '+', '*'] {
            if let Some(path) =
                iree_base::os_args::strip_prefix(text, mode.encode_utf8(&mut [0; 4]))
            {
                return self.parse_npy(next, mode, Path::new(path));
            }
        }
        if let Some((head, tail)) = iree_base::os_args::split_once(text, b'=') {
            for mode in ['@', '+'] {
                if let Some(path) =
                    iree_base::os_args::strip_prefix(tail, mode.encode_utf8(&mut [0; 4]))
                {
                    let head = iree_base::os_args::to_text(head, "--input")?;
                    expect_ref(consume(next)?)?;
                    let view = self.parse_raw_tensor(head, mode, Path::new(path))?;
                    self.values.push(Value::from(Ref::new(HalBufferView(view))));
                    return Ok(());
                }
            }
        }
        iree_base::os_args::to_text(text, "--input").map(|_| ())
    }

    /// `@path` (one array), `+path` (the next array of an open stream) or
    /// `*path` (every remaining array) of a `.npy` file.
    fn parse_npy(
        &mut self,
        next: &mut std::slice::Iter<'_, CconvType>,
        mode: char,
        path: &Path,
    ) -> Result<()> {
        if !path.as_os_str().as_encoded_bytes().ends_with(b".npy") {
            return Err(Status::new(
                StatusCode::Unimplemented,
                "only numpy (.npy) files are supported for metadata-less variant I/O",
            ));
        }
        let allocator = self.allocator();
        let stream = self.stream(path, mode == '@')?;
        // Each array's data is read straight into its device buffer.
        let mut views = Vec::new();
        loop {
            let Some(header) = numpy::read_header(stream)? else {
                if views.is_empty() && mode != '*' {
                    return Err(Status::new(StatusCode::OutOfRange, "end-of-file"));
                }
                break;
            };
            let buffer = allocate_input(&*allocator, header.byte_length)?;
            buffer.map_write(0, header.byte_length as u64, |bytes| {
                numpy::read_data_into(stream, bytes)
            })??;
            views.push(BufferView::new(
                buffer,
                header.shape,
                header.element_type,
                EncodingType::DENSE_ROW_MAJOR,
            )?);
            if mode != '*' {
                break;
            }
        }
        for view in views {
            expect_ref(consume(next)?)?;
            self.values.push(Value::from(Ref::new(HalBufferView(view))));
        }
        Ok(())
    }

    /// `head=@path` / `head=+path`: a tensor of `head`'s shape and type
    /// whose bytes are read from a raw file, from its start (`@`) or where
    /// the last read of it stopped (`+`).
    fn parse_raw_tensor(&mut self, head: &str, mode: char, path: &Path) -> Result<BufferView> {
        let (shape, element_type) = iree_hal::parse_shape_and_element_type(head)?;
        let size =
            iree_hal::compute_view_size(&shape, element_type, EncodingType::DENSE_ROW_MAJOR)?;
        let buffer = self.allocate(size)?;
        let stream = self.stream(path, mode == '@')?;
        buffer
            .map_write(0, size as u64, |bytes| stream.read_exact(bytes))?
            .map_err(|_| {
                Status::new(
                    StatusCode::OutOfRange,
                    "end-of-file encountered during read",
                )
            })?;
        BufferView::new(buffer, shape, element_type, EncodingType::DENSE_ROW_MAJOR)
    }

    /// A zeroed device-local buffer for an input.
    fn allocate(&self, size: usize) -> Result<iree_hal::Buffer> {
        allocate_input(&*self.allocator(), size)
    }

    /// Where input buffers come from: the device's allocator; without a
    /// device (no module uses the HAL) tensors live in host heap memory, as
    /// upstream's tool does.
    fn allocator(&self) -> Arc<dyn iree_hal::Allocator> {
        match self.device {
            Some(device) => device.allocator(),
            None => iree_hal::HeapAllocator::new(),
        }
    }

    fn parse(&mut self, next: &mut std::slice::Iter<'_, CconvType>, text: &str) -> Result<()> {
        if text.is_empty() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "no value specified for input",
            ));
        }
        if text == "(null)" || text == "(ignored)" {
            self.ignored.push(self.values.len());
            // A null passed for a primitive argument arrives as zero.
            self.values.push(match consume(next)? {
                CconvType::I32 => Value::I32(0),
                CconvType::I64 => Value::I64(0),
                CconvType::F32 => Value::F32(0.0),
                CconvType::F64 => Value::F64(0.0),
                _ => Value::NULL,
            });
            return Ok(());
        }
        if let Some(mode) = text.chars().next().filter(|c| matches!(c, '@' | '+' | '*')) {
            return self.parse_npy(next, mode, Path::new(&text[1..]));
        }
        if let Some(storage) = text.strip_prefix('&') {
            // Output storage: a buffer sized (and optionally filled) by a
            // tensor literal, passed without its view metadata.
            expect_ref(consume(next)?)?;
            let view = self.parse_tensor(storage)?;
            let buffer = view.buffer().clone();
            self.values
                .push(Value::from(Ref::new(iree_modules_hal::HalBuffer(buffer))));
            return Ok(());
        }
        let value = match consume(next)? {
            CconvType::I32 => Value::I32(scalar::parse_i32(text)?),
            CconvType::I64 => Value::I64(scalar::parse_i64(text)?),
            CconvType::F32 => Value::F32(scalar::parse_f32(text)?),
            CconvType::F64 => Value::F64(scalar::parse_f64(text)?),
            CconvType::Ref => {
                if !text.contains('=') && !text.contains('x') {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        "invalid tensor specification, requires at least a shape/type (`4x2xf32=...`)",
                    ));
                }
                let view = self.parse_tensor(text)?;
                self.values.push(Value::from(Ref::new(HalBufferView(view))));
                return Ok(());
            }
            CconvType::Variadic(_) => {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    "variadic function arguments are not supported",
                ))
            }
        };
        self.values.push(value);
        Ok(())
    }

    /// A tensor literal as a new buffer view; values after `=` may come from
    /// a raw file (`4xf32=@x.bin` from the start, `=+x.bin` continuing).
    /// Contents are parsed or read straight into the buffer.
    fn parse_tensor(&mut self, text: &str) -> Result<BufferView> {
        if let Some((head, tail)) = text.split_once('=') {
            if let Some(mode) = tail.chars().next().filter(|c| matches!(c, '@' | '+')) {
                return self.parse_raw_tensor(head, mode, Path::new(&tail[1..]));
            }
        }
        let literal = iree_hal::parse_buffer_view_header(text)?;
        let buffer = self.allocate(literal.byte_length)?;
        buffer.map_write(0, literal.byte_length as u64, |bytes| {
            iree_hal::parse_buffer_elements(literal.values, literal.element_type, bytes)
        })??;
        BufferView::new(
            buffer,
            literal.shape,
            literal.element_type,
            EncodingType::DENSE_ROW_MAJOR,
        )
    }
}

/// A zeroed device-local buffer of `size` bytes for an input.
fn allocate_input(allocator: &dyn iree_hal::Allocator, size: usize) -> Result<iree_hal::Buffer> {
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DEFAULT,
        ..Default::default()
    };
    allocator.allocate_buffer(params, size as u64)
}

/// The default `--output_max_element_count`.
pub const DEFAULT_OUTPUT_MAX_ELEMENT_COUNT: usize = 1024;

/// Formats one value the way upstream prints a result (`i32=1`, `(null)`,
/// `vm.list` followed by `child_list[i]: …` lines, `hal.buffer_view`
/// followed by its contents).
pub fn format_value(value: &Value, out: &mut String) {
    format_value_with_budget(value, DEFAULT_OUTPUT_MAX_ELEMENT_COUNT, out)
}

/// As [`format_value`], eliding buffer views past `max_element_count`.
pub fn format_value_with_budget(value: &Value, max_element_count: usize, out: &mut String) {
    match value {
        Value::I8(v) => out.push_str(&scalar::format_scalar_i8(*v)),
        Value::I16(v) => out.push_str(&scalar::format_scalar_i16(*v)),
        Value::I32(v) => out.push_str(&scalar::format_scalar_i32(*v)),
        Value::I64(v) => out.push_str(&scalar::format_scalar_i64(*v)),
        Value::F32(v) => out.push_str(&scalar::format_scalar_f32(*v)),
        Value::F64(v) => out.push_str(&scalar::format_scalar_f64(*v)),
        Value::Ref(None) => out.push_str("(null)"),
        Value::Ref(Some(r)) => {
            out.push_str(r.ref_type().name());
            out.push('\n');
            match r.downcast::<List>() {
                Some(list) => {
                    for (i, element) in list.to_values().iter().enumerate() {
                        out.push_str(&format!("child_list[{i}]: "));
                        format_value_with_budget(element, max_element_count, out);
                        out.push('\n');
                    }
                }
                None => match r.downcast::<HalBufferView>() {
                    Some(view) => match view.0.format(max_element_count) {
                        Ok(text) => out.push_str(&text),
                        Err(e) => out.push_str(&format!("(error printing: {e})")),
                    },
                    // Upstream has printers only for lists and buffer views.
                    None => out.push_str("(no printer)"),
                },
            }
        }
    }
}

/// Runs the function named by `options`; prints to `out`. Returns the exit
/// code on success (0), or the error status.
pub fn run(options: &RunOptions, out: &mut dyn Write) -> Result<i32> {
    let Some(Capture { recorder, device }) =
        start_capture(options).annotate("creating run context")?
    else {
        return run_on(options, None, None, out);
    };
    // A capture marks upstream's scopes: `init` (the device), `execute` (the
    // call with its inputs and outputs) and `deinit` (teardown).
    let result = run_on(options, Some(device), Some(&recorder), out);
    // The run's error comes first; then a failure to write the capture.
    result.and_then(|code| recorder.close().map(|()| code))
}

/// [`run`] on `device` (else one from `--device=`), marking scopes in
/// `recorder`'s capture when one is given.
fn run_on(
    options: &RunOptions,
    device: Option<Arc<dyn Device>>,
    recorder: Option<&Arc<iree_hal_replay::Recorder>>,
    out: &mut dyn Write,
) -> Result<i32> {
    let run = create_run_context_with(options, device).annotate("creating run context")?;
    let profiling = options.profiling.begin(run.device.as_ref());
    let result = profiling.and_then(|session| {
        if let Some(recorder) = recorder {
            recorder.scope_begin("execute");
        }
        let result = run_function(&run, options, out);
        if let Some(recorder) = recorder {
            recorder.scope_end("execute");
        }
        match session {
            // The run's error comes first; then a failure to write the profile.
            Some(session) => result.and_then(|code| session.finish().map(|_| code)),
            None => result,
        }
    });
    let result = match (result, run.function.info().attr("iree.abi.declaration")) {
        (Err(e), Some(decl)) => Err(e.annotate(format!("`{decl}`"))),
        (r, _) => r,
    };
    let device = run.device.clone();
    if let Some(recorder) = recorder {
        recorder.scope_begin("deinit");
    }
    drop(run);
    if let Some(recorder) = recorder {
        recorder.scope_end("deinit");
    }
    if options.print_statistics {
        if let Some(device) = device {
            // After teardown, so every buffer's free is counted (as upstream).
            print_device_statistics(&device);
        }
    }
    result
}

/// Prints `device`'s allocator statistics to stderr, as `--print_statistics`
/// does at exit.
pub fn print_device_statistics(device: &Arc<dyn Device>) {
    eprint!(
        "Device: {}\n{}\n",
        device.id(),
        device.allocator().statistics().format()
    );
}

/// Runs `options.function` of an already created context with
/// `options.inputs`, printing (or checking) results as [`run`] does;
/// returns the exit code.
pub fn run_function(run: &RunContext, options: &RunOptions, out: &mut dyn Write) -> Result<i32> {
    let function = &run.function;
    let cconv = function.cconv()?;
    let mut inputs = parse_inputs(&cconv.args, &options.inputs, run.device.as_ref())
        .annotate("parsing function inputs")?;
    // The coarse-fences ABI takes a wait fence and a signal fence last; run
    // synchronously by passing a reached wait fence and waiting on the other.
    let finish = if function.info().attr("iree.abi.model") == Some("coarse-fences") {
        let finish = Fence::with_new_semaphore();
        inputs.push(Value::from(Ref::new(HalFence(Fence::new()))));
        inputs.push(Value::from(Ref::new(HalFence(finish.clone()))));
        Some(finish)
    } else {
        None
    };
    let name = function.info().name.clone();
    writeln!(out, "EXEC @{name}").map_err(output_error)?;
    out.flush().map_err(output_error)?;
    let outputs = invoke_checked(&run.context, function, &cconv.args, &inputs)
        .annotate_with(|| format!("invoking function '{name}'"))?;
    // Inputs the call did not keep are released before outputs are checked
    // or printed, so their memory is not part of that peak (as upstream).
    drop(inputs);
    if let Some(finish) = finish {
        // A failed fence reaches this waiter as its status code alone (as
        // upstream's semaphores carry failures to other waiters).
        finish
            .wait(None)
            .map_err(|status| Status::from_code(status.code()))
            .annotate("waiting on finish fence")?;
    }
    // One call per run: memory kept for the next call's transients would
    // only add to the peak while results are checked and printed.
    let mut outputs = outputs;
    if let Some(device) = &run.device {
        device.allocator().trim();
        transfer_outputs_to_host(&mut outputs, device.as_ref())
            .annotate("transferring outputs to the host")?;
    }
    process_outputs(&cconv.results, &outputs, options, out)
}

/// Moves result buffers that are not host-local, device-visible and
/// mappable into new buffers that are, as upstream's tools do before
/// processing results: the copies are what upstream's `--print_statistics`
/// counts as host memory. Nothing is copied when every result already is.
pub fn transfer_outputs_to_host(outputs: &mut [Value], device: &dyn Device) -> Result<()> {
    let target = BufferParams {
        memory_type: MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE,
        usage: BufferUsage::TRANSFER | BufferUsage::MAPPING,
        ..Default::default()
    };
    let needs_transfer = |buffer: &iree_hal::Buffer| {
        !buffer.memory_type().contains(target.memory_type)
            || !buffer.allowed_usage().contains(target.usage)
    };
    let view_of = |value: &Value| match value {
        Value::Ref(Some(r)) => r.downcast::<HalBufferView>().map(|v| v.0.clone()),
        _ => None,
    };
    if !outputs
        .iter()
        .filter_map(view_of)
        .any(|view| needs_transfer(view.buffer()))
    {
        return Ok(());
    }
    let allocator = device.allocator();
    for value in outputs.iter_mut() {
        let Some(view) = view_of(value) else { continue };
        let source = view.buffer();
        if !needs_transfer(source) {
            continue;
        }
        // As upstream: the copy is as large as the source's whole
        // allocation (results packed into one allocation each get one).
        let length = source.byte_length();
        let copy = allocator.allocate_buffer(target, source.allocation_size())?;
        // A device transfer, as upstream's tools make it (so a HAL replay
        // capture records a queue copy, which its replay re-runs).
        let mut transfer = iree_hal::CommandBuffer::new(0);
        transfer.copy(
            iree_hal::BindingRef::Direct {
                buffer: source.clone(),
                offset: 0,
                length,
            },
            iree_hal::BindingRef::Direct {
                buffer: copy.clone(),
                offset: 0,
                length,
            },
        )?;
        transfer.finalize()?;
        let done = Fence::with_new_semaphore();
        device.queue_execute(&Fence::new(), &done, Some(&transfer), &[])?;
        done.wait(None)?;
        *value = Value::from(Ref::new(HalBufferView(iree_hal::BufferView::new(
            copy,
            view.shape().to_vec(),
            view.element_type(),
            view.encoding(),
        )?)));
    }
    Ok(())
}

/// What the tools do with a call's results (`outputs`, of types
/// `result_types`): compare them with `--expected_output=` values and print
/// upstream's report (exit code 1 when anything differs), else write them
/// as `--output=` says, or print them all. Returns the exit code.
pub fn process_outputs(
    result_types: &[CconvType],
    outputs: &[Value],
    options: &RunOptions,
    out: &mut dyn Write,
) -> Result<i32> {
    if !options.expected_outputs.is_empty() {
        return check_expected_outputs(result_types, outputs, options, out)
            .annotate("processing function outputs");
    }
    let budget = options.output_max_element_count;
    if options.outputs.is_empty() {
        let mut text = String::new();
        for (i, value) in outputs.iter().enumerate() {
            text.push_str(&format!("result[{i}]: "));
            format_value_with_budget(value, budget, &mut text);
            text.push('\n');
        }
        out.write_all(text.as_bytes()).map_err(output_error)?;
        return Ok(0);
    }
    write_outputs(outputs, &options.outputs, budget, out)
        .annotate("outputting results")
        .annotate("processing function outputs")?;
    Ok(0)
}

/// `--output=` handling, one spec per result in order: empty drops it, `-`
/// prints it, `@path` writes (truncating) and `+path` appends; `.npy` paths
/// get a NumPy array, anything else the raw contents.
fn write_outputs(
    outputs: &[Value],
    specs: &[OsString],
    max_element_count: usize,
    out: &mut dyn Write,
) -> Result<()> {
    if outputs.len() != specs.len() {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!(
                "{} outputs specified but the provided variant list only has {} elements",
                specs.len(),
                outputs.len()
            ),
        ));
    }
    for (value, spec) in outputs.iter().zip(specs) {
        match spec.to_str() {
            Some("") => {}
            Some("-") => {
                let mut text = String::new();
                format_value_with_budget(value, max_element_count, &mut text);
                text.push('\n');
                out.write_all(text.as_bytes()).map_err(output_error)?;
            }
            _ => write_output_file(value, spec)?,
        }
    }
    Ok(())
}

/// Writes one result to the file named by `spec` (`@path` or `+path`; the
/// path may hold any bytes the OS allows).
fn write_output_file(value: &Value, spec: &OsStr) -> Result<()> {
    let (path, append, mode) = match (
        iree_base::os_args::strip_prefix(spec, "@"),
        iree_base::os_args::strip_prefix(spec, "+"),
    ) {
        (Some(path), _) => (Path::new(path), false, 5),
        (None, Some(path)) => (Path::new(path), true, 12),
        (None, None) => {
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!(
                    "unsupported output mode specification '{}'",
                    spec.to_string_lossy()
                ),
            ))
        }
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .append(append)
        .truncate(!append)
        .open(path)
        .map_err(|e| {
            Status::new(
                StatusCode::Unknown,
                format!(
                    "unable to open file `{}` with mode {mode}: {e}",
                    path.display()
                ),
            )
        })?;
    let array = output_array(value)?;
    let mut bytes = Vec::new();
    if path.as_os_str().as_encoded_bytes().ends_with(b".npy") {
        numpy::write_ndarray(&mut bytes, &array)?;
    } else {
        bytes = array.data;
    }
    file.write_all(&bytes).map_err(|e| {
        Status::new(
            StatusCode::Unavailable,
            format!("writing `{}`: {e}", path.display()),
        )
    })
}

/// A result as an array: buffer views as they are, byte buffers as `i8`
/// vectors, primitives as rank-0 arrays, null as an empty `i8` vector.
fn output_array(value: &Value) -> Result<numpy::NdArray> {
    use iree_hal::ElementType;
    let scalar = |element_type: ElementType, data: Vec<u8>| numpy::NdArray {
        shape: Vec::new(),
        element_type,
        data,
    };
    let bytes = |data: Vec<u8>| numpy::NdArray {
        shape: vec![data.len()],
        element_type: ElementType::INT_8,
        data,
    };
    Ok(match value {
        Value::I8(v) => scalar(ElementType::INT_8, v.to_le_bytes().to_vec()),
        Value::I16(v) => scalar(ElementType::INT_16, v.to_le_bytes().to_vec()),
        Value::I32(v) => scalar(ElementType::INT_32, v.to_le_bytes().to_vec()),
        Value::I64(v) => scalar(ElementType::INT_64, v.to_le_bytes().to_vec()),
        Value::F32(v) => scalar(ElementType::FLOAT_32, v.to_le_bytes().to_vec()),
        Value::F64(v) => scalar(ElementType::FLOAT_64, v.to_le_bytes().to_vec()),
        Value::Ref(None) => bytes(Vec::new()),
        Value::Ref(Some(r)) => {
            if let Some(view) = r.downcast::<HalBufferView>() {
                let view = &view.0;
                let length = iree_hal::compute_view_size(
                    view.shape(),
                    view.element_type(),
                    view.encoding(),
                )?;
                let mut data = vec![0u8; length];
                view.buffer().read(0, &mut data)?;
                numpy::NdArray {
                    shape: view.shape().to_vec(),
                    element_type: view.element_type(),
                    data,
                }
            } else if let Some(buffer) = r.downcast::<iree_modules_hal::HalBuffer>() {
                let mut data = vec![0u8; buffer.0.byte_length() as usize];
                buffer.0.read(0, &mut data)?;
                bytes(data)
            } else if let Some(buffer) = r.downcast::<iree_vm::buffer::Buffer>() {
                bytes(buffer.to_vec())
            } else {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    "unsupported output source type; expected: !hal.buffer, !hal.buffer_view, !vm.buffer",
                ));
            }
        }
    })
}

/// Compares results with `--expected_output=` values and prints upstream's
/// report; the exit code is 1 when anything differs.
fn check_expected_outputs(
    result_types: &[CconvType],
    outputs: &[Value],
    options: &RunOptions,
    out: &mut dyn Write,
) -> Result<i32> {
    // Expected values live in host heap memory, outside the device
    // allocator's statistics, as upstream parses them.
    let expected = parse_expected_outputs(result_types, &options.expected_outputs, None)
        .annotate("parsing expected function outputs")?;
    let mut report = String::new();
    let matched = compare_results(&expected, outputs, &options.equality, &mut report)?;
    if matched {
        report.push_str("[SUCCESS] all function outputs matched their expected values.\n");
    }
    out.write_all(report.as_bytes()).map_err(output_error)?;
    Ok(if matched { 0 } else { 1 })
}

/// A failed write to the output stream.
fn output_error(e: std::io::Error) -> Status {
    Status::new(StatusCode::Unavailable, format!("writing output: {e}"))
}

fn invoke_checked(
    context: &Context,
    function: &Function,
    args: &[CconvType],
    inputs: &[Value],
) -> Result<Vec<Value>> {
    if inputs.len() != args.len() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "input list and function mismatch; expected {} arguments but passed {}",
                args.len(),
                inputs.len()
            ),
        ));
    }
    context.invoke(function, inputs)
}
