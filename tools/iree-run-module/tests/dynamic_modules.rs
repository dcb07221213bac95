//! Dynamic modules through `iree-run-module`: the sample library
//! (`samples/sample-module`) called from compiled code on local-sync and
//! local-task, and every kind of bad library failing cleanly.
//!
//! The libraries are cdylibs that `cargo test` does not build on its own,
//! so the first test to need them runs `cargo build` for them into this
//! test's target directory (cargo has released its lock by the time tests
//! run; when they are up to date this is a no-op).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const RUN_MODULE: &str = env!("CARGO_BIN_EXE_iree-run-module");

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn testdata(name: &str) -> String {
    workspace()
        .join("testdata/dynamic")
        .join(name)
        .display()
        .to_string()
}

/// The directory of the libraries: `target/<profile>`, the parent of the
/// `deps/` directory this test runs from.
fn libraries_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>/deps/<test>")
            .to_path_buf();
        let target_dir = profile_dir
            .parent()
            .expect("target/<profile>")
            .to_path_buf();
        let profile = profile_dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("profile directory name")
            .to_string();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let mut build = Command::new(cargo);
        build
            .current_dir(workspace())
            .args([
                "build",
                "-p",
                "sample-module",
                "-p",
                "iree-vm-dynamic-fixtures",
            ])
            .env("CARGO_TARGET_DIR", &target_dir);
        if profile != "debug" {
            build.args([
                "--profile",
                if profile == "release" {
                    "release"
                } else {
                    &profile
                },
            ]);
        }
        let status = build
            .status()
            .expect("running cargo build for the test libraries");
        assert!(status.success(), "cargo build of the test libraries failed");
        profile_dir
    })
}

fn library(name: &str) -> String {
    let file = format!(
        "{}{name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    libraries_dir().join(file).display().to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(RUN_MODULE)
        .args(args)
        .output()
        .expect("running iree-run-module")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and expects success with exactly `expected` on stdout.
fn expect_output(args: &[&str], expected: &str) {
    let o = run(args);
    assert!(o.status.success(), "{args:?} failed:\n{}", stderr(&o));
    assert_eq!(stdout(&o), expected, "{args:?}");
}

/// Runs and expects a clean failure (an exit code, not a signal) whose
/// stderr contains every one of `needles`.
fn expect_failure(args: &[&str], needles: &[&str]) {
    let o = run(args);
    assert!(
        matches!(o.status.code(), Some(code) if code != 0),
        "{args:?}: expected a non-zero exit, got {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        stdout(&o),
        stderr(&o)
    );
    let err = stderr(&o);
    for needle in needles {
        assert!(
            err.contains(needle),
            "{args:?}: {needle:?} not in stderr:\n{err}"
        );
    }
}

#[test]
fn sample_module_on_local_sync_and_local_task() {
    let sample = library("sample_module");
    let program = testdata("sample_user.vmfb");
    for device in ["local-sync", "local-task"] {
        let device = format!("--device={device}");
        let base = [
            device.as_str(),
            &format!("--module={sample}"),
            &format!("--module={program}"),
        ]
        .map(str::to_string);
        let with = |extra: &[&str]| -> Vec<String> {
            base.iter()
                .cloned()
                .chain(extra.iter().map(|s| s.to_string()))
                .collect()
        };
        let args = with(&["--function=accumulate", "--input=2", "--input=3"]);
        expect_output(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            "EXEC @accumulate\nresult[0]: i32=2\nresult[1]: i32=5\n",
        );
        let args = with(&["--function=reverse", "--input=4xf32=1 2 3 4"]);
        expect_output(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            "EXEC @reverse\nresult[0]: hal.buffer_view\n4xf32=4 3 2 1\n\
             result[1]: hal.buffer_view\n4xf32=5 5 5 5\n",
        );
        let args = with(&["--function=both", "--input=-7", "--input=3xf32=1.5 -2 8"]);
        expect_output(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            "EXEC @both\nresult[0]: i32=-7\nresult[1]: hal.buffer_view\n3xf32=8 -2 1.5\n",
        );
    }
}

#[test]
fn sample_module_through_the_tooling_api() {
    use iree_tooling::run::{create_run_context, run_function, RunOptions};
    let options = RunOptions {
        modules: vec![
            library("sample_module").into(),
            testdata("sample_user.vmfb").into(),
        ],
        function: "accumulate".to_string(),
        inputs: vec!["10".into(), "-4".into()],
        devices: vec!["local-sync".to_string()],
        ..RunOptions::default()
    };
    // Two calls in one context share the running sum; a new context starts
    // again from 0.
    let run = create_run_context(&options).unwrap();
    let mut out = Vec::new();
    run_function(&run, &options, &mut out).unwrap();
    run_function(&run, &options, &mut out).unwrap();
    let fresh = create_run_context(&options).unwrap();
    run_function(&fresh, &options, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "EXEC @accumulate\nresult[0]: i32=10\nresult[1]: i32=6\n\
         EXEC @accumulate\nresult[0]: i32=16\nresult[1]: i32=12\n\
         EXEC @accumulate\nresult[0]: i32=10\nresult[1]: i32=6\n"
    );
}

#[test]
fn import_signature_mismatch_names_the_function() {
    let sample = library("sample_module");
    expect_failure(
        &[
            "--device=local-sync",
            &format!("--module={sample}"),
            &format!("--module={}", testdata("sample_mismatch.vmfb")),
            "--input=1",
        ],
        &["sample.accumulate", "signature mismatch", "0I_I", "0i_i"],
    );
}

#[test]
fn imports_need_the_library_listed_first() {
    // The program imports `sample.*`; listing the library after it leaves
    // them unresolved.
    let sample = library("sample_module");
    expect_failure(
        &[
            "--device=local-sync",
            &format!("--module={}", testdata("sample_user.vmfb")),
            &format!("--module={sample}"),
            "--function=accumulate",
            "--input=1",
            "--input=2",
        ],
        &["sample"],
    );
}

#[test]
fn library_that_does_not_exist() {
    let path = libraries_dir().join("libno_such_module.so");
    let path = path.display().to_string();
    expect_failure(
        &[&format!("--module={path}"), "--input=1"],
        &["cannot load dynamic module library", &path],
    );
}

#[test]
fn file_that_is_not_a_library() {
    let dir = std::env::temp_dir().join(format!("iree-rs-dynamic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("libgarbage.so");
    std::fs::write(&path, b"this is not an ELF file\n").unwrap();
    let path = path.display().to_string();
    expect_failure(
        &[&format!("--module={path}"), "--input=1"],
        &["cannot load dynamic module library", &path],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn library_without_the_entry_point() {
    // The fixtures library has no `iree_vm_dynamic_module_create`.
    let fixtures = library("iree_vm_dynamic_fixtures");
    expect_failure(
        &[&format!("--module={fixtures}"), "--input=1"],
        &["iree_vm_dynamic_module_create", &fixtures],
    );
    expect_failure(
        &[&format!("--module={fixtures}@no_such_entry"), "--input=1"],
        &["no_such_entry", &fixtures],
    );
}

#[test]
fn library_of_another_abi() {
    // A shared library not built with iree-vm-dynamic (no ABI marker): a
    // copy of the C math library, when there is one.
    let libm = [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists());
    if let Some(libm) = libm {
        let dir = std::env::temp_dir().join(format!("iree-rs-dynamic-abi-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("libm_copy.so");
        std::fs::copy(libm, &path).unwrap();
        let path = path.display().to_string();
        expect_failure(
            &[&format!("--module={path}"), "--input=1"],
            &["iree_rs_vm_dynamic_module_abi", &path],
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn library_reporting_another_abi_version() {
    let fixtures = library("iree_vm_dynamic_fixtures");
    expect_failure(
        &[
            &format!("--module={fixtures}@fixture_future_abi"),
            "--input=1",
        ],
        &[
            "reports dynamic module ABI version 0x52530002",
            "0x52530001",
            &fixtures,
        ],
    );
    expect_failure(
        &[
            &format!("--module={fixtures}@fixture_refuses_version"),
            "--input=1",
        ],
        &["UNIMPLEMENTED", "unsupported runtime version", &fixtures],
    );
}

#[test]
fn library_whose_factory_fails_or_panics() {
    let fixtures = library("iree_vm_dynamic_fixtures");
    expect_failure(
        &[&format!("--module={fixtures}@fixture_failing"), "--input=1"],
        &["PERMISSION_DENIED", "fixture_failing refuses", &fixtures],
    );
    expect_failure(
        &[
            &format!("--module={fixtures}@fixture_panicking"),
            "--input=1",
        ],
        &["INTERNAL", "panicked", "fixture_panicking", &fixtures],
    );
}
