//! [`Session`]: a device, the modules loaded on it, and calls into them.

use std::path::Path;
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{Device, Fence};
use iree_io_parameters::ParameterProvider;
use iree_modules_hal::{DebugSink, HalFence};
use iree_vm::{Context, Function, Module, Ref};
use iree_vm_bytecode::BytecodeModule;

use crate::value::Value;
use crate::Instance;

/// One device and the modules loaded on it. Functions are called by name;
/// the VM context is built from the loaded modules (and the system modules
/// they depend on) at the first call after a load, so module state such as
/// globals lives until the next load.
pub struct Session {
    vm: Arc<iree_vm::Instance>,
    device: Arc<dyn Device>,
    modules: Vec<Arc<dyn Module>>,
    /// `scope=path` (or `path`) per parameter file, as `--parameters=`.
    parameters: Vec<std::ffi::OsString>,
    context: Option<Context>,
}

impl Session {
    /// A session on a new device of `device_uri` (`"local-sync"`,
    /// `"local-task"`, `"cuda"`, `"hip"`, optionally with `://index`).
    pub fn new(instance: &Instance, device_uri: &str) -> Result<Session> {
        let device = instance
            .drivers
            .create_device(device_uri)
            .annotate_with(|| format!("creating device '{device_uri}'"))?;
        Ok(Session::with_device(instance, device))
    }

    /// A session on an existing device.
    pub fn with_device(instance: &Instance, device: Arc<dyn Device>) -> Session {
        Session {
            vm: instance.vm.clone(),
            device,
            modules: Vec::new(),
            parameters: Vec::new(),
            context: None,
        }
    }

    /// The session's device.
    pub fn device(&self) -> &Arc<dyn Device> {
        &self.device
    }

    /// Loads a `.vmfb` file, kept in immutable page-aligned memory that
    /// devices use in place (constants are mapped, not copied).
    pub fn load_module_file(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes = crate::image::read_image(&shown).map_err(|e| {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                StatusCode::NotFound
            } else {
                StatusCode::Unavailable
            };
            Status::new(code, format!("failed to open file '{shown}': {e}"))
        })?;
        let module = BytecodeModule::from_bytes(&self.vm, bytes)
            .annotate_with(|| format!("loading module '{shown}'"))?;
        self.add_module(module);
        Ok(())
    }

    /// Loads a `.vmfb` held in memory.
    pub fn load_module_bytes(&mut self, bytes: Vec<u8>) -> Result<()> {
        let module = BytecodeModule::from_bytes(&self.vm, Arc::new(bytes))
            .annotate("loading module from memory")?;
        self.add_module(module);
        Ok(())
    }

    /// Adds a module built in Rust (a native module); later modules may
    /// import its functions.
    pub fn add_module(&mut self, module: Arc<dyn Module>) {
        self.modules.push(module);
        self.context = None;
    }

    /// Makes the parameters in the file at `path` (`.irpa`, `.safetensors`,
    /// `.gguf`) available to modules under `scope` (empty: unscoped).
    pub fn add_parameters(&mut self, scope: &str, path: impl AsRef<Path>) -> Result<()> {
        // `scope=path`, as `--parameters=`; the path keeps any bytes.
        let mut flag = std::ffi::OsString::new();
        if !scope.is_empty() {
            flag.push(scope);
            flag.push("=");
        }
        flag.push(path.as_ref());
        // Index it now, so a bad file is reported here.
        iree_io_parameters::providers_from_flags(std::slice::from_ref(&flag), file_mode()?)?;
        self.parameters.push(flag);
        self.context = None;
        Ok(())
    }

    /// Calls `name`: `module.function`, or a bare function name looked up
    /// in the last loaded module (as `iree-run-module --function=` does).
    /// Functions of the coarse-fences ABI are called like synchronous ones.
    pub fn call(&mut self, name: &str, inputs: &[Value]) -> Result<Vec<Value>> {
        self.call_inner(name, inputs)
            .annotate_with(|| format!("calling '{name}'"))
    }

    fn call_inner(&mut self, name: &str, inputs: &[Value]) -> Result<Vec<Value>> {
        self.context()?;
        let context = self.context.as_ref().expect("built above");
        let function = resolve_function(&self.modules, context, name)?;
        invoke(context, &*self.device, &function, inputs)
    }

    /// The loaded modules, device and parameters as a [`crate::Model`]
    /// that any number of threads call at once.
    pub fn into_model(self) -> Result<crate::Model> {
        let parameters = if self.parameters.is_empty() {
            Vec::new()
        } else {
            iree_io_parameters::providers_from_flags(&self.parameters, file_mode()?)?
        };
        crate::Model::new(self.vm, self.device, self.modules, parameters)
    }

    /// The VM context of the loaded modules, built when first needed
    /// ([`build_context`]).
    fn context(&mut self) -> Result<&Context> {
        if self.context.is_none() {
            let context = build_context(&self.vm, &self.device, &self.modules, || {
                iree_io_parameters::providers_from_flags(&self.parameters, file_mode()?)
            })?;
            self.context = Some(context);
        }
        Ok(self.context.as_ref().expect("built above"))
    }
}

/// A VM context of `modules` (in load order) after the system modules they
/// depend on ([`with_system_modules`]).
pub(crate) fn build_context(
    vm: &Arc<iree_vm::Instance>,
    device: &Arc<dyn Device>,
    modules: &[Arc<dyn Module>],
    parameters: impl FnMut() -> Result<Vec<Arc<dyn ParameterProvider>>>,
) -> Result<Context> {
    let all = with_system_modules(device, modules, parameters)?;
    Context::with_modules(vm.clone(), all).annotate("creating the session's VM context")
}

/// `modules` (in load order) after the system modules they depend on:
/// `hal` on `device`, `io_parameters` over the providers `parameters`
/// returns (called only when a module needs them); buffer-view traces go
/// to stderr, as upstream's sessions print them. Module objects hold no
/// per-context state, so any number of contexts may share these.
pub(crate) fn with_system_modules(
    device: &Arc<dyn Device>,
    modules: &[Arc<dyn Module>],
    parameters: impl FnMut() -> Result<Vec<Arc<dyn ParameterProvider>>>,
) -> Result<Vec<Arc<dyn Module>>> {
    let mut all = system_modules(
        modules,
        || Ok(device.clone()),
        parameters,
        &[],
        Some(iree_modules_hal::stderr_debug_sink()),
    )?;
    all.extend(modules.iter().cloned());
    Ok(all)
}

/// Resolves `module.function`, or a bare name in the last of `modules`, to
/// its function in `context`.
pub(crate) fn resolve_function(
    modules: &[Arc<dyn Module>],
    context: &Context,
    name: &str,
) -> Result<Function> {
    let (module, function) = match name.split_once('.') {
        Some((module, function)) if modules.iter().any(|m| m.name() == module) => {
            (modules.iter().rev().find(|m| m.name() == module), function)
        }
        _ => (modules.last(), name),
    };
    let module = module
        .cloned()
        .ok_or_else(|| Status::new(StatusCode::FailedPrecondition, "no module is loaded"))?;
    let ordinal = module.lookup_export(function).ok_or_else(|| {
        Status::new(
            StatusCode::NotFound,
            format!(
                "no function `{function}` exported by module '{}'",
                module.name()
            ),
        )
    })?;
    let instance = context
        .modules()
        .iter()
        .rev()
        .find(|m| std::ptr::addr_eq(m.module() as *const dyn Module, Arc::as_ptr(&module)))
        .cloned()
        .ok_or_else(|| Status::new(StatusCode::Internal, "module missing from its context"))?;
    Ok(Function::new(instance, ordinal))
}

/// Calls `function` of `context` with `inputs` (tensors placed where
/// `device` can use them); functions of the coarse-fences ABI are called
/// like synchronous ones.
pub(crate) fn invoke(
    context: &Context,
    device: &dyn Device,
    function: &Function,
    inputs: &[Value],
) -> Result<Vec<Value>> {
    start_invoke(context, device, function, inputs)?.finish()
}

/// A call whose VM part has returned: its results, and for functions of
/// the coarse-fences ABI the fence that signals when they are ready.
pub(crate) struct Started {
    results: Vec<iree_vm::Value>,
    finish: Option<Fence>,
}

impl Started {
    /// The results, once ready (waits on the signal fence).
    pub(crate) fn finish(self) -> Result<Vec<Value>> {
        if let Some(finish) = &self.finish {
            finish
                .wait(None)
                .annotate("waiting on the call's signal fence")?;
        }
        self.results.into_iter().map(Value::from_vm).collect()
    }

    /// Calls `done` with the results once they are ready: at once for a
    /// synchronous function, else from whichever thread signals (or fails)
    /// the call's signal fence; no thread waits meanwhile.
    pub(crate) fn on_finish(self, done: impl FnOnce(Result<Vec<Value>>) + Send + 'static) {
        let Started { results, finish } = self;
        let convert = move || results.into_iter().map(Value::from_vm).collect();
        match finish {
            None => done(convert()),
            Some(finish) => finish.notify(Box::new(move |outcome| {
                done(
                    outcome
                        .annotate("waiting on the call's signal fence")
                        .and_then(|()| convert()),
                )
            })),
        }
    }
}

/// The VM part of [`invoke`]: returns as soon as `function` does, with the
/// fence a coarse-fences function signals when its results are ready.
pub(crate) fn start_invoke(
    context: &Context,
    device: &dyn Device,
    function: &Function,
    inputs: &[Value],
) -> Result<Started> {
    let cconv = function.cconv()?;
    let mut args: Vec<iree_vm::Value> = inputs
        .iter()
        .map(|value| match value {
            Value::Tensor(t) => Value::Tensor(t.to_device(device)?).into_vm(),
            other => other.clone().into_vm(),
        })
        .collect::<Result<_>>()?;
    let finish = if function.info().attr("iree.abi.model") == Some("coarse-fences") {
        let finish = Fence::with_new_semaphore();
        args.push(iree_vm::Value::from(Ref::new(HalFence(Fence::new()))));
        args.push(iree_vm::Value::from(Ref::new(HalFence(finish.clone()))));
        Some(finish)
    } else {
        None
    };
    if args.len() != cconv.args.len() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "the function takes {} arguments but {} were given",
                cconv.args.len() - if finish.is_some() { 2 } else { 0 },
                inputs.len()
            ),
        ));
    }
    iree_vm::Cconv::check_values(&cconv.args, &args, "argument")?;
    let results = context.invoke(function, &args)?;
    Ok(Started { results, finish })
}

/// The system modules that `modules` depend on and do not provide
/// themselves, in the order their dependencies are first named (as
/// upstream resolves them): `hal` on the device `hal_device` returns;
/// for the inline execution models `hal_inline` (on a host heap allocator)
/// and `hal_loader` (with the local executable loaders); `io_parameters`
/// over the providers `parameters` returns; and any module of `provided`
/// (a tool's own, such as `check`) by its name. Buffer-view traces of
/// `hal` and `hal_inline` go to `debug_sink` (none: dropped). Each closure
/// runs only when its module is needed. `hal` and `hal_inline` exclude each
/// other (FAILED_PRECONDITION, as upstream's tools). Dependencies nothing
/// provides are left for the context to report (or skip, when optional).
pub fn system_modules(
    modules: &[Arc<dyn Module>],
    mut hal_device: impl FnMut() -> Result<Arc<dyn Device>>,
    mut parameters: impl FnMut() -> Result<Vec<Arc<dyn ParameterProvider>>>,
    provided: &[Arc<dyn Module>],
    debug_sink: Option<DebugSink>,
) -> Result<Vec<Arc<dyn Module>>> {
    let inline_conflict = || {
        Status::new(
            StatusCode::FailedPrecondition,
            "inline HAL module cannot be used with other primary HAL module types",
        )
    };
    let mut system: Vec<Arc<dyn Module>> = Vec::new();
    let mut resolved: Vec<&str> = Vec::new();
    for dependency in modules.iter().flat_map(|m| m.dependencies()) {
        let name = dependency.name.as_str();
        if resolved.contains(&name) || modules.iter().any(|m| m.name() == name) {
            continue;
        }
        match name {
            "hal" if resolved.contains(&"hal_inline") => return Err(inline_conflict()),
            "hal" => system.push(iree_modules_hal::create_hal_module_with_debug_sink(
                vec![hal_device()?],
                debug_sink.clone(),
            )?),
            "hal_inline" if resolved.contains(&"hal") => return Err(inline_conflict()),
            "hal_inline" | "hal_loader" => system.push(
                inline_system_module(name, debug_sink.clone()).expect("an inline module name")?,
            ),
            "io_parameters" => system.push(iree_io_parameters::create_io_parameters_module(
                parameters()?,
            )?),
            _ => match provided.iter().find(|m| m.name() == name) {
                Some(module) => system.push(module.clone()),
                None => continue,
            },
        }
        resolved.push(name);
    }
    Ok(system)
}

/// The module of the inline execution models named `name`, which needs
/// no device: `hal_inline` (buffers on a host heap allocator, traces to
/// `debug_sink`) or `hal_loader` (the local executable loaders); None for
/// any other name.
pub fn inline_system_module(
    name: &str,
    debug_sink: Option<iree_modules_hal::DebugSink>,
) -> Option<Result<Arc<dyn Module>>> {
    Some(match name {
        "hal_inline" => iree_modules_hal_inline::create_hal_inline_module(
            iree_hal::HeapAllocator::new(),
            debug_sink,
        ),
        "hal_loader" => {
            iree_modules_hal_loader::create_hal_loader_module(iree_hal_local::default_loaders())
        }
        _ => return None,
    })
}

/// Parameter files are mapped, as `--parameter_mode=file` does.
fn file_mode() -> Result<iree_io_parameters::FileMode> {
    iree_io_parameters::FileMode::parse("file")
}
