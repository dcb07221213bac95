//! Embedding the VM: load a compiled module, provide one of its imports from
//! Rust, and call an exported function.
//!
//! `cargo run -p iree-vm-bytecode --example embed` runs
//! `testdata/bench/import_caller.vmfb`, whose `import_loop(n)` calls the
//! import `callee.step(i, acc) -> acc + i*i` n times; here `callee` is a
//! native module written in Rust rather than the bytecode callee the
//! benchmark uses.

use std::sync::Arc;

use iree_base::Result;
use iree_vm::native::NativeModuleBuilder;
use iree_vm::{Context, Instance, Module, Value};
use iree_vm_bytecode::BytecodeModule;

fn main() -> Result<()> {
    let instance = Instance::new();

    // A native module declared by cconv strings; the closure's Rust types must
    // match `0ii_i` (two i32 arguments, one i32 result).
    let callee = NativeModuleBuilder::<()>::new("callee", 0)
        .export("step", "0ii_i", |_state: &(), (i, acc): (i32, i32)| {
            Ok(acc.wrapping_add(i.wrapping_mul(i)))
        })?
        .build(|_| Ok(()));

    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/bench/import_caller.vmfb"
    );
    let bytes = std::fs::read(path).map_err(|e| {
        iree_base::Status::new(iree_base::StatusCode::NotFound, format!("{path}: {e}"))
    })?;
    let caller = BytecodeModule::from_vec(&instance, bytes)?;

    // Modules register in dependency order: the import resolves to `callee`.
    let context = Context::with_modules(
        instance,
        [callee as Arc<dyn Module>, caller as Arc<dyn Module>],
    )?;
    let function = context.lookup_function("import_loop")?;
    let results = context.invoke(&function, &[Value::I32(1000)])?;
    println!("import_loop(1000) = {results:?}");
    assert!(matches!(results.as_slice(), [Value::I32(332833500)]));
    Ok(())
}
