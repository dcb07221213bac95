//! `iree-dump-module`: prints what is inside a `.vmfb` (upstream's tool and
//! output formats): `--output=metadata` (module metadata and size
//! breakdown), `--output=flatbuffer-binary` (the raw flatbuffer) and
//! `--output=flatbuffer-json` (flatcc's JSON, `--pretty` to indent).
//! `--output=disassembly` (and the disassembly half of `all`) is not
//! implemented yet and is reported as UNIMPLEMENTED.

mod json;
mod metadata;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use iree_base::{bail, Result, Status, StatusCode};
use iree_vm_bytecode::format::verify_module_def;

/// Command-line flags, spelled as upstream spells them.
#[derive(Parser, Debug)]
#[command(
    name = "iree-dump-module",
    about = "Dumps IREE VM module details to stdout.\n$ iree-dump-module [--output=...] module.vmfb"
)]
struct Flags {
    /// `all`, `metadata`, `disassembly`, `flatbuffer-binary` or
    /// `flatbuffer-json`.
    #[arg(long = "output", default_value = "all")]
    output: String,
    /// Enable indentation when outputting flatbuffer JSON.
    #[arg(long = "pretty", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    pretty: String,
    /// Filter disassembly to one function, by name or internal ordinal.
    #[arg(long = "function", default_value = "")]
    function: String,
    /// Include bytecode offsets in disassembly output.
    #[arg(long = "bytecode_offsets", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value = "false")]
    bytecode_offsets: String,
    /// The module file.
    module: Option<String>,
}

/// Produces the requested output for the module file image `file`.
fn dump(flags: &Flags, file: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let (layout, module) = verify_module_def(file)?;
    match flags.output.as_str() {
        "metadata" => {
            let mut text = String::new();
            metadata::write(&mut text, module, layout.flatbuffer.len())?;
            out.extend_from_slice(text.as_bytes());
        }
        "flatbuffer-binary" => out.extend_from_slice(&file[layout.flatbuffer.clone()]),
        "flatbuffer-json" => {
            let mut text = String::new();
            json::write(&mut text, module, flags.pretty != "false" && flags.pretty != "0")?;
            out.extend_from_slice(text.as_bytes());
        }
        "all" | "disassembly" => bail!(
            Unimplemented,
            "--output={} is not implemented yet (metadata, flatbuffer-binary and flatbuffer-json are)",
            flags.output
        ),
        other => bail!(
            InvalidArgument,
            "unrecognized --output= flag value '{other}'"
        ),
    }
    Ok(())
}

fn run(flags: &Flags) -> Result<Vec<u8>> {
    let Some(path) = &flags.module else {
        bail!(
            InvalidArgument,
            "Syntax: iree-dump-module [--output=...] module.vmfb"
        );
    };
    let file = std::fs::read(path).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            StatusCode::NotFound
        } else {
            StatusCode::Unavailable
        };
        Status::new(code, format!("failed to open file '{path}': {e}"))
    })?;
    let mut out = Vec::new();
    dump(flags, &file, &mut out)?;
    Ok(out)
}

fn main() -> ExitCode {
    iree_base::tool_setup::init();
    let flags: Flags = match iree_tooling::flags::parse_args() {
        Ok(flags) => flags,
        Err(code) => return ExitCode::from(code),
    };
    match run(&flags) {
        Ok(bytes) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
                eprintln!("iree-dump-module: writing stdout: {e}");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(status) => {
            eprintln!("{status}");
            ExitCode::FAILURE
        }
    }
}
