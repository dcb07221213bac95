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
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one run may take.
const TIMEOUT: Duration = Duration::from_secs(20);
/// Mutants per seed file.
const MUTANTS_PER_SEED: usize = 24;

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `bytes`: bit flips, byte and word overwrites with
/// boundary values, truncation, or a duplicated chunk.
fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return out;
    }
    match rng.below(5) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
        }
        1 => {
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(out.len());
                out[i] = [0x00, 0xff, 0x7f, 0x80, rng.next() as u8][rng.below(5)];
            }
        }
        2 => {
            let word: u32 = [
                0,
                u32::MAX,
                i32::MAX as u32,
                0x8000_0000,
                1 << 20,
                rng.next() as u32,
            ][rng.below(6)];
            let i = rng.below(out.len().saturating_sub(4).max(1)) & !3;
            for (k, b) in word.to_le_bytes().iter().enumerate() {
                if let Some(slot) = out.get_mut(i + k) {
                    *slot = *b;
                }
            }
        }
        3 => {
            let len = rng.below(out.len());
            out.truncate(len);
        }
        _ => {
            let start = rng.below(out.len());
            let len = 1 + rng.below((out.len() - start).min(256));
            let chunk = out[start..start + len].to_vec();
            let at = rng.below(out.len());
            out.splice(at..at, chunk);
        }
    }
    out
}

/// Runs `iree-run-module args` under the limits; Err describes a failure.
fn run_limited(args: &[String]) -> Result<(), String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4194304; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_iree-run-module"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawning: {e}"))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("waiting: {e}"))? {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("hung (killed after {TIMEOUT:?})"));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = child
        .stderr
        .take()
        .map(|mut s| {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut s, &mut text);
            text
        })
        .unwrap_or_default();
    match status.code() {
        None => Err(format!("killed by a signal ({status}); stderr: {stderr}")),
        Some(101) => Err(format!("panicked; stderr: {stderr}")),
        Some(_) => Ok(()),
    }
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
        let mutant = mutate(rng, &bytes);
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
    let mut rng = Rng(0x1ee5_eed0_5eed_1234);
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
