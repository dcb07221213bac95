//! Runs every VM-suite case in-process with opcode recording enabled and
//! checks that the corpus executes every opcode of the ISA.

use std::path::{Path, PathBuf};

use iree_tooling::run::{run, RunOptions};
use iree_tooling::testcases::load_suite;
use iree_vm_bytecode::coverage;
use libtest_mimic::{Arguments, Failed, Trial};

fn options_for(dir: &Path, args: &[String]) -> RunOptions {
    let mut options = RunOptions::default();
    for arg in args {
        if let Some(m) = arg.strip_prefix("--module=") {
            options
                .modules
                .push(dir.join(m).to_string_lossy().into_owned());
        } else if let Some(f) = arg.strip_prefix("--function=") {
            options.function = f.to_string();
        } else if let Some(i) = arg.strip_prefix("--input=") {
            options.inputs.push(i.to_string());
        }
    }
    options
}

fn check() -> Result<(), Failed> {
    let dir: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vm");
    for case in load_suite(&dir).map_err(|e| Failed::from(e.to_string()))? {
        let mut sink = Vec::new();
        // Failures are expected for some cases; only coverage matters here.
        let _ = run(&options_for(&case.dir, &case.args), &mut sink);
    }
    let executed = coverage::executed();
    let all = coverage::all_opcodes();
    let missing: Vec<String> = all
        .iter()
        .filter(|op| !executed.contains(op))
        .map(|op| {
            format!(
                "{}:{:#04x}",
                ["core", "ext_f32", "ext_f64"][(op >> 8) as usize],
                op & 0xFF
            )
        })
        .collect();
    println!(
        "opcode coverage: {}/{} executed",
        all.len() - missing.len(),
        all.len()
    );
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Failed::from(format!(
            "opcodes never executed by testdata/vm: {}",
            missing.join(", ")
        )))
    }
}

fn main() {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, vec![Trial::test("every_opcode_executes", check)]).exit();
}
