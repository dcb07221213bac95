//! Google Benchmark as the IREE benchmark tools use it: its flags
//! ([`GoogleBenchmarkFlags`]), its timing rules ([`runner`]), its console
//! and JSON reports ([`report`]), and [`run_benchmarks`], which runs a list
//! of [`Benchmark`]s with them. `iree-benchmark-module` and
//! `iree-benchmark-executable` differ only in what one iteration does.

pub mod context;
pub mod report;
pub mod runner;

use std::io::Write;

use iree_base::{Result, Status, StatusCode};

use context::MachineContext;
use report::{BenchmarkRuns, Row, TimeUnit};
use runner::{run_benchmark_timed, MinTime};

/// Google Benchmark's flags, spelled as it spells them.
#[derive(clap::Args, Debug)]
pub struct GoogleBenchmarkFlags {
    /// Repetitions of each benchmark; more than one adds mean, median,
    /// stddev and cv rows.
    #[arg(long = "benchmark_repetitions", default_value_t = 1)]
    pub benchmark_repetitions: u32,
    /// Least time per run (`<float>s`) or fixed iterations (`<integer>x`).
    #[arg(long = "benchmark_min_time", default_value = "0.5s")]
    pub benchmark_min_time: String,
    /// `console` or `json` on stdout.
    #[arg(long = "benchmark_format", default_value = "console")]
    pub benchmark_format: String,
    /// Also writes the report to this file.
    #[arg(long = "benchmark_out")]
    pub benchmark_out: Option<String>,
    /// Format of `--benchmark_out`: `json` or `console`.
    #[arg(long = "benchmark_out_format", default_value = "json")]
    pub benchmark_out_format: String,
    /// Regular expression selecting benchmarks by name; a leading `-`
    /// excludes what it matches; empty or `all` selects everything.
    #[arg(
        long = "benchmark_filter",
        default_value = "",
        allow_hyphen_values = true
    )]
    pub benchmark_filter: String,
    /// Lists the selected benchmarks' names and exits.
    #[arg(long = "benchmark_list_tests", num_args = 0..=1, default_missing_value = "true")]
    pub benchmark_list_tests: Option<String>,
    /// Reports only the aggregate rows when repeating.
    #[arg(long = "benchmark_report_aggregates_only", num_args = 0..=1, default_missing_value = "true")]
    pub benchmark_report_aggregates_only: Option<String>,
    /// Displays only the aggregate rows when repeating (files get all).
    #[arg(long = "benchmark_display_aggregates_only", num_args = 0..=1, default_missing_value = "true")]
    pub benchmark_display_aggregates_only: Option<String>,
    /// Accepted for compatibility: there is no warm-up phase.
    #[arg(long = "benchmark_min_warmup_time")]
    pub benchmark_min_warmup_time: Option<f64>,
    /// Accepted for compatibility: benchmarks run in order.
    #[arg(long = "benchmark_enable_random_interleaving", num_args = 0..=1, default_missing_value = "true")]
    pub benchmark_enable_random_interleaving: Option<String>,
    /// Accepted for compatibility: output is never colored.
    #[arg(long = "benchmark_color", num_args = 0..=1, default_missing_value = "true")]
    pub benchmark_color: Option<String>,
    /// Accepted for compatibility.
    #[arg(long = "benchmark_counters_tabular", num_args = 0..=1, default_missing_value = "true")]
    pub benchmark_counters_tabular: Option<String>,
    /// Accepted for compatibility.
    #[arg(long = "benchmark_context")]
    pub benchmark_context: Option<String>,
    /// Accepted for compatibility: each benchmark sets its own unit (as
    /// upstream's do).
    #[arg(long = "benchmark_time_unit")]
    pub benchmark_time_unit: Option<String>,
    /// Runs each benchmark for one iteration only.
    #[arg(long = "benchmark_dry_run", num_args = 0..=1, default_missing_value = "true")]
    pub benchmark_dry_run: Option<String>,
}

/// Whether a boolean flag's value (`--flag`, `--flag=true`, `--flag=0`) is
/// true.
pub fn is_true(value: &Option<String>) -> bool {
    value.as_deref().is_some_and(|v| v != "false" && v != "0")
}

/// One benchmark: a name, how its times are reported, and one iteration
/// batch.
pub struct Benchmark<'a> {
    /// The reported name (`BM_main/process_time/real_time`).
    pub name: String,
    /// The unit its times are reported in.
    pub time_unit: TimeUnit,
    /// Items one iteration processes (`items_per_second`).
    pub items_per_iteration: u64,
    /// Runs one batch of `batch_size` iterations.
    pub iterate: Box<dyn FnMut() -> Result<()> + 'a>,
    /// `--dispatch_statistics`: runs the given number of iterations again,
    /// untimed, and returns the time spent in each dispatched function.
    /// Called once before the table (to size the name column) and once per
    /// measured repetition.
    pub dispatch_statistics: Option<DispatchStatisticsFn<'a>>,
    /// Manual timing (Google Benchmark's `UseManualTime`): each batch adds
    /// the seconds it measured to this cell, and those are the reported
    /// times; `None` times batches by the wall clock.
    pub manual_time: Option<&'a std::cell::Cell<f64>>,
}

/// See [`Benchmark::dispatch_statistics`].
pub type DispatchStatisticsFn<'a> = Box<dyn FnMut(u64) -> Result<Vec<report::DispatchTime>> + 'a>;

/// [`GoogleBenchmarkFlags`] checked and parsed, from
/// [`GoogleBenchmarkFlags::validate`]: what [`run_benchmarks`] runs with.
pub struct Settings<'f> {
    flags: &'f GoogleBenchmarkFlags,
    json: bool,
    out_json: bool,
    min_time: MinTime,
    filter: regex::Regex,
    exclude: bool,
}

impl GoogleBenchmarkFlags {
    /// Checks and parses the flags (before a tool's expensive set-up, so
    /// that bad flags are refused first).
    pub fn validate(&self) -> Result<Settings<'_>> {
        let flags = self;
        let format = |name: &str, value: &str| match value {
            "console" => Ok(false),
            "json" => Ok(true),
            other => Err(Status::new(
                StatusCode::InvalidArgument,
                format!("unsupported --{name} '{other}'; expected console or json"),
            )),
        };
        let min_time = if is_true(&flags.benchmark_dry_run) {
            MinTime::Iterations(1)
        } else {
            MinTime::parse(&flags.benchmark_min_time)?
        };
        let (filter, exclude) = benchmark_filter(&flags.benchmark_filter)?;
        Ok(Settings {
            flags,
            json: format("benchmark_format", &flags.benchmark_format)?,
            out_json: format("benchmark_out_format", &flags.benchmark_out_format)?,
            min_time,
            filter,
            exclude,
        })
    }
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

/// Runs the benchmarks `settings` select, each iteration batch standing for
/// `batch_size` iterations, and reports as Google Benchmark does: the
/// console table on stdout (machine context on stderr) or the JSON
/// document, plus `--benchmark_out`. A benchmark whose iteration fails
/// stops and is reported with an error row (`ERROR OCCURRED: '...'`); the
/// others still run. Returns those failures; an `Err` is a failure to
/// report (unwritable output). `executable` is the tool's program name (its
/// `argv[0]`), reported in the machine context.
pub fn run_benchmarks(
    settings: &Settings<'_>,
    benchmarks: Vec<Benchmark<'_>>,
    batch_size: u64,
    executable: &str,
) -> Result<Vec<Status>> {
    let flags = settings.flags;
    let mut selected: Vec<Benchmark<'_>> = benchmarks
        .into_iter()
        .filter(|b| settings.filter.is_match(&b.name) != settings.exclude)
        .collect();
    let mut stdout = std::io::stdout().lock();
    let write_error =
        |e: std::io::Error| Status::new(StatusCode::Unavailable, format!("writing output: {e}"));
    let out_error = |path: &str, e: std::io::Error| {
        Status::new(
            StatusCode::Unavailable,
            format!("writing --benchmark_out '{path}': {e}"),
        )
    };
    // As Google Benchmark, `--benchmark_out` is created before anything
    // runs: it exists (empty) even when no benchmark is selected.
    let mut out_file = match &flags.benchmark_out {
        Some(path) => Some((
            path,
            std::fs::File::create(path).map_err(|e| out_error(path, e))?,
        )),
        None => None,
    };
    if is_true(&flags.benchmark_list_tests) {
        for benchmark in &selected {
            writeln!(stdout, "{}", benchmark.name).map_err(write_error)?;
        }
        return Ok(Vec::new());
    }
    if selected.is_empty() {
        eprintln!(
            "Failed to match any benchmarks against regex: {}",
            flags.benchmark_filter
        );
        return Ok(Vec::new());
    }
    let machine = MachineContext::collect(executable);
    let repetitions = flags.benchmark_repetitions.max(1);
    // Dispatch rows take part in the name column (they get no aggregate
    // rows): one untimed iteration names the dispatched functions.
    let mut dispatch_names: Vec<String> = Vec::new();
    for benchmark in &mut selected {
        if let Some(dispatches) = &mut benchmark.dispatch_statistics {
            if let Ok(times) = dispatches(batch_size) {
                dispatch_names.extend(
                    times
                        .iter()
                        .map(|t| report::dispatch_row_name(&benchmark.name, &t.name)),
                );
            }
        }
    }
    let name_width =
        report::name_column_width(selected.iter().map(|b| b.name.as_str()), repetitions > 1).max(
            report::name_column_width(dispatch_names.iter().map(String::as_str), false),
        );
    if !settings.json {
        eprint!("{}", report::console_context(&machine));
    }
    let report_aggregates_only = is_true(&flags.benchmark_report_aggregates_only);
    let display_aggregates_only =
        report_aggregates_only || is_true(&flags.benchmark_display_aggregates_only);
    let mut all_rows: Vec<Row> = Vec::new();
    let mut file_console = String::new();
    let mut failures = Vec::new();
    for (family_index, benchmark) in selected.iter_mut().enumerate() {
        let (runs, failure) = run_benchmark_timed(
            settings.min_time,
            repetitions,
            batch_size,
            &mut benchmark.iterate,
            benchmark.manual_time,
        );
        let error = failure.map(|failure| {
            let row = (
                failure.status.to_string_without_annotations(),
                failure.iterations,
            );
            let name = &benchmark.name;
            failures.push(
                failure
                    .status
                    .annotate(format!("running benchmark '{name}'")),
            );
            row
        });
        let results = BenchmarkRuns {
            name: benchmark.name.clone(),
            family_index,
            time_unit: benchmark.time_unit,
            items_per_iteration: benchmark.items_per_iteration,
            runs,
            error,
        };
        if family_index == 0 {
            let counters = results.error.is_none();
            file_console = report::console_header(name_width, counters);
            if !settings.json {
                write!(stdout, "{file_console}").map_err(write_error)?;
            }
        }
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
        if let (Some(dispatches), None) = (&mut benchmark.dispatch_statistics, &results.error) {
            let mut times: Vec<report::DispatchTime> = Vec::new();
            let mut iterations = 0;
            for run in &results.runs {
                match dispatches(run.iterations) {
                    Ok(pass) => {
                        iterations += run.iterations;
                        for t in pass {
                            match times.iter_mut().find(|s| s.name == t.name) {
                                Some(s) => {
                                    s.calls += t.calls;
                                    s.total_ns += t.total_ns;
                                }
                                None => times.push(t),
                            }
                        }
                    }
                    Err(status) => {
                        eprintln!(
                            "warning: no dispatch statistics for {}: {status}",
                            benchmark.name
                        );
                        iterations = 0;
                        break;
                    }
                }
            }
            if iterations > 0 {
                for row in results.dispatch_rows(&times, iterations) {
                    let line = report::console_row(&row, name_width);
                    if !settings.json {
                        write!(stdout, "{line}").map_err(write_error)?;
                    }
                    file_console.push_str(&line);
                    all_rows.push(row);
                }
                stdout.flush().map_err(write_error)?;
            }
        }
    }
    if settings.json {
        write!(stdout, "{}", report::json_document(&machine, &all_rows)).map_err(write_error)?;
        stdout.flush().map_err(write_error)?;
    }
    if let Some((path, file)) = &mut out_file {
        let text = if settings.out_json {
            report::json_document(&machine, &all_rows)
        } else {
            file_console
        };
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| out_error(path, e))?;
    }
    Ok(failures)
}
