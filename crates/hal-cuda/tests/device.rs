//! The CUDA device. Without `libcuda.so.1` (CI, this machine) device
//! creation must fail with UNAVAILABLE naming the library and the GPU tests
//! print one skip line; with it, transfers and a kernel run on device 0 in
//! both command-buffer modes. A runtime check, not a cargo feature, so the
//! same test binary runs on a GPU machine.

use std::sync::Arc;

use iree_base::StatusCode;
use iree_hal::{
    BindingRef, BufferParams, BufferUsage, CommandBuffer, Device, Driver, Fence, MemoryType,
};
use iree_hal_cuda::{executable::IDENTIFIER, ffi::Symbols, CudaDriver};
use iree_hal_gpu::{GpuOptions, Recording};

/// The device, or `None` after printing why the test is skipped.
fn device(recording: Recording) -> Option<Arc<dyn Device>> {
    let driver = CudaDriver::with_options(GpuOptions {
        recording,
        async_allocations: true,
    });
    match driver.create_device("") {
        Ok(device) => Some(device),
        Err(e) => {
            eprintln!("skipping: {}", e.message());
            None
        }
    }
}

#[test]
fn unavailable_names_the_library() {
    let Err(status) = Symbols::get() else {
        eprintln!("skipping: libcuda.so.1 is present");
        return;
    };
    assert_eq!(status.code(), StatusCode::Unavailable);
    assert!(status.message().contains("libcuda.so.1"), "{status}");
    let error = CudaDriver::default().create_device("").err().unwrap();
    assert_eq!(error.code(), StatusCode::Unavailable);
    assert!(CudaDriver::default().devices().is_err());
}

fn executable_data() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/cuda/kernels.vmfb"
    );
    let file = std::fs::read(path).unwrap();
    let module = iree_vm_bytecode::format::parse_module(&file).unwrap();
    (0..module.rodata.len())
        .filter_map(|i| module.rodata_bytes(&file, i))
        .find(|bytes| bytes.starts_with(IDENTIFIER))
        .unwrap()
        .to_vec()
}

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn transfers_and_a_kernel_in_both_modes() {
    for recording in [Recording::Stream, Recording::Graph] {
        let Some(device) = device(recording) else {
            return;
        };
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
            .create_executable("cuda-nvptx-fb", &executable_data())
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

        // Fill, update and copy through a host-visible buffer.
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
}
