//! The local CPU drivers and their device: host memory from the heap
//! allocator, embedded-ELF executables, and a queue that runs every
//! operation inline on the submitting thread, in fence order.
//!
//! `local-sync` runs each dispatch's workgroups on the calling thread;
//! `local-task` spreads them over one worker per available core (a
//! persistent [`WorkerPool`] whose worker 0 is the submitting thread). (Upstream's
//! `local-task` also runs queue operations asynchronously on its task
//! system; here queue operations complete before the submit returns, which
//! gives the same results for fence-ordered programs.)

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::device::{match_pattern, run_queue_op};
use iree_hal::{
    Allocator, Buffer, BufferParams, CommandBuffer, Device, DeviceInfo, DispatchBinding, Driver,
    Executable, Fence, HeapAllocator,
};

use crate::dispatch::{buffer_bindings, dispatch_grid, dispatch_grid_on_pool};
use crate::executable::{EmbeddedElfLoader, ExecutableLoader, WorkgroupExecutable};
use crate::pool::WorkerPool;

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

/// Creates `local-task` devices, whose dispatches run on all cores.
#[derive(Default)]
pub struct LocalTaskDriver;

/// The one device each local driver offers: `driver://` (or `driver://0`).
fn default_devices() -> Vec<DeviceInfo> {
    vec![DeviceInfo {
        path: String::new(),
        name: "default".to_string(),
    }]
}

fn check_default_path(driver: &str, path: &str) -> Result<()> {
    if path.is_empty() || path == "0" {
        Ok(())
    } else {
        Err(Status::new(
            StatusCode::NotFound,
            format!("{driver} has no device '{path}'"),
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
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Arc::new(LocalDevice::with_workers("local-task", workers)))
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
    /// Dispatch workers (`local-task`); none for one worker.
    pool: Option<Arc<WorkerPool>>,
    /// Executable loaders, asked in order.
    loaders: Vec<Arc<dyn ExecutableLoader>>,
}

/// The `local-sync` device (a [`LocalDevice`] with one worker).
pub type LocalSyncDevice = LocalDevice;

/// The loaders every local device has unless told otherwise.
pub fn default_loaders() -> Vec<Arc<dyn ExecutableLoader>> {
    vec![
        Arc::new(EmbeddedElfLoader),
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
        let workers = workers.max(1);
        LocalDevice {
            id,
            allocator: HeapAllocator::new(),
            workers,
            pool: (workers > 1).then(|| Arc::new(WorkerPool::new(workers))),
            loaders,
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

/// A loaded executable as the HAL sees it: grids run on the device's worker
/// pool, or on the calling thread without one.
struct LocalExecutable {
    inner: Arc<dyn WorkgroupExecutable>,
    pool: Option<Arc<WorkerPool>>,
}

impl Executable for LocalExecutable {
    fn export_count(&self) -> usize {
        self.inner.exports().len()
    }

    fn export_name(&self, ordinal: usize) -> Option<&str> {
        self.inner.exports().get(ordinal).map(|e| e.name.as_str())
    }

    fn dispatch(
        &self,
        ordinal: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: &[DispatchBinding],
    ) -> Result<()> {
        let bindings = buffer_bindings(bindings);
        match &self.pool {
            Some(pool) => dispatch_grid_on_pool(
                &*self.inner,
                ordinal,
                constants,
                &bindings,
                workgroup_count,
                pool,
            ),
            None => dispatch_grid(&*self.inner, ordinal, constants, &bindings, workgroup_count),
        }
    }
}

impl Device for LocalDevice {
    fn id(&self) -> &str {
        self.id
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

    fn create_executable(&self, format: &str, data: &[u8]) -> Result<Arc<dyn Executable>> {
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
            .load(format, data)
            .map_err(|e| e.annotate(format!("while loading a '{format}' executable")))?;
        Ok(Arc::new(LocalExecutable {
            inner,
            pool: self.pool.clone(),
        }))
    }

    fn queue_alloca(
        &self,
        wait: &Fence,
        signal: &Fence,
        params: BufferParams,
        size: u64,
    ) -> Result<Buffer> {
        run_queue_op(wait, signal, || {
            self.allocator.allocate_buffer(params, size)
        })
    }

    fn queue_dealloca(&self, wait: &Fence, signal: &Fence, _buffer: &Buffer) -> Result<()> {
        // Host memory is freed when the last reference drops.
        run_queue_op(wait, signal, || Ok(()))
    }

    fn queue_execute(
        &self,
        wait: &Fence,
        signal: &Fence,
        command_buffer: Option<&CommandBuffer>,
        binding_table: &[DispatchBinding],
    ) -> Result<()> {
        run_queue_op(wait, signal, || match command_buffer {
            Some(cb) => cb.execute_inline(binding_table),
            None => Ok(()),
        })
    }
}
