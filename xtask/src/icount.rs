//! `cargo xtask icount [--update] [--filter TEXT]`: the interpreter's
//! instruction counts against a committed baseline, the regression guard
//! `.ci/run` runs.
//!
//! Each case runs one function of a `testdata/bench` module (every loop of
//! `opbench.mlir`, the Collatz program, the loops of `loops.mlir`, the
//! cross-module import loop) in a release build of
//! `crates/vm-bytecode/examples/vm_count.rs` under callgrind, counting only
//! the call itself (`--toggle-collect`), so module loading, the C library
//! and the machine's CPU features do not enter the count. The counts are
//! exact: the same build gives the same count on every run (measured: no
//! change over repeated runs of every case). A case fails when its count
//! rises more than [`TOLERANCE`] above `testdata/bench/instruction_counts.txt`;
//! a fall of as much is reported, so the baseline can be lowered to keep
//! the guard tight. `--update` rewrites the baseline from this run.
//!
//! The `dispatch_*` cases count the dispatch path the same way, in a
//! release build of `crates/runtime/examples/dispatch_count.rs`: 100
//! submissions of a command buffer of 64 one-workgroup dispatches on
//! `local-sync`, and 1000 trips of `dispatch_loop.vmfb`'s `step_loop`
//! (fences, queue allocations, an indirect execution and a dealloca per
//! trip). These calls reach the C library (`malloc`, `memcpy`), whose
//! instructions depend on the machine, so only the instructions outside
//! the system's shared libraries are counted.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::{proc, repo_root, Result};

/// The largest rise of a count over its baseline that passes: the counts
/// themselves do not vary from run to run, so anything above is a change
/// of the code; 2% is about one instruction per op of the shortest loops.
const TOLERANCE: f64 = 0.02;

/// Trips of every opcode loop.
const TRIPS: i32 = 10_000;

/// The baseline, relative to the repository root.
const BASELINE: &str = "testdata/bench/instruction_counts.txt";

/// The programs counted besides the opcode loops: a name, the modules (in
/// dependency order), the function and its argument.
const PROGRAMS: &[(&str, &[&str], &str, i32)] = &[
    ("collatz", &["collatz.vmfb"], "collatz", 1000),
    ("scalar_loop", &["loops.vmfb"], "scalar_loop", TRIPS),
    ("call_loop", &["loops.vmfb"], "call_loop", TRIPS),
    ("list_loop", &["loops.vmfb"], "list_loop", TRIPS),
    ("remap_loop", &["loops.vmfb"], "remap_loop", TRIPS),
    ("branch_loop", &["loops.vmfb"], "branch_loop", TRIPS),
    (
        "import_loop",
        &["import_callee.vmfb", "import_caller.vmfb"],
        "import_loop",
        TRIPS,
    ),
];

/// The dispatch path's cases, run by a release build of
/// `crates/runtime/examples/dispatch_count.rs` (its one counted call):
/// a name and the runner's arguments (`{executable}`: the embedded-ELF
/// executable of `testdata/llvm-cpu/expected_output.vmfb`, the one
/// `cargo xtask bench` dispatches; `{llvm_cpu}`: that directory).
const DISPATCH_CASES: &[(&str, &[&str])] = &[
    (
        "dispatch_1_workgroup_sync",
        &[
            "--device=local-sync",
            "--executable={executable}",
            "--submissions=100",
        ],
    ),
    (
        "dispatch_loop_sync",
        &[
            "--device=local-sync",
            "--module={llvm_cpu}/dispatch_loop.vmfb",
            "--function=step_loop",
            "--iterations=1000",
        ],
    ),
];

/// One counted call.
struct Case {
    name: String,
    modules: Vec<String>,
    function: String,
    input: i32,
    /// Set for the dispatch path's cases: the `dispatch_count` arguments
    /// (the other fields are unused).
    dispatch: Option<&'static [&'static str]>,
}

const USAGE: &str = "usage: cargo xtask icount [--update] [--filter TEXT]";

/// The `cargo xtask icount` command: false when a count rose past the
/// tolerance or a case failed.
pub fn run(args: &[String]) -> Result<bool> {
    let (mut update, mut filter) = (false, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--update" => update = true,
            "--filter" => filter = it.next().cloned(),
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    // The baseline is of x86-64 Linux code; another target compiles to
    // other instructions, whose counts it does not hold.
    if !cfg!(all(target_arch = "x86_64", target_os = "linux")) {
        println!("icount: the baseline is for x86-64 Linux; skipped on this target");
        return Ok(true);
    }
    let root = repo_root();
    let bench = root.join("testdata").join("bench");
    let cases: Vec<Case> = cases(&bench)?
        .into_iter()
        .filter(|c| filter.as_deref().is_none_or(|f| c.name.contains(f)))
        .collect();
    let runner = build_runner(&root)?;
    let dispatch_runner = if cases.iter().any(|c| c.dispatch.is_some()) {
        Some(build_dispatch_runner(&root)?)
    } else {
        None
    };
    // One valgrind process per set of modules and input, its calls counted
    // one by one; the processes run in parallel (a dispatch case alone).
    let mut groups: Vec<Vec<&Case>> = Vec::new();
    for case in &cases {
        if case.dispatch.is_some() {
            groups.push(vec![case]);
            continue;
        }
        match groups.iter_mut().find(|g| {
            g[0].dispatch.is_none() && g[0].modules == case.modules && g[0].input == case.input
        }) {
            Some(group) => group.push(case),
            None => groups.push(vec![case]),
        }
    }
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let work = std::env::temp_dir().join(format!("xtask-icount-{}", std::process::id()));
    let counted = proc::par_map(&groups, jobs, |group| {
        match (group[0].dispatch, &dispatch_runner) {
            (Some(args), Some(dispatch_runner)) => {
                count_dispatch(&root, dispatch_runner, &work, &group[0].name, args).map(|n| vec![n])
            }
            _ => count_group(&runner, &bench, &work, group),
        }
    });
    if std::env::var_os("ICOUNT_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
    let counts = groups.iter().zip(counted).flat_map(|(group, counts)| {
        group.iter().enumerate().map(move |(i, case)| {
            let count = match &counts {
                Ok(counts) => Ok(counts[i]),
                Err(why) => Err(why.clone()),
            };
            (*case, count)
        })
    });
    let baseline = read_baseline(&root.join(BASELINE))?;

    println!(
        "{:<24} {:>12} {:>12} {:>8}",
        "case", "baseline", "now", "change"
    );
    let mut ok = true;
    let mut measured = Vec::new();
    for (case, count) in counts {
        let count = match count {
            Ok(count) => count,
            Err(why) => {
                ok = false;
                println!("{:<24} FAILED: {why}", case.name);
                continue;
            }
        };
        measured.push((case.name.clone(), count));
        let Some(&base) = baseline
            .iter()
            .find(|(n, _)| *n == case.name)
            .map(|(_, c)| c)
        else {
            println!(
                "{:<24} {:>12} {count:>12}   (not in the baseline)",
                case.name, "-"
            );
            ok &= update;
            continue;
        };
        let change = count as f64 / base as f64 - 1.0;
        let verdict = if change > TOLERANCE {
            ok &= update;
            "  RISE"
        } else if change < -TOLERANCE {
            "  (fell: lower the baseline with --update)"
        } else {
            ""
        };
        println!(
            "{:<24} {base:>12} {count:>12} {:>+7.2}%{verdict}",
            case.name,
            change * 100.0
        );
    }
    if update {
        write_baseline(&root.join(BASELINE), &measured, &baseline)?;
        println!("wrote {BASELINE}");
    } else if !ok {
        println!(
            "\ninstruction counts rose more than {}% (or a case is missing or failed); \
             if the change is meant, rebaseline with `cargo xtask icount --update` \
             and say why in the commit",
            TOLERANCE * 100.0
        );
    }
    Ok(ok)
}

/// Every case: the opcode loops named in `opbench.cases`, then [`PROGRAMS`].
fn cases(bench: &Path) -> Result<Vec<Case>> {
    let path = bench.join("opbench.cases");
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let loops = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(name, _)| Case {
            name: name.trim().to_string(),
            modules: vec!["opbench.vmfb".to_string()],
            function: name.trim().to_string(),
            input: TRIPS,
            dispatch: None,
        });
    let programs = PROGRAMS
        .iter()
        .map(|(name, modules, function, input)| Case {
            name: name.to_string(),
            modules: modules.iter().map(|m| m.to_string()).collect(),
            function: function.to_string(),
            input: *input,
            dispatch: None,
        });
    let dispatches = DISPATCH_CASES.iter().map(|(name, args)| Case {
        name: name.to_string(),
        modules: Vec::new(),
        function: String::new(),
        input: 0,
        dispatch: Some(*args),
    });
    Ok(loops.chain(programs).chain(dispatches).collect())
}

/// Builds the runner (release) and returns its path.
fn build_runner(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "iree-vm-bytecode",
            "--example",
            "vm_count",
        ])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building the vm_count example failed ({status})"));
    }
    let runner = crate::conformance::target_dir(root)
        .join("release")
        .join("examples")
        .join("vm_count");
    runner
        .exists()
        .then_some(runner)
        .ok_or_else(|| "the vm_count example was not built".to_string())
}

/// Builds the dispatch path's runner (release) and returns its path.
fn build_dispatch_runner(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "-p",
            "iree-runtime",
            "--example",
            "dispatch_count",
        ])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the dispatch_count example failed ({status})"
        ));
    }
    let runner = crate::conformance::target_dir(root)
        .join("release")
        .join("examples")
        .join("dispatch_count");
    runner
        .exists()
        .then_some(runner)
        .ok_or_else(|| "the dispatch_count example was not built".to_string())
}

/// The instructions callgrind counts in the one counted call of the
/// dispatch case `name`, run with `args` (placeholders filled in).
fn count_dispatch(
    root: &Path,
    runner: &Path,
    work: &Path,
    name: &str,
    args: &[&str],
) -> Result<u64> {
    let dir = work.join(name);
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let llvm_cpu = root.join("testdata").join("llvm-cpu");
    let executable = dir.join("expected_output_embedded_elf_x86_64.so");
    crate::tools::extract_executable(
        &llvm_cpu.join("expected_output.vmfb"),
        "embedded-elf-x86_64",
        &executable,
    )?;
    let out = dir.join("callgrind.out");
    let mut valgrind_args = vec![
        "--tool=callgrind".to_string(),
        format!("--toggle-collect={DISPATCH_COUNTED}"),
        format!("--callgrind-out-file={}", out.display()),
        runner.display().to_string(),
    ];
    valgrind_args.extend(args.iter().map(|arg| {
        arg.replace("{executable}", &executable.display().to_string())
            .replace("{llvm_cpu}", &llvm_cpu.display().to_string())
    }));
    let run = proc::run(
        Path::new("valgrind"),
        &valgrind_args,
        &dir,
        Duration::from_secs(600),
    )
    .map_err(|e| format!("{e} (is valgrind installed?)"))?;
    if run.exit_code != 0 {
        return Err(format!("exit {}: {}", run.exit_code, run.stderr.trim()));
    }
    let text =
        std::fs::read_to_string(&out).map_err(|e| format!("reading {}: {e}", out.display()))?;
    Ok(count_outside_system_libraries(&text))
}

/// The instructions of a callgrind profile outside the system's shared
/// libraries (`/usr/lib`, `/lib`): the C library's `malloc` and `memcpy`
/// differ from one machine and glibc to the next (`memcpy` by CPU
/// features), the runtime's own code and the kernels do not.
fn count_outside_system_libraries(profile: &str) -> u64 {
    let mut objects: Vec<(String, bool)> = Vec::new();
    let (mut system, mut call_cost_next, mut total) = (false, false, 0u64);
    // `(id) name` defines an object (in `ob=` or a call's `cob=`), `(id)`
    // refers to one defined before; returns whether it is the system's.
    let mut object = |text: &str| {
        let (id, name) = text.split_once(") ").unwrap_or((text, ""));
        let id = id.trim_start_matches('(').trim_end_matches(')').to_string();
        match objects.iter().find(|(known, _)| *known == id) {
            Some((_, known_system)) => *known_system,
            None => {
                let is_system = name.starts_with("/usr/lib") || name.starts_with("/lib");
                objects.push((id, is_system));
                is_system
            }
        }
    };
    for line in profile.lines() {
        if let Some(text) = line.strip_prefix("ob=") {
            system = object(text);
        } else if let Some(text) = line.strip_prefix("cob=") {
            object(text);
        } else if line.starts_with("calls=") {
            // The next cost line is the call's inclusive cost, counted
            // where it was spent.
            call_cost_next = true;
        } else if line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
            if std::mem::take(&mut call_cost_next) || system {
                continue;
            }
            total += line
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    total
}

/// The dispatch runner's function whose call is counted.
const DISPATCH_COUNTED: &str = "dispatch_count::counted_call";

/// The instructions callgrind counts in each call of `group` (cases of one
/// set of modules and one input), run by one process: the calls are
/// collected alone (`--toggle-collect`) and dumped one by one
/// (`--dump-before`: dump `k + 1` holds call `k`, the last call is in the
/// final dump).
fn count_group(runner: &Path, bench: &Path, work: &Path, group: &[&Case]) -> Result<Vec<u64>> {
    let dir = work.join(&group[0].function);
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let out = dir.join("callgrind.out");
    let mut args = vec![
        "--tool=callgrind".to_string(),
        format!("--toggle-collect={COUNTED}"),
        format!("--dump-before={COUNTED}"),
        format!("--callgrind-out-file={}", out.display()),
        runner.display().to_string(),
    ];
    args.extend(group[0].modules.iter().map(|m| format!("--module={m}")));
    args.extend(
        group
            .iter()
            .map(|case| format!("--function={}", case.function)),
    );
    args.push(format!("--input={}", group[0].input));
    let run = proc::run(
        Path::new("valgrind"),
        &args,
        bench,
        Duration::from_secs(600),
    )
    .map_err(|e| format!("{e} (is valgrind installed?)"))?;
    if run.exit_code != 0 {
        return Err(format!("exit {}: {}", run.exit_code, run.stderr.trim()));
    }
    let total = |path: &Path| -> Result<u64> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        text.lines()
            .find_map(|l| l.strip_prefix("summary:"))
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format!("no summary in {}", path.display()))
    };
    let mut counts = (2..=group.len())
        .map(|part| total(&dir.join(format!("callgrind.out.{part}"))))
        .collect::<Result<Vec<u64>>>()?;
    counts.push(total(&out)?);
    Ok(counts)
}

/// The runner's function whose calls are counted.
const COUNTED: &str = "vm_count::counted_call";

/// The baseline's `name count` lines (comments start with `#`).
fn read_baseline(path: &Path) -> Result<Vec<(String, u64)>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("reading {}: {e}", path.display())),
    };
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, count) = l
                .split_once(' ')
                .ok_or_else(|| format!("{}: bad line `{l}`", path.display()))?;
            let count = count
                .trim()
                .parse()
                .map_err(|_| format!("{}: bad count in `{l}`", path.display()))?;
            Ok((name.to_string(), count))
        })
        .collect()
}

/// Writes `measured` as the new baseline, keeping the entries of cases not
/// run this time (a `--filter` run updates only its own).
fn write_baseline(
    path: &Path,
    measured: &[(String, u64)],
    previous: &[(String, u64)],
) -> Result<()> {
    let mut entries: Vec<(String, u64)> = measured.to_vec();
    entries.extend(
        previous
            .iter()
            .filter(|(name, _)| !measured.iter().any(|(m, _)| m == name))
            .cloned(),
    );
    let mut text = format!(
        "# Instructions of each `cargo xtask icount` case: callgrind's count of\n\
         # the call alone, in a release build of crates/vm-bytecode/examples/vm_count.rs\n\
         # (the dispatch_* cases: of crates/runtime/examples/dispatch_count.rs).\n\
         # `.ci/run` fails when one rises more than {}% above its line here.\n\
         # After a change meant to move them: `cargo xtask icount --update`, and\n\
         # say why in the commit.\n",
        TOLERANCE * 100.0
    );
    for (name, count) in &entries {
        text.push_str(&format!("{name} {count}\n"));
    }
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}
