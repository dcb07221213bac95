//! Fuzzes the embedded ELF loader: `iree_hal_local::ElfModule::load` (ELF
//! header and program headers, segment mapping, `.dynamic`, symbols, RELA
//! relocations, page protections) and the executable-library readers run
//! against the loaded image. Nothing loaded is ever executed: fuzzed code
//! could do anything, so `EmbeddedElfLibrary` (initializers, query,
//! dispatch) is out of scope here.
//!
//! Seeds: the kernels in crates/hal-local/tests/data, e.g.
//! `mkdir -p corpus/load_elf && cp ../crates/hal-local/tests/data/*.so corpus/load_elf/`.
//!
//! Besides "no panic", checks: the image is page-aligned and non-empty,
//! found symbols lie inside it, and reads outside it fail.
#![no_main]

use iree_hal_local::library::{read_library, ImageMemory};
use iree_hal_local::ElfModule;
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = ElfModule::load(data) else {
        return;
    };
    let base = m.base_address();
    let len = m.image_len() as u64;
    assert!(len > 0 && base % 4096 == 0 && len % 4096 == 0);
    let mut b = [0u8; 8];
    assert!(m.read(base + len, &mut b).is_err());
    assert!(m.read(base.wrapping_sub(1), &mut b).is_err());
    assert!(m.read(base + len - 4, &mut b).is_err());
    for s in m.symbols() {
        if let Some(address) = m.lookup_symbol(&s.name) {
            assert!(address >= base && address < base + len);
        }
    }
    // Treat a few image offsets as the library pointer `query` would return:
    // the readers must cope with whatever memory they find there.
    for i in 0..4u64 {
        let offset = data
            .get(8 * i as usize..8 * i as usize + 8)
            .map_or(0, |w| u64::from_le_bytes(w.try_into().unwrap_or_default()));
        let _ = read_library(&m, base + offset % len);
    }
});
