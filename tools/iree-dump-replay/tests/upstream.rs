//! Our `iree-dump-replay` against upstream's recorded dumps of upstream's
//! captures (`testdata/replay/upstream`) and of ours
//! (`testdata/replay/ours`), written by `cargo xtask replay-diff --record`
//! (the full differential over every testdata case is `cargo xtask
//! replay-diff`), and its handling of bad files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn recorded(side: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/replay")
        .join(side)
}

fn dump(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iree-dump-replay"))
        .args(args)
        .output()
        .unwrap()
}

fn captures() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = ["upstream", "ours"]
        .iter()
        .flat_map(|side| std::fs::read_dir(recorded(side)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ireereplay"))
        .collect();
    found.sort();
    found
}

#[test]
fn dumps_match_upstream_byte_for_byte() {
    let captures = captures();
    assert!(captures.len() >= 16, "recorded captures missing");
    let mut failures = Vec::new();
    for capture in &captures {
        for format in ["text", "jsonl"] {
            let expected = capture.with_extension(format!("{format}.txt"));
            let expected = std::fs::read(&expected).unwrap();
            let out = dump(&[&format!("--format={format}"), capture.to_str().unwrap()]);
            if !out.status.success() || out.stdout != expected {
                failures.push(format!(
                    "{} --format={format}: {}",
                    capture.display(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Runs the dump on `bytes` and returns (exit code, stderr).
fn dump_bytes(name: &str, bytes: &[u8]) -> (i32, String) {
    let path = std::env::temp_dir().join(format!(
        "iree-dump-replay-test-{}-{name}",
        std::process::id()
    ));
    std::fs::write(&path, bytes).unwrap();
    let out = dump(&[path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_files_fail_with_a_clear_status() {
    let good = std::fs::read(&captures()[0]).unwrap();
    let (code, err) = dump_bytes("truncated", &good[..good.len() / 2]);
    assert_eq!(code, 1);
    assert!(
        err.contains("DATA_LOSS; replay file length extends past file contents"),
        "{err}"
    );

    let mut bad = good.clone();
    bad[..4].copy_from_slice(b"NOPE");
    let (code, err) = dump_bytes("magic", &bad);
    assert_eq!(code, 1);
    assert!(
        err.contains("INVALID_ARGUMENT; invalid IREE HAL replay file magic"),
        "{err}"
    );

    let mut bad = good.clone();
    bad[4..6].copy_from_slice(&1u16.to_le_bytes());
    let (_, err) = dump_bytes("version", &bad);
    assert!(
        err.contains("unsupported IREE HAL replay file version"),
        "{err}"
    );

    // The second record claims to run past the end of the file.
    let mut bad = good.clone();
    let second = 24 + 96;
    bad[second..second + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let (_, err) = dump_bytes("past-end", &bad);
    assert!(
        err.contains("DATA_LOSS; replay record extends past file end"),
        "{err}"
    );

    let (code, err) = dump_bytes("empty", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("replay file is too small for header"), "{err}");
}

#[test]
fn usage_errors_match_upstream() {
    let out = dump(&[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("INVALID_ARGUMENT; expected one replay file path argument"));
    let capture = captures()[0].clone();
    let out = dump(&["--format=xml", capture.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("unsupported --format=xml; expected text or jsonl"));
    let out = dump(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("IREE: iree-dump-replay"));
    assert!(help.contains("Dumps information from an IREE HAL replay file"));
}
