//! The interpreter's checked build (feature `checked`) on every committed
//! module: everything the verifier accepts runs (`__init`, each export with
//! zero arguments, `__deinit`, stand-ins for imports, a step budget) with
//! every unchecked access asserting. The execution fuzz target
//! (`fuzz/fuzz_targets/run_module.rs`) does the same with mutated modules;
//! each verifier bug it found is replayed here (`fuzz/regressions/run_module`).
//! Run with `cargo test -p iree-vm-bytecode --features checked`.
#![cfg(feature = "checked")]

use std::path::{Path, PathBuf};

use iree_vm::Instance;
use iree_vm_bytecode::checked::run_all_exports;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files(dir: &str, extension: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == extension))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[test]
fn every_committed_module_runs_inside_its_proof() {
    let instance = Instance::new();
    let mut calls = 0;
    let mut linked = 0;
    let mut paths = Vec::new();
    for dir in [
        "testdata/vm",
        "testdata/vm-async",
        "testdata/vm-hal",
        "testdata/vmvx",
        "crates/vm-bytecode/tests/data",
    ] {
        paths.extend(files(dir, "vmfb"));
    }
    assert!(paths.len() > 50, "{} modules", paths.len());
    for path in &paths {
        eprintln!("running {}", path.display());
        let bytes = std::fs::read(path).unwrap();
        if let Some(n) = run_all_exports(&instance, bytes, 200_000) {
            linked += 1;
            calls += n;
        }
    }
    assert!(
        linked > 50 && calls > 200,
        "{linked} modules linked, {calls} calls"
    );
}

#[test]
fn fuzz_regressions_run_inside_their_proof() {
    let instance = Instance::new();
    for path in files("fuzz/regressions/run_module", "vmfb") {
        let bytes = std::fs::read(&path).unwrap();
        let _ = run_all_exports(&instance, bytes, 20_000);
    }
}
