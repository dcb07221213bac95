//! `iree-create-parameters`: writes an IREE parameter archive (`.irpa`)
//! from declarations on the command line, with upstream's flags:
//!
//! ```text
//! iree-create-parameters --data=w0=4xf32=1.5 --splat=b0=16xi8=7 \
//!     --data_file=emb=file.bin --external=big=weights.bin:4096:1048576 --output=out.irpa
//! ```
//!
//! `--data` entries are stored in the archive (zeros, or the pattern
//! repeated over the whole entry), `--splat` entries only declare a
//! pattern. `--data_file` (store a file's bytes) and `--external` (refer to
//! a range of another file) are ours.

use std::ffi::OsString;

use clap::Parser;
use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::{parse_element, parse_shape_and_element_type, ElementType};
use iree_io_parameters::{BuilderEntry, DataContents, IrpaBuilder};

/// Command-line flags, spelled as upstream spells them.
#[derive(Parser, Debug)]
#[command(
    name = "iree-create-parameters",
    about = "Creates IREE Parameter Archive (.irpa) files."
)]
struct Flags {
    /// A splat parameter, `name=shapextype=pattern`: no storage on disk.
    #[arg(long = "splat", allow_hyphen_values = true)]
    splat: Vec<String>,
    /// A data parameter, `name=shapextype[=pattern]`: stored zeroed or
    /// with the pattern repeated.
    #[arg(long = "data", allow_hyphen_values = true)]
    data: Vec<String>,
    /// A data parameter holding a file's bytes, `name=path`.
    #[arg(long = "data_file")]
    data_file: Vec<String>,
    /// An external parameter, `name=path:offset:length`.
    #[arg(long = "external")]
    external: Vec<String>,
    /// Storage data alignment relative to the header.
    #[arg(long = "alignment", default_value_t = 64)]
    alignment: u64,
    /// Silences the summary printed after writing.
    #[arg(long = "quiet", num_args = 0..=1, default_missing_value = "true")]
    quiet: Option<String>,
    /// Output .irpa file path.
    #[arg(long = "output", default_value = "")]
    output: String,
}

fn invalid(message: String) -> Status {
    Status::new(StatusCode::InvalidArgument, message)
}

/// Parses `name=shapextype[=pattern]` into (name, byte length, pattern).
fn parse_declaration(
    text: &str,
    pattern_required: bool,
) -> Result<(Vec<u8>, u64, Option<Vec<u8>>)> {
    let mut parts = text.splitn(3, '=');
    let name = parts.next().unwrap_or_default();
    let shape_type = parts.next().ok_or_else(|| {
        invalid(format!(
            "parameter declaration `{text}` must be `name=shapextype[=pattern]`"
        ))
    })?;
    let pattern_text = parts.next();
    let (shape, element_type) = parse_shape_and_element_type(shape_type)?;
    let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    let length = count
        .and_then(|c| element_type.packed_byte_count(c))
        .ok_or_else(|| invalid(format!("parameter `{name}` size overflows")))?;
    let pattern = match pattern_text {
        Some(p) => Some(element_pattern(p, element_type)?),
        None if pattern_required => {
            return Err(invalid(format!(
                "splat parameter `{name}` needs a pattern value"
            )))
        }
        None => None,
    };
    Ok((name.as_bytes().to_vec(), length as u64, pattern))
}

/// One element's bytes from text.
fn element_pattern(text: &str, element_type: ElementType) -> Result<Vec<u8>> {
    let size = element_type
        .packed_byte_count(1)
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            invalid(format!(
                "cannot make a pattern of element type {}",
                element_type.name()
            ))
        })?;
    let mut bytes = vec![0u8; size];
    parse_element(text, element_type, &mut bytes).map_err(|_| {
        invalid(format!(
            "pattern `{text}` is not a valid {} value",
            element_type.name()
        ))
    })?;
    Ok(bytes)
}

fn parse_u64(text: &str, what: &str) -> Result<u64> {
    text.parse()
        .map_err(|_| invalid(format!("{what} `{text}` is not a non-negative integer")))
}

fn build(flags: &Flags) -> Result<IrpaBuilder> {
    let mut builder = IrpaBuilder::new().with_alignment(flags.alignment)?;
    for text in &flags.splat {
        let (key, length, pattern) =
            parse_declaration(text, true).annotate_with(|| format!("--splat={text}"))?;
        builder.add(BuilderEntry::Splat {
            key,
            length,
            pattern: pattern.unwrap_or_default(),
        })?;
    }
    for text in &flags.data {
        let (key, length, pattern) =
            parse_declaration(text, false).annotate_with(|| format!("--data={text}"))?;
        let contents = pattern.map_or(DataContents::Zeros, DataContents::Pattern);
        builder.add(BuilderEntry::Data {
            key,
            length,
            contents,
        })?;
    }
    for text in &flags.data_file {
        let (name, path) = text
            .split_once('=')
            .ok_or_else(|| invalid(format!("--data_file={text} must be `name=path`")))?;
        let bytes = std::fs::read(path)
            .map_err(|e| Status::new(StatusCode::NotFound, format!("reading `{path}`: {e}")))?;
        builder.add(BuilderEntry::Data {
            key: name.as_bytes().to_vec(),
            length: bytes.len() as u64,
            contents: DataContents::Bytes(bytes),
        })?;
    }
    for text in &flags.external {
        let (name, rest) = text.split_once('=').ok_or_else(|| {
            invalid(format!(
                "--external={text} must be `name=path:offset:length`"
            ))
        })?;
        let mut fields = rest.rsplitn(3, ':');
        let (length, offset, path) = match (fields.next(), fields.next(), fields.next()) {
            (Some(l), Some(o), Some(p)) => (parse_u64(l, "length")?, parse_u64(o, "offset")?, p),
            _ => {
                return Err(invalid(format!(
                    "--external={text} must be `name=path:offset:length`"
                )))
            }
        };
        builder.add(BuilderEntry::External {
            key: name.as_bytes().to_vec(),
            path: path.as_bytes().to_vec(),
            offset,
            length,
        })?;
    }
    Ok(builder)
}

fn run(flags: &Flags) -> Result<String> {
    if flags.output.is_empty() {
        return Err(invalid(
            "an output path must be given with --output=".to_string(),
        ));
    }
    // The summary is read back from the written archive, as a check.
    Ok(build(flags)?.write_file_indexed(&flags.output)?.dump(""))
}

/// Runs `iree-create-parameters` with the command line `args` (the program name
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
            if !flags
                .quiet
                .as_deref()
                .is_some_and(|q| q != "false" && q != "0")
            {
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
