//! `cargo xtask gpu-pack` and `gpu-check`: the CUDA driver on a real GPU,
//! prepared here and run there in one call.
//!
//! A machine with a GPU is lent rarely, for minutes, with no network and no
//! Rust toolchain. So everything is built here (`gpu-pack`), carried there
//! as one archive, and one command there (`gpu-pack/run.sh`, which runs the
//! packed `xtask gpu-check`) does every check and writes a report:
//!
//! * **differential**: the `testdata` suites whose sources are
//!   full-pipeline MLIR ([`SUITES`]), recompiled for CUDA, every case run
//!   through upstream's `iree-run-module --device=cuda` and ours, exit code,
//!   status and stdout compared as `cargo xtask conformance` does;
//! * **check suites**: `testdata/e2e/src/*.mlir` compiled for CUDA, run by
//!   our `iree-check-module --device=cuda`;
//! * **models**: the real models of `cargo xtask bench`, compiled for CUDA,
//!   outputs compared bit for bit, then per-call time from upstream's and
//!   our `iree-benchmark-module`, alternating;
//! * **Rust tests**: the GPU tests of `iree-hal-cuda` and `iree-runtime`
//!   (`Session` on `cuda`), built here in release mode;
//! * **Python**: `iree_rust.runtime` from our wheel on `cuda`
//!   (`xtask/gpu/python_check.py`).
//!
//! Without a GPU, `gpu-check` stops at the first CUDA call with one line
//! naming what failed (and exit code 2): that is how it is tried here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use iree_tooling::testcases::{self, Case};

use crate::diff::line_diff;
use crate::proc;
use crate::venv::{self, run_checked, Venv};
use crate::Result;

/// The pack folder under the repository root (gitignored), and the archive
/// carried to the GPU machine.
pub const PACK_DIR: &str = "gpu-pack";
/// The archive of [`PACK_DIR`] (gitignored).
pub const PACK_ARCHIVE: &str = "gpu-pack.tar.xz";

/// The `testdata` suites run on CUDA. `llvm-cpu` holds every
/// target-independent program once (`vmvx` and `llvm-cpu-system` repeat
/// them); the others add parameters, traces and statistics.
/// A group may take its cases from `xtask/gpu/<group>.cases` instead
/// (`collectives`: single-rank calls, NCCL on the device).
/// The smaller suites come first, so a differential cut short by its time
/// budget still covers every area.
const SUITES: &[&str] = &[
    "collectives",
    "cuda",
    "defaults",
    "statistics",
    "trace",
    "params",
    "llvm-cpu",
];

/// The CUDA targets tried in order: Hopper first; the pinned compiler fails
/// on some programs for `sm_90` ("missing GPU target") and crashes for
/// `sm_90a`, so those are built for `sm_80`, whose PTX the driver compiles
/// for the H100 at load time.
const CUDA_TARGETS: &[&str] = &["sm_90", "sm_80"];

/// Flags of a CPU `// COMPILE:` header that do not carry over to CUDA.
const CPU_ONLY_FLAG_PREFIXES: &[&str] = &[
    "--iree-hal-target-device=",
    "--iree-hal-local-target-device-backends=",
    "--iree-llvmcpu-",
    "--iree-vmvx-",
    "--iree-cuda-target=",
];

/// Our tools in the pack.
const OUR_TOOLS: &[&str] = &[
    "iree-run-module",
    "iree-check-module",
    "iree-benchmark-module",
];
/// Upstream's native tools in the pack (from the pinned runtime wheel).
const UPSTREAM_TOOLS: &[&str] = &["iree-run-module", "iree-benchmark-module"];
/// Packages whose test binaries hold GPU tests.
const TEST_PACKAGES: &[&str] = &["iree-hal-cuda", "iree-runtime"];

/// Check-suite tests expected to fail on CUDA, each with why: upstream's
/// runtime fails the same way on the same program (the differential shows
/// it), so passing would not be a drop-in.
const EXPECTED_CHECK_FAILURES: &[(&str, &str, &str)] = &[(
    "dynamic_shapes",
    "module.empty_dynamic_tensor",
    "a zero-sized dispatch: the CUDA driver refuses the launch (CUDA_ERROR_INVALID_VALUE) on upstream's runtime too (differential: llvm-cpu/dynamic_1d/add_len0)",
)];

/// How long one differential case may run on the GPU machine.
const GPU_CASE_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the whole differential may run before the remaining cases are
/// reported as not run (device time is lent by the minute).
const DIFFERENTIAL_BUDGET: Duration = Duration::from_secs(200);

/// The carry limit of the device tool, with room for the repository.
const PACK_LIMIT: u64 = 48 << 20;

fn io_err<'a>(what: &str, path: &'a Path) -> impl FnOnce(std::io::Error) -> String + 'a {
    let what = what.to_string();
    move |e| format!("{what} {}: {e}", path.display())
}

fn cuda_flags(target: &str) -> Vec<String> {
    vec![
        "--iree-hal-target-device=cuda".to_string(),
        format!("--iree-cuda-target={target}"),
    ]
}

/// Compiles `source` for CUDA with `flags` (target flags added), trying
/// each of [`CUDA_TARGETS`]; returns the target used or the first error.
/// A module newer than its source is kept (its target recorded beside it).
fn compile_for_cuda(venv: &Venv, source: &Path, flags: &[String], out: &Path) -> Result<String> {
    let recorded = out.with_extension("target");
    if !crate::testdata::is_stale(source, out) {
        if let Ok(target) = std::fs::read_to_string(&recorded) {
            return Ok(target);
        }
    }
    let mut first_error = None;
    for target in CUDA_TARGETS {
        let output = Command::new(venv.iree_compile())
            .args(flags)
            .args(cuda_flags(target))
            .arg(source)
            .arg("-o")
            .arg(out)
            .current_dir(source.parent().unwrap_or(Path::new(".")))
            .output()
            .map_err(|e| format!("running iree-compile: {e}"))?;
        if output.status.success() {
            std::fs::write(&recorded, target).map_err(io_err("writing", &recorded))?;
            return Ok(target.to_string());
        }
        first_error.get_or_insert_with(|| {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let line = stderr
                .lines()
                .find(|l| l.contains("error:"))
                .or_else(|| stderr.lines().next())
                .unwrap_or("")
                .to_string();
            format!("{target}: {} {line}", output.status)
        });
    }
    let _ = std::fs::remove_file(out);
    Err(first_error.unwrap_or_default())
}

/// The `// COMPILE:` flags of a CPU source, kept for CUDA, or `None` when
/// the program is not for the HAL's asynchronous model (inline models,
/// VM-only modules).
fn cuda_compile_flags(source: &str) -> Option<Vec<String>> {
    let flags = testcases::compile_flags(source).ok()?;
    if flags.iter().any(|f| {
        f.starts_with("--compile-mode=vm") || f.starts_with("--iree-execution-model=inline")
    }) {
        return None;
    }
    if !flags
        .iter()
        .any(|f| f.starts_with("--iree-hal-target-device="))
    {
        return None;
    }
    Some(
        flags
            .into_iter()
            .filter(|f| !CPU_ONLY_FLAG_PREFIXES.iter().any(|p| f.starts_with(p)))
            .collect(),
    )
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(io_err("creating", parent))?;
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}

fn strip(path: &Path) -> Result<()> {
    run_checked(Command::new("strip").arg("--strip-debug").arg(path))
}

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
}

/// Builds the GPU test binaries in release mode; returns their paths.
fn build_test_binaries(root: &Path) -> Result<Vec<PathBuf>> {
    let mut args = vec!["test", "--release"];
    for package in TEST_PACKAGES {
        args.extend(["-p", package]);
    }
    Ok(proc::build_tests(root, &args)?
        .into_iter()
        .map(|t| t.path)
        .collect())
}

/// The `cargo xtask gpu-pack [--no-models]` command.
pub fn pack(args: &[String]) -> Result<bool> {
    let mut with_models = true;
    for a in args {
        match a.as_str() {
            "--no-models" => with_models = false,
            other => return Err(format!("unknown gpu-pack option `{other}`")),
        }
    }
    let root = crate::repo_root();
    let venv = venv::ensure(&root)?;
    let pack = root.join(PACK_DIR);
    // Compiled modules are kept while newer than their sources; the rest is
    // rebuilt.
    for dir in ["bin", "tests", "upstream", "python"] {
        let _ = std::fs::remove_dir_all(pack.join(dir));
    }
    std::fs::create_dir_all(&pack).map_err(io_err("creating", &pack))?;
    let mut manifest = String::new();

    // Our tools, this program, and the GPU test binaries.
    eprintln!("gpu-pack: building release binaries");
    let mut build = cargo();
    build
        .current_dir(&root)
        .args(["build", "--release", "-p", "xtask"]);
    for tool in OUR_TOOLS {
        build.args(["-p", tool]);
    }
    run_checked(&mut build)?;
    let release = crate::conformance::target_dir(&root).join("release");
    for tool in OUR_TOOLS.iter().chain(["xtask"].iter()) {
        let to = pack.join("bin").join(tool);
        copy(&release.join(tool), &to)?;
        strip(&to)?;
    }
    for test in build_test_binaries(&root)? {
        let name = test
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let to = pack.join("tests").join(&name);
        copy(&test, &to)?;
        strip(&to)?;
        writeln!(manifest, "test {name}").unwrap();
    }
    for tool in UPSTREAM_TOOLS {
        copy(
            &venv.iree_run_module().with_file_name(tool),
            &pack.join("upstream").join(tool),
        )?;
    }

    // Our Python package, unpacked from a release wheel.
    eprintln!("gpu-pack: building the iree_rust.runtime wheel");
    let wheels = crate::conformance::target_dir(&root).join("gpu-wheel");
    let _ = std::fs::remove_dir_all(&wheels);
    let maturin = crate::upstream_py::ensure_maturin(&root)?;
    run_checked(
        Command::new(&maturin)
            .current_dir(&root)
            .args(["build", "--quiet", "--release", "--compatibility", "linux"])
            .args(["-m", "bindings/python/Cargo.toml", "-o"])
            .arg(&wheels),
    )?;
    let wheel = std::fs::read_dir(&wheels)
        .map_err(io_err("reading", &wheels))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("maturin left no wheel")?;
    let python_dir = pack.join("python");
    run_checked(
        Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(&wheel)
            .arg(&python_dir),
    )?;
    for entry in walk(&python_dir)? {
        if entry.extension().is_some_and(|x| x == "so") {
            strip(&entry)?;
        }
    }
    copy(
        &root.join("xtask").join("gpu").join("python_check.py"),
        &pack.join("python_check.py"),
    )?;

    // The testdata suites, compiled for CUDA.
    for suite in SUITES {
        let dir = root.join("testdata").join(suite);
        for group in testcases::list_stems(&dir, "mlir").map_err(|e| e.to_string())? {
            let source = dir.join(format!("{group}.mlir"));
            let text = std::fs::read_to_string(&source).map_err(io_err("reading", &source))?;
            let Some(flags) = cuda_compile_flags(&text) else {
                continue;
            };
            let out = pack
                .join("testdata")
                .join(suite)
                .join(format!("{group}.vmfb"));
            let gpu_cases = root
                .join("xtask")
                .join("gpu")
                .join(format!("{group}.cases"));
            if gpu_cases.exists() {
                copy(&gpu_cases, &out.with_extension("cases"))?;
            } else if !dir.join(format!("{group}.cases")).exists() {
                continue;
            }
            std::fs::create_dir_all(out.parent().unwrap()).map_err(io_err("creating", &out))?;
            match compile_for_cuda(&venv, &source, &flags, &out) {
                Ok(target) => writeln!(manifest, "testdata {suite}/{group} {target}").unwrap(),
                Err(e) => {
                    eprintln!("gpu-pack: {suite}/{group} does not compile for CUDA: {e}");
                    writeln!(manifest, "testdata-skipped {suite}/{group} {e}").unwrap();
                }
            }
        }
    }

    // The check suites.
    let e2e = root.join("testdata").join("e2e").join("src");
    for suite in testcases::list_stems(&e2e, "mlir").map_err(|e| e.to_string())? {
        let source = e2e.join(format!("{suite}.mlir"));
        let out = pack.join("e2e").join(format!("{suite}.vmfb"));
        std::fs::create_dir_all(out.parent().unwrap()).map_err(io_err("creating", &out))?;
        match compile_for_cuda(&venv, &source, &[], &out) {
            Ok(target) => writeln!(manifest, "e2e {suite} {target}").unwrap(),
            Err(e) => {
                eprintln!("gpu-pack: e2e {suite} does not compile for CUDA: {e}");
                writeln!(manifest, "e2e-skipped {suite} {e}").unwrap();
            }
        }
    }

    // The models.
    if with_models {
        for model in crate::models::MODELS {
            let prepared = crate::models::prepare(&root, &venv, model)?;
            let dir = pack.join("models").join(model.name);
            std::fs::create_dir_all(&dir).map_err(io_err("creating", &dir))?;
            let mlir = prepared.dir.join(format!("{}.mlir", model.name));
            let vmfb = dir.join(format!("{}.vmfb", model.name));
            eprintln!("gpu-pack: compiling {} for CUDA", model.name);
            match compile_for_cuda(&venv, &mlir, &[], &vmfb)
                .and_then(|t| main_function(&venv, &vmfb).map(|f| (t, f)))
            {
                Ok((target, function)) => {
                    let mut inputs = Vec::new();
                    for arg in &prepared.args[1..] {
                        let file = arg.trim_start_matches("--input=@");
                        copy(&prepared.dir.join(file), &dir.join(file))?;
                        inputs.push(file.to_string());
                    }
                    writeln!(
                        manifest,
                        "model {} {target} {} {} {function}",
                        model.name,
                        prepared.outputs,
                        inputs.join(",")
                    )
                    .unwrap();
                }
                Err(e) => {
                    eprintln!(
                        "gpu-pack: model {} does not compile for CUDA: {e}",
                        model.name
                    );
                    writeln!(manifest, "model-skipped {} {e}", model.name).unwrap();
                }
            }
        }
    }

    let manifest_path = pack.join("MANIFEST");
    std::fs::write(&manifest_path, &manifest).map_err(io_err("writing", &manifest_path))?;
    let script = pack.join("run.sh");
    let text = RUN_SH.replace("@BUILD_ROOT@", &root.display().to_string());
    std::fs::write(&script, text).map_err(io_err("writing", &script))?;
    run_checked(Command::new("chmod").arg("+x").arg(&script))?;

    let archive = root.join(PACK_ARCHIVE);
    eprintln!("gpu-pack: writing {}", archive.display());
    run_checked(
        Command::new("tar")
            .current_dir(&root)
            .env("XZ_OPT", "-6 -T0")
            .args(["-cJf", PACK_ARCHIVE, PACK_DIR]),
    )?;
    let size = std::fs::metadata(&archive)
        .map_err(io_err("reading", &archive))?
        .len();
    println!(
        "{} ({:.1} MiB); on the GPU machine, from the repository root:\n  \
         tar -xJf {PACK_ARCHIVE} && {PACK_DIR}/run.sh",
        archive.display(),
        size as f64 / (1 << 20) as f64
    );
    print!("{manifest}");
    if size > PACK_LIMIT {
        return Err(format!(
            "the archive is {size} bytes, over the {PACK_LIMIT}-byte budget"
        ));
    }
    Ok(true)
}

/// The synchronous function a model exports (not `__init`, not the
/// `$async` variant), from upstream's `iree-dump-module`.
fn main_function(venv: &Venv, vmfb: &Path) -> Result<String> {
    let output = Command::new(venv.iree_dump_module())
        .arg("--output=metadata")
        .arg(vmfb)
        .output()
        .map_err(|e| format!("running iree-dump-module: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .skip_while(|l| !l.starts_with("Exported Functions:"))
        .filter_map(|l| l.split("] ").nth(1))
        .filter_map(|l| l.split('(').next())
        .find(|name| !name.ends_with("$async") && *name != "__init")
        .map(str::to_string)
        .ok_or_else(|| format!("{}: no exported function found", vmfb.display()))
}

/// The script run on the GPU machine (from the repository root).
const RUN_SH: &str = r#"#!/bin/sh
# Made by `cargo xtask gpu-pack`. Run from the repository root on the GPU
# machine: every check of `xtask gpu-check`, report in $OUT (or gpu-pack/out).
P=$(cd "$(dirname "$0")" && pwd)
# NCCL from the PyPI package nvidia-nccl-* when a Python environment has it.
for d in /opt/*/.venv/lib/python3*/site-packages/nvidia/nccl/lib \
         /usr/lib/python3*/site-packages/nvidia/nccl/lib \
         /usr/local/lib/python3*/dist-packages/nvidia/nccl/lib; do
  [ -e "$d/libnccl.so.2" ] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH
# Test binaries find testdata through the path they were built at.
if [ ! -e "@BUILD_ROOT@" ]; then
  mkdir -p "$(dirname "@BUILD_ROOT@")" && ln -s "$(pwd)" "@BUILD_ROOT@"
fi
exec "$P/bin/xtask" gpu-check --pack "$P" --out "${OUT:-$P/out}" "$@"
"#;

fn walk(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(io_err("reading", &d))? {
            let path = entry.map_err(io_err("reading", &d))?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    Ok(out)
}

/// What `gpu-check` found, section by section, for the report.
/// Each line is printed and appended to the report file at once, so a run
/// cut short still leaves what it found.
struct Report {
    path: PathBuf,
    failures: usize,
}

impl Report {
    fn line(&mut self, line: impl AsRef<str>) {
        use std::io::Write as _;
        println!("{}", line.as_ref());
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
        {
            let _ = writeln!(file, "{}", line.as_ref());
        }
    }
}

/// Options of `gpu-check`.
struct CheckOptions {
    pack: PathBuf,
    out: PathBuf,
    jobs: usize,
    only: Option<String>,
    /// Differential cases whose id contains one of these (all if empty).
    filters: Vec<String>,
}

/// The `xtask gpu-check --pack DIR --out DIR [--jobs N] [--only SECTION]`
/// command, run on the GPU machine from the repository root.
pub fn check(args: &[String]) -> Result<bool> {
    let mut pack = None;
    let mut out = None;
    let mut jobs = 16usize;
    let mut only = None;
    let mut filters = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--pack" => pack = Some(PathBuf::from(value()?)),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--jobs" => jobs = value()?.parse().map_err(|_| "--jobs needs a number")?,
            "--only" => only = Some(value()?),
            "--filter" => filters.extend(value()?.split(',').map(str::to_string)),
            other => return Err(format!("unknown gpu-check option `{other}`")),
        }
    }
    let options = CheckOptions {
        pack: pack.ok_or("--pack DIR is required")?,
        out: out.ok_or("--out DIR is required")?,
        jobs,
        only,
        filters,
    };
    std::fs::create_dir_all(&options.out).map_err(io_err("creating", &options.out))?;
    let path = options.out.join("report.md");
    let _ = std::fs::remove_file(&path);
    let mut report = Report {
        path: path.clone(),
        failures: 0,
    };
    let result = run_checks(&options, &mut report);
    if let Err(e) = &result {
        report.line(format!("\nSTOPPED: {e}"));
    }
    match result {
        Ok(()) => {
            println!(
                "gpu-check: {} failures; report in {}",
                report.failures,
                path.display()
            );
            Ok(report.failures == 0)
        }
        Err(_) => std::process::exit(2),
    }
}

fn wanted(options: &CheckOptions, section: &str) -> bool {
    options
        .only
        .as_deref()
        .is_none_or(|o| o.split(',').any(|s| s == section))
}

fn run_checks(options: &CheckOptions, report: &mut Report) -> Result<()> {
    let root = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let pack = options
        .pack
        .canonicalize()
        .map_err(|e| format!("{}: {e}", options.pack.display()))?;
    let ours = |tool: &str| pack.join("bin").join(tool);
    let upstream = |tool: &str| pack.join("upstream").join(tool);
    let manifest = std::fs::read_to_string(pack.join("MANIFEST"))
        .map_err(|e| format!("reading the pack's MANIFEST: {e}"))?;

    report.line("# CUDA on a real GPU: `cargo xtask gpu-pack`, then `gpu-pack/run.sh`\n");
    let smi = Command::new("nvidia-smi")
        .args([
            "--query-gpu=name,driver_version,memory.total",
            "--format=csv,noheader",
        ])
        .output();
    report.line(format!(
        "GPU: {}",
        match smi {
            Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
            _ => "nvidia-smi not available".to_string(),
        }
    ));
    report.line(format!(
        "LD_LIBRARY_PATH: {}",
        std::env::var("LD_LIBRARY_PATH").unwrap_or_default()
    ));

    // The first CUDA call: without a usable device everything stops here.
    let work = std::env::temp_dir().join("iree-gpu-check");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(io_err("creating", &work))?;
    let probe = proc::run(
        &ours("iree-run-module"),
        &["--list_devices".to_string(), "--device=cuda".to_string()],
        &work,
        Duration::from_secs(60),
    )?;
    report.line(format!(
        "our --list_devices: {}",
        probe.stdout.trim().replace('\n', " | ")
    ));
    let first = proc::run(
        &ours("iree-run-module"),
        &[
            "--device=cuda".to_string(),
            format!(
                "--module={}",
                pack.join("testdata/cuda/kernels.vmfb").display()
            ),
            "--function=mul".to_string(),
            "--input=4xf32=1 2 3 4".to_string(),
            "--input=4xf32=5 6 7 8".to_string(),
        ],
        &work,
        Duration::from_secs(60),
    )?;
    if first.exit_code != 0 {
        return Err(format!(
            "the first CUDA call failed (exit {}): {}",
            first.exit_code,
            first.stderr.trim()
        ));
    }
    report.line(format!(
        "first CUDA call: {}",
        first.stdout.trim().replace('\n', " | ")
    ));

    if wanted(options, "e2e") {
        check_suites(&pack, &work, report, &ours("iree-check-module"))?;
    }
    if wanted(options, "tests") {
        rust_tests(&root, &pack, &manifest, options, report)?;
    }
    if wanted(options, "python") {
        python(&root, &pack, options, report)?;
    }
    if wanted(options, "models") {
        models(&pack, &work, &manifest, report, &ours, &upstream)?;
    }
    // Last: it stops at its time budget.
    if wanted(options, "differential") {
        differential(
            &root,
            &pack,
            &work,
            options,
            report,
            &ours("iree-run-module"),
            &upstream("iree-run-module"),
        )?;
    }
    report.line(format!("\n{} failures", report.failures));
    Ok(())
}

/// Copies `testdata/<suite>` (sources, cases, inputs; no modules, no
/// expectations) into `work`, then the pack's CUDA modules over it.
fn stage_suite(root: &Path, pack: &Path, suite: &str, work: &Path) -> Result<PathBuf> {
    let from = root.join("testdata").join(suite);
    let to = work.join("testdata").join(suite);
    for file in walk(&from)? {
        let rel = file.strip_prefix(&from).unwrap();
        if rel.starts_with("expected") || file.extension().is_some_and(|x| x == "vmfb") {
            continue;
        }
        copy(&file, &to.join(rel))?;
    }
    let modules = pack.join("testdata").join(suite);
    if modules.is_dir() {
        for file in walk(&modules)? {
            copy(&file, &to.join(file.strip_prefix(&modules).unwrap()))?;
        }
    }
    Ok(to)
}

/// Every case of the packed suites through upstream and ours on `cuda`.
fn differential(
    root: &Path,
    pack: &Path,
    work: &Path,
    options: &CheckOptions,
    report: &mut Report,
    ours: &Path,
    upstream: &Path,
) -> Result<()> {
    report.line("\n## Differential: testdata cases on `--device=cuda`, upstream vs ours\n");
    let mut cases = Vec::new();
    for suite in SUITES {
        let dir = stage_suite(root, pack, suite, work)?;
        for mut case in testcases::load_suite(&dir).map_err(|e| e.to_string())? {
            // Only cases whose modules were all compiled for CUDA.
            let all_cuda = case.args.iter().all(|a| match a.strip_prefix("--module=") {
                Some(m) => pack.join("testdata").join(suite).join(m).exists(),
                None => true,
            });
            if !all_cuda || !case.args.iter().any(|a| a.starts_with("--module=")) {
                continue;
            }
            if !options.filters.is_empty()
                && !options
                    .filters
                    .iter()
                    .any(|f| case.id().contains(f.as_str()))
            {
                continue;
            }
            case.args.retain(|a| !a.starts_with("--device="));
            case.args.push("--device=cuda".to_string());
            cases.push(case);
        }
    }
    let start = Instant::now();
    let deadline = start + DIFFERENTIAL_BUDGET;
    let outcomes = proc::par_map(&cases, options.jobs, |case| {
        if Instant::now() > deadline {
            return (
                vec!["not run: the differential's time budget was spent".to_string()],
                [Duration::ZERO; 2],
            );
        }
        let (failures, walls) = compare_case(case, ours, upstream);
        if !failures.is_empty() {
            println!(
                "FAIL {}: {}",
                case.id(),
                failures[0].lines().take(4).collect::<Vec<_>>().join(" / ")
            );
        }
        (failures, walls)
    });
    let mut passed = 0;
    let mut failed_ids = Vec::new();
    let mut details = String::new();
    let mut walls: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for (case, (failures, case_walls)) in cases.iter().zip(outcomes) {
        if case_walls[0] > Duration::ZERO {
            walls[0].push(case_walls[0]);
            walls[1].push(case_walls[1]);
        }
        if failures.is_empty() {
            passed += 1;
        } else {
            failed_ids.push(case.id());
            writeln!(
                details,
                "FAIL {}\n  iree-run-module {}",
                case.id(),
                case.args.join(" ")
            )
            .unwrap();
            for f in failures {
                for line in f.lines() {
                    writeln!(details, "  {line}").unwrap();
                }
            }
        }
    }
    report.failures += failed_ids.len();
    report.line(format!(
        "{} cases in {:.1} s: {passed} passed, {} failed",
        cases.len(),
        start.elapsed().as_secs_f64(),
        failed_ids.len()
    ));
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v.get(v.len() / 2).map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    let total = |v: &[Duration]| v.iter().map(Duration::as_secs_f64).sum::<f64>();
    report.line(format!(
        "process wall time per case ({} jobs at once): median upstream {:.0} ms, ours {:.0} ms; total upstream {:.1} s, ours {:.1} s",
        options.jobs,
        median(&mut walls[0]),
        median(&mut walls[1]),
        total(&walls[0]),
        total(&walls[1]),
    ));
    for id in &failed_ids {
        report.line(format!("- FAIL {id}"));
    }
    let path = options.out.join("differential.txt");
    std::fs::write(&path, &details).map_err(io_err("writing", &path))?;
    Ok(())
}

/// Runs one case through both tools; the mismatches (none: it passed) and
/// each tool's wall time.
fn compare_case(case: &Case, ours: &Path, upstream: &Path) -> (Vec<String>, [Duration; 2]) {
    let run = |tool: &Path| {
        let start = Instant::now();
        proc::run(tool, &case.args, &case.dir, GPU_CASE_TIMEOUT)
            .map(|out| (crate::conformance::to_expectation(out), start.elapsed()))
    };
    let (expected, upstream_wall) = match run(upstream) {
        Ok(e) => e,
        Err(e) => return (vec![format!("running upstream: {e}")], [Duration::ZERO; 2]),
    };
    let (actual, our_wall) = match run(ours) {
        Ok(e) => e,
        Err(e) => return (vec![format!("running ours: {e}")], [Duration::ZERO; 2]),
    };
    let walls = [upstream_wall, our_wall];
    let mut failures: Vec<String> = case
        .mismatches(&expected, &actual)
        .into_iter()
        .filter(|m| m != "stdout differs")
        .collect();
    if expected.stdout != actual.stdout {
        failures.push(format!(
            "stdout diff (- upstream, + ours):\n{}",
            line_diff(&expected.stdout, &actual.stdout, 20).join("\n")
        ));
    }
    if !failures.is_empty() {
        failures.push(format!(
            "stderr upstream: {}\nstderr ours: {}",
            expected.stderr.trim(),
            actual.stderr.trim()
        ));
    }
    (failures, walls)
}

/// The e2e check suites through our `iree-check-module --device=cuda`.
fn check_suites(pack: &Path, work: &Path, report: &mut Report, tool: &Path) -> Result<()> {
    report.line(
        "\n## Check suites: testdata/e2e compiled for CUDA, our iree-check-module --device=cuda\n",
    );
    let dir = pack.join("e2e");
    if !dir.is_dir() {
        report.line("(none packed)");
        return Ok(());
    }
    for suite in testcases::list_stems(&dir, "vmfb").map_err(|e| e.to_string())? {
        let out = proc::run(
            tool,
            &[
                "--device=cuda".to_string(),
                format!("--module={}", dir.join(format!("{suite}.vmfb")).display()),
            ],
            work,
            Duration::from_secs(120),
        )?;
        let tests = out.stdout.matches("[       OK ]").count();
        let failed = out.stdout.matches("[  FAILED  ]").count();
        let mut failed_tests: Vec<&str> = out
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix("[  FAILED  ] "))
            .map(|rest| rest.split(' ').next().unwrap_or(rest))
            .filter(|name| name.starts_with("module."))
            .collect();
        failed_tests.sort();
        failed_tests.dedup();
        let expected: Vec<&(&str, &str, &str)> = EXPECTED_CHECK_FAILURES
            .iter()
            .filter(|(s, t, _)| *s == suite && failed_tests.contains(t))
            .collect();
        if out.exit_code == 0 {
            report.line(format!("- {suite}: passed ({tests} tests OK)"));
        } else if !failed_tests.is_empty() && expected.len() == failed_tests.len() {
            report.line(format!(
                "- {suite}: passed ({tests} tests OK) but for the expected failures:"
            ));
            for (_, test, why) in expected {
                report.line(format!("  - {test}: {why}"));
            }
        } else {
            report.failures += 1;
            report.line(format!(
                "- {suite}: FAILED, exit {} ({tests} OK, {failed} FAILED lines)\n```\n{}\n{}\n```",
                out.exit_code,
                tail(&out.stdout, 15),
                tail(&out.stderr, 10)
            ));
        }
    }
    Ok(())
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The packed Rust test binaries, each run whole from the repository root
/// (the tests find `testdata` relative to it).
fn rust_tests(
    root: &Path,
    pack: &Path,
    manifest: &str,
    options: &CheckOptions,
    report: &mut Report,
) -> Result<()> {
    report.line("\n## Rust tests (release, built here): iree-hal-cuda, iree-runtime\n");
    let mut log = String::new();
    for name in manifest.lines().filter_map(|l| l.strip_prefix("test ")) {
        let binary = pack.join("tests").join(name);
        let out = proc::run(
            &binary,
            &["--test-threads=1".to_string(), "--nocapture".to_string()],
            root,
            Duration::from_secs(300),
        )?;
        let summary = out
            .stdout
            .lines()
            .rfind(|l| l.starts_with("test result:"))
            .unwrap_or("(no result line)")
            .to_string();
        // Tests that need what this machine lacks report themselves as
        // `ignored (reason)`: name them, so a skipped GPU test is never read
        // as a passing one.
        let ignored: Vec<&str> = out
            .stdout
            .lines()
            .filter(|l| l.starts_with("test ") && l.contains(" ... ignored"))
            .map(|l| l.trim_start_matches("test "))
            .collect();
        let gpu_tests = if ignored.is_empty() {
            String::new()
        } else {
            format!("; ignored: {}", ignored.join("; "))
        };
        if out.exit_code == 0 {
            report.line(format!("- {name}: {summary}{gpu_tests}"));
        } else {
            report.failures += 1;
            report.line(format!(
                "- {name}: FAILED (exit {}): {summary}",
                out.exit_code
            ));
        }
        writeln!(
            log,
            "==== {name} (exit {})\n{}\n{}",
            out.exit_code, out.stdout, out.stderr
        )
        .unwrap();
    }
    let path = options.out.join("rust-tests.txt");
    std::fs::write(&path, log).map_err(io_err("writing", &path))?;
    Ok(())
}

/// `iree_rust.runtime` on `cuda`, from the unpacked wheel.
fn python(root: &Path, pack: &Path, options: &CheckOptions, report: &mut Report) -> Result<()> {
    report.line("\n## Python: iree_rust.runtime on cuda\n");
    let mut cmd = Command::new("python3");
    cmd.arg(pack.join("python_check.py"))
        .arg(pack.join("testdata/cuda/kernels.vmfb"))
        .env("PYTHONPATH", pack.join("python"))
        .current_dir(root);
    let out = cmd.output().map_err(|e| format!("running python3: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in stdout.lines() {
        report.line(format!("    {line}"));
    }
    if !out.status.success() {
        report.failures += 1;
        report.line(format!(
            "FAILED ({}):\n```\n{}\n```",
            out.status,
            tail(&stderr, 20)
        ));
    }
    let _ = options;
    Ok(())
}

/// The models: outputs compared bit for bit, then per-call time.
fn models(
    pack: &Path,
    work: &Path,
    manifest: &str,
    report: &mut Report,
    ours: &dyn Fn(&str) -> PathBuf,
    upstream: &dyn Fn(&str) -> PathBuf,
) -> Result<()> {
    report.line("\n## Models on cuda: outputs bit for bit, per-call time (iree-benchmark-module, median of medians)\n");
    report.line("| model | target | outputs | upstream ms/call | ours ms/call | ours/upstream | upstream run s | ours run s |");
    report.line("|---|---|---|---|---|---|---|---|");
    for line in manifest.lines() {
        if let Some(rest) = line.strip_prefix("model-skipped ") {
            report.line(format!("| {rest} | | skipped: did not compile | | | | | |"));
            continue;
        }
        let Some(rest) = line.strip_prefix("model ") else {
            continue;
        };
        // The function name comes last and may hold spaces.
        let fields: Vec<&str> = rest.splitn(5, ' ').collect();
        let [name, target, outputs, inputs, function] = fields[..] else {
            continue;
        };
        let outputs: usize = outputs.parse().unwrap_or(0);
        let dir = pack.join("models").join(name);
        let dir = copy_dir(&dir, &work.join("models").join(name))?;
        let mut base = vec![
            "--device=cuda".to_string(),
            format!("--module={name}.vmfb"),
            format!("--function={function}"),
        ];
        base.extend(inputs.split(',').map(|f| format!("--input=@{f}")));
        let run_args = |tag: &str| {
            let mut a = base.clone();
            a.extend((0..outputs).map(|i| format!("--output=@{tag}.out{i}.npy")));
            a
        };
        let timed = |tool: &Path, tag: &str| -> Result<(Duration, Vec<Vec<u8>>)> {
            let start = Instant::now();
            let out = proc::run(tool, &run_args(tag), &dir, Duration::from_secs(300))?;
            let wall = start.elapsed();
            if out.exit_code != 0 {
                return Err(format!("exit {}: {}", out.exit_code, tail(&out.stderr, 5)));
            }
            let files = (0..outputs)
                .map(|i| {
                    std::fs::read(dir.join(format!("{tag}.out{i}.npy"))).map_err(|e| e.to_string())
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((wall, files))
        };
        let up_run = timed(&upstream("iree-run-module"), "upstream");
        let our_run = timed(&ours("iree-run-module"), "ours");
        let (up_wall, our_wall, compared) = match (&up_run, &our_run) {
            (Ok((uw, uf)), Ok((ow, of))) => {
                let same = uf == of;
                if !same {
                    report.failures += 1;
                }
                (
                    format!("{:.2}", uw.as_secs_f64()),
                    format!("{:.2}", ow.as_secs_f64()),
                    if same {
                        "identical".to_string()
                    } else {
                        "DIFFER".to_string()
                    },
                )
            }
            (u, o) => {
                report.failures += 1;
                (
                    u.as_ref()
                        .map(|_| "ok".to_string())
                        .unwrap_or_else(|e| format!("upstream failed: {e}")),
                    o.as_ref()
                        .map(|_| "ok".to_string())
                        .unwrap_or_else(|e| format!("ours failed: {e}")),
                    "n/a".to_string(),
                )
            }
        };
        // Per-call time: alternating, two rounds of three repetitions.
        let mut bench = base.clone();
        bench.extend([
            "--benchmark_repetitions=3".to_string(),
            "--benchmark_min_warmup_time=0.2".to_string(),
            "--benchmark_format=json".to_string(),
        ]);
        let per_call = |tool: &Path| -> Option<f64> {
            let out = proc::run(tool, &bench, &dir, Duration::from_secs(120)).ok()?;
            crate::tools::median_real_time_ms(&out.stdout)
        };
        let (mut up, mut us) = (Vec::new(), Vec::new());
        for round in 0..2 {
            if round % 2 == 0 {
                up.extend(per_call(&upstream("iree-benchmark-module")));
                us.extend(per_call(&ours("iree-benchmark-module")));
            } else {
                us.extend(per_call(&ours("iree-benchmark-module")));
                up.extend(per_call(&upstream("iree-benchmark-module")));
            }
        }
        let median = |v: &mut Vec<f64>| -> Option<f64> {
            v.sort_by(|a, b| a.total_cmp(b));
            v.get(v.len() / 2).copied()
        };
        let (u, o) = (median(&mut up), median(&mut us));
        let fmt = |v: Option<f64>| {
            v.map(|v| format!("{v:.3}"))
                .unwrap_or_else(|| "failed".to_string())
        };
        let ratio = match (u, o) {
            (Some(u), Some(o)) => format!("{:.2}", o / u),
            _ => {
                report.failures += 1;
                "n/a".to_string()
            }
        };
        report.line(format!(
            "| {name} | {target} | {compared} | {} | {} | {ratio} | {up_wall} | {our_wall} |",
            fmt(u),
            fmt(o)
        ));
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result<PathBuf> {
    for file in walk(from)? {
        copy(&file, &to.join(file.strip_prefix(from).unwrap()))?;
    }
    Ok(to.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_flags_become_cuda_flags() {
        let source = "// COMPILE: --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic --iree-input-demote-f64-to-f32=false\nfunc.func @f() { return }\n";
        assert_eq!(
            cuda_compile_flags(source),
            Some(vec!["--iree-input-demote-f64-to-f32=false".to_string()])
        );
        assert_eq!(cuda_compile_flags("// COMPILE: --compile-mode=vm\n"), None);
        assert_eq!(
            cuda_compile_flags(
                "// COMPILE: --iree-execution-model=inline-static --iree-hal-target-device=local\n"
            ),
            None
        );
    }
}
