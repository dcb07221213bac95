//! What the CUDA (`iree-hal-cuda`) and HIP (`iree-hal-hip`) drivers share.
//!
//! Both upstream drivers have the same shape: a flatbuffer executable whose
//! exports name a kernel in a loaded module with block dimensions, dynamic
//! shared memory, a constant count and per-binding flags; kernel arguments
//! packed as one pointer-sized slot per binding (the device address) then
//! one per 32-bit constant; stream or graph command buffers; queue
//! operations ordered by fences. This crate holds that shape once:
//!
//! * [`executable`]: the parsed, validated executable description each
//!   driver builds from its own flatbuffer schema;
//! * [`params`]: kernel parameter packing as upstream packs it;
//! * [`backend`]: the small typed surface a driver's FFI layer provides;
//! * [`device`]: the HAL device, allocator and executable written once over
//!   a [`backend::Backend`];
//! * [`driver`]: the HAL driver over a [`driver::GpuApi`];
//! * [`parse_executable!`]: the executable parser each driver instantiates
//!   for its own flatbuffer schema.
//!
//! Nothing here touches a GPU library directly, and nothing here is
//! `unsafe`: the FFI lives in the driver crates.

pub mod backend;
pub mod device;
pub mod driver;
pub mod executable;
pub mod params;

pub use backend::{Backend, DeviceProperties, GpuLimits, Recording};
pub use device::{GpuAllocator, GpuDevice, GpuExecutable, GpuOptions};
pub use driver::{GpuApi, GpuDriver};
pub use executable::{BindingFlags, ExecutableInfo, ExportInfo};
pub use params::KernelParams;
