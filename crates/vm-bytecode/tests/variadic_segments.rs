//! Issue #31's minimal reproducer: variadic calls into a callee with a
//! non-variadic argument after its variadic one (cconv `0CiDi_i`), with
//! segment sizes `[2, 65535]` (the 3.13 compiler's custom syntax) and
//! `[2, 1]` (its generic form, and upstream's `async_ops.vmasm`). Upstream's
//! verifier ignores the segment size of a non-variadic argument; so do we.
//! Upstream's whole VM suite runs with `cargo xtask vm-suite DIR`.

use std::sync::Arc;

use iree_vm::testing::yieldable_test_module;
use iree_vm::{Context, Instance, Module, Value};
use iree_vm_bytecode::BytecodeModule;

const MODULE: &[u8] = include_bytes!("../../../testdata/vm-async/variadic_segments.vmfb");

fn call(function: &str, args: &[i32]) -> i32 {
    let instance = Instance::new();
    let module = BytecodeModule::from_vec(&instance, MODULE.to_vec()).unwrap();
    let context = Context::with_modules(
        instance,
        [
            yieldable_test_module() as Arc<dyn Module>,
            module as Arc<dyn Module>,
        ],
    )
    .unwrap();
    let function = context.lookup_function(function).unwrap();
    let inputs: Vec<Value> = args.iter().map(|&a| Value::I32(a)).collect();
    match context.invoke(&function, &inputs).unwrap().as_slice() {
        [Value::I32(v)] => *v,
        other => panic!("unexpected results {other:?}"),
    }
}

#[test]
fn variadic_then_scalar_with_unset_segment() {
    assert_eq!(call("sum2", &[10, 20]), 30);
}

#[test]
fn variadic_then_scalar_with_segment_one_yielding() {
    assert_eq!(call("sum2_yielding", &[10, 20, 3]), 33);
    assert_eq!(call("sum2_yielding", &[5, 7, 0]), 12);
}
