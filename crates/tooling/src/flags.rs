//! Flags shared by the tools that load modules onto devices
//! (`iree-run-module`, `iree-check-module`), spelled as upstream spells them
//! (`--flag=value`), and the information flags that print and exit
//! (`--list_drivers`, `--list_devices`, `--dump_devices`,
//! `--dump_task_topologies`).

use std::ffi::OsString;
use std::io::Write;

use crate::profiling::ProfilingOptions;
use crate::replay::ReplayCapture;
use crate::run::{driver_registry, GpuOptions, Recording, RunOptions, TaskTopologyOptions};

/// The module, device, parameter and driver flags of `iree-run-module`.
#[derive(clap::Args, Debug)]
pub struct ModuleFlags {
    /// Module to load; repeat in dependency order. `-` reads standard input;
    /// a shared library (`lib.so[@entry_point][?key=value&...]`) is a
    /// dynamic module.
    #[arg(long = "module")]
    pub module: Vec<OsString>,
    /// Device URI(s) (`local-sync`); used when a module imports `hal`.
    #[arg(long = "device")]
    pub device: Vec<String>,
    /// Accepted for compatibility; execution tracing prints nothing in release builds.
    #[arg(long = "trace_execution", num_args = 0..=1, default_missing_value = "true")]
    pub trace_execution: Option<String>,
    /// Prints the device allocator's memory statistics to stderr at exit.
    #[arg(long = "print_statistics", num_args = 0..=1, default_missing_value = "true")]
    pub print_statistics: Option<String>,
    /// Device profiling data families, comma-separated (upstream's:
    /// `queue-events`, `dispatch-events`, `host-execution`, …; also
    /// `queue`, `dispatch`); needs `--device_profiling_output`.
    #[arg(long = "device_profiling_mode", default_value = "")]
    pub device_profiling_mode: String,
    /// Where the device profile goes: upstream's raw profiling bundle
    /// (`.ireeprof`), or Chrome trace-event JSON for a `.json` path.
    #[arg(long = "device_profiling_output", default_value = "")]
    pub device_profiling_output: String,
    /// Writes every HAL call of the run to this `.ireereplay` file (see
    /// iree-run-replay, iree-dump-replay).
    #[arg(long = "device_replay_output", default_value = "")]
    pub device_replay_output: OsString,
    /// Files on disk read through the HAL while capturing: `reference`
    /// (path and identity), `capture-ranges` (the bytes read),
    /// `capture-all` (whole files) or `fail`.
    #[arg(long = "device_replay_file_policy", default_value = "reference")]
    pub device_replay_file_policy: String,
    /// How referenced files are checked at replay: `identity` (length,
    /// device, inode, mtime) or `digest` (contents).
    #[arg(long = "device_replay_file_validation", default_value = "identity")]
    pub device_replay_file_validation: String,
    /// Prints per-dispatch statistics (count, total, mean, min, max) to
    /// stderr after the run.
    #[arg(long = "print_device_statistics", num_args = 0..=1, default_missing_value = "true")]
    pub print_device_statistics: Option<String>,
    /// A parameter file to make available, `scope=path` or just `path`
    /// (the unscoped form); repeatable. Formats by extension: .irpa, .gguf,
    /// .safetensors.
    #[arg(long = "parameters")]
    pub parameters: Vec<OsString>,
    /// `file` (map parameter files and read them as used) or `preload`
    /// (read whole files at startup).
    #[arg(long = "parameter_mode", default_value = "file")]
    pub parameter_mode: String,
    /// cuda: run command buffers on CUDA streams (true) or as CUDA graphs.
    #[arg(long = "cuda_use_streams", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    pub cuda_use_streams: String,
    /// cuda: allocate queue allocations from stream-ordered memory pools.
    #[arg(long = "cuda_async_allocations", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    pub cuda_async_allocations: String,
    /// hip: run command buffers on HIP streams (true) or as HIP graphs.
    #[arg(long = "hip_use_streams", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    pub hip_use_streams: String,
    /// hip: allocate queue allocations from stream-ordered memory pools.
    #[arg(long = "hip_async_allocations", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    pub hip_async_allocations: String,
    /// Lists the HAL drivers compiled into the binary and exits.
    #[arg(long = "list_drivers")]
    pub list_drivers: bool,
    /// Dumps the task topologies the `--task_*` flags select on this
    /// machine and exits.
    #[arg(long = "dump_task_topologies")]
    pub dump_task_topologies: bool,
    /// Lists the devices of all drivers (or of one: `--list_devices=local-task`) and exits.
    #[arg(long = "list_devices", num_args = 0..=1, default_missing_value = "")]
    pub list_devices: Option<String>,
    /// Dumps details of the devices of all drivers (or of one) and exits.
    #[arg(long = "dump_devices", num_args = 0..=1, default_missing_value = "")]
    pub dump_devices: Option<String>,
    /// Flag file with one flag per line.
    #[arg(long = "flagfile")]
    pub flagfile: Option<String>,
    /// local-task: the topology mode (`physical_cores`).
    #[arg(long = "task_topology_mode", default_value = "physical_cores")]
    pub task_topology_mode: String,
    /// local-task: the number of workers (0: decided by the mode).
    #[arg(long = "task_topology_group_count", default_value_t = 0)]
    pub task_topology_group_count: usize,
    /// local-task: logical CPU ids to pin one worker each to (`0,1,2`).
    #[arg(long = "task_topology_cpu_ids")]
    pub task_topology_cpu_ids: Vec<String>,
    /// local-task: the most workers the mode may pick.
    #[arg(long = "task_topology_max_group_count", default_value_t = 64)]
    pub task_topology_max_group_count: usize,
    /// local-task: minimum worker stack size in bytes.
    #[arg(long = "task_worker_stack_size", default_value_t = 131072)]
    pub task_worker_stack_size: usize,
    /// local-task: per-worker workgroup local memory limit (0: none).
    #[arg(long = "task_worker_local_memory", default_value_t = 0)]
    pub task_worker_local_memory: usize,
    /// Accepted for compatibility: workers never spin.
    #[arg(long = "task_worker_spin_us", default_value_t = 0)]
    pub task_worker_spin_us: u64,
    /// local-task: `current`, `numa`, `all` or NUMA node ids; checked, and
    /// the device has one executor whatever it names.
    #[arg(long = "task_topology_nodes", default_value = "current")]
    pub task_topology_nodes: String,
    /// local-task: `any`, `low`/`efficiency`, `high`/`performance`;
    /// checked, and every core qualifies.
    #[arg(long = "task_topology_performance_level", default_value = "any")]
    pub task_topology_performance_level: String,
    /// local-task: `compact` or `scatter`; checked, and workers are not
    /// placed by cache domain.
    #[arg(long = "task_topology_distribution", default_value = "scatter")]
    pub task_topology_distribution: String,
    /// Accepted for compatibility.
    #[arg(long = "task_topology_favor", default_value = "")]
    pub task_topology_favor: String,
    /// Accepted for compatibility: failures are reported, never aborted on.
    #[arg(long = "task_abort_on_failure", num_args = 0..=1, default_missing_value = "true")]
    pub task_abort_on_failure: Option<String>,
}

impl ModuleFlags {
    /// Runs the information flags, if one is given (printing to stdout, or
    /// the error to stderr), and returns the exit code; otherwise returns
    /// [`RunOptions`] with the module, device, parameter and driver fields
    /// set from the flags. A bad `--task_topology_cpu_ids` fails only a
    /// local-task device (as upstream).
    pub fn into_run_options(self) -> std::result::Result<RunOptions, u8> {
        if self.list_drivers {
            print!("{}", list_drivers());
            return Err(0);
        }
        if let Some(driver) = &self.list_devices {
            return Err(match list_devices(driver) {
                Ok(text) => {
                    print!("{text}");
                    0
                }
                Err(status) => {
                    eprintln!("{status}");
                    1
                }
            });
        }
        if let Some(driver) = &self.dump_devices {
            let mut stdout = std::io::stdout().lock();
            return Err(match dump_devices(driver, &mut stdout) {
                Ok(()) => 0,
                Err(status) => {
                    let _ = stdout.flush();
                    eprintln!("{status}");
                    1
                }
            });
        }
        let mut cpu_ids = Vec::new();
        let mut cpu_ids_error = None;
        for text in &self.task_topology_cpu_ids {
            match parse_cpu_ids(text) {
                Ok(ids) => cpu_ids.push(ids),
                Err(status) => {
                    cpu_ids_error.get_or_insert_with(|| status.message().to_string());
                }
            }
        }
        let task_topology = TaskTopologyOptions {
            mode: self.task_topology_mode,
            group_count: self.task_topology_group_count,
            cpu_ids,
            cpu_ids_error,
            max_group_count: self.task_topology_max_group_count,
            worker_stack_size: self.task_worker_stack_size,
            worker_local_memory: self.task_worker_local_memory,
            nodes: self.task_topology_nodes,
            performance_level: self.task_topology_performance_level,
            distribution: self.task_topology_distribution,
        };
        if self.dump_task_topologies {
            return Err(match task_topology.dump_topologies() {
                Ok(text) => {
                    print!("{text}");
                    0
                }
                Err(status) => {
                    eprintln!("{status}");
                    1
                }
            });
        }
        let profiling = match ProfilingOptions::from_flags(
            &self.device_profiling_mode,
            &self.device_profiling_output,
            self.print_device_statistics
                .as_deref()
                .is_some_and(|v| v != "false" && v != "0"),
        ) {
            Ok(profiling) => profiling,
            Err(status) => {
                eprintln!("{status}");
                return Err(1);
            }
        };
        let replay = match ReplayCapture::from_flags(
            &self.device_replay_output,
            &self.device_replay_file_policy,
            &self.device_replay_file_validation,
        ) {
            Ok(replay) => replay,
            Err(status) => {
                eprintln!("{status}");
                return Err(1);
            }
        };
        Ok(RunOptions {
            profiling,
            replay,
            task_topology,
            cuda: gpu_options(&self.cuda_use_streams, &self.cuda_async_allocations),
            hip: gpu_options(&self.hip_use_streams, &self.hip_async_allocations),
            parameters: self.parameters,
            parameter_mode: self.parameter_mode,
            modules: self.module,
            devices: self.device,
            print_statistics: self
                .print_statistics
                .as_deref()
                .is_some_and(|v| v != "false" && v != "0"),
            ..RunOptions::default()
        })
    }
}

/// Parses a command line (`args`, the program name first, as
/// `std::env::args_os()` gives it) into `F` after expanding `--flagfile=`,
/// unquoting values and taking out upstream's flags this runtime accepts
/// without a field ([`crate::compat_flags`]). `--help` prints and gives exit
/// code 0; a bad flag, or an argument that is not UTF-8, prints one line
/// (clap's first, ending in a newline) and gives 1, as upstream's flag
/// parser does. Positional arguments of a tool that takes none are ignored,
/// as upstream ignores them.
pub fn parse_args<F: clap::Parser>(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> std::result::Result<F, u8> {
    let args = match iree_base::flagfile::expand_args(args).and_then(|args| {
        check_non_utf8_flags(&args).map_err(|status| status.to_string())?;
        crate::compat_flags::strip_compat_flags(F::command().get_name(), args)
            .map_err(|status| status.to_string())
    }) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{message}");
            return Err(1);
        }
    };
    // As upstream's parser: only `--` starts a flag, so `-h` and other
    // words that are not flags' values are positional arguments, which the
    // tools ignore. Only `--help` prints the help, in upstream's layout.
    let args = drop_single_dash_words(args);
    // As upstream's parser, a lone `--` (or `--=value`) is a flag with an
    // empty name, not the end of the flags.
    if args
        .iter()
        .skip(1)
        .any(|a| a == "--" || iree_base::os_args::starts_with(a, "--="))
    {
        eprintln!(
            "{}",
            iree_base::Status::new(
                iree_base::StatusCode::InvalidArgument,
                "flag '' not recognized"
            )
        );
        return Err(1);
    }
    if args.iter().skip(1).any(|a| a == "--help") {
        print!("{}", crate::help::upstream_layout_help(&F::command()));
        return Err(0);
    }
    let mut command = F::command().disable_help_flag(true).arg(
        clap::Arg::new("help")
            .long("help")
            .action(clap::ArgAction::Help)
            .help("Prints the flags and exits"),
    );
    if command.get_positionals().next().is_none() {
        command = command.arg(
            clap::Arg::new("ignored positional arguments")
                .num_args(0..)
                .action(clap::ArgAction::Append)
                .hide(true),
        );
    }
    command
        .try_get_matches_from(args)
        .and_then(|mut matches| F::from_arg_matches_mut(&mut matches))
        .map_err(|e| {
            if e.use_stderr() {
                // One line, as for any other bad input: clap's first line names
                // the problem; its usage and tips follow with `--help`.
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or("error: invalid arguments");
                eprintln!("{first} (see --help)");
                1
            } else {
                let _ = e.print();
                0
            }
        })
}

/// `args` without the single-dash words (`-h`, `-v`) that do not follow a
/// `--flag` given without `=` (whose value they may be, `--input -1`).
fn drop_single_dash_words(args: Vec<OsString>) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::with_capacity(args.len());
    for arg in args {
        let single_dash_word = arg.to_str().is_some_and(|arg| {
            arg.len() > 1
                && arg.starts_with('-')
                && !arg.starts_with("--")
                && arg[1..].starts_with(|c: char| c.is_ascii_alphabetic())
        });
        let after_bare_flag = out.last().is_some_and(|prev| {
            iree_base::os_args::starts_with(prev, "--")
                && iree_base::os_args::split_once(prev, b'=').is_none()
        });
        if single_dash_word && !after_bare_flag && !out.is_empty() {
            continue;
        }
        out.push(arg);
    }
    out
}

/// The flags whose values are paths, or may hold one (`--input=@x.npy`),
/// and so may hold bytes that are not UTF-8.
const PATH_FLAGS: &[&str] = &[
    "module",
    "parameters",
    "input",
    "output",
    "expected_output",
    "device_profiling_output",
    "device_replay_output",
];

/// Every argument that is not UTF-8 must be the value of a flag of
/// [`PATH_FLAGS`] (`--module=caf\xe9.vmfb`); anything else is an
/// INVALID_ARGUMENT naming the flag.
fn check_non_utf8_flags(args: &[OsString]) -> iree_base::Result<()> {
    for (index, arg) in args.iter().enumerate().skip(1) {
        if arg.to_str().is_some() {
            continue;
        }
        // A value given as the next word (`--module x`) belongs to that flag.
        let (name, value) = match iree_base::os_args::strip_prefix(arg, "--") {
            Some(body) => match iree_base::os_args::split_once(body, b'=') {
                Some((name, value)) => (name.to_string_lossy().into_owned(), value),
                None => (body.to_string_lossy().into_owned(), arg.as_os_str()),
            },
            None => {
                let previous = args[index - 1].to_str().and_then(|p| p.strip_prefix("--"));
                match previous.filter(|p| !p.contains('=')) {
                    Some(name) => (name.to_string(), arg.as_os_str()),
                    // A positional word: ignored, as every positional is.
                    None => continue,
                }
            }
        };
        if !PATH_FLAGS.contains(&name.as_str()) {
            iree_base::os_args::to_text(value, &format!("--{name}"))?;
        }
    }
    Ok(())
}

/// Parses one `--task_topology_cpu_ids` value (`0,1,2`).
fn parse_cpu_ids(text: &str) -> iree_base::Result<Vec<usize>> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|id| {
            id.trim().parse::<usize>().map_err(|_| {
                iree_base::Status::new(
                    iree_base::StatusCode::InvalidArgument,
                    format!("'{id}' not a valid CPU ID"),
                )
            })
        })
        .collect()
}

/// `GpuOptions` from a `--*_use_streams` and a `--*_async_allocations` flag.
fn gpu_options(use_streams: &str, async_allocations: &str) -> GpuOptions {
    let on = |v: &str| v != "false" && v != "0";
    GpuOptions {
        recording: if on(use_streams) {
            Recording::Stream
        } else {
            Recording::Graph
        },
        async_allocations: on(async_allocations),
    }
}

/// `--list_drivers` output, in upstream's layout.
pub fn list_drivers() -> String {
    let rule = format!("# {}\n", "=".repeat(76));
    let mut text = format!(
        "{rule}# Available HAL drivers\n{rule}# Use --list_devices={{driver name}} to enumerate available devices.\n\n"
    );
    for driver in driver_registry().drivers() {
        text.push_str(&format!(
            "{:>16}: {}\n",
            driver.name(),
            driver.description()
        ));
    }
    text
}

/// `--list_devices[=driver]` output: one `driver://path` line per device.
pub fn list_devices(only: &str) -> iree_base::Result<String> {
    let registry = driver_registry();
    let drivers = if only.is_empty() {
        registry.drivers().to_vec()
    } else {
        vec![registry.find(only).cloned().ok_or_else(|| {
            iree_base::Status::new(
                iree_base::StatusCode::NotFound,
                format!("no driver '{only}' registered"),
            )
        })?]
    };
    let mut text = String::new();
    for driver in drivers {
        // Listing every driver skips those that cannot enumerate (a GPU
        // driver without its library), as upstream does; naming one
        // reports its error.
        let devices = match driver.devices() {
            Ok(devices) => devices,
            Err(_) if only.is_empty() => continue,
            Err(status) => return Err(status),
        };
        for device in devices {
            text.push_str(&format!("{}://{}\n", driver.name(), device.path));
        }
    }
    Ok(text)
}

/// `--dump_devices[=driver]` output: per driver a header, then a block per
/// device with the `--device=` URI that selects it.
pub fn dump_devices(only: &str, out: &mut impl Write) -> iree_base::Result<()> {
    let io = |e: std::io::Error| {
        iree_base::Status::new(iree_base::StatusCode::Unavailable, format!("writing: {e}"))
    };
    let registry = driver_registry();
    let header = |name: &str| {
        let rule = format!("# {}\n", "=".repeat(76));
        format!("{rule}# Enumerated devices for driver '{name}'\n{rule}\n")
    };
    let device_rule = format!("# ==={}===\n", "-".repeat(70));
    let dump_one = |driver: &std::sync::Arc<dyn iree_hal::Driver>, out: &mut dyn Write| {
        let mut text = header(driver.name());
        // Dumping every driver shows an unavailable one with no devices.
        let devices = match driver.devices() {
            Ok(devices) => devices,
            Err(_) if only.is_empty() => Vec::new(),
            Err(status) => {
                out.write_all(text.as_bytes()).map_err(io)?;
                return Err(status);
            }
        };
        for device in devices {
            text.push_str(&format!(
                "{device_rule}# --device={}://{}\n#   {}\n{device_rule}",
                driver.name(),
                device.path,
                device.name
            ));
        }
        out.write_all(text.as_bytes()).map_err(io)
    };
    if only.is_empty() {
        for driver in registry.drivers() {
            dump_one(driver, out)?;
            out.write_all(b"\n").map_err(io)?;
        }
        return Ok(());
    }
    match registry.find(only) {
        Some(driver) => dump_one(driver, out),
        None => {
            out.write_all(header(only).as_bytes()).map_err(io)?;
            Err(iree_base::Status::new(
                iree_base::StatusCode::NotFound,
                format!("no driver '{only}' registered"),
            ))
        }
    }
}

/// Replaces `--flagfile=PATH` arguments with the flags listed in the file
/// (one per line; blank lines and `#` comments skipped).
pub use iree_base::flagfile::expand_flagfiles;
