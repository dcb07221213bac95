//! Executable caches (`iree_hal_executable_cache_t`): where a device's
//! executables are prepared, with format negotiation through the device's
//! `hal.executable.format` query, as the compiler's generated code does.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

use crate::command_buffer::Executable;
use crate::device::Device;

/// Prepares executables for one device.
pub struct ExecutableCache {
    device: Arc<dyn Device>,
}

impl ExecutableCache {
    /// A cache preparing executables for `device`.
    pub fn new(device: Arc<dyn Device>) -> ExecutableCache {
        ExecutableCache { device }
    }

    /// Whether the device can load executables of `format`
    /// (`embedded-elf-x86_64`, ...).
    pub fn can_prepare(&self, format: &str) -> bool {
        matches!(
            self.device.query_i64("hal.executable.format", format),
            Ok(1)
        )
    }

    /// Loads an executable of `format` from `data` with its executable-level
    /// `constants`; an unsupported format fails with NOT_FOUND before the
    /// device sees the bytes.
    pub fn prepare(
        &self,
        format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn Executable>> {
        if !self.can_prepare(format) {
            return Err(Status::new(
                StatusCode::NotFound,
                format!(
                    "no executable loader on device '{}' can load format '{format}'",
                    self.device.id()
                ),
            ));
        }
        self.device.create_executable(format, data, constants)
    }
}
