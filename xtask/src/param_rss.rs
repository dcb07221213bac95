//! `cargo xtask param-rss`: peak memory of loading a large parameter file,
//! ours against upstream in one run.
//!
//! Writes a `--mib`-sized `.irpa` (one f32 parameter, with our
//! `iree-create-parameters`) and two modules under `target/param-rss/`:
//! `head` reads 16 bytes of the parameter, `sum` reads all of it. Each runs
//! on `local-sync` and `local-task`, with `--parameter_mode=file` and
//! `preload`, through both tools. Reported per run: peak RSS (`VmHWM`),
//! and the largest anonymous and file-backed RSS seen (`/proc/<pid>/status`
//! polled every millisecond), plus wall time. File-backed pages are the
//! page cache mapped into the process (shared, reclaimable); anonymous
//! pages are private copies.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::venv::{self, Venv};
use crate::Result;

/// Parses `--mib N` (default 1024) and runs the measurements.
pub fn run(args: &[String]) -> Result<bool> {
    let mut mib: u64 = 1024;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--mib" => {
                mib = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&v| v > 0)
                    .ok_or("--mib takes a positive integer")?
            }
            other => return Err(format!("param-rss: unknown option `{other}`")),
        }
    }
    let root = crate::repo_root();
    let venv = venv::ensure(&root)?;
    let ours = crate::conformance::our_binary(&root)?;
    let create = crate::conformance::build_release_tool(&root, "iree-create-parameters")?;
    let dir = root.join("target").join("param-rss");
    fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let elements = mib * (1 << 20) / 4;
    prepare(&venv, &create, &dir, elements)?;
    println!(
        "{mib} MiB parameter ({elements} x f32), peak RSS / largest anonymous / largest file-backed RSS, wall time\n"
    );
    println!(
        "{:<6} {:<11} {:<8} {:>34} {:>34}",
        "func", "device", "mode", "upstream", "ours"
    );
    for function in ["head", "sum"] {
        for device in ["local-sync", "local-task"] {
            for mode in ["file", "preload"] {
                let args = [
                    format!("--device={device}"),
                    format!("--module={function}.vmfb"),
                    "--parameters=model=big.irpa".to_string(),
                    format!("--parameter_mode={mode}"),
                ];
                let upstream = measure(&venv.iree_run_module(), &args, &dir)?;
                let ours = measure(&ours, &args, &dir)?;
                println!("{function:<6} {device:<11} {mode:<8} {upstream:>34} {ours:>34}");
            }
        }
    }
    Ok(true)
}

/// Writes the modules and the parameter file (when missing or stale).
fn prepare(venv: &Venv, create: &Path, dir: &Path, elements: u64) -> Result<()> {
    let global = format!(
        "util.global private @w = #flow.parameter.named<\"model\"::\"w\"> : tensor<{elements}xf32>\n"
    );
    let head = format!(
        "{global}func.func @head() -> tensor<4xf32> {{\n  %w = util.global.load @w : tensor<{elements}xf32>\n  %s = tensor.extract_slice %w[{}] [4] [1] : tensor<{elements}xf32> to tensor<4xf32>\n  return %s : tensor<4xf32>\n}}\n",
        elements - 4
    );
    let sum = format!(
        "{global}func.func @sum() -> tensor<f32> {{\n  %w = util.global.load @w : tensor<{elements}xf32>\n  %zero = arith.constant 0.0 : f32\n  %e = tensor.empty() : tensor<f32>\n  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>\n  %r = linalg.reduce ins(%w : tensor<{elements}xf32>) outs(%init : tensor<f32>) dimensions = [0]\n    (%in: f32, %acc: f32) {{\n      %a = arith.addf %in, %acc : f32\n      linalg.yield %a : f32\n    }}\n  return %r : tensor<f32>\n}}\n"
    );
    for (name, text) in [("head", head), ("sum", sum)] {
        let mlir = dir.join(format!("{name}.mlir"));
        if fs::read_to_string(&mlir).ok().as_deref() == Some(text.as_str())
            && dir.join(format!("{name}.vmfb")).exists()
        {
            continue;
        }
        fs::write(&mlir, &text).map_err(|e| format!("writing {}: {e}", mlir.display()))?;
        let status = Command::new(venv.iree_compile())
            .current_dir(dir)
            .args([
                "--iree-hal-target-device=local",
                "--iree-hal-local-target-device-backends=llvm-cpu",
                "--iree-llvmcpu-target-cpu=host",
                &format!("{name}.mlir"),
                "-o",
                &format!("{name}.vmfb"),
            ])
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("running iree-compile: {e}"))?;
        if !status.success() {
            return Err(format!("iree-compile {name}.mlir failed ({status})"));
        }
    }
    let irpa = dir.join("big.irpa");
    let expected_min = elements * 4;
    if fs::metadata(&irpa).map(|m| m.len()).unwrap_or(0) < expected_min {
        let status = Command::new(create)
            .current_dir(dir)
            .args([
                &format!("--data=w={elements}xf32=0.5"),
                "--output=big.irpa",
                "--quiet",
            ])
            .status()
            .map_err(|e| format!("running iree-create-parameters: {e}"))?;
        if !status.success() {
            return Err(format!("iree-create-parameters failed ({status})"));
        }
    }
    Ok(())
}

/// Runs `bin args` in `dir` (stdout discarded) and returns
/// `"<peak> / <anon> / <file> MiB <wall> s"`.
fn measure(bin: &Path, args: &[String], dir: &Path) -> Result<String> {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running {}: {e}", bin.display()))?;
    let status_path = format!("/proc/{}/status", child.id());
    let (mut peak, mut anon, mut file) = (0u64, 0u64, 0u64);
    let status = loop {
        if let Ok(text) = fs::read_to_string(&status_path) {
            for line in text.lines() {
                let value = |prefix: &str| {
                    line.strip_prefix(prefix)
                        .and_then(|v| v.split_whitespace().next())
                        .and_then(|v| v.parse::<u64>().ok())
                };
                if let Some(v) = value("VmHWM:") {
                    peak = peak.max(v);
                }
                if let Some(v) = value("RssAnon:") {
                    anon = anon.max(v);
                }
                if let Some(v) = value("RssFile:") {
                    file = file.max(v);
                }
            }
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => return Err(format!("waiting for {}: {e}", bin.display())),
        }
    };
    let wall = start.elapsed().as_secs_f64();
    if !status.success() {
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
        }
        return Err(format!(
            "{} {} failed ({status}): {stderr}",
            bin.display(),
            args.join(" ")
        ));
    }
    let mib = |kib: u64| kib as f64 / 1024.0;
    Ok(format!(
        "{:7.1} / {:7.1} / {:7.1} MiB {:6.3} s",
        mib(peak),
        mib(anon),
        mib(file),
        wall
    ))
}
