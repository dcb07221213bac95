//! [`AtomicBytes`]: a byte range owned outside Rust's knowledge (kernel
//! bindings, host memory) that is read and written only through relaxed
//! atomic operations, so concurrent users of the same bytes never race.
//!
//! Every access is made of single-byte `AtomicU8` operations, also for
//! aligned 2-, 4- and 8-byte elements. Rust's memory model makes racing
//! atomic accesses of *different sizes* to overlapping bytes undefined
//! behaviour (Miri reports them), and the programs running over this memory
//! mix widths freely (an `i8` view of `i32` data, byte-range copies next to
//! element stores), so one access size is the only way to stay sound whatever
//! the program does. A racy program may then observe a torn element; a
//! correct one (concurrent workgroups write disjoint bytes) cannot tell.
//!
//! Every access method is `unsafe`: callers check offsets against the length
//! first (the [`crate::buffer::Buffer`] methods do), and the constructor's
//! contract covers the memory itself.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// Bytes moved per step of a copy between two atomic ranges.
const COPY_CHUNK: usize = 256;

/// A raw byte range accessed only atomically.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AtomicBytes {
    ptr: *mut u8,
    /// Only for debug assertions: callers check bounds themselves.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    len: usize,
}

impl AtomicBytes {
    /// Wraps `len` bytes at `ptr` (`ptr` may dangle when `len` is 0).
    ///
    /// # Safety
    ///
    /// While this value or any copy of it is used, `ptr` must be valid for
    /// reads and writes of `len` bytes (`AtomicU8::from_ptr` requires write
    /// permission even for loads), and no non-atomic access may touch those
    /// bytes concurrently with an access made through this value.
    pub(crate) unsafe fn new(ptr: *mut u8, len: usize) -> AtomicBytes {
        AtomicBytes { ptr, len }
    }

    /// The atomic cell of byte `offset`.
    ///
    /// # Safety
    ///
    /// `offset < len`, and the constructor's contract holds.
    #[inline(always)]
    unsafe fn cell(&self, offset: usize) -> &AtomicU8 {
        debug_assert!(offset < self.len);
        // SAFETY: `ptr + offset` lies inside the range (caller), which is
        // valid for atomic access while `self` is used (constructor);
        // `AtomicU8` has alignment 1.
        unsafe { AtomicU8::from_ptr(self.ptr.add(offset)) }
    }

    /// Loads `N` bytes at `offset`, in memory order.
    ///
    /// # Safety
    ///
    /// `offset + N <= len`, and the constructor's contract holds.
    #[inline(always)]
    pub(crate) unsafe fn load<const N: usize>(&self, offset: usize) -> [u8; N] {
        let mut out = [0u8; N];
        for (i, byte) in out.iter_mut().enumerate() {
            // SAFETY: `offset + i < offset + N <= len` (caller).
            *byte = unsafe { self.cell(offset + i) }.load(Relaxed);
        }
        out
    }

    /// Stores `N` bytes at `offset`, in memory order.
    ///
    /// # Safety
    ///
    /// `offset + N <= len`, the range is writable, and the constructor's
    /// contract holds.
    #[inline(always)]
    pub(crate) unsafe fn store<const N: usize>(&self, offset: usize, bytes: [u8; N]) {
        for (i, &byte) in bytes.iter().enumerate() {
            // SAFETY: `offset + i < offset + N <= len` and writable (caller).
            unsafe { self.cell(offset + i) }.store(byte, Relaxed);
        }
    }

    /// Copies `out.len()` bytes starting at `offset` into `out`.
    ///
    /// # Safety
    ///
    /// `offset + out.len() <= len`, and the constructor's contract holds.
    pub(crate) unsafe fn read(&self, offset: usize, out: &mut [u8]) {
        for (i, byte) in out.iter_mut().enumerate() {
            // SAFETY: `offset + i < offset + out.len() <= len` (caller).
            *byte = unsafe { self.cell(offset + i) }.load(Relaxed);
        }
    }

    /// Copies `data` to the bytes starting at `offset`.
    ///
    /// # Safety
    ///
    /// `offset + data.len() <= len`, the range is writable, and the
    /// constructor's contract holds.
    pub(crate) unsafe fn write(&self, offset: usize, data: &[u8]) {
        for (i, &byte) in data.iter().enumerate() {
            // SAFETY: `offset + i < offset + data.len() <= len`, writable
            // (caller).
            unsafe { self.cell(offset + i) }.store(byte, Relaxed);
        }
    }

    /// Copies `length` bytes from `source` at `source_offset` to `target` at
    /// `target_offset` with `memmove` semantics when the two ranges overlap
    /// in memory (the same range, or two views of one allocation).
    ///
    /// # Safety
    ///
    /// Both ranges are in bounds of their views, `target` is writable, and
    /// both constructors' contracts hold.
    pub(crate) unsafe fn copy(
        source: &AtomicBytes,
        source_offset: usize,
        target: &AtomicBytes,
        target_offset: usize,
        length: usize,
    ) {
        let mut chunk = [0u8; COPY_CHUNK];
        let from = source.ptr.wrapping_add(source_offset) as usize;
        let to = target.ptr.wrapping_add(target_offset) as usize;
        // Chunks staged through `chunk`: when the target starts above the
        // source, copying from the end never overwrites source bytes that are
        // still to be read; otherwise copying from the start does not.
        let backward = to > from && to < from.wrapping_add(length);
        let chunks = length.div_ceil(COPY_CHUNK);
        for step in 0..chunks {
            let index = if backward { chunks - 1 - step } else { step };
            let start = index * COPY_CHUNK;
            let size = COPY_CHUNK.min(length - start);
            // SAFETY: `start + size <= length`, so both sub-ranges are in
            // bounds (caller).
            unsafe {
                source.read(source_offset + start, &mut chunk[..size]);
                target.write(target_offset + start, &chunk[..size]);
            }
        }
    }
}
