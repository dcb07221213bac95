//! `Session` on the `cuda` device: a module compiled for CUDA
//! (`testdata/cuda/kernels.vmfb`) loaded and called from Rust, results read
//! back. Without `libcuda.so.1` (CI, machines without a GPU) creating the
//! session fails with UNAVAILABLE and the test is reported as ignored, with
//! that reason;
//! `cargo xtask gpu-pack` carries the release binary to a GPU machine.

use std::process::ExitCode;

use iree_runtime::{Instance, Session, StatusCode, Tensor, Value};
use iree_test_support::{Skip, TestResult};

fn kernels() -> String {
    std::env::var("IREE_CUDA_KERNELS_VMFB").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/cuda/kernels.vmfb"
        )
        .to_string()
    })
}

fn tensor(value: &Value) -> &Tensor {
    match value {
        Value::Tensor(t) => t,
        other => panic!("expected a tensor, got {other:?}"),
    }
}

fn calls_cuda_kernels_through_a_session() -> TestResult {
    let instance = Instance::new();
    let mut session = match Session::new(&instance, "cuda") {
        Ok(s) => s,
        Err(e) if e.code() == StatusCode::Unavailable => {
            return Err(Skip(format!("needs a CUDA device: {}", e.message())));
        }
        Err(e) => panic!("creating a cuda session: {e}"),
    };
    session
        .load_module_file(kernels())
        .expect("loading kernels.vmfb");

    let a = Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let b = Tensor::from_slice(&[4], &[5.0f32, 6.0, 7.0, 8.0]).unwrap();
    let results = session
        .call("mul", &[a.into(), b.into()])
        .expect("calling mul");
    assert_eq!(
        tensor(&results[0]).to_vec::<f32>().unwrap(),
        vec![5.0, 12.0, 21.0, 32.0]
    );

    let x: Vec<f32> = (0..4096).map(|i| i as f32).collect();
    let results = session
        .call(
            "dyn_add",
            &[
                Tensor::from_slice(&[4096], &x).unwrap().into(),
                Tensor::from_slice(&[4096], &x).unwrap().into(),
            ],
        )
        .expect("calling dyn_add");
    let sum = tensor(&results[0]).to_vec::<f32>().unwrap();
    assert!(sum.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32));

    // Identity times a ramp: exact in f32.
    let eye: Vec<f32> = (0..64 * 64)
        .map(|i| if i / 64 == i % 64 { 1.0 } else { 0.0 })
        .collect();
    let ramp: Vec<f32> = (0..64 * 64).map(|i| (i % 97) as f32).collect();
    let results = session
        .call(
            "matmul",
            &[
                Tensor::from_slice(&[64, 64], &eye).unwrap().into(),
                Tensor::from_slice(&[64, 64], &ramp).unwrap().into(),
            ],
        )
        .expect("calling matmul");
    assert_eq!(tensor(&results[0]).to_vec::<f32>().unwrap(), ramp);
    Ok(())
}

fn main() -> ExitCode {
    iree_test_support::run(vec![iree_test_support::test(
        "calls_cuda_kernels_through_a_session",
        calls_cuda_kernels_through_a_session,
    )])
}
