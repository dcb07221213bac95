//! `cargo xtask replay-diff`: HAL replay, ours against upstream's, over
//! every testdata case that runs on a local device, on `local-sync` and on
//! `local-task`. For each case and device:
//!
//! * upstream's `iree-run-module --device_replay_output=` captures it, and
//!   our `iree-dump-replay` must print exactly what upstream's prints
//!   (`--format=text` and `--format=jsonl`, stdout and success), and our
//!   `iree-run-replay` replays it with exit 0 (or fails where upstream's
//!   own replay of it fails: captures of cases whose device work fails);
//! * our `iree-run-module --device_replay_output=` captures it, upstream's
//!   `iree-dump-replay` dumps it (text and jsonl) and upstream's
//!   `iree-run-replay` replays it with exit 0 (as does ours);
//! * each capture is replayed once more in this process, on a fresh device
//!   of the same name, and every tensor the capturing run printed must be
//!   among the bytes that replay reads back to the host (a window of a
//!   host read that prints as the same line).
//!
//! With `--record`, the cases of [`RECORDED`] are captured again,
//! hermetically (parameter bytes go into the capture), by upstream into
//! `testdata/replay/upstream/` and by ours into `testdata/replay/ours/`,
//! each with upstream's dumps of it next to it, for `cargo test -p
//! iree-dump-replay` and `-p iree-hal-replay`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use iree_tooling::testcases::Case;

use crate::proc::{self, Output};
use crate::{cli, repo_root, venv, Result};

/// The local devices every case runs on.
const DEVICES: &[&str] = &["local-sync", "local-task"];

/// The cases (`suite/group/name`, device) whose upstream captures are
/// kept under `testdata/replay/upstream`: small ones that together use
/// every payload upstream's runtime writes for CPU programs.
pub const RECORDED: &[(&str, &str)] = &[
    ("llvm-cpu/ew_f32/add", "local-task"),
    ("llvm-cpu/ew_f32/add", "local-sync"),
    ("llvm-cpu/scalars_mixed/fill", "local-sync"),
    ("llvm-cpu/scalars_mixed/first_i64", "local-task"),
    ("vmvx/globals_state/read_acc", "local-sync"),
    ("vmvx/writable_constant/into_constant_sync", "local-sync"),
    ("vm-hal/ref_types/view_as_buffer", "local-sync"),
    ("params/io_gather/splat", "local-sync"),
    ("params/io_gather/parameter_range", "local-sync"),
];

/// The dump formats compared.
const FORMATS: &[&str] = &["text", "jsonl"];

struct Tools {
    upstream_run: PathBuf,
    upstream_dump: PathBuf,
    upstream_replay: PathBuf,
    run: PathBuf,
    dump: PathBuf,
    replay: PathBuf,
}

/// One case on one device.
struct Job<'a> {
    case: &'a Case,
    device: &'static str,
}

impl Job<'_> {
    fn id(&self) -> String {
        format!("{}@{}", self.case.id(), self.device)
    }

    /// The case's arguments on this job's device.
    fn args(&self) -> Vec<String> {
        let mut args: Vec<String> = self
            .case
            .args
            .iter()
            .filter(|a| !a.starts_with("--device="))
            .cloned()
            .collect();
        args.push(format!("--device={}", self.device));
        args
    }

    /// The case's `--output_max_element_count` (the tools' default 1024).
    fn output_max_element_count(&self) -> usize {
        self.case
            .args
            .iter()
            .rev()
            .find_map(|a| a.strip_prefix("--output_max_element_count="))
            .and_then(|v| v.parse().ok())
            .unwrap_or(1024)
    }

    /// A file name for this job's artifacts.
    fn stem(&self) -> String {
        format!(
            "{}.{}.{}.{}",
            self.case.suite, self.case.group, self.case.name, self.device
        )
    }
}

/// True for cases that run on a local device.
fn runs_on_local_device(case: &Case) -> bool {
    case.args.iter().any(|a| a.starts_with("--device=local-"))
}

fn run(program: &Path, args: &[String], cwd: &Path) -> Result<Output> {
    proc::run(program, args, cwd, Duration::from_secs(120))
}

/// Builds our tools (release, as the other differentials run them).
fn build_tools(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = std::process::Command::new(cargo)
        .args(["build", "--release"])
        .args(TOOLS.iter().flat_map(|t| ["-p", t]))
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building our replay tools failed ({status})"));
    }
    Ok(crate::conformance::target_dir(root).join("release"))
}

/// Our tools this command runs.
const TOOLS: &[&str] = &["iree-run-module", "iree-dump-replay", "iree-run-replay"];

/// The checks of one job: (check name, failure message or None).
fn check(job: &Job<'_>, tools: &Tools, work: &Path) -> Result<Vec<(String, Option<String>)>> {
    let mut results = Vec::new();
    let capture = work.join(format!("{}.upstream.ireereplay", job.stem()));
    let _ = std::fs::remove_file(&capture);
    let mut args = job.args();
    args.push(format!("--device_replay_output={}", capture.display()));
    let upstream_run = run(&tools.upstream_run, &args, &job.case.dir)?;
    if !capture.exists() {
        // Upstream made no device (the case fails before): nothing to compare.
        return Ok(results);
    }
    for format in FORMATS {
        let args = vec![format!("--format={format}"), capture.display().to_string()];
        let theirs = run(&tools.upstream_dump, &args, work)?;
        let mine = run(&tools.dump, &args, work)?;
        let outcome =
            if theirs.stdout == mine.stdout && (theirs.exit_code == 0) == (mine.exit_code == 0) {
                None
            } else {
                Some(format!(
                    "exit {} upstream, {} ours{}",
                    theirs.exit_code,
                    mine.exit_code,
                    first_difference(&theirs.stdout, &mine.stdout)
                ))
            };
        results.push((format!("dump-{format}"), outcome));
    }
    // Our replay of upstream's capture succeeds, unless the capture holds
    // work that fails (the case's own error, seen only when the device ran
    // it): then upstream's replay fails too, and ours must as well.
    let args = vec![
        format!("--device={}", job.device),
        capture.display().to_string(),
    ];
    let mine = run(&tools.replay, &args, work)?;
    let outcome = if mine.exit_code == 0 {
        None
    } else {
        let theirs = run(&tools.upstream_replay, &args, work)?;
        (theirs.exit_code == 0).then(|| {
            format!(
                "exit {} ours, 0 upstream: {}",
                mine.exit_code,
                mine.stderr.lines().next().unwrap_or("")
            )
        })
    };
    let upstream_replay_fails = outcome.is_none() && mine.exit_code != 0;
    results.push(("replay-upstream-capture".to_string(), outcome));
    if !upstream_replay_fails {
        let budget = job.output_max_element_count();
        results.push((
            "reads-back-upstream-capture".to_string(),
            reads_back(&capture, job.device, &upstream_run.stdout, budget).err(),
        ));
    }

    // Our capture of the same run: upstream dumps it and replays it.
    let ours = work.join(format!("{}.ours.ireereplay", job.stem()));
    let _ = std::fs::remove_file(&ours);
    let mut args = job.args();
    args.push(format!("--device_replay_output={}", ours.display()));
    let captured = run(&tools.run, &args, &job.case.dir)?;
    if !ours.exists() {
        results.push((
            "our-capture".to_string(),
            Some(format!(
                "no capture written (exit {}): {}",
                captured.exit_code,
                captured.stderr.lines().next().unwrap_or("")
            )),
        ));
        return Ok(results);
    }
    for format in FORMATS {
        let args = vec![format!("--format={format}"), ours.display().to_string()];
        let theirs = run(&tools.upstream_dump, &args, work)?;
        let outcome = (theirs.exit_code != 0).then(|| {
            format!(
                "exit {}: {}",
                theirs.exit_code,
                theirs.stderr.lines().next().unwrap_or("")
            )
        });
        results.push((format!("upstream-dumps-our-capture-{format}"), outcome));
    }
    let args = vec![
        format!("--device={}", job.device),
        ours.display().to_string(),
    ];
    for (name, tool) in [
        ("upstream-replays-our-capture", &tools.upstream_replay),
        ("our-replay-of-our-capture", &tools.replay),
    ] {
        let out = run(tool, &args, work)?;
        // A run whose device work fails records that work; its replay fails
        // as the replay of upstream's own capture does.
        let outcome = (out.exit_code != 0 && !upstream_replay_fails).then(|| {
            format!(
                "exit {}: {}",
                out.exit_code,
                out.stderr.lines().next().unwrap_or("")
            )
        });
        results.push((name.to_string(), outcome));
    }
    if !upstream_replay_fails {
        let budget = job.output_max_element_count();
        results.push((
            "reads-back-our-capture".to_string(),
            reads_back(&ours, job.device, &captured.stdout, budget).err(),
        ));
    }
    Ok(results)
}

/// Replays `capture` on a fresh `device` in this process and checks that
/// every tensor the capturing run printed (`result[N]: hal.buffer_view`
/// and the line after it) is among the bytes the replay reads back to the
/// host: some window of a host read, printed with the run's
/// `--output_max_element_count`, is the printed line.
fn reads_back(capture: &Path, device: &str, stdout: &str, budget: usize) -> Result<()> {
    let lines: Vec<&str> = stdout.lines().collect();
    let printed: Vec<&str> = lines
        .windows(2)
        .filter(|pair| pair[0].ends_with(": hal.buffer_view"))
        .map(|pair| pair[1])
        .collect();
    if printed.is_empty() {
        return Ok(());
    }
    let bytes =
        std::fs::read(capture).map_err(|e| format!("reading {}: {e}", capture.display()))?;
    let plan = iree_hal_replay::Plan::new(&bytes).map_err(|e| e.to_string())?;
    let options = iree_tooling::run::RunOptions {
        devices: vec![device.to_string()],
        ..Default::default()
    };
    let devices = iree_tooling::replay::create_devices(&options).map_err(|e| e.to_string())?;
    let mut reads: Vec<Vec<u8>> = Vec::new();
    {
        let mut execute = iree_hal_replay::execute::ExecuteOptions {
            on_host_read: Some(Box::new(|read: &iree_hal_replay::execute::HostRead<'_>| {
                let mut data = vec![0u8; read.length as usize];
                read.buffer.read(read.offset, &mut data)?;
                reads.push(data);
                Ok(())
            })),
            ..Default::default()
        };
        plan.execute(&devices, &mut execute)
            .map_err(|e| format!("replay failed: {e}"))?;
    }
    for line in printed {
        TENSORS_READ_BACK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if !printed_tensor_read(line, &reads, budget)? {
            return Err(format!(
                "no host read of the replay holds `{}` ({} reads)",
                truncate(line, 80),
                reads.len()
            ));
        }
    }
    Ok(())
}

/// Printed tensors [`reads_back`] looked for (found or not).
static TENSORS_READ_BACK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether some window of `reads` prints as `line` (`2x2xf32=[1 2][3 4]`).
fn printed_tensor_read(line: &str, reads: &[Vec<u8>], budget: usize) -> Result<bool> {
    let (header, values) = line
        .split_once('=')
        .ok_or_else(|| format!("not a tensor: `{}`", truncate(line, 80)))?;
    let (shape, element_type) =
        iree_hal::parse_shape_and_element_type(header).map_err(|e| e.to_string())?;
    let count: usize = shape.iter().product();
    let Some(length) = element_type.packed_byte_count(count) else {
        return Ok(false);
    };
    // The first value as printed: a cheap filter before formatting a window.
    let first = values
        .trim_start_matches('[')
        .split([' ', ']'])
        .next()
        .unwrap_or("")
        .trim_end_matches("...");
    let step = element_type.dense_byte_count().max(1);
    for read in reads {
        if read.len() < length {
            continue;
        }
        for start in (0..=read.len() - length).step_by(step) {
            let window = &read[start..start + length];
            if count > 0 && !first.is_empty() && element_type.is_byte_aligned() {
                let mut value = String::new();
                if iree_hal::format_element(&window[..step], element_type, &mut value).is_err()
                    || value != first
                {
                    continue;
                }
            }
            if iree_hal::format_buffer_view(&shape, element_type, window, budget)
                .is_ok_and(|text| text == line)
            {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// `text`, cut to `max` characters.
fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// `: line N: upstream `...`, ours `...``, or nothing when equal.
fn first_difference(theirs: &str, ours: &str) -> String {
    let (mut a, mut b) = (theirs.lines(), ours.lines());
    for line in 1.. {
        match (a.next(), b.next()) {
            (None, None) => break,
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

/// Records the hermetic captures of each [`RECORDED`] case, upstream's
/// under `testdata/replay/upstream` and ours under `testdata/replay/ours`,
/// each with upstream's dumps of it.
fn record(cases: &[Case], tools: &Tools, root: &Path) -> Result<()> {
    for (side, runner) in [("upstream", &tools.upstream_run), ("ours", &tools.run)] {
        let dir = root.join("testdata/replay").join(side);
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        for (id, device) in RECORDED {
            let case = cases
                .iter()
                .find(|c| c.id() == *id)
                .ok_or_else(|| format!("recorded case {id} not found"))?;
            let job = Job { case, device };
            let capture = dir.join(format!("{}.ireereplay", job.stem()));
            let mut args = job.args();
            args.push(format!("--device_replay_output={}", capture.display()));
            // Parameter files are fd-backed: their bytes read through the HAL
            // go into the capture. (Upstream refuses capture-ranges for the
            // in-memory files other cases make.)
            if case.args.iter().any(|a| a.starts_with("--parameters=")) {
                args.push("--device_replay_file_policy=capture-ranges".to_string());
            }
            let out = run(runner, &args, &case.dir)?;
            let expected = case.load_expectation().map_err(|e| format!("{id}: {e}"))?;
            if out.exit_code != expected.exit_code {
                return Err(format!(
                    "{id}: the {side} capturing run exited {} (expected {}): {}",
                    out.exit_code, expected.exit_code, out.stderr
                ));
            }
            for format in FORMATS {
                let out = run(
                    &tools.upstream_dump,
                    &[format!("--format={format}"), capture.display().to_string()],
                    &dir,
                )?;
                if out.exit_code != 0 {
                    return Err(format!(
                        "upstream cannot dump {}: {}",
                        capture.display(),
                        out.stderr
                    ));
                }
                let path = dir.join(format!("{}.{format}.txt", job.stem()));
                std::fs::write(&path, &out.stdout)
                    .map_err(|e| format!("writing {}: {e}", path.display()))?;
            }
            println!("recorded {}", capture.display());
        }
    }
    Ok(())
}

/// Runs the command.
pub fn run_command(args: &[String]) -> Result<bool> {
    let mut rest = Vec::new();
    let mut record_files = false;
    for arg in args {
        if arg == "--record" {
            record_files = true;
        } else {
            rest.push(arg.clone());
        }
    }
    let options = cli::Options::parse(&rest)?;
    let root = repo_root();
    let venv = venv::ensure(&root)?;
    let bin = build_tools(&root)?;
    let tools = Tools {
        upstream_run: venv.iree_run_module(),
        upstream_dump: venv.runtime_libs.join("iree-dump-replay"),
        upstream_replay: venv.runtime_libs.join("iree-run-replay"),
        run: bin.join("iree-run-module"),
        dump: bin.join("iree-dump-replay"),
        replay: bin.join("iree-run-replay"),
    };
    // Both runtimes run live here, so suites whose recorded outputs only
    // describe the recording host (listed as ignored under `--recorded`) are
    // as comparable as any other.
    let selection = options.cases(&root)?;
    let cases: Vec<Case> = selection
        .cases
        .into_iter()
        .chain(selection.ignored)
        .collect();
    if record_files {
        record(&cases, &tools, &root)?;
    }
    let jobs: Vec<Job<'_>> = cases
        .iter()
        .filter(|c| runs_on_local_device(c))
        .flat_map(|case| DEVICES.iter().map(move |&device| Job { case, device }))
        .collect();
    let work = crate::conformance::target_dir(&root).join("replay-diff");
    std::fs::create_dir_all(&work).map_err(|e| format!("creating {}: {e}", work.display()))?;
    let outcomes = proc::par_map(&jobs, options.jobs, |job| check(job, &tools, &work));
    let (mut passed, mut failed) = (0usize, 0usize);
    for (job, outcome) in jobs.iter().zip(outcomes) {
        match outcome {
            Err(e) => {
                failed += 1;
                println!("FAIL {}: {e}", job.id());
            }
            Ok(checks) => {
                for (name, failure) in checks {
                    match failure {
                        None => {
                            passed += 1;
                            if options.verbose {
                                println!("ok   {name} {}", job.id());
                            }
                        }
                        Some(why) => {
                            failed += 1;
                            println!("FAIL {name} {}: {why}", job.id());
                        }
                    }
                }
            }
        }
    }
    println!(
        "{} printed tensors looked for in the replays' host reads",
        TENSORS_READ_BACK.load(std::sync::atomic::Ordering::Relaxed)
    );
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

#[cfg(test)]
mod tests {
    use super::printed_tensor_read;

    #[test]
    fn a_printed_tensor_is_found_in_a_window_of_a_read() {
        let mut read = vec![0xAAu8; 4];
        for v in [1.5f32, -2.0, 1000.5] {
            read.extend_from_slice(&v.to_le_bytes());
        }
        let reads = vec![vec![1u8, 2], read];
        assert!(printed_tensor_read("3xf32=1.5 -2 1000.5", &reads, 1024).unwrap());
        assert!(printed_tensor_read("2xf32=-2 1000.5", &reads, 1024).unwrap());
        assert!(printed_tensor_read("3xf32=1.5...", &reads, 1).unwrap());
        assert!(!printed_tensor_read("3xf32=1.5 -2 1000", &reads, 1024).unwrap());
        assert!(!printed_tensor_read("4xf32=1.5 -2 1000.5 0", &reads, 1024).unwrap());
        assert!(printed_tensor_read("not a tensor", &reads, 1024).is_err());
    }
}
