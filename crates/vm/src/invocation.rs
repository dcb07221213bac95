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

/// Calls `function` with `inputs` on a fresh [`Stack`], resuming it until it
/// completes, and returns its results.
pub fn invoke(function: &Function, inputs: &[Value]) -> Result<Vec<Value>> {
    let mut stack = Stack::new();
    invoke_with_stack(function, inputs, &mut stack)
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
