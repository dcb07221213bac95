//! Allocators: buffer parameters and their canonical form, compatibility
//! queries, memory heaps, statistics (printed as upstream's
//! `--print_statistics` prints them), and [`HeapAllocator`], the host-memory
//! allocator of the local devices.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

use iree_base::{Result, Status, StatusCode};
use parking_lot::Mutex;

use crate::buffer::{
    AllocationPool, Buffer, BufferUsage, ExternalHostMemory, HostMemory, MemoryAccess, MemoryType,
    HOST_ALLOCATION_ALIGNMENT,
};

/// How a buffer will be used (`iree_hal_buffer_params_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferParams {
    /// Intended usage.
    pub usage: BufferUsage,
    /// Required access.
    pub access: MemoryAccess,
    /// Required memory type.
    pub memory_type: MemoryType,
    /// Queues that may use the buffer (0 = any).
    pub queue_affinity: u64,
    /// Minimum alignment in bytes (0 = the allocator's).
    pub min_alignment: u64,
}

impl BufferParams {
    /// Fills unset fields as upstream does: usage DEFAULT, access ALL,
    /// memory type OPTIMAL.
    pub fn canonicalize(mut self) -> BufferParams {
        if self.usage == BufferUsage::NONE {
            self.usage = BufferUsage::DEFAULT;
        }
        if self.access == MemoryAccess::NONE {
            self.access = MemoryAccess::ALL;
        }
        if self.memory_type == MemoryType::NONE {
            self.memory_type = MemoryType::OPTIMAL;
        }
        self
    }
}

crate::buffer::bitfield! {
    /// What an allocator can do with buffers of some parameters
    /// (`iree_hal_buffer_compatibility_t`).
    BufferCompatibility(u32) {
        /// Nothing.
        NONE = 0,
        /// Can be allocated.
        ALLOCATABLE = 1 << 0,
        /// Can be imported.
        IMPORTABLE = 1 << 1,
        /// Can be exported.
        EXPORTABLE = 1 << 2,
        /// Usable by queue transfer operations.
        QUEUE_TRANSFER = 1 << 10,
        /// Usable by queue dispatch operations.
        QUEUE_DISPATCH = 1 << 11,
        /// Works, but slowly.
        LOW_PERFORMANCE = 1 << 20,
    }
    names [ALLOCATABLE, IMPORTABLE, EXPORTABLE, QUEUE_TRANSFER, QUEUE_DISPATCH, LOW_PERFORMANCE]
}

impl BufferCompatibility {
    fn with(self, other: BufferCompatibility) -> BufferCompatibility {
        BufferCompatibility(self.0 | other.0)
    }

    /// The queue use a command that uses a buffer for `usage` requires:
    /// dispatch for any dispatch usage, transfer for any transfer usage.
    pub fn required_for(usage: BufferUsage) -> BufferCompatibility {
        let mut required = BufferCompatibility::NONE;
        if usage.intersects(BufferUsage::DISPATCH) {
            required = required.with(BufferCompatibility::QUEUE_DISPATCH);
        }
        if usage.intersects(BufferUsage::TRANSFER) {
            required = required.with(BufferCompatibility::QUEUE_TRANSFER);
        }
        required
    }
}

/// Upstream's check that the device's allocator lets a queue use `buffer`
/// for `usage` (`iree_hal_command_buffer_validate_buffer_compatibility`,
/// run for every binding before its usage is checked): the allocator is
/// asked about the buffer's memory type and the part of `usage` the buffer
/// allows, and must grant the queue use [`BufferCompatibility::required_for`]
/// `usage`.
///
/// Errors: PERMISSION_DENIED "requested buffer usage is not supported for
/// the buffer on this queue; ... (allocator compatibility mismatch: ...)".
pub fn validate_queue_compatibility(
    allocator: &dyn Allocator,
    buffer: &Buffer,
    usage: BufferUsage,
) -> Result<()> {
    let required = BufferCompatibility::required_for(usage);
    let mut params = BufferParams {
        memory_type: buffer.memory_type(),
        usage: BufferUsage(buffer.allowed_usage().0 & usage.0),
        ..Default::default()
    };
    let allowed = allocator.query_buffer_compatibility(&mut params, buffer.allocation_size());
    if allowed.contains(required) {
        return Ok(());
    }
    Err(Status::new(
        StatusCode::PermissionDenied,
        format!(
            "requested buffer usage is not supported for the buffer on this queue; buffer allows \
             usage {}, operation requires {} (allocator compatibility mismatch: allowed \
             compatibility {}, requires {})",
            buffer.allowed_usage().format(),
            usage.format(),
            allowed.format(),
            required.format()
        ),
    ))
}

/// One memory heap an allocator offers (`iree_hal_allocator_memory_heap_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryHeap {
    /// The heap's memory type.
    pub memory_type: MemoryType,
    /// Usage its buffers may have.
    pub allowed_usage: BufferUsage,
    /// Largest single allocation.
    pub max_allocation_size: u64,
    /// Alignment of its allocations.
    pub min_alignment: u64,
}

/// Bytes allocated and freed per heap kind (`iree_hal_allocator_statistics_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocatorStatistics {
    /// Peak live host-local bytes.
    pub host_bytes_peak: u64,
    /// Total host-local bytes allocated.
    pub host_bytes_allocated: u64,
    /// Total host-local bytes freed.
    pub host_bytes_freed: u64,
    /// Peak live device bytes.
    pub device_bytes_peak: u64,
    /// Total device bytes allocated.
    pub device_bytes_allocated: u64,
    /// Total device bytes freed.
    pub device_bytes_freed: u64,
}

impl AllocatorStatistics {
    /// Records an allocation: HOST_LOCAL memory counts as host, anything
    /// else as device.
    pub fn record_alloc(&mut self, memory_type: MemoryType, size: u64) {
        if memory_type.contains(MemoryType::HOST_LOCAL) {
            self.host_bytes_allocated += size;
            self.host_bytes_peak = self
                .host_bytes_peak
                .max(self.host_bytes_allocated - self.host_bytes_freed);
        } else {
            self.device_bytes_allocated += size;
            self.device_bytes_peak = self
                .device_bytes_peak
                .max(self.device_bytes_allocated - self.device_bytes_freed);
        }
    }

    /// Records a deallocation.
    pub fn record_free(&mut self, memory_type: MemoryType, size: u64) {
        if memory_type.contains(MemoryType::HOST_LOCAL) {
            self.host_bytes_freed += size;
        } else {
            self.device_bytes_freed += size;
        }
    }

    /// The report `--print_statistics` prints for an allocator, exactly as
    /// upstream formats it.
    pub fn format(&self) -> String {
        format!(
            "[[ iree_hal_allocator_t memory statistics ]]\n  HOST_LOCAL: {:>12}B peak / {:>12}B allocated / {:>12}B freed / {:>12}B live\nDEVICE_LOCAL: {:>12}B peak / {:>12}B allocated / {:>12}B freed / {:>12}B live\n",
            self.host_bytes_peak,
            self.host_bytes_allocated,
            self.host_bytes_freed,
            self.host_bytes_allocated - self.host_bytes_freed,
            self.device_bytes_peak,
            self.device_bytes_allocated,
            self.device_bytes_freed,
            self.device_bytes_allocated - self.device_bytes_freed,
        )
    }
}

/// Shared statistics an allocator's buffers report their frees to.
pub type SharedStatistics = Arc<Mutex<AllocatorStatistics>>;

/// A buffer allocator (`iree_hal_allocator_t`).
pub trait Allocator: Send + Sync {
    /// The heaps offered.
    fn memory_heaps(&self) -> Vec<MemoryHeap>;

    /// What can be done with buffers of `params`; may adjust `params` to what
    /// the allocator would actually provide.
    fn query_buffer_compatibility(
        &self,
        params: &mut BufferParams,
        allocation_size: u64,
    ) -> BufferCompatibility;

    /// Allocates a zeroed buffer of `allocation_size` bytes.
    fn allocate_buffer(&self, params: BufferParams, allocation_size: u64) -> Result<Buffer>;

    /// Allocates a buffer holding a copy of `contents` (host data handed to
    /// a call). Host allocators write the bytes once instead of zeroing the
    /// buffer first; others allocate and then write.
    fn allocate_buffer_with(&self, params: BufferParams, contents: &[u8]) -> Result<Buffer> {
        let buffer = self.allocate_buffer(params, contents.len() as u64)?;
        if !contents.is_empty() {
            buffer.write(0, contents)?;
        }
        Ok(buffer)
    }

    /// Wraps external host memory in a buffer without copying
    /// (`iree_hal_allocator_import_buffer`). Allocators that cannot use
    /// host memory directly return UNAVAILABLE, and callers copy instead.
    fn import_host_memory(
        &self,
        params: BufferParams,
        memory: ExternalHostMemory,
    ) -> Result<Buffer> {
        let _ = (params, memory);
        Err(Status::new(
            StatusCode::Unavailable,
            "this allocator cannot import host memory",
        ))
    }

    /// Current statistics.
    fn statistics(&self) -> AllocatorStatistics;

    /// Releases memory kept for reuse (`iree_hal_allocator_trim`), for
    /// callers that know no similar allocation is coming soon.
    fn trim(&self) {}
}

/// Host memory for local devices (upstream's heap allocator): one heap,
/// DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT.
#[derive(Default)]
pub struct HeapAllocator {
    statistics: SharedStatistics,
    /// Memory of dropped transient buffers, for the next queue allocations.
    transients: Arc<TransientCache>,
    /// Small transient buffers' allocations, whole, for reuse.
    small_transients: Arc<AllocationPool>,
}

/// Host memory that transient buffers (queue allocations) gave back when
/// they dropped, by capacity, for later queue allocations to reuse: a
/// program calling the same function again finds its transients' memory
/// already mapped and faulted in, as upstream's caching allocators do.
#[derive(Default)]
struct TransientCache {
    blocks: Mutex<BTreeMap<usize, Vec<HostMemory>>>,
}

/// Transients of at most this many bytes keep their whole allocation for
/// reuse by one of the same size and properties ([`AllocationPool`], which
/// keeps a bounded number of bytes): a model's per-call scratch of a few
/// KiB is then neither allocated, zeroed nor freed at each call.
const SMALL_TRANSIENT_MAX: usize = 64 << 10;

/// A reused block may be up to this many times larger than the request.
const TRANSIENT_SLACK: usize = 2;

/// Smaller transients come from the heap, whose allocator already reuses
/// freed memory without faulting and costs less than the cache's
/// bookkeeping.
const TRANSIENT_CACHE_MIN: usize = 256 << 10;

impl TransientCache {
    /// A cached block of at least `size` bytes (and at most
    /// [`TRANSIENT_SLACK`] times that). On a miss the cache is emptied, so
    /// memory kept for sizes no longer asked for never adds to a new peak.
    fn take(&self, size: usize) -> Option<HostMemory> {
        let mut blocks = self.blocks.lock();
        let upper = size.saturating_mul(TRANSIENT_SLACK).max(size);
        let capacity = *blocks.range(size..=upper).next()?.0;
        let list = blocks.get_mut(&capacity)?;
        let block = list.pop();
        if list.is_empty() {
            blocks.remove(&capacity);
        }
        block
    }

    fn clear(&self) {
        let released = std::mem::take(&mut *self.blocks.lock());
        drop(released);
    }

    fn put(&self, block: HostMemory) {
        self.blocks
            .lock()
            .entry(block.len())
            .or_default()
            .push(block);
    }
}

/// The owner of a transient buffer's memory: gives the block back to its
/// cache when the buffer's last reference drops.
struct CachedBlock {
    block: Option<HostMemory>,
    cache: Weak<TransientCache>,
}

impl Drop for CachedBlock {
    fn drop(&mut self) {
        if let (Some(block), Some(cache)) = (self.block.take(), self.cache.upgrade()) {
            cache.put(block);
        }
    }
}

impl Drop for HeapAllocator {
    fn drop(&mut self) {
        // Pooled allocations refer to their pool: freed here, not leaked.
        self.small_transients.close();
    }
}

impl HeapAllocator {
    /// A new allocator with zeroed statistics.
    pub fn new() -> Arc<HeapAllocator> {
        Arc::new(HeapAllocator::default())
    }

    /// `params` canonicalized and completed as this allocator serves them,
    /// or INVALID_ARGUMENT when it cannot allocate such a buffer.
    fn allocatable(&self, params: BufferParams, allocation_size: u64) -> Result<BufferParams> {
        let mut params = params.canonicalize();
        if !self
            .query_buffer_compatibility(&mut params, allocation_size)
            .contains(BufferCompatibility::ALLOCATABLE)
        {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "allocator cannot allocate a buffer with the given parameters",
            ));
        }
        Ok(params)
    }

    /// A fresh zeroed heap buffer for `params` (already [`Self::allocatable`]).
    fn heap_buffer(&self, params: BufferParams, allocation_size: u64) -> Result<Buffer> {
        self.heap_buffer_counted(params, allocation_size, true)
    }

    /// A heap buffer, recorded in the allocator's statistics when `counted`.
    fn heap_buffer_counted(
        &self,
        params: BufferParams,
        allocation_size: u64,
        counted: bool,
    ) -> Result<Buffer> {
        Buffer::allocate_host_tracked(
            allocation_size,
            params.memory_type,
            params.usage,
            params.access,
            counted.then(|| self.statistics.clone()),
        )
    }

    /// A buffer for a queue allocation (`queue.alloca`): like
    /// [`Allocator::allocate_buffer`], but its memory may be that of a
    /// transient buffer dropped earlier (of up to twice the size), so
    /// steady-state calls neither map nor fault in fresh pages (buffers of
    /// under 256 KiB come straight from the heap). Its contents are
    /// unspecified (zeros, or bytes an earlier buffer left). `counted`
    /// says whether it shows in the allocator's statistics: upstream's
    /// `local-task` serves queue allocations from pools its statistics do
    /// not count, `local-sync` from its allocator.
    pub fn allocate_transient(
        &self,
        params: BufferParams,
        allocation_size: u64,
        counted: bool,
    ) -> Result<Buffer> {
        let params = self.allocatable(params, allocation_size)?;
        let size = usize::try_from(allocation_size).map_err(|_| {
            Status::new(
                StatusCode::ResourceExhausted,
                format!("cannot allocate {allocation_size} bytes"),
            )
        })?;
        if size <= SMALL_TRANSIENT_MAX {
            if let Some(buffer) = self.small_transients.take(
                size,
                params.memory_type,
                params.usage,
                params.access,
                counted,
            ) {
                return Ok(buffer);
            }
            return Buffer::allocate_pooled(
                allocation_size,
                params.memory_type,
                params.usage,
                params.access,
                counted.then(|| self.statistics.clone()),
                &self.small_transients,
            );
        }
        if size < TRANSIENT_CACHE_MIN {
            return self.heap_buffer_counted(params, allocation_size, counted);
        }
        let block = match self.transients.take(size) {
            Some(block) => block,
            None => {
                self.transients.clear();
                HostMemory::zeroed(size)?
            }
        };
        let ptr = block.ptr();
        let owner = CachedBlock {
            block: Some(block),
            cache: Arc::downgrade(&self.transients),
        };
        // SAFETY: the block holds at least `size` bytes at `ptr` and is
        // owned by `owner` alone (it left the cache), which keeps it alive
        // until the buffer's memory drops and only then returns it.
        let memory = unsafe { HostMemory::from_foreign(ptr, size, Box::new(owner)) };
        Ok(Buffer::from_host_memory(
            memory,
            params.memory_type,
            params.usage,
            params.access,
            counted.then(|| self.statistics.clone()),
        ))
    }
}

impl Allocator for HeapAllocator {
    fn memory_heaps(&self) -> Vec<MemoryHeap> {
        vec![MemoryHeap {
            memory_type: MemoryType::DEVICE_LOCAL
                | MemoryType::HOST_VISIBLE
                | MemoryType::HOST_COHERENT,
            allowed_usage: BufferUsage::TRANSFER
                | BufferUsage::DISPATCH
                | BufferUsage::SHARING_EXPORT
                | BufferUsage::SHARING_REPLICATE
                | BufferUsage::SHARING_CONCURRENT
                | BufferUsage::SHARING_IMMUTABLE
                | BufferUsage::MAPPING_SCOPED
                | BufferUsage::MAPPING_PERSISTENT
                | BufferUsage::MAPPING_OPTIONAL
                | BufferUsage::MAPPING_ACCESS_RANDOM
                | BufferUsage::MAPPING_ACCESS_SEQUENTIAL_WRITE,
            max_allocation_size: u64::MAX,
            min_alignment: HOST_ALLOCATION_ALIGNMENT as u64,
        }]
    }

    fn query_buffer_compatibility(
        &self,
        params: &mut BufferParams,
        _allocation_size: u64,
    ) -> BufferCompatibility {
        let mut compatibility = BufferCompatibility::ALLOCATABLE
            .with(BufferCompatibility::IMPORTABLE)
            .with(BufferCompatibility::EXPORTABLE);
        // Queue use needs device-visible memory, as on discrete devices.
        if params.memory_type.contains(MemoryType::DEVICE_VISIBLE) {
            if params.usage.intersects(BufferUsage::TRANSFER) {
                compatibility = compatibility.with(BufferCompatibility::QUEUE_TRANSFER);
            }
            if params.usage.intersects(BufferUsage::DISPATCH) {
                compatibility = compatibility.with(BufferCompatibility::QUEUE_DISPATCH);
            }
        }
        params.memory_type =
            MemoryType((params.memory_type | MemoryType::HOST_VISIBLE).0 & !MemoryType::OPTIMAL.0);
        params.usage = params.usage
            | BufferUsage::MAPPING_SCOPED
            | BufferUsage::MAPPING_PERSISTENT
            | BufferUsage::MAPPING_ACCESS_RANDOM
            | BufferUsage::TRANSFER;
        compatibility
    }

    fn allocate_buffer(&self, params: BufferParams, allocation_size: u64) -> Result<Buffer> {
        let params = self.allocatable(params, allocation_size)?;
        self.heap_buffer(params, allocation_size)
    }

    fn allocate_buffer_with(&self, params: BufferParams, contents: &[u8]) -> Result<Buffer> {
        let params = self.allocatable(params, contents.len() as u64)?;
        Buffer::allocate_host_copy(
            contents,
            params.memory_type,
            params.usage,
            params.access,
            Some(self.statistics.clone()),
        )
    }

    fn import_host_memory(
        &self,
        params: BufferParams,
        memory: ExternalHostMemory,
    ) -> Result<Buffer> {
        let mut params = params.canonicalize();
        if !self
            .query_buffer_compatibility(&mut params, memory.len() as u64)
            .contains(BufferCompatibility::IMPORTABLE)
        {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "allocator cannot import a buffer with the given parameters",
            ));
        }
        Buffer::import_host(memory, params.memory_type, params.usage, params.access)
    }

    fn statistics(&self) -> AllocatorStatistics {
        *self.statistics.lock()
    }

    fn trim(&self) {
        self.transients.clear();
        self.small_transients.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_with_contents_hold_exactly_them() {
        let allocator = HeapAllocator::new();
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DEFAULT,
            ..Default::default()
        };
        // Sizes around the recycled-block range, each twice: the second
        // allocation of a large size reuses the first one's block.
        // (Miri interprets every byte: the small sizes only there.)
        let sizes: &[usize] = if cfg!(miri) {
            &[0, 3, 4096]
        } else {
            &[0, 3, 4096, 1 << 20, (1 << 20) + 5]
        };
        for &len in sizes {
            for round in 0..2u8 {
                let contents: Vec<u8> = (0..len).map(|i| (i as u8) ^ round).collect();
                let buffer = allocator.allocate_buffer_with(params, &contents).unwrap();
                assert_eq!(buffer.byte_length(), len as u64);
                let mut back = vec![0u8; len];
                buffer.read(0, &mut back).unwrap();
                assert_eq!(back, contents, "{len} bytes, round {round}");
            }
        }
        let stats = allocator.statistics();
        assert_eq!(stats.device_bytes_allocated, stats.device_bytes_freed);
    }

    #[test]
    fn heap_allocations_are_host_visible_and_counted() {
        let allocator = HeapAllocator::new();
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DISPATCH_STORAGE,
            ..Default::default()
        };
        let buffer = allocator.allocate_buffer(params, 100).unwrap();
        assert!(buffer
            .memory_type()
            .contains(MemoryType::HOST_VISIBLE | MemoryType::DEVICE_LOCAL));
        assert!(buffer
            .allowed_usage()
            .contains(BufferUsage::TRANSFER | BufferUsage::MAPPING_SCOPED));
        assert_eq!(buffer.allowed_access(), MemoryAccess::ALL);
        buffer.write(0, &[1, 2, 3]).unwrap();
        let stats = allocator.statistics();
        assert_eq!(
            (
                stats.device_bytes_allocated,
                stats.device_bytes_peak,
                stats.device_bytes_freed
            ),
            (100, 100, 0)
        );
        let sub = buffer.subspan(10, 10).unwrap();
        drop(buffer);
        assert_eq!(
            allocator.statistics().device_bytes_freed,
            0,
            "a live subspan keeps the allocation"
        );
        drop(sub);
        assert_eq!(allocator.statistics().device_bytes_freed, 100);
        let host = allocator
            .allocate_buffer(
                BufferParams {
                    memory_type: MemoryType::HOST_LOCAL,
                    ..Default::default()
                },
                8,
            )
            .unwrap();
        drop(host);
        let stats = allocator.statistics();
        assert_eq!((stats.host_bytes_allocated, stats.host_bytes_freed), (8, 8));
    }

    #[test]
    fn transient_memory_is_reused_after_its_buffer_drops() {
        let allocator = HeapAllocator::new();
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            ..Default::default()
        };
        let address = |b: &Buffer| b.begin_device_access().unwrap().base_ptr() as usize;
        let first = allocator
            .allocate_transient(params, 1_000_000, true)
            .unwrap();
        let held = first.subspan(0, 16).unwrap();
        let a = address(&first);
        drop(first);
        let second = allocator.allocate_transient(params, 900_000, true).unwrap();
        assert_ne!(address(&second), a, "still held by a subspan");
        drop(held);
        drop(second);
        // Both blocks are cached now; a fitting request reuses one of them.
        let third = allocator
            .allocate_transient(params, 1_000_000, true)
            .unwrap();
        assert_eq!(address(&third), a);
        assert_eq!(third.byte_length(), 1_000_000);
        third.write(0, &[1, 2, 3]).unwrap();
        drop(third);
        // More than twice the request is not reused; the miss empties the
        // cache rather than keeping blocks nobody asks for.
        let small = allocator.allocate_transient(params, 300_000, true).unwrap();
        assert_ne!(address(&small), a);
        drop(small);
        assert!(allocator
            .transients
            .blocks
            .lock()
            .values()
            .flatten()
            .all(|b| b.len() == 300_000));
        let stats = allocator.statistics();
        assert_eq!(
            stats.device_bytes_allocated,
            1_000_000 + 900_000 + 1_000_000 + 300_000
        );
        assert_eq!(stats.device_bytes_freed, stats.device_bytes_allocated);
    }

    /// Small transients keep their whole allocation for reuse by one of the
    /// same size and properties once every buffer of it (subspans too)
    /// dropped; the statistics count each use as an allocation and a free,
    /// as fresh allocations would be counted.
    #[test]
    fn small_transient_allocations_are_reused_whole() {
        let allocator = HeapAllocator::new();
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            ..Default::default()
        };
        let address = |b: &Buffer| b.begin_device_access().unwrap().base_ptr() as usize;
        let first = allocator.allocate_transient(params, 64, true).unwrap();
        let held = first.subspan(16, 16).unwrap();
        let a = address(&first);
        drop(first);
        let second = allocator.allocate_transient(params, 64, true).unwrap();
        assert_ne!(address(&second), a, "still held by a subspan");
        drop(held);
        let third = allocator.allocate_transient(params, 64, true).unwrap();
        assert_eq!(address(&third), a);
        assert_eq!(third.byte_length(), 64);
        // Another size, or uncounted, is another allocation.
        let other = allocator.allocate_transient(params, 16, true).unwrap();
        assert!(address(&other) != a && address(&other) != address(&second));
        let uncounted = allocator.allocate_transient(params, 64, false).unwrap();
        assert!(address(&uncounted) != a && address(&uncounted) != address(&second));
        let stats = allocator.statistics();
        assert_eq!(stats.device_bytes_allocated, 64 * 3 + 16);
        assert_eq!(stats.device_bytes_freed, 64);
        drop((second, third, other, uncounted));
        let stats = allocator.statistics();
        assert_eq!(stats.device_bytes_freed, stats.device_bytes_allocated);
        assert_eq!(allocator.small_transients.free.lock().len(), 4);
        // Trimming frees them without counting the frees again.
        allocator.trim();
        assert_eq!(allocator.statistics().device_bytes_freed, 64 * 3 + 16);
    }

    #[test]
    fn pooled_transients_keep_a_bounded_number_of_bytes() {
        let allocator = HeapAllocator::new();
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            ..Default::default()
        };
        let size = SMALL_TRANSIENT_MAX;
        let held: Vec<Buffer> = (0..8)
            .map(|_| {
                allocator
                    .allocate_transient(params, size as u64, true)
                    .unwrap()
            })
            .collect();
        drop(held);
        let pooled = allocator.small_transients.pooled_bytes();
        assert!(
            pooled > 0 && pooled <= AllocationPool::CAPACITY_BYTES,
            "{pooled}"
        );
        // A reused one is the same memory, as its last user left it.
        allocator.trim();
        let first = allocator.allocate_transient(params, 4096, true).unwrap();
        first.write(0, &[7; 16]).unwrap();
        drop(first);
        let again = allocator.allocate_transient(params, 4096, true).unwrap();
        let mut bytes = [0; 16];
        again.read(0, &mut bytes).unwrap();
        assert_eq!(bytes, [7; 16]);
    }

    #[test]
    fn statistics_print_like_upstream() {
        let mut stats = AllocatorStatistics::default();
        stats.record_alloc(MemoryType::DEVICE_LOCAL | MemoryType::HOST_VISIBLE, 256);
        stats.record_alloc(MemoryType::DEVICE_LOCAL | MemoryType::HOST_VISIBLE, 64);
        stats.record_free(MemoryType::DEVICE_LOCAL | MemoryType::HOST_VISIBLE, 256);
        assert_eq!(
            stats.format(),
            "[[ iree_hal_allocator_t memory statistics ]]\n  HOST_LOCAL:            0B peak /            0B allocated /            0B freed /            0B live\nDEVICE_LOCAL:          320B peak /          320B allocated /          256B freed /           64B live\n"
        );
    }

    #[test]
    fn compatibility_follows_upstream() {
        let allocator = HeapAllocator::new();
        let mut params = BufferParams {
            memory_type: MemoryType::HOST_LOCAL,
            usage: BufferUsage::TRANSFER,
            ..Default::default()
        };
        let c = allocator.query_buffer_compatibility(&mut params, 4);
        assert!(c.contains(BufferCompatibility::ALLOCATABLE));
        assert!(
            !c.contains(BufferCompatibility::QUEUE_TRANSFER),
            "not device visible"
        );
        let mut params = BufferParams {
            memory_type: MemoryType::OPTIMAL | MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DISPATCH_STORAGE,
            ..Default::default()
        };
        let c = allocator.query_buffer_compatibility(&mut params, 4);
        assert!(c.contains(BufferCompatibility::QUEUE_DISPATCH));
        assert!(!params.memory_type.intersects(MemoryType::OPTIMAL));
        assert!(params.memory_type.contains(MemoryType::HOST_VISIBLE));
    }
}
