//! Loads real 3.13 `system-elf-x86_64` kernels (compiled with
//! `--iree-llvmcpu-link-embedded=false` from `tests/data/*.mlir`; see
//! `tests/data/README.md`) through the platform's dynamic loader, and checks
//! that malformed payloads fail with a status before reaching it.

mod common;
use common::*;
use iree_base::StatusCode;
use iree_hal::Device;
use iree_hal_local::system_library::check_system_library;
use iree_hal_local::{
    host_system_elf_format, ExecutableLoader, LocalDevice, Machine, SystemLibrary,
    SystemLibraryLoader,
};

/// Program header indices of type `p_type`.
fn phdrs_of(b: &[u8], p_type: u32) -> Vec<usize> {
    (0..u16_at(b, 0x38) as usize)
        .filter(|&i| u32_at(b, phdr(b, i)) == p_type)
        .collect()
}

/// File offset of virtual address `vaddr` (through the PT_LOAD segments).
fn file_offset(b: &[u8], vaddr: u64) -> usize {
    for i in phdrs_of(b, 1) {
        let p = phdr(b, i);
        let (off, va, filesz) = (u64_at(b, p + 8), u64_at(b, p + 16), u64_at(b, p + 32));
        if vaddr >= va && vaddr < va + filesz {
            return (off + vaddr - va) as usize;
        }
    }
    panic!("vaddr 0x{vaddr:x} is not file-backed");
}

/// File offsets and tags of the `.dynamic` entries.
fn dynamic_entries(b: &[u8]) -> impl Iterator<Item = (usize, u64)> + '_ {
    let p = phdr(b, phdrs_of(b, 2)[0]);
    let (va, size) = (u64_at(b, p + 16), u64_at(b, p + 32));
    let start = file_offset(b, va);
    (start..start + size as usize)
        .step_by(16)
        .map(move |e| (e, u64_at(b, e)))
}

/// File offset of the `.dynamic` entry with tag `tag`, and its value.
fn dynamic_entry(b: &[u8], tag: u64) -> (usize, u64) {
    match dynamic_entries(b).find(|&(_, t)| t == tag) {
        Some((e, _)) => (e, u64_at(b, e + 8)),
        None => panic!("no dynamic tag {tag}"),
    }
}

/// File offset of the query symbol's `Elf64_Sym`.
fn query_symbol(b: &[u8]) -> usize {
    let (_, symtab) = dynamic_entry(b, 6);
    let (_, strtab) = dynamic_entry(b, 5);
    let (symtab, strtab) = (file_offset(b, symtab), file_offset(b, strtab));
    (1..64)
        .map(|i| symtab + 24 * i)
        .find(|&s| {
            let name = strtab + u32_at(b, s) as usize;
            b[name..].starts_with(QUERY.as_bytes())
        })
        .expect("query symbol")
}

/// End of the last PT_LOAD's file range.
fn loaded_file_end(b: &[u8]) -> usize {
    phdrs_of(b, 1)
        .into_iter()
        .map(|i| {
            let p = phdr(b, i);
            (u64_at(b, p + 8) + u64_at(b, p + 32)) as usize
        })
        .max()
        .unwrap()
}

fn load_err(b: &[u8]) -> iree_base::Status {
    let err = SystemLibrary::load(b).expect_err("malformed library loaded");
    // Every check runs before dlopen: `check_system_library` agrees.
    if !err.to_string().contains("failed to load dynamic library") {
        assert!(check_system_library(b).is_err(), "{err}");
    }
    err
}

#[test]
fn test_data_matches_the_vmfb_rodata() {
    for (vmfb, so) in [
        ("simple_mul_system_x86.vmfb", "simple_mul_system_x86.so"),
        ("matmul_system_x86.vmfb", "matmul_system_x86.so"),
        ("math_system_x86.vmfb", "math_system_x86.so"),
    ] {
        let file = data(vmfb);
        let meta = iree_vm_bytecode::format::parse_module(&file).unwrap();
        let segments: Vec<&[u8]> = (0..meta.rodata.len())
            .map(|i| meta.rodata_bytes(&file, i).unwrap())
            .collect();
        assert!(
            segments.contains(&&b"system-elf-x86_64"[..]),
            "{vmfb} has no system-elf-x86_64 rodata"
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
        let layout = check_system_library(elfs[0]).unwrap();
        assert_eq!(layout.machine, Machine::X86_64);
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod x86_64_linux {
    use super::*;

    #[test]
    fn simple_mul_loads_queries_and_dispatches() {
        let lib = SystemLibrary::load(&data("simple_mul_system_x86.so")).unwrap();
        let info = lib.info();
        assert_eq!(info.version, 6);
        assert_eq!(info.name, "simple_mul_dispatch_0");
        assert!(info.imports.is_empty());
        assert_eq!(info.constant_count, 0);
        assert_eq!(lib.exports().len(), 1);
        let e = &lib.exports()[0];
        assert_eq!(e.name, "simple_mul_dispatch_0_elementwise_4_f32");
        assert_eq!(e.binding_count(), 3);
        assert_eq!(e.workgroup_size(), [1, 1, 1]);
        // The query answers only version 6, always with the same library.
        assert_eq!(lib.query(6), lib.library_address());
        assert_ne!(lib.library_address(), 0);
        for v in [0, 5, 7, u32::MAX] {
            assert_eq!(lib.query(v), 0, "version {v}");
        }
        // The image reader sees the query function's code and nothing
        // outside the segments.
        let query = lib.base_address() + lib.layout().query_value;
        assert_eq!(lib.base_address() % 4096, 0);
        assert!(lib.image().is_code(query));
        assert!(!lib.image().is_code(lib.library_address()));
        assert!(!lib.image().is_code(lib.base_address()));
        let mut word = [0u8; 8];
        lib.image().read(lib.library_address(), &mut word).unwrap();
        assert!(lib.image().read(0, &mut word).is_err());
        assert!(lib.image().read(u64::MAX - 3, &mut word).is_err());

        let (mut a, mut b) = (bytes(&[1.0, 2.0, 3.0, 4.0]), bytes(&[5.0, 6.0, 7.0, -8.5]));
        let mut out = vec![0u8; 16];
        lib.dispatch_workgroup(0, &[], &mut [&mut a, &mut b, &mut out], [1; 3], [0; 3])
            .unwrap();
        assert_eq!(f32s(&out), [5.0, 12.0, 21.0, -34.0]);
        // Argument checks are the embedded library's.
        let err = lib.dispatch_workgroup(0, &[], &mut [&mut a, &mut b], [1; 3], [0; 3]);
        assert_eq!(err.unwrap_err().code(), StatusCode::InvalidArgument);
        let err = lib.dispatch_workgroup(1, &[], &mut [], [1; 3], [0; 3]);
        assert_eq!(err.unwrap_err().code(), StatusCode::OutOfRange);
    }

    #[test]
    fn matmul_16x16_matches_a_reference() {
        let lib = SystemLibrary::load(&data("matmul_system_x86.so")).unwrap();
        let e = &lib.exports()[0];
        assert_eq!(e.name, "matmul_dispatch_0_matmul_16x16x16_f32");
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

    /// The math kernel calls `floorf`, `fmaf` and `ceilf` from the process
    /// (undefined symbols of the shared object).
    #[test]
    fn libm_imports_resolve_against_the_process() {
        let so = data("math_system_x86.so");
        let lib = SystemLibrary::load(&so).unwrap();
        let a = [1.5f32, -2.25, 0.0, 7.75, -0.5, 100.1, 3.0, -9.99];
        let b = [2.0f32, 0.5, -3.0, 1.25, 4.0, -0.01, 0.0, 3.5];
        let expected: Vec<f32> = a
            .iter()
            .zip(&b)
            .map(|(&a, &b)| a.floor().mul_add(b, a).ceil())
            .collect();
        let (mut ab, mut bb, mut out) = (bytes(&a), bytes(&b), vec![0u8; 32]);
        lib.dispatch_workgroup(0, &[], &mut [&mut ab, &mut bb, &mut out], [1; 3], [0; 3])
            .unwrap();
        assert_eq!(f32s(&out), expected);
    }

    #[test]
    fn libraries_load_independently_and_are_shareable_across_threads() {
        let so = data("simple_mul_system_x86.so");
        let first = SystemLibrary::load(&so).unwrap();
        let second = SystemLibrary::load(&so).unwrap();
        // Two loads are two images (the dynamic loader does not merge them).
        assert_ne!(first.library_address(), second.library_address());
        drop(first);
        // A new load after an unload (which may reuse the memfd's number).
        let third = SystemLibrary::load(&so).unwrap();
        std::thread::scope(|s| {
            for t in 0..4 {
                let lib = if t % 2 == 0 { &second } else { &third };
                s.spawn(move || {
                    for i in 0..100 {
                        let x = (t * 100 + i) as f32;
                        let (mut a, mut b, mut c) =
                            (bytes(&[x; 4]), bytes(&[2.0; 4]), vec![0u8; 16]);
                        lib.dispatch_workgroup(
                            0,
                            &[],
                            &mut [&mut a, &mut b, &mut c],
                            [1; 3],
                            [0; 3],
                        )
                        .unwrap();
                        assert_eq!(f32s(&c), [2.0 * x; 4]);
                    }
                });
            }
        });
    }

    #[test]
    fn loader_and_device_accept_the_host_format() {
        assert_eq!(host_system_elf_format(), Some("system-elf-x86_64"));
        let loader = SystemLibraryLoader;
        assert_eq!(loader.name(), "system-library");
        assert!(loader.supports("system-elf-x86_64"));
        assert!(!loader.supports("system-elf-arm_64"));
        assert!(!loader.supports("embedded-elf-x86_64"));
        assert_eq!(loader.formats(), ["system-elf-x86_64"]);
        let exe = loader
            .load("system-elf-x86_64", &data("simple_mul_system_x86.so"), &[])
            .unwrap();
        assert_eq!(exe.exports().len(), 1);

        let device = LocalDevice::new();
        assert_eq!(
            device
                .query_i64("hal.executable.format", "system-elf-x86_64")
                .unwrap(),
            1
        );
        assert_eq!(
            device
                .query_i64("hal.executable.format", "embedded-elf-x86_64")
                .unwrap(),
            1
        );
        let exe = device
            .create_executable("system-elf-x86_64", &data("matmul_system_x86.so"), &[])
            .unwrap();
        assert_eq!(
            exe.export_name(0),
            Some("matmul_dispatch_0_matmul_16x16x16_f32")
        );
        let Err(err) = device.create_executable("system-elf-x86_64", b"garbage", &[]) else {
            panic!("garbage loaded");
        };
        assert_eq!(err.code(), StatusCode::InvalidArgument, "{err}");
        assert!(err.to_string().contains("system-elf-x86_64"), "{err}");
    }

    #[test]
    fn debug_footer_is_stripped() {
        let so = data("simple_mul_system_x86.so");
        let footer = |library_size: u64, debug_offset: u64, debug_size: u64| {
            let mut f = b"IREEDBG\0".to_vec();
            f.extend_from_slice(&[0; 8]); // version, flags
            f.extend_from_slice(&0u64.to_le_bytes());
            f.extend_from_slice(&library_size.to_le_bytes());
            f.extend_from_slice(&debug_offset.to_le_bytes());
            f.extend_from_slice(&debug_size.to_le_bytes());
            f
        };
        let mut with_debug = so.clone();
        with_debug.extend_from_slice(b"debug database");
        with_debug.extend_from_slice(&footer(so.len() as u64, so.len() as u64, 14));
        let lib = SystemLibrary::load(&with_debug).unwrap();
        assert_eq!(lib.exports().len(), 1);

        let mut bad = so.clone();
        bad.extend_from_slice(&footer(so.len() as u64 + 1, 0, 0));
        assert_eq!(load_err(&bad).code(), StatusCode::OutOfRange);
        let mut bad = so.clone();
        bad.extend_from_slice(&footer(16, u64::MAX, 2));
        assert_eq!(load_err(&bad).code(), StatusCode::OutOfRange);
    }
}

#[test]
fn garbage_and_truncated_payloads_fail_before_dlopen() {
    assert_eq!(load_err(&[]).code(), StatusCode::InvalidArgument);
    assert_eq!(load_err(b"garbage").code(), StatusCode::InvalidArgument);
    assert_eq!(load_err(&[0u8; 4096]).code(), StatusCode::InvalidArgument);
    let so = data("simple_mul_system_x86.so");
    let end = loaded_file_end(&so);
    for len in (0..end).step_by(61).chain([end - 1]) {
        let err = load_err(&so[..len]);
        assert!(
            matches!(
                err.code(),
                StatusCode::InvalidArgument | StatusCode::NotFound
            ),
            "{len}: {err}"
        );
    }
}

#[test]
fn other_architectures_are_unimplemented() {
    // An aarch64 shared object (the embedded one is a valid one).
    let err = load_err(&data("simple_mul_arm.so"));
    assert_eq!(err.code(), StatusCode::Unimplemented, "{err}");
    assert!(err.to_string().contains("arm_64"), "{err}");
    let mut so = data("simple_mul_system_x86.so");
    put_u16(&mut so, 0x12, 8); // EM_MIPS
    assert_eq!(load_err(&so).code(), StatusCode::Unimplemented);
    let mut so = data("simple_mul_system_x86.so");
    so[4] = 1; // ELFCLASS32
    assert_eq!(load_err(&so).code(), StatusCode::Unimplemented);
    let loader = SystemLibraryLoader;
    assert!(!loader.supports("system-elf-riscv_64"));
    assert!(!loader.supports("system-dll-x86_64"));
}

#[test]
fn malformed_headers_fail_with_a_status() {
    let so = data("simple_mul_system_x86.so");
    let patched = |what: &str, f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = so.clone();
        f(&mut b);
        match SystemLibrary::load(&b) {
            Ok(_) => panic!("{what}: the malformed library loaded"),
            Err(_) => load_err(&b),
        }
    };
    let first_load = phdr(&so, phdrs_of(&so, 1)[0]);
    let last_load = phdr(&so, *phdrs_of(&so, 1).last().unwrap());
    type Patch = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(&str, Patch, StatusCode)> = vec![
        (
            "ET_EXEC",
            Box::new(|b| put_u16(b, 0x10, 2)),
            StatusCode::InvalidArgument,
        ),
        (
            "phentsize",
            Box::new(|b| put_u16(b, 0x36, 40)),
            StatusCode::InvalidArgument,
        ),
        (
            "phnum",
            Box::new(|b| put_u16(b, 0x38, 0xffff)),
            StatusCode::InvalidArgument,
        ),
        (
            "filesz past the file",
            Box::new(move |b| put_u64(b, last_load + 32, 1 << 20)),
            StatusCode::InvalidArgument,
        ),
        (
            "filesz above memsz",
            Box::new(move |b| {
                let memsz = u64_at(b, first_load + 40);
                put_u64(b, first_load + 32, memsz + 1)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "huge memsz",
            Box::new(move |b| put_u64(b, last_load + 40, 1 << 40)),
            StatusCode::InvalidArgument,
        ),
        (
            "misaligned segment",
            Box::new(move |b| {
                let vaddr = u64_at(b, last_load + 16);
                put_u64(b, last_load + 16, vaddr + 8)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "no PT_DYNAMIC",
            Box::new(|b| {
                let p = phdr(b, phdrs_of(b, 2)[0]);
                put_u32(b, p, 0x6474e551) // PT_GNU_STACK
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "PT_INTERP",
            Box::new(|b| {
                let p = phdr(b, phdrs_of(b, 0x6474e551)[0]);
                put_u32(b, p, 3)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "PT_GNU_RELRO outside the image",
            Box::new(|b| {
                let p = phdr(b, phdrs_of(b, 0x6474e552)[0]);
                put_u64(b, p + 16, 1 << 29)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "no DT_NULL",
            Box::new(|b| {
                // Every DT_NULL (the table is padded with them).
                let nulls: Vec<usize> = dynamic_entries(b)
                    .filter(|&(_, tag)| tag == 0)
                    .map(|(at, _)| at)
                    .collect();
                for at in nulls {
                    put_u64(b, at, 0x6fff_0000)
                }
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "DT_STRTAB outside",
            Box::new(|b| {
                let (at, _) = dynamic_entry(b, 5);
                put_u64(b, at + 8, 1 << 32)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "DT_SYMENT",
            Box::new(|b| {
                let (at, _) = dynamic_entry(b, 11);
                put_u64(b, at + 8, 16)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "DT_HASH with no buckets",
            Box::new(|b| {
                let (_, hash) = dynamic_entry(b, 4);
                let at = file_offset(b, hash);
                put_u32(b, at, 0)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "DT_GNU_HASH with no buckets",
            Box::new(|b| {
                let (_, hash) = dynamic_entry(b, 0x6fff_fef5);
                let at = file_offset(b, hash);
                put_u32(b, at, 0)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "DT_GNU_HASH bloom size 0",
            Box::new(|b| {
                let (_, hash) = dynamic_entry(b, 0x6fff_fef5);
                let at = file_offset(b, hash);
                put_u32(b, at + 8, 0)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "relocation outside the image",
            Box::new(|b| {
                let (_, rela) = dynamic_entry(b, 7);
                let at = file_offset(b, rela);
                put_u64(b, at, 0x7fff_0000_0000)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "relocation symbol out of range",
            Box::new(|b| {
                let (_, rela) = dynamic_entry(b, 7);
                let at = file_offset(b, rela);
                put_u64(b, at + 8, (1000 << 32) | 1)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "RELASZ not a multiple",
            Box::new(|b| {
                let (at, v) = dynamic_entry(b, 8);
                put_u64(b, at + 8, v - 1)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "symbol name outside DT_STRTAB",
            Box::new(|b| {
                let s = query_symbol(b);
                put_u32(b, s, 0x10_0000)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "query symbol renamed",
            Box::new(|b| {
                let s = query_symbol(b);
                let (_, strtab) = dynamic_entry(b, 5);
                let name = file_offset(b, strtab) + u32_at(b, s) as usize;
                b[name] = b'j';
            }),
            StatusCode::NotFound,
        ),
        (
            "query symbol outside the code",
            Box::new(|b| {
                let s = query_symbol(b);
                put_u64(b, s + 8, 0x10)
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "query symbol not a function",
            Box::new(|b| {
                let s = query_symbol(b);
                b[s + 4] = (1 << 4) | 1; // GLOBAL OBJECT
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "query symbol undefined",
            Box::new(|b| {
                let s = query_symbol(b);
                put_u16(b, s + 6, 0)
            }),
            StatusCode::NotFound,
        ),
        (
            "DT_INIT outside the code",
            Box::new(|b| {
                // Reuse the DT_RELACOUNT entry's slot for a DT_INIT.
                let (at, _) = dynamic_entry(b, 0x6fff_fff9);
                put_u64(b, at, 12);
                put_u64(b, at + 8, 0x10);
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "DT_REL",
            Box::new(|b| {
                let (at, _) = dynamic_entry(b, 0x6fff_fff9);
                put_u64(b, at, 17);
            }),
            StatusCode::Unimplemented,
        ),
        (
            "DT_NEEDED name outside DT_STRTAB",
            Box::new(|b| {
                let (at, _) = dynamic_entry(b, 0x6fff_fff9);
                put_u64(b, at, 1);
                put_u64(b, at + 8, 1 << 20);
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "DT_VERSYM outside the file",
            Box::new(|b| {
                let (at, _) = dynamic_entry(b, 0x6fff_fff9);
                put_u64(b, at, 0x6fff_fff0);
                put_u64(b, at + 8, 1 << 28);
            }),
            StatusCode::InvalidArgument,
        ),
        (
            "DT_VERNEED chain outside the file",
            Box::new(|b| {
                let (at, _) = dynamic_entry(b, 0x6fff_fff9);
                put_u64(b, at, 0x6fff_fffe);
                put_u64(b, at + 8, 0x3000 - 8);
            }),
            StatusCode::InvalidArgument,
        ),
    ];
    for (what, patch, code) in cases {
        let err = patched(what, &*patch);
        assert_eq!(err.code(), code, "{what}: {err}");
    }
}

/// Every single-byte change to the headers and tables the checks read
/// either passes or fails with a status; none panics. (The checks only:
/// loading a changed library would run changed code.)
#[test]
fn checks_survive_every_byte_change_in_the_tables() {
    let so = data("simple_mul_system_x86.so");
    // The first segment holds the headers, hash tables, symbols, strings
    // and relocations.
    let tables_end = u64_at(&so, phdr(&so, phdrs_of(&so, 1)[0]) + 32) as usize;
    let dyn_phdr = phdr(&so, phdrs_of(&so, 2)[0]);
    let dyn_start = file_offset(&so, u64_at(&so, dyn_phdr + 16));
    let dyn_end = dyn_start + u64_at(&so, dyn_phdr + 32) as usize;
    let mut passed = 0;
    for at in (0..tables_end).chain(dyn_start..dyn_end) {
        for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
            let mut b = so.clone();
            if b[at] == value {
                continue;
            }
            b[at] = value;
            if check_system_library(&b).is_ok() {
                passed += 1;
            }
        }
    }
    // Bytes the checks do not constrain (padding, hash values, bloom bits).
    assert!(passed > 0);
}
