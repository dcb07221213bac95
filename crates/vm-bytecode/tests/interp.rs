//! The interpreter on committed, 3.13-compiled modules, in-process and small
//! enough for Miri (`cargo +nightly miri test -p iree-vm-bytecode --test
//! interp`): loops whose back edges are fused latches, compare-branches and
//! branches that pass block arguments (register remaps, including a parallel
//! swap), and an internal call loop. Expected values are upstream's outputs
//! (`testdata/*/expected/`).

use std::sync::Arc;

use iree_vm::{Context, Instance, Module, Value};
use iree_vm_bytecode::BytecodeModule;

const CONTROL_FLOW: &[u8] = include_bytes!("../../../testdata/vm/control_flow.vmfb");
const LOOPS: &[u8] = include_bytes!("../../../testdata/bench/loops.vmfb");

fn call(vmfb: &[u8], function: &str, inputs: &[Value]) -> Vec<Value> {
    let instance = Instance::new();
    let module = BytecodeModule::from_vec(&instance, vmfb.to_vec()).unwrap();
    let context = Context::with_modules(instance, [module as Arc<dyn Module>]).unwrap();
    let function = context.lookup_function(function).unwrap();
    context.invoke(&function, inputs).unwrap()
}

fn i32_result(vmfb: &[u8], function: &str, inputs: &[Value]) -> i32 {
    match call(vmfb, function, inputs).as_slice() {
        [Value::I32(v)] => *v,
        other => panic!("{function}: unexpected results {other:?}"),
    }
}

#[test]
fn compare_branch_loops_with_block_arguments() {
    let trips = if cfg!(miri) { 10 } else { 100 };
    let sum = trips * (trips + 1) / 2;
    assert_eq!(
        i32_result(CONTROL_FLOW, "sum_to", &[Value::I32(trips)]),
        sum
    );
    assert_eq!(i32_result(CONTROL_FLOW, "sum_to", &[Value::I32(-5)]), 0);
    match call(CONTROL_FLOW, "factorial", &[Value::I64(20)]).as_slice() {
        [Value::I64(v)] => assert_eq!(*v, 2_432_902_008_176_640_000),
        other => panic!("factorial: unexpected results {other:?}"),
    }
}

#[test]
fn both_arms_of_a_remapping_cond_br() {
    assert_eq!(i32_result(CONTROL_FLOW, "collatz", &[Value::I32(27)]), 111);
    assert_eq!(i32_result(CONTROL_FLOW, "collatz", &[Value::I32(1)]), 0);
}

#[test]
fn branch_arguments_swap_in_parallel() {
    let inputs = |n| [Value::I32(-3), Value::I64(1_000_000_000_000), Value::I32(n)];
    match call(CONTROL_FLOW, "swap_n", &inputs(7)).as_slice() {
        [Value::I32(a), Value::I64(b)] => assert_eq!((*a, *b), (-727_379_968, -3)),
        other => panic!("swap_n: unexpected results {other:?}"),
    }
    match call(CONTROL_FLOW, "swap_n", &inputs(2)).as_slice() {
        [Value::I32(a), Value::I64(b)] => assert_eq!((*a, *b), (-3, 1_000_000_000_000)),
        other => panic!("swap_n: unexpected results {other:?}"),
    }
}

#[test]
fn latch_loops_and_calls() {
    // Upstream prints these for 1000 trips (testdata/bench/expected/loops).
    let trips = 1000;
    assert_eq!(
        i32_result(LOOPS, "scalar_loop", &[Value::I32(trips)]),
        332_825_320
    );
    assert_eq!(
        i32_result(LOOPS, "call_loop", &[Value::I32(trips)]),
        332_833_500
    );
    assert_eq!(
        i32_result(LOOPS, "list_loop", &[Value::I32(trips)]),
        10_652_124
    );
    assert_eq!(i32_result(LOOPS, "remap_loop", &[Value::I32(trips)]), 2000);
    assert_eq!(i32_result(LOOPS, "branch_loop", &[Value::I32(trips)]), 3000);
}

/// Found by the checked build on committed modules (issue #46): `vm.fail`
/// with status 0 does not fail, and when it is a function's last op there
/// is no next op; the interpreter ran past the function's ops (upstream
/// crashes there). Now FAILED_PRECONDITION; a non-zero status still fails
/// with that status.
#[test]
fn a_zero_status_fail_at_the_end_of_a_function_is_an_error() {
    let failures: &[u8] = include_bytes!("../../../testdata/vm/failures.vmfb");
    let instance = Instance::new();
    let module = BytecodeModule::from_vec(&instance, failures.to_vec()).unwrap();
    let context = Context::with_modules(instance, [module as Arc<dyn Module>]).unwrap();
    let function = context.lookup_function("fail").unwrap();
    let err = context.invoke(&function, &[Value::I32(0)]).unwrap_err();
    assert_eq!(
        err.code(),
        iree_base::StatusCode::FailedPrecondition,
        "{err}"
    );
    let err = context.invoke(&function, &[Value::I32(5)]).unwrap_err();
    assert_eq!(err.code().raw(), 5, "{err}");
}
