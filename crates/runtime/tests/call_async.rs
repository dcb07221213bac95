//! `Model::call_async` awaited from tokio (current-thread and
//! multi-thread runtimes) and from a hand-written executor: results equal
//! the synchronous call's, errors arrive through the future.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use iree_runtime::{Instance, Model, Session, Tensor, Value};

fn model() -> Arc<Model> {
    let instance = Instance::new();
    let mut session = Session::new(&instance, "local-task").unwrap();
    session
        .load_module_file(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/llvm-cpu/matmul_64.vmfb"
        ))
        .unwrap();
    Arc::new(session.into_model().unwrap())
}

fn inputs(x: f32) -> Vec<Value> {
    vec![
        Tensor::from_slice(&[64, 64], &vec![x; 64 * 64])
            .unwrap()
            .into(),
        Tensor::from_slice(&[64, 64], &vec![1.5f32; 64 * 64])
            .unwrap()
            .into(),
    ]
}

fn first(results: &[Value]) -> f32 {
    match &results[0] {
        Value::Tensor(t) => t.to_vec::<f32>().unwrap()[0],
        other => panic!("expected a tensor, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_on_a_multi_thread_runtime() {
    let model = model();
    let tasks: Vec<_> = (0..64)
        .map(|i| {
            let model = model.clone();
            tokio::spawn(async move {
                first(&model.call_async("mm64", inputs(i as f32)).await.unwrap())
            })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        assert_eq!(task.await.unwrap(), i as f32 * 1.5 * 64.0);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn errors_arrive_through_the_future() {
    let model = model();
    let error = model
        .call_async("no_such_function", Vec::new())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no_such_function"), "{error}");
    let sync = first(&model.call("mm64", &inputs(2.0)).unwrap());
    assert_eq!(
        first(&model.call_async("mm64", inputs(2.0)).await.unwrap()),
        sync
    );
}

/// Polled by hand, with a waker that counts its wakes: no runtime at all.
#[test]
fn any_executor_can_poll_it() {
    struct Count(
        std::sync::atomic::AtomicUsize,
        std::sync::Mutex<bool>,
        std::sync::Condvar,
    );
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            *self.1.lock().unwrap() = true;
            self.2.notify_all();
        }
    }
    let count = Arc::new(Count(
        Default::default(),
        Default::default(),
        Default::default(),
    ));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    let model = model();
    let mut future = Box::pin(model.call_async("mm64", inputs(1.0)));
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(results) => {
                assert_eq!(first(&results.unwrap()), 96.0);
                break;
            }
            Poll::Pending => {
                let mut woken = count.1.lock().unwrap();
                while !*woken {
                    woken = count.2.wait(woken).unwrap();
                }
                *woken = false;
            }
        }
    }
}

/// A coarse-fences function completes its future from its signal fence,
/// on both CPU devices, with the same results as a blocking call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coarse_fences_functions_complete_on_their_fence() {
    for device in ["local-sync", "local-task"] {
        let instance = Instance::new();
        let mut session = Session::new(&instance, device).unwrap();
        session
            .load_module_file(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../testdata/llvm-cpu/async_elementwise.vmfb"
            ))
            .unwrap();
        let model = Arc::new(session.into_model().unwrap());
        let calls: Vec<_> = (0..16)
            .map(|i| {
                let a = Tensor::from_slice(&[3], &[i, -2, 3]).unwrap();
                model.call_async("two", vec![a.into()])
            })
            .collect();
        for (i, call) in calls.into_iter().enumerate() {
            let results = call.await.unwrap();
            let doubled = Tensor::try_from(results[0].clone()).unwrap();
            let squared = Tensor::try_from(results[1].clone()).unwrap();
            let i = i as i32;
            assert_eq!(doubled.to_vec::<i32>().unwrap(), [2 * i, -4, 6], "{device}");
            assert_eq!(squared.to_vec::<i32>().unwrap(), [i * i, 4, 9], "{device}");
        }
    }
}
