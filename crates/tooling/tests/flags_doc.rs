//! `docs/flags.md` lists every flag of upstream's recorded `--help`
//! listings (`testdata/tools/flags`) and every entry of the compatibility
//! table, so the table of what ours does cannot fall behind.

use std::path::Path;

use iree_tooling::compat_flags::COMPAT_FLAGS;
use iree_tooling::testcases::{upstream_flag_listing, FLAG_TOOLS};

#[test]
fn the_flags_doc_lists_every_upstream_flag() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/flags.md")).expect("reading docs/flags.md");
    let mut missing = Vec::new();
    for tool in FLAG_TOOLS {
        let listing = std::fs::read_to_string(upstream_flag_listing(&root, tool))
            .expect("reading a recorded flag listing");
        for line in listing.lines() {
            let line = line.strip_prefix("# ").unwrap_or(line);
            let Some(rest) = line.strip_prefix("--") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !doc.contains(&format!("`--{name}`")) {
                missing.push(format!("{tool}: --{name}"));
            }
        }
    }
    for flag in COMPAT_FLAGS {
        if !doc.contains(&format!("`--{}`", flag.name)) {
            missing.push(format!("compat table: --{}", flag.name));
        }
    }
    assert!(missing.is_empty(), "docs/flags.md lacks: {missing:?}");
}
