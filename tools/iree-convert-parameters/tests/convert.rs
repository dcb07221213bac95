//! Our `iree-convert-parameters` against upstream's: each
//! `testdata/params/converted/<case>.irpa` was written by upstream's tool
//! with the flags in `<case>.args` (by `testdata/params/generate.py`); ours,
//! run with the same flags, must write the same bytes.

use std::path::Path;
use std::process::Command;

#[test]
fn archives_match_upstream_byte_for_byte() {
    let params = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/params"
    ));
    let out_dir = std::env::temp_dir().join(format!("iree-convert-test-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let mut cases: Vec<_> = std::fs::read_dir(params.join("converted"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "args"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "recorded conversions missing");
    for args_path in cases {
        let args = std::fs::read_to_string(&args_path).unwrap();
        let expected = std::fs::read(args_path.with_extension("irpa")).unwrap();
        let output = out_dir.join(args_path.with_extension("irpa").file_name().unwrap());
        let run = Command::new(env!("CARGO_BIN_EXE_iree-convert-parameters"))
            .current_dir(params)
            .args(args.split_whitespace())
            .arg(format!("--output={}", output.display()))
            .arg("--quiet")
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}: {}",
            args_path.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        let ours = std::fs::read(&output).unwrap();
        assert!(ours == expected, "{}: archives differ", args_path.display());
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn bad_flags_fail_cleanly() {
    let params = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/params"
    ));
    let output = std::env::temp_dir().join(format!("iree-convert-bad-{}.irpa", std::process::id()));
    let output_flag = format!("--output={}", output.display());
    for args in [
        vec!["--parameters=floats.irpa"],
        vec![
            "--parameters=floats.irpa",
            "--splat=w_f32=f32=abc",
            &output_flag,
        ],
        vec![
            "--parameters=floats.irpa",
            "--splat=w_f32=q9=1",
            &output_flag,
        ],
        vec!["--parameters=missing.irpa", &output_flag],
        vec![
            "--parameters=ints.irpa",
            "--splat=w_i32=c128=1",
            &output_flag,
        ],
        vec!["--parameters=ints.irpa", "--exclude", &output_flag],
        vec![
            "--parameters=floats.irpa",
            "--parameter_mode=bogus",
            &output_flag,
        ],
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_iree-convert-parameters"))
            .current_dir(params)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(1), "{args:?}");
        assert!(!run.stderr.is_empty(), "{args:?}");
    }
    // And a good one with the same output path succeeds.
    let run = Command::new(env!("CARGO_BIN_EXE_iree-convert-parameters"))
        .current_dir(params)
        .args([
            "--parameters=floats.irpa",
            "--splat=w_f32=f64=1",
            &output_flag,
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let _ = std::fs::remove_file(&output);
}
