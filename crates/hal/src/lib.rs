//! The hardware abstraction layer (HAL) of the runtime, starting with its
//! host-side vocabulary: element and encoding types, the narrow float
//! conversions upstream uses, the text form of buffer views
//! (`2x2xf32=[1 2][3 4]`) exactly as upstream's tools read and print it, and
//! buffers (memory types, usage, access, host allocations, subspans) with
//! buffer views over them, timeline semaphores and fences, and collective
//! channels ([`channel`]: one rank, or MPI). See `docs/hal-plan.md` for what comes next.

pub mod allocator;
pub mod buffer;
pub mod buffer_view;
pub mod buffer_view_text;
pub mod channel;
pub mod command_buffer;
pub mod device;
pub mod element_compare;
pub mod element_type;
pub mod event;
pub mod executable_cache;
pub mod executable_header;
pub mod file;
pub mod math;
pub mod profile_bundle;
pub mod profiling;
pub mod queue;
pub mod semaphore;

pub use allocator::{
    Allocator, AllocatorStatistics, BufferCompatibility, BufferParams, HeapAllocator, MemoryHeap,
};
pub use buffer::{
    without_host_access_observation, Buffer, BufferUsage, DeviceMemory, ExternalHostMemory,
    HostAccessObserver, HostMemory, MemoryAccess, MemoryType, WHOLE_BUFFER,
};
pub use buffer_view::BufferView;
pub use buffer_view_text::{
    compute_view_size, format_buffer_elements, format_buffer_view, format_element, format_shape,
    format_shape_and_element_type, parse_buffer_elements, parse_buffer_view_header,
    parse_buffer_view_text, parse_element, parse_shape, parse_shape_and_element_type,
    BufferViewLiteral,
};
pub use channel::{
    Channel, ChannelParams, Collective, CollectiveElementType, CollectiveKind, CollectiveOp,
    CollectiveRange, LocalChannel, Reduction,
};
pub use command_buffer::{
    BindingRef, BufferBinding, Command, CommandBuffer, CommandCategory, DispatchBinding,
    Executable, FinalizeObserver, FunctionInfo, WorkgroupCount,
};
pub use device::{Device, DeviceInfo, Driver, DriverRegistry};
pub use element_compare::{
    element_bytes, first_difference, float_element, fuzzy_eq, ElementEquality,
};
pub use element_type::{ElementType, EncodingType, NumericalType};
pub use event::Event;
pub use executable_cache::ExecutableCache;
pub use file::{File, QueueTransfer};
pub use profiling::{
    DispatchStatistics, EventKind, EventName, ProfileCapture, ProfileEvent, ProfileExecutable,
    ProfileExport, ProfileRecorder, ProfilingMode, Track,
};
pub use queue::{DeferredExecution, Queue, QueueOp};
pub use semaphore::{Deadline, Fence, Semaphore, SemaphorePool};
