//! The HAL driver shared by CUDA and HIP: enumeration and device creation
//! over a [`GpuApi`] (what one driver library provides), with the options
//! from upstream's `--cuda_*` / `--hip_*` flags.

use std::marker::PhantomData;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{Device, DeviceInfo, Driver};

use crate::backend::Backend;
use crate::device::{GpuDevice, GpuOptions};

/// One GPU driver library: its name, how it enumerates devices, and how it
/// opens one as a [`Backend`].
pub trait GpuApi: Send + Sync + 'static {
    /// The device backend.
    type Backend: Backend;
    /// The driver name (`cuda`, `hip`).
    const NAME: &'static str;
    /// What `--list_drivers` prints for it.
    const DESCRIPTION: &'static str;
    /// The API name used in messages (`CUDA`, `HIP`).
    const API: &'static str;

    /// The devices the library reports: ordinal and name. UNAVAILABLE
    /// (naming the library) when it cannot be loaded.
    fn devices() -> Result<Vec<(i32, String)>>;

    /// Opens device `ordinal`.
    fn open(ordinal: i32) -> Result<Self::Backend>;
}

/// A HAL driver over a [`GpuApi`].
pub struct GpuDriver<A: GpuApi> {
    options: GpuOptions,
    api: PhantomData<A>,
}

impl<A: GpuApi> Default for GpuDriver<A> {
    fn default() -> Self {
        GpuDriver::with_options(GpuOptions::default())
    }
}

impl<A: GpuApi> GpuDriver<A> {
    /// A driver whose devices use `options`.
    pub fn with_options(options: GpuOptions) -> Self {
        GpuDriver {
            options,
            api: PhantomData,
        }
    }

    /// Parses a device path: empty for the default device 0, else an ordinal.
    fn parse_ordinal(path: &str) -> Result<i32> {
        if path.is_empty() {
            return Ok(0);
        }
        path.parse::<i32>().map_err(|_| {
            Status::new(
                StatusCode::InvalidArgument,
                format!("{} device path '{path}' is not a device ordinal", A::API),
            )
        })
    }
}

impl<A: GpuApi> Driver for GpuDriver<A> {
    fn name(&self) -> &str {
        A::NAME
    }

    fn description(&self) -> &str {
        A::DESCRIPTION
    }

    fn devices(&self) -> Result<Vec<DeviceInfo>> {
        Ok(A::devices()?
            .into_iter()
            .map(|(ordinal, name)| DeviceInfo {
                path: ordinal.to_string(),
                name,
            })
            .collect())
    }

    fn create_device(&self, path: &str) -> Result<Arc<dyn Device>> {
        let backend = A::open(Self::parse_ordinal(path)?)?;
        Ok(GpuDevice::new(backend, self.options))
    }
}
