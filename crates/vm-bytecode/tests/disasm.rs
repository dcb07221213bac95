//! The ISA table against the hand-checked decoder and the disassembler on
//! bad input.
//!
//! * Every function of every `.vmfb` under `testdata/` is walked twice:
//!   by the table alone ([`instruction_offsets`], what the
//!   disassembler does) and by the verifier ([`decode_function`]); both must
//!   find the same instruction boundaries.
//! * Truncated and bit-flipped modules never make the disassembler panic.

use std::path::{Path, PathBuf};

use iree_vm::{Cconv, TypeDef};
use iree_vm_bytecode::decode::{decode_function, ModuleView};
use iree_vm_bytecode::disasm::{disassemble, instruction_offsets, Options};
use iree_vm_bytecode::format::parse_module;

fn vmfbs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            vmfbs(&path, out);
        } else if path.extension().is_some_and(|e| e == "vmfb") {
            out.push(path);
        }
    }
}

fn testdata_modules() -> Vec<PathBuf> {
    let mut files = Vec::new();
    vmfbs(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata"),
        &mut files,
    );
    files.sort();
    files
}

#[test]
fn table_and_decoder_agree_on_instruction_boundaries() {
    let (mut modules, mut functions, mut instructions) = (0, 0, 0);
    for path in testdata_modules() {
        let file = std::fs::read(&path).unwrap();
        let Ok(meta) = parse_module(&file) else {
            continue;
        };
        let cconvs: Vec<Cconv> = meta
            .function_signatures
            .iter()
            .map(|s| Cconv::parse(&s.calling_convention).unwrap())
            .collect();
        let imports: Vec<Cconv> = meta
            .imports
            .iter()
            .map(|i| Cconv::parse(&i.signature.calling_convention).unwrap())
            .collect();
        let types: Vec<TypeDef> = meta.types.iter().map(|_| TypeDef::AnyRef).collect();
        let view = ModuleView {
            meta: &meta,
            types: &types,
            function_cconvs: &cconvs,
            import_cconvs: &imports,
        };
        modules += 1;
        for ordinal in 0..meta.functions.len() {
            // Modules the verifier rejects on purpose (testdata/vm's
            // upstream-failure cases) have nothing to compare.
            let Ok(code) = decode_function(&view, &file, ordinal) else {
                continue;
            };
            let bytes = &file[meta.function_range(ordinal).unwrap()];
            let ours = instruction_offsets(bytes).unwrap();
            assert_eq!(
                ours,
                code.op_offsets.to_vec(),
                "{} function {ordinal}",
                path.display()
            );
            functions += 1;
            instructions += ours.len();
        }
    }
    assert!(modules > 100, "testdata missing ({modules} modules)");
    println!("{modules} modules, {functions} functions, {instructions} instructions agree");
}

#[test]
fn bad_modules_do_not_panic_the_disassembler() {
    let modules = testdata_modules();
    let picks = [
        "vm/calls.vmfb",
        "vm/lists.vmfb",
        "llvm-cpu/async_elementwise.vmfb",
    ];
    for path in modules
        .iter()
        .filter(|p| picks.iter().any(|k| p.ends_with(k)))
    {
        let file = std::fs::read(path).unwrap();
        let options = Options {
            function: String::new(),
            bytecode_offsets: true,
        };
        let mut out = String::new();
        disassemble(&file, &options, &mut out).unwrap();
        for cut in (0..file.len()).step_by(97) {
            let mut out = String::new();
            let _ = disassemble(&file[..cut], &options, &mut out);
        }
        // Flip bits across the whole file (the bytecode included).
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..400 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut bad = file.clone();
            let at = (state as usize) % bad.len();
            bad[at] ^= 1 << ((state >> 40) % 8);
            let mut out = String::new();
            let _ = disassemble(&bad, &options, &mut out);
        }
    }
}
