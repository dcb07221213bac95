//! The `hip` driver's [`Target`] for the shared GPU driver tests.

#[path = "../../../hal-gpu/testing/driver_tests.rs"]
pub mod shared;

use shared::Target;

/// `testdata/hip/kernels.vmfb` (`--iree-rocm-target=gfx942`): an AMDGPU code object (ELF) naming every kernel.
pub const TARGET: Target = Target {
    library: "libamdhip64.so",
    format: "rocm-hsaco-fb",
    identifier: b"HIP1",
    foreign_identifier: b"CDA1",
    module: "testdata/hip/kernels.vmfb",
    parse: iree_hal_hip::executable::parse,
    image_has_kernel: |image, export| {
        image.starts_with(b"\x7fELF")
            && image
                .windows(export.name.len())
                .any(|w| w == export.name.as_bytes())
    },
};
