//! Our parameter index dumps against upstream's: every file of
//! `testdata/params/dumps/` holds the flags on its first line and what
//! upstream's `iree-dump-parameters` printed for them after it (recorded by
//! `testdata/params/generate.py`). Files upstream cannot read must fail here
//! too.

use std::path::Path;

use iree_io_parameters::{scope_map_from_flags, FileMode};

fn params_dir() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/params"
    ))
}

/// A `--parameters=` value with its path made absolute (the recorded flags
/// name files relative to `testdata/params`).
fn absolute(flag: &str) -> String {
    let (scope, path) = iree_io_parameters::split_parameters_flag(flag.as_ref()).unwrap();
    let path = params_dir().join(path);
    if scope.is_empty() && !flag.contains('=') {
        path.display().to_string()
    } else {
        format!("{scope}={}", path.display())
    }
}

#[test]
fn dumps_match_upstream() {
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(params_dir().join("dumps"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).unwrap();
        let (flags, expected) = text.split_once('\n').unwrap();
        let parameters: Vec<String> = flags
            .split(' ')
            .map(|f| absolute(f.strip_prefix("--parameters=").unwrap()))
            .collect();
        for mode in [FileMode::Mapped, FileMode::Preload] {
            let ours = scope_map_from_flags(&parameters, mode)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .dump();
            assert_eq!(ours, expected, "{} ({mode:?})", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} recorded dumps");
}

#[test]
fn files_upstream_rejects_are_rejected() {
    for file in [
        "bad_magic.irpa",
        "truncated.irpa",
        "truncated.gguf",
        "v1.gguf",
        "truncated.safetensors",
        "weights.bin",
    ] {
        let result = scope_map_from_flags(&[absolute(file)], FileMode::Mapped);
        assert!(result.is_err(), "{file} was accepted");
    }
}
