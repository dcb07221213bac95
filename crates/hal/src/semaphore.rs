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

use std::sync::Arc;
use std::time::Instant;

use iree_base::{Result, Status, StatusCode};
use parking_lot::{Condvar, Mutex};

/// When to stop waiting: `None` waits forever.
pub type Deadline = Option<Instant>;

struct State {
    value: u64,
    failure: Option<Status>,
}

/// A timeline semaphore (`iree_hal_semaphore_t`).
pub struct Semaphore {
    state: Mutex<State>,
    changed: Condvar,
}

impl Semaphore {
    /// A semaphore starting at `initial_value`.
    pub fn new(initial_value: u64) -> Arc<Semaphore> {
        Arc::new(Semaphore {
            state: Mutex::new(State {
                value: initial_value,
                failure: None,
            }),
            changed: Condvar::new(),
        })
    }

    /// The current payload, or the failure.
    pub fn query(&self) -> Result<u64> {
        let state = self.state.lock();
        match &state.failure {
            Some(failure) => Err(failure.clone()),
            None => Ok(state.value),
        }
    }

    /// Advances the payload to `value` and wakes waiters it satisfies.
    /// Fails when `value` does not increase the payload, or when the
    /// semaphore has failed (returning the failure).
    pub fn signal(&self, value: u64) -> Result<()> {
        let mut state = self.state.lock();
        if let Some(failure) = &state.failure {
            return Err(failure.clone());
        }
        if value <= state.value {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "semaphore values must be monotonically increasing; current={}, new={value}",
                    state.value
                ),
            ));
        }
        state.value = value;
        drop(state);
        self.changed.notify_all();
        Ok(())
    }

    /// Fails the semaphore with `status` (the first failure wins) and wakes
    /// every waiter.
    pub fn fail(&self, status: Status) {
        let mut state = self.state.lock();
        if state.failure.is_none() {
            state.failure = Some(status);
        }
        drop(state);
        self.changed.notify_all();
    }

    /// Waits until the payload reaches `value`. Returns DEADLINE_EXCEEDED if
    /// `deadline` passes first (an already-passed deadline polls), or the
    /// failure that failed the semaphore.
    pub fn wait(&self, value: u64, deadline: Deadline) -> Result<()> {
        let mut state = self.state.lock();
        loop {
            if let Some(failure) = &state.failure {
                return Err(failure
                    .clone()
                    .annotate("while waiting on a failed semaphore"));
            }
            if state.value >= value {
                return Ok(());
            }
            match deadline {
                None => self.changed.wait(&mut state),
                Some(deadline) => {
                    if Instant::now() >= deadline {
                        return Err(Status::new(
                            StatusCode::DeadlineExceeded,
                            "semaphore wait timed out",
                        ));
                    }
                    // Woken or timed out: the loop re-checks the state first.
                    let _ = self.changed.wait_until(&mut state, deadline);
                }
            }
        }
    }
}

/// A set of semaphore timepoints (`iree_hal_fence_t`); a semaphore appears
/// at most once, at the largest value inserted for it.
#[derive(Clone, Default)]
pub struct Fence {
    timepoints: Vec<(Arc<Semaphore>, u64)>,
}

impl Fence {
    /// An empty fence (already signaled).
    pub fn new() -> Fence {
        Fence::default()
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
        for fence in fences {
            for (semaphore, value) in &fence.timepoints {
                joined.insert(semaphore.clone(), *value);
            }
        }
        joined
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
}
