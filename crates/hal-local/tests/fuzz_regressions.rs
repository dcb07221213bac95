//! Replays inputs the `load_elf` fuzz target once crashed on
//! (`tests/data/fuzz/`), under the same 256 MiB per-allocation cap the fuzz
//! targets use, so an input that makes the loader allocate hugely fails here
//! the way it failed there.

use std::alloc::{GlobalAlloc, Layout, System};

use iree_hal_local::library::{read_library, ImageMemory};
use iree_hal_local::ElfModule;

const MAX_ALLOCATION: usize = 256 << 20;

struct CappedAlloc;

// SAFETY: forwards to `System` unchanged except for returning null (an
// allowed allocation failure) for oversized requests.
unsafe impl GlobalAlloc for CappedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOCATION {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOCATION {
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
        if new_size > MAX_ALLOCATION {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: CappedAlloc = CappedAlloc;

#[test]
fn fuzz_regressions_load_without_crashing() {
    let dir = format!("{}/tests/data/fuzz", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        // What the fuzz target does: load (never execute), then run the
        // library readers over the image.
        if let Ok(m) = ElfModule::load(&data) {
            let base = m.base_address();
            let mut b = [0u8; 8];
            assert!(m.read(base + m.image_len() as u64, &mut b).is_err());
            let _ = read_library(&m, base);
        }
        n += 1;
    }
    assert!(n > 0, "no inputs under {dir}");
}
