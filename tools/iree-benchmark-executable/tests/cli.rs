//! `iree-benchmark-executable` end to end on executables taken out of
//! testdata modules: Google Benchmark's JSON with one benchmark per
//! `--workgroup_count=` (items = workgroups), embedded and system ELF on
//! both local devices, a refused dispatch as an error row, and bad flags as
//! one error line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

/// Writes the executable of `format` in the module at `vmfb` (the rodata
/// segment after the one naming the format) to a temporary file.
fn extract(vmfb: &str, format: &str) -> PathBuf {
    let file = std::fs::read(testdata(vmfb)).unwrap();
    let module = iree_vm_bytecode::format::parse_module(&file).unwrap();
    let ordinal = (0..module.rodata.len())
        .find(|&i| module.rodata_bytes(&file, i) == Some(format.as_bytes()))
        .expect("the module names the format");
    let bytes = module.rodata_bytes(&file, ordinal + 1).unwrap();
    // Tests run in parallel: one file per extraction.
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "iree-benchmark-executable-{}-{}.bin",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes).unwrap();
    path
}

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iree-benchmark-executable"))
        .args(args)
        .output()
        .unwrap()
}

/// The elementwise `mul` of `llvm-cpu/expected_output` (three 4xf32
/// bindings, one workgroup).
fn mul_args(path: &Path, device: &str) -> Vec<String> {
    vec![
        format!("--device={device}"),
        "--executable_format=embedded-elf-x86_64".into(),
        format!("--executable_file={}", path.display()),
        "--entry_point=0".into(),
        "--binding=4xf32=1,2,3,4".into(),
        "--binding=4xf32=100,200,300,400".into(),
        "--binding=4xf32=0,0,0,0".into(),
    ]
}

fn run_json(args: &[String]) -> Value {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = bench(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

#[test]
fn one_benchmark_per_workgroup_count_on_both_local_devices() {
    let path = extract("llvm-cpu/expected_output.vmfb", "embedded-elf-x86_64");
    for device in ["local-sync", "local-task"] {
        let mut args = mul_args(&path, device);
        args.extend(
            [
                "--workgroup_count=1,1,1",
                "--workgroup_count=2,3,1",
                "--batch_size=8",
                "--benchmark_min_time=40x",
                "--benchmark_format=json",
            ]
            .map(String::from),
        );
        let json = run_json(&args);
        let benchmarks = json["benchmarks"].as_array().unwrap();
        let names: Vec<&str> = benchmarks
            .iter()
            .map(|b| b["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "BM_dispatch_1x1x1/process_time/real_time",
                "BM_dispatch_2x3x1/process_time/real_time"
            ],
            "{device}"
        );
        for (benchmark, workgroups) in benchmarks.iter().zip([1.0, 6.0]) {
            assert_eq!(benchmark["time_unit"], "ns");
            assert_eq!(benchmark["run_type"], "iteration");
            // 40 iterations in batches of 8 dispatches.
            assert_eq!(benchmark["iterations"], 40);
            let real_ns = benchmark["real_time"].as_f64().unwrap();
            let items = benchmark["items_per_second"].as_f64().unwrap();
            assert!(real_ns > 0.0);
            // One item per workgroup: items/s = workgroups / time per dispatch.
            let expected = workgroups / (real_ns * 1e-9);
            assert!(
                (items / expected - 1.0).abs() < 1e-6,
                "{device}: {items} vs {expected}"
            );
        }
    }
    let _ = std::fs::remove_file(path);
}

#[test]
fn system_library_executables_run() {
    let path = extract("llvm-cpu-system/matmul_small.vmfb", "system-elf-x86_64");
    let args: Vec<String> = [
        "--device=local-sync".to_string(),
        "--executable_format=system-elf-x86_64".into(),
        format!("--executable_file={}", path.display()),
        "--binding=2x3xf32=1".into(),
        "--binding=3x2xf32=2".into(),
        "--binding=2x2xf32".into(),
        "--workgroup_count=1,1,1".into(),
        "--benchmark_min_time=16x".into(),
        "--benchmark_format=json".into(),
    ]
    .into();
    let json = run_json(&args);
    assert_eq!(json["benchmarks"][0]["iterations"], 64);
    let _ = std::fs::remove_file(path);
}

#[test]
fn a_refused_dispatch_is_an_error_row() {
    let path = extract("llvm-cpu/expected_output.vmfb", "embedded-elf-x86_64");
    let mut args = mul_args(&path, "local-sync");
    args.retain(|a| a != "--entry_point=0");
    args.push("--entry_point=7".into());
    args.push("--workgroup_count=1,1,1".into());
    args.push("--benchmark_min_time=1x".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = bench(&args);
    // As upstream: reported in the table, and the tool still succeeds.
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("BM_dispatch_1x1x1/process_time/real_time ERROR OCCURRED: '")
            && stdout.contains("OUT_OF_RANGE"),
        "{stdout}"
    );
    assert!(!stdout.contains("UserCounters"), "{stdout}");
    let _ = std::fs::remove_file(path);
}

#[test]
fn bad_input_is_one_error_line() {
    let path = extract("llvm-cpu/expected_output.vmfb", "embedded-elf-x86_64");
    let file = format!("--executable_file={}", path.display());
    let elf = "--executable_format=embedded-elf-x86_64";
    let cases: &[(&[&str], &str)] = &[
        (
            &["--constant=abc", elf, &file],
            "invalid push constant value `abc`",
        ),
        (
            &["--executable_constant=-", elf, &file],
            "invalid executable constant value",
        ),
        (
            &[
                elf,
                "--executable_file=/nonexistent/x.so",
                "--workgroup_count=1,1,1",
            ],
            "NOT_FOUND",
        ),
        (
            &[
                "--executable_format=bogus",
                &file,
                "--workgroup_count=1,1,1",
            ],
            "bogus",
        ),
        (&[elf, &file, "--workgroup_count=1,1"], "expects `X,Y,Z`"),
        (
            &[elf, &file, "--binding=5", "--workgroup_count=1,1,1"],
            "--binding=",
        ),
        (&[elf, &file], "--workgroup_count="),
        (
            &[elf, &file, "--batch_size=0", "--workgroup_count=1,1,1"],
            "--batch_size",
        ),
        (&[elf, &file, "--no_such_flag"], "no_such_flag"),
    ];
    for (args, needle) in cases {
        let mut args = args.to_vec();
        args.push("--device=local-sync");
        let out = bench(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.ends_with('\n') && stderr.contains(needle),
            "{args:?}: {stderr}"
        );
    }
    let _ = std::fs::remove_file(path);
}
