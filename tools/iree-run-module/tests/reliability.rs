//! Command-line defences of issue #31, each with upstream 3.13's status:
//! `--device=local-sync://0` (a device path: upstream NOT_FOUND "device
//! paths not yet implemented") and a lone `--` (a flag with an empty name:
//! upstream INVALID_ARGUMENT "flag '' not recognized"). Both exit 1.

use std::process::Command;

fn testdata(rel: &str) -> String {
    format!("{}/../../testdata/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[String]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-run-module"))
        .args(args)
        .output()
        .expect("running iree-run-module");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bmm(device: &str) -> Vec<String> {
    vec![
        format!("--device={device}"),
        format!("--module={}", testdata("vmvx/batch_matmul.vmfb")),
        "--function=bmm".into(),
        "--input=2x2x3xf32=1".into(),
        "--input=2x3x2xf32=1".into(),
    ]
}

#[test]
fn local_device_paths_are_not_found() {
    for device in ["local-sync://0", "local-task://0", "local-sync://x"] {
        let (code, stderr) = run(&bmm(device));
        assert_eq!(code, 1, "{device}: {stderr}");
        assert!(stderr.contains("NOT_FOUND"), "{device}: {stderr}");
        assert!(
            stderr.contains("device paths not yet implemented"),
            "{stderr}"
        );
    }
    let (code, stderr) = run(&bmm("local-sync://"));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_lone_double_dash_is_an_unknown_flag() {
    for extra in ["--", "--=1"] {
        let mut args = bmm("local-sync");
        args.push(extra.into());
        let (code, stderr) = run(&args);
        assert_eq!(code, 1, "{extra}: {stderr}");
        assert!(stderr.contains("INVALID_ARGUMENT"), "{stderr}");
        assert!(stderr.contains("flag '' not recognized"), "{stderr}");
    }
}
