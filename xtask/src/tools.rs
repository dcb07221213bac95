//! Recordings and differentials of the inspection tools against upstream's:
//!
//! * `record-cpuinfo`: records this machine's CPUID answers and upstream's
//!   `iree-cpuinfo` output under `testdata/tools/cpuinfo/`, so that
//!   `cargo test -p iree-cpuinfo` checks our detection without the venv.

use std::path::Path;
use std::time::Duration;

use crate::{proc, repo_root, venv, Result};

/// Where the tool recordings live.
fn tools_testdata(root: &Path) -> std::path::PathBuf {
    root.join("testdata").join("tools")
}

/// `cargo xtask record-cpuinfo`.
pub fn record_cpuinfo() -> Result<bool> {
    let root = repo_root();
    let venv = venv::ensure(&root)?;
    let out = proc::run(
        &venv.runtime_libs.join("iree-cpuinfo"),
        &[],
        &root,
        Duration::from_secs(30),
    )?;
    if out.exit_code != 0 {
        return Err(format!(
            "upstream iree-cpuinfo failed ({}): {}",
            out.exit_code, out.stderr
        ));
    }
    let dir = tools_testdata(&root).join("cpuinfo");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let arch = std::env::consts::ARCH;
    let write = |name: String, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
        Ok::<(), String>(())
    };
    write(
        format!("{arch}.cpuid"),
        &iree_cpuinfo::CpuidAnswers::read().to_text(),
    )?;
    write(format!("{arch}.expected.txt"), &out.stdout)?;
    Ok(true)
}
