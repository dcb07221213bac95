//! Tests every GPU driver runs the same way, written once and included by
//! `crates/hal-cuda/tests/*.rs` and `crates/hal-hip/tests/*.rs` with
//! `#[path]` (each passes its [`Target`] and `GpuApi`): executable parsing
//! on the committed modules compiled by the pinned compiler, corrupt input,
//! and, where the driver library loads, transfers and a kernel on device 0.
//! Without the library the device test is reported as ignored with the
//! reason (`iree_test_support::Skip`); a runtime check, not a cargo feature,
//! so the same test binary runs on a GPU machine.

#![allow(dead_code)]

use std::sync::Arc;

use iree_base::{Result, StatusCode};
use iree_hal::{
    BindingRef, BufferParams, BufferUsage, CommandBuffer, Device, Driver, Fence, MemoryType,
};
use iree_hal_gpu::{
    BindingFlags, ExecutableInfo, ExportInfo, GpuApi, GpuDriver, GpuLimits, GpuOptions, Recording,
};
use iree_test_support::{Skip, TestResult};

/// What differs between the drivers.
pub struct Target {
    /// The driver library file (`libcuda.so.1`).
    pub library: &'static str,
    /// The executable format (`cuda-nvptx-fb`).
    pub format: &'static str,
    /// This format's header magic and file identifier.
    pub identifier: &'static [u8; 4],
    /// Another driver's identifier (must be rejected).
    pub foreign_identifier: &'static [u8; 4],
    /// The committed module, relative to the repository root.
    pub module: &'static str,
    /// The driver's parser.
    pub parse: fn(&[u8]) -> Result<ExecutableInfo<'_>>,
    /// Checks that a module image holds the export's kernel.
    pub image_has_kernel: fn(&[u8], &ExportInfo) -> bool,
}

/// The executable embedded in the committed module.
pub fn executable(target: &Target) -> Vec<u8> {
    let path = format!("{}/../../{}", env!("CARGO_MANIFEST_DIR"), target.module);
    let file = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let module = iree_vm_bytecode::format::parse_module(&file).unwrap();
    (0..module.rodata.len())
        .filter_map(|i| module.rodata_bytes(&file, i))
        .find(|bytes| bytes.starts_with(target.identifier))
        .expect("an executable of this format in the module")
        .to_vec()
}

/// Kernel names, block dims, binding flags and constants of the three
/// functions of `testdata/{cuda,hip}/kernels.mlir`.
pub fn kernels_block_dims_and_bindings(target: &Target) {
    let data = executable(target);
    let info = (target.parse)(&data).unwrap();
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
    for export in &info.exports {
        assert_eq!(export.module_ordinal, 0);
        assert!(
            (target.image_has_kernel)(info.modules[0], export),
            "kernel `{}` not in the module image",
            export.name
        );
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
    // The dynamic size reaches the kernel as four 32-bit constants after
    // the three pointers.
    assert_eq!(dyn_add.binding_count(), 3);
    assert_eq!(dyn_add.constant_count, 4);
    assert_eq!(matmul.binding_count(), 3);
    assert_eq!(matmul.constant_count, 0);
    assert!(info
        .exports
        .iter()
        .all(|e| e.block_shared_memory_size <= 48 * 1024));
}

/// Short data, another format's magic, a newer version, a size past the
/// end and a zero size: upstream's status codes.
pub fn corrupt_headers_are_rejected(target: &Target) {
    let data = executable(target);
    let code = |bytes: &[u8]| (target.parse)(bytes).unwrap_err().code();
    assert_eq!(code(&data[..10]), StatusCode::InvalidArgument);
    let mut wrong = data.clone();
    wrong[..4].copy_from_slice(target.foreign_identifier);
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

/// Every 7th truncation and 512 byte flips in the flatbuffer: an error or a
/// consistent parse, never a panic.
pub fn every_truncation_and_byte_flip_fails_cleanly(target: &Target) {
    let data = executable(target);
    let content = u64::from_le_bytes(data[8..16].try_into().unwrap()) as usize;
    // The content size is rewritten so the verifier sees each prefix.
    for len in (0..64 + content).step_by(7) {
        let mut cut = data[..len].to_vec();
        if len > 64 {
            cut[8..16].copy_from_slice(&((len - 64) as u64).to_le_bytes());
        }
        match (target.parse)(&cut) {
            Ok(info) => {
                let _ = info.validate(&GpuLimits::default());
            }
            Err(e) => assert_ne!(e.code(), StatusCode::Ok),
        }
    }
    for at in 64..(64 + 512).min(data.len()) {
        let mut flipped = data.clone();
        flipped[at] ^= 0xA5;
        if let Ok(info) = (target.parse)(&flipped) {
            let _ = info.validate(&GpuLimits::default());
        }
    }
}

/// Exports over a device's limits are refused with upstream's message.
pub fn limits_reject_oversized_exports(target: &Target) {
    let data = executable(target);
    let info = (target.parse)(&data).unwrap();
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

/// Without the library: UNAVAILABLE naming it, from device creation and
/// enumeration alike (ignored on a machine that has the library).
pub fn unavailable_names_the_library<A: GpuApi>(target: &Target) -> TestResult {
    let Err(status) = A::devices() else {
        return Err(Skip(format!(
            "needs a machine without {}, which is present here",
            target.library
        )));
    };
    assert_eq!(status.code(), StatusCode::Unavailable);
    assert!(status.message().contains(target.library), "{status}");
    let driver = GpuDriver::<A>::default();
    let error = driver.create_device("").err().unwrap();
    assert_eq!(error.code(), StatusCode::Unavailable);
    assert!(driver.devices().is_err());
    Ok(())
}

/// Device 0, or why a test that needs it cannot run here.
fn device<A: GpuApi>(recording: Recording) -> Result<Arc<dyn Device>, Skip> {
    let driver = GpuDriver::<A>::with_options(GpuOptions {
        recording,
        async_allocations: true,
    });
    driver
        .create_device("")
        .map_err(|e| Skip(format!("needs a GPU device: {}", e.message())))
}

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// On a GPU: `mul` on device buffers, then fill, update and copy into a
/// host-visible buffer, with stream and graph command buffers.
pub fn transfers_and_a_kernel_in_both_modes<A: GpuApi>(target: &Target) -> TestResult {
    for recording in [Recording::Stream, Recording::Graph] {
        let device = device::<A>(recording)?;
        let allocator = device.allocator();
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DEFAULT,
            ..Default::default()
        };
        let a = allocator.allocate_buffer(params, 16).unwrap();
        let b = allocator.allocate_buffer(params, 16).unwrap();
        let out = allocator.allocate_buffer(params, 16).unwrap();
        a.write(0, &f32s(&[1.0, 2.0, 3.0, 4.0])).unwrap();
        b.write(0, &f32s(&[5.0, 6.0, 7.0, 8.0])).unwrap();
        let executable = device
            .create_executable(target.format, &executable(target), &[])
            .unwrap();
        let whole = |buffer: &iree_hal::Buffer| BindingRef::Direct {
            buffer: buffer.clone(),
            offset: 0,
            length: 16,
        };
        let mut cb = CommandBuffer::new(0);
        cb.dispatch(
            executable,
            0,
            [1, 1, 1],
            &[],
            vec![whole(&a), whole(&b), whole(&out)],
        )
        .unwrap();
        cb.finalize().unwrap();
        let signal = Fence::with_new_semaphore();
        device
            .queue_execute(&Fence::new(), &signal, Some(&cb), &[])
            .unwrap();
        signal.wait(None).unwrap();
        let mut bytes = [0u8; 16];
        out.read(0, &mut bytes).unwrap();
        assert_eq!(
            bytes.to_vec(),
            f32s(&[5.0, 12.0, 21.0, 32.0]),
            "{recording:?}"
        );

        let host = allocator
            .allocate_buffer(
                BufferParams {
                    memory_type: MemoryType::HOST_LOCAL,
                    usage: BufferUsage::DEFAULT,
                    ..Default::default()
                },
                16,
            )
            .unwrap();
        let mut cb = CommandBuffer::new(0);
        cb.fill(whole(&out), &[0xAB]).unwrap();
        cb.update(
            &[1, 2, 3, 4],
            BindingRef::Direct {
                buffer: out.clone(),
                offset: 4,
                length: 4,
            },
        )
        .unwrap();
        cb.copy(whole(&out), whole(&host)).unwrap();
        cb.finalize().unwrap();
        device
            .queue_execute(&Fence::new(), &Fence::new(), Some(&cb), &[])
            .unwrap();
        let mut bytes = [0u8; 16];
        host.read(0, &mut bytes).unwrap();
        assert_eq!(
            bytes[..8],
            [0xAB, 0xAB, 0xAB, 0xAB, 1, 2, 3, 4],
            "{recording:?}"
        );
        assert!(bytes[8..].iter().all(|&b| b == 0xAB));
    }
    Ok(())
}
