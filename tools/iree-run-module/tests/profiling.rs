//! Device profiling of a conv + softmax module on `local-sync` and
//! `local-task`: the Chrome trace `--device_profiling_output` writes is
//! valid JSON with one dispatch event per executed dispatch (as many as
//! `--print_device_statistics` counts), each with a positive duration inside
//! the run; profiling leaves stdout unchanged; bad flag values are one
//! error line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use serde_json::Value;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/profiling")
}

fn run(device: &str, extra: &[&str]) -> (Output, f64) {
    let start = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_iree-run-module"))
        .current_dir(testdata())
        .env_remove("IREE_LOG")
        .env_remove("RUST_LOG")
        .args([
            &format!("--device={device}"),
            "--module=conv_softmax.vmfb",
            "--function=conv_softmax",
            "--input=1x16x16x4xf32=0.5",
            "--input=3x3x4x8xf32=0.25",
            "--output_max_element_count=16",
        ])
        .args(extra)
        .output()
        .expect("running iree-run-module");
    (output, start.elapsed().as_secs_f64() * 1e6)
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("iree-rs-profiling-{}-{name}", std::process::id()))
}

/// The dispatch count of the statistics block: the `count=` of its
/// `host_execute_queue ... dispatch` row.
fn reported_dispatches(stderr: &str) -> usize {
    stderr
        .lines()
        .find(|l| l.trim_start().starts_with("host_execute_queue") && l.contains(" dispatch "))
        .and_then(|l| l.split_whitespace().find_map(|w| w.strip_prefix("count=")))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no dispatch count in:\n{stderr}"))
}

fn check_device(device: &str) {
    let (plain, _) = run(device, &[]);
    assert!(plain.status.success());
    assert!(
        plain.stderr.is_empty(),
        "nothing on stderr without IREE_LOG"
    );

    let trace = temp_path(&format!("{device}.json"));
    let (profiled, wall_us) = run(
        device,
        &[
            "--device_profiling_mode=queue,dispatch",
            &format!("--device_profiling_output={}", trace.display()),
        ],
    );
    assert!(
        profiled.status.success(),
        "{}",
        String::from_utf8_lossy(&profiled.stderr)
    );
    assert_eq!(profiled.stdout, plain.stdout, "profiling changes no output");
    let text = std::fs::read_to_string(&trace).expect("trace written");
    let _ = std::fs::remove_file(&trace);
    let json: Value = serde_json::from_str(&text).expect("the trace is valid JSON");
    let capture_us = json["otherData"]["capture_duration_us"]
        .as_f64()
        .expect("capture duration");
    assert!(
        capture_us > 0.0 && capture_us <= wall_us,
        "{capture_us} vs {wall_us}"
    );
    let events = json["traceEvents"].as_array().expect("traceEvents");
    let complete = |cat: &str| {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == cat)
            .collect::<Vec<_>>()
    };
    let dispatches = complete("dispatch");
    assert!(!dispatches.is_empty());
    for event in &dispatches {
        let name = event["name"].as_str().expect("named");
        assert!(name.starts_with("conv_softmax_dispatch_"), "{name}");
        assert!(event["args"]["executable"].as_str().is_some());
        let count = event["args"]["workgroup_count"].as_array().expect("count");
        assert_eq!(count.len(), 3);
        assert!(count.iter().all(|c| c.as_u64().is_some_and(|c| c > 0)));
        let (ts, dur) = (
            event["ts"].as_f64().unwrap(),
            event["dur"].as_f64().unwrap(),
        );
        assert!(dur > 0.0, "positive duration: {event}");
        assert!(
            ts >= 0.0 && ts + dur <= capture_us,
            "{event} outside {capture_us}"
        );
    }
    // The conv and the softmax both ran.
    assert!(dispatches
        .iter()
        .any(|e| e["name"].as_str().unwrap().contains("conv")));
    assert!(!complete("queue").is_empty(), "queue operations recorded");
    let named_tracks: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(named_tracks.contains(&"queue 0"), "{named_tracks:?}");
    if device == "local-task" {
        assert!(
            named_tracks.iter().any(|t| t.starts_with("worker ")),
            "{named_tracks:?}"
        );
        assert!(!complete("worker").is_empty());
    }

    let (stats, _) = run(device, &["--print_device_statistics"]);
    assert!(stats.status.success());
    assert_eq!(stats.stdout, plain.stdout);
    let stderr = String::from_utf8(stats.stderr).unwrap();
    assert_eq!(reported_dispatches(&stderr), dispatches.len(), "{stderr}");
    for event in &dispatches {
        assert!(stderr.contains(event["name"].as_str().unwrap()), "{stderr}");
    }
}

#[test]
fn local_sync_profile_has_one_event_per_dispatch() {
    check_device("local-sync");
}

#[test]
fn local_task_profile_has_one_event_per_dispatch_and_worker_tracks() {
    check_device("local-task");
}

#[test]
fn bad_profiling_flags_are_one_error_line() {
    for flags in [
        &[
            "--device_profiling_mode=bogus",
            "--device_profiling_output=x.json",
        ][..],
        &["--device_profiling_mode=dispatch"][..],
        &[
            "--device_profiling_mode=queue-events,,dispatch-events",
            "--device_profiling_output=x.ireeprof",
        ][..],
        &[
            "--print_device_statistics",
            "--device_profiling_output=x.json",
        ][..],
    ] {
        let (output, _) = run("local-sync", flags);
        assert_eq!(output.status.code(), Some(1), "{flags:?}");
        assert!(output.stdout.is_empty(), "{flags:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.ends_with('\n') && stderr.lines().count() == 1,
            "{stderr:?}"
        );
    }
}

#[test]
fn iree_log_traces_dispatches_to_stderr_only() {
    let (plain, _) = run("local-sync", &[]);
    let output = Command::new(env!("CARGO_BIN_EXE_iree-run-module"))
        .current_dir(testdata())
        .env("IREE_LOG", "iree_hal_local=trace,iree_vm=debug")
        .env_remove("RUST_LOG")
        .args([
            "--device=local-sync",
            "--module=conv_softmax.vmfb",
            "--function=conv_softmax",
            "--input=1x16x16x4xf32=0.5",
            "--input=3x3x4x8xf32=0.25",
            "--output_max_element_count=16",
        ])
        .output()
        .expect("running iree-run-module");
    assert!(output.status.success());
    assert_eq!(output.stdout, plain.stdout, "logs never reach stdout");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("vm.invoke"), "{stderr}");
    assert!(
        stderr.contains("export=\"conv_softmax_dispatch_0"),
        "{stderr}"
    );
    assert!(stderr.contains("workgroup_count="), "{stderr}");
}
