//! How the local devices run executables and command buffers.
//!
//! A command buffer runs region by region: the commands between two
//! execution barriers (or event commands) form a [`Region`], whose
//! dispatches, fills, copies and updates all run at once on the device's
//! workers, each cut into tiles that idle workers claim. Barriers and events
//! are therefore respected by construction: nothing of a region starts
//! before the previous region has finished.
//!
//! Transfers are device work here, like dispatches: they write through
//! device-access guards, not host mappings. Because they are Rust code, a
//! region runs them concurrently only when no other command of the region
//! touches their bytes; otherwise its commands run one at a time, in order.
//! The exception is a fill inside a dispatch's binding range: it runs with
//! the dispatch, writing through atomic stores (see `may_run_together`).
//! Dispatches overlapping each other are trusted, as upstream trusts them.
//!
//! A runner of one worker (`local-sync`) would run a region's commands one
//! after another anyway, so it skips the region machinery: it takes each
//! command as its own step, dispatches, fills and copies prepared once per
//! command buffer (see `Plan`; a prepared copy is a `memmove` between
//! device addresses, so overlapping ranges need no host mapping). A
//! region's bad transfer still fails before anything of the region runs
//! (its commands are checked first), and a short binding table entry fails
//! at submission.

use std::sync::{Arc, OnceLock};

use iree_base::{Result, Status, StatusCode};
use iree_hal::buffer::{calculate_range, validate_access};
use iree_hal::command_buffer::{
    resolve, resolve_slot, table_entry, BindingRef, Command, CommandBuffer, DispatchBinding,
    WorkgroupCount,
};
use iree_hal::profiling::{
    EventKind, EventName, ProfileExecutable, ProfileExport, ProfileRecorder, Track,
};
use iree_hal::{Buffer, BufferBinding, Executable, MemoryAccess};
use smallvec::SmallVec;

use crate::dispatch::{
    check_local_memory, DeviceBindings, FlushDenormals, PreparedGrid, RawRange, Region, Work,
    WorkerSlice, Workers,
};
use crate::executable::WorkgroupExecutable;
use crate::pool::WorkerPool;

/// Commands of a region that its per-execution arrays hold without a heap
/// allocation (models' regions hold a few dispatches and fills).
const REGION_INLINE: usize = 8;

/// What a local device runs its work with: its worker pool (none for
/// `local-sync`) and the workgroup-local memory each worker offers.
#[derive(Clone, Default)]
pub struct Runner {
    pool: Option<Arc<WorkerPool>>,
    /// Largest workgroup-local memory a dispatch may ask for (0: any).
    local_memory_limit: usize,
    /// The device's profiling sink: dispatches are timed only while it
    /// records them.
    profiler: Arc<ProfileRecorder>,
}

impl Runner {
    /// A runner on `pool` (or the calling thread alone) whose dispatches may
    /// use up to `local_memory_limit` bytes of local memory (0: any).
    pub fn new(pool: Option<Arc<WorkerPool>>, local_memory_limit: usize) -> Runner {
        Runner {
            pool,
            local_memory_limit,
            profiler: ProfileRecorder::new(),
        }
    }

    /// The profiling sink this runner's dispatches report to.
    pub fn profiler(&self) -> &Arc<ProfileRecorder> {
        &self.profiler
    }

    fn workers(&self) -> Workers<'_> {
        match &self.pool {
            Some(pool) => Workers::Pool(pool),
            None => Workers::Scoped(1),
        }
    }

    /// Runs `command_buffer`, resolving binding-table slots through `table`.
    pub fn execute(&self, command_buffer: &CommandBuffer, table: &[DispatchBinding]) -> Result<()> {
        if !command_buffer.is_finalized() {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "command buffer must be finalized before execution",
            ));
        }
        let commands = command_buffer.commands();
        // Created only when DEBUG logging is on: one level check otherwise.
        let _span = tracing::enabled!(tracing::Level::DEBUG).then(|| {
            tracing::debug_span!("hal.command_buffer.execute", commands = commands.len()).entered()
        });
        // What does not change from one execution to the next was worked
        // out when the command buffer first ran here (see `Plan`).
        let unshared;
        let plan = match command_buffer.prepared(Plan::new) {
            Some(plan) => plan,
            None => {
                unshared = Plan::new(command_buffer);
                &unshared
            }
        };
        // Device access to each allocation is taken once, by the first
        // region that touches it, and held until the execution ends.
        let mut bindings = DeviceBindings::default();
        // Kernels run with denormals flushed; setting the control register
        // once here makes each region's own (nested) setting nearly free.
        let _flush = FlushDenormals::enter();
        // Whether dispatches may skip the region machinery: not while
        // profiling or dispatch tracing watches (asked once per execution).
        let watched =
            self.profiler.records_dispatches() || tracing::enabled!(tracing::Level::TRACE);
        // One worker runs a region's commands one after another in any
        // case: it takes the plan's steps of one command each, its
        // dispatches prepared (no per-execution region planning).
        let plan = plan.steps(commands, !watched && self.workers().count() == 1);
        for step in &plan.steps {
            match step {
                Step::Lone(lone) if watched || (self.pool.is_some() && lone.total > 1) => {
                    let command = lone.command;
                    self.run_region(&commands[command..command + 1], table, &mut bindings)?
                }
                Step::Lone(lone) => self.run_lone(lone, plan, table, &mut bindings)?,
                Step::Transfer {
                    transfer,
                    checked_ahead,
                } => {
                    if !checked_ahead {
                        transfer.check(table)?;
                    }
                    transfer.run(plan, table, &mut bindings)?
                }
                Step::Region(range) => {
                    self.run_region(&commands[range.clone()], table, &mut bindings)?
                }
                Step::Check(steps) => {
                    for &step in steps.iter() {
                        match &plan.steps[step] {
                            Step::Transfer { transfer, .. } => transfer.check(table)?,
                            Step::Region(range) => {
                                for command in &commands[range.clone()] {
                                    Resolved::new(command, table)?;
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Step::Single(index) => match &commands[*index] {
                    // Collectives run on their own, in order: everything
                    // before them has finished, nothing after has started.
                    command @ Command::Collective { .. } => command.run_collective(table)?,
                    Command::SignalEvent(event) => event.signal(),
                    Command::ResetEvent(event) => event.reset(),
                    Command::WaitEvents(events) => {
                        for event in events {
                            event.check_signaled()?;
                        }
                    }
                    // Barriers make no step; other commands run in regions.
                    _ => {}
                },
            }
        }
        Ok(())
    }

    /// Runs a region of one dispatch as `plan` prepared it, on the calling
    /// thread alone (one worker, `local-sync`, or one workgroup, and neither
    /// profiling nor dispatch tracing watching), its direct bindings'
    /// addresses one load each.
    fn run_lone<'c>(
        &self,
        lone: &'c LoneDispatch,
        plan: &'c Steps,
        table: &'c [DispatchBinding],
        guards: &mut DeviceBindings<'c>,
    ) -> Result<()> {
        const INLINE: usize = 8;
        let n = lone.bindings.len();
        let mut inline_ptrs = [std::ptr::null_mut(); INLINE];
        let mut inline_lengths = [0usize; INLINE];
        let (mut spilled_ptrs, mut spilled_lengths) = (Vec::new(), Vec::new());
        let (ptrs, lengths): (&mut [*mut std::ffi::c_void], &mut [usize]) = if n <= INLINE {
            (&mut inline_ptrs[..n], &mut inline_lengths[..n])
        } else {
            spilled_ptrs.resize(n, std::ptr::null_mut());
            spilled_lengths.resize(n, 0);
            (&mut spilled_ptrs, &mut spilled_lengths)
        };
        for ((binding, ptr), length) in lone
            .bindings
            .iter()
            .zip(ptrs.iter_mut())
            .zip(lengths.iter_mut())
        {
            let (address, bytes) = binding.address(plan, table, guards)?;
            *ptr = address.cast();
            *length = bytes;
        }
        check_local_memory(lone.local_memory_size, self.local_memory_limit)?;
        let export = crate::library::export_at(lone.library.exports(), lone.ordinal)?;
        let grid = PreparedGrid::prepared(
            &*lone.library,
            lone.ordinal,
            export,
            &lone.constants,
            lone.count,
            lone.total,
            self.workers().count(),
        );
        // SAFETY: `LoneDispatch::new` checked the constant and binding
        // counts against this export; each pointer is its binding's range
        // (checked against its buffer when prepared, or just now for slots)
        // inside an allocation `guards` holds under device access until the
        // execution ends.
        unsafe { grid.run_prepared(ptrs, lengths) }
    }

    /// Runs commands that have no barrier between them, taking device
    /// access through `bindings`.
    fn run_region<'c>(
        &self,
        commands: &'c [Command],
        table: &'c [DispatchBinding],
        bindings: &mut DeviceBindings<'c>,
    ) -> Result<()> {
        // Everything is resolved and checked before anything runs, and
        // indirect workgroup counts are read before any guard is taken.
        if let [command] = commands {
            return self.run(
                &[Resolved::new(command, table)?],
                bindings,
                SharedFills::NONE,
            );
        }
        let resolved = commands
            .iter()
            .map(|command| Resolved::new(command, table))
            .collect::<Result<SmallVec<[_; REGION_INLINE]>>>()?;
        let Some(shared) = may_run_together(&resolved) else {
            return resolved.iter().try_for_each(|command| {
                self.run(std::slice::from_ref(command), bindings, SharedFills::NONE)
            });
        };
        self.run(&resolved, bindings, shared)
    }

    /// Runs `commands` as one region. A lone command may be one that never
    /// shares a region: an executable of another driver, which runs through
    /// its own `dispatch`, or a copy between overlapping ranges, which runs
    /// as one `memmove` through a host mapping (so `bindings` lets go of
    /// its guards first).
    fn run<'c>(
        &self,
        commands: &[Resolved<'c>],
        guards: &mut DeviceBindings<'c>,
        shared: SharedFills,
    ) -> Result<()> {
        match commands {
            [Resolved::Dispatch {
                executable,
                local: None,
                ordinal,
                count,
                constants,
                bindings,
            }] => return executable.dispatch(*ordinal, *count, constants, bindings),
            [Resolved::Copy { source, target }] if overlap(source, target) => {
                guards.release();
                // Device work: a capture's buffer observers are not told.
                return iree_hal::without_host_access_observation(|| {
                    target.buffer.copy_from(
                        target.offset,
                        source.buffer,
                        source.offset,
                        source.length,
                    )
                });
            }
            _ => {}
        }
        let workers = self.workers();
        guards.start_region();
        let mut items = SmallVec::<[_; REGION_INLINE]>::with_capacity(commands.len());
        for (index, command) in commands.iter().enumerate() {
            items.push(match command {
                Resolved::Dispatch {
                    local: Some(local),
                    ordinal,
                    count,
                    constants,
                    bindings,
                    ..
                } => Work::Grid(PreparedGrid::new(
                    &*local.inner,
                    *ordinal,
                    constants,
                    bindings,
                    *count,
                    workers.count(),
                    self.local_memory_limit,
                    guards,
                )?),
                Resolved::Dispatch { local: None, .. } => {
                    return Err(Status::new(
                        StatusCode::Internal,
                        "an executable of another driver was grouped with other commands",
                    ))
                }
                // One worker runs the region's tiles one after another: a
                // fill then never runs beside a kernel, and needs no atomic
                // stores (it becomes a `memset`).
                Resolved::Fill { target, pattern } => Work::Fill {
                    target: raw(guards, target)?,
                    pattern,
                    shared: shared.contains(index) && workers.count() > 1,
                },
                Resolved::Copy { source, target } => Work::Copy {
                    source: raw(guards, source)?,
                    target: raw(guards, target)?,
                },
                Resolved::Update { data, target } => Work::Update {
                    data,
                    target: raw(guards, target)?,
                },
            });
        }
        // A transfer alone that one worker runs (small, or `local-sync`)
        // needs no region: profiles and traces show dispatches only.
        if let [item] = &items[..] {
            if workers.count() == 1 || item.tile_count() <= 1 {
                if let Some(result) = item.run_transfer_alone() {
                    return result;
                }
            }
        }
        let region = Region::new(&items, guards)?;
        if self.profiler.records_dispatches() {
            return self.run_profiled(&region, workers, commands);
        }
        if tracing::enabled!(tracing::Level::TRACE) {
            for (_, executable, ordinal, count) in local_dispatches(commands) {
                trace_dispatch(executable, ordinal, count);
            }
        }
        region.run(workers)
    }

    /// Runs `region` (prepared from `commands`) timing its dispatches.
    #[cold]
    fn run_profiled(
        &self,
        region: &Region<'_, '_>,
        workers: Workers<'_>,
        commands: &[Resolved<'_>],
    ) -> Result<()> {
        let (result, slices) = region.run_profiled(workers);
        let dispatches: SmallVec<[_; 4]> = local_dispatches(commands).collect();
        self.record_dispatches(&dispatches, &slices);
        result
    }

    /// Hands the timed dispatches of a region to the profiler: one event
    /// per dispatch (from its first workgroup's start on any worker to its
    /// last one's end), and on multi-worker devices one per worker that ran
    /// part of it.
    fn record_dispatches(
        &self,
        dispatches: &[(usize, &LocalExecutable, usize, [u32; 3])],
        slices: &[WorkerSlice],
    ) {
        let per_worker = self.pool.is_some();
        let mut events = SmallVec::<[_; 8]>::new();
        for (lane, &(item, executable, ordinal, count)) in dispatches.iter().enumerate() {
            let name = executable.export_label(ordinal);
            let mut span: Option<(std::time::Instant, std::time::Instant)> = None;
            for slice in slices.iter().filter(|s| s.item == item) {
                span = Some(match span {
                    None => (slice.start, slice.end),
                    Some((start, end)) => (start.min(slice.start), end.max(slice.end)),
                });
                if per_worker {
                    events.push((
                        EventName::from(name.clone()),
                        EventKind::WorkerSlice {
                            executable: executable.label.clone(),
                            workgroups: slice.tiles,
                        },
                        Track::Worker(slice.worker),
                        slice.start,
                        slice.end,
                    ));
                }
            }
            // A dispatch of no workgroups ran nothing: no event.
            if let Some((start, end)) = span {
                events.push((
                    EventName::from(name),
                    EventKind::Dispatch {
                        executable: executable.label.clone(),
                        ordinal: u32::try_from(ordinal).unwrap_or(u32::MAX),
                        workgroup_count: count,
                    },
                    Track::Dispatches {
                        queue: 0,
                        lane: lane as u32,
                    },
                    start,
                    end,
                ));
            }
        }
        self.profiler.record(events);
    }

    /// Runs export `ordinal` of `executable` over `workgroup_count`.
    fn dispatch(
        &self,
        executable: &LocalExecutable,
        ordinal: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: &[BufferBinding<'_>],
    ) -> Result<()> {
        let workers = self.workers();
        let mut guards = DeviceBindings::default();
        let grid = PreparedGrid::new(
            &*executable.inner,
            ordinal,
            constants,
            bindings,
            workgroup_count,
            workers.count(),
            self.local_memory_limit,
            &mut guards,
        )?;
        let items = [Work::Grid(grid)];
        let region = Region::new(&items, &guards)?;
        if self.profiler.records_dispatches() {
            let (result, slices) = region.run_profiled(workers);
            self.record_dispatches(&[(0, executable, ordinal, workgroup_count)], &slices);
            return result;
        }
        if tracing::enabled!(tracing::Level::TRACE) {
            trace_dispatch(executable, ordinal, workgroup_count);
        }
        region.run(workers)
    }
}

/// The dispatches of this driver among a region's `commands`, each with its
/// index in the region: (index, executable, export ordinal, workgroup
/// count).
fn local_dispatches<'s, 'c>(
    commands: &'s [Resolved<'c>],
) -> impl Iterator<Item = (usize, &'c LocalExecutable, usize, [u32; 3])> + 's {
    commands
        .iter()
        .enumerate()
        .filter_map(|(index, command)| match command {
            Resolved::Dispatch {
                local: Some(local),
                ordinal,
                count,
                ..
            } => Some((index, *local, *ordinal, *count)),
            _ => None,
        })
}

/// The `IREE_LOG=trace` event of one dispatch (callers check
/// `tracing::enabled!` first, so a disabled log costs one branch).
fn trace_dispatch(executable: &LocalExecutable, ordinal: usize, count: [u32; 3]) {
    tracing::trace!(
        target: "iree_hal_local::dispatch",
        executable = &*executable.label,
        export = executable.inner.exports().get(ordinal).map_or("?", |e| e.name.as_str()),
        workgroup_count = ?count,
        "dispatch"
    );
}

/// What the runner works out once from a finalized command buffer
/// ([`CommandBuffer::prepared`]) and reuses on every execution: where its
/// regions start and end, and each dispatch that runs alone (every one on a
/// runner of one worker, `local-sync`; a region's only command on
/// `local-task`) already checked against its export (the checks
/// [`PreparedGrid::new`] makes), its executable as this driver loaded it,
/// its direct bindings resolved to an allocation number, an offset within
/// that allocation and a length, and its slot bindings to a slot, offset
/// and length (the slot's address is looked up once per execution, see
/// [`DeviceBindings::slot_base`]).
struct Plan {
    /// The steps of a runner of several workers: a region's commands run
    /// together.
    regions: OnceLock<Steps>,
    /// The steps of a runner of one worker, which runs a region's commands
    /// one after another anyway: each command its own step, every dispatch
    /// of this driver's that passes the checks prepared.
    in_order: OnceLock<Steps>,
}

/// The steps of a [`Plan`] for one kind of runner, each list worked out
/// at the first execution that takes it.
struct Steps {
    steps: Vec<Step>,
    /// The distinct allocations of the prepared dispatches' direct
    /// bindings, numbered by their index here
    /// ([`DeviceBindings::numbered_base`]).
    allocations: Vec<Buffer>,
}

/// One step of a [`Plan`].
enum Step {
    /// The region-ending command at this index (event, collective; a
    /// barrier makes no step).
    Single(usize),
    /// A region of these commands.
    Region(std::ops::Range<usize>),
    /// Checks the commands of these later steps of a region run in order
    /// (transfers), so that a bad one fails before anything of its region
    /// runs.
    Check(Box<[usize]>),
    /// A region of one prepared dispatch.
    Lone(Box<LoneDispatch>),
    /// A prepared fill or copy (runners of one worker). Boxed, as a lone
    /// dispatch is: an unboxed one made `Step` a niche-tagged enum whose
    /// variant took several compares to tell (+17 instructions a step of
    /// `dispatch_1_workgroup_sync`).
    Transfer {
        transfer: Box<LoneTransfer>,
        /// Whether a `Check` step before it in its region checks it (then
        /// it runs without checking again).
        checked_ahead: bool,
    },
}

/// A fill or copy prepared to run on its own. Direct ranges were checked
/// (access, alignment, lengths) when prepared; a binding-table slot's are
/// checked at each execution.
enum LoneTransfer {
    Fill {
        /// The pattern (1, 2, 4 or 8 bytes).
        pattern: Box<[u8]>,
        target: PlannedBinding,
    },
    Copy {
        source: PlannedBinding,
        target: PlannedBinding,
    },
}

/// A dispatch of a local executable prepared to run alone.
struct LoneDispatch {
    /// Its index among the command buffer's commands.
    command: usize,
    library: Arc<dyn WorkgroupExecutable>,
    ordinal: usize,
    constants: Box<[u32]>,
    count: [u32; 3],
    /// The workgroups (non-zero).
    total: u64,
    local_memory_size: usize,
    bindings: Box<[PlannedBinding]>,
}

/// Where a prepared command's binding is.
#[derive(Clone, Copy)]
enum PlannedBinding {
    /// `length` bytes at byte `offset` of allocation number `allocation` of
    /// the plan.
    Direct {
        allocation: usize,
        offset: usize,
        length: usize,
    },
    /// `length` bytes (or the rest) at `offset` within binding-table slot
    /// `slot`'s range.
    Slot { slot: u32, offset: u64, length: u64 },
}

impl PlannedBinding {
    /// The binding's device address and length in this execution, taking
    /// device access to its allocation through `guards` at the first use.
    #[inline(always)]
    fn address<'c>(
        self,
        plan: &'c Steps,
        table: &'c [DispatchBinding],
        guards: &mut DeviceBindings<'c>,
    ) -> Result<(*mut u8, usize)> {
        Ok(match self {
            PlannedBinding::Direct {
                allocation,
                offset,
                length,
            } => (
                guards
                    .numbered_base(allocation, &plan.allocations[allocation])?
                    .wrapping_add(offset),
                length,
            ),
            PlannedBinding::Slot {
                slot,
                offset,
                length,
            } => {
                let entry = table_entry(table, slot)?;
                let bytes = calculate_range(entry.length, offset, length)? as usize;
                // In bounds: the entry's range lies inside its buffer
                // (checked once per execution by `slot_base`), and
                // `offset..offset + length` inside the entry's range.
                let base = guards.slot_base(slot as usize, entry)?;
                (base.wrapping_add(offset as usize), bytes)
            }
        })
    }

    fn is_direct(&self) -> bool {
        matches!(self, PlannedBinding::Direct { .. })
    }

    /// The binding's length in this execution, with `access` to its buffer
    /// checked for a slot (a direct binding's was checked when prepared).
    fn checked_length(&self, table: &[DispatchBinding], access: MemoryAccess) -> Result<u64> {
        match *self {
            PlannedBinding::Direct { length, .. } => Ok(length as u64),
            PlannedBinding::Slot { .. } => {
                let binding = self.resolve_slot(table)?;
                validate_access(binding.buffer.allowed_access(), access)?;
                Ok(binding.length)
            }
        }
    }

    /// A slot binding's range through `table` (checked against the
    /// entry's range), without device access: for the checks a transfer
    /// makes before its region runs.
    fn resolve_slot<'c>(&self, table: &'c [DispatchBinding]) -> Result<BufferBinding<'c>> {
        let PlannedBinding::Slot {
            slot,
            offset,
            length,
        } = *self
        else {
            return Err(Status::new(
                StatusCode::Internal,
                "a direct binding has no table entry",
            ));
        };
        resolve_slot(table, slot, offset, length)
    }

    /// `binding` planned, numbering the allocation of a direct one in
    /// `allocations`; `None` for a direct range outside its buffer.
    fn new(binding: &BindingRef, allocations: &mut Vec<Buffer>) -> Option<PlannedBinding> {
        Some(match *binding {
            BindingRef::Direct {
                ref buffer,
                offset,
                length,
            } => {
                let length = calculate_range(buffer.byte_length(), offset, length).ok()?;
                let allocation = match allocations
                    .iter()
                    .position(|b| Buffer::same_allocation(b, buffer))
                {
                    Some(number) => number,
                    None => {
                        allocations.push(buffer.clone());
                        allocations.len() - 1
                    }
                };
                PlannedBinding::Direct {
                    allocation,
                    offset: usize::try_from(buffer.byte_offset() + offset).ok()?,
                    length: usize::try_from(length).ok()?,
                }
            }
            BindingRef::Slot {
                slot,
                offset,
                length,
            } => PlannedBinding::Slot {
                slot,
                offset,
                length,
            },
        })
    }
}

impl LoneTransfer {
    /// `command` prepared, numbering the allocations of direct ranges in
    /// `allocations`; `None` for anything but a fill or copy, and for a
    /// direct one that fails a check (it runs as a region, which reports
    /// the failure when executed).
    fn new(command: &Command, allocations: &mut Vec<Buffer>) -> Option<LoneTransfer> {
        match command {
            Command::Fill { target, pattern } => {
                if let BindingRef::Direct { buffer, offset, .. } = target {
                    let length = resolve(target, &[]).ok()?.length;
                    check_fill(buffer, *offset, length, pattern).ok()?;
                }
                Some(LoneTransfer::Fill {
                    pattern: pattern.as_slice().into(),
                    target: PlannedBinding::new(target, allocations)?,
                })
            }
            Command::Copy { source, target } => {
                // A direct side's access is checked now; the lengths when
                // both are known (now, or at each execution for a slot).
                for (side, access) in [(source, MemoryAccess::READ), (target, MemoryAccess::WRITE)]
                {
                    if let BindingRef::Direct { buffer, .. } = side {
                        validate_access(buffer.allowed_access(), access).ok()?;
                    }
                }
                if let (BindingRef::Direct { .. }, BindingRef::Direct { .. }) = (source, target) {
                    let (source, target) = (resolve(source, &[]).ok()?, resolve(target, &[]).ok()?);
                    check_copy_lengths(source.length, target.length).ok()?;
                }
                Some(LoneTransfer::Copy {
                    source: PlannedBinding::new(source, allocations)?,
                    target: PlannedBinding::new(target, allocations)?,
                })
            }
            _ => None,
        }
    }

    /// Whether every check was made when it was prepared.
    fn checked_when_prepared(&self) -> bool {
        match self {
            LoneTransfer::Fill { target, .. } => target.is_direct(),
            LoneTransfer::Copy { source, target } => source.is_direct() && target.is_direct(),
        }
    }

    /// The checks its execution makes through `table`'s slots (upstream's
    /// checks when a transfer executes).
    fn check(&self, table: &[DispatchBinding]) -> Result<()> {
        if self.checked_when_prepared() {
            return Ok(());
        }
        match self {
            LoneTransfer::Fill { pattern, target } => {
                let target = target.resolve_slot(table)?;
                check_fill(target.buffer, target.offset, target.length, pattern)
            }
            LoneTransfer::Copy { source, target } => {
                let source = source.checked_length(table, MemoryAccess::READ)?;
                let target = target.checked_length(table, MemoryAccess::WRITE)?;
                check_copy_lengths(source, target)
            }
        }
    }

    /// Runs it on the calling thread (a runner of one worker), once
    /// [`LoneTransfer::check`] passed in this execution.
    fn run<'c>(
        &'c self,
        plan: &'c Steps,
        table: &'c [DispatchBinding],
        guards: &mut DeviceBindings<'c>,
    ) -> Result<()> {
        match self {
            LoneTransfer::Fill { pattern, target } => {
                let (ptr, len) = target.address(plan, table, guards)?;
                Work::Fill {
                    target: RawRange { ptr, len },
                    pattern,
                    shared: false,
                }
                .run_transfer_alone()
                .unwrap_or(Ok(()))
            }
            LoneTransfer::Copy { source, target } => {
                let (from, len) = source.address(plan, table, guards)?;
                let (to, _) = target.address(plan, table, guards)?;
                // SAFETY: both ranges were checked against their buffers
                // (when prepared, or through the table just now), are
                // `len` bytes long (checked equal), and lie in allocations
                // `guards` holds under device access until the execution
                // ends; this thread alone runs the command buffer's work,
                // and `ptr::copy` allows the ranges to overlap.
                unsafe { std::ptr::copy(from.cast_const(), to, len) };
                Ok(())
            }
        }
    }
}

/// Checks a copy: read access to the source, write access to the target,
/// equal lengths (as upstream checks when a copy executes).
fn check_copy(source: &BufferBinding<'_>, target: &BufferBinding<'_>) -> Result<()> {
    validate_access(source.buffer.allowed_access(), MemoryAccess::READ)?;
    validate_access(target.buffer.allowed_access(), MemoryAccess::WRITE)?;
    check_copy_lengths(source.length, target.length)
}

fn check_copy_lengths(source: u64, target: u64) -> Result<()> {
    if source != target {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("copy source ({source} bytes) and target ({target} bytes) lengths differ"),
        ));
    }
    Ok(())
}

/// Checks a fill of `pattern` over `length` bytes at `offset` of `buffer`:
/// write access, and the range aligned to the pattern (as upstream checks
/// when a fill executes).
fn check_fill(buffer: &Buffer, offset: u64, length: u64, pattern: &[u8]) -> Result<()> {
    validate_access(buffer.allowed_access(), MemoryAccess::WRITE)?;
    let width = pattern.len() as u64;
    if width == 0
        || !(buffer.byte_offset() + offset).is_multiple_of(width)
        || !length.is_multiple_of(width)
    {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("fill offset and length must be aligned to the {width} byte pattern"),
        ));
    }
    Ok(())
}

impl Plan {
    fn new(_: &CommandBuffer) -> Plan {
        Plan {
            regions: OnceLock::new(),
            in_order: OnceLock::new(),
        }
    }

    /// The steps for a runner of one worker (`in_order`) or several.
    fn steps(&self, commands: &[Command], in_order: bool) -> &Steps {
        match in_order {
            true => self.in_order.get_or_init(|| Steps::new(commands, true)),
            false => self.regions.get_or_init(|| Steps::new(commands, false)),
        }
    }
}

impl Steps {
    fn new(commands: &[Command], in_order: bool) -> Steps {
        let mut plan = Steps {
            steps: Vec::new(),
            allocations: Vec::new(),
        };
        let mut start = 0;
        while start < commands.len() {
            if ends_region(&commands[start]) {
                // A barrier only ends the region before it: no step.
                if !matches!(commands[start], Command::Barrier) {
                    plan.steps.push(Step::Single(start));
                }
                start += 1;
                continue;
            }
            let end = commands[start..]
                .iter()
                .position(ends_region)
                .map_or(commands.len(), |n| start + n);
            if !in_order {
                let lone = (end == start + 1)
                    .then(|| LoneDispatch::new(start, &commands[start], &mut plan.allocations))
                    .flatten();
                plan.steps.push(match lone {
                    Some(lone) => Step::Lone(Box::new(lone)),
                    None => Step::Region(start..end),
                });
                start = end;
                continue;
            }
            let first = plan.steps.len();
            let mut check = Vec::new();
            for (index, command) in commands.iter().enumerate().take(end).skip(start) {
                let mut step = match LoneDispatch::new(index, command, &mut plan.allocations) {
                    Some(lone) => Step::Lone(Box::new(lone)),
                    None => match LoneTransfer::new(command, &mut plan.allocations) {
                        Some(transfer) => Step::Transfer {
                            transfer: Box::new(transfer),
                            checked_ahead: false,
                        },
                        None => Step::Region(index..index + 1),
                    },
                };
                let checked_when_prepared = match &step {
                    Step::Lone(_) => true,
                    Step::Transfer { transfer, .. } => transfer.checked_when_prepared(),
                    _ => false,
                };
                if index > start && !checked_when_prepared {
                    // Its position once the check step goes in before the
                    // region's first step.
                    check.push(plan.steps.len() + 1);
                    if let Step::Transfer { checked_ahead, .. } = &mut step {
                        *checked_ahead = true;
                    }
                }
                plan.steps.push(step);
            }
            // Commands after the first that were not checked when prepared
            // (dispatches fail only in their kernels: the table's slot
            // ranges were checked at submission; a direct fill's range was
            // checked when prepared) are checked before the first runs.
            if !check.is_empty() {
                plan.steps.insert(first, Step::Check(check.into()));
            }
            start = end;
        }
        plan
    }
}

impl LoneDispatch {
    /// `command` (at `index`) prepared, numbering the allocations of its
    /// direct bindings in `allocations`; `None` for anything but a direct
    /// dispatch of this driver's executable that passes every check a
    /// dispatch's execution makes before taking device access (those that
    /// fail run as regions, which report the failure when executed) and
    /// has workgroups to run.
    fn new(index: usize, command: &Command, allocations: &mut Vec<Buffer>) -> Option<LoneDispatch> {
        let Command::Dispatch {
            executable,
            ordinal,
            workgroup_count: WorkgroupCount::Direct(count),
            constants,
            bindings,
        } = command
        else {
            return None;
        };
        let local = executable.as_any()?.downcast_ref::<LocalExecutable>()?;
        let export = crate::library::export_at(local.inner.exports(), *ordinal).ok()?;
        export
            .check_dispatch_counts(constants.len(), bindings.len())
            .ok()?;
        u16::try_from(count[2]).ok()?;
        let total = u64::from(count[0])
            .checked_mul(u64::from(count[1]))?
            .checked_mul(u64::from(count[2]))?;
        if total == 0 {
            return None;
        }
        let planned = bindings
            .iter()
            .map(|binding| PlannedBinding::new(binding, allocations))
            .collect::<Option<Box<[_]>>>()?;
        Some(LoneDispatch {
            command: index,
            library: local.inner.clone(),
            ordinal: *ordinal,
            constants: constants.iter().copied().collect(),
            count: *count,
            total,
            local_memory_size: export.local_memory_size(),
            bindings: planned,
        })
    }
}

/// Commands that separate regions.
fn ends_region(command: &Command) -> bool {
    matches!(
        command,
        Command::Barrier
            | Command::Collective { .. }
            | Command::SignalEvent(_)
            | Command::ResetEvent(_)
            | Command::WaitEvents(_)
    )
}

/// The device range of a resolved binding (checked against its buffer).
fn raw<'a>(guards: &mut DeviceBindings<'a>, binding: &BufferBinding<'a>) -> Result<RawRange> {
    Ok(RawRange {
        ptr: guards.address(binding.buffer, binding.offset)?,
        len: binding.length as usize,
    })
}

/// A command of a region with its bindings resolved and its arguments
/// checked.
enum Resolved<'c> {
    Dispatch {
        executable: &'c Arc<dyn Executable>,
        /// The executable as this driver loaded it; `None` for another
        /// driver's.
        local: Option<&'c LocalExecutable>,
        ordinal: usize,
        count: [u32; 3],
        constants: &'c [u32],
        bindings: SmallVec<[BufferBinding<'c>; 4]>,
    },
    Fill {
        target: BufferBinding<'c>,
        pattern: &'c [u8],
    },
    Copy {
        source: BufferBinding<'c>,
        target: BufferBinding<'c>,
    },
    Update {
        data: &'c [u8],
        target: BufferBinding<'c>,
    },
}

impl<'c> Resolved<'c> {
    /// Resolves `command` (not a barrier or event command) through `table`,
    /// with the checks upstream makes when a command executes.
    fn new(command: &'c Command, table: &'c [DispatchBinding]) -> Result<Resolved<'c>> {
        Ok(match command {
            Command::Dispatch {
                executable,
                ordinal,
                workgroup_count,
                constants,
                bindings,
            } => Resolved::Dispatch {
                executable,
                local: executable
                    .as_any()
                    .and_then(|any| any.downcast_ref::<LocalExecutable>()),
                ordinal: *ordinal,
                count: workgroup_count.read(table)?,
                constants,
                bindings: bindings
                    .iter()
                    .map(|b| resolve(b, table))
                    .collect::<Result<_>>()?,
            },
            Command::Fill { target, pattern } => {
                let target = resolve(target, table)?;
                check_fill(target.buffer, target.offset, target.length, pattern)?;
                Resolved::Fill { target, pattern }
            }
            Command::Update { data, target } => {
                let mut target = resolve(target, table)?;
                validate_access(target.buffer.allowed_access(), MemoryAccess::WRITE)?;
                if data.len() as u64 > target.length {
                    return Err(Status::new(
                        StatusCode::OutOfRange,
                        format!(
                            "update of {} bytes exceeds the {} byte target range",
                            data.len(),
                            target.length
                        ),
                    ));
                }
                target.length = data.len() as u64;
                Resolved::Update { data, target }
            }
            Command::Copy { source, target } => {
                let (source, target) = (resolve(source, table)?, resolve(target, table)?);
                check_copy(&source, &target)?;
                Resolved::Copy { source, target }
            }
            Command::Barrier
            | Command::Collective { .. }
            | Command::SignalEvent(_)
            | Command::ResetEvent(_)
            | Command::WaitEvents(_) => {
                return Err(Status::new(
                    StatusCode::Internal,
                    "barriers, collectives and events end regions and run on their own",
                ))
            }
        })
    }
}

/// The fills of a region that a dispatch's binding reaches into, by
/// command index (they write with atomic stores; see
/// `RawRange::fill_tile_shared`). Commands past the 64th count as shared:
/// atomic stores are always sound, only plain ones need the proof.
#[derive(Clone, Copy)]
struct SharedFills(u64);

impl SharedFills {
    const NONE: SharedFills = SharedFills(0);

    fn insert(&mut self, index: usize) {
        if index < 64 {
            self.0 |= 1 << index;
        }
    }

    fn contains(self, index: usize) -> bool {
        index >= 64 || self.0 & (1 << index) != 0
    }
}

/// Whether the commands of a region may run concurrently, and with which
/// fills shared (`None`: one at a time, in order). Every executable must be
/// this driver's, and no transfer may touch bytes another transfer
/// touches, nor a copy or update bytes a dispatch's binding reaches.
///
/// A fill may share bytes with a dispatch's binding range: the compiler
/// leaves out the barrier between two commands only when they touch
/// different bytes, and a binding range is coarser than what the kernel
/// touches (models zero a padding buffer inside the transient allocation
/// that the previous dispatch's binding spans). Running such a fill with
/// the dispatch, instead of after it, lets the fill's tiles take the
/// workers the dispatch's last workgroups leave idle.
fn may_run_together(commands: &[Resolved<'_>]) -> Option<SharedFills> {
    /// What touches a range.
    #[derive(Clone, Copy, PartialEq)]
    enum By {
        Dispatch,
        Fill,
        OtherTransfer,
    }
    // (command, range, what touches it)
    let mut ranges: SmallVec<[(usize, &BufferBinding<'_>, By); 2 * REGION_INLINE]> =
        SmallVec::new();
    for (index, command) in commands.iter().enumerate() {
        match command {
            Resolved::Dispatch { local: None, .. } => return None,
            Resolved::Dispatch { bindings, .. } => {
                ranges.extend(bindings.iter().map(|b| (index, b, By::Dispatch)))
            }
            Resolved::Fill { target, .. } => ranges.push((index, target, By::Fill)),
            Resolved::Update { target, .. } => ranges.push((index, target, By::OtherTransfer)),
            Resolved::Copy { source, target } => {
                if overlap(source, target) {
                    return None;
                }
                ranges.push((index, source, By::OtherTransfer));
                ranges.push((index, target, By::OtherTransfer));
            }
        }
    }
    let mut shared = SharedFills::NONE;
    for (i, &(a, range_a, by_a)) in ranges.iter().enumerate() {
        for &(b, range_b, by_b) in &ranges[i + 1..] {
            if a == b || (by_a == By::Dispatch && by_b == By::Dispatch) {
                continue;
            }
            if !overlap(range_a, range_b) {
                continue;
            }
            match (by_a, by_b) {
                (By::Fill, By::Dispatch) => shared.insert(a),
                (By::Dispatch, By::Fill) => shared.insert(b),
                _ => return None,
            }
        }
    }
    Some(shared)
}

/// Whether two resolved ranges share a byte.
fn overlap(a: &BufferBinding<'_>, b: &BufferBinding<'_>) -> bool {
    if !Buffer::same_allocation(a.buffer, b.buffer) || a.length == 0 || b.length == 0 {
        return false;
    }
    let start_a = a.buffer.byte_offset() + a.offset;
    let start_b = b.buffer.byte_offset() + b.offset;
    start_a < start_b + b.length && start_b < start_a + a.length
}

/// An executable loaded by a local device: grids run on the device's
/// workers (see [`Runner`]).
pub struct LocalExecutable {
    inner: Arc<dyn WorkgroupExecutable>,
    runner: Runner,
    /// How profiles name it (`embedded-elf-x86_64#0`).
    label: Arc<str>,
    /// What profiles list of it: its export names (shared by the profiling
    /// events that name them) and signatures. Registered with the runner's
    /// profiler, which holds it weakly.
    profile: Arc<ProfileExecutable>,
}

impl LocalExecutable {
    /// `inner`, run by `runner`, named `label` in profiles.
    pub fn new(
        inner: Arc<dyn WorkgroupExecutable>,
        runner: Runner,
        label: Arc<str>,
    ) -> LocalExecutable {
        let exports = inner
            .exports()
            .iter()
            .map(|e| {
                let size = [
                    e.attrs.workgroup_size_x,
                    e.attrs.workgroup_size_y,
                    u32::from(e.attrs.workgroup_size_z),
                ];
                ProfileExport {
                    name: Arc::from(e.name.as_str()),
                    constant_count: u32::from(e.attrs.constant_count),
                    binding_count: u32::from(e.attrs.binding_count),
                    // Libraries without dispatch attributes report zeros.
                    workgroup_size: size.map(|d| d.max(1)),
                }
            })
            .collect();
        let profile = Arc::new(ProfileExecutable {
            label: label.clone(),
            exports,
        });
        runner.profiler().register_executable(&profile);
        LocalExecutable {
            inner,
            runner,
            label,
            profile,
        }
    }

    /// The profile name of export `ordinal`.
    fn export_label(&self, ordinal: usize) -> Arc<str> {
        self.profile
            .exports
            .get(ordinal)
            .map(|e| e.name.clone())
            .unwrap_or_else(|| Arc::from("?"))
    }
}

impl Executable for LocalExecutable {
    fn export_count(&self) -> usize {
        self.inner.exports().len()
    }

    fn export_name(&self, ordinal: usize) -> Option<&str> {
        self.inner.exports().get(ordinal).map(|e| e.name.as_str())
    }

    fn dispatch(
        &self,
        ordinal: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: &[BufferBinding<'_>],
    ) -> Result<()> {
        self.runner
            .dispatch(self, ordinal, workgroup_count, constants, bindings)
    }

    fn function_info(&self, ordinal: usize) -> Option<iree_hal::FunctionInfo> {
        self.inner.exports().get(ordinal).map(|e| e.function_info())
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
