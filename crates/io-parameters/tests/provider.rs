//! The index provider on a real local device: zero-copy loads from mapped
//! files, copies where a mapping cannot be used, splats, gather, scatter,
//! queue ordering and failures reaching the signal fence.

use std::path::PathBuf;
use std::sync::Arc;

use iree_base::StatusCode;
use iree_hal::{Buffer, BufferParams, BufferUsage, Device, Driver, Fence, MemoryType};
use iree_hal_local::LocalSyncDriver;
use iree_io_parameters::formats::parse_file_index;
use iree_io_parameters::{
    BuilderEntry, DataContents, FileMode, Format, IndexProvider, IrpaBuilder, ParameterFile,
    ParameterIndex, ParameterProvider, Span,
};

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "iree-io-parameters-provider-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// An archive with `big` (1 MiB of a pattern, 64-byte aligned), `odd`
/// (stored at an offset that is not 64-byte aligned, via an alignment of
/// 1) and `splat`.
fn fixture(name: &str, mode: FileMode, writable: bool) -> (IndexProvider, PathBuf) {
    let mut builder = IrpaBuilder::new().with_alignment(1).unwrap();
    builder
        .add(BuilderEntry::Data {
            key: b"small".to_vec(),
            length: 3,
            contents: DataContents::Bytes(vec![1, 2, 3]),
        })
        .unwrap();
    builder
        .add(BuilderEntry::Data {
            key: b"odd".to_vec(),
            length: 5,
            contents: DataContents::Bytes(vec![5, 6, 7, 8, 9]),
        })
        .unwrap();
    builder
        .add(BuilderEntry::Splat {
            key: b"splat".to_vec(),
            length: 32,
            pattern: (0u8..16).collect(),
        })
        .unwrap();
    let mut bytes = Vec::new();
    builder.write(&mut bytes).unwrap();
    // A second archive with 64-byte alignment for `big`, linked after.
    let mut second = IrpaBuilder::new();
    second
        .add(BuilderEntry::Data {
            key: b"big".to_vec(),
            length: 1 << 20,
            contents: DataContents::Pattern(vec![0x11, 0x22, 0x33, 0x44]),
        })
        .unwrap();
    let next = bytes.len() as u64;
    bytes[16..24].copy_from_slice(&next.to_le_bytes());
    second.write(&mut bytes).unwrap();
    let path = temp_file(name, &bytes);
    let file = if writable {
        ParameterFile::open_writable(&path).unwrap()
    } else {
        ParameterFile::open(&path, mode).unwrap()
    };
    let mut index = ParameterIndex::new();
    parse_file_index(Format::Irpa, Arc::new(file), mode, &mut index).unwrap();
    (IndexProvider::new("scope", index), path)
}

fn device() -> Arc<dyn Device> {
    LocalSyncDriver.create_device("").unwrap()
}

fn params() -> BufferParams {
    BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DISPATCH | BufferUsage::TRANSFER,
        ..Default::default()
    }
}

fn span(key: &[u8], length: u64) -> Span<'_> {
    Span {
        key,
        parameter_offset: 0,
        buffer_offset: 0,
        length,
    }
}

fn contents(buffer: &Buffer) -> Vec<u8> {
    let mut out = vec![0; buffer.byte_length() as usize];
    buffer.read(0, &mut out).unwrap();
    out
}

#[test]
fn aligned_file_parameters_load_without_copies() {
    let (provider, _) = fixture("load.irpa", FileMode::Mapped, false);
    assert!(provider.supports_scope(b"scope"));
    assert!(!provider.supports_scope(b""));
    let device = device();
    let signal = Fence::with_new_semaphore();
    let buffers = provider
        .load(
            &device,
            &Fence::new(),
            &signal,
            params(),
            &[span(b"big", 1 << 20), span(b"odd", 5), span(b"splat", 32)],
        )
        .unwrap();
    signal.wait(None).unwrap();
    // `big` was imported: only `odd` (unaligned) and `splat` were allocated.
    let stats = device.allocator().statistics();
    assert_eq!(
        stats.device_bytes_allocated + stats.host_bytes_allocated,
        5 + 32
    );
    let big = contents(&buffers[0]);
    assert_eq!(big.len(), 1 << 20);
    assert!(big.chunks(4).all(|c| c == [0x11, 0x22, 0x33, 0x44]));
    assert_eq!(contents(&buffers[1]), [5, 6, 7, 8, 9]);
    let splat = contents(&buffers[2]);
    assert_eq!(&splat[..16], &splat[16..]);
    assert_eq!(&splat[..16], (0u8..16).collect::<Vec<_>>());

    // Writing into an imported buffer stays private to it: the file and a
    // second load of the same parameter still see the original bytes.
    buffers[0].write(0, &[0xFF; 8]).unwrap();
    let again = provider
        .load(
            &device,
            &Fence::new(),
            &Fence::new(),
            params(),
            &[span(b"big", 1 << 20)],
        )
        .unwrap();
    assert_eq!(&contents(&again[0])[..4], [0x11, 0x22, 0x33, 0x44]);
    assert_eq!(&contents(&buffers[0])[..8], [0xFF; 8]);
}

#[test]
fn preloaded_files_load_by_copying() {
    let (provider, _) = fixture("preload.irpa", FileMode::Preload, false);
    let device = device();
    let buffers = provider
        .load(
            &device,
            &Fence::new(),
            &Fence::new(),
            params(),
            &[span(b"big", 1 << 20), span(b"small", 3)],
        )
        .unwrap();
    let stats = device.allocator().statistics();
    assert_eq!(
        stats.device_bytes_allocated + stats.host_bytes_allocated,
        (1 << 20) + 3
    );
    assert_eq!(contents(&buffers[1]), [1, 2, 3]);
    assert_eq!(
        &contents(&buffers[0])[(1 << 20) - 4..],
        [0x11, 0x22, 0x33, 0x44]
    );
}

#[test]
fn operations_wait_for_the_wait_fence() {
    let (provider, _) = fixture("wait.irpa", FileMode::Mapped, false);
    let device = device();
    let semaphore = iree_hal::Semaphore::new(0);
    let mut wait = Fence::new();
    wait.insert(semaphore.clone(), 1);
    let signal = Fence::with_new_semaphore();
    let target = device.allocator().allocate_buffer(params(), 16).unwrap();
    provider
        .gather(
            &device,
            &wait,
            &signal,
            &target,
            &[
                Span {
                    key: b"small",
                    parameter_offset: 1,
                    buffer_offset: 4,
                    length: 2,
                },
                Span {
                    key: b"splat",
                    parameter_offset: 0,
                    buffer_offset: 8,
                    length: 4,
                },
            ],
        )
        .unwrap();
    assert!(!signal.query().unwrap(), "gather ran before its wait fence");
    semaphore.signal(1).unwrap();
    signal.wait(None).unwrap();
    assert_eq!(
        contents(&target),
        [0, 0, 0, 0, 2, 3, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0]
    );
}

#[test]
fn bad_requests_fail_the_call_and_the_signal_fence() {
    let (provider, _) = fixture("errors.irpa", FileMode::Mapped, false);
    let device = device();
    let cases: [(Span<'_>, StatusCode); 3] = [
        (span(b"nope", 1), StatusCode::NotFound),
        (span(b"small", 4), StatusCode::OutOfRange),
        (
            Span {
                key: b"small",
                parameter_offset: u64::MAX,
                buffer_offset: 0,
                length: 2,
            },
            StatusCode::OutOfRange,
        ),
    ];
    for (request, code) in cases {
        let signal = Fence::with_new_semaphore();
        let status = provider
            .load(
                &device,
                &Fence::new(),
                &signal,
                params(),
                &[span(b"small", 3), request],
            )
            .unwrap_err();
        assert_eq!(status.code(), code, "{status}");
        assert_eq!(signal.wait(None).unwrap_err().code(), code);
    }
    // Scatter into a read-only file or a splat: PERMISSION_DENIED.
    let source = device.allocator().allocate_buffer(params(), 32).unwrap();
    for key in [b"small" as &[u8], b"splat"] {
        let status = provider
            .scatter(
                &device,
                &Fence::new(),
                &Fence::new(),
                &source,
                &[span(key, 3)],
            )
            .unwrap_err();
        assert_eq!(status.code(), StatusCode::PermissionDenied, "{status}");
    }
    // A gather past the end of the target fails when it runs.
    let small = device.allocator().allocate_buffer(params(), 2).unwrap();
    let signal = Fence::with_new_semaphore();
    let _ = provider.gather(
        &device,
        &Fence::new(),
        &signal,
        &small,
        &[span(b"small", 3)],
    );
    assert_eq!(
        signal.wait(None).unwrap_err().code(),
        StatusCode::OutOfRange
    );
}

#[test]
fn scatter_writes_into_writable_files() {
    let (provider, path) = fixture("scatter.irpa", FileMode::Mapped, true);
    let device = device();
    let source = device.allocator().allocate_buffer(params(), 8).unwrap();
    source.write(0, &[9, 8, 7, 6, 5, 4, 3, 2]).unwrap();
    let signal = Fence::with_new_semaphore();
    provider
        .scatter(
            &device,
            &Fence::new(),
            &signal,
            &source,
            &[Span {
                key: b"odd",
                parameter_offset: 1,
                buffer_offset: 2,
                length: 3,
            }],
        )
        .unwrap();
    signal.wait(None).unwrap();
    // Re-read the file from disk.
    let mut index = ParameterIndex::new();
    iree_io_parameters::append_file_to_index(path.to_str().unwrap(), FileMode::Preload, &mut index)
        .unwrap();
    let entry = index.lookup(b"odd").unwrap();
    let iree_io_parameters::EntryStorage::File { file, offset } = &entry.storage else {
        panic!();
    };
    assert_eq!(file.range(*offset, 5).unwrap(), [5, 7, 6, 5, 9]);
}
