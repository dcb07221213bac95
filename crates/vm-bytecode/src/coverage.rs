//! Execution coverage of opcodes, compiled in with the `opcode-coverage`
//! feature (tests only; the hot loop pays nothing without it).

use std::sync::atomic::{AtomicU64, Ordering};

static EXECUTED: [AtomicU64; 12] = [const { AtomicU64::new(0) }; 12];

/// Records that the op `(set << 8) | opcode` executed.
#[inline]
pub fn record(code: u16) {
    let bit = code as usize;
    EXECUTED[bit / 64].fetch_or(1 << (bit % 64), Ordering::Relaxed);
}

/// Every `(set << 8) | opcode` recorded so far.
pub fn executed() -> Vec<u16> {
    let mut out = Vec::new();
    for (word_index, word) in EXECUTED.iter().enumerate() {
        let bits = word.load(Ordering::Relaxed);
        for b in 0..64 {
            if bits & (1 << b) != 0 {
                out.push((word_index * 64 + b) as u16);
            }
        }
    }
    out
}

/// Every opcode of the 3.13 ISA as `(set << 8) | opcode`: core 0x00..=0x88
/// without the block marker (136), EXT_F32 0x00..=0x3E (63) and EXT_F64
/// 0x00..=0x40 (65).
pub fn all_opcodes() -> Vec<u16> {
    let core = (0x00u16..=0x88).filter(|&c| c != u16::from(crate::decode::BLOCK_MARKER));
    let f32 = (0x00u16..=0x3E).map(|c| 0x100 | c);
    let f64 = (0x00u16..=0x40).map(|c| 0x200 | c);
    core.chain(f32).chain(f64).collect()
}
