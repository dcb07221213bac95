//! Option parsing shared by the commands.

use std::path::{Path, PathBuf};

use iree_tooling::testcases::{self, Case};

use crate::Result;

/// Options of `testdata`, `conformance` and `opcodes`.
#[derive(Debug, Default)]
pub struct Options {
    /// `--suite`: only these suites (all when empty).
    pub suites: Vec<String>,
    /// `--group`: only these groups (all when empty).
    pub groups: Vec<String>,
    /// `--filter`: only cases whose id contains this.
    pub filter: Option<String>,
    /// `--force`: recompile every module.
    pub force: bool,
    /// `--device`: appended to each case's arguments.
    pub device: Option<String>,
    /// `--recorded`: compare with expected files instead of running upstream.
    pub recorded: bool,
    /// `--verbose`.
    pub verbose: bool,
    /// `--jobs`.
    pub jobs: usize,
}

impl Options {
    /// Parses `--flag value` and `--flag=value` forms.
    pub fn parse(args: &[String]) -> Result<Options> {
        let mut o = Options {
            jobs: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(4),
            ..Options::default()
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            let mut value = |name: &str| -> Result<String> {
                match &inline {
                    Some(v) => Ok(v.clone()),
                    None => it.next().cloned().ok_or(format!("{name} needs a value")),
                }
            };
            match flag.as_str() {
                "--suite" => o.suites.push(value("--suite")?),
                "--group" => o.groups.push(value("--group")?),
                "--filter" => o.filter = Some(value("--filter")?),
                "--device" => o.device = Some(value("--device")?),
                "--jobs" | "-j" => {
                    o.jobs = value("--jobs")?
                        .parse()
                        .map_err(|_| "--jobs needs a number".to_string())?;
                    o.jobs = o.jobs.max(1);
                }
                "--force" => o.force = true,
                "--recorded" => o.recorded = true,
                "--verbose" | "-v" => o.verbose = true,
                other => return Err(format!("unknown option `{other}` (see cargo xtask --help)")),
            }
        }
        Ok(o)
    }

    /// The selected suite directories under `testdata/`.
    pub fn suite_dirs(&self, root: &Path) -> Result<Vec<PathBuf>> {
        let testdata = root.join("testdata");
        let all = testcases::list_suites(&testdata).map_err(|s| s.to_string())?;
        if self.suites.is_empty() {
            return Ok(all);
        }
        let mut out = Vec::new();
        for s in &self.suites {
            let dir = testdata.join(s);
            if !all.contains(&dir) {
                return Err(format!("no suite `{s}` under {}", testdata.display()));
            }
            out.push(dir);
        }
        Ok(out)
    }

    /// Whether group `g` is selected.
    pub fn group_selected(&self, g: &str) -> bool {
        self.groups.is_empty() || self.groups.iter().any(|x| x == g)
    }

    /// Whether `case` is selected by `--group` and `--filter`.
    pub fn case_selected(&self, case: &Case) -> bool {
        self.group_selected(&case.group)
            && self
                .filter
                .as_ref()
                .is_none_or(|f| case.id().contains(f.as_str()))
    }

    /// All selected cases of the selected suites. Suites needing runtime
    /// components this build lacks (`REQUIRES`) are skipped with a note,
    /// unless named explicitly with `--suite`. Suites whose output describes
    /// the machine they were recorded on (`recording-host`) can only be
    /// compared live: with `--recorded` their cases are set aside as
    /// ignored, as `cargo test` does when it replays recordings.
    pub fn cases(&self, root: &Path) -> Result<Selection> {
        let mut out = Selection::default();
        for dir in self.suite_dirs(root)? {
            let (host_specific, missing): (Vec<String>, Vec<String>) =
                testcases::missing_requirements(&dir)
                    .map_err(|s| s.to_string())?
                    .into_iter()
                    .partition(|r| r == testcases::RECORDING_HOST);
            if !missing.is_empty() && self.suites.is_empty() {
                eprintln!(
                    "note: skipping suite {} (needs {}, not built yet; run it with --suite)",
                    dir.file_name()
                        .map(|n| n.to_string_lossy())
                        .unwrap_or_default(),
                    missing.join(", ")
                );
                continue;
            }
            let cases = testcases::load_suite(&dir)
                .map_err(|s| format!("loading {}: {s}", dir.display()))?;
            let selected = cases.into_iter().filter(|c| self.case_selected(c));
            if self.recorded && !host_specific.is_empty() {
                out.ignored.extend(selected);
            } else {
                out.cases.extend(selected);
            }
        }
        Ok(out)
    }
}

/// The cases a command runs, and those it sets aside.
#[derive(Debug, Default)]
pub struct Selection {
    /// The cases to run.
    pub cases: Vec<Case>,
    /// Cases of `recording-host` suites under `--recorded`: their recorded
    /// output describes the recording machine, so replaying it here says
    /// nothing about this runtime.
    pub ignored: Vec<Case>,
}
