//! `iree-dump-module`: prints what is inside a `.vmfb` (upstream's tool and
//! output formats): `--output=metadata` (module metadata and size
//! breakdown), `--output=flatbuffer-binary` (the raw flatbuffer) and
//! `--output=flatbuffer-json` (flatcc's JSON, `--pretty` to indent),
//! `--output=disassembly` (the bytecode, `--function=` to pick one function
//! by name or ordinal, `--bytecode_offsets` to show offsets) and `all`
//! (metadata, then the disassembly).

mod json;
mod metadata;

use std::ffi::OsString;
use std::io::Write;

use clap::Parser;
use iree_base::{bail, Result, Status, StatusCode};
use iree_vm_bytecode::disasm;
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

/// Produces the requested output for the module file image `file` into
/// `out`; on failure `out` holds what upstream prints before failing.
fn dump(flags: &Flags, file: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let (layout, module) = verify_module_def(file)?;
    let disassembly = |out: &mut Vec<u8>| {
        let options = disasm::Options {
            function: flags.function.clone(),
            bytecode_offsets: flags.bytecode_offsets != "false" && flags.bytecode_offsets != "0",
        };
        let mut text = String::new();
        let result = disasm::disassemble(file, &options, &mut text);
        out.extend_from_slice(text.as_bytes());
        result
    };
    match flags.output.as_str() {
        "metadata" | "all" => {
            let mut text = String::new();
            metadata::write(&mut text, module, layout.flatbuffer.len())?;
            out.extend_from_slice(text.as_bytes());
            if flags.output == "all" {
                out.push(b'\n');
                disassembly(out)?;
            }
        }
        "disassembly" => disassembly(out)?,
        "flatbuffer-binary" => out.extend_from_slice(&file[layout.flatbuffer.clone()]),
        "flatbuffer-json" => {
            let mut text = String::new();
            json::write(
                &mut text,
                module,
                flags.pretty != "false" && flags.pretty != "0",
            )?;
            out.extend_from_slice(text.as_bytes());
        }
        other => bail!(
            InvalidArgument,
            "unrecognized --output= flag value '{other}'"
        ),
    }
    Ok(())
}

/// Runs the tool: the bytes for stdout, and the failure if any (stdout
/// keeps what was printed before it).
fn run(flags: &Flags) -> (Vec<u8>, Result<()>) {
    let Some(path) = &flags.module else {
        return (
            Vec::new(),
            Err(Status::new(
                StatusCode::InvalidArgument,
                "Syntax: iree-dump-module [--output=...] module.vmfb",
            )),
        );
    };
    let file = match std::fs::read(path) {
        Ok(file) => file,
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                StatusCode::NotFound
            } else {
                StatusCode::Unavailable
            };
            let status = Status::new(code, format!("failed to open file '{path}': {e}"));
            return (Vec::new(), Err(status));
        }
    };
    let mut out = Vec::new();
    let result = dump(flags, &file, &mut out);
    (out, result)
}

/// Runs `iree-dump-module` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
/// Output goes to this process's stdout and stderr; a caller that keeps
/// running afterwards flushes stdout (as the process exit would).
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    let flags: Flags = match iree_tooling::flags::parse_args(args) {
        Ok(flags) => flags,
        Err(code) => return code,
    };
    let (bytes, result) = run(&flags);
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
        eprintln!("iree-dump-module: writing stdout: {e}");
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
