//! Our `iree-cpuinfo` against upstream's, from the recordings of
//! `cargo xtask record-cpuinfo` in `testdata/tools/cpuinfo/`: the CPUID
//! answers of the recording machine must give exactly what upstream printed
//! there, and on a machine that answers the same the binary must print it.

use std::path::{Path, PathBuf};
use std::process::Command;

use iree_cpuinfo::{format_report, CpuidAnswers};

fn recordings() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/tools/cpuinfo")
}

fn recorded(arch: &str) -> (CpuidAnswers, String) {
    let dir = recordings();
    let cpuid = std::fs::read_to_string(dir.join(format!("{arch}.cpuid"))).unwrap();
    let expected = std::fs::read_to_string(dir.join(format!("{arch}.expected.txt"))).unwrap();
    (
        CpuidAnswers::from_text(&cpuid).expect("well-formed recording"),
        expected,
    )
}

#[test]
fn recorded_cpuid_gives_upstream_output() {
    let (answers, expected) = recorded("x86_64");
    assert_eq!(format_report(&answers.x86_64_features()), expected);
}

#[test]
fn binary_prints_the_same_on_the_recording_cpu() {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-cpuinfo"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let (answers, expected) = recorded("x86_64");
    let names = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(names(&text), names(&expected));
    // Leaf 1's EBX holds the APIC id of whichever core answered; it plays no
    // part in detection.
    let mut live = CpuidAnswers::read();
    let mut answers = answers;
    live.0[2][1] = 0;
    answers.0[2][1] = 0;
    if live == answers {
        assert_eq!(text, expected);
    }
}

#[test]
fn unknown_flag_is_one_line_and_fails() {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-cpuinfo"))
        .arg("--bogus")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.ends_with('\n') && err.lines().count() == 1, "{err:?}");
    assert!(err.contains("--bogus"), "{err}");
}
