//! Upstream flags that this runtime accepts without a field of its own:
//! other drivers' options (CUDA, HIP, Vulkan settings our drivers do not
//! model), and features that exist here only at their default (external
//! capture tools, executable plugins). One table, read
//! by [`strip_compat_flags`] before a tool's own flags are parsed, and by
//! the flag documentation test (`docs/flags.md`).
//!
//! Like upstream, other drivers' flags take any value: upstream reads them
//! only when that driver creates a device. A feature flag set away from its
//! default fails at startup with UNIMPLEMENTED, naming the flag, rather than
//! being silently ignored.

use iree_base::{Result, Status, StatusCode};

/// The tools a flag belongs to (upstream's, by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tools(u8);

impl Tools {
    /// `iree-run-module`.
    pub const RUN_MODULE: Tools = Tools(1);
    /// `iree-benchmark-module`.
    pub const BENCHMARK_MODULE: Tools = Tools(2);
    /// `iree-benchmark-executable`.
    pub const BENCHMARK_EXECUTABLE: Tools = Tools(4);
    /// `iree-check-module`.
    pub const CHECK_MODULE: Tools = Tools(8);
    /// Every tool that creates devices.
    pub const DEVICE_TOOLS: Tools = Tools(15);
    /// The tools that load modules onto devices.
    pub const MODULE_TOOLS: Tools = Tools(1 | 2 | 8);

    /// The tools of `program` (a tool name such as `iree-run-module`).
    pub fn of_program(program: &str) -> Tools {
        match program {
            "iree-run-module" => Tools::RUN_MODULE,
            "iree-benchmark-module" => Tools::BENCHMARK_MODULE,
            "iree-benchmark-executable" => Tools::BENCHMARK_EXECUTABLE,
            "iree-check-module" => Tools::CHECK_MODULE,
            _ => Tools(0),
        }
    }

    /// Whether `self` and `other` share a tool.
    pub fn overlaps(self, other: Tools) -> bool {
        self.0 & other.0 != 0
    }
}

/// What this runtime does with a flag of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handling {
    /// Another driver's setting (CUDA, HIP, Vulkan): any value is
    /// accepted and ignored, as upstream ignores it until that driver
    /// makes a device.
    OtherDriver,
    /// Accepted and ignored: the behaviour it tunes does not exist here
    /// (the string says why).
    Ignored(&'static str),
    /// Only the default (the string) is supported; any other value fails
    /// with UNIMPLEMENTED.
    DefaultOnly(&'static str),
    /// One of the listed values, checked; none of them changes anything
    /// here (upstream's message names the flag and the value).
    OneOf(&'static [&'static str]),
}

/// One upstream flag of the table.
#[derive(Clone, Copy, Debug)]
pub struct CompatFlag {
    /// The flag name, without `--`.
    pub name: &'static str,
    /// The tools that accept it.
    pub tools: Tools,
    /// What this runtime does with it.
    pub handling: Handling,
}

const fn other(name: &'static str) -> CompatFlag {
    CompatFlag {
        name,
        tools: Tools::DEVICE_TOOLS,
        handling: Handling::OtherDriver,
    }
}

const fn flag(name: &'static str, tools: Tools, handling: Handling) -> CompatFlag {
    CompatFlag {
        name,
        tools,
        handling,
    }
}

/// Every upstream flag accepted here without a field of a tool's own.
pub const COMPAT_FLAGS: &[CompatFlag] = &[
    other("cuda_allow_inline_execution"),
    other("cuda_tracing"),
    other("cuda_default_index"),
    other("cuda_default_index_from_mpi"),
    other("hip_dylib_path"),
    other("hip_allow_inline_execution"),
    other("hip_async_caching"),
    other("hip_tracing"),
    other("hip_default_index"),
    other("vulkan_libvulkan_search_path"),
    other("vulkan_validation_layers"),
    other("vulkan_debug_utils"),
    other("vulkan_debug_verbosity"),
    other("vulkan_tracing"),
    other("vulkan_robust_buffer_access"),
    other("vulkan_sparse_binding"),
    other("vulkan_sparse_residency"),
    other("vulkan_buffer_device_addresses"),
    other("vulkan_dispatch_abi"),
    other("vulkan_cached_bda_replay_instances"),
    other("vulkan_cached_bda_replay_publication_bytes"),
    other("vulkan_retained_cached_bda_replay_instances"),
    other("vulkan_dedicated_compute_queue"),
    flag(
        "executable_plugin",
        Tools::DEVICE_TOOLS,
        Handling::DefaultOnly(""),
    ),
    flag(
        "task_topology_snapshot",
        Tools::DEVICE_TOOLS,
        Handling::DefaultOnly(""),
    ),
    flag(
        "device_allocator",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("the devices' own allocators already pool and check allocations"),
    ),
    flag(
        "module_mode",
        Tools::MODULE_TOOLS,
        Handling::OneOf(&["preload", "mmap"]),
    ),
    flag(
        "device_lead_allocator",
        Tools::MODULE_TOOLS,
        Handling::OneOf(&["0"]),
    ),
    flag(
        "device_profiling_filter_function",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("profiles record every dispatch"),
    ),
    flag(
        "device_profiling_filter_command_buffer",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("profiles record every command buffer"),
    ),
    flag(
        "device_profiling_filter_command_index",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("profiles record every command"),
    ),
    flag(
        "device_profiling_filter_physical_device",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("the CPU devices have one physical device"),
    ),
    flag(
        "device_profiling_filter_queue",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("the CPU devices have one queue"),
    ),
    flag(
        "device_profiling_counter",
        Tools::DEVICE_TOOLS,
        Handling::DefaultOnly(""),
    ),
    flag(
        "device_profiling_flush_interval_ms",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("profiles are written whole when the run ends"),
    ),
    flag(
        "device_capture_tool",
        Tools::DEVICE_TOOLS,
        Handling::DefaultOnly(""),
    ),
    flag(
        "device_capture_file",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("used only with --device_capture_tool"),
    ),
    flag(
        "device_capture_label",
        Tools::DEVICE_TOOLS,
        Handling::Ignored("used only with --device_capture_tool"),
    ),
    flag(
        "instrument_file",
        Tools::MODULE_TOOLS,
        Handling::DefaultOnly(""),
    ),
    flag(
        "v",
        Tools::BENCHMARK_MODULE,
        Handling::Ignored("Google Benchmark's log verbosity; nothing is logged at any level"),
    ),
    flag(
        "agents_md",
        Tools::MODULE_TOOLS,
        Handling::DefaultOnly("false"),
    ),
];

/// The table entry for `--name` in `tools`, if any.
pub fn find(name: &str, tools: Tools) -> Option<&'static CompatFlag> {
    COMPAT_FLAGS
        .iter()
        .find(|f| f.name == name && f.tools.overlaps(tools))
}

/// Removes the table's flags of `program` from `args` (the program name
/// first), checking their values; the rest is left for the tool's parser.
/// A bare `--flag` stands for `--flag=true`, as upstream reads it.
pub fn strip_compat_flags(
    program: &str,
    args: Vec<std::ffi::OsString>,
) -> Result<Vec<std::ffi::OsString>> {
    let tools = Tools::of_program(program);
    let mut out = Vec::with_capacity(args.len());
    for (index, arg) in args.into_iter().enumerate() {
        // None of these flags takes a path: an argument that is not UTF-8
        // is not one of them.
        let Some(text) = arg.to_str() else {
            out.push(arg);
            continue;
        };
        let parsed = text
            .strip_prefix("--")
            .filter(|_| index > 0)
            .map(|body| body.split_once('=').unwrap_or((body, "true")));
        let Some((name, value)) = parsed else {
            out.push(arg);
            continue;
        };
        let Some(flag) = find(name, tools) else {
            out.push(arg);
            continue;
        };
        match flag.handling {
            Handling::OtherDriver | Handling::Ignored(_) => {}
            Handling::DefaultOnly(default) if value == default => {}
            Handling::DefaultOnly(_) => {
                return Err(Status::new(
                    StatusCode::Unimplemented,
                    format!(
                        "--{name}={value} is not supported by this runtime (only its default is)"
                    ),
                ))
            }
            Handling::OneOf(values) if values.contains(&value) => {}
            Handling::OneOf(values) => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!(
                        "unrecognized --{name}= value '{value}'; expected one of [{}]",
                        values.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(program: &str, args: &[&str]) -> Result<Vec<String>> {
        strip_compat_flags(program, args.iter().map(|s| s.into()).collect()).map(|args| {
            args.into_iter()
                .map(|a| a.into_string().expect("UTF-8 in, UTF-8 out"))
                .collect()
        })
    }

    #[test]
    fn other_drivers_flags_take_any_value() {
        let out = strip(
            "iree-run-module",
            &[
                "iree-run-module",
                "--vulkan_debug_verbosity=abc",
                "--cuda_tracing",
                "--module=m.vmfb",
            ],
        )
        .unwrap();
        assert_eq!(out, ["iree-run-module", "--module=m.vmfb"]);
    }

    #[test]
    fn features_are_accepted_only_at_their_default() {
        assert!(strip("iree-run-module", &["t", "--task_topology_snapshot="]).is_ok());
        let e = strip("iree-run-module", &["t", "--task_topology_snapshot=x"]).unwrap_err();
        assert_eq!(e.code(), StatusCode::Unimplemented);
        let e = strip("iree-run-module", &["t", "--module_mode=bogus"]).unwrap_err();
        assert_eq!(e.code(), StatusCode::InvalidArgument);
        assert!(e
            .message()
            .contains("unrecognized --module_mode= value 'bogus'"));
        assert!(strip("iree-run-module", &["t", "--module_mode=mmap"]).is_ok());
    }

    #[test]
    fn flags_of_other_tools_are_left_alone() {
        let out = strip("iree-dump-module", &["t", "--cuda_tracing=2"]).unwrap();
        assert_eq!(out, ["t", "--cuda_tracing=2"]);
        let out = strip("iree-benchmark-executable", &["t", "--module_mode=mmap"]).unwrap();
        assert_eq!(out, ["t", "--module_mode=mmap"]);
    }
}
