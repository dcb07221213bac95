//! `iree-benchmark-module` end to end: its JSON parses as Google Benchmark's
//! schema, the console table has upstream's names and columns, the
//! Google Benchmark flags take effect, and bad input is one error line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iree-benchmark-module"))
        .args(args)
        .output()
        .unwrap()
}

fn module_flag(path: &str) -> String {
    format!("--module={}", testdata(path).display())
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

#[test]
fn json_report_follows_google_benchmark_schema() {
    let module = module_flag("vm/calls.vmfb");
    let out = bench(&[
        &module,
        "--function=call_add3",
        "--input=1",
        "--input=2",
        "--input=3",
        "--benchmark_min_time=50x",
        "--benchmark_repetitions=3",
        "--batch_size=2",
        "--benchmark_format=json",
    ]);
    let json = json_of(&out);
    let context = &json["context"];
    for key in ["date", "host_name", "executable", "library_build_type"] {
        assert!(context[key].is_string(), "context.{key}");
    }
    assert!(context["num_cpus"].as_u64().unwrap() >= 1);
    assert_eq!(context["json_schema_version"], 1);
    assert!(context["caches"].is_array() && context["load_avg"].is_array());

    let benchmarks = json["benchmarks"].as_array().unwrap();
    assert_eq!(benchmarks.len(), 3 + 4);
    let name = "BM_call_add3/process_time/real_time";
    for (i, b) in benchmarks[..3].iter().enumerate() {
        assert_eq!(b["name"], name);
        assert_eq!(b["run_name"], name);
        assert_eq!(b["run_type"], "iteration");
        assert_eq!(b["repetitions"], 3);
        assert_eq!(b["repetition_index"], i);
        assert_eq!(b["threads"], 1);
        // 50 iterations in batches of 2 invocations.
        assert_eq!(b["iterations"], 50);
        assert_eq!(b["time_unit"], "ms");
        let real = b["real_time"].as_f64().unwrap();
        assert!(real > 0.0 && b["cpu_time"].as_f64().unwrap() >= 0.0);
        let items = b["items_per_second"].as_f64().unwrap();
        // items_per_second is iterations per second of wall time.
        assert!((items * real / 1e3 - 1.0).abs() < 1e-9, "{items} {real}");
    }
    let aggregates: Vec<&str> = benchmarks[3..]
        .iter()
        .map(|b| {
            assert_eq!(b["run_type"], "aggregate");
            assert_eq!(b["run_name"], name);
            assert_eq!(b["iterations"], 3);
            let aggregate = b["aggregate_name"].as_str().unwrap();
            assert_eq!(b["name"], format!("{name}_{aggregate}"));
            let unit = if aggregate == "cv" {
                "percentage"
            } else {
                "time"
            };
            assert_eq!(b["aggregate_unit"], unit);
            aggregate
        })
        .collect();
    assert_eq!(aggregates, ["mean", "median", "stddev", "cv"]);
}

#[test]
fn all_runnable_exports_and_filter() {
    let module = module_flag("vm/calls.vmfb");
    // Without --function only exports taking no arguments are benchmarked.
    let out = bench(&[&module, "--benchmark_list_tests"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "BM_nothing/process_time/real_time\n"
    );
    let out = bench(&[
        &module,
        "--benchmark_list_tests",
        "--benchmark_filter=-nothing",
    ]);
    assert!(out.status.success() && out.stdout.is_empty());
}

#[test]
fn console_table_and_out_file() {
    let module = module_flag("vm/calls.vmfb");
    let out_path = std::env::temp_dir().join(format!("iree-bm-{}.json", std::process::id()));
    let out_flag = format!("--benchmark_out={}", out_path.display());
    let out = bench(&[
        &module,
        "--function=nothing",
        "--benchmark_min_time=10x",
        "--time_unit=us",
        &out_flag,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[1].starts_with("Benchmark ") && lines[1].ends_with("Iterations UserCounters..."));
    assert_eq!(lines[0].len(), lines[1].len());
    assert!(lines[3].starts_with("BM_nothing/process_time/real_time "));
    assert!(lines[3].contains(" us ") && lines[3].contains(" items_per_second="));
    let file: Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out_path);
    assert_eq!(file["benchmarks"][0]["time_unit"], "us");
    assert_eq!(file["benchmarks"][0]["iterations"], 10);
}

#[test]
fn hal_module_on_both_cpu_devices() {
    let module = module_flag("vmvx/ew_f32.vmfb");
    for device in ["--device=local-sync", "--device=local-task"] {
        let out = bench(&[
            device,
            &module,
            "--function=add",
            "--input=4xf32=1 2 3 4",
            "--input=4xf32=1 2 3 4",
            "--benchmark_min_time=5x",
            "--benchmark_format=json",
        ]);
        let json = json_of(&out);
        assert_eq!(
            json["benchmarks"][0]["name"],
            "BM_add/process_time/real_time"
        );
    }
}

#[test]
fn inline_execution_models() {
    // hal_inline (+ hal_loader for inline-dynamic): no device, no flags.
    for group in ["static_vmvx", "dynamic_llvm_cpu", "dynamic_vmvx"] {
        let module = module_flag(&format!("inline/{group}.vmfb"));
        let out = bench(&[
            &module,
            "--function=matmul",
            "--input=2x3xf32=[1 2 3][4 5 6]",
            "--input=3x2xf32=[1 0][0 1][1 1]",
            "--benchmark_min_time=5x",
            "--benchmark_format=json",
        ]);
        let json = json_of(&out);
        assert_eq!(
            json["benchmarks"][0]["name"], "BM_matmul/process_time/real_time",
            "{group}"
        );
        assert_eq!(json["benchmarks"][0]["iterations"], 5, "{group}");
    }
}

/// Checks that a failed run printed one line ending in a newline.
fn assert_one_line_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.ends_with('\n') && err.lines().count() == 1, "{err:?}");
    assert!(err.contains(needle), "{err}");
}

#[test]
fn bad_input_is_one_error_line() {
    let module = module_flag("vm/calls.vmfb");
    assert_one_line_error(&bench(&[&module, "--function=missing"]), "missing");
    assert_one_line_error(&bench(&["--module=/nonexistent.vmfb"]), "nonexistent");
    assert_one_line_error(&bench(&[]), "no user module");
    assert_one_line_error(
        &bench(&[&module, "--benchmark_min_time=fast"]),
        "--benchmark_min_time",
    );
    assert_one_line_error(&bench(&[&module, "--benchmark_format=csv"]), "csv");
    assert_one_line_error(&bench(&[&module, "--time_unit=h"]), "time unit");
    assert_one_line_error(&bench(&[&module, "--batch_size=0"]), "--batch_size");
    assert_one_line_error(&bench(&[&module, "--benchmark_filter=("]), "regex");
    assert_one_line_error(&bench(&[&module, "--bogus"]), "--bogus");
    assert_one_line_error(&bench(&[&module, "--batch_size=x"]), "--batch_size");
}

#[test]
fn a_failing_call_is_an_error_row_and_fails_the_tool() {
    let module = module_flag("llvm-cpu/expected_output.vmfb");
    let out = bench(&[
        &module,
        "--device=local-sync",
        "--function=mul",
        "--input=4xf32=1",
        "--input=5xf32=1",
        "--benchmark_min_time=10x",
    ]);
    // As upstream: the table shows the error, then the tool fails with it.
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("BM_mul/process_time/real_time ERROR OCCURRED: '")
            && stdout.contains("INVALID_ARGUMENT; input1 shape dimension 0 mismatch"),
        "{stdout}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.ends_with("running benchmark 'BM_mul/process_time/real_time'\n"));
}

#[test]
fn dispatch_statistics_add_a_row_per_dispatched_function() {
    for device in ["local-sync", "local-task"] {
        let out = bench(&[
            &format!("--device={device}"),
            &module_flag("llvm-cpu/expected_output.vmfb"),
            "--function=mul",
            "--input=4xf32=1",
            "--input=4xf32=2",
            "--benchmark_min_time=5x",
            "--benchmark_repetitions=2",
            "--dispatch_statistics",
            "--benchmark_format=json",
        ]);
        let json = json_of(&out);
        let rows = json["benchmarks"].as_array().unwrap();
        let dispatch = rows
            .iter()
            .find(|r| r["name"] == "BM_mul/mul_dispatch_0_elementwise_4_f32")
            .unwrap_or_else(|| panic!("no dispatch row on {device}: {rows:?}"));
        // Both repetitions' iterations, one call each, all the dispatch time.
        assert_eq!(dispatch["iterations"], 10);
        assert_eq!(dispatch["calls"], 1.0);
        assert_eq!(dispatch["percent"], 100.0);
        assert!(dispatch.get("items_per_second").is_none());
    }
    let out = bench(&[
        "--device=local-task",
        &module_flag("llvm-cpu/expected_output.vmfb"),
        "--function=mul",
        "--input=4xf32=1",
        "--input=4xf32=2",
        "--dispatch_statistics",
        "--print_device_statistics",
    ]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn output_processing_checks_expected_outputs() {
    let run = |expected: &str| {
        bench(&[
            "--device=local-sync",
            &module_flag("llvm-cpu/expected_output.vmfb"),
            "--function=mul",
            "--input=4xf32=1",
            "--input=4xf32=2",
            "--benchmark_min_time=1x",
            "--enable_output_processing",
            &format!("--expected_output={expected}"),
        ])
    };
    let good = run("4xf32=2 2 2 2");
    assert_eq!(good.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&good.stdout)
        .contains("[SUCCESS] all function outputs matched their expected values."));
    let bad = run("4xf32=3 2 2 2");
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stdout).contains("[FAILED] result[0]"));
}
