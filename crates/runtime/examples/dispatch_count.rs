//! The dispatch path, in forms whose instructions `cargo xtask icount`
//! counts under valgrind (callgrind's `--toggle-collect` on
//! [`counted_call`], with a dump before each call, as
//! `crates/vm-bytecode/examples/vm_count.rs` does for the interpreter).
//!
//! ```text
//! dispatch_count --device=DEV --executable=FILE --submissions=N
//! dispatch_count --device=DEV --module=FILE --function=NAME --iterations=N
//! ```
//!
//! The first runs what `iree-benchmark-executable --workgroup_count=1`
//! runs: a command buffer of 64 one-workgroup dispatches of export 0 of an
//! embedded-ELF executable (bindings: three 4xf32 buffers), each followed by
//! a barrier, submitted `N` times and waited on. The second calls a function
//! taking a `4xf32` tensor and a trip count (`dispatch_loop.vmfb`'s
//! `step_loop`) with `N`. Before the counted call, an uncounted one (one
//! submission, one trip) warms what a first call initializes.

use std::process::ExitCode;
use std::sync::Arc;

use iree_hal::{
    BindingRef, Buffer, BufferParams, CommandBuffer, Device, Fence, MemoryType, Semaphore,
};
use iree_runtime::{Instance, Result, Session, Tensor, Value};

/// Dispatches per command buffer (`iree-benchmark-executable`'s default
/// `--batch_size`).
const BATCH: usize = 64;

/// The work valgrind counts.
#[inline(never)]
fn counted_call(work: &mut dyn FnMut() -> Result<()>) -> Result<()> {
    work()
}

/// A recorded batch of dispatches and the semaphore its submissions signal.
struct Batch {
    device: Arc<dyn Device>,
    command_buffer: CommandBuffer,
    semaphore: Arc<Semaphore>,
    value: u64,
}

impl Batch {
    fn record(device: Arc<dyn Device>, path: &str) -> Result<Batch> {
        let data = std::fs::read(path).map_err(|e| {
            iree_runtime::Status::new(iree_runtime::StatusCode::NotFound, format!("{path}: {e}"))
        })?;
        let executable = device.create_executable(
            iree_hal_local::device::host_embedded_elf_format(),
            &data,
            &[],
        )?;
        let bindings = (0..3)
            .map(|_| {
                device.allocator().allocate_buffer(
                    BufferParams {
                        memory_type: MemoryType::DEVICE_LOCAL,
                        ..Default::default()
                    },
                    16,
                )
            })
            .collect::<Result<Vec<Buffer>>>()?;
        let mut command_buffer = CommandBuffer::new(0).with_allocator(device.allocator());
        for _ in 0..BATCH {
            let refs = bindings
                .iter()
                .map(|buffer| BindingRef::Direct {
                    buffer: buffer.clone(),
                    offset: 0,
                    length: iree_hal::WHOLE_BUFFER,
                })
                .collect();
            command_buffer.dispatch(executable.clone(), 0, [1, 1, 1], &[], refs)?;
            command_buffer.barrier()?;
        }
        command_buffer.finalize()?;
        Ok(Batch {
            device,
            command_buffer,
            semaphore: Semaphore::new(0),
            value: 0,
        })
    }

    fn submit(&mut self, submissions: u64) -> Result<()> {
        for _ in 0..submissions {
            self.value += 1;
            let mut signal = Fence::new();
            signal.insert(self.semaphore.clone(), self.value);
            self.device
                .queue_execute(&Fence::new(), &signal, Some(&self.command_buffer), &[])?;
            self.semaphore.wait(self.value, None)?;
        }
        Ok(())
    }
}

fn main() -> ExitCode {
    let (mut device, mut executable, mut module, mut function, mut count) =
        ("local-sync".to_string(), None, None, None, 0u64);
    for arg in std::env::args().skip(1) {
        if let Some(v) = arg.strip_prefix("--device=") {
            device = v.to_string();
        } else if let Some(v) = arg.strip_prefix("--executable=") {
            executable = Some(v.to_string());
        } else if let Some(v) = arg.strip_prefix("--module=") {
            module = Some(v.to_string());
        } else if let Some(v) = arg.strip_prefix("--function=") {
            function = Some(v.to_string());
        } else if let Some(v) = arg
            .strip_prefix("--submissions=")
            .or_else(|| arg.strip_prefix("--iterations="))
            .and_then(|v| v.parse().ok())
        {
            count = v;
        } else {
            eprintln!(
                "usage: dispatch_count --device=DEV (--executable=FILE --submissions=N | \
                 --module=FILE --function=NAME --iterations=N)"
            );
            return ExitCode::FAILURE;
        }
    }
    let instance = Instance::new();
    let run = || -> Result<()> {
        let mut session = Session::new(&instance, &device)?;
        if let Some(path) = &executable {
            let mut batch = Batch::record(session.device().clone(), path)?;
            batch.submit(1)?;
            counted_call(&mut || batch.submit(count))?;
            println!("{} submissions of {BATCH} dispatches", count);
            return Ok(());
        }
        let (Some(path), Some(function)) = (&module, &function) else {
            return Err(iree_runtime::Status::new(
                iree_runtime::StatusCode::InvalidArgument,
                "give --executable=, or --module= and --function=",
            ));
        };
        session.load_module_file(path)?;
        let input = || Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0]);
        session.call(function, &[input()?.into(), Value::I64(1)])?;
        let args = [input()?.into(), Value::I64(count as i64)];
        let mut results = Vec::new();
        counted_call(&mut || {
            results = session.call(function, &args)?;
            Ok(())
        })?;
        match results.first() {
            Some(Value::Tensor(t)) => println!("{function}: {:?}", t.to_vec::<f32>()?),
            other => println!("{function}: {other:?}"),
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
