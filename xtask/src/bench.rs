//! `cargo xtask bench`: wall time of our `iree-run-module` against upstream's
//! on the same modules, flags and inputs, in one alternating run.
//!
//! Each workload runs `--runs` times per tool, alternating which tool goes
//! first, after one untimed warm-up each; outputs must be identical. The
//! report gives the median wall time per tool and the ratio ours/upstream.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::{conformance, proc, venv, Result};

/// A benchmark: a name, a suite directory and the `iree-run-module` args.
struct Workload {
    name: &'static str,
    suite: &'static str,
    args: &'static [&'static str],
}

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "scalar_loop (50M trips)",
        suite: "bench",
        args: &[
            "--module=loops.vmfb",
            "--function=scalar_loop",
            "--input=50000000",
        ],
    },
    Workload {
        name: "call_loop (20M internal calls)",
        suite: "bench",
        args: &[
            "--module=loops.vmfb",
            "--function=call_loop",
            "--input=20000000",
        ],
    },
    Workload {
        name: "import_loop (5M cross-module calls)",
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
        suite: "bench",
        args: &[
            "--module=loops.vmfb",
            "--function=list_loop",
            "--input=20000000",
        ],
    },
    Workload {
        name: "matmul 1024^3 f32, local-sync",
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
        name: "100k tiny dispatches, local-task",
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
                    .ok_or("--runs needs a number")?
            }
            "--filter" => filter = Some(it.next().ok_or("--filter needs text")?.clone()),
            other => return Err(format!("unknown bench option `{other}`")),
        }
    }
    let root = crate::repo_root();
    let upstream = venv::ensure(&root)?.iree_run_module();
    let ours = conformance::our_binary(&root)?;
    println!(
        "ours:     {}\nupstream: {}\nruns per tool: {runs} (alternating order)\n",
        ours.display(),
        upstream.display()
    );
    println!(
        "{:<40} {:>12} {:>12} {:>8}",
        "workload", "upstream", "ours", "ratio"
    );
    let mut all_ok = true;
    for w in WORKLOADS
        .iter()
        .filter(|w| filter.as_deref().is_none_or(|f| w.name.contains(f)))
    {
        let dir = root.join("testdata").join(w.suite);
        let args: Vec<String> = w.args.iter().map(|s| s.to_string()).collect();
        let (up, us) = measure(&upstream, &ours, &args, &dir, runs)?;
        match (up, us) {
            (Ok(up), Ok(us)) => {
                println!(
                    "{:<40} {:>10.1}ms {:>10.1}ms {:>8.3}",
                    w.name,
                    ms(up),
                    ms(us),
                    us.as_secs_f64() / up.as_secs_f64()
                );
            }
            (up, us) => {
                all_ok = false;
                println!(
                    "{:<40} FAILED: upstream {:?}, ours {:?}",
                    w.name,
                    up.err(),
                    us.err()
                );
            }
        }
    }
    Ok(all_ok)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

type Timing = std::result::Result<Duration, String>;

fn measure(
    upstream: &Path,
    ours: &Path,
    args: &[String],
    dir: &Path,
    runs: usize,
) -> Result<(Timing, Timing)> {
    let timeout = Duration::from_secs(300);
    // Warm-up (page cache, CPU frequency), and check both print the same.
    let a = proc::run(upstream, args, dir, timeout)?;
    let b = proc::run(ours, args, dir, timeout)?;
    if a.exit_code != 0 || b.exit_code != 0 || a.stdout != b.stdout {
        let why = format!(
            "outputs differ or failed: upstream exit {} {:?}; ours exit {} {:?}",
            a.exit_code, a.stdout, b.exit_code, b.stdout
        );
        return Ok((Err(why.clone()), Err(why)));
    }
    let mut up = Vec::with_capacity(runs);
    let mut us = Vec::with_capacity(runs);
    for i in 0..runs {
        let order: [(&Path, &mut Vec<Duration>); 2] = if i % 2 == 0 {
            [(upstream, &mut up), (ours, &mut us)]
        } else {
            [(ours, &mut us), (upstream, &mut up)]
        };
        for (tool, times) in order {
            let start = Instant::now();
            let out = proc::run(tool, args, dir, timeout)?;
            let elapsed = start.elapsed();
            if out.exit_code != 0 {
                return Err(format!("{} failed: {}", tool.display(), out.stderr));
            }
            times.push(elapsed);
        }
    }
    Ok((Ok(median(&mut up)), Ok(median(&mut us))))
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}
