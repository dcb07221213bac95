//! Running device work on the local workers: workgroup grids of executable
//! exports and the transfers (fill, copy, update) of command buffers, alone
//! or several together.
//!
//! Work is cut into tiles (one workgroup, or one slice of a transfer). A
//! [`Region`] holds work items that may run concurrently (a command buffer's
//! commands between two barriers); its workers claim tiles from one shared
//! counter across all of its items until none are left, so small dispatches
//! of a region fill idle workers instead of running one after another.
//!
//! Every allocation a region touches is held under a device-access guard
//! ([`DeviceBindings`]) while it runs, so no host mapping (Rust code) can
//! observe the memory while kernels or transfers write it. Ranges are checked
//! against the buffers; what a kernel does inside its bindings is trusted, as
//! upstream trusts it.

use std::cell::Cell;
use std::ffi::c_void;
use std::time::Instant;

use iree_base::bytes::fill_pattern;
use iree_base::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use iree_base::sync::{self, Mutex};
use iree_base::{bail, Result, Status, StatusCode};
use iree_hal::buffer::{calculate_range, DeviceAccess};
use iree_hal::command_buffer::DispatchBinding;
use iree_hal::Buffer;
pub use iree_hal::BufferBinding;

use smallvec::SmallVec;

use crate::executable::WorkgroupExecutable;
use crate::library::{DispatchStateV0, ExportInfo, WorkgroupIds};
use crate::pool::WorkerPool;

/// Runs export `ordinal` of `library` for every workgroup of
/// `workgroup_count`, in x-fastest order on the calling thread.
pub fn dispatch_grid(
    library: &dyn WorkgroupExecutable,
    ordinal: usize,
    constants: &[u32],
    bindings: &[BufferBinding<'_>],
    workgroup_count: [u32; 3],
) -> Result<()> {
    dispatch_grid_parallel(library, ordinal, constants, bindings, workgroup_count, 1)
}

/// As [`dispatch_grid`], spreading workgroups over up to `workers` threads
/// (the calling thread and scoped helpers), each taking the next unclaimed
/// workgroup; `processor_id` tells the kernel which worker runs it. The first
/// failure stops the workers from claiming more and is returned.
pub fn dispatch_grid_parallel(
    library: &dyn WorkgroupExecutable,
    ordinal: usize,
    constants: &[u32],
    bindings: &[BufferBinding<'_>],
    workgroup_count: [u32; 3],
    workers: usize,
) -> Result<()> {
    run_one_grid(
        library,
        ordinal,
        constants,
        bindings,
        workgroup_count,
        Workers::Scoped(workers),
    )
}

/// As [`dispatch_grid_parallel`], on the long-lived workers of `pool`.
pub fn dispatch_grid_on_pool(
    library: &dyn WorkgroupExecutable,
    ordinal: usize,
    constants: &[u32],
    bindings: &[BufferBinding<'_>],
    workgroup_count: [u32; 3],
    pool: &WorkerPool,
) -> Result<()> {
    run_one_grid(
        library,
        ordinal,
        constants,
        bindings,
        workgroup_count,
        Workers::Pool(pool),
    )
}

fn run_one_grid(
    library: &dyn WorkgroupExecutable,
    ordinal: usize,
    constants: &[u32],
    bindings: &[BufferBinding<'_>],
    workgroup_count: [u32; 3],
    workers: Workers<'_>,
) -> Result<()> {
    let mut device_bindings = DeviceBindings::default();
    let grid = PreparedGrid::new(
        library,
        ordinal,
        constants,
        bindings,
        workgroup_count,
        workers.count(),
        0,
        &mut device_bindings,
    )?;
    Region::new(&[Work::Grid(grid)], &device_bindings)?.run(workers)
}

/// Runs export `ordinal` of `library` for every workgroup of
/// `workgroup_count`, in x-fastest order on the calling thread, over
/// bindings given as host addresses and lengths rather than HAL buffers:
/// inline execution (`hal_loader.executable.dispatch`), where the program
/// owns the memory and there is no device to guard it. Counts, ordinal and
/// workgroup counts are checked as for [`dispatch_grid`].
///
/// # Safety
///
/// Each `(address, length)` must be valid for the reads and writes the
/// kernel performs on that binding (for a correct kernel, reads and writes
/// within `length` bytes; writes only to memory that may be written) until
/// this returns, and no other code may access those bytes meanwhile.
pub unsafe fn dispatch_grid_host(
    library: &dyn WorkgroupExecutable,
    ordinal: usize,
    constants: &[u32],
    bindings: &[(*mut u8, usize)],
    workgroup_count: [u32; 3],
) -> Result<()> {
    let mut device_bindings = DeviceBindings::default();
    let grid = PreparedGrid::prepare(
        library,
        ordinal,
        constants,
        bindings.len(),
        workgroup_count,
        1,
        0,
        &mut device_bindings,
        |out| {
            for &(ptr, length) in bindings {
                out.ptrs.push(ptr.cast());
                out.lengths.push(length);
            }
            Ok(())
        },
    )?;
    grid.run_alone(&device_bindings)
}

/// Who runs a region's tiles.
#[derive(Clone, Copy)]
pub enum Workers<'a> {
    /// The calling thread plus scoped threads spawned for this run.
    Scoped(usize),
    /// A persistent pool (the calling thread is its worker 0).
    Pool(&'a WorkerPool),
}

impl Workers<'_> {
    /// The number of workers, the calling thread included.
    pub fn count(&self) -> usize {
        match self {
            Workers::Scoped(n) => (*n).max(1),
            Workers::Pool(pool) => pool.workers(),
        }
    }
}

/// What a region's work needs of device memory: a device-access guard over
/// each allocation it touches (one per distinct allocation, held until this
/// drops), and the binding address and length arrays its dispatches' states
/// point into.
pub struct DeviceBindings<'a> {
    guards: SmallVec<[(&'a Buffer, DeviceAccess<'a>); INLINE_BINDINGS]>,
    ptrs: SmallVec<[*mut c_void; INLINE_BINDINGS]>,
    lengths: SmallVec<[usize; INLINE_BINDINGS]>,
    /// The base addresses of allocations a prepared command buffer numbered
    /// (see [`DeviceBindings::numbered_base`]); null until guarded.
    numbered: SmallVec<[*mut u8; INLINE_BINDINGS]>,
    /// The device address of each of the first binding-table slots' ranges
    /// (see [`DeviceBindings::slot_base`]); null until looked up.
    slots: [*mut u8; CACHED_SLOTS],
}

impl Default for DeviceBindings<'_> {
    fn default() -> Self {
        DeviceBindings {
            guards: SmallVec::new(),
            ptrs: SmallVec::new(),
            lengths: SmallVec::new(),
            numbered: SmallVec::new(),
            slots: [std::ptr::null_mut(); CACHED_SLOTS],
        }
    }
}

// SAFETY: the pointers are addresses inside allocations held under the
// guards; sharing the arrays lets workers build dispatch states from them,
// and what is accessed through them is the kernels' business (see
// `PreparedGrid::run_tiles`).
unsafe impl Sync for DeviceBindings<'_> {}

impl<'a> DeviceBindings<'a> {
    /// Forgets the binding arrays of the previous region, keeping the
    /// guards: a command buffer takes device access to each allocation once
    /// for its whole execution, not once per region.
    pub fn start_region(&mut self) {
        self.ptrs.clear();
        self.lengths.clear();
    }

    /// Releases every guard (and the binding arrays), so the host may map
    /// the allocations again.
    pub fn release(&mut self) {
        self.start_region();
        self.guards.clear();
        self.numbered.clear();
        self.slots = [std::ptr::null_mut(); CACHED_SLOTS];
    }

    /// The device address where binding-table slot `slot`'s range
    /// (`entry`) starts, checking the range against its buffer and taking a
    /// guard over its allocation at the first lookup of an execution; after
    /// that, one load.
    #[inline]
    pub fn slot_base(&mut self, slot: usize, entry: &'a DispatchBinding) -> Result<*mut u8> {
        if let Some(&base) = self.slots.get(slot) {
            if !base.is_null() {
                return Ok(base);
            }
        }
        self.slot_base_slow(slot, entry)
    }

    #[inline(never)]
    fn slot_base_slow(&mut self, slot: usize, entry: &'a DispatchBinding) -> Result<*mut u8> {
        calculate_range(entry.buffer.byte_length(), entry.offset, entry.length)?;
        let base = self.address(&entry.buffer, entry.offset)?;
        if let Some(cached) = self.slots.get_mut(slot) {
            *cached = base;
        }
        Ok(base)
    }

    /// The base address of the allocation of `buffer`, which a prepared
    /// command buffer numbered `number` (its distinct allocations numbered
    /// from 0), taking a guard over it unless one is held: after the first
    /// lookup of an execution, one load.
    #[inline]
    pub fn numbered_base(&mut self, number: usize, buffer: &'a Buffer) -> Result<*mut u8> {
        if let Some(&base) = self.numbered.get(number) {
            if !base.is_null() {
                return Ok(base);
            }
        }
        self.numbered_base_slow(number, buffer)
    }

    #[inline(never)]
    fn numbered_base_slow(&mut self, number: usize, buffer: &'a Buffer) -> Result<*mut u8> {
        let index = self.guard(buffer)?;
        let base = self.guards[index].1.base_ptr();
        if self.numbered.len() <= number {
            self.numbered.resize(number + 1, std::ptr::null_mut());
        }
        self.numbered[number] = base;
        Ok(base)
    }

    /// The index in `guards` of the guard over `buffer`'s allocation,
    /// taken unless one is held.
    fn guard(&mut self, buffer: &'a Buffer) -> Result<usize> {
        match self
            .guards
            .iter()
            .position(|(b, _)| Buffer::same_allocation(b, buffer))
        {
            Some(index) => Ok(index),
            None => {
                self.guards.push((buffer, buffer.begin_device_access()?));
                Ok(self.guards.len() - 1)
            }
        }
    }

    /// The device address of byte `offset` of `buffer` (an offset within the
    /// buffer, already checked against its length), taking a guard over its
    /// allocation unless one is held.
    pub fn address(&mut self, buffer: &'a Buffer, offset: u64) -> Result<*mut u8> {
        let index = self.guard(buffer)?;
        let start = buffer.byte_offset() + offset;
        // In bounds: callers checked `offset` against the buffer, which lies
        // inside its allocation.
        Ok(self.guards[index].1.base_ptr().wrapping_add(start as usize))
    }

    /// Appends a dispatch's binding (address and length); returns its index.
    fn push_binding(&mut self, binding: &BufferBinding<'a>) -> Result<usize> {
        let length = calculate_range(binding.buffer.byte_length(), binding.offset, binding.length)?;
        let ptr = self.address(binding.buffer, binding.offset)?;
        self.ptrs.push(ptr.cast());
        self.lengths.push(length as usize);
        Ok(self.ptrs.len() - 1)
    }
}

/// Checks that a dispatch asking for `size` bytes of workgroup-local memory
/// fits a worker's `limit` (0: any), as upstream's task executor checks.
#[inline]
pub(crate) fn check_local_memory(size: usize, limit: usize) -> Result<()> {
    if limit != 0 && size > limit {
        bail!(
            ResourceExhausted,
            "dispatch requires {size}b of local memory but only {limit}b is available per-worker"
        );
    }
    Ok(())
}

/// Binding-table slots whose addresses an execution caches (models' tables
/// hold a few entries; later slots are looked up at each use).
const CACHED_SLOTS: usize = 8;

/// Bindings most dispatches fit without a heap allocation.
const INLINE_BINDINGS: usize = 8;

/// A dispatch validated and ready to run: its export, constants and where
/// its binding addresses sit in the region's [`DeviceBindings`], from which
/// each tile's v0 dispatch state is built.
pub struct PreparedGrid<'a> {
    library: &'a dyn WorkgroupExecutable,
    ordinal: usize,
    export: &'a ExportInfo,
    constants: &'a [u32],
    /// The range of the region's binding arrays holding this dispatch's.
    bindings: std::ops::Range<usize>,
    workgroup_count: [u32; 2],
    workgroup_count_z: u16,
    max_concurrency: u8,
    total: u64,
    local_memory_size: usize,
}

impl<'a> PreparedGrid<'a> {
    /// Checks the dispatch of export `ordinal` over `workgroup_count` with
    /// `constants` and `bindings` against the export, resolves the bindings
    /// to addresses in `bindings_out`, and records the state for up to
    /// `max_concurrency` workers. `local_memory_limit` (0: none) bounds the
    /// workgroup-local memory the export may ask for.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        library: &'a dyn WorkgroupExecutable,
        ordinal: usize,
        constants: &'a [u32],
        bindings: &[BufferBinding<'a>],
        workgroup_count: [u32; 3],
        max_concurrency: usize,
        local_memory_limit: usize,
        bindings_out: &mut DeviceBindings<'a>,
    ) -> Result<PreparedGrid<'a>> {
        Self::prepare(
            library,
            ordinal,
            constants,
            bindings.len(),
            workgroup_count,
            max_concurrency,
            local_memory_limit,
            bindings_out,
            |out| {
                for binding in bindings {
                    out.push_binding(binding)?;
                }
                Ok(())
            },
        )
    }

    /// [`PreparedGrid::new`] for `binding_count` bindings that `push`
    /// appends to the region's arrays (only when there is work to run).
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        library: &'a dyn WorkgroupExecutable,
        ordinal: usize,
        constants: &'a [u32],
        binding_count: usize,
        workgroup_count: [u32; 3],
        max_concurrency: usize,
        local_memory_limit: usize,
        bindings_out: &mut DeviceBindings<'a>,
        push: impl FnOnce(&mut DeviceBindings<'a>) -> Result<()>,
    ) -> Result<PreparedGrid<'a>> {
        let export = crate::library::export_at(library.exports(), ordinal)?;
        let local_memory_size = export.local_memory_size();
        check_local_memory(local_memory_size, local_memory_limit)?;
        export.check_dispatch_counts(constants.len(), binding_count)?;
        let Ok(count_z) = u16::try_from(workgroup_count[2]) else {
            bail!(
                OutOfRange,
                "workgroup count z {} exceeds 65535",
                workgroup_count[2]
            );
        };
        // At most 2^80 workgroups: more than u64 counts means more than
        // anyone could wait for; refuse instead of wrapping.
        let Some(total) = u64::from(workgroup_count[0])
            .checked_mul(u64::from(workgroup_count[1]))
            .and_then(|xy| xy.checked_mul(u64::from(count_z)))
        else {
            bail!(
                OutOfRange,
                "workgroup count {workgroup_count:?} has more than 2^64 workgroups"
            );
        };
        let first = bindings_out.ptrs.len();
        if total > 0 {
            push(bindings_out)?;
        }
        Ok(PreparedGrid {
            library,
            ordinal,
            export,
            constants,
            bindings: first..bindings_out.ptrs.len(),
            workgroup_count: [workgroup_count[0], workgroup_count[1]],
            workgroup_count_z: count_z,
            // The ABI carries the concurrency in 8 bits.
            max_concurrency: max_concurrency.clamp(1, usize::from(u8::MAX)) as u8,
            total,
            local_memory_size,
        })
    }

    /// The v0 dispatch state, pointing into `bindings` (the arrays this
    /// dispatch was prepared into).
    fn state(&self, bindings: &DeviceBindings<'_>) -> DispatchStateV0 {
        DispatchStateV0::new(
            self.export,
            self.workgroup_count,
            self.workgroup_count_z,
            self.max_concurrency,
            self.constants,
            &bindings.ptrs[self.bindings.clone()],
            &bindings.lengths[self.bindings.clone()],
        )
    }

    /// Runs every workgroup in order on the calling thread, as processor
    /// 0, with `bindings` (the arrays this dispatch was prepared into):
    /// what a region of this one grid on one worker does, without the
    /// region. Stops at the first failing workgroup.
    pub fn run_alone(&self, bindings: &DeviceBindings<'_>) -> Result<()> {
        if self.total == 0 {
            return Ok(());
        }
        let _fpu = FlushDenormals::enter();
        let mut local_memory = take_local_memory(self.local_memory_size);
        let result = self.run_tiles(0..self.total, 0, as_bytes(&mut local_memory), bindings);
        return_local_memory(local_memory);
        result
    }

    /// Runs linear workgroups `indices` (x fastest) in order as
    /// `processor_id`; stops at the first failing one.
    #[inline(always)]
    fn run_tiles(
        &self,
        indices: std::ops::Range<u64>,
        processor_id: u32,
        local_memory: &mut [u8],
        bindings: &DeviceBindings<'_>,
    ) -> Result<()> {
        self.run_state(&self.state(bindings), indices, processor_id, local_memory)
    }

    /// A dispatch that [`PreparedGrid::new`]'s checks passed for when its
    /// command buffer was prepared (export `ordinal` of `library` exists,
    /// takes `constants` and the bindings given to
    /// [`PreparedGrid::run_prepared`], and `workgroup_count` has a z that
    /// fits 16 bits and at most 2^64 workgroups), to run on one worker.
    pub(crate) fn prepared(
        library: &'a dyn WorkgroupExecutable,
        ordinal: usize,
        export: &'a ExportInfo,
        constants: &'a [u32],
        workgroup_count: [u32; 3],
        total: u64,
        max_concurrency: usize,
    ) -> PreparedGrid<'a> {
        PreparedGrid {
            library,
            ordinal,
            export,
            constants,
            bindings: 0..0,
            workgroup_count: [workgroup_count[0], workgroup_count[1]],
            workgroup_count_z: workgroup_count[2] as u16,
            max_concurrency: max_concurrency.clamp(1, usize::from(u8::MAX)) as u8,
            total,
            local_memory_size: export.local_memory_size(),
        }
    }

    /// Runs every workgroup in order on the calling thread, as processor 0,
    /// with the bindings at `ptrs` (`lengths` bytes each):
    /// [`PreparedGrid::run_alone`] for a dispatch made by
    /// [`PreparedGrid::prepared`], under the caller's [`FlushDenormals`].
    ///
    /// # Safety
    ///
    /// `ptrs` and `lengths` hold as many entries as the export takes
    /// bindings, and the constants as many as it takes constants; each
    /// `(ptr, length)` lies inside an allocation held under a device-access
    /// guard until this returns.
    pub(crate) unsafe fn run_prepared(
        &self,
        ptrs: &[*mut c_void],
        lengths: &[usize],
    ) -> Result<()> {
        debug_assert!(self
            .export
            .check_dispatch_counts(self.constants.len(), ptrs.len())
            .is_ok());
        debug_assert_eq!(lengths.len(), ptrs.len());
        if self.total == 0 {
            return Ok(());
        }
        let state = DispatchStateV0::new(
            self.export,
            self.workgroup_count,
            self.workgroup_count_z,
            self.max_concurrency,
            self.constants,
            ptrs,
            lengths,
        );
        if self.local_memory_size == 0 {
            return self.run_state(&state, 0..self.total, 0, &mut []);
        }
        let mut local_memory = take_local_memory(self.local_memory_size);
        let result = self.run_state(&state, 0..self.total, 0, as_bytes(&mut local_memory));
        return_local_memory(local_memory);
        result
    }

    /// Runs linear workgroups `indices` of the dispatch `state` describes.
    #[inline(always)]
    fn run_state(
        &self,
        state: &DispatchStateV0,
        indices: std::ops::Range<u64>,
        processor_id: u32,
        local_memory: &mut [u8],
    ) -> Result<()> {
        let local_memory = &mut local_memory[..self.local_memory_size];
        // SAFETY: constant and binding counts match the export (checked in
        // `new`, or by `run_prepared`'s caller); every binding pointer/length pair lies inside an allocation
        // held under a device-access guard for as long as the region runs (or,
        // for `dispatch_grid_host`, is vouched for by its caller), so no Rust
        // code reads or writes it concurrently; constants and this
        // worker's local memory (of the export's size) are live for the call.
        // The kernel's own accesses within its bindings are trusted, as
        // documented in the crate.
        let failed = unsafe {
            self.library
                .run_workgroups(self.ordinal, state, indices, processor_id, local_memory)
        }?;
        match failed {
            None => Ok(()),
            Some((index, code)) => {
                let (_, [x, y], z) = WorkgroupIds::new(state, index..index + 1)
                    .next()
                    .expect("one workgroup");
                Err(Status::new(
                    StatusCode::Internal,
                    format!(
                        "dispatch '{}' workgroup [{x}, {y}, {z}] failed with result {code}",
                        self.library.exports()[self.ordinal].name
                    ),
                ))
            }
        }
    }
}

/// Bytes per tile of a transfer: large enough that claiming a tile costs
/// nothing next to moving it (a few microseconds), small enough that the
/// fills models make (the PP-OCR classifier zeroes 100-260 KiB padding
/// buffers 13 times a call) spread over the workers; upstream's tile is the
/// same. A multiple of 64, so every tile starts at phase 0 of any 1, 2 or 4
/// byte pattern.
pub const TRANSFER_TILE: usize = 64 << 10;

/// A device address range a transfer reads or writes, inside an allocation
/// held under a [`DeviceBindings`] guard for the region's life.
#[derive(Clone, Copy)]
pub struct RawRange {
    /// The first byte.
    pub ptr: *mut u8,
    /// The length in bytes.
    pub len: usize,
}

impl RawRange {
    /// Tile `tile` of this range as a mutable slice.
    ///
    /// # Safety
    ///
    /// The range must be valid for writes while the region runs, and no
    /// other work item of the region may touch it (the executor checks
    /// transfer ranges against every other range of a region).
    unsafe fn tile_mut<'s>(self, tile: u64) -> &'s mut [u8] {
        let (start, len) = tile_bounds(self.len, tile);
        // SAFETY: the caller's contract; `tile_bounds` stays inside `len`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }

    /// Tile `tile` of this range as a shared slice.
    ///
    /// # Safety
    ///
    /// The range must be valid for reads while the region runs, and no
    /// other work item of the region may write it.
    unsafe fn tile<'s>(self, tile: u64) -> &'s [u8] {
        let (start, len) = tile_bounds(self.len, tile);
        // SAFETY: the caller's contract; `tile_bounds` stays inside `len`.
        unsafe { std::slice::from_raw_parts(self.ptr.add(start), len) }
    }

    /// Fills tile `tile` of this range with `pattern` (1, 2 or 4 bytes;
    /// phase 0 at the tile's start) through relaxed atomic stores, for a
    /// range that a kernel of the same region may also reach: the compiler
    /// puts no barrier between them only when they touch different bytes,
    /// and if a malformed program broke that, the race would be between
    /// atomic stores and foreign code, never undefined behavior on this
    /// side. As fast as `memset` on memory that is not in cache, which is
    /// where such fills (a model's padding buffers) mostly write.
    ///
    /// # Safety
    ///
    /// The range must be valid for writes while the region runs, and no
    /// other Rust code may access it meanwhile.
    unsafe fn fill_tile_shared(self, tile: u64, pattern: &[u8]) {
        use std::sync::atomic::{AtomicU64, AtomicU8};
        let (start, len) = tile_bounds(self.len, tile);
        let width = pattern.len();
        debug_assert!(matches!(width, 1 | 2 | 4));
        // SAFETY: the caller's contract; `tile_bounds` stays inside `len`.
        let ptr = unsafe { self.ptr.add(start) };
        let byte = |i: usize| {
            // SAFETY: `i < len`; a byte has no alignment requirement.
            let cell = unsafe { AtomicU8::from_ptr(ptr.add(i)) };
            cell.store(pattern[i % width], Ordering::Relaxed);
        };
        let head = ptr.align_offset(8).min(len);
        (0..head).for_each(byte);
        // Every 8-byte word starts at the same phase (8 is a multiple of
        // the width).
        let word = u64::from_ne_bytes(std::array::from_fn(|j| pattern[(head + j) % width]));
        let words = (len - head) / 8;
        for w in 0..words {
            // SAFETY: 8-aligned (after `head`) and inside `len`.
            let cell = unsafe { AtomicU64::from_ptr(ptr.add(head + 8 * w).cast()) };
            cell.store(word, Ordering::Relaxed);
        }
        (head + 8 * words..len).for_each(byte);
    }
}

/// The byte range of tile `tile` of a `len`-byte transfer.
fn tile_bounds(len: usize, tile: u64) -> (usize, usize) {
    let start = tile as usize * TRANSFER_TILE;
    (start, TRANSFER_TILE.min(len - start))
}

fn transfer_tiles(len: usize) -> u64 {
    len.div_ceil(TRANSFER_TILE) as u64
}

/// One item of a region's work.
pub enum Work<'a> {
    /// A workgroup grid.
    Grid(PreparedGrid<'a>),
    /// Fill `target` with a repeated pattern.
    Fill {
        /// The range written.
        target: RawRange,
        /// The 1, 2 or 4 byte pattern.
        pattern: &'a [u8],
        /// Whether a dispatch of the region has a binding reaching into
        /// `target` (the fill then writes with atomic stores).
        shared: bool,
    },
    /// Copy `source` (of the same length) into `target`.
    Copy {
        /// The range read.
        source: RawRange,
        /// The range written.
        target: RawRange,
    },
    /// Write `data` into `target` (of the same length).
    Update {
        /// The bytes.
        data: &'a [u8],
        /// The range written.
        target: RawRange,
    },
}

// SAFETY: the raw pointers in `Work` reach allocations held under device
// access guards while a region runs, and the region gives each tile to
// exactly one worker; everything else is shared immutable data (`Sync`).
unsafe impl Send for Work<'_> {}
// SAFETY: as above.
unsafe impl Sync for Work<'_> {}

impl Work<'_> {
    fn tiles(&self) -> u64 {
        match self {
            Work::Grid(grid) => grid.total,
            Work::Fill { target, .. } | Work::Update { target, .. } => transfer_tiles(target.len),
            Work::Copy { target, .. } => transfer_tiles(target.len),
        }
    }

    fn local_memory_size(&self) -> usize {
        match self {
            Work::Grid(grid) => grid.local_memory_size,
            _ => 0,
        }
    }

    /// Runs every tile of a transfer in order on the calling thread, as a
    /// region of it alone on one worker would, without the region;
    /// `None` for a grid (which needs the region's local memory).
    pub fn run_transfer_alone(&self) -> Option<Result<()>> {
        if matches!(self, Work::Grid(_)) {
            return None;
        }
        Some((0..self.tiles()).try_for_each(|tile| self.run_transfer_tile(tile)))
    }

    /// The tiles this item is cut into.
    pub fn tile_count(&self) -> u64 {
        self.tiles()
    }

    /// Runs tiles `tiles` of this item in order; stops at the first
    /// failing one.
    #[inline(always)]
    fn run_tiles(
        &self,
        tiles: std::ops::Range<u64>,
        processor_id: u32,
        local_memory: &mut [u8],
        bindings: &DeviceBindings<'_>,
    ) -> Result<()> {
        match self {
            Work::Grid(grid) => grid.run_tiles(tiles, processor_id, local_memory, bindings),
            _ => tiles
                .into_iter()
                .try_for_each(|tile| self.run_transfer_tile(tile)),
        }
    }

    /// Runs tile `tile` of a transfer.
    #[inline(always)]
    fn run_transfer_tile(&self, tile: u64) -> Result<()> {
        // For the transfers: their ranges were checked against their buffers
        // and are held under device access while the region runs; the
        // executor runs a transfer concurrently only with work that touches
        // none of its bytes (a copy's source and target included), except a
        // shared fill, which a kernel's binding may reach; and each tile
        // goes to one worker.
        match self {
            Work::Grid(_) => unreachable!("grids run through `run_tiles`"),
            Work::Fill {
                target,
                pattern,
                shared: false,
            } => {
                // SAFETY: see above.
                let bytes = unsafe { target.tile_mut(tile) };
                fill_pattern(bytes, pattern, 0);
                Ok(())
            }
            Work::Fill {
                target,
                pattern,
                shared: true,
            } => {
                // SAFETY: see above; kernels are foreign code, so no Rust
                // code but this tile's stores touches these bytes.
                unsafe { target.fill_tile_shared(tile, pattern) };
                Ok(())
            }
            Work::Copy { source, target } => {
                // SAFETY: see above.
                let (from, to) = unsafe { (source.tile(tile), target.tile_mut(tile)) };
                to.copy_from_slice(from);
                Ok(())
            }
            Work::Update { data, target } => {
                let (start, len) = tile_bounds(target.len, tile);
                // SAFETY: see above.
                let bytes = unsafe { target.tile_mut(tile) };
                bytes.copy_from_slice(&data[start..start + len]);
                Ok(())
            }
        }
    }
}

thread_local! {
    /// Each worker's workgroup-local memory, kept between runs (kernels
    /// treat it as uninitialized scratch). Taken out while a worker runs,
    /// so nothing stays borrowed.
    /// Whole `u32` words, so that word-granular accesses (VMVX's atomic
    /// buffers, `iree_hal::HOST_ACCESS_WORD`) stay inside it.
    static LOCAL_MEMORY: Cell<Vec<u32>> = const { Cell::new(Vec::new()) };
}

/// Work items that may run concurrently, cut into tiles claimed from one
/// counter.
pub struct Region<'r, 'a> {
    items: &'r [Work<'a>],
    bindings: &'r DeviceBindings<'a>,
    /// `starts[i]` is the first tile of item `i`; one more entry holds the
    /// total.
    starts: SmallVec<[u64; 9]>,
    local_memory_size: usize,
    /// The next unclaimed tile.
    next: AtomicU64,
    failure: Mutex<Option<Status>>,
    /// Set with `failure`, so a region that succeeded takes no lock.
    failed: AtomicBool,
}

impl<'r, 'a> Region<'r, 'a> {
    /// A region of `items`, prepared into `bindings`; fails when their
    /// tiles do not fit a `u64`.
    pub fn new(items: &'r [Work<'a>], bindings: &'r DeviceBindings<'a>) -> Result<Region<'r, 'a>> {
        let mut starts = SmallVec::with_capacity(items.len() + 1);
        let mut total = 0u64;
        for item in items {
            starts.push(total);
            total = total.checked_add(item.tiles()).ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    "the work between two barriers has more than 2^64 workgroups",
                )
            })?;
        }
        starts.push(total);
        let local_memory_size = items.iter().map(Work::local_memory_size).max().unwrap_or(0);
        Ok(Region {
            items,
            bindings,
            starts,
            local_memory_size,
            next: AtomicU64::new(0),
            failure: Mutex::new(None),
            failed: AtomicBool::new(false),
        })
    }

    fn total(&self) -> u64 {
        *self.starts.last().expect("starts holds the total")
    }

    /// Runs every tile on `workers` and returns the first failure, if any
    /// (a failure stops the workers from claiming more tiles).
    pub fn run(&self, workers: Workers<'_>) -> Result<()> {
        self.run_observed(workers, |processor, sharers| {
            self.work_observed(processor, sharers, &mut NoObserver)
        })
    }

    /// As [`Region::run`], also returning the span each worker spent on
    /// each item (for device profiling).
    pub fn run_profiled(&self, workers: Workers<'_>) -> (Result<()>, WorkerSlices) {
        let slices = Mutex::new(WorkerSlices::new());
        let result = self.run_observed(workers, |processor, sharers| {
            let mut observer = SliceObserver {
                processor,
                current: None,
                slices: WorkerSlices::new(),
            };
            self.work_observed(processor, sharers, &mut observer);
            observer.close(Instant::now());
            if !observer.slices.is_empty() {
                sync::lock(&slices).extend(observer.slices.drain(..));
            }
        });
        let slices = std::mem::take(&mut *sync::lock(&slices));
        (result, slices)
    }

    /// Runs `work(processor, sharers)` on each worker that takes part
    /// (`sharers` of them; 1: the calling thread alone).
    fn run_observed(&self, workers: Workers<'_>, work: impl Fn(u32, u64) + Sync) -> Result<()> {
        let total = self.total();
        // More workers than tiles would only wait.
        let helpers = workers.count().min(total.min(usize::MAX as u64) as usize);
        let sharers = helpers as u64;
        if helpers <= 1 {
            work(0, 1);
        } else if let Workers::Pool(pool) = workers {
            // Helpers asleep are woken, but worker 0 waits only for those
            // that join before its own share is done (see `WorkerPool`):
            // a short region costs a wake-up call, never a wait for one.
            pool.run(&|processor| {
                if processor == 0 {
                    pool.wake_helpers();
                }
                work(processor, sharers)
            });
        } else {
            let work = &work;
            std::thread::scope(|scope| {
                for processor in 1..helpers {
                    scope.spawn(move || work(processor as u32, sharers));
                }
                work(0, sharers);
            });
        }
        self.outcome()
    }

    /// The first failure of the run, if any.
    fn outcome(&self) -> Result<()> {
        if !self.failed.load(Ordering::Acquire) {
            return Ok(());
        }
        match sync::lock(&self.failure).take() {
            Some(status) => Err(status),
            None => Ok(()),
        }
    }

    /// Claims and runs tiles until none are left or one has failed, telling
    /// `observer` the item and length of each run of tiles. `sharers` workers run the region;
    /// alone (1), tiles are claimed without atomic read-modify-writes.
    #[inline(always)]
    fn work_observed(&self, processor_id: u32, sharers: u64, observer: &mut impl TileObserver) {
        let total = self.total();
        let claimed = self.next.load(Ordering::Relaxed);
        if claimed >= total {
            return;
        }
        let alone = sharers <= 1;
        let _fpu = FlushDenormals::enter();
        let mut local_memory = take_local_memory(self.local_memory_size);
        // Tiles are claimed in increasing order, so the item holding the
        // next one is never before the last one's.
        let mut item = 0;
        // Tiles left as of this worker's last look at the counter.
        let mut left = total - claimed;
        'claim: loop {
            // Alone, nobody else claims: everything left, one run per item.
            let batch = if alone {
                total
            } else {
                claim_batch(left, sharers)
            };
            let first = if alone {
                let tile = self.next.load(Ordering::Relaxed);
                self.next.store(total, Ordering::Relaxed);
                tile
            } else {
                self.next.fetch_add(batch, Ordering::Relaxed)
            };
            if first >= total {
                break;
            }
            let end = first.saturating_add(batch).min(total);
            left = total - end;
            // The claimed tiles, one run per item they cover.
            let mut tile = first;
            while tile < end {
                if tile > first && self.failed.load(Ordering::Relaxed) {
                    break 'claim;
                }
                while self.starts[item + 1] <= tile {
                    item += 1;
                }
                let start = self.starts[item];
                let run_end = end.min(self.starts[item + 1]);
                observer.tiles(item, run_end - tile);
                let result = self.items[item].run_tiles(
                    tile - start..run_end - start,
                    processor_id,
                    as_bytes(&mut local_memory),
                    self.bindings,
                );
                tile = run_end;
                if let Err(failure) = result {
                    // Stop everyone from claiming more; keep the first failure.
                    self.next.store(total, Ordering::Relaxed);
                    sync::lock(&self.failure).get_or_insert(failure);
                    self.failed.store(true, Ordering::Release);
                    break 'claim;
                }
            }
        }
        return_local_memory(local_memory);
    }
}

/// Tiles one claim takes from a region that `sharers` workers run, with
/// `left` tiles unclaimed (guided self-scheduling): half a fair share, so
/// claims are few while much is left (tiny tiles then do not turn the
/// shared counter into a cache line bouncing between cores: 64 one-line
/// workgroups took 16 claims of 4 before) and single tiles at the end,
/// where they keep the workers finishing together.
fn claim_batch(left: u64, sharers: u64) -> u64 {
    (left / (2 * sharers)).max(1)
}

/// This thread's workgroup-local memory, at least `size` bytes (none
/// taken when `size` is 0); give it back with [`return_local_memory`].
fn take_local_memory(size: usize) -> Vec<u32> {
    let mut local_memory = if size > 0 {
        LOCAL_MEMORY.take()
    } else {
        Vec::new()
    };
    let words = size.div_ceil(4);
    if local_memory.len() < words {
        local_memory.resize(words, 0);
    }
    local_memory
}

/// Keeps `local_memory` for this thread's next run.
fn return_local_memory(local_memory: Vec<u32>) {
    if local_memory.capacity() > 0 {
        LOCAL_MEMORY.set(local_memory);
    }
}

/// The span one worker spent on one item of a region: from before its
/// first tile of the item to after its last.
#[derive(Clone, Copy, Debug)]
pub struct WorkerSlice {
    /// The item's index in the region.
    pub item: usize,
    /// The worker (`processor_id`).
    pub worker: u32,
    /// When the worker started the item's first tile it ran.
    pub start: Instant,
    /// When it finished the item's last tile it ran.
    pub end: Instant,
    /// Tiles of the item it ran.
    pub tiles: u64,
}

/// Told which item each run of tiles a worker starts belongs to, and how
/// many tiles it has; [`NoObserver`] compiles to nothing, so the
/// unprofiled loop is unchanged.
trait TileObserver {
    fn tiles(&mut self, item: usize, count: u64);
}

struct NoObserver;

impl TileObserver for NoObserver {
    #[inline(always)]
    fn tiles(&mut self, _item: usize, _count: u64) {}
}

/// Cuts a worker's run into [`WorkerSlice`]s, reading the clock only when
/// the item changes (tiles are claimed in order, so each item is one span).
struct SliceObserver {
    processor: u32,
    current: Option<WorkerSlice>,
    slices: WorkerSlices,
}

/// The [`WorkerSlice`]s of a region (inline for the usual few).
pub type WorkerSlices = SmallVec<[WorkerSlice; 4]>;

impl SliceObserver {
    fn close(&mut self, now: Instant) {
        if let Some(mut slice) = self.current.take() {
            slice.end = now;
            self.slices.push(slice);
        }
    }
}

impl TileObserver for SliceObserver {
    fn tiles(&mut self, item: usize, count: u64) {
        match &mut self.current {
            Some(slice) if slice.item == item => slice.tiles += count,
            _ => {
                let now = Instant::now();
                self.close(now);
                self.current = Some(WorkerSlice {
                    item,
                    worker: self.processor,
                    start: now,
                    end: now,
                    tiles: count,
                });
            }
        }
    }
}

/// The bytes of `words`.
fn as_bytes(words: &mut [u32]) -> &mut [u8] {
    let len = std::mem::size_of_val(words);
    // SAFETY: `u8` has no alignment or validity requirements, the byte view
    // covers exactly the words' memory, and it borrows `words` mutably for
    // its whole life.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}

/// Kernels run with denormals flushed to zero (inputs and results), as
/// upstream's local devices run them; the previous mode is restored on drop.
pub(crate) struct FlushDenormals {
    /// The control register to restore; `None` when FTZ and DAZ were
    /// already set (nested guards then cost one `stmxcsr` each).
    #[cfg(target_arch = "x86_64")]
    saved: Option<u32>,
}

impl FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn enter() -> FlushDenormals {
        const FTZ: u32 = 1 << 15;
        const DAZ: u32 = 1 << 6;
        let mut current = 0u32;
        // SAFETY: `stmxcsr` stores this thread's SSE control register.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut current, options(nostack)) };
        let flushed = current | FTZ | DAZ;
        if flushed == current {
            return FlushDenormals { saved: None };
        }
        // SAFETY: `ldmxcsr` writes this thread's SSE control register;
        // setting FTZ and DAZ changes only how denormals round, and `drop`
        // restores the saved value.
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &flushed, options(nostack)) };
        FlushDenormals {
            saved: Some(current),
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    pub(crate) fn enter() -> FlushDenormals {
        FlushDenormals {}
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if let Some(saved) = &self.saved {
            // SAFETY: restores the control register value saved in `enter`.
            unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) saved, options(nostack)) };
        }
    }
}

impl iree_hal::Executable for crate::EmbeddedElfLibrary {
    fn export_count(&self) -> usize {
        self.exports().len()
    }

    fn export_name(&self, ordinal: usize) -> Option<&str> {
        self.exports().get(ordinal).map(|e| e.name.as_str())
    }

    fn dispatch(
        &self,
        ordinal: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: &[BufferBinding<'_>],
    ) -> Result<()> {
        dispatch_grid(self, ordinal, constants, bindings, workgroup_count)
    }
}
