//! Executables and command buffers.
//!
//! An [`Executable`] is what a driver loaded from an executable format
//! (`embedded-elf-x86_64`, ...); the HAL only asks it for its exports and to
//! run one over a workgroup grid. A [`CommandBuffer`] records dispatches and
//! transfers, validating each argument as it is recorded, and local devices
//! execute it in order on the calling thread ([`CommandBuffer::execute_inline`]).
//! Bindings are either direct buffer ranges or slots of a binding table
//! supplied at execution (`queue.execute.indirect`).

use std::any::Any;
use std::sync::{Arc, OnceLock};

use crate::channel::{run_collective, Channel, Collective};
use crate::event::Event;
use iree_base::{Result, ResultExt, Status, StatusCode};

use crate::allocator::{validate_queue_compatibility, Allocator};
use crate::buffer::{calculate_range, validate_usage, Buffer, BufferUsage};

/// Limits from the executable library ABI.
pub const MAX_CONSTANT_COUNT: usize = 64;
/// Maximum bindings per dispatch.
pub const MAX_BINDING_COUNT: usize = 64;

/// A buffer range handed to a dispatch.
#[derive(Clone, Debug)]
pub struct DispatchBinding {
    /// The buffer.
    pub buffer: Buffer,
    /// Offset in bytes.
    pub offset: u64,
    /// Length in bytes (already resolved; never [`crate::WHOLE_BUFFER`]).
    pub length: u64,
}

impl DispatchBinding {
    /// This binding, borrowed.
    pub fn as_binding(&self) -> BufferBinding<'_> {
        BufferBinding {
            buffer: &self.buffer,
            offset: self.offset,
            length: self.length,
        }
    }
}

/// A byte range of a buffer, borrowed from a recorded command or a binding
/// table: a binding as resolved for execution.
#[derive(Clone, Copy, Debug)]
pub struct BufferBinding<'a> {
    /// The buffer.
    pub buffer: &'a Buffer,
    /// Offset within the buffer.
    pub offset: u64,
    /// Length in bytes ([`crate::WHOLE_BUFFER`] for the rest of the buffer
    /// where the user passes it; resolved bindings have a concrete length).
    pub length: u64,
}

impl BufferBinding<'_> {
    /// An owned copy (the buffer reference is cloned).
    pub fn to_owned(&self) -> DispatchBinding {
        DispatchBinding {
            buffer: self.buffer.clone(),
            offset: self.offset,
            length: self.length,
        }
    }
}

/// What an export declares (`iree_hal_executable_function_info_t`): the
/// ABI a dispatch of it must match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FunctionInfo {
    /// Function flags (upstream's: 1 sequential, 2 dynamic workgroup size).
    pub flags: u64,
    /// The static (or minimum) workgroup size.
    pub workgroup_size: [u32; 3],
    /// 32-bit push constants it reads.
    pub constant_count: u16,
    /// Buffer bindings it reads.
    pub binding_count: u16,
    /// Reflected parameters.
    pub parameter_count: u16,
}

impl FunctionInfo {
    /// Checks a dispatch's constant and binding counts against what the
    /// export declares: INVALID_ARGUMENT with upstream's text otherwise.
    /// Kernels index the arrays they are handed by these counts, so every
    /// dispatch path makes this check (at record time for command buffers,
    /// as upstream's local drivers do).
    pub fn check_dispatch_counts(&self, constants: usize, bindings: usize) -> Result<()> {
        if constants != usize::from(self.constant_count) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "constant count mismatch, expected {} but was provided {constants}",
                    self.constant_count
                ),
            ));
        }
        if bindings != usize::from(self.binding_count) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "binding count mismatch, expected {} but was provided {bindings}",
                    self.binding_count
                ),
            ));
        }
        Ok(())
    }
}

/// Loaded device code.
pub trait Executable: Send + Sync {
    /// The number of exports.
    fn export_count(&self) -> usize;
    /// The name of export `ordinal`.
    fn export_name(&self, ordinal: usize) -> Option<&str>;
    /// Runs export `ordinal` over `workgroup_count` with `constants` and
    /// `bindings`.
    fn dispatch(
        &self,
        ordinal: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: &[BufferBinding<'_>],
    ) -> Result<()>;

    /// The concrete executable, for drivers that run their own executables
    /// from recorded command buffers (GPU kernels); `None` by default.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// What export `ordinal` declares, for drivers that know it; `None`
    /// by default.
    fn function_info(&self, ordinal: usize) -> Option<FunctionInfo> {
        let _ = ordinal;
        None
    }

    /// Finds an export by name (`hal.executable.lookup.function`).
    fn lookup_export(&self, name: &str) -> Option<usize> {
        (0..self.export_count()).find(|&i| self.export_name(i) == Some(name))
    }
}

/// A binding as recorded: a buffer range, or a slot of the binding table
/// supplied at execution.
#[derive(Clone, Debug)]
pub enum BindingRef {
    /// A buffer known at record time.
    Direct {
        /// The buffer.
        buffer: Buffer,
        /// Offset in bytes.
        offset: u64,
        /// Length in bytes, or [`crate::WHOLE_BUFFER`].
        length: u64,
    },
    /// Slot `slot` of the execution's binding table, at `offset`/`length`
    /// within that slot's range.
    Slot {
        /// Binding table slot.
        slot: u32,
        /// Offset in bytes within the slot's range.
        offset: u64,
        /// Length in bytes, or [`crate::WHOLE_BUFFER`].
        length: u64,
    },
}

/// Where a dispatch's workgroup count comes from.
#[derive(Clone)]
pub enum WorkgroupCount {
    /// Fixed at record time.
    Direct([u32; 3]),
    /// Three little-endian `u32`s read from a buffer at execution.
    Indirect(BindingRef),
}

impl WorkgroupCount {
    /// The count to dispatch: the direct one, or the three `u32`s read
    /// from the (resolved) indirect buffer now.
    #[inline]
    pub fn read(&self, binding_table: &[DispatchBinding]) -> Result<[u32; 3]> {
        match self {
            WorkgroupCount::Direct(count) => Ok(*count),
            WorkgroupCount::Indirect(params) => Self::read_indirect(params, binding_table),
        }
    }

    /// The three `u32`s at `params` (resolved through `binding_table`).
    #[inline(never)]
    fn read_indirect(params: &BindingRef, binding_table: &[DispatchBinding]) -> Result<[u32; 3]> {
        let params = resolve(params, binding_table)?;
        if params.length < 12 {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "indirect dispatch parameters need 12 bytes; the binding has {}",
                    params.length
                ),
            ));
        }
        let mut bytes = [0u8; 12];
        params.buffer.read(params.offset, &mut bytes)?;
        let word = |i: usize| {
            u32::from_le_bytes([
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ])
        };
        Ok([word(0), word(1), word(2)])
    }
}

/// One recorded command, as drivers that translate command buffers into
/// their own (GPU streams, graphs) see it through [`CommandBuffer::commands`].
#[derive(Clone)]
pub enum Command {
    /// Runs export `ordinal` of `executable` over a workgroup grid.
    Dispatch {
        /// The executable.
        executable: Arc<dyn Executable>,
        /// The export ordinal (checked against the executable).
        ordinal: usize,
        /// The grid size.
        workgroup_count: WorkgroupCount,
        /// 32-bit push constants.
        constants: Vec<u32>,
        /// Buffer bindings in binding order.
        bindings: Vec<BindingRef>,
    },
    /// Fills a range with a 1, 2 or 4 byte pattern.
    Fill {
        /// The range written.
        target: BindingRef,
        /// The pattern.
        pattern: Vec<u8>,
    },
    /// Writes bytes captured at record time.
    Update {
        /// The bytes.
        data: Vec<u8>,
        /// The range written.
        target: BindingRef,
    },
    /// Copies between ranges of equal length.
    Copy {
        /// The range read.
        source: BindingRef,
        /// The range written.
        target: BindingRef,
    },
    /// A collective operation over a channel: runs on its own, after the
    /// commands before it and before those after it.
    Collective {
        /// The channel.
        channel: Arc<dyn Channel>,
        /// The op, parameter and element count.
        collective: Collective,
        /// The range sent (absent where the op sends nothing).
        send: Option<BindingRef>,
        /// The range received into (absent where the op receives nothing).
        recv: Option<BindingRef>,
    },
    /// An execution barrier.
    Barrier,
    /// Signals an event.
    SignalEvent(Arc<Event>),
    /// Resets an event.
    ResetEvent(Arc<Event>),
    /// Waits for events.
    WaitEvents(Vec<Arc<Event>>),
}

impl Command {
    /// Runs a [`Command::Collective`], resolving its ranges through
    /// `binding_table`; other commands are an INTERNAL error.
    pub fn run_collective(&self, binding_table: &[DispatchBinding]) -> Result<()> {
        let Command::Collective {
            channel,
            collective,
            send,
            recv,
        } = self
        else {
            return Err(Status::new(
                StatusCode::Internal,
                "not a collective command",
            ));
        };
        let send = send
            .as_ref()
            .map(|b| resolve(b, binding_table))
            .transpose()?;
        let recv = recv
            .as_ref()
            .map(|b| resolve(b, binding_table))
            .transpose()?;
        run_collective(&**channel, collective, send, recv)
    }
}

crate::buffer::bitfield! {
    /// The kinds of commands a command buffer may record
    /// (`iree_hal_command_category_t`).
    CommandCategory(u32) {
        /// No command (what a barrier requires).
        NONE = 0,
        /// Fills, updates and copies.
        TRANSFER = 1 << 0,
        /// Dispatches, collectives and events.
        DISPATCH = 1 << 1,
        /// Both.
        ANY = (1 << 0) | (1 << 1),
    }
    names [ANY, TRANSFER, DISPATCH]
}

/// Recorded work for a queue (`iree_hal_command_buffer_t`).
#[derive(Clone)]
pub struct CommandBuffer {
    commands: Vec<Command>,
    binding_capacity: u32,
    /// What each binding table slot's commands require of its entry (by
    /// slot), checked at submission.
    slots: Vec<SlotRequirement>,
    /// The device's allocator, when known: direct bindings are checked
    /// against it as they are recorded.
    allocator: Option<Arc<dyn Allocator>>,
    /// The kinds of commands it may record.
    categories: CommandCategory,
    /// Whether dispatches are checked against their exports when recorded
    /// (else when executed).
    checks_dispatches_at_record: bool,
    finalized: bool,
    /// Unique per [`CommandBuffer::new`] (clones share it); 0 for a default one.
    identity: u64,
    /// What the driver that executes it derived once from the finalized
    /// commands ([`CommandBuffer::prepared`]); clones made after keep it.
    prepared: OnceLock<Arc<dyn Any + Send + Sync>>,
    /// Told when the command buffer is finalized.
    finalize_observer: Option<FinalizeObserver>,
}

/// What a command buffer's commands require of one binding table slot.
#[derive(Clone, Copy)]
struct SlotRequirement {
    /// The usages its commands make of it.
    usage: BufferUsage,
    /// The bytes of its range they reach: a shorter table entry fails at
    /// submission, before anything runs.
    extent: u64,
}

/// Told of a command buffer when it is finalized (a HAL replay capture
/// records it then, where the program built it).
pub type FinalizeObserver = Arc<dyn Fn(&CommandBuffer) + Send + Sync>;

impl Default for CommandBuffer {
    /// An empty command buffer with no binding table slots, allowing every
    /// command category, of identity 0.
    fn default() -> CommandBuffer {
        CommandBuffer {
            commands: Vec::new(),
            binding_capacity: 0,
            slots: Vec::new(),
            allocator: None,
            categories: CommandCategory::ANY,
            checks_dispatches_at_record: true,
            finalized: false,
            identity: 0,
            prepared: OnceLock::new(),
            finalize_observer: None,
        }
    }
}

/// The identity of the next command buffer.
static NEXT_IDENTITY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl CommandBuffer {
    /// An empty command buffer whose indirect bindings may use up to
    /// `binding_capacity` table slots.
    pub fn new(binding_capacity: u32) -> CommandBuffer {
        CommandBuffer {
            commands: Vec::new(),
            binding_capacity,
            slots: Vec::new(),
            allocator: None,
            categories: CommandCategory::ANY,
            checks_dispatches_at_record: true,
            finalized: false,
            identity: NEXT_IDENTITY.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            prepared: OnceLock::new(),
            finalize_observer: None,
        }
    }

    /// Calls `observer` when the command buffer is finalized.
    pub fn with_finalize_observer(mut self, observer: FinalizeObserver) -> CommandBuffer {
        self.finalize_observer = Some(observer);
        self
    }

    /// Allows only commands of `categories` (as created upstream with
    /// `command_categories`; [`CommandBuffer::new`] allows any): a command
    /// of another category fails with FAILED_PRECONDITION.
    pub fn with_categories(mut self, categories: CommandCategory) -> CommandBuffer {
        self.categories = categories;
        self
    }

    /// Leaves a dispatch's constant and binding counts to be checked when
    /// it executes instead of when it is recorded, as upstream's
    /// `local-sync` does for reusable command buffers (it records them
    /// deferred and checks each dispatch as it replays it): see
    /// [`crate::Device::defers_dispatch_checks`].
    pub fn with_dispatch_checks_at_execution(mut self) -> CommandBuffer {
        self.checks_dispatches_at_record = false;
        self
    }

    /// Records for the device whose allocator is `allocator`, as upstream's
    /// command buffers always are: a buffer bound directly must then be
    /// usable on that device's queue ([`validate_queue_compatibility`]).
    pub fn with_allocator(mut self, allocator: Arc<dyn Allocator>) -> CommandBuffer {
        self.allocator = Some(allocator);
        self
    }

    /// A number no other command buffer made by [`CommandBuffer::new`] in
    /// this process has (its clones share it): what tells a submission of
    /// the same recorded commands from a new command buffer.
    pub fn identity(&self) -> u64 {
        self.identity
    }

    /// The binding table slots indirect bindings may use.
    pub fn binding_capacity(&self) -> u32 {
        self.binding_capacity
    }

    /// The number of recorded commands.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// True once [`CommandBuffer::finalize`] ran.
    pub fn is_finalized(&self) -> bool {
        self.finalized
    }

    /// Checks that the command buffer still records and allows commands of
    /// the `required` categories (upstream's
    /// `iree_hal_command_buffer_validate_categories`).
    fn check_recording(&self, required: CommandCategory) -> Result<()> {
        if self.finalized {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "command buffer has been finalized",
            ));
        }
        if !self.categories.contains(required) {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                format!(
                    "operation requires categories {} but command buffer only supports {}",
                    required.format(),
                    self.categories.format()
                ),
            ));
        }
        Ok(())
    }

    /// Checks the binding table given at submission against what the
    /// recorded commands require of each slot, as upstream's
    /// `iree_hal_command_buffer_submission_validation`: every used slot
    /// provided, its buffer usable on the queue of the device whose
    /// allocator is `allocator` ([`validate_queue_compatibility`]) and
    /// allowing the commands' usage (else PERMISSION_DENIED, as for direct
    /// bindings at recording).
    pub fn validate_binding_table(
        &self,
        table: &[DispatchBinding],
        allocator: &dyn Allocator,
    ) -> Result<()> {
        for (slot, &SlotRequirement { usage, extent }) in self.slots.iter().enumerate() {
            if usage.0 == 0 {
                continue;
            }
            let Some(entry) = table.get(slot) else {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "binding table slot {slot} is used but the table has {} entries",
                        table.len()
                    ),
                ));
            };
            validate_queue_compatibility(allocator, &entry.buffer, usage)
                .and_then(|()| validate_usage(entry.buffer.allowed_usage(), usage))
                .annotate_with(|| format!("binding table slot {slot}"))?;
            if entry.length < extent {
                return Err(Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "binding table slot {slot} has {} bytes but its commands reach {extent}",
                        entry.length
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_binding(&mut self, binding: &BindingRef, usage: BufferUsage) -> Result<()> {
        match binding {
            BindingRef::Direct {
                buffer,
                offset,
                length,
            } => {
                if let Some(allocator) = &self.allocator {
                    validate_queue_compatibility(&**allocator, buffer, usage)?;
                }
                validate_usage(buffer.allowed_usage(), usage)?;
                calculate_range(buffer.byte_length(), *offset, *length).map(|_| ())
            }
            BindingRef::Slot { slot, .. } if *slot >= self.binding_capacity => Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "binding table slot {slot} out of range (capacity {})",
                    self.binding_capacity
                ),
            )),
            BindingRef::Slot {
                slot,
                offset,
                length,
            } => {
                let slot = *slot as usize;
                if self.slots.len() <= slot {
                    self.slots.resize(
                        slot + 1,
                        SlotRequirement {
                            usage: BufferUsage(0),
                            extent: 0,
                        },
                    );
                }
                // A whole-buffer length reaches to the entry's end: it needs
                // only the offset inside the entry.
                let reach = match *length {
                    crate::WHOLE_BUFFER => *offset,
                    length => offset.saturating_add(length),
                };
                let required = &mut self.slots[slot];
                required.usage = BufferUsage(required.usage.0 | usage.0);
                required.extent = required.extent.max(reach);
                Ok(())
            }
        }
    }

    /// Records a dispatch of export `ordinal` of `executable`.
    pub fn dispatch(
        &mut self,
        executable: Arc<dyn Executable>,
        ordinal: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: Vec<BindingRef>,
    ) -> Result<()> {
        self.record_dispatch(
            executable,
            ordinal,
            WorkgroupCount::Direct(workgroup_count),
            constants,
            bindings,
        )
    }

    /// Records a dispatch whose workgroup count is read, when the command
    /// executes, from 12 bytes (`x`, `y`, `z` as little-endian `u32`) at
    /// `workgroups`.
    pub fn dispatch_indirect(
        &mut self,
        executable: Arc<dyn Executable>,
        ordinal: usize,
        workgroups: BindingRef,
        constants: &[u32],
        bindings: Vec<BindingRef>,
    ) -> Result<()> {
        self.check_recording(CommandCategory::DISPATCH)?;
        let (BindingRef::Direct { length, .. } | BindingRef::Slot { length, .. }) = workgroups;
        if length < 12 {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "workgroup count buffer does not have the capacity to store the required 3 \
                     uint32_t values (length={length}, min_length=12)"
                ),
            ));
        }
        self.check_binding(&workgroups, BufferUsage::DISPATCH_INDIRECT_PARAMETERS)?;
        self.record_dispatch(
            executable,
            ordinal,
            WorkgroupCount::Indirect(workgroups),
            constants,
            bindings,
        )
    }

    fn record_dispatch(
        &mut self,
        executable: Arc<dyn Executable>,
        ordinal: usize,
        workgroup_count: WorkgroupCount,
        constants: &[u32],
        bindings: Vec<BindingRef>,
    ) -> Result<()> {
        self.check_recording(CommandCategory::DISPATCH)?;
        if ordinal >= executable.export_count() {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "export ordinal {ordinal} out of range ({} exports)",
                    executable.export_count()
                ),
            ));
        }
        if constants.len() > MAX_CONSTANT_COUNT || bindings.len() > MAX_BINDING_COUNT {
            return Err(Status::new(
                StatusCode::ResourceExhausted,
                format!(
                    "dispatch uses {} constants and {} bindings (limits 64 and 64)",
                    constants.len(),
                    bindings.len()
                ),
            ));
        }
        if self.checks_dispatches_at_record {
            if let Some(info) = executable.function_info(ordinal) {
                info.check_dispatch_counts(constants.len(), bindings.len())?;
            }
        }
        for binding in &bindings {
            self.check_binding(binding, BufferUsage::DISPATCH_STORAGE)?;
        }
        self.commands.push(Command::Dispatch {
            executable,
            ordinal,
            workgroup_count,
            constants: constants.to_vec(),
            bindings,
        });
        Ok(())
    }

    /// Records a fill of `target` with a 1, 2 or 4 byte pattern.
    pub fn fill(&mut self, target: BindingRef, pattern: &[u8]) -> Result<()> {
        self.check_recording(CommandCategory::TRANSFER)?;
        if !matches!(pattern.len(), 1 | 2 | 4) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "fill value length is not one of the supported values (pattern_length={})",
                    pattern.len()
                ),
            ));
        }
        let (BindingRef::Direct { offset, length, .. } | BindingRef::Slot { offset, length, .. }) =
            target;
        let pattern_length = pattern.len() as u64;
        if offset % pattern_length != 0 || length % pattern_length != 0 {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "binding offset and/or length do not match the required alignment of one or \
                     more command (offset={offset}, length={length}, pattern_length={pattern_length})"
                ),
            ));
        }
        self.check_binding(&target, BufferUsage::TRANSFER_TARGET)?;
        self.commands.push(Command::Fill {
            target,
            pattern: pattern.to_vec(),
        });
        Ok(())
    }

    /// Records an update of `target` with `data` (copied now).
    pub fn update(&mut self, data: &[u8], target: BindingRef) -> Result<()> {
        self.check_recording(CommandCategory::TRANSFER)?;
        self.check_binding(&target, BufferUsage::TRANSFER_TARGET)?;
        self.commands.push(Command::Update {
            data: data.to_vec(),
            target,
        });
        Ok(())
    }

    /// Records a copy from `source` to `target` (equal lengths).
    pub fn copy(&mut self, source: BindingRef, target: BindingRef) -> Result<()> {
        self.check_recording(CommandCategory::TRANSFER)?;
        self.check_binding(&source, BufferUsage::TRANSFER_SOURCE)?;
        self.check_binding(&target, BufferUsage::TRANSFER_TARGET)?;
        self.commands.push(Command::Copy { source, target });
        Ok(())
    }

    /// Records a collective over `channel`. Send and receive ranges are
    /// checked against their buffers now and against what the op uses on
    /// this rank when it runs.
    pub fn collective(
        &mut self,
        channel: Arc<dyn Channel>,
        collective: Collective,
        send: Option<BindingRef>,
        recv: Option<BindingRef>,
    ) -> Result<()> {
        self.check_recording(CommandCategory::DISPATCH)?;
        if let Some(send) = &send {
            self.check_binding(send, BufferUsage::DISPATCH_STORAGE_READ)?;
        }
        if let Some(recv) = &recv {
            self.check_binding(recv, BufferUsage::DISPATCH_STORAGE_WRITE)?;
        }
        self.commands.push(Command::Collective {
            channel,
            collective,
            send,
            recv,
        });
        Ok(())
    }

    /// Records signaling `event` once earlier commands complete.
    pub fn signal_event(&mut self, event: Arc<Event>) -> Result<()> {
        self.check_recording(CommandCategory::DISPATCH)?;
        self.commands.push(Command::SignalEvent(event));
        Ok(())
    }

    /// Records returning `event` to unsignaled.
    pub fn reset_event(&mut self, event: Arc<Event>) -> Result<()> {
        self.check_recording(CommandCategory::DISPATCH)?;
        self.commands.push(Command::ResetEvent(event));
        Ok(())
    }

    /// Records a wait for `events` before later commands run.
    pub fn wait_events(&mut self, events: Vec<Arc<Event>>) -> Result<()> {
        self.check_recording(CommandCategory::DISPATCH)?;
        self.commands.push(Command::WaitEvents(events));
        Ok(())
    }

    /// Records an execution barrier (inline execution is already ordered).
    pub fn barrier(&mut self) -> Result<()> {
        self.check_recording(CommandCategory::NONE)?;
        self.commands.push(Command::Barrier);
        Ok(())
    }

    /// The recorded commands, in order.
    pub fn commands(&self) -> &[Command] {
        &self.commands
    }

    /// What a driver derives once from this finalized command buffer to
    /// execute it again and again without redoing per-execution work
    /// (resolving its executables and direct bindings): `prepare`'s result,
    /// made at the first call and kept (by clones made later too) for every later
    /// one. `None` before [`CommandBuffer::finalize`] (the commands may
    /// still change) or when another type was prepared first (a command
    /// buffer executed by two kinds of driver), where the caller executes
    /// without it.
    pub fn prepared<T: Any + Send + Sync>(
        &self,
        prepare: impl FnOnce(&CommandBuffer) -> T,
    ) -> Option<&T> {
        if !self.finalized {
            return None;
        }
        self.prepared
            .get_or_init(|| Arc::new(prepare(self)))
            .downcast_ref::<T>()
    }

    /// Ends recording.
    pub fn finalize(&mut self) -> Result<()> {
        self.check_recording(CommandCategory::NONE)?;
        self.finalized = true;
        if let Some(observer) = &self.finalize_observer {
            observer(self);
        }
        Ok(())
    }

    /// Executes every command in order on the calling thread, resolving
    /// slot bindings through `binding_table`.
    pub fn execute_inline(&self, binding_table: &[DispatchBinding]) -> Result<()> {
        crate::buffer::without_host_access_observation(|| self.run_inline(binding_table))
    }

    fn run_inline(&self, binding_table: &[DispatchBinding]) -> Result<()> {
        if !self.finalized {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "command buffer must be finalized before execution",
            ));
        }
        for command in &self.commands {
            match command {
                Command::Dispatch {
                    executable,
                    ordinal,
                    workgroup_count,
                    constants,
                    bindings,
                } => {
                    let resolved = bindings
                        .iter()
                        .map(|b| resolve(b, binding_table))
                        .collect::<Result<Vec<_>>>()?;
                    let count = workgroup_count.read(binding_table)?;
                    executable.dispatch(*ordinal, count, constants, &resolved)?;
                }
                Command::Fill { target, pattern } => {
                    let t = resolve(target, binding_table)?;
                    t.buffer.fill(t.offset, t.length, pattern)?;
                }
                Command::Update { data, target } => {
                    let t = resolve(target, binding_table)?;
                    if data.len() as u64 > t.length {
                        return Err(Status::new(
                            StatusCode::OutOfRange,
                            format!(
                                "update of {} bytes exceeds the {} byte target range",
                                data.len(),
                                t.length
                            ),
                        ));
                    }
                    t.buffer.write(t.offset, data)?;
                }
                Command::Copy { source, target } => {
                    let (s, t) = (
                        resolve(source, binding_table)?,
                        resolve(target, binding_table)?,
                    );
                    if s.length != t.length {
                        return Err(Status::new(
                            StatusCode::InvalidArgument,
                            format!(
                                "copy source ({} bytes) and target ({} bytes) lengths differ",
                                s.length, t.length
                            ),
                        ));
                    }
                    t.buffer.copy_from(t.offset, s.buffer, s.offset, s.length)?;
                }
                Command::Collective { .. } => command.run_collective(binding_table)?,
                Command::Barrier => {}
                Command::SignalEvent(event) => event.signal(),
                Command::ResetEvent(event) => event.reset(),
                Command::WaitEvents(events) => {
                    for event in events {
                        event.check_signaled()?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Slot `slot` of `table` (`execute.indirect`'s binding table); OUT_OF_RANGE
/// when the table is shorter.
#[inline]
pub fn table_entry(table: &[DispatchBinding], slot: u32) -> Result<&DispatchBinding> {
    table.get(slot as usize).ok_or_else(|| {
        Status::new(
            StatusCode::OutOfRange,
            format!(
                "binding table slot {slot} not provided ({} entries)",
                table.len()
            ),
        )
    })
}

/// Resolves a recorded binding to a concrete buffer range, looking slots up
/// in `table` (`execute.indirect`'s binding table); borrows, never clones.
#[inline]
pub fn resolve<'a>(
    binding: &'a BindingRef,
    table: &'a [DispatchBinding],
) -> Result<BufferBinding<'a>> {
    match binding {
        BindingRef::Direct {
            buffer,
            offset,
            length,
        } => {
            let length = calculate_range(buffer.byte_length(), *offset, *length)?;
            Ok(BufferBinding {
                buffer,
                offset: *offset,
                length,
            })
        }
        BindingRef::Slot {
            slot,
            offset,
            length,
        } => resolve_slot(table, *slot, *offset, *length),
    }
}

/// The range `offset..offset + length` (or the rest) of binding-table
/// `slot`'s range, checked against it.
pub fn resolve_slot(
    table: &[DispatchBinding],
    slot: u32,
    offset: u64,
    length: u64,
) -> Result<BufferBinding<'_>> {
    let entry = table_entry(table, slot)?;
    let length = calculate_range(entry.length, offset, length)?;
    Ok(BufferBinding {
        buffer: &entry.buffer,
        offset: entry.offset + offset,
        length,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::allocator::{Allocator, BufferParams, HeapAllocator};
    use crate::buffer::{MemoryType, WHOLE_BUFFER};

    /// Adds binding 0 and 1 element-wise (u32) into binding 2, one workgroup
    /// per element.
    struct AddKernel;

    impl Executable for AddKernel {
        fn export_count(&self) -> usize {
            1
        }
        fn export_name(&self, ordinal: usize) -> Option<&str> {
            (ordinal == 0).then_some("add")
        }
        fn dispatch(
            &self,
            _: usize,
            count: [u32; 3],
            _: &[u32],
            b: &[BufferBinding<'_>],
        ) -> Result<()> {
            for i in 0..count[0] as u64 {
                let (mut x, mut y) = ([0u8; 4], [0u8; 4]);
                b[0].buffer.read(b[0].offset + 4 * i, &mut x)?;
                b[1].buffer.read(b[1].offset + 4 * i, &mut y)?;
                let sum = u32::from_le_bytes(x).wrapping_add(u32::from_le_bytes(y));
                b[2].buffer.write(b[2].offset + 4 * i, &sum.to_le_bytes())?;
            }
            Ok(())
        }
    }

    fn buffer(len: u64) -> Buffer {
        HeapAllocator::new()
            .allocate_buffer(
                BufferParams {
                    memory_type: MemoryType::DEVICE_LOCAL,
                    ..Default::default()
                },
                len,
            )
            .unwrap()
    }

    fn u32s(b: &Buffer) -> Vec<u32> {
        let mut bytes = vec![0u8; b.byte_length() as usize];
        b.read(0, &mut bytes).unwrap();
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// Issue #31: a binding table entry whose buffer lacks the usage its
    /// slot's commands need fails at submission with PERMISSION_DENIED (as
    /// upstream's submission validation), as a direct binding fails at
    /// recording; a missing entry is INVALID_ARGUMENT.
    /// Issue #46: a buffer the device's allocator does not let its queue
    /// use (host memory that is not device-visible) is PERMISSION_DENIED
    /// "... allocator compatibility mismatch ..." at submission through a
    /// binding table slot, and at recording when bound directly to a
    /// command buffer recorded for the device; the same message as
    /// upstream's (`testdata/vm-hal/queue_compatibility`).
    #[test]
    fn queue_compatibility_is_validated() {
        let heap = HeapAllocator::new();
        let host_only = heap
            .allocate_buffer(
                BufferParams {
                    memory_type: MemoryType::HOST_LOCAL,
                    usage: BufferUsage::TRANSFER,
                    ..Default::default()
                },
                16,
            )
            .unwrap();
        let message = "requested buffer usage is not supported for the buffer on this queue; \
                       buffer allows usage TRANSFER|MAPPING|MAPPING_PERSISTENT, operation requires \
                       TRANSFER_TARGET (allocator compatibility mismatch: allowed compatibility \
                       ALLOCATABLE|IMPORTABLE|EXPORTABLE, requires QUEUE_TRANSFER)";
        let mut cb = CommandBuffer::new(1);
        let slot = BindingRef::Slot {
            slot: 0,
            offset: 0,
            length: 16,
        };
        cb.fill(slot, &[42]).unwrap();
        cb.finalize().unwrap();
        let table = [DispatchBinding {
            buffer: host_only.clone(),
            offset: 0,
            length: 16,
        }];
        let err = cb.validate_binding_table(&table, &*heap).unwrap_err();
        assert_eq!(err.code(), StatusCode::PermissionDenied);
        assert_eq!(err.message(), message);
        assert!(err.to_string().contains("binding table slot 0"), "{err}");
        let direct = BindingRef::Direct {
            buffer: host_only,
            offset: 0,
            length: 16,
        };
        // Without a device, nothing to check against.
        CommandBuffer::new(0).fill(direct.clone(), &[42]).unwrap();
        let err = CommandBuffer::new(0)
            .with_allocator(heap)
            .fill(direct, &[42])
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::PermissionDenied);
        assert_eq!(err.message(), message);
    }

    /// Issue #46: a command outside the command buffer's categories is
    /// FAILED_PRECONDITION, upstream's check and text (a mutated
    /// `hal.command_buffer.create` of category 80000000h then dispatched).
    #[test]
    fn commands_need_their_category() {
        let target = BindingRef::Direct {
            buffer: buffer(16),
            offset: 0,
            length: 16,
        };
        let mut transfer = CommandBuffer::new(0).with_categories(CommandCategory::TRANSFER);
        transfer.fill(target.clone(), &[1]).unwrap();
        let err = transfer
            .dispatch(Arc::new(AddKernel), 0, [1, 1, 1], &[], vec![])
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::FailedPrecondition);
        assert_eq!(
            err.message(),
            "operation requires categories DISPATCH but command buffer only supports TRANSFER"
        );
        let mut odd = CommandBuffer::new(0).with_categories(CommandCategory(0x8000_0000));
        let err = odd.fill(target, &[1]).unwrap_err();
        assert_eq!(
            err.message(),
            "operation requires categories TRANSFER but command buffer only supports 80000000h"
        );
        odd.barrier().unwrap();
        odd.finalize().unwrap();
        assert_eq!(CommandCategory::ANY.format(), "ANY");
    }

    /// Issue #46: a fill whose offset or length is not a multiple of its
    /// pattern, and an indirect dispatch whose count buffer range holds
    /// fewer than 12 bytes, fail when recorded (upstream's checks and text).
    #[test]
    fn fills_align_to_their_pattern_and_counts_fit() {
        let target = |offset, length| BindingRef::Direct {
            buffer: buffer(64),
            offset,
            length,
        };
        let mut cb = CommandBuffer::new(0);
        cb.fill(target(4, 8), &[1, 2, 3, 4]).unwrap();
        let err = cb.fill(target(0, 2147483647), &[1, 2, 3, 4]).unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument);
        assert_eq!(
            err.message(),
            "binding offset and/or length do not match the required alignment of one or more \
             command (offset=0, length=2147483647, pattern_length=4)"
        );
        let err = cb
            .dispatch_indirect(Arc::new(AddKernel), 0, target(0, 0), &[], vec![])
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::OutOfRange);
        assert_eq!(
            err.message(),
            "workgroup count buffer does not have the capacity to store the required 3 uint32_t \
             values (length=0, min_length=12)"
        );
    }

    #[test]
    fn binding_table_usage_is_validated_at_submission() {
        let transfer_only = HeapAllocator::new()
            .allocate_buffer(
                BufferParams {
                    memory_type: MemoryType::DEVICE_LOCAL,
                    usage: BufferUsage::TRANSFER,
                    ..Default::default()
                },
                16,
            )
            .unwrap();
        let slot = |slot| BindingRef::Slot {
            slot,
            offset: 0,
            length: 16,
        };
        let mut cb = CommandBuffer::new(3);
        let kernel: Arc<dyn Executable> = Arc::new(AddKernel);
        cb.dispatch(kernel, 0, [4, 1, 1], &[], vec![slot(0), slot(1), slot(2)])
            .unwrap();
        cb.finalize().unwrap();
        let entry = |buffer: &Buffer| DispatchBinding {
            buffer: buffer.clone(),
            offset: 0,
            length: 16,
        };
        let (a, b) = (buffer(16), buffer(16));
        let heap = HeapAllocator::new();
        cb.validate_binding_table(&[entry(&a), entry(&b), entry(&a)], &*heap)
            .unwrap();
        let err = cb
            .validate_binding_table(&[entry(&a), entry(&transfer_only), entry(&b)], &*heap)
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::PermissionDenied, "{err}");
        let err = cb.validate_binding_table(&[entry(&a)], &*heap).unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument, "{err}");
        // A slot's entry must hold the bytes its commands reach (16 here;
        // a whole-buffer binding at offset 8 reaches byte 8).
        let short = DispatchBinding {
            length: 15,
            ..entry(&a)
        };
        let err = cb
            .validate_binding_table(&[entry(&a), short, entry(&b)], &*heap)
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::OutOfRange, "{err}");
        let mut cb = CommandBuffer::new(1);
        cb.fill(
            BindingRef::Slot {
                slot: 0,
                offset: 8,
                length: WHOLE_BUFFER,
            },
            &[0],
        )
        .unwrap();
        cb.finalize().unwrap();
        let at = |length| DispatchBinding {
            length,
            ..entry(&a)
        };
        cb.validate_binding_table(&[at(8)], &*heap).unwrap();
        let err = cb.validate_binding_table(&[at(7)], &*heap).unwrap_err();
        assert_eq!(err.code(), StatusCode::OutOfRange, "{err}");
        // Direct bindings are checked when recorded.
        let mut cb = CommandBuffer::new(0);
        let err = cb
            .dispatch(
                Arc::new(AddKernel),
                0,
                [4, 1, 1],
                &[],
                vec![BindingRef::Direct {
                    buffer: transfer_only,
                    offset: 0,
                    length: 16,
                }],
            )
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::PermissionDenied, "{err}");
    }

    #[test]
    fn records_and_executes_in_order() {
        let (a, out) = (buffer(16), buffer(16));
        let mut cb = CommandBuffer::new(1);
        cb.update(
            &[1, 0, 0, 0, 2, 0, 0, 0],
            BindingRef::Direct {
                buffer: a.clone(),
                offset: 0,
                length: 8,
            },
        )
        .unwrap();
        cb.fill(
            BindingRef::Direct {
                buffer: a.clone(),
                offset: 8,
                length: 8,
            },
            &[7, 0, 0, 0],
        )
        .unwrap();
        cb.barrier().unwrap();
        let kernel: Arc<dyn Executable> = Arc::new(AddKernel);
        assert_eq!(kernel.lookup_export("add"), Some(0));
        cb.dispatch(
            kernel,
            0,
            [4, 1, 1],
            &[],
            vec![
                BindingRef::Direct {
                    buffer: a.clone(),
                    offset: 0,
                    length: WHOLE_BUFFER,
                },
                BindingRef::Slot {
                    slot: 0,
                    offset: 0,
                    length: 16,
                },
                BindingRef::Direct {
                    buffer: out.clone(),
                    offset: 0,
                    length: 16,
                },
            ],
        )
        .unwrap();
        cb.finalize().unwrap();
        assert_eq!(
            cb.fill(
                BindingRef::Direct {
                    buffer: a.clone(),
                    offset: 0,
                    length: 4
                },
                &[0]
            )
            .unwrap_err()
            .code(),
            StatusCode::FailedPrecondition
        );
        let table = [DispatchBinding {
            buffer: a.clone(),
            offset: 0,
            length: 16,
        }];
        cb.execute_inline(&table).unwrap();
        assert_eq!(u32s(&out), [2, 4, 14, 14]);
        assert_eq!(
            cb.execute_inline(&[]).unwrap_err().code(),
            StatusCode::OutOfRange,
            "missing table slot"
        );
    }

    #[test]
    fn indirect_dispatch_reads_the_count_at_execution() {
        let (a, out) = (buffer(16), buffer(16));
        let params = HeapAllocator::new()
            .allocate_buffer(
                BufferParams {
                    memory_type: MemoryType::DEVICE_LOCAL,
                    usage: BufferUsage::DEFAULT | BufferUsage::DISPATCH_INDIRECT_PARAMETERS,
                    ..Default::default()
                },
                12,
            )
            .unwrap();
        a.write(0, &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0])
            .unwrap();
        let whole = |b: &Buffer| BindingRef::Direct {
            buffer: b.clone(),
            offset: 0,
            length: WHOLE_BUFFER,
        };
        let mut cb = CommandBuffer::new(0);
        cb.dispatch_indirect(
            Arc::new(AddKernel),
            0,
            whole(&params),
            &[],
            vec![whole(&a), whole(&a), whole(&out)],
        )
        .unwrap();
        cb.finalize().unwrap();
        // Written after recording: only the first 3 elements are computed.
        params
            .write(0, &[3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])
            .unwrap();
        cb.execute_inline(&[]).unwrap();
        assert_eq!(u32s(&out), [2, 4, 6, 0]);

        let short = BindingRef::Direct {
            buffer: params.clone(),
            offset: 4,
            length: 8,
        };
        // A range shorter than the count fails when recorded (upstream's
        // check; issue #46).
        let mut cb = CommandBuffer::new(0);
        let err = cb
            .dispatch_indirect(
                Arc::new(AddKernel),
                0,
                short,
                &[],
                vec![whole(&a), whole(&a), whole(&out)],
            )
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::OutOfRange);
    }

    #[test]
    fn events_signal_reset_and_wait_in_order() {
        let event = Event::new();
        let mut cb = CommandBuffer::new(0);
        cb.signal_event(event.clone()).unwrap();
        cb.wait_events(vec![event.clone()]).unwrap();
        cb.reset_event(event.clone()).unwrap();
        cb.finalize().unwrap();
        cb.execute_inline(&[]).unwrap();
        assert!(!event.is_signaled());

        // A wait nothing signaled before it would never finish.
        let mut cb = CommandBuffer::new(0);
        cb.wait_events(vec![Event::new()]).unwrap();
        cb.finalize().unwrap();
        assert_eq!(
            cb.execute_inline(&[]).unwrap_err().code(),
            StatusCode::FailedPrecondition
        );
    }

    #[test]
    fn recording_validates_arguments() {
        let a = buffer(16);
        let mut cb = CommandBuffer::new(2);
        let kernel: Arc<dyn Executable> = Arc::new(AddKernel);
        assert_eq!(
            cb.dispatch(kernel.clone(), 1, [1, 1, 1], &[], vec![])
                .unwrap_err()
                .code(),
            StatusCode::OutOfRange
        );
        assert_eq!(
            cb.dispatch(kernel, 0, [1, 1, 1], &[0; 65], vec![])
                .unwrap_err()
                .code(),
            StatusCode::ResourceExhausted
        );
        assert_eq!(
            cb.fill(
                BindingRef::Direct {
                    buffer: a.clone(),
                    offset: 12,
                    length: 8
                },
                &[0]
            )
            .unwrap_err()
            .code(),
            StatusCode::OutOfRange
        );
        assert_eq!(
            cb.fill(
                BindingRef::Slot {
                    slot: 2,
                    offset: 0,
                    length: 4
                },
                &[0]
            )
            .unwrap_err()
            .code(),
            StatusCode::OutOfRange
        );
        assert_eq!(
            cb.fill(
                BindingRef::Direct {
                    buffer: a.clone(),
                    offset: 0,
                    length: 4
                },
                &[0; 3]
            )
            .unwrap_err()
            .code(),
            StatusCode::InvalidArgument
        );
        let b = buffer(8);
        cb.copy(
            BindingRef::Direct {
                buffer: a,
                offset: 0,
                length: 4,
            },
            BindingRef::Direct {
                buffer: b.clone(),
                offset: 0,
                length: 8,
            },
        )
        .unwrap();
        cb.finalize().unwrap();
        assert_eq!(
            cb.execute_inline(&[]).unwrap_err().code(),
            StatusCode::InvalidArgument
        );
        let unfinalized = CommandBuffer::new(0);
        assert_eq!(
            unfinalized.execute_inline(&[]).unwrap_err().code(),
            StatusCode::FailedPrecondition
        );
    }
}
