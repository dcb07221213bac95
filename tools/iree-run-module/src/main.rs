//! `iree-run-module`: runs one exported function of an IREE module and prints
//! its results, accepting upstream's flags and printing upstream's output.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use iree_tooling::compare::Equality;
use iree_tooling::run::{
    driver_registry, run, GpuOptions, Recording, RunOptions, TaskTopologyOptions,
};

/// Command-line flags, spelled as upstream spells them (`--flag=value`).
#[derive(Parser, Debug)]
#[command(
    name = "iree-run-module",
    about = "Runs a function within a compiled IREE module and handles I/O parsing and processing."
)]
struct Flags {
    /// Module to load; repeat in dependency order. `-` reads standard input;
    /// a shared library (`lib.so[@entry_point][?key=value&...]`) is a
    /// dynamic module.
    #[arg(long = "module")]
    module: Vec<String>,
    /// Name of the function to run; empty picks the single export.
    #[arg(long = "function", default_value = "")]
    function: String,
    /// An input value or buffer, once per argument in order.
    #[arg(long = "input", allow_hyphen_values = true)]
    input: Vec<String>,
    /// Device URI(s) (`local-sync`); used when a module imports `hal`.
    #[arg(long = "device")]
    device: Vec<String>,
    /// Where each result goes: empty skips it, `-` prints it bare.
    #[arg(long = "output", allow_hyphen_values = true)]
    output: Vec<String>,
    /// Elide printed tensors after this many elements in total.
    #[arg(long = "output_max_element_count", default_value_t = 1024)]
    output_max_element_count: usize,
    /// An expected result, in `--input=` form; `(ignored)` skips one. When
    /// given, results are compared instead of printed.
    #[arg(long = "expected_output", allow_hyphen_values = true)]
    expected_output: Vec<String>,
    /// `approximate` (default) or `exact` (byte equality) comparison.
    #[arg(long = "equality_mode", default_value = "approximate")]
    equality_mode: String,
    /// Absolute tolerance for f16 in approximate mode.
    #[arg(
        long = "expected_f16_threshold",
        default_value_t = 0.001,
        allow_hyphen_values = true
    )]
    expected_f16_threshold: f32,
    /// Absolute tolerance for f32 in approximate mode.
    #[arg(
        long = "expected_f32_threshold",
        default_value_t = 0.0001,
        allow_hyphen_values = true
    )]
    expected_f32_threshold: f32,
    /// Absolute tolerance for f64 in approximate mode.
    #[arg(
        long = "expected_f64_threshold",
        default_value_t = 0.0001,
        allow_hyphen_values = true
    )]
    expected_f64_threshold: f64,
    /// Absolute tolerance for bf16 in approximate mode.
    #[arg(
        long = "expected_bf16_threshold",
        default_value_t = 0.01,
        allow_hyphen_values = true
    )]
    expected_bf16_threshold: f32,
    /// Relative tolerance shared across float types in approximate mode.
    #[arg(
        long = "expected_rtol",
        default_value_t = 1e-5,
        allow_hyphen_values = true
    )]
    expected_rtol: f64,
    /// Accepted for compatibility; execution tracing prints nothing in release builds.
    #[arg(long = "trace_execution", num_args = 0..=1, default_missing_value = "true")]
    trace_execution: Option<String>,
    /// Prints the device allocator's memory statistics to stderr at exit.
    #[arg(long = "print_statistics", num_args = 0..=1, default_missing_value = "true")]
    print_statistics: Option<String>,
    /// A parameter file to make available, `scope=path` or just `path`
    /// (the unscoped form); repeatable. Formats by extension: .irpa, .gguf,
    /// .safetensors.
    #[arg(long = "parameters")]
    parameters: Vec<String>,
    /// `file` (map parameter files and read them as used) or `preload`
    /// (read whole files at startup).
    #[arg(long = "parameter_mode", default_value = "file")]
    parameter_mode: String,
    /// cuda: run command buffers on CUDA streams (true) or as CUDA graphs.
    #[arg(long = "cuda_use_streams", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    cuda_use_streams: String,
    /// cuda: allocate queue allocations from stream-ordered memory pools.
    #[arg(long = "cuda_async_allocations", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    cuda_async_allocations: String,
    /// hip: run command buffers on HIP streams (true) or as HIP graphs.
    #[arg(long = "hip_use_streams", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    hip_use_streams: String,
    /// hip: allocate queue allocations from stream-ordered memory pools.
    #[arg(long = "hip_async_allocations", num_args = 0..=1, default_missing_value = "true", default_value = "true")]
    hip_async_allocations: String,
    /// Lists the HAL drivers compiled into the binary and exits.
    #[arg(long = "list_drivers")]
    list_drivers: bool,
    /// Dumps the task topologies the `--task_*` flags select on this
    /// machine and exits.
    #[arg(long = "dump_task_topologies")]
    dump_task_topologies: bool,
    /// Lists the devices of all drivers (or of one: `--list_devices=local-task`) and exits.
    #[arg(long = "list_devices", num_args = 0..=1, default_missing_value = "")]
    list_devices: Option<String>,
    /// Dumps details of the devices of all drivers (or of one) and exits.
    #[arg(long = "dump_devices", num_args = 0..=1, default_missing_value = "")]
    dump_devices: Option<String>,
    /// Flag file with one flag per line.
    #[arg(long = "flagfile")]
    flagfile: Option<String>,
    /// local-task: the topology mode (`physical_cores`).
    #[arg(long = "task_topology_mode", default_value = "physical_cores")]
    task_topology_mode: String,
    /// local-task: the number of workers (0: decided by the mode).
    #[arg(long = "task_topology_group_count", default_value_t = 0)]
    task_topology_group_count: usize,
    /// local-task: logical CPU ids to pin one worker each to (`0,1,2`).
    #[arg(long = "task_topology_cpu_ids")]
    task_topology_cpu_ids: Vec<String>,
    /// local-task: the most workers the mode may pick.
    #[arg(long = "task_topology_max_group_count", default_value_t = 64)]
    task_topology_max_group_count: usize,
    /// local-task: minimum worker stack size in bytes.
    #[arg(long = "task_worker_stack_size", default_value_t = 131072)]
    task_worker_stack_size: usize,
    /// local-task: per-worker workgroup local memory limit (0: none).
    #[arg(long = "task_worker_local_memory", default_value_t = 0)]
    task_worker_local_memory: usize,
    /// Accepted for compatibility: workers never spin.
    #[arg(long = "task_worker_spin_us", default_value_t = 0)]
    task_worker_spin_us: u64,
    /// Accepted for compatibility: one executor on the current node.
    #[arg(long = "task_topology_nodes", default_value = "current")]
    task_topology_nodes: String,
    /// Accepted for compatibility: every core qualifies.
    #[arg(long = "task_topology_performance_level", default_value = "any")]
    task_topology_performance_level: String,
    /// Accepted for compatibility.
    #[arg(long = "task_topology_distribution", default_value = "scatter")]
    task_topology_distribution: String,
    /// Accepted for compatibility.
    #[arg(long = "task_topology_favor", default_value = "")]
    task_topology_favor: String,
    /// Accepted for compatibility: failures are reported, never aborted on.
    #[arg(long = "task_abort_on_failure", num_args = 0..=1, default_missing_value = "true")]
    task_abort_on_failure: Option<String>,
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

fn main() -> ExitCode {
    let flags = match Flags::try_parse_from(expand_flagfiles(std::env::args().collect())) {
        Ok(flags) => flags,
        Err(e) => {
            // `--help` prints and succeeds; a bad flag fails with exit code 1
            // as upstream's flag parser does.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if flags.list_drivers {
        print!("{}", list_drivers());
        return ExitCode::SUCCESS;
    }
    if let Some(driver) = &flags.list_devices {
        return match list_devices(driver) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(status) => {
                eprint!("{status}");
                ExitCode::from(1)
            }
        };
    }
    if let Some(driver) = &flags.dump_devices {
        let mut stdout = std::io::stdout().lock();
        return match dump_devices(driver, &mut stdout) {
            Ok(()) => ExitCode::SUCCESS,
            Err(status) => {
                let _ = stdout.flush();
                eprint!("{status}");
                ExitCode::from(1)
            }
        };
    }
    let mut cpu_ids = Vec::new();
    for text in &flags.task_topology_cpu_ids {
        match parse_cpu_ids(text) {
            Ok(ids) => cpu_ids.push(ids),
            Err(status) => {
                eprint!("{status}");
                return ExitCode::from(1);
            }
        }
    }
    let task_topology = TaskTopologyOptions {
        mode: flags.task_topology_mode,
        group_count: flags.task_topology_group_count,
        cpu_ids,
        max_group_count: flags.task_topology_max_group_count,
        worker_stack_size: flags.task_worker_stack_size,
        worker_local_memory: flags.task_worker_local_memory,
    };
    if flags.dump_task_topologies {
        return match task_topology.dump_topologies() {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(status) => {
                eprint!("{status}");
                ExitCode::from(1)
            }
        };
    }
    let options = RunOptions {
        task_topology,
        cuda: gpu_options(&flags.cuda_use_streams, &flags.cuda_async_allocations),
        hip: gpu_options(&flags.hip_use_streams, &flags.hip_async_allocations),
        parameters: flags.parameters,
        parameter_mode: flags.parameter_mode,
        modules: flags.module,
        function: flags.function,
        inputs: flags.input,
        devices: flags.device,
        output_max_element_count: flags.output_max_element_count,
        outputs: flags.output,
        expected_outputs: flags.expected_output,
        print_statistics: flags
            .print_statistics
            .as_deref()
            .is_some_and(|v| v != "false" && v != "0"),
        equality: Equality {
            exact: flags.equality_mode == "exact",
            f16_atol: flags.expected_f16_threshold,
            bf16_atol: flags.expected_bf16_threshold,
            f32_atol: flags.expected_f32_threshold,
            f64_atol: flags.expected_f64_threshold,
            rtol: flags.expected_rtol,
        },
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run(&options, &mut out) {
        Ok(code) => {
            let _ = out.flush();
            ExitCode::from(code as u8)
        }
        Err(status) => {
            let _ = out.flush();
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{status}");
            let _ = err.flush();
            ExitCode::from(1)
        }
    }
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
fn list_drivers() -> String {
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
fn list_devices(only: &str) -> iree_base::Result<String> {
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
fn dump_devices(only: &str, out: &mut impl Write) -> iree_base::Result<()> {
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
fn expand_flagfiles(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match arg.strip_prefix("--flagfile=") {
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => out.extend(
                    text.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty() && !l.starts_with('#'))
                        .map(String::from),
                ),
                Err(e) => {
                    eprint!("FLAGS ERROR: failed to read flagfile '{path}': {e}");
                    std::process::exit(1);
                }
            },
            None => out.push(arg),
        }
    }
    out
}
