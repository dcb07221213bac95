//! `vm.buffer` over external memory: every opcode behaves as on owned
//! buffers, read-only memory rejects writes, unaligned bases work, copies
//! between views of one allocation behave like `memmove`, and several
//! threads may write disjoint parts of one buffer at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use iree_base::StatusCode;
use iree_vm::buffer::Buffer;

/// An external buffer over `len` bytes of a fresh allocation, starting
/// `skew` bytes past an 8-aligned address, filled with `0, 1, 2, ...`.
/// The allocation is the buffer's owner.
fn external(len: usize, skew: usize, writable: bool) -> Buffer {
    let words = (len + skew).div_ceil(8) + 1;
    let mut storage: Vec<u64> = vec![0; words];
    let base = storage.as_mut_ptr().cast::<u8>().wrapping_add(skew);
    for i in 0..len {
        // SAFETY: `skew + i < 8 * words`, inside the allocation; nothing else
        // accesses it yet.
        unsafe { base.add(i).write(i as u8) };
    }
    // SAFETY: `base..base + len` lies in `storage`, whose heap block does not
    // move when the Vec is moved into the buffer as its owner, and which no
    // one else accesses while the buffer lives.
    unsafe { Buffer::external(base, len, writable, storage) }
}

fn owned(len: usize) -> Buffer {
    Buffer::from_vec((0..len).map(|i| i as u8).collect())
}

#[test]
fn loads_match_owned_buffers_at_every_skew() {
    let reference = owned(64);
    for skew in 0..8 {
        let b = external(64, skew, false);
        assert!(b.is_external());
        assert!(!b.is_mutable());
        assert_eq!(b.length(), 64);
        for i in 0..8 {
            assert_eq!(b.load_i64(i).unwrap(), reference.load_i64(i).unwrap());
            assert_eq!(
                b.load_f64(i).unwrap().to_bits(),
                reference.load_f64(i).unwrap().to_bits()
            );
        }
        for i in 0..16 {
            assert_eq!(b.load_i32(i).unwrap(), reference.load_i32(i).unwrap());
            assert_eq!(
                b.load_f32(i).unwrap().to_bits(),
                reference.load_f32(i).unwrap().to_bits()
            );
        }
        for i in 0..32 {
            assert_eq!(b.load_i16s(i).unwrap(), reference.load_i16s(i).unwrap());
            assert_eq!(b.load_i16u(i).unwrap(), reference.load_i16u(i).unwrap());
        }
        for i in 0..64 {
            assert_eq!(b.load_i8s(i).unwrap(), reference.load_i8s(i).unwrap());
            assert_eq!(b.load_i8u(i).unwrap(), reference.load_i8u(i).unwrap());
        }
        assert_eq!(b.to_vec(), reference.to_vec());
        assert_eq!(b.hash(3, 50).unwrap(), reference.hash(3, 50).unwrap());
    }
}

#[test]
fn stores_and_fills_match_owned_buffers() {
    for skew in [0, 1, 3, 4] {
        let a = external(40, skew, true);
        let b = owned(40);
        for buf in [&a, &b] {
            buf.store_i8(0, 0x1ff).unwrap();
            buf.store_i16(3, -2).unwrap();
            buf.store_i32(3, 0x1234_5678).unwrap();
            buf.store_i64(2, -0x0102_0304_0506_0708).unwrap();
            buf.store_f32(9, 1.5).unwrap();
            buf.fill_i16(15, 3, 0x7abc).unwrap();
            buf.fill_i8(37, 3, 9).unwrap();
            buf.store_f64(4, -0.25).unwrap();
        }
        assert_eq!(a.to_vec(), b.to_vec(), "skew {skew}");
        a.fill_i64(0, 5, 7).unwrap();
        b.fill_i64(0, 5, 7).unwrap();
        a.fill_f32(1, 2, 2.0).unwrap();
        b.fill_f32(1, 2, 2.0).unwrap();
        assert_eq!(a.to_vec(), b.to_vec(), "skew {skew}");
    }
}

#[test]
fn errors_match_owned_buffers() {
    let a = external(16, 1, true);
    let b = owned(16);
    for buf in [&a, &b] {
        let e = buf.load_i32(4).unwrap_err();
        assert_eq!(e.code(), StatusCode::OutOfRange);
        assert_eq!(
            e.message(),
            "out-of-bounds access detected (offset=16, length=4, alignment=4, buffer length=16)"
        );
        assert_eq!(
            buf.store_i64(2, 0).unwrap_err().code(),
            StatusCode::OutOfRange
        );
        assert_eq!(
            buf.fill_i16(-1, 1, 0).unwrap_err().code(),
            StatusCode::OutOfRange
        );
        assert_eq!(
            buf.read_bytes(10, 7).unwrap_err().code(),
            StatusCode::OutOfRange
        );
        assert_eq!(
            buf.clone_range(1, 16, 0).unwrap_err().code(),
            StatusCode::OutOfRange
        );
    }
}

#[test]
fn read_only_external_memory_rejects_writes() {
    let b = external(16, 0, false);
    let denied = StatusCode::PermissionDenied;
    assert_eq!(b.store_i32(0, 1).unwrap_err().code(), denied);
    assert_eq!(b.fill_i8(0, 1, 1).unwrap_err().code(), denied);
    assert_eq!(b.write_bytes(0, &[1]).unwrap_err().code(), denied);
    assert_eq!(b.with_bytes_mut(|_| ()).unwrap_err().code(), denied);
    let source = owned(4);
    assert_eq!(
        Buffer::copy(&source, 0, &b, 0, 4).unwrap_err().code(),
        denied
    );
    // Read-only is checked before the target range.
    assert_eq!(
        Buffer::copy(&source, 0, &b, 100, 4).unwrap_err().code(),
        denied
    );
    assert_eq!(b.to_vec(), (0..16).collect::<Vec<u8>>());
    // Clones are ordinary mutable buffers.
    let c = b.clone_range(4, 8, 16).unwrap();
    assert!(c.is_mutable() && !c.is_external());
    assert_eq!(c.to_vec(), (4..12).collect::<Vec<u8>>());
}

#[test]
fn copies_between_every_kind_of_storage() {
    let e1 = external(32, 3, true);
    let e2 = external(32, 0, true);
    let o = owned(32);
    Buffer::copy(&e1, 0, &e2, 16, 16).unwrap();
    assert_eq!(e2.read_bytes(16, 16).unwrap(), (0..16).collect::<Vec<u8>>());
    Buffer::copy(&o, 20, &e1, 0, 8).unwrap();
    assert_eq!(e1.read_bytes(0, 8).unwrap(), (20..28).collect::<Vec<u8>>());
    Buffer::copy(&e1, 0, &o, 0, 4).unwrap();
    assert_eq!(o.read_bytes(0, 4).unwrap(), vec![20, 21, 22, 23]);
    assert_eq!(Buffer::compare(&e1, 0, &o, 0, 4).unwrap(), 1);
    assert_eq!(Buffer::compare(&e1, 0, &o, 1, 4).unwrap(), 0);
    assert_eq!(Buffer::compare(&o, 0, &e1, 0, 4).unwrap(), 1);
}

#[test]
fn overlapping_copies_behave_like_memmove() {
    for (from, to, len) in [
        (0, 5, 600),
        (5, 0, 600),
        (1, 300, 700),
        (300, 1, 700),
        (7, 7, 10),
    ] {
        let b = external(1024, 1, true);
        let mut expected: Vec<u8> = (0..1024).map(|i| i as u8).collect();
        expected.copy_within(from..from + len, to);
        Buffer::copy(&b, from as i64, &b, to as i64, len as i64).unwrap();
        assert_eq!(b.to_vec(), expected, "copy {from} -> {to} x {len}");
    }
    // Two buffers viewing one allocation.
    let mut storage = vec![0u64; 128];
    let base = storage.as_mut_ptr().cast::<u8>();
    for i in 0..1024 {
        // SAFETY: inside the allocation, not yet shared.
        unsafe { base.add(i).write(i as u8) };
    }
    // SAFETY: both views lie in `storage`, which outlives them (dropped at
    // the end of the test after them) and is accessed only through them.
    let (low, high) = unsafe {
        (
            Buffer::external(base, 1024, true, ()),
            Buffer::external(base.add(100), 900, true, ()),
        )
    };
    Buffer::copy(&low, 0, &high, 0, 800).unwrap();
    let mut expected: Vec<u8> = (0..1024).map(|i| i as u8).collect();
    expected.copy_within(0..800, 100);
    assert_eq!(low.to_vec(), expected);
    drop((low, high));
    drop(storage);
}

#[test]
fn with_bytes_mut_writes_back_only_changed_bytes() {
    let b = external(16, 2, true);
    let r = b
        .with_bytes_mut(|bytes| {
            bytes[3] = 0xaa;
            bytes[15] = 0xbb;
            7
        })
        .unwrap();
    assert_eq!(r, 7);
    let mut expected: Vec<u8> = (0..16).collect();
    expected[3] = 0xaa;
    expected[15] = 0xbb;
    assert_eq!(b.to_vec(), expected);
    assert_eq!(b.with_bytes(|bytes| bytes.len()), 16);
    let mut out = [0u8; 4];
    b.read_into(2, &mut out).unwrap();
    assert_eq!(out, [2, 0xaa, 4, 5]);
}

#[test]
fn empty_external_buffers() {
    // SAFETY: zero bytes; the pointer is never dereferenced.
    let b = unsafe { Buffer::external(std::ptr::null_mut(), 0, true, ()) };
    assert!(b.is_empty());
    assert_eq!(b.to_vec(), Vec::<u8>::new());
    assert_eq!(b.load_i8u(0).unwrap_err().code(), StatusCode::OutOfRange);
    Buffer::copy(&b, 0, &b, 0, 0).unwrap();
}

#[test]
fn owner_is_dropped_with_the_buffer() {
    struct Owner(Arc<AtomicUsize>);
    impl Drop for Owner {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let drops = Arc::new(AtomicUsize::new(0));
    // SAFETY: zero bytes.
    let b = unsafe { Buffer::external(std::ptr::null_mut(), 0, false, Owner(drops.clone())) };
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(b);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn concurrent_workers_write_disjoint_elements() {
    const WORKERS: usize = 4;
    const ELEMENTS: usize = if cfg!(miri) { 64 } else { 4096 };
    const ROUNDS: usize = if cfg!(miri) { 3 } else { 20 };
    let b = Arc::new(external(ELEMENTS * 4, 0, true));
    std::thread::scope(|scope| {
        for w in 0..WORKERS {
            let b = b.clone();
            scope.spawn(move || {
                for round in 0..ROUNDS {
                    for i in (w..ELEMENTS).step_by(WORKERS) {
                        b.store_i32(i as i64, (i * 1000 + round) as i32).unwrap();
                        // Reads of other workers' elements are racy by
                        // design but never undefined behaviour.
                        let _ = b.load_i32(((i + 1) % ELEMENTS) as i64).unwrap();
                    }
                    // Byte-range traffic over the whole buffer.
                    let _ = b.hash(0, (ELEMENTS * 4) as i64).unwrap();
                }
            });
        }
    });
    for i in 0..ELEMENTS {
        assert_eq!(
            b.load_i32(i as i64).unwrap(),
            (i * 1000 + ROUNDS - 1) as i32
        );
    }
}

#[test]
fn concurrent_workers_write_disjoint_bytes_of_shared_words() {
    // Every word is shared by all workers (worker `w` owns bytes `w mod 4`),
    // so each store updates only part of a word: no worker may lose
    // another's bytes. Unaligned 2-byte stores at a skewed base straddle
    // words as well.
    const WORKERS: usize = 4;
    const BYTES: usize = if cfg!(miri) { 32 } else { 4096 };
    const ROUNDS: usize = if cfg!(miri) { 2 } else { 20 };
    let bytes = Arc::new(external(BYTES, 0, true));
    let halves = Arc::new(external(BYTES, 1, true));
    std::thread::scope(|scope| {
        for w in 0..WORKERS {
            let (bytes, halves) = (bytes.clone(), halves.clone());
            scope.spawn(move || {
                for round in 0..ROUNDS {
                    for i in (w..BYTES).step_by(WORKERS) {
                        bytes.store_i8(i as i64, (i + round) as i32).unwrap();
                    }
                    for i in (w..BYTES / 2).step_by(WORKERS) {
                        halves.store_i16(i as i64, (i * 7 + round) as i32).unwrap();
                    }
                }
            });
        }
    });
    for i in 0..BYTES {
        assert_eq!(
            bytes.load_i8u(i as i64).unwrap(),
            ((i + ROUNDS - 1) as u8).into()
        );
    }
    for i in 0..BYTES / 2 {
        assert_eq!(
            halves.load_i16u(i as i64).unwrap(),
            ((i * 7 + ROUNDS - 1) as u16).into()
        );
    }
}

/// `try_gather`/`try_scatter` move strided elements of owned, external
/// (aligned or not) and rodata buffers as the per-element methods do, and
/// refuse, touching nothing, runs that leave the buffer or write read-only
/// memory.
#[test]
fn strided_runs_match_per_element_access() {
    let views: Vec<(&str, Buffer)> = vec![
        ("owned", owned(64)),
        ("external", external(64, 0, true)),
        ("external, skewed", external(64, 3, true)),
    ];
    for (what, b) in &views {
        for (index, stride) in [(0i64, 1i64), (1, 1), (3, 4), (15, -2), (7, 0)] {
            let mut got = [[0u8; 4]; 4];
            assert!(
                b.try_gather(index, stride, &mut got),
                "{what} {index} {stride}"
            );
            for (k, element) in got.iter().enumerate() {
                let at = index + k as i64 * stride;
                assert_eq!(
                    u32::from_le_bytes(*element),
                    b.load_i32(at).unwrap() as u32,
                    "{what}"
                );
            }
        }
        // Out of bounds at either end: nothing read or written.
        let mut out = [[9u8; 4]; 4];
        assert!(!b.try_gather(13, 1, &mut out));
        assert!(!b.try_gather(2, -1, &mut out));
        assert_eq!(out, [[9u8; 4]; 4]);
        assert!(!b.try_scatter(14, 1, &[[1u8; 4]; 3]));
        assert!(b.try_gather::<4>(0, 1, &mut []));
        // Scatter then gather back, strided and contiguous.
        let values = [[1u8, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]];
        for (index, stride) in [(2i64, 1i64), (9, 2), (12, -3)] {
            assert!(b.try_scatter(index, stride, &values), "{what}");
            let mut back = [[0u8; 4]; 3];
            assert!(b.try_gather(index, stride, &mut back));
            assert_eq!(back, values, "{what} {index} {stride}");
        }
    }
    let read_only = external(64, 0, false);
    assert!(!read_only.try_scatter(0, 1, &[[1u8; 4]]));
    assert_eq!(
        read_only.load_i32(0).unwrap(),
        i32::from_le_bytes([0, 1, 2, 3])
    );
}

/// Two external buffers over one allocation may share bytes; owned buffers
/// share only with themselves.
#[test]
fn buffers_that_may_share_bytes_are_recognized() {
    let mut storage = vec![0u64; 8];
    let base = storage.as_mut_ptr().cast::<u8>();
    // SAFETY: both views lie in `storage`, which outlives them and which
    // nothing else accesses meanwhile.
    let (a, b, c) = unsafe {
        (
            Buffer::external(base, 32, true, ()),
            Buffer::external(base.add(16), 32, true, ()),
            Buffer::external(base.add(32), 32, true, ()),
        )
    };
    assert!(a.may_share_bytes(&b) && b.may_share_bytes(&c));
    assert!(!a.may_share_bytes(&c));
    let (x, y) = (owned(8), owned(8));
    assert!(x.may_share_bytes(&x) && !x.may_share_bytes(&y) && !x.may_share_bytes(&a));
    drop((a, b, c));
    drop(storage);
}
