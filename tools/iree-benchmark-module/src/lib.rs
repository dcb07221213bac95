//! `iree-benchmark-module`: times exported functions of an IREE module with
//! upstream's flags (every `iree-run-module` flag plus Google Benchmark's)
//! and reports in Google Benchmark's console or JSON format, benchmarks
//! named `BM_<function>/process_time/real_time` as upstream names them.

use std::ffi::OsString;
use std::io::Write;
use std::sync::Arc;

use clap::Parser;
use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{Device, Fence, ProfilingMode};
use iree_modules_hal::HalFence;
use iree_tooling::compare::Equality;
use iree_tooling::flags::{parse_args, ModuleFlags};
use iree_tooling::replay::{start_capture, Capture, Recorder};
use iree_tooling::run::{
    load_context, parse_inputs, print_device_statistics, process_outputs, LoadedContext, RunOptions,
};
use iree_vm::{Context, Function, Ref, Value};

use iree_benchmark::report::{DispatchTime, TimeUnit};
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
    input: Vec<OsString>,
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
    /// After the benchmarks, calls `--function` once more and handles its
    /// results as iree-run-module does: checks them against
    /// `--expected_output` (`[FAILED]` report and exit code 1 on a
    /// mismatch), writes them per `--output`, or prints them.
    #[arg(long = "enable_output_processing", num_args = 0..=1, default_missing_value = "true")]
    enable_output_processing: Option<String>,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "output", allow_hyphen_values = true)]
    output: Vec<OsString>,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "output_max_element_count", default_value_t = 1024)]
    output_max_element_count: usize,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "expected_output", allow_hyphen_values = true)]
    expected_output: Vec<OsString>,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "equality_mode", default_value = "approximate")]
    equality_mode: String,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "expected_f16_threshold", allow_hyphen_values = true)]
    expected_f16_threshold: Option<f32>,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "expected_f32_threshold", allow_hyphen_values = true)]
    expected_f32_threshold: Option<f32>,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "expected_f64_threshold", allow_hyphen_values = true)]
    expected_f64_threshold: Option<f64>,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "expected_bf16_threshold", allow_hyphen_values = true)]
    expected_bf16_threshold: Option<f32>,
    /// Used by `--enable_output_processing`, as in iree-run-module.
    #[arg(long = "expected_rtol", allow_hyphen_values = true)]
    expected_rtol: Option<f64>,
    /// Adds a row per dispatched function under each benchmark result: the
    /// time spent in it per iteration (`calls` per iteration, `percent` of
    /// all dispatch time), from an untimed rerun of each measured
    /// repetition under a dispatch profile.
    #[arg(long = "dispatch_statistics", num_args = 0..=1, default_missing_value = "true")]
    dispatch_statistics: Option<String>,
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

    /// Calls the function once more and returns its results (for
    /// `--enable_output_processing`).
    fn call_once(&self, context: &Context) -> Result<Vec<Value>> {
        match &self.invocation {
            Invocation::Sync(inputs) => context.invoke(&self.function, inputs),
            Invocation::Async(inputs) => {
                let signal = Fence::with_new_semaphore();
                let mut args = inputs.clone();
                args.push(Value::from(Ref::new(HalFence(Fence::new()))));
                args.push(Value::from(Ref::new(HalFence(signal.clone()))));
                let results = context.invoke(&self.function, &args)?;
                signal.wait(None)?;
                Ok(results)
            }
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
    /// The capture of `--device_replay_output`, if any.
    recorder: Option<Arc<Recorder>>,
}

/// Loads the modules and picks the benchmarks as upstream does.
fn register(
    flags: &BenchmarkFlags,
    options: &RunOptions,
    unit: Option<TimeUnit>,
) -> Result<Session> {
    let capture = start_capture(options)?;
    let (recorder, recorded_device) = match capture {
        Some(Capture { recorder, device }) => (Some(recorder), Some(device)),
        None => (None, None),
    };
    let LoadedContext {
        context,
        device,
        main,
        main_instance,
    } = load_context(options, recorded_device)?;
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
        recorder,
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
) -> Result<u8> {
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
    let dispatch_device = if is_set(&flags.dispatch_statistics) {
        if profiling.is_some() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "--dispatch_statistics cannot be combined with --device_profiling_mode or --print_device_statistics",
            ));
        }
        session.device.clone()
    } else {
        None
    };
    let recorder = session.recorder.as_ref();
    let benchmarks = session
        .benchmarks
        .iter()
        .map(|benchmark| {
            let device = dispatch_device.clone();
            iree_benchmark::Benchmark {
                name: benchmark.name.clone(),
                time_unit: benchmark.time_unit,
                items_per_iteration: 1,
                // A capture marks each timed call as an `execute` scope.
                iterate: Box::new(move || match recorder {
                    Some(recorder) => {
                        recorder.scope_begin("execute");
                        let result = benchmark.iterate(context, batch_size);
                        recorder.scope_end("execute");
                        result
                    }
                    None => benchmark.iterate(context, batch_size),
                }),
                dispatch_statistics: device.map(
                    |device| -> iree_benchmark::DispatchStatisticsFn<'_> {
                        Box::new(move |iterations| {
                            dispatch_times(device.as_ref(), iterations / batch_size as u64, || {
                                benchmark.iterate(context, batch_size)
                            })
                        })
                    },
                ),
                manual_time: None,
            }
        })
        .collect();
    let failures = run_benchmarks(&settings, benchmarks, batch_size as u64, program)?;
    if let Some(profiling) = profiling {
        profiling.finish()?;
    }
    // As upstream: a failed benchmark is reported in the table and makes
    // the tool fail with its status.
    if let Some(first) = failures.into_iter().next() {
        return Err(first);
    }
    let mut exit_code = 0;
    if is_set(&flags.enable_output_processing) && !flags.function.is_empty() {
        if let Some(benchmark) = session.benchmarks.first() {
            exit_code = process_benchmark_outputs(flags, options, &session, benchmark)?;
        }
    }
    let device = session.device.clone();
    let recorder = session.recorder.clone();
    if let Some(recorder) = &recorder {
        recorder.scope_begin("deinit");
    }
    drop(session);
    if let Some(recorder) = recorder {
        recorder.scope_end("deinit");
        recorder.close()?;
    }
    if options.print_statistics {
        if let Some(device) = device {
            print_device_statistics(&device);
        }
    }
    Ok(exit_code)
}

/// Runs `iterate` `batches` times under a dispatch-only profiling session
/// on `device` and returns the time each dispatched function took
/// (`--dispatch_statistics`).
fn dispatch_times(
    device: &dyn Device,
    batches: u64,
    mut iterate: impl FnMut() -> Result<()>,
) -> Result<Vec<DispatchTime>> {
    device.profiling_begin(ProfilingMode::parse("dispatch-events")?)?;
    let mut result = Ok(());
    for _ in 0..batches.max(1) {
        result = iterate();
        if result.is_err() {
            break;
        }
    }
    let capture = device.profiling_end()?;
    result?;
    Ok(capture
        .dispatch_statistics()
        .into_iter()
        .map(|s| DispatchTime {
            name: s.name,
            calls: s.count,
            total_ns: s.total_ns,
        })
        .collect())
}

/// Whether an optional boolean flag is set (`--flag`, `--flag=true`).
fn is_set(flag: &Option<String>) -> bool {
    flag.as_deref().is_some_and(|v| v != "false" && v != "0")
}

/// `--enable_output_processing`: one more call, its results handled as
/// iree-run-module handles them; returns the exit code.
fn process_benchmark_outputs(
    flags: &BenchmarkFlags,
    options: &RunOptions,
    session: &Session,
    benchmark: &Benchmark,
) -> Result<u8> {
    let defaults = Equality::default();
    let options = RunOptions {
        outputs: flags.output.clone(),
        expected_outputs: flags.expected_output.clone(),
        output_max_element_count: flags.output_max_element_count,
        equality: Equality {
            exact: flags.equality_mode == "exact",
            f16_atol: flags.expected_f16_threshold.unwrap_or(defaults.f16_atol),
            bf16_atol: flags.expected_bf16_threshold.unwrap_or(defaults.bf16_atol),
            f32_atol: flags.expected_f32_threshold.unwrap_or(defaults.f32_atol),
            f64_atol: flags.expected_f64_threshold.unwrap_or(defaults.f64_atol),
            rtol: flags.expected_rtol.unwrap_or(defaults.rtol),
        },
        ..options.clone()
    };
    let results = benchmark.call_once(&session.context)?;
    let result_types = benchmark.function.cconv()?.results;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let code = process_outputs(&result_types, &results, &options, &mut out)?;
    let _ = out.flush();
    Ok(u8::try_from(code).unwrap_or(1))
}

/// Runs `iree-benchmark-module` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
/// Output goes to this process's stdout and stderr; a caller that keeps
/// running afterwards flushes stdout (as the process exit would).
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_tooling::finish_distributed(main_inner(args))
}

/// The tool, without the MPI job's ending on failure.
fn main_inner(args: impl IntoIterator<Item = OsString>) -> u8 {
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
        Ok(code) => code,
        Err(status) => {
            let _ = std::io::stdout().flush();
            eprintln!("{status}");
            1
        }
    }
}
