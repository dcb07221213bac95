//! `iree-benchmark-executable`: times one export of a HAL executable (an
//! embedded ELF, a system library, VMVX bytecode, ...) dispatched straight
//! on a device, bypassing the VM, with upstream's flags: `--binding=` for
//! every buffer the export binds, `--constant=` for its push constants,
//! one benchmark per `--workgroup_count=`, and `--batch_size` dispatches
//! per command buffer submission. Reports as Google Benchmark does, one
//! iteration per dispatch and one item per workgroup.

use std::ffi::OsString;
use std::io::Write;
use std::sync::Arc;

use clap::Parser;
use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_benchmark::report::TimeUnit;
use iree_benchmark::{run_benchmarks, Benchmark, GoogleBenchmarkFlags};
use iree_hal::{BindingRef, Buffer, CommandBuffer, Device, Executable, Fence, Semaphore};
use iree_modules_hal::{HalBuffer, HalBufferView};
use iree_tooling::flags::{parse_args, ModuleFlags};
use iree_tooling::run::{
    driver_registry_with, open_error, parse_inputs, read_stdin, RunOptions, DEFAULT_DEVICE,
};
use iree_vm::{CconvType, Value};

/// Command-line flags, spelled as upstream spells them (`--flag=value`).
#[derive(Parser, Debug)]
#[command(
    name = "iree-benchmark-executable",
    about = "Benchmarks a single entry point within an executable library."
)]
struct Flags {
    #[command(flatten)]
    common: ModuleFlags,
    #[command(flatten)]
    executable: ExecutableFlags,
    #[command(flatten)]
    google: GoogleBenchmarkFlags,
}

/// What to dispatch and how.
#[derive(clap::Args, Debug)]
struct ExecutableFlags {
    /// Number of dispatches to perform per command buffer submission.
    #[arg(long = "batch_size", default_value_t = 64, allow_hyphen_values = true)]
    batch_size: i32,
    /// Format of the executable file being loaded (`embedded-elf-x86_64`,
    /// `system-elf-x86_64`, `vmvx-bytecode-fb`, `cuda-nvptx-fb`, ...).
    #[arg(long = "executable_format", default_value = "")]
    executable_format: String,
    /// Path to the executable file to load (`-` for standard input).
    #[arg(long = "executable_file", default_value = "")]
    executable_file: String,
    /// Entry point ordinal to run.
    #[arg(long = "entry_point", default_value_t = 0, allow_hyphen_values = true)]
    entry_point: i32,
    /// `x,y,z` workgroup count; one benchmark per occurrence.
    #[arg(long = "workgroup_count")]
    workgroup_count: Vec<String>,
    /// Appends a uint32_t executable constant value.
    #[arg(long = "executable_constant", allow_hyphen_values = true)]
    executable_constant: Vec<String>,
    /// Appends a uint32_t push constant value.
    #[arg(long = "constant", allow_hyphen_values = true)]
    constant: Vec<String>,
    /// Appends a binding (`shapextype[=values]`, `@file.npy`, ...), one for
    /// every binding the export declares.
    #[arg(long = "binding", allow_hyphen_values = true)]
    binding: Vec<String>,
}

/// Most push constants one dispatch may take.
const MAX_CONSTANT_COUNT: usize = 64;
/// Most executable-level constants.
const MAX_EXECUTABLE_CONSTANT_COUNT: usize = 512;

/// Parses the `uint32_t` values of a repeated flag (`what` names them in
/// errors: "push constant").
fn parse_u32_list(texts: &[String], what: &str, limit: usize) -> Result<Vec<u32>> {
    if texts.len() > limit {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("too many {what}s ({}; at most {limit})", texts.len()),
        ));
    }
    texts
        .iter()
        .map(|text| {
            text.parse::<u32>().map_err(|_| {
                Status::new(
                    StatusCode::InvalidArgument,
                    format!("invalid {what} value `{text}`; expects uint32_t"),
                )
            })
        })
        .collect()
}

/// Parses an `x,y,z` workgroup count.
fn parse_workgroup_count(text: &str) -> Result<[u32; 3]> {
    let bad = || {
        Status::new(
            StatusCode::InvalidArgument,
            format!("invalid workgroup count string `{text}`; expects `X,Y,Z`"),
        )
    };
    let mut parts = text.splitn(3, ',');
    let mut count = [0u32; 3];
    for dim in &mut count {
        *dim = parts
            .next()
            .and_then(|part| part.parse().ok())
            .ok_or_else(bad)?;
    }
    Ok(count)
}

/// Reads the executable's bytes from a file, or standard input for `-`.
fn read_executable(path: &str) -> Result<Vec<u8>> {
    if path == "-" {
        return read_stdin("executable");
    }
    std::fs::read(path).map_err(|e| open_error(path, e))
}

/// The buffers of the `--binding=` flags, parsed as tensors on `device`.
fn parse_bindings(specs: &[String], device: &Arc<dyn Device>) -> Result<Vec<Buffer>> {
    if specs.len() > iree_hal::command_buffer::MAX_BINDING_COUNT {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "too many bindings ({}; at most {})",
                specs.len(),
                iree_hal::command_buffer::MAX_BINDING_COUNT
            ),
        ));
    }
    let cconv = vec![CconvType::Ref; specs.len()];
    let values = parse_inputs(&cconv, specs, Some(device))?;
    values
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let as_buffer = |value: &Value| {
                let Value::Ref(Some(object)) = value else {
                    return None;
                };
                if let Some(view) = object.downcast::<HalBufferView>() {
                    return Some(view.0.buffer().clone());
                }
                object
                    .downcast::<HalBuffer>()
                    .map(|buffer| buffer.0.clone())
            };
            as_buffer(value).ok_or_else(|| {
                Status::new(
                    StatusCode::InvalidArgument,
                    format!("bindings must be shaped types (4xf32, etc), binding {i} is not"),
                )
            })
        })
        .collect()
}

/// One `--workgroup_count=` benchmark: a command buffer of `batch_size`
/// dispatches, each followed by a barrier, submitted and waited on per
/// iteration batch.
struct DispatchBenchmark {
    device: Arc<dyn Device>,
    command_buffer: CommandBuffer,
    semaphore: Arc<Semaphore>,
    value: u64,
}

impl DispatchBenchmark {
    fn record(
        device: Arc<dyn Device>,
        executable: &Arc<dyn Executable>,
        entry_point: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: &[Buffer],
        batch_size: usize,
    ) -> Result<DispatchBenchmark> {
        let mut command_buffer = CommandBuffer::new(0);
        for _ in 0..batch_size {
            let refs = bindings
                .iter()
                .map(|buffer| BindingRef::Direct {
                    buffer: buffer.clone(),
                    offset: 0,
                    length: iree_hal::WHOLE_BUFFER,
                })
                .collect();
            command_buffer.dispatch(
                executable.clone(),
                entry_point,
                workgroup_count,
                constants,
                refs,
            )?;
            command_buffer.barrier()?;
        }
        command_buffer.finalize()?;
        Ok(DispatchBenchmark {
            device,
            command_buffer,
            semaphore: Semaphore::new(0),
            value: 0,
        })
    }

    /// Submits the command buffer once and waits for it.
    fn submit(&mut self) -> Result<()> {
        self.value += 1;
        let mut signal = Fence::new();
        signal.insert(self.semaphore.clone(), self.value);
        self.device
            .queue_execute(&Fence::new(), &signal, Some(&self.command_buffer), &[])?;
        self.semaphore.wait(self.value, None)
    }
}

/// Runs the benchmarks; `program` is the tool's `argv[0]`.
fn run(
    flags: &ExecutableFlags,
    google: &GoogleBenchmarkFlags,
    options: &RunOptions,
    program: &str,
) -> Result<()> {
    let constants = parse_u32_list(&flags.constant, "push constant", MAX_CONSTANT_COUNT)?;
    let executable_constants = parse_u32_list(
        &flags.executable_constant,
        "executable constant",
        MAX_EXECUTABLE_CONSTANT_COUNT,
    )?;
    let settings = google.validate()?;
    if flags.batch_size < 1 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("--batch_size must be positive (got {})", flags.batch_size),
        ));
    }
    let batch_size = flags.batch_size as usize;
    let uri = options
        .devices
        .first()
        .map(String::as_str)
        .unwrap_or(DEFAULT_DEVICE);
    let device = driver_registry_with(options).create_device(uri)?;
    let bindings = parse_bindings(&flags.binding, &device).annotate("parsing --binding= flags")?;
    let data = read_executable(&flags.executable_file)?;
    let executable = device
        .create_executable(&flags.executable_format, &data, &executable_constants)
        .annotate_with(|| format!("preparing executable '{}'", flags.executable_file))?;
    // Checked when the dispatch runs (a bad ordinal is that benchmark's
    // error row, as upstream reports it); a negative one wraps as there.
    let entry_point = flags.entry_point as u32 as usize;
    if flags.workgroup_count.is_empty() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "no --workgroup_count= given; each one runs a benchmark",
        ));
    }
    let mut benchmarks = Vec::with_capacity(flags.workgroup_count.len());
    for text in &flags.workgroup_count {
        let workgroup_count = parse_workgroup_count(text)?;
        // Recorded by the first iteration, so that a dispatch the executable
        // refuses is reported as this benchmark's error.
        let mut dispatch: Option<DispatchBenchmark> = None;
        let (device, executable) = (device.clone(), executable.clone());
        let (constants, bindings) = (&constants, &bindings);
        let iterate = move || -> Result<()> {
            if dispatch.is_none() {
                dispatch = Some(DispatchBenchmark::record(
                    device.clone(),
                    &executable,
                    entry_point,
                    workgroup_count,
                    constants,
                    bindings,
                    batch_size,
                )?);
            }
            dispatch.as_mut().map_or(Ok(()), DispatchBenchmark::submit)
        };
        let [x, y, z] = workgroup_count;
        benchmarks.push(Benchmark {
            name: format!("BM_dispatch_{x}x{y}x{z}/process_time/real_time"),
            time_unit: TimeUnit::Nanosecond,
            items_per_iteration: u64::from(x) * u64::from(y) * u64::from(z),
            iterate: Box::new(iterate),
            dispatch_statistics: None,
            manual_time: None,
        });
    }
    // As upstream: a failed dispatch is reported in the table (an error
    // row) and the tool still succeeds.
    run_benchmarks(&settings, benchmarks, batch_size as u64, program).map(drop)
}

/// Runs `iree-benchmark-executable` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
/// Output goes to this process's stdout and stderr; a caller that keeps
/// running afterwards flushes stdout (as the process exit would).
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    let args: Vec<OsString> = args.into_iter().collect();
    let program = args
        .first()
        .map(|arg| arg.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Flags {
        common,
        executable,
        google,
    } = match parse_args(args) {
        Ok(flags) => flags,
        Err(code) => return code,
    };
    let options = match common.into_run_options() {
        Ok(options) => options,
        Err(code) => return code,
    };
    match run(&executable, &google, &options, &program) {
        Ok(()) => 0,
        Err(status) => {
            let _ = std::io::stdout().flush();
            eprintln!("{status}");
            1
        }
    }
}
