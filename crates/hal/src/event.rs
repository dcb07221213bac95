//! Events (`iree_hal_event_t`): split barriers recorded in command buffers.
//! A command buffer signals or resets an event and later commands wait on
//! it. Local devices execute commands in order, so by the time a wait runs
//! every earlier signal has happened: a wait checks that, and never blocks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

/// A device-side event; starts unsignaled.
#[derive(Debug, Default)]
pub struct Event {
    signaled: AtomicBool,
}

impl Event {
    /// A new unsignaled event.
    pub fn new() -> Arc<Event> {
        Arc::new(Event::default())
    }

    /// Marks the event signaled.
    pub fn signal(&self) {
        self.signaled.store(true, Ordering::Release);
    }

    /// Returns the event to unsignaled.
    pub fn reset(&self) {
        self.signaled.store(false, Ordering::Release);
    }

    /// Whether the event is signaled.
    pub fn is_signaled(&self) -> bool {
        self.signaled.load(Ordering::Acquire)
    }

    /// Checks that the event was signaled by an earlier command: with
    /// in-order execution, waiting on one that was not would wait forever.
    pub fn check_signaled(&self) -> Result<()> {
        if self.is_signaled() {
            Ok(())
        } else {
            Err(Status::new(
                StatusCode::FailedPrecondition,
                "waiting on an event that no earlier command signaled would never complete",
            ))
        }
    }
}
