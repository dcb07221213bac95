//! Paths that are not UTF-8 (a Latin-1 file name is a valid Linux path):
//! modules, parameter files, `.npy` and raw inputs, outputs and flagfiles
//! named by them work, as upstream's tools take any bytes; any other flag
//! value that is not UTF-8 is an INVALID_ARGUMENT naming the flag, never a
//! panic.
#![cfg(unix)]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

/// `dir` joined with a file name holding the Latin-1 byte `é` (0xE9).
fn latin1(dir: &Path, stem: &[u8], extension: &str) -> PathBuf {
    let mut name = stem.to_vec();
    name.extend_from_slice(b"\xe9.");
    name.extend_from_slice(extension.as_bytes());
    dir.join(OsString::from_vec(name))
}

/// `--flag=` followed by the path's bytes.
fn flag(name: &str, prefix: &str, path: &Path) -> OsString {
    let mut value = format!("--{name}={prefix}").into_bytes();
    value.extend_from_slice(path.as_os_str().as_encoded_bytes());
    OsString::from_vec(value)
}

fn run(args: &[OsString]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-run-module"))
        .args(args)
        .output()
        .expect("running iree-run-module");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("iree-non-utf8-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn modules_inputs_outputs_and_flagfiles_at_latin1_paths() {
    let dir = scratch("io");
    let module = latin1(&dir, b"mul", "vmfb");
    std::fs::copy(testdata("llvm-cpu/expected_output.vmfb"), &module).unwrap();
    // A raw f32 input file and a flagfile, both with Latin-1 names.
    let raw = latin1(&dir, b"lhs", "bin");
    let lhs: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(&raw, lhs).unwrap();
    let flagfile = latin1(&dir, b"flags", "txt");
    std::fs::write(&flagfile, "--device=local-sync\n--function=mul\n").unwrap();
    let output = latin1(&dir, b"out", "npy");

    let (code, stdout, stderr) = run(&[
        flag("flagfile", "", &flagfile),
        flag("module", "", &module),
        flag("input", "4xf32=@", &raw),
        "--input=4xf32=5 6 7 8".into(),
        flag("output", "@", &output),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "EXEC @mul\n");
    let npy = std::fs::read(&output).unwrap();
    let floats: Vec<f32> = npy[npy.len() - 16..]
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(floats, [5.0, 12.0, 21.0, 32.0]);

    // The .npy written above, read back as an input.
    let (code, stdout, stderr) = run(&[
        "--device=local-sync".into(),
        flag("module", "", &module),
        "--function=mul".into(),
        flag("input", "@", &output),
        "--input=4xf32=1".into(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.ends_with("4xf32=5 12 21 32\n"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn parameter_files_at_latin1_paths() {
    let dir = scratch("params");
    let archive = latin1(&dir, b"ints", "irpa");
    std::fs::copy(testdata("params/ints.irpa"), &archive).unwrap();
    let (code, stdout, stderr) = run(&[
        "--device=local-sync".into(),
        format!("--module={}", testdata("params/ints.vmfb").display()).into(),
        "--function=ints".into(),
        flag("parameters", "model=", &archive),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("2x3xi32=[1 -2 3][400000 -5 6]"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn other_non_utf8_values_name_their_flag() {
    let module = format!(
        "--module={}",
        testdata("llvm-cpu/expected_output.vmfb").display()
    );
    for (args, flag_name) in [
        (
            vec![OsString::from_vec(b"--function=mu\xff".to_vec())],
            "--function",
        ),
        (
            vec!["--function".into(), OsString::from_vec(b"mu\xff".to_vec())],
            "--function",
        ),
        (
            vec![OsString::from_vec(b"--device=local\xff".to_vec())],
            "--device",
        ),
        (
            vec![OsString::from_vec(b"--input=4xf32=1\xff".to_vec())],
            "--input",
        ),
        (
            vec![OsString::from_vec(b"--module=lib.so@entry\xff".to_vec())],
            "--module",
        ),
    ] {
        let mut all: Vec<OsString> = vec![module.clone().into(), "--device=local-sync".into()];
        if flag_name != "--function" {
            all.push("--function=mul".into());
        }
        all.extend(args.iter().cloned());
        let (code, _, stderr) = run(&all);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stderr.contains("INVALID_ARGUMENT"), "{args:?}: {stderr}");
        assert!(stderr.contains(flag_name), "{args:?}: {stderr}");
    }
    // A parameter scope is text (read when a module needs parameters).
    let (code, _, stderr) = run(&[
        "--device=local-sync".into(),
        format!("--module={}", testdata("params/ints.vmfb").display()).into(),
        "--function=ints".into(),
        OsString::from_vec(b"--parameters=mod\xffel=x.irpa".to_vec()),
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("INVALID_ARGUMENT") && stderr.contains("--parameters"),
        "{stderr}"
    );
}
