//! `iree-run-replay`'s failures: usage, files that are not there or not
//! captures, the wrong number of devices, and records naming objects that
//! do not exist, each with a status that names the record (exit code 1).

use std::path::{Path, PathBuf};
use std::process::Command;

fn capture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/replay/upstream/llvm-cpu.ew_f32.add.local-sync.ireereplay")
}

fn replay(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-run-replay"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn with_bytes(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("iree-run-replay-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn usage_and_files() {
    let (code, err) = replay(&[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("INVALID_ARGUMENT; expected one replay file path argument"),
        "{err}"
    );
    let (code, err) = replay(&["/nonexistent/x.ireereplay"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("NOT_FOUND; failed to open file '/nonexistent/x.ireereplay'"),
        "{err}"
    );
    let bytes = std::fs::read(capture()).unwrap();
    let truncated = with_bytes("truncated", &bytes[..bytes.len() - 10]);
    let (code, err) = replay(&["--device=local-sync", truncated.to_str().unwrap()]);
    std::fs::remove_file(&truncated).unwrap();
    assert_eq!(code, 1);
    assert!(
        err.contains("DATA_LOSS; replay file length extends past file contents"),
        "{err}"
    );
    let (code, out) = replay(&["--help"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn devices_must_match_the_capture() {
    let path = capture();
    let (code, err) = replay(&[
        "--device=local-sync",
        "--device=local-sync",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("FAILED_PRECONDITION; replay captured 1 device(s) but the target device group contains 2 device(s)"),
        "{err}"
    );
    let (code, err) = replay(&["--device=local-sync", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn unknown_objects_name_the_record() {
    // Point the first dispatch at executable 77, which the capture never made.
    let mut bytes = std::fs::read(capture()).unwrap();
    let mut offset = 24usize;
    let dispatch = loop {
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        if u32_at(offset + 72) == 313 {
            break offset;
        }
        offset += u64_at(offset) as usize;
    };
    bytes[dispatch + 96..dispatch + 104].copy_from_slice(&77u64.to_le_bytes());
    let path = with_bytes("unknown", &bytes);
    let (code, err) = replay(&["--device=local-sync", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(code, 1);
    assert!(
        err.contains("NOT_FOUND; replay object id 77 is not defined; at replay record #"),
        "{err}"
    );
    assert!(
        err.contains("(command_buffer.dispatch) at file offset"),
        "{err}"
    );
}
