//! `cargo xtask bench-collectives`: all_reduce through our
//! `iree-benchmark-module` against `MPI_Allreduce` called directly, 2 ranks
//! under `mpirun`, on Open MPI's shared-memory transport and on TCP
//! (`--mca btl tcp,self`).
//!
//! Ours runs `testdata/collectives/all_reduce_bench.vmfb` (one f32 sum
//! export per size, 4 KiB to 64 MiB) with a fixed iteration count
//! (`--benchmark_min_time=<N>x`, so both ranks make the same number of
//! calls) and reports the time per call that the tool measures; the raw
//! side is `xtask/experiments/allreduce_raw.c`, built with `mpicc` under the
//! target directory, timing the same number of `MPI_Allreduce` calls on
//! separate send and receive buffers. Neither includes process start-up.
//! For each transport and size the two alternate `--runs` times (which one
//! goes first alternates too); the table gives the median per-call time of
//! each (the slower rank of each run), the ratio ours/raw of the medians and
//! that of the fastest runs (on a shared 2-core VM the medians move by tens
//! of percent from one invocation to the next; the fastest runs less).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::tools::median;
use crate::{conformance, proc, Result};

/// The sizes benchmarked: the export suffix and the byte count.
const SIZES: [(&str, usize); 8] = [
    ("4k", 4 << 10),
    ("16k", 16 << 10),
    ("64k", 64 << 10),
    ("256k", 256 << 10),
    ("1m", 1 << 20),
    ("4m", 4 << 20),
    ("16m", 16 << 20),
    ("64m", 64 << 20),
];

/// The transports: a name and the extra `mpirun` arguments.
const TRANSPORTS: [(&str, &[&str]); 2] = [
    ("shared memory", &[]),
    ("tcp", &["--mca", "btl", "tcp,self"]),
];

/// Each run moves about this many bytes per rank (iterations = this / size,
/// clamped to [`MIN_ITERATIONS`, `MAX_ITERATIONS`]).
const BYTES_PER_RUN: usize = 512 << 20;
const MIN_ITERATIONS: usize = 10;
const MAX_ITERATIONS: usize = 5000;

/// How long one `mpirun` may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

struct Options {
    runs: usize,
    device: String,
    transport: Option<String>,
    sizes: Option<Vec<String>>,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options {
        runs: 5,
        device: "local-sync".into(),
        transport: None,
        sizes: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |what: &str| it.next().cloned().ok_or(format!("{a} needs {what}"));
        match a.as_str() {
            "--runs" => {
                o.runs = value("a number")?
                    .parse()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a positive number")?
            }
            "--device" => o.device = value("a device")?,
            "--transport" => {
                let t = value("shm or tcp")?;
                if t != "shm" && t != "tcp" {
                    return Err(format!("--transport must be shm or tcp, not `{t}`"));
                }
                o.transport = Some(t);
            }
            "--sizes" => {
                let list: Vec<String> = value("a list")?.split(',').map(str::to_string).collect();
                for s in &list {
                    if !SIZES.iter().any(|(n, _)| n == s) {
                        return Err(format!("unknown size `{s}` (4k,16k,...,64m)"));
                    }
                }
                o.sizes = Some(list);
            }
            other => return Err(format!("unknown bench-collectives option `{other}`")),
        }
    }
    Ok(o)
}

/// The iteration count of one run at `bytes` per all_reduce.
fn iterations(bytes: usize) -> usize {
    (BYTES_PER_RUN / bytes).clamp(MIN_ITERATIONS, MAX_ITERATIONS)
}

pub fn run(args: &[String]) -> Result<bool> {
    let o = parse(args)?;
    if Command::new("mpirun").arg("--version").output().is_err() {
        return Err("mpirun not found: install Open MPI (openmpi-bin libopenmpi-dev)".into());
    }
    // Open MPI refuses root unless told.
    for var in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] {
        if std::env::var_os(var).is_none() {
            std::env::set_var(var, "1");
        }
    }
    let root = crate::repo_root();
    let ours = conformance::build_release_tool(&root, "iree-benchmark-module")?;
    let raw = build_raw(&root)?;
    let dir = root.join("testdata").join("collectives");
    let mpirun = PathBuf::from("mpirun");

    let mut failed = false;
    let mut rows = Vec::new();
    for (transport, extra) in TRANSPORTS {
        let short = if extra.is_empty() { "shm" } else { "tcp" };
        if o.transport.as_deref().is_some_and(|t| t != short) {
            continue;
        }
        for (name, bytes) in SIZES {
            if o.sizes
                .as_ref()
                .is_some_and(|s| !s.iter().any(|n| n == name))
            {
                continue;
            }
            let n = iterations(bytes);
            let mut base: Vec<String> = ["-n", "2", "--oversubscribe", "--tag-output"]
                .iter()
                .chain(extra.iter())
                .map(|s| s.to_string())
                .collect();
            let mut ours_args = base.clone();
            ours_args.extend([
                ours.display().to_string(),
                format!("--device={}", o.device),
                "--module=all_reduce_bench.vmfb".into(),
                format!("--function=all_reduce_{name}"),
                format!("--input={}xf32=1", bytes / 4),
                format!("--benchmark_min_time={n}x"),
                // The first repetition pays for MPI_Init, the channel's
                // communicator and first-touch of the output; the second is
                // the one timed (the raw side makes one untimed call).
                "--benchmark_repetitions=2".into(),
            ]);
            base.extend([raw.display().to_string(), bytes.to_string(), n.to_string()]);
            let raw_args = base;
            let (mut ours_ns, mut raw_ns) = (Vec::new(), Vec::new());
            for r in 0..o.runs {
                for first in [r % 2 == 0, r % 2 != 0] {
                    let (args, parse, into) = if first {
                        (&ours_args, parse_ours as fn(&str) -> Vec<f64>, &mut ours_ns)
                    } else {
                        (&raw_args, parse_raw as fn(&str) -> Vec<f64>, &mut raw_ns)
                    };
                    let out = proc::run(&mpirun, args, &dir, RUN_TIMEOUT)?;
                    let times = parse(&out.stdout);
                    if out.exit_code != 0 || times.len() != 2 {
                        eprintln!(
                            "{transport} {name}: mpirun {} failed ({}):\n{}{}",
                            args.join(" "),
                            out.exit_code,
                            out.stdout,
                            out.stderr
                        );
                        failed = true;
                        continue;
                    }
                    // The slower rank: the collective ends when both have.
                    into.push(times.iter().cloned().fold(0.0, f64::max));
                }
            }
            if ours_ns.is_empty() || raw_ns.is_empty() {
                continue;
            }
            let (a, b) = (median(&mut ours_ns), median(&mut raw_ns));
            // Sorted by `median`: the fastest runs, least disturbed by
            // whatever else the machine was doing.
            let (a_min, b_min) = (ours_ns[0], raw_ns[0]);
            eprintln!(
                "{transport:>13} {name:>4}: ours {} raw {} ({:.3}x, {n} calls x {} runs)",
                show(a),
                show(b),
                a / b,
                o.runs
            );
            rows.push((transport, bytes, a, b, a_min / b_min));
        }
    }
    println!();
    println!(
        "all_reduce f32 sum, 2 ranks, {} (median of {} alternating runs; per call)",
        o.device, o.runs
    );
    println!("| transport     |     size |        ours |  raw MPI |  ours/raw | best/best |");
    println!("|---------------|---------:|------------:|---------:|----------:|----------:|");
    for (transport, bytes, a, b, best) in rows {
        println!(
            "| {transport:<13} | {:>8} | {:>11} | {:>8} | {:>9.3} | {best:>9.3} |",
            show_bytes(bytes),
            show(a),
            show(b),
            a / b
        );
    }
    Ok(!failed)
}

/// Builds `xtask/experiments/allreduce_raw.c` with `mpicc` into the target
/// directory (when stale).
fn build_raw(root: &Path) -> Result<PathBuf> {
    let source = root.join("xtask/experiments/allreduce_raw.c");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"));
    let dir = target.join("bench-collectives");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let bin = dir.join("allreduce_raw");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(&bin).is_none() || modified(&bin) < modified(&source) {
        let status = Command::new("mpicc")
            .arg("-O2")
            .arg(&source)
            .arg("-o")
            .arg(&bin)
            .status()
            .map_err(|e| format!("cannot run mpicc (install libopenmpi-dev): {e}"))?;
        if !status.success() {
            return Err(format!("mpicc {} failed ({status})", source.display()));
        }
    }
    Ok(bin)
}

/// The rank and the line of one `mpirun --tag-output` stdout line
/// (`[1,0]<stdout>:text`).
fn tagged(line: &str) -> Option<(u32, &str)> {
    let (tag, text) = line.split_once("]<stdout>:")?;
    Some((tag.rsplit_once(',')?.1.parse().ok()?, text))
}

/// Per-call nanoseconds of each rank's last repetition from
/// `iree-benchmark-module`'s console lines
/// (`BM_<fn>/process_time/real_time  4.96 ms  1.39 ms  200 ...`; the
/// aggregates, `real_time_mean` and so on, are skipped).
fn parse_ours(stdout: &str) -> Vec<f64> {
    let mut last = std::collections::BTreeMap::new();
    for (rank, text) in stdout.lines().filter_map(tagged) {
        let mut words = text.split_whitespace();
        if !words
            .next()
            .is_some_and(|n| n.starts_with("BM_") && n.ends_with("/real_time"))
        {
            continue;
        }
        let Some(value) = words.next().and_then(|v| v.parse::<f64>().ok()) else {
            continue;
        };
        let scale = match words.next() {
            Some("ns") => 1.0,
            Some("us") => 1e3,
            Some("ms") => 1e6,
            Some("s") => 1e9,
            _ => continue,
        };
        last.insert(rank, value * scale);
    }
    last.into_values().collect()
}

/// Per-call nanoseconds of each rank from `allreduce_raw`
/// (`raw_allreduce rank=0 ... ns_per_call=163148.0`).
fn parse_raw(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(tagged)
        .filter(|(_, l)| l.starts_with("raw_allreduce "))
        .filter_map(|(_, l)| l.rsplit_once("ns_per_call=")?.1.trim().parse().ok())
        .collect()
}

fn show(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn show_bytes(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_outputs() {
        let ours = "[1,1]<stdout>:BM_all_reduce_1m/process_time/real_time  4.96 ms  1.39 ms  200 items_per_second=201.637/s\n\
                    [1,0]<stdout>:BM_all_reduce_1m/process_time/real_time  5.0 ms  1.39 ms  200 x\n\
                    [1,1]<stdout>:BM_all_reduce_1m/process_time/real_time  543 us  1.97 ms  200 x\n\
                    [1,0]<stdout>:BM_all_reduce_1m/process_time/real_time  0.5 ms  1.39 ms  200 x\n\
                    [1,0]<stdout>:BM_all_reduce_1m/process_time/real_time_mean  2.75 ms  1.39 ms  2 x\n";
        assert_eq!(parse_ours(ours), vec![0.5e6, 543e3]);
        let raw =
            "[1,1]<stdout>:raw_allreduce rank=1 bytes=4096 iterations=20 ns_per_call=4556.8\n";
        assert_eq!(parse_raw(raw), vec![4556.8]);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(iterations(4 << 10), MAX_ITERATIONS);
        assert_eq!(iterations(64 << 20), MIN_ITERATIONS);
    }
}
