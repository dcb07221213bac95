//! Runs exported functions of bytecode modules: what `cargo xtask icount`
//! counts the instructions of under valgrind. Only the calls themselves
//! are counted (callgrind's `--toggle-collect` on [`counted_call`], with a
//! dump before each so that each call's count is a dump of its own), so
//! loading and printing, and the C library they use, are not.
//!
//! usage: vm_count --module=FILE... --function=NAME... [--input=I32]...
//! (modules in dependency order; each function is called in turn with the
//! inputs, and its results printed). Before each counted call, an uncounted
//! one with every input 1 (one trip of the loops counted) grows the stack
//! and warms what a first call initializes, so a call's count does not
//! depend on which calls ran before it.

use std::process::ExitCode;

use iree_vm::{invoke_with_stack, Context, Function, Instance, Module, Stack, Value};
use iree_vm_bytecode::BytecodeModule;

/// The call valgrind counts.
#[inline(never)]
fn counted_call(
    function: &Function,
    args: &[Value],
    stack: &mut Stack,
) -> iree_base::Result<Vec<Value>> {
    invoke_with_stack(function, args, stack)
}

fn main() -> ExitCode {
    let (mut modules, mut functions, mut inputs) = (Vec::new(), Vec::new(), Vec::new());
    for arg in std::env::args().skip(1) {
        if let Some(path) = arg.strip_prefix("--module=") {
            modules.push(path.to_string());
        } else if let Some(name) = arg.strip_prefix("--function=") {
            functions.push(name.to_string());
        } else if let Some(value) = arg.strip_prefix("--input=").and_then(|v| v.parse().ok()) {
            inputs.push(Value::I32(value));
        } else {
            eprintln!("usage: vm_count --module=FILE... --function=NAME... [--input=I32]...");
            return ExitCode::FAILURE;
        }
    }
    let instance = Instance::new();
    let run = || -> Result<(), String> {
        let loaded = modules
            .iter()
            .map(|path| {
                let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
                let module =
                    BytecodeModule::from_vec(&instance, bytes).map_err(|e| e.to_string())?;
                Ok(module as std::sync::Arc<dyn Module>)
            })
            .collect::<Result<Vec<_>, String>>()?;
        let context = Context::with_modules(instance.clone(), loaded).map_err(|e| e.to_string())?;
        let mut stack = Stack::new();
        let warm_up: Vec<Value> = inputs.iter().map(|_| Value::I32(1)).collect();
        for name in &functions {
            let function = context.lookup_function(name).map_err(|e| e.to_string())?;
            invoke_with_stack(&function, &warm_up, &mut stack)
                .map_err(|e| format!("{name}: {e}"))?;
            let results =
                counted_call(&function, &inputs, &mut stack).map_err(|e| format!("{name}: {e}"))?;
            println!("{name}: {results:?}");
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
