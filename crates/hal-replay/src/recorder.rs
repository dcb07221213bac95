//! Capture: a [`Recorder`] writes one `.ireereplay` file, and
//! [`Recorder::wrap`] puts a [`RecordingDevice`] around any HAL device so
//! that every call made through it becomes records of that file (all
//! devices wrapped by one recorder share its file, ids and order).
//!
//! The wrapper implements the same [`Device`] and [`Allocator`] traits and
//! forwards every call to the device it wraps; the device never knows it is
//! recorded. What the HAL's traits do not pass through a device call is
//! seen from the side: buffers the wrapper hands out carry a
//! [`HostAccessObserver`] (the host's mapped writes become
//! `buffer.map_range`/`buffer.unmap_range` records with the bytes written,
//! its reads records without them), and executables, semaphores, events,
//! files and command buffers are told apart by identity the first time a
//! call names them.
//!
//! Queue operations are recorded before they are handed on, so a record
//! always precedes whatever a later record depends on. The HAL's semaphores
//! are plain objects the host can signal without any device call: a wait
//! on a value no recorded signal reaches was satisfied by the host, and is
//! left out of the record (replay runs every operation in file order
//! anyway).

use std::collections::HashMap;
use std::io::BufWriter;
use std::path::Path;
use std::sync::{Arc, Weak};

use iree_base::{Result, Status, StatusCode};
use iree_hal::{
    Allocator, AllocatorStatistics, BindingRef, Buffer, BufferCompatibility, BufferParams, Channel,
    ChannelParams, Command, CommandBuffer, Device, DispatchBinding, Event, Executable,
    ExternalHostMemory, Fence, File, HostAccessObserver, MemoryHeap, QueueTransfer, Semaphore,
    WorkgroupCount,
};
use parking_lot::Mutex;

use crate::format::*;
use crate::writer::{RecordMeta, ReplayWriter};

/// What happens to files on disk a capture reads through the HAL
/// (`--device_replay_file_policy`). Files in memory are always embedded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FilePolicy {
    /// Record the path and identity (or digest); replay reads the file.
    #[default]
    Reference,
    /// Embed the bytes each read takes (hermetic).
    CaptureRanges,
    /// Embed the whole file.
    CaptureAll,
    /// Refuse files on disk.
    Fail,
}

impl FilePolicy {
    /// Parses a `--device_replay_file_policy` value.
    pub fn parse(value: &str) -> Result<FilePolicy> {
        match value {
            "reference" => Ok(FilePolicy::Reference),
            "capture-ranges" => Ok(FilePolicy::CaptureRanges),
            "capture-all" => Ok(FilePolicy::CaptureAll),
            "fail" => Ok(FilePolicy::Fail),
            _ => Err(Status::new(
                StatusCode::InvalidArgument,
                format!("--device_replay_file_policy must be `reference`, `capture-ranges`, `capture-all`, or `fail`; got `{value}`"),
            )),
        }
    }
}

/// How a referenced file is checked at replay
/// (`--device_replay_file_validation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FileValidation {
    /// Length, device, inode and modification time.
    #[default]
    Identity,
    /// A digest of the contents (read at capture and at replay).
    Digest,
}

impl FileValidation {
    /// Parses a `--device_replay_file_validation` value.
    pub fn parse(value: &str) -> Result<FileValidation> {
        match value {
            "identity" => Ok(FileValidation::Identity),
            "digest" => Ok(FileValidation::Digest),
            _ => Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "--device_replay_file_validation must be `identity` or `digest`; got `{value}`"
                ),
            )),
        }
    }
}

/// How a recorder treats files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecorderOptions {
    /// Files on disk.
    pub file_policy: FilePolicy,
    /// Referenced files' validation.
    pub file_validation: FileValidation,
}

/// All queues.
const QUEUE_AFFINITY_ANY: u64 = u64::MAX;
/// `IREE_HAL_SEMAPHORE_FLAG_DEFAULT`.
const SEMAPHORE_FLAGS_DEFAULT: u64 = 0x0a;
/// Command categories: transfer and dispatch.
const COMMAND_CATEGORY_ANY: u32 = 0b11;
/// Mapping mode of the host's scoped mappings.
const MAPPING_MODE_SCOPED: u32 = 1;
/// Access of a mapping for writing (write, discard).
const MAP_ACCESS_WRITE: u16 = 0b110;
/// Access of a mapping for reading.
const MAP_ACCESS_READ: u16 = 0b001;
/// Dispatch flag of a workgroup count read from a buffer.
const DISPATCH_FLAG_DYNAMIC_INDIRECT_PARAMETERS: u32 = 1;
/// External buffer type of host allocations.
const EXTERNAL_BUFFER_TYPE_HOST_ALLOCATION: u32 = 1;
/// File handle types.
const HANDLE_TYPE_HOST_ALLOCATION: u32 = 0;
const HANDLE_TYPE_FD: u32 = 1;

/// A semaphore the capture knows.
struct SemaphoreEntry {
    semaphore: Weak<Semaphore>,
    id: u64,
    /// The largest value recorded operations (or its initial value) reach.
    reached: u64,
}

/// What one wrapped device has recorded of its own.
struct DeviceEntry {
    allocator_id: u64,
    executable_cache_id: Option<u64>,
    /// The semaphore chaining the transfers of one `queue_transfers`, and
    /// the value it last reached.
    chain: Option<(u64, u64)>,
}

/// An object known by identity (the address of its shared allocation),
/// with a weak reference to tell a live one from a reused address.
struct Known<T: ?Sized> {
    object: Weak<T>,
    id: u64,
}

/// Objects the capture knows, by address.
struct Registry<T: ?Sized> {
    entries: HashMap<usize, Known<T>>,
    /// Size after the last sweep of dead entries.
    swept: usize,
}

impl<T: ?Sized> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            entries: HashMap::new(),
            swept: 0,
        }
    }
}

fn address<T: ?Sized>(object: &Arc<T>) -> usize {
    Arc::as_ptr(object) as *const () as usize
}

impl<T: ?Sized> Registry<T> {
    fn get(&self, object: &Arc<T>) -> Option<u64> {
        self.entries
            .get(&address(object))
            .filter(|k| k.object.upgrade().is_some_and(|o| Arc::ptr_eq(&o, object)))
            .map(|k| k.id)
    }

    fn insert(&mut self, object: &Arc<T>, id: u64) {
        if self.entries.len() > 2 * self.swept + 64 {
            self.entries.retain(|_, k| k.object.strong_count() > 0);
            self.swept = self.entries.len();
        }
        self.entries.insert(
            address(object),
            Known {
                object: Arc::downgrade(object),
                id,
            },
        );
    }
}

/// A referenced file, and whether its reads carry their bytes.
struct FileEntry {
    id: u64,
    captured_ranges: bool,
}

struct State {
    writer: Option<ReplayWriter<BufWriter<std::fs::File>>>,
    /// The first failure to write; reported when the capture closes.
    failure: Option<Status>,
    next_id: u64,
    devices: HashMap<u64, DeviceEntry>,
    semaphores: HashMap<usize, SemaphoreEntry>,
    semaphores_swept: usize,
    executables: Registry<dyn Executable>,
    events: Registry<Event>,
    files: HashMap<usize, (Weak<dyn File>, FileEntry)>,
    /// Recorded command buffers by [`CommandBuffer::identity`].
    command_buffers: HashMap<u64, u64>,
}

impl State {
    fn id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Appends a record; returns its offset in the file.
    fn append(&mut self, meta: &RecordMeta, parts: &[&[u8]]) -> u64 {
        let Some(writer) = &mut self.writer else {
            return 0;
        };
        let offset = writer.offset();
        if let Err(status) = writer.append(meta, parts) {
            self.failure.get_or_insert(status);
            self.writer = None;
        }
        offset
    }

    /// Sets the status of the records at `records` (offsets) to `status`'s
    /// code: calls recorded before they were made that failed before
    /// returning (replay skips them, as the original run got nothing from
    /// them).
    fn mark_failed(&mut self, records: &[u64], status: &Status) {
        if let Some(writer) = &mut self.writer {
            for &offset in records {
                if let Err(e) = writer.set_status(offset, status.code().raw()) {
                    self.failure.get_or_insert(e);
                }
            }
        }
    }

    fn object(
        &mut self,
        device_id: u64,
        object_type: ObjectType,
        id: u64,
        payload_type: PayloadType,
        parts: &[&[u8]],
    ) {
        let meta = RecordMeta {
            record_type: RecordType::Object,
            payload_type,
            object_type,
            device_id,
            object_id: id,
            ..RecordMeta::default()
        };
        self.append(&meta, parts);
    }

    #[allow(clippy::too_many_arguments, reason = "one record's header fields")]
    fn operation(
        &mut self,
        device_id: u64,
        object_type: ObjectType,
        object_id: u64,
        related_object_id: u64,
        operation_code: OperationCode,
        payload_type: PayloadType,
        status_code: u32,
        parts: &[&[u8]],
    ) -> u64 {
        let meta = RecordMeta {
            record_type: RecordType::Operation,
            payload_type,
            object_type,
            operation_code,
            device_id,
            object_id,
            related_object_id,
            status_code,
            ..RecordMeta::default()
        };
        self.append(&meta, parts)
    }

    /// An operation on a device; returns its record's offset.
    fn device_operation(
        &mut self,
        device_id: u64,
        related: u64,
        code: OperationCode,
        payload_type: PayloadType,
        parts: &[&[u8]],
    ) -> u64 {
        self.operation(
            device_id,
            ObjectType::Device,
            device_id,
            related,
            code,
            payload_type,
            0,
            parts,
        )
    }

    /// A call this capture cannot represent: replay fails at it. Returns
    /// its record's offset.
    fn unsupported(
        &mut self,
        device_id: u64,
        object_type: ObjectType,
        object_id: u64,
        code: OperationCode,
    ) -> u64 {
        let meta = RecordMeta {
            record_type: RecordType::Unsupported,
            object_type,
            operation_code: code,
            device_id,
            object_id,
            ..RecordMeta::default()
        };
        self.append(&meta, &[])
    }

    fn device(&mut self, device_id: u64) -> &mut DeviceEntry {
        self.devices
            .get_mut(&device_id)
            .expect("wrapped devices are registered at wrap")
    }
}

/// Writes a capture; see the module documentation.
pub struct Recorder {
    state: Mutex<State>,
    options: RecorderOptions,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

fn status_code(result: &Result<impl Sized>) -> u32 {
    match result {
        Ok(_) => 0,
        Err(status) => status.code().raw(),
    }
}

impl Recorder {
    /// Starts a capture written to `path` (created or truncated).
    pub fn create(path: impl AsRef<Path>, options: RecorderOptions) -> Result<Arc<Recorder>> {
        let path = path.as_ref();
        let file = std::fs::File::create(path).map_err(|e| {
            Status::new(
                StatusCode::PermissionDenied,
                format!("failed to create replay file '{}': {e}", path.display()),
            )
        })?;
        let mut writer = ReplayWriter::new(BufWriter::with_capacity(1 << 20, file))?;
        let session = RecordMeta {
            record_type: RecordType::Session,
            ..RecordMeta::default()
        };
        writer.append(&session, &[])?;
        Ok(Arc::new(Recorder {
            state: Mutex::new(State {
                writer: Some(writer),
                failure: None,
                next_id: 1,
                devices: HashMap::new(),
                semaphores: HashMap::new(),
                semaphores_swept: 0,
                executables: Registry::default(),
                events: Registry::default(),
                files: HashMap::new(),
                command_buffers: HashMap::new(),
            }),
            options,
        }))
    }

    /// Wraps `device`: calls through the result are recorded.
    pub fn wrap(self: &Arc<Self>, device: Arc<dyn Device>) -> Arc<RecordingDevice> {
        let mut st = self.state.lock();
        let id = st.id();
        st.object(0, ObjectType::Device, id, PayloadType::None, &[]);
        let allocator_id = st.id();
        st.object(
            id,
            ObjectType::Allocator,
            allocator_id,
            PayloadType::None,
            &[],
        );
        st.devices.insert(
            id,
            DeviceEntry {
                allocator_id,
                executable_cache_id: None,
                chain: None,
            },
        );
        drop(st);
        let allocator = Arc::new(RecordingAllocator {
            recorder: self.clone(),
            inner: device.allocator(),
            id: allocator_id,
            device_id: id,
        });
        Arc::new(RecordingDevice {
            recorder: self.clone(),
            inner: device,
            id,
            allocator,
        })
    }

    /// Marks the start of a named scope (`init`, `execute`, `deinit`).
    pub fn scope_begin(&self, name: &str) {
        self.scope(OperationCode::ReplayScopeBegin, name);
    }

    /// Marks the end of a named scope.
    pub fn scope_end(&self, name: &str) {
        self.scope(OperationCode::ReplayScopeEnd, name);
    }

    fn scope(&self, code: OperationCode, name: &str) {
        let payload = ScopePayload {
            name_length: name.len() as u64,
            ..ScopePayload::default()
        };
        self.state.lock().operation(
            0,
            ObjectType::None,
            0,
            0,
            code,
            PayloadType::ReplayScope,
            0,
            &[&payload.to_bytes(), name.as_bytes()],
        );
    }

    /// Ends the capture: writes the file's final length. Calls recorded
    /// afterwards are dropped. Reports the first failure to write.
    pub fn close(&self) -> Result<()> {
        let mut st = self.state.lock();
        if let Some(writer) = st.writer.take() {
            if let Err(status) = writer.finish().and_then(|out| {
                out.into_inner().map(drop).map_err(|e| {
                    Status::new(
                        StatusCode::Unavailable,
                        format!("writing the replay file: {}", e.error()),
                    )
                })
            }) {
                st.failure.get_or_insert(status);
            }
        }
        match st.failure.take() {
            Some(status) => Err(status),
            None => Ok(()),
        }
    }

    /// The records written so far.
    pub fn record_count(&self) -> u64 {
        self.state
            .lock()
            .writer
            .as_ref()
            .map_or(0, |w| w.record_count())
    }

    /// The id of `buffer` in this capture, recording it (with its current
    /// contents) when the capture has not seen it: `(id, offset of the
    /// recorded buffer in its allocation)`.
    fn buffer_id(self: &Arc<Self>, st: &mut State, device_id: u64, buffer: &Buffer) -> (u64, u64) {
        if let Some(recorded) = buffer
            .host_access_observer()
            .and_then(|o| o.as_any().downcast_ref::<RecordedBuffer>())
            .filter(|r| std::ptr::eq(Arc::as_ptr(&r.recorder), Arc::as_ptr(self)))
        {
            return (recorded.id, recorded.base);
        }
        // A buffer made without this capture's allocators (by a module's
        // own host allocation): record an allocation of the same kind
        // holding what it holds now.
        let allocator_id = st.device(device_id).allocator_id;
        let size = buffer.allocation_size();
        let id = st.id();
        let request = AllocateBufferPayload {
            allocation_size: size,
            queue_affinity: QUEUE_AFFINITY_ANY,
            usage: buffer.allowed_usage().0,
            memory_type: buffer.memory_type().0,
            access: buffer.allowed_access().0,
            ..AllocateBufferPayload::default()
        };
        st.operation(
            device_id,
            ObjectType::Allocator,
            allocator_id,
            id,
            OperationCode::AllocatorAllocateBuffer,
            PayloadType::AllocatorAllocateBuffer,
            0,
            &[&request.to_bytes()],
        );
        let object = buffer_object(buffer, size, 0, size);
        st.object(
            device_id,
            ObjectType::Buffer,
            id,
            PayloadType::BufferObject,
            &[&object.to_bytes()],
        );
        let contents = whole_allocation(buffer);
        if let Some(bytes) = contents {
            if bytes.iter().any(|&b| b != 0) {
                record_write(st, device_id, id, 0, &bytes);
            }
        }
        let observed = buffer.observe_host_access(Arc::new(RecordedBuffer {
            recorder: self.clone(),
            id,
            device_id,
            base: 0,
        }));
        if !observed {
            // Another capture observes it: the snapshot is what this one has.
            st.unsupported(
                device_id,
                ObjectType::Buffer,
                id,
                OperationCode::BufferMapRange,
            );
        }
        (id, 0)
    }

    /// Records a buffer a wrapped allocator or device created (after its
    /// creating operation) and starts observing it.
    fn record_new_buffer(
        self: &Arc<Self>,
        st: &mut State,
        device_id: u64,
        id: u64,
        buffer: &Buffer,
    ) {
        let object = buffer_object(
            buffer,
            buffer.allocation_size(),
            buffer.byte_offset(),
            buffer.byte_length(),
        );
        st.object(
            device_id,
            ObjectType::Buffer,
            id,
            PayloadType::BufferObject,
            &[&object.to_bytes()],
        );
        buffer.observe_host_access(Arc::new(RecordedBuffer {
            recorder: self.clone(),
            id,
            device_id,
            base: buffer.byte_offset(),
        }));
    }

    /// A buffer range as a record names it.
    fn buffer_ref(
        self: &Arc<Self>,
        st: &mut State,
        device_id: u64,
        buffer: &Buffer,
        offset: u64,
        length: u64,
    ) -> BufferRef {
        let (id, base) = self.buffer_id(st, device_id, buffer);
        BufferRef {
            buffer_id: id,
            offset: buffer.byte_offset() - base + offset,
            length,
            ..BufferRef::default()
        }
    }

    fn binding_ref(
        self: &Arc<Self>,
        st: &mut State,
        device_id: u64,
        binding: &BindingRef,
    ) -> BufferRef {
        match binding {
            BindingRef::Direct {
                buffer,
                offset,
                length,
            } => self.buffer_ref(st, device_id, buffer, *offset, *length),
            BindingRef::Slot {
                slot,
                offset,
                length,
            } => BufferRef {
                buffer_slot: *slot,
                offset: *offset,
                length: *length,
                ..BufferRef::default()
            },
        }
    }

    /// The semaphore's id, recording its creation (at its current value)
    /// the first time.
    fn semaphore(&self, st: &mut State, device_id: u64, semaphore: &Arc<Semaphore>) -> u64 {
        let key = address(semaphore);
        if let Some(entry) = st.semaphores.get(&key) {
            if entry
                .semaphore
                .upgrade()
                .is_some_and(|s| Arc::ptr_eq(&s, semaphore))
            {
                return entry.id;
            }
        }
        if st.semaphores.len() > 2 * st.semaphores_swept + 64 {
            st.semaphores.retain(|_, e| e.semaphore.strong_count() > 0);
            st.semaphores_swept = st.semaphores.len();
        }
        let initial_value = semaphore.query().unwrap_or(0);
        let id = self.new_semaphore(st, device_id, initial_value);
        st.semaphores.insert(
            key,
            SemaphoreEntry {
                semaphore: Arc::downgrade(semaphore),
                id,
                reached: initial_value,
            },
        );
        id
    }

    /// Records a semaphore's creation.
    fn new_semaphore(&self, st: &mut State, device_id: u64, initial_value: u64) -> u64 {
        let id = st.id();
        let payload = SemaphoreObjectPayload {
            queue_affinity: QUEUE_AFFINITY_ANY,
            initial_value,
            flags: SEMAPHORE_FLAGS_DEFAULT,
            ..SemaphoreObjectPayload::default()
        }
        .to_bytes();
        st.device_operation(
            device_id,
            id,
            OperationCode::DeviceCreateSemaphore,
            PayloadType::SemaphoreObject,
            &[&payload],
        );
        st.object(
            device_id,
            ObjectType::Semaphore,
            id,
            PayloadType::SemaphoreObject,
            &[&payload],
        );
        id
    }

    /// The wait and signal timepoints of a queue operation: waits no
    /// recorded signal reaches (the host signaled them) are left out, and
    /// signals raise what the capture knows each semaphore reaches.
    fn timepoints(
        &self,
        st: &mut State,
        device_id: u64,
        wait: &Fence,
        signal: &Fence,
    ) -> (Vec<u8>, u64, Vec<u8>, u64) {
        let mut waits = Vec::new();
        let mut wait_count = 0;
        for (semaphore, value) in wait.timepoints() {
            let id = self.semaphore(st, device_id, semaphore);
            let reached = st
                .semaphores
                .get(&address(semaphore))
                .map_or(0, |e| e.reached);
            if *value <= reached {
                Timepoint {
                    semaphore_id: id,
                    value: *value,
                }
                .encode(&mut waits);
                wait_count += 1;
            }
        }
        let mut signals = Vec::new();
        let mut signal_count = 0;
        for (semaphore, value) in signal.timepoints() {
            let id = self.semaphore(st, device_id, semaphore);
            if let Some(entry) = st.semaphores.get_mut(&address(semaphore)) {
                entry.reached = entry.reached.max(*value);
            }
            Timepoint {
                semaphore_id: id,
                value: *value,
            }
            .encode(&mut signals);
            signal_count += 1;
        }
        (waits, wait_count, signals, signal_count)
    }

    /// The id of `executable`, if this capture prepared it.
    fn executable_id(&self, st: &State, executable: &Arc<dyn Executable>) -> Option<u64> {
        st.executables.get(executable)
    }

    fn event_id(&self, st: &mut State, device_id: u64, event: &Arc<Event>) -> u64 {
        if let Some(id) = st.events.get(event) {
            return id;
        }
        let id = st.id();
        let payload = EventObjectPayload {
            queue_affinity: QUEUE_AFFINITY_ANY,
            ..EventObjectPayload::default()
        }
        .to_bytes();
        st.device_operation(
            device_id,
            id,
            OperationCode::DeviceCreateEvent,
            PayloadType::EventObject,
            &[&payload],
        );
        st.object(
            device_id,
            ObjectType::Event,
            id,
            PayloadType::EventObject,
            &[&payload],
        );
        st.events.insert(event, id);
        id
    }

    /// Records a command buffer finalized for device `device_id`, where the
    /// program built it (a reusable one at module load, as upstream's
    /// capture has it), unless its submission will be recorded as the
    /// queue transfer it is.
    fn command_buffer_finalized(self: &Arc<Self>, device_id: u64, cb: &CommandBuffer) {
        if queue_transfer(cb).is_some() {
            return;
        }
        let mut st = self.state.lock();
        self.command_buffer(&mut st, device_id, cb);
    }

    /// Records a command buffer's creation and commands the first time it
    /// is finalized or submitted; returns its id.
    fn command_buffer(self: &Arc<Self>, st: &mut State, device_id: u64, cb: &CommandBuffer) -> u64 {
        if let Some(&id) = st
            .command_buffers
            .get(&cb.identity())
            .filter(|_| cb.identity() != 0)
        {
            return id;
        }
        let id = st.id();
        let payload = CommandBufferObjectPayload {
            mode: 0,
            command_categories: COMMAND_CATEGORY_ANY,
            queue_affinity: QUEUE_AFFINITY_ANY,
            binding_capacity: u64::from(cb.binding_capacity()),
        }
        .to_bytes();
        st.device_operation(
            device_id,
            id,
            OperationCode::DeviceCreateCommandBuffer,
            PayloadType::CommandBufferObject,
            &[&payload],
        );
        st.object(
            device_id,
            ObjectType::CommandBuffer,
            id,
            PayloadType::CommandBufferObject,
            &[&payload],
        );
        let op =
            |st: &mut State, code: OperationCode, payload_type: PayloadType, parts: &[&[u8]]| {
                st.operation(
                    device_id,
                    ObjectType::CommandBuffer,
                    id,
                    0,
                    code,
                    payload_type,
                    0,
                    parts,
                );
            };
        op(
            st,
            OperationCode::CommandBufferBegin,
            PayloadType::None,
            &[],
        );
        for command in cb.commands() {
            match command {
                Command::Dispatch {
                    executable,
                    ordinal,
                    workgroup_count,
                    constants,
                    bindings,
                } => {
                    let Some(executable_id) = self.executable_id(st, executable) else {
                        st.unsupported(
                            device_id,
                            ObjectType::CommandBuffer,
                            id,
                            OperationCode::CommandBufferDispatch,
                        );
                        continue;
                    };
                    let (count, count_ref, flags) = match workgroup_count {
                        WorkgroupCount::Direct(count) => (*count, BufferRef::default(), 0),
                        WorkgroupCount::Indirect(params) => (
                            [0; 3],
                            self.binding_ref(st, device_id, params),
                            DISPATCH_FLAG_DYNAMIC_INDIRECT_PARAMETERS,
                        ),
                    };
                    let mut refs = Vec::with_capacity(bindings.len() * BufferRef::SIZE);
                    for binding in bindings {
                        self.binding_ref(st, device_id, binding).encode(&mut refs);
                    }
                    let constant_bytes: Vec<u8> =
                        constants.iter().flat_map(|c| c.to_le_bytes()).collect();
                    let payload = DispatchPayload {
                        executable_id,
                        function_ordinal: *ordinal as u32,
                        flags,
                        workgroup_count: count,
                        workgroup_count_ref: count_ref,
                        constants_length: constant_bytes.len() as u64,
                        binding_count: bindings.len() as u64,
                        ..DispatchPayload::default()
                    };
                    op(
                        st,
                        OperationCode::CommandBufferDispatch,
                        PayloadType::Dispatch,
                        &[&payload.to_bytes(), &constant_bytes, &refs],
                    );
                }
                Command::Fill { target, pattern } => {
                    let payload = CommandBufferFillPayload {
                        target_ref: self.binding_ref(st, device_id, target),
                        pattern_length: pattern.len() as u64,
                        ..CommandBufferFillPayload::default()
                    };
                    op(
                        st,
                        OperationCode::CommandBufferFillBuffer,
                        PayloadType::CommandBufferFillBuffer,
                        &[&payload.to_bytes(), pattern],
                    );
                }
                Command::Update { data, target } => {
                    let mut target_ref = self.binding_ref(st, device_id, target);
                    target_ref.length = data.len() as u64;
                    let payload = CommandBufferUpdatePayload {
                        target_ref,
                        data_length: data.len() as u64,
                        ..CommandBufferUpdatePayload::default()
                    };
                    op(
                        st,
                        OperationCode::CommandBufferUpdateBuffer,
                        PayloadType::CommandBufferUpdateBuffer,
                        &[&payload.to_bytes(), data],
                    );
                }
                Command::Copy { source, target } => {
                    let payload = CommandBufferCopyPayload {
                        source_ref: self.binding_ref(st, device_id, source),
                        target_ref: self.binding_ref(st, device_id, target),
                        ..CommandBufferCopyPayload::default()
                    };
                    op(
                        st,
                        OperationCode::CommandBufferCopyBuffer,
                        PayloadType::CommandBufferCopyBuffer,
                        &[&payload.to_bytes()],
                    );
                }
                Command::Barrier => {
                    let payload = ExecutionBarrierPayload::default();
                    op(
                        st,
                        OperationCode::CommandBufferExecutionBarrier,
                        PayloadType::CommandBufferExecutionBarrier,
                        &[&payload.to_bytes()],
                    );
                }
                Command::SignalEvent(event) | Command::ResetEvent(event) => {
                    let code = if matches!(command, Command::SignalEvent(_)) {
                        OperationCode::CommandBufferSignalEvent
                    } else {
                        OperationCode::CommandBufferResetEvent
                    };
                    let payload = CommandBufferEventPayload {
                        event_id: self.event_id(st, device_id, event),
                        source_stage_mask: 0,
                    };
                    op(
                        st,
                        code,
                        PayloadType::CommandBufferEvent,
                        &[&payload.to_bytes()],
                    );
                }
                Command::WaitEvents(events) => {
                    let mut ids = Vec::with_capacity(events.len() * 8);
                    for event in events {
                        self.event_id(st, device_id, event).encode(&mut ids);
                    }
                    let payload = WaitEventsPayload {
                        event_count: events.len() as u64,
                        ..WaitEventsPayload::default()
                    };
                    op(
                        st,
                        OperationCode::CommandBufferWaitEvents,
                        PayloadType::CommandBufferWaitEvents,
                        &[&payload.to_bytes(), &ids],
                    );
                }
                Command::Collective { .. } => {
                    st.unsupported(
                        device_id,
                        ObjectType::CommandBuffer,
                        id,
                        OperationCode::CommandBufferCollective,
                    );
                }
            }
        }
        op(st, OperationCode::CommandBufferEnd, PayloadType::None, &[]);
        if cb.identity() != 0 {
            st.command_buffers.insert(cb.identity(), id);
        }
        id
    }

    /// A submission of one transfer command with direct ranges, recorded as
    /// the queue operation it is (`device.queue_fill`, `_update`, `_copy`):
    /// the record's offset; `None` (nothing recorded) for any other command
    /// buffer.
    fn queue_transfer_command(
        self: &Arc<Self>,
        st: &mut State,
        device_id: u64,
        cb: &CommandBuffer,
        timepoints: &(Vec<u8>, u64, Vec<u8>, u64),
    ) -> Option<u64> {
        let command = queue_transfer(cb)?;
        let (waits, wait_count, signals, signal_count) = timepoints;
        match command {
            Command::Fill { target, pattern } => {
                let payload = QueueFillPayload {
                    target_ref: self.binding_ref(st, device_id, target),
                    queue_affinity: QUEUE_AFFINITY_ANY,
                    wait_semaphore_count: *wait_count,
                    signal_semaphore_count: *signal_count,
                    pattern_length: pattern.len() as u64,
                    ..QueueFillPayload::default()
                };
                Some(st.device_operation(
                    device_id,
                    0,
                    OperationCode::DeviceQueueFill,
                    PayloadType::DeviceQueueFill,
                    &[&payload.to_bytes(), waits, signals, pattern],
                ))
            }
            Command::Update { data, target } => {
                let mut target_ref = self.binding_ref(st, device_id, target);
                target_ref.length = data.len() as u64;
                let payload = QueueUpdatePayload {
                    target_ref,
                    queue_affinity: QUEUE_AFFINITY_ANY,
                    data_length: data.len() as u64,
                    wait_semaphore_count: *wait_count,
                    signal_semaphore_count: *signal_count,
                    ..QueueUpdatePayload::default()
                };
                Some(st.device_operation(
                    device_id,
                    0,
                    OperationCode::DeviceQueueUpdate,
                    PayloadType::DeviceQueueUpdate,
                    &[&payload.to_bytes(), waits, signals, data],
                ))
            }
            Command::Copy { source, target } => {
                let payload = QueueCopyPayload {
                    source_ref: self.binding_ref(st, device_id, source),
                    target_ref: self.binding_ref(st, device_id, target),
                    queue_affinity: QUEUE_AFFINITY_ANY,
                    wait_semaphore_count: *wait_count,
                    signal_semaphore_count: *signal_count,
                    ..QueueCopyPayload::default()
                };
                Some(st.device_operation(
                    device_id,
                    0,
                    OperationCode::DeviceQueueCopy,
                    PayloadType::DeviceQueueCopy,
                    &[&payload.to_bytes(), waits, signals],
                ))
            }
            _ => None,
        }
    }

    /// The file's id, recording its import (as the file policy says) the
    /// first time.
    fn file(&self, st: &mut State, device_id: u64, file: &Arc<dyn File>) -> Result<(u64, bool)> {
        let key = address(file);
        if let Some((weak, entry)) = st.files.get(&key) {
            if weak.upgrade().is_some_and(|f| Arc::ptr_eq(&f, file)) {
                return Ok((entry.id, entry.captured_ranges));
            }
        }
        let length = file.length();
        let mut payload = FileObjectPayload {
            queue_affinity: QUEUE_AFFINITY_ANY,
            file_length: length,
            access: u32::from(file.access().0),
            ..FileObjectPayload::default()
        };
        let mut captured_ranges = false;
        let reference: Vec<u8> = match file.path() {
            None => {
                payload.handle_type = HANDLE_TYPE_HOST_ALLOCATION;
                payload.reference_type = FileReferenceType::InlineBytes.0;
                read_file(file.as_ref(), 0, length)?
            }
            Some(path) => {
                payload.handle_type = HANDLE_TYPE_FD;
                let metadata = std::fs::metadata(path).map_err(|e| {
                    Status::new(
                        StatusCode::Unavailable,
                        format!("HAL replay recorder cannot stat '{}': {e}", path.display()),
                    )
                })?;
                (
                    payload.file_device,
                    payload.file_inode,
                    payload.file_mtime_ns,
                ) = crate::execute::file_identity(&metadata);
                let path_bytes = std::fs::canonicalize(path)
                    .unwrap_or_else(|_| path.to_path_buf())
                    .to_string_lossy()
                    .into_owned()
                    .into_bytes();
                match self.options.file_policy {
                    FilePolicy::Fail => {
                        return Err(Status::new(
                            StatusCode::FailedPrecondition,
                            "HAL replay recorder external file policy forbids fd-backed file references",
                        ))
                    }
                    FilePolicy::CaptureAll => {
                        payload.reference_type = FileReferenceType::InlineBytes.0;
                        read_file(file.as_ref(), 0, length)?
                    }
                    FilePolicy::CaptureRanges => {
                        payload.reference_type = FileReferenceType::CapturedRanges.0;
                        captured_ranges = true;
                        path_bytes
                    }
                    FilePolicy::Reference => {
                        payload.reference_type = FileReferenceType::ExternalPath.0;
                        match self.options.file_validation {
                            FileValidation::Identity => {
                                payload.validation_type = FileValidationType::Identity.0;
                            }
                            FileValidation::Digest => {
                                let mut digest = Fnv1a64::default();
                                let mut offset = 0;
                                while offset < length {
                                    let n = (length - offset).min(16 << 20);
                                    file.read(offset, n, &mut |bytes| {
                                        digest.update(bytes);
                                        Ok(())
                                    })?;
                                    offset += n;
                                }
                                payload.validation_type = FileValidationType::ContentDigest.0;
                                payload.digest_type = DIGEST_TYPE_FNV1A_64;
                                payload.digest = digest_field(digest.0);
                            }
                        }
                        path_bytes
                    }
                }
            }
        };
        payload.reference_length = reference.len() as u64;
        let id = st.id();
        let head = payload.to_bytes();
        st.device_operation(
            device_id,
            id,
            OperationCode::DeviceImportFile,
            PayloadType::FileObject,
            &[&head, &reference],
        );
        st.object(
            device_id,
            ObjectType::File,
            id,
            PayloadType::FileObject,
            &[&head, &reference],
        );
        st.files.insert(
            key,
            (
                Arc::downgrade(file),
                FileEntry {
                    id,
                    captured_ranges,
                },
            ),
        );
        Ok((id, captured_ranges))
    }

    /// Records the transfers of one `queue_transfers`, chained in order.
    fn transfers(
        self: &Arc<Self>,
        st: &mut State,
        device_id: u64,
        wait: &Fence,
        signal: &Fence,
        transfers: &[QueueTransfer],
    ) -> Result<Vec<u64>> {
        let (waits, wait_count, signals, signal_count) =
            self.timepoints(st, device_id, wait, signal);
        if transfers.is_empty() {
            let payload = QueueExecutePayload {
                queue_affinity: QUEUE_AFFINITY_ANY,
                wait_semaphore_count: wait_count,
                signal_semaphore_count: signal_count,
                ..QueueExecutePayload::default()
            };
            return Ok(vec![st.device_operation(
                device_id,
                0,
                OperationCode::DeviceQueueExecute,
                PayloadType::DeviceQueueExecute,
                &[&payload.to_bytes(), &waits, &signals],
            )]);
        }
        let chain_id = if transfers.len() > 1 {
            match st.device(device_id).chain {
                Some((id, _)) => Some(id),
                None => {
                    let id = self.new_semaphore(st, device_id, 0);
                    st.device(device_id).chain = Some((id, 0));
                    Some(id)
                }
            }
        } else {
            None
        };
        let last = transfers.len() - 1;
        let mut records = Vec::with_capacity(transfers.len());
        for (i, transfer) in transfers.iter().enumerate() {
            let (w, wc) = if i == 0 {
                (waits.clone(), wait_count)
            } else {
                let value = st.device(device_id).chain.map_or(0, |(_, v)| v);
                (
                    Timepoint {
                        semaphore_id: chain_id.unwrap_or(0),
                        value,
                    }
                    .to_bytes(),
                    1,
                )
            };
            let (s, sc) = if i == last {
                (signals.clone(), signal_count)
            } else {
                let chain = st.device(device_id).chain.as_mut().expect("made above");
                chain.1 += 1;
                (
                    Timepoint {
                        semaphore_id: chain.0,
                        value: chain.1,
                    }
                    .to_bytes(),
                    1,
                )
            };
            records.push(self.transfer(st, device_id, transfer, (&w, wc), (&s, sc))?);
        }
        Ok(records)
    }

    fn transfer(
        self: &Arc<Self>,
        st: &mut State,
        device_id: u64,
        transfer: &QueueTransfer,
        (waits, wait_count): (&[u8], u64),
        (signals, signal_count): (&[u8], u64),
    ) -> Result<u64> {
        let at = match transfer {
            QueueTransfer::Read {
                file,
                file_offset,
                target,
                target_offset,
                length,
            } => {
                let (file_id, captured) = self.file(st, device_id, file)?;
                let data = if captured {
                    read_file(file.as_ref(), *file_offset, *length)?
                } else {
                    Vec::new()
                };
                let payload = QueueReadPayload {
                    source_file_id: file_id,
                    source_offset: *file_offset,
                    target_ref: self.buffer_ref(st, device_id, target, *target_offset, *length),
                    queue_affinity: QUEUE_AFFINITY_ANY,
                    captured_data_length: data.len() as u64,
                    wait_semaphore_count: wait_count,
                    signal_semaphore_count: signal_count,
                    ..QueueReadPayload::default()
                };
                st.device_operation(
                    device_id,
                    0,
                    OperationCode::DeviceQueueRead,
                    PayloadType::DeviceQueueRead,
                    &[&payload.to_bytes(), waits, signals, &data],
                )
            }
            QueueTransfer::Write {
                source,
                source_offset,
                file,
                file_offset,
                length,
            } => {
                let (file_id, _) = self.file(st, device_id, file)?;
                let payload = QueueWritePayload {
                    source_ref: self.buffer_ref(st, device_id, source, *source_offset, *length),
                    target_file_id: file_id,
                    target_offset: *file_offset,
                    queue_affinity: QUEUE_AFFINITY_ANY,
                    wait_semaphore_count: wait_count,
                    signal_semaphore_count: signal_count,
                    ..QueueWritePayload::default()
                };
                st.device_operation(
                    device_id,
                    0,
                    OperationCode::DeviceQueueWrite,
                    PayloadType::DeviceQueueWrite,
                    &[&payload.to_bytes(), waits, signals],
                )
            }
            QueueTransfer::Fill {
                target,
                target_offset,
                length,
                pattern,
                phase,
            } => {
                let target_ref = self.buffer_ref(st, device_id, target, *target_offset, *length);
                if *phase == 0
                    && matches!(pattern.len(), 1 | 2 | 4)
                    && length.is_multiple_of(pattern.len() as u64)
                {
                    let payload = QueueFillPayload {
                        target_ref,
                        queue_affinity: QUEUE_AFFINITY_ANY,
                        wait_semaphore_count: wait_count,
                        signal_semaphore_count: signal_count,
                        pattern_length: pattern.len() as u64,
                        ..QueueFillPayload::default()
                    };
                    st.device_operation(
                        device_id,
                        0,
                        OperationCode::DeviceQueueFill,
                        PayloadType::DeviceQueueFill,
                        &[&payload.to_bytes(), waits, signals, pattern],
                    )
                } else {
                    // A pattern the HAL's fills cannot express: its bytes.
                    let mut data = vec![0u8; *length as usize];
                    iree_base::bytes::fill_pattern(&mut data, pattern, *phase);
                    let payload = QueueUpdatePayload {
                        target_ref,
                        queue_affinity: QUEUE_AFFINITY_ANY,
                        data_length: data.len() as u64,
                        wait_semaphore_count: wait_count,
                        signal_semaphore_count: signal_count,
                        ..QueueUpdatePayload::default()
                    };
                    st.device_operation(
                        device_id,
                        0,
                        OperationCode::DeviceQueueUpdate,
                        PayloadType::DeviceQueueUpdate,
                        &[&payload.to_bytes(), waits, signals, &data],
                    )
                }
            }
        };
        Ok(at)
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// `length` bytes of `file` at `offset`.
/// The one command of `cb` when it is a transfer on direct ranges (a fill,
/// update or copy): its submission is recorded as that queue operation.
fn queue_transfer(cb: &CommandBuffer) -> Option<&Command> {
    let [command] = cb.commands() else {
        return None;
    };
    let direct = |b: &BindingRef| matches!(b, BindingRef::Direct { .. });
    match command {
        Command::Fill { target, .. } | Command::Update { target, .. } if direct(target) => {
            Some(command)
        }
        Command::Copy { source, target } if direct(source) && direct(target) => Some(command),
        _ => None,
    }
}

fn read_file(file: &dyn File, offset: u64, length: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    file.read(offset, length, &mut |bytes| {
        out.extend_from_slice(bytes);
        Ok(())
    })?;
    Ok(out)
}

/// The bytes of `buffer`'s whole allocation, when the host can read them.
fn whole_allocation(buffer: &Buffer) -> Option<Vec<u8>> {
    if let Some(memory) = buffer.host_memory() {
        return memory
            .map_read(0, memory.len(), |bytes| bytes.to_vec())
            .ok();
    }
    let memory = buffer.device_memory()?;
    let mut bytes = vec![0u8; usize::try_from(memory.len()).ok()?];
    memory.read(0, &mut bytes).ok()?;
    Some(bytes)
}

fn buffer_object(
    buffer: &Buffer,
    allocation_size: u64,
    byte_offset: u64,
    byte_length: u64,
) -> BufferObjectPayload {
    BufferObjectPayload {
        allocation_size,
        byte_offset,
        byte_length,
        memory_type: buffer.memory_type().0,
        allowed_usage: buffer.allowed_usage().0,
        allowed_access: buffer.allowed_access().0,
        ..BufferObjectPayload::default()
    }
}

/// Records a host write of `bytes` at `offset` of buffer `id`: a mapping
/// and its unmapping with the bytes.
fn record_write(st: &mut State, device_id: u64, id: u64, offset: u64, bytes: &[u8]) {
    let map = BufferRangePayload {
        byte_offset: offset,
        byte_length: bytes.len() as u64,
        mapping_mode: MAPPING_MODE_SCOPED,
        memory_access: MAP_ACCESS_WRITE,
        ..BufferRangePayload::default()
    };
    st.operation(
        device_id,
        ObjectType::Buffer,
        id,
        0,
        OperationCode::BufferMapRange,
        PayloadType::BufferRange,
        0,
        &[&map.to_bytes()],
    );
    let unmap = BufferRangeDataPayload {
        byte_offset: offset,
        byte_length: bytes.len() as u64,
        data_length: bytes.len() as u64,
        memory_access: MAP_ACCESS_WRITE,
        ..BufferRangeDataPayload::default()
    };
    st.operation(
        device_id,
        ObjectType::Buffer,
        id,
        0,
        OperationCode::BufferUnmapRange,
        PayloadType::BufferRangeData,
        0,
        &[&unmap.to_bytes(), bytes],
    );
}

/// The observer a capture attaches to the buffers it records: host writes
/// and reads become records.
struct RecordedBuffer {
    recorder: Arc<Recorder>,
    id: u64,
    device_id: u64,
    /// Offset of the recorded buffer in its allocation.
    base: u64,
}

impl HostAccessObserver for RecordedBuffer {
    fn wrote(&self, _buffer: &Buffer, offset: u64, bytes: &[u8]) {
        let mut st = self.recorder.state.lock();
        record_write(
            &mut st,
            self.device_id,
            self.id,
            offset.saturating_sub(self.base),
            bytes,
        );
    }

    fn read(&self, _buffer: &Buffer, offset: u64, length: u64) {
        let range = |mapping_mode| {
            BufferRangePayload {
                byte_offset: offset.saturating_sub(self.base),
                byte_length: length,
                mapping_mode,
                memory_access: MAP_ACCESS_READ,
                ..BufferRangePayload::default()
            }
            .to_bytes()
        };
        let mut st = self.recorder.state.lock();
        st.operation(
            self.device_id,
            ObjectType::Buffer,
            self.id,
            0,
            OperationCode::BufferMapRange,
            PayloadType::BufferRange,
            0,
            &[&range(MAPPING_MODE_SCOPED)],
        );
        st.operation(
            self.device_id,
            ObjectType::Buffer,
            self.id,
            0,
            OperationCode::BufferUnmapRange,
            PayloadType::BufferRange,
            0,
            &[&range(0)],
        );
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A device whose calls are recorded ([`Recorder::wrap`]).
pub struct RecordingDevice {
    recorder: Arc<Recorder>,
    inner: Arc<dyn Device>,
    id: u64,
    allocator: Arc<RecordingAllocator>,
}

impl RecordingDevice {
    /// `result` of a call recorded (at `records`) before it was made: a
    /// failure marks those records failed.
    fn settle<T>(&self, records: &[u64], result: Result<T>) -> Result<T> {
        if let Err(status) = &result {
            self.recorder.state.lock().mark_failed(records, status);
        }
        result
    }

    /// The device it wraps.
    pub fn inner(&self) -> &Arc<dyn Device> {
        &self.inner
    }

    /// The recorder.
    pub fn recorder(&self) -> &Arc<Recorder> {
        &self.recorder
    }
}

impl Device for RecordingDevice {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn allocator(&self) -> Arc<dyn Allocator> {
        self.allocator.clone()
    }

    fn create_command_buffer(&self, binding_capacity: u32) -> CommandBuffer {
        let recorder = Arc::downgrade(&self.recorder);
        let device_id = self.id;
        self.inner
            .create_command_buffer(binding_capacity)
            .with_allocator(self.allocator())
            .with_finalize_observer(Arc::new(move |cb: &CommandBuffer| {
                if let Some(recorder) = recorder.upgrade() {
                    recorder.command_buffer_finalized(device_id, cb);
                }
            }))
    }

    fn defers_dispatch_checks(&self, one_shot: bool) -> bool {
        self.inner.defers_dispatch_checks(one_shot)
    }

    fn query_i64(&self, category: &str, key: &str) -> Result<i64> {
        let result = self.inner.query_i64(category, key);
        self.recorder.state.lock().operation(
            self.id,
            ObjectType::Device,
            self.id,
            0,
            OperationCode::DeviceQueryI64,
            PayloadType::None,
            status_code(&result),
            &[],
        );
        result
    }

    fn create_executable(
        &self,
        format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn Executable>> {
        let result = self.inner.create_executable(format, data, constants);
        let mut st = self.recorder.state.lock();
        let cache_id = match st.device(self.id).executable_cache_id {
            Some(id) => id,
            None => {
                let id = st.id();
                let payload = ExecutableCacheObjectPayload::default().to_bytes();
                st.device_operation(
                    self.id,
                    id,
                    OperationCode::DeviceCreateExecutableCache,
                    PayloadType::ExecutableCacheObject,
                    &[&payload],
                );
                st.object(
                    self.id,
                    ObjectType::ExecutableCache,
                    id,
                    PayloadType::ExecutableCacheObject,
                    &[&payload],
                );
                st.device(self.id).executable_cache_id = Some(id);
                id
            }
        };
        let id = if result.is_ok() { st.id() } else { 0 };
        let metadata = result
            .as_ref()
            .map(|e| executable_metadata(&**e))
            .unwrap_or_default();
        let constant_bytes: Vec<u8> = constants.iter().flat_map(|c| c.to_le_bytes()).collect();
        let payload = ExecutablePreparePayload {
            queue_affinity: QUEUE_AFFINITY_ANY,
            executable_data_length: data.len() as u64,
            constant_count: constants.len() as u64,
            executable_format_length: format.len() as u32,
            executable_metadata_length: metadata.len() as u32,
            ..ExecutablePreparePayload::default()
        };
        st.operation(
            self.id,
            ObjectType::ExecutableCache,
            cache_id,
            id,
            OperationCode::ExecutableCachePrepareExecutable,
            PayloadType::ExecutablePrepare,
            status_code(&result),
            &[
                &payload.to_bytes(),
                format.as_bytes(),
                data,
                &constant_bytes,
                &metadata,
            ],
        );
        if let Ok(executable) = &result {
            st.object(self.id, ObjectType::Executable, id, PayloadType::None, &[]);
            st.executables.insert(executable, id);
        }
        result
    }

    fn queue_alloca(
        &self,
        wait: &Fence,
        signal: &Fence,
        params: BufferParams,
        size: u64,
    ) -> Result<Buffer> {
        let (id, at) = {
            let mut st = self.recorder.state.lock();
            let (waits, wait_count, signals, signal_count) =
                self.recorder.timepoints(&mut st, self.id, wait, signal);
            let id = st.id();
            let payload = QueueAllocaPayload {
                allocation: allocation_request(&params, size),
                queue_affinity: QUEUE_AFFINITY_ANY,
                wait_semaphore_count: wait_count,
                signal_semaphore_count: signal_count,
                ..QueueAllocaPayload::default()
            };
            let at = st.device_operation(
                self.id,
                id,
                OperationCode::DeviceQueueAlloca,
                PayloadType::DeviceQueueAlloca,
                &[&payload.to_bytes(), &waits, &signals],
            );
            (id, at)
        };
        let buffer = self.settle(&[at], self.inner.queue_alloca(wait, signal, params, size))?;
        let mut st = self.recorder.state.lock();
        self.recorder
            .record_new_buffer(&mut st, self.id, id, &buffer);
        Ok(buffer)
    }

    fn queue_dealloca(&self, wait: &Fence, signal: &Fence, buffer: &Buffer) -> Result<()> {
        let at = {
            let mut st = self.recorder.state.lock();
            let (waits, wait_count, signals, signal_count) =
                self.recorder.timepoints(&mut st, self.id, wait, signal);
            let payload = QueueDeallocaPayload {
                buffer_ref: self.recorder.buffer_ref(
                    &mut st,
                    self.id,
                    buffer,
                    0,
                    buffer.byte_length(),
                ),
                queue_affinity: QUEUE_AFFINITY_ANY,
                wait_semaphore_count: wait_count,
                signal_semaphore_count: signal_count,
                ..QueueDeallocaPayload::default()
            };
            st.device_operation(
                self.id,
                0,
                OperationCode::DeviceQueueDealloca,
                PayloadType::DeviceQueueDealloca,
                &[&payload.to_bytes(), &waits, &signals],
            )
        };
        self.settle(&[at], self.inner.queue_dealloca(wait, signal, buffer))
    }

    fn queue_execute(
        &self,
        wait: &Fence,
        signal: &Fence,
        command_buffer: Option<&CommandBuffer>,
        binding_table: &[DispatchBinding],
    ) -> Result<()> {
        let at = {
            let mut st = self.recorder.state.lock();
            let timepoints = self.recorder.timepoints(&mut st, self.id, wait, signal);
            let as_transfer = match command_buffer {
                Some(cb) if binding_table.is_empty() => {
                    self.recorder
                        .queue_transfer_command(&mut st, self.id, cb, &timepoints)
                }
                _ => None,
            };
            if let Some(at) = as_transfer {
                at
            } else {
                let command_buffer_id = match command_buffer {
                    Some(cb) => self.recorder.command_buffer(&mut st, self.id, cb),
                    None => 0,
                };
                let mut table = Vec::with_capacity(binding_table.len() * BufferRef::SIZE);
                for binding in binding_table {
                    self.recorder
                        .buffer_ref(
                            &mut st,
                            self.id,
                            &binding.buffer,
                            binding.offset,
                            binding.length,
                        )
                        .encode(&mut table);
                }
                let (waits, wait_count, signals, signal_count) = &timepoints;
                let payload = QueueExecutePayload {
                    command_buffer_id,
                    queue_affinity: QUEUE_AFFINITY_ANY,
                    wait_semaphore_count: *wait_count,
                    signal_semaphore_count: *signal_count,
                    binding_count: binding_table.len() as u64,
                    ..QueueExecutePayload::default()
                };
                st.device_operation(
                    self.id,
                    command_buffer_id,
                    OperationCode::DeviceQueueExecute,
                    PayloadType::DeviceQueueExecute,
                    &[&payload.to_bytes(), waits, signals, &table],
                )
            }
        };
        let result = iree_hal::without_host_access_observation(|| {
            self.inner
                .queue_execute(wait, signal, command_buffer, binding_table)
        });
        self.settle(&[at], result)
    }

    fn queue_host_call(
        &self,
        wait: &Fence,
        signal: &Fence,
        op: Box<dyn FnOnce() -> Result<()> + Send>,
    ) -> Result<()> {
        let at = {
            let mut st = self.recorder.state.lock();
            self.recorder.timepoints(&mut st, self.id, wait, signal);
            st.unsupported(
                self.id,
                ObjectType::Device,
                self.id,
                OperationCode::DeviceQueueHostCall,
            )
        };
        let result = self.inner.queue_host_call(
            wait,
            signal,
            Box::new(move || iree_hal::without_host_access_observation(op)),
        );
        self.settle(&[at], result)
    }

    fn queue_transfers(
        &self,
        wait: &Fence,
        signal: &Fence,
        transfers: Vec<QueueTransfer>,
    ) -> Result<()> {
        let recorded = {
            let mut st = self.recorder.state.lock();
            self.recorder
                .transfers(&mut st, self.id, wait, signal, &transfers)
        };
        let records = match recorded {
            Ok(records) => records,
            Err(status) => {
                signal.fail(status.clone());
                return Err(status);
            }
        };
        self.settle(
            &records,
            self.inner.queue_transfers(wait, signal, transfers),
        )
    }

    fn create_channel(&self, params: &ChannelParams) -> Result<Arc<dyn Channel>> {
        self.inner.create_channel(params)
    }

    fn profiler(&self) -> Option<&Arc<iree_hal::ProfileRecorder>> {
        self.inner.profiler()
    }

    fn profiling_begin(&self, mode: iree_hal::ProfilingMode) -> Result<()> {
        self.inner.profiling_begin(mode)
    }

    fn profiling_end(&self) -> Result<iree_hal::ProfileCapture> {
        self.inner.profiling_end()
    }
}

/// An allocation request as records hold it: the canonical parameters.
fn allocation_request(params: &BufferParams, size: u64) -> AllocateBufferPayload {
    let params = params.canonicalize();
    AllocateBufferPayload {
        allocation_size: size,
        queue_affinity: if params.queue_affinity == 0 {
            QUEUE_AFFINITY_ANY
        } else {
            params.queue_affinity
        },
        min_alignment: params.min_alignment,
        usage: params.usage.0,
        memory_type: params.memory_type.0,
        access: params.access.0,
        ..AllocateBufferPayload::default()
    }
}

/// The ABI metadata of `executable`: its exports in ordinal order, so a
/// dispatch's function ordinal is its export ordinal.
fn executable_metadata(executable: &dyn Executable) -> Vec<u8> {
    let count = executable.export_count();
    let mut functions = Vec::with_capacity(count * FunctionMetadata::SIZE);
    let mut names = Vec::new();
    for ordinal in 0..count {
        let name = executable.export_name(ordinal).unwrap_or("").as_bytes();
        let info = executable.function_info(ordinal).unwrap_or_default();
        FunctionMetadata {
            flags: info.flags,
            workgroup_size: info.workgroup_size,
            constant_count: info.constant_count,
            binding_count: info.binding_count,
            // Parameter reflection is not recorded: no parameter records.
            parameter_count: 0,
            name_length: name.len().min(usize::from(u16::MAX)) as u16,
            ..FunctionMetadata::default()
        }
        .encode(&mut functions);
        names.extend_from_slice(&name[..name.len().min(usize::from(u16::MAX))]);
    }
    let header = ExecutableMetadataHeader {
        function_count: count as u64,
        parameter_count: 0,
        function_name_storage_length: names.len() as u64,
        reserved1: 0,
    };
    let mut out = header.to_bytes();
    out.extend_from_slice(&functions);
    out.extend_from_slice(&names);
    out
}

/// The allocator of a [`RecordingDevice`].
pub struct RecordingAllocator {
    recorder: Arc<Recorder>,
    inner: Arc<dyn Allocator>,
    id: u64,
    device_id: u64,
}

impl RecordingAllocator {
    /// Records an allocation request and, when it succeeded, the buffer.
    fn record_allocation(
        &self,
        params: &BufferParams,
        size: u64,
        result: &Result<Buffer>,
    ) -> Option<u64> {
        let mut st = self.recorder.state.lock();
        let id = if result.is_ok() { st.id() } else { 0 };
        let payload = allocation_request(params, size).to_bytes();
        st.operation(
            self.device_id,
            ObjectType::Allocator,
            self.id,
            id,
            OperationCode::AllocatorAllocateBuffer,
            PayloadType::AllocatorAllocateBuffer,
            status_code(result),
            &[&payload],
        );
        let buffer = result.as_ref().ok()?;
        self.recorder
            .record_new_buffer(&mut st, self.device_id, id, buffer);
        Some(id)
    }
}

impl Allocator for RecordingAllocator {
    fn memory_heaps(&self) -> Vec<MemoryHeap> {
        self.inner.memory_heaps()
    }

    fn query_buffer_compatibility(
        &self,
        params: &mut BufferParams,
        allocation_size: u64,
    ) -> BufferCompatibility {
        self.inner
            .query_buffer_compatibility(params, allocation_size)
    }

    fn allocate_buffer(&self, params: BufferParams, allocation_size: u64) -> Result<Buffer> {
        let result = self.inner.allocate_buffer(params, allocation_size);
        self.record_allocation(&params, allocation_size, &result);
        result
    }

    fn allocate_buffer_with(&self, params: BufferParams, contents: &[u8]) -> Result<Buffer> {
        let result = self.inner.allocate_buffer_with(params, contents);
        if let Some(id) = self.record_allocation(&params, contents.len() as u64, &result) {
            if !contents.is_empty() {
                let mut st = self.recorder.state.lock();
                record_write(&mut st, self.device_id, id, 0, contents);
            }
        }
        result
    }

    fn import_host_memory(
        &self,
        params: BufferParams,
        memory: ExternalHostMemory,
    ) -> Result<Buffer> {
        let length = memory.len() as u64;
        let result = self.inner.import_host_memory(params, memory);
        let mut st = self.recorder.state.lock();
        let id = if result.is_ok() { st.id() } else { 0 };
        let data = result
            .as_ref()
            .ok()
            .and_then(|b| b.host_memory())
            .and_then(|m| m.map_read(0, m.len(), |bytes| bytes.to_vec()).ok())
            .unwrap_or_default();
        let payload = ImportBufferPayload {
            allocation: allocation_request(&params, length),
            external_type: EXTERNAL_BUFFER_TYPE_HOST_ALLOCATION,
            external_flags: 0,
            data_length: data.len() as u64,
        };
        st.operation(
            self.device_id,
            ObjectType::Allocator,
            self.id,
            id,
            OperationCode::AllocatorImportBuffer,
            PayloadType::AllocatorImportBuffer,
            status_code(&result),
            &[&payload.to_bytes(), &data],
        );
        if let Ok(buffer) = &result {
            self.recorder
                .record_new_buffer(&mut st, self.device_id, id, buffer);
        }
        result
    }

    fn statistics(&self) -> AllocatorStatistics {
        self.inner.statistics()
    }

    fn trim(&self) {
        self.inner.trim()
    }
}
