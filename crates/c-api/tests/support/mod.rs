//! Building `libiree_runtime` and C programs against it for the tests: the
//! library comes from `cargo build -p iree-c-api` in this test's profile
//! and target directory, the programs from the system C compiler.

#![allow(dead_code, reason = "each test file uses part of the helpers")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Where the library and its headers are.
pub struct Library {
    /// `crates/c-api/include`.
    pub include: PathBuf,
    /// The directory holding `libiree_runtime.so` and `.a`.
    pub lib_dir: PathBuf,
    /// Where compiled programs go.
    pub out_dir: PathBuf,
}

/// The crate directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's `testdata/`.
pub fn testdata() -> PathBuf {
    crate_dir().join("../../testdata")
}

/// Builds the library (once per test process).
pub fn library() -> &'static Library {
    static LIBRARY: OnceLock<Library> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        // The test binary is `<target>/<profile>/deps/<name>`.
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("test executable in <target>/<profile>/deps")
            .to_path_buf();
        let target_dir = profile_dir
            .parent()
            .expect("target directory")
            .to_path_buf();
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => "dev".to_string(),
            Some(other) => other.to_string(),
            None => "dev".to_string(),
        };
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "iree-c-api", "--profile", &profile])
            .arg("--target-dir")
            .arg(&target_dir)
            .current_dir(crate_dir())
            .status()
            .expect("running cargo build -p iree-c-api");
        assert!(status.success(), "cargo build -p iree-c-api failed");
        let out_dir = profile_dir.join("c-api-tests");
        std::fs::create_dir_all(&out_dir).expect("creating the programs' directory");
        Library {
            include: crate_dir().join("include"),
            lib_dir: profile_dir,
            out_dir,
        }
    })
}

/// How a program links the library.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Linking {
    /// Against `libiree_runtime.so` (with an rpath to it).
    Shared,
    /// Against `libiree_runtime.a`.
    Static,
}

/// The C compiler (`$CC`, else `cc`).
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".to_string())
}

/// Compiles `sources` (paths relative to `tests/c` or absolute) into
/// program `name`, with `flags` before the sources.
pub fn compile(name: &str, sources: &[PathBuf], flags: &[&str], linking: Linking) -> PathBuf {
    let library = library();
    let exe = library.out_dir.join(name);
    let mut command = Command::new(cc());
    command
        .arg("-std=gnu11")
        .arg("-Wall")
        .arg("-Werror")
        .arg("-Wno-unused-function")
        .arg("-I")
        .arg(&library.include)
        .args(flags)
        .args(sources.iter().map(|s| crate_dir().join("tests/c").join(s)))
        .arg("-o")
        .arg(&exe);
    match linking {
        Linking::Shared => {
            command
                .arg("-L")
                .arg(&library.lib_dir)
                .arg("-liree_runtime")
                .arg(format!("-Wl,-rpath,{}", library.lib_dir.display()));
        }
        Linking::Static => {
            command
                .arg(library.lib_dir.join("libiree_runtime.a"))
                .args(["-lpthread", "-ldl", "-lm"]);
        }
    }
    let output = command.output().expect("running the C compiler");
    assert!(
        output.status.success(),
        "compiling {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    exe
}

/// Compiles `source` (relative to `tests/c`) into the shared library
/// `name`, leaving its `iree_*` references to the host process (`-liree_runtime`
/// is added when `link_library`).
pub fn compile_shared(name: &str, source: &str, link_library: bool) -> PathBuf {
    let library = library();
    let out = library.out_dir.join(name);
    let mut command = Command::new(cc());
    command
        .args(["-std=gnu11", "-Wall", "-Werror", "-fPIC", "-shared", "-I"])
        .arg(&library.include)
        .arg(crate_dir().join("tests/c").join(source))
        .arg("-o")
        .arg(&out);
    if link_library {
        command
            .arg("-L")
            .arg(&library.lib_dir)
            .arg("-liree_runtime")
            .arg(format!("-Wl,-rpath,{}", library.lib_dir.display()));
    }
    let output = command.output().expect("running the C compiler");
    assert!(
        output.status.success(),
        "compiling {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// Builds `iree-run-module` in this profile (once per test process).
pub fn iree_run_module() -> &'static Path {
    static TOOL: OnceLock<PathBuf> = OnceLock::new();
    TOOL.get_or_init(|| {
        let library = library();
        let target_dir = library.lib_dir.parent().expect("target directory");
        let profile = match library.lib_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev".to_string(),
            Some(other) => other.to_string(),
        };
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "iree-run-module", "--profile", &profile])
            .arg("--target-dir")
            .arg(target_dir)
            .current_dir(crate_dir())
            .status()
            .expect("running cargo build -p iree-run-module");
        assert!(status.success(), "cargo build -p iree-run-module failed");
        library.lib_dir.join("iree-run-module")
    })
}

/// Runs `exe` with `args`.
pub fn run(exe: &Path, args: &[&str]) -> Output {
    Command::new(exe)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()))
}

/// Runs `exe` and returns its stdout, failing the test unless it exits 0.
pub fn run_ok(exe: &Path, args: &[&str]) -> String {
    let output = run(exe, args);
    assert!(
        output.status.success(),
        "{} exited with {:?}\nstdout:\n{}\nstderr:\n{}",
        exe.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Writes a C file defining `embedded_module_data` / `embedded_module_size`
/// with the bytes of `path` (what upstream's `iree-c-embed-data` does for
/// its demos), 64-byte aligned; returns its path.
pub fn embed(path: &Path, name: &str) -> PathBuf {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut text = String::from(
        "#include <stddef.h>\n_Alignas(64) const unsigned char embedded_module_data[] = {\n",
    );
    for chunk in bytes.chunks(16) {
        for byte in chunk {
            text.push_str(&format!("{byte},"));
        }
        text.push('\n');
    }
    text.push_str(&format!(
        "}};\nconst size_t embedded_module_size = {};\n",
        bytes.len()
    ));
    let out = library().out_dir.join(format!("{name}.c"));
    std::fs::write(&out, text).expect("writing the embedded module");
    out
}
