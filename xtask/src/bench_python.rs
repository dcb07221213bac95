//! The Python part of `cargo xtask bench`: `bindings/python/benchmarks/per_call.py`
//! (a tiny call through a bound function and through
//! `ctx.modules.module.fn(a, b)`, and a call with 1 MiB arrays; one process
//! per package and round, alternating) with upstream's `iree.runtime` and
//! our `iree_rust.runtime` side by side, in a venv of its own
//! (`target/bench-py/venv`: the pinned `iree-base-runtime`, numpy, maturin
//! and our wheel, built in release).

use std::path::Path;
use std::process::Command;

use crate::tools::Ratio;
use crate::upstream_py::install_our_wheel;
use crate::venv::ensure_tool_venv;
use crate::Result;

/// What the venv holds besides our wheel.
const REQUIREMENTS: [&str; 3] = [
    "iree-base-runtime==3.13.0",
    "numpy==2.4.6",
    "maturin==1.16.0",
];

/// Runs `per_call.py` with `rounds` rounds when any of its workloads is
/// wanted (their names start with `python: `); prints its table and
/// returns its ratios, or false when it failed.
pub fn per_call(
    root: &Path,
    rounds: usize,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<(bool, Vec<Ratio>)> {
    const NAMES: [&str; 3] = [
        "python: tiny call",
        "python: tiny call, ctx.modules.module.mul(a, b)",
        "python: 1 MiB arrays",
    ];
    if !NAMES.iter().any(|n| wanted(n)) {
        return Ok((true, Vec::new()));
    }
    let work = root.join("target").join("bench-py");
    let python = ensure_tool_venv(
        &work.join("venv"),
        &REQUIREMENTS,
        "iree-base-runtime",
        &["numpy", "maturin"],
    )?;
    install_our_wheel(root, &work, &python, true)?;
    println!("\nPython per call (bindings/python/benchmarks/per_call.py, median of {rounds} alternating rounds, local-sync):");
    let out = Command::new(&python)
        .current_dir(root)
        .arg("bindings/python/benchmarks/per_call.py")
        .args(["--rounds", &rounds.to_string()])
        .output()
        .map_err(|e| format!("running per_call.py: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    if !out.status.success() {
        println!(
            "per_call.py FAILED ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return Ok((false, Vec::new()));
    }
    // Lines end in `ratio R`; the workload name comes first.
    let ratios = stdout
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(" upstream ")?;
            let ratio = rest.rsplit_once("ratio ")?.1.trim().parse().ok()?;
            Some(Ratio {
                kind: "Python call",
                name: name.trim().to_string(),
                ratio,
            })
        })
        .collect();
    Ok((true, ratios))
}
