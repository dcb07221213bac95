//! Tests for `vm.buffer` and `vm.list`: opcode semantics, error codes and
//! messages (checked against the reference runtime's output), and concurrent
//! use.

use std::sync::Arc;
use std::thread;

use iree_base::{Result, StatusCode};
use iree_vm::buffer::{buffer_operand, buffer_type, operand_names, Buffer, SharedBytes};
use iree_vm::list::{convert_value, list_operand, list_type, List, ListElementType};
use iree_vm::{Ref, TypeDef, Value, ValueType};

/// Asserts that `result` failed with `code` and exactly `message`.
#[track_caller]
fn assert_err<T: std::fmt::Debug>(result: Result<T>, code: StatusCode, message: &str) {
    match result {
        Ok(v) => panic!("expected {code} '{message}', got Ok({v:?})"),
        Err(e) => {
            assert_eq!(e.code(), code, "message: {}", e.message());
            assert_eq!(e.message(), message);
        }
    }
}

fn oob(offset: u64, length: u64, alignment: u64, buffer_length: usize) -> String {
    format!(
        "out-of-bounds access detected (offset={offset}, length={length}, alignment={alignment}, \
         buffer length={buffer_length})"
    )
}

const READ_ONLY: &str = "buffer is read-only and cannot be mapped for mutation";

fn rodata(bytes: &[u8]) -> Buffer {
    let shared: SharedBytes = Arc::new(bytes.to_vec());
    Buffer::rodata(shared, 0..bytes.len()).unwrap()
}

/// 0x00, 0x01, ..., 0x1f
fn data32() -> Buffer {
    rodata(&(0u8..32).collect::<Vec<_>>())
}

/// 0x81, 0x82, ..., 0x87
fn data7() -> Buffer {
    rodata(&[0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87])
}

// ---------------------------------------------------------------------------
// vm.buffer
// ---------------------------------------------------------------------------

#[test]
fn buffer_type_name() {
    assert_eq!(buffer_type().name(), "vm.buffer");
    let r = Ref::new(Buffer::from_vec(vec![1, 2]));
    assert_eq!(r.ref_type(), buffer_type());
}

#[test]
fn alloc_is_zeroed_and_mutable() {
    let b = Buffer::alloc(128, 16).unwrap();
    assert_eq!(b.len(), 128);
    assert_eq!(b.length(), 128);
    assert!(b.is_mutable());
    assert!(b.to_vec().iter().all(|&x| x == 0));
    let empty = Buffer::alloc(0, 16).unwrap();
    assert_eq!(empty.length(), 0);
    assert!(empty.is_empty());
}

#[test]
fn alloc_alignment_rules() {
    for alignment in [0, 1, 2, 16, 64, 4096, 1 << 30] {
        assert_eq!(Buffer::alloc(5, alignment).unwrap().length(), 5);
    }
    let bad = |a: i32, shown: u64| {
        assert_err(
            Buffer::alloc(5, a),
            StatusCode::InvalidArgument,
            &format!("alignments must be powers of two (got {shown})"),
        )
    };
    bad(3, 3);
    bad(-1, u64::MAX);
    bad(-16, 18446744073709551600);
    bad(i32::MIN, 0xFFFF_FFFF_8000_0000);
    // The alignment is checked before the length.
    assert_err(
        Buffer::alloc(-1, 3),
        StatusCode::InvalidArgument,
        "alignments must be powers of two (got 3)",
    );
}

#[test]
fn alloc_unsatisfiable_length() {
    for length in [-1, -100, i64::MAX] {
        assert_err(
            Buffer::alloc(length, 16),
            StatusCode::ResourceExhausted,
            "libc allocator failed the request",
        );
    }
}

#[test]
fn rodata_is_zero_copy_and_read_only() {
    let bytes: Arc<Vec<u8>> = Arc::new((0u8..16).collect());
    let shared: SharedBytes = bytes.clone();
    let b = Buffer::rodata(shared, 4..12).unwrap();
    assert_eq!(Arc::strong_count(&bytes), 2);
    assert!(!b.is_mutable());
    assert_eq!(b.length(), 8);
    assert_eq!(b.to_vec(), (4u8..12).collect::<Vec<_>>());
    assert_eq!(b.load_i8u(0).unwrap(), 4);
    assert_err(b.store_i8(0, 1), StatusCode::PermissionDenied, READ_ONLY);
    assert_err(
        b.with_bytes_mut(|_| ()),
        StatusCode::PermissionDenied,
        READ_ONLY,
    );
    assert_err(
        b.write_bytes(0, &[1]),
        StatusCode::PermissionDenied,
        READ_ONLY,
    );
    drop(b);
    assert_eq!(Arc::strong_count(&bytes), 1);

    let shared: SharedBytes = bytes.clone();
    assert!(Buffer::rodata(shared.clone(), 0..17).is_err());
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = 5..4;
    assert!(Buffer::rodata(shared.clone(), reversed).is_err());
    assert_eq!(Buffer::rodata(shared, 16..16).unwrap().length(), 0);
}

#[test]
fn hash_is_siphash_2_4_like_upstream() {
    // Values printed by the reference iree-run-module for the same data.
    let b = data32();
    let expect = [
        (0, 8246050544436514353),
        (1, 8428550223375919101),
        (5, 1762690195596617357),
        (7, -6124331488671313609),
        (8, -7785046478206851998),
        (9, -7061500321231936336),
        (15, -6833708440360172059),
        (16, 4551675220716592091),
        (25, -4836423040314787606),
        (32, 8153574914611379406),
    ];
    for (length, hash) in expect {
        assert_eq!(b.hash(0, length).unwrap(), hash, "length {length}");
    }
    // Upstream's own test vectors (buffer_ops test_hash).
    assert_eq!(b.hash(0, 5).unwrap() as u64, 0x18765564cd99a68d);
    assert_eq!(b.hash(0, 16).unwrap() as u64, 0x3f2acc7f57c29bdb);
    assert_eq!(b.hash(0, 25).unwrap() as u64, 0xbce192de8a85b8ea);
    assert_eq!(b.hash(0, 32).unwrap() as u64, 0x7127512f72f27cce);
    assert_eq!(b.hash(3, 10).unwrap(), 3164557766852256289);
    // The hash depends only on the bytes, not on the buffer kind.
    let copy = Buffer::from_vec((3u8..13).collect());
    assert_eq!(copy.hash(0, 10).unwrap(), 3164557766852256289);

    assert_err(b.hash(30, 3), StatusCode::OutOfRange, &oob(30, 3, 1, 32));
    assert_err(b.hash(33, 0), StatusCode::OutOfRange, &oob(33, 0, 1, 32));
    assert_eq!(b.hash(32, 0).unwrap(), 8246050544436514353);
    // Wrapping ranges (undefined behaviour upstream) are rejected.
    assert_err(
        b.hash(-1, 1),
        StatusCode::OutOfRange,
        &oob(u64::MAX, 1, 1, 32),
    );
    assert_err(
        b.hash(1, -1),
        StatusCode::OutOfRange,
        &oob(1, u64::MAX, 1, 32),
    );
}

#[test]
fn loads_use_element_offsets() {
    let b = data7();
    assert_eq!(b.load_i32(0).unwrap(), -2071756159);
    assert_err(b.load_i32(1), StatusCode::OutOfRange, &oob(4, 4, 4, 7));
    assert_err(b.load_i32(2), StatusCode::OutOfRange, &oob(8, 4, 4, 7));
    let i16s = [(-32127, 33409), (-31613, 33923), (-31099, 34437)];
    for (i, (s, u)) in i16s.into_iter().enumerate() {
        assert_eq!(b.load_i16s(i as i64).unwrap(), s);
        assert_eq!(b.load_i16u(i as i64).unwrap(), u);
    }
    assert_err(b.load_i16s(3), StatusCode::OutOfRange, &oob(6, 2, 2, 7));
    assert_err(b.load_i16u(4), StatusCode::OutOfRange, &oob(8, 2, 2, 7));
    assert_eq!(b.load_i8u(6).unwrap(), 0x87);
    assert_eq!(b.load_i8s(6).unwrap(), -121);
    assert_err(b.load_i8u(7), StatusCode::OutOfRange, &oob(7, 1, 1, 7));

    let d = data32();
    assert_eq!(d.load_i64(0).unwrap(), 506097522914230528);
    assert_eq!(d.load_i64(3).unwrap(), 2242261671028070680);
    assert_err(d.load_i64(4), StatusCode::OutOfRange, &oob(32, 8, 8, 32));
    assert_eq!(d.load_f64(0).unwrap().to_bits(), 506097522914230528);
    assert_err(d.load_f64(4), StatusCode::OutOfRange, &oob(32, 8, 8, 32));
    assert_eq!(d.load_f32(1).unwrap().to_bits(), 0x07060504);
    assert_eq!(d.load_i32(7).unwrap(), 0x1f1e1d1c);
    assert_err(d.load_f32(8), StatusCode::OutOfRange, &oob(32, 4, 4, 32));

    // Negative offsets wrap to huge unsigned ones and are rejected (upstream
    // reads outside the buffer here).
    assert_err(
        b.load_i32(-1),
        StatusCode::OutOfRange,
        &oob(u64::MAX - 3, 4, 4, 7),
    );
    assert_err(
        b.load_i8s(-1),
        StatusCode::OutOfRange,
        &oob(u64::MAX, 1, 1, 7),
    );
}

#[test]
fn load_i8_extension() {
    let b = rodata(&[0x00, 0x01, 0x7F, 0x80, 0xFF]);
    let u: Vec<i32> = (0..5).map(|i| b.load_i8u(i).unwrap()).collect();
    let s: Vec<i32> = (0..5).map(|i| b.load_i8s(i).unwrap()).collect();
    assert_eq!(u, [0, 1, 0x7F, 0x80, 0xFF]);
    assert_eq!(s, [0, 1, 0x7F, -128, -1]);
    let b = rodata(&[0x00, 0x00, 0x01, 0x00, 0xFF, 0x7F, 0x00, 0x80, 0xFF, 0xFF]);
    let u: Vec<i32> = (0..5).map(|i| b.load_i16u(i).unwrap()).collect();
    let s: Vec<i32> = (0..5).map(|i| b.load_i16s(i).unwrap()).collect();
    assert_eq!(u, [0, 1, 0x7FFF, 0x8000, 0xFFFF]);
    assert_eq!(s, [0, 1, 0x7FFF, -32768, -1]);
}

#[test]
fn stores_truncate_and_check_bounds() {
    let store16 = |len: i64, off: i64, v: i32| -> Result<i64> {
        let b = Buffer::alloc(len, 16)?;
        b.store_i16(off, v)?;
        b.load_i64(0)
    };
    assert_eq!(store16(8, 0, -2).unwrap(), 65534);
    assert_eq!(store16(8, 3, 7).unwrap(), 1970324836974592);
    assert_eq!(store16(8, 1, 65537).unwrap(), 65536);
    assert_err(store16(8, 4, 7), StatusCode::OutOfRange, &oob(8, 2, 2, 8));

    let b = Buffer::alloc(7, 16).unwrap();
    assert_err(b.store_i16(3, 1), StatusCode::OutOfRange, &oob(6, 2, 2, 7));
    b.store_i8(6, 0x1FF).unwrap();
    assert_eq!(b.load_i8u(6).unwrap(), 0xFF);

    let b = Buffer::alloc(16, 8).unwrap();
    b.store_i32(1, -2).unwrap();
    b.store_i64(1, 0x0102030405060708).unwrap();
    assert_eq!(b.load_i32(1).unwrap(), -2);
    assert_eq!(b.load_i64(1).unwrap(), 0x0102030405060708);
    assert_eq!(b.read_bytes(8, 8).unwrap(), [8, 7, 6, 5, 4, 3, 2, 1]);
    b.store_f32(0, 1.5).unwrap();
    assert_eq!(b.load_f32(0).unwrap(), 1.5);
    assert_eq!(b.load_i32(0).unwrap(), 1.5f32.to_bits() as i32);
    b.store_f64(1, -0.25).unwrap();
    assert_eq!(b.load_f64(1).unwrap(), -0.25);
    assert_err(
        b.store_f64(2, 0.0),
        StatusCode::OutOfRange,
        &oob(16, 8, 8, 16),
    );
    assert_err(
        b.store_i64(-1, 0),
        StatusCode::OutOfRange,
        &oob(u64::MAX - 7, 8, 8, 16),
    );
}

#[test]
fn stores_to_rodata_are_denied_before_bounds() {
    let b = data7();
    assert_err(b.store_i32(0, 5), StatusCode::PermissionDenied, READ_ONLY);
    assert_err(b.store_i32(5, 5), StatusCode::PermissionDenied, READ_ONLY);
    assert_err(
        b.fill_i16(0, 2, 0xCAFE),
        StatusCode::PermissionDenied,
        READ_ONLY,
    );
    assert_err(
        b.fill_f64(100, 2, 1.0),
        StatusCode::PermissionDenied,
        READ_ONLY,
    );
    assert_err(b.store_f32(0, 1.0), StatusCode::PermissionDenied, READ_ONLY);
}

#[test]
fn fills_use_element_offsets_and_lengths() {
    let fill32 = |len: i64, off: i64, n: i64, v: i32| -> Result<i64> {
        let b = Buffer::alloc(len, 16)?;
        b.fill_i32(off, n, v)?;
        b.load_i64(0)
    };
    assert_eq!(fill32(8, 0, 2, -1).unwrap(), -1);
    assert_eq!(fill32(8, 1, 1, 5).unwrap(), 21474836480);
    assert_err(fill32(8, 1, 2, 5), StatusCode::OutOfRange, &oob(4, 8, 4, 8));
    assert_eq!(fill32(8, 2, 0, 5).unwrap(), 0);
    assert_eq!(fill32(12, 1, 2, 5).unwrap(), 21474836480);
    assert_err(
        fill32(8, 3, 0, 5),
        StatusCode::OutOfRange,
        &oob(12, 0, 4, 8),
    );

    let fill8 = |len: i64, off: i64, n: i64, v: i32| -> Result<i64> {
        let b = Buffer::alloc(len, 16)?;
        b.fill_i8(off, n, v)?;
        b.load_i64(0)
    };
    assert_eq!(fill8(8, 0, 8, 257).unwrap(), 72340172838076673);
    assert_eq!(fill8(8, 7, 1, 255).unwrap(), -72057594037927936);
    assert_err(
        fill8(8, 7, 2, 255),
        StatusCode::OutOfRange,
        &oob(7, 2, 1, 8),
    );

    // The reference results of upstream's buffer_ops fill tests.
    let b = Buffer::alloc(8, 16).unwrap();
    b.fill_i16(1, 2, 0xCAFE).unwrap();
    assert_eq!(b.to_vec(), [0, 0, 0xFE, 0xCA, 0xFE, 0xCA, 0, 0]);
    let b = Buffer::alloc(32, 16).unwrap();
    b.fill_i64(1, 2, 0x100000000).unwrap();
    assert_eq!(
        [
            b.load_i64(0).unwrap(),
            b.load_i64(1).unwrap(),
            b.load_i64(2).unwrap(),
            b.load_i64(3).unwrap()
        ],
        [0, 0x100000000, 0x100000000, 0]
    );
    let b = Buffer::alloc(16, 16).unwrap();
    b.fill_f32(1, 2, 42.0).unwrap();
    assert_eq!(
        (0..4).map(|i| b.load_f32(i).unwrap()).collect::<Vec<_>>(),
        [0.0, 42.0, 42.0, 0.0]
    );
    let b = Buffer::alloc(24, 16).unwrap();
    b.fill_f64(0, 3, -1.25).unwrap();
    assert_eq!(b.load_f64(2).unwrap(), -1.25);
    assert_err(
        b.fill_f64(1, 3, 0.0),
        StatusCode::OutOfRange,
        &oob(8, 24, 8, 24),
    );
    assert_err(
        b.fill_i32(-1, 1, 0),
        StatusCode::OutOfRange,
        &oob(u64::MAX - 3, 4, 4, 24),
    );
}

#[test]
fn compare_is_bytewise_over_byte_ranges() {
    let d = data32();
    assert_eq!(Buffer::compare(&d, 0, &d, 0, 32).unwrap(), 1);
    assert_eq!(Buffer::compare(&d, 0, &d, 1, 4).unwrap(), 0);
    assert_eq!(Buffer::compare(&d, 4, &d, 4, 4).unwrap(), 1);
    assert_eq!(Buffer::compare(&d, 32, &d, 32, 0).unwrap(), 1);
    assert_err(
        Buffer::compare(&d, 30, &d, 0, 4),
        StatusCode::OutOfRange,
        &oob(30, 4, 1, 32),
    );
    assert_err(
        Buffer::compare(&d, 0, &d, 30, 4),
        StatusCode::OutOfRange,
        &oob(30, 4, 1, 32),
    );
    assert_err(
        Buffer::compare(&d, 33, &d, 0, 0),
        StatusCode::OutOfRange,
        &oob(33, 0, 1, 32),
    );

    let a = rodata(&[100, 0, 0, 0, 200, 0, 0, 0, 44, 1, 0, 0]);
    let b = Buffer::from_vec(vec![100, 0, 0, 0, 201, 0, 0, 0, 44, 1, 0, 0]);
    assert_eq!(Buffer::compare(&a, 0, &b, 0, 12).unwrap(), 0);
    assert_eq!(Buffer::compare(&b, 8, &a, 8, 4).unwrap(), 1);
    assert_eq!(Buffer::compare(&a, 2, &b, 2, 0).unwrap(), 1);
    // lhs is checked first.
    assert_err(
        Buffer::compare(&a, 13, &b, 13, 0),
        StatusCode::OutOfRange,
        &oob(13, 0, 1, 12),
    );
}

#[test]
fn copy_semantics() {
    let d = data32();
    let copy = |so: i64, dlen: i64, dst_off: i64, len: i64| -> Result<i64> {
        let b = Buffer::alloc(dlen, 16)?;
        Buffer::copy(&d, so, &b, dst_off, len)?;
        b.load_i64(0)
    };
    assert_eq!(copy(0, 8, 0, 8).unwrap(), 506097522914230528);
    assert_eq!(copy(1, 8, 0, 4).unwrap(), 67305985);
    assert_eq!(copy(0, 8, 4, 4).unwrap(), 216736831578832896);
    assert_err(copy(0, 8, 5, 4), StatusCode::OutOfRange, &oob(5, 4, 1, 8));
    assert_err(
        copy(30, 8, 0, 4),
        StatusCode::OutOfRange,
        &oob(30, 4, 1, 32),
    );
    assert_err(
        copy(0, 128, 0, 128),
        StatusCode::OutOfRange,
        &oob(0, 128, 1, 32),
    );
    // Zero-length copies still check that the offsets are in range.
    let b = Buffer::alloc(4, 16).unwrap();
    assert_err(
        Buffer::copy(&d, 0, &b, 8, 0),
        StatusCode::OutOfRange,
        &oob(8, 0, 1, 4),
    );
    Buffer::copy(&d, 32, &b, 4, 0).unwrap();

    // Target writability is checked after the source range but before the
    // target range.
    assert_err(
        Buffer::copy(&d, 0, &d, 0, 1),
        StatusCode::PermissionDenied,
        READ_ONLY,
    );
    assert_err(
        Buffer::copy(&d, 0, &d, 40, 1),
        StatusCode::PermissionDenied,
        READ_ONLY,
    );
    assert_err(
        Buffer::copy(&d, 40, &d, 0, 1),
        StatusCode::OutOfRange,
        &oob(40, 1, 1, 32),
    );

    // Overlapping copies within one buffer behave like memmove.
    let m = Buffer::from_vec((0u8..8).collect());
    Buffer::copy(&m, 0, &m, 2, 6).unwrap();
    assert_eq!(m.to_vec(), [0, 1, 0, 1, 2, 3, 4, 5]);
    Buffer::copy(&m, 2, &m, 0, 6).unwrap();
    assert_eq!(m.to_vec(), [0, 1, 2, 3, 4, 5, 4, 5]);
}

#[test]
fn clone_semantics() {
    let d = data32();
    let c = d.clone_range(4, 8, 16).unwrap();
    assert!(c.is_mutable());
    assert_eq!(c.to_vec(), (4u8..12).collect::<Vec<_>>());
    assert_eq!(Buffer::compare(&d, 4, &c, 0, 8).unwrap(), 1);
    c.store_i8(0, 99).unwrap();
    assert_eq!(d.load_i8u(4).unwrap(), 4);

    assert_eq!(d.clone_range(0, 0, 16).unwrap().length(), 0);
    assert_eq!(d.clone_range(32, 0, 16).unwrap().length(), 0);
    assert_eq!(d.clone_range(4, 8, 0).unwrap().length(), 8);
    assert_err(
        d.clone_range(4, 8, 3),
        StatusCode::InvalidArgument,
        "alignments must be powers of two (got 3)",
    );
    assert_err(
        d.clone_range(30, 4, 16),
        StatusCode::OutOfRange,
        &oob(30, 4, 1, 32),
    );
    assert_err(
        d.clone_range(8, 8, 16)
            .and(rodata(&[0; 12]).clone_range(8, 8, 16)),
        StatusCode::OutOfRange,
        &oob(8, 8, 1, 12),
    );
    // The source range is checked before the alignment.
    assert_err(
        d.clone_range(30, 4, 3),
        StatusCode::OutOfRange,
        &oob(30, 4, 1, 32),
    );
    assert_err(
        d.clone_range(-1, 1, 16),
        StatusCode::OutOfRange,
        &oob(u64::MAX, 1, 1, 32),
    );
    assert_err(
        d.clone_range(4, -1, 16),
        StatusCode::OutOfRange,
        &oob(4, u64::MAX, 1, 32),
    );

    let empty = Buffer::alloc(0, 16).unwrap();
    assert_eq!(empty.clone_range(0, 0, 16).unwrap().length(), 0);
}

#[test]
fn host_byte_access() {
    let b = Buffer::from_vec(vec![1, 2, 3, 4]);
    assert_eq!(b.read_bytes(1, 2).unwrap(), [2, 3]);
    assert_err(b.read_bytes(3, 2), StatusCode::OutOfRange, &oob(3, 2, 1, 4));
    b.write_bytes(2, &[9, 9]).unwrap();
    assert_eq!(b.with_bytes(|x| x.to_vec()), [1, 2, 9, 9]);
    b.with_bytes_mut(|x| x[0] = 7).unwrap();
    assert_eq!(b.load_i8u(0).unwrap(), 7);
    assert_err(
        b.write_bytes(3, &[1, 1]),
        StatusCode::OutOfRange,
        &oob(3, 2, 1, 4),
    );
}

#[test]
fn buffer_operands() {
    let r = Some(Ref::new(Buffer::from_vec(vec![1])));
    assert_eq!(
        buffer_operand(&r, operand_names::BUFFER).unwrap().length(),
        1
    );
    assert_err(
        buffer_operand(&None, operand_names::SOURCE_BUFFER).map(|b| b.length()),
        StatusCode::InvalidArgument,
        "source_buffer is null",
    );
    // A ref of another type counts as null, as in the reference interpreter.
    let list = Some(Ref::new(List::new(ListElementType::Variant, 0).unwrap()));
    assert_err(
        buffer_operand(&list, operand_names::TARGET_BUFFER).map(|b| b.length()),
        StatusCode::InvalidArgument,
        "target_buffer is null",
    );
    assert_eq!(operand_names::CLONE_SOURCE, "source");
    assert_eq!(operand_names::LHS_BUFFER, "lhs_buffer");
    assert_eq!(operand_names::RHS_BUFFER, "rhs_buffer");
}

#[test]
fn buffers_are_thread_safe() {
    let a = Arc::new(Buffer::alloc(4096, 16).unwrap());
    let b = Arc::new(Buffer::alloc(4096, 16).unwrap());
    let mut threads = Vec::new();
    for t in 0..8i64 {
        let (a, b) = (a.clone(), b.clone());
        threads.push(thread::spawn(move || {
            for i in 0..if cfg!(miri) { 2 } else { 2000i64 } {
                let slot = t * 64 + (i % 64); // bytes 0..2048, never a copy target
                a.store_i32(slot, (t * 1_000_000 + i) as i32).unwrap();
                assert_eq!(a.load_i32(slot).unwrap(), (t * 1_000_000 + i) as i32);
                // Opposite-direction copies and compares must not deadlock.
                if t % 2 == 0 {
                    Buffer::copy(&a, 0, &b, 0, 4096).unwrap();
                } else {
                    Buffer::copy(&b, 0, &a, 2048, 2048).unwrap();
                }
                Buffer::compare(&a, 0, &b, 0, 4096).unwrap();
                Buffer::compare(&b, 0, &a, 0, 4096).unwrap();
                a.hash(0, 4096).unwrap();
                b.fill_i8(4000, 96, t as i32).unwrap();
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
}

// ---------------------------------------------------------------------------
// vm.list
// ---------------------------------------------------------------------------

fn value_list(ty: ValueType, size: i32) -> List {
    let l = List::new(ListElementType::Value(ty), size).unwrap();
    l.resize(size).unwrap();
    l
}

#[test]
fn list_type_name_and_element_types() {
    assert_eq!(list_type().name(), "vm.list");
    let l = List::new(ListElementType::Variant, 0).unwrap();
    assert_eq!(l.ref_type_name(), "vm.list");
    assert_eq!(
        ListElementType::from_type_def(TypeDef::Value(ValueType::I32)),
        ListElementType::Value(ValueType::I32)
    );
    assert_eq!(
        ListElementType::from_type_def(TypeDef::Ref(buffer_type())),
        ListElementType::Ref(buffer_type())
    );
    // `!vm.list<?>` encodes its element type as `!vm.opaque`: a variant list.
    assert_eq!(
        ListElementType::from_type_def(TypeDef::AnyRef),
        ListElementType::Variant
    );
    assert_eq!(ListElementType::Value(ValueType::F32).to_string(), "f32");
    assert_eq!(ListElementType::Ref(list_type()).to_string(), "!vm.list");
    assert_eq!(ListElementType::Variant.to_string(), "?");
}

trait RefTypeName {
    fn ref_type_name(&self) -> &'static str;
}
impl RefTypeName for List {
    fn ref_type_name(&self) -> &'static str {
        use iree_vm::RefObject;
        self.ref_type().name()
    }
}

#[test]
fn list_size_reserve_resize() {
    let l = List::new(ListElementType::Value(ValueType::I8), 42).unwrap();
    assert!(l.capacity() >= 42);
    l.reserve(100).unwrap();
    assert!(l.capacity() >= 100);
    assert_eq!(l.size(), 0);
    assert!(l.is_empty());
    l.resize(3).unwrap();
    assert_eq!(l.size(), 3);
    assert_eq!(l.get_i32(2).unwrap(), 0);

    // Shrinking resets the dropped elements; growing again reads zeros.
    let l = value_list(ValueType::I32, 2);
    l.set_i32(1, 9).unwrap();
    l.resize(1).unwrap();
    l.resize(2).unwrap();
    assert_eq!(l.get_i32(1).unwrap(), 0);
    l.resize(0).unwrap();
    assert_eq!(l.size(), 0);
    l.clear();

    assert_err(
        List::with_capacity(ListElementType::Value(ValueType::I64), usize::MAX).map(|l| l.len()),
        StatusCode::ResourceExhausted,
        "libc allocator failed the request",
    );
}

#[test]
fn list_index_errors() {
    let l = value_list(ValueType::I32, 3);
    assert_err(
        l.get_i32(-1),
        StatusCode::OutOfRange,
        "index 4294967295 out of bounds (3)",
    );
    assert_err(
        l.get_i32(3),
        StatusCode::OutOfRange,
        "index 3 out of bounds (3)",
    );
    assert_eq!(l.get_i32(2).unwrap(), 0);
    let empty = List::new(ListElementType::Value(ValueType::I32), 1).unwrap();
    assert_err(
        empty.set_i32(0, 1),
        StatusCode::OutOfRange,
        "index 0 out of bounds (0)",
    );
    let one = value_list(ValueType::I32, 1);
    assert_err(
        one.get_i32(1),
        StatusCode::OutOfRange,
        "index 1 out of bounds (1)",
    );
    assert_err(
        one.set_i32(1, 1),
        StatusCode::OutOfRange,
        "index 1 out of bounds (1)",
    );
    let v = List::new(ListElementType::Variant, 1).unwrap();
    assert_err(
        v.set_ref(0, None),
        StatusCode::OutOfRange,
        "index 0 out of bounds (0)",
    );
    v.resize(1).unwrap();
    assert_err(
        v.get_ref(1, TypeDef::Ref(buffer_type())),
        StatusCode::OutOfRange,
        "index 1 out of bounds (1)",
    );
    assert_err(
        v.get_value(1),
        StatusCode::OutOfRange,
        "index 1 out of bounds (1)",
    );
}

#[test]
fn list_integer_conversions() {
    // i8 storage truncates on set and sign-extends on get (reference output).
    let l = value_list(ValueType::I8, 1);
    for (set, got) in [(5, 5), (-1, -1), (300, 44), (-129, 127), (128, -128)] {
        l.set_i32(0, set).unwrap();
        assert_eq!(l.get_i32(0).unwrap(), got);
        assert_eq!(l.get_i64(0).unwrap(), got as i64);
    }
    let l = value_list(ValueType::I16, 1);
    l.set_i32(0, 27).unwrap();
    assert_eq!(l.get_i32(0).unwrap(), 27);
    l.set_i64(0, 0x1_8000).unwrap();
    assert_eq!(l.get_i32(0).unwrap(), -32768);

    let l = value_list(ValueType::I32, 1);
    for (set, got) in [(4294967297i64, 1), (-1, -1), (2147483648, -2147483648)] {
        l.set_i64(0, set).unwrap();
        assert_eq!(l.get_i32(0).unwrap(), got);
        assert_eq!(l.get_i64(0).unwrap(), got as i64);
    }
    let l = value_list(ValueType::I64, 42);
    l.set_i64(41, 2147483648).unwrap();
    assert_eq!(l.get_i64(41).unwrap(), 2147483648);
    assert_eq!(l.get_i32(41).unwrap(), i32::MIN);
}

#[test]
fn list_float_conversions() {
    // Reference output: get.i32 on an f32 list reads 0, get.f64 converts,
    // set.i32 on an f32 list stores 0.0.
    let l = value_list(ValueType::F32, 2);
    l.set_f32(0, 1.5).unwrap();
    assert_eq!(l.get_f32(0).unwrap(), 1.5);
    assert_eq!(l.get_i32(0).unwrap(), 0);
    assert_eq!(l.get_i64(0).unwrap(), 0);
    assert_eq!(l.get_f64(0).unwrap(), 1.5);
    l.set_i32(1, 7).unwrap();
    assert_eq!(l.get_f32(1).unwrap(), 0.0);
    l.set_f64(1, 0.1).unwrap();
    assert_eq!(l.get_f32(1).unwrap(), 0.1f64 as f32);

    let l = value_list(ValueType::F64, 1);
    l.set_f32(0, -2.75).unwrap();
    assert_eq!(l.get_f64(0).unwrap(), -2.75);
    l.set_i64(0, 5).unwrap();
    assert_eq!(l.get_f64(0).unwrap(), 0.0);

    let l = value_list(ValueType::I32, 1);
    l.set_f32(0, 3.0).unwrap();
    assert_eq!(l.get_i32(0).unwrap(), 0);
    l.set_i32(0, 3).unwrap();
    assert_eq!(l.get_f32(0).unwrap(), 0.0);

    assert!(matches!(
        convert_value(&Value::I8(-3), ValueType::I64),
        Value::I64(-3)
    ));
    assert!(matches!(
        convert_value(&Value::I64(0x1_0000_00FF), ValueType::I8),
        Value::I8(-1)
    ));
    assert!(
        matches!(convert_value(&Value::F64(1e300), ValueType::F32), Value::F32(f) if f.is_infinite())
    );
    assert!(matches!(
        convert_value(&Value::F32(2.0), ValueType::I32),
        Value::I32(0)
    ));
}

#[test]
fn variant_lists() {
    let l = List::new(ListElementType::Variant, 42).unwrap();
    l.resize(42).unwrap();
    // Values keep their own type; accessors convert.
    l.set_i32(10, -5).unwrap();
    assert_eq!(l.get_i64(10).unwrap(), -5);
    assert_eq!(l.get_f32(10).unwrap(), 0.0);
    assert!(matches!(l.get_value(10).unwrap(), Value::I32(-5)));
    l.set_i64(10, 1234).unwrap();
    assert_eq!(l.get_i64(10).unwrap(), 1234);
    assert!(matches!(l.get_value(10).unwrap(), Value::I64(1234)));

    // Empty slots: no value, null ref.
    assert_err(
        l.get_i32(0),
        StatusCode::FailedPrecondition,
        "variant at index 0 is not a value type",
    );
    assert!(l.get_ref(0, TypeDef::Ref(buffer_type())).unwrap().is_none());
    assert!(matches!(l.get_value(0).unwrap(), Value::Ref(None)));

    // A value slot read as a ref fails with an empty message.
    assert_err(
        l.get_ref(10, TypeDef::Ref(buffer_type())),
        StatusCode::FailedPrecondition,
        "",
    );

    // Refs: matching type_of returns it, anything else yields null.
    let buf = Ref::new(Buffer::from_vec(vec![1, 2, 3]));
    l.set_ref(11, Some(buf.clone())).unwrap();
    let got = l.get_ref(11, TypeDef::Ref(buffer_type())).unwrap().unwrap();
    assert!(Ref::ptr_eq(&got, &buf));
    assert!(l.get_ref(11, TypeDef::Ref(list_type())).unwrap().is_none());
    assert!(l.get_ref(11, TypeDef::AnyRef).unwrap().is_none());
    assert!(l
        .get_ref(11, TypeDef::Value(ValueType::I32))
        .unwrap()
        .is_none());
    assert_err(
        l.get_i32(11),
        StatusCode::FailedPrecondition,
        "variant at index 11 is not a value type",
    );

    // Overwriting a ref slot with a value releases the ref.
    drop(got);
    assert_eq!(Ref::strong_count(&buf), 2);
    l.set_i32(11, 1).unwrap();
    assert_eq!(Ref::strong_count(&buf), 1);
    // Storing null empties the slot.
    l.set_ref(12, Some(buf.clone())).unwrap();
    l.set_ref(12, None).unwrap();
    assert_eq!(Ref::strong_count(&buf), 1);
    assert_err(
        l.get_i32(12),
        StatusCode::FailedPrecondition,
        "variant at index 12 is not a value type",
    );
    // Shrinking releases refs.
    l.set_ref(41, Some(buf.clone())).unwrap();
    assert_eq!(Ref::strong_count(&buf), 2);
    l.resize(40).unwrap();
    assert_eq!(Ref::strong_count(&buf), 1);
}

#[test]
fn ref_lists() {
    let l = List::new(ListElementType::Ref(list_type()), 8).unwrap();
    l.resize(2).unwrap();
    let inner = Ref::new(value_list(ValueType::I32, 3));
    l.set_ref(0, Some(inner.clone())).unwrap();
    let got = l.get_ref(0, TypeDef::Ref(list_type())).unwrap().unwrap();
    assert!(Ref::ptr_eq(&got, &inner));
    got.downcast::<List>().unwrap().set_i32(2, 102).unwrap();
    assert_eq!(inner.downcast::<List>().unwrap().get_i32(2).unwrap(), 102);
    // A mismatching type_of yields null (reference: cmp.nz.ref -> 0).
    assert!(l.get_ref(0, TypeDef::Ref(buffer_type())).unwrap().is_none());
    assert!(l.get_ref(1, TypeDef::Ref(list_type())).unwrap().is_none());

    // Storing a ref of the wrong type fails and leaves the slot unchanged.
    let buf = Ref::new(Buffer::from_vec(vec![]));
    assert_err(
        l.set_ref(0, Some(buf.clone())),
        StatusCode::InvalidArgument,
        "source ref type mismatch",
    );
    assert!(l.get_ref(0, TypeDef::Ref(list_type())).unwrap().is_some());
    assert_eq!(Ref::strong_count(&buf), 1);
    // Null is always accepted.
    l.set_ref(0, None).unwrap();
    assert!(l.get_ref(0, TypeDef::Ref(list_type())).unwrap().is_none());

    // Value accessors on a ref list.
    assert_err(
        l.get_i32(0),
        StatusCode::FailedPrecondition,
        "list does not store values",
    );
    assert_err(
        l.set_i32(0, 1),
        StatusCode::FailedPrecondition,
        "list cannot store values",
    );
    assert_err(
        l.get_f64(0),
        StatusCode::FailedPrecondition,
        "list does not store values",
    );
    assert!(matches!(l.get_value(0).unwrap(), Value::Ref(None)));

    // Any-ref lists take every type.
    let any = List::new(ListElementType::AnyRef, 0).unwrap();
    any.push(Value::Ref(Some(buf.clone()))).unwrap();
    any.push(Value::Ref(Some(inner.clone()))).unwrap();
    any.push(Value::NULL).unwrap();
    assert_eq!(any.size(), 3);
    assert_eq!(
        any.get_ref_at(0).unwrap().unwrap().ref_type(),
        buffer_type()
    );
    assert_eq!(any.get_ref_at(1).unwrap().unwrap().ref_type(), list_type());
}

#[test]
fn ref_accessors_on_value_lists() {
    let l = value_list(ValueType::I32, 2);
    assert_err(
        l.get_ref(0, TypeDef::Ref(buffer_type())),
        StatusCode::FailedPrecondition,
        "list does not store refs",
    );
    let buf = Ref::new(Buffer::from_vec(vec![]));
    assert_err(
        l.set_ref(0, Some(buf)),
        StatusCode::FailedPrecondition,
        "list cannot store refs",
    );
    assert_err(
        l.set_ref(0, None),
        StatusCode::FailedPrecondition,
        "list cannot store refs",
    );
}

#[test]
fn generic_values_for_tooling() {
    let l = List::new(ListElementType::Variant, 0).unwrap();
    l.push(Value::I32(1)).unwrap();
    l.push(Value::F64(2.5)).unwrap();
    l.push(Value::I8(-1)).unwrap();
    let buf = Ref::new(Buffer::from_vec(vec![7]));
    l.push(Value::Ref(Some(buf.clone()))).unwrap();
    l.push(Value::NULL).unwrap();
    let values = l.to_values();
    assert_eq!(values.len(), 5);
    assert!(matches!(values[0], Value::I32(1)));
    assert!(matches!(values[1], Value::F64(f) if f == 2.5));
    assert!(matches!(values[2], Value::I8(-1)));
    assert!(matches!(&values[3], Value::Ref(Some(r)) if Ref::ptr_eq(r, &buf)));
    assert!(matches!(values[4], Value::Ref(None)));
    assert_eq!(l.get_i32(2).unwrap(), -1);

    // Typed lists convert values and reject refs without growing.
    let t = List::new(ListElementType::Value(ValueType::I16), 0).unwrap();
    t.push(Value::I64(70000)).unwrap();
    assert!(matches!(t.get_value(0).unwrap(), Value::I16(4464)));
    assert_err(
        t.push(Value::Ref(Some(buf.clone()))),
        StatusCode::FailedPrecondition,
        "list cannot store refs",
    );
    assert_eq!(t.size(), 1);
    t.set_value(0, Value::F32(1.0)).unwrap();
    assert!(matches!(t.get_value(0).unwrap(), Value::I16(0)));

    let r = List::new(ListElementType::Ref(buffer_type()), 0).unwrap();
    assert_err(
        r.push(Value::I32(1)),
        StatusCode::FailedPrecondition,
        "list cannot store values",
    );
    let wrong = Ref::new(List::new(ListElementType::Variant, 0).unwrap());
    assert_err(
        r.push(Value::Ref(Some(wrong))),
        StatusCode::InvalidArgument,
        "source ref type mismatch",
    );
    assert_eq!(r.size(), 0);
    r.push(Value::Ref(Some(buf.clone()))).unwrap();
    assert_eq!(r.element_type(), ListElementType::Ref(buffer_type()));
    assert_eq!(format!("{r:?}"), "List<!vm.buffer>[1]");
}

#[test]
fn list_operands() {
    let r = Some(Ref::new(List::new(ListElementType::Variant, 0).unwrap()));
    assert_eq!(list_operand(&r).unwrap().size(), 0);
    assert_err(
        list_operand(&None).map(|l| l.size()),
        StatusCode::InvalidArgument,
        "list is null",
    );
    let buf = Some(Ref::new(Buffer::from_vec(vec![])));
    assert_err(
        list_operand(&buf).map(|l| l.size()),
        StatusCode::InvalidArgument,
        "list is null",
    );
}

#[test]
fn nested_list_release_while_storing() {
    // Replacing an element whose destructor releases another list must not
    // deadlock (the displaced ref is dropped outside the lock).
    let outer = Arc::new(List::new(ListElementType::Variant, 1).unwrap());
    outer.resize(1).unwrap();
    let inner = List::new(ListElementType::Variant, 1).unwrap();
    inner
        .push(Value::Ref(Some(Ref::from_arc(outer.clone()))))
        .unwrap();
    outer.set_ref(0, Some(Ref::new(inner))).unwrap();
    // Break the cycle: dropping the inner list drops its ref to `outer`.
    outer.set_ref(0, None).unwrap();
    assert_eq!(Arc::strong_count(&outer), 1);
}

#[test]
fn lists_are_thread_safe() {
    let l = Arc::new(List::new(ListElementType::Variant, 0).unwrap());
    let typed = Arc::new(value_list(ValueType::I64, 64));
    let buf = Ref::new(Buffer::from_vec(vec![0; 4]));
    let mut threads = Vec::new();
    for t in 0..8i64 {
        let (l, typed, buf) = (l.clone(), typed.clone(), buf.clone());
        threads.push(thread::spawn(move || {
            for i in 0..1000i64 {
                l.push(if i % 2 == 0 {
                    Value::I64(t * 10_000 + i)
                } else {
                    Value::Ref(Some(buf.clone()))
                })
                .unwrap();
                let slot = (t * 8 + i % 8) as i32;
                typed.set_i64(slot, i).unwrap();
                assert_eq!(typed.get_i64(slot).unwrap(), i);
                let _ = l.get_value((i as usize) % l.len());
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(l.size(), 8000);
    assert_eq!(Ref::strong_count(&buf), 1 + 4000);
    l.resize(0).unwrap();
    assert_eq!(Ref::strong_count(&buf), 1);
}

#[test]
#[cfg_attr(miri, ignore = "Miri backs every allocation with real memory: 4 GiB")]
fn huge_zeroed_allocations_are_lazy_or_fail_cleanly() {
    // The reference runtime gets zeroed memory from calloc, so `resize(-1)`
    // on a list (4294967295 elements) succeeds without touching the pages
    // where the host overcommits. Either outcome must be clean and quick.
    let l = List::new(ListElementType::Value(ValueType::I8), 0).unwrap();
    match l.resize(-1) {
        Ok(()) => {
            assert_eq!(l.size(), -1);
            assert_eq!(l.len(), u32::MAX as usize);
            assert_eq!(l.get_i32(-2).unwrap(), 0);
            l.set_i32(-2, 7).unwrap();
            assert_eq!(l.get_i32(-2).unwrap(), 7);
            l.resize(1).unwrap();
            assert_eq!(l.size(), 1);
        }
        Err(e) => assert_eq!(e.code(), StatusCode::ResourceExhausted),
    }
    match Buffer::alloc(1 << 32, 16) {
        Ok(b) => {
            assert_eq!(b.length(), 1 << 32);
            assert_eq!(b.load_i64((1 << 29) - 1).unwrap(), 0);
        }
        Err(e) => assert_eq!(e.code(), StatusCode::ResourceExhausted),
    }
}

#[test]
fn list_growth_keeps_values() {
    for ty in [
        ValueType::I8,
        ValueType::I16,
        ValueType::I32,
        ValueType::I64,
        ValueType::F32,
        ValueType::F64,
    ] {
        let l = List::new(ListElementType::Value(ty), 0).unwrap();
        for i in 0..1000 {
            l.push(Value::I32(i)).unwrap();
        }
        l.reserve(5000).unwrap();
        assert!(l.capacity() >= 5000);
        l.resize(3000).unwrap();
        for i in 0..1000 {
            let expect = if ty.is_float() { 0 } else { (i as i8) as i64 };
            let expect = match ty {
                ValueType::I16 => (i as i16) as i64,
                ValueType::I32 | ValueType::I64 => i as i64,
                _ => expect,
            };
            assert_eq!(l.get_i64(i).unwrap(), expect, "{ty:?}[{i}]");
        }
        for i in 1000..3000 {
            assert_eq!(l.get_i64(i).unwrap(), 0);
        }
    }
}

/// Owned buffers are shared across threads without locks: workers storing
/// interleaved bytes and i16s (each store covering part of a word other
/// workers write too) lose none of each other's bytes, and `with_bytes_mut`
/// writes back only the runs it changed.
#[test]
fn owned_buffers_take_concurrent_disjoint_stores() {
    const WORKERS: usize = 4;
    const BYTES: usize = if cfg!(miri) { 32 } else { 4096 };
    let bytes = Arc::new(Buffer::alloc(BYTES as i64, 0).unwrap());
    let halves = Arc::new(Buffer::from_vec(vec![0u8; BYTES + 1]));
    std::thread::scope(|scope| {
        for w in 0..WORKERS {
            let (bytes, halves) = (bytes.clone(), halves.clone());
            scope.spawn(move || {
                for i in (w..BYTES).step_by(WORKERS) {
                    bytes.store_i8(i as i64, i as i32).unwrap();
                }
                for i in (w..BYTES / 2).step_by(WORKERS) {
                    halves.store_i16(i as i64, (i * 7) as i32).unwrap();
                }
            });
        }
    });
    for i in 0..BYTES {
        assert_eq!(bytes.load_i8u(i as i64).unwrap(), i32::from(i as u8));
    }
    for i in 0..BYTES / 2 {
        assert_eq!(
            halves.load_i16u(i as i64).unwrap(),
            i32::from((i * 7) as u16)
        );
    }
    assert_eq!(halves.len(), BYTES + 1);
    bytes
        .with_bytes_mut(|b| {
            b[1] = 0xAA;
            b[2] = 0xBB;
            b[BYTES - 1] = 0xCC;
        })
        .unwrap();
    assert_eq!(bytes.load_i8u(1).unwrap(), 0xAA);
    assert_eq!(bytes.load_i8u(2).unwrap(), 0xBB);
    assert_eq!(bytes.load_i8u(3).unwrap(), 3);
    assert_eq!(bytes.load_i8u(BYTES as i64 - 1).unwrap(), 0xCC);
}
