//! Re-issuing a capture's HAL calls on devices (`iree-run-replay`,
//! `iree-benchmark-replay`).
//!
//! A [`Plan`] is a checked file: every record parsed once. [`Plan::execute`]
//! walks its records in capture order against fresh objects each time:
//! object records take the caller's devices in order, operation records
//! create objects (under the id the capture gave them) and issue the same
//! calls on this runtime's HAL. Each queue operation is followed by a wait
//! on its signal timepoints, so device work runs in file order, whatever
//! overlapped in the original run.
//!
//! Replay is strict: a call this HAL cannot reproduce, a reference to an
//! object that does not exist, or a malformed payload stops the replay with
//! an error naming the record. Calls that failed when captured (a non-OK
//! status in the record) created nothing and are skipped, as upstream's
//! executor skips them.

use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{
    Allocator, BindingRef, Buffer, BufferParams, BufferUsage, CommandBuffer, Device,
    DispatchBinding, Event, Executable, Fence, MemoryAccess, MemoryType, QueueTransfer, Semaphore,
};
use parking_lot::Mutex;

use crate::dump::{
    alloca_sections, barrier_sections, dispatch_sections, execute_sections, file_object,
    metadata_header, prepare_sections, scope_name, wait_events_sections,
};
use crate::format::*;
use crate::layout::{exact, head, items, sections};
use crate::reader::{Record, ReplayFile};

/// Dispatch flag: the workgroup count is read from a buffer when the
/// command runs.
const DISPATCH_FLAG_DYNAMIC_INDIRECT_PARAMETERS: u32 = 1 << 0;
/// Dispatch flag: the workgroup count is read from a buffer (fixed contents).
const DISPATCH_FLAG_STATIC_INDIRECT_PARAMETERS: u32 = 1 << 1;
/// Dispatch flag: the dispatch may run inline (a hint).
const DISPATCH_FLAG_ALLOW_INLINE_EXECUTION: u32 = 1 << 5;
/// The import type of host allocations.
const EXTERNAL_BUFFER_TYPE_HOST_ALLOCATION: u32 = 1;

/// A replacement for one captured executable
/// (`--replay_executable_substitution`).
#[derive(Clone, Debug)]
pub struct Substitution {
    /// Where it came from (a path), for messages.
    pub source: String,
    /// Its format, or `None` to use the captured executable's.
    pub format: Option<String>,
    /// The executable's bytes.
    pub data: Arc<[u8]>,
}

/// What the substitution callback is asked about: one captured executable.
#[derive(Clone, Copy, Debug)]
pub struct SubstitutionRequest<'a> {
    /// The preparing record's sequence ordinal.
    pub sequence_ordinal: u64,
    /// The device's id.
    pub device_id: u64,
    /// The executable cache's id.
    pub executable_cache_id: u64,
    /// The executable's id (what `iree-dump-replay` lists).
    pub executable_id: u64,
    /// The captured format.
    pub format: &'a str,
    /// The captured bytes.
    pub data: &'a [u8],
}

/// A scope marker met during replay.
#[derive(Clone, Copy, Debug)]
pub struct ScopeEvent<'a> {
    /// The marker's sequence ordinal.
    pub sequence_ordinal: u64,
    /// True at `replay.scope_begin`, false at `replay.scope_end`.
    pub begin: bool,
    /// The scope's name (`execute`).
    pub name: &'a [u8],
}

/// A host read of buffer contents the capture recorded (a mapping for
/// reading), as the replay sees it: the bytes are in `buffer` now.
pub struct HostRead<'a> {
    /// The record of the mapping.
    pub record: &'a Record<'a>,
    /// The buffer's id.
    pub buffer_id: u64,
    /// The buffer.
    pub buffer: &'a Buffer,
    /// Offset in the buffer.
    pub offset: u64,
    /// Length in bytes.
    pub length: u64,
}

/// Callback choosing a substitute for a captured executable (`None`: keep it).
pub type SubstituteFn<'o> =
    dyn FnMut(&SubstitutionRequest<'_>) -> Result<Option<Substitution>> + 'o;
/// Callback told of each scope marker; an error stops the replay.
pub type ScopeFn<'o> = dyn FnMut(&ScopeEvent<'_>) -> Result<()> + 'o;
/// Callback told of each host read; an error stops the replay.
pub type HostReadFn<'o> = dyn FnMut(&HostRead<'_>) -> Result<()> + 'o;

/// How to execute a plan.
#[derive(Default)]
pub struct ExecuteOptions<'o> {
    /// `(captured prefix, replay prefix)` rewrites of external file paths
    /// (the longest matching prefix wins).
    pub file_remaps: Vec<(String, String)>,
    /// Chooses substitutes for captured executables.
    pub substitute: Option<Box<SubstituteFn<'o>>>,
    /// Told of scope markers.
    pub on_scope: Option<Box<ScopeFn<'o>>>,
    /// Told of host reads.
    pub on_host_read: Option<Box<HostReadFn<'o>>>,
}

/// A checked capture, ready to execute any number of times.
pub struct Plan<'a> {
    records: Vec<Record<'a>>,
    /// One more than the largest object id any record names.
    object_capacity: usize,
    /// The contents of inline files.
    inline_files: InlineFiles,
}

/// The contents of inline files, copied out of the capture by the first
/// replay that imports them and shared by every later one (a replay that
/// writes to one gets a copy of its own), keyed by the address of the
/// importing record's payload.
type InlineFiles = Mutex<Vec<(usize, Arc<Vec<u8>>)>>;

impl<'a> Plan<'a> {
    /// Parses and checks every record of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Result<Plan<'a>> {
        let file = ReplayFile::parse(bytes)?;
        let records: Vec<Record<'a>> = file.records().collect::<Result<_>>()?;
        let max_id = records
            .iter()
            .map(|r| r.header.object_id.max(r.header.related_object_id))
            .max()
            .unwrap_or(0);
        // Every object is created by a record of its own, so a file whose
        // ids run past its record count names objects that cannot exist.
        let object_capacity = usize::try_from(max_id)
            .ok()
            .filter(|&id| id <= records.len())
            .map(|id| id + 1)
            .unwrap_or(records.len() + 1);
        Ok(Plan {
            records,
            object_capacity,
            inline_files: Mutex::default(),
        })
    }

    /// The records, in file order.
    pub fn records(&self) -> &[Record<'a>] {
        &self.records
    }

    /// Replays every record on `devices` (one per captured device, in the
    /// order the capture created them).
    pub fn execute(
        &self,
        devices: &[Arc<dyn Device>],
        options: &mut ExecuteOptions<'_>,
    ) -> Result<()> {
        let mut executor = Executor {
            devices,
            next_device: 0,
            objects: (0..self.object_capacity).map(|_| None).collect(),
            options,
            unused_slot: None,
            inline_files: &self.inline_files,
        };
        for record in &self.records {
            executor
                .record(record)
                .map_err(|e| e.annotate(format!("at {}", record.describe())))?;
        }
        if executor.next_device != devices.len() {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                format!(
                    "replay captured {} device(s) but the target device group contains {} device(s)",
                    executor.next_device,
                    devices.len()
                ),
            ));
        }
        Ok(())
    }
}

/// A replayed file object: where its bytes come from.
enum FileSource {
    /// Read from a file on disk.
    External { file: std::fs::File, path: String },
    /// The bytes the capture embedded: the plan's copy, shared by every
    /// replay until one writes to it (then that replay's own copy).
    Memory(Mutex<Arc<Vec<u8>>>),
    /// Only the ranges read are in the capture (in each `queue_read`).
    CapturedRanges,
}

/// A replayed file: what queue reads and writes of the capture reach
/// (through [`iree_hal::QueueTransfer`], as the capturing runtime's did).
struct ReplayedFile {
    length: u64,
    access: MemoryAccess,
    source: FileSource,
}

impl ReplayedFile {
    /// `[offset, offset + length)` as a range of the file's bytes, or
    /// OUT_OF_RANGE.
    fn range(&self, offset: u64, length: u64) -> Result<std::ops::Range<usize>> {
        let end = offset.checked_add(length).filter(|&end| end <= self.length);
        match end {
            // The file's length is that of bytes in memory or of a file
            // whose reads take a `usize` count, so both ends fit.
            Some(end) => Ok(offset as usize..end as usize),
            None => Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "file range [{offset}, +{length}) is outside the {}-byte file",
                    self.length
                ),
            )),
        }
    }
}

impl iree_hal::File for ReplayedFile {
    fn length(&self) -> u64 {
        self.length
    }

    fn access(&self) -> MemoryAccess {
        self.access
    }

    fn read(&self, offset: u64, length: u64, f: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let range = self.range(offset, length)?;
        match &self.source {
            FileSource::External { file, path } => {
                let mut bytes = vec![0u8; range.len()];
                read_exact_at(file, &mut bytes, offset).map_err(|e| {
                    Status::new(
                        StatusCode::Unavailable,
                        format!("reading external replay file '{path}': {e}"),
                    )
                })?;
                f(&bytes)
            }
            FileSource::Memory(bytes) => f(&bytes.lock()[range]),
            FileSource::CapturedRanges => Err(Status::new(
                StatusCode::FailedPrecondition,
                "replay queue read requires an imported file or captured data",
            )),
        }
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        let range = self.range(offset, data.len() as u64)?;
        match &self.source {
            FileSource::External { file, path } => write_all_at(file, data, offset).map_err(|e| {
                Status::new(
                    StatusCode::Unavailable,
                    format!("writing external replay file '{path}': {e}"),
                )
            }),
            FileSource::Memory(bytes) => {
                Arc::make_mut(&mut bytes.lock())[range].copy_from_slice(data);
                Ok(())
            }
            FileSource::CapturedRanges => Err(Status::new(
                StatusCode::FailedPrecondition,
                "replay queue write requires an imported target file",
            )),
        }
    }
}

#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, out: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, offset)
}

#[cfg(unix)]
fn write_all_at(file: &std::fs::File, data: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, data, offset)
}

#[cfg(not(unix))]
fn read_exact_at(file: &std::fs::File, out: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(out)
}

#[cfg(not(unix))]
fn write_all_at(file: &std::fs::File, data: &[u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(data)
}

/// A replayed executable and where each captured function ordinal went.
struct ReplayedExecutable {
    executable: Arc<dyn Executable>,
    /// Captured function ordinal -> export ordinal of `executable`.
    functions: Vec<usize>,
}

/// A replayed object.
enum Object {
    Device(Arc<dyn Device>),
    Allocator(Arc<dyn Allocator>),
    Buffer(Buffer),
    CommandBuffer(CommandBuffer),
    ExecutableCache(Arc<dyn Device>),
    Executable(ReplayedExecutable),
    Semaphore(Arc<Semaphore>),
    Event(Arc<Event>),
    File(Arc<ReplayedFile>),
}

impl Object {
    fn object_type(&self) -> ObjectType {
        match self {
            Object::Device(_) => ObjectType::Device,
            Object::Allocator(_) => ObjectType::Allocator,
            Object::Buffer(_) => ObjectType::Buffer,
            Object::CommandBuffer(_) => ObjectType::CommandBuffer,
            Object::ExecutableCache(_) => ObjectType::ExecutableCache,
            Object::Executable(_) => ObjectType::Executable,
            Object::Semaphore(_) => ObjectType::Semaphore,
            Object::Event(_) => ObjectType::Event,
            Object::File(_) => ObjectType::File,
        }
    }
}

/// Takes the variant `$variant` of the object at `$id`, or fails as
/// upstream's lookup does.
macro_rules! lookup {
    ($executor:expr, $id:expr, $variant:ident) => {{
        let id = $id;
        match $executor.lookup(id, ObjectType::$variant)? {
            Object::$variant(value) => value,
            _ => unreachable!("lookup checked the type"),
        }
    }};
}

struct Executor<'e, 'o> {
    devices: &'e [Arc<dyn Device>],
    next_device: usize,
    /// Objects by id.
    objects: Vec<Option<Object>>,
    options: &'e mut ExecuteOptions<'o>,
    /// The buffer given to binding table slots the capture left empty.
    unused_slot: Option<Buffer>,
    /// [`Plan`]'s inline file contents.
    inline_files: &'e InlineFiles,
}

fn data_loss(message: impl Into<String>) -> Status {
    Status::new(StatusCode::DataLoss, message)
}

fn unimplemented(message: impl Into<String>) -> Status {
    Status::new(StatusCode::Unimplemented, message)
}

/// The record's payload type must be `payload_type`.
fn require_payload(record: &Record<'_>, payload_type: PayloadType) -> Result<()> {
    if record.header.payload_type != payload_type.0 {
        return Err(unimplemented(format!(
            "replay operation {} requires payload {}",
            OperationCode(record.header.operation_code).name(),
            payload_type.name()
        )));
    }
    Ok(())
}

fn buffer_params(a: &AllocateBufferPayload) -> BufferParams {
    BufferParams {
        usage: BufferUsage(a.usage),
        access: MemoryAccess(a.access),
        memory_type: MemoryType(a.memory_type),
        queue_affinity: a.queue_affinity,
        min_alignment: a.min_alignment,
    }
}

impl Executor<'_, '_> {
    fn lookup(&self, id: u64, expected: ObjectType) -> Result<&Object> {
        let object = usize::try_from(id)
            .ok()
            .filter(|&id| id != 0)
            .and_then(|id| self.objects.get(id))
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!("replay object id {id} is not defined"),
                )
            })?;
        if object.object_type() != expected {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                format!(
                    "replay object id {id} has type {}; expected {}",
                    object.object_type().name(),
                    expected.name()
                ),
            ));
        }
        Ok(object)
    }

    fn command_buffer_mut(&mut self, id: u64) -> Result<&mut CommandBuffer> {
        self.lookup(id, ObjectType::CommandBuffer)?;
        match self.objects[id as usize].as_mut() {
            Some(Object::CommandBuffer(cb)) => Ok(cb),
            _ => unreachable!("lookup checked the type"),
        }
    }

    fn store(&mut self, id: u64, object: Object) -> Result<()> {
        let slot = usize::try_from(id)
            .ok()
            .filter(|&id| id != 0)
            .and_then(|id| self.objects.get_mut(id))
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    format!("replay object id {id} exceeds object table capacity"),
                )
            })?;
        if slot.is_some() {
            return Err(Status::new(
                StatusCode::AlreadyExists,
                format!("replay object id {id} is already assigned"),
            ));
        }
        *slot = Some(object);
        Ok(())
    }

    fn device(&self, id: u64) -> Result<Arc<dyn Device>> {
        Ok(lookup!(self, id, Device).clone())
    }

    fn buffer(&self, id: u64) -> Result<Buffer> {
        Ok(lookup!(self, id, Buffer).clone())
    }

    /// A fence of the serialized timepoints in `bytes`.
    fn fence(&self, bytes: &[u8]) -> Result<Fence> {
        let mut fence = Fence::new();
        for t in items::<Timepoint>(bytes) {
            fence.insert(lookup!(self, t.semaphore_id, Semaphore).clone(), t.value);
        }
        Ok(fence)
    }

    /// A recorded buffer reference: a buffer range or a binding table slot.
    fn binding(&self, r: &BufferRef) -> Result<BindingRef> {
        if r.buffer_id == OBJECT_ID_NONE {
            return Ok(BindingRef::Slot {
                slot: r.buffer_slot,
                offset: r.offset,
                length: r.length,
            });
        }
        Ok(BindingRef::Direct {
            buffer: self.buffer(r.buffer_id)?,
            offset: r.offset,
            length: r.length,
        })
    }

    /// A buffer reference that must name a buffer (queue operations).
    fn direct(&self, r: &BufferRef, what: &str) -> Result<BindingRef> {
        if r.buffer_id == OBJECT_ID_NONE {
            return Err(data_loss(format!(
                "replay {what} requires a direct target buffer reference"
            )));
        }
        self.binding(r)
    }

    fn record(&mut self, record: &Record<'_>) -> Result<()> {
        match RecordType(record.header.record_type) {
            RecordType::Session | RecordType::Blob => Ok(()),
            RecordType::Object => self.object(record),
            RecordType::Operation if record.header.status_code != 0 => Ok(()),
            RecordType::Operation => self.operation(record),
            RecordType::Unsupported if record.header.status_code != 0 => Ok(()),
            RecordType::Unsupported => Err(unimplemented(format!(
                "replay contains unsupported captured operation {}",
                OperationCode(record.header.operation_code).name()
            ))),
            other => Err(unimplemented(format!(
                "replay record type {} is not executable",
                other.name()
            ))),
        }
    }

    fn object(&mut self, record: &Record<'_>) -> Result<()> {
        match ObjectType(record.header.object_type) {
            ObjectType::Device => {
                let device = self.devices.get(self.next_device).cloned().ok_or_else(|| {
                    Status::new(
                        StatusCode::OutOfRange,
                        "replay references more devices than provided",
                    )
                })?;
                self.next_device += 1;
                self.store(record.header.object_id, Object::Device(device))
            }
            ObjectType::Allocator => {
                let allocator = self.device(record.header.device_id)?.allocator();
                self.store(record.header.object_id, Object::Allocator(allocator))
            }
            _ => Ok(()),
        }
    }

    fn operation(&mut self, record: &Record<'_>) -> Result<()> {
        let h = &record.header;
        match OperationCode(h.operation_code) {
            OperationCode::ReplayScopeBegin | OperationCode::ReplayScopeEnd => {
                let name = scope_name(record)?;
                if let Some(on_scope) = self.options.on_scope.as_mut() {
                    on_scope(&ScopeEvent {
                        sequence_ordinal: h.sequence_ordinal,
                        begin: h.operation_code == OperationCode::ReplayScopeBegin.0,
                        name,
                    })?;
                }
                Ok(())
            }
            OperationCode::DeviceTrim
            | OperationCode::DeviceAssignTopologyInfo
            | OperationCode::DeviceQueryI64
            | OperationCode::DeviceQueryCapabilities
            | OperationCode::DeviceQueryQueuePoolBackend
            | OperationCode::DeviceProfilingBegin
            | OperationCode::DeviceProfilingFlush
            | OperationCode::DeviceProfilingEnd
            | OperationCode::DeviceExternalCaptureBegin
            | OperationCode::DeviceExternalCaptureEnd
            | OperationCode::DeviceQueueFlush
            | OperationCode::AllocatorTrim
            | OperationCode::AllocatorQueryMemoryHeaps
            | OperationCode::BufferInvalidateRange
            | OperationCode::CommandBufferBeginDebugGroup
            | OperationCode::CommandBufferEndDebugGroup
            | OperationCode::CommandBufferAdviseBuffer
            | OperationCode::ExecutableFunctionCount
            | OperationCode::ExecutableFunctionInfo
            | OperationCode::ExecutableFunctionParameters
            | OperationCode::ExecutableLookupFunctionByName => Ok(()),
            OperationCode::BufferMapRange => self.map_range(record),
            OperationCode::BufferUnmapRange | OperationCode::BufferFlushRange => {
                if h.payload_type == PayloadType::BufferRangeData.0 {
                    self.write_range_data(record)
                } else {
                    Ok(())
                }
            }
            OperationCode::DeviceCreateExecutableCache => {
                require_payload(record, PayloadType::ExecutableCacheObject)?;
                let c: ExecutableCacheObjectPayload = head(record.payload, "executable cache")?;
                if c.identifier_length
                    > (record.payload.len() - ExecutableCacheObjectPayload::SIZE) as u64
                {
                    return Err(data_loss("replay executable cache identifier overflow"));
                }
                let device = self.device(h.object_id)?;
                self.store(h.related_object_id, Object::ExecutableCache(device))
            }
            OperationCode::ExecutableCachePrepareExecutable => self.prepare_executable(record),
            OperationCode::DeviceCreateCommandBuffer => {
                require_payload(record, PayloadType::CommandBufferObject)?;
                let c: CommandBufferObjectPayload = exact(record.payload, h.payload_type)?;
                self.device(h.object_id)?;
                let capacity = u32::try_from(c.binding_capacity).map_err(|_| {
                    Status::new(
                        StatusCode::OutOfRange,
                        "command buffer binding capacity too large",
                    )
                })?;
                self.store(
                    h.related_object_id,
                    Object::CommandBuffer(CommandBuffer::new(capacity)),
                )
            }
            OperationCode::DeviceCreateEvent => {
                require_payload(record, PayloadType::EventObject)?;
                exact::<EventObjectPayload>(record.payload, h.payload_type)?;
                self.device(h.object_id)?;
                self.store(h.related_object_id, Object::Event(Event::new()))
            }
            OperationCode::DeviceImportFile => self.import_file(record),
            OperationCode::DeviceCreateSemaphore => {
                require_payload(record, PayloadType::SemaphoreObject)?;
                let s: SemaphoreObjectPayload = exact(record.payload, h.payload_type)?;
                self.device(h.object_id)?;
                self.store(
                    h.related_object_id,
                    Object::Semaphore(Semaphore::new(s.initial_value)),
                )
            }
            OperationCode::AllocatorAllocateBuffer => {
                require_payload(record, PayloadType::AllocatorAllocateBuffer)?;
                let a: AllocateBufferPayload = exact(record.payload, h.payload_type)?;
                let allocator = lookup!(self, h.object_id, Allocator).clone();
                let buffer = allocator.allocate_buffer(buffer_params(&a), a.allocation_size)?;
                self.store(h.related_object_id, Object::Buffer(buffer))
            }
            OperationCode::AllocatorImportBuffer => self.import_buffer(record),
            OperationCode::DeviceQueueAlloca => self.queue_alloca(record),
            OperationCode::DeviceQueueDealloca => self.queue_dealloca(record),
            OperationCode::DeviceQueueFill => self.queue_fill(record),
            OperationCode::DeviceQueueUpdate => self.queue_update(record),
            OperationCode::DeviceQueueCopy => self.queue_copy(record),
            OperationCode::DeviceQueueRead => self.queue_read(record),
            OperationCode::DeviceQueueWrite => self.queue_write(record),
            OperationCode::DeviceQueueDispatch => self.queue_dispatch(record),
            OperationCode::DeviceQueueExecute => self.queue_execute(record),
            OperationCode::CommandBufferBegin => {
                self.command_buffer_mut(h.object_id)?;
                Ok(())
            }
            OperationCode::CommandBufferEnd => self.command_buffer_mut(h.object_id)?.finalize(),
            OperationCode::CommandBufferExecutionBarrier => {
                require_payload(record, PayloadType::CommandBufferExecutionBarrier)?;
                let b: ExecutionBarrierPayload = head(record.payload, "execution barrier")?;
                let [_, buffers] = barrier_sections(record, &b)?;
                for barrier in items::<BufferBarrier>(&record.payload[buffers]) {
                    self.binding(&barrier.buffer_ref)?;
                }
                self.command_buffer_mut(h.object_id)?.barrier()
            }
            OperationCode::CommandBufferSignalEvent | OperationCode::CommandBufferResetEvent => {
                require_payload(record, PayloadType::CommandBufferEvent)?;
                let e: CommandBufferEventPayload = exact(record.payload, h.payload_type)?;
                self.command_buffer_mut(h.object_id)?;
                let event = lookup!(self, e.event_id, Event).clone();
                let cb = self.command_buffer_mut(h.object_id)?;
                if h.operation_code == OperationCode::CommandBufferSignalEvent.0 {
                    cb.signal_event(event)
                } else {
                    cb.reset_event(event)
                }
            }
            OperationCode::CommandBufferWaitEvents => {
                require_payload(record, PayloadType::CommandBufferWaitEvents)?;
                let w: WaitEventsPayload = head(record.payload, "wait events")?;
                let [events, _, buffers] = wait_events_sections(record, &w)?;
                let events = items::<u64>(&record.payload[events])
                    .map(|id| Ok(lookup!(self, id, Event).clone()))
                    .collect::<Result<Vec<_>>>()?;
                for barrier in items::<BufferBarrier>(&record.payload[buffers]) {
                    self.binding(&barrier.buffer_ref)?;
                }
                self.command_buffer_mut(h.object_id)?.wait_events(events)
            }
            OperationCode::CommandBufferDispatch => {
                require_payload(record, PayloadType::Dispatch)?;
                let d: DispatchPayload = head(record.payload, "dispatch")?;
                if d.wait_semaphore_count != 0 || d.signal_semaphore_count != 0 {
                    return Err(unimplemented(
                        "command buffer dispatch semaphore lists are reserved for immediate dispatch",
                    ));
                }
                self.command_buffer_mut(h.object_id)?;
                let mut cb = std::mem::take(self.command_buffer_mut(h.object_id)?);
                let result = self.record_dispatch(record, &d, &mut cb);
                *self.command_buffer_mut(h.object_id)? = cb;
                result
            }
            OperationCode::CommandBufferFillBuffer => {
                require_payload(record, PayloadType::CommandBufferFillBuffer)?;
                let f: CommandBufferFillPayload = head(record.payload, "command buffer fill")?;
                if (CommandBufferFillPayload::SIZE as u64).checked_add(f.pattern_length)
                    != Some(record.payload.len() as u64)
                {
                    return Err(data_loss(
                        "replay command buffer fill payload length mismatch",
                    ));
                }
                self.command_buffer_mut(h.object_id)?;
                let target = self.binding(&f.target_ref)?;
                let pattern = &record.payload[CommandBufferFillPayload::SIZE..];
                self.command_buffer_mut(h.object_id)?.fill(target, pattern)
            }
            OperationCode::CommandBufferUpdateBuffer => {
                require_payload(record, PayloadType::CommandBufferUpdateBuffer)?;
                let u: CommandBufferUpdatePayload = head(record.payload, "command buffer update")?;
                if (CommandBufferUpdatePayload::SIZE as u64).checked_add(u.data_length)
                    != Some(record.payload.len() as u64)
                {
                    return Err(data_loss(
                        "replay command buffer update payload length mismatch",
                    ));
                }
                self.command_buffer_mut(h.object_id)?;
                let target = self.binding(&u.target_ref)?;
                if u.data_length != u.target_ref.length {
                    return Err(data_loss(
                        "replay command buffer update data length does not match target length",
                    ));
                }
                let data = &record.payload[CommandBufferUpdatePayload::SIZE..];
                self.command_buffer_mut(h.object_id)?.update(data, target)
            }
            OperationCode::CommandBufferCopyBuffer => {
                require_payload(record, PayloadType::CommandBufferCopyBuffer)?;
                let c: CommandBufferCopyPayload = exact(record.payload, h.payload_type)?;
                self.command_buffer_mut(h.object_id)?;
                let source = self.binding(&c.source_ref)?;
                let target = self.binding(&c.target_ref)?;
                self.command_buffer_mut(h.object_id)?.copy(source, target)
            }
            other => Err(unimplemented(format!(
                "replay operation {} is not implemented",
                other.name()
            ))),
        }
    }

    /// A mapping: reads are handed to [`ExecuteOptions::on_host_read`].
    fn map_range(&mut self, record: &Record<'_>) -> Result<()> {
        if self.options.on_host_read.is_none()
            || record.header.payload_type != PayloadType::BufferRange.0
        {
            return Ok(());
        }
        let r: BufferRangePayload = exact(record.payload, record.header.payload_type)?;
        if r.memory_access & MemoryAccess::READ.0 == 0 {
            return Ok(());
        }
        let buffer = self.buffer(record.header.object_id)?;
        let offset = r
            .byte_offset
            .checked_sub(buffer.byte_offset())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    "mapped range starts before the buffer",
                )
            })?;
        if let Some(on_host_read) = self.options.on_host_read.as_mut() {
            on_host_read(&HostRead {
                record,
                buffer_id: record.header.object_id,
                buffer: &buffer,
                offset,
                length: r.byte_length,
            })?;
        }
        Ok(())
    }

    /// Bytes the host wrote through a mapping, written again.
    fn write_range_data(&mut self, record: &Record<'_>) -> Result<()> {
        let r: BufferRangeDataPayload = head(record.payload, "buffer range data")?;
        if r.data_length > (record.payload.len() - BufferRangeDataPayload::SIZE) as u64 {
            return Err(data_loss("replay buffer range data overflows payload"));
        }
        let buffer = self.buffer(record.header.object_id)?;
        let data = &record.payload[BufferRangeDataPayload::SIZE..][..r.data_length as usize];
        write_buffer_data(&buffer, r.byte_offset, r.byte_length, data)
    }

    fn import_buffer(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::AllocatorImportBuffer)?;
        let b: ImportBufferPayload = head(record.payload, "import buffer")?;
        if b.external_type != EXTERNAL_BUFFER_TYPE_HOST_ALLOCATION {
            return Err(unimplemented(format!(
                "replay import buffer external type {} is not supported",
                b.external_type
            )));
        }
        if (ImportBufferPayload::SIZE as u64).checked_add(b.data_length)
            != Some(record.payload.len() as u64)
        {
            return Err(data_loss("replay import buffer payload length mismatch"));
        }
        if b.data_length > b.allocation.allocation_size {
            return Err(data_loss("replay import buffer data overflows allocation"));
        }
        let allocator = lookup!(self, record.header.object_id, Allocator).clone();
        let mut params = buffer_params(&b.allocation);
        params.memory_type = params.memory_type | MemoryType::HOST_VISIBLE;
        params.access = params.access | MemoryAccess::WRITE;
        params.usage = params.usage | BufferUsage::MAPPING;
        let data = &record.payload[ImportBufferPayload::SIZE..];
        let buffer = allocator.allocate_buffer(params, b.allocation.allocation_size)?;
        write_buffer_data(&buffer, 0, b.allocation.allocation_size, data)?;
        self.store(record.header.related_object_id, Object::Buffer(buffer))
    }

    fn prepare_executable(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::ExecutablePrepare)?;
        let h = &record.header;
        let e: ExecutablePreparePayload = head(record.payload, "executable prepare")?;
        let [format, data, constants, metadata] = prepare_sections(record, &e)?;
        let device = lookup!(self, h.object_id, ExecutableCache).clone();
        let format = std::str::from_utf8(&record.payload[format])
            .map_err(|_| data_loss("replay executable format is not UTF-8"))?;
        let data = &record.payload[data];
        let constants: Vec<u32> = items::<u32>(&record.payload[constants]).collect();
        let metadata = &record.payload[metadata];
        if metadata.is_empty() {
            return Err(data_loss(
                "replay executable prepare records require function metadata",
            ));
        }
        let request = SubstitutionRequest {
            sequence_ordinal: h.sequence_ordinal,
            device_id: h.device_id,
            executable_cache_id: h.object_id,
            executable_id: h.related_object_id,
            format,
            data,
        };
        let substitution = match self.options.substitute.as_mut() {
            Some(substitute) => substitute(&request)?,
            None => None,
        };
        let executable = match &substitution {
            Some(s) => {
                if s.data.is_empty() {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        "substituted executable data is empty",
                    ));
                }
                let format = s.format.as_deref().unwrap_or(format);
                create_executable(&*device, format, &s.data, &constants)
                    .and_then(|exe| {
                        function_map(h.related_object_id, metadata, &*exe).map(|f| (exe, f))
                    })
                    .annotate_with(|| {
                        format!(
                            "preparing substitute for captured executable {} from '{}'",
                            h.related_object_id, s.source
                        )
                    })?
            }
            None => {
                let exe = create_executable(&*device, format, data, &constants)?;
                let functions = function_map(h.related_object_id, metadata, &*exe)?;
                (exe, functions)
            }
        };
        self.store(
            h.related_object_id,
            Object::Executable(ReplayedExecutable {
                executable: executable.0,
                functions: executable.1,
            }),
        )
    }

    fn import_file(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::FileObject)?;
        let f = file_object(record)?;
        self.device(record.header.object_id)?;
        let reference = &record.payload[FileObjectPayload::SIZE..];
        let source = match FileReferenceType(f.reference_type) {
            FileReferenceType::ExternalPath => {
                let captured = String::from_utf8_lossy(reference).into_owned();
                let path = self.remap(&captured);
                let writable = f.access & u32::from(MemoryAccess::WRITE.0) != 0;
                let file = std::fs::OpenOptions::new()
                    .read(true)
                    .write(writable)
                    .open(&path)
                    .map_err(|e| {
                        Status::new(
                            if e.kind() == std::io::ErrorKind::NotFound {
                                StatusCode::NotFound
                            } else {
                                StatusCode::Unavailable
                            },
                            format!("failed to open file '{path}': {e}"),
                        )
                        .annotate(format!(
                            "opening external replay file '{path}' captured as '{captured}'; use --replay_file_remap=CAPTURED_PREFIX=REPLAY_PREFIX if the parameter root moved"
                        ))
                    })?;
                validate_external(&f, &captured, &path, &file)?;
                FileSource::External { file, path }
            }
            FileReferenceType::InlineBytes => {
                if f.file_length != reference.len() as u64 {
                    return Err(data_loss(format!(
                        "inline replay file length mismatch: file_length={} reference_length={}",
                        f.file_length,
                        reference.len()
                    )));
                }
                FileSource::Memory(Mutex::new(self.inline_file(reference)))
            }
            FileReferenceType::CapturedRanges => FileSource::CapturedRanges,
            _ => {
                return Err(unimplemented(format!(
                    "replay file reference type {} is not executable",
                    f.reference_type
                )))
            }
        };
        self.store(
            record.header.related_object_id,
            Object::File(Arc::new(ReplayedFile {
                length: f.file_length,
                access: MemoryAccess(f.access as u16),
                source,
            })),
        )
    }

    /// The contents of the inline file whose bytes are `reference` (part
    /// of a record's payload), copied once per plan.
    fn inline_file(&self, reference: &[u8]) -> Arc<Vec<u8>> {
        let key = reference.as_ptr() as usize;
        let mut files = self.inline_files.lock();
        if let Some((_, bytes)) = files.iter().find(|(k, _)| *k == key) {
            return bytes.clone();
        }
        let bytes = Arc::new(reference.to_vec());
        files.push((key, bytes.clone()));
        bytes
    }

    /// `path` with the longest matching `--replay_file_remap` prefix replaced.
    fn remap(&self, path: &str) -> String {
        self.options
            .file_remaps
            .iter()
            .filter(|(from, _)| !from.is_empty() && path.starts_with(from.as_str()))
            .max_by_key(|(from, _)| from.len())
            .map(|(from, to)| format!("{to}{}", &path[from.len()..]))
            .unwrap_or_else(|| path.to_string())
    }

    /// Submits one queue operation's command buffer and waits for it.
    fn submit(
        &self,
        device: &Arc<dyn Device>,
        wait: &Fence,
        signal: &Fence,
        cb: Option<&CommandBuffer>,
        table: &[DispatchBinding],
    ) -> Result<()> {
        device.queue_execute(wait, signal, cb, table)?;
        signal.wait(None)
    }

    /// Submits a one-command transfer (queue fill, update, copy, dispatch).
    fn submit_one(
        &self,
        device: &Arc<dyn Device>,
        wait: &Fence,
        signal: &Fence,
        record_command: impl FnOnce(&mut CommandBuffer) -> Result<()>,
    ) -> Result<()> {
        let mut cb = CommandBuffer::new(0);
        record_command(&mut cb)?;
        cb.finalize()?;
        self.submit(device, wait, signal, Some(&cb), &[])
    }

    /// The wait and signal fences and trailing bytes of a queue payload.
    fn queue_lists<'r>(
        &self,
        record: &'r Record<'_>,
        head_size: usize,
        wait: u64,
        signal: u64,
        trailing: u64,
    ) -> Result<(Fence, Fence, &'r [u8])> {
        let [wait, signal, trailing] = sections(
            record.payload.len(),
            head_size,
            [
                (wait, Timepoint::SIZE),
                (signal, Timepoint::SIZE),
                (trailing, 1),
            ],
            "queue",
        )
        .map_err(|e| data_loss(e.message().to_string()))?;
        Ok((
            self.fence(&record.payload[wait])?,
            self.fence(&record.payload[signal])?,
            &record.payload[trailing],
        ))
    }

    fn queue_alloca(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::DeviceQueueAlloca)?;
        let q: QueueAllocaPayload = head(record.payload, "queue alloca")?;
        let device = self.device(record.header.object_id)?;
        let [wait, signal] = alloca_sections(record, &q)?;
        let (wait, signal) = (
            self.fence(&record.payload[wait])?,
            self.fence(&record.payload[signal])?,
        );
        let buffer = device.queue_alloca(
            &wait,
            &signal,
            buffer_params(&q.allocation),
            q.allocation.allocation_size,
        )?;
        signal.wait(None)?;
        self.store(record.header.related_object_id, Object::Buffer(buffer))
    }

    fn queue_dealloca(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::DeviceQueueDealloca)?;
        let q: QueueDeallocaPayload = head(record.payload, "queue dealloca")?;
        let device = self.device(record.header.object_id)?;
        let (wait, signal, _) = self.queue_lists(
            record,
            QueueDeallocaPayload::SIZE,
            q.wait_semaphore_count,
            q.signal_semaphore_count,
            0,
        )?;
        if q.buffer_ref.buffer_id == OBJECT_ID_NONE {
            return Err(data_loss(
                "replay queue dealloca requires a direct buffer reference",
            ));
        }
        let buffer = self.buffer(q.buffer_ref.buffer_id)?;
        device.queue_dealloca(&wait, &signal, &buffer)?;
        signal.wait(None)
    }

    fn queue_fill(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::DeviceQueueFill)?;
        let q: QueueFillPayload = head(record.payload, "queue fill")?;
        let device = self.device(record.header.object_id)?;
        let (wait, signal, pattern) = self.queue_lists(
            record,
            QueueFillPayload::SIZE,
            q.wait_semaphore_count,
            q.signal_semaphore_count,
            q.pattern_length,
        )?;
        let target = self.direct(&q.target_ref, "queue fill")?;
        self.submit_one(&device, &wait, &signal, |cb| cb.fill(target, pattern))
    }

    fn queue_update(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::DeviceQueueUpdate)?;
        let q: QueueUpdatePayload = head(record.payload, "queue update")?;
        let device = self.device(record.header.object_id)?;
        let (wait, signal, data) = self.queue_lists(
            record,
            QueueUpdatePayload::SIZE,
            q.wait_semaphore_count,
            q.signal_semaphore_count,
            q.data_length,
        )?;
        let target = self.direct(&q.target_ref, "queue update")?;
        if data.len() as u64 != q.target_ref.length {
            return Err(data_loss(
                "replay queue update data length does not match target length",
            ));
        }
        self.submit_one(&device, &wait, &signal, |cb| cb.update(data, target))
    }

    fn queue_copy(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::DeviceQueueCopy)?;
        let q: QueueCopyPayload = head(record.payload, "queue copy")?;
        let device = self.device(record.header.object_id)?;
        let (wait, signal, _) = self.queue_lists(
            record,
            QueueCopyPayload::SIZE,
            q.wait_semaphore_count,
            q.signal_semaphore_count,
            0,
        )?;
        if q.source_ref.buffer_id == OBJECT_ID_NONE || q.target_ref.buffer_id == OBJECT_ID_NONE {
            return Err(data_loss(
                "replay queue copy requires direct source and target buffer references",
            ));
        }
        if q.source_ref.length != q.target_ref.length {
            return Err(data_loss(
                "replay queue copy source and target lengths do not match",
            ));
        }
        let (source, target) = (self.binding(&q.source_ref)?, self.binding(&q.target_ref)?);
        self.submit_one(&device, &wait, &signal, |cb| cb.copy(source, target))
    }

    fn queue_read(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::DeviceQueueRead)?;
        let q: QueueReadPayload = head(record.payload, "queue read")?;
        let device = self.device(record.header.object_id)?;
        let (wait, signal, captured) = self.queue_lists(
            record,
            QueueReadPayload::SIZE,
            q.wait_semaphore_count,
            q.signal_semaphore_count,
            q.captured_data_length,
        )?;
        let file = lookup!(self, q.source_file_id, File).clone();
        let target = self.direct(&q.target_ref, "queue read")?;
        if !captured.is_empty() {
            if captured.len() as u64 != q.target_ref.length {
                return Err(data_loss(
                    "replay queue read captured data length does not match target length",
                ));
            }
            return self.submit_one(&device, &wait, &signal, |cb| cb.update(captured, target));
        }
        let BindingRef::Direct { buffer, offset, .. } = target else {
            unreachable!("direct() returns direct references")
        };
        // Straight from the file into the buffer, as the capturing
        // runtime's read did.
        let read = QueueTransfer::Read {
            file,
            file_offset: q.source_offset,
            target: buffer,
            target_offset: offset,
            length: q.target_ref.length,
        };
        device.queue_transfers(&wait, &signal, vec![read])?;
        signal.wait(None)
    }

    fn queue_write(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::DeviceQueueWrite)?;
        let q: QueueWritePayload = head(record.payload, "queue write")?;
        let device = self.device(record.header.object_id)?;
        let (wait, signal, _) = self.queue_lists(
            record,
            QueueWritePayload::SIZE,
            q.wait_semaphore_count,
            q.signal_semaphore_count,
            0,
        )?;
        if q.source_ref.buffer_id == OBJECT_ID_NONE {
            return Err(data_loss(
                "replay queue write requires a direct source buffer reference",
            ));
        }
        let source = self.buffer(q.source_ref.buffer_id)?;
        let file = lookup!(self, q.target_file_id, File).clone();
        let write = QueueTransfer::Write {
            source,
            source_offset: q.source_ref.offset,
            file,
            file_offset: q.target_offset,
            length: q.source_ref.length,
        };
        device.queue_transfers(&wait, &signal, vec![write])?;
        signal.wait(None)
    }

    /// Records a dispatch into `cb`.
    fn record_dispatch(
        &self,
        record: &Record<'_>,
        d: &DispatchPayload,
        cb: &mut CommandBuffer,
    ) -> Result<()> {
        let [_, _, constants, bindings] = dispatch_sections(record, d)?;
        let known = DISPATCH_FLAG_DYNAMIC_INDIRECT_PARAMETERS
            | DISPATCH_FLAG_STATIC_INDIRECT_PARAMETERS
            | DISPATCH_FLAG_ALLOW_INLINE_EXECUTION;
        if d.flags & !known != 0 {
            return Err(unimplemented(format!(
                "replay dispatch flags 0x{:08x} are not supported by this HAL",
                d.flags
            )));
        }
        if d.dynamic_workgroup_local_memory != 0 {
            return Err(unimplemented(
                "replay dispatch dynamic workgroup local memory is not supported by this HAL",
            ));
        }
        let constants = &record.payload[constants];
        if !constants.len().is_multiple_of(4) {
            return Err(data_loss(
                "replay dispatch constants are not a whole number of 32-bit words",
            ));
        }
        let constants: Vec<u32> = items::<u32>(constants).collect();
        let bindings = items::<BufferRef>(&record.payload[bindings])
            .map(|r| self.binding(&r))
            .collect::<Result<Vec<_>>>()?;
        let replayed = lookup!(self, d.executable_id, Executable);
        let ordinal = *replayed
            .functions
            .get(d.function_ordinal as usize)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "replay executable {} does not define captured function ordinal {}",
                        d.executable_id, d.function_ordinal
                    ),
                )
            })?;
        let executable = replayed.executable.clone();
        let indirect =
            DISPATCH_FLAG_DYNAMIC_INDIRECT_PARAMETERS | DISPATCH_FLAG_STATIC_INDIRECT_PARAMETERS;
        if d.flags & indirect != 0 {
            let workgroups = self.binding(&d.workgroup_count_ref)?;
            cb.dispatch_indirect(executable, ordinal, workgroups, &constants, bindings)
        } else {
            cb.dispatch(executable, ordinal, d.workgroup_count, &constants, bindings)
        }
    }

    fn queue_dispatch(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::Dispatch)?;
        let d: DispatchPayload = head(record.payload, "dispatch")?;
        let [wait, signal, _, _] = dispatch_sections(record, &d)?;
        let device = self.device(record.header.object_id)?;
        let (wait, signal) = (
            self.fence(&record.payload[wait])?,
            self.fence(&record.payload[signal])?,
        );
        let mut cb = CommandBuffer::new(0);
        self.record_dispatch(record, &d, &mut cb)?;
        cb.finalize()?;
        self.submit(&device, &wait, &signal, Some(&cb), &[])
    }

    fn queue_execute(&mut self, record: &Record<'_>) -> Result<()> {
        require_payload(record, PayloadType::DeviceQueueExecute)?;
        let q: QueueExecutePayload = head(record.payload, "queue execute")?;
        let [wait, signal, bindings] =
            execute_sections(record, &q).map_err(|e| data_loss(e.message().to_string()))?;
        let device = self.device(record.header.object_id)?;
        let (wait, signal) = (
            self.fence(&record.payload[wait])?,
            self.fence(&record.payload[signal])?,
        );
        if q.command_buffer_id == OBJECT_ID_NONE {
            if q.binding_count != 0 {
                return Err(data_loss(
                    "replay queue barrier payload unexpectedly has bindings",
                ));
            }
            return self.submit(&device, &wait, &signal, None, &[]);
        }
        let mut table = Vec::with_capacity(q.binding_count as usize);
        for r in items::<BufferRef>(&record.payload[bindings]) {
            table.push(self.table_entry(&r)?);
        }
        let cb = lookup!(self, q.command_buffer_id, CommandBuffer);
        self.submit(&device, &wait, &signal, Some(cb), &table)
    }

    /// A binding table entry; an empty slot gets a placeholder buffer.
    fn table_entry(&mut self, r: &BufferRef) -> Result<DispatchBinding> {
        if r.buffer_id == OBJECT_ID_NONE {
            let buffer = match &self.unused_slot {
                Some(buffer) => buffer.clone(),
                None => {
                    let buffer = Buffer::allocate_host(
                        0,
                        MemoryType::HOST_LOCAL,
                        BufferUsage(0),
                        MemoryAccess::NONE,
                    )?;
                    self.unused_slot = Some(buffer.clone());
                    buffer
                }
            };
            return Ok(DispatchBinding {
                buffer,
                offset: 0,
                length: 0,
            });
        }
        let buffer = self.buffer(r.buffer_id)?;
        let length = if r.length == iree_hal::WHOLE_BUFFER {
            buffer.byte_length().checked_sub(r.offset).ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    "binding offset is past the end of its buffer",
                )
            })?
        } else {
            r.length
        };
        Ok(DispatchBinding {
            buffer,
            offset: r.offset,
            length,
        })
    }
}

/// Prepares an executable from a copy of `data` in host-allocation-aligned
/// memory (loaders may need the alignment the capture's bytes lack).
fn create_executable(
    device: &dyn Device,
    format: &str,
    data: &[u8],
    constants: &[u32],
) -> Result<Arc<dyn Executable>> {
    let aligned = iree_hal::HostMemory::copy_of(data)?;
    aligned.map_read(0, data.len(), |bytes| {
        device.create_executable(format, bytes, constants)
    })?
}

/// Writes `data` (at most `byte_length` bytes) at `byte_offset` of the
/// allocation behind `buffer`.
fn write_buffer_data(
    buffer: &Buffer,
    byte_offset: u64,
    byte_length: u64,
    data: &[u8],
) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    if data.len() as u64 > byte_length {
        return Err(data_loss("replay buffer data overflows target range"));
    }
    let offset = byte_offset
        .checked_sub(buffer.byte_offset())
        .ok_or_else(|| {
            Status::new(
                StatusCode::OutOfRange,
                "mapped range starts before the buffer",
            )
        })?;
    buffer.write(offset, data)
}

/// Checks an external file against what the capture recorded of it.
fn validate_external(
    f: &FileObjectPayload,
    captured: &str,
    path: &str,
    file: &std::fs::File,
) -> Result<()> {
    let metadata = file.metadata().map_err(|_| {
        Status::new(
            StatusCode::Unavailable,
            format!("unable to stat external replay file '{path}'"),
        )
    })?;
    if metadata.len() != f.file_length {
        return Err(Status::new(
            StatusCode::FailedPrecondition,
            format!(
                "external replay file length mismatch for '{path}' captured as '{captured}': captured={} current={}; restore the matching file or fix --replay_file_remap",
                f.file_length,
                metadata.len()
            ),
        ));
    }
    match FileValidationType(f.validation_type) {
        FileValidationType::None => Ok(()),
        FileValidationType::ContentDigest => {
            if f.digest_type != DIGEST_TYPE_FNV1A_64 {
                return Err(unimplemented(format!(
                    "external replay file digest type {} is not executable",
                    f.digest_type
                )));
            }
            let mut digest = Fnv1a64::default();
            let mut offset = 0u64;
            let mut chunk = vec![0u8; 64 << 10];
            while offset < f.file_length {
                let n = (f.file_length - offset).min(chunk.len() as u64) as usize;
                read_exact_at(file, &mut chunk[..n], offset).map_err(|_| {
                    Status::new(
                        StatusCode::Unavailable,
                        format!(
                            "unable to read external replay file '{path}' for digest validation"
                        ),
                    )
                })?;
                digest.update(&chunk[..n]);
                offset += n as u64;
            }
            let expected = digest_of_field(&f.digest);
            if digest.0 != expected {
                return Err(Status::new(
                    StatusCode::FailedPrecondition,
                    format!(
                        "external replay file digest mismatch for '{path}' captured as '{captured}': expected=0x{expected:016x} actual=0x{:016x}; restore the matching file or fix --replay_file_remap",
                        digest.0
                    ),
                ));
            }
            Ok(())
        }
        FileValidationType::Identity => {
            if f.file_device == 0 && f.file_inode == 0 && f.file_mtime_ns == 0 {
                return Ok(());
            }
            let (device, inode, mtime_ns) = file_identity(&metadata);
            if (device, inode, mtime_ns) != (f.file_device, f.file_inode, f.file_mtime_ns) {
                return Err(Status::new(
                    StatusCode::FailedPrecondition,
                    format!(
                        "external replay file identity mismatch for '{path}' captured as '{captured}': captured=(dev={}, inode={}, mtime_ns={}) current=(dev={device}, inode={inode}, mtime_ns={mtime_ns}); identity validation is the default and does not read file contents; restore the original file identity, fix --replay_file_remap, or recapture with --device_replay_file_validation=digest when copied/staged files are intentional",
                        f.file_device, f.file_inode, f.file_mtime_ns
                    ),
                ));
            }
            Ok(())
        }
        _ => Err(unimplemented(format!(
            "external replay file validation type {} is not executable",
            f.validation_type
        ))),
    }
}

/// A file's (device, inode, modification time in ns), as captures record
/// them; zeros where the platform has none.
pub fn file_identity(metadata: &std::fs::Metadata) -> (u64, u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mtime_ns = (metadata.mtime() as u64)
            .wrapping_mul(1_000_000_000)
            .wrapping_add(metadata.mtime_nsec() as u64);
        (metadata.dev(), metadata.ino(), mtime_ns)
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        (0, 0, 0)
    }
}

/// Maps each function of the captured ABI `metadata` to an export of
/// `executable` by name, checking that each export declares what the
/// capture recorded.
fn function_map(
    executable_id: u64,
    metadata: &[u8],
    executable: &dyn Executable,
) -> Result<Vec<usize>> {
    let Some(header) = metadata_header(metadata)? else {
        return Err(data_loss("replay executable metadata is too short"));
    };
    let function_count = header.function_count as usize;
    let parameter_count = header.parameter_count as usize;
    let functions_end = ExecutableMetadataHeader::SIZE + function_count * FunctionMetadata::SIZE;
    let parameters_end = functions_end + parameter_count * ParameterMetadata::SIZE;
    let names = &metadata[parameters_end..];
    let mut map: Vec<usize> = Vec::with_capacity(function_count);
    let (mut parameter_index, mut name_offset) = (0usize, 0usize);
    for (i, captured) in
        items::<FunctionMetadata>(&metadata[ExecutableMetadataHeader::SIZE..functions_end])
            .enumerate()
    {
        let name_length = usize::from(captured.name_length);
        if usize::from(captured.parameter_count) > parameter_count - parameter_index
            || name_length > names.len() - name_offset
        {
            return Err(data_loss("replay executable metadata count mismatch"));
        }
        let name = &names[name_offset..name_offset + name_length];
        name_offset += name_length;
        if name.is_empty() {
            return Err(data_loss(format!(
                "replay executable {executable_id} captured function {i} is missing a name"
            )));
        }
        let name = String::from_utf8_lossy(name);
        let ordinal = executable.lookup_export(&name).ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!("executable has no function named '{name}'"),
            )
            .annotate(format!(
                "looking up replay function '{name}' for executable {executable_id} captured function {i}"
            ))
        })?;
        if let Some(j) = map.iter().position(|&o| o == ordinal) {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                format!(
                    "replay executable {executable_id} captured function '{name}' resolves to the same loaded function token as captured function {j}"
                ),
            ));
        }
        if let Some(loaded) = executable.function_info(ordinal) {
            let same = captured.flags == loaded.flags
                && captured.constant_count == loaded.constant_count
                && captured.binding_count == loaded.binding_count
                && captured.parameter_count == loaded.parameter_count
                && captured.workgroup_size == loaded.workgroup_size;
            if !same {
                return Err(Status::new(
                    StatusCode::FailedPrecondition,
                    format!(
                        "replay executable {executable_id} function {i} ABI mismatch: captured=(flags=0x{:016x} constants={} bindings={} parameters={} workgroup_size=[{},{},{}]) loaded=(flags=0x{:016x} constants={} bindings={} parameters={} workgroup_size=[{},{},{}])",
                        captured.flags,
                        captured.constant_count,
                        captured.binding_count,
                        captured.parameter_count,
                        captured.workgroup_size[0],
                        captured.workgroup_size[1],
                        captured.workgroup_size[2],
                        loaded.flags,
                        loaded.constant_count,
                        loaded.binding_count,
                        loaded.parameter_count,
                        loaded.workgroup_size[0],
                        loaded.workgroup_size[1],
                        loaded.workgroup_size[2],
                    ),
                ));
            }
        }
        parameter_index += usize::from(captured.parameter_count);
        map.push(ordinal);
    }
    for p in items::<ParameterMetadata>(&metadata[functions_end..parameters_end]) {
        if p.reserved0 != 0 {
            return Err(data_loss(
                "replay executable parameter metadata reserved fields must be zero",
            ));
        }
    }
    if parameter_index != parameter_count || name_offset != names.len() {
        return Err(data_loss("replay executable metadata count mismatch"));
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::{RecordMeta, ReplayWriter};

    /// A file of a session record, one device and `extra` records.
    fn file(extra: &[(RecordMeta, Vec<u8>)]) -> Vec<u8> {
        let mut writer = ReplayWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        let session = RecordMeta {
            record_type: RecordType::Session,
            ..RecordMeta::default()
        };
        writer.append(&session, &[]).unwrap();
        let device = RecordMeta {
            record_type: RecordType::Object,
            object_type: ObjectType::Device,
            object_id: 1,
            ..RecordMeta::default()
        };
        writer.append(&device, &[]).unwrap();
        for (meta, payload) in extra {
            writer.append(meta, &[payload]).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    fn execute(bytes: &[u8]) -> Result<()> {
        let device: Arc<dyn Device> = Arc::new(NoDevice);
        Plan::new(bytes)?.execute(&[device], &mut ExecuteOptions::default())
    }

    /// A device nothing is ever run on.
    struct NoDevice;
    impl Device for NoDevice {
        fn id(&self) -> &str {
            "none"
        }
        fn allocator(&self) -> Arc<dyn Allocator> {
            iree_hal::HeapAllocator::new()
        }
        fn query_i64(&self, _: &str, _: &str) -> Result<i64> {
            Err(Status::from_code(StatusCode::NotFound))
        }
        fn create_executable(&self, _: &str, _: &[u8], _: &[u32]) -> Result<Arc<dyn Executable>> {
            Err(Status::from_code(StatusCode::Unimplemented))
        }
        fn queue_alloca(&self, _: &Fence, _: &Fence, _: BufferParams, _: u64) -> Result<Buffer> {
            Err(Status::from_code(StatusCode::Unimplemented))
        }
        fn queue_dealloca(&self, _: &Fence, _: &Fence, _: &Buffer) -> Result<()> {
            Ok(())
        }
        fn queue_execute(
            &self,
            _: &Fence,
            signal: &Fence,
            _: Option<&CommandBuffer>,
            _: &[DispatchBinding],
        ) -> Result<()> {
            signal.signal()
        }
    }

    fn queue_execute(command_buffer_id: u64) -> (RecordMeta, Vec<u8>) {
        let meta = RecordMeta {
            record_type: RecordType::Operation,
            operation_code: OperationCode::DeviceQueueExecute,
            payload_type: PayloadType::DeviceQueueExecute,
            object_type: ObjectType::Device,
            device_id: 1,
            object_id: 1,
            related_object_id: command_buffer_id,
            ..RecordMeta::default()
        };
        let payload = QueueExecutePayload {
            command_buffer_id,
            ..QueueExecutePayload::default()
        };
        (meta, payload.to_bytes())
    }

    #[test]
    fn unknown_objects_fail_naming_the_record() {
        let bytes = file(&[queue_execute(2)]);
        let err = execute(&bytes).unwrap_err();
        assert_eq!(err.code(), StatusCode::NotFound);
        assert_eq!(
            err.to_string_without_location(),
            "NOT_FOUND; replay object id 2 is not defined; at replay record #2 (device.queue_execute) at file offset 216"
        );
        // A barrier (no command buffer) needs nothing.
        execute(&file(&[queue_execute(0)])).unwrap();
    }

    #[test]
    fn malformed_payloads_and_unsupported_calls_fail_loudly() {
        let (meta, mut payload) = queue_execute(0);
        payload[24..32].copy_from_slice(&5u64.to_le_bytes()); // 5 waits, none present
        let err = execute(&file(&[(meta, payload)])).unwrap_err();
        assert_eq!(err.code(), StatusCode::DataLoss);
        assert!(
            err.to_string()
                .contains("replay queue execute payload length mismatch"),
            "{err}"
        );

        let host_call = RecordMeta {
            record_type: RecordType::Operation,
            operation_code: OperationCode::DeviceQueueHostCall,
            object_type: ObjectType::Device,
            device_id: 1,
            object_id: 1,
            ..RecordMeta::default()
        };
        let err = execute(&file(&[(host_call, Vec::new())])).unwrap_err();
        assert_eq!(err.code(), StatusCode::Unimplemented);
        assert!(
            err.to_string().contains(
                "replay operation device.queue_host_call is not implemented; at replay record #2"
            ),
            "{err}"
        );

        // Device count mismatch.
        let device: Arc<dyn Device> = Arc::new(NoDevice);
        let err = Plan::new(&file(&[]))
            .unwrap()
            .execute(&[device.clone(), device], &mut ExecuteOptions::default())
            .unwrap_err();
        assert!(err
            .message()
            .contains("captured 1 device(s) but the target device group contains 2"));
    }
}
