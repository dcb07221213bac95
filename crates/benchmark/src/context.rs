//! Facts about the machine that Google Benchmark reports with every run:
//! date, host, CPUs and their clock, caches, load, CPU scaling and ASLR,
//! read from `/proc` and `/sys` (left empty or zero where unavailable).

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// One CPU cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheInfo {
    /// `Data`, `Instruction` or `Unified`.
    pub kind: String,
    /// Cache level (1 for L1).
    pub level: u32,
    /// Size in bytes.
    pub size: u64,
    /// How many logical CPUs share one instance of it.
    pub num_sharing: u32,
}

/// The `context` of a report.
#[derive(Clone, Debug)]
pub struct MachineContext {
    /// When the run started, `YYYY-MM-DDTHH:MM:SS+00:00` (UTC).
    pub date: String,
    /// The host name.
    pub host_name: String,
    /// How the tool was invoked (`argv[0]`).
    pub executable: String,
    /// Online logical CPUs.
    pub num_cpus: u32,
    /// Clock of the first CPU in MHz.
    pub cpu_mhz: f64,
    /// Whether some CPU's frequency governor is not `performance`.
    pub cpu_scaling_enabled: bool,
    /// Whether address-space layout randomization is on.
    pub aslr_enabled: bool,
    /// The caches of the first CPU.
    pub caches: Vec<CacheInfo>,
    /// 1, 5 and 15 minute load averages.
    pub load_avg: Vec<f64>,
    /// What produced the report.
    pub library_version: String,
    /// `release` or `debug`.
    pub library_build_type: &'static str,
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// `seconds` since the epoch as an ISO 8601 UTC date and time.
pub fn iso8601_utc(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let secs = seconds % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}+00:00",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn caches() -> Vec<CacheInfo> {
    let mut caches = Vec::new();
    for index in 0.. {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
        let Some(kind) = read(format!("{dir}/type")) else {
            break;
        };
        let level = read(format!("{dir}/level")).and_then(|l| l.trim().parse().ok());
        let size = read(format!("{dir}/size")).and_then(|s| {
            let s = s.trim();
            match s.strip_suffix('K') {
                Some(k) => k.parse::<u64>().ok().map(|k| k * 1024),
                None => s.parse().ok(),
            }
        });
        let sharing = read(format!("{dir}/shared_cpu_map")).map(|map| {
            map.trim()
                .chars()
                .filter_map(|c| c.to_digit(16))
                .map(u32::count_ones)
                .sum()
        });
        if let (Some(level), Some(size)) = (level, size) {
            caches.push(CacheInfo {
                kind: kind.trim().to_string(),
                level,
                size,
                num_sharing: sharing.unwrap_or(0),
            });
        }
    }
    caches
}

fn cpu_mhz() -> f64 {
    read("/proc/cpuinfo")
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("cpu MHz"))
                .and_then(|l| l.split(':').nth(1))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0.0)
}

fn cpu_scaling_enabled(num_cpus: u32) -> bool {
    (0..num_cpus).any(|cpu| {
        read(format!(
            "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"
        ))
        .is_some_and(|g| g.trim() != "performance")
    })
}

impl MachineContext {
    /// The context of this machine now, for a tool invoked as `executable`.
    pub fn collect(executable: &str) -> MachineContext {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let num_cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        MachineContext {
            date: iso8601_utc(now),
            host_name: read("/proc/sys/kernel/hostname")
                .map(|h| h.trim().to_string())
                .unwrap_or_default(),
            executable: executable.to_string(),
            num_cpus,
            cpu_mhz: cpu_mhz(),
            cpu_scaling_enabled: cpu_scaling_enabled(num_cpus),
            aslr_enabled: read("/proc/sys/kernel/randomize_va_space")
                .is_some_and(|v| v.trim() != "0"),
            caches: caches(),
            load_avg: read("/proc/loadavg")
                .map(|l| {
                    l.split_whitespace()
                        .take(3)
                        .filter_map(|v| v.parse().ok())
                        .collect()
                })
                .unwrap_or_default(),
            library_version: format!("iree-rs {}", env!("CARGO_PKG_VERSION")),
            library_build_type: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00+00:00");
        assert_eq!(iso8601_utc(951_782_400), "2000-02-29T00:00:00+00:00");
        assert_eq!(iso8601_utc(1_795_585_136), "2026-11-25T05:38:56+00:00");
    }
}
