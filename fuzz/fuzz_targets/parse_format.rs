//! Fuzzes `format::parse_module` (archive header, flatbuffer verification,
//! metadata extraction, debug database) and `format::infer_archive_size`.
//!
//! Besides "no panic", checks the invariants `ModuleMetadata` documents:
//! every range it returns lies inside the file, so callers may slice
//! without further checks.
#![no_main]

use iree_vm_bytecode::format::{infer_archive_size, parse_module};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

fuzz_target!(|data: &[u8]| {
    let inferred = infer_archive_size(data);
    let Ok(meta) = parse_module(data) else {
        return;
    };
    let len = data.len();
    assert!(!meta.name.is_empty());
    assert!(meta.flatbuffer.start <= meta.flatbuffer.end && meta.flatbuffer.end <= len);
    assert!(meta.bytecode.start <= meta.bytecode.end && meta.bytecode.end <= len);
    assert!(meta.bytecode_bytes(data).is_some());
    assert_eq!(meta.rodata.len(), meta.rodata_external.len());
    for (i, r) in meta.rodata.iter().enumerate() {
        assert!(r.start <= r.end && r.end <= len, "rodata[{i}] {r:?} outside file of {len}");
        assert!(meta.rodata_bytes(data, i).is_some());
    }
    assert_eq!(meta.functions.len(), meta.function_signatures.len());
    for i in 0..meta.functions.len() {
        let r = meta.function_range(i).unwrap();
        assert!(r.start < r.end, "function {i} is empty");
        assert!(r.start >= meta.bytecode.start && r.end <= meta.bytecode.end, "function {i} {r:?} outside bytecode");
        let f = &meta.functions[i];
        assert!(f.block_count >= 1);
    }
    for e in &meta.exports {
        assert!((e.internal_ordinal as usize) < meta.functions.len());
        assert!(!e.local_name.is_empty());
    }
    for i in &meta.imports {
        assert!(!i.full_name.is_empty());
    }
    for d in &meta.dependencies {
        assert!(!d.name.is_empty());
    }
    for t in &meta.types {
        assert!(!t.is_empty());
    }
    // A file that parses has every external segment inside it, so the size
    // inferred from its header and flatbuffer alone cannot exceed it.
    let inferred = inferred.expect("infer_archive_size failed on a module parse_module accepted");
    assert!(inferred <= len.max(meta.rodata_base), "inferred size {inferred} > file {len}");
    for m in &meta.source_maps {
        if let Some(l) = m.locations.first() {
            let _ = m.location_at(l.bytecode_offset);
        }
        let _ = meta.source_map(&m.local_name);
    }
});
