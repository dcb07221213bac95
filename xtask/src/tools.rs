//! Recordings and differentials of the inspection tools against upstream's:
//!
//! * `record-cpuinfo`: records this machine's CPUID answers and upstream's
//!   `iree-cpuinfo` output under `testdata/tools/cpuinfo/`, so that
//!   `cargo test -p iree-cpuinfo` checks our detection without the venv;
//! * `dump-diff`: upstream's and our `iree-dump-module` on every `.vmfb`
//!   under `testdata/`; `--record` refreshes the upstream dumps that
//!   `cargo test -p iree-dump-module` checks without the venv.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{proc, repo_root, venv, Result};

/// Where the tool recordings live.
fn tools_testdata(root: &Path) -> std::path::PathBuf {
    root.join("testdata").join("tools")
}

/// `cargo xtask record-flags`: records the flag listing of upstream's `--help` for each of
/// [`iree_tooling::testcases::FLAG_TOOLS`] into `testdata/tools/flags/<tool>.flags`: the lines from
/// the first `# ===` section rule on that are comments, flags or blank,
/// which upstream's own parser reads as a flagfile. The tools' tests pass
/// each file as `--flagfile=` and expect every flag to be accepted, and
/// `docs/flags.md` must list every flag in them.
pub fn record_flags() -> Result<bool> {
    let root = repo_root();
    let venv = venv::ensure(&root)?;
    let dir = tools_testdata(&root).join("flags");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    for tool in iree_tooling::testcases::FLAG_TOOLS {
        let out = proc::run(
            &venv.runtime_libs.join(tool),
            &["--help".to_string()],
            &root,
            Duration::from_secs(30),
        )?;
        let listing: String = out
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with("# ==="))
            .filter(|l| l.is_empty() || l.starts_with('#') || l.starts_with("--"))
            .filter(|l| !l.starts_with("--help"))
            .map(|l| format!("{l}\n"))
            .collect();
        let path = dir.join(format!("{tool}.flags"));
        std::fs::write(&path, listing).map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(true)
}

/// `cargo xtask record-cpuinfo`.
pub fn record_cpuinfo() -> Result<bool> {
    let root = repo_root();
    let venv = venv::ensure(&root)?;
    let out = proc::run(
        &venv.runtime_libs.join("iree-cpuinfo"),
        &[],
        &root,
        Duration::from_secs(30),
    )?;
    if out.exit_code != 0 {
        return Err(format!(
            "upstream iree-cpuinfo failed ({}): {}",
            out.exit_code, out.stderr
        ));
    }
    let dir = tools_testdata(&root).join("cpuinfo");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let arch = std::env::consts::ARCH;
    let write = |name: String, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
        Ok::<(), String>(())
    };
    write(
        format!("{arch}.cpuid"),
        &iree_cpuinfo::CpuidAnswers::read().to_text(),
    )?;
    write(format!("{arch}.expected.txt"), &out.stdout)?;
    Ok(true)
}

/// The modes `dump-diff` compares by default: `--output=` values, with
/// `-pretty` meaning `--pretty` too and `-offsets` `--bytecode_offsets`.
const DUMP_MODES: [&str; 6] = [
    "metadata",
    "flatbuffer-json",
    "flatbuffer-json-pretty",
    "disassembly",
    "disassembly-offsets",
    "all",
];

/// Recorded JSON and disassembly dumps are kept only when smaller than
/// this, so that the recordings stay small (metadata dumps are always
/// kept).
const MAX_RECORDED_JSON: usize = 16 << 10;

/// The `iree-dump-module` arguments of a mode.
pub fn dump_mode_args(mode: &str) -> Vec<String> {
    if let Some(output) = mode.strip_suffix("-pretty") {
        vec![format!("--output={output}"), "--pretty".to_string()]
    } else if let Some(output) = mode.strip_suffix("-offsets") {
        vec![
            format!("--output={output}"),
            "--bytecode_offsets".to_string(),
        ]
    } else {
        vec![format!("--output={mode}")]
    }
}

/// Every `.vmfb` under `dir`, recursively, sorted.
fn vmfbs_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| format!("reading {}: {e}", dir.display()))?
                .path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "vmfb") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The modules whose upstream dumps are recorded for `cargo test -p
/// iree-dump-module`: the first `.vmfb` (by name) of every directory, so
/// every suite and target format is represented at a modest size.
fn representative(modules: &[PathBuf]) -> Vec<&PathBuf> {
    let mut seen = std::collections::BTreeSet::new();
    modules
        .iter()
        .filter(|m| seen.insert(m.parent().map(Path::to_path_buf)))
        .collect()
}

/// Where the recorded upstream dump of `module` (a path under `testdata/`)
/// in `mode` lives: `testdata/tools/dump-module/<path>.<mode>.txt`.
pub fn recorded_dump_path(root: &Path, module: &Path, mode: &str) -> Result<PathBuf> {
    let testdata = root.join("testdata");
    let relative = module
        .strip_prefix(&testdata)
        .map_err(|_| format!("{} is not under testdata/", module.display()))?;
    let mut name = relative.as_os_str().to_os_string();
    name.push(format!(".{mode}.txt"));
    Ok(tools_testdata(root).join("dump-module").join(name))
}

/// `cargo xtask dump-diff [--output MODE]... [--record] [-v]`: runs
/// upstream's and our `iree-dump-module` on every `.vmfb` under `testdata/`
/// and compares stdout and success, printing `N passed, N failed`.
/// `--record` also rewrites the recorded upstream dumps of
/// [`representative`] modules.
pub fn dump_diff(args: &[String]) -> Result<bool> {
    let mut modes: Vec<String> = Vec::new();
    let mut record = false;
    let mut verbose = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--output" => modes.push(args.next().ok_or("--output needs a mode")?.clone()),
            "--record" => record = true,
            "-v" | "--verbose" => verbose = true,
            other => return Err(format!("dump-diff: unknown argument `{other}`")),
        }
    }
    if modes.is_empty() {
        modes = DUMP_MODES.iter().map(|m| m.to_string()).collect();
    }
    let root = repo_root();
    let venv = venv::ensure(&root)?;
    let ours = crate::conformance::build_release_tool(&root, "iree-dump-module")?;
    let upstream = venv.iree_dump_module();
    let modules: Vec<PathBuf> = vmfbs_under(&root.join("testdata"))?
        .into_iter()
        .filter(|m| !m.starts_with(tools_testdata(&root)))
        .collect();
    let recorded = representative(&modules);
    let (mut passed, mut failed) = (0, 0);
    for mode in &modes {
        for module in &modules {
            let mut args = dump_mode_args(mode);
            args.push(module.display().to_string());
            let timeout = Duration::from_secs(60);
            let theirs = proc::run(&upstream, &args, &root, timeout)?;
            let mine = proc::run(&ours, &args, &root, timeout)?;
            let name = module.strip_prefix(&root).unwrap_or(module).display();
            let same_success = (theirs.exit_code == 0) == (mine.exit_code == 0);
            if theirs.stdout == mine.stdout && same_success {
                passed += 1;
                if verbose {
                    println!("ok   {mode} {name}");
                }
            } else {
                failed += 1;
                println!(
                    "FAIL {mode} {name} (exit {} upstream, {} ours){}",
                    theirs.exit_code,
                    mine.exit_code,
                    first_difference(&theirs.stdout, &mine.stdout)
                );
            }
            let small = mode == "metadata" || theirs.stdout.len() < MAX_RECORDED_JSON;
            if record && recorded.contains(&module) && theirs.exit_code == 0 && small {
                let path = recorded_dump_path(&root, module, mode)?;
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("creating {}: {e}", dir.display()))?;
                }
                std::fs::write(&path, &theirs.stdout)
                    .map_err(|e| format!("writing {}: {e}", path.display()))?;
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

/// `: line N: upstream `...`, ours `...`` for the first differing line, or
/// nothing when the texts are equal.
fn first_difference(theirs: &str, ours: &str) -> String {
    let mut a = theirs.lines();
    let mut b = ours.lines();
    for line in 1.. {
        match (a.next(), b.next()) {
            (None, None) => return String::new(),
            (x, y) if x != y => {
                return format!(
                    ": line {line}: upstream `{}`, ours `{}`",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                )
            }
            _ => {}
        }
    }
    String::new()
}

/// Per-call workloads for `iree-benchmark-module`: a name, the testdata
/// suite to run in and the arguments.
const PER_CALL_WORKLOADS: &[(&str, &str, &[&str])] = &[
    (
        "tiny dispatch, local-sync",
        "llvm-cpu",
        &[
            "--device=local-sync",
            "--module=async_elementwise.vmfb",
            "--function=add",
            "--input=4xf32=1 2 3 4",
            "--input=4xf32=0.5",
        ],
    ),
    (
        "tiny dispatch, local-task",
        "llvm-cpu",
        &[
            "--device=local-task",
            "--module=async_elementwise.vmfb",
            "--function=add",
            "--input=4xf32=1 2 3 4",
            "--input=4xf32=0.5",
        ],
    ),
    (
        "VM-only call (call_add3)",
        "vm",
        &[
            "--module=calls.vmfb",
            "--function=call_add3",
            "--input=1",
            "--input=2",
            "--input=3",
        ],
    ),
];

/// The median `real_time` of a Google Benchmark JSON report (the first
/// benchmark's `median` aggregate), in milliseconds whatever its
/// `time_unit`.
pub(crate) fn median_real_time_ms(json: &str) -> Option<f64> {
    let block = json.split("\"aggregate_name\": \"median\"").nth(1)?;
    let value: f64 = block
        .split("\"real_time\": ")
        .nth(1)?
        .split([',', '\n'])
        .next()?
        .trim()
        .parse()
        .ok()?;
    let unit = block.split("\"time_unit\": \"").nth(1)?.split('"').next()?;
    Some(match unit {
        "ns" => value / 1e6,
        "us" => value / 1e3,
        "ms" => value,
        "s" => value * 1e3,
        _ => return None,
    })
}

/// Per-dispatch workloads for `iree-benchmark-executable`: a name, the
/// device and the workgroup count, dispatching the elementwise `mul`
/// (three 4xf32 bindings) of `llvm-cpu/expected_output.vmfb`.
const PER_DISPATCH_WORKLOADS: &[(&str, &str, &str)] = &[
    ("dispatch, 1 workgroup, local-sync", "local-sync", "1,1,1"),
    ("dispatch, 1 workgroup, local-task", "local-task", "1,1,1"),
    ("dispatch, 2 workgroups, local-task", "local-task", "2,1,1"),
    (
        "dispatch, 64 workgroups, local-task",
        "local-task",
        "64,1,1",
    ),
];

/// Models whose per-call time `cargo xtask bench` compares, on each of
/// [`PER_CALL_MODEL_DEVICES`].
const PER_CALL_MODELS: [&str; 2] = ["silero-vad", "ppocr-cls"];
const PER_CALL_MODEL_DEVICES: [&str; 2] = ["local-sync", "local-task"];

/// The per-call part of `cargo xtask bench`: upstream's and our
/// `iree-benchmark-module` on [`PER_CALL_WORKLOADS`] and on
/// [`PER_CALL_MODELS`], and `iree-benchmark-executable` on
/// [`PER_DISPATCH_WORKLOADS`]: `rounds` runs per tool, alternating which
/// goes first, each the median of 3 repetitions of 0.2 s; the table gives
/// the median over the rounds of the time per call (per dispatch).
pub fn bench_per_call(rounds: usize, wanted: &dyn Fn(&str) -> bool) -> Result<(bool, Vec<Ratio>)> {
    let root = repo_root();
    let venv = venv::ensure(&root)?;
    let common = [
        "--benchmark_min_time=0.2s".to_string(),
        "--benchmark_repetitions=3".to_string(),
        "--benchmark_format=json".to_string(),
    ];
    let mut calls: Vec<Workload> = PER_CALL_WORKLOADS
        .iter()
        .map(|(name, suite, args)| Workload {
            name: name.to_string(),
            dir: root.join("testdata").join(suite),
            args: args.iter().map(|a| a.to_string()).collect(),
        })
        .collect();
    for model in crate::models::MODELS
        .iter()
        .filter(|m| PER_CALL_MODELS.contains(&m.name))
    {
        let names = PER_CALL_MODEL_DEVICES.map(|device| format!("{}, {device}", model.name));
        if !names.iter().any(|n| wanted(n)) {
            continue;
        }
        let prepared = crate::models::prepare(&root, &venv, model)?;
        for (device, name) in PER_CALL_MODEL_DEVICES.iter().zip(names) {
            calls.push(Workload {
                name,
                dir: prepared.dir.clone(),
                args: [
                    format!("--device={device}"),
                    format!("--function={}", prepared.function),
                ]
                .into_iter()
                .chain(prepared.args.iter().cloned())
                .collect(),
            });
        }
    }
    for call in &mut calls {
        call.args.extend(common.iter().cloned());
        call.args.push("--time_unit=ns".to_string());
    }
    let our_module_tool = crate::conformance::build_release_tool(&root, "iree-benchmark-module")?;
    let (module_ok, per_call) = median_table(
        &format!(
            "per call (iree-benchmark-module, median of {rounds} alternating runs of 3 x 0.2s)"
        ),
        &venv.runtime_libs.join("iree-benchmark-module"),
        &our_module_tool,
        &calls,
        rounds,
        wanted,
    );
    let floor_ok = breakdown_table(&venv.runtime_libs, &calls, &per_call);
    let executable = root.join("target/bench/expected_output_embedded_elf_x86_64.so");
    extract_executable(
        &root.join("testdata/llvm-cpu/expected_output.vmfb"),
        "embedded-elf-x86_64",
        &executable,
    )?;
    let dispatches: Vec<Workload> = PER_DISPATCH_WORKLOADS
        .iter()
        .map(|(name, device, count)| Workload {
            name: name.to_string(),
            dir: root.clone(),
            args: [
                format!("--device={device}"),
                "--executable_format=embedded-elf-x86_64".to_string(),
                format!("--executable_file={}", executable.display()),
                "--binding=4xf32=1,2,3,4".to_string(),
                "--binding=4xf32=100,200,300,400".to_string(),
                "--binding=4xf32=0,0,0,0".to_string(),
                format!("--workgroup_count={count}"),
            ]
            .into_iter()
            .chain(common.iter().cloned())
            .collect(),
        })
        .collect();
    let (executable_ok, per_dispatch) = median_table(
        &format!("per dispatch (iree-benchmark-executable, median of {rounds} alternating runs of 3 x 0.2s)"),
        &venv.runtime_libs.join("iree-benchmark-executable"),
        &crate::conformance::build_release_tool(&root, "iree-benchmark-executable")?,
        &dispatches,
        rounds,
        wanted,
    );
    let ratios = per_call
        .iter()
        .map(|m| Ratio {
            kind: if m.name.starts_with("tiny dispatch") {
                "dispatch path"
            } else if m.name.starts_with("VM-only") {
                "interpreter"
            } else {
                "model call"
            },
            name: m.name.clone(),
            ratio: m.ours / m.upstream,
        })
        .chain(per_dispatch.iter().map(|m| Ratio {
            kind: "dispatch path",
            name: m.name.clone(),
            ratio: m.ours / m.upstream,
        }))
        .collect();
    Ok((module_ok && floor_ok && executable_ok, ratios))
}

/// One side-by-side result for `cargo xtask bench`'s closing summary:
/// what it measures (`interpreter`, `dispatch path`, `Python call`, ...),
/// the workload and ours/upstream.
pub struct Ratio {
    /// The part of the runtime it measures.
    pub kind: &'static str,
    /// The workload.
    pub name: String,
    /// Ours over upstream (time).
    pub ratio: f64,
}

/// One workload's medians, in ns per call.
struct Medians {
    name: String,
    upstream: f64,
    ours: f64,
}

/// For each model workload measured in `per_call`: where a call's time
/// goes, ours and upstream's side by side. Both runtimes run the same
/// kernels (the same `.vmfb`), so one kernel time serves both: upstream's
/// own profile of the call (`--device_profiling_mode=host-execution`,
/// 3 x 200 calls, read with its `iree-profile statistics`: the time inside
/// dispatches per call; on local-task the dispatches' spans, with the
/// workers running each dispatch's tiles). A runtime's own share is its
/// median time per call (the table above) minus that. On local-sync one
/// thread runs every kernel in turn, so the kernels are the floor of any
/// runtime running the `.vmfb` ("floor": their share of upstream's call).
/// False if a run failed.
fn breakdown_table(runtime_libs: &Path, calls: &[Workload], per_call: &[Medians]) -> bool {
    let models: Vec<(&Workload, &Medians)> = per_call
        .iter()
        .filter(|m| !m.name.starts_with("tiny") && !m.name.starts_with("VM-only"))
        .filter_map(|m| Some((calls.iter().find(|w| w.name == m.name)?, m)))
        .collect();
    if models.is_empty() {
        return true;
    }
    println!(
        "\nper-call breakdown (kernels: upstream's own profile, 3 x 200 calls; runtime = call - kernels):\n\
         {:<32} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>6}",
        "workload", "up call", "our call", "kernels", "up rt", "our rt", "rt ratio", "floor"
    );
    let profile = std::env::temp_dir().join(format!("xtask-floor-{}.ireeprof", std::process::id()));
    let mut all_ok = true;
    for (workload, medians) in models {
        let tool = runtime_libs.join("iree-benchmark-module");
        match kernel_ns_per_call(&tool, runtime_libs, workload, &profile) {
            Ok(kernels) => {
                let (up_runtime, our_runtime) =
                    (medians.upstream - kernels, medians.ours - kernels);
                let us = |ns: f64| format!("{:.1}us", ns / 1e3);
                println!(
                    "{:<32} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8.3} {:>6.3}",
                    workload.name,
                    us(medians.upstream),
                    us(medians.ours),
                    us(kernels),
                    us(up_runtime),
                    us(our_runtime),
                    our_runtime / up_runtime,
                    kernels / medians.upstream,
                );
            }
            Err(why) => {
                all_ok = false;
                println!("{:<32} FAILED: {why}", workload.name);
            }
        }
    }
    let _ = std::fs::remove_file(&profile);
    all_ok
}

/// The time `tool` (an `iree-benchmark-module`) spends inside dispatches
/// per call of `workload`, by its own host-execution profile written to
/// `profile` and read with upstream's `iree-profile statistics`.
fn kernel_ns_per_call(
    tool: &Path,
    runtime_libs: &Path,
    workload: &Workload,
    profile: &Path,
) -> Result<f64> {
    let mut args: Vec<String> = workload
        .args
        .iter()
        .filter(|a| !a.starts_with("--benchmark_min_time"))
        .cloned()
        .collect();
    args.extend([
        "--benchmark_min_time=200x".to_string(),
        "--device_profiling_mode=host-execution".to_string(),
        format!("--device_profiling_output={}", profile.display()),
    ]);
    let run = proc::run(tool, &args, &workload.dir, Duration::from_secs(300))?;
    if run.exit_code != 0 {
        return Err(format!("exit {}: {}", run.exit_code, run.stderr.trim()));
    }
    let stats = proc::run(
        &runtime_libs.join("iree-profile"),
        &["statistics".to_string(), profile.display().to_string()],
        &workload.dir,
        Duration::from_secs(60),
    )?;
    if stats.exit_code != 0 {
        return Err(format!(
            "iree-profile exit {}: {}",
            stats.exit_code,
            stats.stderr.trim()
        ));
    }
    let (calls, _) = queue_total_ns(&stats.stdout, "execute")
        .ok_or("no execute row in iree-profile statistics")?;
    let (_, kernels_ns) = queue_total_ns(&stats.stdout, "dispatch")
        .ok_or("no dispatch row in iree-profile statistics")?;
    Ok(kernels_ns / calls.max(1) as f64)
}

/// The count and total (in ns) of the `host_execute_queue` row of
/// operation `kind` (`execute`, `dispatch`) in `iree-profile statistics`
/// text output.
fn queue_total_ns(stats: &str, kind: &str) -> Option<(u64, f64)> {
    let line = stats.lines().find(|line| {
        let mut words = line.split_whitespace();
        words.next() == Some("host_execute_queue") && words.nth(2) == Some(kind)
    })?;
    let field = |key: &str| {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .map(str::to_string)
    };
    let count = field("count=")?.parse().ok()?;
    let total = field("total=")?;
    let unit = line
        .split_whitespace()
        .skip_while(|w| !w.starts_with("total="))
        .nth(1)?;
    let scale = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    };
    Some((count, total.parse::<f64>().ok()? * scale))
}

/// One benchmark tool invocation: a name, where it runs and its flags.
struct Workload {
    name: String,
    dir: std::path::PathBuf,
    args: Vec<String>,
}

/// Runs upstream's and our tool `rounds` times each on each workload,
/// alternating which goes first, and prints the median over the rounds of
/// each tool's median `real_time` and their ratio; false if any run failed.
fn median_table(
    title: &str,
    upstream: &Path,
    ours: &Path,
    workloads: &[Workload],
    rounds: usize,
    wanted: &dyn Fn(&str) -> bool,
) -> (bool, Vec<Medians>) {
    println!(
        "\n{title}:\n{:<40} {:>10} {:>10} {:>7}",
        "workload", "upstream", "ours", "ratio"
    );
    let mut all_ok = true;
    let mut medians = Vec::new();
    for workload in workloads.iter().filter(|w| wanted(&w.name)) {
        let time = |tool: &Path| -> Result<f64> {
            let out = proc::run(
                tool,
                &workload.args,
                &workload.dir,
                Duration::from_secs(300),
            )?;
            if out.exit_code != 0 {
                return Err(format!("exit {}: {}", out.exit_code, out.stderr.trim()));
            }
            median_real_time_ms(&out.stdout)
                .map(|ms| ms * 1e6)
                .ok_or_else(|| "no median in the JSON report".to_string())
        };
        let measured = (0..rounds.max(1)).try_fold(
            (Vec::new(), Vec::new()),
            |(mut up, mut us), round| -> Result<(Vec<f64>, Vec<f64>)> {
                if round % 2 == 0 {
                    up.push(time(upstream)?);
                    us.push(time(ours)?);
                } else {
                    us.push(time(ours)?);
                    up.push(time(upstream)?);
                }
                Ok((up, us))
            },
        );
        let name = &workload.name;
        match measured {
            Ok((up, us)) => {
                let (mut up, mut us) = (up, us);
                let (up, us) = (median(&mut up), median(&mut us));
                println!("{name:<40} {:>8.0}ns {:>8.0}ns {:>7.3}", up, us, us / up);
                medians.push(Medians {
                    name: name.clone(),
                    upstream: up,
                    ours: us,
                });
            }
            Err(why) => {
                all_ok = false;
                println!("{name:<40} FAILED: {why}");
            }
        }
    }
    (all_ok, medians)
}

/// The median of `values` (the mean of the middle two for an even count).
pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Writes the executable of `format` in the module at `vmfb` (the rodata
/// segment after the one naming the format, as the compiler lays them
/// out) to `out`.
pub(crate) fn extract_executable(vmfb: &Path, format: &str, out: &Path) -> Result<()> {
    let file = std::fs::read(vmfb).map_err(|e| format!("reading {}: {e}", vmfb.display()))?;
    let module = iree_vm_bytecode::format::parse_module(&file).map_err(|e| e.to_string())?;
    let bytes = (0..module.rodata.len())
        .find(|&i| module.rodata_bytes(&file, i) == Some(format.as_bytes()))
        .and_then(|i| module.rodata_bytes(&file, i + 1))
        .ok_or_else(|| format!("no '{format}' executable in {}", vmfb.display()))?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    }
    std::fs::write(out, bytes).map_err(|e| format!("writing {}: {e}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_from_benchmark_json() {
        let json = r#"{"benchmarks": [
          {"name": "BM_f/process_time/real_time_mean", "aggregate_name": "mean", "real_time": 9.0, "time_unit": "ms"},
          {"name": "BM_f/process_time/real_time_median", "aggregate_name": "median",
           "real_time": 2.5e+02, "cpu_time": 1.0, "time_unit": "us"}
        ]}"#;
        assert_eq!(median_real_time_ms(json), Some(0.25));
        assert_eq!(median_real_time_ms("{}"), None);
    }

    #[test]
    fn queue_totals_from_profile_statistics() {
        let stats = "  host_execute_queue p=0 q=0 alloca  count=1000 total=335.686 us avg=335 ns\n\
                     \x20 host_execute_queue p=0 q=0 dispatch  count=11000 total=127.126 ms avg=11.556 us\n\
                     \x20 host_execute_queue p=0 q=0 execute  count=500 total=130.899 ms avg=261.798 us\n";
        assert_eq!(queue_total_ns(stats, "execute"), Some((500, 130.899e6)));
        assert_eq!(queue_total_ns(stats, "dispatch"), Some((11000, 127.126e6)));
        assert_eq!(queue_total_ns(stats, "fill"), None);
    }
}
