//! Model checks of the semaphore and fence protocols under every
//! interleaving loom explores. Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p iree-hal --test loom --release`
//! (`cargo xtask loom` runs every loom test).
#![cfg(loom)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use iree_base::{Status, StatusCode};
use iree_hal::{Fence, Semaphore};
use loom::thread;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(f);
}

/// A waiter blocked on a value never misses the signal that reaches it.
#[test]
fn wait_sees_a_concurrent_signal() {
    model(|| {
        let semaphore = Semaphore::new(0);
        let signaler = {
            let semaphore = semaphore.clone();
            thread::spawn(move || {
                semaphore.signal(1).unwrap();
                semaphore.signal(2).unwrap();
            })
        };
        semaphore.wait(2, None).unwrap();
        assert_eq!(semaphore.query().unwrap(), 2);
        signaler.join().unwrap();
    });
}

/// A failure racing a signal wakes the waiter with one of the two outcomes
/// and never leaves it blocked; once failed, the root cause sticks.
#[test]
fn fail_racing_signal_never_strands_a_waiter() {
    model(|| {
        let semaphore = Semaphore::new(0);
        let failer = {
            let semaphore = semaphore.clone();
            thread::spawn(move || semaphore.fail(Status::new(StatusCode::DataLoss, "root cause")))
        };
        let signaler = {
            let semaphore = semaphore.clone();
            thread::spawn(move || {
                let _ = semaphore.signal(1);
            })
        };
        match semaphore.wait(1, None) {
            Ok(()) => {}
            Err(status) => assert_eq!(status.code(), StatusCode::DataLoss),
        }
        failer.join().unwrap();
        signaler.join().unwrap();
        assert_eq!(semaphore.query().unwrap_err().code(), StatusCode::DataLoss);
    });
}

/// A fence over two semaphores signaled from two threads runs its callback
/// exactly once, after both, whatever the order.
#[test]
fn fence_callback_runs_once_after_every_timepoint() {
    model(|| {
        let (a, b) = (Semaphore::new(0), Semaphore::new(0));
        let mut fence = Fence::new();
        fence.insert(a.clone(), 1);
        fence.insert(b.clone(), 1);
        let calls = Arc::new(AtomicUsize::new(0));
        {
            let (calls, a, b) = (calls.clone(), a.clone(), b.clone());
            fence.notify(Box::new(move |outcome| {
                outcome.unwrap();
                assert_eq!(a.query().unwrap(), 1);
                assert_eq!(b.query().unwrap(), 1);
                calls.fetch_add(1, Ordering::SeqCst);
            }));
        }
        let ta = thread::spawn(move || a.signal(1).unwrap());
        let tb = thread::spawn(move || b.signal(1).unwrap());
        ta.join().unwrap();
        tb.join().unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    });
}

/// A failure and a success arriving together deliver one outcome only.
#[test]
fn fence_callback_runs_once_when_a_timepoint_fails() {
    model(|| {
        let (a, b) = (Semaphore::new(0), Semaphore::new(0));
        let mut fence = Fence::new();
        fence.insert(a.clone(), 1);
        fence.insert(b.clone(), 1);
        let calls = Arc::new(AtomicUsize::new(0));
        {
            let calls = calls.clone();
            fence.notify(Box::new(move |outcome| {
                assert_eq!(outcome.unwrap_err().code(), StatusCode::Cancelled);
                calls.fetch_add(1, Ordering::SeqCst);
            }));
        }
        let ta = thread::spawn(move || a.signal(1).unwrap());
        let tb = thread::spawn(move || b.fail(Status::new(StatusCode::Cancelled, "gone")));
        ta.join().unwrap();
        tb.join().unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    });
}
