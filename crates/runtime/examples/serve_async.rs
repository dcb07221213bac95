//! An async service answering concurrent requests with one shared model:
//! a tokio runtime with two worker threads serves 256 requests at once, each
//! awaiting `Model::call_async`; no executor thread blocks on a call. Every
//! answer is checked against the single-threaded result.
//!
//! ```sh
//! cargo run -p iree-runtime --example serve_async
//! ```

use std::sync::Arc;
use std::time::Instant;

use iree_runtime::{Instance, Model, Session, Tensor, Value};

/// A request: a 64x64 matrix filled with `x`, multiplied by one of twos.
fn request(x: f32) -> Vec<Value> {
    vec![
        Tensor::from_slice(&[64, 64], &vec![x; 64 * 64])
            .unwrap()
            .into(),
        Tensor::from_slice(&[64, 64], &vec![2.0f32; 64 * 64])
            .unwrap()
            .into(),
    ]
}

/// The first element of a request's answer: `x * 2 * 64`.
async fn serve(model: Arc<Model>, x: f32) -> iree_runtime::Result<f32> {
    let results = model.call_async("mm64", request(x)).await?;
    match &results[0] {
        Value::Tensor(t) => Ok(t.to_vec::<f32>()?[0]),
        other => panic!("expected a tensor, got {other:?}"),
    }
}

fn main() -> iree_runtime::Result<()> {
    let instance = Instance::new();
    let mut session = Session::new(&instance, "local-sync")?;
    session.load_module_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/llvm-cpu/matmul_64.vmfb"
    ))?;
    let model = Arc::new(session.into_model()?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a tokio runtime");
    let start = Instant::now();
    let answers = runtime.block_on(async {
        let tasks: Vec<_> = (0..256)
            .map(|i| tokio::spawn(serve(model.clone(), (i % 7) as f32)))
            .collect();
        let mut answers = Vec::new();
        for task in tasks {
            answers.push(task.await.expect("task"));
        }
        answers
    });
    for (i, answer) in answers.into_iter().enumerate() {
        let expected = (i % 7) as f32 * 2.0 * 64.0;
        assert_eq!(answer?, expected, "request {i}");
    }
    println!(
        "256 concurrent requests answered correctly in {:.1} ms ({} VM contexts)",
        start.elapsed().as_secs_f64() * 1e3,
        model.context_count()
    );
    Ok(())
}
