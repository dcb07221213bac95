//! [`Model`]: one loaded program that any number of threads call at once.
//!
//! # Design
//! What is expensive to load is loaded once and shared: the modules (their
//! bytecode and executables, in immutable page-aligned memory), the device,
//! and the parameter files (indexed and mapped once). What a call mutates
//! is not shared: each call runs in a VM context of its own, taken from a
//! pool of idle contexts (built on first need, then reused), so concurrent
//! calls never wait on one another and a context's module state (globals,
//! loaded executables) is touched by one call at a time. A context costs
//! the module instances' state, not the modules (the system modules `hal`
//! and `io_parameters` are built once too, and imported constants are
//! mapped once for all contexts): the pool grows to the number of calls
//! that were ever in flight at once.
//!
//! The price of that choice: calls do not share globals. A program whose
//! functions keep state across calls (a counter, a KV cache in globals)
//! sees the state of whichever context its call got; such programs belong
//! in one [`crate::Session`]. Inference functions, whose results depend
//! only on their inputs and on parameters, give the same results here as
//! in a session, from any thread.
//!
//! The alternative, one context behind a lock (`Session: Sync`), would
//! serialize every call, which is what a server calling a model from many
//! threads is trying to avoid.

use std::sync::Arc;

use iree_base::{Result, ResultExt};
use iree_hal::Device;
use iree_io_parameters::ParameterProvider;
use iree_vm::{Context, Module};
use parking_lot::Mutex;

use crate::session::{resolve_function, start_invoke, with_system_modules, Started};
use crate::Value;

/// Loaded modules on one device, called from any number of threads
/// (`Send + Sync`; share it in an `Arc`). Made from a [`crate::Session`]
/// with [`crate::Session::into_model`]; see the module documentation for
/// how calls are isolated.
pub struct Model {
    vm: Arc<iree_vm::Instance>,
    device: Arc<dyn Device>,
    /// The loaded modules, in load order.
    modules: Vec<Arc<dyn Module>>,
    /// The modules every context holds: the system modules, then `modules`.
    context_modules: Vec<Arc<dyn Module>>,
    /// Contexts no call is using.
    idle: Mutex<Vec<Context>>,
    /// How many contexts exist (idle or in use).
    created: Mutex<usize>,
}

impl Model {
    /// A model over loaded modules; builds one context now, so that a
    /// module that cannot be instantiated fails here rather than at the
    /// first call.
    pub(crate) fn new(
        vm: Arc<iree_vm::Instance>,
        device: Arc<dyn Device>,
        modules: Vec<Arc<dyn Module>>,
        parameters: Vec<Arc<dyn ParameterProvider>>,
    ) -> Result<Model> {
        let context_modules = with_system_modules(&device, &modules, || Ok(parameters.clone()))?;
        let model = Model {
            vm,
            device,
            modules,
            context_modules,
            idle: Mutex::new(Vec::new()),
            created: Mutex::new(0),
        };
        let first = model.new_context()?;
        model.idle.lock().push(first);
        Ok(model)
    }

    /// The model's device.
    pub fn device(&self) -> &Arc<dyn Device> {
        &self.device
    }

    /// How many VM contexts the model has built: the most calls that were
    /// ever in flight at once, or as many as were reserved (at least one).
    pub fn context_count(&self) -> usize {
        *self.created.lock()
    }

    /// Builds contexts until `count` exist, so that up to `count` calls at
    /// once never wait for one to be built (a service warming up for its
    /// expected concurrency; contexts are otherwise built on first need).
    pub fn reserve_contexts(&self, count: usize) -> Result<()> {
        while self.context_count() < count {
            let context = self.new_context()?;
            self.idle.lock().push(context);
        }
        Ok(())
    }

    /// Calls `name` (`module.function`, or a function of the last module)
    /// as [`crate::Session::call`] does, in a context no other call is
    /// using.
    pub fn call(&self, name: &str, inputs: &[Value]) -> Result<Vec<Value>> {
        self.start_call(name, inputs)
            .and_then(Started::finish)
            .annotate_with(|| format!("calling '{name}'"))
    }

    /// The VM part of a call, in a context no other call is using; the
    /// context is free again as soon as the function returns (a
    /// coarse-fences function's device work goes on without it).
    pub(crate) fn start_call(&self, name: &str, inputs: &[Value]) -> Result<Started> {
        let context = match self.idle.lock().pop() {
            Some(context) => context,
            None => self.new_context()?,
        };
        let started = resolve_function(&self.modules, &context, name)
            .and_then(|function| start_invoke(&context, &*self.device, &function, inputs));
        self.idle.lock().push(context);
        started
    }

    fn new_context(&self) -> Result<Context> {
        let context = Context::with_modules(self.vm.clone(), self.context_modules.clone())
            .annotate("creating a VM context of the model")?;
        *self.created.lock() += 1;
        Ok(context)
    }
}
