//! The local CPU drivers and their device: host memory from the heap
//! allocator, executables from the loaders it was given, and a [`Queue`]
//! that orders operations by their fences.
//!
//! `local-sync` runs each dispatch's workgroups on the calling thread, and
//! operations whose waits are pending on the thread that later satisfies
//! them; `local-task` spreads workgroups over its workers (a persistent
//! [`WorkerPool`] whose worker 0 is the thread running the operation) and
//! runs operations that became ready later on its queue executor thread.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::device::match_pattern;
use iree_hal::profiling::{EventKind, EventName, ProfileRecorder, Track};
use iree_hal::{
    Allocator, Buffer, BufferParams, BufferUsage, CommandBuffer, Device, DeviceInfo,
    DispatchBinding, Driver, Executable, Fence, HeapAllocator, MemoryType,
};

use crate::executable::{EmbeddedElfLoader, ExecutableLoader};
use crate::executor::{LocalExecutable, Runner};
use crate::pool::WorkerPool;
use crate::queue::{DeferredExecution, Queue};
use crate::topology::{TaskTopology, TaskTopologyOptions};

/// The executable format this host's embedded-ELF loader accepts
/// (`embedded-elf-x86_64` / `embedded-elf-arm_64`).
pub fn host_embedded_elf_format() -> &'static str {
    if cfg!(target_arch = "aarch64") {
        "embedded-elf-arm_64"
    } else {
        "embedded-elf-x86_64"
    }
}

/// Creates `local-sync` devices.
#[derive(Default)]
pub struct LocalSyncDriver;

/// Creates `local-task` devices, whose dispatches run on task workers laid
/// out by the `--task_*` flags (one per physical core by default).
#[derive(Default)]
pub struct LocalTaskDriver {
    options: TaskTopologyOptions,
}

impl LocalTaskDriver {
    /// A driver whose devices use the topology `options` resolve to.
    pub fn with_options(options: TaskTopologyOptions) -> LocalTaskDriver {
        LocalTaskDriver { options }
    }
}

/// The one device each local driver offers: `driver://`.
fn default_devices() -> Vec<DeviceInfo> {
    vec![DeviceInfo {
        path: String::new(),
        name: "default".to_string(),
    }]
}

/// Checks a local driver's device path: as upstream's `sync_driver.c` and
/// `task_driver.c`, only the empty path (the default device) exists; any
/// other (`local-sync://0` included) is NOT_FOUND.
fn check_default_path(driver: &str, path: &str) -> Result<()> {
    if path.is_empty() {
        Ok(())
    } else {
        Err(Status::new(
            StatusCode::NotFound,
            format!("device paths not yet implemented; creating device '{driver}://{path}'"),
        ))
    }
}

impl Driver for LocalTaskDriver {
    fn name(&self) -> &str {
        "local-task"
    }

    fn description(&self) -> &str {
        "Local execution using the IREE multithreading task system"
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(default_devices())
    }

    fn create_device(&self, path: &str) -> Result<Arc<dyn Device>> {
        check_default_path(self.name(), path)?;
        let topology = self.options.resolve()?;
        Ok(Arc::new(LocalDevice::with_topology(
            "local-task",
            &topology,
            default_loaders(),
        )))
    }
}

impl Driver for LocalSyncDriver {
    fn name(&self) -> &str {
        "local-sync"
    }

    fn description(&self) -> &str {
        "Local execution using a lightweight inline synchronous queue"
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(default_devices())
    }

    fn create_device(&self, path: &str) -> Result<Arc<dyn Device>> {
        check_default_path(self.name(), path)?;
        Ok(Arc::new(LocalDevice::new()))
    }
}

/// A CPU device; `local-sync` runs dispatches on one thread, `local-task`
/// on `workers` threads.
pub struct LocalDevice {
    id: &'static str,
    allocator: Arc<HeapAllocator>,
    workers: usize,
    /// Runs dispatches and command buffers (on the worker pool of
    /// `local-task`); shared, so a queued execution holds one reference.
    runner: Arc<Runner>,
    /// Executable loaders, asked in order.
    loaders: Vec<Arc<dyn ExecutableLoader>>,
    /// Orders queue operations by their fences.
    queue: Queue,
}

/// The `local-sync` device (a [`LocalDevice`] with one worker).
pub type LocalSyncDevice = LocalDevice;

/// The loaders every local device has unless told otherwise.
pub fn default_loaders() -> Vec<Arc<dyn ExecutableLoader>> {
    vec![
        Arc::new(EmbeddedElfLoader),
        Arc::new(crate::SystemLibraryLoader),
        Arc::new(crate::vmvx::VmvxLoader::new()),
    ]
}

impl LocalDevice {
    /// A `local-sync` device with a fresh heap allocator.
    pub fn new() -> LocalDevice {
        LocalDevice::with_workers("local-sync", 1)
    }

    /// A device named `id` running dispatches on up to `workers` threads,
    /// with the [`default_loaders`].
    pub fn with_workers(id: &'static str, workers: usize) -> LocalDevice {
        LocalDevice::with_loaders(id, workers, default_loaders())
    }

    /// A device named `id` running dispatches on up to `workers` threads and
    /// loading executables with `loaders` (asked in order).
    pub fn with_loaders(
        id: &'static str,
        workers: usize,
        loaders: Vec<Arc<dyn ExecutableLoader>>,
    ) -> LocalDevice {
        LocalDevice::with_topology(id, &TaskTopology::unpinned(workers), loaders)
    }

    /// A device named `id` whose workers are laid out as `topology` says,
    /// loading executables with `loaders` (asked in order).
    pub fn with_topology(
        id: &'static str,
        topology: &TaskTopology,
        loaders: Vec<Arc<dyn ExecutableLoader>>,
    ) -> LocalDevice {
        let workers = topology.workers().max(1);
        LocalDevice {
            id,
            allocator: HeapAllocator::new(),
            workers,
            runner: Arc::new(Runner::new(
                (workers > 1).then(|| Arc::new(WorkerPool::with_topology(topology))),
                topology.local_memory_limit,
            )),
            loaders,
            // One worker means no threads of our own (`local-sync`).
            queue: Queue::new(if workers > 1 {
                DeferredExecution::ExecutorThread
            } else {
                DeferredExecution::SignalingThread
            }),
        }
    }

    fn loader_for(&self, format: &str) -> Option<&Arc<dyn ExecutableLoader>> {
        self.loaders.iter().find(|l| l.supports(format))
    }
}

impl Default for LocalDevice {
    fn default() -> LocalDevice {
        LocalDevice::new()
    }
}

impl Device for LocalDevice {
    fn id(&self) -> &str {
        self.id
    }

    fn defers_dispatch_checks(&self, one_shot: bool) -> bool {
        // Upstream's local-sync records reusable command buffers deferred
        // and validates each dispatch as it replays them.
        self.id == "local-sync" && !one_shot
    }

    /// An MPI channel under an MPI launcher (or with MPI initialised),
    /// rank 0 of 1 otherwise; see [`iree_hal::channel`].
    fn create_channel(
        &self,
        params: &iree_hal::ChannelParams,
    ) -> Result<Arc<dyn iree_hal::Channel>> {
        iree_hal::channel::create_host_channel(params)
    }

    fn allocator(&self) -> Arc<dyn Allocator> {
        self.allocator.clone()
    }

    fn query_i64(&self, category: &str, key: &str) -> Result<i64> {
        match (category, key) {
            ("hal.device.id", pattern) => Ok(i64::from(match_pattern(self.id(), pattern))),
            ("hal.executable.format", format) => Ok(i64::from(self.loader_for(format).is_some())),
            ("hal.device", "concurrency") | ("hal.dispatch", "concurrency") => {
                Ok(self.workers as i64)
            }
            _ => Err(Status::new(
                StatusCode::NotFound,
                format!("unknown device configuration key value '{category} :: {key}'"),
            )),
        }
    }

    fn create_executable(
        &self,
        format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn Executable>> {
        let Some(loader) = self.loader_for(format) else {
            let supported: Vec<String> = self.loaders.iter().flat_map(|l| l.formats()).collect();
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!(
                    "no executable loader for format '{format}' on {} (supported: {})",
                    self.id,
                    supported.join(", ")
                ),
            ));
        };
        let inner = loader
            .load(format, data, constants)
            .map_err(|e| e.annotate(format!("while loading a '{format}' executable")))?;
        let label = self.runner.profiler().executable_label(format);
        tracing::debug!(
            executable = &*label,
            exports = inner.exports().len(),
            "executable created"
        );
        Ok(Arc::new(LocalExecutable::new(
            inner,
            Runner::clone(&self.runner),
            label,
        )))
    }

    fn queue_alloca(
        &self,
        wait: &Fence,
        signal: &Fence,
        params: BufferParams,
        size: u64,
    ) -> Result<Buffer> {
        // Host memory is taken now (the buffer must not be used before
        // `signal` anyway), reusing that of earlier transients; the queue
        // orders only the signal.
        // As upstream: `local-task` takes queue allocations from pools its
        // allocator statistics do not count; `local-sync` from its allocator.
        let counted = self.id != "local-task";
        let pooled = if counted {
            Ok(())
        } else {
            local_task_pool_accepts(params, size)
        };
        let buffer =
            match pooled.and_then(|()| self.allocator.allocate_transient(params, size, counted)) {
                Ok(buffer) => buffer,
                Err(status) => {
                    signal.fail(status.clone());
                    return Err(status);
                }
            };
        let profiler = self.runner.profiler();
        if profiler.records_queue() {
            let start = std::time::Instant::now();
            let profiler = profiler.clone();
            self.queue.submit(
                wait,
                signal,
                Box::new(move || {
                    profiler.record([(
                        EventName::Static("alloca"),
                        EventKind::Queue,
                        Track::Queue(0),
                        start,
                        std::time::Instant::now(),
                    )]);
                    Ok(())
                }),
            )?;
        } else {
            self.queue.submit(wait, signal, Box::new(|| Ok(())))?;
        }
        Ok(buffer)
    }

    fn queue_dealloca(&self, wait: &Fence, signal: &Fence, buffer: &Buffer) -> Result<()> {
        // Host memory goes back to the transient cache with the last
        // reference to it.
        if self.runner.profiler().records_queue() {
            return self
                .runner
                .profiler()
                .time_queue_op("dealloca", || self.queue.dealloca(wait, signal, buffer));
        }
        self.queue.dealloca(wait, signal, buffer)
    }

    fn queue_execute(
        &self,
        wait: &Fence,
        signal: &Fence,
        command_buffer: Option<&CommandBuffer>,
        binding_table: &[DispatchBinding],
    ) -> Result<()> {
        let runner = self.runner.clone();
        self.queue.execute(
            wait,
            signal,
            command_buffer,
            binding_table,
            &*self.allocator,
            move |cb, table| {
                if runner.profiler().records_queue() {
                    return runner
                        .profiler()
                        .time_queue_op("execute", || runner.execute(cb, table));
                }
                runner.execute(cb, table)
            },
        )
    }

    fn queue_host_call(
        &self,
        wait: &Fence,
        signal: &Fence,
        op: Box<dyn FnOnce() -> Result<()> + Send>,
    ) -> Result<()> {
        if self.runner.profiler().records_queue() {
            let profiler = self.runner.profiler().clone();
            return self.queue.submit(
                wait,
                signal,
                Box::new(move || profiler.time_queue_op("host operation", op)),
            );
        }
        self.queue.submit(wait, signal, op)
    }

    fn profiler(&self) -> Option<&Arc<ProfileRecorder>> {
        Some(self.runner.profiler())
    }
}

/// Whether upstream's `local-task` finds a pool for a queue allocation.
/// Its pools hold host memory (host-local, visible, coherent and cached)
/// for transfers, dispatches, sharing and mapping; the device bits, which
/// all CPU memory has, and `OPTIMAL` ask nothing of them. A memory type or
/// usage beyond that finds no pool: NOT_FOUND, upstream's text.
fn local_task_pool_accepts(params: BufferParams, size: u64) -> Result<()> {
    let host = MemoryType::HOST_LOCAL.0 | MemoryType::HOST_CACHED.0;
    let device = MemoryType::DEVICE_LOCAL.0 | MemoryType::DEVICE_VISIBLE.0;
    let mut memory_type = params.memory_type.0 & !device;
    if memory_type == 0 {
        memory_type = MemoryType::HOST_VISIBLE.0;
    }
    let required = memory_type & !MemoryType::OPTIMAL.0;
    let usage = params.canonicalize().usage.0;
    let supported = BufferUsage::TRANSFER.0
        | BufferUsage::DISPATCH.0
        | BufferUsage::SHARING_EXPORT.0
        | BufferUsage::SHARING_REPLICATE.0
        | BufferUsage::SHARING_CONCURRENT.0
        | BufferUsage::SHARING_IMMUTABLE.0
        | BufferUsage::MAPPING_SCOPED.0
        | BufferUsage::MAPPING_PERSISTENT.0
        | BufferUsage::MAPPING_OPTIONAL.0
        | BufferUsage::MAPPING_ACCESS_RANDOM.0
        | BufferUsage::MAPPING_ACCESS_SEQUENTIAL_WRITE.0;
    if required & !host != 0 || usage & !supported != 0 {
        return Err(Status::new(
            StatusCode::NotFound,
            format!("no default local-task pool can satisfy queue_alloca of {size} bytes"),
        ));
    }
    Ok(())
}
