//! Timing loops with Google Benchmark's rules: the iteration count grows
//! until a run lasts `--benchmark_min_time`, later repetitions reuse it, and
//! repetitions are summarized as mean, median, stddev and cv.

use std::cell::Cell;
use std::time::{Duration, Instant};

use iree_base::{Result, Status, StatusCode};

/// Most iterations one run may have (Google Benchmark's limit).
const MAX_ITERATIONS: u64 = 1_000_000_000;

/// How long (or how many iterations) each run lasts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MinTime {
    /// Grow the iteration count until a run takes at least this long.
    Seconds(f64),
    /// Run exactly this many iterations.
    Iterations(u64),
}

impl MinTime {
    /// Parses `--benchmark_min_time`: `<float>s`, `<integer>x`, or a bare
    /// float (seconds, the old form).
    pub fn parse(text: &str) -> Result<MinTime> {
        let bad = || {
            Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "invalid --benchmark_min_time '{text}'; expected `<float>s` or `<integer>x`"
                ),
            )
        };
        if let Some(count) = text.strip_suffix('x') {
            let count: u64 = count.parse().map_err(|_| bad())?;
            if count == 0 {
                return Err(bad());
            }
            return Ok(MinTime::Iterations(count));
        }
        let seconds: f64 = text
            .strip_suffix('s')
            .unwrap_or(text)
            .parse()
            .map_err(|_| bad())?;
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(bad());
        }
        Ok(MinTime::Seconds(seconds))
    }
}

/// One timed run: `iterations` iterations took `real` wall time and `cpu`
/// process CPU time (all threads).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// Iterations counted (a multiple of the batch size).
    pub iterations: u64,
    /// Wall time of the whole run, in seconds.
    pub real: f64,
    /// CPU time of the whole process during the run, in seconds.
    pub cpu: f64,
}

impl Run {
    /// Wall time per iteration, in seconds.
    pub fn real_per_iteration(&self) -> f64 {
        self.real / self.iterations as f64
    }

    /// CPU time per iteration, in seconds.
    pub fn cpu_per_iteration(&self) -> f64 {
        self.cpu / self.iterations as f64
    }

    /// Iterations per second of wall time.
    pub fn items_per_second(&self) -> f64 {
        self.iterations as f64 / self.real
    }
}

/// CPU time used by the whole process so far.
fn process_cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(
        t.tv_sec.max(0) as u64,
        t.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Runs at least `iterations` iterations, calling `body` once per
/// `batch_size` of them (Google Benchmark's `KeepRunningBatch`).
/// With `manual`, the run's time is what the body added to it (seconds;
/// Google Benchmark's `SetIterationTime`), not the wall time.
fn timed_run(
    iterations: u64,
    batch_size: u64,
    body: &mut dyn FnMut() -> Result<()>,
    manual: Option<&Cell<f64>>,
) -> Result<Run> {
    if let Some(manual) = manual {
        manual.set(0.0);
    }
    let cpu_start = process_cpu_time();
    let real_start = Instant::now();
    let mut done = 0u64;
    while done < iterations {
        body()?;
        done += batch_size;
    }
    let real = match manual {
        Some(manual) => manual.get(),
        None => real_start.elapsed().as_secs_f64(),
    };
    let cpu = process_cpu_time().saturating_sub(cpu_start).as_secs_f64();
    Ok(Run {
        iterations: done,
        real,
        cpu,
    })
}

/// Why a benchmark stopped: the error and the iterations the failed run
/// was asked for.
#[derive(Debug)]
pub struct Failure {
    /// The error.
    pub status: Status,
    /// Iterations of the run that failed.
    pub iterations: u64,
}

/// Runs one benchmark `repetitions` times: the first repetition finds the
/// iteration count as Google Benchmark does (starting at 1 and growing by
/// up to 10x until a run lasts `min_time`), the others reuse it. An error
/// stops the benchmark; the runs finished before it are returned with it.
pub fn run_benchmark(
    min_time: MinTime,
    repetitions: u32,
    batch_size: u64,
    body: &mut dyn FnMut() -> Result<()>,
) -> (Vec<Run>, Option<Failure>) {
    run_benchmark_timed(min_time, repetitions, batch_size, body, None)
}

/// [`run_benchmark`], timing each run by what the body adds to `manual`
/// (seconds) when given, instead of by the wall clock.
pub fn run_benchmark_timed(
    min_time: MinTime,
    repetitions: u32,
    batch_size: u64,
    body: &mut dyn FnMut() -> Result<()>,
    manual: Option<&Cell<f64>>,
) -> (Vec<Run>, Option<Failure>) {
    let mut runs = Vec::new();
    let failure = run_into(min_time, repetitions, batch_size, body, manual, &mut runs).err();
    (runs, failure)
}

fn run_into(
    min_time: MinTime,
    repetitions: u32,
    batch_size: u64,
    body: &mut dyn FnMut() -> Result<()>,
    manual: Option<&Cell<f64>>,
    runs: &mut Vec<Run>,
) -> Result<(), Failure> {
    let batch_size = batch_size.max(1);
    let mut iterations = match min_time {
        MinTime::Iterations(n) => n,
        MinTime::Seconds(_) => 1,
    };
    let timed = |iterations: u64, body: &mut dyn FnMut() -> Result<()>| {
        timed_run(iterations, batch_size, body, manual)
            .map_err(|status| Failure { status, iterations })
    };
    loop {
        let run = timed(iterations, body)?;
        let MinTime::Seconds(min_seconds) = min_time else {
            runs.push(run);
            break;
        };
        if run.real >= min_seconds || iterations >= MAX_ITERATIONS || run.real >= 5.0 * min_seconds
        {
            runs.push(run);
            break;
        }
        let seconds = run.real.max(1e-9);
        let multiplier = if seconds / min_seconds > 0.1 {
            min_seconds * 1.4 / seconds
        } else {
            10.0
        };
        let next = (multiplier * iterations as f64).max(iterations as f64 + 1.0);
        iterations = (next as u64).min(MAX_ITERATIONS);
    }
    for _ in 1..repetitions.max(1) {
        runs.push(timed(iterations, body)?);
    }
    Ok(())
}

/// The statistics Google Benchmark reports over repetitions, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistic {
    /// Arithmetic mean.
    Mean,
    /// Median (mean of the middle two for an even count).
    Median,
    /// Sample standard deviation.
    Stddev,
    /// Coefficient of variation (stddev / mean), a fraction.
    Cv,
}

impl Statistic {
    /// All four, in reporting order.
    pub const ALL: [Statistic; 4] = [
        Statistic::Mean,
        Statistic::Median,
        Statistic::Stddev,
        Statistic::Cv,
    ];

    /// The name suffix and `aggregate_name` (`mean`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Statistic::Mean => "mean",
            Statistic::Median => "median",
            Statistic::Stddev => "stddev",
            Statistic::Cv => "cv",
        }
    }

    /// Whether the value is a fraction (reported as a percentage) rather
    /// than a time.
    pub fn is_percentage(self) -> bool {
        self == Statistic::Cv
    }

    /// The statistic of `values`.
    pub fn compute(self, values: &[f64]) -> f64 {
        let n = values.len() as f64;
        if values.is_empty() {
            return 0.0;
        }
        let mean = values.iter().sum::<f64>() / n;
        let stddev = || {
            if values.len() < 2 {
                return 0.0;
            }
            let squares = values.iter().map(|v| v * v).sum::<f64>() / n;
            (n / (n - 1.0) * (squares - mean * mean)).max(0.0).sqrt()
        };
        match self {
            Statistic::Mean => mean,
            Statistic::Median => {
                let mut sorted = values.to_vec();
                sorted.sort_by(f64::total_cmp);
                let mid = sorted.len() / 2;
                if sorted.len() % 2 == 1 {
                    sorted[mid]
                } else {
                    (sorted[mid - 1] + sorted[mid]) / 2.0
                }
            }
            Statistic::Stddev => stddev(),
            Statistic::Cv => {
                if values.len() < 2 {
                    0.0
                } else {
                    stddev() / mean
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_time_forms() {
        assert_eq!(MinTime::parse("0.5s").unwrap(), MinTime::Seconds(0.5));
        assert_eq!(MinTime::parse("2").unwrap(), MinTime::Seconds(2.0));
        assert_eq!(MinTime::parse("100x").unwrap(), MinTime::Iterations(100));
        assert!(MinTime::parse("x").is_err());
        assert!(MinTime::parse("-1s").is_err());
        assert!(MinTime::parse("0x").is_err());
    }

    #[test]
    fn fixed_iterations_in_batches() {
        let mut calls = 0;
        let (runs, failure) = run_benchmark(MinTime::Iterations(10), 3, 4, &mut || {
            calls += 1;
            Ok(())
        });
        assert!(failure.is_none());
        assert_eq!(runs.len(), 3);
        assert!(runs.iter().all(|r| r.iterations == 12));
        assert_eq!(calls, 9);
    }

    #[test]
    fn grows_until_min_time() {
        // A minimum time 2000 times the body's: one iteration alone would
        // have to stall for 0.1 s to fill it (a 10 ms minimum was filled
        // by one stalled iteration on a busy host).
        let (runs, failure) = run_benchmark(MinTime::Seconds(0.1), 1, 1, &mut || {
            std::thread::sleep(Duration::from_micros(50));
            Ok(())
        });
        assert!(failure.is_none());
        assert_eq!(runs.len(), 1);
        assert!(runs[0].real >= 0.1 && runs[0].iterations > 1);
    }

    #[test]
    fn statistics() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(Statistic::Mean.compute(&v), 2.5);
        assert_eq!(Statistic::Median.compute(&v), 2.5);
        let sd = Statistic::Stddev.compute(&v);
        assert!((sd - 1.2909944487358056).abs() < 1e-12);
        assert!((Statistic::Cv.compute(&v) - sd / 2.5).abs() < 1e-12);
        assert_eq!(Statistic::Stddev.compute(&[1.0]), 0.0);
    }

    #[test]
    fn errors_stop_the_run() {
        let mut calls = 0;
        let (runs, failure) = run_benchmark(MinTime::Iterations(5), 3, 1, &mut || {
            calls += 1;
            if calls == 7 {
                return Err(Status::new(StatusCode::Internal, "boom"));
            }
            Ok(())
        });
        assert_eq!(runs.len(), 1);
        let failure = failure.unwrap();
        assert_eq!(failure.status.code(), StatusCode::Internal);
        assert_eq!(failure.iterations, 5);
    }
}
