//! Our `iree-create-parameters` against upstream's: `testdata/params`
//! holds archives upstream's tool wrote (see `generate.py` for their
//! flags); ours, given the same flags, writes the same bytes.

use std::path::Path;
use std::process::Command;

fn create(args: &[&str], name: &str) -> Vec<u8> {
    let output = std::env::temp_dir().join(format!(
        "iree-create-test-{}-{name}.irpa",
        std::process::id()
    ));
    let run = Command::new(env!("CARGO_BIN_EXE_iree-create-parameters"))
        .args(args)
        .arg(format!("--output={}", output.display()))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(&output).unwrap();
    let _ = std::fs::remove_file(&output);
    bytes
}

#[test]
fn archives_match_upstream_byte_for_byte() {
    let params = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/params"
    ));
    let cases: [(&str, &[&str]); 2] = [
        (
            "upstream_splat.irpa",
            &[
                "--splat=w_f32=4xf32=0.5",
                "--splat=w_f16=8xf16=2",
                "--splat=w_big=128x128xf32=0.25",
            ],
        ),
        (
            "upstream_zero.irpa",
            &[
                "--data=w_f32=4xf32",
                "--data=w_f16=8xf16",
                "--data=w_big=128x128xf32",
            ],
        ),
    ];
    for (file, args) in cases {
        let expected = std::fs::read(params.join(file)).unwrap();
        assert!(create(args, file) == expected, "{file}: archives differ");
    }
}

#[test]
fn data_patterns_fill_the_whole_entry() {
    // Upstream 3.13's tool fails to write these ("write failed"); ours
    // repeats the pattern over the entry.
    let bytes = create(&["--data=w=3xi16=-2"], "pattern");
    let mut index = iree_io_parameters::ParameterIndex::new();
    let path = std::env::temp_dir().join(format!(
        "iree-create-test-{}-check.irpa",
        std::process::id()
    ));
    std::fs::write(&path, &bytes).unwrap();
    iree_io_parameters::append_file_to_index(
        path.to_str().unwrap(),
        iree_io_parameters::FileMode::Preload,
        &mut index,
    )
    .unwrap();
    let entry = index.lookup(b"w").unwrap();
    let iree_io_parameters::EntryStorage::File { file, offset } = &entry.storage else {
        panic!("{entry:?}");
    };
    assert_eq!(
        file.range(*offset, 6).unwrap(),
        [0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF]
    );
    let _ = std::fs::remove_file(&path);
}
