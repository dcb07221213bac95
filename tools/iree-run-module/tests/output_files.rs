//! `--output=@file`/`+file`: results written to `.npy` and raw files read
//! back correctly (byte-for-byte agreement with upstream's files was checked
//! side by side; see docs/status.md).

use std::path::{Path, PathBuf};
use std::process::Command;

fn testdata(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(rel)
        .display()
        .to_string()
}

fn run(args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-run-module"))
        .args(args)
        .output()
        .expect("spawning iree-run-module");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("iree-rs-output-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn npy_and_bin_outputs_round_trip() {
    let dir = scratch("round-trip");
    let npy = dir.join("out.npy").display().to_string();
    let bin = dir.join("out.bin").display().to_string();
    let module = format!("--module={}", testdata("llvm-cpu/multi_results.vmfb"));
    let (code, stdout, stderr) = run(&[
        "--device=local-sync".into(),
        module.clone(),
        "--function=four".into(),
        "--input=3xf32=1 -2 0.5".into(),
        "--input=3xi32=5 -6 0".into(),
        format!("--output=@{npy}"),
        format!("--output=+{npy}"),
        format!("--output=@{bin}"),
        "--output=-".into(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "EXEC @four\nhal.buffer_view\nf32=-0.5\n");
    // Raw: the 3xi1 result's bytes.
    assert_eq!(std::fs::read(&bin).unwrap(), [1, 0, 0]);
    // The two arrays in the .npy (`3xf32=1 4 0.25`, `3xi32=10 -12 0`) feed
    // the same function again.
    let (code, stdout, stderr) = run(&[
        "--device=local-sync".into(),
        module,
        "--function=four".into(),
        format!("--input=*{npy}"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("result[0]: hal.buffer_view\n3xf32=1 16 0.0625\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("result[1]: hal.buffer_view\n3xi32=20 -24 0\n"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn output_count_must_match_results() {
    let (code, _, stderr) = run(&[
        format!("--module={}", testdata("vm/arith_i32.vmfb")),
        "--function=add_sub_mul".into(),
        "--input=5".into(),
        "--input=6".into(),
        "--output=-".into(),
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("OUT_OF_RANGE; 1 outputs specified but the provided variant list only has 3 elements; outputting results; processing function outputs"),
        "{stderr}"
    );
}
