//! [`Model::call_async`]: a call as a `Future`, for async services.
//!
//! The call's VM part runs on the runtime's call workers, a fixed pool of
//! one thread per CPU shared by every model, and the future completes
//! (waking its task) when the call's results are ready: for a function of
//! the coarse-fences ABI, when its signal fence signals, with no worker
//! waiting on the device meanwhile. An executor's threads never
//! block on a call, and a thousand requests in flight queue on the pool
//! instead of parking a thousand threads. Nothing here depends on an async
//! runtime: any executor that polls futures can await it.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};

use iree_base::{Result, ResultExt, Status, StatusCode};
use parking_lot::Mutex;

use crate::{Model, Value};

type Job = Box<dyn FnOnce() + Send>;

/// The shared call workers' queue, started on first use.
fn workers() -> &'static Mutex<Sender<Job>> {
    static WORKERS: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    WORKERS.get_or_init(|| {
        let (sender, receiver) = channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        let count = std::thread::available_parallelism().map_or(2, |n| n.get());
        for i in 0..count {
            let receiver = receiver.clone();
            // A worker that cannot start leaves the others to serve.
            let _ = std::thread::Builder::new()
                .name(format!("iree-call-{i}"))
                .spawn(move || loop {
                    let job = receiver.lock().recv();
                    match job {
                        Ok(job) => job(),
                        Err(_) => break,
                    }
                });
        }
        Mutex::new(sender)
    })
}

/// What a pending call shares with its future.
#[derive(Default)]
struct Slot {
    result: Option<Result<Vec<Value>>>,
    waker: Option<Waker>,
}

/// The results of a [`Model::call_async`] call, once its call completes.
#[must_use = "a call's future does nothing unless awaited"]
pub struct CallFuture {
    slot: Arc<Mutex<Slot>>,
}

impl Future for CallFuture {
    type Output = Result<Vec<Value>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.slot.lock();
        match slot.result.take() {
            Some(result) => Poll::Ready(result),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl Model {
    /// Calls `name` as [`Model::call`] does, on the runtime's call workers;
    /// the future completes with the results (or the error) when they are
    /// ready (a coarse-fences function's signal fence signals; no worker
    /// waits for it). The model and inputs are shared with the call until
    /// its VM part returns.
    pub fn call_async(self: &Arc<Self>, name: &str, inputs: Vec<Value>) -> CallFuture {
        let slot = Arc::new(Mutex::new(Slot::default()));
        let (model, name, done) = (self.clone(), name.to_string(), slot.clone());
        let job: Job = Box::new(move || {
            let label = name.clone();
            let complete = move |result: Result<Vec<Value>>| {
                let result = result.annotate_with(|| format!("calling '{label}'"));
                let waker = {
                    let mut slot = done.lock();
                    slot.result = Some(result);
                    slot.waker.take()
                };
                if let Some(waker) = waker {
                    waker.wake();
                }
            };
            let started = model.start_call(&name, &inputs);
            drop((model, inputs));
            match started {
                Ok(started) => started.on_finish(complete),
                Err(status) => complete(Err(status)),
            }
        });
        if workers().lock().send(job).is_err() {
            slot.lock().result = Some(Err(Status::new(
                StatusCode::Unavailable,
                "the runtime's call workers have stopped",
            )));
        }
        CallFuture { slot }
    }
}
