//! The typed surface a driver's FFI layer provides to [`crate::device`].
//!
//! Every method is safe to call: the driver crate checks results, owns the
//! handles (modules and graphs release themselves on drop) and keeps its
//! context current on the calling thread.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{Channel, ChannelParams, Collective, HostMemory};

use crate::executable::ExecutableInfo;
use crate::params::KernelParams;

/// Device limits executables are validated against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuLimits {
    /// Maximum threads per block in x, y and z.
    pub max_block_dims: [u32; 3],
    /// Maximum dynamic shared memory per block (opt-in maximum on CUDA).
    pub max_block_shared_memory_size: u32,
}

impl Default for GpuLimits {
    /// Limits every CUDA device since compute capability 2.0 meets.
    fn default() -> GpuLimits {
        GpuLimits {
            max_block_dims: [1024, 1024, 64],
            max_block_shared_memory_size: 48 * 1024,
        }
    }
}

/// What a device reports about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceProperties {
    /// The marketing name (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// Executable limits.
    pub limits: GpuLimits,
    /// Whether stream-ordered allocation from memory pools is available.
    pub memory_pools: bool,
}

/// How command buffers run: recorded into the stream directly, or captured
/// into a graph that is instantiated and launched (`--cuda_use_streams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recording {
    /// Issue commands on the device stream.
    Stream,
    /// Capture the commands into a graph, then launch it.
    Graph,
}

/// One GPU device's operations, all on the device's single stream unless
/// stated otherwise.
pub trait Backend: Send + Sync + Sized + 'static {
    /// A loaded module (unloaded on drop).
    type Module: Send + Sync + 'static;
    /// A kernel handle inside a module.
    type Function: Copy + Send + Sync + 'static;
    /// An instantiated graph (destroyed on drop).
    type Graph: Send + 'static;

    /// The driver name and `hal.device.id` (`cuda`, `hip`).
    const DRIVER: &'static str;
    /// The executable format (`cuda-nvptx-fb`, `rocm-hsaco-fb`).
    const FORMAT: &'static str;

    /// The device's properties, queried at creation.
    fn properties(&self) -> &DeviceProperties;

    /// Parses and verifies executable data (header and flatbuffer).
    fn parse_executable<'a>(&self, data: &'a [u8]) -> Result<ExecutableInfo<'a>>;

    /// Allocates device memory synchronously.
    fn alloc_device(&self, size: u64) -> Result<u64>;
    /// Allocates device memory from the stream's memory pool, ordered on
    /// the stream (only when `memory_pools`).
    fn alloc_device_async(&self, size: u64) -> Result<u64>;
    /// Frees device memory (`stream_ordered` for pool allocations).
    fn free_device(&self, address: u64, stream_ordered: bool);
    /// Allocates pinned host memory mapped into the device's address space.
    fn alloc_host(&self, size: usize) -> Result<HostMemory>;
    /// The device address of host memory from [`Backend::alloc_host`];
    /// `None` for memory this backend did not allocate.
    fn host_device_address(&self, memory: &HostMemory) -> Option<u64>;

    /// Copies host bytes to device memory, synchronously.
    fn copy_to_device(&self, address: u64, data: &[u8]) -> Result<()>;
    /// Copies device memory to host bytes, synchronously.
    fn copy_from_device(&self, out: &mut [u8], address: u64) -> Result<()>;

    /// Loads a module image.
    fn load_module(&self, image: &[u8]) -> Result<Self::Module>;
    /// Finds a kernel and allows it `shared_memory` bytes of dynamic shared
    /// memory.
    fn get_function(
        &self,
        module: &Self::Module,
        name: &str,
        shared_memory: u32,
    ) -> Result<Self::Function>;

    /// Fills `length` bytes at `address` with a 1, 2 or 4 byte pattern.
    fn fill(&self, address: u64, length: u64, pattern: &[u8]) -> Result<()>;
    /// Copies `length` bytes between device-accessible addresses.
    fn copy(&self, target: u64, source: u64, length: u64) -> Result<()>;
    /// Launches a kernel.
    fn launch(
        &self,
        function: Self::Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared_memory: u32,
        params: &mut KernelParams,
    ) -> Result<()>;

    /// Starts capturing the stream's work into a graph.
    fn begin_capture(&self) -> Result<()>;
    /// Ends the capture and instantiates the graph.
    fn end_capture(&self) -> Result<Self::Graph>;
    /// Launches an instantiated graph on the stream.
    fn launch_graph(&self, graph: &Self::Graph) -> Result<()>;
    /// Waits for all work on the stream.
    fn synchronize(&self) -> Result<()>;

    /// Creates a collective channel on this device (`hal.channel.create`).
    /// Backends without a collective library keep the default:
    /// UNIMPLEMENTED.
    fn create_channel(&self, params: &ChannelParams) -> Result<Arc<dyn Channel>> {
        let _ = params;
        Err(no_collectives::<Self>())
    }

    /// Issues `collective` of `channel` (one this backend created) on the
    /// stream over device addresses: `send` and `recv` are the starts of
    /// ranges already checked to hold what the op uses on this rank
    /// ([`Collective::checked_ranges`]), absent where it uses none.
    fn collective(
        &self,
        channel: &dyn Channel,
        collective: &Collective,
        send: Option<u64>,
        recv: Option<u64>,
    ) -> Result<()> {
        let _ = (channel, collective, send, recv);
        Err(no_collectives::<Self>())
    }
}

/// UNIMPLEMENTED: the backend `B` has no collectives.
fn no_collectives<B: Backend>() -> Status {
    Status::new(
        StatusCode::Unimplemented,
        format!(
            "collectives are not implemented by the {} device",
            B::DRIVER
        ),
    )
}
