//! `cuda-nvptx-fb` and `rocm-hsaco-fb` parsing and validation: the 64-byte
//! header, the flatbuffer verifier and the export checks must turn any
//! input into a value or an error, never a panic. The first byte picks the
//! parser and the rest is the executable; `seed.sh` seeds it with the
//! executables embedded in `testdata/cuda/kernels.vmfb` and
//! `testdata/hip/kernels.vmfb`.
#![no_main]

use iree_hal_gpu::GpuLimits;
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

fuzz_target!(|data: &[u8]| {
    let Some((&which, data)) = data.split_first() else {
        return;
    };
    let parsed = if which & 1 == 0 {
        iree_hal_cuda::executable::parse(data)
    } else {
        iree_hal_hip::executable::parse(data)
    };
    if let Ok(info) = parsed {
        let _ = info.validate(&GpuLimits::default());
        for export in &info.exports {
            let _ = export.binding_count();
        }
    }
});
