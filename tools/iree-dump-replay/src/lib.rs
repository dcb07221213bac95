//! `iree-dump-replay`: prints an `.ireereplay` capture's header, summary
//! and records (`--format=text`, or `--format=jsonl` for one JSON object a
//! line), exactly as upstream's tool prints them. Payload bytes are shown
//! as byte ranges of the capture, never printed.

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;
use iree_base::{Result, Status, StatusCode};
use iree_hal_replay::DumpFormat;

/// Command-line flags, spelled as upstream spells them.
#[derive(Parser, Debug)]
#[command(
    name = "iree-dump-replay",
    about = "Dumps information from an IREE HAL replay file.\n\nChecks the whole capture, then prints one line per record; payloads are\nshown as [offset, +length] ranges of the file.\n\nUsage:\n  iree-dump-replay [--format=text|jsonl] <capture.ireereplay>"
)]
struct Flags {
    /// Output format: text or jsonl.
    #[arg(long = "format", default_value = "text")]
    format: String,
    /// Prints AGENTS.md guidance for iree-dump-replay and exits.
    #[arg(long = "agents_md", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    agents_md: String,
    /// The capture.
    #[arg(hide = true)]
    files: Vec<OsString>,
}

const AGENTS_MD: &str = "\
# iree-dump-replay

`iree-dump-replay --format=text capture.ireereplay` lists a capture's
records; `--format=jsonl` prints one JSON object per record for `jq`.
Payload bytes appear as `[offset, +length]` ranges of the capture file.

```bash
iree-dump-replay --format=jsonl capture.ireereplay | \\
  jq 'select(.operation==\"device.queue_execute\")'
```

`iree-run-replay --agents_md` describes capturing, replaying and
substituting executables.
";

fn run(flags: &Flags, out: &mut dyn Write) -> Result<()> {
    let [path] = flags.files.as_slice() else {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "expected one replay file path argument",
        ));
    };
    let format = match flags.format.as_str() {
        "text" => DumpFormat::Text,
        "jsonl" => DumpFormat::Jsonl,
        other => {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("unsupported --format={other}; expected text or jsonl"),
            ))
        }
    };
    let bytes = std::fs::read(path).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            StatusCode::NotFound
        } else {
            StatusCode::Unavailable
        };
        Status::new(
            code,
            format!("failed to open file '{}'", path.to_string_lossy()),
        )
    })?;
    iree_hal_replay::dump(&bytes, format, out)
}

/// Runs `iree-dump-replay` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    let flags: Flags = match iree_tooling::flags::parse_args(args) {
        Ok(flags) => flags,
        Err(code) => return code,
    };
    if flags.agents_md != "false" && flags.agents_md != "0" {
        print!("{AGENTS_MD}");
        return 0;
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = run(&flags, &mut out);
    if let Err(e) = out.flush() {
        eprintln!("iree-dump-replay: writing stdout: {e}");
        return 1;
    }
    match result {
        Ok(()) => 0,
        Err(status) => {
            eprintln!("{status}");
            1
        }
    }
}
