//! Every flag upstream's `iree-benchmark-module --help` lists (recorded by `cargo xtask
//! record-flags` under `testdata/tools/flags`) is accepted at its default.

use std::path::Path;

#[test]
fn accepts_every_upstream_flag() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let binary = Path::new(env!("CARGO_BIN_EXE_iree-benchmark-module"));
    if let Err(message) = iree_tooling::testcases::check_accepts_upstream_flags(
        binary,
        &root,
        "iree-benchmark-module",
    ) {
        panic!("{message}");
    }
}

#[test]
fn help_is_a_flagfile() {
    let binary = Path::new(env!("CARGO_BIN_EXE_iree-benchmark-module"));
    if let Err(message) = iree_tooling::testcases::check_help_is_a_flagfile(binary) {
        panic!("{message}");
    }
}
