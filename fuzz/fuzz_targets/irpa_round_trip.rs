//! Writes an `.irpa` archive from entries derived from the input with
//! `IrpaBuilder`, parses it back and checks every entry survives: keys,
//! lengths, splat patterns, data bytes and external references. Any builder
//! error must be a status (rejected entries), never a panic.
#![no_main]

use iree_io_parameters::formats::irpa;
use iree_io_parameters::{BuilderEntry, DataContents, IrpaBuilder, ParsedSource};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

fuzz_target!(|data: &[u8]| {
    let mut builder = IrpaBuilder::new();
    if let Some(&shift) = data.first() {
        builder = match builder.with_alignment(1 << (shift % 8)) {
            Ok(builder) => builder,
            Err(_) => return,
        };
    }
    let mut expected = Vec::new();
    for (i, chunk) in data.chunks(8).skip(1).take(32).enumerate() {
        let key = format!("k{i}").into_bytes();
        let length = u64::from(chunk[0] % 64);
        let entry = match chunk.len() % 3 {
            0 => BuilderEntry::Splat {
                key: key.clone(),
                length: length * 4,
                pattern: chunk.iter().copied().cycle().take(4).collect(),
            },
            1 => BuilderEntry::Data {
                key: key.clone(),
                length: chunk.len() as u64,
                contents: DataContents::Bytes(chunk.to_vec()),
            },
            _ => BuilderEntry::External {
                key: key.clone(),
                path: b"other.bin".to_vec(),
                offset: u64::from(chunk[1]),
                length,
            },
        };
        if builder.add(entry.clone()).is_ok() {
            expected.push(entry);
        }
    }
    let mut bytes = Vec::new();
    let written = builder.write(&mut bytes).expect("writing to memory");
    assert_eq!(written, bytes.len() as u64);
    let parsed = irpa::parse(&bytes).expect("our own archive parses");
    assert_eq!(parsed.len(), expected.len());
    for (entry, got) in expected.iter().zip(&parsed) {
        match entry {
            BuilderEntry::Splat { key, length, pattern } => {
                assert_eq!(&*got.key, &key[..]);
                assert_eq!(got.length, *length);
                let ParsedSource::Splat { pattern: p, pattern_length } = &got.source else {
                    panic!("{got:?}");
                };
                assert_eq!(&p[..usize::from(*pattern_length)], &pattern[..]);
            }
            BuilderEntry::Data { key, contents: DataContents::Bytes(b), .. } => {
                assert_eq!(&*got.key, &key[..]);
                let ParsedSource::Data { offset } = got.source else {
                    panic!("{got:?}");
                };
                assert_eq!(&bytes[offset as usize..offset as usize + b.len()], &b[..]);
            }
            BuilderEntry::External { key, offset, length, .. } => {
                assert_eq!(&*got.key, &key[..]);
                assert_eq!(got.length, *length);
                assert_eq!(
                    got.source,
                    ParsedSource::External { path: b"other.bin".to_vec().into(), offset: *offset }
                );
            }
            BuilderEntry::Data { .. } => unreachable!("only byte contents are built"),
        }
    }
});
