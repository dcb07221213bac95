//! A device queue driven by fences alone, shared by the drivers: operations
//! are ordered only by their wait and signal fences.
//!
//! [`Queue::submit`] takes an operation with a wait fence and a signal fence:
//!
//! * When the wait fence is already reached, the operation runs at once on
//!   the submitting thread (for `local-task` its dispatches still spread over
//!   the worker pool, the submitting thread acting as worker 0). Its result
//!   signals or fails the signal fence and is also returned, so a caller that
//!   wants the error sees it immediately.
//! * When the wait fence has failed, the signal fence fails with the same
//!   root cause and the operation never runs.
//! * Otherwise the submit returns at once. The wait fence gets a callback
//!   (no thread blocks or polls), and when its last timepoint is reached the
//!   operation becomes ready: `local-task` hands it to the queue's executor
//!   thread; `local-sync` runs it on the thread that satisfied the wait
//!   (iteratively, so a long chain of dependent operations does not grow the
//!   stack). A failing wait fails the signal fence instead.
//!
//! Every path ends by signaling or failing the signal fence, also when the
//! operation panics, so a waiter never hangs on an operation that cannot
//! finish (upstream's #17962 class of bug).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::allocator::Allocator;
use crate::buffer::Buffer;
use crate::command_buffer::{CommandBuffer, DispatchBinding};
use crate::semaphore::Fence;
use iree_base::sync::{self, thread, Condvar, Mutex};
use iree_base::{Result, Status, StatusCode};

/// A queue operation; runs once its wait fence is reached.
pub type QueueOp = Box<dyn FnOnce() -> Result<()> + Send>;

/// Where operations that became ready after their submission run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferredExecution {
    /// On the thread whose signal satisfied the wait (`local-sync`: no
    /// threads of its own).
    SignalingThread,
    /// On the queue's own executor thread (`local-task`).
    ExecutorThread,
}

/// A ready operation and the fence it completes.
struct Ready {
    op: QueueOp,
    signal: Fence,
}

impl Ready {
    /// Runs the operation and signals or fails the fence; returns the
    /// operation's result.
    fn run(self) -> Result<()> {
        run_and_complete(self.op, &self.signal)
    }
}

/// Runs `op` (a panic becomes an INTERNAL error) and signals `signal` for
/// success or fails it with the error; returns the outcome.
fn run_and_complete(op: impl FnOnce() -> Result<()>, signal: &Fence) -> Result<()> {
    let outcome = match catch_unwind(AssertUnwindSafe(op)) {
        Ok(outcome) => outcome,
        Err(_) => Err(Status::new(
            StatusCode::Internal,
            "queue operation panicked; its signal fence is failed",
        )),
    };
    complete(signal, outcome)
}

/// Signals `signal` for a successful outcome or fails it with the error.
fn complete(signal: &Fence, outcome: Result<()>) -> Result<()> {
    match outcome {
        Ok(()) => signal
            .signal()
            .inspect_err(|status| signal.fail(status.clone())),
        Err(status) => {
            signal.fail(status.clone());
            Err(status)
        }
    }
}

#[derive(Default)]
struct ExecutorState {
    ready: VecDeque<Ready>,
    shutdown: bool,
}

/// State shared by the queue, its executor thread and pending callbacks.
struct Shared {
    mode: DeferredExecution,
    state: Mutex<ExecutorState>,
    work: Condvar,
}

impl Shared {
    /// Hands over an operation whose wait was just reached.
    fn ready(&self, ready: Ready) {
        if self.mode == DeferredExecution::ExecutorThread {
            let mut state = sync::lock(&self.state);
            if !state.shutdown {
                state.ready.push_back(ready);
                drop(state);
                self.work.notify_one();
                return;
            }
        }
        // Signaling-thread mode, or the queue is gone: run here.
        run_on_this_thread(ready);
    }

    fn executor_loop(&self) {
        loop {
            let mut state = sync::lock(&self.state);
            let ready = loop {
                if let Some(ready) = state.ready.pop_front() {
                    break ready;
                }
                if state.shutdown {
                    return;
                }
                state = sync::wait(&self.work, state);
            };
            drop(state);
            // The fence carries the outcome; nobody else receives it here.
            let _ = ready.run();
        }
    }
}

thread_local! {
    /// Whether this thread is already running deferred operations.
    static DRAINING: Cell<bool> = const { Cell::new(false) };
    /// Deferred operations that became ready while this thread was running
    /// one (their waits were satisfied by its signals).
    static PENDING: RefCell<VecDeque<Ready>> = const { RefCell::new(VecDeque::new()) };
}

/// Runs `ready` on this thread, then every operation it makes ready in turn,
/// without nesting calls.
fn run_on_this_thread(ready: Ready) {
    if DRAINING.with(Cell::get) {
        PENDING.with(|pending| pending.borrow_mut().push_back(ready));
        return;
    }
    DRAINING.with(|draining| draining.set(true));
    let _ = ready.run();
    while let Some(next) = PENDING.with(|pending| pending.borrow_mut().pop_front()) {
        let _ = next.run();
    }
    DRAINING.with(|draining| draining.set(false));
}

/// A device queue (see the module docs).
pub struct Queue {
    shared: Arc<Shared>,
    executor: Option<thread::JoinHandle<()>>,
}

impl Queue {
    /// A queue whose deferred operations run as `mode` says.
    pub fn new(mode: DeferredExecution) -> Queue {
        let shared = Arc::new(Shared {
            mode,
            state: Mutex::new(ExecutorState::default()),
            work: Condvar::new(),
        });
        let executor = (mode == DeferredExecution::ExecutorThread).then(|| {
            let shared = shared.clone();
            sync::spawn("iree-queue".to_string(), 0, move || shared.executor_loop())
        });
        Queue { shared, executor }
    }

    /// Runs `op` right away when `wait` is already reached (or fails
    /// `signal` when `wait` has failed), completing `signal`; returns `None`
    /// without running it when `wait` is still pending. Lets callers borrow
    /// what a deferred [`submit`](Self::submit) would have to own.
    pub fn run_if_ready(
        &self,
        wait: &Fence,
        signal: &Fence,
        op: impl FnOnce() -> Result<()>,
    ) -> Option<Result<()>> {
        match wait.query() {
            Ok(true) => Some(run_and_complete(op, signal)),
            Err(status) => {
                signal.fail(status.clone());
                Some(Err(status))
            }
            Ok(false) => None,
        }
    }

    /// `queue.execute`: runs `command_buffer` (none: just orders the
    /// fences) with `execute`, borrowing it when the wait is already
    /// reached, otherwise on copies the deferred operation owns. The
    /// binding table is validated first against the command buffer and
    /// the device's `allocator` ([`CommandBuffer::validate_binding_table`]);
    /// a table that fails fails `signal` too.
    pub fn execute<F>(
        &self,
        wait: &Fence,
        signal: &Fence,
        command_buffer: Option<&CommandBuffer>,
        binding_table: &[DispatchBinding],
        allocator: &dyn Allocator,
        execute: F,
    ) -> Result<()>
    where
        F: FnOnce(&CommandBuffer, &[DispatchBinding]) -> Result<()> + Send + 'static,
    {
        if let Some(cb) = command_buffer {
            // A table the command buffer cannot run with fails before
            // anything runs; waiters on `signal` see the failure too.
            if let Err(status) = cb.validate_binding_table(binding_table, allocator) {
                signal.fail(status.clone());
                return Err(status);
            }
        }
        let mut execute = Some(execute);
        let run_now = || match command_buffer {
            Some(cb) => (execute.take().expect("runs at most once"))(cb, binding_table),
            None => Ok(()),
        };
        if let Some(outcome) = self.run_if_ready(wait, signal, run_now) {
            return outcome;
        }
        let execute = execute.expect("not run while its wait is pending");
        let command_buffer = command_buffer.cloned();
        let binding_table = binding_table.to_vec();
        self.submit(
            wait,
            signal,
            Box::new(move || match command_buffer {
                Some(cb) => execute(&cb, &binding_table),
                None => Ok(()),
            }),
        )
    }

    /// `queue.dealloca`: memory is released with the last reference to
    /// it, so a pending operation only holds `buffer` until its wait is
    /// reached; a ready one holds nothing.
    pub fn dealloca(&self, wait: &Fence, signal: &Fence, buffer: &Buffer) -> Result<()> {
        if let Some(outcome) = self.run_if_ready(wait, signal, || Ok(())) {
            return outcome;
        }
        let buffer = buffer.clone();
        self.submit(
            wait,
            signal,
            Box::new(move || {
                drop(buffer);
                Ok(())
            }),
        )
    }

    /// Runs `op` once `wait` is reached, then signals `signal`; fails
    /// `signal` with the root cause if the wait or the operation fails.
    ///
    /// Returns the operation's error when it ran (or its wait failed) before
    /// this call returned; otherwise `Ok` and the outcome reaches `signal`.
    pub fn submit(&self, wait: &Fence, signal: &Fence, op: QueueOp) -> Result<()> {
        let mut op = Some(op);
        let run_now = || (op.take().expect("runs at most once"))();
        if let Some(outcome) = self.run_if_ready(wait, signal, run_now) {
            return outcome;
        }
        let op = op.expect("not run while its wait is pending");
        let shared = self.shared.clone();
        let signal = signal.clone();
        wait.notify(Box::new(move |outcome| match outcome {
            Ok(()) => shared.ready(Ready { op, signal }),
            Err(status) => signal.fail(status),
        }));
        Ok(())
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        sync::lock(&self.shared.state).shutdown = true;
        self.shared.work.notify_all();
        if let Some(executor) = self.executor.take() {
            let _ = executor.join();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::Semaphore;
    use std::sync::atomic::{AtomicU32, Ordering};

    fn counter_op(counter: &Arc<AtomicU32>) -> QueueOp {
        let counter = counter.clone();
        Box::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(())
        })
    }

    #[test]
    fn ready_operations_run_before_submit_returns() {
        for mode in [
            DeferredExecution::SignalingThread,
            DeferredExecution::ExecutorThread,
        ] {
            let queue = Queue::new(mode);
            let counter = Arc::new(AtomicU32::new(0));
            let signal = Fence::with_new_semaphore();
            queue
                .submit(&Fence::new(), &signal, counter_op(&counter))
                .unwrap();
            assert_eq!(counter.load(Ordering::SeqCst), 1);
            assert!(signal.query().unwrap());
        }
    }

    #[test]
    fn pending_operations_run_when_their_wait_is_signaled() {
        for mode in [
            DeferredExecution::SignalingThread,
            DeferredExecution::ExecutorThread,
        ] {
            let queue = Queue::new(mode);
            let counter = Arc::new(AtomicU32::new(0));
            let host = Fence::with_new_semaphore();
            // A chain of 10_000 operations, each waiting on the previous one:
            // none can run until the host signals, then all run in order
            // without growing the stack.
            let mut wait = host.clone();
            for _ in 0..10_000 {
                let signal = Fence::with_new_semaphore();
                queue.submit(&wait, &signal, counter_op(&counter)).unwrap();
                wait = signal;
            }
            assert_eq!(counter.load(Ordering::SeqCst), 0);
            host.signal().unwrap();
            wait.wait(None).unwrap();
            assert_eq!(counter.load(Ordering::SeqCst), 10_000);
        }
    }

    #[test]
    fn failures_reach_the_signal_fence_with_the_root_cause() {
        for mode in [
            DeferredExecution::SignalingThread,
            DeferredExecution::ExecutorThread,
        ] {
            let queue = Queue::new(mode);
            let host = Fence::with_new_semaphore();
            let failing = Fence::with_new_semaphore();
            queue
                .submit(
                    &host,
                    &failing,
                    Box::new(|| Err(Status::new(StatusCode::DataLoss, "kernel failed"))),
                )
                .unwrap();
            // Operations after the failure never run; their fences fail too.
            let counter = Arc::new(AtomicU32::new(0));
            let after = Fence::with_new_semaphore();
            queue
                .submit(&failing, &after, counter_op(&counter))
                .unwrap();
            let panicking = Fence::with_new_semaphore();
            queue
                .submit(&host, &panicking, Box::new(|| panic!("bug")))
                .unwrap();
            host.signal().unwrap();
            let err = after.wait(None).unwrap_err();
            assert_eq!(
                (err.code(), err.message()),
                (StatusCode::DataLoss, "kernel failed")
            );
            assert_eq!(counter.load(Ordering::SeqCst), 0);
            assert_eq!(
                panicking.wait(None).unwrap_err().code(),
                StatusCode::Internal
            );
            // Submitting after a wait has failed fails at once.
            let late = Fence::with_new_semaphore();
            let err = queue
                .submit(&failing, &late, counter_op(&counter))
                .unwrap_err();
            assert_eq!(err.code(), StatusCode::DataLoss);
            assert_eq!(late.query().unwrap_err().code(), StatusCode::DataLoss);
        }
    }

    #[test]
    fn operations_waiting_on_another_thread_complete() {
        let queue = Queue::new(DeferredExecution::ExecutorThread);
        let semaphore = Semaphore::new(0);
        let mut wait = Fence::new();
        wait.insert(semaphore.clone(), 5);
        let signal = Fence::with_new_semaphore();
        let counter = Arc::new(AtomicU32::new(0));
        queue.submit(&wait, &signal, counter_op(&counter)).unwrap();
        let signaler = std::thread::spawn(move || {
            for value in 1..=5 {
                semaphore.signal(value).unwrap();
            }
        });
        signal.wait(None).unwrap();
        signaler.join().unwrap();
        assert_eq!(counter.load(Ordering::SeqCst), 1);
    }
}
