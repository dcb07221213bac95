//! Allocators: buffer parameters and their canonical form, compatibility
//! queries, memory heaps, statistics (printed as upstream's
//! `--print_statistics` prints them), and [`HeapAllocator`], the host-memory
//! allocator of the local devices.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use parking_lot::Mutex;

use crate::buffer::{
    Buffer, BufferUsage, ExternalHostMemory, MemoryAccess, MemoryType, HOST_ALLOCATION_ALIGNMENT,
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

/// What an allocator can do with buffers of some parameters
/// (`iree_hal_buffer_compatibility_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferCompatibility(pub u32);

impl BufferCompatibility {
    /// Nothing.
    pub const NONE: BufferCompatibility = BufferCompatibility(0);
    /// Can be allocated.
    pub const ALLOCATABLE: BufferCompatibility = BufferCompatibility(1 << 0);
    /// Can be imported.
    pub const IMPORTABLE: BufferCompatibility = BufferCompatibility(1 << 1);
    /// Can be exported.
    pub const EXPORTABLE: BufferCompatibility = BufferCompatibility(1 << 2);
    /// Usable by queue transfer operations.
    pub const QUEUE_TRANSFER: BufferCompatibility = BufferCompatibility(1 << 10);
    /// Usable by queue dispatch operations.
    pub const QUEUE_DISPATCH: BufferCompatibility = BufferCompatibility(1 << 11);
    /// Works, but slowly.
    pub const LOW_PERFORMANCE: BufferCompatibility = BufferCompatibility(1 << 20);

    /// True when every bit of `other` is set.
    pub fn contains(self, other: BufferCompatibility) -> bool {
        self.0 & other.0 == other.0
    }

    fn with(self, other: BufferCompatibility) -> BufferCompatibility {
        BufferCompatibility(self.0 | other.0)
    }
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
}

/// Host memory for local devices (upstream's heap allocator): one heap,
/// DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT.
#[derive(Default)]
pub struct HeapAllocator {
    statistics: SharedStatistics,
}

impl HeapAllocator {
    /// A new allocator with zeroed statistics.
    pub fn new() -> Arc<HeapAllocator> {
        Arc::new(HeapAllocator::default())
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
        Buffer::allocate_host_tracked(
            allocation_size,
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
