//! Loads real 3.13 `embedded-elf` kernels (extracted from VMFBs compiled from
//! `tests/data/*.mlir`; see `tests/data/README.md`) and malformed variants.

mod common;
use common::*;
use iree_base::StatusCode;
use iree_hal_local::library::ImageMemory;
use iree_hal_local::{ElfModule, EmbeddedElfLibrary, Machine};

/// File offset of the `.dynamic` entry with tag `tag` and its value.
/// (Test data maps every segment at vaddr - offset equal within a page, and
/// the tables read here sit in the first segment where vaddr == offset.)
fn dynamic_entry(b: &[u8], tag: u64) -> (usize, u64) {
    let n = u16_at(b, 0x38) as usize;
    for i in 0..n {
        let p = phdr(b, i);
        if u32_at(b, p) == 2 {
            let (off, size) = (u64_at(b, p + 8) as usize, u64_at(b, p + 32) as usize);
            for e in (off..off + size).step_by(16) {
                if u64_at(b, e) == tag {
                    return (e, u64_at(b, e + 8));
                }
            }
        }
    }
    panic!("no dynamic tag {tag}");
}

#[test]
fn simple_mul_loads_queries_and_dispatches() {
    let lib = EmbeddedElfLibrary::load(&data("simple_mul_x86.so")).unwrap();
    let info = lib.info();
    assert_eq!(info.version, 6);
    assert_eq!(info.name, "simple_mul_dispatch_0");
    assert!(info.imports.is_empty());
    assert_eq!(info.constant_count, 0);
    assert_eq!(lib.exports().len(), 1);
    let e = &lib.exports()[0];
    // iree-dump-module shows this name as `.rodata[5]` of the VMFB.
    assert_eq!(e.name, "simple_mul_dispatch_0_elementwise_4_f32");
    assert_eq!(e.binding_count(), 3);
    assert_eq!(e.constant_count(), 0);
    assert_eq!(e.workgroup_size(), [1, 1, 1]);
    assert_eq!(e.local_memory_pages(), 0);
    assert_eq!(e.attrs.flags, 0);
    assert_eq!(lib.module().relocation_count(), 12);
    // The 3.13 query answers only version 6, always with the same library.
    assert_eq!(lib.query(6), lib.library_address());
    assert_ne!(lib.library_address(), 0);
    for v in [0, 5, 7, u32::MAX] {
        assert_eq!(lib.query(v), 0, "version {v}");
    }

    let mut a = bytes(&[1.0, 2.0, 3.0, 4.0]);
    let mut b = bytes(&[5.0, 6.0, 7.0, -8.5]);
    let mut out = vec![0u8; 16];
    // The VMFB dispatches a 1x1x1 grid.
    lib.dispatch_workgroup(
        0,
        &[],
        &mut [&mut a, &mut b, &mut out],
        [1, 1, 1],
        [0, 0, 0],
    )
    .unwrap();
    assert_eq!(f32s(&out), [5.0, 12.0, 21.0, -34.0]);
}

#[test]
fn dispatch_workgroup_checks_its_arguments() {
    let lib = EmbeddedElfLibrary::load(&data("simple_mul_x86.so")).unwrap();
    let (mut a, mut b, mut c) = (vec![0u8; 16], vec![0u8; 16], vec![0u8; 16]);
    let err = lib.dispatch_workgroup(1, &[], &mut [&mut a, &mut b, &mut c], [1, 1, 1], [0, 0, 0]);
    assert_eq!(err.unwrap_err().code(), StatusCode::OutOfRange);
    let err = lib.dispatch_workgroup(0, &[], &mut [&mut a, &mut b], [1, 1, 1], [0, 0, 0]);
    assert_eq!(err.unwrap_err().code(), StatusCode::InvalidArgument);
    let err = lib.dispatch_workgroup(0, &[1], &mut [&mut a, &mut b, &mut c], [1, 1, 1], [0, 0, 0]);
    assert_eq!(err.unwrap_err().code(), StatusCode::InvalidArgument);
    let err = lib.dispatch_workgroup(0, &[], &mut [&mut a, &mut b, &mut c], [1, 1, 1], [0, 1, 0]);
    assert_eq!(err.unwrap_err().code(), StatusCode::OutOfRange);
    let err = lib.dispatch_workgroup(
        0,
        &[],
        &mut [&mut a, &mut b, &mut c],
        [1, 1, 70000],
        [0, 0, 0],
    );
    assert_eq!(err.unwrap_err().code(), StatusCode::OutOfRange);
}

#[test]
fn matmul_16x16_matches_a_reference() {
    let lib = EmbeddedElfLibrary::load(&data("matmul_x86.so")).unwrap();
    assert_eq!(lib.exports().len(), 1);
    let e = &lib.exports()[0];
    assert_eq!(e.name, "matmul_dispatch_0_matmul_16x16x16_f32");
    assert_eq!(e.binding_count(), 3);
    let a: Vec<f32> = (0..256).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..256).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
    let mut expected = vec![0f32; 256];
    for i in 0..16 {
        for j in 0..16 {
            expected[i * 16 + j] = (0..16).map(|k| a[i * 16 + k] * b[k * 16 + j]).sum();
        }
    }
    let (mut ab, mut bb, mut out) = (bytes(&a), bytes(&b), vec![0u8; 1024]);
    // The VMFB dispatches a 2x1x1 grid.
    let count = [2, 1, 1];
    for x in 0..count[0] {
        lib.dispatch_workgroup(0, &[], &mut [&mut ab, &mut bb, &mut out], count, [x, 0, 0])
            .unwrap();
    }
    assert_eq!(f32s(&out), expected);
}

#[test]
fn libraries_are_shareable_across_threads() {
    let lib = EmbeddedElfLibrary::load(&data("simple_mul_x86.so")).unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let lib = &lib;
            s.spawn(move || {
                for i in 0..100 {
                    let x = (t * 100 + i) as f32;
                    let (mut a, mut b, mut c) = (bytes(&[x; 4]), bytes(&[2.0; 4]), vec![0u8; 16]);
                    lib.dispatch_workgroup(0, &[], &mut [&mut a, &mut b, &mut c], [1; 3], [0; 3])
                        .unwrap();
                    assert_eq!(f32s(&c), [2.0 * x; 4]);
                }
            });
        }
    });
}

#[test]
fn relocations_and_protections_are_applied() {
    let elf = data("simple_mul_x86.so");
    let m = ElfModule::load(&elf).unwrap();
    assert_eq!(m.machine(), Machine::X86_64);
    let base = m.base_address();
    assert_eq!(base % 4096, 0);
    // Every R_X86_64_RELATIVE slot now holds base + addend.
    let (_, rela) = dynamic_entry(&elf, 7);
    let (_, relasz) = dynamic_entry(&elf, 8);
    for r in (rela as usize..(rela + relasz) as usize).step_by(24) {
        assert_eq!(u64_at(&elf, r + 8), 8, "R_X86_64_RELATIVE");
        let mut slot = [0u8; 8];
        m.read(base + u64_at(&elf, r), &mut slot).unwrap();
        assert_eq!(u64::from_le_bytes(slot), base + u64_at(&elf, r + 16));
    }
    let query = m.lookup_symbol(QUERY).unwrap();
    assert!(m.is_code(query));
    // Code is not readable through the const reader's data path? It is
    // (R-X is read-only); RELRO data is too; nothing outside the image is.
    let mut b = [0u8; 4];
    m.read(query, &mut b).unwrap();
    assert!(m.read(base + m.image_len() as u64, &mut b).is_err());
    assert!(m.read(base.wrapping_sub(1), &mut b).is_err());
    assert!(m.lookup_symbol("nope").is_none());
}

#[test]
fn aarch64_loads_and_relocates_but_never_runs() {
    for name in ["simple_mul_arm.so", "matmul_arm.so"] {
        let elf = data(name);
        let m = ElfModule::load(&elf).unwrap();
        assert_eq!(m.machine(), Machine::Aarch64);
        assert_eq!(m.relocation_count(), 12);
        let base = m.base_address();
        let (_, rela) = dynamic_entry(&elf, 7);
        let (_, relasz) = dynamic_entry(&elf, 8);
        for r in (rela as usize..(rela + relasz) as usize).step_by(24) {
            assert_eq!(u64_at(&elf, r + 8), 1027, "R_AARCH64_RELATIVE");
            let mut slot = [0u8; 8];
            m.read(base + u64_at(&elf, r), &mut slot).unwrap();
            assert_eq!(u64::from_le_bytes(slot), base + u64_at(&elf, r + 16));
        }
        let query = m.lookup_symbol(QUERY).unwrap();
        if cfg!(target_arch = "x86_64") {
            assert!(!m.is_host_machine());
            // Foreign code is mapped without execute permission.
            assert!(!m.is_code(query));
            let err = EmbeddedElfLibrary::load(&elf).unwrap_err();
            assert_eq!(err.code(), StatusCode::Unimplemented, "{err}");
            let err = EmbeddedElfLibrary::from_module(m, Default::default(), &[]).unwrap_err();
            assert_eq!(err.code(), StatusCode::Unimplemented, "{err}");
        }
    }
}

#[test]
fn every_truncation_fails_cleanly_or_loads_identically() {
    let elf = data("simple_mul_x86.so");
    for len in 0..elf.len() {
        let r = EmbeddedElfLibrary::load(&elf[..len]);
        if let Ok(lib) = r {
            // Only the section headers (unused) can be cut away.
            assert!(len >= 0x630, "loaded at truncation {len}");
            assert_eq!(lib.exports().len(), 1);
        }
    }
    for name in ["simple_mul_arm.so", "matmul_x86.so", "matmul_arm.so"] {
        let elf = data(name);
        for len in 0..elf.len() {
            let _ = ElfModule::load(&elf[..len]);
        }
    }
}

#[test]
fn byte_flips_never_crash_the_loader() {
    for name in ["simple_mul_x86.so", "matmul_arm.so"] {
        let elf = data(name);
        let mut ok = 0;
        for i in 0..elf.len() {
            let mut e = elf.clone();
            e[i] ^= 0xff;
            ok += ElfModule::load(&e).is_ok() as usize;
        }
        assert!(ok > 0);
        // Pseudo-random multi-byte corruption (xorshift, fixed seed).
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..3000 {
            let mut e = elf.clone();
            for _ in 0..1 + next() % 4 {
                // Bias towards the headers and dynamic tables at the front.
                let limit = if next() % 2 == 0 { 0x640 } else { e.len() };
                let at = (next() % limit as u64) as usize;
                e[at] = next() as u8;
            }
            let _ = ElfModule::load(&e);
        }
    }
}

#[test]
fn imports_are_rejected_naming_the_symbol() {
    let mut elf = data("simple_mul_x86.so");
    let (_, symtab) = dynamic_entry(&elf, 6);
    // Symbol 1 is the query; make it undefined (st_shndx = SHN_UNDEF).
    let shndx = symtab as usize + 24 + 6;
    elf[shndx..shndx + 2].copy_from_slice(&0u16.to_le_bytes());
    let err = ElfModule::load(&elf).unwrap_err();
    assert_eq!(err.code(), StatusCode::Unavailable);
    assert!(
        err.message().contains(
            "ELF imports one or more symbols (trying 'iree_hal_executable_library_query'); \
             imports are not supported in the platform-agnostic loader"
        ),
        "{err}"
    );
}

#[test]
fn unsupported_relocations_are_unimplemented() {
    for (name, ty) in [
        ("simple_mul_x86.so", 9u64),
        ("simple_mul_x86.so", 24),
        ("simple_mul_arm.so", 261),
    ] {
        let mut elf = data(name);
        let (_, rela) = dynamic_entry(&elf, 7);
        put_u64(&mut elf, rela as usize + 8, ty);
        let err = ElfModule::load(&elf).unwrap_err();
        assert_eq!(err.code(), StatusCode::Unimplemented, "{err}");
        assert!(
            err.message().contains(&format!("relocation type {ty} ")),
            "{err}"
        );
    }
    // A relocation whose target is outside the image.
    let mut elf = data("simple_mul_x86.so");
    let (_, rela) = dynamic_entry(&elf, 7);
    put_u64(&mut elf, rela as usize, 0x10_0000);
    assert_eq!(
        ElfModule::load(&elf).unwrap_err().code(),
        StatusCode::InvalidArgument
    );
    // A symbol index past the symbol table.
    let mut elf = data("simple_mul_x86.so");
    put_u64(&mut elf, rela as usize + 8, (5u64 << 32) | 1);
    assert_eq!(
        ElfModule::load(&elf).unwrap_err().code(),
        StatusCode::OutOfRange
    );
}

#[test]
fn dt_rel_is_rejected() {
    let mut elf = data("simple_mul_x86.so");
    let (at, _) = dynamic_entry(&elf, 7);
    put_u64(&mut elf, at, 17); // DT_RELA -> DT_REL
    let err = ElfModule::load(&elf).unwrap_err();
    assert_eq!(err.code(), StatusCode::Unimplemented);
    assert!(err.message().contains("DT_REL"), "{err}");
}

#[test]
fn other_machines_and_classes_are_rejected() {
    let mut elf = data("simple_mul_x86.so");
    elf[18..20].copy_from_slice(&40u16.to_le_bytes()); // EM_ARM
    let err = ElfModule::load(&elf).unwrap_err();
    assert_eq!(err.code(), StatusCode::Unimplemented);
    assert!(err.message().contains("40 (arm)"), "{err}");

    let mut elf = data("simple_mul_x86.so");
    elf[4] = 1; // ELFCLASS32
    assert_eq!(
        ElfModule::load(&elf).unwrap_err().code(),
        StatusCode::Unimplemented
    );
    let mut elf = data("simple_mul_x86.so");
    elf[5] = 2; // big-endian
    assert_eq!(
        ElfModule::load(&elf).unwrap_err().code(),
        StatusCode::Unimplemented
    );
    let mut elf = data("simple_mul_x86.so");
    elf[16] = 2; // ET_EXEC
    assert_eq!(
        ElfModule::load(&elf).unwrap_err().code(),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        ElfModule::load(b"not an elf").unwrap_err().code(),
        StatusCode::InvalidArgument
    );
}

#[test]
fn bad_segments_are_rejected() {
    let elf = data("simple_mul_x86.so");
    // Program header 1 is the first PT_LOAD (vaddr 0), 2 the text segment.
    let text = phdr(&elf, 2);
    assert_eq!(u64_at(&elf, text + 16), 0x1450);

    let mut e = elf.clone();
    put_u64(&mut e, text + 16, 0x100); // p_vaddr into the first segment
    let err = ElfModule::load(&e).unwrap_err();
    assert!(err.message().contains("overlap"), "{err}");

    let mut e = elf.clone();
    put_u64(&mut e, text + 8, 0x10_0000); // p_offset past the file
    let err = ElfModule::load(&e).unwrap_err();
    assert!(err.message().contains("outside"), "{err}");

    let mut e = elf.clone();
    put_u64(&mut e, text + 32, u64::MAX); // p_filesz
    assert_eq!(
        ElfModule::load(&e).unwrap_err().code(),
        StatusCode::InvalidArgument
    );

    let mut e = elf.clone();
    put_u64(&mut e, text + 40, 1 << 40); // p_memsz: too large to map
    assert!(ElfModule::load(&e).is_err());

    let mut e = elf.clone();
    put_u64(&mut e, text + 16, u64::MAX - 4); // p_vaddr + p_memsz overflows
    assert!(ElfModule::load(&e).is_err());

    // Move the RW data segment (and .dynamic with it) into the text page.
    let (data, dynamic) = (phdr(&elf, 3), phdr(&elf, 4));
    assert_eq!(u64_at(&elf, data + 16), 0x2490);
    let mut e = elf.clone();
    put_u64(&mut e, data + 16, 0x1500);
    put_u64(&mut e, dynamic + 16, 0x1500 + 0x2570 - 0x2490);
    let err = ElfModule::load(&e).unwrap_err();
    assert!(
        err.message().contains("both writable and executable"),
        "{err}"
    );

    let mut e = elf.clone();
    e[text + 4] = 7; // PF_R | PF_W | PF_X
    let err = ElfModule::load(&e).unwrap_err();
    assert!(err.message().contains("writable and executable"), "{err}");
}

#[test]
fn missing_query_symbol_is_not_found() {
    let mut elf = data("simple_mul_x86.so");
    let (_, strtab) = dynamic_entry(&elf, 5);
    let (_, strsz) = dynamic_entry(&elf, 10);
    let table = &mut elf[strtab as usize..(strtab + strsz) as usize];
    let at = table
        .windows(QUERY.len())
        .position(|w| w == QUERY.as_bytes())
        .unwrap();
    table[at] = b'j';
    let err = EmbeddedElfLibrary::load(&elf).unwrap_err();
    assert_eq!(err.code(), StatusCode::NotFound, "{err}");
}

#[test]
fn loads_and_unloads_repeatedly() {
    let elf = data("matmul_x86.so");
    for _ in 0..200 {
        let lib = EmbeddedElfLibrary::load(&elf).unwrap();
        assert_eq!(lib.exports().len(), 1);
    }
}

/// The committed `.so` files are exactly the `embedded-elf` rodata segments
/// of the committed VMFBs (found with the VMFB parser, not by scanning).
/// With `IREE_HAL_LOCAL_REGENERATE` set, rewrites the `.so` files first.
#[test]
fn test_data_matches_the_vmfb_rodata() {
    for (vmfb, so, format) in [
        (
            "simple_mul_x86.vmfb",
            "simple_mul_x86.so",
            "embedded-elf-x86_64",
        ),
        (
            "simple_mul_arm.vmfb",
            "simple_mul_arm.so",
            "embedded-elf-arm_64",
        ),
        ("matmul_x86.vmfb", "matmul_x86.so", "embedded-elf-x86_64"),
        ("matmul_arm.vmfb", "matmul_arm.so", "embedded-elf-arm_64"),
    ] {
        let file = data(vmfb);
        let meta = iree_vm_bytecode::format::parse_module(&file).unwrap();
        let segments: Vec<&[u8]> = (0..meta.rodata.len())
            .map(|i| meta.rodata_bytes(&file, i).unwrap())
            .collect();
        assert!(
            segments.contains(&format.as_bytes()),
            "{vmfb} has no {format} rodata"
        );
        let elfs: Vec<&[u8]> = segments
            .iter()
            .copied()
            .filter(|s| s.starts_with(b"\x7fELF"))
            .collect();
        assert_eq!(elfs.len(), 1, "{vmfb}");
        if std::env::var_os("IREE_HAL_LOCAL_REGENERATE").is_some() {
            let path = format!("{}/tests/data/{so}", env!("CARGO_MANIFEST_DIR"));
            std::fs::write(path, elfs[0]).unwrap();
        }
        assert_eq!(
            elfs[0],
            &data(so)[..],
            "{so} differs from {vmfb}'s ELF rodata"
        );
        let m = ElfModule::load(elfs[0]).unwrap();
        assert_eq!(format, format!("embedded-elf-{}", m.machine().iree_name()));
    }
}

/// The kernel's view of the mapping: W^X per segment, RELRO read-only.
#[cfg(target_os = "linux")]
#[test]
fn page_protections_as_the_os_sees_them() {
    fn perms(m: &ElfModule) -> Vec<(u64, u64, String)> {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let (lo, hi) = (m.base_address(), m.base_address() + m.image_len() as u64);
        let mut out = Vec::new();
        for line in maps.lines() {
            let mut it = line.split_whitespace();
            let range = it.next().unwrap();
            let perm = it.next().unwrap();
            let (s, e) = range.split_once('-').unwrap();
            let (s, e) = (
                u64::from_str_radix(s, 16).unwrap(),
                u64::from_str_radix(e, 16).unwrap(),
            );
            if s < hi && e > lo {
                out.push((s.max(lo) - lo, e.min(hi) - lo, perm[..3].to_string()));
            }
        }
        out
    }
    if region::page::size() != 4096 {
        return;
    }
    // x86_64: headers/rodata r--, .text r-x, .data.rel.ro+.dynamic (RELRO) r--.
    let m = ElfModule::load(&data("simple_mul_x86.so")).unwrap();
    let p = perms(&m);
    let at = |off: u64| {
        p.iter()
            .find(|(s, e, _)| *s <= off && off < *e)
            .unwrap()
            .2
            .clone()
    };
    assert_eq!(at(0), "r--", "{p:?}");
    assert_eq!(at(0x1000), "r-x", "{p:?}");
    assert_eq!(at(0x2000), "r--", "{p:?}");
    assert!(p
        .iter()
        .all(|(_, _, perm)| !(perm.contains('w') && perm.contains('x'))));
    // aarch64 on an x86_64 host: nothing executable; the gaps between the
    // 64 KiB-aligned segments are inaccessible.
    if cfg!(target_arch = "x86_64") {
        let m = ElfModule::load(&data("matmul_arm.so")).unwrap();
        let p = perms(&m);
        assert!(p.iter().all(|(_, _, perm)| !perm.contains('x')), "{p:?}");
        let at = |off: u64| {
            p.iter()
                .find(|(s, e, _)| *s <= off && off < *e)
                .unwrap()
                .2
                .clone()
        };
        assert_eq!(at(0), "r--", "{p:?}");
        assert_eq!(at(0x1000), "---", "{p:?}");
        assert_eq!(at(0x10000), "r--", "{p:?}");
        assert_eq!(at(0x20000), "r--", "{p:?}");
    }
}

#[test]
fn dispatch_grid_runs_matmul_on_hal_buffers() {
    use iree_hal::{Allocator, BufferParams, BufferUsage, HeapAllocator, MemoryType, WHOLE_BUFFER};
    use iree_hal_local::{dispatch_grid, BufferBinding};

    let lib = EmbeddedElfLibrary::load(&data("matmul_x86.so")).unwrap();
    let allocator = HeapAllocator::new();
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DISPATCH_STORAGE,
        ..Default::default()
    };
    let a: Vec<f32> = (0..256).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..256).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
    let mut expected = vec![0f32; 256];
    for i in 0..16 {
        for j in 0..16 {
            expected[i * 16 + j] = (0..16).map(|k| a[i * 16 + k] * b[k * 16 + j]).sum();
        }
    }
    // Inputs share one allocation through subspans; the output has its own.
    let inputs = allocator.allocate_buffer(params, 2048).unwrap();
    inputs.write(0, &bytes(&a)).unwrap();
    inputs.write(1024, &bytes(&b)).unwrap();
    let lhs = inputs.subspan(0, 1024).unwrap();
    let out = allocator.allocate_buffer(params, 1024).unwrap();
    let bindings = [
        BufferBinding {
            buffer: &lhs,
            offset: 0,
            length: 1024,
        },
        BufferBinding {
            buffer: &inputs,
            offset: 1024,
            length: WHOLE_BUFFER,
        },
        BufferBinding {
            buffer: &out,
            offset: 0,
            length: 1024,
        },
    ];
    dispatch_grid(&lib, 0, &[], &bindings, [2, 1, 1]).unwrap();
    let mut result = vec![0u8; 1024];
    out.read(0, &mut result).unwrap();
    assert_eq!(f32s(&result), expected);

    // The same on scoped workers and on a persistent pool (more workers than
    // workgroups: the extra ones sit out), many times to shake out races.
    for workers in [2, 3, 8] {
        let pool = iree_hal_local::WorkerPool::new(workers);
        for _ in 0..50 {
            out.fill(0, 1024, &[0]).unwrap();
            iree_hal_local::dispatch_grid_on_pool(&lib, 0, &[], &bindings, [2, 1, 1], &pool)
                .unwrap();
            out.read(0, &mut result).unwrap();
            assert_eq!(f32s(&result), expected, "{workers} pool workers");
            out.fill(0, 1024, &[0]).unwrap();
            iree_hal_local::dispatch_grid_parallel(&lib, 0, &[], &bindings, [2, 1, 1], workers)
                .unwrap();
            out.read(0, &mut result).unwrap();
            assert_eq!(f32s(&result), expected, "{workers} scoped workers");
        }
    }

    // Ranges are checked against the buffers.
    let short = [
        bindings[0],
        bindings[1],
        BufferBinding {
            buffer: &out,
            offset: 4,
            length: 1024,
        },
    ];
    assert_eq!(
        dispatch_grid(&lib, 0, &[], &short, [2, 1, 1])
            .unwrap_err()
            .code(),
        StatusCode::OutOfRange
    );
    // Host mappings are refused while the device holds the memory; after the
    // dispatch returns they work again (checked above by `out.read`).
    let guard = out.begin_device_access().unwrap();
    assert_eq!(
        out.read(0, &mut result).unwrap_err().code(),
        StatusCode::FailedPrecondition
    );
    drop(guard);
}

#[test]
fn command_buffer_runs_matmul_with_a_binding_table() {
    use std::sync::Arc;

    use iree_hal::{
        Allocator, BindingRef, BufferParams, BufferUsage, CommandBuffer, DispatchBinding,
        Executable, HeapAllocator, MemoryType,
    };

    let lib: Arc<dyn Executable> =
        Arc::new(EmbeddedElfLibrary::load(&data("matmul_x86.so")).unwrap());
    let ordinal = lib
        .lookup_export("matmul_dispatch_0_matmul_16x16x16_f32")
        .unwrap();
    let allocator = HeapAllocator::new();
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DISPATCH_STORAGE | BufferUsage::TRANSFER,
        ..Default::default()
    };
    let (lhs, rhs, out) = (
        allocator.allocate_buffer(params, 1024).unwrap(),
        allocator.allocate_buffer(params, 1024).unwrap(),
        allocator.allocate_buffer(params, 1024).unwrap(),
    );
    // lhs = identity via update+fill; rhs = arbitrary; out should equal rhs.
    let rhs_values: Vec<f32> = (0..256).map(|i| i as f32 * 0.25 - 3.0).collect();
    rhs.write(0, &bytes(&rhs_values)).unwrap();
    let mut cb = CommandBuffer::new(2);
    cb.fill(
        BindingRef::Slot {
            slot: 0,
            offset: 0,
            length: 1024,
        },
        &[0, 0, 0, 0],
    )
    .unwrap();
    for i in 0..16u64 {
        cb.update(
            &1f32.to_le_bytes(),
            BindingRef::Slot {
                slot: 0,
                offset: (i * 16 + i) * 4,
                length: 4,
            },
        )
        .unwrap();
    }
    cb.barrier().unwrap();
    cb.dispatch(
        lib,
        ordinal,
        [2, 1, 1],
        &[],
        vec![
            BindingRef::Slot {
                slot: 0,
                offset: 0,
                length: 1024,
            },
            BindingRef::Slot {
                slot: 1,
                offset: 0,
                length: 1024,
            },
            BindingRef::Direct {
                buffer: out.clone(),
                offset: 0,
                length: 1024,
            },
        ],
    )
    .unwrap();
    cb.finalize().unwrap();
    let table = [
        DispatchBinding {
            buffer: lhs,
            offset: 0,
            length: 1024,
        },
        DispatchBinding {
            buffer: rhs,
            offset: 0,
            length: 1024,
        },
    ];
    cb.execute_inline(&table).unwrap();
    let mut result = vec![0u8; 1024];
    out.read(0, &mut result).unwrap();
    assert_eq!(f32s(&result), rhs_values);
}

#[test]
fn local_sync_device_runs_simple_mul_in_fence_order() {
    use iree_hal::{
        BindingRef, BufferParams, BufferUsage, CommandBuffer, DriverRegistry, Fence, MemoryType,
        WHOLE_BUFFER,
    };
    use iree_hal_local::device::host_embedded_elf_format;
    use iree_hal_local::LocalSyncDriver;
    use std::sync::Arc;

    let mut registry = DriverRegistry::new();
    registry.register(Arc::new(LocalSyncDriver)).unwrap();
    let device = registry.create_device("local-sync://").unwrap();
    assert_eq!(
        registry
            .create_device("nope")
            .err()
            .map(|e| e.code())
            .unwrap(),
        StatusCode::NotFound
    );
    assert_eq!(device.query_i64("hal.device.id", "local*").unwrap(), 1);
    assert_eq!(device.query_i64("hal.device.id", "cuda*").unwrap(), 0);
    assert_eq!(
        device
            .query_i64("hal.executable.format", host_embedded_elf_format())
            .unwrap(),
        1
    );
    assert_eq!(
        device
            .query_i64("hal.executable.format", "vmvx-bytecode-fb")
            .unwrap(),
        1
    );
    assert_eq!(
        device
            .query_i64("hal.executable.format", "cuda-nvptx-fb")
            .unwrap(),
        0
    );
    assert_eq!(
        device.query_i64("hal.device", "bogus").unwrap_err().code(),
        StatusCode::NotFound
    );
    assert_eq!(
        device
            .create_executable("cuda-nvptx-fb", &[], &[])
            .err()
            .map(|e| e.code())
            .unwrap(),
        StatusCode::Unimplemented
    );
    // An empty VMVX payload is not a module.
    assert_eq!(
        device
            .create_executable("vmvx-bytecode-fb", &[], &[])
            .err()
            .map(|e| e.code())
            .unwrap(),
        StatusCode::InvalidArgument
    );

    let executable = device
        .create_executable(host_embedded_elf_format(), &data("simple_mul_x86.so"), &[])
        .unwrap();
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DISPATCH_STORAGE | BufferUsage::TRANSFER,
        ..Default::default()
    };
    let none = Fence::new();
    let allocated = Fence::with_new_semaphore();
    let inputs = device.queue_alloca(&none, &allocated, params, 32).unwrap();
    let out = device.allocator().allocate_buffer(params, 16).unwrap();
    inputs
        .write(0, &bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, -8.5]))
        .unwrap();
    let mut cb = CommandBuffer::new(0);
    cb.dispatch(
        executable,
        0,
        [1, 1, 1],
        &[],
        vec![
            BindingRef::Direct {
                buffer: inputs.clone(),
                offset: 0,
                length: 16,
            },
            BindingRef::Direct {
                buffer: inputs.clone(),
                offset: 16,
                length: WHOLE_BUFFER,
            },
            BindingRef::Direct {
                buffer: out.clone(),
                offset: 0,
                length: 16,
            },
        ],
    )
    .unwrap();
    cb.finalize().unwrap();
    let done = Fence::with_new_semaphore();
    device
        .queue_execute(&allocated, &done, Some(&cb), &[])
        .unwrap();
    done.wait(None).unwrap();
    let mut result = vec![0u8; 16];
    out.read(0, &mut result).unwrap();
    assert_eq!(f32s(&result), [5.0, 12.0, 21.0, -34.0]);
    let stats = device.allocator().statistics();
    assert_eq!(stats.device_bytes_allocated, 48);
}

#[test]
fn executable_cache_negotiates_formats_with_the_device() {
    use iree_hal::{Driver, ExecutableCache};
    use iree_hal_local::device::host_embedded_elf_format;

    let device = iree_hal_local::LocalSyncDriver.create_device("").unwrap();
    let cache = ExecutableCache::new(device);
    assert!(cache.can_prepare(host_embedded_elf_format()));
    assert!(cache.can_prepare("vmvx-bytecode-fb"));
    assert!(!cache.can_prepare("cuda-nvptx-fb"));
    let err = cache
        .prepare("cuda-nvptx-fb", &[], &[])
        .err()
        .expect("unsupported format");
    assert_eq!(err.code(), StatusCode::NotFound, "{err}");
    if cfg!(target_arch = "x86_64") {
        let executable = cache
            .prepare(host_embedded_elf_format(), &data("matmul_x86.so"), &[])
            .unwrap();
        assert!(executable.export_count() >= 1);
    }
}

/// Issue #31: header tables with the wrong entity sizes, or without section
/// headers, fail as upstream's `iree_elf_module_verify_ehdr` fails them:
/// FAILED_PRECONDITION "ELF entity size mismatch" / "invalid mandatory shdr
/// table" (checked against upstream 3.13 on the same patched kernels).
#[test]
fn header_table_entity_sizes_and_counts_are_verified() {
    let good = data("simple_mul_x86.so");
    // (field offset, value, message)
    let cases: [(usize, u16, &str); 5] = [
        (0x3A, 40, "entity size mismatch"),        // e_shentsize
        (0x36, 32, "entity size mismatch"),        // e_phentsize
        (0x34, 52, "entity size mismatch"),        // e_ehsize
        (0x3C, 0, "invalid mandatory shdr table"), // e_shnum
        (0x38, 0, "invalid mandatory phdr table"), // e_phnum
    ];
    for (offset, value, message) in cases {
        let mut bytes = good.clone();
        bytes[offset..offset + 2].copy_from_slice(&value.to_le_bytes());
        let err = match ElfModule::load(&bytes) {
            Ok(_) => panic!("patched header at {offset:#x} loaded"),
            Err(e) => e,
        };
        assert_eq!(err.code(), StatusCode::FailedPrecondition, "{err}");
        assert!(err.message().contains(message), "{err}");
    }
}

/// `exec_constants_x86.so`: the library of
/// `testdata/llvm-cpu/executable_constants.mlir` (out[i] = in[i] * scale +
/// offset, both executable constants) with its `constants.count` patched
/// from the 0 iree-compile 3.13 writes to 2 (byte 1368). The constants reach
/// the kernel through the environment; any other count is
/// FAILED_PRECONDITION, as upstream.
#[test]
fn executable_constants_reach_the_kernel_and_their_count_is_checked() {
    use iree_hal::{Allocator, BufferParams, BufferUsage, HeapAllocator, MemoryType};
    use iree_hal_local::library::ProcessorV0;
    use iree_hal_local::{dispatch_grid, BufferBinding};

    let elf = data("exec_constants_x86.so");
    for provided in [&[][..], &[7], &[7, 100, 1]] {
        let Err(err) =
            EmbeddedElfLibrary::load_with_constants(&elf, ProcessorV0::default(), provided)
        else {
            panic!("{} constants accepted", provided.len());
        };
        assert_eq!(err.code(), StatusCode::FailedPrecondition);
        assert!(
            err.to_string().contains(&format!(
                "executable requires 2 constants but caller provided {}; must match",
                provided.len()
            )),
            "{err}"
        );
    }

    let lib =
        EmbeddedElfLibrary::load_with_constants(&elf, ProcessorV0::default(), &[7, 100]).unwrap();
    assert_eq!(lib.info().constant_count, 2);
    let allocator = HeapAllocator::new();
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DISPATCH_STORAGE,
        ..Default::default()
    };
    let input = allocator.allocate_buffer(params, 16).unwrap();
    let values: Vec<u8> = [1i32, 2, 3, -4]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    input.write(0, &values).unwrap();
    let out = allocator.allocate_buffer(params, 16).unwrap();
    let bindings = [
        BufferBinding {
            buffer: &input,
            offset: 0,
            length: 16,
        },
        BufferBinding {
            buffer: &out,
            offset: 0,
            length: 16,
        },
    ];
    dispatch_grid(&lib, 0, &[], &bindings, [1, 1, 1]).unwrap();
    let mut result = [0u8; 16];
    out.read(0, &mut result).unwrap();
    let result: Vec<i32> = result
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(result, [107, 114, 121, 72]);

    // The unpatched library (count 0) with no constants still loads.
    let mut unpatched = elf.clone();
    unpatched[1368..1372].copy_from_slice(&0u32.to_le_bytes());
    assert!(EmbeddedElfLibrary::load(&unpatched).is_ok());
}

/// A dispatch whose binding or constant count differs from what its export
/// declares fails when it is recorded, with upstream's text (a mutated
/// VMVX module whose export declared no bindings used to run).
#[test]
fn dispatch_counts_are_checked_when_recorded() {
    use iree_hal::{BindingRef, BufferParams, CommandBuffer, Driver};
    use iree_hal_local::device::host_embedded_elf_format;

    let device = iree_hal_local::LocalSyncDriver.create_device("").unwrap();
    let executable = device
        .create_executable(host_embedded_elf_format(), &data("simple_mul_x86.so"), &[])
        .unwrap();
    let buffer = device
        .allocator()
        .allocate_buffer(BufferParams::default(), 16)
        .unwrap();
    let binding = || BindingRef::Direct {
        buffer: buffer.clone(),
        offset: 0,
        length: 16,
    };
    let mut cb = CommandBuffer::new(0);
    let error = cb
        .dispatch(
            executable.clone(),
            0,
            [1, 1, 1],
            &[],
            vec![binding(), binding()],
        )
        .unwrap_err();
    assert_eq!(error.code(), StatusCode::InvalidArgument);
    assert!(
        error
            .to_string()
            .contains("binding count mismatch, expected 3 but was provided 2"),
        "{error}"
    );
    let error = cb
        .dispatch(
            executable,
            0,
            [1, 1, 1],
            &[7],
            vec![binding(), binding(), binding()],
        )
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("constant count mismatch, expected 0 but was provided 1"),
        "{error}"
    );
    // Upstream's local-sync records reusable command buffers deferred and
    // checks their dispatches when it replays them: a mismatched dispatch
    // records, and fails when executed.
    assert!(device.defers_dispatch_checks(false));
    assert!(!device.defers_dispatch_checks(true));
    assert!(!iree_hal_local::LocalTaskDriver::default()
        .create_device("")
        .unwrap()
        .defers_dispatch_checks(false));
    let executable = device
        .create_executable(host_embedded_elf_format(), &data("simple_mul_x86.so"), &[])
        .unwrap();
    let mut deferred = CommandBuffer::new(0).with_dispatch_checks_at_execution();
    deferred
        .dispatch(executable, 0, [1, 1, 1], &[], vec![binding(), binding()])
        .unwrap();
    deferred.finalize().unwrap();
    let done = iree_hal::Fence::with_new_semaphore();
    let error = device
        .queue_execute(&iree_hal::Fence::new(), &done, Some(&deferred), &[])
        .and_then(|()| done.wait(None))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("binding count mismatch, expected 3 but was provided 2"),
        "{error}"
    );
}

/// `local-task` queue allocations come from pools of host memory, as
/// upstream's: a memory type or usage no pool offers is NOT_FOUND with
/// upstream's text (a mutated module asked for an unknown memory type bit
/// and ran); device bits and OPTIMAL are what every CPU buffer has.
#[test]
fn local_task_queue_allocations_need_a_pool() {
    use iree_hal::{BufferParams, BufferUsage, Driver, Fence, MemoryType};

    let device = iree_hal_local::LocalTaskDriver::default()
        .create_device("")
        .unwrap();
    let alloca = |memory_type: u32, usage: u32| {
        let params = BufferParams {
            memory_type: MemoryType(memory_type),
            usage: BufferUsage(usage),
            ..Default::default()
        };
        device.queue_alloca(&Fence::new(), &Fence::with_new_semaphore(), params, 32)
    };
    let defaults = BufferUsage::DEFAULT.0;
    for ok in [0, 0x1, 0x30, 0x31, 0x10, 0x4e, 0x7f] {
        alloca(ok, defaults).unwrap();
    }
    alloca(0x30, 0).unwrap();
    for (memory_type, usage) in [(0x230, defaults), (0x80, defaults), (0x30, 1 << 2)] {
        let error = alloca(memory_type, usage).unwrap_err();
        assert_eq!(error.code(), StatusCode::NotFound);
        assert!(
            error
                .to_string()
                .contains("no default local-task pool can satisfy queue_alloca of 32 bytes"),
            "{error}"
        );
    }
}
