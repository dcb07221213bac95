//! One [`Model`] called from many threads: every result equals the
//! single-threaded result, the model builds at most one VM context per
//! concurrent call, and memory stays flat once warm.

use std::sync::Arc;

use iree_runtime::{Instance, Model, Session, Tensor, Value};

fn model(device: &str) -> Model {
    let instance = Instance::new();
    let mut session = Session::new(&instance, device).unwrap();
    session
        .load_module_file(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/llvm-cpu/matmul_64.vmfb"
        ))
        .unwrap();
    session.into_model().unwrap()
}

/// Inputs that differ per call (`seed`), so results cannot be mixed up
/// between threads unnoticed.
fn inputs(seed: u32) -> Vec<Value> {
    let a: Vec<f32> = (0..64 * 64).map(|i| ((i * 7 + seed) % 13) as f32).collect();
    let b: Vec<f32> = (0..64 * 64)
        .map(|i| ((i * 3 + seed) % 5) as f32 - 2.0)
        .collect();
    vec![
        Tensor::from_slice(&[64, 64], &a).unwrap().into(),
        Tensor::from_slice(&[64, 64], &b).unwrap().into(),
    ]
}

fn result(model: &Model, seed: u32) -> Vec<f32> {
    match &model.call("mm64", &inputs(seed)).unwrap()[0] {
        Value::Tensor(t) => t.to_vec::<f32>().unwrap(),
        other => panic!("expected a tensor, got {other:?}"),
    }
}

/// Resident memory of this process in KiB (Linux; 0 elsewhere).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).map(|v| v.parse().unwrap_or(0)))
        })
        .unwrap_or(0)
}

#[test]
fn four_threads_share_one_model() {
    for device in ["local-sync", "local-task"] {
        let model = Arc::new(model(device));
        const SEEDS: u32 = 8;
        let expected: Vec<Vec<f32>> = (0..SEEDS).map(|seed| result(&model, seed)).collect();
        let expected = Arc::new(expected);
        let calls_per_thread = 1500u32;
        let warm_rss = Arc::new(std::sync::Mutex::new(Vec::new()));
        let threads: Vec<_> = (0..4u32)
            .map(|thread| {
                let (model, expected, warm_rss) =
                    (model.clone(), expected.clone(), warm_rss.clone());
                std::thread::spawn(move || {
                    for call in 0..calls_per_thread {
                        let seed = (call + thread) % SEEDS;
                        assert_eq!(result(&model, seed), expected[seed as usize], "{device}");
                        if call == 500 {
                            warm_rss.lock().unwrap().push(rss_kib());
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(model.context_count() <= 4, "{}", model.context_count());
        let warm = warm_rss.lock().unwrap().iter().copied().max().unwrap_or(0);
        let end = rss_kib();
        // Flat once warm: well under 1% of growth plus allocator slack.
        assert!(
            end <= warm + warm / 100 + 1024,
            "{device}: RSS grew from {warm} KiB to {end} KiB"
        );
    }
}

#[test]
fn model_calls_equal_session_calls() {
    let instance = Instance::new();
    let mut session = Session::new(&instance, "local-sync").unwrap();
    session
        .load_module_file(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/llvm-cpu/matmul_64.vmfb"
        ))
        .unwrap();
    let from_session = match &session.call("mm64", &inputs(3)).unwrap()[0] {
        Value::Tensor(t) => t.to_vec::<f32>().unwrap(),
        _ => unreachable!(),
    };
    let model = session.into_model().unwrap();
    assert_eq!(result(&model, 3), from_session);
    // Errors carry the call's name, as a session's do.
    let error = model.call("missing", &[]).unwrap_err();
    assert!(error.to_string().contains("calling 'missing'"), "{error}");
}

#[test]
fn reserved_contexts_serve_calls_without_building_more() {
    let model = model("local-sync");
    model.reserve_contexts(3).unwrap();
    assert_eq!(model.context_count(), 3);
    model.reserve_contexts(2).unwrap();
    assert_eq!(model.context_count(), 3, "reserving fewer builds none");
    let expected = result(&model, 7);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| assert_eq!(result(&model, 7), expected));
        }
    });
    assert_eq!(model.context_count(), 3);
}
