//! `iree-cpuinfo`: prints the CPU features IREE's runtime detects, one
//! `name 0|1` line each, as upstream's tool does.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

/// Command-line flags: none besides `--help` and `--flagfile`.
#[derive(Parser, Debug)]
#[command(
    name = "iree-cpuinfo",
    about = "Prints the CPU features the IREE runtime detects on this machine."
)]
struct Flags {}

fn main() -> ExitCode {
    iree_base::tool_setup::init();
    if let Err(code) = iree_tooling::flags::parse_args::<Flags>() {
        return ExitCode::from(code);
    }
    let report = iree_cpuinfo::format_report(&iree_cpuinfo::detect());
    let mut out = std::io::stdout().lock();
    match out.write_all(report.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iree-cpuinfo: writing stdout: {e}");
            ExitCode::FAILURE
        }
    }
}
