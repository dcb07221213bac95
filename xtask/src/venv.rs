//! The pinned upstream IREE Python venv at `<repo>/.iree-venv`.
//!
//! It holds exactly `iree-base-compiler==3.13.0 iree-base-runtime==3.13.0
//! numpy`, plus `safetensors==0.7.0 gguf==0.19.0`, which write the
//! `testdata/params` parameter files. When it is missing and a venv with the right versions already
//! exists at `$IREE_RS_SHARED_VENV` or next to the repository
//! (`<repo>/../.iree-venv`), a symlink to that one is made instead of
//! installing; otherwise `python3 -m venv` and a pinned `pip install` build it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Result;

/// The upstream release the project pins.
pub const IREE_VERSION: &str = "3.13.0";

/// The pip requirements installed into the venv.
pub const REQUIREMENTS: [&str; 5] = [
    "iree-base-compiler==3.13.0",
    "iree-base-runtime==3.13.0",
    "numpy",
    "safetensors==0.7.0",
    "gguf==0.19.0",
];

/// Versions of the parameter-file writers (`REQUIREMENTS`).
const WRITER_VERSIONS: [(&str, &str); 2] = [("safetensors", "0.7.0"), ("gguf", "0.19.0")];

/// A verified venv and the upstream tools in it.
#[derive(Debug, Clone)]
pub struct Venv {
    /// The venv directory (`<repo>/.iree-venv`).
    pub dir: PathBuf,
    /// The directory of the native runtime tools (`iree/_runtime_libs`).
    pub runtime_libs: PathBuf,
    /// The directory of the native compiler tools (`iree/compiler/_mlir_libs`).
    pub compiler_libs: PathBuf,
}

impl Venv {
    /// The native `iree-compile` binary (`iree/compiler/_mlir_libs`), run
    /// directly rather than through the venv's Python console script.
    pub fn iree_compile(&self) -> PathBuf {
        self.compiler_libs.join("iree-compile")
    }

    /// The native `iree-run-module` binary. Run directly rather than through
    /// the Python console script so exit codes and signals are the tool's own.
    pub fn iree_run_module(&self) -> PathBuf {
        self.runtime_libs.join("iree-run-module")
    }

    /// The native `iree-as-module` binary (VMASM assembler).
    pub fn iree_as_module(&self) -> PathBuf {
        self.runtime_libs.join("iree-as-module")
    }

    /// The venv's Python (with numpy, safetensors and gguf).
    pub fn python(&self) -> PathBuf {
        self.dir.join("bin").join("python")
    }

    /// The native `iree-create-parameters` binary.
    pub fn iree_create_parameters(&self) -> PathBuf {
        self.runtime_libs.join("iree-create-parameters")
    }

    /// The native `iree-dump-parameters` binary.
    pub fn iree_dump_parameters(&self) -> PathBuf {
        self.runtime_libs.join("iree-dump-parameters")
    }

    /// The native `iree-dump-module` binary.
    pub fn iree_dump_module(&self) -> PathBuf {
        self.runtime_libs.join("iree-dump-module")
    }
}

const PROBE: &str = "\
import importlib.metadata as m, importlib.util as u, os
for p in ('iree-base-compiler', 'iree-base-runtime', 'numpy', 'safetensors', 'gguf'):
    try:
        print(m.version(p))
    except Exception:
        print('missing')
s = u.find_spec('iree._runtime_libs')
print(os.path.dirname(s.origin) if s and s.origin else 'missing')
s = u.find_spec('iree.compiler')
print(os.path.join(os.path.dirname(s.origin), '_mlir_libs') if s and s.origin else 'missing')
";

/// Checks the venv at `dir`: the tools when the versions are right, or why not.
fn probe(dir: &Path) -> Result<Venv> {
    let python = dir.join("bin").join("python");
    if !python.exists() {
        return Err(format!("{} does not exist", python.display()));
    }
    let out = Command::new(&python)
        .args(["-c", PROBE])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "probing {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() != 7 {
        return Err(format!(
            "unexpected probe output from {}: {text}",
            dir.display()
        ));
    }
    if lines[0] != IREE_VERSION || lines[1] != IREE_VERSION || lines[2] == "missing" {
        return Err(format!(
            "{} has iree-base-compiler {}, iree-base-runtime {}, numpy {} (want {IREE_VERSION}, {IREE_VERSION}, any)",
            dir.display(),
            lines[0],
            lines[1],
            lines[2]
        ));
    }
    for (i, (package, version)) in WRITER_VERSIONS.iter().enumerate() {
        if lines[3 + i] != *version {
            return Err(format!(
                "{} has {package} {} (want {version})",
                dir.display(),
                lines[3 + i]
            ));
        }
    }
    let libs = PathBuf::from(lines[5]);
    for tool in ["iree-run-module", "iree-dump-module", "iree-as-module"] {
        if !libs.join(tool).exists() {
            return Err(format!("{} lacks {tool}", libs.display()));
        }
    }
    let compiler_libs = PathBuf::from(lines[6]);
    if !compiler_libs.join("iree-compile").exists() {
        return Err(format!("{} lacks iree-compile", compiler_libs.display()));
    }
    Ok(Venv {
        dir: dir.to_path_buf(),
        runtime_libs: libs,
        compiler_libs,
    })
}

/// Creates or verifies `<root>/.iree-venv`, returning its tools.
pub fn ensure(root: &Path) -> Result<Venv> {
    let dir = root.join(".iree-venv");
    if let Ok(venv) = probe(&dir) {
        return Ok(venv);
    }
    let is_symlink = dir
        .symlink_metadata()
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false);
    if is_symlink {
        eprintln!(
            "xtask: {} is a symlink to a wrong venv; replacing it",
            dir.display()
        );
        std::fs::remove_file(&dir).map_err(|e| format!("removing {}: {e}", dir.display()))?;
    }
    if !dir.exists() {
        let mut shared: Vec<PathBuf> = Vec::new();
        if let Some(s) = std::env::var_os("IREE_RS_SHARED_VENV") {
            shared.push(PathBuf::from(s));
        }
        if let Some(parent) = root.parent() {
            shared.push(parent.join(".iree-venv"));
        }
        for candidate in shared {
            if probe(&candidate).is_ok() {
                let target = candidate.canonicalize().unwrap_or(candidate);
                eprintln!("xtask: linking {} -> {}", dir.display(), target.display());
                symlink_dir(&target, &dir)?;
                return probe(&dir);
            }
        }
        eprintln!("xtask: creating {}", dir.display());
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
        run_checked(Command::new(&python).args(["-m", "venv"]).arg(&dir))?;
    }
    eprintln!(
        "xtask: installing {} into {} (the pinned upstream compiler and runtime: \
         about 600 MB from PyPI, once; later commands reuse it)",
        REQUIREMENTS.join(" "),
        dir.display()
    );
    run_checked(
        Command::new(dir.join("bin").join("python"))
            .args(["-m", "pip", "install", "--disable-pip-version-check"])
            .args(REQUIREMENTS),
    )?;
    probe(&dir)
}

/// Runs `cmd`, an error unless it exits successfully.
pub fn run_checked(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    if !status.success() {
        return Err(format!("{cmd:?} failed with {status}"));
    }
    Ok(())
}

/// A tool venv at `dir` for the xtask commands that run upstream's Python
/// tests: created if missing, `requirements` installed unless `pinned`
/// (the first package) has [`IREE_VERSION`] and every package of `present`
/// is installed. Returns the venv's Python.
pub fn ensure_tool_venv(
    dir: &Path,
    requirements: &[&str],
    pinned: &str,
    present: &[&str],
) -> Result<PathBuf> {
    let python = dir.join("bin").join("python");
    if !python.exists() {
        eprintln!("xtask: creating {}", dir.display());
        let host = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
        run_checked(Command::new(host).args(["-m", "venv"]).arg(dir))?;
    }
    let versions: Vec<String> = std::iter::once(pinned)
        .chain(present.iter().copied())
        .map(|p| format!("m.version('{p}')"))
        .collect();
    let probe = Command::new(&python)
        .args([
            "-c",
            &format!(
                "import importlib.metadata as m; print({})",
                versions.join(", ")
            ),
        ])
        .output();
    let ok = probe.is_ok_and(|o| {
        o.status.success() && String::from_utf8_lossy(&o.stdout).starts_with(IREE_VERSION)
    });
    if !ok {
        eprintln!(
            "xtask: installing {} into {}",
            requirements.join(" "),
            dir.display()
        );
        run_checked(
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(requirements),
        )?;
    }
    Ok(python)
}

#[cfg(unix)]
fn symlink_dir(target: &Path, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link)
        .map_err(|e| format!("linking {} -> {}: {e}", link.display(), target.display()))
}

#[cfg(not(unix))]
fn symlink_dir(target: &Path, link: &Path) -> Result<()> {
    Err(format!(
        "cannot link {} -> {} on this platform",
        link.display(),
        target.display()
    ))
}
