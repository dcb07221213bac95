//! `.npy` reading and writing against files recorded from upstream's
//! `iree-run-module` 3.13.0 (`tests/data/numpy/`):
//!
//! - `read_cases.tsv` lists inputs fed to an echo function with
//!   `--input=@NAME.npy --output=@out.npy`: either upstream wrote the input
//!   back byte for byte (`same`), wrote `NAME.out.npy` (`out`), or failed
//!   with the status given (location and tool annotations removed);
//! - `write_*.npy` are upstream's outputs for text inputs (`4xi4`, `2x*16`,
//!   ...) and for scalar results appended with `--output=+f.npy`.

use std::io::Cursor;
use std::path::PathBuf;

use iree_hal::ElementType;
use iree_tooling::numpy::{
    descr_to_element_type, element_type_to_descr, encode_header, load_ndarray, read_all_ndarrays,
    read_ndarray, write_ndarray, NdArray,
};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/numpy")
}

fn fixture(name: &str) -> Vec<u8> {
    let path = data_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write(array: &NdArray) -> Vec<u8> {
    let mut out = Vec::new();
    write_ndarray(&mut out, array).unwrap();
    out
}

#[test]
fn read_cases_match_upstream() {
    let manifest = String::from_utf8(fixture("read_cases.tsv")).unwrap();
    let mut count = 0;
    let mut failures = Vec::new();
    for line in manifest.lines().filter(|l| !l.starts_with('#')) {
        let (name, expected) = line.split_once('\t').unwrap();
        let input = fixture(&format!("{name}.npy"));
        let result = load_ndarray(&mut Cursor::new(&input));
        let actual = match result {
            Ok(array) => {
                let written = write(&array);
                let want = match expected {
                    "same" => input.clone(),
                    "out" => fixture(&format!("{name}.out.npy")),
                    _ => {
                        failures.push(format!("{name}: read ok, upstream failed `{expected}`"));
                        continue;
                    }
                };
                if written != want {
                    failures.push(format!("{name}: written bytes differ from upstream's"));
                }
                continue;
            }
            Err(status) => status.to_string_without_location(),
        };
        count += 1;
        if actual != expected {
            failures.push(format!("{name}: got `{actual}`, upstream `{expected}`"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count > 40, "only {count} error cases");
}

#[test]
fn clean_eof_is_none_and_load_fails() {
    assert_eq!(read_ndarray(&mut Cursor::new(&[][..])).unwrap(), None);
    let status = load_ndarray(&mut Cursor::new(&[][..])).unwrap_err();
    assert_eq!(
        status.to_string_without_location(),
        "OUT_OF_RANGE; end-of-file"
    );
}

#[test]
fn concatenated_arrays_read_in_sequence() {
    // numpy.save three times into one file: f32[3], i8[2,2], i64 scalar.
    let bytes = fixture("cat3.npy");
    let mut cursor = Cursor::new(&bytes);
    let first = read_ndarray(&mut cursor).unwrap().unwrap();
    assert_eq!(first.shape, vec![3]);
    assert_eq!(first.element_type, ElementType::FLOAT_32);
    assert_eq!(write(&first), fixture("cat3.out.npy"));
    let second = load_ndarray(&mut cursor).unwrap();
    assert_eq!(second.shape, vec![2, 2]);
    assert_eq!(second.element_type, ElementType::SINT_8);
    assert_eq!(second.data, vec![0, 1, 2, 3]);
    let third = read_ndarray(&mut cursor).unwrap().unwrap();
    assert!(third.shape.is_empty());
    assert_eq!(third.element_type, ElementType::SINT_64);
    assert_eq!(third.data, 5i64.to_le_bytes());
    assert_eq!(read_ndarray(&mut cursor).unwrap(), None);
    assert_eq!(cursor.position() as usize, bytes.len());

    let all = read_all_ndarrays(&mut Cursor::new(&bytes)).unwrap();
    assert_eq!(all, vec![first, second, third]);
}

#[test]
fn trailing_partial_array_fails_after_the_first() {
    // np_f4.npy followed by three bytes of a second magic.
    let bytes = fixture("trailing.npy");
    let mut cursor = Cursor::new(&bytes);
    assert!(read_ndarray(&mut cursor).unwrap().is_some());
    let status = read_ndarray(&mut cursor).unwrap_err();
    assert_eq!(
        status.to_string_without_location(),
        "OUT_OF_RANGE; end-of-file encountered during read; unable to read entire header prefix"
    );
    assert!(read_all_ndarrays(&mut Cursor::new(&bytes)).is_err());
}

#[test]
fn read_element_types() {
    let cases: &[(&str, ElementType)] = &[
        ("np_b1", ElementType::BOOL_8),
        ("np_i1", ElementType::SINT_8),
        ("np_i2", ElementType::SINT_16),
        ("np_i4", ElementType::SINT_32),
        ("np_i8", ElementType::SINT_64),
        ("np_u1", ElementType::UINT_8),
        ("np_u2", ElementType::UINT_16),
        ("np_u4", ElementType::UINT_32),
        ("np_u8", ElementType::UINT_64),
        ("np_f2", ElementType::FLOAT_16),
        ("np_f4", ElementType::FLOAT_32),
        ("np_f8", ElementType::FLOAT_64),
        ("np_c8", ElementType::COMPLEX_FLOAT_64),
        ("np_c16", ElementType::COMPLEX_FLOAT_128),
        ("np_V1", ElementType::OPAQUE_8),
        ("np_V2", ElementType::OPAQUE_16),
        ("np_V4", ElementType::OPAQUE_32),
        ("np_V8", ElementType::OPAQUE_64),
    ];
    for &(name, element_type) in cases {
        let array = load_ndarray(&mut Cursor::new(fixture(&format!("{name}.npy")))).unwrap();
        assert_eq!(array.element_type, element_type, "{name}");
        assert_eq!(array.shape, vec![2, 3], "{name}");
        assert_eq!(array.data.len(), 6 * element_type.bit_count() / 8, "{name}");
    }
    let f4 = load_ndarray(&mut Cursor::new(fixture("np_f4.npy"))).unwrap();
    let values: Vec<f32> = f4
        .data
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let scalar = load_ndarray(&mut Cursor::new(fixture("np_scalar_f4.npy"))).unwrap();
    assert!(scalar.shape.is_empty());
    assert_eq!(scalar.data, 3.5f32.to_le_bytes());
    let empty = load_ndarray(&mut Cursor::new(fixture("np_empty_f4.npy"))).unwrap();
    assert_eq!(empty.shape, vec![0]);
    assert!(empty.data.is_empty());
}

#[test]
fn descr_quirks() {
    let parse = |d: &str| descr_to_element_type(d.as_bytes());
    assert_eq!(parse("=f4").unwrap(), ElementType::FLOAT_32);
    assert_eq!(parse("f4").unwrap(), ElementType::FLOAT_32);
    assert_eq!(parse("<f0x4").unwrap(), ElementType::FLOAT_32);
    assert_eq!(parse("<f4abc").unwrap(), ElementType::FLOAT_32);
    assert_eq!(parse("|b2").unwrap().raw(), 0x1300_0010);
    // The bit count is not masked: 32 bytes set bit 8 and leave 0 bits.
    assert_eq!(parse("<f32").unwrap().raw(), 0x2100_0100);
    // 32-bit wrapping: 536870913 * 8 = 8 (mod 2^32).
    assert_eq!(parse("<i536870913").unwrap(), ElementType::SINT_8);
    let err = |d: &str| parse(d).unwrap_err().to_string_without_location();
    assert_eq!(
        err(">f4"),
        "UNIMPLEMENTED; big-endian data type '>f4' unsupported"
    );
    assert_eq!(
        err(""),
        "UNIMPLEMENTED; big-endian data type '' unsupported"
    );
    assert_eq!(err("<"), "INVALID_ARGUMENT; descr missing kind");
    assert_eq!(err("<U2"), "UNIMPLEMENTED; unsupported data type U");
    assert_eq!(err("<f"), "INVALID_ARGUMENT; invalid descr byte width");
}

#[test]
fn descr_names_written() {
    let descr = |t: ElementType| element_type_to_descr(t).unwrap();
    assert_eq!(descr(ElementType::FLOAT_32), "<f4");
    assert_eq!(descr(ElementType::FLOAT_16), "<f2");
    assert_eq!(descr(ElementType::FLOAT_64), "<f8");
    assert_eq!(descr(ElementType::INT_32), "<i4");
    assert_eq!(descr(ElementType::SINT_64), "<i8");
    assert_eq!(descr(ElementType::UINT_16), "<u2");
    assert_eq!(descr(ElementType::INT_8), "|i1");
    assert_eq!(descr(ElementType::UINT_8), "|u1");
    assert_eq!(descr(ElementType::BOOL_8), "|b1");
    assert_eq!(descr(ElementType::INT_4), "|i1");
    assert_eq!(descr(ElementType::UINT_4), "|u1");
    assert_eq!(descr(ElementType::COMPLEX_FLOAT_64), "<c8");
    assert_eq!(descr(ElementType::COMPLEX_FLOAT_128), "<c16");
    assert_eq!(descr(ElementType::OPAQUE_8), "|V1");
    assert_eq!(descr(ElementType::OPAQUE_32), "<V4");
    assert_eq!(descr(ElementType::NONE), "<V0");
    for t in [
        ElementType::BFLOAT_16,
        ElementType::FLOAT_8_E5M2,
        ElementType::FLOAT_8_E4M3_FN,
        ElementType::FLOAT_8_E5M2_FNUZ,
        ElementType::FLOAT_8_E4M3_FNUZ,
        ElementType::FLOAT_8_E8M0_FNU,
    ] {
        assert_eq!(
            element_type_to_descr(t)
                .unwrap_err()
                .to_string_without_location(),
            "UNIMPLEMENTED; unsupported data encoding"
        );
    }
}

#[test]
fn unsupported_types_write_nothing() {
    let array = NdArray {
        shape: vec![2],
        element_type: ElementType::BFLOAT_16,
        data: vec![0; 4],
    };
    let mut out = Vec::new();
    let status = write_ndarray(&mut out, &array).unwrap_err();
    assert_eq!(
        status.to_string_without_location(),
        "UNIMPLEMENTED; unsupported data encoding"
    );
    assert!(out.is_empty());
}

#[test]
fn writes_match_upstream() {
    let array = |shape: &[usize], t: &str, data: Vec<u8>| NdArray {
        shape: shape.to_vec(),
        element_type: ElementType::parse(t).unwrap(),
        data,
    };
    let cases = [
        ("write_4xi4.npy", array(&[4], "i4", vec![0; 2])),
        ("write_3xi4.npy", array(&[3], "i4", vec![0; 2])),
        ("write_3xsi4.npy", array(&[3], "si4", vec![0; 2])),
        ("write_2xui4.npy", array(&[2], "ui4", vec![0; 1])),
        ("write_2xi2.npy", array(&[2], "i2", vec![0; 1])),
        ("write_2xi1.npy", array(&[2], "i1", vec![0; 2])),
        ("write_2xS16.npy", array(&[2], "*16", vec![0; 4])),
        ("write_3xS8.npy", array(&[3], "*8", vec![0; 3])),
        ("write_2xS24.npy", array(&[2], "*24", vec![0; 6])),
        ("write_2xi24.npy", array(&[2], "i24", vec![0; 6])),
        ("write_2xcf128.npy", array(&[2], "cf128", vec![0; 32])),
        ("write_f16_1.npy", array(&[], "f16", vec![0x00, 0x3c])),
        (
            "write_f32_1.npy",
            array(&[], "f32", 1f32.to_le_bytes().to_vec()),
        ),
        ("write_2xui8_1.npy", array(&[2], "ui8", vec![1, 1])),
        ("write_2xsi16_1.npy", array(&[2], "si16", vec![1, 0, 1, 0])),
        ("write_2x0xi32.npy", array(&[2, 0], "i32", vec![])),
    ];
    for (name, array) in cases {
        assert_eq!(write(&array), fixture(name), "{name}");
    }
}

#[test]
fn scalar_results_appended_match_upstream() {
    // `--output=@s.npy --output=+s.npy ...` of (i32 7, f32 1.5, i64 9,
    // f32 2.5): every header is padded on its own, not to file offsets.
    let scalars = [
        (ElementType::INT_32, 7i32.to_le_bytes().to_vec()),
        (ElementType::FLOAT_32, 1.5f32.to_le_bytes().to_vec()),
        (ElementType::INT_64, 9i64.to_le_bytes().to_vec()),
        (ElementType::FLOAT_32, 2.5f32.to_le_bytes().to_vec()),
    ];
    let mut out = Vec::new();
    for (element_type, data) in scalars {
        let array = NdArray {
            shape: vec![],
            element_type,
            data,
        };
        write_ndarray(&mut out, &array).unwrap();
    }
    let expected = fixture("write_scalars_appended.npy");
    assert_eq!(out, expected);
    assert_eq!(
        read_all_ndarrays(&mut Cursor::new(&expected))
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn header_layout() {
    let header = encode_header(&[2, 3], ElementType::FLOAT_32).unwrap();
    assert_eq!(header.len(), 128);
    assert_eq!(&header[..10], b"\x93NUMPY\x01\x00\x76\x00");
    assert!(header.ends_with(b" \n"));
    let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    assert_eq!(&header[10..10 + dict.len()], dict.as_bytes());
    // Rank 1 gets Python's trailing comma; rank 0 an empty tuple.
    let rank1 = encode_header(&[4], ElementType::INT_8).unwrap();
    assert!(String::from_utf8_lossy(&rank1)
        .contains("'descr': '|i1', 'fortran_order': False, 'shape': (4,), }"));
    let rank0 = encode_header(&[], ElementType::FLOAT_64).unwrap();
    assert!(String::from_utf8_lossy(&rank0).contains("'shape': (), }"));
}

#[test]
fn huge_headers_use_version_2() {
    // Not reachable through upstream's reader (rank <= 128), but its writer
    // switches to 2.0 and a 4-byte length past 65535 dict bytes.
    let shape = vec![1usize; 30_000];
    let header = encode_header(&shape, ElementType::FLOAT_32).unwrap();
    assert_eq!(&header[..8], b"\x93NUMPY\x02\x00");
    assert_eq!(header.len() % 64, 0);
    let length = u32::from_le_bytes(header[8..12].try_into().unwrap()) as usize;
    assert_eq!(length + 12, header.len());
    assert_eq!(*header.last().unwrap(), b'\n');
    // Reading it back stops at the rank limit.
    let mut file = header;
    file.extend_from_slice(&1f32.to_le_bytes());
    let status = load_ndarray(&mut Cursor::new(file)).unwrap_err();
    assert_eq!(
        status.to_string_without_location(),
        "INVALID_ARGUMENT; shape rank %zu too large; be reasonable please"
    );
}

#[test]
fn data_length_must_match_shape() {
    let array = NdArray {
        shape: vec![2, 3],
        element_type: ElementType::FLOAT_32,
        data: vec![0; 23],
    };
    let status = write_ndarray(&mut Vec::new(), &array).unwrap_err();
    assert_eq!(status.code(), iree_base::StatusCode::InvalidArgument);
    // An empty opaque result (upstream's empty variant) writes as `<V0`.
    let empty = NdArray {
        shape: vec![],
        element_type: ElementType::NONE,
        data: vec![],
    };
    let bytes = write(&empty);
    assert!(String::from_utf8_lossy(&bytes).contains("'descr': '<V0'"));
}

#[test]
fn round_trip_every_writable_type() {
    for name in [
        "i1", "i8", "si8", "ui8", "i16", "si16", "ui16", "i32", "si32", "ui32", "i64", "si64",
        "ui64", "f16", "f32", "f64", "cf64", "cf128", "*8", "*32",
    ] {
        let element_type = ElementType::parse(name).unwrap();
        let bytes = element_type.dense_byte_count() * 6;
        let array = NdArray {
            shape: vec![3, 2],
            element_type,
            data: (0..bytes as u8).collect(),
        };
        let written = write(&array);
        assert_eq!(written.len() % 64, bytes % 64, "{name}");
        let back = load_ndarray(&mut Cursor::new(&written)).unwrap();
        assert_eq!(back.shape, array.shape, "{name}");
        assert_eq!(back.data, array.data, "{name}");
        // Signless integers read back signed; everything else unchanged.
        assert_eq!(write(&back), written, "{name}");
    }
}

#[test]
fn element_count() {
    let array = |shape: Vec<usize>| NdArray {
        shape,
        element_type: ElementType::FLOAT_32,
        data: vec![],
    };
    assert_eq!(array(vec![]).element_count(), Some(1));
    assert_eq!(array(vec![2, 3]).element_count(), Some(6));
    assert_eq!(array(vec![usize::MAX, 2]).element_count(), None);
}

#[test]
fn every_truncation_fails_cleanly() {
    // Every proper prefix of a well-formed array is an error (never a
    // panic, never a shorter array); the empty prefix is a clean end.
    for name in [
        "np_f4.npy",
        "np_b1.npy",
        "np_scalar_f4.npy",
        "v3.npy",
        "rank128.npy",
    ] {
        let bytes = fixture(name);
        assert!(load_ndarray(&mut Cursor::new(&bytes)).is_ok(), "{name}");
        assert_eq!(read_ndarray(&mut Cursor::new(&[][..])).unwrap(), None);
        for end in 1..bytes.len() {
            let result = read_ndarray(&mut Cursor::new(&bytes[..end]));
            let status = result.expect_err(&format!("{name} cut at {end}"));
            assert_eq!(
                status.code(),
                iree_base::StatusCode::OutOfRange,
                "{name} cut at {end}"
            );
        }
    }
}
