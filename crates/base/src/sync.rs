//! Synchronization primitives that the concurrency model checker can swap.
//!
//! Code whose protocol is model-checked (semaphores, the device queue, the
//! worker pool) takes its mutexes, condition variables, atomics and threads
//! from here. Normally these are `std`'s; built with `RUSTFLAGS="--cfg loom"`
//! they are [loom](https://docs.rs/loom)'s, and the `loom` tests explore every
//! interleaving of small scenarios. `Arc` stays `std`'s in both builds so the
//! public types do not change.
//!
//! Poisoning is ignored: protected state is only updated by short, panic-free
//! critical sections, so a poisoned lock still holds consistent state.

#[cfg(loom)]
pub use loom::sync::{atomic, Condvar, Mutex, MutexGuard};
#[cfg(loom)]
pub use loom::thread;
#[cfg(not(loom))]
pub use std::sync::{atomic, Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
pub use std::thread;

use std::time::Instant;

/// Locks `mutex`, ignoring poisoning.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Waits on `condvar`, ignoring poisoning.
pub fn wait<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar
        .wait(guard)
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Waits on `condvar` until woken or `deadline` passes, ignoring poisoning.
/// Callers re-check their condition and the clock afterwards.
pub fn wait_until<'a, T>(
    condvar: &Condvar,
    guard: MutexGuard<'a, T>,
    deadline: Instant,
) -> MutexGuard<'a, T> {
    let timeout = deadline.saturating_duration_since(Instant::now());
    match condvar.wait_timeout(guard, timeout) {
        Ok((guard, _)) => guard,
        Err(poisoned) => poisoned.into_inner().0,
    }
}
