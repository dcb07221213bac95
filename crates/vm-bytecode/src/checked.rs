//! The interpreter's unchecked accesses, and the `checked` build that
//! checks them.
//!
//! The dispatch loop reads registers, ops and side tables without bounds
//! checks because the verifier ([`crate::decode`]) proved every register
//! ordinal, branch target and table index in range. With the cargo feature
//! `checked` each of those accesses asserts instead, so a verifier bug
//! becomes a panic naming the access rather than undefined behaviour; an
//! optional step budget (`set_step_budget`) stops programs that loop
//! forever. The execution fuzz target (`fuzz/fuzz_targets/run_module.rs`)
//! runs every module the verifier accepts in this build. Without the
//! feature every function here compiles to the bare access (the release
//! build is unchanged).
//!
//! The checks know the frame the dispatch loop is running: `enter_frame`
//! is called wherever the loop derives its register pointers. Register
//! accesses through those pointers must lie inside that frame; accesses
//! through any other frame's pointers (a return writing its caller's
//! registers) must lie inside the register arena.

use iree_vm::Ref;

use crate::op::Op;

#[cfg(feature = "checked")]
mod state {
    use std::cell::Cell;

    use iree_vm::Ref;

    use crate::op::Op;

    /// What the current frame may touch.
    #[derive(Clone, Copy)]
    pub struct Frame {
        pub regs: *const u32,
        pub i32_count: usize,
        pub refs: *const Option<Ref>,
        pub ref_count: usize,
        pub i32_arena: (*const u32, usize),
        pub ref_arena: (*const Option<Ref>, usize),
        pub ops: *const Op,
        pub op_count: usize,
    }

    thread_local! {
        pub static FRAME: Cell<Option<Frame>> = const { Cell::new(None) };
        pub static STEPS_LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    }

    pub fn frame() -> Frame {
        FRAME
            .get()
            .expect("checked interpreter: register access outside a frame")
    }
}

/// Limits the ops this thread's interpreter runs from now on to `steps`
/// (`u64::MAX`: no limit, the default); past it, the running op fails with
/// RESOURCE_EXHAUSTED. Only in the `checked` build.
#[cfg(feature = "checked")]
pub fn set_step_budget(steps: u64) {
    state::STEPS_LEFT.set(steps);
}

/// Records the frame the dispatch loop runs from here on: its register
/// windows, the arenas holding every frame's registers, and its ops.
#[inline(always)]
#[allow(clippy::too_many_arguments, reason = "one call site per derivation")]
#[allow(
    clippy::ptr_arg,
    reason = "a slice would borrow every register while the loop writes them through raw pointers"
)]
pub(crate) fn enter_frame(
    regs: *const u32,
    i32_count: u32,
    refs: *const Option<Ref>,
    ref_count: u32,
    i32_arena: &Vec<u32>,
    ref_arena: &Vec<Option<Ref>>,
    ops: &[Op],
) {
    #[cfg(feature = "checked")]
    state::FRAME.set(Some(state::Frame {
        regs,
        i32_count: i32_count as usize,
        refs,
        ref_count: ref_count as usize,
        i32_arena: (i32_arena.as_ptr(), i32_arena.len()),
        ref_arena: (ref_arena.as_ptr(), ref_arena.len()),
        ops: ops.as_ptr(),
        op_count: ops.len(),
    }));
    #[cfg(not(feature = "checked"))]
    let _ = (regs, i32_count, refs, ref_count, i32_arena, ref_arena, ops);
}

/// Checks that `words` i32 registers from ordinal `r` through `regs` lie in
/// the current frame (or, for another frame's pointer, in the arena).
#[inline(always)]
pub(crate) fn i32_regs(regs: *const u32, r: usize, words: usize) {
    #[cfg(feature = "checked")]
    {
        let f = state::frame();
        if regs == f.regs {
            assert!(
                r + words <= f.i32_count,
                "checked interpreter: i32 register {r} (+{words}) outside the frame's {}",
                f.i32_count
            );
        } else {
            let (start, len) = f.i32_arena;
            let at = (regs as usize).wrapping_sub(start as usize) / 4 + r;
            assert!(
                regs >= start && at + words <= len,
                "checked interpreter: i32 register {r} outside the register arena"
            );
        }
    }
    #[cfg(not(feature = "checked"))]
    let _ = (regs, r, words);
}

/// Checks that ref register `r` through `refs` lies in the current frame
/// (or, for another frame's pointer, in the arena).
#[inline(always)]
pub(crate) fn ref_reg(refs: *const Option<Ref>, r: usize) {
    #[cfg(feature = "checked")]
    {
        let f = state::frame();
        if refs == f.refs {
            assert!(
                r < f.ref_count,
                "checked interpreter: ref register {r} outside the frame's {}",
                f.ref_count
            );
        } else {
            let (start, len) = f.ref_arena;
            let size = std::mem::size_of::<Option<Ref>>();
            let at = (refs as usize).wrapping_sub(start as usize) / size + r;
            assert!(
                refs >= start && at < len,
                "checked interpreter: ref register {r} outside the register arena"
            );
        }
    }
    #[cfg(not(feature = "checked"))]
    let _ = (refs, r);
}

/// Checks that `index` is below `len` (a side-table index the dispatch
/// loop resolves through a raw pointer).
#[inline(always)]
pub(crate) fn index(index: usize, len: usize) {
    #[cfg(feature = "checked")]
    assert!(
        index < len,
        "checked interpreter: side-table index {index} outside its {len} entries"
    );
    #[cfg(not(feature = "checked"))]
    let _ = (index, len);
}

/// Checks that op index `index` lies in the current function.
#[inline(always)]
pub(crate) fn op_index(index: usize) {
    #[cfg(feature = "checked")]
    {
        let f = state::frame();
        assert!(
            index < f.op_count,
            "checked interpreter: op {index} outside the function's {}",
            f.op_count
        );
    }
    #[cfg(not(feature = "checked"))]
    let _ = index;
}

/// Checks that `ip` points at an op of the current function, then counts
/// the op against the step budget: `true` when the budget is spent.
#[inline(always)]
pub(crate) fn fetch(ip: *const Op) -> bool {
    #[cfg(feature = "checked")]
    {
        let f = state::frame();
        let index = (ip as usize).wrapping_sub(f.ops as usize) / std::mem::size_of::<Op>();
        assert!(
            ip >= f.ops && index < f.op_count,
            "checked interpreter: fetch of op {index} outside the function's {}",
            f.op_count
        );
        let left = state::STEPS_LEFT.get();
        if left == 0 {
            return true;
        }
        state::STEPS_LEFT.set(left - 1);
        false
    }
    #[cfg(not(feature = "checked"))]
    {
        let _ = ip;
        false
    }
}

/// The error of an op run past the step budget.
#[cold]
pub(crate) fn budget_exhausted() -> iree_base::Status {
    iree_base::Status::new(
        iree_base::StatusCode::ResourceExhausted,
        "checked interpreter: step budget exhausted",
    )
}

/// Entry `index` of a side table the verifier sized (register lists,
/// branches, calls, strings, ...); asserts in the `checked` build.
///
/// # Safety
/// `index` is below `table.len()` (verified at load time).
#[inline(always)]
pub(crate) unsafe fn entry<T>(table: &[T], index: usize) -> &T {
    #[cfg(feature = "checked")]
    {
        table.get(index).unwrap_or_else(|| {
            panic!(
                "checked interpreter: side-table index {index} outside its {} entries",
                table.len()
            )
        })
    }
    // SAFETY: the caller guarantees `index < table.len()`.
    #[cfg(not(feature = "checked"))]
    unsafe {
        table.get_unchecked(index)
    }
}

/// Loads `bytes` and, if the verifier accepts the module, runs all of its
/// code that can run without the modules it imports: it registers the
/// module in a context with stand-ins for its dependencies and imports
/// ([`iree_vm::testing::stand_in_modules`]), which runs `__init`, then
/// calls every other export with zero and null arguments, then drops the
/// context, which runs `__deinit`; all of it within a budget of `steps`
/// ops (once spent, every further op fails). Errors of the module are expected and ignored; a panic means the
/// verifier let through code whose execution escapes what it proved (the
/// execution fuzz target's oracle). Returns how many exports were called,
/// `None` when the module did not load or link.
#[cfg(feature = "checked")]
pub fn run_all_exports(
    instance: &std::sync::Arc<iree_vm::Instance>,
    bytes: Vec<u8>,
    steps: u64,
) -> Option<usize> {
    use iree_vm::{Context, Module};

    let module = crate::BytecodeModule::from_vec(instance, bytes).ok()?;
    let mut modules = iree_vm::testing::stand_in_modules(&*module);
    modules.push(module.clone() as std::sync::Arc<dyn Module>);
    set_step_budget(steps);
    let context = Context::with_modules(instance.clone(), modules);
    let mut called = 0;
    if let Ok(context) = &context {
        for export in module.exports() {
            if export.name.starts_with("__") {
                continue;
            }
            let (Ok(function), Ok(args)) = (
                context.lookup_function(&format!("{}.{}", module.name(), export.name)),
                iree_vm::testing::zero_arguments(&export.cconv),
            ) else {
                continue;
            };
            let _ = context.invoke(&function, &args);
            called += 1;
        }
    }
    let linked = context.is_ok();
    drop(context);
    set_step_budget(u64::MAX);
    linked.then_some(called)
}

#[cfg(all(test, feature = "checked"))]
mod tests {
    use super::*;

    fn enter(regs: &[u32], i32_count: u32, refs: &[Option<Ref>], ref_count: u32) {
        let (i32_arena, ref_arena) = (regs.to_vec(), refs.to_vec());
        enter_frame(
            regs.as_ptr(),
            i32_count,
            refs.as_ptr(),
            ref_count,
            &i32_arena,
            &ref_arena,
            &[],
        );
    }

    #[test]
    fn registers_inside_the_frame_pass() {
        let (regs, refs) = ([0u32; 8], vec![None; 2]);
        enter(&regs, 8, &refs, 2);
        i32_regs(regs.as_ptr(), 7, 1);
        i32_regs(regs.as_ptr(), 6, 2);
        ref_reg(refs.as_ptr(), 1);
    }

    #[test]
    #[should_panic(expected = "i32 register 7 (+2) outside the frame's 8")]
    fn an_i64_register_pair_past_the_frame_asserts() {
        let (regs, refs) = ([0u32; 8], vec![None; 2]);
        enter(&regs, 8, &refs, 2);
        i32_regs(regs.as_ptr(), 7, 2);
    }

    #[test]
    #[should_panic(expected = "ref register 2 outside the frame's 2")]
    fn a_ref_register_past_the_frame_asserts() {
        let (regs, refs) = ([0u32; 8], vec![None; 2]);
        enter(&regs, 8, &refs, 2);
        ref_reg(refs.as_ptr(), 2);
    }

    #[test]
    #[should_panic(expected = "op 0 outside the function's 0")]
    fn a_jump_past_the_ops_asserts() {
        let (regs, refs) = ([0u32; 8], vec![None; 2]);
        enter(&regs, 8, &refs, 2);
        op_index(0);
    }

    #[test]
    #[should_panic(expected = "side-table index 3 outside its 3 entries")]
    fn a_side_table_index_past_the_end_asserts() {
        // SAFETY: the checked build checks the index (and panics here).
        let _ = unsafe { entry(&[1, 2, 3], 3) };
    }
}
