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

/// Locks `mutex` if no one holds it, ignoring poisoning; `None` when held.
pub fn try_lock<T>(mutex: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match mutex.try_lock() {
        Ok(guard) => Some(guard),
        Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
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

/// Spawns a named thread (`stack_size` 0: the platform default). Under loom
/// the name and stack size are ignored. Panics if the OS cannot create the
/// thread, as `std::thread::spawn` does.
#[cfg(not(loom))]
pub fn spawn(
    name: String,
    stack_size: usize,
    f: impl FnOnce() + Send + 'static,
) -> thread::JoinHandle<()> {
    let mut builder = thread::Builder::new().name(name.clone());
    if stack_size > 0 {
        builder = builder.stack_size(stack_size);
    }
    builder
        .spawn(f)
        .unwrap_or_else(|e| panic!("spawning thread '{name}': {e}"))
}

/// Spawns a model thread (loom build; name and stack size are ignored).
#[cfg(loom)]
pub fn spawn(
    _name: String,
    _stack_size: usize,
    f: impl FnOnce() + Send + 'static,
) -> thread::JoinHandle<()> {
    thread::spawn(f)
}
