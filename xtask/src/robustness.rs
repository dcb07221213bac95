//! `cargo xtask robustness`: a differential mutation campaign. Seeded
//! mutations of the committed inputs of every kind (VM-only, VMVX,
//! embedded-ELF and system-library modules, parameter files, `.npy`
//! inputs, command-line flags), each run through our `iree-run-module`
//! and, with `--against DIR`, through upstream's (`DIR/iree-run-module`,
//! DIR being upstream's `_runtime_libs`); every run classified as ok,
//! error, panic, signal, timeout or oom (`iree_tooling::robustness`).
//!
//! Reported: the classes per kind for both tools; every run of ours that
//! panicked, died of a signal or timed out, except signals and timeouts
//! of modules whose native code the mutation touched (mutated machine code
//! may do anything); and every input upstream rejects while we run it to
//! exit 0. Either list non-empty fails the command. Inputs of both lists
//! are kept under `target/robustness/` with their command lines and
//! outputs.
//!
//! Mutant `i` of seed `S` is reproducible on its own (`--seed S --only i`).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use iree_tooling::robustness::{mutate, run_limited, Limits, Outcome, Rng};
use iree_tooling::testcases::{load_suite, Case};

use crate::Result;

const USAGE: &str = "usage: cargo xtask robustness [--against DIR] [--count N] [--seed S] \
[--jobs N] [--ours PATH] [--only I] [--timeout SECS] [--kinds K,...]";

/// What a mutant mutates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// A VM-only module (no executables).
    Vm,
    /// A module with VMVX executables (bytecode inside bytecode).
    Vmvx,
    /// A module with embedded-ELF executables.
    EmbeddedElf,
    /// A module with system-library (`.so`) executables.
    SystemLibrary,
    /// A parameter file (`.irpa`, `.gguf`, `.safetensors`).
    Params,
    /// A `.npy` input.
    Npy,
    /// One command-line argument.
    Flags,
}

const KINDS: [Kind; 7] = [
    Kind::Vm,
    Kind::Vmvx,
    Kind::EmbeddedElf,
    Kind::SystemLibrary,
    Kind::Params,
    Kind::Npy,
    Kind::Flags,
];

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Vm => "vm",
            Kind::Vmvx => "vmvx",
            Kind::EmbeddedElf => "embedded-elf",
            Kind::SystemLibrary => "system-library",
            Kind::Params => "params",
            Kind::Npy => "npy",
            Kind::Flags => "flags",
        }
    }

    /// Whether the mutated files carry machine code.
    fn has_native_code(self) -> bool {
        matches!(self, Kind::EmbeddedElf | Kind::SystemLibrary)
    }
}

/// One seed: a case and the argument holding (or being) what is mutated.
struct Seed {
    kind: Kind,
    case: Case,
    /// Index into `case.args`.
    arg: usize,
    /// The file the argument names (none for [`Kind::Flags`]).
    file: Option<PathBuf>,
    /// Byte ranges of machine code in `file`.
    native: Vec<Range<usize>>,
}

/// Campaign options.
struct Options {
    against: Option<PathBuf>,
    count: usize,
    seed: u64,
    jobs: usize,
    ours: PathBuf,
    only: Option<usize>,
    timeout: Duration,
    kinds: Vec<Kind>,
}

fn parse_options(args: &[String]) -> Result<Options> {
    let root = crate::repo_root();
    let default_ours = std::env::var_os("IREE_RS_RUN_MODULE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let release = root.join("target/release/iree-run-module");
            if release.exists() {
                release
            } else {
                root.join("target/debug/iree-run-module")
            }
        });
    let mut o = Options {
        against: None,
        count: 1000,
        seed: 1,
        jobs: 2,
        ours: default_ours,
        only: None,
        timeout: Duration::from_secs(20),
        kinds: KINDS.to_vec(),
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))
        };
        let number = |v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("{flag}: not a number: {v}"))
        };
        match flag {
            "--against" => o.against = Some(PathBuf::from(value()?)),
            "--count" => o.count = number(value()?)? as usize,
            "--seed" => o.seed = number(value()?)?,
            "--jobs" | "-j" => o.jobs = number(value()?)?.max(1) as usize,
            "--ours" => o.ours = PathBuf::from(value()?),
            "--only" => o.only = Some(number(value()?)? as usize),
            "--timeout" => o.timeout = Duration::from_secs(number(value()?)?),
            "--kinds" => {
                o.kinds = value()?
                    .split(',')
                    .map(|k| {
                        KINDS
                            .into_iter()
                            .find(|kind| kind.name() == k)
                            .ok_or_else(|| format!("unknown kind `{k}`"))
                    })
                    .collect::<Result<_>>()?
            }
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    if !o.ours.exists() {
        return Err(format!(
            "{} not found (build iree-run-module, or pass --ours)",
            o.ours.display()
        ));
    }
    if let Some(dir) = &o.against {
        if !dir.join("iree-run-module").exists() {
            return Err(format!("no iree-run-module in {}", dir.display()));
        }
    }
    Ok(o)
}

/// Byte ranges of the ELF images in `bytes` (each from its header to the
/// end of its section header table).
fn elf_ranges(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut at = 0;
    while let Some(found) = bytes[at..].windows(4).position(|w| w == b"\x7fELF") {
        let start = at + found;
        let field = |off: usize, n: usize| -> Option<u64> {
            let b = bytes.get(start + off..start + off + n)?;
            Some(b.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x)))
        };
        let end = (|| {
            let shoff = field(0x28, 8)?;
            let shentsize = field(0x3A, 2)?;
            let shnum = field(0x3C, 2)?;
            let size = shoff.checked_add(shentsize.checked_mul(shnum)?)?;
            usize::try_from(size).ok()
        })()
        .map_or(bytes.len(), |size| (start + size).min(bytes.len()));
        ranges.push(start..end.max(start + 4));
        at = start + 4;
    }
    ranges
}

/// Whether a mutation that touched `touched` changed machine code: it
/// overlaps a native range, or it shifts or cuts bytes (an insertion or a
/// truncation reports the rest of the file) before the end of one.
fn touches_native(native: &[Range<usize>], touched: &Range<usize>) -> bool {
    native
        .iter()
        .any(|r| touched.start < r.end && touched.end > r.start)
}

/// The file a case argument names, if it names one that exists.
fn file_of(case: &Case, arg: &str) -> Option<PathBuf> {
    let path = if let Some(m) = arg.strip_prefix("--module=") {
        m
    } else if let Some(p) = arg.strip_prefix("--parameters=") {
        p.split_once('=').map_or(p, |(_, path)| path)
    } else if let Some(i) = arg.strip_prefix("--input=") {
        i.strip_prefix('@')
            .or_else(|| i.strip_prefix('+'))
            .or_else(|| i.split_once("=@").map(|(_, p)| p))
            .or_else(|| i.split_once("=+").map(|(_, p)| p))?
    } else {
        return None;
    };
    let path = case.dir.join(path);
    path.is_file().then_some(path)
}

/// The seeds of every kind, from the `testdata/` suites.
fn seeds(kinds: &[Kind]) -> Result<Vec<Seed>> {
    let root = crate::repo_root().join("testdata");
    let suites: &[(&str, Kind)] = &[
        ("vm", Kind::Vm),
        ("vm-hal", Kind::Vm),
        ("vmvx", Kind::Vmvx),
        ("vmvx-ukernels", Kind::Vmvx),
        ("llvm-cpu", Kind::EmbeddedElf),
        ("llvm-cpu-system", Kind::SystemLibrary),
        ("params", Kind::Params),
    ];
    let mut seeds = Vec::new();
    for &(suite, kind) in suites {
        let cases = load_suite(&root.join(suite)).map_err(|s| format!("{suite}: {s}"))?;
        for case in cases {
            for (arg_index, arg) in case.args.iter().enumerate() {
                let Some(file) = file_of(&case, arg) else {
                    continue;
                };
                let arg_kind = if arg.starts_with("--parameters=") {
                    Kind::Params
                } else if arg.starts_with("--input=") {
                    if file.extension().is_none_or(|x| x != "npy") {
                        continue;
                    }
                    Kind::Npy
                } else if kind == Kind::Params {
                    continue;
                } else {
                    kind
                };
                if !kinds.contains(&arg_kind) {
                    continue;
                }
                let native = if arg_kind.has_native_code() {
                    elf_ranges(
                        &std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?,
                    )
                } else {
                    Vec::new()
                };
                seeds.push(Seed {
                    kind: arg_kind,
                    case: case.clone(),
                    arg: arg_index,
                    file: Some(file),
                    native,
                });
            }
            if kinds.contains(&Kind::Flags)
                && matches!(kind, Kind::Vm | Kind::Vmvx | Kind::EmbeddedElf)
            {
                for arg_index in 0..case.args.len() {
                    seeds.push(Seed {
                        kind: Kind::Flags,
                        case: case.clone(),
                        arg: arg_index,
                        file: None,
                        native: Vec::new(),
                    });
                }
            }
        }
    }
    Ok(seeds)
}

/// One mutated input, ready to run.
struct Mutant {
    index: usize,
    kind: Kind,
    case_id: String,
    args: Vec<OsString>,
    cwd: PathBuf,
    /// The mutated file, when the mutant is one.
    file: Option<(PathBuf, Vec<u8>)>,
    in_native: bool,
}

/// Builds mutant `index`: its own generator picks a kind (round robin), a
/// seed of that kind and a mutation.
fn make_mutant(
    index: usize,
    seed: u64,
    by_kind: &BTreeMap<Kind, Vec<&Seed>>,
    work: &Path,
) -> Result<Mutant> {
    let kinds: Vec<&Kind> = by_kind.keys().collect();
    let kind = *kinds[index % kinds.len()];
    let mut rng = Rng::new(seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let candidates = &by_kind[&kind];
    let s = candidates[rng.below(candidates.len())];
    let mut args: Vec<OsString> = s.case.args.iter().map(OsString::from).collect();
    let mut file = None;
    let mut in_native = false;
    match &s.file {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let (mutant, touched) = mutate(&mut rng, &bytes);
            in_native = touches_native(&s.native, &touched);
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let out = work.join(format!("{index}-{name}"));
            let original = &s.case.args[s.arg];
            let relative = path
                .strip_prefix(&s.case.dir)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            args[s.arg] = OsString::from(original.replacen(&relative, &out.to_string_lossy(), 1));
            file = Some((out, mutant));
        }
        None => {
            let (mut bytes, _) = mutate(&mut rng, s.case.args[s.arg].as_bytes());
            // An argument cannot hold a NUL byte.
            bytes.iter_mut().filter(|b| **b == 0).for_each(|b| *b = 1);
            args[s.arg] = bytes_to_os(bytes);
        }
    }
    Ok(Mutant {
        index,
        kind,
        case_id: s.case.id(),
        args,
        cwd: s.case.dir.clone(),
        file,
        in_native,
    })
}

#[cfg(unix)]
fn bytes_to_os(bytes: Vec<u8>) -> OsString {
    std::os::unix::ffi::OsStringExt::from_vec(bytes)
}

#[cfg(not(unix))]
fn bytes_to_os(bytes: Vec<u8>) -> OsString {
    OsString::from(String::from_utf8_lossy(&bytes).into_owned())
}

/// Both runs of one mutant.
struct Result2 {
    mutant: Mutant,
    ours: iree_tooling::robustness::Run,
    upstream: Option<iree_tooling::robustness::Run>,
    /// Upstream's rerun without the address-space limit, when it ran out
    /// of memory where we ran.
    upstream_unlimited: Option<iree_tooling::robustness::Run>,
}

/// The address-space limit of upstream's rerun after RESOURCE_EXHAUSTED
/// (64 GiB: more than the campaign's 4 GiB, still a bound).
const UNLIMITED_RERUN_KIB: u64 = 64 << 20;

/// `CODE; message` of the first status line of `stderr`, without the
/// `file:line: ` prefix and annotations, for grouping.
fn first_status(stderr: &str) -> String {
    let line = stderr.lines().find(|l| l.contains("; ")).unwrap_or("");
    let after = line
        .find(": ")
        .map_or(line, |i| &line[i + 2..])
        .trim_start();
    let mut parts = after.splitn(3, "; ");
    let code = parts.next().unwrap_or("");
    let message = parts.next().unwrap_or("");
    // Numbers vary per input; keep the class of message.
    let message: String = message
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .take(120)
        .collect();
    format!("{code}; {message}")
}

fn save(result: &Result2, dir: &Path, why: &str) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let m = &result.mutant;
    let base = dir.join(format!("{}-{}", m.kind.name(), m.index));
    let mut text = String::new();
    let _ = writeln!(text, "{why}\ncase: {}\ncwd: {}", m.case_id, m.cwd.display());
    if let Some((path, bytes)) = &m.file {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let kept = dir.join(&name);
        std::fs::write(&kept, bytes).map_err(|e| format!("{}: {e}", kept.display()))?;
        let _ = writeln!(
            text,
            "mutated file: {} (kept as {})",
            path.display(),
            kept.display()
        );
    }
    let _ = writeln!(text, "args: {:?}", m.args);
    let _ = writeln!(
        text,
        "\nours: {}\n{}",
        result.ours.outcome, result.ours.stderr
    );
    if let Some(up) = &result.upstream {
        let _ = writeln!(text, "\nupstream: {}\n{}", up.outcome, up.stderr);
    }
    let path = base.with_extension("txt");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The `cargo xtask robustness` command.
pub fn run(args: &[String]) -> Result<bool> {
    let o = parse_options(args)?;
    let root = crate::repo_root();
    let out = root.join("target").join("robustness");
    let work = out.join("work");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;

    let seeds = seeds(&o.kinds)?;
    let mut by_kind: BTreeMap<Kind, Vec<&Seed>> = BTreeMap::new();
    for s in &seeds {
        by_kind.entry(s.kind).or_default().push(s);
    }
    if by_kind.is_empty() {
        return Err("no seeds found under testdata/".into());
    }
    let indices: Vec<usize> = match o.only {
        Some(i) => vec![i],
        None => (0..o.count).collect(),
    };
    println!(
        "robustness: {} mutants of {} seeds ({}), seed {}, ours {}{}",
        indices.len(),
        seeds.len(),
        by_kind
            .iter()
            .map(|(k, v)| format!("{} {}", k.name(), v.len()))
            .collect::<Vec<_>>()
            .join(", "),
        o.seed,
        o.ours.display(),
        o.against
            .as_ref()
            .map(|d| format!(", upstream {}", d.display()))
            .unwrap_or_default()
    );
    let limits = Limits {
        timeout: o.timeout,
        ..Limits::default()
    };
    let upstream_tool = o.against.as_ref().map(|d| d.join("iree-run-module"));
    let done = Mutex::new(0usize);
    let results = crate::proc::par_map(&indices, o.jobs, |&index| -> Result<Result2> {
        let mutant = make_mutant(index, o.seed, &by_kind, &work)?;
        if let Some((path, bytes)) = &mutant.file {
            std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        let run = |tool: &Path| {
            run_limited(tool, &mutant.args, &mutant.cwd, limits)
                .map_err(|e| format!("running {}: {e}", tool.display()))
        };
        let ours = run(&o.ours)?;
        let upstream = upstream_tool.as_deref().map(run).transpose()?;
        // Upstream out of memory where we ran: again without the campaign's
        // address-space limit, to tell a check from a resource failure.
        let upstream_unlimited = match (&upstream, &upstream_tool) {
            (Some(up), Some(tool))
                if matches!(up.outcome, Outcome::Error(_))
                    && matches!(ours.outcome, Outcome::Ok)
                    && first_status(&up.stderr).starts_with("RESOURCE_EXHAUSTED") =>
            {
                let unlimited = Limits {
                    memory_kib: UNLIMITED_RERUN_KIB,
                    ..limits
                };
                Some(
                    run_limited(tool, &mutant.args, &mutant.cwd, unlimited)
                        .map_err(|e| format!("running {}: {e}", tool.display()))?,
                )
            }
            _ => None,
        };
        if let Some((path, _)) = &mutant.file {
            let _ = std::fs::remove_file(path);
        }
        let mut n = done.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        if (*n).is_multiple_of(500) {
            eprintln!("robustness: {n} of {} done", indices.len());
        }
        Ok(Result2 {
            mutant,
            ours,
            upstream,
            upstream_unlimited,
        })
    });
    let results: Vec<Result2> = results.into_iter().collect::<Result<_>>()?;

    // Classes per kind.
    let mut table: BTreeMap<(Kind, &str, &'static str), usize> = BTreeMap::new();
    for r in &results {
        *table
            .entry((r.mutant.kind, "ours", r.ours.outcome.class()))
            .or_default() += 1;
        if let Some(up) = &r.upstream {
            *table
                .entry((r.mutant.kind, "upstream", up.outcome.class()))
                .or_default() += 1;
        }
    }
    let classes = ["ok", "error", "panic", "signal", "timeout", "oom"];
    println!(
        "\n{:<16} {:<9} {}",
        "kind",
        "tool",
        classes.map(|c| format!("{c:>7}")).join(" ")
    );
    for kind in by_kind.keys() {
        for tool in ["ours", "upstream"] {
            if tool == "upstream" && o.against.is_none() {
                continue;
            }
            let counts = classes
                .map(|c| format!("{:>7}", table.get(&(*kind, tool, c)).copied().unwrap_or(0)));
            println!("{:<16} {:<9} {}", kind.name(), tool, counts.join(" "));
        }
    }

    // Crashes of ours (outside mutated machine code).
    let crashes_dir = out.join("crashes");
    let mut crashes = 0;
    let mut native_crashes = 0;
    for r in &results {
        if !r.ours.outcome.is_crash() {
            continue;
        }
        let native =
            r.mutant.in_native && matches!(r.ours.outcome, Outcome::Signal(_) | Outcome::Timeout);
        if native {
            native_crashes += 1;
            continue;
        }
        crashes += 1;
        let path = save(r, &crashes_dir, "ours crashed")?;
        println!(
            "CRASH {} {}: {} ({})",
            r.mutant.kind.name(),
            r.mutant.index,
            r.ours.outcome,
            path.display()
        );
    }

    // Inputs upstream rejects and we run.
    let accepted_dir = out.join("upstream-rejects-we-run");
    let rejected_dir = out.join("we-reject-upstream-runs");
    let mut accepted: BTreeMap<(Kind, String), Vec<usize>> = BTreeMap::new();
    let mut we_reject: BTreeMap<(Kind, String), usize> = BTreeMap::new();
    let mut upstream_limit_only: Vec<usize> = Vec::new();
    for r in &results {
        let Some(up) = &r.upstream else { continue };
        match (&up.outcome, &r.ours.outcome) {
            (Outcome::Error(_), Outcome::Ok)
                if r.upstream_unlimited
                    .as_ref()
                    .is_some_and(|u| matches!(u.outcome, Outcome::Ok)) =>
            {
                upstream_limit_only.push(r.mutant.index);
            }
            (Outcome::Error(_), Outcome::Ok) => {
                accepted
                    .entry((r.mutant.kind, first_status(&up.stderr)))
                    .or_default()
                    .push(r.mutant.index);
                save(r, &accepted_dir, "upstream rejects, we run")?;
            }
            (Outcome::Ok, Outcome::Error(_)) => {
                *we_reject
                    .entry((r.mutant.kind, first_status(&r.ours.stderr)))
                    .or_default() += 1;
                save(r, &rejected_dir, "we reject, upstream runs")?;
            }
            _ => {}
        }
    }
    if o.against.is_some() {
        println!(
            "\ninputs upstream rejects and we run: {}",
            accepted.values().map(Vec::len).sum::<usize>()
        );
        for ((kind, status), indices) in &accepted {
            println!(
                "  {:>5}  {:<15} {status}  (e.g. mutant {})",
                indices.len(),
                kind.name(),
                indices[0]
            );
        }
        if let Some(first) = upstream_limit_only.first() {
            println!(
                "  (not counted: {} where upstream ran out of memory under the 4 GiB \
                 address-space limit and runs without it, e.g. mutant {first})",
                upstream_limit_only.len()
            );
        }
        println!(
            "inputs we reject and upstream runs: {}",
            we_reject.values().sum::<usize>()
        );
        for ((kind, status), n) in &we_reject {
            println!("  {n:>5}  {:<15} {status}", kind.name());
        }
        let upstream_crashes = results
            .iter()
            .filter(|r| r.upstream.as_ref().is_some_and(|u| u.outcome.is_crash()))
            .count();
        println!("upstream crashes (panic/signal/timeout): {upstream_crashes}");
    }
    println!(
        "\nours: {crashes} crashes outside mutated native code ({native_crashes} signals/timeouts in mutated native code)"
    );
    Ok(crashes == 0 && accepted.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_ranges_and_status_groups() {
        let mut file = vec![0u8; 64];
        let mut elf = b"\x7fELF".to_vec();
        elf.resize(0x40, 0);
        elf[0x28] = 0x40; // section headers at 0x40
        elf[0x3A] = 0x40; // 64 bytes each
        elf[0x3C] = 2; // two
        file.extend_from_slice(&elf);
        file.resize(64 + 0x40 + 0x80 + 32, 0);
        assert_eq!(elf_ranges(&file), vec![64..64 + 0xC0]);
        assert!(touches_native(&elf_ranges(&file), &(100..101)));
        assert!(!touches_native(&elf_ranges(&file), &(10..11)));
        assert_eq!(
            first_status("x.c:12: INVALID_ARGUMENT; table field 3 out of range; at x\n"),
            "INVALID_ARGUMENT; table field # out of range"
        );
    }
}
