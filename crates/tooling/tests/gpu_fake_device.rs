//! The GPU device stack (`iree-hal-gpu`'s device, allocator, executables,
//! command buffers and queue) run end to end without a GPU: a fake
//! [`Backend`] whose device addresses are host pointers and whose "kernels"
//! are Rust emulations of the three in `testdata/cuda/kernels.mlir`. The
//! module, its `cuda-nvptx-fb` executable (parsed by `iree-hal-cuda`), the
//! `hal` module, kernel parameter packing and both recording modes (stream
//! and graph capture) are the real ones; only the driver calls are fake.
//!
//! This checks what the hardware cannot check here: that bindings reach the
//! kernel as the right addresses in the right order, that block dims come
//! from the export, that graph capture replays what was recorded, and that
//! results flow back to the host and print as upstream prints them.

use std::collections::HashMap;
use std::ptr::NonNull;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{Device, HostMemory};
use iree_hal_gpu::{
    Backend, DeviceProperties, ExecutableInfo, GpuDevice, GpuLimits, GpuOptions, KernelParams,
    Recording,
};
use iree_tooling::run::{create_run_context_on, run_function, RunOptions};
use parking_lot::Mutex;

/// The kernels of `testdata/cuda/kernels.mlir`, emulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// `out[i] = a[i] * b[i]`, 4 elements.
    Mul,
    /// `out = a x b`, 64x64 f32.
    Matmul,
    /// `out[i] = a[i] + b[i]`, `n` elements with `n` in constants 2 (low
    /// half) and 3 (high half), as the PTX reads its parameters 5 and 6.
    DynAdd,
}

/// Work on the fake stream.
#[derive(Clone, Debug)]
enum Op {
    Fill {
        address: u64,
        length: u64,
        pattern: Vec<u8>,
    },
    Copy {
        target: u64,
        source: u64,
        length: u64,
    },
    Launch {
        kernel: Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        slots: Vec<u64>,
    },
}

/// One executed launch: the kernel, its grid and its block dims.
type Launch = (Kernel, [u32; 3], [u32; 3]);

/// Pinned host memory of the fake (8-byte aligned words).
struct FakePinned(#[allow(dead_code)] Box<[u64]>);

struct Fake {
    properties: DeviceProperties,
    /// Device allocations by address (the address is the host pointer).
    device_memory: Mutex<HashMap<u64, Box<[u64]>>>,
    /// `Some` while capturing a graph.
    capture: Mutex<Option<Vec<Op>>>,
    /// Every launch executed, and how many graphs were launched.
    launches: Mutex<Vec<Launch>>,
    graphs_launched: Mutex<usize>,
}

fn words(size: u64) -> Box<[u64]> {
    vec![0u64; (size as usize).div_ceil(8).max(1)].into_boxed_slice()
}

impl Fake {
    fn new(memory_pools: bool) -> Fake {
        Fake {
            properties: DeviceProperties {
                name: "Fake GPU".to_string(),
                limits: GpuLimits::default(),
                memory_pools,
            },
            device_memory: Mutex::default(),
            capture: Mutex::default(),
            launches: Mutex::default(),
            graphs_launched: Mutex::default(),
        }
    }

    fn submit(&self, op: Op) -> Result<()> {
        if let Some(graph) = self.capture.lock().as_mut() {
            graph.push(op);
            return Ok(());
        }
        self.execute(&op)
    }

    fn execute(&self, op: &Op) -> Result<()> {
        match op {
            Op::Fill {
                address,
                length,
                pattern,
            } => {
                let bytes: Vec<u8> = pattern
                    .iter()
                    .copied()
                    .cycle()
                    .take(*length as usize)
                    .collect();
                write(*address, &bytes);
            }
            Op::Copy {
                target,
                source,
                length,
            } => {
                let mut bytes = vec![0u8; *length as usize];
                read(*source, &mut bytes);
                write(*target, &bytes);
            }
            Op::Launch {
                kernel,
                grid,
                block,
                slots,
            } => {
                let threads: u64 = grid.iter().chain(block).map(|&d| u64::from(d)).product();
                match kernel {
                    Kernel::Mul => {
                        assert_eq!(slots.len(), 3, "mul takes 3 bindings");
                        assert!(
                            threads >= 4,
                            "{grid:?} x {block:?} threads cannot cover 4 elements"
                        );
                        let (a, b) = (floats(slots[0], 4), floats(slots[1], 4));
                        let out: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
                        write(slots[2], &bytes_of(&out));
                    }
                    Kernel::DynAdd => {
                        assert_eq!(slots.len(), 7, "dyn_add takes 3 bindings and 4 constants");
                        let n = (slots[5] & 0xFFFF_FFFF) | (slots[6] << 32);
                        assert!(grid[0] >= 1 && block[0] == 32, "{grid:?} x {block:?}");
                        let n = n as usize;
                        let (a, b) = (floats(slots[0], n), floats(slots[1], n));
                        let out: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
                        write(slots[2], &bytes_of(&out));
                    }
                    Kernel::Matmul => {
                        assert_eq!(slots.len(), 3, "matmul takes 3 bindings");
                        let (a, b) = (floats(slots[0], 64 * 64), floats(slots[1], 64 * 64));
                        let mut out = vec![0f32; 64 * 64];
                        for i in 0..64 {
                            for j in 0..64 {
                                out[i * 64 + j] =
                                    (0..64).map(|k| a[i * 64 + k] * b[k * 64 + j]).sum();
                            }
                        }
                        write(slots[2], &bytes_of(&out));
                    }
                }
                self.launches.lock().push((*kernel, *grid, *block));
            }
        }
        Ok(())
    }
}

fn read(address: u64, out: &mut [u8]) {
    // SAFETY: every address the device hands the fake lies inside an
    // allocation the fake made (device words or pinned host words) and is
    // still alive: the device keeps buffers referenced until the stream
    // is idle, and the fake runs everything synchronously.
    unsafe { std::ptr::copy_nonoverlapping(address as *const u8, out.as_mut_ptr(), out.len()) };
}

fn write(address: u64, data: &[u8]) {
    // SAFETY: as in `read`; nothing else accesses the bytes while a fake
    // stream operation runs.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), address as *mut u8, data.len()) };
}

fn floats(address: u64, count: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; count * 4];
    read(address, &mut bytes);
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn bytes_of(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

impl Backend for Fake {
    type Module = Vec<String>;
    type Function = Kernel;
    type Graph = Vec<Op>;

    const DRIVER: &'static str = "cuda";
    const FORMAT: &'static str = "cuda-nvptx-fb";

    fn properties(&self) -> &DeviceProperties {
        &self.properties
    }

    fn parse_executable<'a>(&self, data: &'a [u8]) -> Result<ExecutableInfo<'a>> {
        iree_hal_cuda::executable::parse(data)
    }

    fn alloc_device(&self, size: u64) -> Result<u64> {
        let memory = words(size);
        let address = memory.as_ptr() as u64;
        self.device_memory.lock().insert(address, memory);
        Ok(address)
    }

    fn alloc_device_async(&self, size: u64) -> Result<u64> {
        assert!(
            self.properties.memory_pools,
            "pool allocation without pools"
        );
        self.alloc_device(size)
    }

    fn free_device(&self, address: u64, _stream_ordered: bool) {
        assert!(
            self.device_memory.lock().remove(&address).is_some(),
            "freeing unknown device address {address:#x}"
        );
    }

    fn alloc_host(&self, size: usize) -> Result<HostMemory> {
        let mut memory = words(size as u64);
        let ptr =
            NonNull::new(memory.as_mut_ptr().cast::<u8>()).expect("boxed slices are non-null");
        // SAFETY: `ptr` addresses at least `size` bytes of `memory`, which
        // the owner keeps (moving the box does not move its heap bytes).
        Ok(unsafe { HostMemory::from_foreign(ptr, size, Box::new(FakePinned(memory))) })
    }

    fn host_device_address(&self, memory: &HostMemory) -> Option<u64> {
        memory
            .owner()?
            .downcast_ref::<FakePinned>()
            .map(|pinned| pinned.0.as_ptr() as u64)
    }

    fn copy_to_device(&self, address: u64, data: &[u8]) -> Result<()> {
        write(address, data);
        Ok(())
    }

    fn copy_from_device(&self, out: &mut [u8], address: u64) -> Result<()> {
        read(address, out);
        Ok(())
    }

    fn load_module(&self, image: &[u8]) -> Result<Vec<String>> {
        let ptx = std::str::from_utf8(image)
            .map_err(|_| Status::new(StatusCode::InvalidArgument, "PTX is not text"))?;
        Ok(ptx
            .split(".entry ")
            .skip(1)
            .filter_map(|rest| rest.split('(').next())
            .map(|name| name.trim().to_string())
            .collect())
    }

    fn get_function(
        &self,
        module: &Vec<String>,
        name: &str,
        _shared_memory: u32,
    ) -> Result<Kernel> {
        if !module.iter().any(|entry| entry == name) {
            return Err(Status::new(
                StatusCode::NotFound,
                format!("no kernel `{name}` in the module"),
            ));
        }
        if name.starts_with("mul_") {
            Ok(Kernel::Mul)
        } else if name.starts_with("matmul_") {
            Ok(Kernel::Matmul)
        } else if name.starts_with("dyn_add_") {
            Ok(Kernel::DynAdd)
        } else {
            Err(Status::new(
                StatusCode::Unimplemented,
                format!("the fake cannot run `{name}`"),
            ))
        }
    }

    fn fill(&self, address: u64, length: u64, pattern: &[u8]) -> Result<()> {
        self.submit(Op::Fill {
            address,
            length,
            pattern: pattern.to_vec(),
        })
    }

    fn copy(&self, target: u64, source: u64, length: u64) -> Result<()> {
        self.submit(Op::Copy {
            target,
            source,
            length,
        })
    }

    fn launch(
        &self,
        function: Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        _shared_memory: u32,
        params: &mut KernelParams,
    ) -> Result<()> {
        self.submit(Op::Launch {
            kernel: function,
            grid,
            block,
            slots: params.slots().to_vec(),
        })
    }

    fn begin_capture(&self) -> Result<()> {
        let mut capture = self.capture.lock();
        assert!(capture.is_none(), "nested capture");
        *capture = Some(Vec::new());
        Ok(())
    }

    fn end_capture(&self) -> Result<Vec<Op>> {
        Ok(self.capture.lock().take().expect("capture begun"))
    }

    fn launch_graph(&self, graph: &Vec<Op>) -> Result<()> {
        *self.graphs_launched.lock() += 1;
        graph.iter().try_for_each(|op| self.execute(op))
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }
}

/// The `cuda-nvptx-fb` executable embedded in the committed module.
fn cuda_executable() -> Vec<u8> {
    let data = std::fs::read(module_path()).unwrap();
    let module = iree_vm_bytecode::format::parse_module(&data).unwrap();
    (0..module.rodata.len())
        .filter_map(|i| module.rodata_bytes(&data, i))
        .find(|bytes| bytes.starts_with(b"CDA1"))
        .expect("a CDA1 executable in the module")
        .to_vec()
}

fn module_path() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/cuda/kernels.vmfb"
    )
    .to_string()
}

/// Runs `function` of the committed CUDA module on a fake device and
/// returns what `iree-run-module` would print, and the device.
fn run(
    function: &str,
    inputs: &[&str],
    options: GpuOptions,
    pools: bool,
) -> (String, Arc<GpuDevice<Fake>>) {
    let device = GpuDevice::new(Fake::new(pools), options);
    let run_options = RunOptions {
        modules: vec![module_path().into()],
        function: function.to_string(),
        inputs: inputs.iter().map(|s| s.into()).collect(),
        ..Default::default()
    };
    let context = create_run_context_on(&run_options, device.clone() as Arc<dyn Device>).unwrap();
    let mut out = Vec::new();
    let code = run_function(&context, &run_options, &mut out).unwrap();
    assert_eq!(code, 0);
    drop(context);
    (String::from_utf8(out).unwrap(), device)
}

fn all_options() -> Vec<(GpuOptions, bool)> {
    let mut all = Vec::new();
    for recording in [Recording::Stream, Recording::Graph] {
        for async_allocations in [true, false] {
            for pools in [true, false] {
                all.push((
                    GpuOptions {
                        recording,
                        async_allocations,
                    },
                    pools,
                ));
            }
        }
    }
    all
}

#[test]
fn mul_runs_through_streams_and_graphs() {
    for (options, pools) in all_options() {
        let (printed, device) = run("mul", &["4xf32=1 2 3 4", "4xf32=5 6 7 8"], options, pools);
        assert_eq!(
            printed, "EXEC @mul\nresult[0]: hal.buffer_view\n4xf32=5 12 21 32\n",
            "{options:?} pools={pools}"
        );
        let fake = device.backend();
        let launches = fake.launches.lock().clone();
        assert_eq!(launches.len(), 1, "{launches:?}");
        let (kernel, _grid, block) = launches[0];
        assert_eq!(kernel, Kernel::Mul);
        // Block dims come from the export.
        let executable = cuda_executable();
        let info = iree_hal_cuda::executable::parse(&executable).unwrap();
        assert_eq!(block, info.exports[0].block_dims);
        let graphs = *fake.graphs_launched.lock();
        match options.recording {
            Recording::Stream => assert_eq!(graphs, 0),
            Recording::Graph => assert!(graphs >= 1, "{options:?}: no graph launched"),
        }
    }
}

#[test]
fn matmul_results_reach_the_host() {
    for (options, pools) in all_options() {
        let (printed, device) = run("matmul", &["64x64xf32=1", "64x64xf32=0.5"], options, pools);
        let mut lines = printed.lines();
        assert_eq!(lines.next(), Some("EXEC @matmul"));
        assert_eq!(lines.next(), Some("result[0]: hal.buffer_view"));
        let view = lines.next().unwrap();
        assert!(
            view.starts_with("64x64xf32=[32 32 32 "),
            "{options:?}: {}",
            &view[..60]
        );
        assert!(
            !view.contains(" 0 ") && !view.contains("[0 "),
            "{options:?}: unwritten output"
        );
        assert_eq!(device.backend().launches.lock().len(), 1);
    }
}

#[test]
fn dynamic_sizes_reach_the_kernel_as_constants() {
    for (options, pools) in all_options() {
        for (a, b, expected) in [
            ("3xf32=1 2 3", "3xf32=4 5 6", "3xf32=5 7 9"),
            ("40xf32=1", "40xf32=2", "40xf32=3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3"),
        ] {
            let (printed, _) = run("dyn_add", &[a, b], options, pools);
            assert_eq!(
                printed,
                format!("EXEC @dyn_add\nresult[0]: hal.buffer_view\n{expected}\n"),
                "{options:?} pools={pools}"
            );
        }
    }
}

#[test]
fn every_device_allocation_is_freed() {
    for (options, pools) in all_options() {
        let (_, device) = run("mul", &["4xf32=1 2 3 4", "4xf32=5 6 7 8"], options, pools);
        let live = device.backend().device_memory.lock().len();
        assert_eq!(
            live, 0,
            "{options:?} pools={pools}: {live} device allocations leaked"
        );
    }
}

/// An execution whose wait fence is reached only after the submit returns
/// runs on the queue's executor thread then, not on the submitting thread
/// and not before (a blocking queue would deadlock here: the wait is
/// signaled by the same thread after submitting).
#[test]
fn pending_waits_do_not_block_the_submitter() {
    use iree_hal::{
        BindingRef, BufferParams, BufferUsage, CommandBuffer, Fence, MemoryType, Semaphore,
    };

    for (options, pools) in all_options() {
        let device = GpuDevice::new(Fake::new(pools), options);
        let executable = device
            .create_executable("cuda-nvptx-fb", &cuda_executable(), &[])
            .unwrap();
        let allocator = device.allocator();
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DEFAULT,
            ..Default::default()
        };
        let [a, b, out] = [0, 1, 2].map(|_| allocator.allocate_buffer(params, 16).unwrap());
        a.write(0, &bytes_of(&[1.0, 2.0, 3.0, 4.0])).unwrap();
        b.write(0, &bytes_of(&[10.0, 20.0, 30.0, 40.0])).unwrap();
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

        let gate = Semaphore::new(0);
        let mut wait = Fence::new();
        wait.insert(gate.clone(), 1);
        let signal = Fence::with_new_semaphore();
        device
            .queue_execute(&wait, &signal, Some(&cb), &[])
            .unwrap();
        drop(cb);
        assert!(!signal.query().unwrap(), "{options:?}: ran before its wait");
        assert!(device.backend().launches.lock().is_empty());
        gate.signal(1).unwrap();
        signal.wait(None).unwrap();
        let mut result = [0u8; 16];
        out.read(0, &mut result).unwrap();
        assert_eq!(
            result.to_vec(),
            bytes_of(&[10.0, 40.0, 90.0, 160.0]),
            "{options:?}"
        );

        // A failed wait fails the signal fence with the root cause, and the
        // work never runs.
        let gate = Semaphore::new(0);
        let mut wait = Fence::new();
        wait.insert(gate.clone(), 1);
        let signal = Fence::with_new_semaphore();
        let mut cb = CommandBuffer::new(0);
        cb.fill(whole(&out), &[0]).unwrap();
        cb.finalize().unwrap();
        device
            .queue_execute(&wait, &signal, Some(&cb), &[])
            .unwrap();
        gate.fail(Status::new(StatusCode::Aborted, "upstream work failed"));
        assert_eq!(signal.wait(None).unwrap_err().code(), StatusCode::Aborted);
        out.read(0, &mut result).unwrap();
        assert_eq!(result.to_vec(), bytes_of(&[10.0, 40.0, 90.0, 160.0]));
    }
}
