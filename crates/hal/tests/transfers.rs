//! Host-side buffer transfers (`Buffer::fill`, `copy_from`, `write`, what
//! the queue's fill, copy, update, read and write operations run) against a
//! plain byte model: every pattern width, unaligned offsets and lengths,
//! overlapping copies within one allocation, and out-of-range or misaligned
//! requests that fail with a clear status and leave the buffer untouched.
//! Also: read-only imports of shared bytes.

use std::sync::Arc;

use iree_base::StatusCode;
use iree_hal::{
    Allocator, Buffer, BufferParams, BufferUsage, ExternalHostMemory, HeapAllocator, MemoryAccess,
    MemoryType,
};

const SIZE: usize = 3 << 20; // past the huge-page threshold: both kinds of host memory

fn buffer(len: usize) -> Buffer {
    HeapAllocator::new()
        .allocate_buffer(
            BufferParams {
                memory_type: MemoryType::DEVICE_LOCAL,
                ..Default::default()
            },
            len as u64,
        )
        .unwrap()
}

fn contents(buffer: &Buffer) -> Vec<u8> {
    let mut out = vec![0; buffer.byte_length() as usize];
    buffer.read(0, &mut out).unwrap();
    out
}

fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn lengths(width: usize) -> impl Iterator<Item = usize> {
    [0, 1, 2, 3, 7, 63, 64, 65, 4095, 4097, 65_536 + 12, 2 << 20]
        .into_iter()
        .map(move |n| n / width * width)
}

#[test]
fn fill_writes_every_pattern_width_at_aligned_offsets() {
    for len in [4096, SIZE] {
        let b = buffer(len);
        for pattern in [&[0x5Au8][..], &[1, 2], &[0, 0, 0x80, 0x3F], &[7, 7, 7, 7]] {
            let width = pattern.len();
            for offset in [0, width, 3 * width, 64 + width] {
                for length in lengths(width).filter(|n| offset + n <= len) {
                    let before = noise(len, (offset + length) as u64);
                    b.write(0, &before).unwrap();
                    b.fill(offset as u64, length as u64, pattern).unwrap();
                    let mut model = before;
                    for (i, byte) in model[offset..offset + length].iter_mut().enumerate() {
                        *byte = pattern[i % width];
                    }
                    assert!(contents(&b) == model, "{pattern:?} at {offset}+{length}");
                }
            }
        }
    }
}

#[test]
fn bad_fills_fail_and_leave_the_buffer_untouched() {
    let b = buffer(4096);
    let before = noise(4096, 1);
    b.write(0, &before).unwrap();
    let cases: [(u64, u64, &[u8], StatusCode); 6] = [
        (4090, 8, &[0], StatusCode::OutOfRange),
        (4097, 0, &[0], StatusCode::OutOfRange),
        (u64::MAX - 2, 4, &[0], StatusCode::OutOfRange),
        (2, 8, &[1, 2, 3, 4], StatusCode::InvalidArgument),
        (0, 6, &[1, 2, 3, 4], StatusCode::InvalidArgument),
        (0, 6, &[1, 2, 3], StatusCode::InvalidArgument),
    ];
    for (offset, length, pattern, code) in cases {
        let error = b.fill(offset, length, pattern).unwrap_err();
        assert_eq!(error.code(), code, "{offset}+{length} {pattern:?}: {error}");
        assert!(contents(&b) == before);
    }
}

#[test]
fn copies_and_writes_match_the_model_at_unaligned_offsets() {
    let (source, target) = (buffer(SIZE), buffer(SIZE));
    let data = noise(SIZE, 9);
    source.write(0, &data).unwrap();
    for (from, to) in [(0, 0), (1, 3), (7, 0), (4095, 1)] {
        for length in lengths(1) {
            let before = noise(SIZE, length as u64);
            target.write(0, &before).unwrap();
            target
                .copy_from(to as u64, &source, from as u64, length as u64)
                .unwrap();
            let mut model = before.clone();
            model[to..to + length].copy_from_slice(&data[from..from + length]);
            assert!(contents(&target) == model, "copy {from}->{to} +{length}");

            target.write(0, &before).unwrap();
            target.write(to as u64, &data[from..from + length]).unwrap();
            assert!(contents(&target) == model, "write at {to} +{length}");
        }
    }
}

#[test]
fn copies_within_one_allocation_behave_like_memmove() {
    let b = buffer(SIZE);
    for (from, to, length) in [
        (0, 1, 1 << 20),
        (1, 0, 1 << 20),
        (10, 10, 100),
        (0, 4096, 4096),
    ] {
        let before = noise(SIZE, (from * 3 + to) as u64);
        b.write(0, &before).unwrap();
        // Through a subspan too: offsets are relative to each buffer.
        let view = b.subspan(0, WHOLE).unwrap();
        view.copy_from(to as u64, &b, from as u64, length as u64)
            .unwrap();
        let mut model = before;
        model.copy_within(from..from + length, to);
        assert!(contents(&b) == model, "{from}->{to} +{length}");
    }
}

const WHOLE: u64 = iree_hal::buffer::WHOLE_BUFFER;

#[test]
fn bad_copies_fail_and_leave_the_target_untouched() {
    let (source, target) = (buffer(4096), buffer(4096));
    source.write(0, &noise(4096, 2)).unwrap();
    let before = noise(4096, 3);
    target.write(0, &before).unwrap();
    for (to, from, length) in [(4090, 0, 16), (0, 4090, 16), (0, 0, 4097), (u64::MAX, 0, 2)] {
        let error = target.copy_from(to, &source, from, length).unwrap_err();
        assert_eq!(
            error.code(),
            StatusCode::OutOfRange,
            "{from}->{to} +{length}"
        );
        assert!(contents(&target) == before);
    }
    let error = target.write(4000, &[0; 100]).unwrap_err();
    assert_eq!(error.code(), StatusCode::OutOfRange);
    assert!(contents(&target) == before);
}

/// Shared bytes at a 64-byte aligned address (a loaded module's image).
#[repr(align(64))]
struct Aligned([u8; 256]);

impl AsRef<[u8]> for Aligned {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Shared bytes that end 3 bytes into an aligned word.
struct Short(Aligned);

impl AsRef<[u8]> for Short {
    fn as_ref(&self) -> &[u8] {
        &self.0 .0[..253]
    }
}

#[test]
fn shared_bytes_are_imported_read_only_without_a_copy() {
    let mut image = Aligned([0; 256]);
    image.0.copy_from_slice(&noise(256, 4));
    let expected = image.0;
    let bytes: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(image);
    let address = (*bytes).as_ref()[64..].as_ptr();
    let memory = ExternalHostMemory::from_shared(bytes.clone(), 64..192).unwrap();
    assert!(!memory.is_writable());
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DEFAULT,
        access: MemoryAccess::ALL,
        ..Default::default()
    };
    let buffer = HeapAllocator::new()
        .import_host_memory(params, memory)
        .unwrap();
    assert_eq!(buffer.byte_length(), 128);
    assert!(!buffer.allowed_access().contains(MemoryAccess::WRITE));
    {
        let device = buffer.begin_device_access().unwrap();
        assert_eq!(device.base_ptr().cast_const(), address, "no copy");
    }
    assert_eq!(contents(&buffer), expected[64..192]);
    for error in [
        buffer.write(0, &[1]).unwrap_err(),
        buffer.fill(0, 4, &[1]).unwrap_err(),
        buffer.copy_from(0, &buffer, 4, 4).unwrap_err(),
    ] {
        assert_eq!(error.code(), StatusCode::PermissionDenied);
    }
    assert_eq!(contents(&buffer), expected[64..192]);
    // Out of the shared bytes, or not aligned for buffers: refused.
    let outside = ExternalHostMemory::from_shared(bytes.clone(), 200..300);
    assert_eq!(
        outside.err().map(|e| e.code()),
        Some(StatusCode::OutOfRange)
    );
    // Windows whose last bytes share a word with bytes past the end of the
    // shared memory are refused too (kernels may access whole words).
    let ragged: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(Aligned([7; 256]));
    let tail = ExternalHostMemory::from_shared(ragged.clone(), 248..253).unwrap();
    assert_eq!(tail.len(), 5);
    let short: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(Short(Aligned([7; 256])));
    assert_eq!(
        ExternalHostMemory::from_shared(short, 248..253)
            .err()
            .map(|e| e.code()),
        Some(StatusCode::OutOfRange)
    );
    let unaligned = ExternalHostMemory::from_shared(bytes, 1..65).unwrap();
    assert!(HeapAllocator::new()
        .import_host_memory(params, unaligned)
        .is_err());
}
