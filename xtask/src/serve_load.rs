//! `cargo xtask serve-load`: the serving load test of issue #34 on a real
//! model, through `crates/tooling/examples/serve_load.rs`.
//!
//! For the model (default silero-vad, prepared as `cargo xtask bench` does)
//! on each device: `--threads` (4) x `--calls` (10 000) calls through one
//! shared `Model`, every result compared byte for byte with a
//! single-threaded call's, and the peak RSS growth from the first 1 000
//! calls to the end; calls per second from 1 and from 2 threads; the
//! resident memory of 8 concurrent callers of one `Model` against one
//! caller, and of 8 separate `Session`s for comparison. The exit code is
//! non-zero when a run fails or a result differs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::{conformance, models, proc, venv, Result};

const USAGE: &str = "usage: cargo xtask serve-load [--model NAME] [--device D[,D...]] \
                     [--threads N] [--calls N]";

/// Options of the command.
struct Options {
    model: String,
    devices: Vec<String>,
    threads: usize,
    calls: usize,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut options = Options {
        model: "silero-vad".to_string(),
        devices: vec!["local-sync".to_string(), "local-task".to_string()],
        threads: 4,
        calls: 10_000,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or(format!("{arg} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--model" => options.model = value()?,
            "--device" => options.devices = value()?.split(',').map(str::to_string).collect(),
            "--threads" => options.threads = count(&value()?)?,
            "--calls" => options.calls = count(&value()?)?,
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    Ok(options)
}

fn count(text: &str) -> Result<usize> {
    text.parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or(format!("`{text}` is not a positive count"))
}

/// Runs the load test; true when every run passed.
pub fn run(args: &[String]) -> Result<bool> {
    let options = parse(args)?;
    let root = crate::repo_root();
    let venv = venv::ensure(&root)?;
    let model = models::MODELS
        .iter()
        .find(|m| m.name == options.model)
        .ok_or_else(|| format!("no model `{}` (see xtask/src/models.rs)", options.model))?;
    let prepared = models::prepare(&root, &venv, model)?;
    let example = build_example(&root)?;
    println!(
        "model: {} ({}), {} threads x {} calls\n",
        model.name, model.what, options.threads, options.calls
    );
    let mut all_ok = true;
    for device in &options.devices {
        let run = |mode: &str, threads: usize, calls: usize| -> Result<BTreeMap<String, String>> {
            let mut args = vec![
                prepared.module.clone(),
                prepared.function.clone(),
                device.clone(),
            ];
            args.extend(prepared.inputs.iter().cloned());
            args.extend([
                "--mode".to_string(),
                mode.to_string(),
                "--threads".to_string(),
                threads.to_string(),
                "--calls".to_string(),
                calls.to_string(),
            ]);
            let out = proc::run(&example, &args, &prepared.dir, Duration::from_secs(900))?;
            if out.exit_code != 0 {
                return Err(format!(
                    "{mode}: exit {}: {}",
                    out.exit_code,
                    out.stderr.trim()
                ));
            }
            Ok(out
                .stdout
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect())
        };
        let outcome = (|| -> Result<bool> {
            let load = run("load", options.threads, options.calls)?;
            let throughput = run("throughput", 1, (options.calls * 2).max(2))?;
            let one = run("sessions", 1, 200)?;
            let eight = run("sessions", 8, 200)?;
            let separate = run("separate", 8, 200)?;
            let get = |m: &BTreeMap<String, String>, k: &str| -> f64 {
                m.get(k).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
            };
            let mismatches = get(&load, "mismatches");
            let growth = get(&load, "rss_growth_percent");
            let speedup = get(&throughput, "speedup_2_threads");
            let ratio = |m: &BTreeMap<String, String>, k: &str| get(m, k) / get(&one, k);
            println!("{device}:");
            println!(
                "  load: {} calls, {} results differ from the single-threaded one, {} calls/s, {} contexts",
                load.get("calls").map_or("?", String::as_str),
                mismatches,
                load.get("calls_per_second").map_or("?", String::as_str),
                load.get("contexts").map_or("?", String::as_str),
            );
            println!(
                "  peak RSS after the first 1000 calls {:.1} MiB, at the end {:.1} MiB: {growth:+.2}%; \
                 anonymous RSS {:.1} -> {:.1} MiB: {:+.2}%",
                get(&load, "peak_rss_kib_after_1000") / 1024.0,
                get(&load, "peak_rss_kib_at_end") / 1024.0,
                get(&load, "anon_rss_kib_after_1000") / 1024.0,
                get(&load, "anon_rss_kib_at_end") / 1024.0,
                get(&load, "anon_rss_growth_percent"),
            );
            println!(
                "  throughput: 1 thread {} calls/s, 2 threads {} calls/s: {speedup:.2}x",
                throughput
                    .get("calls_per_second_1_threads")
                    .map_or("?", String::as_str),
                throughput
                    .get("calls_per_second_2_threads")
                    .map_or("?", String::as_str),
            );
            for (what, m) in [
                ("8 callers of one Model", &eight),
                ("8 separate Sessions", &separate),
            ] {
                println!(
                    "  {what}: RSS {:.1} MiB ({:.2}x one caller's {:.1} MiB), peak {:.2}x, PSS {:.2}x",
                    get(m, "rss_kib") / 1024.0,
                    ratio(m, "rss_kib"),
                    get(&one, "rss_kib") / 1024.0,
                    ratio(m, "peak_rss_kib"),
                    ratio(m, "pss_kib"),
                );
            }
            Ok(mismatches == 0.0)
        })();
        match outcome {
            Ok(ok) => all_ok &= ok,
            Err(why) => {
                all_ok = false;
                println!("{device}: FAILED: {why}");
            }
        }
    }
    Ok(all_ok)
}

/// Builds the `serve_load` example in release mode; its path.
fn build_example(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "iree-tooling",
            "--example",
            "serve_load",
        ])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building the serve_load example failed ({status})"));
    }
    Ok(conformance::target_dir(root).join("release/examples/serve_load"))
}
