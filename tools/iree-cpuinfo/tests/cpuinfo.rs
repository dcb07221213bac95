//! iree-cpuinfo prints upstream's feature list in upstream's format; where
//! the pinned upstream venv exists (`cargo xtask venv`), it prints exactly
//! what upstream's tool prints on this machine.

use std::process::Command;

#[cfg(target_arch = "x86_64")]
const NAMES: [&str; 27] = [
    "sse3",
    "ssse3",
    "sse4.1",
    "sse4.2",
    "sse4a",
    "avx",
    "fma",
    "fma4",
    "xop",
    "f16c",
    "avx2",
    "avx512f",
    "avx512cd",
    "avx512vl",
    "avx512dq",
    "avx512bw",
    "avx512ifma",
    "avx512vbmi",
    "avx512vpopcntdq",
    "avx512vnni",
    "avx512vbmi2",
    "avx512bitalg",
    "avx512bf16",
    "avx512fp16",
    "amx-tile",
    "amx-int8",
    "amx-bf16",
];

fn ours() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_iree-cpuinfo"))
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[cfg(target_arch = "x86_64")]
#[test]
fn lists_every_feature_in_upstreams_format() {
    let text = ours();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), NAMES.len());
    for (line, name) in lines.iter().zip(NAMES) {
        let value = line
            .strip_prefix(&format!("{name:<20} "))
            .unwrap_or_else(|| panic!("line {line:?} is not `{name}` padded to 20 columns"));
        assert!(value == "0" || value == "1", "{line:?}");
    }
    // Features the standard library also detects agree with it.
    let flag = |name: &str| lines[NAMES.iter().position(|n| *n == name).unwrap()].ends_with('1');
    assert_eq!(
        flag("sse4.2"),
        std::arch::is_x86_feature_detected!("sse4.2")
    );
    assert_eq!(flag("avx"), std::arch::is_x86_feature_detected!("avx"));
    assert_eq!(flag("avx2"), std::arch::is_x86_feature_detected!("avx2"));
    assert_eq!(flag("fma"), std::arch::is_x86_feature_detected!("fma"));
    assert_eq!(
        flag("avx512f"),
        std::arch::is_x86_feature_detected!("avx512f")
    );
}

#[test]
fn matches_upstream_where_the_venv_exists() {
    let upstream = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../.iree-venv/lib/python3.11/site-packages/iree/_runtime_libs/iree-cpuinfo");
    if !upstream.exists() {
        eprintln!("skipped: no pinned upstream venv (cargo xtask venv)");
        return;
    }
    let theirs = Command::new(upstream).output().unwrap();
    assert_eq!(ours(), String::from_utf8(theirs.stdout).unwrap());
}
