//! CPU feature detection as upstream IREE's runtime does it
//! (`iree_cpu_initialize`), and `iree-cpuinfo`'s report of it.
//!
//! On x86-64 the features come from CPUID. Detection is a pure function of
//! the CPUID answers ([`CpuidAnswers`]), so that answers recorded on one
//! machine can be checked anywhere against what upstream printed there.

use std::ffi::OsString;
use std::fmt::Write;

/// One CPU feature as `iree-cpuinfo` reports it: its LLVM name and whether
/// the CPU (and, for register-state features, the OS) supports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feature {
    /// LLVM's name of the feature (`avx512f`, `amx-tile`).
    pub name: &'static str,
    /// Whether the feature is available.
    pub supported: bool,
}

/// `iree-cpuinfo`'s output: one line per feature, the name left-aligned in
/// 20 columns, a space, then `1` or `0`.
pub fn format_report(features: &[Feature]) -> String {
    let mut text = String::new();
    for feature in features {
        let _ = writeln!(text, "{:<20} {}", feature.name, u8::from(feature.supported));
    }
    text
}

/// The registers one CPUID query answers: `[eax, ebx, ecx, edx]`.
pub type CpuidRegisters = [u32; 4];

/// The CPUID queries feature detection makes, as `(leaf, subleaf)`.
pub const CPUID_QUERIES: [(u32, u32); 7] = [
    (0, 0),
    (0x8000_0000, 0),
    (1, 0),
    (7, 0),
    (7, 1),
    (0xD, 0),
    (0x8000_0001, 0),
];

/// The answers to [`CPUID_QUERIES`], in that order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuidAnswers(pub [CpuidRegisters; CPUID_QUERIES.len()]);

impl CpuidAnswers {
    /// Asks this CPU (all zeros off x86-64).
    pub fn read() -> CpuidAnswers {
        CpuidAnswers(CPUID_QUERIES.map(|(leaf, subleaf)| cpuid(leaf, subleaf)))
    }

    /// The recorded answer to `(leaf, subleaf)`, or all zeros for a query
    /// that was not recorded.
    fn raw(&self, leaf: u32, subleaf: u32) -> CpuidRegisters {
        CPUID_QUERIES
            .iter()
            .position(|&q| q == (leaf, subleaf))
            .map_or([0; 4], |i| self.0[i])
    }

    /// The answer to `(leaf, subleaf)`, or zeros where the leaf is beyond
    /// the highest one the CPU reports (base or extended range) or the
    /// subleaf beyond the highest the leaf reports.
    fn query(&self, leaf: u32, subleaf: u32) -> CpuidRegisters {
        let max_base = self.raw(0, 0)[0];
        let max_extended = match self.raw(0x8000_0000, 0)[0] {
            max if max < 0x8000_0000 => 0,
            max => max,
        };
        let max_leaf = if leaf < 0x8000_0000 {
            max_base
        } else {
            max_extended
        };
        if leaf > max_leaf || (subleaf != 0 && subleaf > self.raw(leaf, 0)[0]) {
            return [0; 4];
        }
        self.raw(leaf, subleaf)
    }

    /// The x86-64 features, in upstream's order, with upstream's rules: the
    /// AVX group needs the x87/SSE/AVX state components that CPUID leaf 0xD
    /// reports (bits 0-2), the AVX-512 group also the opmask and ZMM ones
    /// (bits 5-7), and AMX the tile ones (bits 17-18).
    pub fn x86_64_features(&self) -> Vec<Feature> {
        const EAX: usize = 0;
        const EBX: usize = 1;
        const ECX: usize = 2;
        const EDX: usize = 3;
        let leaf1 = self.query(1, 0);
        let leaf7_0 = self.query(7, 0);
        let leaf7_1 = self.query(7, 1);
        let state = self.query(0xD, 0)[EAX];
        let ext1 = self.query(0x8000_0001, 0);
        let ymm = state & 0x7 == 0x7;
        let zmm = state & 0xE7 == 0xE7;
        let tiles = state & 0x6_0000 == 0x6_0000;
        let bit = |regs: CpuidRegisters, reg: usize, bit: u32| regs[reg] >> bit & 1 == 1;
        let features: [(&'static str, bool, bool); 27] = [
            ("sse3", true, bit(leaf1, ECX, 0)),
            ("ssse3", true, bit(leaf1, ECX, 9)),
            ("sse4.1", true, bit(leaf1, ECX, 19)),
            ("sse4.2", true, bit(leaf1, ECX, 20)),
            ("sse4a", true, bit(ext1, ECX, 6)),
            ("avx", ymm, bit(leaf1, ECX, 28)),
            ("fma", ymm, bit(leaf1, ECX, 12)),
            ("fma4", ymm, bit(ext1, ECX, 16)),
            ("xop", ymm, bit(ext1, ECX, 11)),
            ("f16c", ymm, bit(leaf1, ECX, 29)),
            ("avx2", ymm, bit(leaf7_0, EBX, 5)),
            ("avx512f", zmm, bit(leaf7_0, EBX, 16)),
            ("avx512cd", zmm, bit(leaf7_0, EBX, 28)),
            ("avx512vl", zmm, bit(leaf7_0, EBX, 31)),
            ("avx512dq", zmm, bit(leaf7_0, EBX, 17)),
            ("avx512bw", zmm, bit(leaf7_0, EBX, 30)),
            ("avx512ifma", zmm, bit(leaf7_0, EBX, 21)),
            ("avx512vbmi", zmm, bit(leaf7_0, ECX, 1)),
            ("avx512vpopcntdq", zmm, bit(leaf7_0, ECX, 14)),
            ("avx512vnni", zmm, bit(leaf7_0, ECX, 11)),
            ("avx512vbmi2", zmm, bit(leaf7_0, ECX, 6)),
            ("avx512bitalg", zmm, bit(leaf7_0, ECX, 12)),
            ("avx512bf16", zmm, bit(leaf7_1, EAX, 5)),
            ("avx512fp16", zmm, bit(leaf7_0, EDX, 23)),
            ("amx-tile", tiles, bit(leaf7_0, EDX, 24)),
            ("amx-int8", tiles, bit(leaf7_0, EDX, 25)),
            ("amx-bf16", tiles, bit(leaf7_0, EDX, 22)),
        ];
        features
            .into_iter()
            .map(|(name, enabled, present)| Feature {
                name,
                supported: enabled && present,
            })
            .collect()
    }

    /// The answers as text, one query a line: `leaf subleaf eax ebx ecx edx`
    /// in hex (the format of the recordings under `testdata/tools`).
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for ((leaf, subleaf), regs) in CPUID_QUERIES.iter().zip(&self.0) {
            let _ = writeln!(
                text,
                "{leaf:08x} {subleaf:08x} {:08x} {:08x} {:08x} {:08x}",
                regs[0], regs[1], regs[2], regs[3]
            );
        }
        text
    }

    /// Parses [`to_text`](Self::to_text)'s format; `None` if a query is
    /// missing, out of order or malformed.
    pub fn from_text(text: &str) -> Option<CpuidAnswers> {
        let mut answers = [[0u32; 4]; CPUID_QUERIES.len()];
        let mut lines = text.lines();
        for (i, &(leaf, subleaf)) in CPUID_QUERIES.iter().enumerate() {
            let words: Vec<u32> = lines
                .next()?
                .split_whitespace()
                .map(|w| u32::from_str_radix(w, 16).ok())
                .collect::<Option<_>>()?;
            if words.len() != 6 || words[0] != leaf || words[1] != subleaf {
                return None;
            }
            answers[i].copy_from_slice(&words[2..]);
        }
        Some(CpuidAnswers(answers))
    }
}

#[cfg(target_arch = "x86_64")]
fn cpuid(leaf: u32, subleaf: u32) -> CpuidRegisters {
    let r = std::arch::x86_64::__cpuid_count(leaf, subleaf);
    [r.eax, r.ebx, r.ecx, r.edx]
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid(_leaf: u32, _subleaf: u32) -> CpuidRegisters {
    [0; 4]
}

/// The features of this machine, as `iree-cpuinfo` lists them: the x86-64
/// list on x86-64, and nothing on architectures this port does not detect
/// features on yet.
pub fn detect() -> Vec<Feature> {
    if cfg!(target_arch = "x86_64") {
        CpuidAnswers::read().x86_64_features()
    } else {
        Vec::new()
    }
}

/// `iree-cpuinfo`'s command-line flags: none besides `--help` and
/// `--flagfile`.
#[derive(clap::Parser, Debug)]
#[command(
    name = "iree-cpuinfo",
    about = "Prints the CPU features the IREE runtime detects on this machine."
)]
struct Flags {}

/// Runs `iree-cpuinfo` with the command line `args` (the program name
/// first, as `std::env::args_os()` gives it) and returns its exit status.
/// Output goes to this process's stdout and stderr; a caller that keeps
/// running afterwards flushes stdout (as the process exit would).
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    if let Err(code) = iree_tooling::flags::parse_args::<Flags>(args) {
        return code;
    }
    let report = format_report(&detect());
    let mut out = std::io::stdout().lock();
    match std::io::Write::write_all(&mut out, report.as_bytes())
        .and_then(|()| std::io::Write::flush(&mut out))
    {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("iree-cpuinfo: writing stdout: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_layout() {
        let text = format_report(&[
            Feature {
                name: "sse3",
                supported: true,
            },
            Feature {
                name: "avx512vpopcntdq",
                supported: false,
            },
        ]);
        assert_eq!(text, "sse3                 1\navx512vpopcntdq      0\n");
    }

    #[test]
    fn no_leaves_no_features() {
        let none = CpuidAnswers([[0; 4]; CPUID_QUERIES.len()]);
        assert!(none.x86_64_features().iter().all(|f| !f.supported));
        assert_eq!(CpuidAnswers::from_text(&none.to_text()), Some(none));
    }

    #[test]
    fn avx_needs_os_state() {
        let mut answers = CpuidAnswers([[0; 4]; CPUID_QUERIES.len()]);
        answers.0[0][0] = 0xD; // highest base leaf
        answers.0[2][2] = 1 << 28; // leaf 1 ecx: avx
        let avx = |a: &CpuidAnswers| a.x86_64_features()[5];
        assert_eq!(avx(&answers).name, "avx");
        assert!(!avx(&answers).supported);
        answers.0[5][0] = 0x7; // leaf 0xD eax: x87, SSE and AVX state
        assert!(avx(&answers).supported);
        answers.0[0][0] = 1; // leaf 0xD out of range again
        assert!(!avx(&answers).supported);
    }
}
