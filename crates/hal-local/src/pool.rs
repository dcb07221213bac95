//! A persistent pool of worker threads for `local-task` dispatches.
//!
//! One job runs at a time. The submitting thread publishes a borrowed
//! closure and runs it itself as worker 0; helpers join while the job is
//! open: those already awake at once, sleeping ones when the submitter
//! calls [`WorkerPool::wake_helpers`] (a region does as it starts). When
//! worker 0's call returns, the job closes: a helper that has not joined by
//! then never touches it, and `run` waits only for the helpers that did
//! join. A short job therefore never waits for a thread to wake up (before,
//! every job waited for every helper: ~12 us per two-tile region on a VM),
//! and returning only after every joined call has returned is what makes
//! lending the borrowed closure to long-lived threads sound. Helpers that panic still leave the job, so a
//! failed job can never leave `run` waiting forever. A thread that submits
//! while another thread's job holds the pool runs its job alone instead of
//! waiting.

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
    /// Bumped per job, so a helper considers each job once.
    generation: u64,
    /// Whether helpers may still join the current job.
    open: bool,
    /// Helpers inside the current job.
    entered: usize,
    /// Helpers blocked waiting for work (a wake-up is needed only then).
    sleeping: usize,
    /// Whether the submitter waits for `entered` to reach 0.
    submitter_waiting: bool,
    shutdown: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    work: Condvar,
    done: Condvar,
    /// `State::generation`, readable without the lock by spinning helpers.
    published: sync::atomic::AtomicU64,
    /// `State::entered`, readable without the lock by the spinning
    /// submitter (a hint: the submitter checks `entered` under the lock).
    inside: sync::atomic::AtomicUsize,
}

/// How long a helper that has just left a job polls for the next one
/// before it sleeps. A model's dispatches follow one another within tens of
/// microseconds; a helper still polling joins the next region without a
/// futex wake-up and sleep (measured: ~20% of a PP-OCR classifier call on
/// local-task went to waking and rescheduling helpers). Once per idle
/// period, so an idle pool sleeps after this long.
#[cfg(not(loom))]
const SPIN_AFTER_JOB: std::time::Duration = std::time::Duration::from_micros(50);

/// How long the submitter polls for the helpers still inside a job before
/// it sleeps. They are finishing their last tile, usually within a few
/// microseconds; a sleeping submitter instead pays a futex wake-up, which
/// on a virtual machine whose idle vCPU has halted takes 40-50 us
/// (measured: the p90 gap between silero-vad's dispatches on local-task).
#[cfg(not(loom))]
const SPIN_FOR_HELPERS: std::time::Duration = std::time::Duration::from_micros(200);

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

    /// Runs `job(0)` on the calling thread while helpers `i` may join with
    /// `job(i)` (each at most once); returns when every call that started
    /// has returned. A panic in the calling thread's call propagates after
    /// the helpers that joined have finished.
    pub fn run(&self, job: &(dyn Fn(u32) + Sync)) {
        if self.helpers.is_empty() {
            return job(0);
        }
        // Another thread's job holds the pool (two callers of one model on
        // local-task): this one runs alone on its own thread rather than
        // waiting for the pool, so concurrent callers use their own cores.
        let Some(_one_job_at_a_time) = sync::try_lock(&self.submit) else {
            return job(0);
        };
        let ptr: *const (dyn Fn(u32) + Sync + '_) = job;
        // SAFETY: only the lifetime changes. The pointer is published below
        // and withdrawn before this function returns: helpers take it only
        // while the job is open (under the lock), the job closes before the
        // wait below, and the wait ends when every helper that took it has
        // left (a helper never touches the job after decrementing
        // `entered`), so no call outlives the borrow of `job`.
        let ptr: *const Job = unsafe { std::mem::transmute(ptr) };
        {
            let mut state = self.shared.lock();
            state.job = Some(JobPtr(ptr));
            state.generation += 1;
            state.open = true;
            self.shared
                .published
                .store(state.generation, sync::atomic::Ordering::Release);
        }
        let own = catch_unwind(AssertUnwindSafe(|| job(0)));
        let mut state = self.shared.lock();
        state.open = false;
        #[cfg(not(loom))]
        if state.entered > 0 {
            drop(state);
            spin_until_helpers_left(&self.shared);
            state = self.shared.lock();
        }
        while state.entered > 0 {
            state.submitter_waiting = true;
            state = sync::wait(&self.shared.done, state);
        }
        state.submitter_waiting = false;
        state.job = None;
        drop(state);
        if let Err(panic) = own {
            std::panic::resume_unwind(panic);
        }
    }

    /// Wakes the sleeping helpers so that they join the current job (from
    /// inside `run`'s `job(0)`); costs only a lock when none sleeps.
    pub fn wake_helpers(&self) {
        let sleeping = self.shared.lock().sleeping;
        if sleeping > 0 {
            self.shared.work.notify_all();
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
    let mut may_spin = false;
    loop {
        let job = {
            let mut state = shared.lock();
            loop {
                if state.shutdown {
                    return;
                }
                if state.generation != seen {
                    seen = state.generation;
                    if state.open {
                        state.entered += 1;
                        shared
                            .inside
                            .store(state.entered, sync::atomic::Ordering::Relaxed);
                        break state.job.expect("an open job is published");
                    }
                    // Closed before this helper got to it.
                    continue;
                }
                #[cfg(loom)]
                let _ = std::mem::take(&mut may_spin);
                #[cfg(not(loom))]
                if std::mem::take(&mut may_spin) {
                    drop(state);
                    spin_for_job(shared, seen);
                    state = shared.lock();
                    continue;
                }
                state.sleeping += 1;
                state = sync::wait(&shared.work, state);
                state.sleeping -= 1;
            }
        };
        // SAFETY: `run` keeps the job alive until this helper decrements
        // `entered` below.
        let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)(index) }));
        let mut state = shared.lock();
        state.entered -= 1;
        shared
            .inside
            .store(state.entered, sync::atomic::Ordering::Release);
        if state.entered == 0 && state.submitter_waiting {
            shared.done.notify_all();
        }
        may_spin = true;
    }
}

/// Polls for a job newer than `seen` for at most [`SPIN_AFTER_JOB`].
#[cfg(not(loom))]
fn spin_for_job(shared: &Shared, seen: u64) {
    poll(SPIN_AFTER_JOB, || {
        shared.published.load(sync::atomic::Ordering::Acquire) != seen
    });
}

/// Polls until no helper is inside the current job, for at most
/// [`SPIN_FOR_HELPERS`]; the caller then checks under the lock.
#[cfg(not(loom))]
fn spin_until_helpers_left(shared: &Shared) {
    poll(SPIN_FOR_HELPERS, || {
        shared.inside.load(sync::atomic::Ordering::Acquire) == 0
    });
}

/// Polls `done` until it holds or `limit` has passed. After the first
/// [`YIELD_AFTER`] it yields the CPU between looks: the thread it waits
/// for may be runnable on this very CPU (more threads than cores: two
/// callers of one model on local-task), and a pure spin would keep it off
/// until the limit.
#[cfg(not(loom))]
fn poll(limit: std::time::Duration, done: impl Fn() -> bool) {
    let start = std::time::Instant::now();
    loop {
        for _ in 0..64 {
            if done() {
                return;
            }
            std::hint::spin_loop();
        }
        let waited = start.elapsed();
        if waited >= limit {
            return;
        }
        if waited >= YIELD_AFTER {
            std::thread::yield_now();
        }
    }
}

/// How long [`poll`] spins before it also yields between looks.
#[cfg(not(loom))]
const YIELD_AFTER: std::time::Duration = std::time::Duration::from_micros(10);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    /// Runs a job whose worker 0 wakes the helpers and waits (bounded)
    /// until they have all joined; returns the workers that ran it.
    fn run_waking(pool: &WorkerPool) -> u64 {
        let mask = AtomicU64::new(0);
        let all = (1u64 << pool.workers()) - 1;
        pool.run(&|i| {
            mask.fetch_or(1 << i, Ordering::SeqCst);
            if i == 0 {
                pool.wake_helpers();
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                while mask.load(Ordering::SeqCst) != all && std::time::Instant::now() < deadline {
                    std::thread::yield_now();
                }
            }
        });
        mask.load(Ordering::SeqCst)
    }

    #[test]
    fn woken_helpers_join_each_job_once() {
        let pool = WorkerPool::new(4);
        assert_eq!(pool.workers(), 4);
        for round in 0..200u64 {
            assert_eq!(run_waking(&pool), 0b1111, "round {round}");
        }
    }

    #[test]
    fn no_call_outlives_run_and_worker_0_always_runs() {
        let pool = WorkerPool::new(3);
        for _ in 0..500 {
            let returned = std::sync::atomic::AtomicBool::new(false);
            let calls = AtomicUsize::new(0);
            let mask = AtomicU64::new(0);
            pool.run(&|i| {
                assert!(!returned.load(Ordering::SeqCst));
                calls.fetch_add(1, Ordering::SeqCst);
                mask.fetch_or(1 << i, Ordering::SeqCst);
            });
            returned.store(true, Ordering::SeqCst);
            assert!(calls.load(Ordering::SeqCst) <= 3);
            assert_eq!(mask.load(Ordering::SeqCst) & 1, 1);
        }
    }

    #[test]
    fn jobs_from_several_threads_run_once_each() {
        // A submitter finding the pool busy runs its job alone; every job
        // still runs once on worker 0 and at most once on each helper.
        let pool = Arc::new(WorkerPool::new(3));
        let alone = Arc::new(AtomicUsize::new(0));
        let submitters: Vec<_> = (0..4)
            .map(|_| {
                let (pool, alone) = (pool.clone(), alone.clone());
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        let calls: [AtomicUsize; 3] = Default::default();
                        pool.run(&|i| {
                            calls[i as usize].fetch_add(1, Ordering::SeqCst);
                            if i == 0 {
                                pool.wake_helpers();
                            }
                        });
                        let calls = calls.map(|c| c.into_inner());
                        assert_eq!(calls[0], 1);
                        assert!(calls.iter().all(|&n| n <= 1), "{calls:?}");
                        if calls[1..].iter().all(|&n| n == 0) {
                            alone.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                })
            })
            .collect();
        for s in submitters {
            s.join().unwrap();
        }
        assert!(alone.load(Ordering::Relaxed) <= 4 * 200);
    }

    #[test]
    fn a_panicking_helper_does_not_hang_the_job() {
        let pool = WorkerPool::new(2);
        let ran = AtomicUsize::new(0);
        pool.run(&|i| {
            ran.fetch_add(1, Ordering::SeqCst);
            if i == 0 {
                pool.wake_helpers();
                while ran.load(Ordering::SeqCst) < 2 {
                    std::thread::yield_now();
                }
            }
            if i == 1 {
                panic!("helper failure (expected in this test)");
            }
        });
        assert_eq!(ran.load(Ordering::SeqCst), 2);
        // The pool still works afterwards.
        assert_eq!(run_waking(&pool), 0b11);
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
