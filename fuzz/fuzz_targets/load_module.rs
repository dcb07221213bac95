//! Fuzzes the whole load path and the disassembler
//! (`disasm::disassemble`): `BytecodeModule::from_vec` (parse, feature
//! and type checks, cconv parsing, verification of every function by
//! `decode.rs`, rodata buffers) and, when that succeeds, instantiation.
//!
//! No bytecode is ever executed (a fuzzed function may loop forever), so a
//! module is only registered in a `Context` when it exports neither
//! `__init` (run on registration) nor `__deinit` (run when the context is
//! dropped); every loaded module is also instantiated directly through
//! `Module::instantiate` with all imports unresolved, which allocates its
//! state (globals) without running anything.
#![no_main]

use std::sync::{Arc, LazyLock};

use iree_vm::{Context, Instance, Module};
use iree_vm_bytecode::{disasm, BytecodeModule};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

static INSTANCE: LazyLock<Arc<Instance>> = LazyLock::new(Instance::new);

fuzz_target!(|data: &[u8]| {
    // The disassembler (upstream's `iree-dump-module --output=disassembly`
    // text) must fail cleanly too, with offsets and without.
    for bytecode_offsets in [false, true] {
        let options = disasm::Options {
            function: String::new(),
            bytecode_offsets,
        };
        let mut text = String::new();
        let _ = disasm::disassemble(data, &options, &mut text);
    }
    let instance = &*INSTANCE;
    let Ok(module) = BytecodeModule::from_vec(instance, data.to_vec()) else {
        return;
    };
    let meta = module.metadata();
    assert_eq!(module.functions().len(), meta.functions.len());
    assert_eq!(module.exports().len(), meta.exports.len());
    assert_eq!(module.imports().len(), meta.imports.len());
    for f in module.functions() {
        assert!(!f.ops.is_empty());
        assert_eq!(f.ops.len(), f.op_offsets.len());
        assert_eq!(f.ops.len(), f.op_codes.len());
    }

    let imports = (0..module.imports().len()).map(|_| None).collect();
    let state = module.clone().instantiate(instance, imports);
    drop(state);

    let runs_code = module.lookup_export("__init").is_some() || module.lookup_export("__deinit").is_some();
    if !runs_code {
        // Fails cleanly for unmet dependencies or required imports; otherwise
        // resolves imports (none) and creates the state.
        let _ = Context::with_modules(instance.clone(), [module as Arc<dyn Module>]);
    }
});
