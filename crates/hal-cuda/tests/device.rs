//! The CUDA device. Without `libcuda.so.1` (CI, this machine) device creation
//! fails with UNAVAILABLE naming the library and the GPU test is reported as
//! ignored, with that reason; with it, transfers and a kernel run on device 0 with
//! stream and graph command buffers (tests shared with the other GPU
//! driver: `crates/hal-gpu/testing/driver_tests.rs`).

mod common;

use std::process::ExitCode;

use common::{shared, TARGET};
use iree_hal_cuda::CudaApi;

fn main() -> ExitCode {
    iree_test_support::run(vec![
        iree_test_support::test("unavailable_names_the_library", || {
            shared::unavailable_names_the_library::<CudaApi>(&TARGET)
        }),
        iree_test_support::test("transfers_and_a_kernel_in_both_modes", || {
            shared::transfers_and_a_kernel_in_both_modes::<CudaApi>(&TARGET)
        }),
    ])
}
