//! Fuzzes the parameter file parser for safetensors files: the 8-byte header length and JSON header, through the `safetensors` crate.
//!
//! Besides "no panic": every accepted entry that lives in this file lies
//! inside it (`offset + length <= file size`), so indexing can never read
//! out of bounds.
#![no_main]

use iree_io_parameters::{Format, ParsedSource};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

fuzz_target!(|data: &[u8]| {
    let Ok(entries) = Format::Safetensors.parse(data) else {
        return;
    };
    for entry in entries {
        if let ParsedSource::Data { offset } = entry.source {
            let end = offset.checked_add(entry.length);
            assert!(
                end.is_some_and(|end| end <= data.len() as u64),
                "entry {:?} at {offset}+{} outside the {}-byte file",
                String::from_utf8_lossy(&entry.key),
                entry.length,
                data.len()
            );
        }
    }
});
