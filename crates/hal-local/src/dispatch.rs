//! Running an executable export over a whole workgroup grid with HAL buffers
//! as bindings: what a local device does for `dispatch` commands.
//!
//! Every allocation a binding touches is held under a device-access guard
//! for the whole dispatch, so no host mapping (Rust code) can observe the
//! memory while kernels write it; bindings sharing an allocation share one
//! guard. Ranges are checked against the buffers; what a kernel does inside
//! its bindings is trusted, as upstream trusts it.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use iree_base::{bail, Result, Status, StatusCode};
use iree_hal::buffer::{calculate_range, DeviceAccess};
use iree_hal::Buffer;
use parking_lot::Mutex;

use crate::executable::WorkgroupExecutable;
use crate::library::{DispatchStateV0, WorkgroupStateV0};
use crate::pool::WorkerPool;

/// One binding of a dispatch: a byte range of a buffer.
#[derive(Clone, Copy, Debug)]
pub struct BufferBinding<'a> {
    /// The buffer.
    pub buffer: &'a Buffer,
    /// Offset within the buffer.
    pub offset: u64,
    /// Length in bytes ([`iree_hal::WHOLE_BUFFER`] for the rest of the buffer).
    pub length: u64,
}

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
    run_grid(
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
    run_grid(
        library,
        ordinal,
        constants,
        bindings,
        workgroup_count,
        Workers::Pool(pool),
    )
}

/// Who runs a grid's workgroups.
enum Workers<'a> {
    /// The calling thread plus scoped threads spawned for this dispatch.
    Scoped(usize),
    /// A persistent pool (the calling thread is its worker 0).
    Pool(&'a WorkerPool),
}

fn run_grid(
    library: &dyn WorkgroupExecutable,
    ordinal: usize,
    constants: &[u32],
    bindings: &[BufferBinding<'_>],
    workgroup_count: [u32; 3],
    executor: Workers<'_>,
) -> Result<()> {
    let workers = match executor {
        Workers::Scoped(n) => n,
        Workers::Pool(pool) => pool.workers(),
    };
    let Some(export) = library.exports().get(ordinal) else {
        bail!(
            OutOfRange,
            "export ordinal {ordinal} out of range; library has {} exports",
            library.exports().len()
        );
    };
    if constants.len() != export.constant_count() || bindings.len() != export.binding_count() {
        bail!(
            InvalidArgument,
            "export '{}' takes {} constants and {} bindings; {} and {} given",
            export.name,
            export.constant_count(),
            export.binding_count(),
            constants.len(),
            bindings.len()
        );
    }
    let Ok(count_z) = u16::try_from(workgroup_count[2]) else {
        bail!(
            OutOfRange,
            "workgroup count z {} exceeds 65535",
            workgroup_count[2]
        );
    };
    if workgroup_count.contains(&0) {
        return Ok(());
    }
    let total = u64::from(workgroup_count[0]) * u64::from(workgroup_count[1]) * u64::from(count_z);
    // The ABI carries the concurrency in 8 bits.
    let workers = workers.clamp(1, total.min(u64::from(u8::MAX)) as usize);

    // One device-access guard per distinct allocation, held until we return.
    let mut guards: Vec<(&Buffer, DeviceAccess<'_>)> = Vec::new();
    let mut binding_ptrs: Vec<*mut c_void> = Vec::with_capacity(bindings.len());
    let mut binding_lengths: Vec<usize> = Vec::with_capacity(bindings.len());
    for binding in bindings {
        let length = calculate_range(binding.buffer.byte_length(), binding.offset, binding.length)?;
        let index = match guards
            .iter()
            .position(|(b, _)| Buffer::same_allocation(b, binding.buffer))
        {
            Some(index) => index,
            None => {
                guards.push((binding.buffer, binding.buffer.begin_device_access()?));
                guards.len() - 1
            }
        };
        let start = binding.buffer.byte_offset() + binding.offset;
        // In bounds: `calculate_range` checked `offset + length` against the
        // buffer, which lies inside its allocation.
        let ptr = guards[index].1.base_ptr().wrapping_add(start as usize);
        binding_ptrs.push(ptr.cast());
        binding_lengths.push(length as usize);
    }

    let state = DispatchStateV0::new(
        export,
        [workgroup_count[0], workgroup_count[1]],
        count_z,
        workers as u8,
        constants,
        &binding_ptrs,
        &binding_lengths,
    );
    let grid = Grid {
        library,
        ordinal,
        state: &state,
        local_memory_size: export.local_memory_size(),
        next: AtomicU64::new(0),
        total,
        failure: Mutex::new(None),
    };
    if workers == 1 {
        grid.work(0);
    } else if let Workers::Pool(pool) = executor {
        // Pool workers past this grid's concurrency sit it out, so every
        // `processor_id` stays below `max_concurrency`.
        pool.run(&|processor| {
            if (processor as usize) < workers {
                grid.work(processor);
            }
        });
    } else {
        std::thread::scope(|scope| {
            for processor in 1..workers {
                let grid = &grid;
                scope.spawn(move || grid.work(processor as u32));
            }
            grid.work(0);
        });
    }
    drop(guards);
    match grid.failure.into_inner() {
        Some(status) => Err(status),
        None => Ok(()),
    }
}

/// The shared state of one grid run: workers claim workgroups by index.
struct Grid<'a> {
    library: &'a dyn WorkgroupExecutable,
    ordinal: usize,
    state: &'a DispatchStateV0,
    local_memory_size: usize,
    /// The next unclaimed linear workgroup index (x fastest).
    next: AtomicU64,
    total: u64,
    failure: Mutex<Option<Status>>,
}

// SAFETY: `Grid` is shared only among the scoped workers of one dispatch.
// The dispatch state it points to is read-only while they run; its pointers
// reach constants and binding ranges kept alive (and, for bindings, held
// under device-access guards) until every worker has joined. Kernels for
// distinct workgroups are trusted to write disjoint data, as upstream's
// local-task executor trusts them.
unsafe impl Sync for Grid<'_> {}

impl Grid<'_> {
    /// Claims and runs workgroups until none are left or one has failed.
    fn work(&self, processor_id: u32) {
        let _fpu = FlushDenormals::enter();
        let mut local_memory = vec![0u8; self.local_memory_size];
        let [count_x, count_y] = [self.state.workgroup_count_x, self.state.workgroup_count_y];
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            if index >= self.total {
                return;
            }
            let x = (index % u64::from(count_x)) as u32;
            let y = ((index / u64::from(count_x)) % u64::from(count_y)) as u32;
            let z = (index / (u64::from(count_x) * u64::from(count_y))) as u16;
            let workgroup = WorkgroupStateV0::new([x, y], z, processor_id, &mut local_memory);
            // SAFETY: constant and binding counts match the export (checked
            // by the caller); every binding pointer/length pair lies inside an
            // allocation held under a device-access guard for the whole
            // dispatch, so no Rust code reads or writes it concurrently;
            // constants and this worker's local memory are live for the call.
            // The kernel's own accesses within its bindings are trusted, as
            // documented in the crate.
            let result = unsafe {
                self.library
                    .run_workgroup(self.ordinal, self.state, &workgroup)
            };
            let failure = match result {
                Ok(0) => continue,
                Ok(code) => Status::new(
                    StatusCode::Internal,
                    format!(
                        "dispatch '{}' workgroup [{x}, {y}, {z}] failed with result {code}",
                        self.library.exports()[self.ordinal].name
                    ),
                ),
                Err(status) => status,
            };
            // Stop everyone from claiming more; keep the first failure.
            self.next.store(self.total, Ordering::Relaxed);
            self.failure.lock().get_or_insert(failure);
            return;
        }
    }
}

/// Kernels run with denormals flushed to zero (inputs and results), as
/// upstream's local devices run them; the previous mode is restored on drop.
struct FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

impl FlushDenormals {
    #[cfg(target_arch = "x86_64")]
    fn enter() -> FlushDenormals {
        const FTZ: u32 = 1 << 15;
        const DAZ: u32 = 1 << 6;
        let mut saved = 0u32;
        // SAFETY: `stmxcsr`/`ldmxcsr` read and write this thread's SSE control
        // register; setting FTZ and DAZ changes only how denormals round, and
        // `drop` restores the saved value.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut saved, options(nostack));
            let flushed = saved | FTZ | DAZ;
            std::arch::asm!("ldmxcsr [{}]", in(reg) &flushed, options(nostack));
        }
        FlushDenormals { saved }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn enter() -> FlushDenormals {
        FlushDenormals {}
    }
}

impl Drop for FlushDenormals {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: restores the control register value saved in `enter`.
        unsafe {
            std::arch::asm!("ldmxcsr [{}]", in(reg) &self.saved, options(nostack));
        }
    }
}

/// Borrows resolved HAL dispatch bindings as [`BufferBinding`]s.
pub fn buffer_bindings(bindings: &[iree_hal::DispatchBinding]) -> Vec<BufferBinding<'_>> {
    bindings
        .iter()
        .map(|b| BufferBinding {
            buffer: &b.buffer,
            offset: b.offset,
            length: b.length,
        })
        .collect()
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
        bindings: &[iree_hal::DispatchBinding],
    ) -> Result<()> {
        let bindings = buffer_bindings(bindings);
        dispatch_grid(self, ordinal, constants, &bindings, workgroup_count)
    }
}
