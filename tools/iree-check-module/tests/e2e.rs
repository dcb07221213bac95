//! Runs the end-to-end check suites of `testdata/e2e` (built by `cargo
//! xtask e2e` for llvm-cpu embedded, llvm-cpu system-library and vmvx)
//! through `iree-check-module` on `local-sync` and `local-task`: every test
//! of every suite must pass. Then the modules of `testdata/e2e/bad`: wrong
//! expectations fail with the mismatch while other tests still run, and
//! bad modules fail with a clear error and no panic. Also the check
//! modules of `testdata/inline` (inline execution models).

use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

const FORMATS: &[&str] = &["llvm-cpu", "llvm-cpu-system", "vmvx"];
const DEVICES: &[&str] = &["local-sync", "local-task"];

fn e2e_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/e2e")
}

/// Exit code, stdout, stderr.
fn check_module(args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-check-module"))
        .args(args)
        // Two workers keep local-task cheap on small CI machines.
        .arg("--task_topology_group_count=2")
        .output()
        .expect("spawning iree-check-module");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn module_arg(path: &Path) -> String {
    format!("--module={}", path.display())
}

fn bad_module(name: &str) -> String {
    module_arg(&e2e_dir().join("bad").join(format!("{name}.vmfb")))
}

fn ensure(condition: bool, what: &str, stdout: &str, stderr: &str) -> Result<(), Failed> {
    if condition {
        Ok(())
    } else {
        Err(format!("{what}\n--- stdout:\n{stdout}--- stderr:\n{stderr}").into())
    }
}

/// Runs one suite module; every test must pass.
fn run_suite(module: &Path, device: &str) -> Result<(), Failed> {
    let (code, stdout, stderr) = check_module(&[module_arg(module), format!("--device={device}")]);
    let runs = stdout.matches("[ RUN      ]").count();
    let oks = stdout.matches("[       OK ]").count();
    ensure(code == 0, &format!("exit code {code}"), &stdout, &stderr)?;
    ensure(
        runs > 0 && runs == oks,
        "not every test passed",
        &stdout,
        &stderr,
    )?;
    let summary = format!(
        "[  PASSED  ] {runs} test{}.\n",
        if runs == 1 { "" } else { "s" }
    );
    ensure(
        stdout.contains(&summary),
        "no PASSED summary",
        &stdout,
        &stderr,
    )
}

fn wrong_expectation(device: &str) -> Result<(), Failed> {
    let (code, stdout, stderr) = check_module(&[
        bad_module("wrong_expectation"),
        format!("--device={device}"),
    ]);
    ensure(code == 1, &format!("exit code {code}"), &stdout, &stderr)?;
    let expected = [
        "[       OK ] module.passes_before",
        "module.wrong_sum: Failure\ncheck.expect_eq: Expected equality of these values. Contents does not match. The first difference is at index 2: lhs 4 and rhs 5.\n  lhs:\n    4xi32=2 3 4 5\n  rhs:\n    4xi32=2 3 5 5\n\n[  FAILED  ] module.wrong_sum (",
        "module.wrong_tolerance: Failure\ncheck.expect_almost_eq: Expected near equality of these values. Contents does not match to tolerance parameters atol=0.0001, rtol=0. The first failure occurs at index 1 as the lhs value 2 differs from the rhs value 2.5 by 5.000e-01.\n  lhs:\n    3xf32=1 2 3\n  rhs:\n    3xf32=1 2.5 3\n",
        "module.two_failures: Failure\ncheck.expect_true: Expected 0 to be nonzero.\n\nmodule.two_failures: Failure\ncheck.expect_eq: Expected equality of these values. Contents does not match. The first difference is at index 0: lhs 7 and rhs 8.\n",
        "[       OK ] module.passes_after",
        "[  PASSED  ] 2 tests.\n[  FAILED  ] 3 tests, listed below:\n[  FAILED  ] module.wrong_sum\n[  FAILED  ] module.wrong_tolerance\n[  FAILED  ] module.two_failures\n\n 3 FAILED TESTS\n",
    ];
    for text in expected {
        ensure(
            stdout.contains(text),
            &format!("missing: {text}"),
            &stdout,
            &stderr,
        )?;
    }
    Ok(())
}

/// A bad module: exit 1, `message` on stderr, no test run, no panic.
fn bad_input(name: &str, message: &str) -> Result<(), Failed> {
    let (code, stdout, stderr) = check_module(&[bad_module(name)]);
    ensure(code == 1, &format!("exit code {code}"), &stdout, &stderr)?;
    ensure(
        stderr.contains(message),
        &format!("missing: {message}"),
        &stdout,
        &stderr,
    )?;
    ensure(!stderr.contains("panicked"), "panicked", &stdout, &stderr)?;
    ensure(!stdout.contains("[ RUN"), "ran a test", &stdout, &stderr)
}

fn non_tensor_argument() -> Result<(), Failed> {
    let (code, stdout, stderr) = check_module(&[bad_module("non_tensor_argument")]);
    ensure(code == 1, &format!("exit code {code}"), &stdout, &stderr)?;
    let expected = [
        "non_tensor_argument.buffer_instead_of_view: Failure\n",
        "INVALID_ARGUMENT; lhs: expected a hal.buffer_view but have a vm.buffer; while invoking native function check.expect_eq",
        "[       OK ] non_tensor_argument.passes",
        "[  FAILED  ] 1 test, listed below:",
    ];
    for text in expected {
        ensure(
            stdout.contains(text),
            &format!("missing: {text}"),
            &stdout,
            &stderr,
        )?;
    }
    Ok(())
}

fn filters_and_expect_failure() -> Result<(), Failed> {
    let module = bad_module("wrong_expectation");
    let (code, stdout, stderr) = check_module(&[module.clone(), "--gtest_filter=*passes*".into()]);
    ensure(code == 0, "filtered run failed", &stdout, &stderr)?;
    ensure(
        stdout.starts_with("Note: Google Test filter = *passes*\n[==========] Running 2 tests from 1 test suite.\n"),
        "filter header",
        &stdout,
        &stderr,
    )?;
    let (code, stdout, stderr) =
        check_module(&[module.clone(), "--gtest_filter=-*wrong*:*two*".into()]);
    ensure(
        code == 0 && stdout.contains("[  PASSED  ] 2 tests."),
        "negative filter",
        &stdout,
        &stderr,
    )?;
    let (code, stdout, stderr) = check_module(&[
        module.clone(),
        "--gtest_filter=*two*".into(),
        "--gtest_list_tests".into(),
    ]);
    ensure(
        code == 0 && stdout == "module.\n  two_failures\n",
        "list tests",
        &stdout,
        &stderr,
    )?;
    let (code, stdout, stderr) = check_module(&[module, "--expect_failure".into()]);
    ensure(
        code == 0 && stdout.ends_with("Test failed as expected\n"),
        "expect_failure",
        &stdout,
        &stderr,
    )
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for format in FORMATS {
        let dir = e2e_dir().join(format);
        let mut modules: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("listing testdata/e2e")
            .map(|e| e.expect("reading testdata/e2e").path())
            .filter(|p| p.extension().is_some_and(|x| x == "vmfb"))
            .collect();
        modules.sort();
        for module in modules {
            let suite = module.file_stem().unwrap().to_string_lossy().into_owned();
            for device in DEVICES {
                let module = module.clone();
                trials.push(Trial::test(
                    format!("{format}/{suite}/{device}"),
                    move || run_suite(&module, device),
                ));
            }
        }
    }
    for device in DEVICES {
        trials.push(Trial::test(
            format!("bad/wrong_expectation/{device}"),
            move || wrong_expectation(device),
        ));
    }
    // The inline execution models (hal_inline, hal_loader): scalar checks,
    // `testdata/inline/check_*.mlir`.
    for group in ["check_static_vmvx", "check_dynamic_llvm_cpu"] {
        for &device in DEVICES {
            let module = e2e_dir().join("../inline").join(format!("{group}.vmfb"));
            trials.push(Trial::test(format!("inline/{group}/{device}"), move || {
                run_suite(&module, device)
            }));
        }
    }
    trials.push(Trial::test("bad/no_exports", || {
        bad_input(
            "no_exports",
            "INVALID_ARGUMENT; module 'no_exports' exports no test functions",
        )
    }));
    trials.push(Trial::test("bad/mismatched_import", || {
        bad_input(
            "mismatched_import",
            "INTERNAL; import function check.expect_true signature mismatch between mismatched_import and source check; expected 0I_v but got 0i_v",
        )
    }));
    trials.push(Trial::test("bad/export_with_arguments", || {
        bad_input(
            "export_with_arguments",
            "INVALID_ARGUMENT; expected function with no inputs or outputs, but export 'takes_a_tensor' has signature '0r_v'",
        )
    }));
    trials.push(Trial::test("bad/non_tensor_argument", non_tensor_argument));
    trials.push(Trial::test(
        "bad/filters_and_expect_failure",
        filters_and_expect_failure,
    ));
    libtest_mimic::run(&args, trials).exit();
}
