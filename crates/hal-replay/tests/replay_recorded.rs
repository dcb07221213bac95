//! The recorded captures of testdata cases, upstream's
//! (`testdata/replay/upstream`) and ours (`testdata/replay/ours`), replayed
//! by our executor on the device they were captured on: every replay
//! succeeds, and the bytes it reads back to the host include each tensor
//! the original run printed (the case's recorded expectation).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use iree_hal::Device;
use iree_hal_local::LocalDevice;
use iree_hal_replay::execute::{ExecuteOptions, HostRead};
use iree_hal_replay::Plan;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// The device a capture named `suite.group.case.device` ran on.
/// Whether one of the host reads (of a whole buffer, which may hold more
/// than the tensor) holds `tensor`.
fn read_back(reads: &[Vec<u8>], tensor: &[u8]) -> bool {
    reads
        .iter()
        .any(|read| read.windows(tensor.len()).any(|w| w == tensor))
}

fn device_for(device: &str) -> Arc<dyn Device> {
    match device {
        "local-sync" => Arc::new(LocalDevice::new()),
        "local-task" => Arc::new(LocalDevice::with_workers("local-task", 2)),
        other => panic!("unexpected device {other}"),
    }
}

/// The tensors (`4xf32=...` lines after a `hal.buffer_view` result) of a
/// recorded expectation, as bytes.
fn expected_tensors(suite: &str, group: &str, case: &str) -> Vec<Vec<u8>> {
    let path = testdata()
        .join(suite)
        .join("expected")
        .join(group)
        .join(format!("{case}.txt"));
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for pair in lines.windows(2) {
        if pair[0].ends_with(": hal.buffer_view") {
            let (_, _, bytes) = iree_hal::parse_buffer_view_text(pair[1]).unwrap();
            out.push(bytes);
        }
    }
    out
}

/// Replays `capture` on `device`, returning what each host read saw.
fn replay(capture: &Path, device: Arc<dyn Device>) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(capture).unwrap();
    let plan = Plan::new(&bytes).unwrap();
    let mut reads: Vec<Vec<u8>> = Vec::new();
    {
        let mut options = ExecuteOptions {
            on_host_read: Some(Box::new(|read: &HostRead<'_>| {
                let mut bytes = vec![0u8; read.length as usize];
                read.buffer.read(read.offset, &mut bytes)?;
                reads.push(bytes);
                Ok(())
            })),
            ..ExecuteOptions::default()
        };
        plan.execute(&[device], &mut options)
            .unwrap_or_else(|e| panic!("{}: {e}", capture.display()));
    }
    reads
}

#[test]
fn recorded_captures_replay_and_read_back_what_the_run_printed() {
    let mut captures: Vec<PathBuf> = ["upstream", "ours"]
        .iter()
        .flat_map(|side| std::fs::read_dir(testdata().join("replay").join(side)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ireereplay"))
        .collect();
    captures.sort();
    assert!(captures.len() >= 16);
    let mut compared = 0;
    for capture in &captures {
        let stem = capture.file_stem().unwrap().to_str().unwrap();
        let parts: Vec<&str> = stem.split('.').collect();
        let [suite, group, case, device] = parts[..] else {
            panic!("unexpected capture name {stem}");
        };
        let reads = replay(capture, device_for(device));
        for tensor in expected_tensors(suite, group, case) {
            assert!(
                read_back(&reads, &tensor),
                "{stem}: the replay never read back {tensor:?} (reads: {reads:?})"
            );
            compared += 1;
        }
    }
    eprintln!(
        "{} captures replayed, {compared} tensors read back",
        captures.len()
    );
    assert!(compared >= 12, "only {compared} tensors compared");
}
