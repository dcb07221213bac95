//! `iree-run-replay`: re-issues the HAL calls of an `.ireereplay` capture
//! on the devices of `--device=`, in capture order, with upstream's flags,
//! messages and exit codes. No VM and no program are involved.

use std::ffi::OsString;

use clap::Parser;
use iree_base::Result;
use iree_hal_replay::Plan;
use iree_tooling::flags::{parse_args, ModuleFlags};
use iree_tooling::replay::{capture_path, create_devices, read_capture, ReplayFlags, AGENTS_MD};

/// Command-line flags, spelled as upstream spells them.
#[derive(Parser, Debug)]
#[command(
    name = "iree-run-replay",
    about = "Executes an IREE HAL replay file against one or more HAL devices.\n\nRebuilds the captured HAL objects on the --device= devices and issues the\ncaptured calls in file order, each queue operation completing before the\nnext record.\n\nUsage:\n  iree-run-replay [--device=URI]... [options] <capture.ireereplay>"
)]
struct Flags {
    #[command(flatten)]
    common: ModuleFlags,
    #[command(flatten)]
    replay: ReplayFlags,
}

fn run(flags: Flags) -> std::result::Result<(), u8> {
    let options = flags.common.into_run_options()?;
    let result: Result<()> = (|| {
        let path = capture_path(&flags.replay.files)?;
        let bytes = read_capture(path)?;
        let plan = Plan::new(&bytes)?;
        let devices = create_devices(&options)?;
        let profiling = options.profiling.begin(devices.first())?;
        let mut execute = flags.replay.execute_options()?;
        let result = plan.execute(&devices, &mut execute);
        let profiled = profiling.map(|p| p.finish()).transpose();
        result.and(profiled.map(|_| ()))
    })();
    result.map_err(|status| {
        eprintln!("{status}");
        1
    })
}

/// Runs `iree-run-replay` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    let flags: Flags = match parse_args(args) {
        Ok(flags) => flags,
        Err(code) => return code,
    };
    if flags.replay.wants_agents_md() {
        print!("{AGENTS_MD}");
        return 0;
    }
    match run(flags) {
        Ok(()) => 0,
        Err(code) => code,
    }
}
