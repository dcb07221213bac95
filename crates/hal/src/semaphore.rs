//! Timeline semaphores and fences.
//!
//! A [`Semaphore`] holds a monotonically increasing `u64` payload. Waiters
//! block (on a condition variable, never polling) until the payload reaches
//! their value, the deadline passes, or the semaphore fails. A failure keeps
//! the status that caused it, and every waiter, current and future, receives
//! that root cause (annotated with where it was observed) rather than a
//! generic "aborted": the class of bug upstream tracked as #17962.
//!
//! A [`Fence`] is a set of (semaphore, value) timepoints, the unit the `hal`
//! module passes around (`hal.fence.*`).

use smallvec::SmallVec;
use std::sync::Arc;
use std::time::Instant;

use iree_base::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use iree_base::sync::{self, Condvar, Mutex};
use iree_base::{Result, Status, StatusCode};

/// When to stop waiting: `None` waits forever.
pub type Deadline = Option<Instant>;

/// Called once when a timepoint is reached (`Ok`) or its semaphore fails
/// (`Err` with the root cause). Runs on the thread that signals or fails the
/// semaphore (or on the registering thread when already resolved), outside
/// every semaphore lock; it should only hand work off.
pub type TimepointCallback = Box<dyn FnOnce(Result<()>) + Send>;

struct State {
    failure: Option<Status>,
    /// Registered callbacks with the value each waits for.
    callbacks: Vec<(u64, TimepointCallback)>,
    /// Threads blocked in `wait` (no wake-up syscall when there are none).
    waiters: usize,
}

/// A timeline semaphore (`iree_hal_semaphore_t`).
///
/// The payload is also published in an atomic so `query` (the common
/// "already reached?" check of every queue submission) takes no lock; it is
/// only written under the lock.
pub struct Semaphore {
    state: Mutex<State>,
    changed: Condvar,
    value: AtomicU64,
    failed: AtomicBool,
}

impl Semaphore {
    /// A semaphore starting at `initial_value`.
    pub fn new(initial_value: u64) -> Arc<Semaphore> {
        Arc::new(Semaphore {
            state: Mutex::new(State {
                failure: None,
                callbacks: Vec::new(),
                waiters: 0,
            }),
            changed: Condvar::new(),
            value: AtomicU64::new(initial_value),
            failed: AtomicBool::new(false),
        })
    }

    /// Back to payload 0 with no failure (nobody else holds it, so nothing
    /// waits on it and no callback is registered).
    fn reset(&mut self) {
        let state = self
            .state
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state.failure = None;
        state.callbacks.clear();
        // Plain stores: the `&mut` excludes every other access.
        self.failed.store(false, Ordering::Relaxed);
        self.value.store(0, Ordering::Relaxed);
    }

    /// The current payload, or the failure.
    #[inline]
    pub fn query(&self) -> Result<u64> {
        if !self.failed.load(Ordering::Acquire) {
            return Ok(self.value.load(Ordering::Acquire));
        }
        let state = sync::lock(&self.state);
        Err(state.failure.clone().expect("set before `failed`"))
    }

    /// Advances the payload to `value`, wakes the waiters and runs the
    /// callbacks it satisfies. Fails when `value` does not increase the
    /// payload, or when the semaphore has failed (returning the failure).
    pub fn signal(&self, value: u64) -> Result<()> {
        let mut state = sync::lock(&self.state);
        if let Some(failure) = &state.failure {
            return Err(failure.clone());
        }
        let current = self.value.load(Ordering::Relaxed);
        if value <= current {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "semaphore values must be monotonically increasing; current={current}, new={value}"
                ),
            ));
        }
        self.value.store(value, Ordering::Release);
        let mut ready = Vec::new();
        let mut index = 0;
        while index < state.callbacks.len() {
            if state.callbacks[index].0 <= value {
                ready.push(state.callbacks.swap_remove(index).1);
            } else {
                index += 1;
            }
        }
        let wake = state.waiters > 0;
        drop(state);
        if wake {
            self.changed.notify_all();
        }
        for callback in ready {
            callback(Ok(()));
        }
        Ok(())
    }

    /// Fails the semaphore with `status` (the first failure wins), wakes
    /// every waiter and runs every callback with the failure.
    pub fn fail(&self, status: Status) {
        let mut state = sync::lock(&self.state);
        if state.failure.is_none() {
            state.failure = Some(status);
            self.failed.store(true, Ordering::Release);
        }
        let failure = state.failure.clone().expect("set above");
        let callbacks = std::mem::take(&mut state.callbacks);
        let wake = state.waiters > 0;
        drop(state);
        if wake {
            self.changed.notify_all();
        }
        for (_, callback) in callbacks {
            callback(Err(failure.clone()));
        }
    }

    /// Calls `callback` once the payload reaches `value` (with `Ok`) or the
    /// semaphore fails (with the failure); immediately, on this thread, when
    /// either has already happened. No thread blocks or polls meanwhile.
    pub fn notify_at(&self, value: u64, callback: TimepointCallback) {
        let mut state = sync::lock(&self.state);
        let outcome = if let Some(failure) = &state.failure {
            Err(failure.clone())
        } else if self.value.load(Ordering::Acquire) >= value {
            Ok(())
        } else {
            state.callbacks.push((value, callback));
            return;
        };
        drop(state);
        callback(outcome);
    }

    /// Waits until the payload reaches `value`. Returns DEADLINE_EXCEEDED if
    /// `deadline` passes first (an already-passed deadline polls), or the
    /// failure that failed the semaphore.
    pub fn wait(&self, value: u64, deadline: Deadline) -> Result<()> {
        let mut state = sync::lock(&self.state);
        // Entered only when the wait blocks: a span of how long it blocked.
        let mut blocked = None;
        loop {
            if let Some(failure) = &state.failure {
                return Err(failure
                    .clone()
                    .annotate("while waiting on a failed semaphore"));
            }
            if self.value.load(Ordering::Acquire) >= value {
                return Ok(());
            }
            if let Some(deadline) = deadline {
                if Instant::now() >= deadline {
                    return Err(Status::new(
                        StatusCode::DeadlineExceeded,
                        "semaphore wait timed out",
                    ));
                }
            }
            blocked
                .get_or_insert_with(|| tracing::trace_span!("hal.semaphore.wait", value).entered());
            state.waiters += 1;
            state = match deadline {
                None => sync::wait(&self.changed, state),
                // Woken or timed out: the loop re-checks the state first.
                Some(deadline) => sync::wait_until(&self.changed, state, deadline),
            };
            state.waiters -= 1;
        }
    }
}

/// Semaphores kept for reuse (upstream pools its semaphores too): a fence
/// that is recycled gives back the semaphores nobody else holds, reset to
/// payload 0, and new fences take them instead of allocating.
#[derive(Default)]
pub struct SemaphorePool {
    free: Vec<Arc<Semaphore>>,
}

impl SemaphorePool {
    /// The most semaphores kept.
    const CAPACITY: usize = 64;

    /// A semaphore at payload 0 that nobody else holds.
    pub fn take(&mut self) -> Arc<Semaphore> {
        self.free.pop().unwrap_or_else(|| Semaphore::new(0))
    }

    /// Empties `fence`, keeping for reuse the semaphores only it held.
    pub fn recycle(&mut self, fence: &mut Fence) {
        for (mut semaphore, _) in fence.timepoints.drain(..) {
            if self.free.len() >= Self::CAPACITY || Arc::strong_count(&semaphore) != 1 {
                continue;
            }
            if let Some(unique) = Arc::get_mut(&mut semaphore) {
                unique.reset();
                self.free.push(semaphore);
            }
        }
    }
}

/// The shared countdown of one [`Fence::notify`]: the callback runs once,
/// when the last timepoint arrives or at the first failure.
struct FenceJoin {
    remaining: AtomicUsize,
    callback: Mutex<Option<TimepointCallback>>,
}

impl FenceJoin {
    fn arrive(&self, outcome: Result<()>) {
        let fire = match &outcome {
            Ok(()) => self.remaining.fetch_sub(1, Ordering::AcqRel) == 1,
            Err(_) => true,
        };
        if fire {
            // Taking the callback under the lock makes it run exactly once,
            // whichever arrival (the last success or the first failure) wins.
            let callback = sync::lock(&self.callback).take();
            if let Some(callback) = callback {
                callback(outcome);
            }
        }
    }
}

/// A set of semaphore timepoints (`iree_hal_fence_t`); a semaphore appears
/// at most once, at the largest value inserted for it.
#[derive(Clone, Default)]
pub struct Fence {
    /// Almost every fence has one or two timepoints (two: a join of the
    /// fences of two allocations before an execute): kept inline, a fence
    /// costs no allocation of its own.
    timepoints: SmallVec<[(Arc<Semaphore>, u64); 2]>,
}

impl Fence {
    /// An empty fence (already signaled).
    pub const fn new() -> Fence {
        Fence {
            timepoints: SmallVec::new_const(),
        }
    }

    /// A fence over one new semaphore at value 1 that [`Fence::signal`] signals.
    pub fn with_new_semaphore() -> Fence {
        let mut fence = Fence::new();
        fence.insert(Semaphore::new(0), 1);
        fence
    }

    /// Adds a timepoint, keeping the maximum value per semaphore.
    pub fn insert(&mut self, semaphore: Arc<Semaphore>, value: u64) {
        match self
            .timepoints
            .iter_mut()
            .find(|(s, _)| Arc::ptr_eq(s, &semaphore))
        {
            Some((_, existing)) => *existing = (*existing).max(value),
            None => self.timepoints.push((semaphore, value)),
        }
    }

    /// The union of `fences` (`hal.fence.join`).
    pub fn join<'a>(fences: impl IntoIterator<Item = &'a Fence>) -> Fence {
        let mut joined = Fence::new();
        joined.insert_all(fences);
        joined
    }

    /// Adds every timepoint of `fences` ([`Fence::insert`] each).
    #[inline]
    pub fn insert_all<'a>(&mut self, fences: impl IntoIterator<Item = &'a Fence>) {
        for fence in fences {
            for (semaphore, value) in &fence.timepoints {
                self.insert(semaphore.clone(), *value);
            }
        }
    }

    /// The timepoints.
    pub fn timepoints(&self) -> &[(Arc<Semaphore>, u64)] {
        &self.timepoints
    }

    /// `Ok(true)` when every timepoint is reached, `Ok(false)` while any is
    /// pending, or the first failure.
    pub fn query(&self) -> Result<bool> {
        let mut reached = true;
        for (semaphore, value) in &self.timepoints {
            reached &= semaphore.query()? >= *value;
        }
        Ok(reached)
    }

    /// Signals every timepoint.
    pub fn signal(&self) -> Result<()> {
        for (semaphore, value) in &self.timepoints {
            if semaphore.query()? < *value {
                semaphore.signal(*value)?;
            }
        }
        Ok(())
    }

    /// Fails every semaphore with `status`.
    pub fn fail(&self, status: Status) {
        for (semaphore, _) in &self.timepoints {
            semaphore.fail(status.clone());
        }
    }

    /// Calls `callback` once every timepoint is reached (`Ok`) or at the
    /// first failure among them (`Err` with its root cause); immediately when
    /// already resolved. See [`Semaphore::notify_at`] for where it runs.
    pub fn notify(&self, callback: TimepointCallback) {
        if self.timepoints.is_empty() {
            return callback(Ok(()));
        }
        let join = Arc::new(FenceJoin {
            remaining: AtomicUsize::new(self.timepoints.len()),
            callback: Mutex::new(Some(callback)),
        });
        for (semaphore, value) in &self.timepoints {
            let join = join.clone();
            semaphore.notify_at(*value, Box::new(move |outcome| join.arrive(outcome)));
        }
    }

    /// Waits for every timepoint (or the first failure, or the deadline).
    pub fn wait(&self, deadline: Deadline) -> Result<()> {
        for (semaphore, value) in &self.timepoints {
            semaphore.wait(*value, deadline)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn signal_and_wait_across_threads() {
        let s = Semaphore::new(0);
        let waiter = {
            let s = s.clone();
            std::thread::spawn(move || s.wait(3, None))
        };
        s.signal(1).unwrap();
        s.signal(3).unwrap();
        waiter.join().unwrap().unwrap();
        assert_eq!(s.query().unwrap(), 3);
        assert_eq!(s.signal(3).unwrap_err().code(), StatusCode::OutOfRange);
    }

    #[test]
    fn timeouts_report_deadline_exceeded() {
        let s = Semaphore::new(0);
        let err = s
            .wait(1, Some(Instant::now() + Duration::from_millis(10)))
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::DeadlineExceeded);
        // A past deadline polls.
        assert_eq!(
            s.wait(1, Some(Instant::now())).unwrap_err().code(),
            StatusCode::DeadlineExceeded
        );
        s.wait(0, Some(Instant::now())).unwrap();
    }

    #[test]
    fn failures_reach_every_waiter_with_the_root_cause() {
        let s = Semaphore::new(0);
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let s = s.clone();
                std::thread::spawn(move || s.wait(10, None))
            })
            .collect();
        std::thread::sleep(Duration::from_millis(20));
        s.fail(Status::new(
            StatusCode::OutOfRange,
            "kernel wrote past its binding",
        ));
        s.fail(Status::new(
            StatusCode::Aborted,
            "later failures do not replace the first",
        ));
        for w in waiters {
            let err = w.join().unwrap().unwrap_err();
            assert_eq!(err.code(), StatusCode::OutOfRange);
            assert_eq!(err.message(), "kernel wrote past its binding");
        }
        assert_eq!(s.query().unwrap_err().code(), StatusCode::OutOfRange);
        assert_eq!(s.signal(20).unwrap_err().code(), StatusCode::OutOfRange);
    }

    #[test]
    fn fences_join_query_signal_and_fail() {
        let a = Fence::with_new_semaphore();
        let b = Fence::with_new_semaphore();
        let mut dup = a.clone();
        dup.insert(a.timepoints()[0].0.clone(), 5);
        assert_eq!(dup.timepoints().len(), 1);
        assert_eq!(dup.timepoints()[0].1, 5);
        let joined = Fence::join([&a, &b]);
        assert_eq!(joined.timepoints().len(), 2);
        assert!(!joined.query().unwrap());
        a.signal().unwrap();
        assert!(!joined.query().unwrap());
        b.signal().unwrap();
        assert!(joined.query().unwrap());
        joined.wait(None).unwrap();
        assert!(Fence::new().query().unwrap());
        let c = Fence::with_new_semaphore();
        c.fail(Status::new(StatusCode::Internal, "boom"));
        assert_eq!(c.wait(None).unwrap_err().code(), StatusCode::Internal);
    }

    /// Recycled semaphores come back at payload 0 without their failure;
    /// one that someone else still holds is not taken back.
    #[test]
    fn pooled_semaphores_are_reset_and_never_shared() {
        let mut pool = SemaphorePool::default();
        let mut fence = Fence::new();
        fence.insert(pool.take(), 1);
        fence.signal().unwrap();
        let mut failed = Fence::new();
        failed.insert(pool.take(), 1);
        failed.fail(Status::new(StatusCode::Internal, "boom"));
        let held = Fence::with_new_semaphore();
        let mut holder = held.clone();
        pool.recycle(&mut fence);
        pool.recycle(&mut failed);
        pool.recycle(&mut holder);
        assert!(fence.timepoints().is_empty() && holder.timepoints().is_empty());
        assert_eq!(pool.free.len(), 2);
        for _ in 0..2 {
            let semaphore = pool.take();
            assert_eq!(semaphore.query().unwrap(), 0);
            assert!(!Arc::ptr_eq(&semaphore, &held.timepoints()[0].0));
            semaphore.signal(1).unwrap();
        }
    }

    #[test]
    fn callbacks_run_once_when_reached_or_failed() {
        use std::sync::atomic::{AtomicU32, Ordering};
        let hits = Arc::new(AtomicU32::new(0));
        let s = Semaphore::new(0);
        let t = Semaphore::new(0);
        let mut fence = Fence::new();
        fence.insert(s.clone(), 2);
        fence.insert(t.clone(), 1);
        let h = hits.clone();
        fence.notify(Box::new(move |r| {
            r.unwrap();
            h.fetch_add(1, Ordering::SeqCst);
        }));
        s.signal(1).unwrap();
        t.signal(1).unwrap();
        assert_eq!(hits.load(Ordering::SeqCst), 0);
        s.signal(2).unwrap();
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        // Already reached: runs at once.
        let h = hits.clone();
        fence.notify(Box::new(move |r| {
            r.unwrap();
            h.fetch_add(1, Ordering::SeqCst);
        }));
        assert_eq!(hits.load(Ordering::SeqCst), 2);

        // The first failure wins and later arrivals do nothing.
        let u = Semaphore::new(0);
        let v = Semaphore::new(0);
        let mut fence = Fence::new();
        fence.insert(u.clone(), 1);
        fence.insert(v.clone(), 1);
        let h = hits.clone();
        fence.notify(Box::new(move |r| {
            assert_eq!(r.unwrap_err().message(), "root cause");
            h.fetch_add(10, Ordering::SeqCst);
        }));
        u.fail(Status::new(StatusCode::DataLoss, "root cause"));
        v.fail(Status::new(StatusCode::Aborted, "later"));
        assert_eq!(hits.load(Ordering::SeqCst), 12);
    }
}
