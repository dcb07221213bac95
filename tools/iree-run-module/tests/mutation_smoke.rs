//! A robustness smoke: a few hundred inputs, mutated with a fixed seed from
//! committed test data (VM and VMVX modules, parameter files in every
//! format, `.npy` inputs), run through `iree-run-module`. Every run must end
//! by itself with a status: no panic (exit 101), no signal, no hang, no
//! runaway memory (each run has a 4 GiB address-space limit). Wrong-input
//! errors are the expected outcome. Mutated modules carry no native code
//! (VM and VMVX bytecode only), so a signal is always our bug.
//!
//! The campaign is deterministic (a fixed xorshift seed), so a failure
//! names a reproducible input; it is written next to the failure message.

use std::path::{Path, PathBuf};
use std::time::Duration;

use iree_tooling::robustness::{self, mutate, Limits, Outcome, Rng};

/// How long one run may take.
const TIMEOUT: Duration = Duration::from_secs(20);
/// Mutants per seed file.
const MUTANTS_PER_SEED: usize = 24;

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

/// Runs `iree-run-module args` under the limits; Err describes a failure.
fn run_limited(args: &[String]) -> Result<(), String> {
    let limits = Limits {
        timeout: TIMEOUT,
        ..Limits::default()
    };
    let program = Path::new(env!("CARGO_BIN_EXE_iree-run-module"));
    let cwd = std::env::temp_dir();
    let run = robustness::run_limited(program, args, &cwd, limits)
        .map_err(|e| format!("spawning: {e}"))?;
    if run.outcome.is_crash() || run.outcome == Outcome::OutOfMemory {
        return Err(format!("{}; stderr: {}", run.outcome, run.stderr));
    }
    Ok(())
}

/// Mutates `seed` and runs `args_for(mutant_path)` for each mutant.
fn campaign(
    rng: &mut Rng,
    seed: &Path,
    extension: &str,
    args_for: impl Fn(&Path) -> Vec<String>,
    failures: &mut Vec<String>,
) -> usize {
    let bytes = std::fs::read(seed).unwrap_or_else(|e| panic!("reading {}: {e}", seed.display()));
    let dir = std::env::temp_dir().join(format!("iree-mutation-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let stem = seed.file_stem().and_then(|s| s.to_str()).unwrap_or("seed");
    for i in 0..MUTANTS_PER_SEED {
        let (mutant, _) = mutate(rng, &bytes);
        let path = dir.join(format!("{stem}-{i}.{extension}"));
        std::fs::write(&path, &mutant).expect("writing a mutant");
        if let Err(why) = run_limited(&args_for(&path)) {
            let keep =
                std::env::temp_dir().join(format!("iree-mutation-failure-{stem}-{i}.{extension}"));
            let _ = std::fs::copy(&path, &keep);
            failures.push(format!(
                "{} mutant {i} (kept at {}): {why}",
                seed.display(),
                keep.display()
            ));
        }
        let _ = std::fs::remove_file(&path);
    }
    MUTANTS_PER_SEED
}

#[test]
fn mutated_inputs_end_with_a_status() {
    let mut rng = Rng::new(0x1ee5_eed0_5eed_1234);
    let mut failures = Vec::new();
    let mut runs = 0;

    // Modules without native code: parsing, verification, function lookup.
    let mut modules: Vec<PathBuf> = Vec::new();
    for dir in ["vm", "vmvx"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(testdata(dir))
            .expect("listing testdata")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "vmfb"))
            .collect();
        found.sort();
        modules.extend(found.into_iter().step_by(3));
    }
    for module in &modules {
        runs += campaign(
            &mut rng,
            module,
            "vmfb",
            |path| {
                vec![
                    "--device=local-sync".to_string(),
                    format!("--module={}", path.display()),
                ]
            },
            &mut failures,
        );
    }

    // Parameter files of every format, read by a module that uses them.
    let params_module = testdata("params/floats.vmfb");
    for seed in [
        "floats.irpa",
        "floats.gguf",
        "floats.safetensors",
        "ints.irpa",
    ] {
        let ext = seed.rsplit('.').next().unwrap_or("bin").to_string();
        runs += campaign(
            &mut rng,
            &testdata(&format!("params/{seed}")),
            &ext,
            |path| {
                vec![
                    "--device=local-sync".to_string(),
                    format!("--module={}", params_module.display()),
                    "--function=add".to_string(),
                    "--input=4xf32=1 2 3 4".to_string(),
                    format!("--parameters=model={}", path.display()),
                ]
            },
            &mut failures,
        );
    }

    // `.npy` inputs.
    let npy_module = testdata("llvm-cpu/expected_output.vmfb");
    for seed in ["npy_u8_4.npy", "npy_multi.npy", "npy_f16_4.npy"] {
        runs += campaign(
            &mut rng,
            &testdata(&format!("llvm-cpu/{seed}")),
            "npy",
            |path| {
                vec![
                    "--device=local-sync".to_string(),
                    format!("--module={}", npy_module.display()),
                    "--function=mul".to_string(),
                    format!("--input=@{}", path.display()),
                    format!("--input=@{}", path.display()),
                ]
            },
            &mut failures,
        );
    }

    assert!(runs >= 200, "only {runs} runs");
    assert!(
        failures.is_empty(),
        "{} of {runs} mutated inputs did not end with a status:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
