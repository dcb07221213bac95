//! How many task workers a `local-task` device runs and where: upstream's
//! `--task_topology_*` and `--task_worker_*` flags.
//!
//! Resolution follows upstream's precedence: a non-zero
//! `--task_topology_group_count` gives that many unpinned workers; otherwise
//! `--task_topology_cpu_ids` gives one worker pinned to each listed logical
//! CPU; otherwise the `physical_cores` mode gives one worker per physical
//! core of the machine, at most `--task_topology_max_group_count`.
//!
//! Worker 0 is the thread that runs a queue operation (the submitting thread,
//! or the queue's executor thread); helper `i` runs on `cpus[i]` when set.

use iree_base::{bail, Result};

/// The most workers one device runs; larger requests are clamped to it.
pub const MAX_WORKERS: usize = 256;

/// Stacks smaller than this are raised to it: the flag is a minimum, and
/// Rust code on the workers (the VMVX interpreter) needs more than kernels.
const MIN_WORKER_STACK_SIZE: usize = 2 << 20;

/// The task flags as given (defaults are upstream's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskTopologyOptions {
    /// `--task_topology_mode` (only `physical_cores` exists).
    pub mode: String,
    /// `--task_topology_group_count` (0: decided by the mode).
    pub group_count: usize,
    /// `--task_topology_cpu_ids`, one list per flag occurrence.
    pub cpu_ids: Vec<Vec<usize>>,
    /// Why a `--task_topology_cpu_ids` value did not parse: reported when a
    /// local-task device is created (as upstream reports it), so other
    /// devices run regardless.
    pub cpu_ids_error: Option<String>,
    /// `--task_topology_max_group_count`.
    pub max_group_count: usize,
    /// `--task_worker_stack_size` (a minimum).
    pub worker_stack_size: usize,
    /// `--task_worker_local_memory` (0: the L2 data cache size, as upstream).
    pub worker_local_memory: usize,
    /// `--task_topology_nodes`: `current`, `numa`, `all` or NUMA node ids
    /// (`0,2`). Checked; the device has one executor whatever it says.
    pub nodes: String,
    /// `--task_topology_performance_level`: `any`, `low`/`efficiency`,
    /// `high`/`performance`. Checked; every core qualifies.
    pub performance_level: String,
    /// `--task_topology_distribution`: `compact` or `scatter`. Checked;
    /// workers are not placed by cache domain.
    pub distribution: String,
}

impl Default for TaskTopologyOptions {
    fn default() -> TaskTopologyOptions {
        TaskTopologyOptions {
            mode: "physical_cores".to_string(),
            group_count: 0,
            cpu_ids: Vec::new(),
            cpu_ids_error: None,
            max_group_count: 64,
            worker_stack_size: 131_072,
            worker_local_memory: 0,
            nodes: "current".to_string(),
            performance_level: "any".to_string(),
            distribution: "scatter".to_string(),
        }
    }
}

/// A resolved layout: one entry per worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskTopology {
    /// The logical CPU each worker is pinned to (`None`: unpinned). Worker 0
    /// is the thread running the operation and is never pinned by the pool.
    pub cpus: Vec<Option<usize>>,
    /// Stack size of helper threads in bytes (0: the platform default).
    pub stack_size: usize,
    /// Per-worker local memory limit in bytes (0: none).
    pub local_memory_limit: usize,
}

impl TaskTopology {
    /// `workers` unpinned workers with default stacks.
    pub fn unpinned(workers: usize) -> TaskTopology {
        TaskTopology {
            cpus: vec![None; workers.max(1)],
            stack_size: 0,
            local_memory_limit: 0,
        }
    }

    /// The number of workers.
    pub fn workers(&self) -> usize {
        self.cpus.len()
    }

    /// The CPU worker `index` is pinned to, if any.
    pub fn cpu_of(&self, index: usize) -> Option<usize> {
        self.cpus.get(index).copied().flatten()
    }
}

impl TaskTopologyOptions {
    /// Checks the values of the selection flags this runtime accepts but
    /// does not act on, with upstream's messages and in upstream's order.
    fn check_selection_flags(&self) -> Result<()> {
        if let Some(message) = &self.cpu_ids_error {
            bail!(InvalidArgument, "{message}");
        }
        let nodes = self.nodes.trim();
        let node_ids = || nodes.split(',').all(|id| id.trim().parse::<u32>().is_ok());
        if !matches!(nodes, "current" | "numa" | "all") && !node_ids() {
            bail!(
                InvalidArgument,
                "invalid --task_topology_nodes value: '{}'",
                self.nodes
            );
        }
        if !matches!(
            self.performance_level.as_str(),
            "any" | "low" | "efficiency" | "high" | "performance"
        ) {
            bail!(
                InvalidArgument,
                "unknown value `{}` for performance level; expected one of [any, low/efficiency, high/performance]",
                self.performance_level
            );
        }
        if !matches!(self.distribution.as_str(), "compact" | "scatter") {
            bail!(
                InvalidArgument,
                "unknown value `{}` for distribution strategy; expected one of [compact, scatter]",
                self.distribution
            );
        }
        Ok(())
    }

    /// Resolves the flags against this machine.
    pub fn resolve(&self) -> Result<TaskTopology> {
        self.check_selection_flags()?;
        let mut cpus = if self.group_count > 0 {
            vec![None; self.group_count]
        } else if !self.cpu_ids.is_empty() {
            // Upstream makes one executor per set; here the sets together
            // form the one executor of the device.
            let logical = std::thread::available_parallelism().map_or(1, |n| n.get());
            let processors = online_cpu_ids()
                .into_iter()
                .max()
                .map_or(logical, |m| m + 1);
            let mut cpus = Vec::new();
            for set in &self.cpu_ids {
                if set.is_empty() {
                    bail!(InvalidArgument, "at least one CPU ID must be provided");
                }
                for (index, &cpu) in set.iter().enumerate() {
                    if cpu >= processors {
                        bail!(
                            OutOfRange,
                            "cpu_ids[{index}] {cpu} out of bounds, only {processors} logical processors available"
                        );
                    }
                    cpus.push(Some(cpu));
                }
            }
            cpus
        } else if self.mode == "physical_cores" {
            let cores = physical_core_count().min(self.max_group_count);
            if cores == 0 {
                bail!(
                    NotFound,
                    "--task_topology_nodes=current selected 1 node(s) but none contain any usable cores; no executors created"
                );
            }
            vec![None; cores]
        } else {
            bail!(
                InvalidArgument,
                "one of --task_topology_group_count or --task_topology_mode must be specified and be a valid value; have --task_topology_mode={}.",
                self.mode
            );
        };
        cpus.truncate(MAX_WORKERS);
        // Without the flag, upstream gives each worker as much local memory
        // as its L2 data cache holds (else its L1's); dispatches needing more
        // fail.
        let local_memory_limit = match self.worker_local_memory {
            0 => {
                let info = CpuInfo::read(cpus.first().copied().flatten().unwrap_or(0));
                usize::try_from(if info.l2d != 0 { info.l2d } else { info.l1d }).unwrap_or(0)
            }
            bytes => bytes,
        };
        Ok(TaskTopology {
            cpus,
            stack_size: self.worker_stack_size.max(MIN_WORKER_STACK_SIZE),
            local_memory_limit,
        })
    }
}

/// What sysfs tells about one logical CPU, for topology dumps.
struct CpuInfo {
    cluster_id: i64,
    physical_package_id: i64,
    /// L1 data and L2 cache sizes in bytes (0 when unknown).
    l1d: u64,
    l2d: u64,
    /// The CPUs sharing this CPU's last-level cache.
    llc_sharing: Vec<usize>,
    /// This CPU's index among its core's hardware threads.
    smt: usize,
}

impl CpuInfo {
    fn read(cpu: usize) -> CpuInfo {
        let base = format!("/sys/devices/system/cpu/cpu{cpu}");
        let read = |path: String| std::fs::read_to_string(path).ok();
        let number = |name: &str| {
            read(format!("{base}/topology/{name}")).and_then(|t| t.trim().parse::<i64>().ok())
        };
        let size = |text: &str| {
            let text = text.trim();
            let (digits, scale) = match text.as_bytes().last() {
                Some(b'K') => (&text[..text.len() - 1], 1024),
                Some(b'M') => (&text[..text.len() - 1], 1024 * 1024),
                _ => (text, 1),
            };
            digits.parse::<u64>().map_or(0, |n| n * scale)
        };
        let (mut l1d, mut l2d) = (0, 0);
        let mut llc: Option<(u32, Vec<usize>)> = None;
        for index in 0..8 {
            let dir = format!("{base}/cache/index{index}");
            let (Some(level), Some(kind)) =
                (read(format!("{dir}/level")), read(format!("{dir}/type")))
            else {
                continue;
            };
            let level: u32 = level.trim().parse().unwrap_or(0);
            let kind = kind.trim();
            let bytes = read(format!("{dir}/size")).map_or(0, |s| size(&s));
            match (level, kind) {
                (1, "Data") => l1d = bytes,
                (2, "Data" | "Unified") => l2d = bytes,
                _ => {}
            }
            if kind != "Instruction" && llc.as_ref().is_none_or(|(l, _)| level > *l) {
                let shared = read(format!("{dir}/shared_cpu_list"))
                    .map(|t| parse_cpu_list(t.trim()))
                    .unwrap_or_default();
                llc = Some((level, shared));
            }
        }
        let siblings = read(format!("{base}/topology/thread_siblings_list"))
            .map(|t| parse_cpu_list(t.trim()))
            .unwrap_or_default();
        CpuInfo {
            cluster_id: number("cluster_id").unwrap_or(65535),
            physical_package_id: number("physical_package_id").unwrap_or(0),
            l1d,
            l2d,
            llc_sharing: llc.map(|(_, cpus)| cpus).unwrap_or_default(),
            smt: siblings.iter().position(|&c| c == cpu).unwrap_or(0),
        }
    }
}

/// The first logical CPU of each physical core, in CPU order (`None`
/// where sysfs does not tell).
fn physical_core_cpus() -> Option<Vec<usize>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut cpus = Vec::new();
    for cpu in online_cpu_ids() {
        let base = format!("/sys/devices/system/cpu/cpu{cpu}/topology");
        let read = |name: &str| {
            std::fs::read_to_string(format!("{base}/{name}"))
                .ok()
                .and_then(|t| t.trim().parse::<i64>().ok())
        };
        let key = (read("physical_package_id")?, read("core_id")?);
        if seen.insert(key) {
            cpus.push(cpu);
        }
    }
    (!cpus.is_empty()).then_some(cpus)
}

/// One worker group of a dumped topology.
struct DumpGroup {
    processor: usize,
    /// `Some(cpu)` when pinned (affinity known).
    pinned: Option<usize>,
}

fn dump_topology(out: &mut String, id: usize, node: &str, groups: &[DumpGroup]) {
    use std::fmt::Write as _;
    let rule = "# ===------------------------------------------------------------------------===\n";
    out.push_str(rule);
    let _ = writeln!(
        out,
        "# topology[{id}]: {} worker groups, numa node: {node}",
        groups.len()
    );
    out.push_str(rule);
    out.push_str("#\n");
    let infos: Vec<CpuInfo> = groups.iter().map(|g| CpuInfo::read(g.processor)).collect();
    for (index, (group, info)) in groups.iter().zip(&infos).enumerate() {
        let _ = writeln!(out, "# group[{index}]: 'iree-worker-{index}'");
        let _ = writeln!(out, "#      processor: {}", group.processor);
        let _ = writeln!(
            out,
            "#     hardware ids: cluster_id={}, physical_package_id={}",
            info.cluster_id, info.physical_package_id
        );
        match group.pinned {
            Some(cpu) => {
                let _ = writeln!(out, "#       affinity: group=0, id={cpu}, smt={}", info.smt);
            }
            None => out.push_str("#       affinity: (unspecified)\n"),
        }
        let _ = writeln!(out, "#  caches: l1d={}, l2d={}", info.l1d, info.l2d);
        if group.pinned.is_none() {
            out.push_str("#  last level cache sharing: (all/undefined)\n");
        } else {
            let sharing: Vec<String> = groups
                .iter()
                .enumerate()
                .filter(|(_, g)| g.pinned.is_some_and(|cpu| info.llc_sharing.contains(&cpu)))
                .map(|(i, _)| i.to_string())
                .collect();
            if sharing.is_empty() {
                out.push_str("#  last level cache sharing: (none)\n");
            } else {
                let _ = writeln!(
                    out,
                    "#  last level cache sharing: {} group(s): {}",
                    sharing.len(),
                    sharing.join(", ")
                );
            }
        }
        out.push_str("#\n");
    }
}

impl TaskTopologyOptions {
    /// What `--dump_task_topologies` prints for these options on this
    /// machine, in upstream's layout (from sysfs): with
    /// `--task_topology_group_count`, that many unpinned groups; with
    /// `--task_topology_cpu_ids`, one topology per list, pinned; otherwise
    /// one group per physical core. Upstream applies only the flags that
    /// precede `--dump_task_topologies`; here all of them count.
    pub fn dump_topologies(&self) -> Result<String> {
        let mut out = String::new();
        if self.group_count > 0 {
            let groups: Vec<DumpGroup> = (0..self.group_count.min(MAX_WORKERS))
                .map(|_| DumpGroup {
                    processor: 0,
                    pinned: None,
                })
                .collect();
            dump_topology(&mut out, 0, "any", &groups);
        } else if !self.cpu_ids.is_empty() {
            // Validate as the executors would be created.
            self.resolve()?;
            for (id, set) in self.cpu_ids.iter().enumerate() {
                let groups: Vec<DumpGroup> = set
                    .iter()
                    .map(|&cpu| DumpGroup {
                        processor: cpu,
                        pinned: Some(cpu),
                    })
                    .collect();
                dump_topology(&mut out, id, "any", &groups);
            }
        } else {
            let count = self.resolve()?.workers();
            let cpus = physical_core_cpus().unwrap_or_else(|| (0..count).collect());
            let groups: Vec<DumpGroup> = cpus
                .into_iter()
                .take(count)
                .map(|cpu| DumpGroup {
                    processor: cpu,
                    pinned: Some(cpu),
                })
                .collect();
            dump_topology(&mut out, 0, "0", &groups);
        }
        Ok(out)
    }
}

/// Logical CPU ids that are online (from sysfs; empty when unknown).
fn online_cpu_ids() -> Vec<usize> {
    let Ok(text) = std::fs::read_to_string("/sys/devices/system/cpu/online") else {
        return Vec::new();
    };
    parse_cpu_list(text.trim())
}

/// Parses a Linux CPU list (`0-3,5,7-8`); malformed parts are skipped.
pub fn parse_cpu_list(text: &str) -> Vec<usize> {
    let mut cpus = Vec::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
                    if b >= a && b - a < 4096 {
                        cpus.extend(a..=b);
                    }
                }
            }
            None => {
                if let Ok(cpu) = part.trim().parse() {
                    cpus.push(cpu);
                }
            }
        }
    }
    cpus
}

/// The number of physical cores: distinct (package, core) pairs among online
/// CPUs, or the available parallelism where sysfs does not tell.
pub fn physical_core_count() -> usize {
    let fallback = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut cores = std::collections::BTreeSet::new();
    for cpu in online_cpu_ids() {
        let base = format!("/sys/devices/system/cpu/cpu{cpu}/topology");
        let read = |name: &str| {
            std::fs::read_to_string(format!("{base}/{name}"))
                .ok()
                .and_then(|t| t.trim().parse::<i64>().ok())
        };
        match (read("physical_package_id"), read("core_id")) {
            (Some(package), Some(core)) => {
                cores.insert((package, core));
            }
            _ => return fallback,
        }
    }
    if cores.is_empty() {
        fallback
    } else {
        cores.len()
    }
}

/// Pins the calling thread to logical CPU `cpu`; failures leave it unpinned
/// (pinning is a performance hint, as upstream treats it).
pub fn pin_current_thread(cpu: usize) {
    #[cfg(target_os = "linux")]
    {
        let mut set = rustix::thread::CpuSet::new();
        if cpu < rustix::thread::CpuSet::MAX_CPU {
            set.set(cpu);
            let _ = rustix::thread::sched_setaffinity(None, &set);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_like_sysfs() {
        assert_eq!(parse_cpu_list("0-3,5,7-8"), vec![0, 1, 2, 3, 5, 7, 8]);
        assert_eq!(parse_cpu_list("0"), vec![0]);
        assert_eq!(parse_cpu_list("x,2,3-1"), vec![2]);
    }

    #[test]
    fn flags_resolve_with_upstream_precedence() {
        let mut options = TaskTopologyOptions {
            group_count: 3,
            cpu_ids: vec![vec![0]],
            ..Default::default()
        };
        assert_eq!(options.resolve().unwrap().cpus, vec![None; 3]);
        options.group_count = 0;
        assert_eq!(options.resolve().unwrap().cpus, vec![Some(0)]);
        options.cpu_ids.push(vec![0, 0]);
        assert_eq!(options.resolve().unwrap().cpus, vec![Some(0); 3]);
        options.cpu_ids.push(vec![]);
        assert_eq!(
            options.resolve().unwrap_err().code(),
            iree_base::StatusCode::InvalidArgument
        );
        options.cpu_ids.clear();
        options.max_group_count = 1;
        assert_eq!(options.resolve().unwrap().workers(), 1);
        options.max_group_count = 0;
        assert_eq!(
            options.resolve().unwrap_err().code(),
            iree_base::StatusCode::NotFound
        );
        options.group_count = 1000;
        assert_eq!(options.resolve().unwrap().workers(), MAX_WORKERS);
        options.group_count = 0;
        options.cpu_ids = vec![vec![100_000]];
        assert_eq!(
            options.resolve().unwrap_err().code(),
            iree_base::StatusCode::OutOfRange
        );
        options.cpu_ids.clear();
        options.mode = "hyperthreads".into();
        assert_eq!(
            options.resolve().unwrap_err().code(),
            iree_base::StatusCode::InvalidArgument
        );
    }

    #[test]
    fn dumps_have_upstreams_layout() {
        let options = TaskTopologyOptions {
            group_count: 2,
            ..Default::default()
        };
        let text = options.dump_topologies().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "# topology[0]: 2 worker groups, numa node: any");
        assert_eq!(lines[4], "# group[0]: 'iree-worker-0'");
        assert_eq!(lines[5], "#      processor: 0");
        assert!(lines[6].starts_with("#     hardware ids: cluster_id="));
        assert_eq!(lines[7], "#       affinity: (unspecified)");
        assert!(lines[8].starts_with("#  caches: l1d="));
        assert_eq!(lines[9], "#  last level cache sharing: (all/undefined)");
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("# group[")).count(),
            2
        );
        for bad in [
            TaskTopologyOptions {
                nodes: "north".into(),
                ..Default::default()
            },
            TaskTopologyOptions {
                performance_level: "turbo".into(),
                ..Default::default()
            },
            TaskTopologyOptions {
                distribution: "bogus".into(),
                ..Default::default()
            },
        ] {
            assert_eq!(
                bad.resolve().unwrap_err().code(),
                iree_base::StatusCode::InvalidArgument
            );
        }
        let ok = TaskTopologyOptions {
            nodes: "0,1".into(),
            performance_level: "efficiency".into(),
            distribution: "compact".into(),
            ..Default::default()
        };
        assert!(ok.resolve().is_ok());
        let bad = TaskTopologyOptions {
            mode: "bogus".into(),
            ..Default::default()
        };
        assert_eq!(
            bad.dump_topologies().unwrap_err().code(),
            iree_base::StatusCode::InvalidArgument
        );
    }
}
