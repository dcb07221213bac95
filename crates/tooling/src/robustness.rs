//! Mutation testing of the tools: seeded mutations of input files, runs of a
//! tool on them under time and memory limits, and the classification of
//! each run. Shared by the fixed-seed smoke test of `iree-run-module`
//! (`tools/iree-run-module/tests/mutation_smoke.rs`) and the differential
//! campaign against upstream's tools (`cargo xtask robustness`).
//!
//! Everything is deterministic for a seed, so a failure names a
//! reproducible input.

use std::ffi::OsStr;
use std::fmt;
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::testcases::status_code_of;

/// xorshift64*: deterministic and dependency-free.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (0 is replaced, xorshift needs a set bit).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

/// One mutation of `bytes` (bit flips, byte and word overwrites with
/// boundary values, a truncation, or a duplicated chunk) and the range of
/// original positions it touched (for an insertion or a truncation, from
/// the first changed position to the end).
pub fn mutate(rng: &mut Rng, bytes: &[u8]) -> (Vec<u8>, Range<usize>) {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return (out, 0..0);
    }
    let len = out.len();
    // (first, end) of what changed; empty until something does.
    let (mut first, mut end) = (usize::MAX, 0);
    let mut touch = |at: Range<usize>| {
        first = first.min(at.start);
        end = end.max(at.end);
    };
    match rng.below(5) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(len);
                out[i] ^= 1 << rng.below(8);
                touch(i..i + 1);
            }
        }
        1 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(len);
                out[i] = [0x00, 0xff, 0x7f, 0x80, rng.next_u64() as u8][rng.below(5)];
                touch(i..i + 1);
            }
        }
        2 => {
            let word: u32 = [
                0,
                u32::MAX,
                i32::MAX as u32,
                0x8000_0000,
                1 << 20,
                rng.next_u64() as u32,
            ][rng.below(6)];
            let i = rng.below(len.saturating_sub(4).max(1)) & !3;
            for (k, b) in word.to_le_bytes().iter().enumerate() {
                if let Some(slot) = out.get_mut(i + k) {
                    *slot = *b;
                }
            }
            touch(i..(i + 4).min(len));
        }
        3 => {
            let keep = rng.below(len);
            out.truncate(keep);
            touch(keep..len);
        }
        _ => {
            let start = rng.below(len);
            let n = 1 + rng.below((len - start).min(256));
            let chunk = out[start..start + n].to_vec();
            let at = rng.below(len);
            out.splice(at..at, chunk);
            touch(at..len);
        }
    }
    let touched = if first <= end { first..end } else { 0..0 };
    (out, touched)
}

/// How one run of a tool ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Exit code 0.
    Ok,
    /// A non-zero exit with a status (its code name, when printed).
    Error(String),
    /// A Rust panic (exit code 101).
    Panic,
    /// Killed by a signal (other than an out-of-memory abort).
    Signal(i32),
    /// Still running at the time limit (then killed).
    Timeout,
    /// Ran out of its address-space limit (an allocation failed fatally).
    OutOfMemory,
}

impl Outcome {
    /// The class name: `ok`, `error`, `panic`, `signal`, `timeout`, `oom`.
    pub fn class(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error(_) => "error",
            Outcome::Panic => "panic",
            Outcome::Signal(_) => "signal",
            Outcome::Timeout => "timeout",
            Outcome::OutOfMemory => "oom",
        }
    }

    /// True for the outcomes a well-behaved tool never has: a panic, a
    /// signal or a timeout (running out of memory under the limit is a
    /// possible answer to a request for memory).
    pub fn is_crash(&self) -> bool {
        matches!(self, Outcome::Panic | Outcome::Signal(_) | Outcome::Timeout)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Error(code) if !code.is_empty() => write!(f, "error ({code})"),
            Outcome::Signal(n) => write!(f, "signal {n}"),
            other => f.write_str(other.class()),
        }
    }
}

/// One run: its outcome and the head of what it printed to stderr.
#[derive(Clone, Debug)]
pub struct Run {
    /// How it ended.
    pub outcome: Outcome,
    /// The first 2 KiB of stderr.
    pub stderr: String,
}

/// Limits of one run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time before the run is killed.
    pub timeout: Duration,
    /// Address-space limit (`ulimit -v`), in KiB.
    pub memory_kib: u64,
}

impl Default for Limits {
    /// 20 s and 4 GiB.
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(20),
            memory_kib: 4 << 20,
        }
    }
}

/// Runs `program args` in `cwd` under `limits` (through `sh`, for the
/// address-space limit), stdin and stdout discarded, and classifies it.
///
/// Errors: the process could not be started or waited for.
pub fn run_limited(
    program: &Path,
    args: &[impl AsRef<OsStr>],
    cwd: &Path,
    limits: Limits,
) -> std::io::Result<Run> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {}; exec \"$0\" \"$@\"",
            limits.memory_kib
        ))
        .arg(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    // Drain stderr on a thread so a chatty tool cannot block on a full pipe.
    let mut pipe = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(pipe) = pipe.as_mut() {
            let _ = pipe.read_to_end(&mut text);
        }
        text
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() > limits.timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = reader.join().unwrap_or_default();
    let mut head = String::from_utf8_lossy(&stderr[..stderr.len().min(2048)]).into_owned();
    if stderr.len() > 2048 {
        head.push_str("...");
    }
    let outcome = match status {
        None => Outcome::Timeout,
        Some(status) => classify(status.code(), signal_of(&status), &head),
    };
    Ok(Run {
        outcome,
        stderr: head,
    })
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// The outcome of a finished run from its exit code, terminating signal
/// and stderr.
pub fn classify(exit_code: Option<i32>, signal: Option<i32>, stderr: &str) -> Outcome {
    let out_of_memory = stderr.contains("memory allocation of")
        || stderr.contains("std::bad_alloc")
        || stderr.contains("out of memory");
    match (exit_code, signal) {
        (Some(0), _) => Outcome::Ok,
        (Some(101), _) if stderr.contains("panicked") => Outcome::Panic,
        (Some(_), _) => {
            let code = status_code_of(stderr);
            Outcome::Error(if code == "OK" { String::new() } else { code })
        }
        (None, Some(_)) if out_of_memory => Outcome::OutOfMemory,
        (None, Some(signal)) => Outcome::Signal(signal),
        (None, None) => Outcome::Signal(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_report_what_they_touched() {
        let input: Vec<u8> = (0..200u8).collect();
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..500 {
            let (x, touched) = mutate(&mut a, &input);
            assert_eq!((x.clone(), touched.clone()), mutate(&mut b, &input));
            assert!(touched.end <= input.len() && touched.start <= touched.end);
            // Outside the touched range, the bytes are the original ones.
            let n = touched.start.min(x.len());
            assert_eq!(x[..n], input[..n]);
        }
    }

    #[test]
    fn runs_are_classified() {
        assert_eq!(classify(Some(0), None, ""), Outcome::Ok);
        assert_eq!(
            classify(Some(1), None, "x.c:1: INVALID_ARGUMENT; bad"),
            Outcome::Error("INVALID_ARGUMENT".into())
        );
        assert_eq!(
            classify(Some(101), None, "thread 'main' panicked at x.rs:1:1"),
            Outcome::Panic
        );
        assert_eq!(classify(None, Some(11), ""), Outcome::Signal(11));
        assert_eq!(
            classify(None, Some(6), "memory allocation of 9 bytes failed"),
            Outcome::OutOfMemory
        );
        assert!(Outcome::Timeout.is_crash() && !Outcome::OutOfMemory.is_crash());
    }
}
