//! The checked-in test-data format shared by `cargo xtask` and the test
//! harnesses: suites of cases run through `iree-run-module`, each with the
//! output upstream IREE produced for it.
//!
//! Layout (see `testdata/README.md`):
//!
//! ```text
//! testdata/<suite>/<group>.mlir                      source; first line `// COMPILE: <flags>`
//!                                                    (or <group>.vmasm, for iree-as-module)
//! testdata/<suite>/<group>.vmfb                      compiled by the pinned iree-compile
//! testdata/<suite>/<group>.cases                     `<case-name>: <iree-run-module args>` per line
//! testdata/<suite>/expected/<group>/<case-name>.txt  what upstream printed
//! ```
//!
//! An expectation file reads:
//!
//! ```text
//! exit: 1
//! status: INVALID_ARGUMENT
//! --- stdout 15 bytes
//! EXEC @function
//! --- stderr 58 bytes
//! <vm>:0: INVALID_ARGUMENT; kaboom; ; invoking function 'boom'
//! ```
//!
//! Each section header gives the byte length of its body, so any text
//! round-trips. When a non-empty body does not end with a newline, one `\n`
//! is written after it (and skipped when parsing) so the next header starts
//! on its own line.
//!
//! This module uses only `std`; its errors are [`Status`] values.

use std::fs;
use std::path::{Path, PathBuf};

use iree_base::{Result, Status, StatusCode};

/// The header-comment prefix on the first line of a `.mlir` source that holds
/// its `iree-compile` flags.
pub const COMPILE_HEADER: &str = "// COMPILE:";

/// The `status:` of a run whose stderr names a failure without a code name
/// (`<vm>:0: ; message`).
pub const UNNAMED_STATUS: &str = "(unnamed)";

/// The name of the directory, inside a suite, that holds expectation files.
pub const EXPECTED_DIR: &str = "expected";

/// One test case: a single `iree-run-module` invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The suite: the name of the directory under `testdata/` (`vm`).
    pub suite: String,
    /// The group: the file stem of the `.cases` file (`arith_i32`).
    pub group: String,
    /// The case name, unique within its group.
    pub name: String,
    /// The `iree-run-module` arguments, already split.
    pub args: Vec<String>,
    /// The suite directory; the run's working directory.
    pub dir: PathBuf,
    /// The 1-based line of the case in its `.cases` file.
    pub line: usize,
    /// Whether stderr must match too (the suite's [`COMPARE_FILE`] says
    /// `stderr`): for suites whose stderr is the output under test, such
    /// as tensor traces.
    pub compare_stderr: bool,
}

impl Case {
    /// `suite/group/name`, for messages and filters.
    pub fn id(&self) -> String {
        format!("{}/{}/{}", self.suite, self.group, self.name)
    }

    /// Where this case's expectation file lives.
    pub fn expected_path(&self) -> PathBuf {
        self.dir
            .join(EXPECTED_DIR)
            .join(&self.group)
            .join(format!("{}.txt", self.name))
    }

    /// The differences between `expected` and `actual` that fail this case:
    /// [`Expectation::mismatches`], and stderr when the case compares it.
    pub fn mismatches(&self, expected: &Expectation, actual: &Expectation) -> Vec<String> {
        let mut out = expected.mismatches(actual);
        if self.compare_stderr && expected.stderr != actual.stderr {
            out.push("stderr differs".to_string());
        }
        out
    }

    /// Reads and parses this case's expectation file.
    pub fn load_expectation(&self) -> Result<Expectation> {
        let path = self.expected_path();
        let text = read_to_string(&path)?;
        Expectation::parse(&text).map_err(|s| s.annotate(format!("parsing {}", path.display())))
    }
}

/// What one run printed and how it ended; the content of an expectation file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// The process exit code; death by signal N is recorded as 128 + N.
    pub exit_code: i32,
    /// `OK` or the status code name found in stderr (see [`status_code_of`]).
    pub status: String,
    /// Standard output, verbatim. Compared exactly.
    pub stdout: String,
    /// Standard error, verbatim. Informational only.
    pub stderr: String,
}

impl Default for Expectation {
    /// A clean run: exit code 0, status `OK`, no output.
    fn default() -> Expectation {
        Expectation {
            exit_code: 0,
            status: "OK".to_string(),
            stdout: String::new(),
            stderr: String::new(),
        }
    }
}

impl Expectation {
    /// Builds an expectation from a finished run, deriving `status` from
    /// `stderr` with [`status_code_of`].
    pub fn from_run(exit_code: i32, stdout: String, stderr: String) -> Expectation {
        let status = status_code_of(&stderr);
        Expectation {
            exit_code,
            status,
            stdout,
            stderr,
        }
    }

    /// Renders the expectation-file text; [`Expectation::parse`] inverts it.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("exit: {}\n", self.exit_code));
        out.push_str(&format!("status: {}\n", self.status));
        render_section(&mut out, "stdout", &self.stdout);
        render_section(&mut out, "stderr", &self.stderr);
        out
    }

    /// Parses expectation-file text written by [`Expectation::render`].
    pub fn parse(text: &str) -> Result<Expectation> {
        let mut rest = text;
        let exit_line = take_line(&mut rest)?;
        let exit_code = exit_line
            .strip_prefix("exit: ")
            .and_then(|v| v.trim().parse::<i32>().ok())
            .ok_or_else(|| invalid(format!("expected `exit: <code>`, got `{exit_line}`")))?;
        let status_line = take_line(&mut rest)?;
        let status = status_line
            .strip_prefix("status: ")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| invalid(format!("expected `status: <code>`, got `{status_line}`")))?;
        let stdout = parse_section(&mut rest, "stdout")?;
        let stderr = parse_section(&mut rest, "stderr")?;
        if !rest.is_empty() {
            return Err(invalid(format!(
                "{} unexpected bytes after the stderr section",
                rest.len()
            )));
        }
        Ok(Expectation {
            exit_code,
            status,
            stdout,
            stderr,
        })
    }

    /// Compares the parts that must match (exit code, status, stdout) and
    /// describes every difference; an empty list means a match.
    pub fn mismatches(&self, actual: &Expectation) -> Vec<String> {
        let mut out = Vec::new();
        if self.exit_code != actual.exit_code {
            out.push(format!(
                "exit code: expected {}, got {}",
                self.exit_code, actual.exit_code
            ));
        }
        if self.status != actual.status {
            out.push(format!(
                "status: expected {}, got {}",
                self.status, actual.status
            ));
        }
        if self.stdout != actual.stdout {
            out.push("stdout differs".to_string());
        }
        out
    }
}

fn render_section(out: &mut String, name: &str, body: &str) {
    out.push_str(&format!("--- {name} {} bytes\n", body.len()));
    out.push_str(body);
    if !body.is_empty() && !body.ends_with('\n') {
        out.push('\n');
    }
}

fn parse_section(rest: &mut &str, name: &str) -> Result<String> {
    let header = take_line(rest)?;
    let len = header
        .strip_prefix("--- ")
        .and_then(|h| h.strip_prefix(name))
        .and_then(|h| h.strip_prefix(' '))
        .and_then(|h| h.strip_suffix(" bytes"))
        .and_then(|n| n.parse::<usize>().ok())
        .ok_or_else(|| invalid(format!("expected `--- {name} <N> bytes`, got `{header}`")))?;
    if rest.len() < len || !rest.is_char_boundary(len) {
        return Err(invalid(format!(
            "the {name} section claims {len} bytes but {} remain (or it splits a character)",
            rest.len()
        )));
    }
    let (body, tail) = rest.split_at(len);
    *rest = tail;
    if !body.is_empty() && !body.ends_with('\n') {
        *rest = rest
            .strip_prefix('\n')
            .ok_or_else(|| invalid(format!("missing the newline after the {name} section")))?;
    }
    Ok(body.to_string())
}

fn take_line<'a>(rest: &mut &'a str) -> Result<&'a str> {
    if rest.is_empty() {
        return Err(invalid("unexpected end of expectation file"));
    }
    match rest.find('\n') {
        Some(i) => {
            let line = &rest[..i];
            *rest = &rest[i + 1..];
            Ok(line)
        }
        None => {
            let line = *rest;
            *rest = "";
            Ok(line)
        }
    }
}

fn invalid(msg: impl Into<String>) -> Status {
    Status::new(StatusCode::InvalidArgument, msg)
}

fn read_to_string(path: &Path) -> Result<String> {
    fs::read_to_string(path).map_err(|e| io_status(e, path))
}

fn io_status(e: std::io::Error, path: &Path) -> Status {
    let code = match e.kind() {
        std::io::ErrorKind::NotFound => StatusCode::NotFound,
        std::io::ErrorKind::PermissionDenied => StatusCode::PermissionDenied,
        _ => StatusCode::Unavailable,
    };
    Status::new(code, format!("{}: {e}", path.display()))
}

/// The status code name a run's stderr reports, or `OK` if it reports none.
///
/// IREE tools print a failure as `file:line: CODE; message; annotation; ...`
/// (`<vm>:0: INVALID_ARGUMENT; ...` for `vm.fail`), or `file:line: CODE` with
/// no message. This finds the first `:<digits>: ` prefix in `stderr` that is
/// followed by an upper-case token (letters, digits, `_`) ending at `;`, at a
/// line end or at the end of the text, and returns that token.
///
/// A code with no name (upstream prints `<vm>:0: ; message` for a `vm.fail`
/// status outside 0..=18) is reported as [`UNNAMED_STATUS`].
pub fn status_code_of(stderr: &str) -> String {
    let bytes = stderr.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b':' {
            // `:<digits>: `
            let mut j = i + 1;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && stderr[j..].starts_with(": ") {
                let tok_start = j + 2;
                let mut k = tok_start;
                while k < bytes.len()
                    && (bytes[k].is_ascii_uppercase()
                        || bytes[k] == b'_'
                        || bytes[k].is_ascii_digit())
                {
                    k += 1;
                }
                let ends_well =
                    k == bytes.len() || bytes[k] == b';' || bytes[k] == b'\n' || bytes[k] == b'\r';
                if k > tok_start && bytes[tok_start].is_ascii_uppercase() && ends_well {
                    return stderr[tok_start..k].to_string();
                }
                if k == tok_start && k < bytes.len() && bytes[k] == b';' {
                    return UNNAMED_STATUS.to_string();
                }
            }
        }
        i += 1;
    }
    "OK".to_string()
}

/// Splits a case's argument text into words the way a shell does for simple
/// quoting: whitespace separates words, `'...'` and `"..."` group characters
/// (quotes may join with adjacent text, `--input="a b"` is one word), and
/// there are no escapes or variables. An unterminated quote is an error.
pub fn split_args(line: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(invalid(format!("unterminated {q} quote in `{line}`")));
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// Whether `name` is a valid case name: non-empty ASCII letters, digits,
/// `_`, `-` and `.`, not starting with `.`.
pub fn is_valid_case_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// Parses the text of one `.cases` file. `dir` is the suite directory.
pub fn parse_cases(suite: &str, group: &str, dir: &Path, text: &str) -> Result<Vec<Case>> {
    let mut cases: Vec<Case> = Vec::new();
    for (idx, raw) in text.lines().enumerate() {
        let line_no = idx + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |msg: String| invalid(format!("{group}.cases:{line_no}: {msg}"));
        let (name, args) = line
            .split_once(':')
            .ok_or_else(|| at("expected `<case-name>: <arguments>`".to_string()))?;
        let name = name.trim();
        if !is_valid_case_name(name) {
            return Err(at(format!("invalid case name `{name}`")));
        }
        if cases.iter().any(|c| c.name == name) {
            return Err(at(format!("duplicate case name `{name}`")));
        }
        let args = split_args(args).map_err(|s| at(s.message().to_string()))?;
        cases.push(Case {
            suite: suite.to_string(),
            group: group.to_string(),
            name: name.to_string(),
            args,
            dir: dir.to_path_buf(),
            line: line_no,
            compare_stderr: false,
        });
    }
    Ok(cases)
}

/// The group names (file stems of `*.cases` files) in a suite directory, sorted.
pub fn list_groups(dir: &Path) -> Result<Vec<String>> {
    list_stems(dir, "cases")
}

/// The file stems of the files with extension `ext` directly in `dir`, sorted.
pub fn list_stems(dir: &Path, ext: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io_status(e, dir))? {
        let path = entry.map_err(|e| io_status(e, dir))?.path();
        if path.is_file() && path.extension().and_then(|e| e.to_str()) == Some(ext) {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                out.push(stem.to_string());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Loads every case of the suite in `dir` (all `*.cases` files), sorted by
/// group, then in file order.
pub fn load_suite(dir: &Path) -> Result<Vec<Case>> {
    let suite = dir
        .file_name()
        .and_then(|s| s.to_str())
        .ok_or_else(|| invalid(format!("bad suite directory {}", dir.display())))?
        .to_string();
    let compare_stderr = suite_list_file(dir, COMPARE_FILE)?
        .iter()
        .any(|s| s == "stderr");
    let mut cases = Vec::new();
    for group in list_groups(dir)? {
        let path = dir.join(format!("{group}.cases"));
        let text = read_to_string(&path)?;
        cases.extend(
            parse_cases(&suite, &group, dir, &text)?
                .into_iter()
                .map(|case| Case {
                    compare_stderr,
                    ..case
                }),
        );
    }
    Ok(cases)
}

/// The name of the optional per-suite file listing, one per line, output
/// streams compared besides stdout (`stderr`).
pub const COMPARE_FILE: &str = "COMPARE";

/// The name of the optional per-suite file listing, one per line, the
/// runtime components a suite needs (`hal`); a suite whose requirements a
/// build lacks is reported as ignored rather than failed.
pub const REQUIRES_FILE: &str = "REQUIRES";

/// Runtime components this build provides; suites that need others are
/// skipped by the harnesses (and reported as such).
pub const AVAILABLE_COMPONENTS: &[&str] = &["hal"];

/// A requirement meaning "the recorded output describes the machine it was
/// recorded on" (`--dump_task_topologies`, GPU-less device errors): live
/// comparisons (`cargo xtask conformance`) run such suites, the replay of
/// recorded output (`cargo test`) reports them as ignored.
pub const RECORDING_HOST: &str = "recording-host";

/// The requirements of the suite in `dir` that this build does not provide.
pub fn missing_requirements(dir: &Path) -> Result<Vec<String>> {
    Ok(suite_requirements(dir)?
        .into_iter()
        .filter(|r| !AVAILABLE_COMPONENTS.contains(&r.as_str()))
        .collect())
}

/// The components a suite requires (empty when it has no `REQUIRES` file).
pub fn suite_requirements(dir: &Path) -> Result<Vec<String>> {
    suite_list_file(dir, REQUIRES_FILE)
}

/// The lines of the per-suite list file `name` in `dir`, without blank
/// lines and `#` comments (empty when there is no such file).
fn suite_list_file(dir: &Path, name: &str) -> Result<Vec<String>> {
    let path = dir.join(name);
    if !path.exists() {
        return Ok(Vec::new());
    }
    Ok(read_to_string(&path)?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

/// The suite directories under a `testdata/` root (those holding `.cases`,
/// `.mlir` or `.vmasm` files), sorted by name.
pub fn list_suites(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(root).map_err(|e| io_status(e, root))? {
        let path = entry.map_err(|e| io_status(e, root))?.path();
        if path.is_dir()
            && (!list_stems(&path, "cases")?.is_empty()
                || !list_stems(&path, "mlir")?.is_empty()
                || !list_stems(&path, "vmasm")?.is_empty())
        {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// The tool flags from the `// COMPILE: <flags>` header on the first line of
/// a source: `iree-compile` flags for `.mlir`, `iree-as-module` flags for
/// `.vmasm`.
pub fn compile_flags(source: &str) -> Result<Vec<String>> {
    let first = source.lines().next().unwrap_or("");
    let flags = first
        .strip_prefix(COMPILE_HEADER)
        .ok_or_else(|| invalid(format!("the first line must be `{COMPILE_HEADER} <flags>`")))?;
    split_args(flags)
}

/// The tools whose every upstream flag must be accepted here (upstream's
/// names): `cargo xtask record-flags` records their `--help` listings.
pub const FLAG_TOOLS: [&str; 3] = [
    "iree-run-module",
    "iree-benchmark-module",
    "iree-benchmark-executable",
];

/// Where `cargo xtask record-flags` keeps the flag listing of upstream's
/// `<tool> --help` (a flagfile of every flag at its default).
pub fn upstream_flag_listing(repo_root: &Path, tool: &str) -> PathBuf {
    repo_root
        .join("testdata")
        .join("tools")
        .join("flags")
        .join(format!("{tool}.flags"))
}

/// Runs `binary` (our `tool`) with upstream's recorded flag listing as a
/// flagfile, then `--list_drivers`: Ok when every upstream flag is
/// accepted, else what the tool printed.
pub fn check_accepts_upstream_flags(
    binary: &Path,
    repo_root: &Path,
    tool: &str,
) -> std::result::Result<(), String> {
    let listing = upstream_flag_listing(repo_root, tool);
    let output = std::process::Command::new(binary)
        .arg(format!("--flagfile={}", listing.display()))
        .arg("--list_drivers")
        .output()
        .map_err(|e| format!("running {}: {e}", binary.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{tool} rejected upstream's flags ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Runs `binary --help`, then `binary` with that output as its flagfile
/// and `--list_drivers`: Ok when the help is a flagfile the tool accepts,
/// as upstream's is.
pub fn check_help_is_a_flagfile(binary: &Path) -> std::result::Result<(), String> {
    let run = |args: &[String]| {
        std::process::Command::new(binary)
            .args(args)
            .output()
            .map_err(|e| format!("running {}: {e}", binary.display()))
    };
    let help = run(&["--help".to_string()])?;
    if !help.status.success() {
        return Err(format!("--help failed ({})", help.status));
    }
    let path = std::env::temp_dir().join(format!(
        "iree-help-{}-{}.flags",
        binary
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("tool"),
        std::process::id()
    ));
    fs::write(&path, &help.stdout).map_err(|e| io_status(e, &path).to_string())?;
    let output = run(&[
        format!("--flagfile={}", path.display()),
        "--list_drivers".to_string(),
    ]);
    let _ = fs::remove_file(&path);
    let output = output?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "the tool rejected its own --help as a flagfile ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_args_handles_quotes() {
        assert_eq!(
            split_args("  --module=a.vmfb   --input=1 ").unwrap(),
            vec!["--module=a.vmfb", "--input=1"]
        );
        assert_eq!(
            split_args(r#"--input="2x2xi32=[1 2][3 4]" 'a b'c "" x"#).unwrap(),
            vec!["--input=2x2xi32=[1 2][3 4]", "a bc", "", "x"]
        );
        assert_eq!(split_args(r#"'say "hi"'"#).unwrap(), vec![r#"say "hi""#]);
        assert!(split_args("").unwrap().is_empty());
        assert!(split_args("'open").is_err());
    }

    #[test]
    fn status_code_from_stderr() {
        assert_eq!(
            status_code_of("<vm>:0: INVALID_ARGUMENT; kaboom; ; invoking function 'boom'"),
            "INVALID_ARGUMENT"
        );
        assert_eq!(
            status_code_of(
                "c/runtime/src/iree/vm/bytecode/module.c:333: NOT_FOUND; no function `nope`"
            ),
            "NOT_FOUND"
        );
        assert_eq!(status_code_of("x.c:1: UNKNOWN"), "UNKNOWN");
        assert_eq!(status_code_of("x.c:12: OUT_OF_RANGE\nmore"), "OUT_OF_RANGE");
        assert_eq!(status_code_of(""), "OK");
        assert_eq!(status_code_of("just some text: 12: lower; x"), "OK");
        assert_eq!(
            status_code_of("noise 1:2: Lower\nf.c:7: ABORTED; m"),
            "ABORTED"
        );
        assert_eq!(status_code_of("C:\\x\\f.c:9: DATA_LOSS; m"), "DATA_LOSS");
        assert_eq!(
            status_code_of("<vm>:0: ; failure; ; invoking function 'fail'"),
            UNNAMED_STATUS
        );
    }

    fn round_trip(e: &Expectation) {
        let text = e.render();
        assert_eq!(&Expectation::parse(&text).unwrap(), e, "text:\n{text}");
    }

    #[test]
    fn expectation_round_trips() {
        round_trip(&Expectation::default());
        round_trip(&Expectation {
            exit_code: 0,
            status: "OK".into(),
            stdout: "EXEC @add\nresult[0]: i32=7\n".into(),
            stderr: String::new(),
        });
        round_trip(&Expectation {
            exit_code: 1,
            status: "INVALID_ARGUMENT".into(),
            stdout: "EXEC @boom\n".into(),
            stderr: "<vm>:0: INVALID_ARGUMENT; kaboom".into(),
        });
        // Bodies that look like headers, lack or repeat newlines, hold Unicode.
        round_trip(&Expectation {
            exit_code: 136,
            status: "OK".into(),
            stdout: "--- stderr 3 bytes\nabc\n\n\nüñï".into(),
            stderr: "\n".into(),
        });
        round_trip(&Expectation {
            exit_code: -1,
            status: "X".into(),
            stdout: "no newline".into(),
            stderr: "\n\n--- stdout 0 bytes\n".into(),
        });
    }

    #[test]
    fn expectation_text_shape() {
        let e = Expectation::from_run(
            1,
            "EXEC @boom\n".into(),
            "<vm>:0: INVALID_ARGUMENT; kaboom".into(),
        );
        assert_eq!(
            e.render(),
            "exit: 1\nstatus: INVALID_ARGUMENT\n--- stdout 11 bytes\nEXEC @boom\n\
             --- stderr 32 bytes\n<vm>:0: INVALID_ARGUMENT; kaboom\n"
        );
        let empty = Expectation::from_run(0, String::new(), String::new());
        assert_eq!(
            empty.render(),
            "exit: 0\nstatus: OK\n--- stdout 0 bytes\n--- stderr 0 bytes\n"
        );
    }

    #[test]
    fn expectation_parse_errors() {
        assert!(Expectation::parse("").is_err());
        assert!(Expectation::parse("exit: x\n").is_err());
        assert!(Expectation::parse("exit: 0\nstatus: OK\n--- stdout 5 bytes\nab").is_err());
        assert!(Expectation::parse(
            "exit: 0\nstatus: OK\n--- stdout 0 bytes\n--- stderr 0 bytes\ntrailing"
        )
        .is_err());
    }

    #[test]
    fn mismatches_ignore_stderr() {
        let a = Expectation::from_run(1, "x\n".into(), "f.c:1: ABORTED; a".into());
        let mut b = a.clone();
        b.stderr = "g.rs:9: ABORTED; different".into();
        assert!(a.mismatches(&b).is_empty());
        b.stdout = "y\n".into();
        b.exit_code = 2;
        assert_eq!(a.mismatches(&b).len(), 2);
    }

    #[test]
    fn parses_cases_files() {
        let dir = Path::new("/x/vm");
        let text = "# comment\n\nadd: --module=a.vmfb --function=add --input=1 --input='2'\n  \
                    fail-1 : --module=a.vmfb --function=boom\n";
        let cases = parse_cases("vm", "arith", dir, text).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].name, "add");
        assert_eq!(cases[0].line, 3);
        assert_eq!(
            cases[0].args,
            vec![
                "--module=a.vmfb",
                "--function=add",
                "--input=1",
                "--input=2"
            ]
        );
        assert_eq!(cases[1].name, "fail-1");
        assert_eq!(cases[1].id(), "vm/arith/fail-1");
        assert_eq!(
            cases[1].expected_path(),
            Path::new("/x/vm/expected/arith/fail-1.txt")
        );
        assert!(parse_cases("vm", "g", dir, "no colon here").is_err());
        assert!(parse_cases("vm", "g", dir, "a b: x").is_err());
        assert!(parse_cases("vm", "g", dir, "a: x\na: y").is_err());
    }

    #[test]
    fn loads_a_suite_from_disk() {
        let root = std::env::temp_dir().join(format!("iree-testcases-{}", std::process::id()));
        let dir = root.join("demo");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("b.cases"), "z: --module=b.vmfb\n").unwrap();
        fs::write(
            dir.join("a.cases"),
            "y: --module=a.vmfb\nx: --module=a.vmfb\n",
        )
        .unwrap();
        fs::write(
            dir.join("a.mlir"),
            "// COMPILE: --compile-mode=vm\nvm.module @a {}\n",
        )
        .unwrap();
        let cases = load_suite(&dir).unwrap();
        let ids: Vec<_> = cases.iter().map(|c| c.id()).collect();
        assert_eq!(ids, vec!["demo/a/y", "demo/a/x", "demo/b/z"]);
        assert_eq!(list_suites(&root).unwrap(), vec![dir.clone()]);
        let src = fs::read_to_string(dir.join("a.mlir")).unwrap();
        assert_eq!(compile_flags(&src).unwrap(), vec!["--compile-mode=vm"]);
        assert!(compile_flags("vm.module @a {}").is_err());
        fs::remove_dir_all(&root).unwrap();
    }
}
