//! The `cuda` driver's [`Target`] for the shared GPU driver tests.

#[path = "../../../hal-gpu/testing/driver_tests.rs"]
pub mod shared;

use shared::Target;

/// `testdata/cuda/kernels.vmfb` (`--iree-cuda-target=sm_80`): PTX for sm_80 with an `.entry` per kernel.
pub const TARGET: Target = Target {
    library: "libcuda.so.1",
    format: "cuda-nvptx-fb",
    identifier: b"CDA1",
    foreign_identifier: b"HIP1",
    module: "testdata/cuda/kernels.vmfb",
    parse: iree_hal_cuda::executable::parse,
    image_has_kernel: |image, export| {
        std::str::from_utf8(image).is_ok_and(|ptx| {
            ptx.contains(".target sm_80") && ptx.contains(&format!(".entry {}(", export.name))
        })
    },
};
