//! Embedding the runtime: load a compiled module, create a `local-sync`
//! device, call a function with buffer views built from Rust slices, and
//! read the result back into a `Vec<f32>`.
//!
//! ```sh
//! cargo run -p iree-modules-hal --example run_on_cpu
//! cargo run -p iree-modules-hal --example run_on_cpu -- path/to/module.vmfb function
//! ```
//!
//! The default module is `testdata/llvm-cpu/expected_output.vmfb`, whose
//! `mul` multiplies two `tensor<4xf32>` elementwise (compiled by
//! `iree-compile` 3.13 for llvm-cpu). `iree-run-module` goes through these
//! same calls (`iree_tooling::run`).

use std::sync::Arc;

use iree_base::Result;
use iree_hal::{
    BufferParams, BufferUsage, BufferView, Device, Driver, ElementType, EncodingType, MemoryType,
};
use iree_hal_local::LocalSyncDriver;
use iree_modules_hal::{create_hal_module, register_types, HalBufferView};
use iree_vm::{Context, Instance, Module, Ref, Value};
use iree_vm_bytecode::BytecodeModule;

/// Copies `values` into a new device buffer and wraps it as a 1-D f32 view.
fn f32_view(device: &Arc<dyn Device>, values: &[f32]) -> Result<BufferView> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DEFAULT,
        ..Default::default()
    };
    let buffer = device
        .allocator()
        .allocate_buffer(params, bytes.len() as u64)?;
    buffer.write(0, &bytes)?;
    Ok(BufferView::new(
        buffer,
        vec![values.len()],
        ElementType::FLOAT_32,
        EncodingType::DENSE_ROW_MAJOR,
    ))
}

/// Reads an f32 view's contents back to the host.
fn read_f32s(view: &BufferView) -> Result<Vec<f32>> {
    let mut bytes = vec![0u8; view.element_count() * 4];
    view.buffer().read(0, &mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let default_module = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/llvm-cpu/expected_output.vmfb"
    );
    let path = args.next().unwrap_or_else(|| default_module.to_string());
    let function_name = args.next().unwrap_or_else(|| "mul".to_string());

    // The instance knows the `hal.*` ref types; the context links the `hal`
    // module (serving our device) with the compiled module that imports it.
    let instance = Instance::new();
    register_types(&instance)?;
    let device = LocalSyncDriver.create_device("")?;
    let hal = create_hal_module(vec![device.clone()])?;
    let bytes = std::fs::read(&path).map_err(|e| {
        iree_base::Status::new(iree_base::StatusCode::NotFound, format!("{path}: {e}"))
    })?;
    let module = BytecodeModule::from_vec(&instance, bytes)?;
    let context = Context::with_modules(instance, [hal, module as Arc<dyn Module>])?;
    let function = context.lookup_function(&function_name)?;

    let lhs = f32_view(&device, &[1.0, 2.0, 3.0, 4.0])?;
    let rhs = f32_view(&device, &[5.0, 6.0, 7.0, 8.0])?;
    let inputs = [
        Value::from(Ref::new(HalBufferView(lhs))),
        Value::from(Ref::new(HalBufferView(rhs))),
    ];
    let results = context.invoke(&function, &inputs)?;

    for (i, result) in results.iter().enumerate() {
        match result {
            Value::Ref(Some(r)) => match r.downcast::<HalBufferView>() {
                Some(view) => println!("result[{i}] = {:?}", read_f32s(&view.0)?),
                None => println!("result[{i}] = a {}", r.ref_type().name()),
            },
            other => println!("result[{i}] = {other:?}"),
        }
    }
    Ok(())
}
