//! The `.ireereplay` format, version 2.0, as upstream IREE 3.13 writes it:
//! a 24-byte [`FileHeader`], then records, each a 96-byte [`RecordHeader`]
//! followed by its payload. Every integer is little-endian and every
//! structure has the byte layout of upstream's C structs (natural
//! alignment, padding written as zeros). `docs/replay.md` describes each
//! record and payload.
//!
//! Structures are declared once with `wire_struct!`, which gives each its
//! exact size ([`Wire::SIZE`]), a decoder and an encoder, so no layout is
//! written twice.

/// `"IRRP"` read as a little-endian `u32`.
pub const FILE_MAGIC: u32 = 0x5052_5249;
/// The major version this crate reads and writes.
pub const VERSION_MAJOR: u16 = 2;
/// The minor version this crate writes.
pub const VERSION_MINOR: u16 = 0;
/// The session-local id of no object.
pub const OBJECT_ID_NONE: u64 = 0;
/// The record flag of records a reader may skip when it does not know their type.
pub const RECORD_FLAG_OPTIONAL: u16 = 1;

/// A fixed-size little-endian value of the format.
pub trait Wire: Sized {
    /// Its size in bytes.
    const SIZE: usize;
    /// Decodes from the first [`Wire::SIZE`] bytes of `bytes` (which the
    /// caller checked are there).
    fn decode(bytes: &[u8]) -> Self;
    /// Appends the encoding.
    fn encode(&self, out: &mut Vec<u8>);

    /// Decodes from the start of `bytes`, or `None` when they are too short.
    fn read(bytes: &[u8]) -> Option<Self> {
        (bytes.len() >= Self::SIZE).then(|| Self::decode(bytes))
    }

    /// The encoding as a vector.
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::SIZE);
        self.encode(&mut out);
        out
    }
}

macro_rules! wire_int {
    ($($ty:ty),*) => {$(
        impl Wire for $ty {
            const SIZE: usize = std::mem::size_of::<$ty>();
            fn decode(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$ty>()];
                raw.copy_from_slice(&bytes[..Self::SIZE]);
                <$ty>::from_le_bytes(raw)
            }
            fn encode(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
wire_int!(u8, u16, u32, u64);

impl<T: Wire + Copy + Default, const N: usize> Wire for [T; N] {
    const SIZE: usize = T::SIZE * N;
    fn decode(bytes: &[u8]) -> Self {
        let mut value = [T::default(); N];
        for (i, item) in value.iter_mut().enumerate() {
            *item = T::decode(&bytes[i * T::SIZE..]);
        }
        value
    }
    fn encode(&self, out: &mut Vec<u8>) {
        for item in self {
            item.encode(out);
        }
    }
}

/// Alignment padding of a C struct: `N` bytes, written as zeros, ignored
/// when read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pad<const N: usize>;

impl<const N: usize> Wire for Pad<N> {
    const SIZE: usize = N;
    fn decode(_: &[u8]) -> Self {
        Pad
    }
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[0u8; N]);
    }
}

/// Declares a format structure: its fields in file order (padding as
/// `Pad<N>` fields named `_padN`), and checks its size against upstream's.
macro_rules! wire_struct {
    ($(#[$meta:meta])* pub struct $name:ident = $size:literal {
        $($(#[$fmeta:meta])* $vis:vis $field:ident: $ty:ty,)*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name {
            $($(#[$fmeta])* $vis $field: $ty,)*
        }

        impl Wire for $name {
            const SIZE: usize = 0 $(+ <$ty as Wire>::SIZE)*;
            #[allow(unused_assignments, reason = "the last field advances the offset too")]
            fn decode(bytes: &[u8]) -> Self {
                let mut offset = 0;
                $(
                    let $field = <$ty as Wire>::decode(&bytes[offset..]);
                    offset += <$ty as Wire>::SIZE;
                )*
                $name { $($field,)* }
            }
            fn encode(&self, out: &mut Vec<u8>) {
                $(self.$field.encode(out);)*
            }
        }

        const _: () = assert!(<$name as Wire>::SIZE == $size);
    };
}

wire_struct! {
    /// The header at byte 0 of every file (`iree_hal_replay_file_header_t`).
    pub struct FileHeader = 24 {
        /// [`FILE_MAGIC`].
        pub magic: u32,
        /// Major format version.
        pub version_major: u16,
        /// Minor format version.
        pub version_minor: u16,
        /// This header's size.
        pub header_length: u32,
        /// Reserved, zero.
        pub flags: u32,
        /// The length of the valid contents, or 0 while the file is open.
        pub file_length: u64,
    }
}

wire_struct! {
    /// The header of one record (`iree_hal_replay_file_record_header_t`).
    pub struct RecordHeader = 96 {
        /// Header plus payload bytes.
        pub record_length: u64,
        /// Payload bytes.
        pub payload_length: u64,
        /// Position in capture order, from 0.
        pub sequence_ordinal: u64,
        /// The capturing thread, or 0.
        pub thread_id: u64,
        /// The device the record belongs to.
        pub device_id: u64,
        /// The primary object.
        pub object_id: u64,
        /// A secondary object (what an operation created, mostly).
        pub related_object_id: u64,
        /// This header's size.
        pub header_length: u32,
        /// A [`RecordType`] value.
        pub record_type: u16,
        /// [`RECORD_FLAG_OPTIONAL`] or 0.
        pub record_flags: u16,
        /// A [`PayloadType`] value.
        pub payload_type: u32,
        /// An [`ObjectType`] value.
        pub object_type: u32,
        /// An [`OperationCode`] value.
        pub operation_code: u32,
        /// The status code the captured call returned.
        pub status_code: u32,
        /// Reserved, zero.
        pub reserved0: u32,
        #[doc(hidden)]
        pub _pad0: Pad<4>,
        /// Reserved, zero.
        pub reserved1: u64,
    }
}

/// Declares a `u32`-or-narrower code with named values and upstream's
/// name for each (`"unknown"` for any other value).
macro_rules! named_codes {
    ($(#[$meta:meta])* $name:ident: $repr:ty { $($(#[$vmeta:meta])* $variant:ident = $value:literal => $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name(pub $repr);

        #[allow(non_upper_case_globals, reason = "named like enum variants")]
        impl $name {
            $($(#[$vmeta])* pub const $variant: $name = $name($value);)*

            /// Upstream's name for the value (`"unknown"` when it has none).
            pub fn name(self) -> &'static str {
                match self.0 {
                    $($value => $text,)*
                    _ => "unknown",
                }
            }
        }
    };
}

named_codes! {
    /// The kind of a record (`iree_hal_replay_file_record_type_t`).
    RecordType: u16 {
        /// Nothing.
        None = 0 => "none",
        /// Capture session metadata.
        Session = 1 => "session",
        /// An object's creation.
        Object = 2 => "object",
        /// A HAL call, in capture order.
        Operation = 3 => "operation",
        /// Opaque bytes.
        Blob = 4 => "blob",
        /// A call the capture could not represent.
        Unsupported = 5 => "unsupported",
    }
}

impl RecordType {
    /// True for the types this version defines (all but `none`).
    pub fn is_known(self) -> bool {
        (1..=5).contains(&self.0)
    }
}

named_codes! {
    /// The kind of a HAL object (`iree_hal_replay_object_type_t`).
    ObjectType: u32 {
        /// Nothing.
        None = 0 => "none",
        /// A device.
        Device = 1 => "device",
        /// A device's allocator.
        Allocator = 2 => "allocator",
        /// A memory pool.
        Pool = 3 => "pool",
        /// A buffer.
        Buffer = 4 => "buffer",
        /// A command buffer.
        CommandBuffer = 5 => "command_buffer",
        /// An executable cache.
        ExecutableCache = 6 => "executable_cache",
        /// An executable.
        Executable = 7 => "executable",
        /// A timeline semaphore.
        Semaphore = 8 => "semaphore",
        /// A file.
        File = 9 => "file",
        /// An event.
        Event = 10 => "event",
        /// A collective channel.
        Channel = 11 => "channel",
        /// A host call.
        HostCall = 12 => "host_call",
    }
}

named_codes! {
    /// The HAL call an operation record captured
    /// (`iree_hal_replay_operation_code_t`).
    OperationCode: u32 {
        /// Nothing.
        None = 0 => "none",
        /// `device.trim`.
        DeviceTrim = 1 => "device.trim",
        /// `device.query_i64`.
        DeviceQueryI64 = 2 => "device.query_i64",
        /// `device.query_capabilities`.
        DeviceQueryCapabilities = 3 => "device.query_capabilities",
        /// `device.refine_topology_edge`.
        DeviceRefineTopologyEdge = 4 => "device.refine_topology_edge",
        /// `device.assign_topology_info`.
        DeviceAssignTopologyInfo = 5 => "device.assign_topology_info",
        /// `device.create_channel`.
        DeviceCreateChannel = 6 => "device.create_channel",
        /// `device.create_command_buffer`.
        DeviceCreateCommandBuffer = 7 => "device.create_command_buffer",
        /// `device.create_event`.
        DeviceCreateEvent = 8 => "device.create_event",
        /// `device.create_executable_cache`.
        DeviceCreateExecutableCache = 9 => "device.create_executable_cache",
        /// `device.import_file`.
        DeviceImportFile = 10 => "device.import_file",
        /// `device.create_semaphore`.
        DeviceCreateSemaphore = 11 => "device.create_semaphore",
        /// `device.query_queue_pool_backend`.
        DeviceQueryQueuePoolBackend = 12 => "device.query_queue_pool_backend",
        /// `device.queue_alloca`.
        DeviceQueueAlloca = 13 => "device.queue_alloca",
        /// `device.queue_dealloca`.
        DeviceQueueDealloca = 14 => "device.queue_dealloca",
        /// `device.queue_fill`.
        DeviceQueueFill = 15 => "device.queue_fill",
        /// `device.queue_update`.
        DeviceQueueUpdate = 16 => "device.queue_update",
        /// `device.queue_copy`.
        DeviceQueueCopy = 17 => "device.queue_copy",
        /// `device.queue_read`.
        DeviceQueueRead = 18 => "device.queue_read",
        /// `device.queue_write`.
        DeviceQueueWrite = 19 => "device.queue_write",
        /// `device.queue_host_call`.
        DeviceQueueHostCall = 20 => "device.queue_host_call",
        /// `device.queue_dispatch`.
        DeviceQueueDispatch = 21 => "device.queue_dispatch",
        /// `device.queue_execute`.
        DeviceQueueExecute = 22 => "device.queue_execute",
        /// `device.queue_flush`.
        DeviceQueueFlush = 23 => "device.queue_flush",
        /// `device.profiling_begin`.
        DeviceProfilingBegin = 24 => "device.profiling_begin",
        /// `device.profiling_flush`.
        DeviceProfilingFlush = 25 => "device.profiling_flush",
        /// `device.profiling_end`.
        DeviceProfilingEnd = 26 => "device.profiling_end",
        /// `device.external_capture_begin`.
        DeviceExternalCaptureBegin = 27 => "device.external_capture_begin",
        /// `device.external_capture_end`.
        DeviceExternalCaptureEnd = 28 => "device.external_capture_end",
        /// A named scope begins (`init`, `execute`, `deinit`).
        ReplayScopeBegin = 50 => "replay.scope_begin",
        /// A named scope ends.
        ReplayScopeEnd = 51 => "replay.scope_end",
        /// `allocator.trim`.
        AllocatorTrim = 100 => "allocator.trim",
        /// `allocator.query_memory_heaps`.
        AllocatorQueryMemoryHeaps = 101 => "allocator.query_memory_heaps",
        /// `allocator.allocate_buffer`.
        AllocatorAllocateBuffer = 102 => "allocator.allocate_buffer",
        /// `allocator.import_buffer`.
        AllocatorImportBuffer = 103 => "allocator.import_buffer",
        /// `allocator.export_buffer`.
        AllocatorExportBuffer = 104 => "allocator.export_buffer",
        /// `allocator.virtual_memory_query_granularity`.
        AllocatorVirtualMemoryQueryGranularity = 105 => "allocator.virtual_memory_query_granularity",
        /// `allocator.virtual_memory_reserve`.
        AllocatorVirtualMemoryReserve = 106 => "allocator.virtual_memory_reserve",
        /// `allocator.virtual_memory_release`.
        AllocatorVirtualMemoryRelease = 107 => "allocator.virtual_memory_release",
        /// `allocator.physical_memory_allocate`.
        AllocatorPhysicalMemoryAllocate = 108 => "allocator.physical_memory_allocate",
        /// `allocator.physical_memory_free`.
        AllocatorPhysicalMemoryFree = 109 => "allocator.physical_memory_free",
        /// `allocator.virtual_memory_map`.
        AllocatorVirtualMemoryMap = 110 => "allocator.virtual_memory_map",
        /// `allocator.virtual_memory_unmap`.
        AllocatorVirtualMemoryUnmap = 111 => "allocator.virtual_memory_unmap",
        /// `allocator.virtual_memory_protect`.
        AllocatorVirtualMemoryProtect = 112 => "allocator.virtual_memory_protect",
        /// `allocator.virtual_memory_advise`.
        AllocatorVirtualMemoryAdvise = 113 => "allocator.virtual_memory_advise",
        /// `buffer.map_range`.
        BufferMapRange = 200 => "buffer.map_range",
        /// `buffer.unmap_range` (with the written bytes when the map wrote).
        BufferUnmapRange = 201 => "buffer.unmap_range",
        /// `buffer.invalidate_range`.
        BufferInvalidateRange = 202 => "buffer.invalidate_range",
        /// `buffer.flush_range`.
        BufferFlushRange = 203 => "buffer.flush_range",
        /// `command_buffer.begin`.
        CommandBufferBegin = 300 => "command_buffer.begin",
        /// `command_buffer.end`.
        CommandBufferEnd = 301 => "command_buffer.end",
        /// `command_buffer.begin_debug_group`.
        CommandBufferBeginDebugGroup = 302 => "command_buffer.begin_debug_group",
        /// `command_buffer.end_debug_group`.
        CommandBufferEndDebugGroup = 303 => "command_buffer.end_debug_group",
        /// `command_buffer.execution_barrier`.
        CommandBufferExecutionBarrier = 304 => "command_buffer.execution_barrier",
        /// `command_buffer.signal_event`.
        CommandBufferSignalEvent = 305 => "command_buffer.signal_event",
        /// `command_buffer.reset_event`.
        CommandBufferResetEvent = 306 => "command_buffer.reset_event",
        /// `command_buffer.wait_events`.
        CommandBufferWaitEvents = 307 => "command_buffer.wait_events",
        /// `command_buffer.advise_buffer`.
        CommandBufferAdviseBuffer = 308 => "command_buffer.advise_buffer",
        /// `command_buffer.fill_buffer`.
        CommandBufferFillBuffer = 309 => "command_buffer.fill_buffer",
        /// `command_buffer.update_buffer`.
        CommandBufferUpdateBuffer = 310 => "command_buffer.update_buffer",
        /// `command_buffer.copy_buffer`.
        CommandBufferCopyBuffer = 311 => "command_buffer.copy_buffer",
        /// `command_buffer.collective`.
        CommandBufferCollective = 312 => "command_buffer.collective",
        /// `command_buffer.dispatch`.
        CommandBufferDispatch = 313 => "command_buffer.dispatch",
        /// `executable_cache.infer_format`.
        ExecutableCacheInferFormat = 400 => "executable_cache.infer_format",
        /// `executable_cache.can_prepare_format`.
        ExecutableCacheCanPrepareFormat = 401 => "executable_cache.can_prepare_format",
        /// `executable_cache.prepare_executable`.
        ExecutableCachePrepareExecutable = 402 => "executable_cache.prepare_executable",
        /// `executable.function_count`.
        ExecutableFunctionCount = 500 => "executable.function_count",
        /// `executable.function_info`.
        ExecutableFunctionInfo = 501 => "executable.function_info",
        /// `executable.function_parameters`.
        ExecutableFunctionParameters = 502 => "executable.function_parameters",
        /// `executable.lookup_function_by_name`.
        ExecutableLookupFunctionByName = 503 => "executable.lookup_function_by_name",
    }
}

named_codes! {
    /// The schema of a record's payload (`iree_hal_replay_payload_type_t`).
    PayloadType: u32 {
        /// No payload.
        None = 0 => "none",
        /// [`BufferObjectPayload`].
        BufferObject = 1 => "buffer_object",
        /// [`AllocateBufferPayload`].
        AllocatorAllocateBuffer = 2 => "allocator_allocate_buffer",
        /// [`BufferRangePayload`].
        BufferRange = 3 => "buffer_range",
        /// [`BufferRangeDataPayload`] and the bytes.
        BufferRangeData = 4 => "buffer_range_data",
        /// [`CommandBufferObjectPayload`].
        CommandBufferObject = 5 => "command_buffer_object",
        /// [`ExecutableCacheObjectPayload`] and the identifier.
        ExecutableCacheObject = 6 => "executable_cache_object",
        /// [`ExecutablePreparePayload`], format, data, constants, metadata.
        ExecutablePrepare = 7 => "executable_prepare",
        /// [`DispatchPayload`], semaphores, constants, bindings.
        Dispatch = 8 => "dispatch",
        /// [`QueueExecutePayload`], semaphores, binding table.
        DeviceQueueExecute = 9 => "device_queue_execute",
        /// [`SemaphoreObjectPayload`].
        SemaphoreObject = 10 => "semaphore_object",
        /// [`CommandBufferCopyPayload`].
        CommandBufferCopyBuffer = 11 => "command_buffer_copy_buffer",
        /// [`QueueAllocaPayload`] and semaphores.
        DeviceQueueAlloca = 12 => "device_queue_alloca",
        /// [`ExecutionBarrierPayload`] and barriers.
        CommandBufferExecutionBarrier = 13 => "command_buffer_execution_barrier",
        /// [`QueueDeallocaPayload`] and semaphores.
        DeviceQueueDealloca = 14 => "device_queue_dealloca",
        /// [`QueueFillPayload`], semaphores, pattern.
        DeviceQueueFill = 15 => "device_queue_fill",
        /// [`QueueUpdatePayload`], semaphores, data.
        DeviceQueueUpdate = 16 => "device_queue_update",
        /// [`QueueCopyPayload`] and semaphores.
        DeviceQueueCopy = 17 => "device_queue_copy",
        /// [`CommandBufferFillPayload`] and the pattern.
        CommandBufferFillBuffer = 18 => "command_buffer_fill_buffer",
        /// [`CommandBufferUpdatePayload`] and the data.
        CommandBufferUpdateBuffer = 19 => "command_buffer_update_buffer",
        /// [`EventObjectPayload`].
        EventObject = 20 => "event_object",
        /// [`CommandBufferEventPayload`].
        CommandBufferEvent = 21 => "command_buffer_event",
        /// [`WaitEventsPayload`], event ids, barriers.
        CommandBufferWaitEvents = 22 => "command_buffer_wait_events",
        /// [`FileObjectPayload`] and the reference.
        FileObject = 23 => "file_object",
        /// [`QueueReadPayload`], semaphores, captured bytes.
        DeviceQueueRead = 24 => "device_queue_read",
        /// [`QueueWritePayload`] and semaphores.
        DeviceQueueWrite = 25 => "device_queue_write",
        /// [`ImportBufferPayload`] and the bytes.
        AllocatorImportBuffer = 26 => "allocator_import_buffer",
        /// [`ScopePayload`] and the name.
        ReplayScope = 27 => "replay_scope",
    }
}

named_codes! {
    /// How a file object's contents are found (`iree_hal_replay_file_reference_type_t`).
    FileReferenceType: u32 {
        /// Nothing.
        None = 0 => "none",
        /// Read from a path at replay.
        ExternalPath = 1 => "external_path",
        /// The whole file is in the record.
        InlineBytes = 2 => "inline_bytes",
        /// The ranges read are in the `queue_read` records.
        CapturedRanges = 3 => "captured_ranges",
    }
}

named_codes! {
    /// How an external file is checked at replay (`iree_hal_replay_file_validation_type_t`).
    FileValidationType: u32 {
        /// Length only.
        None = 0 => "none",
        /// Device, inode and modification time.
        Identity = 1 => "identity",
        /// The FNV-1a digest of the contents.
        ContentDigest = 2 => "digest",
    }
}

/// Digest type: none.
pub const DIGEST_TYPE_NONE: u16 = 0;
/// Digest type: FNV-1a 64-bit in the first 8 digest bytes.
pub const DIGEST_TYPE_FNV1A_64: u16 = 1;

/// FNV-1a, 64-bit, as the format's digests use it.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a64(pub u64);

impl Default for Fnv1a64 {
    fn default() -> Self {
        Fnv1a64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a64 {
    /// Folds `bytes` in.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut state = Fnv1a64::default();
        state.update(bytes);
        state.0
    }
}

/// A 32-byte digest field holding `digest` in its first 8 bytes.
pub fn digest_field(digest: u64) -> [u8; 32] {
    let mut field = [0u8; 32];
    field[..8].copy_from_slice(&digest.to_le_bytes());
    field
}

/// The FNV-1a digest stored in the first 8 bytes of a digest field.
pub fn digest_of_field(field: &[u8; 32]) -> u64 {
    u64::decode(field)
}

wire_struct! {
    /// A captured buffer (`iree_hal_replay_buffer_object_payload_t`).
    pub struct BufferObjectPayload = 56 {
        /// The allocation's size.
        pub allocation_size: u64,
        /// The buffer's offset in its allocation.
        pub byte_offset: u64,
        /// The buffer's length.
        pub byte_length: u64,
        /// Placement queue affinity.
        pub queue_affinity: u64,
        /// Placement flags.
        pub placement_flags: u32,
        /// Memory type bits.
        pub memory_type: u32,
        /// Allowed usage bits.
        pub allowed_usage: u32,
        /// Allowed access bits.
        pub allowed_access: u16,
        /// Reserved.
        pub reserved0: u16,
        /// Reserved.
        pub reserved1: u32,
        #[doc(hidden)]
        pub _pad0: Pad<4>,
    }
}

wire_struct! {
    /// An allocation request (`iree_hal_replay_allocator_allocate_buffer_payload_t`).
    pub struct AllocateBufferPayload = 40 {
        /// Bytes requested.
        pub allocation_size: u64,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Minimum alignment.
        pub min_alignment: u64,
        /// Usage bits.
        pub usage: u32,
        /// Memory type bits.
        pub memory_type: u32,
        /// Access bits.
        pub access: u16,
        /// Reserved.
        pub reserved0: u16,
        /// Reserved.
        pub reserved1: u32,
    }
}

wire_struct! {
    /// A host allocation imported as a buffer, followed by its bytes
    /// (`iree_hal_replay_allocator_import_buffer_payload_t`).
    pub struct ImportBufferPayload = 56 {
        /// How to allocate its replacement at replay.
        pub allocation: AllocateBufferPayload,
        /// External buffer type.
        pub external_type: u32,
        /// External buffer flags.
        pub external_flags: u32,
        /// Bytes that follow.
        pub data_length: u64,
    }
}

wire_struct! {
    /// A buffer range operation (`iree_hal_replay_buffer_range_payload_t`).
    pub struct BufferRangePayload = 32 {
        /// Offset in the allocation.
        pub byte_offset: u64,
        /// Length.
        pub byte_length: u64,
        /// Mapping mode (map operations).
        pub mapping_mode: u32,
        /// Memory access (map operations).
        pub memory_access: u16,
        /// Reserved.
        pub reserved0: u16,
        /// Reserved.
        pub reserved1: u32,
        #[doc(hidden)]
        pub _pad0: Pad<4>,
    }
}

wire_struct! {
    /// A buffer range operation carrying the bytes written, which follow
    /// (`iree_hal_replay_buffer_range_data_payload_t`).
    pub struct BufferRangeDataPayload = 40 {
        /// Offset in the allocation.
        pub byte_offset: u64,
        /// Length.
        pub byte_length: u64,
        /// Bytes that follow.
        pub data_length: u64,
        /// Mapping mode.
        pub mapping_mode: u32,
        /// Memory access.
        pub memory_access: u16,
        /// Reserved.
        pub reserved0: u16,
        /// Reserved.
        pub reserved1: u32,
        #[doc(hidden)]
        pub _pad0: Pad<4>,
    }
}

wire_struct! {
    /// A command buffer (`iree_hal_replay_command_buffer_object_payload_t`).
    pub struct CommandBufferObjectPayload = 24 {
        /// Mode bits.
        pub mode: u32,
        /// Command categories.
        pub command_categories: u32,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Binding table capacity.
        pub binding_capacity: u64,
    }
}

wire_struct! {
    /// An executable cache, followed by its identifier
    /// (`iree_hal_replay_executable_cache_object_payload_t`).
    pub struct ExecutableCacheObjectPayload = 16 {
        /// Identifier bytes that follow.
        pub identifier_length: u64,
        /// Reserved.
        pub reserved0: u64,
    }
}

wire_struct! {
    /// An executable preparation, followed by the format string, the
    /// executable data, the constants and the ABI metadata
    /// (`iree_hal_replay_executable_prepare_payload_t`).
    pub struct ExecutablePreparePayload = 40 {
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Executable data bytes.
        pub executable_data_length: u64,
        /// Number of `u32` constants.
        pub constant_count: u64,
        /// Caching mode bits.
        pub caching_mode: u32,
        /// Format string bytes.
        pub executable_format_length: u32,
        /// Metadata bytes.
        pub executable_metadata_length: u32,
        /// Reserved.
        pub reserved1: u32,
    }
}

wire_struct! {
    /// The head of an executable's ABI metadata: function records,
    /// parameter records, then the names
    /// (`iree_hal_replay_executable_metadata_header_t`).
    pub struct ExecutableMetadataHeader = 32 {
        /// Function records.
        pub function_count: u64,
        /// Parameter records, all functions together.
        pub parameter_count: u64,
        /// Name bytes, all functions together.
        pub function_name_storage_length: u64,
        /// Reserved.
        pub reserved1: u64,
    }
}

wire_struct! {
    /// One function of an executable
    /// (`iree_hal_replay_executable_function_metadata_t`).
    pub struct FunctionMetadata = 32 {
        /// Function flags.
        pub flags: u64,
        /// Static workgroup size.
        pub workgroup_size: [u32; 3],
        /// 32-bit constants.
        pub constant_count: u16,
        /// Buffer bindings.
        pub binding_count: u16,
        /// Parameter records.
        pub parameter_count: u16,
        /// Name bytes.
        pub name_length: u16,
        #[doc(hidden)]
        pub _pad0: Pad<4>,
    }
}

wire_struct! {
    /// One reflected function parameter
    /// (`iree_hal_replay_executable_parameter_metadata_t`).
    pub struct ParameterMetadata = 8 {
        /// Byte offset or binding ordinal.
        pub offset: u16,
        /// Flags.
        pub flags: u16,
        /// Parameter type.
        pub parameter_type: u8,
        /// Size in bytes.
        pub size: u8,
        /// Reserved.
        pub reserved0: u16,
    }
}

wire_struct! {
    /// A semaphore (`iree_hal_replay_semaphore_object_payload_t`).
    pub struct SemaphoreObjectPayload = 32 {
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Initial value.
        pub initial_value: u64,
        /// Flags.
        pub flags: u64,
        /// Reserved.
        pub reserved0: u64,
    }
}

wire_struct! {
    /// A file, followed by its reference
    /// (`iree_hal_replay_file_object_payload_t`).
    pub struct FileObjectPayload = 112 {
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Length in bytes.
        pub file_length: u64,
        /// Platform device id, or 0.
        pub file_device: u64,
        /// Inode, or 0.
        pub file_inode: u64,
        /// Modification time in nanoseconds, or 0.
        pub file_mtime_ns: u64,
        /// Reference bytes that follow.
        pub reference_length: u64,
        /// Memory access bits.
        pub access: u32,
        /// Import flags.
        pub flags: u32,
        /// Handle type.
        pub handle_type: u32,
        /// A [`FileReferenceType`] value.
        pub reference_type: u32,
        /// A [`FileValidationType`] value.
        pub validation_type: u32,
        /// Digest type of `digest`.
        pub digest_type: u16,
        /// Reserved.
        pub reserved0: u16,
        /// Reserved.
        pub reserved1: u32,
        /// Digest bytes.
        pub digest: [u8; 32],
        #[doc(hidden)]
        pub _pad0: Pad<4>,
    }
}

wire_struct! {
    /// An event (`iree_hal_replay_event_object_payload_t`).
    pub struct EventObjectPayload = 24 {
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u32,
        /// Reserved.
        pub reserved0: u32,
        /// Reserved.
        pub reserved1: u64,
    }
}

wire_struct! {
    /// A scope marker, followed by its name (`iree_hal_replay_scope_payload_t`).
    pub struct ScopePayload = 24 {
        /// Name bytes that follow.
        pub name_length: u64,
        /// Flags (none defined).
        pub flags: u32,
        /// Reserved.
        pub reserved0: u32,
        /// Reserved.
        pub reserved1: u64,
    }
}

wire_struct! {
    /// A semaphore timepoint (`iree_hal_replay_semaphore_timepoint_payload_t`).
    pub struct Timepoint = 16 {
        /// The semaphore's id.
        pub semaphore_id: u64,
        /// The value.
        pub value: u64,
    }
}

wire_struct! {
    /// A buffer range, or a binding table slot when `buffer_id` is 0
    /// (`iree_hal_replay_buffer_ref_payload_t`).
    pub struct BufferRef = 32 {
        /// The buffer's id, or 0 for a slot.
        pub buffer_id: u64,
        /// Offset.
        pub offset: u64,
        /// Length.
        pub length: u64,
        /// Binding table slot when `buffer_id` is 0.
        pub buffer_slot: u32,
        /// Reserved.
        pub reserved0: u32,
    }
}

wire_struct! {
    /// A memory barrier (`iree_hal_replay_memory_barrier_payload_t`).
    pub struct MemoryBarrier = 8 {
        /// Access scopes before.
        pub source_scope: u32,
        /// Access scopes after.
        pub target_scope: u32,
    }
}

wire_struct! {
    /// A buffer barrier (`iree_hal_replay_buffer_barrier_payload_t`).
    pub struct BufferBarrier = 40 {
        /// Access scopes before.
        pub source_scope: u32,
        /// Access scopes after.
        pub target_scope: u32,
        /// The range.
        pub buffer_ref: BufferRef,
    }
}

wire_struct! {
    /// An event signal or reset in a command buffer
    /// (`iree_hal_replay_command_buffer_event_payload_t`).
    pub struct CommandBufferEventPayload = 16 {
        /// The event's id.
        pub event_id: u64,
        /// Source stages.
        pub source_stage_mask: u64,
    }
}

wire_struct! {
    /// An event wait in a command buffer, followed by event ids and barriers
    /// (`iree_hal_replay_command_buffer_wait_events_payload_t`).
    pub struct WaitEventsPayload = 48 {
        /// Source stages.
        pub source_stage_mask: u64,
        /// Target stages.
        pub target_stage_mask: u64,
        /// Event ids that follow.
        pub event_count: u64,
        /// Memory barriers that follow.
        pub memory_barrier_count: u64,
        /// Buffer barriers that follow.
        pub buffer_barrier_count: u64,
        /// Reserved.
        pub reserved0: u64,
    }
}

wire_struct! {
    /// An execution barrier, followed by its barriers
    /// (`iree_hal_replay_command_buffer_execution_barrier_payload_t`).
    pub struct ExecutionBarrierPayload = 40 {
        /// Source stages.
        pub source_stage_mask: u64,
        /// Target stages.
        pub target_stage_mask: u64,
        /// Flags.
        pub flags: u64,
        /// Memory barriers that follow.
        pub memory_barrier_count: u64,
        /// Buffer barriers that follow.
        pub buffer_barrier_count: u64,
    }
}

wire_struct! {
    /// A dispatch, followed by wait and signal timepoints, constants and
    /// bindings (`iree_hal_replay_dispatch_payload_t`).
    pub struct DispatchPayload = 120 {
        /// The executable's id.
        pub executable_id: u64,
        /// Queue affinity (queue dispatches; 0 in command buffers).
        pub queue_affinity: u64,
        /// Function ordinal in the executable's metadata.
        pub function_ordinal: u32,
        /// Dispatch flags.
        pub flags: u32,
        /// Workgroup size.
        pub workgroup_size: [u32; 3],
        /// Workgroup count.
        pub workgroup_count: [u32; 3],
        /// Indirect workgroup count buffer.
        pub workgroup_count_ref: BufferRef,
        /// Dynamic workgroup-local memory bytes.
        pub dynamic_workgroup_local_memory: u32,
        /// Reserved.
        pub reserved0: u32,
        /// Wait timepoints that follow.
        pub wait_semaphore_count: u64,
        /// Signal timepoints that follow.
        pub signal_semaphore_count: u64,
        /// Constant bytes that follow.
        pub constants_length: u64,
        /// Bindings that follow.
        pub binding_count: u64,
    }
}

wire_struct! {
    /// A command buffer submission, followed by timepoints and the binding
    /// table (`iree_hal_replay_device_queue_execute_payload_t`).
    pub struct QueueExecutePayload = 48 {
        /// The command buffer's id, or 0 for a barrier.
        pub command_buffer_id: u64,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u64,
        /// Wait timepoints.
        pub wait_semaphore_count: u64,
        /// Signal timepoints.
        pub signal_semaphore_count: u64,
        /// Binding table entries.
        pub binding_count: u64,
    }
}

wire_struct! {
    /// A queue allocation, followed by timepoints
    /// (`iree_hal_replay_device_queue_alloca_payload_t`).
    pub struct QueueAllocaPayload = 72 {
        /// The allocation.
        pub allocation: AllocateBufferPayload,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u64,
        /// Wait timepoints.
        pub wait_semaphore_count: u64,
        /// Signal timepoints.
        pub signal_semaphore_count: u64,
    }
}

wire_struct! {
    /// A queue deallocation, followed by timepoints
    /// (`iree_hal_replay_device_queue_dealloca_payload_t`).
    pub struct QueueDeallocaPayload = 64 {
        /// The buffer.
        pub buffer_ref: BufferRef,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u64,
        /// Wait timepoints.
        pub wait_semaphore_count: u64,
        /// Signal timepoints.
        pub signal_semaphore_count: u64,
    }
}

wire_struct! {
    /// A queue fill, followed by timepoints and the pattern
    /// (`iree_hal_replay_device_queue_fill_payload_t`).
    pub struct QueueFillPayload = 72 {
        /// The range filled.
        pub target_ref: BufferRef,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u64,
        /// Wait timepoints.
        pub wait_semaphore_count: u64,
        /// Signal timepoints.
        pub signal_semaphore_count: u64,
        /// Pattern bytes.
        pub pattern_length: u64,
    }
}

wire_struct! {
    /// A queue update, followed by timepoints and the data
    /// (`iree_hal_replay_device_queue_update_payload_t`).
    pub struct QueueUpdatePayload = 80 {
        /// The range written.
        pub target_ref: BufferRef,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u64,
        /// The caller's source offset (informational).
        pub source_offset: u64,
        /// Data bytes.
        pub data_length: u64,
        /// Wait timepoints.
        pub wait_semaphore_count: u64,
        /// Signal timepoints.
        pub signal_semaphore_count: u64,
    }
}

wire_struct! {
    /// A queue copy, followed by timepoints
    /// (`iree_hal_replay_device_queue_copy_payload_t`).
    pub struct QueueCopyPayload = 96 {
        /// The range read.
        pub source_ref: BufferRef,
        /// The range written.
        pub target_ref: BufferRef,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u64,
        /// Wait timepoints.
        pub wait_semaphore_count: u64,
        /// Signal timepoints.
        pub signal_semaphore_count: u64,
    }
}

wire_struct! {
    /// A queue read from a file, followed by timepoints and the captured
    /// bytes (`iree_hal_replay_device_queue_read_payload_t`).
    pub struct QueueReadPayload = 88 {
        /// The file's id.
        pub source_file_id: u64,
        /// Offset in the file.
        pub source_offset: u64,
        /// The range written.
        pub target_ref: BufferRef,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u64,
        /// Captured bytes that follow the timepoints.
        pub captured_data_length: u64,
        /// Wait timepoints.
        pub wait_semaphore_count: u64,
        /// Signal timepoints.
        pub signal_semaphore_count: u64,
    }
}

wire_struct! {
    /// A queue write to a file, followed by timepoints
    /// (`iree_hal_replay_device_queue_write_payload_t`).
    pub struct QueueWritePayload = 80 {
        /// The range read.
        pub source_ref: BufferRef,
        /// The file's id.
        pub target_file_id: u64,
        /// Offset in the file.
        pub target_offset: u64,
        /// Queue affinity.
        pub queue_affinity: u64,
        /// Flags.
        pub flags: u64,
        /// Wait timepoints.
        pub wait_semaphore_count: u64,
        /// Signal timepoints.
        pub signal_semaphore_count: u64,
    }
}

wire_struct! {
    /// A fill recorded in a command buffer, followed by the pattern
    /// (`iree_hal_replay_command_buffer_fill_buffer_payload_t`).
    pub struct CommandBufferFillPayload = 48 {
        /// The range filled.
        pub target_ref: BufferRef,
        /// Flags.
        pub flags: u32,
        /// Reserved.
        pub reserved0: u32,
        /// Pattern bytes.
        pub pattern_length: u64,
    }
}

wire_struct! {
    /// An update recorded in a command buffer, followed by the data
    /// (`iree_hal_replay_command_buffer_update_buffer_payload_t`).
    pub struct CommandBufferUpdatePayload = 56 {
        /// The range written.
        pub target_ref: BufferRef,
        /// Flags.
        pub flags: u32,
        /// Reserved.
        pub reserved0: u32,
        /// The caller's source offset (informational).
        pub source_offset: u64,
        /// Data bytes.
        pub data_length: u64,
    }
}

wire_struct! {
    /// A copy recorded in a command buffer
    /// (`iree_hal_replay_command_buffer_copy_buffer_payload_t`).
    pub struct CommandBufferCopyPayload = 80 {
        /// The range read.
        pub source_ref: BufferRef,
        /// The range written.
        pub target_ref: BufferRef,
        /// Flags.
        pub flags: u32,
        /// Reserved.
        pub reserved0: u32,
        /// Reserved.
        pub reserved1: u64,
    }
}

/// Upstream's name of a status code as records store it (`""` for codes
/// without one).
pub fn status_code_name(code: u32) -> &'static str {
    if code <= 18 {
        iree_base::StatusCode::from_raw(code).name()
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structures_round_trip_with_zeroed_padding() {
        let header = RecordHeader {
            record_length: 96,
            sequence_ordinal: 7,
            header_length: 96,
            record_type: RecordType::Operation.0,
            reserved1: 0,
            ..RecordHeader::default()
        };
        let bytes = header.to_bytes();
        assert_eq!(bytes.len(), 96);
        assert_eq!(&bytes[84..88], &[0; 4]);
        assert_eq!(RecordHeader::decode(&bytes), header);
        assert_eq!(u16::decode(&bytes[60..]), RecordType::Operation.0);
        assert!(RecordHeader::read(&bytes[..95]).is_none());
    }

    #[test]
    fn names_match_upstream() {
        assert_eq!(RecordType(3).name(), "operation");
        assert_eq!(RecordType(9).name(), "unknown");
        assert_eq!(ObjectType::CommandBuffer.name(), "command_buffer");
        assert_eq!(OperationCode(313).name(), "command_buffer.dispatch");
        assert_eq!(OperationCode(50).name(), "replay.scope_begin");
        assert_eq!(PayloadType(27).name(), "replay_scope");
        assert_eq!(status_code_name(15), "DATA_LOSS");
        assert_eq!(status_code_name(40), "");
        assert_eq!(Fnv1a64::of(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv1a64::of(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
