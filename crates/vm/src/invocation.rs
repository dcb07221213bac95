//! Invoking a function: [`Function`] handles and [`invoke`], which drives a
//! call to completion through any yields.

use std::sync::Arc;

use iree_base::Result;

use crate::cconv::Cconv;
use crate::module::{CallStatus, ExportInfo, ModuleInstance, Stack};
use crate::value::Value;

/// A callable export of a module instance.
#[derive(Clone)]
pub struct Function {
    instance: Arc<dyn ModuleInstance>,
    ordinal: u32,
}

impl Function {
    /// The export `ordinal` of `instance`.
    pub fn new(instance: Arc<dyn ModuleInstance>, ordinal: u32) -> Function {
        Function { instance, ordinal }
    }

    /// The module instance providing the function.
    pub fn instance(&self) -> &Arc<dyn ModuleInstance> {
        &self.instance
    }

    /// The export ordinal.
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// Export metadata: name, cconv, reflection attributes.
    pub fn info(&self) -> &ExportInfo {
        &self.instance.module().exports()[self.ordinal as usize]
    }

    /// The parsed calling convention.
    pub fn cconv(&self) -> Result<Cconv> {
        Cconv::parse(&self.info().cconv)
    }
}

/// How many idle stacks a thread keeps for its next calls.
const POOLED_STACKS_PER_THREAD: usize = 4;

thread_local! {
    /// Stacks of this thread's finished calls, reused so that a warm call
    /// allocates nothing for its frames, registers and argument vectors
    /// (upstream keeps its stack on the C stack). A list, not one stack:
    /// calls nest (a native function calling back into the VM).
    static IDLE_STACKS: std::cell::RefCell<Vec<Stack>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Calls `function` with `inputs` on a default-sized [`Stack`] (one this
/// thread's earlier calls left idle, or a new one), resuming it until it
/// completes, and returns its results.
pub fn invoke(function: &Function, inputs: &[Value]) -> Result<Vec<Value>> {
    let mut stack = IDLE_STACKS
        .with(|idle| idle.borrow_mut().pop())
        .unwrap_or_default();
    let result = invoke_with_stack(function, inputs, &mut stack);
    // Only a stack with nothing left on it is reused (a failed call may
    // leave frames behind; it is dropped with them).
    if stack.is_idle() {
        IDLE_STACKS.with(|idle| {
            let mut idle = idle.borrow_mut();
            if idle.len() < POOLED_STACKS_PER_THREAD {
                idle.push(stack);
            }
        });
    }
    result
}

/// As [`invoke`], on a caller-provided stack (reused across calls to keep
/// its scratch allocations).
pub fn invoke_with_stack(
    function: &Function,
    inputs: &[Value],
    stack: &mut Stack,
) -> Result<Vec<Value>> {
    let _span = tracing::debug_span!("vm.invoke", function = %function.info().name).entered();
    let mut results = Vec::new();
    // The callee may move refs out of its arguments: hand it copies (from
    // the stack's pool of argument vectors).
    let mut args = stack.take_args();
    args.extend_from_slice(inputs);
    let status = function
        .instance
        .call(stack, function.ordinal, &mut args, &mut results);
    stack.return_args(args);
    let mut status = status?;
    while status == CallStatus::Deferred {
        status = function.instance.resume(stack, &mut results)?;
    }
    Ok(results)
}
