//! `--device_profiling_output=FILE.ireeprof`: a conv + softmax run
//! (`testdata/profiling/conv_softmax.mlir`, three dispatches per call)
//! writes upstream's raw HAL profiling bundle with one dispatch event per
//! executed dispatch, each naming its export.
//!
//! Our own reader (`iree_hal::profile_bundle`) checks the bundle. When
//! upstream's `iree-profile` is at hand (the pinned venv at
//! `<repo>/.iree-venv` or `<repo>/../.iree-venv`, or the binary named by
//! `IREE_PROFILE`), its `summary` and `statistics` must read the bundle and
//! report the same dispatches; without it that half is skipped with a note.

use std::path::{Path, PathBuf};
use std::process::Command;

use iree_hal::profile_bundle::{parse_bundle, Bundle};
use iree_tooling::profiling::ProfilingOptions;
use iree_tooling::run::{run, RunOptions};

/// The exports conv_softmax dispatches, once each per call, in order.
const DISPATCHES: [&str; 3] = [
    "conv_softmax_dispatch_0_conv_14x14x8x3x3x4_f32",
    "conv_softmax_dispatch_1_reduction_196x8_f32",
    "conv_softmax_dispatch_2_reduction_196x8_f32",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn profile(device: &str, mode: &str, path: &Path) {
    let options = RunOptions {
        modules: vec![repo()
            .join("testdata/profiling/conv_softmax.vmfb")
            .into_os_string()],
        function: "conv_softmax".into(),
        inputs: vec!["1x16x16x4xf32=0.5".into(), "3x3x4x8xf32=0.25".into()],
        devices: vec![device.into()],
        profiling: ProfilingOptions::from_flags(mode, &path.to_string_lossy(), false).unwrap(),
        ..RunOptions::default()
    };
    let mut out = Vec::new();
    assert_eq!(run(&options, &mut out).unwrap(), 0);
}

/// Upstream's `iree-profile`, when present.
fn upstream_iree_profile() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("IREE_PROFILE") {
        return Some(PathBuf::from(path));
    }
    for venv in [repo().join(".iree-venv"), repo().join("../.iree-venv")] {
        let Ok(entries) = std::fs::read_dir(venv.join("lib")) else {
            continue;
        };
        for entry in entries.flatten() {
            let tool = entry
                .path()
                .join("site-packages/iree/_runtime_libs/iree-profile");
            if tool.is_file() {
                return Some(tool);
            }
        }
    }
    None
}

#[test]
fn a_conv_softmax_run_writes_one_dispatch_event_per_dispatch() {
    let dir = std::env::temp_dir().join(format!("iree-rs-ireeprof-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let upstream = upstream_iree_profile();
    for device in ["local-sync", "local-task"] {
        let path = dir.join(format!("{device}.ireeprof"));
        profile(
            device,
            "queue-events,dispatch-events,executable-metadata",
            &path,
        );
        let bytes = std::fs::read(&path).unwrap();
        let bundle = parse_bundle(&bytes).unwrap();
        let functions = bundle.functions().unwrap();
        let events = bundle.dispatch_events().unwrap();
        let names: Vec<_> = events
            .iter()
            .map(|e| Bundle::function_name(&functions, e).unwrap_or("?"))
            .collect();
        assert_eq!(names, DISPATCHES, "{device}");
        for e in &events {
            assert!(e.start_tick > 0 && e.end_tick > e.start_tick, "{e:?}");
            assert_eq!(e.workgroup_count, [14, 1, 1], "{e:?}");
        }
        // queue-events: the call's command-buffer execution among them.
        let queue = bundle.queue_events().unwrap();
        assert!(
            queue.iter().any(|q| q.event_type == 3),
            "{device}: {queue:?}"
        );

        let Some(tool) = &upstream else {
            eprintln!("note: upstream iree-profile not found; skipping its check");
            continue;
        };
        let read = |command: &str| {
            let output = Command::new(tool).arg(command).arg(&path).output().unwrap();
            let text = String::from_utf8_lossy(&output.stdout).into_owned();
            assert!(
                output.status.success(),
                "iree-profile {command}: {}\n{text}",
                String::from_utf8_lossy(&output.stderr)
            );
            text
        };
        let summary = read("summary");
        assert!(summary.contains("dispatch_events=1 "), "{summary}");
        assert!(
            summary.contains("dispatches=3 valid=3 invalid=0"),
            "{summary}"
        );
        assert!(summary.contains("clock_fit: ns_per_tick=1.0"), "{summary}");
        assert!(
            summary.contains("non_ok_session_end=0 unknown=0"),
            "{summary}"
        );
        let statistics = read("statistics");
        for name in DISPATCHES {
            assert!(
                statistics.contains(&format!("dispatch {name}  count=1 ")),
                "{statistics}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_json_output_still_gets_chrome_trace_events() {
    let dir = std::env::temp_dir().join(format!("iree-rs-ireeprof-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trace.json");
    profile("local-sync", "dispatch-events", &path);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with('{') || text.starts_with('['), "{text}");
    assert!(text.contains(DISPATCHES[0]));
    let _ = std::fs::remove_dir_all(&dir);
}
