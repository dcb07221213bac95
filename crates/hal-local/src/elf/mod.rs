//! The platform-agnostic ELF loader (upstream `hal/local/elf/elf_module.c`).
//!
//! [`ElfModule::load`] parses an ELF64 little-endian shared object for x86_64
//! or aarch64, reserves one contiguous region for its `PT_LOAD` segments,
//! copies them in (bss stays zero), applies its RELA relocations, and seals
//! the pages W^X (with `PT_GNU_RELRO` read-only). It never executes anything:
//! running initializers and calling into the image is left to
//! [`crate::EmbeddedElfLibrary`], and only for the host architecture. An image
//! for another architecture is loaded with no executable pages at all.
//!
//! Every offset, address and count read from the file is checked before use;
//! malformed input fails with a [`Status`], never a panic.

mod mapping;
mod reloc;

use object::elf;
use object::read::elf::{FileHeader, ProgramHeader};
use object::Endianness;

use iree_base::{bail, Result, Status};

use crate::library::ImageMemory;
use mapping::{page_size, PageProt, Sealed, Staging};

/// Largest image (span of all `PT_LOAD` segments) the loader maps.
pub const MAX_IMAGE_SIZE: u64 = 1 << 30;

/// An ELF machine the loader relocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machine {
    /// `EM_X86_64`.
    X86_64,
    /// `EM_AARCH64`.
    Aarch64,
}

impl Machine {
    /// The machine this process runs on, if the loader supports it.
    pub fn host() -> Option<Machine> {
        if cfg!(target_arch = "x86_64") {
            Some(Machine::X86_64)
        } else if cfg!(target_arch = "aarch64") {
            Some(Machine::Aarch64)
        } else {
            None
        }
    }

    /// The architecture's name as IREE's format strings spell it
    /// (`embedded-elf-<name>`).
    pub fn iree_name(self) -> &'static str {
        match self {
            Machine::X86_64 => "x86_64",
            Machine::Aarch64 => "arm_64",
        }
    }

    fn from_e_machine(e_machine: u16) -> Result<Machine> {
        match e_machine {
            elf::EM_X86_64 => Ok(Machine::X86_64),
            elf::EM_AARCH64 => Ok(Machine::Aarch64),
            other => bail!(
                Unimplemented,
                "ELF machine type {other} ({}) is not supported; the embedded ELF loader handles x86_64 and aarch64",
                machine_name(other)
            ),
        }
    }
}

fn machine_name(e_machine: u16) -> &'static str {
    match e_machine {
        elf::EM_386 => "x86",
        elf::EM_ARM => "arm",
        elf::EM_RISCV => "riscv",
        elf::EM_PPC64 => "ppc64",
        elf::EM_MIPS => "mips",
        elf::EM_S390 => "s390",
        elf::EM_LOONGARCH => "loongarch",
        _ => "unknown",
    }
}

/// A dynamic symbol, as read from `.dynsym`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicSymbol {
    /// Symbol name.
    pub name: String,
    /// `st_value` (a virtual address in the file's address space).
    pub value: u64,
    /// `st_info`.
    pub info: u8,
    /// `st_shndx`.
    pub shndx: u16,
}

impl DynamicSymbol {
    fn is_global(&self) -> bool {
        matches!(self.info >> 4, elf::STB_GLOBAL | elf::STB_WEAK)
    }
}

/// A loaded, relocated and sealed ELF image. Nothing in it has run.
pub struct ElfModule {
    image: Sealed,
    machine: Machine,
    /// Added to a file virtual address to get an absolute address (wrapping).
    bias: u64,
    symbols: Vec<DynamicSymbol>,
    /// Absolute addresses of `DT_INIT` then the `DT_INIT_ARRAY` entries, in
    /// the order they must run; each checked to be inside executable pages
    /// (for a host-architecture image).
    initializers: Vec<u64>,
    relocation_count: usize,
}

impl std::fmt::Debug for ElfModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElfModule")
            .field("machine", &self.machine)
            .field("base", &format_args!("0x{:x}", self.image.base()))
            .field("len", &self.image.len())
            .field("symbols", &self.symbols.len())
            .field("relocations", &self.relocation_count)
            .finish()
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

/// Dynamic-section values the loader uses (file virtual addresses).
#[derive(Default, Debug)]
struct Dynamic {
    strtab: Option<u64>,
    strsz: u64,
    symtab: Option<u64>,
    hash: Option<u64>,
    init: Option<u64>,
    init_array: Option<u64>,
    init_arraysz: u64,
    rela: Option<u64>,
    relasz: u64,
    jmprel: Option<u64>,
    pltrelsz: u64,
}

impl ElfModule {
    /// Parses, maps, relocates and protects `bytes` without executing any of
    /// it. Accepts x86_64 and aarch64 images on any host; only an image for
    /// the host architecture gets executable pages.
    pub fn load(bytes: &[u8]) -> Result<ElfModule> {
        load(bytes).map_err(|s| s.annotate("loading embedded ELF"))
    }

    /// The image's architecture.
    pub fn machine(&self) -> Machine {
        self.machine
    }

    /// Whether the image is for this host (and so has executable pages).
    pub fn is_host_machine(&self) -> bool {
        Machine::host() == Some(self.machine)
    }

    /// Absolute address of the first mapped byte.
    pub fn base_address(&self) -> u64 {
        self.image.base()
    }

    /// Mapped length in bytes.
    pub fn image_len(&self) -> usize {
        self.image.len()
    }

    /// Number of relocations applied.
    pub fn relocation_count(&self) -> usize {
        self.relocation_count
    }

    /// The dynamic symbols (entry 0, the null symbol, excluded).
    pub fn symbols(&self) -> &[DynamicSymbol] {
        &self.symbols
    }

    /// Absolute address of the global or weak dynamic symbol `name`, if it
    /// is defined inside the image.
    pub fn lookup_symbol(&self, name: &str) -> Option<u64> {
        // Globals follow locals in .dynsym, so search from the end, as
        // upstream does.
        let sym = self
            .symbols
            .iter()
            .rev()
            .find(|s| s.is_global() && s.name == name)?;
        let address = self.bias.wrapping_add(sym.value);
        self.image.offset_of(address).map(|_| address)
    }

    /// Absolute addresses of the initializers (`DT_INIT`, then
    /// `DT_INIT_ARRAY`), in run order.
    pub fn initializers(&self) -> &[u64] {
        &self.initializers
    }
}

impl ImageMemory for ElfModule {
    fn read(&self, address: u64, out: &mut [u8]) -> Result<()> {
        let Some(offset) = self.image.offset_of(address) else {
            bail!(
                OutOfRange,
                "address 0x{address:x} is outside the ELF image [0x{:x}, 0x{:x})",
                self.image.base(),
                self.image.base() + self.image.len() as u64
            );
        };
        self.image.read_const(offset, out)
    }

    fn is_code(&self, address: u64) -> bool {
        self.image
            .offset_of(address)
            .and_then(|o| self.image.prot_at(o))
            .is_some_and(|p| p.exec)
    }
}

fn align_down(x: u64, a: u64) -> u64 {
    x & !(a - 1)
}

fn align_up(x: u64, a: u64) -> Option<u64> {
    Some(x.checked_add(a - 1)? & !(a - 1))
}

/// Upstream's `iree_elf_module_verify_ehdr` checks of the header's tables:
/// entity sizes those of ELF64 (else FAILED_PRECONDITION "ELF entity size
/// mismatch"), and non-empty program and section header tables inside the
/// file (else FAILED_PRECONDITION "invalid mandatory phdr/shdr table").
fn verify_header_tables(
    header: &elf::FileHeader64<Endianness>,
    endian: Endianness,
    file_len: usize,
) -> Result<()> {
    let ehsize = header.e_ehsize.get(endian);
    let phentsize = header.e_phentsize.get(endian);
    let shentsize = header.e_shentsize.get(endian);
    if usize::from(ehsize) != std::mem::size_of::<elf::FileHeader64<Endianness>>()
        || usize::from(phentsize) != std::mem::size_of::<elf::ProgramHeader64<Endianness>>()
        || usize::from(shentsize) != std::mem::size_of::<elf::SectionHeader64<Endianness>>()
    {
        bail!(
            FailedPrecondition,
            "ELF entity size mismatch (header {ehsize}, program header {phentsize}, section header {shentsize}; ELF64 has 64, 56 and 64)"
        );
    }
    let table_fits = |offset: u64, count: u16, entsize: u16| {
        offset != 0
            && count != 0
            && u64::from(count)
                .checked_mul(u64::from(entsize))
                .and_then(|n| n.checked_add(offset))
                .is_some_and(|end| end <= file_len as u64)
    };
    if !table_fits(
        header.e_phoff.get(endian),
        header.e_phnum.get(endian),
        phentsize,
    ) {
        bail!(FailedPrecondition, "invalid mandatory phdr table");
    }
    if !table_fits(
        header.e_shoff.get(endian),
        header.e_shnum.get(endian),
        shentsize,
    ) {
        bail!(FailedPrecondition, "invalid mandatory shdr table");
    }
    Ok(())
}

fn load(bytes: &[u8]) -> Result<ElfModule> {
    let header = elf::FileHeader64::<Endianness>::parse(bytes).map_err(|e| {
        // A 32-bit ELF fails `parse` for the 64-bit header type too.
        if bytes.len() > 4 && bytes.starts_with(&elf::ELFMAG) && bytes[4] == elf::ELFCLASS32 {
            Status::new(
                iree_base::StatusCode::Unimplemented,
                "32-bit ELF files are not supported",
            )
        } else {
            Status::new(
                iree_base::StatusCode::InvalidArgument,
                format!("not a valid ELF64 file: {e}"),
            )
        }
    })?;
    let endian = header.endian().map_err(|e| {
        Status::new(
            iree_base::StatusCode::InvalidArgument,
            format!("invalid ELF: {e}"),
        )
    })?;
    if endian != Endianness::Little {
        bail!(Unimplemented, "big-endian ELF files are not supported");
    }
    verify_header_tables(header, endian, bytes.len())?;
    let machine = Machine::from_e_machine(header.e_machine(endian))?;
    let e_type = header.e_type(endian);
    if e_type != elf::ET_DYN {
        bail!(
            InvalidArgument,
            "ELF type {e_type} is not a shared object (ET_DYN)"
        );
    }
    let phdrs = header.program_headers(endian, bytes).map_err(|e| {
        Status::new(
            iree_base::StatusCode::InvalidArgument,
            format!("invalid ELF program headers: {e}"),
        )
    })?;

    // PT_LOAD segments.
    let page = page_size() as u64;
    let mut segments = Vec::new();
    for ph in phdrs {
        if ph.p_type(endian) != elf::PT_LOAD {
            continue;
        }
        let seg = Segment {
            vaddr: ph.p_vaddr(endian),
            memsz: ph.p_memsz(endian),
            offset: ph.p_offset(endian),
            filesz: ph.p_filesz(endian),
            flags: ph.p_flags(endian),
        };
        let i = segments.len();
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
        if seg.vaddr.checked_add(seg.memsz).is_none() {
            bail!(
                InvalidArgument,
                "PT_LOAD segment {i} virtual range [0x{:x}, +0x{:x}) is out of range",
                seg.vaddr,
                seg.memsz
            );
        }
        if seg.memsz > 0 {
            segments.push(seg);
        }
    }
    if segments.is_empty() {
        bail!(InvalidArgument, "ELF has no non-empty PT_LOAD segments");
    }
    segments.sort_by_key(|s| s.vaddr);
    for w in segments.windows(2) {
        if w[0].vaddr + w[0].memsz > w[1].vaddr {
            bail!(
                InvalidArgument,
                "PT_LOAD segments at 0x{:x} and 0x{:x} overlap",
                w[0].vaddr,
                w[1].vaddr
            );
        }
    }
    let lo = align_down(segments[0].vaddr, page);
    let hi = segments
        .iter()
        .map(|s| s.vaddr + s.memsz)
        .max()
        .unwrap_or(lo);
    let Some(hi) = align_up(hi, page) else {
        bail!(InvalidArgument, "ELF image end is out of range");
    };
    let span = hi - lo;
    if span > MAX_IMAGE_SIZE {
        bail!(
            ResourceExhausted,
            "ELF image spans {span} bytes; at most {MAX_IMAGE_SIZE} are supported"
        );
    }

    // Reserve, copy segments (bss is already zero).
    let mut staging = Staging::new(span as usize)?;
    let bias = staging.base().wrapping_sub(lo);
    {
        let image = staging.bytes_mut();
        for s in &segments {
            let dst = (s.vaddr - lo) as usize;
            let src = &bytes[s.offset as usize..(s.offset + s.filesz) as usize];
            image[dst..dst + src.len()].copy_from_slice(src);
        }
    }

    // PT_DYNAMIC, read from the loaded image.
    let mut dyn_range = None;
    for ph in phdrs {
        if ph.p_type(endian) == elf::PT_DYNAMIC {
            dyn_range = Some((ph.p_vaddr(endian), ph.p_filesz(endian)));
            break;
        }
    }
    let Some((dyn_vaddr, dyn_size)) = dyn_range else {
        bail!(FailedPrecondition, "no PT_DYNAMIC/.dynamic segment");
    };
    let view = ImageView {
        bytes: staging.bytes_mut(),
        lo,
    };
    let dyn_bytes = view.slice(dyn_vaddr, dyn_size, "PT_DYNAMIC")?;
    let dynamic = parse_dynamic(dyn_bytes)?;

    // Symbols.
    let (Some(strtab), Some(symtab), Some(hash)) = (dynamic.strtab, dynamic.symtab, dynamic.hash)
    else {
        bail!(
            FailedPrecondition,
            "missing .dynsym/.dynstr in ELF .dynamic segment"
        );
    };
    let hash_bytes = view.slice(hash, 8, "DT_HASH")?;
    let symbol_count = u32::from_le_bytes(hash_bytes[4..8].try_into().unwrap_or_default()) as u64;
    if symbol_count == 0 || dynamic.strsz == 0 {
        bail!(
            FailedPrecondition,
            "missing .dynsym/.dynstr in ELF .dynamic segment"
        );
    }
    let Some(symtab_len) = symbol_count.checked_mul(24) else {
        bail!(
            InvalidArgument,
            "DT_HASH symbol count {symbol_count} is out of range"
        );
    };
    let symtab_bytes = view.slice(symtab, symtab_len, "DT_SYMTAB")?;
    let strtab_bytes = view.slice(strtab, dynamic.strsz, "DT_STRTAB")?;
    let mut symbols = Vec::new();
    for (i, s) in symtab_bytes.chunks_exact(24).enumerate().skip(1) {
        let name_off = u32::from_le_bytes(s[0..4].try_into().unwrap_or_default()) as usize;
        let name = symbol_name(strtab_bytes, name_off).ok_or_else(|| {
            Status::new(
                iree_base::StatusCode::InvalidArgument,
                format!("dynamic symbol {i} name offset {name_off} is outside .dynstr"),
            )
        })?;
        let sym = DynamicSymbol {
            name,
            info: s[4],
            shndx: u16::from_le_bytes([s[6], s[7]]),
            value: u64::from_le_bytes(s[8..16].try_into().unwrap_or_default()),
        };
        if sym.shndx == elf::SHN_UNDEF {
            bail!(
                Unavailable,
                "ELF imports one or more symbols (trying '{}'); imports are not supported in the platform-agnostic loader",
                sym.name
            );
        }
        symbols.push(sym);
    }

    // Relocations, read from the image one entry at a time (an entry is
    // copied out before its target is written).
    let mut tables = Vec::new();
    for (table, size, what) in [
        (dynamic.rela, dynamic.relasz, "DT_RELA"),
        (dynamic.jmprel, dynamic.pltrelsz, "DT_JMPREL"),
    ] {
        if let Some(table) = table {
            if size % 24 != 0 {
                bail!(
                    InvalidArgument,
                    "{what} table size {size} is not a multiple of 24"
                );
            }
            view.slice(table, size, what)?;
            // In range: checked by `slice` just above.
            let start = (table - lo) as usize;
            tables.push(start..start + size as usize);
        }
    }
    let symbol_values: Vec<u64> = std::iter::once(0)
        .chain(symbols.iter().map(|s| s.value))
        .collect();
    let relocation_count = reloc::apply(
        machine,
        staging.bytes_mut(),
        lo,
        bias,
        &symbol_values,
        &tables,
    )?;

    // Initializers (their addresses were relocated above).
    let executable = Machine::host() == Some(machine);
    let mut initializers = Vec::new();
    if let Some(init) = dynamic.init {
        initializers.push(bias.wrapping_add(init));
    }
    if let Some(array) = dynamic.init_array {
        if dynamic.init_arraysz % 8 != 0 {
            bail!(
                InvalidArgument,
                "DT_INIT_ARRAYSZ {} is not a multiple of 8",
                dynamic.init_arraysz
            );
        }
        let view = ImageView {
            bytes: staging.bytes_mut(),
            lo,
        };
        for e in view
            .slice(array, dynamic.init_arraysz, "DT_INIT_ARRAY")?
            .chunks_exact(8)
        {
            let v = u64::from_le_bytes(e.try_into().unwrap_or_default());
            if v != 0 && v != u64::MAX {
                initializers.push(v);
            }
        }
    }

    // Page protections: W^X per segment, RELRO read-only.
    let pages = page_protections(&segments, phdrs, endian, lo, span, page, executable)?;
    let image = staging.seal(pages)?;
    let module = ElfModule {
        image,
        machine,
        bias,
        symbols,
        initializers,
        relocation_count,
    };
    if executable {
        for &f in &module.initializers {
            if !module.is_code(f) {
                bail!(
                    InvalidArgument,
                    "initializer 0x{f:x} is not inside the image's code"
                );
            }
        }
    }
    Ok(module)
}

/// The staging image addressed by file virtual address.
struct ImageView<'a> {
    bytes: &'a [u8],
    lo: u64,
}

impl ImageView<'_> {
    fn slice(&self, vaddr: u64, len: u64, what: &str) -> Result<&[u8]> {
        let start = vaddr.checked_sub(self.lo);
        let range = start.and_then(|s| Some(s as usize..s.checked_add(len)? as usize));
        match range.and_then(|r| self.bytes.get(r)) {
            Some(b) => Ok(b),
            None => bail!(
                InvalidArgument,
                "{what} range [0x{vaddr:x}, +0x{len:x}) is outside the loaded image"
            ),
        }
    }
}

fn symbol_name(strtab: &[u8], offset: usize) -> Option<String> {
    let tail = strtab.get(offset..)?;
    let end = tail.iter().position(|&b| b == 0)?;
    Some(String::from_utf8_lossy(&tail[..end]).into_owned())
}

fn parse_dynamic(bytes: &[u8]) -> Result<Dynamic> {
    let mut d = Dynamic::default();
    for e in bytes.chunks_exact(16) {
        let tag = i64::from_le_bytes(e[0..8].try_into().unwrap_or_default());
        let val = u64::from_le_bytes(e[8..16].try_into().unwrap_or_default());
        let Ok(tag) = u32::try_from(tag) else {
            continue;
        };
        match tag {
            elf::DT_NULL => break,
            elf::DT_STRTAB => d.strtab = Some(val),
            elf::DT_STRSZ => d.strsz = val,
            elf::DT_SYMTAB => d.symtab = Some(val),
            elf::DT_SYMENT if val != 24 => bail!(FailedPrecondition, "DT_SYMENT size mismatch"),
            elf::DT_HASH => d.hash = Some(val),
            elf::DT_INIT => d.init = Some(val),
            elf::DT_INIT_ARRAY => d.init_array = Some(val),
            elf::DT_INIT_ARRAYSZ => d.init_arraysz = val,
            elf::DT_RELA => d.rela = Some(val),
            elf::DT_RELASZ => d.relasz = val,
            elf::DT_RELAENT if val != 24 => bail!(FailedPrecondition, "DT_RELAENT size mismatch"),
            elf::DT_JMPREL => d.jmprel = Some(val),
            elf::DT_PLTRELSZ => d.pltrelsz = val,
            elf::DT_PLTREL if val != u64::from(elf::DT_RELA) => {
                bail!(Unimplemented, "DT_PLTREL {val} is not DT_RELA; only RELA relocations are supported")
            }
            elf::DT_REL | elf::DT_RELSZ | elf::DT_RELENT => {
                bail!(Unimplemented, "DT_REL relocations are not supported; only RELA relocations are")
            }
            elf::DT_NEEDED => bail!(Unavailable, "ELF depends on other shared objects (DT_NEEDED); imports are not supported in the platform-agnostic loader"),
            _ => {}
        }
    }
    Ok(d)
}

fn page_protections(
    segments: &[Segment],
    phdrs: &[elf::ProgramHeader64<Endianness>],
    endian: Endianness,
    lo: u64,
    span: u64,
    page: u64,
    executable: bool,
) -> Result<Vec<PageProt>> {
    let count = (span / page) as usize;
    let mut pages = vec![PageProt::default(); count];
    for s in segments {
        let first = ((align_down(s.vaddr, page) - lo) / page) as usize;
        // In range: the segment end was checked to be below `hi`.
        let last = ((s.vaddr + s.memsz - 1 - lo) / page) as usize;
        let (r, w, x) = (
            s.flags & elf::PF_R != 0,
            s.flags & elf::PF_W != 0,
            s.flags & elf::PF_X != 0,
        );
        if w && x {
            bail!(
                InvalidArgument,
                "PT_LOAD segment at 0x{:x} is both writable and executable",
                s.vaddr
            );
        }
        for p in &mut pages[first..=last] {
            p.read |= r || w || x;
            p.write |= w;
            p.exec |= x && executable;
        }
    }
    if executable && pages.iter().any(|p| p.write && p.exec) {
        bail!(
            InvalidArgument,
            "PT_LOAD segments share a page that would be both writable and executable"
        );
    }
    for ph in phdrs {
        if ph.p_type(endian) != elf::PT_GNU_RELRO {
            continue;
        }
        let (v, m) = (ph.p_vaddr(endian), ph.p_memsz(endian));
        let Some(end) = v.checked_add(m) else {
            bail!(InvalidArgument, "PT_GNU_RELRO range overflows");
        };
        // Whole pages only, as glibc does: [floor(start), floor(end)).
        let start = align_down(v, page).max(lo);
        let end = align_down(end, page).min(lo + span);
        let mut at = start;
        while at < end {
            pages[((at - lo) / page) as usize].write = false;
            at += page;
        }
    }
    Ok(pages)
}
