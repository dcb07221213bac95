//! The CUDA device. Without `libcuda.so.1` (CI, this machine) device creation
//! fails with UNAVAILABLE naming the library and the GPU test prints one
//! `skipping:` line; with it, transfers and a kernel run on device 0 with
//! stream and graph command buffers (tests shared with the other GPU
//! driver: `crates/hal-gpu/testing/driver_tests.rs`).

mod common;

use common::{shared, TARGET};
use iree_hal_cuda::CudaApi;

#[test]
fn unavailable_names_the_library() {
    shared::unavailable_names_the_library::<CudaApi>(&TARGET);
}

#[test]
fn transfers_and_a_kernel_in_both_modes() {
    shared::transfers_and_a_kernel_in_both_modes::<CudaApi>(&TARGET);
}
