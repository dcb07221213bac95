//! `iree-benchmark-module`: times exported functions of an IREE module with
//! upstream's flags (every `iree-run-module` flag plus Google Benchmark's)
//! and reports in Google Benchmark's console or JSON format, benchmarks
//! named `BM_<function>/process_time/real_time` as upstream names them.

use std::ffi::OsString;
use std::io::Write;
use std::sync::Arc;

use clap::Parser;
use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{Device, Fence};
use iree_modules_hal::HalFence;
use iree_tooling::flags::{parse_args, ModuleFlags};
use iree_tooling::run::{
    load_context, parse_inputs, print_device_statistics, LoadedContext, RunOptions,
};
use iree_vm::{Context, Function, Ref, Value};

use iree_benchmark::report::TimeUnit;
use iree_benchmark::{run_benchmarks, GoogleBenchmarkFlags};

/// Command-line flags, spelled as upstream spells them (`--flag=value`).
#[derive(Parser, Debug)]
#[command(
    name = "iree-benchmark-module",
    about = "Benchmarks a function within a compiled IREE module and handles I/O parsing."
)]
struct Flags {
    #[command(flatten)]
    common: ModuleFlags,
    #[command(flatten)]
    benchmark: BenchmarkFlags,
    #[command(flatten)]
    google: GoogleBenchmarkFlags,
}

/// The flags besides the module and device ones.
#[derive(clap::Args, Debug)]
struct BenchmarkFlags {
    /// Function to benchmark; empty benchmarks every export that takes no
    /// inputs (or has an `iree.benchmark` attribute).
    #[arg(long = "function", default_value = "")]
    function: String,
    /// An input value or buffer, once per argument in order.
    #[arg(long = "input", allow_hyphen_values = true)]
    input: Vec<String>,
    /// Invocations each iteration stands for (results are divided by it).
    #[arg(long = "batch_size", default_value_t = 1, allow_hyphen_values = true)]
    batch_size: i32,
    /// Accepted for compatibility: invocations of a batch run in sequence.
    #[arg(long = "batch_concurrency", default_value_t = 1)]
    batch_concurrency: i32,
    /// Unit of reported times: `ns`, `us` or `ms` (default: ms, us for
    /// dispatch benchmarks).
    #[arg(long = "time_unit")]
    time_unit: Option<String>,
    /// Accepted for compatibility (output processing is not implemented):
    /// `--output` and the `--expected_*` flags have no effect.
    #[arg(long = "enable_output_processing", num_args = 0..=1, default_missing_value = "true")]
    enable_output_processing: Option<String>,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "output", allow_hyphen_values = true)]
    output: Vec<String>,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "output_max_element_count", default_value_t = 1024)]
    output_max_element_count: usize,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "expected_output", allow_hyphen_values = true)]
    expected_output: Vec<String>,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "equality_mode", default_value = "approximate")]
    equality_mode: String,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "expected_f16_threshold", allow_hyphen_values = true)]
    expected_f16_threshold: Option<f32>,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "expected_f32_threshold", allow_hyphen_values = true)]
    expected_f32_threshold: Option<f32>,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "expected_f64_threshold", allow_hyphen_values = true)]
    expected_f64_threshold: Option<f64>,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "expected_bf16_threshold", allow_hyphen_values = true)]
    expected_bf16_threshold: Option<f32>,
    /// Accepted for compatibility (see `--enable_output_processing`).
    #[arg(long = "expected_rtol", allow_hyphen_values = true)]
    expected_rtol: Option<f64>,
}

/// How a benchmark calls its function.
enum Invocation {
    /// One call per iteration with fixed inputs.
    Sync(Vec<Value>),
    /// `batch_size` calls per iteration with fixed inputs followed by a wait
    /// and a signal fence (the `coarse-fences` ABI), then a wait on them.
    Async(Vec<Value>),
}

/// A benchmark to run.
struct Benchmark {
    name: String,
    function: Function,
    invocation: Invocation,
    time_unit: TimeUnit,
}

impl Benchmark {
    fn new(
        function: Function,
        invocation: Invocation,
        default_unit: TimeUnit,
        unit: Option<TimeUnit>,
    ) -> Benchmark {
        Benchmark {
            name: format!("BM_{}/process_time/real_time", function.info().name),
            function,
            invocation,
            time_unit: unit.unwrap_or(default_unit),
        }
    }

    /// Runs the benchmark's invocation(s) for one iteration batch.
    fn iterate(&self, context: &Context, batch_size: usize) -> Result<()> {
        match &self.invocation {
            Invocation::Sync(inputs) => {
                context.invoke(&self.function, inputs)?;
            }
            Invocation::Async(inputs) => {
                let mut signals = Vec::with_capacity(batch_size);
                for _ in 0..batch_size {
                    let signal = Fence::with_new_semaphore();
                    let mut args = inputs.clone();
                    args.push(Value::from(Ref::new(HalFence(Fence::new()))));
                    args.push(Value::from(Ref::new(HalFence(signal.clone()))));
                    context.invoke(&self.function, &args)?;
                    signals.push(signal);
                }
                for signal in signals {
                    signal.wait(None)?;
                }
            }
        }
        Ok(())
    }
}

/// What the benchmarks run in.
struct Session {
    context: Context,
    device: Option<Arc<dyn Device>>,
    benchmarks: Vec<Benchmark>,
}

/// Loads the modules and picks the benchmarks as upstream does.
fn register(
    flags: &BenchmarkFlags,
    options: &RunOptions,
    unit: Option<TimeUnit>,
) -> Result<Session> {
    let LoadedContext {
        context,
        device,
        main,
        main_instance,
    } = load_context(options, None)?;
    let coarse_fences = |f: &Function| f.info().attr("iree.abi.model") == Some("coarse-fences");
    let mut benchmarks = Vec::new();
    if !flags.function.is_empty() {
        let ordinal = main.lookup_export(&flags.function).ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!(
                    "function '{}' not found in module '{}'",
                    flags.function,
                    main.name()
                ),
            )
        })?;
        let function = Function::new(main_instance, ordinal);
        let cconv = function.cconv()?;
        let inputs = parse_inputs(&cconv.args, &flags.input, device.as_ref())
            .annotate("parsing function inputs")?;
        let invocation = if coarse_fences(&function) {
            Invocation::Async(inputs)
        } else {
            Invocation::Sync(inputs)
        };
        benchmarks.push(Benchmark::new(
            function,
            invocation,
            TimeUnit::Millisecond,
            unit,
        ));
    } else {
        for (ordinal, export) in main.exports().iter().enumerate() {
            let function = Function::new(main_instance.clone(), ordinal as u32);
            match export.attr("iree.benchmark") {
                Some("dispatch") => {
                    let inputs = vec![Value::from(flags.batch_size)];
                    benchmarks.push(Benchmark::new(
                        function,
                        Invocation::Sync(inputs),
                        TimeUnit::Microsecond,
                        unit,
                    ));
                }
                Some("entry") => benchmarks.push(Benchmark::new(
                    function,
                    Invocation::Sync(Vec::new()),
                    TimeUnit::Millisecond,
                    unit,
                )),
                _ => {
                    if export.name.starts_with("__") || export.name.contains('$') {
                        continue;
                    }
                    let arguments = function.cconv()?.args.len();
                    let invocation = match (coarse_fences(&function), arguments) {
                        (true, 2) => Invocation::Async(Vec::new()),
                        (false, 0) => Invocation::Sync(Vec::new()),
                        _ => continue,
                    };
                    benchmarks.push(Benchmark::new(
                        function,
                        invocation,
                        TimeUnit::Millisecond,
                        unit,
                    ));
                }
            }
        }
    }
    Ok(Session {
        context,
        device,
        benchmarks,
    })
}

/// Parses `--time_unit` (`None` when not given).
fn time_unit(flags: &BenchmarkFlags) -> Result<Option<TimeUnit>> {
    let Some(text) = &flags.time_unit else {
        return Ok(None);
    };
    TimeUnit::parse(text)
        .filter(|u| *u != TimeUnit::Second)
        .map(Some)
        .ok_or_else(|| {
            Status::new(
                StatusCode::InvalidArgument,
                format!("unsupported time unit '{text}'; expected ms, us or ns"),
            )
        })
}

/// Runs the benchmarks; `program` is the tool's `argv[0]`.
fn run(
    flags: &BenchmarkFlags,
    google: &GoogleBenchmarkFlags,
    options: &RunOptions,
    program: &str,
) -> Result<()> {
    let settings = google.validate()?;
    let unit = time_unit(flags)?;
    if flags.batch_size < 1 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("--batch_size must be positive (got {})", flags.batch_size),
        ));
    }
    let batch_size = flags.batch_size as usize;
    let session = register(flags, options, unit)?;
    // `--device_profiling_*` / `--print_device_statistics`: over every run.
    let profiling = options.profiling.begin(session.device.as_ref())?;
    let context = &session.context;
    let benchmarks = session
        .benchmarks
        .iter()
        .map(|benchmark| iree_benchmark::Benchmark {
            name: benchmark.name.clone(),
            time_unit: benchmark.time_unit,
            items_per_iteration: 1,
            iterate: Box::new(move || benchmark.iterate(context, batch_size)),
        })
        .collect();
    let failures = run_benchmarks(&settings, benchmarks, batch_size as u64, program)?;
    if let Some(profiling) = profiling {
        profiling.finish()?;
    }
    let device = session.device.clone();
    drop(session);
    // As upstream: a failed benchmark is reported in the table and makes
    // the tool fail with its status.
    if let Some(first) = failures.into_iter().next() {
        return Err(first);
    }
    if options.print_statistics {
        if let Some(device) = device {
            print_device_statistics(&device);
        }
    }
    Ok(())
}

/// Runs `iree-benchmark-module` with the command line `args` (the program name
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
    let flags: Flags = match parse_args(args) {
        Ok(flags) => flags,
        Err(code) => return code,
    };
    let Flags {
        common,
        benchmark,
        google,
    } = flags;
    let options = match common.into_run_options() {
        Ok(options) => options,
        Err(code) => return code,
    };
    match run(&benchmark, &google, &options, &program) {
        Ok(()) => 0,
        Err(status) => {
            let _ = std::io::stdout().flush();
            eprintln!("{status}");
            1
        }
    }
}
