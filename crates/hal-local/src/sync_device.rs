//! The `local-sync` driver and device: host memory from the heap
//! allocator, embedded-ELF executables, and a queue that runs every
//! operation inline on the calling thread, in fence order.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::device::{match_pattern, run_queue_op};
use iree_hal::{
    Allocator, Buffer, BufferParams, CommandBuffer, Device, DeviceInfo, DispatchBinding, Driver,
    Executable, Fence, HeapAllocator,
};

use crate::EmbeddedElfLibrary;

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

impl Driver for LocalSyncDriver {
    fn name(&self) -> &str {
        "local-sync"
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(vec![DeviceInfo {
            path: String::new(),
            name: "default".to_string(),
        }])
    }

    fn create_device(&self, path: &str) -> Result<Arc<dyn Device>> {
        if !path.is_empty() && path != "0" {
            return Err(Status::new(
                StatusCode::NotFound,
                format!("local-sync has no device '{path}'"),
            ));
        }
        Ok(Arc::new(LocalSyncDevice::new()))
    }
}

/// A synchronous CPU device.
pub struct LocalSyncDevice {
    allocator: Arc<HeapAllocator>,
}

impl LocalSyncDevice {
    /// A device with a fresh heap allocator.
    pub fn new() -> LocalSyncDevice {
        LocalSyncDevice {
            allocator: HeapAllocator::new(),
        }
    }
}

impl Default for LocalSyncDevice {
    fn default() -> LocalSyncDevice {
        LocalSyncDevice::new()
    }
}

impl Device for LocalSyncDevice {
    fn id(&self) -> &str {
        "local-sync"
    }

    fn allocator(&self) -> Arc<dyn Allocator> {
        self.allocator.clone()
    }

    fn query_i64(&self, category: &str, key: &str) -> Result<i64> {
        match (category, key) {
            ("hal.device.id", pattern) => Ok(i64::from(match_pattern(self.id(), pattern))),
            ("hal.executable.format", format) => {
                Ok(i64::from(format == host_embedded_elf_format()))
            }
            ("hal.device", "concurrency") | ("hal.dispatch", "concurrency") => Ok(1),
            _ => Err(Status::new(
                StatusCode::NotFound,
                format!("unknown device configuration key value '{category} :: {key}'"),
            )),
        }
    }

    fn create_executable(&self, format: &str, data: &[u8]) -> Result<Arc<dyn Executable>> {
        if format != host_embedded_elf_format() {
            return Err(Status::new(
                StatusCode::Unimplemented,
                format!(
                    "no executable loader for format '{format}' on local-sync (supported: {})",
                    host_embedded_elf_format()
                ),
            ));
        }
        Ok(Arc::new(EmbeddedElfLibrary::load(data)?))
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
