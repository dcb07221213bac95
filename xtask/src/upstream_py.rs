//! `cargo xtask upstream-python-tests --iree-src DIR`: upstream's own
//! Python binding tests (`runtime/bindings/python/tests/*.py` of an
//! iree-org/iree checkout that matches 3.13), run once against upstream's
//! wheel as written and once against `iree_rust.runtime` with only the
//! import swapped, then compared test by test.
//!
//! Nothing of upstream's is kept in this repository: the tests are copied
//! from the user's checkout into `target/upstream-py/` for each run. The
//! tests need upstream's compiler (they compile MLIR), so both runs share
//! one venv, `target/upstream-py/venv`, holding the pinned
//! `iree-base-compiler` and `iree-base-runtime` and our wheel, built here.
//!
//! The closing line counts the tests that pass on upstream's wheel: those
//! that also pass on ours, and those that do not (`N passed, N failed`).
//! `tokenizer_test.py` is left out unless `--all` is given: the tokenizer
//! is a subsystem of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::venv::{ensure_tool_venv, run_checked};
use crate::{proc, repo_root, Result};

/// What the venv holds besides our wheel.
const REQUIREMENTS: [&str; 6] = [
    "iree-base-compiler==3.13.0",
    "iree-base-runtime==3.13.0",
    "numpy==2.4.6",
    "ml_dtypes==0.6.0",
    "pytest==8.4.2",
    "maturin==1.16.0",
];

/// The test folder inside an iree-org/iree checkout.
const TESTS_DIR: &str = "runtime/bindings/python/tests";
/// Test data some tests find relative to their own file.
const TOKENIZER_DATA_DIR: &str = "runtime/src/iree/tokenizer/testdata";
/// Left out unless `--all`.
const TOKENIZER_TESTS: &str = "tokenizer_test.py";
/// How long one whole pytest run may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(1800);

const USAGE: &str =
    "usage: cargo xtask upstream-python-tests --iree-src DIR [--all] [--release] [-v]";

/// Options of the command.
struct Options {
    iree_src: PathBuf,
    all: bool,
    release: bool,
    verbose: bool,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut iree_src = None;
    let (mut all, mut release, mut verbose) = (false, false, false);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--iree-src" => iree_src = it.next().map(PathBuf::from),
            s if s.starts_with("--iree-src=") => iree_src = Some(PathBuf::from(&s[11..])),
            "--all" => all = true,
            "--release" => release = true,
            "-v" | "--verbose" => verbose = true,
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    let iree_src = iree_src.ok_or_else(|| format!("--iree-src is required\n{USAGE}"))?;
    if !iree_src.join(TESTS_DIR).is_dir() {
        return Err(format!(
            "{} has no {TESTS_DIR}: point --iree-src at an iree-org/iree checkout",
            iree_src.display()
        ));
    }
    Ok(Options {
        iree_src,
        all,
        release,
        verbose,
    })
}

/// Runs the command; Ok(true) when every test that passes on upstream's
/// wheel passes on ours.
pub fn run(args: &[String]) -> Result<bool> {
    let options = parse(args)?;
    let root = repo_root();
    let work = root.join("target").join("upstream-py");
    let python = ensure_tool_venv(
        &work.join("venv"),
        &REQUIREMENTS,
        "iree-base-runtime",
        &["pytest", "maturin"],
    )?;
    install_our_wheel(&root, &work, &python, options.release)?;

    let upstream = run_suite(&options, &work.join("upstream"), &python, false)?;
    let ours = run_suite(&options, &work.join("ours"), &python, true)?;
    Ok(report(&options, &upstream, &ours))
}

/// The `maturin` of the tool venv (created when missing), for commands that
/// build our wheel without running upstream's tests (`cargo xtask gpu-pack`).
pub(crate) fn ensure_maturin(root: &Path) -> Result<PathBuf> {
    let python = ensure_tool_venv(
        &root.join("target").join("upstream-py").join("venv"),
        &REQUIREMENTS,
        "iree-base-runtime",
        &["pytest", "maturin"],
    )?;
    Ok(python.with_file_name("maturin"))
}

/// Builds `bindings/python` into a wheel and installs it into the venv.
pub(crate) fn install_our_wheel(
    root: &Path,
    work: &Path,
    python: &Path,
    release: bool,
) -> Result<()> {
    let wheels = work.join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    let maturin = python.with_file_name("maturin");
    eprintln!("xtask: building the iree_rust.runtime wheel");
    run_checked(
        Command::new(&maturin)
            .current_dir(root)
            .args(["build", "--quiet", "--compatibility", "linux", "--profile"])
            .arg(if release { "release" } else { "dev" })
            .args(["-m", "bindings/python/Cargo.toml", "-o"])
            .arg(&wheels),
    )?;
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| format!("reading {}: {e}", wheels.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("maturin left no wheel in {}", wheels.display()))?;
    run_checked(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(["--force-reinstall", "--no-deps"])
            .arg(&wheel),
    )
}

/// Rewrites a test file's imports of `iree.runtime` to `iree_rust.runtime`.
pub(crate) fn swap_import(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + 64);
    let mut rest = source;
    while let Some(i) = rest.find("iree.runtime") {
        let before = rest[..i].chars().next_back();
        let after = rest[i + "iree.runtime".len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..i]);
        out.push_str(if word(before) || word(after) {
            "iree.runtime"
        } else {
            "iree_rust.runtime"
        });
        rest = &rest[i + "iree.runtime".len()..];
    }
    out.push_str(rest);
    out.replace("from iree import runtime", "from iree_rust import runtime")
}

/// The outcome of each test (`file::class::name` -> PASSED/FAILED/...),
/// and the files that failed to import.
#[derive(Default)]
struct Suite {
    outcomes: BTreeMap<String, String>,
    collection_errors: BTreeSet<String>,
}

impl Suite {
    fn passed(&self) -> BTreeSet<&str> {
        self.outcomes
            .iter()
            .filter(|(_, o)| *o == "PASSED")
            .map(|(t, _)| t.as_str())
            .collect()
    }
}

/// Copies the tests into `dir` (imports swapped when `ours`) and runs them.
fn run_suite(options: &Options, dir: &Path, python: &Path, ours: bool) -> Result<Suite> {
    let _ = std::fs::remove_dir_all(dir);
    let tests = dir.join(TESTS_DIR);
    copy_tree(&options.iree_src.join(TESTS_DIR), &tests, ours)?;
    let tokenizer_data = options.iree_src.join(TOKENIZER_DATA_DIR);
    if tokenizer_data.is_dir() {
        copy_tree(&tokenizer_data, &dir.join(TOKENIZER_DATA_DIR), false)?;
    }
    let mut args: Vec<String> = [
        "-m",
        "pytest",
        "-q",
        "-rA",
        "-p",
        "no:cacheprovider",
        "--continue-on-collection-errors",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if !options.all {
        args.push(format!("--ignore={TOKENIZER_TESTS}"));
    }
    args.push(".".into());
    let which = if ours {
        "iree_rust.runtime"
    } else {
        "upstream's iree.runtime"
    };
    eprintln!("xtask: running upstream's tests against {which}");
    let out = proc::run(python, &args, &tests, RUN_TIMEOUT)?;
    if out.timed_out {
        return Err(format!("pytest against {which} ran past {RUN_TIMEOUT:?}"));
    }
    std::fs::write(
        dir.join("pytest.log"),
        format!("{}{}", out.stdout, out.stderr),
    )
    .map_err(|e| format!("writing the log: {e}"))?;
    let mut suite = Suite::default();
    for line in out.stdout.lines() {
        let mut words = line.splitn(2, ' ');
        let (Some(outcome), Some(rest)) = (words.next(), words.next()) else {
            continue;
        };
        let name = rest.split(" - ").next().unwrap_or(rest).trim();
        match outcome {
            "PASSED" | "FAILED" | "XFAIL" | "XPASS" => {
                suite.outcomes.insert(name.to_string(), outcome.to_string());
            }
            "ERROR" if name.contains("::") => {
                suite.outcomes.insert(name.to_string(), outcome.to_string());
            }
            "ERROR" => {
                suite.collection_errors.insert(name.to_string());
            }
            _ => {}
        }
    }
    Ok(suite)
}

/// Copies the files of `from` to `to` (recursively), swapping the import
/// in `.py` files when `swap`.
fn copy_tree(from: &Path, to: &Path, swap: bool) -> Result<()> {
    std::fs::create_dir_all(to).map_err(|e| format!("creating {}: {e}", to.display()))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("reading {}: {e}", from.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("reading {}: {e}", from.display()))?
            .path();
        let target = to.join(path.file_name().unwrap_or_default());
        if path.is_dir() {
            copy_tree(&path, &target, swap)?;
        } else if swap && path.extension().is_some_and(|x| x == "py") {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("reading {}: {e}", path.display()))?;
            std::fs::write(&target, swap_import(&text))
                .map_err(|e| format!("writing {}: {e}", target.display()))?;
        } else {
            std::fs::copy(&path, &target)
                .map_err(|e| format!("copying {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// Prints the comparison; true when nothing that passes upstream fails here.
fn report(options: &Options, upstream: &Suite, ours: &Suite) -> bool {
    let upstream_passed = upstream.passed();
    let ours_passed = ours.passed();
    let file_of = |t: &str| t.split("::").next().unwrap_or(t).to_string();
    let mut per_file: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for test in upstream.outcomes.keys().chain(ours.outcomes.keys()) {
        per_file.entry(file_of(test)).or_default();
    }
    for test in &upstream_passed {
        let row = per_file.entry(file_of(test)).or_default();
        row.0 += 1;
        if ours_passed.contains(test) {
            row.1 += 1;
        }
    }
    for test in ours_passed.difference(&upstream_passed) {
        per_file.entry(file_of(test)).or_default().2 += 1;
    }
    println!(
        "{:<28} {:>9} {:>6} {:>14}",
        "file", "upstream", "ours", "ours only"
    );
    for (file, (up, both, extra)) in &per_file {
        println!("{file:<28} {up:>9} {both:>6} {extra:>14}");
    }
    for file in upstream.collection_errors.union(&ours.collection_errors) {
        let side = match (
            upstream.collection_errors.contains(file),
            ours.collection_errors.contains(file),
        ) {
            (true, true) => "both",
            (true, false) => "upstream",
            _ => "ours",
        };
        println!("{file}: does not import ({side})");
    }
    let regressions: Vec<&&str> = upstream_passed.difference(&ours_passed).collect();
    if !regressions.is_empty() || options.verbose {
        for test in &regressions {
            let outcome = ours.outcomes.get(**test).map_or("not run", String::as_str);
            println!("fails here, passes upstream: {test} ({outcome})");
        }
    }
    println!(
        "logs: target/upstream-py/{{upstream,ours}}/pytest.log{}",
        if options.all {
            ""
        } else {
            " (tokenizer_test.py left out; --all runs it)"
        }
    );
    let passed = upstream_passed.len() - regressions.len();
    println!("{passed} passed, {} failed", regressions.len());
    regressions.is_empty()
}

#[cfg(test)]
mod tests {
    use super::swap_import;

    #[test]
    fn swaps_only_the_package_name() {
        assert_eq!(
            swap_import("import iree.runtime as rt\nfrom iree.runtime.function import X\n"),
            "import iree_rust.runtime as rt\nfrom iree_rust.runtime.function import X\n"
        );
        assert_eq!(
            swap_import("from iree import runtime as rt\nimport iree.compiler\n"),
            "from iree_rust import runtime as rt\nimport iree.compiler\n"
        );
        assert_eq!(swap_import("my_iree.runtimes"), "my_iree.runtimes");
    }
}
