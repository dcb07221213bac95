//! Fuzzes the buffer-view text parser (`iree_hal::parse_buffer_view_text`,
//! what `--input=`/`--expected_output=` tensor literals go through) and the
//! printer on whatever it accepts.
//!
//! Seeds: `cut -d' ' -f1 ../crates/hal/tests/data/*` style literal lists, or
//! any `testdata/*/*.cases` `--input=` values (`seed.sh` collects them).
//!
//! Besides "no panic": an accepted literal has exactly the bytes its shape
//! and element type need, and printing it back parses again to the same
//! shape and type name (integer and bool contents round-trip exactly).
#![no_main]

use iree_hal::{format_buffer_view, parse_buffer_view_text, EncodingType, NumericalType};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Large (but valid) shapes only cost time: a splat of a 100M-element
    // view is legitimate work, not a finding. Keep views under 1 MiB.
    let head = text.split_once('=').map_or(text, |(head, _)| head);
    if let Ok((shape, element_type)) = iree_hal::parse_shape_and_element_type(head.trim()) {
        match iree_hal::compute_view_size(&shape, element_type, EncodingType::DENSE_ROW_MAJOR) {
            Ok(size) if size <= 1 << 20 => {}
            _ => return,
        }
    }
    let Ok((shape, element_type, bytes)) = parse_buffer_view_text(text) else {
        return;
    };
    let size = iree_hal::compute_view_size(&shape, element_type, EncodingType::DENSE_ROW_MAJOR)
        .expect("an accepted literal has a computable size");
    assert_eq!(bytes.len(), size);
    let Ok(printed) = format_buffer_view(&shape, element_type, &bytes, usize::MAX) else {
        return;
    };
    let (shape2, element_type2, bytes2) =
        parse_buffer_view_text(&printed).expect("printed text parses again");
    assert_eq!(shape, shape2);
    // Some types share a printed name (a 1-bit opaque type and bool both
    // print `i1`, as upstream's do); the name itself must survive.
    assert_eq!(element_type.name(), element_type2.name());
    if element_type != element_type2 {
        return;
    }
    let numerical = element_type.numerical_type();
    if numerical == NumericalType::INTEGER
        || numerical == NumericalType::INTEGER_SIGNED
        || numerical == NumericalType::INTEGER_UNSIGNED
        || numerical == NumericalType::BOOLEAN
    {
        assert_eq!(bytes, bytes2);
    }
});
