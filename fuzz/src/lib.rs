//! Shared support for the fuzz targets.
//!
//! [`CappedAlloc`] is the system allocator with a per-allocation cap. Without
//! a sanitizer (stable toolchain, `-s none`) libFuzzer has no malloc hooks,
//! so `-malloc_limit_mb` does nothing and `-rss_limit_mb` only compares the
//! *peak* RSS once a second, blaming whichever input happens to be running
//! (often not the one that allocated). Refusing oversized requests makes Rust
//! abort at once with "memory allocation of N bytes failed" inside the input
//! that asked, so libFuzzer saves the right reproducer.

pub mod wrap;

use std::alloc::{GlobalAlloc, Layout, System};

/// Largest single allocation a fuzzed module may cause (256 MiB). Inputs are
/// a few KiB; anything near this is a resource-exhaustion bug.
pub const MAX_ALLOCATION: usize = 256 << 20;

/// The system allocator, refusing allocations over [`MAX_ALLOCATION`].
pub type CappedAlloc = CappedAllocOf<MAX_ALLOCATION>;

/// [`CappedAlloc`] itself (`static ALLOC: CappedAlloc = CappedAlloc;`).
#[allow(non_upper_case_globals)]
pub const CappedAlloc: CappedAlloc = CappedAllocOf;

/// The system allocator, refusing allocations over `MAX` bytes.
pub struct CappedAllocOf<const MAX: usize>;

// SAFETY: forwards to `System` unchanged except for returning null (an
// allowed allocation failure) for oversized requests.
unsafe impl<const MAX: usize> GlobalAlloc for CappedAllocOf<MAX> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > MAX {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
