//! Runs what the verifier accepts (issue #46). The interpreter trusts the
//! verifier: it reads registers, ops and side tables unchecked because
//! every register ordinal, branch target and table index was proved in
//! range at load time. This target tests that claim. Built with the
//! `checked` feature (`--features checked`), where each of those accesses
//! asserts, it loads the input and, when the verifier accepts it, runs
//! `__init`, every export (zero and null arguments) and `__deinit` with
//! stand-ins for every import and a budget of ops per call
//! (`iree_vm_bytecode::checked::run_all_exports`). Errors are fine; a
//! panic is a verifier bug. Seeds: the committed modules (`seed.sh`).
#![no_main]

use std::sync::{Arc, LazyLock};

use iree_vm::Instance;
use libfuzzer_sys::fuzz_target;

/// Programs may allocate and fill buffers and lists in loops: a small cap
/// (the VM's allocations fail cleanly) keeps every op cheap, so the step
/// budget bounds an input's time.
#[global_allocator]
static ALLOC: iree_fuzz::CappedAllocOf<{ 2 << 20 }> = iree_fuzz::CappedAllocOf;

static INSTANCE: LazyLock<Arc<Instance>> = LazyLock::new(Instance::new);

/// Ops one input may run (all its calls together): enough for every
/// committed test function, small enough that endless loops stay cheap.
const STEPS: u64 = 20_000;

fuzz_target!(|data: &[u8]| {
    let _ = iree_vm_bytecode::checked::run_all_exports(&INSTANCE, data.to_vec(), STEPS);
});
