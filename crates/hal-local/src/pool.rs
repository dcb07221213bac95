//! A persistent pool of worker threads for `local-task` dispatches.
//!
//! One job runs at a time: the submitting thread publishes a borrowed
//! closure, wakes every helper, runs the closure itself as worker 0 and then
//! waits until each helper has finished its call. Only then does `run`
//! return, which is what makes lending the borrowed closure to long-lived
//! threads sound. Helpers that panic still report completion, so a failed
//! job can never leave `run` waiting forever.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use iree_base::sync::{self, thread, Condvar, Mutex, MutexGuard};

use crate::topology::TaskTopology;

/// A job: called once per worker with the worker's index.
type Job = dyn Fn(u32) + Sync;

/// A job pointer with its borrow's lifetime erased (see `WorkerPool::run`).
#[derive(Clone, Copy)]
struct JobPtr(*const Job);

// SAFETY: the pointee is `Sync`, and `run` keeps it alive (and the pointer
// published) only while helpers may call it; see `WorkerPool::run`.
unsafe impl Send for JobPtr {}

#[derive(Default)]
struct State {
    job: Option<JobPtr>,
    /// Bumped per job, so a helper runs each job exactly once.
    generation: u64,
    /// Helpers still inside the current job.
    active: usize,
    shutdown: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    work: Condvar,
    done: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Jobs run outside the lock, so a poisoned lock only means a panic
        // between plain field updates; the state is still consistent.
        sync::lock(&self.state)
    }
}

/// Helper threads that run jobs together with the submitting thread.
pub struct WorkerPool {
    shared: Arc<Shared>,
    helpers: Vec<thread::JoinHandle<()>>,
    /// Serializes jobs from different submitting threads.
    submit: Mutex<()>,
}

impl WorkerPool {
    /// A pool of `workers` workers in all: the submitting thread plus
    /// `workers - 1` unpinned helper threads.
    pub fn new(workers: usize) -> WorkerPool {
        WorkerPool::with_topology(&TaskTopology::unpinned(workers))
    }

    /// A pool laid out as `topology` says: worker 0 is the submitting
    /// thread; helper `i` is pinned to `topology.cpus[i]` when that is set
    /// (a failed pin leaves the helper unpinned) and gets the topology's
    /// stack size.
    pub fn with_topology(topology: &TaskTopology) -> WorkerPool {
        let shared = Arc::new(Shared::default());
        let helpers = (1..topology.workers())
            .map(|index| {
                let shared = shared.clone();
                let cpu = topology.cpu_of(index);
                sync::spawn(
                    format!("iree-worker-{index}"),
                    topology.stack_size,
                    move || {
                        if let Some(cpu) = cpu {
                            crate::topology::pin_current_thread(cpu);
                        }
                        helper_loop(&shared, index as u32)
                    },
                )
            })
            .collect();
        WorkerPool {
            shared,
            helpers,
            submit: Mutex::new(()),
        }
    }

    /// Workers in all, the submitting thread included.
    pub fn workers(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Calls `job(i)` once on every worker `i` (0 on the calling thread) and
    /// returns when all calls have returned. A panic in the calling thread's
    /// call propagates after the helpers finish.
    pub fn run(&self, job: &(dyn Fn(u32) + Sync)) {
        if self.helpers.is_empty() {
            return job(0);
        }
        let _one_job_at_a_time = sync::lock(&self.submit);
        let ptr: *const (dyn Fn(u32) + Sync + '_) = job;
        // SAFETY: only the lifetime changes. The pointer is published below
        // and withdrawn before this function returns, after every helper
        // has finished calling it (`active` reaches 0 under the lock, and a
        // helper never touches the job after decrementing it), so no call
        // outlives the borrow of `job`.
        let ptr: *const Job = unsafe { std::mem::transmute(ptr) };
        {
            let mut state = self.shared.lock();
            state.job = Some(JobPtr(ptr));
            state.generation += 1;
            state.active = self.helpers.len();
        }
        self.shared.work.notify_all();
        let own = catch_unwind(AssertUnwindSafe(|| job(0)));
        let mut state = self.shared.lock();
        while state.active > 0 {
            state = sync::wait(&self.shared.done, state);
        }
        state.job = None;
        drop(state);
        if let Err(panic) = own {
            std::panic::resume_unwind(panic);
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.work.notify_all();
        for helper in self.helpers.drain(..) {
            let _ = helper.join();
        }
    }
}

fn helper_loop(shared: &Shared, index: u32) {
    let mut seen = 0u64;
    loop {
        let job = {
            let mut state = shared.lock();
            while !state.shutdown && state.generation == seen {
                state = sync::wait(&shared.work, state);
            }
            if state.shutdown {
                return;
            }
            seen = state.generation;
            state.job.expect("a job is published with its generation")
        };
        // SAFETY: `run` keeps the job alive until this helper decrements
        // `active` below.
        let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)(index) }));
        let mut state = shared.lock();
        state.active -= 1;
        if state.active == 0 {
            shared.done.notify_all();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    #[test]
    fn every_worker_runs_each_job_once() {
        let pool = WorkerPool::new(4);
        assert_eq!(pool.workers(), 4);
        for round in 0..200u64 {
            let calls = AtomicUsize::new(0);
            let mask = AtomicU64::new(0);
            pool.run(&|i| {
                calls.fetch_add(1, Ordering::Relaxed);
                mask.fetch_or(1 << i, Ordering::Relaxed);
            });
            assert_eq!(calls.load(Ordering::Relaxed), 4, "round {round}");
            assert_eq!(mask.load(Ordering::Relaxed), 0b1111);
        }
    }

    #[test]
    fn jobs_from_several_threads_are_serialized() {
        let pool = Arc::new(WorkerPool::new(3));
        let total = Arc::new(AtomicUsize::new(0));
        let submitters: Vec<_> = (0..4)
            .map(|_| {
                let (pool, total) = (pool.clone(), total.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let local = AtomicUsize::new(0);
                        pool.run(&|_| {
                            local.fetch_add(1, Ordering::Relaxed);
                        });
                        assert_eq!(local.load(Ordering::Relaxed), 3);
                        total.fetch_add(3, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        for s in submitters {
            s.join().unwrap();
        }
        assert_eq!(total.load(Ordering::Relaxed), 4 * 50 * 3);
    }

    #[test]
    fn a_panicking_helper_does_not_hang_the_job() {
        let pool = WorkerPool::new(2);
        let ran = AtomicUsize::new(0);
        pool.run(&|i| {
            ran.fetch_add(1, Ordering::Relaxed);
            if i == 1 {
                panic!("helper failure (expected in this test)");
            }
        });
        assert_eq!(ran.load(Ordering::Relaxed), 2);
        // The pool still works afterwards.
        let again = AtomicUsize::new(0);
        pool.run(&|_| {
            again.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(again.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_single_worker_pool_runs_inline() {
        let pool = WorkerPool::new(1);
        let caller = std::thread::current().id();
        pool.run(&|i| {
            assert_eq!(i, 0);
            assert_eq!(std::thread::current().id(), caller);
        });
    }
}
