//! End to end on the library APIs: the 3.13-compiled `simple_mul` module
//! (bytecode + embedded-ELF kernel) runs on a local-sync device through the
//! `hal` module, with inputs built from Rust slices.

use std::path::PathBuf;
use std::sync::Arc;

use iree_hal::{
    Allocator, BufferParams, BufferUsage, BufferView, Driver, ElementType, EncodingType, MemoryType,
};
use iree_hal_local::LocalSyncDriver;
use iree_modules_hal::{create_hal_module, register_types, HalBufferView};
use iree_vm::{Context, Instance, Module, Ref, Value};
use iree_vm_bytecode::BytecodeModule;

fn simple_mul_vmfb() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../hal-local/tests/data/simple_mul_x86.vmfb");
    std::fs::read(path).expect("reading simple_mul_x86.vmfb")
}

fn view_of(allocator: &dyn Allocator, values: &[f32]) -> BufferView {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DEFAULT,
        ..Default::default()
    };
    let buffer = allocator
        .allocate_buffer(params, bytes.len() as u64)
        .unwrap();
    buffer.write(0, &bytes).unwrap();
    BufferView::new(
        buffer,
        vec![values.len()],
        ElementType::FLOAT_32,
        EncodingType::DENSE_ROW_MAJOR,
    )
    .unwrap()
}

#[test]
fn simple_mul_runs_on_local_sync() {
    let instance = Instance::new();
    register_types(&instance).unwrap();
    let device = LocalSyncDriver.create_device("").unwrap();
    let hal = create_hal_module(vec![device.clone()]).unwrap();
    let module = BytecodeModule::from_vec(&instance, simple_mul_vmfb()).unwrap();
    let context = Context::with_modules(instance, [hal, module as Arc<dyn Module>]).unwrap();
    let function = context.lookup_function("simple_mul").unwrap();

    let allocator = device.allocator();
    let a = view_of(&*allocator, &[1.0, 2.0, 3.0, 4.0]);
    let b = view_of(&*allocator, &[5.0, 6.0, 7.0, 8.0]);
    let inputs = [
        Value::from(Ref::new(HalBufferView(a))),
        Value::from(Ref::new(HalBufferView(b))),
    ];
    let results = context.invoke(&function, &inputs).unwrap();
    let [Value::Ref(Some(result))] = results.as_slice() else {
        panic!("unexpected results {results:?}")
    };
    let view = &result.downcast::<HalBufferView>().expect("a buffer view").0;
    // What upstream prints for this call: `4xf32=5 12 21 32`.
    assert_eq!(view.format(1024).unwrap(), "4xf32=5 12 21 32");

    // A wrong input shape fails the module's own assert, as upstream's does.
    let c = view_of(&*allocator, &[1.0, 2.0, 3.0]);
    let d = view_of(&*allocator, &[1.0, 2.0, 3.0, 4.0]);
    let bad = [
        Value::from(Ref::new(HalBufferView(c))),
        Value::from(Ref::new(HalBufferView(d))),
    ];
    let err = context.invoke(&function, &bad).unwrap_err();
    assert_eq!(err.code(), iree_base::StatusCode::InvalidArgument, "{err}");
    assert!(
        err.message()
            .contains("shape dimension 0 mismatch; expected 4 but have 3"),
        "{err}"
    );
}

#[test]
fn a_device_and_its_allocator_are_one_object_each_across_calls() {
    // Upstream returns the same retained device (and allocator) each time,
    // so bytecode comparing two of them finds them equal.
    let instance = Instance::new();
    register_types(&instance).unwrap();
    let device = LocalSyncDriver.create_device("").unwrap();
    let hal = create_hal_module(vec![device]).unwrap();
    let context = Context::with_modules(instance, [hal]).unwrap();
    let get = context.lookup_function("hal.devices.get").unwrap();
    let allocator = context.lookup_function("hal.device.allocator").unwrap();
    let call = |function, args: &[Value]| match context.invoke(function, args).unwrap().as_slice() {
        [Value::Ref(Some(r))] => r.clone(),
        other => panic!("unexpected {other:?}"),
    };
    let (first, second) = (call(&get, &[Value::I32(0)]), call(&get, &[Value::I32(0)]));
    assert!(Ref::ptr_eq(&first, &second));
    let a = call(&allocator, &[Value::from(first)]);
    let b = call(&allocator, &[Value::from(second)]);
    assert!(Ref::ptr_eq(&a, &b));
}
