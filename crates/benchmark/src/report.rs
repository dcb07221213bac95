//! Benchmark reports in Google Benchmark's formats: the console table (with
//! the machine context on stderr) and the JSON document (`context` and
//! `benchmarks`, JSON schema version 1) that existing tooling reads.

use std::fmt::Write;

use iree_base::cformat::{format_e_glibc, format_f_glibc, format_g_glibc};

use crate::context::MachineContext;
use crate::runner::{Run, Statistic};

/// The unit times are reported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Nanoseconds.
    Nanosecond,
    /// Microseconds.
    Microsecond,
    /// Milliseconds.
    Millisecond,
    /// Seconds.
    Second,
}

impl TimeUnit {
    /// Parses `ns`, `us`, `ms` or `s`.
    pub fn parse(text: &str) -> Option<TimeUnit> {
        Some(match text {
            "ns" => TimeUnit::Nanosecond,
            "us" => TimeUnit::Microsecond,
            "ms" => TimeUnit::Millisecond,
            "s" => TimeUnit::Second,
            _ => return None,
        })
    }

    /// The unit's name as reported (`ms`).
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Nanosecond => "ns",
            TimeUnit::Microsecond => "us",
            TimeUnit::Millisecond => "ms",
            TimeUnit::Second => "s",
        }
    }

    /// Units per second.
    fn per_second(self) -> f64 {
        match self {
            TimeUnit::Nanosecond => 1e9,
            TimeUnit::Microsecond => 1e6,
            TimeUnit::Millisecond => 1e3,
            TimeUnit::Second => 1.0,
        }
    }
}

/// All the runs of one benchmark.
#[derive(Clone, Debug)]
pub struct BenchmarkRuns {
    /// The full name (`BM_main/process_time/real_time`).
    pub name: String,
    /// Index of the benchmark among those run.
    pub family_index: usize,
    /// The unit its times are reported in.
    pub time_unit: TimeUnit,
    /// Items one iteration processes (`items_per_second`): 1 for a call,
    /// the workgroups of a dispatch.
    pub items_per_iteration: u64,
    /// One run per repetition finished.
    pub runs: Vec<Run>,
    /// Why the benchmark stopped early, if it did: the message and the
    /// iterations of the failed run.
    pub error: Option<(String, u64)>,
}

/// One reported line: a repetition or an aggregate over them.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Name, with `_<statistic>` for aggregates.
    pub name: String,
    /// The benchmark's name.
    pub run_name: String,
    /// Index of the benchmark among those run.
    pub family_index: usize,
    /// `None` for a repetition, the statistic for an aggregate.
    pub aggregate: Option<Statistic>,
    /// Number of repetitions of the benchmark.
    pub repetitions: usize,
    /// Which repetition (0 for aggregates, where it is not reported).
    pub repetition_index: usize,
    /// Iterations of the repetition, or the repetition count for aggregates.
    pub iterations: u64,
    /// Wall time per iteration in `time_unit` (a fraction for cv).
    pub real_time: f64,
    /// CPU time per iteration in `time_unit` (a fraction for cv).
    pub cpu_time: f64,
    /// The unit of the times.
    pub time_unit: TimeUnit,
    /// Items per second of wall time (a fraction for cv).
    pub items_per_second: f64,
    /// User counters reported instead of `items_per_second` (a dispatch
    /// row's `calls` and `percent`); empty for benchmark rows.
    pub counters: Vec<(&'static str, f64)>,
    /// Why the benchmark stopped (Google Benchmark's `SkipWithError`):
    /// the row then has no times.
    pub error: Option<String>,
}

impl BenchmarkRuns {
    /// The reported rows: every repetition unless `aggregates_only`, then
    /// mean, median, stddev and cv when there is more than one repetition;
    /// or, for a benchmark that failed, the repetitions before the failure
    /// and an error row.
    pub fn rows(&self, aggregates_only: bool) -> Vec<Row> {
        let scale = self.time_unit.per_second();
        let items = self.items_per_iteration as f64;
        let repetitions = self.runs.len() + usize::from(self.error.is_some());
        let base = |name: String| Row {
            name,
            run_name: self.name.clone(),
            family_index: self.family_index,
            aggregate: None,
            repetitions,
            repetition_index: 0,
            iterations: 0,
            real_time: 0.0,
            cpu_time: 0.0,
            time_unit: self.time_unit,
            items_per_second: 0.0,
            counters: Vec::new(),
            error: None,
        };
        let mut rows = Vec::new();
        if !aggregates_only || repetitions < 2 {
            for (i, run) in self.runs.iter().enumerate() {
                rows.push(Row {
                    repetition_index: i,
                    iterations: run.iterations,
                    real_time: run.real_per_iteration() * scale,
                    cpu_time: run.cpu_per_iteration() * scale,
                    items_per_second: run.items_per_second() * items,
                    ..base(self.name.clone())
                });
            }
        }
        if let Some((message, iterations)) = &self.error {
            rows.push(Row {
                repetition_index: self.runs.len(),
                iterations: *iterations,
                error: Some(message.clone()),
                ..base(self.name.clone())
            });
            return rows;
        }
        if repetitions >= 2 {
            let real: Vec<f64> = self.runs.iter().map(Run::real_per_iteration).collect();
            let cpu: Vec<f64> = self.runs.iter().map(Run::cpu_per_iteration).collect();
            let item_rates: Vec<f64> = self
                .runs
                .iter()
                .map(|run| run.items_per_second() * items)
                .collect();
            for statistic in Statistic::ALL {
                let time_scale = if statistic.is_percentage() {
                    1.0
                } else {
                    scale
                };
                rows.push(Row {
                    aggregate: Some(statistic),
                    iterations: repetitions as u64,
                    real_time: statistic.compute(&real) * time_scale,
                    cpu_time: statistic.compute(&cpu) * time_scale,
                    items_per_second: statistic.compute(&item_rates),
                    ..base(format!("{}_{}", self.name, statistic.name()))
                });
            }
        }
        rows
    }
}

/// Time spent in one dispatched function over some benchmark iterations
/// (`--dispatch_statistics`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchTime {
    /// The dispatched function's name.
    pub name: String,
    /// Dispatches of it.
    pub calls: u64,
    /// Their total duration in nanoseconds.
    pub total_ns: u64,
}

/// The name of the row for dispatched function `dispatch` of benchmark
/// `benchmark` (`BM_main/process_time/real_time`): `BM_main/<dispatch>`.
pub fn dispatch_row_name(benchmark: &str, dispatch: &str) -> String {
    let family = benchmark.split('/').next().unwrap_or(benchmark);
    format!("{family}/{dispatch}")
}

impl BenchmarkRuns {
    /// One row per dispatched function (`--dispatch_statistics`), from
    /// `times` gathered over `iterations` iterations (all repetitions):
    /// the time per iteration spent in it, its calls per iteration and its
    /// share of all dispatch time, most time first.
    pub fn dispatch_rows(&self, times: &[DispatchTime], iterations: u64) -> Vec<Row> {
        let scale = self.time_unit.per_second() / 1e9;
        let per_iteration = |v: u64| v as f64 / iterations.max(1) as f64;
        let all_ns: u64 = times.iter().map(|t| t.total_ns).sum();
        let mut times = times.to_vec();
        times.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.name.cmp(&b.name)));
        times
            .iter()
            .map(|t| {
                let name = dispatch_row_name(&self.name, &t.name);
                Row {
                    name: name.clone(),
                    run_name: name,
                    family_index: self.family_index,
                    aggregate: None,
                    repetitions: 1,
                    repetition_index: 0,
                    iterations,
                    real_time: per_iteration(t.total_ns) * scale,
                    cpu_time: per_iteration(t.total_ns) * scale,
                    time_unit: self.time_unit,
                    items_per_second: 0.0,
                    counters: vec![
                        ("calls", per_iteration(t.calls)),
                        (
                            "percent",
                            if all_ns == 0 {
                                100.0 / times.len() as f64
                            } else {
                                100.0 * t.total_ns as f64 / all_ns as f64
                            },
                        ),
                    ],
                    error: None,
                }
            })
            .collect()
    }
}

/// Width of the console's name column for benchmarks named `names`, some
/// of which may get aggregate rows (`_median` is the longest suffix).
pub fn name_column_width<'a>(names: impl Iterator<Item = &'a str>, aggregates: bool) -> usize {
    let width = names.map(str::len).fold(10, usize::max);
    if aggregates {
        width + 1 + "median".len()
    } else {
        width
    }
}

/// The console table header (rule, titles, rule); `counters` when the
/// first row reported has user counters (`items_per_second`), as Google
/// Benchmark decides when it prints the header with its first report.
pub fn console_header(name_width: usize, counters: bool) -> String {
    let mut titles = format!(
        "{:<name_width$} {:>13} {:>15} {:>12}",
        "Benchmark", "Time", "CPU", "Iterations"
    );
    if counters {
        titles.push_str(" UserCounters...");
    }
    let rule = "-".repeat(titles.len());
    format!("{rule}\n{titles}\n{rule}\n")
}

/// A time in the console's 10-character column, with fewer decimals as it
/// grows.
fn console_time(time: f64) -> String {
    if time > 9_999_999_999.0 {
        format_e_glibc(time, 4, false)
    } else {
        let precision = if time < 1.0 {
            3
        } else if time < 10.0 {
            2
        } else if time < 100.0 {
            1
        } else {
            0
        };
        format!("{:>10}", format_f_glibc(time, precision, false))
    }
}

/// A counter value with an SI prefix (`5.25052M`), as Google Benchmark
/// prints counters on the console.
fn human_readable(value: f64) -> String {
    const BIG: [&str; 8] = ["k", "M", "G", "T", "P", "E", "Z", "Y"];
    const SMALL: [&str; 8] = ["m", "u", "n", "p", "f", "a", "z", "y"];
    let sign = if value < 0.0 { "-" } else { "" };
    let v = value.abs();
    let g = |x: f64| format_g_glibc(x, 6, false);
    if v > 1000.0 {
        let mut scaled = v;
        for prefix in BIG {
            scaled /= 1000.0;
            if scaled <= 1000.0 {
                return format!("{sign}{}{prefix}", g(scaled));
            }
        }
    } else if v < 0.01 {
        let mut scaled = v;
        for prefix in SMALL {
            scaled *= 1000.0;
            if scaled >= 1.0 {
                return format!("{sign}{}{prefix}", g(scaled));
            }
        }
    }
    format!("{sign}{}", g(v))
}

/// One console row.
pub fn console_row(row: &Row, name_width: usize) -> String {
    let mut line = format!("{:<name_width$} ", row.name);
    if let Some(error) = &row.error {
        let _ = writeln!(line, "ERROR OCCURRED: '{error}'");
        return line;
    }
    let percentage = row.aggregate.is_some_and(Statistic::is_percentage);
    if percentage {
        let _ = write!(
            line,
            "{:>10} {:<4} {:>10} {:<4} ",
            format_f_glibc(100.0 * row.real_time, 2, false),
            "%",
            format_f_glibc(100.0 * row.cpu_time, 2, false),
            "%"
        );
    } else {
        let unit = row.time_unit.name();
        let _ = write!(
            line,
            "{} {unit:<4} {} {unit:<4} ",
            console_time(row.real_time),
            console_time(row.cpu_time)
        );
    }
    let _ = write!(line, "{:>10}", row.iterations);
    if !row.counters.is_empty() {
        for (name, value) in &row.counters {
            let _ = write!(line, " {name}={}", human_readable(*value));
        }
    } else if percentage {
        let _ = write!(
            line,
            " items_per_second={}%",
            format_f_glibc(100.0 * row.items_per_second, 2, false)
        );
    } else {
        let _ = write!(
            line,
            " items_per_second={}/s",
            human_readable(row.items_per_second)
        );
    }
    line.push('\n');
    line
}

/// The machine context as the console reporter prints it (to stderr).
pub fn console_context(context: &MachineContext) -> String {
    let mut text = format!(
        "{}\nRunning {}\nRun on ({} X {} MHz CPU {})\n",
        context.date,
        context.executable,
        context.num_cpus,
        format_g_glibc(context.cpu_mhz, 6, false),
        if context.num_cpus > 1 { "s" } else { "" }
    );
    if !context.caches.is_empty() {
        text.push_str("CPU Caches:\n");
        for cache in &context.caches {
            let _ = write!(
                text,
                "  L{} {} {} KiB",
                cache.level,
                cache.kind,
                cache.size / 1024
            );
            if let Some(instances) = context.num_cpus.checked_div(cache.num_sharing) {
                let _ = write!(text, " (x{instances})");
            }
            text.push('\n');
        }
    }
    if !context.load_avg.is_empty() {
        let loads: Vec<String> = context
            .load_avg
            .iter()
            .map(|l| format_f_glibc(*l, 2, false))
            .collect();
        let _ = writeln!(text, "Load Average: {}", loads.join(", "));
    }
    if context.cpu_scaling_enabled {
        text.push_str("***WARNING*** CPU scaling is enabled, the benchmark real time measurements may be noisy and will incur extra overhead.\n");
    }
    if context.aslr_enabled {
        text.push_str(
            "***WARNING*** ASLR is enabled, the results may have unreproducible noise in them.\n",
        );
    }
    if context.library_build_type == "debug" {
        text.push_str("***WARNING*** Library was built as DEBUG. Timings may be affected.\n");
    }
    text
}

/// A JSON number as Google Benchmark writes doubles: scientific, 16
/// fraction digits (`4.7407268614759344e-05`); `NaN`/`Infinity` as it does.
fn json_double(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-Infinity" } else { "Infinity" }.to_string();
    }
    format_e_glibc(value, 16, false)
}

/// The whole JSON document for `benchmarks`.
pub fn json_document(context: &MachineContext, rows: &[Row]) -> String {
    let mut out = String::from("{\n  \"context\": {\n");
    let mut fields = vec![
        format!("\"date\": {}", iree_base::json::string(&context.date)),
        format!(
            "\"host_name\": {}",
            iree_base::json::string(&context.host_name)
        ),
        format!(
            "\"executable\": {}",
            iree_base::json::string(&context.executable)
        ),
        format!("\"num_cpus\": {}", context.num_cpus),
        format!("\"mhz_per_cpu\": {}", context.cpu_mhz as i64),
        format!("\"cpu_scaling_enabled\": {}", context.cpu_scaling_enabled),
        format!("\"aslr_enabled\": {}", context.aslr_enabled),
    ];
    let caches: Vec<String> = context
        .caches
        .iter()
        .map(|c| {
            format!(
                "      {{\n        \"type\": {},\n        \"level\": {},\n        \"size\": {},\n        \"num_sharing\": {}\n      }}",
                iree_base::json::string(&c.kind),
                c.level,
                c.size,
                c.num_sharing
            )
        })
        .collect();
    fields.push(format!("\"caches\": [\n{}\n    ]", caches.join(",\n")));
    let loads: Vec<String> = context
        .load_avg
        .iter()
        .map(|l| format_g_glibc(*l, 6, false))
        .collect();
    fields.push(format!("\"load_avg\": [{}]", loads.join(",")));
    fields.push(format!(
        "\"library_version\": {}",
        iree_base::json::string(&context.library_version)
    ));
    fields.push(format!(
        "\"library_build_type\": {}",
        iree_base::json::string(context.library_build_type)
    ));
    fields.push("\"json_schema_version\": 1".to_string());
    out.push_str(&indent_join(&fields, 4));
    out.push_str("\n  },\n  \"benchmarks\": [\n");
    let objects: Vec<String> = rows.iter().map(json_row).collect();
    out.push_str(&objects.join(",\n"));
    if !objects.is_empty() {
        out.push('\n');
    }
    out.push_str("  ]\n}\n");
    out
}

/// `fields` one a line at `indent` spaces, comma separated.
fn indent_join(fields: &[String], indent: usize) -> String {
    fields
        .iter()
        .map(|f| format!("{:indent$}{f}", ""))
        .collect::<Vec<_>>()
        .join(",\n")
}

/// One entry of `benchmarks`.
fn json_row(row: &Row) -> String {
    let mut fields = vec![
        format!("\"name\": {}", iree_base::json::string(&row.name)),
        format!("\"family_index\": {}", row.family_index),
        "\"per_family_instance_index\": 0".to_string(),
        format!("\"run_name\": {}", iree_base::json::string(&row.run_name)),
    ];
    match row.aggregate {
        None => {
            fields.push("\"run_type\": \"iteration\"".to_string());
            fields.push(format!("\"repetitions\": {}", row.repetitions));
            fields.push(format!("\"repetition_index\": {}", row.repetition_index));
            fields.push("\"threads\": 1".to_string());
            if let Some(error) = &row.error {
                fields.push("\"error_occurred\": true".to_string());
                fields.push(format!(
                    "\"error_message\": {}",
                    iree_base::json::string(error)
                ));
            }
        }
        Some(statistic) => {
            fields.push("\"run_type\": \"aggregate\"".to_string());
            fields.push(format!("\"repetitions\": {}", row.repetitions));
            fields.push("\"threads\": 1".to_string());
            fields.push(format!("\"aggregate_name\": \"{}\"", statistic.name()));
            let unit = if statistic.is_percentage() {
                "percentage"
            } else {
                "time"
            };
            fields.push(format!("\"aggregate_unit\": \"{unit}\""));
        }
    }
    fields.push(format!("\"iterations\": {}", row.iterations));
    fields.push(format!("\"real_time\": {}", json_double(row.real_time)));
    fields.push(format!("\"cpu_time\": {}", json_double(row.cpu_time)));
    fields.push(format!("\"time_unit\": \"{}\"", row.time_unit.name()));
    if !row.counters.is_empty() {
        for (name, value) in &row.counters {
            fields.push(format!("\"{name}\": {}", json_double(*value)));
        }
    } else if row.error.is_none() {
        fields.push(format!(
            "\"items_per_second\": {}",
            json_double(row.items_per_second)
        ));
    }
    format!("    {{\n{}\n    }}", indent_join(&fields, 6))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_numbers() {
        assert_eq!(console_time(0.000047), "     0.000");
        assert_eq!(console_time(5.5), "      5.50");
        assert_eq!(console_time(123.4), "       123");
        assert_eq!(human_readable(5_250_520.0), "5.25052M");
        assert_eq!(human_readable(8498.57), "8.49857k");
        assert_eq!(human_readable(12.5), "12.5");
        assert_eq!(human_readable(0.001), "1m");
        assert_eq!(
            json_double(4.7407268614759344e-05),
            "4.7407268614759344e-05"
        );
        assert_eq!(iree_base::json::string("a\"b\\"), "\"a\\\"b\\\\\"");
    }

    #[test]
    fn console_layout_matches_google_benchmark() {
        let row = Row {
            name: "BM_call_add3/process_time/real_time".into(),
            run_name: "BM_call_add3/process_time/real_time".into(),
            family_index: 0,
            aggregate: None,
            repetitions: 1,
            repetition_index: 0,
            iterations: 360983,
            real_time: 0.00019,
            cpu_time: 0.00019,
            time_unit: TimeUnit::Millisecond,
            items_per_second: 5.25052e6,
            counters: Vec::new(),
            error: None,
        };
        let width = name_column_width(std::iter::once(row.name.as_str()), false);
        assert_eq!(
            console_row(&row, width),
            "BM_call_add3/process_time/real_time      0.000 ms        0.000 ms       360983 items_per_second=5.25052M/s\n"
        );
        let header = console_header(width, true);
        assert_eq!(header.lines().next().unwrap().len(), 94);
    }

    #[test]
    fn dispatch_rows_have_calls_and_percent() {
        let runs = BenchmarkRuns {
            name: "BM_mul/process_time/real_time".into(),
            family_index: 0,
            time_unit: TimeUnit::Millisecond,
            items_per_iteration: 1,
            runs: Vec::new(),
            error: None,
        };
        let times = [
            DispatchTime {
                name: "small".into(),
                calls: 40,
                total_ns: 1000,
            },
            DispatchTime {
                name: "big".into(),
                calls: 20,
                total_ns: 3000,
            },
        ];
        let rows = runs.dispatch_rows(&times, 20);
        assert_eq!(rows[0].name, "BM_mul/big");
        assert_eq!(rows[0].counters, vec![("calls", 1.0), ("percent", 75.0)]);
        assert_eq!(rows[1].counters, vec![("calls", 2.0), ("percent", 25.0)]);
        assert!((rows[0].real_time - 150e-6).abs() < 1e-12);
        let width = name_column_width(rows.iter().map(|r| r.name.as_str()), false);
        assert!(console_row(&rows[1], width).ends_with("20 calls=2 percent=25\n"));
    }
}
