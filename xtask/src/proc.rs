//! Running tools: captured output, timeouts, and a small parallel map.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::Result;

/// How long one case may run before it is killed.
pub const CASE_TIMEOUT: Duration = Duration::from_secs(60);

/// The exit code recorded for a run that hit [`CASE_TIMEOUT`].
pub const TIMEOUT_EXIT_CODE: i32 = 124;

/// The outcome of one run.
#[derive(Debug, Clone)]
pub struct Output {
    /// The exit code; 128 + N for death by signal N; [`TIMEOUT_EXIT_CODE`]
    /// on timeout.
    pub exit_code: i32,
    /// The signal that ended the process, if any.
    pub signal: Option<i32>,
    /// Whether the run was killed for taking too long.
    pub timed_out: bool,
    /// Standard output (lossily decoded).
    pub stdout: String,
    /// Standard error (lossily decoded).
    pub stderr: String,
}

/// Runs `program args...` in `cwd` with stdin closed, capturing both output
/// streams, killing it after `timeout`.
pub fn run(program: &Path, args: &[String], cwd: &Path, timeout: Duration) -> Result<Output> {
    let (mut child, captured) = spawn_captured(program, args, cwd)?;
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {
                if start.elapsed() > timeout {
                    timed_out = true;
                    kill_group(child.id());
                    let _ = child.kill();
                    break child
                        .wait()
                        .map_err(|e| format!("waiting for {}: {e}", program.display()))?;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(format!("waiting for {}: {e}", program.display())),
        }
    };
    Ok(captured.finish(&status, timed_out))
}

/// The output streams of a running child, read on their own threads so
/// neither pipe can fill up and stall it.
struct Captured {
    stdout: std::thread::JoinHandle<Vec<u8>>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
}

/// Spawns `program args...` in `cwd` with stdin closed, in its own process
/// group (so a timeout kills whatever it spawned too), capturing both
/// output streams.
fn spawn_captured(
    program: &Path,
    args: &[String],
    cwd: &Path,
) -> Result<(std::process::Child, Captured)> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            buf
        })
    };
    let captured = Captured {
        stdout: read_all(Box::new(child.stdout.take().expect("piped stdout"))),
        stderr: read_all(Box::new(child.stderr.take().expect("piped stderr"))),
    };
    Ok((child, captured))
}

impl Captured {
    /// Waits for both streams and builds the run's [`Output`] from how the
    /// child ended.
    fn finish(self, status: &std::process::ExitStatus, timed_out: bool) -> Output {
        let text = |h: std::thread::JoinHandle<Vec<u8>>| {
            String::from_utf8_lossy(&h.join().unwrap_or_default()).into_owned()
        };
        let signal = signal_of(status);
        let exit_code = if timed_out {
            TIMEOUT_EXIT_CODE
        } else if let Some(code) = status.code() {
            code
        } else {
            128 + signal.unwrap_or(0)
        };
        Output {
            exit_code,
            signal: if timed_out { None } else { signal },
            timed_out,
            stdout: text(self.stdout),
            stderr: text(self.stderr),
        }
    }
}

/// Sends SIGKILL to the process group `pgid` (the child's own group).
fn kill_group(pgid: u32) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = pgid;
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_status: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// Maps `f` over `items` on `jobs` threads, keeping the order.
pub fn par_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1).min(items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item mapped"))
        .collect()
}

/// Quotes one argument for display as a shell command.
pub fn shell_quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=./:,@+%".contains(&b))
    {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// One run's output with its wall time and peak resident memory.
#[derive(Debug, Clone)]
pub struct Measured {
    /// What the run printed and how it ended.
    pub output: Output,
    /// Wall time from spawn to reaping.
    pub wall: Duration,
    /// Peak resident set size of the process, in KiB (`ru_maxrss`).
    pub peak_rss_kib: u64,
}

/// Like [`run`], but reaps the child with `wait4` to get its own peak RSS,
/// and times it without polling (a watchdog thread enforces `timeout`).
#[cfg(unix)]
pub fn run_measured(
    program: &Path,
    args: &[String],
    cwd: &Path,
    timeout: Duration,
) -> Result<Measured> {
    use std::os::unix::process::ExitStatusExt;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    let start = Instant::now();
    let (child, captured) = spawn_captured(program, args, cwd)?;
    let pid = child.id();
    let reaped = Arc::new(AtomicBool::new(false));
    let timed_out = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (reaped, timed_out) = (reaped.clone(), timed_out.clone());
        std::thread::spawn(move || {
            while !reaped.load(Ordering::Acquire) {
                if start.elapsed() > timeout {
                    timed_out.store(true, Ordering::Release);
                    kill_group(pid);
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let mut status = 0i32;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = loop {
        // SAFETY: `pid` is our unreaped child; both pointers are to live locals.
        let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if r >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break r;
        }
    };
    let wall = start.elapsed();
    reaped.store(true, Ordering::Release);
    let _ = watchdog.join();
    if waited < 0 {
        return Err(format!(
            "waiting for {}: {}",
            program.display(),
            std::io::Error::last_os_error()
        ));
    }
    let status = std::process::ExitStatus::from_raw(status);
    Ok(Measured {
        output: captured.finish(&status, timed_out.load(Ordering::Acquire)),
        wall,
        peak_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    })
}

/// A test executable cargo built.
#[derive(Debug, Clone)]
pub struct TestExecutable {
    /// The executable.
    pub path: PathBuf,
    /// The source file of its target (absolute, as cargo reports it).
    pub source: PathBuf,
}

/// Builds the tests `cargo <args> --no-run` selects (`args` starting with
/// `test`), with cargo's diagnostics on stderr, and returns the test
/// executables from its JSON messages.
pub fn build_tests(root: &Path, args: &[&str]) -> Result<Vec<TestExecutable>> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root)
        .args(args)
        .args(["--no-run", "--message-format=json-render-diagnostics"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("running cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("building the tests failed ({})", output.status));
    }
    let mut tests = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" || message["profile"]["test"] != true {
            continue;
        }
        if let (Some(path), Some(source)) = (
            message["executable"].as_str(),
            message["target"]["src_path"].as_str(),
        ) {
            tests.push(TestExecutable {
                path: PathBuf::from(path),
                source: PathBuf::from(source),
            });
        }
    }
    Ok(tests)
}
