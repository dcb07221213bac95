//! The system-library loader (upstream `hal/local/loaders/system_library_loader.c`):
//! `system-elf-<arch>` executables, which modules compiled with
//! `--iree-llvmcpu-link-embedded=false` carry.
//!
//! Such an executable is a regular platform shared object that exports
//! `iree_hal_executable_library_query`, with the same library ABI (version
//! 6) and dispatch ABI as an embedded ELF. Unlike an embedded ELF it may
//! import symbols from the process (the 3.13 compiler leaves libm calls such
//! as `fmaf` or `ceilf` undefined), so the platform's dynamic loader maps it:
//! the payload is written to a sealed memfd (or a temporary file, where there
//! is no memfd or the dynamic loader cannot map one) and opened with
//! `dlopen(RTLD_NOW | RTLD_LOCAL)`, so unresolved imports fail the load
//! instead of a later call. glibc's libm is first opened into the global
//! scope (upstream's runtime links it; a Rust binary may not).
//!
//! # Checks before `dlopen`
//!
//! The dynamic loader trusts the headers of what it opens, so a malformed
//! payload could crash it. [`check_system_library`] therefore parses the
//! payload first and refuses, with a [`Status`], anything the loader would
//! read out of bounds or divide by zero on: the ELF and program headers,
//! every `PT_LOAD` segment (inside the file, ordered, aligned, ending below
//! [`MAX_IMAGE_SIZE`]), the other segments the loader reads or protects, the dynamic table (every address inside the
//! image, every string inside `DT_STRTAB`), the symbol hash tables, the
//! symbols, every relocation's target and symbol, and the symbol version
//! tables; and it requires a defined `STT_FUNC` query symbol inside an
//! executable segment. What passes is then trusted as upstream trusts it:
//! `dlopen` runs the library's initializers and the loader calls its query
//! and dispatch functions (see the crate docs).
//!
//! # Reading the loaded library
//!
//! The library the query returns is read through [`ImageMemory`] over the
//! loaded image: the load base is the query symbol's address minus its
//! `st_value`; readable memory is the `PT_LOAD` segments with `PF_R`, code
//! the ones with `PF_X`. Nothing in the image runs while it is read (the
//! library is read once, on the loading thread, before any dispatch).

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader};
use object::Endianness;

use iree_base::{bail, Result, Status, StatusCode};

use crate::elf::Machine;
use crate::executable::{ExecutableLoader, WorkgroupExecutable};
use crate::library::{
    self, DispatchStateV0, EnvironmentV0, ExportInfo, ImageMemory, LibraryInfo, ProcessorV0,
    WorkgroupStateV0,
};
use crate::queried::QueriedLibrary;

/// Highest end address (file virtual address) of a `PT_LOAD` segment the
/// loader accepts, which bounds the image's span.
pub const MAX_IMAGE_SIZE: u64 = 1 << 30;

/// Most dynamic symbols, versions or hash chain steps the checks accept.
const MAX_TABLE_ENTRIES: u64 = 1 << 20;

/// `DT_RELRSZ`, `DT_RELR`, `DT_RELRENT` (not in `object`'s constants).
const DT_RELRSZ: u32 = 35;
const DT_RELR: u32 = 36;
const DT_RELRENT: u32 = 37;

/// Size of an `Elf64_Sym`.
const SYM_SIZE: u64 = 24;
/// Size of an `Elf64_Rela`.
const RELA_SIZE: u64 = 24;

/// The `system-elf-<arch>` format this host loads, if any
/// (`system-elf-x86_64` / `system-elf-arm_64` on ELF platforms).
pub fn host_system_elf_format() -> Option<&'static str> {
    if !cfg!(any(target_os = "linux", target_os = "android")) {
        return None;
    }
    match Machine::host()? {
        Machine::X86_64 => Some("system-elf-x86_64"),
        Machine::Aarch64 => Some("system-elf-arm_64"),
    }
}

/// One `PT_LOAD` segment, validated against the file.
#[derive(Clone, Copy, Debug)]
struct Segment {
    vaddr: u64,
    memsz: u64,
    offset: u64,
    filesz: u64,
    flags: u32,
}

impl Segment {
    fn contains(&self, vaddr: u64, len: u64) -> bool {
        vaddr >= self.vaddr
            && vaddr
                .checked_add(len)
                .is_some_and(|end| end <= self.vaddr + self.memsz)
    }
}

/// What [`check_system_library`] learned about a payload.
#[derive(Clone, Debug)]
pub struct SystemLibraryLayout {
    /// The image's architecture.
    pub machine: Machine,
    /// `st_value` of `iree_hal_executable_library_query`.
    pub query_value: u64,
    /// Number of `PT_LOAD` segments.
    pub segment_count: usize,
    segments: Vec<Segment>,
}

/// The payload seen through its `PT_LOAD` segments, by file virtual address.
struct FileView<'a> {
    bytes: &'a [u8],
    segments: &'a [Segment],
}

impl FileView<'_> {
    /// The file bytes the loader maps at `[vaddr, vaddr + len)`; the range
    /// must lie in the file-backed part of one segment.
    fn slice(&self, vaddr: u64, len: u64, what: &str) -> Result<&[u8]> {
        let found = self.segments.iter().find_map(|s| {
            let rel = vaddr.checked_sub(s.vaddr)?;
            let end = rel.checked_add(len)?;
            (end <= s.filesz).then(|| (s.offset + rel) as usize..(s.offset + end) as usize)
        });
        match found.and_then(|r| self.bytes.get(r)) {
            Some(b) => Ok(b),
            None => bail!(
                InvalidArgument,
                "{what} range [0x{vaddr:x}, +0x{len:x}) is outside the file-backed part of the image"
            ),
        }
    }

    /// Whether `[vaddr, vaddr + len)` lies inside one segment's memory.
    fn in_image(&self, vaddr: u64, len: u64) -> bool {
        self.segments.iter().any(|s| s.contains(vaddr, len))
    }

    fn in_code(&self, vaddr: u64) -> bool {
        self.segments
            .iter()
            .any(|s| s.flags & elf::PF_X != 0 && s.contains(vaddr, 1))
    }

    fn check_in_image(&self, vaddr: u64, len: u64, what: &str) -> Result<()> {
        if !self.in_image(vaddr, len) {
            bail!(
                InvalidArgument,
                "{what} range [0x{vaddr:x}, +0x{len:x}) is outside the image's segments"
            );
        }
        Ok(())
    }
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap_or_default())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or_default())
}

/// Dynamic-table values the checks use (file virtual addresses).
#[derive(Default, Debug)]
struct Dynamic {
    strtab: Option<u64>,
    strsz: Option<u64>,
    symtab: Option<u64>,
    hash: Option<u64>,
    gnu_hash: Option<u64>,
    rela: Option<u64>,
    relasz: u64,
    jmprel: Option<u64>,
    pltrelsz: u64,
    pltrel: Option<u64>,
    relr: Option<u64>,
    relrsz: u64,
    init: Option<u64>,
    fini: Option<u64>,
    init_array: Option<u64>,
    init_arraysz: u64,
    fini_array: Option<u64>,
    fini_arraysz: u64,
    versym: Option<u64>,
    verdef: Option<u64>,
    verneed: Option<u64>,
    /// Offsets into `DT_STRTAB` (`DT_NEEDED`, `DT_SONAME`, ...).
    strings: Vec<(u32, u64)>,
}

fn parse_dynamic(bytes: &[u8]) -> Result<Dynamic> {
    let mut d = Dynamic::default();
    for e in bytes.chunks_exact(16) {
        let tag = u64_at(e, 0);
        let val = u64_at(e, 8);
        let Ok(tag) = u32::try_from(tag) else {
            continue;
        };
        match tag {
            elf::DT_NULL => return Ok(d),
            elf::DT_STRTAB => d.strtab = Some(val),
            elf::DT_STRSZ => d.strsz = Some(val),
            elf::DT_SYMTAB => d.symtab = Some(val),
            elf::DT_SYMENT if val != SYM_SIZE => {
                bail!(InvalidArgument, "DT_SYMENT {val} is not {SYM_SIZE}")
            }
            elf::DT_HASH => d.hash = Some(val),
            elf::DT_GNU_HASH => d.gnu_hash = Some(val),
            elf::DT_RELA => d.rela = Some(val),
            elf::DT_RELASZ => d.relasz = val,
            elf::DT_RELAENT if val != RELA_SIZE => {
                bail!(InvalidArgument, "DT_RELAENT {val} is not {RELA_SIZE}")
            }
            elf::DT_JMPREL => d.jmprel = Some(val),
            elf::DT_PLTRELSZ => d.pltrelsz = val,
            elf::DT_PLTREL => d.pltrel = Some(val),
            DT_RELR => d.relr = Some(val),
            DT_RELRSZ => d.relrsz = val,
            DT_RELRENT if val != 8 => {
                bail!(InvalidArgument, "DT_RELRENT {val} is not 8")
            }
            elf::DT_REL | elf::DT_RELSZ | elf::DT_RELENT => {
                bail!(
                    Unimplemented,
                    "DT_REL relocations are not supported; only RELA relocations are"
                )
            }
            elf::DT_INIT => d.init = Some(val),
            elf::DT_FINI => d.fini = Some(val),
            elf::DT_INIT_ARRAY => d.init_array = Some(val),
            elf::DT_INIT_ARRAYSZ => d.init_arraysz = val,
            elf::DT_FINI_ARRAY => d.fini_array = Some(val),
            elf::DT_FINI_ARRAYSZ => d.fini_arraysz = val,
            elf::DT_VERSYM => d.versym = Some(val),
            elf::DT_VERDEF => d.verdef = Some(val),
            elf::DT_VERNEED => d.verneed = Some(val),
            elf::DT_NEEDED
            | elf::DT_SONAME
            | elf::DT_RPATH
            | elf::DT_RUNPATH
            | elf::DT_AUXILIARY
            | elf::DT_FILTER => d.strings.push((tag, val)),
            _ => {}
        }
    }
    bail!(InvalidArgument, "dynamic table has no DT_NULL terminator")
}

/// Checks that `offset` starts a NUL-terminated string inside `strtab`.
fn check_string(strtab: &[u8], offset: u64, what: &str) -> Result<()> {
    let ok = usize::try_from(offset)
        .ok()
        .and_then(|o| strtab.get(o..))
        .is_some_and(|tail| tail.contains(&0));
    if !ok {
        bail!(
            InvalidArgument,
            "{what} name offset {offset} is not a string inside DT_STRTAB ({} bytes)",
            strtab.len()
        );
    }
    Ok(())
}

/// Checks `DT_HASH`; returns its symbol count (`nchain`).
fn check_sysv_hash(view: &FileView<'_>, hash: u64) -> Result<u64> {
    let header = view.slice(hash, 8, "DT_HASH")?;
    let (nbucket, nchain) = (u64::from(u32_at(header, 0)), u64::from(u32_at(header, 4)));
    if nbucket == 0 || nchain == 0 || nbucket + nchain > MAX_TABLE_ENTRIES {
        bail!(
            InvalidArgument,
            "DT_HASH has {nbucket} buckets and {nchain} chain entries"
        );
    }
    let table = view.slice(hash, 4 * (2 + nbucket + nchain), "DT_HASH")?;
    for i in 0..(nbucket + nchain) as usize {
        let v = u64::from(u32_at(table, 8 + 4 * i));
        if v >= nchain {
            bail!(
                InvalidArgument,
                "DT_HASH entry {i} names symbol {v}; the table has {nchain}"
            );
        }
    }
    Ok(nchain)
}

/// Checks `DT_GNU_HASH`; returns the number of symbols it covers.
fn check_gnu_hash(view: &FileView<'_>, hash: u64) -> Result<u64> {
    let header = view.slice(hash, 16, "DT_GNU_HASH")?;
    let nbuckets = u64::from(u32_at(header, 0));
    let symoffset = u64::from(u32_at(header, 4));
    let bloom_size = u64::from(u32_at(header, 8));
    let bloom_shift = u32_at(header, 12);
    if nbuckets == 0
        || nbuckets > MAX_TABLE_ENTRIES
        || symoffset > MAX_TABLE_ENTRIES
        || !bloom_size.is_power_of_two()
        || bloom_size > MAX_TABLE_ENTRIES
        || bloom_shift >= 64
    {
        bail!(
            InvalidArgument,
            "DT_GNU_HASH header is invalid ({nbuckets} buckets, symbol offset {symoffset}, bloom size {bloom_size}, bloom shift {bloom_shift})"
        );
    }
    let buckets_at = hash + 16 + 8 * bloom_size;
    let buckets = view.slice(buckets_at, 4 * nbuckets, "DT_GNU_HASH buckets")?;
    let chains_at = buckets_at + 4 * nbuckets;
    let mut count = symoffset;
    let mut steps = 0u64;
    for b in 0..nbuckets as usize {
        let first = u64::from(u32_at(buckets, 4 * b));
        if first == 0 {
            continue;
        }
        if first < symoffset {
            bail!(
                InvalidArgument,
                "DT_GNU_HASH bucket {b} starts at symbol {first}, below the symbol offset {symoffset}"
            );
        }
        let mut index = first;
        loop {
            steps += 1;
            if steps > MAX_TABLE_ENTRIES {
                bail!(InvalidArgument, "DT_GNU_HASH chains are too long");
            }
            let entry = view.slice(chains_at + 4 * (index - symoffset), 4, "DT_GNU_HASH chain")?;
            if u32_at(entry, 0) & 1 != 0 {
                break;
            }
            index += 1;
        }
        count = count.max(index + 1);
    }
    Ok(count)
}

/// Checks the relocation table at `table` (`size` bytes) against the image
/// and the symbol count.
fn check_rela(view: &FileView<'_>, table: u64, size: u64, symbols: u64, what: &str) -> Result<()> {
    if !size.is_multiple_of(RELA_SIZE) {
        bail!(
            InvalidArgument,
            "{what} table size {size} is not a multiple of {RELA_SIZE}"
        );
    }
    let bytes = view.slice(table, size, what)?;
    for (i, r) in bytes.chunks_exact(RELA_SIZE as usize).enumerate() {
        let offset = u64_at(r, 0);
        let sym = u64_at(r, 8) >> 32;
        if !view.in_image(offset, 8) {
            bail!(
                InvalidArgument,
                "{what} relocation {i} targets 0x{offset:x}, outside the image's segments"
            );
        }
        if sym >= symbols {
            bail!(
                InvalidArgument,
                "{what} relocation {i} names symbol {sym}; the table has {symbols}"
            );
        }
    }
    Ok(())
}

/// Checks a `DT_RELR` table: every address it relocates is in the image.
fn check_relr(view: &FileView<'_>, table: u64, size: u64) -> Result<()> {
    if !size.is_multiple_of(8) {
        bail!(
            InvalidArgument,
            "DT_RELR table size {size} is not a multiple of 8"
        );
    }
    let bytes = view.slice(table, size, "DT_RELR")?;
    let mut next: Option<u64> = None;
    for (i, e) in bytes.chunks_exact(8).enumerate() {
        let v = u64_at(e, 0);
        if v & 1 == 0 {
            view.check_in_image(v, 8, "DT_RELR address")?;
            next = Some(v + 8);
        } else {
            let Some(base) = next else {
                bail!(
                    InvalidArgument,
                    "DT_RELR entry {i} is a bitmap without a preceding address"
                );
            };
            for bit in 1..64u64 {
                if v >> bit & 1 != 0 {
                    view.check_in_image(base + 8 * (bit - 1), 8, "DT_RELR bitmap target")?;
                }
            }
            next = Some(base + 63 * 8);
        }
    }
    Ok(())
}

/// Walks `DT_VERDEF`; returns the highest version index it defines.
fn check_verdef(view: &FileView<'_>, at: u64, strtab: &[u8]) -> Result<u64> {
    let mut highest = 0;
    let mut entry = at;
    for _ in 0..MAX_TABLE_ENTRIES {
        let d = view.slice(entry, 20, "DT_VERDEF entry")?;
        if u16_at(d, 0) != 1 {
            bail!(
                InvalidArgument,
                "DT_VERDEF entry version {} is not 1",
                u16_at(d, 0)
            );
        }
        highest = highest.max(u64::from(u16_at(d, 4) & 0x7fff));
        let mut aux = entry + u64::from(u32_at(d, 12));
        for _ in 0..u16_at(d, 6) {
            let a = view.slice(aux, 8, "DT_VERDEF auxiliary entry")?;
            check_string(strtab, u64::from(u32_at(a, 0)), "version definition")?;
            if u32_at(a, 4) == 0 {
                break;
            }
            aux += u64::from(u32_at(a, 4));
        }
        match u32_at(d, 16) {
            0 => return Ok(highest),
            next => entry += u64::from(next),
        }
    }
    bail!(InvalidArgument, "DT_VERDEF chain is too long")
}

/// Walks `DT_VERNEED`; returns the highest version index it names.
fn check_verneed(view: &FileView<'_>, at: u64, strtab: &[u8]) -> Result<u64> {
    let mut highest = 0;
    let mut entry = at;
    for _ in 0..MAX_TABLE_ENTRIES {
        let n = view.slice(entry, 16, "DT_VERNEED entry")?;
        if u16_at(n, 0) != 1 {
            bail!(
                InvalidArgument,
                "DT_VERNEED entry version {} is not 1",
                u16_at(n, 0)
            );
        }
        check_string(strtab, u64::from(u32_at(n, 4)), "version dependency file")?;
        let mut aux = entry + u64::from(u32_at(n, 8));
        for _ in 0..MAX_TABLE_ENTRIES {
            let a = view.slice(aux, 16, "DT_VERNEED auxiliary entry")?;
            highest = highest.max(u64::from(u16_at(a, 6) & 0x7fff));
            check_string(strtab, u64::from(u32_at(a, 8)), "needed version")?;
            match u32_at(a, 12) {
                0 => break,
                next => aux += u64::from(next),
            }
        }
        match u32_at(n, 12) {
            0 => return Ok(highest),
            next => entry += u64::from(next),
        }
    }
    bail!(InvalidArgument, "DT_VERNEED chain is too long")
}

/// Splits off upstream's optional debug footer (`IREEDBG\0`, 48 bytes at
/// the end of the payload) and returns the library bytes.
fn strip_footer(data: &[u8]) -> Result<&[u8]> {
    const FOOTER_SIZE: usize = 48;
    let Some(footer_at) = data.len().checked_sub(FOOTER_SIZE) else {
        return Ok(data);
    };
    let footer = &data[footer_at..];
    if &footer[..8] != b"IREEDBG\0" {
        return Ok(data);
    }
    let library_size = u64_at(footer, 24);
    let debug_offset = u64_at(footer, 32);
    let debug_size = u64_at(footer, 40);
    let limit = footer_at as u64;
    if library_size > limit
        || debug_offset
            .checked_add(debug_size)
            .is_none_or(|e| e > limit)
    {
        bail!(
            OutOfRange,
            "system library footer references out of range bytes"
        );
    }
    Ok(&data[..library_size as usize])
}

/// Checks a `system-elf` payload (after any debug footer is stripped) as
/// described in the module docs, without loading it. Fails with
/// INVALID_ARGUMENT for malformed input, UNIMPLEMENTED for an ELF this host
/// cannot load (another architecture, 32-bit, big-endian, `DT_REL`) and
/// NOT_FOUND when the query symbol is missing.
pub fn check_system_library(data: &[u8]) -> Result<SystemLibraryLayout> {
    let bytes = strip_footer(data)?;
    check_elf(bytes).map_err(|s| s.annotate("checking system library"))
}

fn check_elf(bytes: &[u8]) -> Result<SystemLibraryLayout> {
    let header = elf::FileHeader64::<Endianness>::parse(bytes).map_err(|e| {
        if bytes.len() > 4 && bytes.starts_with(&elf::ELFMAG) && bytes[4] == elf::ELFCLASS32 {
            Status::new(
                StatusCode::Unimplemented,
                "32-bit ELF files are not supported",
            )
        } else {
            Status::new(
                StatusCode::InvalidArgument,
                format!("not a valid ELF64 file: {e}"),
            )
        }
    })?;
    let endian = header
        .endian()
        .map_err(|e| Status::new(StatusCode::InvalidArgument, format!("invalid ELF: {e}")))?;
    if endian != Endianness::Little {
        bail!(Unimplemented, "big-endian ELF files are not supported");
    }
    let machine = match header.e_machine(endian) {
        elf::EM_X86_64 => Machine::X86_64,
        elf::EM_AARCH64 => Machine::Aarch64,
        other => bail!(Unimplemented, "ELF machine type {other} is not supported"),
    };
    if Machine::host() != Some(machine) {
        bail!(
            Unimplemented,
            "the library is built for {}; this host cannot load it",
            machine.iree_name()
        );
    }
    let e_type = header.e_type(endian);
    if e_type != elf::ET_DYN {
        bail!(
            InvalidArgument,
            "ELF type {e_type} is not a shared object (ET_DYN)"
        );
    }
    let phdrs = header.program_headers(endian, bytes).map_err(|e| {
        Status::new(
            StatusCode::InvalidArgument,
            format!("invalid ELF program headers: {e}"),
        )
    })?;

    let (segments, (dyn_vaddr, dyn_size)) = check_segments(bytes, endian, phdrs)?;
    let view = FileView {
        bytes,
        segments: &segments,
    };
    let query_value = check_dynamic(&view, dyn_vaddr, dyn_size)?;
    Ok(SystemLibraryLayout {
        machine,
        query_value,
        segment_count: segments.len(),
        segments,
    })
}

/// Checks the program headers: every `PT_LOAD` segment (non-empty ones are
/// returned, in order) and the ranges of the other segments the dynamic
/// loader reads or protects; returns the `PT_DYNAMIC` range too.
fn check_segments(
    bytes: &[u8],
    endian: Endianness,
    phdrs: &[elf::ProgramHeader64<Endianness>],
) -> Result<(Vec<Segment>, (u64, u64))> {
    let mut segments: Vec<Segment> = Vec::new();
    let mut dynamic = None;
    // Other segments the dynamic loader reads or protects: type, start, size.
    let mut ranges = Vec::new();
    for ph in phdrs {
        match ph.p_type(endian) {
            elf::PT_INTERP => bail!(
                InvalidArgument,
                "ELF has an interpreter (PT_INTERP): it is an executable, not a shared library"
            ),
            elf::PT_DYNAMIC => {
                if dynamic.is_some() {
                    bail!(InvalidArgument, "ELF has more than one PT_DYNAMIC");
                }
                dynamic = Some((ph.p_vaddr(endian), ph.p_filesz(endian)));
            }
            elf::PT_LOAD => {
                let seg = Segment {
                    vaddr: ph.p_vaddr(endian),
                    memsz: ph.p_memsz(endian),
                    offset: ph.p_offset(endian),
                    filesz: ph.p_filesz(endian),
                    flags: ph.p_flags(endian),
                };
                let align = ph.p_align(endian);
                let i = segments.len();
                if seg.memsz == 0 {
                    continue;
                }
                if seg.filesz > seg.memsz {
                    bail!(
                        InvalidArgument,
                        "PT_LOAD segment {i} file size {} exceeds its memory size {}",
                        seg.filesz,
                        seg.memsz
                    );
                }
                if seg
                    .offset
                    .checked_add(seg.filesz)
                    .is_none_or(|end| end > bytes.len() as u64)
                {
                    bail!(
                        InvalidArgument,
                        "PT_LOAD segment {i} file range [0x{:x}, +0x{:x}) is outside the {}-byte file",
                        seg.offset,
                        seg.filesz,
                        bytes.len()
                    );
                }
                if seg
                    .vaddr
                    .checked_add(seg.memsz)
                    .is_none_or(|end| end > MAX_IMAGE_SIZE)
                {
                    bail!(
                        InvalidArgument,
                        "PT_LOAD segment {i} virtual range [0x{:x}, +0x{:x}) is beyond the {MAX_IMAGE_SIZE}-byte image limit",
                        seg.vaddr,
                        seg.memsz
                    );
                }
                if align > 1
                    && (!align.is_power_of_two() || seg.vaddr % align != seg.offset % align)
                {
                    bail!(
                        InvalidArgument,
                        "PT_LOAD segment {i} address 0x{:x} and offset 0x{:x} do not agree with its alignment 0x{align:x}",
                        seg.vaddr,
                        seg.offset
                    );
                }
                if let Some(prev) = segments.last() {
                    if prev.vaddr + prev.memsz > seg.vaddr {
                        bail!(
                            InvalidArgument,
                            "PT_LOAD segment {i} at 0x{:x} overlaps or precedes the one before it",
                            seg.vaddr
                        );
                    }
                }
                segments.push(seg);
            }
            elf::PT_TLS => ranges.push(("PT_TLS", ph.p_vaddr(endian), ph.p_filesz(endian))),
            kind @ (elf::PT_GNU_RELRO
            | elf::PT_NOTE
            | elf::PT_GNU_PROPERTY
            | elf::PT_GNU_EH_FRAME) => {
                let name = match kind {
                    elf::PT_GNU_RELRO => "PT_GNU_RELRO",
                    elf::PT_NOTE => "PT_NOTE",
                    elf::PT_GNU_PROPERTY => "PT_GNU_PROPERTY",
                    _ => "PT_GNU_EH_FRAME",
                };
                ranges.push((name, ph.p_vaddr(endian), ph.p_memsz(endian)));
            }
            _ => {}
        }
    }
    if segments.is_empty() {
        bail!(InvalidArgument, "ELF has no non-empty PT_LOAD segments");
    }
    let view = FileView {
        bytes,
        segments: &segments,
    };
    for &(what, vaddr, size) in &ranges {
        if size > 0 {
            view.check_in_image(vaddr, size, what)?;
        }
    }
    let Some(dynamic) = dynamic else {
        bail!(InvalidArgument, "ELF has no PT_DYNAMIC segment");
    };
    Ok((segments, dynamic))
}

/// Checks the dynamic table at `[dyn_vaddr, +dyn_size)` and everything it
/// points to; returns the query symbol's `st_value`.
fn check_dynamic(view: &FileView<'_>, dyn_vaddr: u64, dyn_size: u64) -> Result<u64> {
    let d = parse_dynamic(view.slice(dyn_vaddr, dyn_size, "PT_DYNAMIC")?)?;

    // Strings.
    let (Some(strtab_at), Some(strsz)) = (d.strtab, d.strsz) else {
        bail!(
            InvalidArgument,
            "ELF dynamic table has no DT_STRTAB/DT_STRSZ"
        );
    };
    let strtab = view.slice(strtab_at, strsz, "DT_STRTAB")?;
    for &(tag, offset) in &d.strings {
        check_string(strtab, offset, &format!("dynamic tag {tag}"))?;
    }

    // Symbols, counted by the hash tables.
    let Some(symtab_at) = d.symtab else {
        bail!(InvalidArgument, "ELF dynamic table has no DT_SYMTAB");
    };
    let mut symbol_count = 0;
    if let Some(hash) = d.hash {
        symbol_count = check_sysv_hash(view, hash)?;
    }
    if let Some(hash) = d.gnu_hash {
        symbol_count = symbol_count.max(check_gnu_hash(view, hash)?);
    }
    if d.hash.is_none() && d.gnu_hash.is_none() {
        bail!(
            InvalidArgument,
            "ELF dynamic table has no DT_HASH or DT_GNU_HASH"
        );
    }
    let symtab = view.slice(symtab_at, symbol_count * SYM_SIZE, "DT_SYMTAB")?;
    let mut query_value = None;
    for (i, s) in symtab.chunks_exact(SYM_SIZE as usize).enumerate() {
        let name_offset = u64::from(u32_at(s, 0));
        check_string(strtab, name_offset, &format!("dynamic symbol {i}"))?;
        let (info, shndx, value) = (s[4], u16_at(s, 6), u64_at(s, 8));
        let name = &strtab[name_offset as usize..];
        let is_query = name.starts_with(library::QUERY_SYMBOL_NAME.as_bytes())
            && name.get(library::QUERY_SYMBOL_NAME.len()) == Some(&0);
        if is_query
            && i > 0
            && shndx != elf::SHN_UNDEF
            && matches!(info >> 4, elf::STB_GLOBAL | elf::STB_WEAK)
        {
            if info & 0xf != elf::STT_FUNC {
                bail!(
                    InvalidArgument,
                    "symbol '{}' is not a function (type {})",
                    library::QUERY_SYMBOL_NAME,
                    info & 0xf
                );
            }
            if !view.in_code(value) {
                bail!(
                    InvalidArgument,
                    "symbol '{}' at 0x{value:x} is not inside an executable segment",
                    library::QUERY_SYMBOL_NAME
                );
            }
            query_value = Some(value);
        }
    }
    let Some(query_value) = query_value else {
        bail!(
            NotFound,
            "exported symbol with name '{}' not found in module",
            library::QUERY_SYMBOL_NAME
        );
    };

    // Relocations.
    if let Some(rela) = d.rela {
        check_rela(view, rela, d.relasz, symbol_count, "DT_RELA")?;
    }
    if let Some(jmprel) = d.jmprel {
        if d.pltrel != Some(u64::from(elf::DT_RELA)) {
            bail!(
                Unimplemented,
                "DT_PLTREL is not DT_RELA; only RELA relocations are supported"
            );
        }
        check_rela(view, jmprel, d.pltrelsz, symbol_count, "DT_JMPREL")?;
    }
    if let Some(relr) = d.relr {
        check_relr(view, relr, d.relrsz)?;
    }

    // Initializers and finalizers the loader calls.
    for (at, what) in [(d.init, "DT_INIT"), (d.fini, "DT_FINI")] {
        if let Some(at) = at {
            if !view.in_code(at) {
                bail!(
                    InvalidArgument,
                    "{what} 0x{at:x} is not inside an executable segment"
                );
            }
        }
    }
    for (at, size, what) in [
        (d.init_array, d.init_arraysz, "DT_INIT_ARRAY"),
        (d.fini_array, d.fini_arraysz, "DT_FINI_ARRAY"),
    ] {
        if let Some(at) = at {
            if !size.is_multiple_of(8) {
                bail!(InvalidArgument, "{what} size {size} is not a multiple of 8");
            }
            view.check_in_image(at, size, what)?;
        }
    }

    // Symbol versions.
    let mut highest_version = 1;
    if let Some(at) = d.verdef {
        highest_version = highest_version.max(check_verdef(view, at, strtab)?);
    }
    if let Some(at) = d.verneed {
        highest_version = highest_version.max(check_verneed(view, at, strtab)?);
    }
    if let Some(at) = d.versym {
        let versym = view.slice(at, 2 * symbol_count, "DT_VERSYM")?;
        for (i, v) in versym.chunks_exact(2).enumerate() {
            let index = u64::from(u16_at(v, 0) & 0x7fff);
            if index > highest_version {
                bail!(
                    InvalidArgument,
                    "DT_VERSYM entry {i} names version {index}; the highest defined is {highest_version}"
                );
            }
        }
    }

    Ok(query_value)
}

/// The loaded image's segments, by absolute address.
#[derive(Debug)]
struct LoadedImage {
    /// The load base (added to a file virtual address).
    base: u64,
    /// Readable ranges (`PF_R` segments): start, end.
    readable: Vec<(u64, u64)>,
    /// Executable ranges (`PF_X` segments): start, end.
    code: Vec<(u64, u64)>,
}

impl LoadedImage {
    fn new(base: u64, segments: &[Segment]) -> Result<LoadedImage> {
        let mut readable = Vec::new();
        let mut code = Vec::new();
        for s in segments {
            let range = base
                .checked_add(s.vaddr)
                .and_then(|start| Some((start, start.checked_add(s.memsz)?)));
            let Some(range) = range else {
                bail!(
                    Internal,
                    "segment at 0x{:x} does not fit at load base 0x{base:x}",
                    s.vaddr
                );
            };
            if s.flags & elf::PF_R != 0 {
                readable.push(range);
            }
            if s.flags & elf::PF_X != 0 {
                code.push(range);
            }
        }
        Ok(LoadedImage {
            base,
            readable,
            code,
        })
    }
}

impl ImageMemory for LoadedImage {
    fn read(&self, address: u64, out: &mut [u8]) -> Result<()> {
        let mut at = address;
        let mut done = 0;
        while done < out.len() {
            let Some(&(_, end)) = self.readable.iter().find(|r| r.0 <= at && at < r.1) else {
                bail!(
                    OutOfRange,
                    "address 0x{at:x} is outside the system library's readable segments"
                );
            };
            let n = (out.len() - done).min((end - at) as usize);
            // SAFETY: `[at, at + n)` lies inside a PF_R PT_LOAD segment that
            // the dynamic loader mapped readable at this load base; the
            // library stays loaded while this image is in use (both are owned
            // by `SystemLibrary`), and nothing in it runs while it is read
            // (see the module docs).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    at as usize as *const u8,
                    out[done..].as_mut_ptr(),
                    n,
                );
            }
            done += n;
            at += n as u64;
        }
        Ok(())
    }

    fn is_code(&self, address: u64) -> bool {
        self.code.iter().any(|r| r.0 <= address && address < r.1)
    }
}

/// The file a library is opened from: a memfd kept open while the library
/// is loaded (so its `/proc/self/fd/N` name stays unique: the dynamic loader
/// matches already-loaded libraries by name), or a temporary file removed
/// once opened.
struct Backing {
    path: std::path::PathBuf,
    /// The memfd, if one is used (held open, never read).
    _memfd: Option<std::fs::File>,
    /// Whether `path` is a temporary file to remove.
    temporary: bool,
}

impl Drop for Backing {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn io_status(e: std::io::Error, what: impl std::fmt::Display) -> Status {
    Status::new(StatusCode::Unavailable, format!("{what}: {e}"))
}

impl Backing {
    /// A sealed memfd holding `bytes`, where there are memfds and
    /// `/proc/self/fd`; `None` elsewhere.
    fn memfd(bytes: &[u8]) -> Result<Option<Backing>> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if std::path::Path::new("/proc/self/fd").is_dir() {
            use rustix::fs::{memfd_create, MemfdFlags, SealFlags};
            const NAME: &str = "iree-system-library";
            let flags = MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING;
            // MFD_EXEC (Linux 6.3+) asks for a memfd that may be mapped as
            // code where `vm.memfd_noexec` makes no-exec the default; older
            // kernels reject the flag.
            let fd =
                memfd_create(NAME, flags | MemfdFlags::EXEC).or_else(|_| memfd_create(NAME, flags));
            if let Ok(fd) = fd {
                use std::io::Write;
                use std::os::fd::AsRawFd;
                let mut file = std::fs::File::from(fd);
                file.write_all(bytes)
                    .map_err(|e| io_status(e, "writing the system library to a memfd"))?;
                // Nothing may change the file the library is mapped from.
                let _ = rustix::fs::fcntl_add_seals(
                    &file,
                    SealFlags::WRITE | SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL,
                );
                return Ok(Some(Backing {
                    path: format!("/proc/self/fd/{}", file.as_raw_fd()).into(),
                    _memfd: Some(file),
                    temporary: false,
                }));
            }
        }
        let _ = bytes;
        Ok(None)
    }

    /// A new file in the temporary directory holding `bytes`, removed when
    /// the backing is dropped.
    fn temporary(bytes: &[u8]) -> Result<Backing> {
        use std::io::Write;
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("iree-system-library-{}-{n}.so", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o700);
        let mut file = options
            .open(&path)
            .map_err(|e| io_status(e, format_args!("creating '{}'", path.display())))?;
        let backing = Backing {
            path,
            _memfd: None,
            temporary: true,
        };
        file.write_all(bytes)
            .map_err(|e| io_status(e, format_args!("writing '{}'", backing.path.display())))?;
        Ok(backing)
    }
}

/// Writes `bytes` where the dynamic loader can open them and opens them:
/// from a memfd, or from a temporary file where there is none or the
/// dynamic loader could not open it (a system that forbids executing memfd
/// mappings); the temporary file's error is the one reported then.
fn open_from_memory(bytes: &[u8]) -> Result<(libloading::Library, Backing)> {
    let memfd_error = match Backing::memfd(bytes)? {
        Some(backing) => match open_library(&backing.path) {
            Ok(handle) => return Ok((handle, backing)),
            Err(e) => Some(e),
        },
        None => None,
    };
    let backing = match Backing::temporary(bytes) {
        Ok(backing) => backing,
        Err(e) => return Err(memfd_error.unwrap_or(e)),
    };
    let handle = open_library(&backing.path)?;
    Ok((handle, backing))
}

/// A `system-elf-<host arch>` executable opened by the platform's dynamic
/// loader, queried and ready to dispatch.
pub struct SystemLibrary {
    /// Declared first: dropped while the library is still loaded.
    library: QueriedLibrary,
    image: LoadedImage,
    layout: SystemLibraryLayout,
    /// Unloaded (`dlclose`) on drop, before `backing`.
    _handle: libloading::Library,
    backing: Backing,
}

impl std::fmt::Debug for SystemLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemLibrary")
            .field("path", &self.backing.path)
            .field("layout", &self.layout)
            .field("info", self.library.info())
            .finish()
    }
}

#[cfg(unix)]
fn open_library(path: &std::path::Path) -> Result<libloading::Library> {
    use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
    // SAFETY: opening runs the library's initializers; `check_system_library`
    // validated every header the dynamic loader reads, and what the code
    // then does is trusted as the crate docs describe.
    let library = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) };
    library.map(Into::into).map_err(|e| {
        Status::new(
            StatusCode::NotFound,
            format!("failed to load dynamic library: {e}"),
        )
    })
}

/// Puts the C math library in the process's global symbol scope, once.
///
/// System libraries leave the C math functions their kernels call
/// (`fmaf`, `ceilf`, `floorf`, ...) undefined, for the process to provide:
/// upstream's runtime links libm. A Rust binary links libm only when it uses
/// it, so glibc's libm is opened with `RTLD_GLOBAL` before the first system
/// library is. (On other C libraries the math functions are in libc.)
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn make_libm_global() {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    static LIBM: std::sync::OnceLock<Option<Library>> = std::sync::OnceLock::new();
    LIBM.get_or_init(|| {
        // SAFETY: libm is the platform's C math library; opening it runs
        // only its own initializers. It is never closed (kept in a static).
        unsafe { Library::open(Some("libm.so.6"), RTLD_NOW | RTLD_GLOBAL) }.ok()
    });
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn make_libm_global() {}

#[cfg(not(unix))]
fn open_library(_path: &std::path::Path) -> Result<libloading::Library> {
    bail!(
        Unimplemented,
        "system libraries are loaded only on unix hosts"
    )
}

impl SystemLibrary {
    /// Loads a `system-elf-<host arch>` executable with zeroed processor
    /// data: checks it ([`check_system_library`]), opens it with the
    /// platform's dynamic loader, and queries its library (version
    /// [`crate::LIBRARY_VERSION_LATEST`]).
    pub fn load(data: &[u8]) -> Result<SystemLibrary> {
        Self::load_with_processor(data, ProcessorV0::default())
    }

    /// [`load`](Self::load) with explicit processor feature data.
    pub fn load_with_processor(data: &[u8], processor: ProcessorV0) -> Result<SystemLibrary> {
        Self::load_with_constants(data, processor, &[])
    }

    /// [`load_with_processor`](Self::load_with_processor) with the
    /// executable-level constants the library's environment carries; their
    /// count must be the library's
    /// ([`crate::library::check_executable_constant_count`]).
    pub fn load_with_constants(
        data: &[u8],
        processor: ProcessorV0,
        constants: &[u32],
    ) -> Result<SystemLibrary> {
        let layout = check_system_library(data)?;
        if host_system_elf_format().is_none() {
            bail!(
                Unimplemented,
                "system ELF libraries cannot be loaded on this host"
            );
        }
        make_libm_global();
        let (handle, backing) = open_from_memory(strip_footer(data)?)?;
        let name = format!("{}\0", library::QUERY_SYMBOL_NAME);
        // SAFETY: the symbol is only read as an address here (a data pointer
        // type, never called through this `Symbol`).
        let symbol = unsafe { handle.get::<*const c_void>(name.as_bytes()) };
        let query = match symbol {
            Ok(s) => *s as usize as u64,
            Err(e) => bail!(
                NotFound,
                "symbol '{}' not found in library: {e}",
                library::QUERY_SYMBOL_NAME
            ),
        };
        let Some(base) = query.checked_sub(layout.query_value) else {
            bail!(
                Internal,
                "symbol '{}' resolved to 0x{query:x}, below its st_value 0x{:x}",
                library::QUERY_SYMBOL_NAME,
                layout.query_value
            );
        };
        if !base.is_multiple_of(4096) {
            bail!(
                Internal,
                "symbol '{}' resolved to 0x{query:x}, which is not in this library (load base 0x{base:x} is not page aligned)",
                library::QUERY_SYMBOL_NAME
            );
        }
        let image = LoadedImage::new(base, &layout.segments)?;
        // SAFETY: `handle` keeps the library loaded (relocated, initializers
        // run) and it is stored next to the result, which is dropped first;
        // `image` describes its PT_LOAD segments at the load base found from
        // the query symbol, whose address `QueriedLibrary::query` checks to be
        // in its code; the architecture is the host's (checked above).
        let library = unsafe { QueriedLibrary::query(&image, query, processor, constants)? };
        Ok(SystemLibrary {
            library,
            image,
            layout,
            _handle: handle,
            backing,
        })
    }

    /// Calls the library's query function again with `max_version` and this
    /// library's environment; returns the address it answers with (0: none).
    pub fn query(&self, max_version: u32) -> u64 {
        self.library.query_again(max_version)
    }

    /// Absolute address of the `iree_hal_executable_library_v0_t` that the
    /// query returned at load.
    pub fn library_address(&self) -> u64 {
        self.library.library_address()
    }

    /// What the checks found in the payload.
    pub fn layout(&self) -> &SystemLibraryLayout {
        &self.layout
    }

    /// The load base: what the dynamic loader added to every file virtual
    /// address.
    pub fn base_address(&self) -> u64 {
        self.image.base
    }

    /// Read access to the loaded image's segments.
    pub fn image(&self) -> &dyn ImageMemory {
        &self.image
    }

    /// The library description (name, version, imports, exports).
    pub fn info(&self) -> &LibraryInfo {
        self.library.info()
    }

    /// The exports, in ordinal order.
    pub fn exports(&self) -> &[ExportInfo] {
        self.library.exports()
    }

    /// The environment passed to every dispatch.
    pub fn environment(&self) -> &EnvironmentV0 {
        self.library.environment()
    }

    /// Runs one workgroup of export `ordinal` over Rust slices, with the
    /// checks of [`crate::EmbeddedElfLibrary::dispatch_workgroup`].
    pub fn dispatch_workgroup(
        &self,
        ordinal: usize,
        constants: &[u32],
        bindings: &mut [&mut [u8]],
        workgroup_count: [u32; 3],
        workgroup_id: [u32; 3],
    ) -> Result<()> {
        self.library
            .dispatch_workgroup(ordinal, constants, bindings, workgroup_count, workgroup_id)
    }
}

impl WorkgroupExecutable for SystemLibrary {
    fn exports(&self) -> &[ExportInfo] {
        self.library.exports()
    }

    unsafe fn run_workgroup(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        workgroup: &WorkgroupStateV0,
    ) -> Result<i32> {
        // SAFETY: the caller upholds this method's contract, which is
        // `QueriedLibrary::dispatch`'s.
        unsafe { self.library.dispatch(ordinal, dispatch, workgroup) }
    }

    unsafe fn run_workgroups(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        indices: std::ops::Range<u64>,
        processor_id: u32,
        local_memory: &mut [u8],
    ) -> Result<Option<(u64, i32)>> {
        // SAFETY: the caller upholds this method's contract, which is
        // `QueriedLibrary::dispatch_run`'s.
        unsafe {
            self.library
                .dispatch_run(ordinal, dispatch, indices, processor_id, local_memory)
        }
    }
}

/// Loads `system-elf-<host arch>` executables through the platform's
/// dynamic loader ([`SystemLibrary`]).
#[derive(Debug, Default)]
pub struct SystemLibraryLoader;

impl ExecutableLoader for SystemLibraryLoader {
    fn name(&self) -> &str {
        "system-library"
    }

    fn supports(&self, format: &str) -> bool {
        host_system_elf_format() == Some(format)
    }

    fn formats(&self) -> Vec<String> {
        host_system_elf_format()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    fn load(
        &self,
        _format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn WorkgroupExecutable>> {
        Ok(Arc::new(SystemLibrary::load_with_constants(
            data,
            ProcessorV0::default(),
            constants,
        )?))
    }
}

#[cfg(all(test, target_os = "linux", target_arch = "x86_64"))]
mod tests {
    use super::*;

    fn simple_mul() -> Vec<u8> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/simple_mul_system_x86.so"
        );
        std::fs::read(path).unwrap()
    }

    #[test]
    fn loads_come_from_a_memfd() {
        let lib = SystemLibrary::load(&simple_mul()).unwrap();
        assert!(lib.backing.path.starts_with("/proc/self/fd"));
        assert!(!lib.backing.temporary);
    }

    #[test]
    fn temporary_file_backing_opens_and_is_removed() {
        let backing = Backing::temporary(&simple_mul()).unwrap();
        let path = backing.path.clone();
        assert!(path.exists());
        let handle = open_library(&path).unwrap();
        drop(handle);
        drop(backing);
        assert!(!path.exists());
    }

    #[test]
    fn open_failures_carry_the_dynamic_loader_message() {
        let backing = Backing::temporary(b"not a library").unwrap();
        let err = open_library(&backing.path).unwrap_err();
        assert_eq!(err.code(), StatusCode::NotFound);
        assert!(
            err.to_string().contains("failed to load dynamic library"),
            "{err}"
        );
        assert!(err.to_string().contains("iree-system-library"), "{err}");
    }
}
