//! Throughput of one [`iree_runtime::Model`] called from 1, 2 and 4
//! threads (calls per second, each thread calling in a loop).
//!
//! ```sh
//! cargo run --release -p iree-runtime --example model_threads -- [module.vmfb function device calls]
//! ```
//!
//! Default: `testdata/llvm-cpu/matmul_64.vmfb`'s `mm64` (two 64x64 f32
//! inputs) on `local-sync`, 20000 calls per run.

use std::sync::Arc;
use std::time::Instant;

use iree_runtime::{Instance, Session, Tensor};

fn main() -> iree_runtime::Result<()> {
    let mut args = std::env::args().skip(1);
    let module = args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/llvm-cpu/matmul_64.vmfb"
        )
        .to_string()
    });
    let function = args.next().unwrap_or_else(|| "mm64".to_string());
    let device = args.next().unwrap_or_else(|| "local-sync".to_string());
    let calls: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(20_000);

    let instance = Instance::new();
    let mut session = Session::new(&instance, &device)?;
    session.load_module_file(&module)?;
    let model = Arc::new(session.into_model()?);
    let a = Tensor::from_slice(&[64, 64], &vec![0.5f32; 64 * 64])?;
    let b = Tensor::from_slice(&[64, 64], &vec![2.0f32; 64 * 64])?;
    let inputs = vec![a.into(), b.into()];
    model.call(&function, &inputs)?; // warm-up
    let mut one_thread = 0.0;
    for threads in [1usize, 2, 4] {
        let start = Instant::now();
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for _ in 0..calls / threads {
                        model.call(&function, &inputs).expect("call");
                    }
                });
            }
        });
        let per_second = (calls / threads * threads) as f64 / start.elapsed().as_secs_f64();
        if threads == 1 {
            one_thread = per_second;
        }
        println!(
            "{threads} thread(s): {per_second:.0} calls/s ({:.2}x one thread), {} contexts",
            per_second / one_thread,
            model.context_count()
        );
    }
    Ok(())
}
