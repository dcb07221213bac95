//! `vm.buffer`: a reference-counted byte buffer, either mutable guest memory or
//! a read-only view of module rodata.
//!
//! Every `vm.buffer.*` opcode has a method here that carries its exact runtime
//! semantics, so the interpreter only decodes registers and forwards them:
//!
//! * Offsets and lengths arrive as raw i64 register values and are
//!   reinterpreted as unsigned 64-bit sizes (a negative value becomes a huge
//!   one and so fails the bounds check).
//! * `load.*`, `store.*` and `fill.*` take offsets (and fill lengths) in
//!   **elements** of the access width: `load.i32 %buf[%c1]` reads bytes 4..8.
//!   An access is in bounds when `(offset + count) * width <= length`. There is
//!   no alignment rule beyond that: element offsets are naturally aligned.
//! * `copy`, `compare`, `hash` and `clone` take **byte** offsets and lengths.
//!   A range is in bounds when `offset + length <= length of the buffer`; an
//!   empty range at the very end is fine, one past the end is not.
//! * Out-of-bounds accesses fail with `OUT_OF_RANGE` and the message
//!   `out-of-bounds access detected (offset=O, length=L, alignment=A, buffer
//!   length=N)`, where O and L are in bytes and A is the access width (1 for
//!   byte-range ops).
//! * Writing to a read-only (rodata) buffer fails with `PERMISSION_DENIED`
//!   `buffer is read-only and cannot be mapped for mutation`, checked before
//!   bounds.
//! * Where the reference runtime would read or write outside the buffer
//!   because its unsigned offset arithmetic wraps, this implementation reports
//!   the same `OUT_OF_RANGE` error instead.
//!
//! Null operands are the interpreter's to reject, with `INVALID_ARGUMENT` and
//! a message naming the operand; [`buffer_operand`] builds that error using
//! the names listed in [`operand_names`].
//!
//! # Storage
//!
//! A buffer owns its bytes, views module rodata (immutable), or wraps
//! **external** memory ([`Buffer::external`]): bytes owned elsewhere, such
//! as the bindings of a VMVX dispatch that several workers write at once.
//! Owned and external bytes are only ever touched through relaxed atomics
//! on their aligned 4-byte words (one access size, as Rust's memory model
//! requires of racing atomics; see `atomic_bytes.rs`), so concurrent users
//! never race and no access takes a lock: an aligned i32 or f32 element is
//! one plain load or store. Each access is atomic on its own, and the
//! compiler's contract that concurrent workgroups write disjoint bytes does
//! the rest. (Owned bytes used to sit behind a reader-writer lock: two
//! atomic read-modify-writes per element, a third of a VMVX model's time.)

use std::any::Any;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use iree_base::bytes::fill_pattern;
use iree_base::{Result, Status, StatusCode};

use crate::atomic_bytes::AtomicBytes;
use crate::refs::{Ref, RefObject, StaticRefObject};
use crate::types::{RefType, RefTypeDescriptor};

/// The registered descriptor of `vm.buffer`.
pub static BUFFER_TYPE_DESCRIPTOR: RefTypeDescriptor = RefTypeDescriptor { name: "vm.buffer" };

/// The `vm.buffer` reference type.
pub fn buffer_type() -> RefType {
    RefType::new(&BUFFER_TYPE_DESCRIPTOR)
}

/// Immutable bytes shared with their owner (a loaded module's flatbuffer).
pub type SharedBytes = Arc<dyn SharedImage>;

/// Immutable bytes that buffers may view in place: a loaded module's file.
///
/// Every `AsRef<[u8]>` type is one (without writable windows); an image
/// that can hand out copy-on-write windows of itself (a sealed memory file,
/// see `iree_runtime::image`) implements [`SharedImage::writable_window`].
pub trait SharedImage: Send + Sync {
    /// The bytes; they never change while the image lives.
    fn bytes(&self) -> &[u8];

    /// A writable window of `range` that shares memory with the image until
    /// it is written (copy-on-write; writes never reach the image), or
    /// `None` when the image cannot make one without copying. Devices write
    /// such windows in place where a compiled program writes into an
    /// imported constant.
    ///
    /// Every caller asking for the same range while a window of it lives
    /// gets that window: the contexts of one loaded module share its
    /// constants, written or not, as upstream's contexts share their
    /// module's memory. N contexts then map a model's weights once, not N
    /// times.
    fn writable_window(&self, range: Range<usize>) -> Option<WritableWindow> {
        let _ = range;
        None
    }
}

impl<T: AsRef<[u8]> + Send + Sync + ?Sized> SharedImage for T {
    fn bytes(&self) -> &[u8] {
        self.as_ref()
    }
}

/// Memory made by [`SharedImage::writable_window`]: writable bytes that
/// never reach the image, kept alive by an owner.
pub struct WritableWindow {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
    owner: Box<dyn Any + Send + Sync>,
}

impl WritableWindow {
    /// Wraps `len` bytes at `ptr`, kept alive by `owner`.
    ///
    /// # Safety
    ///
    /// While `owner` lives, `ptr..ptr + len` and the aligned 4-byte words
    /// holding it must be valid for reads and writes, and nothing but
    /// holders of windows of the same range (buffers, which access memory
    /// word by word) may access them.
    pub unsafe fn new(
        ptr: std::ptr::NonNull<u8>,
        len: usize,
        owner: Box<dyn Any + Send + Sync>,
    ) -> WritableWindow {
        WritableWindow { ptr, len, owner }
    }

    /// The address, the length and the owner (which keeps them valid).
    pub fn into_parts(self) -> (std::ptr::NonNull<u8>, usize, Box<dyn Any + Send + Sync>) {
        (self.ptr, self.len, self.owner)
    }
}

/// The operand names the reference interpreter uses in its `"<name> is null"`
/// errors, per opcode.
pub mod operand_names {
    /// `vm.buffer.clone` source.
    pub const CLONE_SOURCE: &str = "source";
    /// `vm.buffer.length`, every `vm.buffer.fill.*`.
    pub const BUFFER: &str = "buffer";
    /// `vm.buffer.copy` source, every `vm.buffer.load.*`, `vm.buffer.hash`.
    pub const SOURCE_BUFFER: &str = "source_buffer";
    /// `vm.buffer.copy` target, every `vm.buffer.store.*`.
    pub const TARGET_BUFFER: &str = "target_buffer";
    /// `vm.buffer.compare` left-hand side.
    pub const LHS_BUFFER: &str = "lhs_buffer";
    /// `vm.buffer.compare` right-hand side.
    pub const RHS_BUFFER: &str = "rhs_buffer";
}

/// Borrows the [`Buffer`] held in a ref register, failing with
/// `INVALID_ARGUMENT "<name> is null"` when the register is null or holds a
/// ref of another type (the reference runtime treats both the same way).
pub fn buffer_operand<'a>(value: &'a Option<Ref>, name: &str) -> Result<&'a Buffer> {
    value
        .as_ref()
        .and_then(|r| r.downcast::<Buffer>())
        .ok_or_else(|| Status::new(StatusCode::InvalidArgument, format!("{name} is null")))
}

/// A plain tag byte (`repr(u8)`), not a niche in a field: every element
/// access of the interpreter tests it, and a tag compare is the cheapest test.
#[repr(u8)]
enum Storage {
    /// A read-only window onto shared bytes (module rodata).
    Shared {
        bytes: SharedBytes,
        range: Range<usize>,
    },
    /// Owned or external bytes, accessed only atomically.
    Atomic(Atomic),
}

/// Bytes accessed only through atomics: the buffer's own words or
/// external memory.
struct Atomic {
    bytes: AtomicBytes,
    writable: bool,
    /// True for [`Buffer::external`] memory, false for the buffer's own.
    external: bool,
    /// Whatever keeps the bytes alive (dropped with the buffer): the owned
    /// words' `Vec<u32>`, or the external memory's owner.
    _owner: Box<dyn Any + Send + Sync>,
}

// SAFETY: the raw pointer inside `bytes` is only dereferenced through atomic
// operations, and it stays valid for as long as the buffer lives, whichever
// thread holds it (owned words are kept by `_owner`; for external memory,
// `Buffer::external`'s contract).
unsafe impl Send for Atomic {}
// SAFETY: see `Send`; shared access performs only atomic reads and writes.
unsafe impl Sync for Atomic {}

/// A `vm.buffer`: a fixed-length byte buffer that may be shared across
/// threads. Owned and external bytes are accessed atomically, without
/// locks; rodata views are immutable.
pub struct Buffer {
    storage: Storage,
    len: usize,
}

impl RefObject for Buffer {
    fn ref_type(&self) -> RefType {
        buffer_type()
    }
}

impl StaticRefObject for Buffer {
    fn static_ref_type() -> RefType {
        buffer_type()
    }
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("len", &self.len)
            .field("mutable", &self.is_mutable())
            .finish()
    }
}

/// Bytes per side compared at a time by [`Buffer::compare`].
const COMPARE_CHUNK: usize = 1024;

/// Bytes per write when filling atomic storage (a multiple of every
/// element width).
const FILL_CHUNK: usize = 256;

/// The reference allocator's failure.
#[cold]
#[track_caller]
fn allocation_failed() -> Status {
    Status::new(
        StatusCode::ResourceExhausted,
        "libc allocator failed the request",
    )
}

#[cold]
#[track_caller]
fn out_of_bounds(offset: u64, length: u64, alignment: u64, buffer_length: usize) -> Status {
    Status::new(
        StatusCode::OutOfRange,
        format!(
            "out-of-bounds access detected (offset={offset}, length={length}, \
             alignment={alignment}, buffer length={buffer_length})"
        ),
    )
}

#[cold]
#[track_caller]
fn read_only() -> Status {
    Status::new(
        StatusCode::PermissionDenied,
        "buffer is read-only and cannot be mapped for mutation",
    )
}

/// Validates an allocation alignment the way the reference allocator does:
/// the i32 operand is sign-extended to a size, and must be 0 or a power of two.
#[track_caller]
fn check_alignment(alignment: i32) -> Result<()> {
    let alignment = alignment as i64 as u64;
    if alignment == 0 || alignment.is_power_of_two() {
        Ok(())
    } else {
        Err(Status::new(
            StatusCode::InvalidArgument,
            format!("alignments must be powers of two (got {alignment})"),
        ))
    }
}

/// Allocates the zeroed words holding `length` bytes, failing (rather than
/// aborting) when the allocation cannot be made.
#[track_caller]
fn alloc_zeroed_words(length: u64) -> Result<Vec<u32>> {
    let length = usize::try_from(length).map_err(|_| allocation_failed())?;
    let words = length.div_ceil(4);
    zeroed_vec::<u32>(words, words)
}

/// Primitive types for which the all-zero bit pattern is a valid value (zero).
///
/// # Safety
///
/// Implementors must accept every all-zero byte pattern as a valid value.
pub(crate) unsafe trait ZeroBits: Copy + Default {}
// SAFETY: zero bits are the value 0 for every integer type.
unsafe impl ZeroBits for u8 {}
// SAFETY: as above.
unsafe impl ZeroBits for i8 {}
// SAFETY: as above.
unsafe impl ZeroBits for i16 {}
// SAFETY: as above.
unsafe impl ZeroBits for i32 {}
// SAFETY: as above.
unsafe impl ZeroBits for u32 {}
// SAFETY: as above.
unsafe impl ZeroBits for i64 {}
// SAFETY: zero bits are +0.0 for IEEE floats.
unsafe impl ZeroBits for f32 {}
// SAFETY: as above.
unsafe impl ZeroBits for f64 {}

/// A vector of `len` zeros with room for `capacity` elements, taken from
/// zeroed memory (`calloc`), so untouched pages stay unmapped as they do in
/// the reference runtime. Fails with `RESOURCE_EXHAUSTED` when the memory
/// cannot be had (instead of aborting).
#[track_caller]
pub(crate) fn zeroed_vec<T: ZeroBits>(len: usize, capacity: usize) -> Result<Vec<T>> {
    let capacity = capacity.max(len);
    let layout = std::alloc::Layout::array::<T>(capacity).map_err(|_| allocation_failed())?;
    if layout.size() == 0 {
        // Only for `capacity == 0` (and so `len == 0`): every implementor is sized.
        return Ok(Vec::new());
    }
    // SAFETY: `layout` has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return Err(allocation_failed());
    }
    // SAFETY: `ptr` comes from the global allocator (the one `Vec` uses) with
    // the layout of `[T; capacity]`; `len <= capacity`, and the first `len`
    // elements are all-zero bytes, which `ZeroBits` guarantees are valid `T`s.
    Ok(unsafe { Vec::from_raw_parts(ptr, len, capacity) })
}

/// The byte offset of element `k` of a strided run whose element 0 is at
/// byte `first` (elements of `N` bytes, `stride` elements apart), for runs
/// [`Buffer::strided_start`] checked.
fn strided_offset<const N: usize>(first: usize, stride: i64, k: usize) -> usize {
    (first as i64 + k as i64 * stride * N as i64) as usize
}

/// Bounds-checks a byte range (`offset + length <= buffer_length`).
#[track_caller]
fn byte_range(offset: i64, length: i64, buffer_length: usize) -> Result<Range<usize>> {
    let (offset, length) = (offset as u64, length as u64);
    match offset.checked_add(length) {
        Some(end) if end <= buffer_length as u64 => Ok(offset as usize..end as usize),
        _ => Err(out_of_bounds(offset, length, 1, buffer_length)),
    }
}

/// Bounds-checks `count` elements of `width` bytes starting at element
/// `offset` (`(offset + count) * width <= buffer_length`).
#[track_caller]
fn element_range(
    offset: i64,
    count: i64,
    width: usize,
    buffer_length: usize,
) -> Result<Range<usize>> {
    let (offset, count, width) = (offset as u64, count as u64, width as u64);
    let end = offset.checked_add(count).and_then(|n| n.checked_mul(width));
    match end {
        Some(end) if end <= buffer_length as u64 => {
            let start = offset * width;
            Ok(start as usize..end as usize)
        }
        _ => Err(out_of_bounds(
            offset.wrapping_mul(width),
            count.wrapping_mul(width),
            width,
            buffer_length,
        )),
    }
}

macro_rules! load_op {
    ($(#[$doc:meta])* $name:ident, $prim:ty, $width:expr, $ret:ty) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(&self, offset: i64) -> Result<$ret> {
            let range = element_range(offset, 1, $width, self.len)?;
            let raw: [u8; $width] = self.load_raw(range.start);
            Ok(<$prim>::from_le_bytes(raw) as $ret)
        }
    };
}

macro_rules! store_op {
    ($(#[$doc:meta])* $name:ident, $arg:ty, $prim:ty, $width:expr) => {
        $(#[$doc])*
        #[inline]
        pub fn $name(&self, offset: i64, value: $arg) -> Result<()> {
            self.store_raw(offset, (value as $prim).to_le_bytes())
        }
    };
}

macro_rules! fill_op {
    ($(#[$doc:meta])* $name:ident, $arg:ty, $prim:ty, $width:expr) => {
        $(#[$doc])*
        pub fn $name(&self, offset: i64, length: i64, value: $arg) -> Result<()> {
            self.fill_raw(offset, length, (value as $prim).to_le_bytes())
        }
    };
}

impl Buffer {
    /// A mutable buffer of the first `len` bytes of `words` (in address
    /// order), which it owns.
    fn owned(mut words: Vec<u32>, len: usize) -> Buffer {
        debug_assert!(len <= words.len() * 4);
        let ptr = if words.is_empty() {
            std::ptr::NonNull::<u64>::dangling().as_ptr().cast()
        } else {
            words.as_mut_ptr().cast::<u8>()
        };
        Buffer {
            len,
            storage: Storage::Atomic(Atomic {
                // SAFETY: the words are this buffer's own allocation, valid
                // for reads and writes while `_owner` holds the `Vec` (moving
                // a `Vec` does not move its elements), and nothing touches
                // them except through this `AtomicBytes`.
                bytes: unsafe { AtomicBytes::new(ptr, len) },
                writable: true,
                external: false,
                _owner: Box::new(words),
            }),
        }
    }

    /// `vm.buffer.alloc`: a new zero-filled mutable buffer of `length` bytes.
    ///
    /// `alignment` is validated like the reference allocator does (0 or a
    /// power of two, else `INVALID_ARGUMENT "alignments must be powers of two
    /// (got N)"` with the sign-extended value); it has no other observable
    /// effect because accesses here never depend on the address. A length the
    /// host cannot allocate (negative lengths included) fails with
    /// `RESOURCE_EXHAUSTED`.
    pub fn alloc(length: i64, alignment: i32) -> Result<Buffer> {
        check_alignment(alignment)?;
        Ok(Buffer::owned(
            alloc_zeroed_words(length as u64)?,
            length as usize,
        ))
    }

    /// A mutable buffer owning `bytes`.
    pub fn from_vec(bytes: Vec<u8>) -> Buffer {
        let words = bytes
            .chunks(4)
            .map(|chunk| {
                let mut word = [0u8; 4];
                word[..chunk.len()].copy_from_slice(chunk);
                u32::from_ne_bytes(word)
            })
            .collect();
        Buffer::owned(words, bytes.len())
    }

    /// A read-only buffer viewing `range` of `bytes` without copying
    /// (module rodata). Fails with `OUT_OF_RANGE` when `range` does not lie
    /// within `bytes`.
    pub fn rodata(bytes: SharedBytes, range: Range<usize>) -> Result<Buffer> {
        let total = bytes.bytes().len();
        if range.start > range.end || range.end > total {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "rodata range [{}, {}) out of bounds of {} bytes",
                    range.start, range.end, total
                ),
            ));
        }
        Ok(Buffer {
            len: range.len(),
            storage: Storage::Shared { bytes, range },
        })
    }

    /// A buffer over `len` externally owned bytes at `ptr`, writable by the
    /// VM when `writable`, keeping `owner` alive until the buffer drops.
    ///
    /// Every access to the bytes goes through relaxed atomics, so the buffer
    /// may be shared with other threads, and other parties may access the
    /// same bytes atomically at the same time (several workers running
    /// kernels over one binding). Accesses are made of atomic operations on
    /// the aligned 4-byte words holding the bytes (see `atomic_bytes.rs` for
    /// why), and an element that another thread writes concurrently may be
    /// observed torn.
    ///
    /// # Safety
    ///
    /// From this call until the returned buffer (and every [`Ref`] to it) is
    /// dropped:
    ///
    /// * the aligned 4-byte words overlapping `ptr..ptr + len` (not only
    ///   the range itself) must be valid for reads and writes and lie in
    ///   one allocation with it, also when `writable` is false (atomic loads
    ///   need a pointer that permits writes; `writable` only keeps the VM
    ///   from storing); `ptr` may be dangling or null when `len` is 0;
    /// * no access to those words that is not atomic may happen
    ///   concurrently with an access through the buffer (non-atomic Rust
    ///   references to the bytes, for instance, must not exist while the
    ///   buffer is used).
    ///
    /// `owner` is dropped with the buffer; use it to tie the memory's
    /// lifetime to the buffer where that is possible.
    pub unsafe fn external(
        ptr: *mut u8,
        len: usize,
        writable: bool,
        owner: impl Any + Send + Sync,
    ) -> Buffer {
        let ptr = if len == 0 {
            std::ptr::NonNull::<u64>::dangling().as_ptr().cast()
        } else {
            ptr
        };
        Buffer {
            len,
            storage: Storage::Atomic(Atomic {
                // SAFETY: this function's contract is the constructor's.
                bytes: unsafe { AtomicBytes::new(ptr, len) },
                writable,
                external: true,
                _owner: Box::new(owner),
            }),
        }
    }

    /// `vm.buffer.clone`: copies the byte range `[offset, offset + length)`
    /// into a new mutable buffer (also when the source is read-only).
    ///
    /// The source range is checked first (`OUT_OF_RANGE`, alignment=1 in the
    /// message), then `alignment` as in [`Buffer::alloc`].
    pub fn clone_range(&self, offset: i64, length: i64, alignment: i32) -> Result<Buffer> {
        let range = byte_range(offset, length, self.len)?;
        check_alignment(alignment)?;
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(range.len())
            .map_err(|_| allocation_failed())?;
        self.with_range(range, |source| bytes.extend_from_slice(source));
        Ok(Buffer::from_vec(bytes))
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `vm.buffer.length`: the length in bytes as the i64 register value.
    pub fn length(&self) -> i64 {
        self.len as i64
    }

    /// True for guest-writable buffers, false for read-only rodata views and
    /// read-only external memory.
    pub fn is_mutable(&self) -> bool {
        match &self.storage {
            Storage::Shared { .. } => false,
            Storage::Atomic(atomic) => atomic.writable,
        }
    }

    /// The shared bytes and the window of them this buffer views, for a
    /// read-only rodata view ([`Buffer::rodata`]); `None` for other storage.
    /// Lets the HAL import module constants without copying them.
    pub fn shared_window(&self) -> Option<(&SharedBytes, Range<usize>)> {
        match &self.storage {
            Storage::Shared { bytes, range } => Some((bytes, range.clone())),
            _ => None,
        }
    }

    /// True for buffers over external memory ([`Buffer::external`]).
    pub fn is_external(&self) -> bool {
        matches!(&self.storage, Storage::Atomic(atomic) if atomic.external)
    }

    /// Runs `f` over the bytes of `range` (checked by the caller against
    /// `self.len`): in place for rodata, over a copy for atomic storage.
    fn with_range<R>(&self, range: Range<usize>, f: impl FnOnce(&[u8]) -> R) -> R {
        match &self.storage {
            Storage::Shared {
                bytes,
                range: window,
            } => f(&bytes.bytes()[window.clone()][range]),
            Storage::Atomic(atomic) => {
                let mut copy = vec![0u8; range.len()];
                // SAFETY: `range` lies within `self.len` (caller), the length
                // of the atomic range.
                unsafe { atomic.bytes.read(range.start, &mut copy) };
                f(&copy)
            }
        }
    }

    /// The atomic storage when the VM may write it.
    fn writable(&self) -> Result<&Atomic> {
        match &self.storage {
            Storage::Atomic(atomic) if atomic.writable => Ok(atomic),
            _ => Err(read_only()),
        }
    }

    /// The `N`-byte element at element `offset` (byte `N * offset`), or
    /// `None` when it is out of bounds: the interpreter's fast path, whose
    /// misses take the checked `load_*` methods for their error.
    #[inline(always)]
    pub fn try_load_element<const N: usize>(&self, offset: i64) -> Option<[u8; N]> {
        let start = self.element_start::<N>(offset)?;
        Some(self.load_raw(start))
    }

    /// The `N`-byte element (`N` a multiple of 4) at element `offset` when
    /// it is in bounds and lies on whole aligned words of the buffer's own
    /// or external memory: the interpreter's innermost path for word and
    /// double-word elements, which makes no call. `None` otherwise (out of
    /// bounds, an unaligned view, read-only shared bytes), for
    /// [`Buffer::try_load_element`] and the checked `load_*` methods.
    #[inline(always)]
    pub fn try_load_words<const N: usize>(&self, offset: i64) -> Option<[u8; N]> {
        let start = self.element_start::<N>(offset)?;
        match &self.storage {
            // SAFETY: `start + N <= self.len` (above), the atomic length.
            Storage::Atomic(atomic) => unsafe { atomic.bytes.load_aligned::<N>(start) },
            Storage::Shared { .. } => None,
        }
    }

    /// Stores the `N`-byte element (`N` a multiple of 4) at element
    /// `offset` when it is in bounds, the buffer writable and the element
    /// on whole aligned words, as [`Buffer::try_load_words`] loads it;
    /// `false` (nothing stored) otherwise.
    #[inline(always)]
    pub fn try_store_words<const N: usize>(&self, offset: i64, value: [u8; N]) -> bool {
        let Some(start) = self.element_start::<N>(offset) else {
            return false;
        };
        match &self.storage {
            // SAFETY: `start + N <= self.len`, the atomic length; the memory
            // is writable (checked).
            Storage::Atomic(atomic) if atomic.writable => unsafe {
                atomic.bytes.store_aligned::<N>(start, value)
            },
            _ => false,
        }
    }

    /// The byte offset of the `N`-byte element at element `offset` when the
    /// whole element is in bounds: `(offset + 1) * N <= len` is
    /// `offset < len / N` (one compare; negative offsets are huge as `u64`).
    #[inline(always)]
    fn element_start<const N: usize>(&self, offset: i64) -> Option<usize> {
        let offset = offset as u64;
        (offset < (self.len / N) as u64).then(|| offset as usize * N)
    }

    /// Stores the `N`-byte element at element `offset`; `false` (and nothing
    /// stored) when it is out of bounds or the buffer is read-only, for the
    /// checked `store_*` methods to report.
    #[inline(always)]
    pub fn try_store_element<const N: usize>(&self, offset: i64, value: [u8; N]) -> bool {
        let Some(start) = self.element_start::<N>(offset) else {
            return false;
        };
        match &self.storage {
            Storage::Atomic(atomic) if atomic.writable => {
                // SAFETY: `start + N <= self.len`, the atomic length; the
                // memory is writable (checked above).
                unsafe { atomic.bytes.store::<N>(start, value) }
            }
            _ => return false,
        }
        true
    }

    /// Loads `N` bytes at byte `start`; `start + N <= self.len` (checked by
    /// the caller).
    #[inline(always)]
    fn load_raw<const N: usize>(&self, start: usize) -> [u8; N] {
        let mut raw = [0u8; N];
        match &self.storage {
            // SAFETY: `start + N <= self.len` (caller), the atomic length.
            Storage::Atomic(atomic) => raw = unsafe { atomic.bytes.load::<N>(start) },
            Storage::Shared { bytes, range } => {
                raw.copy_from_slice(&bytes.bytes()[range.clone()][start..start + N])
            }
        }
        raw
    }

    /// Reads `out.len()` elements of `N` bytes, element `index + k * stride`
    /// into `out[k]`, under one bounds check: the bulk path of
    /// the VMVX kernels. `false` (nothing read) when any element is out of
    /// bounds; callers then take the checked per-element methods for the error.
    pub fn try_gather<const N: usize>(&self, index: i64, stride: i64, out: &mut [[u8; N]]) -> bool {
        if out.is_empty() {
            return true;
        }
        let Some(first) = self.strided_start::<N>(index, stride, out.len()) else {
            return false;
        };
        let at = |k: usize| strided_offset::<N>(first, stride, k);
        // Every element lies between the first and the last, both checked
        // inside `self.len` (for external memory, its length).
        let bytes = match &self.storage {
            Storage::Atomic(atomic) => {
                if stride == 1 {
                    // SAFETY: the run lies inside the atomic length (above).
                    unsafe { atomic.bytes.read(first, out.as_flattened_mut()) };
                } else {
                    for (k, element) in out.iter_mut().enumerate() {
                        // SAFETY: inside the atomic length (above).
                        *element = unsafe { atomic.bytes.load::<N>(at(k)) };
                    }
                }
                return true;
            }
            Storage::Shared { bytes, range } => &bytes.bytes()[range.clone()],
        };
        if stride == 1 {
            let run = out.as_flattened_mut();
            run.copy_from_slice(&bytes[first..first + run.len()]);
        } else {
            for (k, element) in out.iter_mut().enumerate() {
                element.copy_from_slice(&bytes[at(k)..at(k) + N]);
            }
        }
        true
    }

    /// Writes `values[k]` to element `index + k * stride` (of `N` bytes),
    /// in order, under one bounds check. `false` (nothing
    /// written) when the buffer is read-only or any element is out of
    /// bounds; callers then take the checked per-element methods.
    pub fn try_scatter<const N: usize>(&self, index: i64, stride: i64, values: &[[u8; N]]) -> bool {
        if values.is_empty() {
            return true;
        }
        let Some(first) = self.strided_start::<N>(index, stride, values.len()) else {
            return false;
        };
        let at = |k: usize| strided_offset::<N>(first, stride, k);
        let Ok(atomic) = self.writable() else {
            return false;
        };
        // Every element lies between the first and the last, both checked
        // inside the atomic length; the memory is writable.
        if stride == 1 {
            // SAFETY: the run is inside the writable range (above).
            unsafe { atomic.bytes.write(first, values.as_flattened()) };
        } else {
            for (k, element) in values.iter().enumerate() {
                // SAFETY: inside the writable range (above).
                unsafe { atomic.bytes.store::<N>(at(k), *element) };
            }
        }
        true
    }

    /// The byte offset of element `index` when `count` elements of `N` bytes
    /// at element stride `stride` all lie in bounds (the first and the last
    /// do; the rest are between them), else `None`. `count > 0`.
    fn strided_start<const N: usize>(
        &self,
        index: i64,
        stride: i64,
        count: usize,
    ) -> Option<usize> {
        let last = i128::from(index) + i128::from(stride) * (count as i128 - 1);
        let elements = (self.len / N) as i128;
        let inside = |e: i128| (0..elements).contains(&e);
        (inside(index.into()) && inside(last)).then(|| index as usize * N)
    }

    /// True when writing through one of the two buffers may change bytes the
    /// other reads: they are the same buffer, or their atomic ranges overlap
    /// (views of one external allocation). Owned bytes belong to one buffer;
    /// rodata is never written.
    pub fn may_share_bytes(&self, other: &Buffer) -> bool {
        if std::ptr::eq(self, other) {
            return true;
        }
        match (&self.storage, &other.storage) {
            (Storage::Atomic(a), Storage::Atomic(b)) => a.bytes.overlaps(&b.bytes),
            _ => false,
        }
    }

    /// Stores `N` bytes at element `offset` (of width `N`): the write check
    /// first, then the bounds.
    #[inline(always)]
    fn store_raw<const N: usize>(&self, offset: i64, value: [u8; N]) -> Result<()> {
        let atomic = self.writable()?;
        let range = element_range(offset, 1, N, self.len)?;
        // SAFETY: `range` (N bytes) lies within the atomic length; the
        // memory is writable (checked above).
        unsafe { atomic.bytes.store::<N>(range.start, value) };
        Ok(())
    }

    /// Fills `length` elements of width `N` from element `offset` with
    /// `pattern`.
    fn fill_raw<const N: usize>(&self, offset: i64, length: i64, pattern: [u8; N]) -> Result<()> {
        let atomic = self.writable()?;
        let range = element_range(offset, length, N, self.len)?;
        // Whole elements of the pattern, written a chunk at a time.
        let mut chunk = [0u8; FILL_CHUNK];
        fill_pattern(&mut chunk, &pattern, 0);
        let mut start = range.start;
        while start < range.end {
            let n = (range.end - start).min(FILL_CHUNK);
            // SAFETY: `start..start + n` lies within `range`, within the
            // atomic length; the memory is writable (checked above).
            unsafe { atomic.bytes.write(start, &chunk[..n]) };
            start += n;
        }
        Ok(())
    }

    /// The address of byte `offset` and the `length` bytes from there, for
    /// code outside Rust that works on the memory in place (the kernels of
    /// an inline dispatch, which take their bindings as raw pointers).
    /// `OUT_OF_RANGE` when the range is not within the buffer.
    ///
    /// Getting the address is safe; using it is not: the caller must only
    /// write through it when [`Buffer::is_mutable`] holds, must keep this
    /// buffer alive while it uses the address, and must not access the bytes
    /// while another thread accesses them through the buffer (accesses made
    /// through the buffer are atomic, the caller's in general are not).
    pub fn host_range(&self, offset: u64, length: u64) -> Result<(*mut u8, usize)> {
        let range = byte_range(offset as i64, length as i64, self.len)?;
        let base = match &self.storage {
            Storage::Shared {
                bytes,
                range: window,
            } => bytes.bytes()[window.clone()].as_ptr().cast_mut(),
            Storage::Atomic(atomic) => atomic.bytes.as_ptr(),
        };
        Ok((base.wrapping_add(range.start), range.len()))
    }

    /// Runs `f` over the whole contents: in place for rodata, over a
    /// snapshot for owned and external bytes.
    pub fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        self.with_range(0..self.len, f)
    }

    /// Runs `f` over the whole contents for writing; fails with
    /// `PERMISSION_DENIED` on read-only buffers. `f` works on a snapshot and
    /// only the runs of bytes it changed are written back, so bytes another
    /// thread writes meanwhile elsewhere are kept.
    pub fn with_bytes_mut<R>(&self, f: impl FnOnce(&mut [u8]) -> R) -> Result<R> {
        let atomic = self.writable()?;
        let mut before = vec![0u8; self.len];
        // SAFETY: the whole atomic range.
        unsafe { atomic.bytes.read(0, &mut before) };
        let mut after = before.clone();
        let result = f(&mut after);
        let mut i = 0;
        while i < self.len {
            if before[i] == after[i] {
                i += 1;
                continue;
            }
            let start = i;
            while i < self.len && before[i] != after[i] {
                i += 1;
            }
            // SAFETY: `start..i` lies within the atomic length; the memory
            // is writable.
            unsafe { atomic.bytes.write(start, &after[start..i]) };
        }
        Ok(result)
    }

    /// Runs `f` over `len` bytes at byte `offset` (`OUT_OF_RANGE` when
    /// outside): in place for owned and rodata storage, over a copy for
    /// external memory.
    pub fn read_range<R>(
        &self,
        offset: usize,
        len: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let range = byte_range(offset as i64, len as i64, self.len)?;
        Ok(self.with_range(range, f))
    }

    /// Copies out `len` bytes at byte `offset` (`OUT_OF_RANGE` when outside).
    pub fn read_bytes(&self, offset: usize, len: usize) -> Result<Vec<u8>> {
        let range = byte_range(offset as i64, len as i64, self.len)?;
        Ok(self.with_range(range, <[u8]>::to_vec))
    }

    /// Copies `out.len()` bytes at byte `offset` into `out` (`OUT_OF_RANGE`
    /// when outside).
    pub fn read_into(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        let range = byte_range(offset as i64, out.len() as i64, self.len)?;
        match &self.storage {
            // SAFETY: `range` lies within the atomic length.
            Storage::Atomic(atomic) => unsafe { atomic.bytes.read(range.start, out) },
            Storage::Shared { .. } => self.with_range(range, |bytes| out.copy_from_slice(bytes)),
        }
        Ok(())
    }

    /// Writes `data` at byte `offset` (`PERMISSION_DENIED` when read-only,
    /// `OUT_OF_RANGE` when outside).
    pub fn write_bytes(&self, offset: usize, data: &[u8]) -> Result<()> {
        let atomic = self.writable()?;
        let range = byte_range(offset as i64, data.len() as i64, self.len)?;
        // SAFETY: `range` lies within the atomic length; the memory is
        // writable.
        unsafe { atomic.bytes.write(range.start, data) };
        Ok(())
    }

    /// The whole contents copied into a vector.
    pub fn to_vec(&self) -> Vec<u8> {
        self.with_bytes(<[u8]>::to_vec)
    }
    load_op!(
        /// `vm.buffer.load.i8.u`: the byte at element (= byte) `offset`, zero-extended.
        load_i8u, u8, 1, i32
    );
    load_op!(
        /// `vm.buffer.load.i8.s`: the byte at element (= byte) `offset`, sign-extended.
        load_i8s, i8, 1, i32
    );
    load_op!(
        /// `vm.buffer.load.i16.u`: the 16-bit element at `offset` (byte `2 * offset`),
        /// zero-extended.
        load_i16u, u16, 2, i32
    );
    load_op!(
        /// `vm.buffer.load.i16.s`: the 16-bit element at `offset` (byte `2 * offset`),
        /// sign-extended.
        load_i16s, i16, 2, i32
    );
    load_op!(
        /// `vm.buffer.load.i32`: the 32-bit element at `offset` (byte `4 * offset`).
        load_i32, i32, 4, i32
    );
    load_op!(
        /// `vm.buffer.load.i64`: the 64-bit element at `offset` (byte `8 * offset`).
        load_i64, i64, 8, i64
    );
    load_op!(
        /// `vm.buffer.load.f32`: the f32 element at `offset` (byte `4 * offset`).
        load_f32, f32, 4, f32
    );
    load_op!(
        /// `vm.buffer.load.f64`: the f64 element at `offset` (byte `8 * offset`).
        load_f64, f64, 8, f64
    );

    store_op!(
        /// `vm.buffer.store.i8`: stores the low 8 bits of `value` at byte `offset`.
        store_i8, i32, u8, 1
    );
    store_op!(
        /// `vm.buffer.store.i16`: stores the low 16 bits of `value` at element
        /// `offset` (byte `2 * offset`).
        store_i16, i32, u16, 2
    );
    store_op!(
        /// `vm.buffer.store.i32`: stores `value` at element `offset` (byte `4 * offset`).
        store_i32, i32, u32, 4
    );
    store_op!(
        /// `vm.buffer.store.i64`: stores `value` at element `offset` (byte `8 * offset`).
        store_i64, i64, u64, 8
    );
    store_op!(
        /// `vm.buffer.store.f32`: stores `value` at element `offset` (byte `4 * offset`).
        store_f32, f32, f32, 4
    );
    store_op!(
        /// `vm.buffer.store.f64`: stores `value` at element `offset` (byte `8 * offset`).
        store_f64, f64, f64, 8
    );

    fill_op!(
        /// `vm.buffer.fill.i8`: sets `length` bytes from byte `offset` to the low
        /// 8 bits of `value`.
        fill_i8, i32, u8, 1
    );
    fill_op!(
        /// `vm.buffer.fill.i16`: sets `length` 16-bit elements from element
        /// `offset` to the low 16 bits of `value`.
        fill_i16, i32, u16, 2
    );
    fill_op!(
        /// `vm.buffer.fill.i32`: sets `length` 32-bit elements from element `offset`.
        fill_i32, i32, u32, 4
    );
    fill_op!(
        /// `vm.buffer.fill.i64`: sets `length` 64-bit elements from element `offset`.
        fill_i64, i64, u64, 8
    );
    fill_op!(
        /// `vm.buffer.fill.f32`: sets `length` f32 elements from element `offset`.
        fill_f32, f32, f32, 4
    );
    fill_op!(
        /// `vm.buffer.fill.f64`: sets `length` f64 elements from element `offset`.
        fill_f64, f64, f64, 8
    );

    /// `vm.buffer.copy`: copies `length` bytes from byte `source_offset` of
    /// `source` to byte `target_offset` of `target`.
    ///
    /// The source range is checked first, then the target's writability, then
    /// the target range. Overlapping copies within one buffer behave like
    /// `memmove`.
    pub fn copy(
        source: &Buffer,
        source_offset: i64,
        target: &Buffer,
        target_offset: i64,
        length: i64,
    ) -> Result<()> {
        let source_range = byte_range(source_offset, length, source.len)?;
        let to = target.writable()?;
        let target_range = byte_range(target_offset, length, target.len)?;
        match &source.storage {
            // SAFETY: both ranges were checked against their buffers'
            // lengths and the target is writable; `copy` handles ranges that
            // overlap in memory (the same buffer, or two views of one
            // allocation).
            Storage::Atomic(from) => unsafe {
                AtomicBytes::copy(
                    &from.bytes,
                    source_range.start,
                    &to.bytes,
                    target_range.start,
                    source_range.len(),
                )
            },
            Storage::Shared { .. } => source.with_range(source_range, |bytes| {
                // SAFETY: the target range lies within the atomic length and
                // the target is writable (checked above).
                unsafe { to.bytes.write(target_range.start, bytes) }
            }),
        }
        Ok(())
    }

    /// `vm.buffer.compare`: 1 when the `length`-byte ranges at byte `lhs_offset`
    /// of `lhs` and byte `rhs_offset` of `rhs` are equal, else 0. Both ranges
    /// are bounds-checked (lhs first); empty ranges compare equal.
    pub fn compare(
        lhs: &Buffer,
        lhs_offset: i64,
        rhs: &Buffer,
        rhs_offset: i64,
        length: i64,
    ) -> Result<i32> {
        let lhs_range = byte_range(lhs_offset, length, lhs.len)?;
        let rhs_range = byte_range(rhs_offset, length, rhs.len)?;
        // A chunk of each side at a time, stopping at the first difference.
        let (mut a, mut b) = ([0u8; COMPARE_CHUNK], [0u8; COMPARE_CHUNK]);
        let mut done = 0;
        while done < lhs_range.len() {
            let n = (lhs_range.len() - done).min(COMPARE_CHUNK);
            lhs.read_into(lhs_range.start + done, &mut a[..n])?;
            rhs.read_into(rhs_range.start + done, &mut b[..n])?;
            if a[..n] != b[..n] {
                return Ok(0);
            }
            done += n;
        }
        Ok(1)
    }

    /// `vm.buffer.hash`: SipHash-2-4 with the key `00 01 02 .. 0f` over the
    /// `length` bytes at byte `offset`, as a signed i64.
    pub fn hash(&self, offset: i64, length: i64) -> Result<i64> {
        let range = byte_range(offset, length, self.len)?;
        Ok(self.with_range(range, siphash24) as i64)
    }
}

/// SipHash-2-4 keyed with the bytes 0x00..=0x0f (k0 = 0x0706050403020100,
/// k1 = 0x0f0e0d0c0b0a0908).
fn siphash24(data: &[u8]) -> u64 {
    const K0: u64 = 0x0706_0504_0302_0100;
    const K1: u64 = 0x0f0e_0d0c_0b0a_0908;
    let mut v = [
        K0 ^ 0x736f_6d65_7073_6575,
        K1 ^ 0x646f_7261_6e64_6f6d,
        K0 ^ 0x6c79_6765_6e65_7261,
        K1 ^ 0x7465_6462_7974_6573,
    ];
    fn round(v: &mut [u64; 4]) {
        v[0] = v[0].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(13) ^ v[0];
        v[0] = v[0].rotate_left(32);
        v[2] = v[2].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(16) ^ v[2];
        v[0] = v[0].wrapping_add(v[3]);
        v[3] = v[3].rotate_left(21) ^ v[0];
        v[2] = v[2].wrapping_add(v[1]);
        v[1] = v[1].rotate_left(17) ^ v[2];
        v[2] = v[2].rotate_left(32);
    }
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let m = u64::from_le_bytes(word);
        v[3] ^= m;
        round(&mut v);
        round(&mut v);
        v[0] ^= m;
    }
    let mut last = (data.len() as u64) << 56;
    for (i, &byte) in chunks.remainder().iter().enumerate() {
        last |= (byte as u64) << (8 * i);
    }
    v[3] ^= last;
    round(&mut v);
    round(&mut v);
    v[0] ^= last;
    v[2] ^= 0xff;
    for _ in 0..4 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}
