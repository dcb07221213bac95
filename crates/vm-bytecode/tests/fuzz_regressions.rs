//! Replays the inputs under `fuzz/regressions/` (cases the fuzzers once
//! found) through load, verify and instantiation. Each must produce a value
//! or an error: reaching the end of this test means none panicked or aborted.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use iree_vm::{Context, Instance, Module};
use iree_vm_bytecode::BytecodeModule;

fn inputs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            inputs(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn fuzz_regressions_load_without_panicking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut files = Vec::new();
    inputs(&root, &mut files);
    files.sort();
    for path in &files {
        let bytes = std::fs::read(path).expect("reading regression input");
        let instance = Instance::new();
        match BytecodeModule::from_vec(&instance, bytes) {
            Ok(module) => {
                let _ = Context::with_modules(instance, [module as Arc<dyn Module>]);
            }
            Err(status) => {
                assert!(
                    !status.message().is_empty(),
                    "{}: error without a message",
                    path.display()
                );
            }
        }
    }
    println!("{} regression inputs replayed", files.len());
}
