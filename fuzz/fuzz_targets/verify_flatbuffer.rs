//! The FlatBuffer verifier (`crates/flatbuffer-verifier`, flatcc's rules,
//! issue #46) against the `flatbuffers` crate's verifier, whose acceptance
//! is what makes the generated accessors safe: whatever ours accepts, the
//! crate's must accept too, except for what only the crate checks (UTF-8
//! strings, its own work limits and depth counting, a union type without a
//! value, which flatcc reads as a typed null) and the location
//! table's entries of unknown union tags (flatcc skips them; the crate,
//! reading the lowered union vector as plain tables, does not). Neither
//! may panic. The first byte picks the schema (0: bytecode module, 1: CUDA
//! executable, 2: HIP executable); the rest is the flatbuffer (a module's
//! without its size prefix). `seed.sh` seeds it from the committed modules
//! and GPU executables.
#![no_main]

use std::sync::LazyLock;

use flatbuffers::InvalidFlatbuffer;
use iree_flatbuffer_verifier::{verify_root, Limits, Schema};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

static BYTECODE: LazyLock<Schema> = LazyLock::new(|| {
    Schema::parse(&[(
        "bytecode_module_def.fbs",
        include_str!("../../crates/vm-bytecode/schemas/bytecode_module_def.fbs"),
    )])
    .unwrap()
});
static CUDA: LazyLock<Schema> = LazyLock::new(|| {
    Schema::parse(&[
        ("cuda_executable_def.fbs", include_str!("../../crates/hal-cuda/schemas/cuda_executable_def.fbs")),
        ("executable_debug_info.fbs", include_str!("../../crates/hal-cuda/schemas/executable_debug_info.fbs")),
    ])
    .unwrap()
});
static HIP: LazyLock<Schema> = LazyLock::new(|| {
    Schema::parse(&[
        ("hip_executable_def.fbs", include_str!("../../crates/hal-hip/schemas/hip_executable_def.fbs")),
        ("executable_debug_info.fbs", include_str!("../../crates/hal-hip/schemas/executable_debug_info.fbs")),
    ])
    .unwrap()
});

/// Whether the crate's verifier may reject what flatcc's rules accept.
fn only_the_crate_checks(error: &InvalidFlatbuffer) -> bool {
    matches!(
        error,
        InvalidFlatbuffer::Utf8Error { .. }
            | InvalidFlatbuffer::TooManyTables
            | InvalidFlatbuffer::ApparentSizeTooLarge
            | InvalidFlatbuffer::DepthLimitReached
            | InvalidFlatbuffer::InconsistentUnion { .. }
    ) || error.to_string().contains("location_table")
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, buf)) = data.split_first() else {
        return;
    };
    let limits = Limits::for_len(buf.len());
    let opts = limits.verifier_options();
    let (schema, theirs) = match which % 3 {
        0 => (
            &*BYTECODE,
            iree_vm_bytecode::format::schema::root_as_bytecode_module_def_with_opts(&opts, buf)
                .map(|_| ()),
        ),
        1 => (
            &*CUDA,
            iree_hal_cuda::schema::root_as_executable_def_with_opts(&opts, buf).map(|_| ()),
        ),
        _ => (
            &*HIP,
            iree_hal_hip::schema::root_as_executable_def_with_opts(&opts, buf).map(|_| ()),
        ),
    };
    let ours = verify_root(schema, buf, 0, &limits);
    if let (Ok(()), Err(error)) = (&ours, &theirs) {
        assert!(
            only_the_crate_checks(error),
            "flatcc's rules accept what the flatbuffers crate rejects: {error}"
        );
    }
});
