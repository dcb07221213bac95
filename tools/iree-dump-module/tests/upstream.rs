//! Our `iree-dump-module` against upstream's recorded output
//! (`testdata/tools/dump-module/<module path>.<mode>.txt`, written by
//! `cargo xtask dump-diff --record`; the full differential over every
//! `.vmfb` is `cargo xtask dump-diff`), and its handling of bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn dump(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iree-dump-module"))
        .args(args)
        .output()
        .unwrap()
}

/// Every recorded file, as (module path, mode, recording path).
fn recordings() -> Vec<(PathBuf, String, PathBuf)> {
    let base = testdata().join("tools/dump-module");
    let mut found = Vec::new();
    let mut pending = vec![base.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let relative = path.strip_prefix(&base).unwrap().to_str().unwrap();
            let stem = relative.strip_suffix(".txt").unwrap();
            let (module, mode) = stem.rsplit_once('.').unwrap();
            found.push((testdata().join(module), mode.to_string(), path));
        }
    }
    found.sort();
    found
}

#[test]
fn recorded_dumps_match_upstream() {
    let recordings = recordings();
    assert!(recordings.len() >= 10, "recordings missing");
    let mut failures = Vec::new();
    for (module, mode, recording) in &recordings {
        let expected = std::fs::read(recording).unwrap();
        let mut args = if let Some(output) = mode.strip_suffix("-pretty") {
            vec![format!("--output={output}"), "--pretty".to_string()]
        } else if let Some(output) = mode.strip_suffix("-offsets") {
            vec![
                format!("--output={output}"),
                "--bytecode_offsets".to_string(),
            ]
        } else {
            vec![format!("--output={mode}")]
        };
        args.push(module.to_str().unwrap().to_string());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = dump(&args);
        if !out.status.success() || out.stdout != expected {
            failures.push(format!(
                "{} ({mode}): {}",
                module.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "differ from upstream:\n{failures:#?}");
}

/// Checks that a failed run printed exactly one line and exited with 1.
fn assert_one_line_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.ends_with('\n') && err.lines().count() == 1, "{err:?}");
    assert!(err.contains(needle), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_input_is_one_line_error() {
    let calls = testdata().join("vm/calls.vmfb");
    let calls = calls.to_str().unwrap();
    assert_one_line_error(
        &dump(&["--output=metadata", "/nonexistent.vmfb"]),
        "NOT_FOUND",
    );
    assert_one_line_error(&dump(&["--output=bogus", calls]), "unrecognized --output");
    assert_one_line_error(&dump(&["--output=metadata"]), "Syntax: iree-dump-module");
    let out = dump(&["--bogus", calls]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.ends_with('\n') && err.lines().count() == 1, "{err:?}");
    assert!(err.contains("--bogus"), "{err}");
}

#[test]
fn truncated_and_corrupted_modules_fail_cleanly() {
    let bytes = std::fs::read(testdata().join("vm/calls.vmfb")).unwrap();
    let dir = std::env::temp_dir().join(format!("iree-dump-module-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.vmfb");
    let mut cases: Vec<Vec<u8>> = (0..bytes.len())
        .step_by(97)
        .map(|len| bytes[..len].to_vec())
        .collect();
    for at in (0..bytes.len()).step_by(131) {
        let mut corrupted = bytes.clone();
        corrupted[at] ^= 0xFF;
        cases.push(corrupted);
    }
    for case in cases {
        std::fs::write(&path, &case).unwrap();
        for output in ["--output=metadata", "--output=all"] {
            let out = dump(&[output, "--bytecode_offsets", path.to_str().unwrap()]);
            // Success (a corruption the format tolerates) or a clean error; a
            // panic would exit with 101.
            assert!(matches!(out.status.code(), Some(0) | Some(1)), "{out:?}");
            if !out.status.success() {
                assert!(String::from_utf8_lossy(&out.stderr).ends_with('\n'));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--function=` by ordinal and by name prints the module header and that
/// one function, as in the recorded full disassembly.
#[test]
fn function_filter_picks_one_function() {
    let module = testdata().join("vm/arith_i32.vmfb");
    let recorded = testdata().join("tools/dump-module/vm/arith_i32.vmfb.disassembly.txt");
    let full = std::fs::read_to_string(recorded).unwrap();
    let mut parts = full.split("\n\n");
    let header = parts.next().unwrap();
    let functions: Vec<&str> = parts.collect();
    assert!(functions.len() > 2);
    for (ordinal, text) in functions.iter().enumerate().take(3) {
        let expected = format!("{header}\n\n{}\n", text.trim_end_matches('\n'));
        let by_ordinal = format!("--function={ordinal}");
        let out = dump(&[
            "--output=disassembly",
            &by_ordinal,
            module.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("vm.func @"))
            .and_then(|l| l.split('(').next())
            .unwrap();
        let by_name = format!("--function={name}");
        let out = dump(&["--output=disassembly", &by_name, module.to_str().unwrap()]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    }
}

/// Where upstream 3.13 fails, ours fails the same way on stdout: nothing
/// when the module does not verify (`vm.cond_break` as 3.13's compiler
/// encodes it), and up to the function header when a function holds an
/// opcode 3.13's disassembler does not print (`cast.ui64.f32`,
/// `switch.ref`).
#[test]
fn disassembly_fails_where_upstream_does() {
    let out = dump(&[
        "--output=disassembly",
        testdata()
            .join("vm/debug_cond_break.vmfb")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    for (module, last) in [
        (
            "vm/f32_cast.vmfb",
            "vm.func @ui64_to_f32(%i0:1: i64) -> (f32) {\n",
        ),
        (
            "vm/select_switch.vmfb",
            "vm.func @switch_ref(%i0: i32) -> (i64) {\n",
        ),
    ] {
        let out = dump(&[
            "--output=disassembly",
            testdata().join(module).to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{module}");
        assert!(
            String::from_utf8_lossy(&out.stdout).ends_with(last),
            "{module}"
        );
    }
}
