//! [`Context`]: an ordered set of module instances with imports resolved.

use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};

use crate::instance::Instance;
use crate::invocation::{invoke, Function};
use crate::module::{check_import_signature, Module, ModuleInstance, ResolvedImport};
use crate::value::Value;

/// Module instances registered in dependency order. Imports of each module
/// resolve against the modules registered before it. Dropping the context
/// runs each module's `__deinit` in reverse registration order.
pub struct Context {
    instance: Arc<Instance>,
    modules: Vec<Arc<dyn ModuleInstance>>,
}

impl Context {
    /// An empty context.
    pub fn new(instance: Arc<Instance>) -> Context {
        Context {
            instance,
            modules: Vec::new(),
        }
    }

    /// A context with `modules` registered in order.
    pub fn with_modules(
        instance: Arc<Instance>,
        modules: impl IntoIterator<Item = Arc<dyn Module>>,
    ) -> Result<Context> {
        let _span = tracing::debug_span!("vm.context.create").entered();
        let mut context = Context::new(instance);
        for m in modules {
            context.register(m)?;
        }
        Ok(context)
    }

    /// The VM instance.
    pub fn instance(&self) -> &Arc<Instance> {
        &self.instance
    }

    /// The registered module instances, in order.
    pub fn modules(&self) -> &[Arc<dyn ModuleInstance>] {
        &self.modules
    }

    /// The most recently registered instance of the module called `name`.
    pub fn find_module(&self, name: &str) -> Option<&Arc<dyn ModuleInstance>> {
        self.modules
            .iter()
            .rev()
            .find(|m| m.module().name() == name)
    }

    /// Registers a module: checks its dependencies, resolves its imports,
    /// creates its state and runs its `__init` export if it has one.
    pub fn register(&mut self, module: Arc<dyn Module>) -> Result<()> {
        let name = module.name().to_string();
        let _span = tracing::debug_span!("vm.context.register", module = %name).entered();
        self.check_dependencies(&*module)?;
        let imports = self.resolve_imports(&*module)?;
        let instance = module
            .instantiate(&self.instance, imports)
            .annotate_with(|| format!("creating state for module '{name}'"))?;
        if let Some(ordinal) = instance.module().lookup_export("__init") {
            let function = Function::new(instance.clone(), ordinal);
            invoke(&function, &[]).annotate_with(|| format!("initializing module '{name}'"))?;
        }
        self.modules.push(instance);
        Ok(())
    }

    fn check_dependencies(&self, module: &dyn Module) -> Result<()> {
        for dep in module.dependencies() {
            match self.find_module(&dep.name) {
                Some(found) => {
                    let have = found.module().version();
                    if have < dep.minimum_version {
                        return Err(Status::new(
                            StatusCode::NotFound,
                            format!(
                                "module '{}' requires '{}' version >= {} but have {have} but require {}",
                                module.name(),
                                dep.name,
                                dep.minimum_version,
                                dep.minimum_version
                            ),
                        ));
                    }
                }
                None if dep.optional => {}
                None => {
                    return Err(Status::new(
                        StatusCode::NotFound,
                        format!(
                            "required module '{}' not registered on the context (required by '{}')",
                            dep.name,
                            module.name()
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    fn resolve_imports(&self, module: &dyn Module) -> Result<Vec<Option<ResolvedImport>>> {
        let mut resolved = Vec::with_capacity(module.imports().len());
        for import in module.imports() {
            let (module_name, function_name) =
                import.full_name.split_once('.').ok_or_else(|| {
                    Status::new(
                        StatusCode::InvalidArgument,
                        format!(
                            "import name '{}' is not of the form module.function",
                            import.full_name
                        ),
                    )
                })?;
            let target = self.find_module(module_name).and_then(|provider| {
                provider
                    .module()
                    .lookup_export(function_name)
                    .map(|ordinal| (provider.clone(), ordinal))
            });
            match target {
                Some((provider, ordinal)) => {
                    let export = &provider.module().exports()[ordinal as usize];
                    check_import_signature(module, import, provider.module(), export)
                        .annotate_with(|| {
                            format!("resolving module '{}' imports", module.name())
                        })?;
                    resolved.push(Some(ResolvedImport {
                        instance: provider,
                        export_ordinal: ordinal,
                    }));
                }
                None if import.optional => resolved.push(None),
                None => {
                    return Err(Status::new(
                        StatusCode::NotFound,
                        format!(
                            "required import '{}' not found in the context",
                            import.full_name
                        ),
                    ))
                    .annotate_with(|| format!("resolving imports for module '{}'", module.name()))
                }
            }
        }
        Ok(resolved)
    }

    /// Looks up `module.function`, or a bare `function` in the last module.
    pub fn lookup_function(&self, name: &str) -> Result<Function> {
        let (instance, local) = match name.split_once('.') {
            Some((m, f)) if self.find_module(m).is_some() => (self.find_module(m).cloned(), f),
            _ => (self.modules.last().cloned(), name),
        };
        let instance = instance.ok_or_else(|| {
            Status::new(StatusCode::NotFound, "no modules registered in the context")
        })?;
        let ordinal = instance.module().lookup_export(local).ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!("no function `{local}` exported by module"),
            )
        })?;
        Ok(Function::new(instance, ordinal))
    }

    /// Broadcasts a signal to every module (`__notify`).
    pub fn notify(&self, signal: i32) -> Result<()> {
        for m in &self.modules {
            m.notify(signal)?;
        }
        Ok(())
    }

    /// Invokes `function` with `inputs`; returns its results.
    pub fn invoke(&self, function: &Function, inputs: &[Value]) -> Result<Vec<Value>> {
        invoke(function, inputs)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        while let Some(instance) = self.modules.pop() {
            if let Some(ordinal) = instance.module().lookup_export("__deinit") {
                // Teardown errors have nowhere to go; upstream ignores them too.
                let _ = invoke(&Function::new(instance.clone(), ordinal), &[]);
            }
        }
    }
}
