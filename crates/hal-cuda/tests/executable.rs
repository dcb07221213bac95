//! `cuda-nvptx-fb` parsing on modules compiled by the pinned compiler
//! (`testdata/cuda/kernels.mlir`, `--iree-cuda-target=sm_80`), corrupt
//! inputs, and (only where `libcuda.so.1` loads) running the kernels.

use iree_base::StatusCode;
use iree_hal_cuda::executable::{parse, IDENTIFIER};
use iree_hal_gpu::{BindingFlags, GpuLimits};

/// The executable embedded in the committed module.
fn executable() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/cuda/kernels.vmfb"
    );
    let file = std::fs::read(path).unwrap();
    let module = iree_vm_bytecode::format::parse_module(&file).unwrap();
    (0..module.rodata.len())
        .filter_map(|i| module.rodata_bytes(&file, i))
        .find(|bytes| bytes.starts_with(IDENTIFIER))
        .expect("a CDA1 executable in the module")
        .to_vec()
}

#[test]
fn kernels_block_dims_and_bindings() {
    let data = executable();
    let info = parse(&data).unwrap();
    info.validate(&GpuLimits::default()).unwrap();
    let names: Vec<&str> = info.exports.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "mul_dispatch_0_elementwise_4_f32",
            "dyn_add_dispatch_0_elementwise_D_f32",
            "matmul_dispatch_0_matmul_64x64x64_f32",
        ]
    );
    assert_eq!(info.modules.len(), 1);
    let ptx = std::str::from_utf8(info.modules[0]).unwrap();
    assert!(ptx.contains(".target sm_80"));
    for export in &info.exports {
        assert_eq!(export.module_ordinal, 0);
        assert!(ptx.contains(&format!(".entry {}(", export.name)));
        assert!(export.block_dims.iter().all(|&d| d >= 1));
        assert!(export.block_dims.iter().product::<u32>() <= 1024);
    }
    let [mul, dyn_add, matmul] = &info.exports[..] else {
        panic!("three exports")
    };
    // Two inputs read, one output written; the 3.13 compiler marks every
    // binding INDIRECT (passed as a pointer parameter).
    let ro = BindingFlags(BindingFlags::READ_ONLY.0 | BindingFlags::INDIRECT.0);
    assert_eq!(mul.binding_flags, [ro, ro, BindingFlags::INDIRECT]);
    assert_eq!(mul.constant_count, 0);
    // The dynamic size reaches the kernel as constants (the PTX has four
    // `.b32` parameters after the three pointers).
    assert_eq!(dyn_add.binding_count(), 3);
    assert_eq!(dyn_add.constant_count, 4);
    assert_eq!(matmul.binding_count(), 3);
    assert_eq!(matmul.constant_count, 0);
    assert!(info
        .exports
        .iter()
        .all(|e| e.block_shared_memory_size <= 48 * 1024));
}

#[test]
fn corrupt_headers_are_rejected() {
    let data = executable();
    let code = |bytes: &[u8]| parse(bytes).unwrap_err().code();
    assert_eq!(code(&data[..10]), StatusCode::InvalidArgument);
    let mut wrong = data.clone();
    wrong[..4].copy_from_slice(b"HIP1");
    assert_eq!(code(&wrong), StatusCode::InvalidArgument);
    let mut version = data.clone();
    version[4] = 1;
    assert_eq!(code(&version), StatusCode::Incompatible);
    let mut size = data.clone();
    size[8..16].copy_from_slice(&(data.len() as u64).to_le_bytes());
    assert_eq!(code(&size), StatusCode::OutOfRange);
    let mut zero = data.clone();
    zero[8..16].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(code(&zero), StatusCode::InvalidArgument);
}

#[test]
fn every_truncation_and_byte_flip_fails_cleanly() {
    let data = executable();
    let content = u64::from_le_bytes(data[8..16].try_into().unwrap()) as usize;
    // Truncations: header checks or the flatbuffer verifier reject them;
    // the content size is rewritten so the verifier sees each prefix.
    for len in (0..64 + content).step_by(7) {
        let mut cut = data[..len].to_vec();
        if len > 64 {
            cut[8..16].copy_from_slice(&((len - 64) as u64).to_le_bytes());
        }
        match parse(&cut) {
            Ok(info) => {
                let _ = info.validate(&GpuLimits::default());
            }
            Err(e) => assert_ne!(e.code(), StatusCode::Ok),
        }
    }
    // Byte flips in the flatbuffer's tables (the PTX text is left alone):
    // errors or a consistent parse, never a panic.
    for at in 64..(64 + 512).min(data.len()) {
        let mut flipped = data.clone();
        flipped[at] ^= 0xA5;
        if let Ok(info) = parse(&flipped) {
            let _ = info.validate(&GpuLimits::default());
        }
    }
}

#[test]
fn limits_reject_oversized_exports() {
    let data = executable();
    let info = parse(&data).unwrap();
    let tiny = GpuLimits {
        max_block_dims: [1, 1, 1],
        max_block_shared_memory_size: 0,
    };
    let error = info.validate(&tiny).unwrap_err();
    assert_eq!(error.code(), StatusCode::InvalidArgument);
    assert!(
        error.message().contains("exceeds device maximum"),
        "{error}"
    );
}
