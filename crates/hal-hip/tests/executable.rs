//! `rocm-hsaco-fb` parsing on the committed module compiled by the pinned
//! compiler, and corrupt input (tests shared with the other GPU driver:
//! `crates/hal-gpu/testing/driver_tests.rs`).

mod common;

use common::{shared, TARGET};

#[test]
fn kernels_block_dims_and_bindings() {
    shared::kernels_block_dims_and_bindings(&TARGET);
}

#[test]
fn corrupt_headers_are_rejected() {
    shared::corrupt_headers_are_rejected(&TARGET);
}

#[test]
fn every_truncation_and_byte_flip_fails_cleanly() {
    shared::every_truncation_and_byte_flip_fails_cleanly(&TARGET);
}

#[test]
fn limits_reject_oversized_exports() {
    shared::limits_reject_oversized_exports(&TARGET);
}
