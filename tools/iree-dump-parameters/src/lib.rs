//! `iree-dump-parameters`: prints the index of the parameter files given
//! with `--parameters=[scope=]file` (one table per scope, upstream's
//! layout) and extracts parameters with `--extract=[scope::]key=file.bin`.
//! Unlike upstream 3.13, extraction works in the default `file` mode too.

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;
use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_io_parameters::{scope_map_from_flags, EntryStorage, FileMode, ScopeMap};

/// Command-line flags, spelled as upstream spells them.
#[derive(Parser, Debug)]
#[command(
    name = "iree-dump-parameters",
    about = "Dumps information about parsed parameter files."
)]
struct Flags {
    /// A parameter file, `scope=path` or just `path`; repeatable.
    #[arg(long = "parameters")]
    parameters: Vec<std::ffi::OsString>,
    /// `file` (map) or `preload` (read whole files).
    #[arg(long = "parameter_mode", default_value = "file")]
    parameter_mode: String,
    /// Extracts a parameter to a file as `[scope::]key=file.bin`.
    #[arg(long = "extract")]
    extract: Vec<String>,
    /// Positional arguments are an error, as upstream reports.
    #[arg(hide = true)]
    positional: Vec<String>,
}

/// Writes one parameter's bytes to a file, announcing it as upstream does.
fn extract(scopes: &ScopeMap, flag: &str, out: &mut impl Write) -> Result<()> {
    let (identifier, path) = flag.split_once('=').unwrap_or((flag, ""));
    let (scope, key) = identifier.split_once("::").unwrap_or(("", identifier));
    let index = scopes
        .scopes()
        .iter()
        .find(|(s, _)| s == scope)
        .map(|(_, index)| index)
        .ok_or_else(|| {
            Status::new(
                StatusCode::NotFound,
                format!("no parameter found in index with key '{key}'"),
            )
        })?;
    let entry = index.lookup(key.as_bytes())?;
    let scope_prefix = if scope.is_empty() {
        String::new()
    } else {
        format!("{scope}::")
    };
    let _ = writeln!(
        out,
        "Extracting parameter `{scope_prefix}{key}` ({}b) to `{path}`...",
        entry.length
    );
    let EntryStorage::File { file, offset } = &entry.storage else {
        return Err(Status::new(
            StatusCode::FailedPrecondition,
            "cannot extract splat parameters (they have no stored bytes)",
        ));
    };
    let bytes = file.range(*offset, entry.length)?;
    std::fs::write(path, bytes).map_err(|e| {
        Status::new(
            StatusCode::PermissionDenied,
            format!("writing `{path}`: {e}"),
        )
    })
}

fn run(flags: &Flags, out: &mut impl Write) -> Result<()> {
    let mode = FileMode::parse(&flags.parameter_mode)?;
    let scopes = scope_map_from_flags(&flags.parameters, mode)?;
    let _ = write!(out, "{}", scopes.dump());
    for flag in &flags.extract {
        extract(&scopes, flag, out)
            .annotate_with(|| format!("extracting parameter with flag `{flag}`"))?;
    }
    Ok(())
}

/// Runs `iree-dump-parameters` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
/// Output goes to this process's stdout and stderr; a caller that keeps
/// running afterwards flushes stdout (as the process exit would).
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    // `--flagfile=` and quoted values, as every tool reads them.
    let flags: Flags = match iree_base::tool_setup::parse_flags(args) {
        Ok(flags) => flags,
        Err(code) => return code,
    };
    if !flags.positional.is_empty() {
        eprintln!("Error: no positional arguments expected.");
        eprintln!("Use one or more --parameters=file.ext flags to specify parameter files.");
        return 1;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = run(&flags, &mut out);
    let _ = out.flush();
    match result {
        Ok(()) => 0,
        Err(status) => {
            eprint!("{status}");
            1
        }
    }
}
