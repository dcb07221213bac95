//! [`AtomicBytes`]: a byte range owned outside Rust's knowledge (kernel
//! bindings, host memory) that is read and written only through relaxed
//! atomic operations, so concurrent users of the same bytes never race.
//!
//! Every access is made of 4-byte `AtomicU32` operations on the aligned
//! words that hold the bytes, whatever the element width. Rust's memory
//! model makes a racing atomic *write* of one size and an access of another
//! size to overlapping bytes undefined behaviour, and the programs running
//! over this memory mix widths freely (an `i8` view of `i32` data, byte-range
//! copies next to element stores), so one access size is the only way to
//! stay sound whatever the program does. Words are the size that makes the
//! common case, an aligned 4-byte element, a single load or store; an
//! element that covers only part of a word is stored with a compare-and-swap
//! loop, so the word's other bytes, which another thread may be writing, are
//! never lost. A racy program may then observe a torn element; a correct one
//! (concurrent workgroups write disjoint bytes) cannot tell.
//!
//! Because whole words are accessed, the constructor's contract covers the
//! aligned words overlapping the range, not only the range itself.
//!
//! Every access method is `unsafe`: callers check offsets against the length
//! first (the [`crate::buffer::Buffer`] methods do), and the constructor's
//! contract covers the memory itself.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The access granule: every access is to aligned words of this size.
const WORD: usize = 4;

/// Bytes moved per step of a copy between two atomic ranges.
const COPY_CHUNK: usize = 256;

/// A raw byte range accessed only atomically.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AtomicBytes {
    ptr: *mut u8,
    /// For debug assertions and [`AtomicBytes::overlaps`]: callers check
    /// bounds themselves.
    len: usize,
}

impl AtomicBytes {
    /// Wraps `len` bytes at `ptr` (`ptr` may dangle when `len` is 0).
    ///
    /// # Safety
    ///
    /// While this value or any copy of it is used, the aligned 4-byte words
    /// overlapping `ptr..ptr + len` must be valid for reads and writes
    /// (`AtomicU32::from_ptr` requires write permission even for loads; the
    /// words lie in one allocation with the range), and no non-atomic access
    /// may touch those words concurrently with an access made through this
    /// value.
    pub(crate) unsafe fn new(ptr: *mut u8, len: usize) -> AtomicBytes {
        AtomicBytes { ptr, len }
    }

    /// The first byte's address (dangling when the range is empty).
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// True when the two ranges share a byte (both non-empty).
    pub(crate) fn overlaps(&self, other: &AtomicBytes) -> bool {
        let (a, b) = (self.ptr as usize, other.ptr as usize);
        self.len > 0
            && other.len > 0
            && a < b.wrapping_add(other.len)
            && b < a.wrapping_add(self.len)
    }

    /// The atomic word at absolute address `word` (a multiple of [`WORD`]
    /// overlapping the range), with the range's provenance.
    ///
    /// # Safety
    ///
    /// `word` overlaps `ptr..ptr + len`, and the constructor's contract holds.
    #[inline(always)]
    unsafe fn word(&self, word: usize) -> &AtomicU32 {
        debug_assert!(word.is_multiple_of(WORD));
        debug_assert!(word < self.ptr as usize + self.len && word + WORD > self.ptr as usize);
        let at = self.ptr.wrapping_add(word.wrapping_sub(self.ptr as usize));
        // SAFETY: the word overlaps the range (caller), so it is valid for
        // atomic access (constructor) and aligned for `AtomicU32`.
        unsafe { AtomicU32::from_ptr(at.cast::<u32>()) }
    }

    /// Loads the whole words at absolute address `at` into `out`, one
    /// atomic load each.
    ///
    /// # Safety
    ///
    /// `at` is a multiple of [`WORD`], `out.len()` is too, the words lie
    /// inside the range, and the constructor's contract holds.
    #[inline(always)]
    unsafe fn load_words(&self, at: usize, out: &mut [u8]) {
        for (i, chunk) in out.chunks_exact_mut(WORD).enumerate() {
            // SAFETY: the word lies inside the range (caller).
            let word = unsafe { self.word(at + i * WORD) }.load(Relaxed);
            chunk.copy_from_slice(&word.to_ne_bytes());
        }
    }

    /// Stores `data` as whole words at absolute address `at`, one atomic
    /// store each.
    ///
    /// # Safety
    ///
    /// As [`AtomicBytes::load_words`], and the words are writable.
    #[inline(always)]
    unsafe fn store_words(&self, at: usize, data: &[u8]) {
        for (i, chunk) in data.chunks_exact(WORD).enumerate() {
            let value = u32::from_ne_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            // SAFETY: the word lies inside the writable range (caller).
            unsafe { self.word(at + i * WORD) }.store(value, Relaxed);
        }
    }

    /// Loads `N` bytes at `offset`, in memory order.
    ///
    /// # Safety
    ///
    /// `offset + N <= len`, and the constructor's contract holds.
    #[inline(always)]
    pub(crate) unsafe fn load<const N: usize>(&self, offset: usize) -> [u8; N] {
        let at = self.ptr as usize + offset;
        let mut out = [0u8; N];
        if at.is_multiple_of(WORD) && N.is_multiple_of(WORD) {
            // Whole aligned words (4- and 8-byte elements).
            // SAFETY: the words lie inside the range (caller).
            unsafe { self.load_words(at, &mut out) };
        } else {
            // SAFETY: as this function's contract.
            unsafe { self.read(offset, &mut out) };
        }
        out
    }

    /// Loads `N` bytes at `offset` when they are whole aligned words
    /// (`N` a multiple of 4 and the address aligned): a plain load per
    /// word, no call. `None` for any other address.
    ///
    /// # Safety
    ///
    /// As [`AtomicBytes::load`].
    #[inline(always)]
    pub(crate) unsafe fn load_aligned<const N: usize>(&self, offset: usize) -> Option<[u8; N]> {
        let at = self.ptr as usize + offset;
        if !(at.is_multiple_of(WORD) && N.is_multiple_of(WORD)) {
            return None;
        }
        let mut out = [0u8; N];
        // SAFETY: whole aligned words inside the range (caller).
        unsafe { self.load_words(at, &mut out) };
        Some(out)
    }

    /// Stores `N` bytes at `offset` when they are whole aligned words, as
    /// [`AtomicBytes::load_aligned`] loads them; `false` (nothing stored)
    /// for any other address.
    ///
    /// # Safety
    ///
    /// As [`AtomicBytes::store`].
    #[inline(always)]
    pub(crate) unsafe fn store_aligned<const N: usize>(
        &self,
        offset: usize,
        bytes: [u8; N],
    ) -> bool {
        let at = self.ptr as usize + offset;
        if !(at.is_multiple_of(WORD) && N.is_multiple_of(WORD)) {
            return false;
        }
        // SAFETY: whole aligned words inside the writable range (caller).
        unsafe { self.store_words(at, &bytes) };
        true
    }

    /// Stores `N` bytes at `offset`, in memory order.
    ///
    /// # Safety
    ///
    /// `offset + N <= len`, the range is writable, and the constructor's
    /// contract holds.
    #[inline(always)]
    pub(crate) unsafe fn store<const N: usize>(&self, offset: usize, bytes: [u8; N]) {
        let at = self.ptr as usize + offset;
        if at.is_multiple_of(WORD) && N.is_multiple_of(WORD) {
            // SAFETY: the words lie inside the writable range (caller).
            unsafe { self.store_words(at, &bytes) };
        } else {
            // SAFETY: as this function's contract.
            unsafe { self.write(offset, &bytes) };
        }
    }

    /// Copies `out.len()` bytes starting at `offset` into `out`.
    ///
    /// # Safety
    ///
    /// `offset + out.len() <= len`, and the constructor's contract holds.
    pub(crate) unsafe fn read(&self, offset: usize, out: &mut [u8]) {
        let start = self.ptr as usize + offset;
        let end = start + out.len();
        if start.is_multiple_of(WORD) && end.is_multiple_of(WORD) {
            // SAFETY: whole aligned words inside the range (caller).
            return unsafe { self.load_words(start, out) };
        }
        let mut word = start - start % WORD;
        while word < end {
            // SAFETY: `word` overlaps `start..end`, inside the range (caller).
            let bytes = unsafe { self.word(word) }.load(Relaxed).to_ne_bytes();
            let (lo, hi) = (start.max(word), end.min(word + WORD));
            out[lo - start..hi - start].copy_from_slice(&bytes[lo - word..hi - word]);
            word += WORD;
        }
    }

    /// Copies `data` to the bytes starting at `offset`. Words the data
    /// covers only in part are updated with a compare-and-swap loop, so
    /// their other bytes keep whatever another thread stores there.
    ///
    /// # Safety
    ///
    /// `offset + data.len() <= len`, the range is writable, and the
    /// constructor's contract holds.
    pub(crate) unsafe fn write(&self, offset: usize, data: &[u8]) {
        let start = self.ptr as usize + offset;
        let end = start + data.len();
        if start.is_multiple_of(WORD) && end.is_multiple_of(WORD) {
            // SAFETY: whole aligned words inside the writable range (caller).
            return unsafe { self.store_words(start, data) };
        }
        let mut word = start - start % WORD;
        while word < end {
            let (lo, hi) = (start.max(word), end.min(word + WORD));
            let part = &data[lo - start..hi - start];
            // SAFETY: `word` overlaps `start..end`, inside the writable range
            // (caller).
            let cell = unsafe { self.word(word) };
            if part.len() == WORD {
                cell.store(
                    u32::from_ne_bytes([part[0], part[1], part[2], part[3]]),
                    Relaxed,
                );
            } else {
                let _ = cell.fetch_update(Relaxed, Relaxed, |old| {
                    let mut bytes = old.to_ne_bytes();
                    bytes[lo - word..hi - word].copy_from_slice(part);
                    Some(u32::from_ne_bytes(bytes))
                });
            }
            word += WORD;
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
