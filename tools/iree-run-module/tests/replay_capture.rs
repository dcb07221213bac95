//! `--device_replay_output`: our `iree-run-module` captures testdata cases
//! on both local devices, and our executor replays each capture: the bytes
//! the replay reads back to the host include every tensor the capturing
//! run printed. (Upstream's tools dumping and replaying our captures is
//! `cargo xtask replay-diff`; `testdata/replay/ours` keeps some captures
//! with upstream's dumps of them.)

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use iree_hal::Device;
use iree_hal_local::LocalDevice;
use iree_hal_replay::execute::{ExecuteOptions, HostRead};
use iree_hal_replay::Plan;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// (suite, arguments) of the captured runs.
const CASES: &[(&str, &[&str])] = &[
    (
        "llvm-cpu",
        &[
            "--module=ew_f32.vmfb",
            "--function=add",
            "--input=4xf32=1.5 -2 0.1 1000",
            "--input=4xf32=0.25 2 0.2 0.5",
        ],
    ),
    (
        "llvm-cpu",
        &[
            "--module=matmul_small.vmfb",
            "--function=mm_2x3x2",
            "--input=2x3xf32=[1 2 3][4 5 6]",
            "--input=3x2xf32=[7 8][9 10][11 12]",
        ],
    ),
    (
        "llvm-cpu",
        &[
            "--module=scalars_mixed.vmfb",
            "--function=fill",
            "--input=-42",
        ],
    ),
    (
        "llvm-cpu",
        &[
            "--module=globals_state.vmfb",
            "--function=accumulate",
            "--input=4xf32=1 1 0.5 -4",
        ],
    ),
    (
        "vmvx",
        &[
            "--module=writable_constant.vmfb",
            "--function=mm_into_constant",
            "--input=2x2xi32=[5 6][7 8]",
            "--input=2x2xi32=[9 10][11 12]",
        ],
    ),
    (
        "params",
        &[
            "--module=io_gather.vmfb",
            "--function=gather",
            "--input=0",
            "--input=0",
            "--input=0",
            "--input=16",
            "--input=16",
            "--input=1",
            "--input=24",
            "--parameters=model=floats.irpa",
        ],
    ),
];

/// The tensors a run printed (`4xf32=...` lines after `hal.buffer_view`).
fn printed_tensors(stdout: &str) -> Vec<Vec<u8>> {
    let lines: Vec<&str> = stdout.lines().collect();
    lines
        .windows(2)
        .filter(|pair| pair[0].ends_with(": hal.buffer_view"))
        .map(|pair| iree_hal::parse_buffer_view_text(pair[1]).unwrap().2)
        .collect()
}

/// Whether one of the host reads (of a whole buffer, which may hold more
/// than the tensor) holds `tensor`.
fn read_back(reads: &[Vec<u8>], tensor: &[u8]) -> bool {
    reads
        .iter()
        .any(|read| read.windows(tensor.len()).any(|w| w == tensor))
}

fn device(uri: &str) -> Arc<dyn Device> {
    match uri {
        "local-sync" => Arc::new(LocalDevice::new()),
        _ => Arc::new(LocalDevice::with_workers("local-task", 2)),
    }
}

#[test]
fn our_captures_replay_and_read_back_what_the_run_printed() {
    let dir = std::env::temp_dir().join(format!("iree-replay-capture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut compared = 0;
    for (i, (suite, args)) in CASES.iter().enumerate() {
        for uri in ["local-sync", "local-task"] {
            let capture = dir.join(format!("{i}.{uri}.ireereplay"));
            let out = Command::new(env!("CARGO_BIN_EXE_iree-run-module"))
                .args(*args)
                .arg(format!("--device={uri}"))
                .arg(format!("--device_replay_output={}", capture.display()))
                .current_dir(testdata().join(suite))
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let bytes = std::fs::read(&capture).unwrap();
            let plan = Plan::new(&bytes).unwrap();
            let mut reads: Vec<Vec<u8>> = Vec::new();
            let mut options = ExecuteOptions {
                on_host_read: Some(Box::new(|read: &HostRead<'_>| {
                    let mut bytes = vec![0u8; read.length as usize];
                    read.buffer.read(read.offset, &mut bytes)?;
                    reads.push(bytes);
                    Ok(())
                })),
                ..ExecuteOptions::default()
            };
            plan.execute(&[device(uri)], &mut options)
                .unwrap_or_else(|e| panic!("{args:?} on {uri}: {e}"));
            drop(options);
            let tensors = printed_tensors(&stdout);
            assert!(!tensors.is_empty(), "{args:?} printed no tensor");
            for tensor in tensors {
                assert!(
                    read_back(&reads, &tensor),
                    "{args:?} on {uri}: never read back {tensor:?}"
                );
                compared += 1;
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(compared >= 2 * CASES.len(), "{compared} tensors compared");
}

#[test]
fn capture_flags_are_checked() {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-run-module"))
        .args([
            "--module=ew_f32.vmfb",
            "--function=add",
            "--device=local-sync",
        ])
        .arg("--device_replay_output=/nonexistent-dir/x.ireereplay")
        .arg("--device_replay_file_policy=sometimes")
        .current_dir(testdata().join("llvm-cpu"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "INVALID_ARGUMENT; --device_replay_file_policy must be `reference`, `capture-ranges`, `capture-all`, or `fail`; got `sometimes`"
    ));
}
