//! `cargo xtask replay-bench`: HAL replay of real models, ours against
//! upstream's. For each model (default `silero-vad`, `ppocr-cls`; prepared
//! as `cargo xtask bench` prepares them) and local device:
//!
//! * each runtime's `iree-run-module --device_replay_output=` captures one
//!   call, and the other runtime's `iree-run-replay` replays that capture;
//! * `iree-benchmark-replay --replay_scope=execute` times the captured call
//!   per replay iteration: upstream's tool on upstream's capture against
//!   ours on ours, and both tools on the same (upstream's) capture,
//!   alternating runs, medians, fastest runs and the median of each
//!   round's ours/upstream ratio.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{conformance, models, proc, repo_root, venv, Result};

/// Models timed by default.
const DEFAULT_MODELS: &[&str] = &["silero-vad", "ppocr-cls"];
/// The local devices.
const DEVICES: &[&str] = &["local-sync", "local-task"];

fn build_tools(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = std::process::Command::new(cargo)
        .args(["build", "--release"])
        .args([
            "-p",
            "iree-run-module",
            "-p",
            "iree-run-replay",
            "-p",
            "iree-benchmark-replay",
        ])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building our tools failed ({status})"));
    }
    Ok(conformance::target_dir(root).join("release"))
}

/// The per-iteration time (ms) of the `BM_replay` row of a console report.
fn iteration_ms(stdout: &str) -> Option<f64> {
    let row = stdout.lines().find(|l| l.starts_with("BM_replay"))?;
    let mut fields = row.split_whitespace().skip(1);
    let value: f64 = fields.next()?.parse().ok()?;
    Some(match fields.next()? {
        "ns" => value / 1e6,
        "us" => value / 1e3,
        "ms" => value,
        "s" => value * 1e3,
        _ => return None,
    })
}

fn run(program: &Path, args: &[String], cwd: &Path) -> Result<proc::Output> {
    proc::run(program, args, cwd, Duration::from_secs(600))
}

/// Runs the command.
pub fn run_command(args: &[String]) -> Result<bool> {
    let mut names: Vec<String> = Vec::new();
    let mut runs = 5usize;
    let mut iterations = 50u32;
    let mut devices: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--model" => names.push(it.next().ok_or("--model needs a name")?.clone()),
            "--device" => devices.push(it.next().ok_or("--device needs a name")?.clone()),
            "--runs" => {
                runs = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--runs needs a number")?
            }
            "--iterations" => {
                iterations = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .ok_or("--iterations needs a number")?
            }
            other => return Err(format!("replay-bench: unknown argument `{other}`")),
        }
    }
    if names.is_empty() {
        names = DEFAULT_MODELS.iter().map(|s| s.to_string()).collect();
    }
    if devices.is_empty() {
        devices = DEVICES.iter().map(|s| s.to_string()).collect();
    }
    let root = repo_root();
    let venv = venv::ensure(&root)?;
    let bin = build_tools(&root)?;
    let work = conformance::target_dir(&root).join("replay-bench");
    std::fs::create_dir_all(&work).map_err(|e| format!("creating {}: {e}", work.display()))?;
    let mut all_ok = true;
    for name in &names {
        let model = models::MODELS
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| format!("no model `{name}`"))?;
        let prepared = models::prepare(&root, &venv, model)?;
        for device in &devices {
            let capture = |tool: &Path, side: &str| -> Result<PathBuf> {
                let path = work.join(format!("{name}.{device}.{side}.ireereplay"));
                let mut args = prepared.args.clone();
                args.push(format!("--function={}", prepared.function));
                args.push(format!("--device={device}"));
                args.push(format!("--device_replay_output={}", path.display()));
                let out = run(tool, &args, &prepared.dir)?;
                if out.exit_code != 0 {
                    return Err(format!(
                        "{name} on {device}: the {side} capture failed: {}",
                        out.stderr
                    ));
                }
                Ok(path)
            };
            let theirs = capture(&venv.iree_run_module(), "upstream")?;
            let ours = capture(&bin.join("iree-run-module"), "ours")?;
            let replay = |tool: &Path, path: &Path| -> Result<bool> {
                let out = run(
                    tool,
                    &[format!("--device={device}"), path.display().to_string()],
                    &work,
                )?;
                if out.exit_code != 0 {
                    println!(
                        "  replay of {} failed: {}",
                        path.display(),
                        out.stderr.trim()
                    );
                }
                Ok(out.exit_code == 0)
            };
            let upstream_replays_ours = replay(&venv.runtime_libs.join("iree-run-replay"), &ours)?;
            let ours_replays_upstream = replay(&bin.join("iree-run-replay"), &theirs)?;
            all_ok &= upstream_replays_ours && ours_replays_upstream;
            let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
            println!(
                "{name} on {device}: captures upstream {} B, ours {} B; upstream replays ours: {}; ours replays upstream's: {}",
                size(&theirs),
                size(&ours),
                if upstream_replays_ours { "exit 0" } else { "FAILED" },
                if ours_replays_upstream { "exit 0" } else { "FAILED" },
            );
            let bench = |tool: &Path, path: &Path| -> Result<f64> {
                let args = vec![
                    format!("--device={device}"),
                    "--replay_scope=execute".to_string(),
                    format!("--benchmark_min_time={iterations}x"),
                    path.display().to_string(),
                ];
                let out = run(tool, &args, &work)?;
                iteration_ms(&out.stdout).ok_or_else(|| {
                    format!(
                        "{}: no timing in its report: {}",
                        tool.display(),
                        out.stderr
                    )
                })
            };
            let upstream_bench = venv.runtime_libs.join("iree-benchmark-replay");
            let our_bench = bin.join("iree-benchmark-replay");
            let (mut up_own, mut our_own, mut up_same, mut our_same) =
                (vec![], vec![], vec![], vec![]);
            for _ in 0..runs {
                up_own.push(bench(&upstream_bench, &theirs)?);
                our_own.push(bench(&our_bench, &ours)?);
                up_same.push(bench(&upstream_bench, &theirs)?);
                our_same.push(bench(&our_bench, &theirs)?);
            }
            // Each round's four runs are back to back, so the ratio within
            // a round cancels most of what other processes on the host do.
            let mut own_ratios: Vec<f64> =
                our_own.iter().zip(&up_own).map(|(o, u)| o / u).collect();
            let mut same_ratios: Vec<f64> =
                our_same.iter().zip(&up_same).map(|(o, u)| o / u).collect();
            let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
            let fastest = [min(&up_own), min(&our_own), min(&up_same), min(&our_same)];
            let (a, b) = (
                crate::tools::median(&mut up_own),
                crate::tools::median(&mut our_own),
            );
            let (c, d) = (
                crate::tools::median(&mut up_same),
                crate::tools::median(&mut our_same),
            );
            println!(
                "  --replay_scope=execute, ms per iteration (median of {runs} runs of {iterations}): upstream {a:.3} on its capture, ours {b:.3} on ours = {:.2}x; on upstream's capture: upstream {c:.3}, ours {d:.3} = {:.2}x",
                b / a,
                d / c
            );
            println!(
                "  fastest run: upstream {:.3} on its capture, ours {:.3} on ours = {:.2}x; on upstream's capture: upstream {:.3}, ours {:.3} = {:.2}x",
                fastest[0],
                fastest[1],
                fastest[1] / fastest[0],
                fastest[2],
                fastest[3],
                fastest[3] / fastest[2]
            );
            println!(
                "  median of the rounds' ratios (each round runs the four back to back): ours/upstream {:.2}x on own captures, {:.2}x on upstream's capture",
                crate::tools::median(&mut own_ratios),
                crate::tools::median(&mut same_ratios)
            );
        }
    }
    Ok(all_ok)
}
