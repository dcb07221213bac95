//! NCCL channels on the CUDA device. Without `libcuda.so.1` or
//! `libnccl.so.2` (CI, this machine) channel creation fails with
//! UNAVAILABLE naming the missing library and the GPU tests are reported as
//! ignored, with that reason; with both, a single-rank channel runs
//! every collective NCCL offers through command buffers on device memory.
//!
//! On a GPU machine: `LD_LIBRARY_PATH=<nvidia-nccl-cu13>/nvidia/nccl/lib
//! cargo test --release -p iree-hal-cuda --test nccl -- --nocapture`.

use std::process::ExitCode;
use std::sync::Arc;

use iree_base::StatusCode;
use iree_hal::channel::{run_collective, NO_COLOR};
use iree_hal::{
    BindingRef, Buffer, BufferBinding, BufferParams, BufferUsage, Channel, ChannelParams,
    Collective, CollectiveOp, CommandBuffer, Device, Driver, Fence, LocalChannel, MemoryType,
};
use iree_hal_cuda::nccl::{Nccl, LIBRARY_NAME};
use iree_hal_cuda::CudaDriver;
use iree_hal_gpu::{GpuOptions, Recording};
use iree_test_support::{test, Skip, TestResult};

/// Without NCCL: UNAVAILABLE naming `libnccl.so.2`, from loading it and
/// (where a CUDA device opens) from channel creation; without CUDA no
/// device exists to ask, and device creation names `libcuda.so.1`.
fn unavailable_names_the_missing_library() -> TestResult {
    let nccl = Nccl::get();
    if let Err(status) = &nccl {
        assert_eq!(status.code(), StatusCode::Unavailable);
        assert!(status.message().contains(LIBRARY_NAME), "{status}");
    }
    match CudaDriver::default().create_device("") {
        Ok(device) => match nccl {
            Ok(nccl) => {
                return Err(Skip(format!(
                    "needs a machine without {LIBRARY_NAME} or a CUDA device; both are \
                     present here (NCCL version {})",
                    nccl.version()
                )))
            }
            Err(_) => {
                let status = device
                    .create_channel(&ChannelParams::from_environment())
                    .err()
                    .expect("no channel without NCCL");
                assert_eq!(status.code(), StatusCode::Unavailable);
                assert!(status.message().contains(LIBRARY_NAME), "{status}");
            }
        },
        Err(status) => {
            assert_eq!(status.code(), StatusCode::Unavailable, "{status}");
            assert!(status.message().contains("libcuda.so.1"), "{status}");
        }
    }
    Ok(())
}

/// On a GPU (NCCL not needed): another provider's channel recorded into a
/// command buffer of the CUDA device is refused when it runs, after its
/// ranges pass the host path's checks, in both modes.
fn foreign_channels_are_refused_on_the_device() -> TestResult {
    for recording in [Recording::Stream, Recording::Graph] {
        let device = cuda_device(recording)?;
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DEFAULT,
            ..Default::default()
        };
        let buffer = device.allocator().allocate_buffer(params, 16).unwrap();
        let run = |element_count| {
            let collective = Collective {
                op: op(1, SUM, F32),
                param: 0,
                element_count,
            };
            let channel = Arc::new(LocalChannel::new());
            run_one(&*device, channel, collective, &buffer, &buffer).unwrap_err()
        };
        let e = run(4);
        assert_eq!(e.code(), StatusCode::InvalidArgument, "{e}");
        assert!(e.message().contains("'local' channel"), "{e}");
        let e = run(8);
        assert_eq!(e.code(), StatusCode::OutOfRange, "{e}");
    }
    Ok(())
}

/// CUDA device 0 with `recording`, or why a test that needs it cannot run.
fn cuda_device(recording: Recording) -> Result<Arc<dyn Device>, Skip> {
    let driver = CudaDriver::with_options(GpuOptions {
        recording,
        async_allocations: true,
    });
    driver
        .create_device("")
        .map_err(|status| Skip(format!("needs a CUDA device: {}", status.message())))
}

/// [`cuda_device`] where NCCL loads too, or which library is missing.
fn device(recording: Recording) -> Result<Arc<dyn Device>, Skip> {
    let device = cuda_device(recording)?;
    Nccl::get().map_err(|status| Skip(format!("needs NCCL: {}", status.message())))?;
    Ok(device)
}

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn op(kind: u8, reduction: u8, element_type: u8) -> CollectiveOp {
    CollectiveOp::from_packed(u32::from_le_bytes([kind, reduction, element_type, 0])).unwrap()
}

const F32: u8 = 9;
const SUM: u8 = 1;

fn whole(buffer: &Buffer) -> BindingRef {
    BindingRef::Direct {
        buffer: buffer.clone(),
        offset: 0,
        length: buffer.byte_length(),
    }
}

/// Records `collective` of `channel` over all of `send` and `recv` in a
/// command buffer of its own and runs it on `device`.
fn run_one(
    device: &dyn Device,
    channel: Arc<dyn Channel>,
    collective: Collective,
    send: &Buffer,
    recv: &Buffer,
) -> iree_base::Result<()> {
    let mut cb = CommandBuffer::new(0);
    cb.collective(channel, collective, Some(whole(send)), Some(whole(recv)))
        .unwrap();
    cb.finalize().unwrap();
    execute(device, &cb)
}

/// Runs one command buffer on `device`, returning its error.
fn execute(device: &dyn Device, cb: &CommandBuffer) -> iree_base::Result<()> {
    let signal = Fence::with_new_semaphore();
    device.queue_execute(&Fence::new(), &signal, Some(cb), &[])?;
    signal.wait(None)
}

/// On a GPU with NCCL: a single-rank channel; all_reduce (sum and average,
/// f32), all_gather, all_to_all, broadcast, reduce, reduce_scatter and
/// send_recv to itself (and with no peers: zeros) issued in one command
/// buffer between an update and copies, on device memory, in stream and
/// graph modes (collectives force the stream). Then splits, explicit ids,
/// and the errors: 16-bit integer reductions, host ranges, bad ids.
fn single_rank_collectives_on_device_memory() -> TestResult {
    for recording in [Recording::Stream, Recording::Graph] {
        let device = device(recording)?;
        // Outside an MPI job the default channel has no provider (as
        // upstream); a single rank passes its own id.
        assert_eq!(
            device
                .create_channel(&ChannelParams::from_environment())
                .err()
                .unwrap()
                .code(),
            StatusCode::InvalidArgument
        );
        let channel = device
            .create_channel(&ChannelParams {
                id: Nccl::get().unwrap().unique_id().unwrap().internal.to_vec(),
                rank: 0,
                count: 1,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(
            (channel.provider(), channel.rank(), channel.count()),
            ("nccl", 0, 1)
        );
        let allocator = device.allocator();
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DEFAULT,
            ..Default::default()
        };
        let source = allocator.allocate_buffer(params, 16).unwrap();
        source.write(0, &[0u8; 16]).unwrap();
        let input = f32s(&[1.0, 2.0, 3.0, 4.0]);
        // (name, op, param): every result is a copy of the input on one
        // rank, except the send_recv with no peers (zeros).
        let cases: [(&str, CollectiveOp, u32, bool); 9] = [
            ("all_reduce sum", op(1, SUM, F32), 0, true),
            ("all_reduce average", op(1, 5, F32), 0, true),
            ("all_gather", op(0, 0, F32), 0, true),
            ("all_to_all", op(2, 0, F32), 0, true),
            ("broadcast", op(3, 0, F32), 0, true),
            ("reduce", op(4, 3, F32), 0, true),
            ("reduce_scatter", op(5, 4, F32), 0, true),
            ("send_recv to self", op(8, 0, F32), 0, true),
            ("send_recv, no peers", op(8, 0, F32), u32::MAX, false),
        ];
        let targets: Vec<Buffer> = cases
            .iter()
            .map(|_| allocator.allocate_buffer(params, 16).unwrap())
            .collect();
        let host = allocator
            .allocate_buffer(
                BufferParams {
                    memory_type: MemoryType::HOST_LOCAL,
                    usage: BufferUsage::DEFAULT,
                    ..Default::default()
                },
                16 * cases.len() as u64,
            )
            .unwrap();
        let mut cb = CommandBuffer::new(0);
        // The input arrives by an update recorded before the collectives,
        // so they see it only if they run in order on the stream.
        cb.update(&input, whole(&source)).unwrap();
        for ((_, op, param, _), target) in cases.iter().zip(&targets) {
            cb.fill(whole(target), &[0xAB]).unwrap();
            let collective = Collective {
                op: *op,
                param: *param,
                element_count: 4,
            };
            cb.collective(
                channel.clone(),
                collective,
                Some(whole(&source)),
                Some(whole(target)),
            )
            .unwrap();
        }
        for (i, target) in targets.iter().enumerate() {
            cb.copy(
                whole(target),
                BindingRef::Direct {
                    buffer: host.clone(),
                    offset: 16 * i as u64,
                    length: 16,
                },
            )
            .unwrap();
        }
        cb.finalize().unwrap();
        execute(&*device, &cb).unwrap_or_else(|e| panic!("{recording:?}: {e}"));
        let mut bytes = vec![0u8; 16 * cases.len()];
        host.read(0, &mut bytes).unwrap();
        for (i, (name, _, _, copies)) in cases.iter().enumerate() {
            let expected = if *copies { input.clone() } else { vec![0; 16] };
            assert_eq!(
                bytes[16 * i..16 * (i + 1)],
                expected[..],
                "{name} ({recording:?})"
            );
        }

        // NCCL has no 16-bit integers to reduce; moving them is fine.
        for (kind, reduction, ok) in [(1u8, SUM, false), (3, 0, true)] {
            let collective = Collective {
                op: op(kind, reduction, 2),
                param: 0,
                element_count: 8,
            };
            match run_one(&*device, channel.clone(), collective, &source, &targets[0]) {
                Ok(()) => assert!(ok, "si16 all_reduce ran"),
                Err(e) => {
                    assert!(!ok, "si16 broadcast: {e}");
                    assert_eq!(e.code(), StatusCode::Unimplemented, "{e}");
                }
            }
        }
        // A receive range too short for the op: as the host path says.
        let collective = Collective {
            op: op(1, SUM, F32),
            param: 0,
            element_count: 8,
        };
        let e = run_one(&*device, channel.clone(), collective, &source, &targets[0]).unwrap_err();
        assert_eq!(e.code(), StatusCode::OutOfRange, "{e}");
        // Host ranges: NCCL channels run on device memory only.
        let binding = BufferBinding {
            buffer: &host,
            offset: 0,
            length: 16,
        };
        let e = run_collective(
            &*channel,
            &Collective {
                op: op(1, SUM, F32),
                param: 0,
                element_count: 4,
            },
            Some(binding),
            Some(binding),
        )
        .unwrap_err();
        assert_eq!(e.code(), StatusCode::Unimplemented, "{e}");

        // Splits (ncclCommSplit, NCCL 2.18+).
        match channel.split(0, 0, 0) {
            Ok(child) => {
                let child = child.expect("a color gives a channel");
                assert_eq!((child.rank(), child.count()), (0, 1));
                assert!(channel.split(NO_COLOR, 0, 0).unwrap().is_none());
            }
            Err(e) => assert_eq!(e.code(), StatusCode::Unimplemented, "{e}"),
        }

        // An explicit id; a malformed one; a group this process cannot
        // reach without MPI or an id.
        let id = Nccl::get().unwrap().unique_id().unwrap();
        let explicit = device
            .create_channel(&ChannelParams {
                id: id.internal.to_vec(),
                rank: 0,
                count: 1,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(explicit.count(), 1);
        let bad = |params: ChannelParams| device.create_channel(&params).err().unwrap().code();
        assert_eq!(
            bad(ChannelParams {
                id: vec![1; 5],
                ..ChannelParams::from_environment()
            }),
            StatusCode::InvalidArgument
        );
        assert_eq!(
            bad(ChannelParams {
                rank: 1,
                count: 2,
                ..Default::default()
            }),
            StatusCode::InvalidArgument
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    iree_test_support::run(vec![
        test(
            "unavailable_names_the_missing_library",
            unavailable_names_the_missing_library,
        ),
        test(
            "foreign_channels_are_refused_on_the_device",
            foreign_channels_are_refused_on_the_device,
        ),
        test(
            "single_rank_collectives_on_device_memory",
            single_rank_collectives_on_device_memory,
        ),
    ])
}
