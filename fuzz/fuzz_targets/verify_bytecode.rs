//! Structure-aware fuzzing of the bytecode verifier (`decode.rs`) and the
//! disassembler (`disasm.rs`): neither may panic, and for every module that
//! verifies, the instruction boundaries the ISA table finds must be the
//! verifier's.
//!
//! Mutating whole `.vmfb` files mostly breaks the flatbuffer, so few inputs
//! reach the verifier. Here the input is function bytecode plus a small
//! header; the target wraps it in a well-formed module (types, imports,
//! rodata, globals, a second internal function to call) and loads that.
//!
//! Input layout:
//!   [0..2)  i32_register_count (i16 LE)     [2..4) ref_register_count (i16 LE)
//!   [4]     cconv of function 0 (index into CCONVS)
//!   [5]     cconv of function 1             [6], [7] cconvs of imports 0, 1
//!   [8]     block_count of function 0
//!   [9..]   bytecode of function 0; function 1 is `block; return`
#![no_main]

use std::sync::{Arc, LazyLock};

use iree_fuzz::wrap::wrap_bytecode;
use iree_vm::{Instance, Module};
use iree_vm_bytecode::{disasm, BytecodeModule};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

static INSTANCE: LazyLock<Arc<Instance>> = LazyLock::new(Instance::new);

fuzz_target!(|data: &[u8]| {
    // Bytecode too long to be a plausible function just slows the fuzzer.
    if data.len() < 10 || data.len() > 64 * 1024 {
        return;
    }
    let header: &[u8; 9] = data[..9].try_into().unwrap();
    let file = wrap_bytecode(header, &data[9..]);
    let options = disasm::Options {
        function: String::new(),
        bytecode_offsets: true,
    };
    let mut text = String::new();
    let _ = disasm::disassemble(&file, &options, &mut text);
    let instance = &*INSTANCE;
    let module = match BytecodeModule::from_vec(instance, file.clone()) {
        Ok(m) => m,
        Err(_) => return,
    };
    assert_eq!(module.functions().len(), 2);
    let meta = module.metadata();
    for (ordinal, f) in module.functions().iter().enumerate() {
        let code = &file[meta.function_range(ordinal).unwrap()];
        let offsets = disasm::instruction_offsets(code).expect("verified code walks by the table");
        assert_eq!(offsets, f.op_offsets.to_vec());
    }
    let imports = (0..module.imports().len()).map(|_| None).collect();
    let _ = module.instantiate(instance, imports);
});
