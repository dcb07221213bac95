//! The `hal` VM module (version 7): HAL objects as VM reference types and the
//! exports compiled programs import to drive devices.
//!
//! This is the only crate where the VM and the HAL meet. Every argument that
//! bytecode hands an export is checked here before a HAL call: ref types
//! (a wrong or null ref is INVALID_ARGUMENT), ranges, usage and memory types.
//! All 60 exports exist with upstream's exact calling conventions; the ones
//! not implemented yet fail with UNIMPLEMENTED naming the export, rather
//! than being absent (which would fail import resolution instead).

/// A `TRACE` span entered for the rest of the scope: created only when
/// `TRACE` logging is on, so with logging off a call pays one level check.
macro_rules! trace_scope {
    ($($args:tt)*) => {
        if tracing::enabled!(tracing::Level::TRACE) {
            Some(tracing::trace_span!($($args)*).entered())
        } else {
            None
        }
    };
}

use std::sync::{Arc, OnceLock};

pub mod dynamic;

use iree_base::{Result, Status, StatusCode};
use iree_hal::buffer::{validate_memory_type, validate_usage};
use iree_hal::channel::{Collective, CollectiveKind, CollectiveOp};
use iree_hal::{
    Allocator, BindingRef, Buffer, BufferCompatibility, BufferParams, BufferUsage, BufferView,
    Channel, ChannelParams, CommandBuffer, CommandCategory, Device, DispatchBinding, ElementType,
    EncodingType, Executable, ExternalHostMemory, Fence, MemoryAccess, MemoryType, QueueTransfer,
};
use iree_vm::buffer::Buffer as VmBuffer;
use iree_vm::native::{NativeModuleBuilder, Variadic};
use iree_vm::{
    Instance, Module, Ref, RefObject, RefType, RefTypeDescriptor, StaticRefObject, Value,
};
use parking_lot::Mutex;
use smallvec::SmallVec;

/// Usage bits that let dispatches or transfers write a buffer.
const WRITING_USAGE: BufferUsage = BufferUsage(
    BufferUsage::TRANSFER_TARGET.0
        | BufferUsage::DISPATCH_STORAGE_WRITE.0
        | BufferUsage::DISPATCH_IMAGE_WRITE.0,
);

/// A module image as the plain bytes `ExternalHostMemory::from_shared` takes.
struct ImageBytes(iree_vm::buffer::SharedBytes);

impl AsRef<[u8]> for ImageBytes {
    fn as_ref(&self) -> &[u8] {
        self.0.bytes()
    }
}

/// The module version compiled programs require (`hal >= 7`).
pub const HAL_MODULE_VERSION: u32 = 7;

macro_rules! ref_types {
    ($($ty:ident($inner:ty) = $name:literal, $desc:ident, $fn:ident;)+) => {
        $(
            static $desc: RefTypeDescriptor = RefTypeDescriptor { name: $name };

            #[doc = concat!("The `", $name, "` reference type.")]
            pub fn $fn() -> RefType {
                RefType::new(&$desc)
            }

            #[doc = concat!("A `!", $name, "` VM object.")]
            pub struct $ty(pub $inner);

            impl RefObject for $ty {
                fn ref_type(&self) -> RefType {
                    $fn()
                }
            }

            impl StaticRefObject for $ty {
                fn static_ref_type() -> RefType {
                    $fn()
                }
            }
        )+

        /// Registers every `hal.*` reference type with `instance`; needed
        /// before loading bytecode modules that name them.
        pub fn register_types(instance: &Instance) -> Result<()> {
            $(instance.register_type($fn())?;)+
            instance.register_type(semaphore_type())?;
            instance.register_type(event_type())?;
            Ok(())
        }
    };
}

ref_types! {
    HalAllocator(Arc<dyn Allocator>) = "hal.allocator", ALLOCATOR_TYPE, allocator_type;
    HalBuffer(Buffer) = "hal.buffer", BUFFER_TYPE, buffer_type;
    HalBufferView(BufferView) = "hal.buffer_view", BUFFER_VIEW_TYPE, buffer_view_type;
    HalCommandBuffer(Mutex<CommandBuffer>) = "hal.command_buffer", COMMAND_BUFFER_TYPE, command_buffer_type;
    HalDevice(Arc<dyn Device>) = "hal.device", DEVICE_TYPE, device_type;
    HalExecutable(Arc<dyn Executable>) = "hal.executable", EXECUTABLE_TYPE, executable_type;
    HalFence(Fence) = "hal.fence", FENCE_TYPE, fence_type;
    HalFile(Arc<MemoryFile>) = "hal.file", FILE_TYPE, file_type;
    HalChannel(Arc<dyn Channel>) = "hal.channel", CHANNEL_TYPE, channel_type;
}

/// A `hal.file` over a window of a VM byte buffer (`hal.ex.file.from_memory`):
/// queue reads copy out of it and queue writes copy into it.
#[derive(Clone)]
pub struct MemoryFile {
    /// The `vm.buffer` holding the contents; kept alive by this reference.
    source: Ref,
    /// Byte offset of the window in `source`.
    offset: usize,
    /// Byte length of the window.
    length: usize,
    /// `iree_hal_memory_access_t` bits the file was opened with.
    access: u32,
}

impl MemoryFile {
    /// The file's length in bytes.
    pub fn length(&self) -> usize {
        self.length
    }

    /// Checks `[offset, offset + length)` against the file, returning the
    /// range within the source buffer.
    fn window(&self, offset: i64, length: u64) -> Result<usize> {
        let offset = size_arg(offset, "file offset")? as usize;
        match offset.checked_add(length as usize) {
            Some(end) if end <= self.length => Ok(self.offset + offset),
            _ => Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "file range [{offset}, +{length}) out of bounds of the {}-byte file",
                    self.length
                ),
            )),
        }
    }

    fn source(&self) -> &VmBuffer {
        self.source
            .downcast::<VmBuffer>()
            .expect("checked to be a vm.buffer at creation")
    }
}

impl iree_hal::File for MemoryFile {
    fn length(&self) -> u64 {
        self.length as u64
    }

    fn access(&self) -> MemoryAccess {
        MemoryAccess(self.access as u16)
    }

    fn read(&self, offset: u64, length: u64, f: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let start = self.window(offset as i64, length)?;
        self.source()
            .read_range(start, length as usize, |data| f(data))?
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        let start = self.window(offset as i64, data.len() as u64)?;
        self.source().write_bytes(start, data)
    }
}

macro_rules! opaque_types {
    ($($name:literal, $desc:ident, $fn:ident;)+) => {
        $(
            static $desc: RefTypeDescriptor = RefTypeDescriptor { name: $name };
            #[doc = concat!("The `", $name, "` reference type (no objects of it yet).")]
            pub fn $fn() -> RefType {
                RefType::new(&$desc)
            }
        )+
    };
}

opaque_types! {
    "hal.semaphore", SEMAPHORE_TYPE, semaphore_type;
    "hal.event", EVENT_TYPE, event_type;
}

/// Borrows a `T` out of a ref argument, failing as upstream's `check_deref`.
/// `what` names the argument in errors; it is formatted only on failure.
/// Other modules built on HAL objects (`io_parameters`) check their
/// arguments with it too.
#[inline]
pub fn deref<T: RefObject>(
    value: &Option<Ref>,
    ty: RefType,
    what: impl std::fmt::Display,
) -> Result<&T> {
    match value {
        Some(r) => r.downcast::<T>().ok_or_else(|| {
            Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "{what}: expected a {} but have a {}",
                    ty.name(),
                    r.ref_type().name()
                ),
            )
        }),
        None => Err(Status::new(
            StatusCode::InvalidArgument,
            format!("{what}: a non-null {} is required", ty.name()),
        )),
    }
}

/// Whether a view of `actual` satisfies an `expected` element type, as
/// upstream decides: opaque data passes, integers of one width interconvert
/// (signless, signed, unsigned, bool), anything else must match exactly.
fn element_types_compatible(actual: ElementType, expected: ElementType) -> bool {
    let numerical = |t: ElementType| t.0 >> 24;
    let is_integer = |t: ElementType| numerical(t) & 0x10 == 0x10 && numerical(t) & 0x20 == 0;
    numerical(actual) == 0
        || (is_integer(actual) && is_integer(expected) && (actual.0 & 0xFF) == (expected.0 & 0xFF))
        || actual == expected
}

/// A `!vm.buffer` string argument that only an error message shows (the
/// `message` of `hal.buffer.assert` and `hal.buffer_view.assert`): checked
/// to be a buffer now, decoded (lossy UTF-8) only when displayed, so a
/// passing assertion allocates nothing.
pub struct MessageArg<'a>(&'a VmBuffer);

impl std::fmt::Display for MessageArg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0
            .with_bytes(|bytes| f.write_str(&String::from_utf8_lossy(bytes)))
    }
}

/// [`MessageArg`] of a string argument (INVALID_ARGUMENT when it is not a
/// `!vm.buffer`, as [`string_arg`]).
pub fn message_arg<'a>(value: &'a Option<Ref>, what: &str) -> Result<MessageArg<'a>> {
    deref(value, iree_vm::buffer::buffer_type(), what).map(MessageArg)
}

/// The text of a `!vm.buffer` argument (rodata strings); `what` names it
/// in the error for a null or mistyped ref.
pub fn string_arg(value: &Option<Ref>, what: &str) -> Result<String> {
    let buffer: &VmBuffer = deref(value, iree_vm::buffer::buffer_type(), what)?;
    Ok(buffer.with_bytes(|bytes| String::from_utf8_lossy(bytes).into_owned()))
}

/// The executable-level constants of `hal.executable.create` and
/// `hal_loader.executable.load`: none when the argument is null (or not a
/// `!vm.buffer`, as upstream), else the buffer's 4-byte values in native
/// byte order; a length that is not a multiple of 4 is INVALID_ARGUMENT.
pub fn executable_constants_arg(value: &Option<Ref>) -> Result<Vec<u32>> {
    let Some(buffer) = value.as_ref().and_then(|r| r.downcast::<VmBuffer>()) else {
        return Ok(Vec::new());
    };
    buffer.with_bytes(|bytes| {
        if bytes.len() % 4 != 0 {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "constant buffer data must contain 4-byte elements but data length is {}",
                    bytes.len()
                ),
            ));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    })
}

/// `IREE_HAL_COMMAND_BUFFER_MODE_ONE_SHOT`: recorded, executed once.
const COMMAND_BUFFER_MODE_ONE_SHOT: i32 = 1;

/// The device behind a `!hal.device` argument (INVALID_ARGUMENT if null or
/// of another type).
/// Borrowed, not cloned: HAL calls are hot and the ref outlives the call.
pub fn device_arg(value: &Option<Ref>) -> Result<&Arc<dyn Device>> {
    Ok(&deref::<HalDevice>(value, device_type(), "device")?.0)
}

/// The fence behind a `!hal.fence` argument; null is an empty fence
/// (already reached), as upstream treats a null semaphore list. Borrowed,
/// not cloned (a clone allocates).
pub fn fence_or_empty(value: &Option<Ref>) -> Result<&Fence> {
    static EMPTY: Fence = Fence::new();
    match value {
        None => Ok(&EMPTY),
        Some(_) => Ok(&deref::<HalFence>(value, fence_type(), "fence")?.0),
    }
}

/// `executable.lookup.function` (of `hal` and `hal_loader`): the function
/// id (the export ordinal) of the export named by the `!vm.buffer` `name`
/// in the `!hal.executable` `executable`; NOT_FOUND when it has none.
pub fn lookup_function(executable: &Option<Ref>, name: &Option<Ref>) -> Result<i64> {
    let executable = &deref::<HalExecutable>(executable, executable_type(), "executable")?.0;
    let name = string_arg(name, "function name")?;
    executable
        .lookup_export(&name)
        .map(|i| i as i64)
        .ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!("executable has no function named '{name}'"),
            )
        })
}

/// An i64 size or offset argument as an unsigned size; OUT_OF_RANGE when
/// negative. `what` names it in the error.
pub fn size_arg(value: i64, what: &str) -> Result<u64> {
    u64::try_from(value).map_err(|_| {
        Status::new(
            StatusCode::OutOfRange,
            format!("{what} must not be negative (got {value})"),
        )
    })
}

/// Receives `hal.buffer_view.trace` calls (what `flow.tensor.trace`
/// compiles to): the trace key and the traced buffer views. An error fails
/// the traced call.
pub type DebugSink = Arc<dyn Fn(&str, &[BufferView]) -> Result<()> + Send + Sync>;

/// The sink upstream's tools and runtime sessions install: each trace as a
/// `=== key ===` line, every buffer view in full (no element limit) on a
/// line of its own, then an empty line, on standard error.
pub fn stderr_debug_sink() -> DebugSink {
    Arc::new(|key: &str, views: &[BufferView]| {
        use std::io::Write as _;
        let mut text = format!("=== {key} ===\n");
        for view in views {
            text.push_str(&view.format(usize::MAX)?);
            text.push('\n');
        }
        text.push('\n');
        // One write, so traces from concurrent calls do not interleave.
        let mut stderr = std::io::stderr().lock();
        stderr
            .write_all(text.as_bytes())
            .and_then(|()| stderr.flush())
            .map_err(|e| {
                Status::new(
                    StatusCode::Unavailable,
                    format!("writing a trace to stderr: {e}"),
                )
            })
    })
}

/// Per-context state: the devices the module serves, its debug sink and
/// the fences it reuses.
pub struct HalModuleState {
    /// The devices, as the refs `devices.get` hands out: the same object
    /// at every call, as upstream retains and returns its device.
    devices: Vec<Ref>,
    /// Each device's allocator as the ref `device.allocator` hands out,
    /// made at the first call (likewise one object per device).
    allocators: Vec<OnceLock<Ref>>,
    debug_sink: Option<DebugSink>,
    fences: Mutex<FencePool>,
}

/// The fences `fence.create` and `fence.join` hand out, kept for reuse as
/// upstream pools its fences and semaphores: a fence object the program
/// has let go of (only the pool holds it) is emptied and refilled instead
/// of allocating a new object and a new semaphore.
#[derive(Default)]
struct FencePool {
    /// Fence objects handed out (at most [`FencePool::CAPACITY`]).
    objects: Vec<Arc<HalFence>>,
    /// Semaphores of emptied fences that nobody else held.
    semaphores: iree_hal::SemaphorePool,
}

impl FencePool {
    /// The most fence objects kept.
    const CAPACITY: usize = 32;

    /// A fence object, reused or new, filled by `fill` (given the fence,
    /// empty, and the semaphores to take new ones from).
    #[inline]
    fn fence(&mut self, fill: impl FnOnce(&mut Fence, &mut iree_hal::SemaphorePool)) -> Ref {
        for object in &mut self.objects {
            if Arc::strong_count(object) != 1 {
                continue;
            }
            if let Some(HalFence(fence)) = Arc::get_mut(object) {
                self.semaphores.recycle(fence);
                fill(fence, &mut self.semaphores);
                return Ref::from_arc(object.clone());
            }
        }
        let mut fence = Fence::new();
        fill(&mut fence, &mut self.semaphores);
        let object = Arc::new(HalFence(fence));
        if self.objects.len() < Self::CAPACITY {
            self.objects.push(object.clone());
        }
        Ref::from_arc(object)
    }
}

/// Every export with its cconv, sorted by name (as upstream requires).
const EXPORTS: &[(&str, &str)] = &[
    ("allocator.allocate", "0rIiiI_r"),
    ("allocator.import", "0riIiirII_r"),
    ("allocator.select", "0iiICrID_rI"),
    ("buffer.allocation.discard", "0r_i"),
    ("buffer.allocation.is_terminal", "0r_i"),
    ("buffer.allocation.preserve", "0r_v"),
    ("buffer.assert", "0rrrIii_v"),
    ("buffer.length", "0r_I"),
    ("buffer.load", "0rIi_i"),
    ("buffer.store", "0irIi_v"),
    ("buffer.subspan", "0rII_r"),
    ("buffer_view.assert", "0rriiCID_v"),
    ("buffer_view.buffer", "0r_r"),
    ("buffer_view.create", "0rIIiiCID_r"),
    ("buffer_view.dim", "0ri_I"),
    ("buffer_view.element_type", "0r_i"),
    ("buffer_view.encoding_type", "0r_i"),
    ("buffer_view.rank", "0r_i"),
    ("buffer_view.trace", "0rCrD_v"),
    ("channel.create", "0rIIrrii_r"),
    ("channel.rank_and_count", "0r_ii"),
    ("channel.split", "0riiI_r"),
    ("command_buffer.advise_buffer", "0rrIIIi_v"),
    ("command_buffer.begin_debug_group", "0rr_v"),
    ("command_buffer.collective", "0rriiiirrIIIII_v"),
    ("command_buffer.copy_buffer", "0riirIrIII_v"),
    ("command_buffer.create", "0riiIi_r"),
    ("command_buffer.dispatch", "0rrIiiiICiDCiirIID_v"),
    ("command_buffer.dispatch.indirect", "0rrIirIICiDCiirIID_v"),
    ("command_buffer.end_debug_group", "0r_v"),
    ("command_buffer.execution_barrier", "0riiI_v"),
    ("command_buffer.fill_buffer", "0rrIIiIiI_v"),
    ("command_buffer.finalize", "0r_v"),
    ("command_buffer.flush_buffer", "0rirII_v"),
    ("command_buffer.invalidate_buffer", "0rirII_v"),
    ("command_buffer.update_buffer", "0rrIrIIiI_v"),
    ("device.allocator", "0r_r"),
    ("device.query.i64", "0rrr_iI"),
    ("device.queue.alloca", "0rIrrIiiII_r"),
    ("device.queue.barrier", "0rIrrI_v"),
    ("device.queue.copy", "0rIrrrIrIII_v"),
    ("device.queue.dealloca", "0rIrrrI_v"),
    ("device.queue.execute", "0rIrrrI_v"),
    ("device.queue.execute.indirect", "0rIrrrICrIID_v"),
    ("device.queue.fill", "0rIrrrIIIiI_v"),
    ("device.queue.flush", "0rI_v"),
    ("device.queue.read", "0rIrrrIrIII_v"),
    ("device.queue.update", "0rIrrrIrIII_v"),
    ("device.queue.write", "0rIrrrIrIII_v"),
    ("devices.count", "0v_i"),
    ("devices.get", "0i_r"),
    ("ex.file.from_memory", "0rIirIIi_r"),
    ("executable.create", "0rIrrr_r"),
    ("executable.lookup.function", "0rr_I"),
    ("fence.await", "0iICrD_i"),
    ("fence.create", "0rI_r"),
    ("fence.fail", "0ri_v"),
    ("fence.join", "0ICrD_r"),
    ("fence.query", "0r_i"),
    ("fence.signal", "0r_v"),
];

type Builder = NativeModuleBuilder<HalModuleState>;

/// Builds the `hal` module serving `devices` (device 0 is the default).
/// Buffer-view traces are dropped.
pub fn create_hal_module(devices: Vec<Arc<dyn Device>>) -> Result<Arc<dyn Module>> {
    create_hal_module_with_debug_sink(devices, None)
}

/// [`create_hal_module`], with buffer-view traces sent to `debug_sink`.
pub fn create_hal_module_with_debug_sink(
    devices: Vec<Arc<dyn Device>>,
    debug_sink: Option<DebugSink>,
) -> Result<Arc<dyn Module>> {
    let mut builder = Builder::new("hal", HAL_MODULE_VERSION);
    builder = implemented(builder)?;
    // Everything else: present, failing clearly.
    let implemented_names: Vec<String> = IMPLEMENTED.iter().map(|s| s.to_string()).collect();
    for (name, cconv) in EXPORTS {
        if !implemented_names.iter().any(|n| n == name) {
            let full = format!("hal.{name}");
            builder = builder.export_raw(name, cconv, move |_, _, _| {
                Err(Status::new(
                    StatusCode::Unimplemented,
                    format!("{full} is not implemented yet"),
                ))
            })?;
        }
    }
    let module = builder.build(move |_| {
        Ok(HalModuleState {
            devices: devices
                .iter()
                .map(|device| Ref::new(HalDevice(device.clone())))
                .collect(),
            allocators: devices.iter().map(|_| OnceLock::new()).collect(),
            debug_sink: debug_sink.clone(),
            fences: Mutex::new(FencePool::default()),
        })
    });
    Ok(module)
}

/// Exports with real implementations.
const IMPLEMENTED: &[&str] = &[
    "buffer.assert",
    "buffer.length",
    "buffer_view.assert",
    "buffer_view.buffer",
    "buffer_view.create",
    "buffer_view.dim",
    "buffer_view.element_type",
    "buffer_view.encoding_type",
    "buffer_view.rank",
    "command_buffer.create",
    "command_buffer.dispatch",
    "command_buffer.execution_barrier",
    "command_buffer.finalize",
    "device.allocator",
    "device.query.i64",
    "device.queue.alloca",
    "device.queue.execute.indirect",
    "devices.count",
    "devices.get",
    "executable.create",
    "executable.lookup.function",
    "fence.await",
    "fence.create",
    "fence.query",
    "fence.signal",
    "allocator.allocate",
    "buffer.allocation.discard",
    "buffer.allocation.is_terminal",
    "buffer.allocation.preserve",
    "buffer.load",
    "buffer.store",
    "buffer.subspan",
    "buffer_view.trace",
    "command_buffer.advise_buffer",
    "command_buffer.begin_debug_group",
    "command_buffer.copy_buffer",
    "command_buffer.end_debug_group",
    "command_buffer.fill_buffer",
    "command_buffer.flush_buffer",
    "command_buffer.invalidate_buffer",
    "command_buffer.update_buffer",
    "device.queue.barrier",
    "device.queue.copy",
    "device.queue.dealloca",
    "device.queue.execute",
    "device.queue.fill",
    "device.queue.flush",
    "device.queue.update",
    "fence.fail",
    "fence.join",
    "command_buffer.dispatch.indirect",
    "allocator.import",
    "allocator.select",
    "ex.file.from_memory",
    "device.queue.read",
    "device.queue.write",
    "channel.create",
    "channel.rank_and_count",
    "channel.split",
    "command_buffer.collective",
];

/// `channel.create` arguments.
type ChannelCreateArgs = (Option<Ref>, i64, i64, Option<Ref>, Option<Ref>, i32, i32);
/// `command_buffer.collective` arguments.
type CollectiveArgs = (
    Option<Ref>,
    Option<Ref>,
    i32,
    i32,
    i32,
    i32,
    Option<Ref>,
    Option<Ref>,
    i64,
    i64,
    i64,
    i64,
    i64,
);

/// The channel and collective exports.
fn channel_exports(b: Builder) -> Result<Builder> {
    b.export(
        "channel.create",
        "0rIIrrii_r",
        |_, (device, _affinity, flags, id, group, rank, count): ChannelCreateArgs| {
            let _span = trace_scope!("hal.channel.create");
            let device = device_arg(&device)?;
            let id = match &id {
                Some(_) => vm_bytes_all(&id, "channel id")?,
                None => Vec::new(),
            };
            let group = match &group {
                Some(_) => Some(string_arg(&group, "channel group")?),
                None => None,
            };
            let params = ChannelParams {
                flags: flags as u64,
                id,
                group,
                rank,
                count,
            };
            Ok(Ref::new(HalChannel(device.create_channel(&params)?)))
        },
    )?
    .export(
        "channel.split",
        "0riiI_r",
        |_, (channel, color, key, flags): (Option<Ref>, i32, i32, i64)| {
            let _span = trace_scope!("hal.channel.split");
            let channel = &deref::<HalChannel>(&channel, channel_type(), "channel")?.0;
            Ok(channel
                .split(color, key, flags as u64)?
                .map(|c| Ref::new(HalChannel(c))))
        },
    )?
    .export(
        "channel.rank_and_count",
        "0r_ii",
        |_, (channel,): (Option<Ref>,)| {
            let channel = &deref::<HalChannel>(&channel, channel_type(), "channel")?.0;
            Ok((channel.rank(), channel.count()))
        },
    )?
    // Thirteen arguments: more than the typed export tuples take.
    .export_raw(
        "command_buffer.collective",
        "0rriiiirrIIIII_v",
        |_, args, _| {
            let _span = trace_scope!("hal.command_buffer.collective");
            let (
                cb,
                channel,
                op,
                param,
                send_slot,
                recv_slot,
                send,
                recv,
                send_offset,
                send_length,
                recv_offset,
                recv_length,
                element_count,
            ) = collective_args(args)?;
            let cb = &deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0;
            let channel = deref::<HalChannel>(&channel, channel_type(), "channel")?
                .0
                .clone();
            let op = CollectiveOp::from_packed(op as u32)?;
            let element_count = size_arg(element_count, "element count")?;
            // Upstream's table: sends read no receive range and receives no
            // send range; every other kind names both.
            let send = match op.kind {
                CollectiveKind::Recv => None,
                _ => Some(binding(&send, send_slot, send_offset, send_length)?),
            };
            let recv = match op.kind {
                CollectiveKind::Send => None,
                _ => Some(binding(&recv, recv_slot, recv_offset, recv_length)?),
            };
            let collective = Collective {
                op,
                param: param as u32,
                element_count,
            };
            let result = cb.lock().collective(channel, collective, send, recv);
            result
        },
    )
}

/// Reads `command_buffer.collective`'s arguments (already checked against
/// its cconv by the VM).
fn collective_args(args: &mut [Value]) -> Result<CollectiveArgs> {
    let bad = || {
        Status::new(
            StatusCode::InvalidArgument,
            "command_buffer.collective: malformed arguments",
        )
    };
    let r = |v: &mut Value| match v {
        Value::Ref(r) => Ok(r.take()),
        _ => Err(bad()),
    };
    let i = |v: &Value| match v {
        Value::I32(x) => Ok(*x),
        _ => Err(bad()),
    };
    let l = |v: &Value| match v {
        Value::I64(x) => Ok(*x),
        _ => Err(bad()),
    };
    let [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12] = args else {
        return Err(bad());
    };
    Ok((
        r(a0)?,
        r(a1)?,
        i(a2)?,
        i(a3)?,
        i(a4)?,
        i(a5)?,
        r(a6)?,
        r(a7)?,
        l(a8)?,
        l(a9)?,
        l(a10)?,
        l(a11)?,
        l(a12)?,
    ))
}

/// All bytes of a `vm.buffer` argument.
fn vm_bytes_all(buffer: &Option<Ref>, what: &str) -> Result<Vec<u8>> {
    let buffer: &VmBuffer = deref(buffer, iree_vm::buffer::buffer_type(), what)?;
    Ok(buffer.with_bytes(|bytes| bytes.to_vec()))
}

/// A dispatch binding tuple: (reserved, table slot, buffer or null, offset, length).
type Binding = (i32, i32, Option<Ref>, i64, i64);
/// `command_buffer.dispatch` arguments.
type DispatchArgs = (
    Option<Ref>,
    Option<Ref>,
    i64,
    i32,
    i32,
    i32,
    i64,
    Variadic<(i32,)>,
    Variadic<Binding>,
);
/// `device.queue.alloca` arguments.
type QueueAllocaArgs = (
    Option<Ref>,
    i64,
    Option<Ref>,
    Option<Ref>,
    i64,
    i32,
    i32,
    i64,
    i64,
);
/// `device.queue.execute.indirect` arguments.
type ExecuteIndirectArgs = (
    Option<Ref>,
    i64,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
    i64,
    Variadic<(Option<Ref>, i64, i64)>,
);

/// `command_buffer.copy_buffer` arguments.
type CopyArgs = (
    Option<Ref>,
    i32,
    i32,
    Option<Ref>,
    i64,
    Option<Ref>,
    i64,
    i64,
    i64,
);
/// `command_buffer.fill_buffer` arguments.
type FillArgs = (Option<Ref>, Option<Ref>, i64, i64, i32, i64, i32, i64);
/// `command_buffer.update_buffer` arguments.
type UpdateArgs = (
    Option<Ref>,
    Option<Ref>,
    i64,
    Option<Ref>,
    i64,
    i64,
    i32,
    i64,
);
/// `device.queue.fill` arguments.
type QueueFillArgs = (
    Option<Ref>,
    i64,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
    i64,
    i64,
    i64,
    i32,
    i64,
);
/// `device.queue.copy` / `device.queue.update` arguments.
type QueueCopyArgs = (
    Option<Ref>,
    i64,
    Option<Ref>,
    Option<Ref>,
    Option<Ref>,
    i64,
    Option<Ref>,
    i64,
    i64,
    i64,
);

/// `command_buffer.dispatch.indirect` arguments.
type DispatchIndirectArgs = (
    Option<Ref>,
    Option<Ref>,
    i64,
    i32,
    Option<Ref>,
    i64,
    i64,
    Variadic<(i32,)>,
    Variadic<Binding>,
);

/// A buffer argument that may be null, in which case `slot` of the binding
/// table supplies it at execution.
fn binding(buffer: &Option<Ref>, slot: i32, offset: i64, length: i64) -> Result<BindingRef> {
    let (offset, length) = (size_arg(offset, "offset")?, length as u64);
    Ok(match buffer {
        Some(_) => BindingRef::Direct {
            buffer: deref::<HalBuffer>(buffer, buffer_type(), "buffer")?
                .0
                .clone(),
            offset,
            length,
        },
        None => BindingRef::Slot {
            slot: slot as u32,
            offset,
            length,
        },
    })
}

/// Runs a queue transfer (`queue.fill`, `copy`, `update`) as a one-command
/// transfer command buffer, so it runs the way the device runs transfers
/// (tiled over the workers of local devices, on the stream of GPUs). A
/// command that fails its checks fails `signal` too.
fn queue_transfer(
    device: &Arc<dyn Device>,
    wait: &Option<Ref>,
    signal: &Option<Ref>,
    record: impl FnOnce(&mut CommandBuffer) -> Result<()>,
) -> Result<()> {
    let (wait, signal) = (fence_or_empty(wait)?, fence_or_empty(signal)?);
    let mut cb = CommandBuffer::new(0);
    if let Err(status) = record(&mut cb).and_then(|()| cb.finalize()) {
        signal.fail(status.clone());
        return Err(status);
    }
    device.queue_execute(wait, signal, Some(&cb), &[])
}

/// The low `length` bytes of a fill pattern.
fn pattern_bytes(pattern: i64, length: i32) -> Result<Vec<u8>> {
    if !matches!(length, 1 | 2 | 4 | 8) {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("fill patterns must be 1, 2, 4 or 8 bytes (got {length})"),
        ));
    }
    Ok(pattern.to_le_bytes()[..length as usize].to_vec())
}

/// Bytes `[offset, offset + length)` of a `!vm.buffer` argument.
fn vm_bytes(buffer: &Option<Ref>, offset: i64, length: i64) -> Result<Vec<u8>> {
    let buffer: &VmBuffer = deref(buffer, iree_vm::buffer::buffer_type(), "source buffer")?;
    buffer.read_bytes(
        size_arg(offset, "source offset")? as usize,
        size_arg(length, "length")? as usize,
    )
}

/// Adds the exports `hal` and `hal_inline` share, with the same names,
/// calling conventions and checks: `buffer.length`, `buffer.subspan` and
/// every `buffer_view.*` export. `debug_sink` finds the sink of a module
/// state that `buffer_view.trace` reports to (none: traces are dropped).
pub fn buffer_view_exports<S: Send + Sync + 'static>(
    b: NativeModuleBuilder<S>,
    debug_sink: fn(&S) -> Option<&DebugSink>,
) -> Result<NativeModuleBuilder<S>> {
    b
    .export("buffer.subspan", "0rII_r", |_, (buffer, offset, length): (Option<Ref>, i64, i64)| {
        let buffer = &deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?.0;
        Ok(Ref::new(HalBuffer(buffer.subspan(size_arg(offset, "offset")?, length as u64)?)))
    })?
    .export("buffer.length", "0r_I", |_, (buffer,): (Option<Ref>,)| {
        Ok(deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?.0.byte_length() as i64)
    })?
    .export("buffer_view.create", "0rIIiiCID_r", |_, (buffer, offset, length, element_type, encoding, shape): (Option<Ref>, i64, i64, i32, i32, Variadic<(i64,)>)| {
        let source = &deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?.0;
        let (offset, length) = (size_arg(offset, "source offset")?, size_arg(length, "source length")?);
        let buffer = if offset != 0 || length != source.byte_length() { source.subspan(offset, length)? } else { source.clone() };
        let shape = shape.0.iter().map(|(d,)| usize::try_from(*d).map_err(|_| Status::new(StatusCode::OutOfRange, format!("negative dimension {d}")))).collect::<Result<Vec<_>>>()?;
        let view = BufferView::new(buffer, shape, ElementType(element_type as u32), EncodingType(encoding as u32))?;
        Ok(Ref::new(HalBufferView(view)))
    })?
    .export("buffer_view.assert", "0rriiCID_v", |_, (view, message, element_type, encoding, shape): (Option<Ref>, Option<Ref>, i32, i32, Variadic<(i64,)>)| {
        let message = message_arg(&message, "message")?;
        let view = &deref::<HalBufferView>(&view, buffer_view_type(), &message)?.0;
        if !element_types_compatible(view.element_type(), ElementType(element_type as u32)) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("{message} element type mismatch; expected {} ({:08X}) but have {} ({:08X})",
                    ElementType(element_type as u32).name(), element_type as u32, view.element_type().name(), view.element_type().0),
            ));
        }
        if view.encoding() != EncodingType(encoding as u32) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("{message} encoding mismatch; expected {:08X} but have {:08X}", encoding as u32, view.encoding().0),
            ));
        }
        let expected: Vec<i64> = shape.0.iter().map(|(d,)| *d).collect();
        let actual: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
        if expected.len() != actual.len() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("{message} shape rank mismatch; expected {}{} but have {}{}",
                    expected.len(), if expected.is_empty() { " (scalar)" } else { "" },
                    actual.len(), if actual.is_empty() { " (scalar)" } else { "" }),
            ));
        }
        if let Some(i) = (0..expected.len()).find(|&i| expected[i] != actual[i]) {
            let join = |d: &[i64]| d.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x");
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "{message} shape dimension {i} mismatch; expected {} but have {}; expected shape `{}`, actual shape `{}`",
                    expected[i], actual[i], join(&expected), join(&actual)
                ),
            ));
        }
        Ok(())
    })?
    .export("buffer_view.buffer", "0r_r", |_, (view,): (Option<Ref>,)| {
        Ok(Ref::new(HalBuffer(deref::<HalBufferView>(&view, buffer_view_type(), "buffer view")?.0.buffer().clone())))
    })?
    .export("buffer_view.dim", "0ri_I", |_, (view, index): (Option<Ref>, i32)| {
        let view = &deref::<HalBufferView>(&view, buffer_view_type(), "buffer view")?.0;
        Ok(view.dim(index as u32 as usize)? as i64)
    })?
    .export("buffer_view.element_type", "0r_i", |_, (view,): (Option<Ref>,)| {
        Ok(deref::<HalBufferView>(&view, buffer_view_type(), "buffer view")?.0.element_type().0 as i32)
    })?
    .export("buffer_view.encoding_type", "0r_i", |_, (view,): (Option<Ref>,)| {
        Ok(deref::<HalBufferView>(&view, buffer_view_type(), "buffer view")?.0.encoding().0 as i32)
    })?
    .export("buffer_view.rank", "0r_i", |_, (view,): (Option<Ref>,)| {
        Ok(deref::<HalBufferView>(&view, buffer_view_type(), "buffer view")?.0.rank() as i32)
    })?
    .export("buffer_view.trace", "0rCrD_v", move |state: &S, (key, views): (Option<Ref>, Variadic<(Option<Ref>,)>)| {
        let Some(sink) = debug_sink(state) else { return Ok(()) };
        let key = string_arg(&key, "key")?;
        let views = views.0.iter()
            .map(|(view,)| deref::<HalBufferView>(view, buffer_view_type(), "buffer view").map(|v| v.0.clone()))
            .collect::<Result<Vec<_>>>()?;
        sink(&key, &views)
    })
}

fn more(b: Builder) -> Result<Builder> {
    b.export("allocator.allocate", "0rIiiI_r", |_, (allocator, _affinity, memory_types, usage, length): (Option<Ref>, i64, i32, i32, i64)| {
        let allocator = &deref::<HalAllocator>(&allocator, allocator_type(), "allocator")?.0;
        let params = BufferParams { memory_type: MemoryType(memory_types as u32), usage: BufferUsage(usage as u32), ..Default::default() };
        Ok(Ref::new(HalBuffer(allocator.allocate_buffer(params, size_arg(length, "allocation size")?)?)))
    })?
    .export("buffer.allocation.preserve", "0r_v", |_, (buffer,): (Option<Ref>,)| {
        deref::<HalBuffer>(&buffer, buffer_type(), "buffer").map(|_| ())
    })?
    .export("buffer.allocation.discard", "0r_i", |_, (buffer,): (Option<Ref>,)| {
        deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?;
        Ok(1)
    })?
    .export("buffer.allocation.is_terminal", "0r_i", |_, (buffer,): (Option<Ref>,)| {
        deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?;
        Ok(1)
    })?
    .export("buffer.load", "0rIi_i", |_, (buffer, offset, length): (Option<Ref>, i64, i32)| {
        let buffer = &deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?.0;
        if !matches!(length, 1 | 2 | 4) {
            return Err(Status::new(StatusCode::InvalidArgument, format!("load length must be 1, 2 or 4 bytes (got {length})")));
        }
        let mut bytes = [0u8; 4];
        buffer.read(size_arg(offset, "offset")?, &mut bytes[..length as usize])?;
        Ok(i32::from_le_bytes(bytes))
    })?
    .export("buffer.store", "0irIi_v", |_, (value, buffer, offset, length): (i32, Option<Ref>, i64, i32)| {
        let buffer = &deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?.0;
        if !matches!(length, 1 | 2 | 4) {
            return Err(Status::new(StatusCode::InvalidArgument, format!("store length must be 1, 2 or 4 bytes (got {length})")));
        }
        buffer.write(size_arg(offset, "offset")?, &value.to_le_bytes()[..length as usize])
    })?
    .export("command_buffer.begin_debug_group", "0rr_v", |_, (_cb, _label): (Option<Ref>, Option<Ref>)| Ok(()))?
    .export("command_buffer.end_debug_group", "0r_v", |_, (_cb,): (Option<Ref>,)| Ok(()))?
    .export("command_buffer.advise_buffer", "0rrIIIi_v", |_, (_cb, _buffer, _flags, _arg0, _arg1, _slot): (Option<Ref>, Option<Ref>, i64, i64, i64, i32)| Ok(()))?
    .export("command_buffer.flush_buffer", "0rirII_v", |_, (_cb, _slot, _buffer, _offset, _length): (Option<Ref>, i32, Option<Ref>, i64, i64)| Ok(()))?
    .export("command_buffer.invalidate_buffer", "0rirII_v", |_, (_cb, _slot, _buffer, _offset, _length): (Option<Ref>, i32, Option<Ref>, i64, i64)| Ok(()))?
    .export("command_buffer.copy_buffer", "0riirIrIII_v", |_, (cb, source_slot, target_slot, source, source_offset, target, target_offset, length, _flags): CopyArgs| {
        let _span = trace_scope!("hal.command_buffer.copy_buffer");
        let cb = &deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0;
        let source = binding(&source, source_slot, source_offset, length)?;
        let target = binding(&target, target_slot, target_offset, length)?;
        cb.lock().copy(source, target)
    })?
    .export("command_buffer.fill_buffer", "0rrIIiIiI_v", |_, (cb, target, offset, length, slot, pattern, pattern_length, _flags): FillArgs| {
        let _span = trace_scope!("hal.command_buffer.fill_buffer");
        let cb = &deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0;
        let target = binding(&target, slot, offset, length)?;
        cb.lock().fill(target, &pattern_bytes(pattern, pattern_length)?)
    })?
    .export("command_buffer.update_buffer", "0rrIrIIiI_v", |_, (cb, source, source_offset, target, target_offset, length, slot, _flags): UpdateArgs| {
        let _span = trace_scope!("hal.command_buffer.update_buffer");
        let cb = &deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0;
        let data = vm_bytes(&source, source_offset, length)?;
        let target = binding(&target, slot, target_offset, length)?;
        cb.lock().update(&data, target)
    })?
    .export("device.queue.barrier", "0rIrrI_v", |_, (device, _affinity, wait, signal, _flags): (Option<Ref>, i64, Option<Ref>, Option<Ref>, i64)| {
        let _span = trace_scope!("hal.device.queue.barrier");
        let device = device_arg(&device)?;
        device.queue_execute(fence_or_empty(&wait)?, fence_or_empty(&signal)?, None, &[])
    })?
    .export("device.queue.dealloca", "0rIrrrI_v", |_, (device, _affinity, wait, signal, buffer, _flags): (Option<Ref>, i64, Option<Ref>, Option<Ref>, Option<Ref>, i64)| {
        let _span = trace_scope!("hal.device.queue.dealloca");
        let device = device_arg(&device)?;
        let buffer = &deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?.0;
        device.queue_dealloca(fence_or_empty(&wait)?, fence_or_empty(&signal)?, buffer)
    })?
    .export("device.queue.execute", "0rIrrrI_v", |_, (device, _affinity, wait, signal, cb, _flags): (Option<Ref>, i64, Option<Ref>, Option<Ref>, Option<Ref>, i64)| {
        let _span = trace_scope!("hal.device.queue.execute");
        let device = device_arg(&device)?;
        let cb = &deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0;
        let cb = cb.lock();
        device.queue_execute(fence_or_empty(&wait)?, fence_or_empty(&signal)?, Some(&cb), &[])
    })?
    .export("device.queue.fill", "0rIrrrIIIiI_v", |_, (device, _affinity, wait, signal, target, offset, length, pattern, pattern_length, _flags): QueueFillArgs| {
        let _span = trace_scope!("hal.device.queue.fill");
        let device = device_arg(&device)?;
        let target = deref::<HalBuffer>(&target, buffer_type(), "target buffer")?.0.clone();
        let pattern = pattern_bytes(pattern, pattern_length)?;
        let offset = size_arg(offset, "offset")?;
        queue_transfer(device, &wait, &signal, |cb| {
            cb.fill(BindingRef::Direct { buffer: target, offset, length: length as u64 }, &pattern)
        })
    })?
    .export("device.queue.copy", "0rIrrrIrIII_v", |_, (device, _affinity, wait, signal, source, source_offset, target, target_offset, length, _flags): QueueCopyArgs| {
        let _span = trace_scope!("hal.device.queue.copy");
        let device = device_arg(&device)?;
        let source = deref::<HalBuffer>(&source, buffer_type(), "source buffer")?.0.clone();
        let target = deref::<HalBuffer>(&target, buffer_type(), "target buffer")?.0.clone();
        let (source_offset, target_offset, length) = (size_arg(source_offset, "offset")?, size_arg(target_offset, "offset")?, size_arg(length, "length")?);
        queue_transfer(device, &wait, &signal, |cb| {
            cb.copy(
                BindingRef::Direct { buffer: source, offset: source_offset, length },
                BindingRef::Direct { buffer: target, offset: target_offset, length },
            )
        })
    })?
    .export("device.queue.update", "0rIrrrIrIII_v", |_, (device, _affinity, wait, signal, source, source_offset, target, target_offset, length, _flags): QueueCopyArgs| {
        let _span = trace_scope!("hal.device.queue.update");
        let device = device_arg(&device)?;
        let data = vm_bytes(&source, source_offset, length)?;
        let target = deref::<HalBuffer>(&target, buffer_type(), "target buffer")?.0.clone();
        let target_offset = size_arg(target_offset, "offset")?;
        queue_transfer(device, &wait, &signal, |cb| {
            cb.update(&data, BindingRef::Direct { buffer: target, offset: target_offset, length: data.len() as u64 })
        })
    })?
    .export("ex.file.from_memory", "0rIirIIi_r", |_, (device, _affinity, access, buffer, offset, length, _flags): (Option<Ref>, i64, i32, Option<Ref>, i64, i64, i32)| {
        device_arg(&device)?;
        let source: &VmBuffer = deref(&buffer, iree_vm::buffer::buffer_type(), "file source buffer")?;
        let (offset, length) = (size_arg(offset, "offset")? as usize, size_arg(length, "length")? as usize);
        if offset.checked_add(length).is_none_or(|end| end > source.len()) {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!("file range [{offset}, +{length}) out of bounds of the {}-byte source buffer", source.len()),
            ));
        }
        let source = buffer.expect("checked non-null above");
        Ok(Ref::new(HalFile(Arc::new(MemoryFile { source, offset, length, access: access as u32 }))))
    })?
    .export("device.queue.read", "0rIrrrIrIII_v", |_, (device, _affinity, wait, signal, file, file_offset, target, target_offset, length, _flags): QueueCopyArgs| {
        let _span = trace_scope!("hal.device.queue.read");
        let device = device_arg(&device)?;
        let file = deref::<HalFile>(&file, file_type(), "source file")?.0.clone();
        if !MemoryAccess(file.access as u16).contains(MemoryAccess::READ) {
            return Err(Status::new(StatusCode::PermissionDenied, "file was not opened for reading"));
        }
        let target = deref::<HalBuffer>(&target, buffer_type(), "target buffer")?.0.clone();
        let (target_offset, length) = (size_arg(target_offset, "offset")?, size_arg(length, "length")?);
        file.window(file_offset, length)?;
        // Read when the operation runs (after the wait fence), like the
        // twin `queue.write` below, so earlier queued writes are seen.
        let transfer = QueueTransfer::Read { file, file_offset: file_offset as u64, target, target_offset, length };
        device.queue_transfers(fence_or_empty(&wait)?, fence_or_empty(&signal)?, vec![transfer])
    })?
    .export("device.queue.write", "0rIrrrIrIII_v", |_, (device, _affinity, wait, signal, source, source_offset, file, file_offset, length, _flags): QueueCopyArgs| {
        let _span = trace_scope!("hal.device.queue.write");
        let device = device_arg(&device)?;
        let source = deref::<HalBuffer>(&source, buffer_type(), "source buffer")?.0.clone();
        let file = deref::<HalFile>(&file, file_type(), "target file")?.0.clone();
        if !MemoryAccess(file.access as u16).contains(MemoryAccess::WRITE) {
            return Err(Status::new(StatusCode::PermissionDenied, "file was not opened for writing"));
        }
        let (source_offset, length) = (size_arg(source_offset, "offset")?, size_arg(length, "length")?);
        file.window(file_offset, length)?;
        let transfer = QueueTransfer::Write { source, source_offset, file, file_offset: file_offset as u64, length };
        device.queue_transfers(fence_or_empty(&wait)?, fence_or_empty(&signal)?, vec![transfer])
    })?
    .export("device.queue.flush", "0rI_v", |_, (device, _affinity): (Option<Ref>, i64)| device_arg(&device).map(|_| ()))?
    .export("fence.join", "0ICrD_r", |state: &HalModuleState, (_flags, fences): (i64, Variadic<(Option<Ref>,)>)| {
        let fences = fences.0.iter().filter(|(f,)| f.is_some()).map(|(f,)| Ok(&deref::<HalFence>(f, fence_type(), "fence")?.0)).collect::<Result<SmallVec<[&Fence; 4]>>>()?;
        // Joining nothing gives a null fence, as upstream's join does.
        if fences.is_empty() {
            return Ok(None);
        }
        Ok(Some(state.fences.lock().fence(|joined, _| joined.insert_all(fences))))
    })?
    .export("fence.fail", "0ri_v", |_, (fence, code): (Option<Ref>, i32)| {
        let fence = &deref::<HalFence>(&fence, fence_type(), "fence")?.0;
        fence.fail(Status::from_code(StatusCode::from_raw(code as u32)));
        Ok(())
    })
}

fn implemented(b: Builder) -> Result<Builder> {
    let b = more(b)?;
    let b = channel_exports(b)?;
    let b = buffer_view_exports(b, |state: &HalModuleState| state.debug_sink.as_ref())?;
    b.export("buffer.assert", "0rrrIii_v", |_, (buffer, message, allocator, min_len, memory_types, usage): (Option<Ref>, Option<Ref>, Option<Ref>, i64, i32, i32)| {
        let buffer = &deref::<HalBuffer>(&buffer, buffer_type(), "buffer")?.0;
        let message = message_arg(&message, "message")?;
        deref::<HalAllocator>(&allocator, allocator_type(), "allocator")?;
        let minimum = size_arg(min_len, "minimum length")?;
        if buffer.byte_length() < minimum {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("{message} buffer byte length {} less than expected minimum {minimum}", buffer.byte_length()),
            ));
        }
        validate_memory_type(buffer.memory_type(), MemoryType(memory_types as u32))
            .map_err(|e| Status::new(e.code(), format!("{message} {}", e.message())))?;
        validate_usage(buffer.allowed_usage(), BufferUsage(usage as u32))
            .map_err(|e| Status::new(e.code(), format!("{message} {}", e.message())))?;
        Ok(())
    })?
    .export("command_buffer.create", "0riiIi_r", |_, (device, modes, categories, _affinity, capacity): (Option<Ref>, i32, i32, i64, i32)| {
        let _span = trace_scope!("hal.command_buffer.create");
        let device = device_arg(&device)?;
        let mut cb = device
            .create_command_buffer(capacity as u32)
            .with_categories(CommandCategory(categories as u32));
        if device.defers_dispatch_checks(modes & COMMAND_BUFFER_MODE_ONE_SHOT != 0) {
            cb = cb.with_dispatch_checks_at_execution();
        }
        Ok(Ref::new(HalCommandBuffer(Mutex::new(cb))))
    })?
    .export("command_buffer.finalize", "0r_v", |_, (cb,): (Option<Ref>,)| {
        let _span = trace_scope!("hal.command_buffer.finalize");
        deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0.lock().finalize()
    })?
    .export("command_buffer.execution_barrier", "0riiI_v", |_, (cb, _source, _target, _flags): (Option<Ref>, i32, i32, i64)| {
        let _span = trace_scope!("hal.command_buffer.execution_barrier");
        deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0.lock().barrier()
    })?
    .export("command_buffer.dispatch", "0rrIiiiICiDCiirIID_v", |_, (cb, executable, function, x, y, z, flags, constants, bindings): DispatchArgs| {
        let _span = trace_scope!("hal.command_buffer.dispatch", function, x, y, z);
        let cb = &deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0;
        // The flags asking for indirect workgroup counts (dynamic, static)
        // make upstream read a count buffer that a direct dispatch has not.
        if flags & 0b11 != 0 {
            return Err(Status::new(
                StatusCode::OutOfRange,
                "workgroup count buffer does not have the capacity to store the required 3 uint32_t values (length=0, min_length=12)",
            ));
        }
        let executable = deref::<HalExecutable>(&executable, executable_type(), "executable")?.0.clone();
        let ordinal = usize::try_from(function).map_err(|_| Status::new(StatusCode::OutOfRange, format!("invalid function id {function}")))?;
        let constants: Vec<u32> = constants.0.iter().map(|(c,)| *c as u32).collect();
        let bindings = bindings.0.into_iter().map(|(_, slot, buffer, offset, length)| {
            let (offset, length) = (size_arg(offset, "binding offset")?, length as u64);
            Ok(match buffer {
                Some(_) => BindingRef::Direct { buffer: deref::<HalBuffer>(&buffer, buffer_type(), "binding")?.0.clone(), offset, length },
                None => BindingRef::Slot { slot: slot as u32, offset, length },
            })
        }).collect::<Result<Vec<_>>>()?;
        cb.lock().dispatch(executable, ordinal, [x as u32, y as u32, z as u32], &constants, bindings)
    })?
    .export("command_buffer.dispatch.indirect", "0rrIirIICiDCiirIID_v", |_, (cb, executable, function, params_slot, params_buffer, params_offset, _flags, constants, bindings): DispatchIndirectArgs| {
        let _span = trace_scope!("hal.command_buffer.dispatch.indirect");
        let cb = &deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0;
        let executable = deref::<HalExecutable>(&executable, executable_type(), "executable")?.0.clone();
        let ordinal = usize::try_from(function).map_err(|_| Status::new(StatusCode::OutOfRange, format!("invalid function id {function}")))?;
        let params = binding(&params_buffer, params_slot, params_offset, 12)?;
        let constants: Vec<u32> = constants.0.iter().map(|(c,)| *c as u32).collect();
        let bindings = bindings.0.into_iter().map(|(_, slot, buffer, offset, length)| binding(&buffer, slot, offset, length)).collect::<Result<Vec<_>>>()?;
        cb.lock().dispatch_indirect(executable, ordinal, params, &constants, bindings)
    })?
    .export("allocator.select", "0iiICrID_rI", |_, (memory_types, usage, _flags, candidates): (i32, i32, i64, Variadic<(Option<Ref>, i64)>)| {
        // The first candidate device whose allocator can allocate buffers of
        // these parameters serves them; the device and its affinity return.
        for (device_ref, affinity) in &candidates.0 {
            let device = device_arg(device_ref)?;
            let mut params = BufferParams { memory_type: MemoryType(memory_types as u32), usage: BufferUsage(usage as u32), ..Default::default() };
            if device.allocator().query_buffer_compatibility(&mut params, 0).contains(BufferCompatibility::ALLOCATABLE) {
                return Ok((device_ref.clone(), *affinity));
            }
        }
        Err(Status::new(StatusCode::NotFound, "no devices found that support the requested buffer parameters"))
    })?
    .export("allocator.import", "0riIiirII_r", |_, (allocator, try_import, _affinity, memory_types, usage, source, offset, length): (Option<Ref>, i32, i64, i32, i32, Option<Ref>, i64, i64)| {
        let allocator = &deref::<HalAllocator>(&allocator, allocator_type(), "allocator")?.0;
        let source: &VmBuffer = deref(&source, iree_vm::buffer::buffer_type(), "source buffer")?;
        let (offset, length) = (size_arg(offset, "offset")?, size_arg(length, "length")?);
        if offset.checked_add(length).is_none_or(|end| end > source.len() as u64) {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!("import range [{offset}, +{length}) out of bounds of the {}-byte source buffer", source.len()),
            ));
        }
        // Module constants (rodata) are lent to the device without a copy.
        // A buffer that dispatches or transfers may write (the compiler asks
        // for that usage even for constants, and some programs do write them
        // in place) gets a copy-on-write window of the module when its image
        // can make one, shared by every context of the module as upstream's
        // contexts share their module's memory; a read-only window serves
        // buffers nobody writes. Other VM memory is mutable by the guest and
        // cannot be aliased; neither can memory an allocator cannot import
        // (device memory, or rodata not aligned for buffers). A `try` import
        // reports that with null, and the compiled program then allocates
        // and copies.
        let usage = BufferUsage(usage as u32);
        let imported = source.shared_window().and_then(|(bytes, window)| {
            let start = window.start + offset as usize;
            let range = start..start + length as usize;
            let (memory, access) = if let Some(window) = bytes.writable_window(range.clone()) {
                let (ptr, len, owner) = window.into_parts();
                // SAFETY: `WritableWindow` guarantees the bytes (and the
                // words holding them) are writable, kept alive by `owner`,
                // and reached only through buffers (word by word).
                let memory = unsafe { ExternalHostMemory::new(ptr.as_ptr(), len, owner) };
                (memory, MemoryAccess::ALL)
            } else if usage.intersects(WRITING_USAGE) {
                return None;
            } else {
                let view: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(ImageBytes(bytes.clone()));
                (ExternalHostMemory::from_shared(view, range), MemoryAccess::READ)
            };
            let params = BufferParams {
                memory_type: MemoryType(memory_types as u32),
                usage,
                access,
                ..Default::default()
            };
            Some(memory.and_then(|memory| allocator.import_host_memory(params, memory)))
        });
        match imported {
            Some(Ok(buffer)) => Ok(Some(Ref::new(HalBuffer(buffer)))),
            _ if try_import != 0 => Ok(None),
            Some(Err(status)) => Err(status),
            None => Err(Status::new(StatusCode::Unavailable, "only read-only module constants can be imported; the buffer must be allocated and copied")),
        }
    })?
    .export("device.allocator", "0r_r", |state: &HalModuleState, (device,): (Option<Ref>,)| {
        let device_object = device_arg(&device)?;
        let allocator = || Ref::new(HalAllocator(device_object.allocator()));
        let known = state.devices.iter().position(|d| device.as_ref().is_some_and(|r| Ref::ptr_eq(d, r)));
        Ok(match known {
            Some(index) => state.allocators[index].get_or_init(allocator).clone(),
            None => allocator(),
        })
    })?
    .export("device.query.i64", "0rrr_iI", |_, (device, category, key): (Option<Ref>, Option<Ref>, Option<Ref>)| {
        let device = device_arg(&device)?;
        let (category, key) = (string_arg(&category, "category")?, string_arg(&key, "key")?);
        Ok(match device.query_i64(&category, &key) {
            Ok(value) => (1, value),
            Err(_) => (0, 0),
        })
    })?
    .export("device.queue.alloca", "0rIrrIiiII_r", |_, (device, _affinity, wait, signal, pool, memory_types, usage, length, _flags): QueueAllocaArgs| {
        let _span = trace_scope!("hal.device.queue.alloca", length);
        let device = device_arg(&device)?;
        if pool != 0 {
            return Err(Status::new(StatusCode::Unimplemented, "VM queue allocation pools are not supported"));
        }
        let params = BufferParams { memory_type: MemoryType(memory_types as u32), usage: BufferUsage(usage as u32), ..Default::default() };
        let buffer = device.queue_alloca(fence_or_empty(&wait)?, fence_or_empty(&signal)?, params, size_arg(length, "allocation size")?)?;
        Ok(Ref::new(HalBuffer(buffer)))
    })?
    .export("device.queue.execute.indirect", "0rIrrrICrIID_v", |_, (device, _affinity, wait, signal, cb, _flags, table): ExecuteIndirectArgs| {
        let _span = trace_scope!("hal.device.queue.execute.indirect");
        let device = device_arg(&device)?;
        let cb = &deref::<HalCommandBuffer>(&cb, command_buffer_type(), "command buffer")?.0;
        let table = table.0.into_iter().enumerate().map(|(i, (buffer, offset, length))| {
            let buffer = deref::<HalBuffer>(&buffer, buffer_type(), format_args!("binding table slot {i}"))?.0.clone();
            let offset = size_arg(offset, "binding offset")?;
            let length = iree_hal::buffer::calculate_range(buffer.byte_length(), offset, length as u64)?;
            Ok(DispatchBinding { buffer, offset, length })
        }).collect::<Result<SmallVec<[_; 8]>>>()?;
        let cb = cb.lock();
        device.queue_execute(fence_or_empty(&wait)?, fence_or_empty(&signal)?, Some(&cb), &table)
    })?
    .export("devices.count", "0v_i", |state: &HalModuleState, ()| Ok(state.devices.len() as i32))?
    .export("devices.get", "0i_r", |state: &HalModuleState, (index,): (i32,)| {
        Ok(state.devices.get(index as u32 as usize).cloned())
    })?
    .export("executable.create", "0rIrrr_r", |_, (device, _affinity, format, data, constants): (Option<Ref>, i64, Option<Ref>, Option<Ref>, Option<Ref>)| {
        let _span = tracing::debug_span!("hal.executable.create").entered();
        let device = device_arg(&device)?;
        let format = string_arg(&format, "executable format")?;
        let data: &VmBuffer = deref(&data, iree_vm::buffer::buffer_type(), "executable data")?;
        let constants = executable_constants_arg(&constants)?;
        let executable = data.with_bytes(|bytes| device.create_executable(&format, bytes, &constants))?;
        Ok(Ref::new(HalExecutable(executable)))
    })?
    .export("executable.lookup.function", "0rr_I", |_, (executable, name): (Option<Ref>, Option<Ref>)| {
        lookup_function(&executable, &name)
    })?
    .export("fence.create", "0rI_r", |state: &HalModuleState, (device, _flags): (Option<Ref>, i64)| {
        device_arg(&device)?;
        Ok(state.fences.lock().fence(|fence, semaphores| fence.insert(semaphores.take(), 1)))
    })?
    .export("fence.query", "0r_i", |_, (fence,): (Option<Ref>,)| {
        let fence = &deref::<HalFence>(&fence, fence_type(), "fence")?.0;
        Ok(match fence.query() {
            Ok(true) => 0,
            Ok(false) => StatusCode::Deferred.raw() as i32,
            Err(e) => e.code().raw() as i32,
        })
    })?
    .export("fence.signal", "0r_v", |_, (fence,): (Option<Ref>,)| {
        deref::<HalFence>(&fence, fence_type(), "fence")?.0.signal()
    })?
    .export("fence.await", "0iICrD_i", |_, (timeout_millis, _flags, fences): (i32, i64, Variadic<(Option<Ref>,)>)| {
        let _span = trace_scope!("hal.fence.await", timeout_millis, fences = fences.0.len());
        let deadline = if timeout_millis as u32 == u32::MAX {
            None
        } else {
            Some(std::time::Instant::now() + std::time::Duration::from_millis(u64::from(timeout_millis as u32)))
        };
        for (fence,) in &fences.0 {
            if fence.is_none() {
                continue;
            }
            let fence = &deref::<HalFence>(fence, fence_type(), "fence")?.0;
            match fence.wait(deadline) {
                Ok(()) => {}
                Err(e) if e.code() == StatusCode::DeadlineExceeded => return Ok(StatusCode::DeadlineExceeded.raw() as i32),
                Err(e) => return Err(e),
            }
        }
        Ok(0)
    })
}
