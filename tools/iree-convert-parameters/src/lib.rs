//! `iree-convert-parameters`: converts parameter files (`.irpa`, `.gguf`,
//! `.safetensors`) into one `.irpa` archive, with upstream's flags:
//!
//! ```text
//! iree-convert-parameters --parameters=a.gguf --parameters=b.safetensors \
//!     --exclude=unneeded --rename=old=new --splat=some=f32=4.2 --output=ab.irpa
//! ```
//!
//! Every scope's entries go into the archive in order. `--exclude` drops an
//! entry (by its original key), `--rename=old=new` renames it, `--splat`
//! (matched against the new name) turns it into a splat of zeros or of a
//! typed value (`name=i8=123`, `name=f32=4.5`, `name=x32=CAFEF00D`), and
//! `--strip` turns every other entry into zeros. Data is streamed from the
//! mapped source files, not read into memory first.

use std::ffi::OsString;
use std::sync::Arc;

use clap::Parser;
use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{parse_element, ElementType};
use iree_io_parameters::{
    scope_map_from_flags, BuilderEntry, DataContents, EntryStorage, FileMode, IrpaBuilder,
};

/// Command-line flags, spelled as upstream spells them.
#[derive(Parser, Debug)]
#[command(
    name = "iree-convert-parameters",
    about = "Converts supported parameter file formats into IREE Parameter Archives (.irpa) files."
)]
struct Flags {
    /// An input file, `scope=path` or just `path`; repeatable.
    #[arg(long = "parameters")]
    parameters: Vec<std::ffi::OsString>,
    /// `file` (map) or `preload` (read whole files).
    #[arg(long = "parameter_mode", default_value = "file")]
    parameter_mode: String,
    /// Excludes a named parameter from the resulting file.
    #[arg(long = "exclude")]
    exclude: Vec<String>,
    /// Renames a parameter, `--rename=old=new`.
    #[arg(long = "rename")]
    rename: Vec<String>,
    /// Strips all parameters by replacing them with zeros.
    #[arg(long = "strip", num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    strip: String,
    /// Turns a parameter into a splat of 0 (`name`) or of a typed value
    /// (`name=f32=4.5`).
    #[arg(long = "splat", allow_hyphen_values = true)]
    splat: Vec<String>,
    /// Silences the summary printed after writing.
    #[arg(long = "quiet", num_args = 0..=1, default_missing_value = "true", default_value = "false")]
    quiet: String,
    /// Output .irpa file path.
    #[arg(long = "output", default_value = "")]
    output: String,
}

fn on(value: &str) -> bool {
    value != "false" && value != "0"
}

fn invalid(message: String) -> Status {
    Status::new(StatusCode::InvalidArgument, message)
}

/// The splat pattern of a `--splat` value after the name: empty for one
/// zero byte, or `type=value`.
fn splat_pattern(text: &str) -> Result<Vec<u8>> {
    if text.is_empty() {
        return Ok(vec![0]);
    }
    let (type_text, value) = text.split_once('=').unwrap_or((text, ""));
    let element_type = ElementType::parse(type_text)?;
    let size = element_type
        .packed_byte_count(1)
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            invalid(format!(
                "element type {type_text} cannot be a splat pattern"
            ))
        })?;
    if size > 16 {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!("element type size for {type_text} out of range of splat patterns"),
        ));
    }
    let mut pattern = vec![0u8; size];
    parse_element(value, element_type, &mut pattern)
        .map_err(|_| invalid(format!("`{value}` is not a valid {type_text} value")))?;
    Ok(pattern)
}

/// A splat entry of `length` bytes, checking the pattern divides it.
fn splat(key: Vec<u8>, length: u64, pattern: Vec<u8>) -> Result<BuilderEntry> {
    if !length.is_multiple_of(pattern.len() as u64) {
        return Err(invalid(format!(
            "parameter `{}` of {length} bytes is not a whole number of {}-byte splat patterns",
            String::from_utf8_lossy(&key),
            pattern.len()
        )));
    }
    Ok(BuilderEntry::Splat {
        key,
        length,
        pattern,
    })
}

fn convert(flags: &Flags) -> Result<IrpaBuilder> {
    let mode = FileMode::parse(&flags.parameter_mode)?;
    let scopes = scope_map_from_flags(&flags.parameters, mode)?;
    let renames: Vec<(&str, &str)> = flags
        .rename
        .iter()
        .map(|r| r.split_once('=').unwrap_or((r.as_str(), "")))
        .collect();
    let mut builder = IrpaBuilder::new();
    for (_, index) in scopes.scopes() {
        for entry in index.entries() {
            let key = entry.key_str();
            if flags.exclude.iter().any(|e| *e == key) {
                continue;
            }
            let name = renames
                .iter()
                .find(|(old, _)| *old == key)
                .map_or(key.as_ref(), |(_, new)| new)
                .to_string();
            let splatted = flags.splat.iter().find_map(|s| {
                let (target, value) = s.split_once('=').unwrap_or((s.as_str(), ""));
                (target == name).then_some(value)
            });
            let converted = if let Some(value) = splatted {
                splat(
                    name.clone().into_bytes(),
                    entry.length,
                    splat_pattern(value)?,
                )?
            } else if on(&flags.strip) {
                splat(name.clone().into_bytes(), entry.length, vec![0])?
            } else {
                match &entry.storage {
                    EntryStorage::Splat {
                        pattern,
                        pattern_length,
                    } => splat(
                        name.clone().into_bytes(),
                        entry.length,
                        pattern[..usize::from(*pattern_length)].to_vec(),
                    )?,
                    EntryStorage::File { file, offset } => BuilderEntry::Data {
                        key: name.clone().into_bytes(),
                        length: entry.length,
                        contents: DataContents::FileRange(Arc::clone(file), *offset),
                    },
                }
            };
            builder
                .add(converted)
                .annotate_with(|| format!("converting parameter `{name}`"))?;
        }
    }
    Ok(builder)
}

fn run(flags: &Flags) -> Result<String> {
    if flags.output.is_empty() {
        return Err(invalid(
            "an output path must be given with --output=".to_string(),
        ));
    }
    Ok(convert(flags)?.write_file_indexed(&flags.output)?.dump(""))
}

/// Runs `iree-convert-parameters` with the command line `args` (the program name
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
    match run(&flags) {
        Ok(summary) => {
            if !on(&flags.quiet) {
                print!("{summary}");
            }
            0
        }
        Err(status) => {
            eprint!("{status}");
            1
        }
    }
}
