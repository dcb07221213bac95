//! The device profiling flags of the tools: `--device_profiling_mode`,
//! `--device_profiling_output` and `--print_device_statistics`, spelled
//! and combined as upstream's, with what this runtime writes: upstream's
//! `.ireeprof` bundle (which upstream's `iree-profile` reads), Chrome
//! trace-event JSON for `.json` paths, and a per-dispatch statistics table
//! (see `docs/observability.md`).

use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{Device, ProfileCapture, ProfilingMode};

/// What the profiling flags ask of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProfilingOptions {
    /// The families to record (empty: no capture).
    pub mode: ProfilingMode,
    /// Where the profile goes (`--device_profiling_output`): Chrome
    /// trace-event JSON for a `.json` path, upstream's `.ireeprof` bundle
    /// for any other.
    pub output: Option<String>,
    /// `--print_device_statistics`: the per-dispatch table on stderr after
    /// the run.
    pub print_statistics: bool,
}

impl ProfilingOptions {
    /// Checks and combines the flags as upstream does:
    /// `--device_profiling_mode` needs `--device_profiling_output`;
    /// `--print_device_statistics` cannot be combined with an output and,
    /// without a mode, records dispatches. A `.json` output gets Chrome
    /// trace-event JSON, any other path upstream's raw profiling bundle
    /// (as upstream's tools write to every path).
    pub fn from_flags(
        mode: &str,
        output: &str,
        print_statistics: bool,
    ) -> Result<ProfilingOptions> {
        let mut parsed = ProfilingMode::parse(mode)?;
        let has_mode = !mode.trim().is_empty();
        if has_mode && output.is_empty() && !print_statistics {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "--device_profiling_mode requires --device_profiling_output",
            ));
        }
        if print_statistics && !output.is_empty() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "--print_device_statistics cannot be combined with --device_profiling_output",
            ));
        }
        if print_statistics {
            parsed = parsed | ProfilingMode::DISPATCH | ProfilingMode::QUEUE;
        }
        if !has_mode && !print_statistics {
            // An output without a mode records nothing, as upstream.
            return Ok(ProfilingOptions::default());
        }
        Ok(ProfilingOptions {
            mode: parsed,
            output: (!output.is_empty()).then(|| output.to_string()),
            print_statistics,
        })
    }

    /// Whether a capture is requested.
    pub fn enabled(&self) -> bool {
        self.output.is_some() || self.print_statistics
    }

    /// Starts a capture on `device` when one is requested (a run without a
    /// device captures nothing and writes an empty trace).
    pub fn begin(&self, device: Option<&Arc<dyn Device>>) -> Result<Option<ProfilingSession>> {
        if !self.enabled() {
            return Ok(None);
        }
        if let Some(device) = device {
            device
                .profiling_begin(self.mode)
                .annotate("beginning device profiling")?;
        }
        Ok(Some(ProfilingSession {
            options: self.clone(),
            device: device.cloned(),
        }))
    }
}

/// A running capture; [`ProfilingSession::finish`] ends it and writes what
/// the flags asked for.
pub struct ProfilingSession {
    options: ProfilingOptions,
    device: Option<Arc<dyn Device>>,
}

impl ProfilingSession {
    /// Ends the capture, writes the profile (`--device_profiling_output`) and
    /// prints the statistics table to stderr (`--print_device_statistics`).
    pub fn finish(self) -> Result<ProfileCapture> {
        let (capture, name) = match &self.device {
            Some(device) => (
                device.profiling_end().annotate("ending device profiling")?,
                device.id().to_string(),
            ),
            None => (ProfileCapture::default(), String::new()),
        };
        if let Some(path) = &self.options.output {
            let bytes = if path.ends_with(".json") {
                capture.to_chrome_trace_json(&name).into_bytes()
            } else {
                capture.to_ireeprof(&name)
            };
            std::fs::write(path, bytes).map_err(|e| {
                Status::new(
                    StatusCode::PermissionDenied,
                    format!("writing device profile '{path}': {e}"),
                )
            })?;
        }
        if self.options.print_statistics {
            eprint!("{}", capture.format_device_statistics());
        }
        Ok(capture)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_combine_as_upstream() {
        assert!(!ProfilingOptions::from_flags("", "", false)
            .unwrap()
            .enabled());
        assert!(!ProfilingOptions::from_flags("", "x.json", false)
            .unwrap()
            .enabled());
        let o = ProfilingOptions::from_flags("dispatch", "x.json", false).unwrap();
        assert_eq!(o.mode, ProfilingMode::DISPATCH);
        assert_eq!(o.output.as_deref(), Some("x.json"));
        let o = ProfilingOptions::from_flags("dispatch-events", "x.ireeprof", false).unwrap();
        assert_eq!(o.output.as_deref(), Some("x.ireeprof"));
        let o = ProfilingOptions::from_flags("", "", true).unwrap();
        assert!(o.print_statistics && o.mode.contains(ProfilingMode::DISPATCH));
        for (mode, output, stats, text) in [
            ("dispatch", "", false, "requires --device_profiling_output"),
            ("", "x.json", true, "cannot be combined"),
            (
                "queue-events,,dispatch-events",
                "x.ireeprof",
                false,
                "empty data family",
            ),
            ("bogus", "x.json", false, "'bogus'"),
        ] {
            let err = ProfilingOptions::from_flags(mode, output, stats).unwrap_err();
            assert_eq!(err.code(), StatusCode::InvalidArgument);
            assert!(err.message().contains(text), "{}", err.message());
        }
    }
}
