//! Progress of long work (writing or converting a parameter archive,
//! preloading a large parameter file), reported to whatever the process
//! installed with [`set_reporter`]: the tools install a terminal progress
//! bar when stderr is a terminal (see [`crate::tool_setup`]); libraries and
//! processes that install nothing report nowhere, at the cost of one load
//! per [`Progress::start`].

use std::sync::OnceLock;

/// Shows progress; installed once per process with [`set_reporter`].
pub trait ProgressReporter: Send + Sync {
    /// Starts showing a task called `label` of `total` bytes.
    fn start(&self, label: &str, total: u64) -> Box<dyn ProgressTask>;
}

/// One task being shown; dropped when the task ends.
pub trait ProgressTask: Send {
    /// `bytes` more of the task are done.
    fn advance(&mut self, bytes: u64);
}

static REPORTER: OnceLock<Box<dyn ProgressReporter>> = OnceLock::new();

/// Installs the process's progress reporter; false when one already is.
pub fn set_reporter(reporter: Box<dyn ProgressReporter>) -> bool {
    REPORTER.set(reporter).is_ok()
}

/// A task's progress: reported if a reporter is installed, otherwise
/// nothing. Ends (clears its display) when dropped.
pub struct Progress(Option<Box<dyn ProgressTask>>);

impl Progress {
    /// Starts task `label` of `total` bytes.
    pub fn start(label: &str, total: u64) -> Progress {
        Progress(REPORTER.get().map(|r| r.start(label, total)))
    }

    /// A task that reports nothing.
    pub fn none() -> Progress {
        Progress(None)
    }

    /// `bytes` more are done.
    #[inline]
    pub fn advance(&mut self, bytes: u64) {
        if let Some(task) = &mut self.0 {
            task.advance(bytes);
        }
    }
}

/// A writer that reports the bytes written through it to a [`Progress`].
pub struct ProgressWriter<'a, W> {
    inner: W,
    progress: &'a mut Progress,
}

impl<'a, W: std::io::Write> ProgressWriter<'a, W> {
    /// Wraps `inner`, advancing `progress` by what is written.
    pub fn new(inner: W, progress: &'a mut Progress) -> ProgressWriter<'a, W> {
        ProgressWriter { inner, progress }
    }
}

impl<W: std::io::Write> std::io::Write for ProgressWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn without_a_reporter_progress_is_silent_and_writes_pass_through() {
        let mut progress = Progress::start("nothing", 10);
        let mut out = Vec::new();
        ProgressWriter::new(&mut out, &mut progress)
            .write_all(b"abc")
            .unwrap();
        progress.advance(7);
        assert_eq!(out, b"abc");
    }
}
