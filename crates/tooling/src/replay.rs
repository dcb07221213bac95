//! HAL replay in the tools: capture (`--device_replay_output` and its
//! policies, [`ReplayCapture`], for the tools that run modules), and what
//! `iree-run-replay` and `iree-benchmark-replay` share: their replay flags
//! (`--replay_file_remap`, `--replay_executable_substitution`,
//! `--agents_md`), the devices a replay runs on (from `--device=`, as
//! `iree-run-module` makes them) and reading the capture.

use std::ffi::{OsStr, OsString};
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::Device;
use iree_hal_replay::execute::{ExecuteOptions, Substitution, SubstitutionRequest};
pub use iree_hal_replay::Recorder;
use iree_hal_replay::{FilePolicy, FileValidation, RecorderOptions};

use crate::run::{driver_registry_with, RunOptions, DEFAULT_DEVICE};

/// The capture the `--device_replay_*` flags ask for.
#[derive(Clone, Debug, Default)]
pub struct ReplayCapture {
    /// `--device_replay_output`: where to write the capture (none: no capture).
    pub output: Option<OsString>,
    /// `--device_replay_file_policy` and `--device_replay_file_validation`.
    pub options: RecorderOptions,
}

impl ReplayCapture {
    /// The capture of the flags' values; the policies are checked only when
    /// a capture is asked for, as upstream checks them.
    pub fn from_flags(
        output: &OsStr,
        file_policy: &str,
        file_validation: &str,
    ) -> Result<ReplayCapture> {
        if output.is_empty() {
            return Ok(ReplayCapture::default());
        }
        Ok(ReplayCapture {
            output: Some(output.to_os_string()),
            options: RecorderOptions {
                file_policy: FilePolicy::parse(file_policy)?,
                file_validation: FileValidation::parse(file_validation)?,
            },
        })
    }

    /// Starts the capture, if one is asked for.
    pub fn start(&self) -> Result<Option<Arc<Recorder>>> {
        self.output
            .as_ref()
            .map(|path| Recorder::create(path, self.options))
            .transpose()
    }
}

/// A capture in progress: its recorder, and the recorded device.
pub struct Capture {
    /// The recorder (scopes, closing).
    pub recorder: Arc<Recorder>,
    /// The device whose calls are recorded.
    pub device: Arc<dyn Device>,
}

/// Starts the capture `options` ask for, if any: creates the device of the
/// first `--device=` and wraps it, inside the capture's `init` scope, so
/// that its calls are recorded; the device a tool capturing its run hands
/// the `hal` module. Nothing is written when the device cannot be made.
pub fn start_capture(options: &RunOptions) -> Result<Option<Capture>> {
    if options.replay.output.is_none() {
        return Ok(None);
    }
    let uri = options
        .devices
        .first()
        .map(String::as_str)
        .unwrap_or(DEFAULT_DEVICE);
    let device = driver_registry_with(options)
        .create_device(uri)
        .annotate("creating VM context")?;
    let Some(recorder) = options.replay.start()? else {
        return Ok(None);
    };
    recorder.scope_begin("init");
    let device: Arc<dyn Device> = recorder.wrap(device);
    recorder.scope_end("init");
    Ok(Some(Capture { recorder, device }))
}

/// The replay flags of `iree-run-replay` and `iree-benchmark-replay`.
#[derive(clap::Args, Debug)]
pub struct ReplayFlags {
    /// Remaps captured external file path prefixes before replay opens
    /// them; repeat as --replay_file_remap=captured_prefix=replay_prefix.
    #[arg(long = "replay_file_remap")]
    pub replay_file_remap: Vec<String>,
    /// Substitutes a captured executable: EXECUTABLE_ID=PATH,
    /// EXECUTABLE_ID@FORMAT=PATH, all=PATH or all@FORMAT=PATH (ids as
    /// iree-dump-replay lists them).
    #[arg(long = "replay_executable_substitution")]
    pub replay_executable_substitution: Vec<String>,
    /// Prints AGENTS.md guidance for HAL replay workflows and exits.
    #[arg(long = "agents_md", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pub agents_md: String,
    /// The capture.
    #[arg(hide = true)]
    pub files: Vec<OsString>,
}

/// The playbook `--agents_md` prints.
pub const AGENTS_MD: &str = "\
# IREE HAL replay

A `.ireereplay` capture holds the HAL work of a run: executables, buffers
and the bytes the host wrote into them, command buffers, queue operations
and the semaphores ordering them. Replaying it needs no VM and no program.

Capture with the usual tools and flags plus `--device_replay_output`:

```bash
iree-run-module --device=local-task --module=model.vmfb --function=main \\
  --input=@input.npy --device_replay_output=/tmp/model.ireereplay
```

`--device_replay_file_policy` decides what happens to parameter files read
through the HAL: `reference` (the default) records their path and identity,
`capture-ranges` copies the bytes read into the capture (hermetic),
`capture-all` embeds whole files, `fail` refuses them.
`--device_replay_file_validation=digest` records a content digest instead of
the file's identity, for files that will be copied elsewhere.
`iree-run-module` marks `init`, `execute` and `deinit` scopes.

Replay, dump and time it:

```bash
iree-run-replay --device=local-sync /tmp/model.ireereplay
iree-dump-replay --format=jsonl /tmp/model.ireereplay
iree-benchmark-replay --device=local-task --replay_scope=execute /tmp/model.ireereplay
```

Swap a kernel: find the executable id with `iree-dump-replay`, then
`--replay_executable_substitution=ID=kernel.so` (or `all=...`, `ID@FORMAT=...`).
The replacement must declare the same functions with the same constant and
binding counts and workgroup sizes, or the replay fails before running it.

Replay is strict: anything it cannot reproduce (host calls, collectives,
a missing or changed parameter file, an unknown object) fails with the
record it was at.
";

/// The one capture path, or INVALID_ARGUMENT as upstream's tools say it.
pub fn capture_path(files: &[OsString]) -> Result<&OsString> {
    match files {
        [path] => Ok(path),
        _ => Err(Status::new(
            StatusCode::InvalidArgument,
            "expected one replay file path argument",
        )),
    }
}

/// Reads a capture (NOT_FOUND when there is no such file).
pub fn read_capture(path: &OsString) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            StatusCode::NotFound
        } else {
            StatusCode::Unavailable
        };
        Status::new(
            code,
            format!("failed to open file '{}'", path.to_string_lossy()),
        )
    })
}

/// The devices of `--device=` (the default device when none is given), in
/// order: the replay's device group.
pub fn create_devices(options: &RunOptions) -> Result<Vec<Arc<dyn Device>>> {
    let registry = driver_registry_with(options);
    let uris: Vec<&str> = if options.devices.is_empty() {
        vec![DEFAULT_DEVICE]
    } else {
        options.devices.iter().map(String::as_str).collect()
    };
    uris.into_iter()
        .map(|uri| registry.create_device(uri))
        .collect()
}

/// One `--replay_executable_substitution`.
struct SubstitutionFlag {
    /// `None` for `all`.
    executable_id: Option<u64>,
    format: Option<String>,
    path: String,
    data: Arc<[u8]>,
}

/// Parses `--replay_executable_substitution` values and reads their files.
fn parse_substitutions(values: &[String]) -> Result<Vec<SubstitutionFlag>> {
    let mut out: Vec<SubstitutionFlag> = Vec::new();
    for value in values {
        let (selector, path) = match value.split_once('=') {
            Some((s, p)) if !s.is_empty() && !p.is_empty() => (s, p),
            _ => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    "--replay_executable_substitution values must be EXECUTABLE_ID=PATH, EXECUTABLE_ID@FORMAT=PATH, all=PATH, or all@FORMAT=PATH",
                ))
            }
        };
        let (id, format) = match selector.split_once('@') {
            Some((id, format)) if !id.is_empty() && !format.is_empty() => {
                (id, Some(format.to_string()))
            }
            Some(_) => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    "--replay_executable_substitution selector must be EXECUTABLE_ID, EXECUTABLE_ID@FORMAT, all, or all@FORMAT",
                ))
            }
            None => (selector, None),
        };
        let executable_id = if id == "all" {
            if values.len() != 1 {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    "--replay_executable_substitution all selector cannot be combined with other executable substitutions",
                ));
            }
            None
        } else {
            match id.parse::<u64>() {
                Ok(id) if id != 0 => {
                    if out.iter().any(|s| s.executable_id == Some(id)) {
                        return Err(Status::new(
                            StatusCode::InvalidArgument,
                            format!("--replay_executable_substitution repeats executable id {id}"),
                        ));
                    }
                    Some(id)
                }
                _ => {
                    return Err(Status::new(
                        StatusCode::InvalidArgument,
                        "--replay_executable_substitution executable selector must be a non-zero integer id or all",
                    ))
                }
            }
        };
        let data = std::fs::read(path).map_err(|e| {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                StatusCode::NotFound
            } else {
                StatusCode::Unavailable
            };
            Status::new(code, format!("failed to open file '{path}'"))
        })?;
        out.push(SubstitutionFlag {
            executable_id,
            format,
            path: path.to_string(),
            data: data.into(),
        });
    }
    Ok(out)
}

/// Parses `--replay_file_remap` values.
fn parse_remaps(values: &[String]) -> Result<Vec<(String, String)>> {
    values
        .iter()
        .map(|value| match value.split_once('=') {
            Some((from, to)) if !from.is_empty() => Ok((from.to_string(), to.to_string())),
            _ => Err(Status::new(
                StatusCode::InvalidArgument,
                "--replay_file_remap values must be captured_prefix=replay_prefix",
            )),
        })
        .collect()
}

impl ReplayFlags {
    /// True when `--agents_md` was given.
    pub fn wants_agents_md(&self) -> bool {
        self.agents_md != "false" && self.agents_md != "0"
    }

    /// Execution options from the flags: file remaps and the executable
    /// substitutions (their files read now).
    pub fn execute_options(&self) -> Result<ExecuteOptions<'static>> {
        let file_remaps = parse_remaps(&self.replay_file_remap)?;
        let substitutions = parse_substitutions(&self.replay_executable_substitution)?;
        let mut options = ExecuteOptions {
            file_remaps,
            ..ExecuteOptions::default()
        };
        if !substitutions.is_empty() {
            options.substitute = Some(Box::new(move |request: &SubstitutionRequest<'_>| {
                Ok(substitutions
                    .iter()
                    .find(|s| s.executable_id.is_none_or(|id| id == request.executable_id))
                    .map(|s| Substitution {
                        source: s.path.clone(),
                        format: s.format.clone(),
                        data: s.data.clone(),
                    }))
            }));
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_flags_are_checked_as_upstream_checks_them() {
        for (values, text) in [
            (vec!["3"], "values must be"),
            (vec!["=x"], "values must be"),
            (vec!["@fmt=x"], "selector must be"),
            (vec!["0=x"], "non-zero integer id or all"),
            (vec!["all=x", "2=y"], "cannot be combined"),
        ] {
            let values: Vec<String> = values.into_iter().map(String::from).collect();
            let err = parse_substitutions(&values).err().unwrap();
            assert_eq!(err.code(), StatusCode::InvalidArgument);
            assert!(err.message().contains(text), "{}", err.message());
        }
        let err = parse_substitutions(&["4=/nonexistent/kernel".to_string()])
            .err()
            .unwrap();
        assert_eq!(err.code(), StatusCode::NotFound);
        assert!(parse_remaps(&["=x".to_string()]).is_err());
        assert_eq!(
            parse_remaps(&["/a=/b".to_string()]).unwrap(),
            vec![("/a".to_string(), "/b".to_string())]
        );
    }
}
