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

/// What the execution fuzz target (`run_module`, the interpreter's checked
/// build) found: modules whose code left what the verifier proved. Each was
/// a verifier bug and is now rejected at load, with upstream's message.
#[test]
fn execution_fuzz_findings_are_rejected_by_the_verifier() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/run_module");
    let expected: &[(&str, &str)] = &[(
        // `vm.call` (not yieldable: it falls through) as the last op of a
        // function; the verifier counted every call as a terminator.
        "call-as-last-op-of-a-function.vmfb",
        "function missing terminator in the last block",
    )];
    for (name, message) in expected {
        let bytes = std::fs::read(dir.join(name)).expect("reading regression input");
        let status = BytecodeModule::from_vec(&Instance::new(), bytes)
            .err()
            .unwrap_or_else(|| panic!("{name} loads"));
        assert_eq!(
            status.code(),
            iree_base::StatusCode::InvalidArgument,
            "{name}: {status}"
        );
        assert_eq!(status.message(), *message, "{name}");
    }
    let mut files = Vec::new();
    inputs(&dir, &mut files);
    assert_eq!(files.len(), expected.len(), "every finding is listed here");
}
