//! `iree-cpuinfo`: prints, one per line, whether this CPU (and the OS, for
//! register state it must save) supports each feature upstream's tool
//! lists, in upstream's order and format (`%-20s %d`).

/// A feature upstream lists: its name and where CPUID reports it.
#[cfg(target_arch = "x86_64")]
struct Feature {
    name: &'static str,
    bit: Bit,
    /// The XCR0 state components the OS must enable for it (0: none).
    os_state: u64,
}

/// A CPUID output bit.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
enum Bit {
    /// Leaf 1, ECX.
    Leaf1Ecx(u32),
    /// Leaf 0x80000001, ECX.
    ExtEcx(u32),
    /// Leaf 7 subleaf 0: EBX, ECX, EDX.
    Leaf7Ebx(u32),
    Leaf7Ecx(u32),
    Leaf7Edx(u32),
    /// Leaf 7 subleaf 1, EAX.
    Leaf7S1Eax(u32),
}

/// XCR0 components: SSE and AVX state; AVX-512 opmask and ZMM state; AMX
/// tile config and data.
#[cfg(target_arch = "x86_64")]
const YMM: u64 = 0b110;
#[cfg(target_arch = "x86_64")]
const ZMM: u64 = YMM | 0b1110_0000;
#[cfg(target_arch = "x86_64")]
const TILES: u64 = 0b11 << 17;

#[cfg(target_arch = "x86_64")]
const FEATURES: &[Feature] = &{
    use Bit::*;
    const fn f(name: &'static str, bit: Bit, os_state: u64) -> Feature {
        Feature {
            name,
            bit,
            os_state,
        }
    }
    [
        f("sse3", Leaf1Ecx(0), 0),
        f("ssse3", Leaf1Ecx(9), 0),
        f("sse4.1", Leaf1Ecx(19), 0),
        f("sse4.2", Leaf1Ecx(20), 0),
        f("sse4a", ExtEcx(6), 0),
        f("avx", Leaf1Ecx(28), YMM),
        f("fma", Leaf1Ecx(12), YMM),
        f("fma4", ExtEcx(16), YMM),
        f("xop", ExtEcx(11), YMM),
        f("f16c", Leaf1Ecx(29), YMM),
        f("avx2", Leaf7Ebx(5), YMM),
        f("avx512f", Leaf7Ebx(16), ZMM),
        f("avx512cd", Leaf7Ebx(28), ZMM),
        f("avx512vl", Leaf7Ebx(31), ZMM),
        f("avx512dq", Leaf7Ebx(17), ZMM),
        f("avx512bw", Leaf7Ebx(30), ZMM),
        f("avx512ifma", Leaf7Ebx(21), ZMM),
        f("avx512vbmi", Leaf7Ecx(1), ZMM),
        f("avx512vpopcntdq", Leaf7Ecx(14), ZMM),
        f("avx512vnni", Leaf7Ecx(11), ZMM),
        f("avx512vbmi2", Leaf7Ecx(6), ZMM),
        f("avx512bitalg", Leaf7Ecx(12), ZMM),
        f("avx512bf16", Leaf7S1Eax(5), ZMM),
        f("avx512fp16", Leaf7Edx(23), ZMM),
        f("amx-tile", Leaf7Edx(24), TILES),
        f("amx-int8", Leaf7Edx(25), TILES),
        f("amx-bf16", Leaf7Edx(22), TILES),
    ]
};

#[cfg(target_arch = "x86_64")]
fn features() -> Vec<(&'static str, bool)> {
    use std::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
    // CPUID is part of x86-64, so these calls are always valid.
    let leaf1 = __cpuid(1);
    let max_leaf = __cpuid(0).eax;
    let max_ext = __cpuid(0x8000_0000).eax;
    let ext = (max_ext >= 0x8000_0001).then(|| __cpuid(0x8000_0001));
    let leaf7 = (max_leaf >= 7).then(|| __cpuid_count(7, 0));
    let leaf7_1 = leaf7.filter(|l| l.eax >= 1).map(|_| __cpuid_count(7, 1));
    // OSXSAVE (leaf 1 ECX bit 27): XGETBV reports which register state the
    // OS saves; without it no AVX state is usable.
    let xcr0 = if leaf1.ecx & (1 << 27) != 0 {
        // SAFETY: OSXSAVE set means the OS enabled XGETBV (CR4.OSXSAVE).
        unsafe { xgetbv0() }
    } else {
        0
    };
    /// XCR0, the OS-enabled state components.
    ///
    /// # Safety
    ///
    /// The OS must have enabled XGETBV (CPUID leaf 1 ECX bit 27, OSXSAVE).
    #[target_feature(enable = "xsave")]
    unsafe fn xgetbv0() -> u64 {
        // SAFETY: the caller checked OSXSAVE, so XGETBV does not fault.
        unsafe { _xgetbv(0) }
    }
    let bit = |word: Option<u32>, n: u32| word.is_some_and(|w| w & (1 << n) != 0);
    FEATURES
        .iter()
        .map(|feature| {
            let cpu = match feature.bit {
                Bit::Leaf1Ecx(n) => bit(Some(leaf1.ecx), n),
                Bit::ExtEcx(n) => bit(ext.map(|l| l.ecx), n),
                Bit::Leaf7Ebx(n) => bit(leaf7.map(|l| l.ebx), n),
                Bit::Leaf7Ecx(n) => bit(leaf7.map(|l| l.ecx), n),
                Bit::Leaf7Edx(n) => bit(leaf7.map(|l| l.edx), n),
                Bit::Leaf7S1Eax(n) => bit(leaf7_1.map(|l| l.eax), n),
            };
            let os = xcr0 & feature.os_state == feature.os_state;
            (feature.name, cpu && os)
        })
        .collect()
}

#[cfg(not(target_arch = "x86_64"))]
fn features() -> Vec<(&'static str, bool)> {
    Vec::new()
}

fn main() {
    let mut out = String::new();
    for (name, available) in features() {
        out.push_str(&format!("{name:<20} {}\n", u8::from(available)));
    }
    print!("{out}");
}
