//! The high-level embedding API: an [`Instance`] with every driver, a
//! [`Session`] on one device holding loaded modules, and [`Session::call`]
//! with [`Tensor`]s and scalars in and out.
//!
//! ```
//! use iree_runtime::{Instance, Session, Tensor};
//!
//! # fn main() -> iree_runtime::Result<()> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/llvm-cpu/expected_output.vmfb");
//! let instance = Instance::new();
//! let mut session = Session::new(&instance, "local-task")?;
//! session.load_module_file(path)?;
//! let a = Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0])?;
//! let b = Tensor::from_slice(&[4], &[5.0f32, 6.0, 7.0, 8.0])?;
//! let results = session.call("mul", &[a.into(), b.into()])?;
//! let product = Tensor::try_from(results[0].clone())?;
//! assert_eq!(product.to_vec::<f32>()?, [5.0, 12.0, 21.0, 32.0]);
//! # Ok(())
//! # }
//! ```
//!
//! A session builds its VM context from the modules loaded into it, in
//! order, plus the system modules they depend on (`hal` on the session's
//! device, `io_parameters` over [`Session::add_parameters`] files), as
//! `iree-run-module` does.

mod call_async;
mod element;
pub mod image;
mod model;
mod session;
mod tensor;
mod value;

pub use call_async::CallFuture;
pub use element::Element;
pub use half;
pub use iree_base::{Result, Status, StatusCode};
pub use iree_hal::{DriverRegistry, ElementType};
pub use model::Model;
pub use session::{inline_system_module, system_modules, Session};
pub use tensor::Tensor;
pub use value::Value;

use std::sync::Arc;

/// The runtime: the VM's type registry and every driver this build has
/// (`local-sync`, `local-task`, `cuda`, `hip`; the GPU drivers load their
/// libraries when a device is created).
pub struct Instance {
    vm: Arc<iree_vm::Instance>,
    drivers: DriverRegistry,
}

impl Instance {
    /// A new instance with the HAL's ref types registered and every driver.
    pub fn new() -> Instance {
        let vm = iree_vm::Instance::new();
        // A fresh VM instance has no types registered yet, so this cannot
        // collide.
        let _ = iree_modules_hal::register_types(&vm);
        let mut drivers = DriverRegistry::new();
        let gpu = iree_hal_gpu::GpuOptions::default();
        // Registering into an empty registry cannot collide.
        let _ = drivers.register(Arc::new(iree_hal_cuda::CudaDriver::with_options(gpu)));
        let _ = drivers.register(Arc::new(iree_hal_hip::HipDriver::with_options(gpu)));
        let _ = drivers.register(Arc::new(iree_hal_local::LocalSyncDriver));
        let _ = drivers.register(Arc::new(iree_hal_local::LocalTaskDriver::with_options(
            Default::default(),
        )));
        Instance { vm, drivers }
    }

    /// The VM instance (type registry) that sessions of this instance load
    /// modules into; HAL ref types are registered on it.
    pub fn vm(&self) -> &Arc<iree_vm::Instance> {
        &self.vm
    }

    /// The registered drivers, for embedders that create devices
    /// themselves (by URI, or by driver and device path).
    pub fn drivers(&self) -> &DriverRegistry {
        &self.drivers
    }

    /// The names of the registered drivers.
    pub fn driver_names(&self) -> Vec<String> {
        self.drivers
            .drivers()
            .iter()
            .map(|driver| driver.name().to_string())
            .collect()
    }
}

impl Default for Instance {
    fn default() -> Instance {
        Instance::new()
    }
}
