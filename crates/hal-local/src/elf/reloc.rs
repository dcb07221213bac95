//! RELA relocations per architecture (upstream `hal/local/elf/arch/*.c`).
//!
//! Relocations are applied to the staging image through a bounds-checked
//! slice: a relocation whose target is outside the image fails the load.

use object::elf;

use iree_base::{bail, Result};

use super::Machine;

/// One `Elf64_Rela`.
#[derive(Clone, Copy, Debug)]
struct Rela {
    offset: u64,
    info: u64,
    addend: i64,
}

impl Rela {
    fn parse(b: &[u8; 24]) -> Rela {
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(w)
        };
        Rela {
            offset: word(0),
            info: word(8),
            addend: word(16) as i64,
        }
    }
}

/// What a relocation writes.
enum Write {
    None,
    U64(u64),
    U32(u32),
}

/// Applies `relas` to `image` (whose first byte is file virtual address
/// `lo`; `bias` turns a file virtual address into an absolute one).
/// `symbols[i]` is the `st_value` of dynamic symbol `i` (entry 0 is unused).
/// `tables` are image byte ranges holding `Elf64_Rela` arrays (in bounds,
/// multiples of 24 bytes). Returns the number of relocations processed.
pub(super) fn apply(
    machine: Machine,
    image: &mut [u8],
    lo: u64,
    bias: u64,
    symbols: &[u64],
    tables: &[std::ops::Range<usize>],
) -> Result<usize> {
    let mut count = 0;
    for table in tables {
        let mut at = table.start;
        while at < table.end {
            let mut entry = [0u8; 24];
            match image.get(at..at + 24) {
                Some(b) => entry.copy_from_slice(b),
                None => bail!(Internal, "relocation table range is outside the image"),
            }
            apply_one(
                machine,
                image,
                lo,
                bias,
                symbols,
                count,
                &Rela::parse(&entry),
            )?;
            at += 24;
            count += 1;
        }
    }
    Ok(count)
}

fn apply_one(
    machine: Machine,
    image: &mut [u8],
    lo: u64,
    bias: u64,
    symbols: &[u64],
    i: usize,
    r: &Rela,
) -> Result<()> {
    let ty = (r.info & 0xffff_ffff) as u32;
    let sym = (r.info >> 32) as usize;
    let s = if sym == 0 {
        0
    } else {
        match symbols.get(sym) {
            Some(v) => bias.wrapping_add(*v),
            None => bail!(
                OutOfRange,
                "invalid symbol in relocation {i}: {sym} (of {})",
                symbols.len()
            ),
        }
    };
    let a = r.addend as u64;
    let p = bias.wrapping_add(r.offset);
    let write = match machine {
        Machine::X86_64 => match ty {
            elf::R_X86_64_NONE => Write::None,
            elf::R_X86_64_RELATIVE => Write::U64(bias.wrapping_add(a)),
            elf::R_X86_64_JUMP_SLOT | elf::R_X86_64_GLOB_DAT | elf::R_X86_64_COPY => Write::U64(s),
            elf::R_X86_64_64 => Write::U64(s.wrapping_add(a)),
            elf::R_X86_64_32 | elf::R_X86_64_32S => Write::U32(s.wrapping_add(a) as u32),
            elf::R_X86_64_PC32 => Write::U32(s.wrapping_add(a).wrapping_sub(p) as u32),
            other => bail!(
                Unimplemented,
                "unimplemented x86_64 relocation type {other} (relocation {i})"
            ),
        },
        Machine::Aarch64 => match ty {
            elf::R_AARCH64_NONE => Write::None,
            elf::R_AARCH64_RELATIVE => Write::U64(bias.wrapping_add(a)),
            // Upstream adds ABS64's S + A to the slot's contents (`+=`); RELA
            // semantics (and lld, which leaves the slot zero) make that `=`.
            elf::R_AARCH64_ABS64 | elf::R_AARCH64_GLOB_DAT | elf::R_AARCH64_JUMP_SLOT => {
                Write::U64(s.wrapping_add(a))
            }
            other => bail!(
                Unimplemented,
                "unimplemented aarch64 relocation type {other} (relocation {i})"
            ),
        },
    };
    let (bytes, len): ([u8; 8], usize) = match write {
        Write::None => return Ok(()),
        Write::U64(v) => (v.to_le_bytes(), 8),
        Write::U32(v) => {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&v.to_le_bytes());
            (b, 4)
        }
    };
    let target = r
        .offset
        .checked_sub(lo)
        .and_then(|o| usize::try_from(o).ok())
        .and_then(|o| Some(o..o.checked_add(len)?))
        .and_then(|range| image.get_mut(range));
    let Some(target) = target else {
        bail!(
            InvalidArgument,
            "relocation {i} target 0x{:x} is outside the loaded image",
            r.offset
        );
    };
    target.copy_from_slice(&bytes[..len]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use iree_base::StatusCode;

    const LO: u64 = 0x1000;
    const BASE: u64 = 0x7f00_0000_0000;
    const BIAS: u64 = BASE - LO;
    /// One relocation at image offset 0.
    const TABLE: std::ops::Range<usize> = 0..24;

    /// Applies one relocation (table at image offset 0, target area after
    /// it) and returns the 8 bytes at file vaddr `LO + 64`.
    fn run(machine: Machine, ty: u32, sym: u64, addend: i64) -> Result<[u8; 8]> {
        let mut image = vec![0u8; 128];
        image[0..8].copy_from_slice(&(LO + 64).to_le_bytes());
        image[8..16].copy_from_slice(&((sym << 32) | u64::from(ty)).to_le_bytes());
        image[16..24].copy_from_slice(&addend.to_le_bytes());
        image[64..72].copy_from_slice(&[0xaa; 8]);
        let symbols = [0, 0x1100];
        let n = apply(machine, &mut image, LO, BIAS, &symbols, &[TABLE])?;
        assert_eq!(n, 1);
        Ok(image[64..72].try_into().unwrap())
    }

    fn word(b: [u8; 8]) -> u64 {
        u64::from_le_bytes(b)
    }

    #[test]
    fn x86_64_types() {
        let m = Machine::X86_64;
        assert_eq!(
            word(run(m, elf::R_X86_64_NONE, 0, 5).unwrap()),
            0xaaaa_aaaa_aaaa_aaaa
        );
        assert_eq!(
            word(run(m, elf::R_X86_64_RELATIVE, 0, 0x20).unwrap()),
            BIAS + 0x20
        );
        assert_eq!(word(run(m, elf::R_X86_64_64, 1, 8).unwrap()), BIAS + 0x1108);
        assert_eq!(
            word(run(m, elf::R_X86_64_GLOB_DAT, 1, 8).unwrap()),
            BIAS + 0x1100
        );
        assert_eq!(
            word(run(m, elf::R_X86_64_JUMP_SLOT, 1, 0).unwrap()),
            BIAS + 0x1100
        );
        assert_eq!(
            word(run(m, elf::R_X86_64_COPY, 1, 0).unwrap()),
            BIAS + 0x1100
        );
        // 32-bit writes leave the upper half alone.
        let b = run(m, elf::R_X86_64_32, 1, 4).unwrap();
        assert_eq!(&b[..4], &((BIAS + 0x1104) as u32).to_le_bytes());
        assert_eq!(&b[4..], &[0xaa; 4]);
        let b = run(m, elf::R_X86_64_32S, 1, -0x200).unwrap();
        assert_eq!(&b[..4], &((BIAS + 0xf00) as u32).to_le_bytes());
        // S + A - P, P = BIAS + LO + 64 = BASE + 64.
        let b = run(m, elf::R_X86_64_PC32, 1, -4).unwrap();
        assert_eq!(&b[..4], &(0x1100i32 - 4 - (LO as i32 + 64)).to_le_bytes());
        for ty in [
            elf::R_X86_64_GOTPCREL,
            elf::R_X86_64_PC64,
            elf::R_X86_64_16,
            999,
        ] {
            let e = run(m, ty, 0, 0).unwrap_err();
            assert_eq!(e.code(), StatusCode::Unimplemented);
            assert!(e.message().contains(&format!("type {ty} ")), "{e}");
        }
    }

    #[test]
    fn aarch64_types() {
        let m = Machine::Aarch64;
        assert_eq!(
            word(run(m, elf::R_AARCH64_NONE, 0, 5).unwrap()),
            0xaaaa_aaaa_aaaa_aaaa
        );
        assert_eq!(
            word(run(m, elf::R_AARCH64_RELATIVE, 0, 0x20).unwrap()),
            BIAS + 0x20
        );
        assert_eq!(
            word(run(m, elf::R_AARCH64_ABS64, 1, 8).unwrap()),
            BIAS + 0x1108
        );
        assert_eq!(
            word(run(m, elf::R_AARCH64_GLOB_DAT, 1, 0).unwrap()),
            BIAS + 0x1100
        );
        assert_eq!(
            word(run(m, elf::R_AARCH64_JUMP_SLOT, 1, 0).unwrap()),
            BIAS + 0x1100
        );
        for ty in [
            elf::R_AARCH64_PREL32,
            elf::R_AARCH64_COPY,
            elf::R_X86_64_RELATIVE,
        ] {
            assert_eq!(
                run(m, ty, 0, 0).unwrap_err().code(),
                StatusCode::Unimplemented
            );
        }
    }

    #[test]
    fn bad_symbols_and_targets_fail() {
        let e = run(Machine::X86_64, elf::R_X86_64_64, 2, 0).unwrap_err();
        assert_eq!(e.code(), StatusCode::OutOfRange);
        let mut image = vec![0u8; 64];
        for target in [0u64, LO + 60, LO + 64, u64::MAX] {
            image[0..8].copy_from_slice(&target.to_le_bytes());
            image[8..16].copy_from_slice(&u64::from(elf::R_X86_64_RELATIVE).to_le_bytes());
            let e = apply(Machine::X86_64, &mut image, LO, BIAS, &[0], &[TABLE]).unwrap_err();
            assert_eq!(e.code(), StatusCode::InvalidArgument, "{target:x}");
        }
    }
}
