//! Devices, drivers and the driver registry.
//!
//! A [`Device`] owns an allocator, prepares executables from the formats it
//! supports, answers `hal.device.query.i64`, and runs queue operations
//! ordered by fences: each operation waits for its wait fence, runs, then
//! signals its signal fence, or fails it with the operation's error so every
//! waiter sees the root cause. A [`Driver`] creates devices; the
//! [`DriverRegistry`] picks a driver from a `--device=` URI
//! (`local-sync`, `local-sync://`, `cuda://0`).

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

use crate::allocator::{Allocator, BufferParams};
use crate::buffer::Buffer;
use crate::channel::{Channel, ChannelParams};
use crate::command_buffer::{CommandBuffer, DispatchBinding, Executable};
use crate::file::QueueTransfer;
use crate::profiling::{ProfileCapture, ProfileRecorder, ProfilingMode};
use crate::semaphore::Fence;

/// A device (`iree_hal_device_t`).
pub trait Device: Send + Sync {
    /// The identifier matched by `hal.device.id` queries (`local-sync`).
    fn id(&self) -> &str;

    /// The device's allocator.
    fn allocator(&self) -> Arc<dyn Allocator>;

    /// Whether command buffers recorded for this device (reusable ones
    /// unless `one_shot`) leave dispatch checks to execution, as upstream's
    /// `local-sync` defers reusable command buffers
    /// ([`crate::CommandBuffer::with_dispatch_checks_at_execution`]).
    /// `false` by default: upstream's drivers check when recording.
    fn defers_dispatch_checks(&self, one_shot: bool) -> bool {
        let _ = one_shot;
        false
    }

    /// An empty command buffer for this device (`hal.command_buffer.create`)
    /// whose indirect bindings may use up to `binding_capacity` table
    /// slots, checking direct bindings against the device's allocator.
    fn create_command_buffer(&self, binding_capacity: u32) -> CommandBuffer {
        CommandBuffer::new(binding_capacity).with_allocator(self.allocator())
    }

    /// Answers `hal.device.query.i64`; NOT_FOUND for unknown keys.
    fn query_i64(&self, category: &str, key: &str) -> Result<i64>;

    /// Prepares an executable from a format string, its payload and its
    /// executable-level `constants` (`hal.executable.create`'s constants
    /// buffer, `hal.executable.constant.load` values). Drivers whose
    /// executables take such constants check the count against what the
    /// executable declares; others accept and ignore them.
    fn create_executable(
        &self,
        format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn Executable>>;

    /// Allocates a buffer once `wait` is reached, then signals `signal`.
    fn queue_alloca(
        &self,
        wait: &Fence,
        signal: &Fence,
        params: BufferParams,
        size: u64,
    ) -> Result<Buffer>;

    /// Releases a queue allocation (ordering only, for host memory).
    fn queue_dealloca(&self, wait: &Fence, signal: &Fence, buffer: &Buffer) -> Result<()>;

    /// Executes a command buffer (or nothing, as a barrier) with a binding table.
    fn queue_execute(
        &self,
        wait: &Fence,
        signal: &Fence,
        command_buffer: Option<&CommandBuffer>,
        binding_table: &[DispatchBinding],
    ) -> Result<()>;

    /// Runs a host-side operation in queue order (`queue.fill`, `copy`,
    /// `update`, `read`, `write`): once `wait` is reached, then signals
    /// `signal`. Returns the operation's error if it ran before the call
    /// returned. The default runs it inline on the calling thread, blocking
    /// on `wait`.
    fn queue_host_call(
        &self,
        wait: &Fence,
        signal: &Fence,
        op: Box<dyn FnOnce() -> Result<()> + Send>,
    ) -> Result<()> {
        run_queue_op(wait, signal, op)
    }

    /// Runs file reads and writes and pattern fills in queue order, one
    /// after another: once `wait` is reached, then signals `signal` (or
    /// fails it with the first error). The default runs them as one
    /// [`Device::queue_host_call`].
    fn queue_transfers(
        &self,
        wait: &Fence,
        signal: &Fence,
        transfers: Vec<QueueTransfer>,
    ) -> Result<()> {
        self.queue_host_call(
            wait,
            signal,
            Box::new(move || crate::file::run_transfers(&transfers)),
        )
    }

    /// Creates a collective channel (`hal.channel.create`). Drivers without
    /// collectives answer UNIMPLEMENTED; host-memory devices offer
    /// [`crate::channel::create_host_channel`].
    fn create_channel(&self, params: &ChannelParams) -> Result<Arc<dyn Channel>> {
        let _ = params;
        Err(Status::new(
            StatusCode::Unimplemented,
            format!(
                "collectives are not implemented by the {} device",
                self.id()
            ),
        ))
    }

    /// The device's profiling sink, when the driver feeds one; drivers
    /// that record nothing keep the default (`None`).
    fn profiler(&self) -> Option<&Arc<ProfileRecorder>> {
        None
    }

    /// Starts recording `mode` (`iree_hal_device_profiling_begin`);
    /// UNIMPLEMENTED on a device without a [`Device::profiler`].
    fn profiling_begin(&self, mode: ProfilingMode) -> Result<()> {
        match self.profiler() {
            Some(profiler) => profiler.begin(mode),
            None => Err(Status::new(
                StatusCode::Unimplemented,
                format!("device '{}' does not support profiling", self.id()),
            )),
        }
    }

    /// Stops recording and returns the capture
    /// (`iree_hal_device_profiling_end`).
    fn profiling_end(&self) -> Result<ProfileCapture> {
        match self.profiler() {
            Some(profiler) => profiler.end(),
            None => Err(Status::new(
                StatusCode::Unimplemented,
                format!("device '{}' does not support profiling", self.id()),
            )),
        }
    }
}

/// Runs `op` in queue order on the calling thread: waits for `wait`, runs,
/// then signals `signal`, or fails it (and returns the error) when the wait
/// or the operation fails.
pub fn run_queue_op<T>(wait: &Fence, signal: &Fence, op: impl FnOnce() -> Result<T>) -> Result<T> {
    match wait.wait(None).and_then(|()| op()) {
        Ok(value) => {
            signal.signal()?;
            Ok(value)
        }
        Err(status) => {
            signal.fail(status.clone());
            Err(status)
        }
    }
}

/// Matches `text` against a pattern with `*` (any run) and `?` (any one
/// character), as `hal.device.id` queries do.
pub fn match_pattern(text: &str, pattern: &str) -> bool {
    fn go(t: &[u8], p: &[u8]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some((b'*', rest)) => (0..=t.len()).any(|i| go(&t[i..], rest)),
            Some((b'?', rest)) => !t.is_empty() && go(&t[1..], rest),
            Some((c, rest)) => t.first() == Some(c) && go(&t[1..], rest),
        }
    }
    go(text.as_bytes(), pattern.as_bytes())
}

/// A device a driver can create, as `--list_devices` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The path after `driver://`.
    pub path: String,
    /// A human-readable name.
    pub name: String,
}

/// Creates devices of one kind (`iree_hal_driver_t`).
pub trait Driver: Send + Sync {
    /// The driver name (`local-sync`).
    fn name(&self) -> &str;
    /// A one-line description, as `--list_drivers` prints it.
    fn description(&self) -> &str {
        ""
    }
    /// The devices available now.
    fn devices(&self) -> Result<Vec<DeviceInfo>>;
    /// Creates the device at `path` (empty for the default).
    fn create_device(&self, path: &str) -> Result<Arc<dyn Device>>;
}

/// The drivers available to a process.
#[derive(Default, Clone)]
pub struct DriverRegistry {
    drivers: Vec<Arc<dyn Driver>>,
}

impl DriverRegistry {
    /// An empty registry.
    pub fn new() -> DriverRegistry {
        DriverRegistry::default()
    }

    /// Adds a driver; a second driver with the same name is an error.
    pub fn register(&mut self, driver: Arc<dyn Driver>) -> Result<()> {
        if self.find(driver.name()).is_some() {
            return Err(Status::new(
                StatusCode::AlreadyExists,
                format!("a driver named '{}' is already registered", driver.name()),
            ));
        }
        self.drivers.push(driver);
        Ok(())
    }

    /// The registered drivers, in registration order.
    pub fn drivers(&self) -> &[Arc<dyn Driver>] {
        &self.drivers
    }

    /// The driver called `name`.
    pub fn find(&self, name: &str) -> Option<&Arc<dyn Driver>> {
        self.drivers.iter().find(|d| d.name() == name)
    }

    /// Creates a device from a URI: `driver`, `driver://` or `driver://path`.
    pub fn create_device(&self, uri: &str) -> Result<Arc<dyn Device>> {
        let (name, path) = match uri.split_once("://") {
            Some((name, path)) => (name, path),
            None => (uri, ""),
        };
        let driver = self.find(name).ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!(
                    "no driver '{name}' registered; available: {}",
                    self.drivers
                        .iter()
                        .map(|d| d.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        driver.create_device(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semaphore::Fence;

    #[test]
    fn patterns_match_like_upstream() {
        assert!(match_pattern("local-sync", "local*"));
        assert!(match_pattern("local-sync", "local-sync"));
        assert!(match_pattern("local-sync", "*sync"));
        assert!(match_pattern("local-sync", "l?cal-*"));
        assert!(!match_pattern("local-sync", "cuda*"));
        assert!(!match_pattern("local-sync", "local"));
        assert!(match_pattern("", "*"));
    }

    #[test]
    fn queue_ops_signal_or_fail_their_fence() {
        let (wait, signal) = (Fence::new(), Fence::with_new_semaphore());
        assert_eq!(run_queue_op(&wait, &signal, || Ok(5)).unwrap(), 5);
        assert!(signal.query().unwrap());
        let failing = Fence::with_new_semaphore();
        let err = run_queue_op(&wait, &failing, || -> Result<()> {
            Err(Status::new(StatusCode::DataLoss, "kernel failed"))
        })
        .unwrap_err();
        assert_eq!(err.code(), StatusCode::DataLoss);
        assert_eq!(failing.wait(None).unwrap_err().message(), "kernel failed");
        // A failed wait fence fails the signal fence with the same cause.
        let chained = Fence::with_new_semaphore();
        assert_eq!(
            run_queue_op(&failing, &chained, || Ok(()))
                .unwrap_err()
                .code(),
            StatusCode::DataLoss
        );
        assert_eq!(chained.query().unwrap_err().code(), StatusCode::DataLoss);
    }
}
