//! The interpreter: runs verified [`FunctionCode`] against a register file
//! kept in the invocation's [`Stack`] arenas.
//!
//! Internal calls push frames onto this activation's frame list without
//! recursion (in the call and return handlers of [`dispatch`]); import
//! calls go through the [`ModuleInstance`](iree_vm::ModuleInstance) trait
//! (and may re-enter another module's interpreter on the same stack).
//! `vm.yield` and deferred yieldable calls save the activation as a
//! continuation on the stack and return [`CallStatus::Deferred`].

use std::cell::Cell;

use iree_base::{Result, Status, StatusCode};
use iree_vm::buffer::Buffer;
use iree_vm::list::{List, ListElementType};
use iree_vm::{CallSlot, CallStatus, CconvType, Ref, RegisterCall, Stack, TypeDef, Value};

use crate::checked;
use crate::decode::{CallTarget, FunctionCode, MOVE_BIT, REF_BIT, REF_MASK};
use crate::module::BytecodeInstance;
use crate::op::*;

mod dispatch;

use dispatch::{r32, r64, rf32, rf64, w32, w64};

/// A suspended caller frame.
#[derive(Clone, Copy, Debug)]
struct Frame {
    function: u32,
    /// Op index to continue at when control returns to this frame.
    pc: u32,
    i32_base: usize,
    ref_base: usize,
    /// Call-site index (in this frame's function) whose results the callee fills.
    call: u32,
}

thread_local! {
    /// The frame stack of the last activation that returned on this thread
    /// (emptied), for the next one's first internal call, which then
    /// allocates nothing. Activations that make no internal call never
    /// touch it.
    static SPARE_FRAMES: Cell<Vec<Frame>> = const { Cell::new(Vec::new()) };
}

/// A frame stack for an activation's first internal call (empty).
fn spare_frames() -> Vec<Frame> {
    SPARE_FRAMES.with(Cell::take)
}

/// Keeps a returned activation's frame stack for the next one (unless a
/// deep recursion grew it large).
fn keep_frames(mut frames: Vec<Frame>) {
    if frames.capacity() <= 64 {
        frames.clear();
        SPARE_FRAMES.with(|spare| spare.set(frames));
    }
}

/// Saved state of an activation that yielded.
struct Continuation {
    frames: Vec<Frame>,
    current: Frame,
    activation_i32_base: usize,
    activation_ref_base: usize,
    /// Set when the yield came from an import: the call-site index to finish.
    pending_import: Option<u32>,
}

/// What stopped the dispatch loop.
enum Exit {
    Returned,
    Deferred(Option<u32>),
}

impl BytecodeInstance {
    /// Runs internal function `function` from an external caller; `args`
    /// were checked against its calling convention (or are known to match).
    pub(crate) fn execute(
        &self,
        stack: &mut Stack,
        function: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        let code = &self.module().functions[function as usize];
        stack.enter_frame(code.frame_bytes)?;
        let (i32_base, ref_base) =
            stack.push_registers(code.i32_count as usize, code.ref_count as usize);
        for (&to, value) in code.arg_registers.iter().zip(args.iter_mut()) {
            // Moved: callers hand over their argument vectors.
            let set = set_argument(stack, (i32_base, ref_base), to, std::mem::take(value));
            if let Err(error) = set {
                abandon_frame(stack, (i32_base, ref_base), code.frame_bytes);
                return Err(error);
            }
        }
        self.run_entry_frame(stack, function, (i32_base, ref_base), results)
    }

    /// [`BytecodeInstance::execute`] for an import call from another
    /// module's bytecode: the arguments go from the caller's registers to
    /// the new frame's without a vector of values between them, and the
    /// results into the caller's registers once the call is done.
    pub(crate) fn execute_from_registers(
        &self,
        stack: &mut Stack,
        function: u32,
        call: RegisterCall<'_>,
    ) -> Result<CallStatus> {
        let code = &self.module().functions[function as usize];
        stack.enter_frame(code.frame_bytes)?;
        let bases = stack.push_registers(code.i32_count as usize, code.ref_count as usize);
        if let Err(error) = call.copy_args_into(stack, bases, &code.arg_registers) {
            abandon_frame(stack, bases, code.frame_bytes);
            return Err(error);
        }
        call.returning_into_frame(stack, |stack, results| {
            self.run_entry_frame(stack, function, bases, results)
        })
    }

    /// Runs internal function `function` in the frame just pushed at
    /// `bases` (its arguments set), as an activation of its own.
    fn run_entry_frame(
        &self,
        stack: &mut Stack,
        function: u32,
        (i32_base, ref_base): (usize, usize),
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        let current = Frame {
            function,
            pc: 0,
            i32_base,
            ref_base,
            call: u32::MAX,
        };
        let continuation = Continuation {
            frames: Vec::new(),
            current,
            activation_i32_base: i32_base,
            activation_ref_base: ref_base,
            pending_import: None,
        };
        self.run_activation(stack, continuation, results)
    }

    /// Resumes the activation saved by the most recent yield.
    pub(crate) fn resume_execution(
        &self,
        stack: &mut Stack,
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        let continuation = stack
            .pop_continuation()
            .and_then(|c| c.downcast::<Continuation>().ok())
            .ok_or_else(|| {
                Status::new(
                    StatusCode::FailedPrecondition,
                    "no suspended bytecode call to resume",
                )
            })?;
        let mut continuation = *continuation;
        if let Some(call) = continuation.pending_import.take() {
            // Finish the import that yielded, then continue after its resume block.
            let frame = continuation.current;
            let code = &self.module().functions[frame.function as usize];
            let info = &code.calls[call as usize];
            let CallTarget::Import { import, .. } = &info.target else {
                return Err(Status::new(
                    StatusCode::Internal,
                    "pending call is not an import",
                ));
            };
            let resolved = self.import(*import)?;
            let mut import_results = Vec::new();
            let status = resolved.instance.resume(stack, &mut import_results);
            match status {
                Ok(CallStatus::Deferred) => {
                    continuation.pending_import = Some(call);
                    stack.push_continuation(Box::new(continuation));
                    return Ok(CallStatus::Deferred);
                }
                Ok(CallStatus::Done) => {
                    RegisterCall {
                        i32_base: frame.i32_base,
                        ref_base: frame.ref_base,
                        args: &[],
                        results: &info.results,
                    }
                    .store_values(stack, &mut import_results)?;
                    let resume = info.resume.expect("yieldable calls have a resume branch");
                    continuation.current.pc = apply_branch(stack, &frame, code, resume);
                }
                Err(e) => {
                    self.unwind(stack, &continuation);
                    return Err(e);
                }
            }
        }
        self.run_activation(stack, continuation, results)
    }

    fn run_activation(
        &self,
        stack: &mut Stack,
        mut cont: Continuation,
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        match self.dispatch(stack, &mut cont, results) {
            Ok(Exit::Returned) => {
                if cont.frames.capacity() != 0 {
                    keep_frames(cont.frames);
                }
                Ok(CallStatus::Done)
            }
            Ok(Exit::Deferred(pending)) => {
                cont.pending_import = pending;
                stack.push_continuation(Box::new(cont));
                Ok(CallStatus::Deferred)
            }
            Err(e) => {
                let frame = cont.current;
                let code = &self.module().functions[frame.function as usize];
                let offset = code.op_offsets.get(frame.pc as usize).copied().unwrap_or(0);
                let name =
                    crate::decode::function_name(&self.module().meta, frame.function as usize);
                self.unwind(stack, &cont);
                Err(e.annotate(format!("at {name}+{offset:#x}")))
            }
        }
    }

    /// Releases every frame of a failed activation.
    fn unwind(&self, stack: &mut Stack, cont: &Continuation) {
        let mut bytes = self.module().functions[cont.current.function as usize].frame_bytes;
        for f in &cont.frames {
            bytes += self.module().functions[f.function as usize].frame_bytes;
        }
        stack.leave_frame(bytes);
        stack.i32_arena.truncate(cont.activation_i32_base);
        stack.ref_arena.truncate(cont.activation_ref_base);
    }

    /// The dispatch loop: runs the current frame's ops through the
    /// threaded handlers of [`dispatch`] until one stops the chain, and
    /// re-derives the frame after calls and returns. On `Err` the
    /// continuation's `current.pc` names the failing op.
    fn dispatch(
        &self,
        stack: &mut Stack,
        cont: &mut Continuation,
        results: &mut Vec<Value>,
    ) -> Result<Exit> {
        let module = self.module();
        loop {
            let frame = cont.current;
            let code: &FunctionCode = &module.functions[frame.function as usize];
            let base: *const Op = code.ops.as_ptr();
            // SAFETY: the verifier checked every register ordinal against the
            // frame's register counts, every branch target and `frame.pc`
            // against the op count, every side-table index, and that each
            // function ends in a terminator, so the handlers' `ip` stays
            // inside `code.ops` and register accesses inside the frame's
            // registers, which the arenas hold from `frame.i32_base` and
            // `frame.ref_base`. Handlers that switch frames (calls, returns,
            // import calls, after which the arenas may have moved) re-derive
            // these themselves in optimized builds; in unoptimized builds
            // they stop the chain (`Stop::Reload`) and this loop does.
            let stop = unsafe {
                let regs: *mut u32 = stack.i32_arena.as_mut_ptr().add(frame.i32_base);
                let refs: *mut Option<Ref> = stack.ref_arena.as_mut_ptr().add(frame.ref_base);
                let ip: *const Op = base.add(frame.pc as usize);
                checked::enter_frame(
                    regs,
                    code.i32_count,
                    refs,
                    code.ref_count,
                    &stack.i32_arena,
                    &stack.ref_arena,
                    &code.ops,
                );
                let mut machine = dispatch::Machine {
                    instance: self,
                    stack: &mut *stack,
                    cont: &mut *cont,
                    results: &mut *results,
                    base,
                    refs,
                    code,
                    branches: code.branches.as_ptr(),
                    stop: dispatch::Stop::Reload,
                };
                dispatch::run(ip, regs, &mut machine);
                machine.stop
            };
            match stop {
                dispatch::Stop::Reload => {}
                dispatch::Stop::Exit(exit) => return Ok(exit),
                dispatch::Stop::Error(error) => return Err(error),
            }
        }
    }

    /// Calls import call site `call` of the running frame, whose `pc` is
    /// the call's op index: the callee takes the arguments from the frame's
    /// registers and stores the results there ([`RegisterCall`]). Returns
    /// the op index to go on at (after the call, or at the resume block of
    /// a yieldable call), or the activation's exit when the import
    /// deferred. The arenas may have moved when this returns. On `Err` the
    /// frame's `pc` is still the call's. Inlined into its one caller
    /// (`dispatch::call_import`) whatever the codegen units: out of line
    /// with `codegen-units = 16`, an import call took 8% more instructions.
    #[inline]
    fn call_import(
        &self,
        stack: &mut Stack,
        cont: &mut Continuation,
        call: u32,
    ) -> Result<ImportReturn> {
        let frame = cont.current;
        let code: &FunctionCode = &self.module().functions[frame.function as usize];
        let info = &code.calls[call as usize];
        let CallTarget::Import { import, args } = &info.target else {
            return Err(Status::new(
                StatusCode::Internal,
                "an internal call reached the import path",
            ));
        };
        let resolved = self.import(*import)?;
        let registers = RegisterCall {
            i32_base: frame.i32_base,
            ref_base: frame.ref_base,
            args,
            results: &info.results,
        };
        match resolved
            .instance
            .call_from_registers(stack, resolved.export_ordinal, registers)?
        {
            CallStatus::Done => Ok(ImportReturn::Continue(match info.resume {
                Some(b) => apply_branch(stack, &frame, code, b),
                None => frame.pc + 1,
            })),
            CallStatus::Deferred => {
                if info.resume.is_none() {
                    return Err(Status::new(
                        StatusCode::FailedPrecondition,
                        "import returned DEFERRED from a non-yieldable call",
                    ));
                }
                Ok(ImportReturn::Exit(Exit::Deferred(Some(call))))
            }
        }
    }

    /// Executes one op that is not on the hot path. `cont.current.pc` is the
    /// index after `op`. Returns how the dispatch loop continues.
    #[inline(never)]
    #[allow(clippy::too_many_lines, reason = "one arm per instruction")]
    fn slow_op(&self, stack: &mut Stack, cont: &mut Continuation, op: Op) -> Result<Flow> {
        let module = self.module();
        let mut frame = cont.current;
        let entry_pc = frame.pc as usize;
        let code: &FunctionCode = &module.functions[frame.function as usize];
        let mut pc = entry_pc;
        let regs: *mut u32 = stack.i32_arena[frame.i32_base..].as_mut_ptr();
        let refs: *mut Option<Ref> = stack.ref_arena[frame.ref_base..].as_mut_ptr();

        // Runs a fallible expression, recording the failing pc on error.
        macro_rules! tri {
            ($e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(e) => {
                        frame.pc = (pc - 1) as u32;
                        cont.current = frame;
                        return Err(e);
                    }
                }
            };
        }

        // SAFETY: as in `dispatch`: ordinals, targets and side-table indices
        // were verified; register pointers are re-derived after anything that
        // can move the arenas (`reload!`).
        unsafe {
            match op {
                Op::GlobalLoadIndI32 { offset, r } => {
                    w32(regs, r, tri!(self.global_load(r32(regs, offset), 4)) as u32)
                }
                Op::GlobalStoreIndI32 { offset, v } => {
                    tri!(self.global_store(r32(regs, offset), 4, u64::from(r32(regs, v))))
                }
                Op::GlobalLoadIndI64 { offset, r } => {
                    w64(regs, r, tri!(self.global_load(r32(regs, offset), 8)))
                }
                Op::GlobalLoadIndF64 { offset, r } => {
                    let off = r32(regs, offset);
                    tri!(self.check_global(off, 4));
                    w64(regs, r, self.global_bytes().load(off as usize, 8));
                }
                Op::GlobalStoreIndI64 { offset, v } => {
                    tri!(self.global_store(r32(regs, offset), 8, r64(regs, v)))
                }
                Op::GlobalLoadRef { global, ty, r } => {
                    let value = self.ref_globals().lock()[global as usize].clone();
                    tri!(check_ref_type(module.types[ty as usize], &value));
                    *rref(refs, r) = value;
                }
                Op::GlobalStoreRef { global, ty, v } => {
                    let value = take_ref(refs, v);
                    tri!(check_ref_type(module.types[ty as usize], &value));
                    self.ref_globals().lock()[global as usize] = value;
                }
                Op::GlobalLoadIndRef { global, ty, r } => {
                    let index = r32(regs, global) as usize;
                    let value = tri!(self
                        .ref_globals()
                        .lock()
                        .get(index)
                        .cloned()
                        .ok_or_else(|| ref_global_oob(index)));
                    tri!(check_ref_type(module.types[ty as usize], &value));
                    *rref(refs, r) = value;
                }
                Op::GlobalStoreIndRef { global, ty, v } => {
                    let index = r32(regs, global) as usize;
                    let value = take_ref(refs, v);
                    tri!(check_ref_type(module.types[ty as usize], &value));
                    let mut globals = self.ref_globals().lock();
                    *tri!(globals.get_mut(index).ok_or_else(|| ref_global_oob(index))) = value;
                }
                Op::ConstRefZero { r } => *rref(refs, r) = None,
                Op::ConstRefRodata { rodata, r } => {
                    *rref(refs, r) = Some(module.rodata[rodata as usize].clone())
                }
                Op::ListAlloc { ty, capacity, r } => {
                    let elem = ListElementType::from_type_def(module.types[ty as usize]);
                    let list = tri!(List::new(elem, r32(regs, capacity) as i32));
                    *rref(refs, r) = Some(Ref::new(list));
                }
                Op::ListReserve { list, capacity } => {
                    tri!(tri!(list_at(refs, list)).reserve(r32(regs, capacity) as i32))
                }
                Op::ListSize { list, r } => w32(regs, r, tri!(list_at(refs, list)).size() as u32),
                Op::ListResize { list, size } => {
                    tri!(tri!(list_at(refs, list)).resize(r32(regs, size) as i32))
                }
                Op::ListGet {
                    elem,
                    list,
                    index,
                    r,
                } => {
                    let l = tri!(list_at(refs, list));
                    let i = r32(regs, index) as i32;
                    match elem {
                        ListElem::I32 => w32(regs, r, tri!(l.get_i32(i)) as u32),
                        ListElem::I64 => w64(regs, r, tri!(l.get_i64(i)) as u64),
                        ListElem::F32 => w32(regs, r, tri!(l.get_f32(i)).to_bits()),
                        ListElem::F64 => w64(regs, r, tri!(l.get_f64(i)).to_bits()),
                    }
                }
                Op::ListSet {
                    elem,
                    list,
                    index,
                    v,
                } => {
                    let l = tri!(list_at(refs, list));
                    let i = r32(regs, index) as i32;
                    match elem {
                        ListElem::I32 => tri!(l.set_i32(i, r32(regs, v) as i32)),
                        ListElem::I64 => tri!(l.set_i64(i, r64(regs, v) as i64)),
                        ListElem::F32 => tri!(l.set_f32(i, f32::from_bits(r32(regs, v)))),
                        ListElem::F64 => tri!(l.set_f64(i, f64::from_bits(r64(regs, v)))),
                    }
                }
                Op::ListGetRef { list, index, ty, r } => {
                    let expected = module.types[ty as usize];
                    let value =
                        tri!(tri!(list_at(refs, list)).get_ref(r32(regs, index) as i32, expected));
                    *rref(refs, r) = value;
                }
                Op::ListSetRef { list, index, v } => {
                    let l = tri!(list_at(refs, list)) as *const List;
                    let value = take_ref(refs, v);
                    tri!((*l).set_ref(r32(regs, index) as i32, value));
                }
                Op::SelectRef { cond, ty, t, f, r } => {
                    let (chosen, other) = if r32(regs, cond) != 0 { (t, f) } else { (f, t) };
                    tri!(check_ref_type(
                        module.types[ty as usize],
                        &*rref(refs, chosen)
                    ));
                    let value = take_ref(refs, chosen);
                    if other.is_move() && other.index() != r.index() {
                        *rref(refs, other) = None;
                    }
                    *rref(refs, r) = value;
                }
                Op::SwitchI32 {
                    index,
                    default,
                    list,
                    r,
                } => {
                    let values = checked::entry(&code.lists, list as usize);
                    let i = r32(regs, index) as usize;
                    let src = values.get(i).copied().unwrap_or(default);
                    w32(regs, r, r32(regs, src));
                }
                Op::SwitchI64 {
                    index,
                    default,
                    list,
                    r,
                } => {
                    let values = checked::entry(&code.lists, list as usize);
                    let value = match values.get(r32(regs, index) as usize) {
                        Some(&src) => r32(regs, src) as i32 as i64 as u64,
                        None => r64(regs, default),
                    };
                    w64(regs, r, value);
                }
                Op::SwitchF64 {
                    index,
                    default,
                    list,
                    r,
                } => {
                    let values = checked::entry(&code.lists, list as usize);
                    let src = values
                        .get(r32(regs, index) as usize)
                        .copied()
                        .unwrap_or(default);
                    w64(regs, r, r64(regs, src));
                }
                Op::SwitchRef {
                    index,
                    ty,
                    default,
                    list,
                    r,
                } => {
                    let values = checked::entry(&code.lists, list as usize);
                    let i = r32(regs, index) as usize;
                    let src = values
                        .get(i)
                        .map(|&raw| RefReg::new(raw & REF_MASK, raw & MOVE_BIT != 0))
                        .unwrap_or(default);
                    let value = (*rref(refs, src)).clone();
                    tri!(check_ref_type(module.types[ty as usize], &value));
                    *rref(refs, r) = value;
                }
                Op::CmpEqRef { a, b, r } => {
                    let eq = ref_eq(&*rref(refs, a), &*rref(refs, b));
                    discard_if_move(refs, a);
                    discard_if_move(refs, b);
                    w32(regs, r, eq as u32);
                }
                Op::CmpNeRef { a, b, r } => {
                    let eq = ref_eq(&*rref(refs, a), &*rref(refs, b));
                    discard_if_move(refs, a);
                    discard_if_move(refs, b);
                    w32(regs, r, (!eq) as u32);
                }
                Op::CmpNzRef { a, r } => {
                    let nz = (*rref(refs, a)).is_some();
                    discard_if_move(refs, a);
                    w32(regs, r, nz as u32);
                }
                Op::CastAnyRef { a, ty, r } => {
                    let value = take_ref(refs, a);
                    tri!(check_ref_type(module.types[ty as usize], &value));
                    *rref(refs, r) = value;
                }
                Op::AssignRef { a, r } => {
                    let value = take_ref(refs, a);
                    *rref(refs, r) = value;
                }
                Op::DiscardRefs { list } | Op::Trace { list } => {
                    for &raw in checked::entry(&code.lists, list as usize).iter() {
                        if raw & (REF_BIT | MOVE_BIT) == REF_BIT | MOVE_BIT {
                            *rref(refs, RefReg(raw & REF_MASK)) = None;
                        }
                    }
                }
                Op::BufferLoad {
                    elem,
                    buf,
                    offset,
                    r,
                }
                | Op::BufferLoadWord {
                    elem,
                    buf,
                    offset,
                    r,
                }
                | Op::BufferLoadDword {
                    elem,
                    buf,
                    offset,
                    r,
                } => {
                    let b = tri!(buffer_at(refs, buf));
                    let off = r64(regs, offset) as i64;
                    match elem {
                        BufElem::I8U => w32(regs, r, tri!(b.load_i8u(off)) as u32),
                        BufElem::I8S => w32(regs, r, tri!(b.load_i8s(off)) as u32),
                        BufElem::I16U => w32(regs, r, tri!(b.load_i16u(off)) as u32),
                        BufElem::I16S => w32(regs, r, tri!(b.load_i16s(off)) as u32),
                        BufElem::I32 => w32(regs, r, tri!(b.load_i32(off)) as u32),
                        BufElem::I64 => w64(regs, r, tri!(b.load_i64(off)) as u64),
                        BufElem::F32 => w32(regs, r, tri!(b.load_f32(off)).to_bits()),
                        BufElem::F64 => w64(regs, r, tri!(b.load_f64(off)).to_bits()),
                    }
                }
                Op::BufferStore {
                    elem,
                    buf,
                    offset,
                    v,
                }
                | Op::BufferStoreWord {
                    elem,
                    buf,
                    offset,
                    v,
                }
                | Op::BufferStoreDword {
                    elem,
                    buf,
                    offset,
                    v,
                } => {
                    let b = tri!(buffer_at(refs, buf));
                    let off = r64(regs, offset) as i64;
                    match elem {
                        BufElem::I8U | BufElem::I8S => tri!(b.store_i8(off, r32(regs, v) as i32)),
                        BufElem::I16U | BufElem::I16S => {
                            tri!(b.store_i16(off, r32(regs, v) as i32))
                        }
                        BufElem::I32 => tri!(b.store_i32(off, r32(regs, v) as i32)),
                        BufElem::I64 => tri!(b.store_i64(off, r64(regs, v) as i64)),
                        BufElem::F32 => tri!(b.store_f32(off, rf32(regs, v))),
                        BufElem::F64 => tri!(b.store_f64(off, rf64(regs, v))),
                    }
                }
                Op::BufferFill {
                    elem,
                    buf,
                    offset,
                    length,
                    v,
                } => {
                    let b = tri!(buffer_at(refs, buf));
                    let (off, len) = (r64(regs, offset) as i64, r64(regs, length) as i64);
                    match elem {
                        BufElem::I8U | BufElem::I8S => {
                            tri!(b.fill_i8(off, len, r32(regs, v) as i32))
                        }
                        BufElem::I16U | BufElem::I16S => {
                            tri!(b.fill_i16(off, len, r32(regs, v) as i32))
                        }
                        BufElem::I32 => tri!(b.fill_i32(off, len, r32(regs, v) as i32)),
                        BufElem::I64 => tri!(b.fill_i64(off, len, r64(regs, v) as i64)),
                        BufElem::F32 => tri!(b.fill_f32(off, len, rf32(regs, v))),
                        BufElem::F64 => tri!(b.fill_f64(off, len, rf64(regs, v))),
                    }
                }
                Op::BufferAlloc {
                    length,
                    alignment,
                    r,
                } => {
                    let b = tri!(Buffer::alloc(
                        r64(regs, length) as i64,
                        r32(regs, alignment) as i32
                    ));
                    *rref(refs, r) = Some(Ref::new(b));
                }
                Op::BufferClone { aux } => {
                    let [src, off, len, align, r, _] = *checked::entry(&code.aux, aux as usize);
                    let b = tri!(buffer_at(refs, RefReg(src)));
                    let clone = tri!(b.clone_range(
                        r64(regs, off) as i64,
                        r64(regs, len) as i64,
                        r32(regs, align) as i32
                    ));
                    *rref(refs, RefReg(r)) = Some(Ref::new(clone));
                }
                Op::BufferLength { buf, r } => {
                    let b = tri!(buffer_at(refs, buf));
                    w64(regs, r, b.len() as u64);
                }
                Op::BufferCopy { aux } => {
                    let [src, src_off, dst, dst_off, len, _] =
                        *checked::entry(&code.aux, aux as usize);
                    let s = tri!(buffer_at(refs, RefReg(src)));
                    let d = tri!(buffer_at(refs, RefReg(dst)));
                    tri!(Buffer::copy(
                        s,
                        r64(regs, src_off) as i64,
                        d,
                        r64(regs, dst_off) as i64,
                        r64(regs, len) as i64
                    ));
                }
                Op::BufferCompare { aux } => {
                    let [a, a_off, b, b_off, len, r] = *checked::entry(&code.aux, aux as usize);
                    let ab = tri!(buffer_at(refs, RefReg(a)));
                    let bb = tri!(buffer_at(refs, RefReg(b)));
                    let eq = tri!(Buffer::compare(
                        ab,
                        r64(regs, a_off) as i64,
                        bb,
                        r64(regs, b_off) as i64,
                        r64(regs, len) as i64
                    ));
                    w32(regs, r, eq as u32);
                }
                Op::BufferHash { aux } => {
                    let [buf, off, len, r, _, _] = *checked::entry(&code.aux, aux as usize);
                    let b = tri!(buffer_at(refs, RefReg(buf)));
                    let h = tri!(b.hash(r64(regs, off) as i64, r64(regs, len) as i64));
                    w64(regs, r, h as u64);
                }
                Op::CondBreak { cond: _, branch } => {
                    let br = checked::entry(&code.branches, branch as usize);
                    remap(regs, refs, &br.remap);
                    pc = br.target as usize;
                }
                Op::BrTable { index, table } => {
                    let t = checked::entry(&code.tables, table as usize);
                    let i = r32(regs, index) as usize;
                    let branch = t.cases.get(i).copied().unwrap_or(t.default);
                    let br = checked::entry(&code.branches, branch as usize);
                    remap(regs, refs, &br.remap);
                    pc = br.target as usize;
                }
                Op::Fail { status, message } => {
                    let raw = r32(regs, status);
                    if raw != 0 {
                        let msg = checked::entry(&code.strings, message as usize);
                        let e = Status::with_location(
                            StatusCode::from_raw(raw),
                            msg.to_string(),
                            "<vm>",
                            0,
                        );
                        frame.pc = (pc - 1) as u32;
                        cont.current = frame;
                        return Err(e);
                    }
                    // A status of 0 does not fail: execution goes on with
                    // the next op, and a function can end with such a
                    // `vm.fail` (the verifier counts it as a terminator).
                    // Past the last op there is nothing to run (upstream
                    // runs off the end of its bytecode and crashes).
                    if pc >= code.ops.len() {
                        tri!(Err(Status::new(
                            StatusCode::FailedPrecondition,
                            "vm.fail with status OK (0) ends the function without returning"
                        )));
                    }
                }
                Op::ImportResolved { import, r } => w32(
                    regs,
                    r,
                    self.imports()
                        .get(import as usize)
                        .is_some_and(|i| i.is_some()) as u32,
                ),
                Op::Yield { branch } => {
                    let br = checked::entry(&code.branches, branch as usize);
                    remap(regs, refs, &br.remap);
                    frame.pc = br.target;
                    cont.current = frame;
                    return Ok(Flow::Exit(Exit::Deferred(None)));
                }
                _ => {
                    return Err(Status::new(
                        StatusCode::Internal,
                        format!("{op:?} reached the slow path"),
                    ))
                }
            }
        }
        frame.pc = pc as u32;
        cont.current = frame;
        Ok(if pc != entry_pc {
            Flow::Jump(pc as u32)
        } else {
            Flow::Next
        })
    }
}

/// How an import call ([`BytecodeInstance::call_import`]) continues.
enum ImportReturn {
    /// At this op index of the calling frame.
    Continue(u32),
    /// The activation stops (the import deferred).
    Exit(Exit),
}

/// How the dispatch loop continues after a slow-path op.
enum Flow {
    /// Fall through to the next op.
    Next,
    /// Continue at this op index of the same frame.
    Jump(u32),
    /// Leave the dispatch loop.
    Exit(Exit),
}

// ---- ref register helpers ----
// SAFETY (all helpers): callers pass ordinals the verifier checked against
// the current frame's register counts, and pointers to that frame's storage.

#[inline(always)]
unsafe fn rref<'a>(refs: *mut Option<Ref>, r: RefReg) -> &'a mut Option<Ref> {
    checked::ref_reg(refs, r.index());
    // SAFETY: see above.
    unsafe { &mut *refs.add(r.index()) }
}
/// Reads a ref operand: moves it out when the move bit is set, else retains.
#[inline(always)]
unsafe fn take_ref(refs: *mut Option<Ref>, r: RefReg) -> Option<Ref> {
    // SAFETY: see above.
    let slot = unsafe { rref(refs, r) };
    if r.is_move() {
        slot.take()
    } else {
        slot.clone()
    }
}
#[inline(always)]
unsafe fn discard_if_move(refs: *mut Option<Ref>, r: RefReg) {
    if r.is_move() {
        // SAFETY: see above.
        unsafe { *rref(refs, r) = None };
    }
}

unsafe fn buffer_at<'a>(refs: *mut Option<Ref>, r: RefReg) -> Result<&'a Buffer> {
    checked::ref_reg(refs, r.index());
    // SAFETY: see above; the borrow ends before the register is written.
    match unsafe { &*refs.add(r.index()) } {
        Some(value) => value.checked::<Buffer>(iree_vm::buffer::buffer_type()),
        None => Err(Status::new(StatusCode::InvalidArgument, "buffer is null")),
    }
}

unsafe fn list_at<'a>(refs: *mut Option<Ref>, r: RefReg) -> Result<&'a List> {
    checked::ref_reg(refs, r.index());
    // SAFETY: see above; the borrow ends before the register is written.
    match unsafe { &*refs.add(r.index()) } {
        Some(value) => value.checked::<List>(iree_vm::list::list_type()),
        None => Err(Status::new(StatusCode::InvalidArgument, "list is null")),
    }
}

/// Applies register moves in order, refs included (a move-flagged source
/// is taken, others retained).
#[inline(never)]
unsafe fn remap(regs: *mut u32, refs: *mut Option<Ref>, pairs: &[(u16, u16)]) {
    for &(src, dst) in pairs {
        if src & REF_BIT != 0 {
            // SAFETY: remap registers were verified per bank.
            unsafe {
                let value = take_ref(refs, RefReg::new(src & REF_MASK, src & MOVE_BIT != 0));
                *rref(refs, RefReg(dst & REF_MASK)) = value;
            }
        } else {
            // SAFETY: remap registers were verified per bank.
            unsafe { w32(regs, dst, r32(regs, src)) };
        }
    }
}

unsafe fn read_value(regs: *mut u32, refs: *mut Option<Ref>, ty: &CconvType, raw: u16) -> Value {
    // SAFETY: return operands were verified against the function's result types.
    unsafe {
        match ty {
            CconvType::I32 => Value::I32(r32(regs, raw) as i32),
            CconvType::F32 => Value::F32(rf32(regs, raw)),
            CconvType::I64 => Value::I64(r64(regs, raw) as i64),
            CconvType::F64 => Value::F64(rf64(regs, raw)),
            _ => Value::Ref(take_ref(
                refs,
                RefReg::new(raw & REF_MASK, raw & MOVE_BIT != 0),
            )),
        }
    }
}

/// Applies a branch's remapping in `frame` and returns its target.
fn apply_branch(stack: &mut Stack, frame: &Frame, code: &FunctionCode, branch: u32) -> u32 {
    let br = &code.branches[branch as usize];
    for &(src, dst) in br.remap.iter() {
        if src & REF_BIT != 0 {
            let slot = &mut stack.ref_arena[frame.ref_base + (src & REF_MASK) as usize];
            let value = if src & MOVE_BIT != 0 {
                slot.take()
            } else {
                slot.clone()
            };
            stack.ref_arena[frame.ref_base + (dst & REF_MASK) as usize] = value;
        } else {
            let v = stack.i32_arena[frame.i32_base + src as usize];
            stack.i32_arena[frame.i32_base + dst as usize] = v;
        }
    }
    br.target
}

/// Pops a frame pushed at `bases` whose activation never started (its
/// arguments could not be set).
fn abandon_frame(stack: &mut Stack, (i32_base, ref_base): (usize, usize), frame_bytes: usize) {
    stack.i32_arena.truncate(i32_base);
    stack.ref_arena.truncate(ref_base);
    stack.leave_frame(frame_bytes);
}

/// Sets argument register `to` (of the function's own, so in range) of the
/// frame at `bases` to `value`.
fn set_argument(
    stack: &mut Stack,
    (i32_base, ref_base): (usize, usize),
    to: CallSlot,
    value: Value,
) -> Result<()> {
    let r = match to {
        CallSlot::I32(r) | CallSlot::I64(r) | CallSlot::F32(r) | CallSlot::F64(r) => r,
        CallSlot::Ref { ordinal, .. } => ordinal,
        CallSlot::Count(_) => {
            return Err(Status::new(
                StatusCode::Internal,
                "a count is not an argument register",
            ))
        }
    } as usize;
    match value {
        Value::I32(v) => stack.i32_arena[i32_base + r] = v as u32,
        Value::F32(v) => stack.i32_arena[i32_base + r] = v.to_bits(),
        Value::I64(v) => write_pair(&mut stack.i32_arena, i32_base + r, v as u64),
        Value::F64(v) => write_pair(&mut stack.i32_arena, i32_base + r, v.to_bits()),
        Value::Ref(v) => stack.ref_arena[ref_base + r] = v,
        Value::I8(_) | Value::I16(_) => {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                "i8/i16 values cannot be passed as arguments",
            ))
        }
    }
    Ok(())
}

fn write_pair(arena: &mut [u32], at: usize, v: u64) {
    arena[at] = v as u32;
    arena[at + 1] = (v >> 32) as u32;
}

fn ref_eq(a: &Option<Ref>, b: &Option<Ref>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Ref::ptr_eq(a, b),
        _ => false,
    }
}

/// Checks a ref against a `type_of` operand ([`iree_vm::refs::check_slot_type`]).
#[inline]
fn check_ref_type(expected: TypeDef, value: &Option<Ref>) -> Result<()> {
    iree_vm::refs::check_slot_type(expected, value.as_ref())
}

fn ref_global_oob(index: usize) -> Status {
    Status::new(
        StatusCode::OutOfRange,
        format!("global ref ordinal out of range: {index}"),
    )
}

impl BytecodeInstance {
    fn global_load(&self, offset: u32, size: u32) -> Result<u64> {
        self.check_global(offset, size)?;
        Ok(self.global_bytes().load(offset as usize, size as usize))
    }

    fn global_store(&self, offset: u32, size: u32, value: u64) -> Result<()> {
        self.check_global(offset, size)?;
        self.global_bytes()
            .store(offset as usize, size as usize, value);
        Ok(())
    }

    fn check_global(&self, offset: u32, size: u32) -> Result<()> {
        let cap = self.module().meta.global_bytes_capacity as usize;
        if offset as usize + size as usize > cap {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!("global byte_offset out of range: {offset} (rwdata={cap})"),
            ));
        }
        Ok(())
    }

    fn import(&self, ordinal: u32) -> Result<&iree_vm::ResolvedImport> {
        self.imports()
            .get(ordinal as usize)
            .and_then(|i| i.as_ref())
            .ok_or_else(|| {
                let name = &self.module().meta.imports[ordinal as usize].full_name;
                Status::new(
                    StatusCode::NotFound,
                    format!("optional import `{name}` not resolved"),
                )
            })
    }
}
