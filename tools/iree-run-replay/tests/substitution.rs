//! `--replay_executable_substitution`: a capture of `testdata/replay/add`
//! replayed with its kernel swapped for `marker_add`'s (same name and ABI,
//! writes 12345) reads the marker back; swapped for `marker_abi`'s (same
//! name, one binding fewer) the replay fails its ABI check before running.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use iree_hal::Device;
use iree_hal_local::LocalDevice;
use iree_hal_replay::execute::{ExecuteOptions, HostRead, Substitution};
use iree_hal_replay::format::{ExecutablePreparePayload, PayloadType, Wire};
use iree_hal_replay::Plan;
use iree_tooling::run::RunOptions;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/replay")
}

/// Captures `@add` of `module` (in `testdata/replay`) on local-sync.
fn capture(module: &str, inputs: &[&str], out: &Path) {
    let options = RunOptions {
        modules: vec![testdata().join(module).into_os_string()],
        function: "add".to_string(),
        inputs: inputs.iter().map(Into::into).collect(),
        devices: vec!["local-sync".to_string()],
        replay: iree_tooling::replay::ReplayCapture {
            output: Some(out.as_os_str().to_os_string()),
            ..Default::default()
        },
        ..RunOptions::default()
    };
    let mut printed = Vec::new();
    assert_eq!(iree_tooling::run::run(&options, &mut printed).unwrap(), 0);
}

/// The executable bytes of a capture's first prepared executable.
fn executable_data(capture: &Path) -> Vec<u8> {
    let bytes = std::fs::read(capture).unwrap();
    let plan = Plan::new(&bytes).unwrap();
    let record = plan
        .records()
        .iter()
        .find(|r| r.header.payload_type == PayloadType::ExecutablePrepare.0)
        .expect("a prepared executable");
    let head = ExecutablePreparePayload::decode(record.payload);
    let start = ExecutablePreparePayload::SIZE + head.executable_format_length as usize;
    record.payload[start..start + head.executable_data_length as usize].to_vec()
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

#[test]
fn a_substituted_kernel_runs_in_the_replay() {
    let dir = std::env::temp_dir().join(format!("iree-replay-substitution-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (add, marker, abi) = (
        dir.join("add.ireereplay"),
        dir.join("marker.ireereplay"),
        dir.join("abi.ireereplay"),
    );
    capture("add.vmfb", &["4xf32=1 2 3 4", "4xf32=10 20 30 40"], &add);
    capture(
        "marker_add.vmfb",
        &["4xf32=1 2 3 4", "4xf32=10 20 30 40"],
        &marker,
    );
    capture("marker_abi.vmfb", &["4xf32=1 2 3 4"], &abi);
    let marker_elf = dir.join("marker.so");
    std::fs::write(&marker_elf, executable_data(&marker)).unwrap();
    let abi_elf = dir.join("abi.so");
    std::fs::write(&abi_elf, executable_data(&abi)).unwrap();

    // In process: the replay reads back the marker instead of the sum.
    let bytes = std::fs::read(&add).unwrap();
    let plan = Plan::new(&bytes).unwrap();
    let device: Arc<dyn Device> = Arc::new(LocalDevice::new());
    let read_back = |substitute: bool| {
        let mut reads: Vec<Vec<u8>> = Vec::new();
        let data: Arc<[u8]> = std::fs::read(&marker_elf).unwrap().into();
        let mut options = ExecuteOptions {
            on_host_read: Some(Box::new(|read: &HostRead<'_>| {
                let mut bytes = vec![0u8; read.length as usize];
                read.buffer.read(read.offset, &mut bytes)?;
                reads.push(bytes);
                Ok(())
            })),
            ..ExecuteOptions::default()
        };
        if substitute {
            options.substitute = Some(Box::new(move |_| {
                Ok(Some(Substitution {
                    source: "marker.so".to_string(),
                    format: None,
                    data: data.clone(),
                }))
            }));
        }
        plan.execute(std::slice::from_ref(&device), &mut options)
            .unwrap();
        drop(options);
        reads
    };
    let f32s = |values: [f32; 4]| {
        values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    assert!(read_back(false).contains(&f32s([11.0, 22.0, 33.0, 44.0])));
    let substituted = read_back(true);
    assert!(substituted.contains(&f32s([12345.0; 4])), "{substituted:?}");
    assert!(!substituted.contains(&f32s([11.0, 22.0, 33.0, 44.0])));

    // The tool, by executable id and with `all`.
    let capture = add.to_str().unwrap();
    for selector in ["4", "all", "4@embedded-elf-x86_64"] {
        let flag = format!(
            "--replay_executable_substitution={selector}={}",
            marker_elf.display()
        );
        let (code, err) = replay(&["--device=local-sync", &flag, capture]);
        assert_eq!(code, 0, "{selector}: {err}");
    }

    // Another ABI fails before anything runs, naming both sides.
    let flag = format!("--replay_executable_substitution=4={}", abi_elf.display());
    let (code, err) = replay(&["--device=local-sync", &flag, capture]);
    assert_eq!(code, 1);
    assert!(
        err.contains("FAILED_PRECONDITION; replay executable 4 function 0 ABI mismatch: captured=(flags=0x0000000000000000 constants=0 bindings=3 parameters=0 workgroup_size=[1,1,1]) loaded=(flags=0x0000000000000000 constants=0 bindings=2 parameters=0 workgroup_size=[1,1,1])"),
        "{err}"
    );
    assert!(
        err.contains("preparing substitute for captured executable 4 from '"),
        "{err}"
    );
    assert!(
        err.contains("(executable_cache.prepare_executable)"),
        "{err}"
    );

    // Bad selectors are refused as upstream refuses them.
    let (code, err) = replay(&["--replay_executable_substitution=x=y", capture]);
    assert_eq!(code, 1);
    assert!(
        err.contains("executable selector must be a non-zero integer id or all"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
