//! Parser tests on bytes built here: IRPA (ours round-tripped, linked
//! archives, external entries, every kind of corruption), GGUF (metadata
//! of every type, alignment, type codes, versions) and safetensors.

use iree_base::StatusCode;
use iree_io_parameters::formats::{gguf, irpa};
use iree_io_parameters::{
    append_file_to_index, BuilderEntry, DataContents, EntryStorage, FileMode, Format, IrpaBuilder,
    ParameterIndex, ParsedSource,
};

fn archive(entries: Vec<BuilderEntry>) -> Vec<u8> {
    let mut builder = IrpaBuilder::new();
    for entry in entries {
        builder.add(entry).unwrap();
    }
    let mut out = Vec::new();
    let written = builder.write(&mut out).unwrap();
    assert_eq!(written, out.len() as u64);
    out
}

fn data(key: &str, bytes: &[u8]) -> BuilderEntry {
    BuilderEntry::Data {
        key: key.as_bytes().to_vec(),
        length: bytes.len() as u64,
        contents: DataContents::Bytes(bytes.to_vec()),
    }
}

fn entry_bytes<'a>(file: &'a [u8], entry: &iree_io_parameters::ParsedEntry) -> &'a [u8] {
    let ParsedSource::Data { offset } = entry.source else {
        panic!("not a data entry: {entry:?}");
    };
    &file[offset as usize..(offset + entry.length) as usize]
}

#[test]
fn irpa_round_trips_every_entry_kind() {
    let file = archive(vec![
        data("a", &[1, 2, 3, 4, 5]),
        BuilderEntry::Splat {
            key: b"s".to_vec(),
            length: 32,
            pattern: vec![9, 8, 7, 6, 5, 4, 3, 2],
        },
        BuilderEntry::Data {
            key: b"p".to_vec(),
            length: 10,
            contents: DataContents::Pattern(vec![0xAB, 0xCD]),
        },
        BuilderEntry::Data {
            key: b"z".to_vec(),
            length: 3,
            contents: DataContents::Zeros,
        },
        BuilderEntry::External {
            key: b"x".to_vec(),
            path: b"other.bin".to_vec(),
            offset: 100,
            length: 7,
        },
    ]);
    assert_eq!(file.len() % 4096, 0);
    let entries = irpa::parse(&file).unwrap();
    let keys: Vec<&[u8]> = entries.iter().map(|e| &*e.key).collect();
    assert_eq!(keys, [b"a" as &[u8], b"s", b"p", b"z", b"x"]);
    assert_eq!(entry_bytes(&file, &entries[0]), [1, 2, 3, 4, 5]);
    assert_eq!(
        entries[1].source,
        ParsedSource::Splat {
            pattern: [9, 8, 7, 6, 5, 4, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0],
            pattern_length: 8
        }
    );
    assert_eq!(entries[1].length, 32);
    assert_eq!(
        entry_bytes(&file, &entries[2]),
        [0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD, 0xAB, 0xCD]
    );
    assert_eq!(entry_bytes(&file, &entries[3]), [0, 0, 0]);
    assert_eq!(
        entries[4].source,
        ParsedSource::External {
            path: b"other.bin".to_vec().into(),
            offset: 100
        }
    );
    // Data is stored at the default 64-byte alignment.
    for entry in [&entries[0], &entries[2], &entries[3]] {
        let ParsedSource::Data { offset } = entry.source else {
            unreachable!()
        };
        assert_eq!(offset % 64, 0, "{entry:?}");
    }
}

/// Appends `second` to `first` and links `first`'s header to it.
fn link(mut first: Vec<u8>, second: &[u8]) -> Vec<u8> {
    let next = first.len() as u64;
    first[16..24].copy_from_slice(&next.to_le_bytes());
    first.extend_from_slice(second);
    first
}

#[test]
fn irpa_linked_archives_are_all_read_with_their_own_segments() {
    let a = archive(vec![data("first", b"AAAA")]);
    let b = archive(vec![data("second", b"BBBBBB"), data("third", b"C")]);
    let c = archive(vec![data("fourth", b"DD")]);
    // b's link is relative to b's own start, so it stays valid after b is
    // appended to a: every offset in a header is header-relative.
    let file = link(a, &link(b, &c));
    let entries = irpa::parse(&file).unwrap();
    let found: Vec<(String, Vec<u8>)> = entries
        .iter()
        .map(|e| {
            (
                String::from_utf8_lossy(&e.key).into_owned(),
                entry_bytes(&file, e).to_vec(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("first".to_string(), b"AAAA".to_vec()),
            ("second".to_string(), b"BBBBBB".to_vec()),
            ("third".to_string(), b"C".to_vec()),
            ("fourth".to_string(), b"DD".to_vec()),
        ]
    );
}

#[test]
fn irpa_truncated_at_every_length_fails_cleanly() {
    let file = archive(vec![
        data("a", &[1; 100]),
        BuilderEntry::Splat {
            key: b"s".to_vec(),
            length: 16,
            pattern: vec![1, 2, 3, 4],
        },
    ]);
    // The data ends well before the 4096-byte padding: cut inside it.
    let used = 64 * 8;
    for len in 0..used {
        let cut = &file[..len];
        match irpa::parse(cut) {
            Err(_) => {}
            Ok(entries) => {
                for e in entries {
                    if let ParsedSource::Data { offset } = e.source {
                        assert!(offset + e.length <= len as u64, "len {len}: {e:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn irpa_corruptions_give_status_codes() {
    let good = archive(vec![data("a", &[1, 2, 3])]);
    let patched = |offset: usize, bytes: &[u8]| {
        let mut file = good.clone();
        file[offset..offset + bytes.len()].copy_from_slice(bytes);
        irpa::parse(&file).unwrap_err()
    };
    assert_eq!(patched(0, b"XRPA").code(), StatusCode::InvalidArgument);
    assert_eq!(
        patched(4, &1u16.to_le_bytes()).code(),
        StatusCode::Unimplemented
    );
    assert_eq!(
        patched(6, &1u16.to_le_bytes()).code(),
        StatusCode::Unimplemented
    );
    assert_eq!(
        patched(8, &96u64.to_le_bytes()).code(),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        patched(8, &u64::MAX.to_le_bytes()).code(),
        StatusCode::OutOfRange
    );
    // next_header_offset past the end.
    assert_eq!(
        patched(16, &(1u64 << 40).to_le_bytes()).code(),
        StatusCode::OutOfRange
    );
    // entry_count larger than the table holds.
    assert_eq!(
        patched(32, &1000u64.to_le_bytes()).code(),
        StatusCode::OutOfRange
    );
    // Entry table offset past the end of the file.
    assert_eq!(
        patched(40, &u64::MAX.to_le_bytes()).code(),
        StatusCode::OutOfRange
    );
    // Entry type 9 (the table starts at 96; the type is at +8).
    assert_eq!(
        patched(96 + 8, &9u32.to_le_bytes()).code(),
        StatusCode::Unimplemented
    );
    // Entry size too small.
    assert_eq!(
        patched(96, &8u64.to_le_bytes()).code(),
        StatusCode::OutOfRange
    );
    // Name reference outside the metadata segment.
    assert_eq!(
        patched(96 + 20, &1000u64.to_le_bytes()).code(),
        StatusCode::OutOfRange
    );
    // Storage reference outside the storage segment.
    assert_eq!(
        patched(96 + 60, &u64::MAX.to_le_bytes()).code(),
        StatusCode::OutOfRange
    );
    assert_eq!(
        irpa::parse(&[]).unwrap_err().code(),
        StatusCode::InvalidArgument
    );
}

#[test]
fn irpa_splat_pattern_lengths_are_checked() {
    let mut file = archive(vec![BuilderEntry::Splat {
        key: b"s".to_vec(),
        length: 16,
        pattern: vec![1, 2, 3, 4],
    }]);
    // pattern_length sits at entry offset 84.
    file[96 + 84] = 3;
    let status = irpa::parse(&file).unwrap_err();
    assert_eq!(status.code(), StatusCode::InvalidArgument);
    assert!(status.to_string().contains("pattern length 3"), "{status}");
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("iree-io-parameters-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn irpa_external_entries_resolve_next_to_the_archive() {
    let dir = temp_dir("external");
    std::fs::write(dir.join("weights.bin"), (0u8..200).collect::<Vec<u8>>()).unwrap();
    let file = archive(vec![BuilderEntry::External {
        key: b"w".to_vec(),
        path: b"weights.bin".to_vec(),
        offset: 10,
        length: 5,
    }]);
    let path = dir.join("archive.irpa");
    std::fs::write(&path, &file).unwrap();
    let mut index = ParameterIndex::new();
    append_file_to_index(path.to_str().unwrap(), FileMode::Mapped, &mut index).unwrap();
    let entry = index.lookup(b"w").unwrap();
    let EntryStorage::File { file, offset } = &entry.storage else {
        panic!("{entry:?}");
    };
    assert_eq!(
        file.range(*offset, entry.length).unwrap(),
        [10, 11, 12, 13, 14]
    );

    // A range past the end of the external file is refused at indexing.
    let bad = archive(vec![BuilderEntry::External {
        key: b"w".to_vec(),
        path: b"weights.bin".to_vec(),
        offset: 190,
        length: 20,
    }]);
    std::fs::write(&path, &bad).unwrap();
    let status = append_file_to_index(
        path.to_str().unwrap(),
        FileMode::Mapped,
        &mut ParameterIndex::new(),
    )
    .unwrap_err();
    assert_eq!(status.code(), StatusCode::OutOfRange);
    assert!(status.to_string().contains("archive.irpa"), "{status}");

    // A missing external file is NOT_FOUND, naming it.
    let missing = archive(vec![BuilderEntry::External {
        key: b"w".to_vec(),
        path: b"missing.bin".to_vec(),
        offset: 0,
        length: 1,
    }]);
    std::fs::write(&path, &missing).unwrap();
    let status = append_file_to_index(
        path.to_str().unwrap(),
        FileMode::Mapped,
        &mut ParameterIndex::new(),
    )
    .unwrap_err();
    assert_eq!(status.code(), StatusCode::NotFound);
    assert!(status.to_string().contains("missing.bin"), "{status}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn formats_are_chosen_by_extension() {
    assert_eq!(Format::from_path("a/b.IRPA").unwrap(), Format::Irpa);
    assert_eq!(Format::from_path("x.gguf").unwrap(), Format::Gguf);
    assert_eq!(
        Format::from_path("safetensors").unwrap(),
        Format::Safetensors
    );
    let status = Format::from_path("weights.bin").unwrap_err();
    assert_eq!(status.code(), StatusCode::Unimplemented);
    assert!(status.to_string().contains("`bin`"), "{status}");
}

/// A GGUF writer for tests: metadata as (key, type, raw value bytes).
struct GgufFile {
    version: u32,
    metadata: Vec<(String, u32, Vec<u8>)>,
    tensors: Vec<(String, Vec<u64>, u32, u64)>,
    alignment: u64,
    data: Vec<u8>,
}

impl GgufFile {
    fn new() -> Self {
        GgufFile {
            version: 3,
            metadata: Vec::new(),
            tensors: Vec::new(),
            alignment: 32,
            data: Vec::new(),
        }
    }

    fn string(s: &str) -> Vec<u8> {
        let mut out = (s.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(s.as_bytes());
        out
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&gguf::MAGIC.to_le_bytes());
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&(self.tensors.len() as u64).to_le_bytes());
        out.extend_from_slice(&(self.metadata.len() as u64).to_le_bytes());
        for (key, ty, value) in &self.metadata {
            out.extend_from_slice(&Self::string(key));
            out.extend_from_slice(&ty.to_le_bytes());
            out.extend_from_slice(value);
        }
        for (name, dims, ty, offset) in &self.tensors {
            out.extend_from_slice(&Self::string(name));
            out.extend_from_slice(&(dims.len() as u32).to_le_bytes());
            for d in dims {
                out.extend_from_slice(&d.to_le_bytes());
            }
            out.extend_from_slice(&ty.to_le_bytes());
            out.extend_from_slice(&offset.to_le_bytes());
        }
        while !(out.len() as u64).is_multiple_of(self.alignment) {
            out.push(0);
        }
        out.extend_from_slice(&self.data);
        out
    }
}

#[test]
fn gguf_reads_tensors_after_metadata_of_every_type() {
    let mut f = GgufFile::new();
    // One value of each scalar type, a string, and arrays of scalars and
    // strings: all must be skipped correctly to find the tensor infos.
    for (ty, size) in [
        (0u32, 1usize),
        (1, 1),
        (2, 2),
        (3, 2),
        (4, 4),
        (5, 4),
        (6, 4),
        (7, 1),
        (10, 8),
        (11, 8),
        (12, 8),
    ] {
        f.metadata.push((format!("k{ty}"), ty, vec![7; size]));
    }
    f.metadata
        .push(("name".into(), 8, GgufFile::string("model")));
    let mut array = 5u32.to_le_bytes().to_vec();
    array.extend_from_slice(&3u64.to_le_bytes());
    array.extend_from_slice(&[1; 12]);
    f.metadata.push(("ints".into(), 9, array));
    let mut strings = 8u32.to_le_bytes().to_vec();
    strings.extend_from_slice(&2u64.to_le_bytes());
    strings.extend_from_slice(&GgufFile::string("a"));
    strings.extend_from_slice(&GgufFile::string("bc"));
    f.metadata.push(("strs".into(), 9, strings));
    f.metadata
        .push(("general.alignment".into(), 4, 64u32.to_le_bytes().to_vec()));
    f.alignment = 64;
    // f32 [2,3] at 0; q8_0 [64] (2 blocks of 34 bytes) at 64; bf16 [4] at 192.
    f.tensors.push(("a".into(), vec![2, 3], 0, 0));
    f.tensors.push(("q".into(), vec![64], 8, 64));
    f.tensors.push(("h".into(), vec![4], 30, 192));
    f.data = (0..200u8).collect();
    let bytes = f.bytes();
    let entries = gguf::parse(&bytes).unwrap();
    let lengths: Vec<(String, u64)> = entries
        .iter()
        .map(|e| (String::from_utf8_lossy(&e.key).into_owned(), e.length))
        .collect();
    assert_eq!(
        lengths,
        [("a".into(), 24), ("q".into(), 68), ("h".into(), 8)]
    );
    assert_eq!(entry_bytes(&bytes, &entries[1])[0], 64);
    let ParsedSource::Data { offset } = entries[0].source else {
        unreachable!()
    };
    assert_eq!(offset % 64, 0);

    // Version 1, an unknown tensor type, a bad alignment, nested arrays.
    let mut v1 = GgufFile::new();
    v1.version = 1;
    v1.tensors.push(("a".into(), vec![1], 0, 0));
    assert_eq!(
        gguf::parse(&v1.bytes()).unwrap_err().code(),
        StatusCode::Unimplemented
    );
    let mut unknown = GgufFile::new();
    unknown.tensors.push(("a".into(), vec![1], 99, 0));
    unknown.data = vec![0; 8];
    assert_eq!(
        gguf::parse(&unknown.bytes()).unwrap_err().code(),
        StatusCode::Unimplemented
    );
    let mut align = GgufFile::new();
    align
        .metadata
        .push(("general.alignment".into(), 4, 3u32.to_le_bytes().to_vec()));
    align.tensors.push(("a".into(), vec![1], 0, 0));
    assert_eq!(
        gguf::parse(&align.bytes()).unwrap_err().code(),
        StatusCode::InvalidArgument
    );
    let mut nested = GgufFile::new();
    let mut array = 9u32.to_le_bytes().to_vec();
    array.extend_from_slice(&1u64.to_le_bytes());
    nested.metadata.push(("n".into(), 9, array));
    nested.tensors.push(("a".into(), vec![1], 0, 0));
    assert_eq!(
        gguf::parse(&nested.bytes()).unwrap_err().code(),
        StatusCode::InvalidArgument
    );

    // Every truncation fails cleanly (or yields only in-bounds entries).
    for len in 0..bytes.len() {
        if let Ok(entries) = gguf::parse(&bytes[..len]) {
            for e in entries {
                assert!(entry_bytes(&bytes[..len], &e).len() as u64 == e.length);
            }
        }
    }
    // Element counts that overflow.
    let mut huge = GgufFile::new();
    huge.tensors.push(("a".into(), vec![u64::MAX, 4], 0, 0));
    assert_eq!(
        gguf::parse(&huge.bytes()).unwrap_err().code(),
        StatusCode::OutOfRange
    );
}

#[test]
fn safetensors_headers_are_validated() {
    let header = br#"{"__metadata__":{"format":"np"},"b":{"dtype":"I32","shape":[2],"data_offsets":[4,12]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header);
    let base = file.len() as u64;
    file.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]);
    let entries = Format::Safetensors.parse(&file).unwrap();
    let found: Vec<(String, u64, u64)> = entries
        .iter()
        .map(|e| {
            let ParsedSource::Data { offset } = e.source else {
                unreachable!()
            };
            (
                String::from_utf8_lossy(&e.key).into_owned(),
                offset - base,
                e.length,
            )
        })
        .collect();
    // In data order, the metadata entry skipped.
    assert_eq!(found, [("a".into(), 0, 4), ("b".into(), 4, 8)]);
    for len in 0..file.len() {
        let status = Format::Safetensors.parse(&file[..len]).unwrap_err();
        assert_eq!(status.code(), StatusCode::InvalidArgument);
    }
    // A size that disagrees with dtype and shape.
    let bad = file.clone();
    let text = String::from_utf8_lossy(&bad[8..8 + header.len()]).replace("[2]", "[3]");
    let mut bad = (text.len() as u64).to_le_bytes().to_vec();
    bad.extend_from_slice(text.as_bytes());
    bad.extend_from_slice(&[0; 12]);
    assert!(Format::Safetensors.parse(&bad).is_err());
}
