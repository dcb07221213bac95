//! `cargo xtask bench`: our `iree-run-module` against upstream's on the same
//! modules, flags and inputs, in one alternating run.
//!
//! Two kinds of workload: programs from `testdata/` (interpreter loops, a
//! large matmul, many tiny dispatches) and real models from PyPI wheels
//! (`models.rs`) on `local-sync` and `local-task`. Each workload runs once
//! per tool untimed (which must print the same and, for models, write
//! byte-identical `.npy` outputs), then `--runs` times per tool, alternating
//! which goes first. The report gives the median wall time and the median
//! peak RSS per tool and the ratios ours/upstream; the exit code is non-zero
//! when any workload fails or differs. A last table compares the per-call
//! time `iree-benchmark-module` reports for a tiny dispatch (local-sync and
//! local-task) and a VM-only call, and the per-dispatch time
//! `iree-benchmark-executable` reports for one elementwise export at 1, 2
//! and 64 workgroups (`tools.rs`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{conformance, models, proc, venv, Result};

/// A benchmark: a name, a suite directory and the `iree-run-module` args.
struct Workload {
    name: &'static str,
    /// What it measures, for the closing summary: `interpreter`,
    /// `dispatch path` or `kernels` (a big matmul: the compiled code);
    /// models are `model run` (the whole process) here and `model call`
    /// (per call) in the per-call tables.
    kind: &'static str,
    suite: &'static str,
    args: &'static [&'static str],
}

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "scalar_loop (50M trips)",
        kind: "interpreter",
        suite: "bench",
        args: &[
            "--module=loops.vmfb",
            "--function=scalar_loop",
            "--input=50000000",
        ],
    },
    Workload {
        name: "collatz (steps of 1..300000 summed, 35.7M trips)",
        kind: "interpreter",
        suite: "bench",
        args: &[
            "--module=collatz.vmfb",
            "--function=collatz",
            "--input=300000",
        ],
    },
    Workload {
        name: "call_loop (20M internal calls)",
        kind: "interpreter",
        suite: "bench",
        args: &[
            "--module=loops.vmfb",
            "--function=call_loop",
            "--input=20000000",
        ],
    },
    Workload {
        name: "import_loop (5M cross-module calls)",
        kind: "interpreter",
        suite: "bench",
        args: &[
            "--module=import_callee.vmfb",
            "--module=import_caller.vmfb",
            "--function=import_loop",
            "--input=5000000",
        ],
    },
    Workload {
        name: "list_loop (20M get/set pairs)",
        kind: "interpreter",
        suite: "bench",
        args: &[
            "--module=loops.vmfb",
            "--function=list_loop",
            "--input=20000000",
        ],
    },
    Workload {
        name: "remap_loop (20M remapping back edges)",
        kind: "interpreter",
        suite: "bench",
        args: &[
            "--module=loops.vmfb",
            "--function=remap_loop",
            "--input=20000000",
        ],
    },
    Workload {
        name: "branch_loop (20M if/else trips)",
        kind: "interpreter",
        suite: "bench",
        args: &[
            "--module=loops.vmfb",
            "--function=branch_loop",
            "--input=20000000",
        ],
    },
    Workload {
        name: "matmul 1024^3 f32, local-sync",
        kind: "kernels",
        suite: "llvm-cpu",
        args: &[
            "--device=local-sync",
            "--module=matmul_1024.vmfb",
            "--function=matmul",
            "--input=1024x1024xf32=0.5",
            "--input=1024x1024xf32=2",
            "--expected_output=1024x1024xf32=1024",
        ],
    },
    Workload {
        name: "matmul 1024^3 f32, local-task",
        kind: "kernels",
        suite: "llvm-cpu",
        args: &[
            "--device=local-task",
            "--module=matmul_1024.vmfb",
            "--function=matmul",
            "--input=1024x1024xf32=0.5",
            "--input=1024x1024xf32=2",
            "--expected_output=1024x1024xf32=1024",
        ],
    },
    Workload {
        name: "vmvx matmul 512^3 f32, local-sync",
        kind: "interpreter",
        suite: "vmvx",
        args: &[
            "--device=local-sync",
            "--module=matmul_512.vmfb",
            "--function=matmul",
            "--input=512x512xf32=0.5",
            "--input=512x512xf32=2",
            "--expected_output=512x512xf32=512",
        ],
    },
    Workload {
        name: "100k tiny dispatches, local-task",
        kind: "dispatch path",
        suite: "llvm-cpu",
        args: &[
            "--device=local-task",
            "--module=dispatch_loop.vmfb",
            "--function=step_loop",
            "--input=4xf32=1 2 3 4",
            "--input=100000",
        ],
    },
    Workload {
        name: "100k tiny dispatches, local-sync",
        kind: "dispatch path",
        suite: "llvm-cpu",
        args: &[
            "--device=local-sync",
            "--module=dispatch_loop.vmfb",
            "--function=step_loop",
            "--input=4xf32=1 2 3 4",
            "--input=100000",
        ],
    },
];

/// One thing to time: where to run and what to pass.
struct Job {
    name: String,
    /// What it measures (see [`Workload::kind`]).
    kind: &'static str,
    dir: PathBuf,
    args: Vec<String>,
    /// Files the run writes (relative to `dir`) that must match byte for byte.
    outputs: Vec<String>,
}

/// The devices models run on.
const MODEL_DEVICES: [&str; 2] = ["local-sync", "local-task"];

/// Models also run compiled for VMVX (on local-sync): small enough that the
/// interpreter runs them in well under a second.
const VMVX_MODELS: [&str; 2] = ["ppocr-cls", "orientation"];

/// Options: `--runs N` (default 7), `--filter TEXT`.
pub fn run(args: &[String]) -> Result<bool> {
    let mut runs = 7usize;
    let mut filter: Option<String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => {
                runs = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--runs needs a positive number")?
            }
            "--filter" => filter = Some(it.next().ok_or("--filter needs text")?.clone()),
            other => return Err(format!("unknown bench option `{other}`")),
        }
    }
    let wanted = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let root = crate::repo_root();
    let venv = venv::ensure(&root)?;
    let upstream = venv.iree_run_module();
    let ours = conformance::our_binary(&root)?;

    let mut jobs: Vec<Job> = WORKLOADS
        .iter()
        .filter(|w| wanted(w.name))
        .map(|w| Job {
            name: w.name.to_string(),
            kind: w.kind,
            dir: root.join("testdata").join(w.suite),
            args: w.args.iter().map(|s| s.to_string()).collect(),
            outputs: Vec::new(),
        })
        .collect();
    let mut legend = Vec::new();
    for model in models::MODELS {
        let names: Vec<String> = MODEL_DEVICES
            .iter()
            .map(|device| format!("{}, {device}", model.name))
            .collect();
        let vmvx_name = format!("{} (vmvx), local-sync", model.name);
        let vmvx_wanted = VMVX_MODELS.contains(&model.name) && wanted(&vmvx_name);
        if !vmvx_wanted && !names.iter().any(|n| wanted(n)) {
            continue;
        }
        let prepared = models::prepare(&root, &venv, model)?;
        legend.push(format!(
            "  {:<12} {} ({} from {}, input {})",
            model.name,
            model.what,
            model.member,
            model.wheel,
            model.inputs.join(" ")
        ));
        for (device, name) in MODEL_DEVICES.iter().zip(names) {
            if wanted(&name) {
                jobs.push(model_job(name, device, &prepared, model.name));
            }
        }
        if vmvx_wanted {
            let prepared = models::prepare_vmvx(&root, &venv, model)?;
            jobs.push(model_job(vmvx_name, "local-sync", &prepared, model.name));
        }
    }

    println!(
        "ours:     {}\nupstream: {}\nruns per tool: {runs} (alternating order); medians\n",
        ours.display(),
        upstream.display()
    );
    if !legend.is_empty() {
        println!("models:\n{}\n", legend.join("\n"));
    }
    println!(
        "{:<40} {:>10} {:>10} {:>7} {:>9} {:>9} {:>7}",
        "workload", "upstream", "ours", "ratio", "up RSS", "our RSS", "ratio"
    );
    let mut all_ok = true;
    let mut ratios = Vec::new();
    for job in &jobs {
        match measure(&upstream, &ours, job, runs) {
            Ok((up, us)) => {
                let ratio = us.wall.as_secs_f64() / up.wall.as_secs_f64();
                println!(
                    "{:<40} {:>8.1}ms {:>8.1}ms {:>7.3} {:>6.1}MiB {:>6.1}MiB {:>7.3}",
                    job.name,
                    ms(up.wall),
                    ms(us.wall),
                    ratio,
                    mib(up.rss_kib),
                    mib(us.rss_kib),
                    us.rss_kib as f64 / up.rss_kib.max(1) as f64
                );
                ratios.push(crate::tools::Ratio {
                    kind: job.kind,
                    name: job.name.clone(),
                    ratio,
                });
            }
            Err(why) => {
                all_ok = false;
                println!("{:<40} FAILED: {why}", job.name);
            }
        }
    }
    let (per_call_ok, per_call) = crate::tools::bench_per_call(runs, &wanted)?;
    ratios.extend(per_call);
    let (python_ok, python) = crate::bench_python::per_call(&root, runs, &wanted)?;
    ratios.extend(python);
    if !ratios.is_empty() {
        println!("\nsummary, ours/upstream (time; below 1 is faster):");
        for kind in [
            "interpreter",
            "dispatch path",
            "Python call",
            "model call",
            "kernels",
        ] {
            for r in ratios.iter().filter(|r| r.kind == kind) {
                println!("{kind:<14} {:<52} {:>7.3}", r.name, r.ratio);
            }
        }
    }
    Ok(all_ok && per_call_ok && python_ok)
}

/// A model run on `device`, writing its outputs for comparison.
fn model_job(name: String, device: &str, prepared: &models::Prepared, model: &str) -> Job {
    let outputs: Vec<String> = (0..prepared.outputs)
        .map(|i| format!("{model}.out{i}.npy"))
        .collect();
    let mut args = vec![format!("--device={device}")];
    args.extend(prepared.args.iter().cloned());
    args.extend(outputs.iter().map(|f| format!("--output=@{f}")));
    Job {
        name,
        kind: "model run",
        dir: prepared.dir.clone(),
        args,
        outputs,
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Medians of one tool's runs.
struct Summary {
    wall: Duration,
    rss_kib: u64,
}

/// What one run produced: its stdout and the bytes of each output file.
fn run_once(tool: &Path, job: &Job) -> Result<(proc::Measured, Vec<Vec<u8>>)> {
    let timeout = Duration::from_secs(300);
    for file in &job.outputs {
        let _ = std::fs::remove_file(job.dir.join(file));
    }
    let run = proc::run_measured(tool, &job.args, &job.dir, timeout)?;
    if run.output.exit_code != 0 {
        return Err(format!(
            "{} exited with {}: {}",
            tool.display(),
            run.output.exit_code,
            run.output.stderr.trim_end()
        ));
    }
    let files = job
        .outputs
        .iter()
        .map(|f| {
            std::fs::read(job.dir.join(f))
                .map_err(|e| format!("{} wrote no {f}: {e}", tool.display()))
        })
        .collect::<Result<_>>()?;
    Ok((run, files))
}

fn measure(upstream: &Path, ours: &Path, job: &Job, runs: usize) -> Result<(Summary, Summary)> {
    // Untimed first runs (page cache, CPU frequency) that also check that
    // both print the same and write the same bytes.
    let (a, a_files) = run_once(upstream, job)?;
    let (b, b_files) = run_once(ours, job)?;
    if a.output.stdout != b.output.stdout {
        return Err(format!(
            "stdout differs: upstream {:?}, ours {:?}",
            a.output.stdout, b.output.stdout
        ));
    }
    if let Some(i) = (0..a_files.len()).find(|&i| a_files[i] != b_files[i]) {
        return Err(format!("{} differs from upstream's", job.outputs[i]));
    }
    let mut up = Vec::with_capacity(runs);
    let mut us = Vec::with_capacity(runs);
    for i in 0..runs {
        let order: [(&Path, &mut Vec<proc::Measured>); 2] = if i % 2 == 0 {
            [(upstream, &mut up), (ours, &mut us)]
        } else {
            [(ours, &mut us), (upstream, &mut up)]
        };
        for (tool, samples) in order {
            samples.push(run_once(tool, job)?.0);
        }
    }
    Ok((summarize(&up), summarize(&us)))
}

fn summarize(samples: &[proc::Measured]) -> Summary {
    let mut walls: Vec<Duration> = samples.iter().map(|m| m.wall).collect();
    let mut rss: Vec<u64> = samples.iter().map(|m| m.peak_rss_kib).collect();
    walls.sort();
    rss.sort();
    Summary {
        wall: walls[walls.len() / 2],
        rss_kib: rss[rss.len() / 2],
    }
}
