//! Embedding the runtime: load a compiled module on a CPU device, call a
//! function with tensors built from Rust slices, and read the results back.
//!
//! ```sh
//! cargo run -p iree-runtime --example run_on_cpu
//! cargo run -p iree-runtime --example run_on_cpu -- path/to/module.vmfb function
//! ```
//!
//! The default module is `testdata/quickstart/simple_mul.vmfb`, whose
//! `mul` multiplies two `tensor<4xf32>` elementwise (compiled by
//! `iree-compile` 3.13 for llvm-cpu).

use iree_runtime::{Instance, Session, Tensor, Value};

fn main() -> iree_runtime::Result<()> {
    let mut args = std::env::args().skip(1);
    let default_module = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/quickstart/simple_mul.vmfb"
    );
    let path = args.next().unwrap_or_else(|| default_module.to_string());
    let function = args.next().unwrap_or_else(|| "mul".to_string());

    let instance = Instance::new();
    let mut session = Session::new(&instance, "local-sync")?;
    session.load_module_file(&path)?;
    let lhs = Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0])?;
    let rhs = Tensor::from_slice(&[4], &[5.0f32, 6.0, 7.0, 8.0])?;
    let results = session.call(&function, &[lhs.into(), rhs.into()])?;
    for (i, result) in results.into_iter().enumerate() {
        match result {
            Value::Tensor(t) => println!("result[{i}] = {:?}", t.to_vec::<f32>()?),
            other => println!("result[{i}] = {other:?}"),
        }
    }
    Ok(())
}
