//! `iree-benchmark-module`: times exported functions of an IREE module with
//! upstream's flags (every `iree-run-module` flag plus Google Benchmark's)
//! and reports in Google Benchmark's console or JSON format, benchmarks
//! named `BM_<function>/process_time/real_time` as upstream names them.

mod context;
mod report;
mod runner;

use std::io::Write;
use std::process::ExitCode;
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

use context::MachineContext;
use report::{BenchmarkRuns, Row, TimeUnit};
use runner::{run_benchmark, MinTime};

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
    /// Repetitions of each benchmark; more than one adds mean, median,
    /// stddev and cv rows.
    #[arg(long = "benchmark_repetitions", default_value_t = 1)]
    benchmark_repetitions: u32,
    /// Least time per run (`<float>s`) or fixed iterations (`<integer>x`).
    #[arg(long = "benchmark_min_time", default_value = "0.5s")]
    benchmark_min_time: String,
    /// `console` or `json` on stdout.
    #[arg(long = "benchmark_format", default_value = "console")]
    benchmark_format: String,
    /// Also writes the report to this file.
    #[arg(long = "benchmark_out")]
    benchmark_out: Option<String>,
    /// Format of `--benchmark_out`: `json` or `console`.
    #[arg(long = "benchmark_out_format", default_value = "json")]
    benchmark_out_format: String,
    /// Regular expression selecting benchmarks by name; a leading `-`
    /// excludes what it matches; empty or `all` selects everything.
    #[arg(
        long = "benchmark_filter",
        default_value = "",
        allow_hyphen_values = true
    )]
    benchmark_filter: String,
    /// Lists the selected benchmarks' names and exits.
    #[arg(long = "benchmark_list_tests", num_args = 0..=1, default_missing_value = "true")]
    benchmark_list_tests: Option<String>,
    /// Reports only the aggregate rows when repeating.
    #[arg(long = "benchmark_report_aggregates_only", num_args = 0..=1, default_missing_value = "true")]
    benchmark_report_aggregates_only: Option<String>,
    /// Displays only the aggregate rows when repeating (files get all).
    #[arg(long = "benchmark_display_aggregates_only", num_args = 0..=1, default_missing_value = "true")]
    benchmark_display_aggregates_only: Option<String>,
    /// Accepted for compatibility: there is no warm-up phase.
    #[arg(long = "benchmark_min_warmup_time")]
    benchmark_min_warmup_time: Option<f64>,
    /// Accepted for compatibility: benchmarks run in order.
    #[arg(long = "benchmark_enable_random_interleaving", num_args = 0..=1, default_missing_value = "true")]
    benchmark_enable_random_interleaving: Option<String>,
    /// Accepted for compatibility: output is never colored.
    #[arg(long = "benchmark_color", num_args = 0..=1, default_missing_value = "true")]
    benchmark_color: Option<String>,
    /// Accepted for compatibility.
    #[arg(long = "benchmark_counters_tabular", num_args = 0..=1, default_missing_value = "true")]
    benchmark_counters_tabular: Option<String>,
    /// Accepted for compatibility.
    #[arg(long = "benchmark_context")]
    benchmark_context: Option<String>,
    /// Accepted for compatibility: each benchmark sets its own unit (as
    /// upstream's do); use `--time_unit`.
    #[arg(long = "benchmark_time_unit")]
    benchmark_time_unit: Option<String>,
    /// Runs each benchmark for one iteration only.
    #[arg(long = "benchmark_dry_run", num_args = 0..=1, default_missing_value = "true")]
    benchmark_dry_run: Option<String>,
}

/// Whether a boolean flag's value is true.
fn is_true(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|v| v != "false" && v != "0")
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

/// The `--benchmark_filter` selection: (regex, whether matches are excluded).
fn benchmark_filter(spec: &str) -> Result<(regex::Regex, bool)> {
    let (negate, pattern) = match spec.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, spec),
    };
    let pattern = if pattern.is_empty() || pattern == "all" {
        "."
    } else {
        pattern
    };
    let regex = regex::Regex::new(pattern).map_err(|e| {
        Status::new(
            StatusCode::InvalidArgument,
            format!(
                "invalid --benchmark_filter regex '{spec}': {}",
                e.to_string().replace('\n', " ")
            ),
        )
    })?;
    Ok((regex, negate))
}

/// Validated report settings.
struct ReportOptions {
    json: bool,
    out_json: bool,
    min_time: MinTime,
    unit: Option<TimeUnit>,
}

fn report_options(flags: &BenchmarkFlags) -> Result<ReportOptions> {
    let format = |name: &str, value: &str| match value {
        "console" => Ok(false),
        "json" => Ok(true),
        other => Err(Status::new(
            StatusCode::InvalidArgument,
            format!("unsupported --{name} '{other}'; expected console or json"),
        )),
    };
    let unit = match &flags.time_unit {
        None => None,
        Some(text) => Some(
            TimeUnit::parse(text)
                .filter(|u| *u != TimeUnit::Second)
                .ok_or_else(|| {
                    Status::new(
                        StatusCode::InvalidArgument,
                        format!("unsupported time unit '{text}'; expected ms, us or ns"),
                    )
                })?,
        ),
    };
    if flags.batch_size < 1 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!("--batch_size must be positive (got {})", flags.batch_size),
        ));
    }
    let min_time = if is_true(&flags.benchmark_dry_run) {
        MinTime::Iterations(1)
    } else {
        MinTime::parse(&flags.benchmark_min_time)?
    };
    Ok(ReportOptions {
        json: format("benchmark_format", &flags.benchmark_format)?,
        out_json: format("benchmark_out_format", &flags.benchmark_out_format)?,
        min_time,
        unit,
    })
}

fn run(flags: &BenchmarkFlags, options: &RunOptions) -> Result<()> {
    let settings = report_options(flags)?;
    let session = register(flags, options, settings.unit)?;
    let (filter, negate) = benchmark_filter(&flags.benchmark_filter)?;
    let selected: Vec<&Benchmark> = session
        .benchmarks
        .iter()
        .filter(|b| filter.is_match(&b.name) != negate)
        .collect();
    let mut stdout = std::io::stdout().lock();
    let write_error =
        |e: std::io::Error| Status::new(StatusCode::Unavailable, format!("writing output: {e}"));
    if is_true(&flags.benchmark_list_tests) {
        for benchmark in &selected {
            writeln!(stdout, "{}", benchmark.name).map_err(write_error)?;
        }
        return Ok(());
    }
    if selected.is_empty() {
        eprintln!(
            "Failed to match any benchmarks against regex: {}",
            flags.benchmark_filter
        );
        return Ok(());
    }
    let executable = std::env::args().next().unwrap_or_default();
    let machine = MachineContext::collect(&executable);
    let repetitions = flags.benchmark_repetitions.max(1);
    let name_width =
        report::name_column_width(selected.iter().map(|b| b.name.as_str()), repetitions > 1);
    if !settings.json {
        eprint!("{}", report::console_context(&machine));
        write!(stdout, "{}", report::console_header(name_width)).map_err(write_error)?;
        stdout.flush().map_err(write_error)?;
    }
    let report_aggregates_only = is_true(&flags.benchmark_report_aggregates_only);
    let display_aggregates_only =
        report_aggregates_only || is_true(&flags.benchmark_display_aggregates_only);
    let batch_size = flags.batch_size as usize;
    let mut all_rows: Vec<Row> = Vec::new();
    let mut file_console = report::console_header(name_width);
    for (family_index, benchmark) in selected.iter().enumerate() {
        let runs = run_benchmark(
            settings.min_time,
            repetitions,
            batch_size as u64,
            &mut || benchmark.iterate(&session.context, batch_size),
        )
        .annotate_with(|| format!("running benchmark '{}'", benchmark.name))?;
        let results = BenchmarkRuns {
            name: benchmark.name.clone(),
            family_index,
            time_unit: benchmark.time_unit,
            runs,
        };
        if !settings.json {
            for row in results.rows(display_aggregates_only) {
                write!(stdout, "{}", report::console_row(&row, name_width)).map_err(write_error)?;
            }
            stdout.flush().map_err(write_error)?;
        }
        for row in results.rows(report_aggregates_only) {
            file_console.push_str(&report::console_row(&row, name_width));
            all_rows.push(row);
        }
    }
    if settings.json {
        write!(stdout, "{}", report::json_document(&machine, &all_rows)).map_err(write_error)?;
        stdout.flush().map_err(write_error)?;
    }
    if let Some(path) = &flags.benchmark_out {
        let text = if settings.out_json {
            report::json_document(&machine, &all_rows)
        } else {
            file_console
        };
        std::fs::write(path, text).map_err(|e| {
            Status::new(
                StatusCode::Unavailable,
                format!("writing --benchmark_out '{path}': {e}"),
            )
        })?;
    }
    let device = session.device.clone();
    drop(session);
    if options.print_statistics {
        if let Some(device) = device {
            print_device_statistics(&device);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let flags: Flags = match parse_args() {
        Ok(flags) => flags,
        Err(code) => return ExitCode::from(code),
    };
    let Flags { common, benchmark } = flags;
    let options = match common.into_run_options() {
        Ok(options) => options,
        Err(code) => return ExitCode::from(code),
    };
    match run(&benchmark, &options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(status) => {
            let _ = std::io::stdout().flush();
            eprintln!("{status}");
            ExitCode::FAILURE
        }
    }
}
