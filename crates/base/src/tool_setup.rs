//! What every command-line tool installs at startup (feature `tool-setup`):
//!
//! * a `tracing` subscriber writing to stderr, filtered by `IREE_LOG` (or,
//!   when that is unset or empty, `RUST_LOG`) as `tracing-subscriber`'s
//!   `Targets` parse it: a default level and `target=level` pairs
//!   (`IREE_LOG=debug`, `IREE_LOG=iree_hal_local=trace`); no regex
//!   engine is linked into the tools for it. With
//!   neither set nothing is installed: nothing is printed and the
//!   runtime's spans and events cost one level check each.
//! * a progress bar ([`crate::progress`]) on stderr when stderr is a
//!   terminal; nothing otherwise.

use std::io::IsTerminal;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::progress::{self, ProgressReporter, ProgressTask};

/// The environment variable read first for the log filter.
pub const LOG_ENV: &str = "IREE_LOG";

/// Tasks smaller than this show no bar (they end before one would help).
const PROGRESS_MIN_BYTES: u64 = 32 << 20;

/// Installs the log subscriber and the progress reporter (see the module
/// documentation). A bad filter is reported on stderr as one line and
/// logging stays off; the tool runs on.
pub fn init() {
    init_logging();
    if std::io::stderr().is_terminal() {
        progress::set_reporter(Box::new(TerminalProgress));
    }
}

/// A tool's flags `F` from its command line (the program name first):
/// flagfiles expanded and values unquoted ([`crate::flagfile::expand_args`]),
/// then parsed by clap. Err is the exit code after printing: 0 for
/// `--help`, 1 for a bad argument (clap's message on stderr).
pub fn parse_flags<F: clap::Parser>(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<F, u8> {
    let args = crate::flagfile::expand_args(args).map_err(|message| {
        eprintln!("{message}");
        1
    })?;
    F::try_parse_from(args).map_err(|e| {
        let _ = e.print();
        if e.use_stderr() {
            1
        } else {
            0
        }
    })
}

fn init_logging() {
    let Some((name, filter)) = [LOG_ENV, "RUST_LOG"].into_iter().find_map(|name| {
        std::env::var(name)
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| (name, v))
    }) else {
        return;
    };
    let filter = match filter.parse::<tracing_subscriber::filter::Targets>() {
        Ok(filter) => filter,
        Err(e) => {
            eprintln!("ignoring {name}='{filter}': {e}");
            return;
        }
    };
    let _ = tracing_subscriber::fmt()
        .with_max_level(tracing_subscriber::filter::LevelFilter::TRACE)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_thread_names(true)
        .finish()
        .with(filter)
        .try_init();
}

/// Progress bars on stderr (a terminal).
struct TerminalProgress;

impl ProgressReporter for TerminalProgress {
    fn start(&self, label: &str, total: u64) -> Box<dyn ProgressTask> {
        if total < PROGRESS_MIN_BYTES {
            return Box::new(NoBar);
        }
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_message(label.to_string());
        Box::new(Bar(bar))
    }
}

struct NoBar;

impl ProgressTask for NoBar {
    fn advance(&mut self, _bytes: u64) {}
}

struct Bar(indicatif::ProgressBar);

impl ProgressTask for Bar {
    fn advance(&mut self, bytes: u64) {
        self.0.inc(bytes);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
