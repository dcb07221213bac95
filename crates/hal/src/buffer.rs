//! HAL buffers: memory types, usage and access bits (with upstream's values,
//! which bytecode passes as raw integers), range and compatibility
//! validation with upstream's errors, and host-memory buffers with subspans.
//!
//! Host and device access to an allocation exclude each other (see
//! `docs/hal-plan.md`): host code reads or writes through closures while no
//! device work holds the allocation, and device work takes a
//! [`DeviceAccess`] guard that hands out the raw base pointer. Both sides
//! try-acquire and fail with FAILED_PRECONDITION rather than wait, since a
//! correct program orders them with fences.

use std::cell::Cell;
use std::fmt;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use iree_base::bytes::fill_pattern;
use iree_base::{Result, Status, StatusCode};

use crate::allocator::SharedStatistics;

macro_rules! bitfield {
    ($(#[$meta:meta])* $name:ident($repr:ty) { $($(#[$cmeta:meta])* $c:ident = $v:expr,)+ } names [$($n:ident),+ $(,)?]) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name(pub $repr);

        impl $name {
            $($(#[$cmeta])* pub const $c: $name = $name($v);)+

            /// True when every bit of `other` is set.
            pub fn contains(self, other: $name) -> bool {
                self.0 & other.0 == other.0
            }

            /// True when any bit of `other` is set.
            pub fn intersects(self, other: $name) -> bool {
                self.0 & other.0 != 0
            }

            /// Upstream's text form (`iree_bitfield_format`): known names
            /// joined by `|`, composite names first, leftover bits in hex
            /// with an `h` suffix (`80000000h`); nothing for no bits.
            pub fn format(self) -> String {
                let mut rest = self.0;
                let mut parts: Vec<String> = Vec::new();
                for (name, bits) in [$((stringify!($n), $name::$n.0)),+] {
                    if bits != 0 && rest & bits == bits {
                        parts.push(name.to_string());
                        rest &= !bits;
                    }
                }
                if rest != 0 {
                    parts.push(format!("{rest:X}h"));
                }
                parts.join("|")
            }
        }

        impl ::std::ops::BitOr for $name {
            type Output = $name;
            fn bitor(self, rhs: $name) -> $name {
                $name(self.0 | rhs.0)
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.format())
            }
        }
    };
}
pub(crate) use bitfield;

bitfield! {
    /// Where memory lives and how the host may see it (`iree_hal_memory_type_t`).
    MemoryType(u32) {
        /// No requirements.
        NONE = 0,
        /// Let the allocator pick the best type for the usage.
        OPTIMAL = 1 << 0,
        /// The host can map the memory.
        HOST_VISIBLE = 1 << 1,
        /// Host writes need no flush and reads no invalidate.
        HOST_COHERENT = 1 << 2,
        /// Host reads are cached.
        HOST_CACHED = 1 << 3,
        /// Memory local to the host.
        HOST_LOCAL = (1 << 1) | (1 << 2) | (1 << 6),
        /// The device can access the memory.
        DEVICE_VISIBLE = 1 << 4,
        /// Memory local to the device.
        DEVICE_LOCAL = (1 << 4) | (1 << 5),
    }
    names [HOST_LOCAL, DEVICE_LOCAL, OPTIMAL, HOST_VISIBLE, HOST_COHERENT, HOST_CACHED, DEVICE_VISIBLE]
}

bitfield! {
    /// How a buffer may be accessed (`iree_hal_memory_access_t`).
    MemoryAccess(u16) {
        /// No access.
        NONE = 0,
        /// Reads.
        READ = 1 << 0,
        /// Writes.
        WRITE = 1 << 1,
        /// Prior contents may be discarded.
        DISCARD = 1 << 2,
        /// Write without keeping prior contents.
        DISCARD_WRITE = (1 << 1) | (1 << 2),
        /// The range may alias others.
        MAY_ALIAS = 1 << 3,
        /// Unaligned access is allowed.
        UNALIGNED = 1 << 4,
        /// Any access is acceptable (skips validation).
        ANY = 1 << 5,
        /// Read, write and discard.
        ALL = (1 << 0) | (1 << 1) | (1 << 2),
    }
    names [ALL, DISCARD_WRITE, READ, WRITE, DISCARD, MAY_ALIAS, ANY]
}

bitfield! {
    /// What a buffer may be used for (`iree_hal_buffer_usage_t`).
    BufferUsage(u32) {
        /// No usage.
        NONE = 0,
        /// Source of transfers.
        TRANSFER_SOURCE = 1 << 0,
        /// Target of transfers.
        TRANSFER_TARGET = 1 << 1,
        /// Source and target of transfers.
        TRANSFER = (1 << 0) | (1 << 1),
        /// Indirect dispatch parameters.
        DISPATCH_INDIRECT_PARAMETERS = 1 << 8,
        /// Uniform reads from dispatches.
        DISPATCH_UNIFORM_READ = 1 << 9,
        /// Storage reads from dispatches.
        DISPATCH_STORAGE_READ = 1 << 10,
        /// Storage writes from dispatches.
        DISPATCH_STORAGE_WRITE = 1 << 11,
        /// Storage reads and writes.
        DISPATCH_STORAGE = (1 << 10) | (1 << 11),
        /// Image reads from dispatches.
        DISPATCH_IMAGE_READ = 1 << 12,
        /// Image writes from dispatches.
        DISPATCH_IMAGE_WRITE = 1 << 13,
        /// Image reads and writes.
        DISPATCH_IMAGE = (1 << 12) | (1 << 13),
        /// Every dispatch usage.
        DISPATCH = (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13),
        /// Exportable to other APIs.
        SHARING_EXPORT = 1 << 16,
        /// Replicable across devices.
        SHARING_REPLICATE = 1 << 17,
        /// Usable concurrently by several queues.
        SHARING_CONCURRENT = 1 << 18,
        /// Never modified after initialization.
        SHARING_IMMUTABLE = 1 << 19,
        /// Mappable for the duration of a scope.
        MAPPING_SCOPED = 1 << 24,
        /// Mappable persistently.
        MAPPING_PERSISTENT = 1 << 25,
        /// Mapping is optional.
        MAPPING_OPTIONAL = 1 << 26,
        /// Random mapped access.
        MAPPING_ACCESS_RANDOM = 1 << 27,
        /// Sequential mapped writes.
        MAPPING_ACCESS_SEQUENTIAL_WRITE = 1 << 28,
        /// Scoped random-access mapping.
        MAPPING = (1 << 24) | (1 << 27),
        /// Transfers plus dispatch storage.
        DEFAULT = (1 << 0) | (1 << 1) | (1 << 10) | (1 << 11),
    }
    names [
        TRANSFER, DISPATCH, DISPATCH_STORAGE, DISPATCH_IMAGE, MAPPING,
        TRANSFER_SOURCE, TRANSFER_TARGET, DISPATCH_INDIRECT_PARAMETERS, DISPATCH_UNIFORM_READ,
        DISPATCH_STORAGE_READ, DISPATCH_STORAGE_WRITE, DISPATCH_IMAGE_READ, DISPATCH_IMAGE_WRITE,
        SHARING_EXPORT, SHARING_REPLICATE, SHARING_CONCURRENT, SHARING_IMMUTABLE,
        MAPPING_SCOPED, MAPPING_PERSISTENT, MAPPING_OPTIONAL, MAPPING_ACCESS_RANDOM,
        MAPPING_ACCESS_SEQUENTIAL_WRITE,
    ]
}

/// A length meaning "to the end of the buffer" (`IREE_HAL_WHOLE_BUFFER`).
pub const WHOLE_BUFFER: u64 = u64::MAX;

/// Alignment of host allocations (`IREE_HAL_HEAP_BUFFER_ALIGNMENT`).
pub const HOST_ALLOCATION_ALIGNMENT: usize = 64;

/// The granule in which executables that may not race on memory (VMVX's
/// interpreter) read and write host memory: aligned words of this many
/// bytes. Host allocations and imported memory cover every word that holds
/// one of their bytes.
pub const HOST_ACCESS_WORD: usize = 4;

/// Fails unless `actual` has every bit of `expected`.
pub fn validate_memory_type(actual: MemoryType, expected: MemoryType) -> Result<()> {
    if actual.contains(expected) {
        return Ok(());
    }
    Err(Status::new(
        StatusCode::PermissionDenied,
        format!(
            "buffer memory type is not compatible with the requested operation; buffer has {}, operation requires {}",
            actual.format(),
            expected.format()
        ),
    ))
}

/// Fails unless `required` access is allowed (ANY always passes).
pub fn validate_access(allowed: MemoryAccess, required: MemoryAccess) -> Result<()> {
    if required.contains(MemoryAccess::ANY) {
        return Ok(());
    }
    if !required.intersects(MemoryAccess::READ | MemoryAccess::WRITE) {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "memory access must specify one or more of _READ or _WRITE",
        ));
    }
    if !allowed.contains(required) {
        return Err(Status::new(
            StatusCode::PermissionDenied,
            format!(
                "buffer does not support the requested access type; buffer allows {}, operation requires {}",
                allowed.format(),
                required.format()
            ),
        ));
    }
    Ok(())
}

/// Fails unless `required` usage was declared at allocation.
pub fn validate_usage(allowed: BufferUsage, required: BufferUsage) -> Result<()> {
    if allowed.contains(required) {
        return Ok(());
    }
    Err(Status::new(
        StatusCode::PermissionDenied,
        format!(
            "requested usage was not specified when the buffer was allocated; buffer allows {}, operation requires {}",
            allowed.format(),
            required.format()
        ),
    ))
}

/// Resolves `(offset, length)` within a range of `max_length` bytes,
/// expanding [`WHOLE_BUFFER`]; returns the concrete length.
#[inline]
pub fn calculate_range(max_length: u64, offset: u64, length: u64) -> Result<u64> {
    // Every dispatch binding comes through here: the in-range case is a
    // few compares, the errors are built out of line.
    if offset <= max_length {
        let left = max_length - offset;
        if length == WHOLE_BUFFER {
            return Ok(left);
        }
        if length <= left {
            return Ok(length);
        }
    }
    range_error(max_length, offset, length)
}

/// [`calculate_range`]'s error for a range outside `max_length` bytes.
#[cold]
#[inline(never)]
fn range_error(max_length: u64, offset: u64, length: u64) -> Result<u64> {
    if offset > max_length {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!(
                "attempted to access an address off the end of the valid buffer range (offset={offset}, length={}, buffer byte_length={max_length})",
                length as i64
            ),
        ));
    }
    let length = if length == WHOLE_BUFFER {
        max_length - offset
    } else {
        length
    };
    if length == 0 {
        return Ok(0);
    }
    let end = offset.checked_add(length - 1);
    match end {
        Some(end) if end < max_length => Ok(length),
        _ => Err(Status::new(
            StatusCode::OutOfRange,
            format!(
                "attempted to access an address outside of the valid buffer range (offset={offset}, adjusted_length={length}, end={}, buffer byte_length={max_length})",
                end.map_or(-1, |e| e as i64)
            ),
        )),
    }
}

/// Who is using an allocation right now, in one atomic word: whether a host
/// writer holds it, how many host readers, and how many device users. Every
/// change is one compare-exchange (or, to release, one subtraction), so the
/// per-dispatch cost of taking device access is a single atomic operation.
#[derive(Default)]
struct AccessState(AtomicU64);

impl AccessState {
    /// The host-writer bit.
    const WRITER: u64 = 1 << 63;
    /// One host reader (bits 32..63 count them).
    const READER: u64 = 1 << 32;
    const READERS: u64 = ((1 << 31) - 1) << 32;
    /// One device user (bits 0..32 count them).
    const DEVICE: u64 = 1;
    const DEVICES: u64 = u32::MAX as u64;

    /// Adds `one` to the word when none of `blocking` is set and the count
    /// under `field` has room; false otherwise.
    fn try_acquire(&self, blocking: u64, one: u64, field: u64) -> bool {
        let mut current = self.0.load(Ordering::Relaxed);
        loop {
            if current & blocking != 0 || current & field == field {
                return false;
            }
            match self.0.compare_exchange_weak(
                current,
                current + one,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(seen) => current = seen,
            }
        }
    }

    fn release(&self, one: u64) {
        self.0.fetch_sub(one, Ordering::Release);
    }
}

/// Zeroed, 64-byte aligned host memory with host/device access tracking.
pub struct HostMemory {
    /// The 64-byte aligned start of the usable bytes.
    ptr: std::ptr::NonNull<u8>,
    /// What the allocator or `mmap` returned (`ptr` lies past it).
    base: std::ptr::NonNull<u8>,
    len: usize,
    /// Where the bytes come from.
    backing: Backing,
    /// For [`Backing::Foreign`]: the value that frees the bytes on drop.
    owner: Option<Box<dyn std::any::Any + Send + Sync>>,
    state: AccessState,
}

/// How a [`HostMemory`]'s bytes were obtained.
enum Backing {
    /// The global allocator (`calloc`), with [`HostMemory::layout`].
    Heap,
    /// An anonymous mapping of this many bytes, advised to use transparent
    /// huge pages (large allocations on Linux).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Mapped(usize),
    /// Memory owned by someone else (a GPU driver's pinned host memory, a
    /// private file mapping), released when the owner is dropped.
    Foreign,
}

/// Host memory owned elsewhere and lent to a buffer without a copy
/// (`IREE_HAL_EXTERNAL_BUFFER_TYPE_HOST_ALLOCATION`), for example a private
/// mapping of a parameter file. The owner value keeps the bytes alive and
/// is dropped when the last buffer using them drops.
pub struct ExternalHostMemory {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
    owner: Box<dyn Send + Sync>,
    /// False for memory the host must never write (module rodata): buffers
    /// made from it allow no host writes.
    writable: bool,
}

impl ExternalHostMemory {
    /// Wraps `len` bytes at `ptr`, kept alive by `owner`.
    ///
    /// # Safety
    ///
    /// `[ptr, ptr + len)` must be valid for reads and writes for as long as
    /// `owner` lives, and nothing but buffers (made from this value or from
    /// another `ExternalHostMemory` over the same bytes) may access those
    /// bytes while it lives. The aligned
    /// [`HOST_ACCESS_WORD`]-byte words holding the range must lie in the same
    /// allocation (executables may read and write them whole, keeping the
    /// bytes outside the range as they are).
    pub unsafe fn new(ptr: *mut u8, len: usize, owner: Box<dyn Send + Sync>) -> Result<Self> {
        let ptr = std::ptr::NonNull::new(ptr).ok_or_else(|| {
            Status::new(
                StatusCode::InvalidArgument,
                "external host memory must not be null",
            )
        })?;
        Ok(ExternalHostMemory {
            ptr,
            len,
            owner,
            writable: true,
        })
    }

    /// Lends `range` of immutable shared bytes (a loaded module's image)
    /// without a copy. Buffers made from it refuse host writes (their access
    /// lacks WRITE); kernels that bind such a buffer are trusted not to write
    /// it, as they are trusted with every binding. Fails with OUT_OF_RANGE
    /// when `range` is not inside the bytes.
    pub fn from_shared(
        bytes: Arc<dyn AsRef<[u8]> + Send + Sync>,
        range: std::ops::Range<usize>,
    ) -> Result<Self> {
        let all: &[u8] = (*bytes).as_ref();
        let Some(window) = all.get(range.clone()) else {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "range [{}, {}) out of bounds of {} shared bytes",
                    range.start,
                    range.end,
                    all.len()
                ),
            ));
        };
        let (ptr, len) = (window.as_ptr(), window.len());
        // Kernels that cannot share memory non-atomically (VMVX) access it in
        // aligned words: the words holding the window must be shared bytes too.
        let (first, end) = (all.as_ptr() as usize, all.as_ptr() as usize + all.len());
        let word_start = (ptr as usize) / HOST_ACCESS_WORD * HOST_ACCESS_WORD;
        let word_end = (ptr as usize + len).div_ceil(HOST_ACCESS_WORD) * HOST_ACCESS_WORD;
        if len > 0 && (word_start < first || word_end > end) {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "range [{}, {}) of {} shared bytes does not cover whole {HOST_ACCESS_WORD}-byte words",
                    range.start,
                    range.end,
                    all.len()
                ),
            ));
        }
        // SAFETY: the bytes are reached only through shared references, so
        // nothing writes them, and the `Arc` kept as the owner keeps them
        // alive and in place. Host writes through the buffers made from
        // this value are refused (`writable: false`).
        let mut memory = unsafe { Self::new(ptr.cast_mut(), len, Box::new(bytes)) }?;
        memory.writable = false;
        Ok(memory)
    }

    /// False for read-only memory ([`ExternalHostMemory::from_shared`]).
    pub fn is_writable(&self) -> bool {
        self.writable
    }

    /// The address of the first byte.
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// The size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for zero bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Allocations at least this large are mapped 2 MiB-aligned with
/// `MADV_HUGEPAGE`: kernels sweeping megabytes of tensor data then take a
/// fraction of the TLB misses and page faults (the kernel zero-fills each
/// huge page once). Smaller ones use the heap.
const HUGE_PAGE_THRESHOLD: usize = 2 << 20;
const HUGE_PAGE_SIZE: usize = 2 << 20;

// SAFETY: the memory is owned by this value; every access from Rust goes
// through `map_read`/`map_write`, which hold the access state that excludes
// device users, and device users only get raw pointers for code outside Rust.
unsafe impl Send for HostMemory {}
// SAFETY: as above; shared references never hand out overlapping Rust
// mutable access (one host writer at a time, no host access during device use).
unsafe impl Sync for HostMemory {}

impl HostMemory {
    /// The underlying allocation: `len` bytes plus room to align the start
    /// by hand. Its alignment stays at the allocator's natural 16 bytes so
    /// zeroed allocations become `calloc`, which hands large sizes fresh
    /// zero pages from the OS instead of writing zeros over every page (as
    /// an over-aligned `alloc_zeroed` would: that touched the whole buffer
    /// up front and cost ~5% on a 1024^3 matmul run).
    fn layout(len: usize) -> Result<std::alloc::Layout> {
        // Whole aligned blocks past the start, so that the words holding the
        // last bytes (`HOST_ACCESS_WORD`) are inside the allocation too.
        len.max(1)
            .checked_next_multiple_of(HOST_ALLOCATION_ALIGNMENT)
            .and_then(|size| size.checked_add(HOST_ALLOCATION_ALIGNMENT - 1))
            .and_then(|size| std::alloc::Layout::from_size_align(size, 16).ok())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::ResourceExhausted,
                    format!("cannot allocate {len} bytes"),
                )
            })
    }

    /// Allocates `len` zeroed bytes (lazily: the OS supplies zero pages).
    pub fn zeroed(len: usize) -> Result<HostMemory> {
        Self::allocate(len, None)
    }

    /// Allocates a copy of `bytes`: each byte written once, where allocating
    /// zeroed bytes and then writing them would write a recycled block
    /// twice (arrays handed to a call are copied this way).
    pub fn copy_of(bytes: &[u8]) -> Result<HostMemory> {
        Self::allocate(bytes.len(), Some(bytes))
    }

    /// `len` bytes holding `contents` (of that length) or zeros.
    fn allocate(len: usize, contents: Option<&[u8]>) -> Result<HostMemory> {
        #[cfg(target_os = "linux")]
        if len >= HUGE_PAGE_THRESHOLD {
            if let Some(memory) = Self::mapped(len) {
                if let Some(bytes) = contents {
                    // SAFETY: the fresh mapping holds `len` writable bytes at
                    // `ptr` that nothing else refers to yet.
                    unsafe {
                        std::ptr::copy_nonoverlapping(bytes.as_ptr(), memory.ptr.as_ptr(), len)
                    };
                }
                return Ok(memory);
            }
        }
        let layout = Self::layout(len)?;
        let (raw, zeroed) = match recycled_blocks::take(layout) {
            Some(block) => (block.as_ptr(), false),
            // SAFETY: `layout` has a non-zero size.
            None if contents.is_none() => (unsafe { std::alloc::alloc_zeroed(layout) }, true),
            // SAFETY: as above; every byte is written below before use.
            None => (unsafe { std::alloc::alloc(layout) }, false),
        };
        let base = std::ptr::NonNull::new(raw).ok_or_else(|| {
            Status::new(
                StatusCode::ResourceExhausted,
                format!("cannot allocate {len} bytes"),
            )
        })?;
        let padding = raw.align_offset(HOST_ALLOCATION_ALIGNMENT);
        debug_assert!(padding < HOST_ALLOCATION_ALIGNMENT);
        // SAFETY: `padding < HOST_ALLOCATION_ALIGNMENT`, and the allocation
        // has `HOST_ALLOCATION_ALIGNMENT - 1` spare bytes past `len`, so
        // `[ptr, ptr + len)` lies inside it.
        let ptr = unsafe { base.add(padding) };
        if !zeroed {
            // SAFETY: the whole block (`layout.size()` bytes from `raw`) is
            // ours and nothing else refers to it; `[ptr, ptr + len)` lies in
            // it. Bytes around the contents are zeroed too: executables may
            // read the words holding the first and last bytes whole.
            unsafe {
                match contents {
                    Some(bytes) => {
                        std::ptr::write_bytes(raw, 0, padding);
                        std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.as_ptr(), len);
                        std::ptr::write_bytes(
                            ptr.as_ptr().add(len),
                            0,
                            layout.size() - padding - len,
                        );
                    }
                    None => std::ptr::write_bytes(raw, 0, layout.size()),
                }
            }
        } else if let Some(bytes) = contents {
            // SAFETY: as above (a zeroed fresh block, written once more).
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.as_ptr(), len) };
        }
        Ok(HostMemory {
            ptr,
            base,
            len,
            backing: Backing::Heap,
            owner: None,
            state: AccessState::default(),
        })
    }

    /// Maps `len` zeroed bytes starting on a huge-page boundary and asks for
    /// transparent huge pages; `None` when the mapping fails (the caller
    /// falls back to the heap).
    #[cfg(target_os = "linux")]
    fn mapped(len: usize) -> Option<HostMemory> {
        use rustix::mm::{madvise, mmap_anonymous, Advice, MapFlags, ProtFlags};
        let map_len = len.checked_add(HUGE_PAGE_SIZE)?;
        // SAFETY: a fresh private anonymous mapping at an address the kernel
        // picks aliases nothing.
        let raw = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                map_len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE,
            )
        }
        .ok()?;
        let base = std::ptr::NonNull::new(raw.cast::<u8>())?;
        let padding = base.as_ptr().align_offset(HUGE_PAGE_SIZE);
        // SAFETY: `padding < HUGE_PAGE_SIZE` and the mapping has
        // `HUGE_PAGE_SIZE` spare bytes past `len`.
        let ptr = unsafe { base.add(padding) };
        // Only whole huge pages: a partial one at the end would be backed
        // by a full 2 MiB page and count against the RSS for bytes past
        // `len`.
        let huge_len = len / HUGE_PAGE_SIZE * HUGE_PAGE_SIZE;
        // SAFETY: advising a range of our own mapping changes only how the
        // kernel backs it; failure (THP disabled) is harmless.
        let _ = unsafe { madvise(ptr.as_ptr().cast(), huge_len, Advice::LinuxHugepage) };
        Some(HostMemory {
            ptr,
            base,
            len,
            backing: Backing::Mapped(map_len),
            owner: None,
            state: AccessState::default(),
        })
    }

    /// Wraps `len` bytes at `ptr` that `owner` keeps alive and frees when
    /// dropped (a GPU driver's pinned host allocation). The bytes are
    /// reached through the same host/device access tracking as heap memory.
    ///
    /// # Safety
    ///
    /// `ptr` must be valid for reads and writes of `len` bytes until `owner`
    /// is dropped, and nothing else may access those bytes from Rust while
    /// this value lives.
    pub unsafe fn from_foreign(
        ptr: std::ptr::NonNull<u8>,
        len: usize,
        owner: Box<dyn std::any::Any + Send + Sync>,
    ) -> HostMemory {
        HostMemory {
            ptr,
            base: ptr,
            len,
            backing: Backing::Foreign,
            owner: Some(owner),
            state: AccessState::default(),
        }
    }

    /// The owner passed to [`HostMemory::from_foreign`], if any: drivers
    /// check it to recognize memory they allocated.
    pub fn owner(&self) -> Option<&(dyn std::any::Any + Send + Sync)> {
        self.owner.as_deref()
    }

    /// The size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a zero-byte allocation.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adopts external memory. Buffers may assume
    /// [`HOST_ALLOCATION_ALIGNMENT`], so a less aligned start is refused
    /// (callers then allocate and copy).
    pub fn external(memory: ExternalHostMemory) -> Result<HostMemory> {
        if memory.ptr.as_ptr().align_offset(HOST_ALLOCATION_ALIGNMENT) != 0 {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "imported host memory at {:p} is not {HOST_ALLOCATION_ALIGNMENT}-byte aligned",
                    memory.ptr
                ),
            ));
        }
        let owner: Box<dyn std::any::Any + Send + Sync> = Box::new(memory.owner);
        // SAFETY: `ExternalHostMemory::new`'s contract: the bytes stay valid
        // while the owner lives, and only buffers made from it touch them.
        Ok(unsafe { HostMemory::from_foreign(memory.ptr, memory.len, owner) })
    }

    /// The address of the first usable byte.
    pub(crate) fn ptr(&self) -> std::ptr::NonNull<u8> {
        self.ptr
    }

    fn in_use() -> Status {
        Status::new(
            StatusCode::FailedPrecondition,
            "buffer memory is in use by the device or another mapping",
        )
    }

    /// Runs `f` over bytes `[offset, offset + len)` for reading.
    pub fn map_read<R>(&self, offset: usize, len: usize, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        let end = self.checked_end(offset, len)?;
        if !self.state.try_acquire(
            AccessState::WRITER | AccessState::DEVICES,
            AccessState::READER,
            AccessState::READERS,
        ) {
            return Err(Self::in_use());
        }
        // SAFETY: `[offset, end)` lies inside the allocation, and the access
        // state guarantees no writer (host or device) until we release it.
        let bytes =
            unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(offset), end - offset) };
        let result = f(bytes);
        self.state.release(AccessState::READER);
        Ok(result)
    }

    /// Runs `f` over bytes `[offset, offset + len)` for writing.
    pub fn map_write<R>(
        &self,
        offset: usize,
        len: usize,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R> {
        let end = self.checked_end(offset, len)?;
        if !self
            .state
            .try_acquire(u64::MAX, AccessState::WRITER, AccessState::WRITER)
        {
            return Err(Self::in_use());
        }
        // SAFETY: `[offset, end)` lies inside the allocation, and the access
        // state makes this the only access of any kind until released.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(offset), end - offset) };
        let result = f(bytes);
        self.state.release(AccessState::WRITER);
        Ok(result)
    }

    /// Begins device use: no host mapping may exist or start until the
    /// guard drops. Several device users may overlap.
    pub fn begin_device_access(&self) -> Result<DeviceAccess<'_>> {
        if !self.state.try_acquire(
            AccessState::WRITER | AccessState::READERS,
            AccessState::DEVICE,
            AccessState::DEVICES,
        ) {
            return Err(Self::in_use());
        }
        Ok(DeviceAccess { memory: self })
    }

    fn checked_end(&self, offset: usize, len: usize) -> Result<usize> {
        offset
            .checked_add(len)
            .filter(|&end| end <= self.len)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "range (offset={offset}, length={len}) exceeds the {} byte allocation",
                        self.len
                    ),
                )
            })
    }
}

impl Drop for HostMemory {
    fn drop(&mut self) {
        match self.backing {
            Backing::Heap => {
                if let Ok(layout) = Self::layout(self.len) {
                    if let Some(block) = recycled_blocks::give(self.base, layout) {
                        // SAFETY: `base` was allocated in `zeroed` with this
                        // same layout (or recycled under it).
                        unsafe { std::alloc::dealloc(block.as_ptr(), layout) };
                    }
                }
            }
            #[cfg(target_os = "linux")]
            Backing::Mapped(map_len) => {
                // SAFETY: `base` is the start of our own mapping of
                // `map_len` bytes; nothing refers to it once we drop.
                let _ = unsafe { rustix::mm::munmap(self.base.as_ptr().cast(), map_len) };
            }
            #[cfg(not(target_os = "linux"))]
            Backing::Mapped(_) => {}
            // The owner frees the bytes when it is dropped with `self`.
            Backing::Foreign => {}
        }
    }
}

/// Device use of a [`HostMemory`]; host mappings fail while it lives.
pub struct DeviceAccess<'a> {
    memory: &'a HostMemory,
}

impl DeviceAccess<'_> {
    /// The base address, for code outside Rust (kernels) to read and write.
    pub fn base_ptr(&self) -> *mut u8 {
        self.memory.ptr.as_ptr()
    }

    /// The allocation size in bytes.
    pub fn len(&self) -> usize {
        self.memory.len
    }

    /// True for a zero-byte allocation.
    pub fn is_empty(&self) -> bool {
        self.memory.len == 0
    }
}

impl Drop for DeviceAccess<'_> {
    fn drop(&mut self) {
        self.memory.state.release(AccessState::DEVICE);
    }
}

/// Memory only a device can address (GPU device-local memory). The host
/// reaches it by synchronous transfers, which is how [`Buffer::map_read`],
/// [`Buffer::map_write`] and the byte helpers built on them work for such
/// buffers (upstream's tools move results to the host the same way).
pub trait DeviceMemory: Send + Sync {
    /// The allocation size in bytes.
    fn len(&self) -> u64;
    /// True for an empty allocation.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The device address of the first byte.
    fn device_address(&self) -> u64;
    /// Copies `out.len()` bytes starting at `offset` to the host; the
    /// range has been checked against [`DeviceMemory::len`].
    fn read(&self, offset: u64, out: &mut [u8]) -> Result<()>;
    /// Copies `data` to the device starting at `offset`; the range has been
    /// checked against [`DeviceMemory::len`].
    fn write(&self, offset: u64, data: &[u8]) -> Result<()>;
    /// The concrete type, for drivers that recognize their own memory.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Told of the host's reads and writes of an allocation through
/// [`Buffer`]'s methods (`write`, `map_write`, `fill`, `copy_from`, `read`,
/// `map_read`), after each completes: what a HAL replay capture records as
/// mapped writes and reads. Device work (queue operations, command buffers)
/// is not host access: drivers and queue transfers run it inside
/// [`without_host_access_observation`], and observers are not told of it.
/// Offsets are within the allocation.
pub trait HostAccessObserver: Send + Sync {
    /// The host wrote `bytes` at `offset` of `buffer`'s allocation.
    fn wrote(&self, buffer: &Buffer, offset: u64, bytes: &[u8]);
    /// The host read `length` bytes at `offset` of `buffer`'s allocation.
    fn read(&self, buffer: &Buffer, offset: u64, length: u64);
    /// The concrete observer, for its owner to recognize it.
    fn as_any(&self) -> &dyn std::any::Any;
}

thread_local! {
    /// Depth of [`without_host_access_observation`] on this thread.
    static UNOBSERVED: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f` as device work: buffer accesses it makes on this thread are not
/// reported to [`HostAccessObserver`]s.
pub fn without_host_access_observation<R>(f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            UNOBSERVED.with(|depth| depth.set(depth.get() - 1));
        }
    }
    UNOBSERVED.with(|depth| depth.set(depth.get() + 1));
    let _restore = Restore;
    f()
}

fn host_access_observed() -> bool {
    UNOBSERVED.with(|depth| depth.get() == 0)
}

/// Where an allocation's bytes live.
enum Storage {
    /// Host-addressable memory (heap, mapped, or a driver's pinned memory).
    Host(HostMemory),
    /// Device-only memory.
    Device(Arc<dyn DeviceMemory>),
}

impl Storage {
    fn len(&self) -> u64 {
        match self {
            Storage::Host(memory) => memory.len() as u64,
            Storage::Device(memory) => memory.len(),
        }
    }
}

/// One allocation shared by a buffer and its subspans.
pub struct Allocation {
    memory: Storage,
    memory_type: MemoryType,
    allowed_usage: BufferUsage,
    allowed_access: MemoryAccess,
    /// The allocator statistics to report the free to, if any.
    statistics: Option<SharedStatistics>,
    /// Told of host reads and writes, once one is attached.
    observer: OnceLock<Arc<dyn HostAccessObserver>>,
    /// Where the allocation goes for reuse when its last buffer drops
    /// (a heap allocator's small queue allocations).
    pool: Option<Arc<AllocationPool>>,
    /// Set while it waits in `pool` (its free already recorded).
    pooled: AtomicBool,
}

/// Allocations whose buffers all dropped, kept for reuse by the allocator
/// that made them (its small queue allocations: upstream serves those from
/// pools too), so a steady-state program allocates nothing for them. The
/// statistics see each reuse as an allocation and each return as a free,
/// exactly when a fresh allocation and its free would be recorded.
#[derive(Default)]
pub(crate) struct AllocationPool {
    pub(crate) free: parking_lot::Mutex<Vec<Arc<Allocation>>>,
    /// Set when the allocator is gone: allocations are freed, not kept.
    closed: AtomicBool,
}

impl AllocationPool {
    /// The most allocations kept.
    const CAPACITY: usize = 16;
    /// The most bytes kept, all allocations together.
    pub(crate) const CAPACITY_BYTES: u64 = 256 << 10;

    /// A pooled allocation of exactly `len` bytes with these properties,
    /// counted in its statistics or not, as a whole-allocation buffer; its
    /// contents are what its last user left.
    #[inline]
    pub(crate) fn take(
        &self,
        len: usize,
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
        counted: bool,
    ) -> Option<Buffer> {
        let mut free = self.free.lock();
        let index = free.iter().position(|a| {
            a.memory.len() == len as u64
                && a.memory_type == memory_type
                && a.allowed_usage == allowed_usage
                && a.allowed_access == allowed_access
                && a.statistics.is_some() == counted
        })?;
        let allocation = free.swap_remove(index);
        drop(free);
        allocation.pooled.store(false, Ordering::Relaxed);
        if let Some(statistics) = &allocation.statistics {
            statistics.lock().record_alloc(memory_type, len as u64);
        }
        Some(Buffer {
            allocation: ManuallyDrop::new(allocation),
            offset: 0,
            length: len as u64,
        })
    }

    /// Takes back `allocation`, whose last buffer is dropping (so nobody
    /// else holds it: allocations have no weak references), recording its
    /// free; gives it back, for the caller to drop, when the pool is full
    /// or closed, or when an observer (a replay capture's) watches it.
    #[must_use]
    fn put(&self, allocation: Arc<Allocation>) -> Option<Arc<Allocation>> {
        if allocation.observer.get().is_some() {
            return Some(allocation);
        }
        let mut free = self.free.lock();
        // Checked under the lock that `close` empties the list under.
        if free.len() >= Self::CAPACITY
            || bytes_of(&free) + allocation.memory.len() > Self::CAPACITY_BYTES
            || self.closed.load(Ordering::Relaxed)
        {
            return Some(allocation);
        }
        if let Some(statistics) = &allocation.statistics {
            statistics
                .lock()
                .record_free(allocation.memory_type, allocation.memory.len());
        }
        allocation.pooled.store(true, Ordering::Relaxed);
        free.push(allocation);
        None
    }

    /// The bytes of the pooled allocations.
    #[cfg(test)]
    pub(crate) fn pooled_bytes(&self) -> u64 {
        bytes_of(&self.free.lock())
    }

    /// Frees every pooled allocation.
    pub(crate) fn clear(&self) {
        let released = std::mem::take(&mut *self.free.lock());
        drop(released);
    }

    /// Frees every pooled allocation and keeps none from now on (the
    /// allocator is dropping; the pooled allocations refer to the pool).
    pub(crate) fn close(&self) {
        let released = {
            let mut free = self.free.lock();
            self.closed.store(true, Ordering::Relaxed);
            std::mem::take(&mut *free)
        };
        drop(released);
    }
}

/// The bytes of `allocations`.
fn bytes_of(allocations: &[Arc<Allocation>]) -> u64 {
    allocations.iter().map(|a| a.memory.len()).sum()
}

impl Drop for Allocation {
    fn drop(&mut self) {
        if *self.pooled.get_mut() {
            return;
        }
        if let Some(statistics) = &self.statistics {
            statistics
                .lock()
                .record_free(self.memory_type, self.memory.len());
        }
    }
}

/// A HAL buffer: a byte range of an allocation, with the allocation's
/// memory type, usage and access.
pub struct Buffer {
    /// Dropped by `Buffer`'s `Drop`, which may hand it to its pool.
    allocation: ManuallyDrop<Arc<Allocation>>,
    offset: u64,
    length: u64,
}

impl Clone for Buffer {
    fn clone(&self) -> Buffer {
        Buffer {
            allocation: ManuallyDrop::new(Arc::clone(&self.allocation)),
            offset: self.offset,
            length: self.length,
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: taken once, here; `self.allocation` is not used again.
        let allocation = unsafe { ManuallyDrop::take(&mut self.allocation) };
        if let Some(pool) = &allocation.pool {
            if Arc::strong_count(&allocation) == 1 {
                let pool = Arc::as_ptr(pool);
                // SAFETY: the pool lives as long as the call: `allocation`
                // holds a strong reference to it, which `put` either keeps
                // in the pool itself or hands back to be dropped here,
                // after the call.
                let rejected = unsafe { (*pool).put(allocation) };
                drop(rejected);
            }
        }
    }
}

impl Buffer {
    /// Allocates `length` zeroed host bytes.
    pub fn allocate_host(
        length: u64,
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
    ) -> Result<Buffer> {
        Self::allocate_host_tracked(length, memory_type, allowed_usage, allowed_access, None)
    }

    /// As [`Buffer::allocate_host`], recording the allocation (and later its
    /// free) in an allocator's statistics.
    pub fn allocate_host_tracked(
        length: u64,
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
        statistics: Option<SharedStatistics>,
    ) -> Result<Buffer> {
        let len = usize::try_from(length).map_err(|_| {
            Status::new(
                StatusCode::ResourceExhausted,
                format!("cannot allocate {length} bytes"),
            )
        })?;
        let memory = HostMemory::zeroed(len)?;
        Ok(Self::from_host_memory(
            memory,
            memory_type,
            allowed_usage,
            allowed_access,
            statistics,
        ))
    }

    /// As [`Buffer::allocate_host_tracked`], holding a copy of `bytes`
    /// (written once, not zeroed first).
    pub fn allocate_host_copy(
        bytes: &[u8],
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
        statistics: Option<SharedStatistics>,
    ) -> Result<Buffer> {
        let memory = HostMemory::copy_of(bytes)?;
        Ok(Self::from_host_memory(
            memory,
            memory_type,
            allowed_usage,
            allowed_access,
            statistics,
        ))
    }

    /// A buffer over external host memory (`iree_hal_allocator_import_buffer`
    /// of a host allocation): no copy, and the memory's owner lives until
    /// the last buffer sharing it drops.
    pub fn import_host(
        memory: ExternalHostMemory,
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
    ) -> Result<Buffer> {
        let allowed_access = if memory.is_writable() {
            allowed_access
        } else {
            MemoryAccess(allowed_access.0 & !MemoryAccess::DISCARD_WRITE.0)
        };
        Ok(Self::from_host_memory(
            HostMemory::external(memory)?,
            memory_type,
            allowed_usage,
            allowed_access,
            None,
        ))
    }

    /// The byte length of this buffer (a subspan's own length).
    pub fn byte_length(&self) -> u64 {
        self.length
    }

    /// The offset of this buffer within its allocation.
    pub fn byte_offset(&self) -> u64 {
        self.offset
    }

    /// The size of the underlying allocation.
    pub fn allocation_size(&self) -> u64 {
        self.allocation.memory.len()
    }

    /// The memory type.
    pub fn memory_type(&self) -> MemoryType {
        self.allocation.memory_type
    }

    /// The usage declared at allocation.
    pub fn allowed_usage(&self) -> BufferUsage {
        self.allocation.allowed_usage
    }

    /// The access allowed.
    pub fn allowed_access(&self) -> MemoryAccess {
        self.allocation.allowed_access
    }

    /// True when both buffers share one allocation.
    pub fn same_allocation(a: &Buffer, b: &Buffer) -> bool {
        Arc::ptr_eq(&a.allocation, &b.allocation)
    }

    /// Attaches `observer` to this buffer's allocation (shared by every
    /// subspan); false when one is already attached.
    pub fn observe_host_access(&self, observer: Arc<dyn HostAccessObserver>) -> bool {
        self.allocation.observer.set(observer).is_ok()
    }

    /// The observer attached to this buffer's allocation, if any.
    pub fn host_access_observer(&self) -> Option<&Arc<dyn HostAccessObserver>> {
        self.allocation.observer.get()
    }

    /// The observer to tell of a host access now, if any.
    #[inline]
    fn observer_now(&self) -> Option<&Arc<dyn HostAccessObserver>> {
        self.allocation
            .observer
            .get()
            .filter(|_| host_access_observed())
    }

    /// Tells the observer, if any, of the bytes now at `[start, start + len)`
    /// of the allocation (after a host write).
    fn observe_write(&self, start: usize, len: usize) {
        let Some(observer) = self.observer_now() else {
            return;
        };
        let _ = match &self.allocation.memory {
            Storage::Host(memory) => memory.map_read(start, len, |bytes| {
                observer.wrote(self, start as u64, bytes)
            }),
            Storage::Device(memory) => {
                let mut staging = vec![0u8; len];
                memory
                    .read(start as u64, &mut staging)
                    .map(|()| observer.wrote(self, start as u64, &staging))
            }
        };
    }

    /// Tells the observer, if any, of a host read of `[start, start + len)`.
    fn observe_read(&self, start: usize, len: usize) {
        if let Some(observer) = self.observer_now() {
            observer.read(self, start as u64, len as u64);
        }
    }

    /// A buffer over `[offset, offset + length)` of this one ([`WHOLE_BUFFER`]
    /// for "to the end"), sharing the allocation.
    pub fn subspan(&self, offset: u64, length: u64) -> Result<Buffer> {
        let length = calculate_range(self.length, offset, length)?;
        Ok(Buffer {
            allocation: ManuallyDrop::new(Arc::clone(&self.allocation)),
            offset: self.offset + offset,
            length,
        })
    }

    /// Resolves `(offset, length)` of this buffer to an absolute range of
    /// its allocation. Host memory must be HOST_VISIBLE; device-only memory
    /// is reached by transfers, which need no mapping.
    fn host_range(&self, offset: u64, length: u64) -> Result<(usize, usize)> {
        if matches!(self.allocation.memory, Storage::Host(_)) {
            validate_memory_type(self.memory_type(), MemoryType::HOST_VISIBLE)?;
        }
        let length = calculate_range(self.length, offset, length)?;
        let start = self.offset + offset;
        match (usize::try_from(start), usize::try_from(length)) {
            (Ok(start), Ok(length)) => Ok((start, length)),
            _ => Err(Status::new(
                StatusCode::OutOfRange,
                format!("range (offset={start}, length={length}) is not addressable by the host"),
            )),
        }
    }

    /// Copies bytes out (`iree_hal_buffer_map_read`).
    pub fn read(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        self.map_read(offset, out.len() as u64, |bytes| out.copy_from_slice(bytes))
    }

    /// Copies bytes in (`iree_hal_buffer_map_write`).
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        self.map_write(offset, data.len() as u64, |bytes| {
            bytes.copy_from_slice(data)
        })
    }

    /// Runs `f` over the bytes `[offset, offset + length)` mapped for
    /// reading (a scoped `iree_hal_buffer_map_range`), without copying for
    /// host memory; device-only memory is copied to a staging vector first.
    pub fn map_read<R>(&self, offset: u64, length: u64, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
        validate_access(self.allowed_access(), MemoryAccess::READ)?;
        let (start, len) = self.host_range(offset, length)?;
        let result = match &self.allocation.memory {
            Storage::Host(memory) => memory.map_read(start, len, f)?,
            Storage::Device(memory) => {
                let mut staging = vec![0u8; len];
                memory.read(start as u64, &mut staging)?;
                f(&staging)
            }
        };
        self.observe_read(start, len);
        Ok(result)
    }

    /// Runs `f` over the bytes `[offset, offset + length)` mapped for
    /// writing, without copying for host memory; device-only memory is read
    /// into a staging vector and written back after `f`.
    pub fn map_write<R>(
        &self,
        offset: u64,
        length: u64,
        f: impl FnOnce(&mut [u8]) -> R,
    ) -> Result<R> {
        validate_access(self.allowed_access(), MemoryAccess::WRITE)?;
        let (start, len) = self.host_range(offset, length)?;
        let result = match &self.allocation.memory {
            Storage::Host(memory) => memory.map_write(start, len, f)?,
            Storage::Device(memory) => {
                let mut staging = vec![0u8; len];
                memory.read(start as u64, &mut staging)?;
                let result = f(&mut staging);
                memory.write(start as u64, &staging)?;
                result
            }
        };
        self.observe_write(start, len);
        Ok(result)
    }

    /// Copies `length` bytes of `source` starting at `source_offset` to this
    /// buffer at `target_offset` (`iree_hal_buffer_map_copy`), without an
    /// intermediate copy for host memory. The ranges may lie in one
    /// allocation and overlap; the copy then behaves like `memmove`.
    pub fn copy_from(
        &self,
        target_offset: u64,
        source: &Buffer,
        source_offset: u64,
        length: u64,
    ) -> Result<()> {
        if let (true, Storage::Host(memory)) = (
            Buffer::same_allocation(self, source),
            &self.allocation.memory,
        ) {
            validate_access(self.allowed_access(), MemoryAccess::READ)?;
            validate_access(self.allowed_access(), MemoryAccess::WRITE)?;
            let (from, len) = source.host_range(source_offset, length)?;
            let (to, _) = self.host_range(target_offset, len as u64)?;
            let start = from.min(to);
            let span = from.max(to) + len - start;
            memory.map_write(start, span, |bytes| {
                bytes.copy_within(from - start..from - start + len, to - start)
            })?;
            self.observe_write(to, len);
            return Ok(());
        }
        source.map_read(source_offset, length, |bytes| {
            self.write(target_offset, bytes)
        })?
    }

    /// Fills `[offset, offset + length)` with a repeated 1, 2 or 4 byte
    /// pattern (`iree_hal_buffer_map_fill`).
    pub fn fill(&self, offset: u64, length: u64, pattern: &[u8]) -> Result<()> {
        if !matches!(pattern.len(), 1 | 2 | 4) {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "fill patterns must be 1, 2 or 4 bytes (got {})",
                    pattern.len()
                ),
            ));
        }
        validate_access(self.allowed_access(), MemoryAccess::WRITE)?;
        let (start, len) = self.host_range(offset, length)?;
        if len % pattern.len() != 0 || start % pattern.len() != 0 {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "fill offset and length must be aligned to the {} byte pattern",
                    pattern.len()
                ),
            ));
        }
        let fill = |bytes: &mut [u8]| fill_pattern(bytes, pattern, 0);
        match &self.allocation.memory {
            Storage::Host(memory) => memory.map_write(start, len, fill)?,
            Storage::Device(memory) => {
                let mut staging = vec![0u8; len];
                fill(&mut staging);
                memory.write(start as u64, &staging)?
            }
        }
        self.observe_write(start, len);
        Ok(())
    }

    /// Begins device use of the whole allocation; the returned guard gives
    /// the base pointer, and this buffer's range is
    /// `[byte_offset, byte_offset + byte_length)` from it. Device-only
    /// memory has no host pointer: FAILED_PRECONDITION (drivers use
    /// [`Buffer::device_memory`]).
    pub fn begin_device_access(&self) -> Result<DeviceAccess<'_>> {
        match &self.allocation.memory {
            Storage::Host(memory) => memory.begin_device_access(),
            Storage::Device(_) => Err(Status::new(
                StatusCode::FailedPrecondition,
                "device-only memory has no host address",
            )),
        }
    }

    /// Wraps host memory a driver allocated (pinned memory) as a buffer.
    pub fn from_host_memory(
        memory: HostMemory,
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
        statistics: Option<SharedStatistics>,
    ) -> Buffer {
        Self::from_storage(
            Storage::Host(memory),
            memory_type,
            allowed_usage,
            allowed_access,
            statistics,
        )
    }

    /// Wraps device-only memory as a buffer.
    pub fn from_device_memory(
        memory: Arc<dyn DeviceMemory>,
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
        statistics: Option<SharedStatistics>,
    ) -> Buffer {
        Self::from_storage(
            Storage::Device(memory),
            memory_type,
            allowed_usage,
            allowed_access,
            statistics,
        )
    }

    fn from_storage(
        memory: Storage,
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
        statistics: Option<SharedStatistics>,
    ) -> Buffer {
        let length = memory.len();
        if let Some(statistics) = &statistics {
            statistics.lock().record_alloc(memory_type, length);
        }
        Buffer {
            allocation: ManuallyDrop::new(Arc::new(Allocation {
                memory,
                memory_type,
                allowed_usage,
                allowed_access,
                statistics,
                observer: OnceLock::new(),
                pool: None,
                pooled: AtomicBool::new(false),
            })),
            offset: 0,
            length,
        }
    }

    /// As [`Buffer::allocate_host_tracked`], for an allocation that goes
    /// back to `pool` when its last buffer drops ([`AllocationPool::take`]
    /// hands it out again).
    pub(crate) fn allocate_pooled(
        length: u64,
        memory_type: MemoryType,
        allowed_usage: BufferUsage,
        allowed_access: MemoryAccess,
        statistics: Option<SharedStatistics>,
        pool: &Arc<AllocationPool>,
    ) -> Result<Buffer> {
        let mut buffer = Self::allocate_host_tracked(
            length,
            memory_type,
            allowed_usage,
            allowed_access,
            statistics,
        )?;
        Arc::get_mut(&mut buffer.allocation)
            .expect("a new allocation is unshared")
            .pool = Some(pool.clone());
        Ok(buffer)
    }

    /// The device-only memory behind this buffer, if that is where it lives.
    pub fn device_memory(&self) -> Option<&Arc<dyn DeviceMemory>> {
        match &self.allocation.memory {
            Storage::Device(memory) => Some(memory),
            Storage::Host(_) => None,
        }
    }

    /// The host memory behind this buffer, if that is where it lives.
    pub fn host_memory(&self) -> Option<&HostMemory> {
        match &self.allocation.memory {
            Storage::Host(memory) => Some(memory),
            Storage::Device(_) => None,
        }
    }
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Buffer[{}+{}; {:?}; {:?}; {:?}]",
            self.offset,
            self.length,
            self.memory_type(),
            self.allowed_usage(),
            self.allowed_access()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(len: u64) -> Buffer {
        Buffer::allocate_host(
            len,
            MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE,
            BufferUsage::DEFAULT | BufferUsage::MAPPING,
            MemoryAccess::ALL,
        )
        .unwrap()
    }

    #[test]
    fn values_match_upstream() {
        assert_eq!(MemoryType::HOST_LOCAL.0, 0x46);
        assert_eq!(MemoryType::DEVICE_LOCAL.0, 0x30);
        assert_eq!(BufferUsage::DEFAULT.0, 0xC03);
        assert_eq!(BufferUsage::MAPPING.0, 0x0900_0000);
        assert_eq!(MemoryAccess::ALL.0, 7);
        assert_eq!(
            (MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE).format(),
            "HOST_LOCAL|DEVICE_VISIBLE"
        );
        assert_eq!(MemoryAccess(0x40).format(), "40h");
        assert_eq!(MemoryAccess(0).format(), "");
    }

    #[test]
    fn subspans_share_memory_and_check_ranges() {
        let b = host(16);
        let s = b.subspan(4, 8).unwrap();
        s.write(0, &[1, 2, 3, 4]).unwrap();
        let mut out = [0u8; 8];
        b.read(2, &mut out).unwrap();
        assert_eq!(out, [0, 0, 1, 2, 3, 4, 0, 0]);
        assert_eq!(b.subspan(4, WHOLE_BUFFER).unwrap().byte_length(), 12);
        assert_eq!(
            s.write(6, &[0; 4]).unwrap_err().code(),
            StatusCode::OutOfRange
        );
        assert_eq!(b.subspan(17, 0).unwrap_err().code(), StatusCode::OutOfRange);
        assert_eq!(
            b.subspan(u64::MAX - 1, 4).unwrap_err().code(),
            StatusCode::OutOfRange
        );
        assert!(Buffer::same_allocation(&b, &s));
    }

    #[test]
    fn fill_repeats_patterns() {
        let b = host(8);
        b.fill(0, 8, &[0xAB, 0xCD]).unwrap();
        let mut out = [0u8; 8];
        b.read(0, &mut out).unwrap();
        assert_eq!(out, [0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD]);
        assert_eq!(
            b.fill(1, 2, &[0, 0]).unwrap_err().code(),
            StatusCode::InvalidArgument
        );
        assert_eq!(
            b.fill(0, 3, &[0, 0, 0]).unwrap_err().code(),
            StatusCode::InvalidArgument
        );
    }

    #[test]
    fn host_and_device_access_exclude_each_other() {
        let b = host(8);
        {
            let device = b.begin_device_access().unwrap();
            let also = b.begin_device_access().unwrap();
            assert_eq!(device.len(), 8);
            assert_eq!(device.base_ptr(), also.base_ptr());
            assert_eq!(
                b.write(0, &[1]).unwrap_err().code(),
                StatusCode::FailedPrecondition
            );
            assert_eq!(
                b.read(0, &mut [0]).unwrap_err().code(),
                StatusCode::FailedPrecondition
            );
        }
        b.write(0, &[1]).unwrap();
    }

    #[test]
    fn validation_follows_upstream() {
        let ro = Buffer::allocate_host(
            4,
            MemoryType::HOST_LOCAL,
            BufferUsage::TRANSFER,
            MemoryAccess::READ,
        )
        .unwrap();
        assert_eq!(
            ro.write(0, &[1]).unwrap_err().code(),
            StatusCode::PermissionDenied
        );
        let device_only = Buffer::allocate_host(
            4,
            MemoryType::DEVICE_LOCAL,
            BufferUsage::TRANSFER,
            MemoryAccess::ALL,
        )
        .unwrap();
        assert_eq!(
            device_only.read(0, &mut [0]).unwrap_err().code(),
            StatusCode::PermissionDenied
        );
        assert_eq!(
            validate_access(MemoryAccess::ALL, MemoryAccess::DISCARD)
                .unwrap_err()
                .code(),
            StatusCode::InvalidArgument
        );
        validate_access(MemoryAccess::NONE, MemoryAccess::ANY).unwrap();
        assert_eq!(
            validate_usage(BufferUsage::TRANSFER, BufferUsage::DISPATCH_STORAGE)
                .unwrap_err()
                .code(),
            StatusCode::PermissionDenied
        );
        assert_eq!(calculate_range(10, 10, 0).unwrap(), 0);
        assert_eq!(calculate_range(10, 2, WHOLE_BUFFER).unwrap(), 8);
    }
}

/// Large heap blocks freed by [`HostMemory`], kept for the next allocation
/// of the same layout. A call that allocates and frees a result of 1 MiB
/// each time would otherwise have the C allocator map and unmap it every
/// call (its dynamic mmap threshold), paying ~256 page faults where one
/// `memset` suffices: 1 MiB calls from Python ran 4x slower than upstream's
/// when results were dropped at once. The cache is bounded in blocks and
/// bytes; smaller blocks go straight back to the allocator, larger ones use
/// `HostMemory::mapped`.
mod recycled_blocks {
    use std::alloc::Layout;
    use std::ptr::NonNull;

    use parking_lot::Mutex;

    /// Blocks smaller than this are the C allocator's to reuse.
    const MIN_BYTES: usize = 64 << 10;
    /// At most this many blocks are kept...
    const MAX_BLOCKS: usize = 8;
    /// ...holding at most this many bytes together.
    const MAX_BYTES: usize = 16 << 20;

    /// Freed blocks and their layouts.
    struct Blocks(Vec<(NonNull<u8>, Layout)>);

    // SAFETY: the blocks are plain memory owned by the cache alone.
    unsafe impl Send for Blocks {}

    static CACHE: Mutex<Blocks> = Mutex::new(Blocks(Vec::new()));

    /// A cached block of exactly `layout`, if one is kept.
    pub(super) fn take(layout: Layout) -> Option<NonNull<u8>> {
        if layout.size() < MIN_BYTES {
            return None;
        }
        let mut cache = CACHE.lock();
        let at = cache.0.iter().position(|(_, l)| *l == layout)?;
        Some(cache.0.swap_remove(at).0)
    }

    /// Keeps `block` (of `layout`) for reuse when it fits the bounds;
    /// otherwise hands it back for the caller to free.
    pub(super) fn give(block: NonNull<u8>, layout: Layout) -> Option<NonNull<u8>> {
        if layout.size() < MIN_BYTES {
            return Some(block);
        }
        let mut cache = CACHE.lock();
        let held: usize = cache.0.iter().map(|(_, l)| l.size()).sum();
        if cache.0.len() >= MAX_BLOCKS || held + layout.size() > MAX_BYTES {
            return Some(block);
        }
        cache.0.push((block, layout));
        None
    }
}
