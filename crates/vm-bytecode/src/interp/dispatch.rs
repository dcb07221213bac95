//! The dispatch loop, threaded: every hot op has a handler function of its
//! own, and each handler ends by calling the next op's handler (looked up
//! by the op's tag in [`HANDLERS`]) in tail position. Optimized builds
//! compile that call to one indirect jump at the end of every handler, so
//!
//! * each handler's code depends on its own body alone: its registers are
//!   the calling convention's argument registers, not whatever a register
//!   allocator picks for a loop of 260 arms, so the machine code of the hot
//!   path is the same whatever else is linked into the binary;
//! * every handler has its own indirect jump, which the predictor learns
//!   per op ("after this op comes that one"), instead of one jump shared
//!   by every op;
//! * conditional branches are real branches (predicted), so the next op's
//!   address never waits for the data a compare reads.
//!
//! Calls between functions of the module and their returns switch frames
//! in their handlers and go on in the chain ([`call_internal`],
//! [`return_to_caller`]), so a call costs what its own work costs, not a
//! trip out of the chain; so do import calls ([`call_import`]) and the
//! entry frame's return ([`return_from_activation`]). Ops that are rare or
//! fallible in unusual ways go through [`slow`], which runs
//! [`BytecodeInstance::slow_op`] and continues, or stops the chain.
//!
//! Unoptimized builds do not turn tail calls into jumps: there every
//! handler returns the next op to [`run`]'s loop instead (see
//! [`THREADED`]), the same handlers running one at a time.

use std::ptr;

use iree_base::Status;
use iree_vm::buffer::Buffer;
use iree_vm::list::List;
use iree_vm::{CallSlot, Ref, Stack, Value};

use super::{
    read_value, remap, rref, take_ref, BytecodeInstance, Continuation, Exit, Flow, Frame,
    ImportReturn,
};
use crate::checked;
use crate::decode::{Branch, CallTarget, FunctionCode, Move, Slot, MOVE_BIT, REF_MASK};
use crate::math::DivisionError;
use crate::op::*;

/// Whether handlers continue by calling the next handler in tail position
/// (optimized builds, where LLVM compiles such calls to jumps) or by
/// returning the next op to [`run`]'s loop (unoptimized builds and Miri,
/// where each call would take a stack frame: a long loop would overflow
/// the stack). The `checked` build runs one handler at a time too, so
/// that [`run`] checks every op fetched ([`checked::fetch`]).
const THREADED: bool = !cfg!(debug_assertions) && !cfg!(miri) && !cfg!(feature = "checked");

/// What the handlers share besides the instruction pointer and the i32
/// registers, which they are passed in registers (three arguments leave a
/// handler six scratch registers, so the hot ones need save none).
pub(super) struct Machine<'a> {
    pub(super) instance: &'a BytecodeInstance,
    pub(super) stack: &'a mut Stack,
    pub(super) cont: &'a mut Continuation,
    pub(super) results: &'a mut Vec<Value>,
    /// The running function's first op.
    pub(super) base: *const Op,
    /// The running frame's ref registers.
    pub(super) refs: *mut Option<Ref>,
    /// The running function.
    pub(super) code: &'a FunctionCode,
    /// `code.branches`, one load closer.
    pub(super) branches: *const Branch,
    /// Why the chain stopped (set by the handler that returns null).
    pub(super) stop: Stop,
}

/// Why a chain of handlers returned.
pub(super) enum Stop {
    /// The frame or the register arenas changed: re-derive from
    /// `cont.current` and continue.
    Reload,
    /// Leave the dispatch loop.
    Exit(Exit),
    /// The op at `cont.current.pc` failed.
    Error(Status),
}

/// An op's handler: runs the op at `ip` with the current frame's i32
/// registers `regs` (its ref registers are `m.refs`), then continues with
/// the next op, whose handler it finds in `table`. Returns null when the chain
/// stops (why is in [`Machine::stop`]); unoptimized builds return the next
/// op instead.
///
/// # Safety
/// `ip` points at a verified op of the function whose ops start at `m.base`,
/// of the variant the handler is for; `regs` and `m.refs` point at that
/// frame's registers, which the verifier checked every ordinal against.
pub(super) type Handler =
    for<'m, 'a> unsafe fn(*const Op, *mut u32, &'m mut Machine<'a>, &'static Table) -> *const Op;

/// Runs ops from `ip` until a handler stops the chain.
///
/// # Safety
/// As for [`Handler`].
pub(super) unsafe fn run(mut ip: *const Op, regs: *mut u32, m: &mut Machine<'_>) {
    let table = &HANDLERS;
    loop {
        if checked::fetch(ip) {
            // SAFETY: `ip` and `m.base` point into one function's ops.
            m.cont.current.pc = unsafe { ip.offset_from(m.base) } as u32;
            m.stop = Stop::Error(checked::budget_exhausted());
            return;
        }
        // SAFETY: the caller's contract, and each handler returns a verified
        // op of the same function or null.
        unsafe {
            record_coverage(ip, m);
            ip = table.handler(ip)(ip, regs, m, table);
        }
        if ip.is_null() {
            return;
        }
    }
}

/// Every op's handler, indexed by tag. Handlers pass the table on to each
/// other in a register: finding the next handler is then a load and a
/// jump, with no address to compute first.
pub(super) struct Table([Handler; Op::TAG_COUNT]);

impl Table {
    /// The handler of the op at `ip`.
    ///
    /// # Safety
    /// `ip` points at an op.
    #[inline(always)]
    unsafe fn handler(&self, ip: *const Op) -> Handler {
        // SAFETY: every op's tag is below `TAG_COUNT`, the table's length.
        unsafe { *self.0.get_unchecked(usize::from((*ip).tag())) }
    }
}

/// Continues with the op at `ip`: calls its handler in tail position, or
/// returns `ip` to [`run`] in unoptimized builds.
///
/// # Safety
/// As for [`Handler`].
#[inline(always)]
unsafe fn next(
    ip: *const Op,
    regs: *mut u32,
    m: &mut Machine<'_>,
    table: &'static Table,
) -> *const Op {
    if THREADED {
        // SAFETY: the caller's contract.
        unsafe {
            record_coverage(ip, m);
            table.handler(ip)(ip, regs, m, table)
        }
    } else {
        ip
    }
}

/// The op `by` ops from `ip` (a branch op's [`Jump`]), where the taken
/// branch at `ip` goes on.
///
/// A near target (up to 32 ops back, which covers the loops of compiled
/// kernels, or 16 forward) is reached by stepping from `ip` by an
/// immediate, in one arm per distance picked by a jump the CPU predicts.
/// `ip + by` would instead make the next op's address wait for the load of
/// `by` from this op: a load on the chain from one loop trip's `ip` to the
/// next, which bounded every loop's trip (an empty counted loop 3.1 -> 2.4
/// ns a trip on a Golden Cove Xeon).
///
/// # Safety
/// `ip` is an op of the running function and `by` a verified jump from it.
#[inline(always)]
unsafe fn jump(ip: *const Op, m: &Machine<'_>, by: isize) -> *const Op {
    // SAFETY: `ip` and `m.base` point into the running function's ops, and
    // `ip + by` is one of them, so each arm's step lands on it.
    unsafe {
        checked::op_index(ip.offset_from(m.base).wrapping_add(by) as usize);
        macro_rules! step {
            ($($distance:literal)*) => {
                match by {
                    $( $distance => opaque(ip.offset($distance)), )*
                    _ => ip.offset(by),
                }
            };
        }
        step!(-32 -31 -30 -29 -28 -27 -26 -25 -24 -23 -22 -21 -20 -19 -18 -17
              -16 -15 -14 -13 -12 -11 -10 -9 -8 -7 -6 -5 -4 -3 -2 -1
              0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
    }
}

/// [`jump`] to op index `target` (a branch-table edge's).
///
/// # Safety
/// As for [`jump`]; `target` is a verified op index of the running function.
#[inline(always)]
unsafe fn jump_to(ip: *const Op, m: &Machine<'_>, target: u32) -> *const Op {
    // SAFETY: the caller's contract; both point into the function's ops.
    unsafe {
        jump(
            ip,
            m,
            (target as isize).wrapping_sub(ip.offset_from(m.base)),
        )
    }
}

/// `p`, through an empty asm block, so that LLVM cannot merge [`jump`]'s
/// arms back into one `ip + distance` (which would put the load back on
/// the chain). Under Miri, `p` itself.
#[inline(always)]
fn opaque(p: *const Op) -> *const Op {
    #[cfg(not(miri))]
    {
        let mut p = p;
        // SAFETY: the asm block is empty; it hands the register back as is
        // (it touches no memory, so `nomem` holds for the pointer too).
        #[allow(clippy::pointers_in_nomem_asm_block, reason = "the block is empty")]
        unsafe {
            std::arch::asm!("/* {0} */", inout(reg) p, options(nomem, nostack, preserves_flags))
        };
        p
    }
    #[cfg(miri)]
    p
}

/// Records the op at `ip` as executed (`opcode-coverage` builds only).
#[inline(always)]
#[allow(unused_variables, reason = "used only with opcode-coverage")]
unsafe fn record_coverage(ip: *const Op, m: &Machine<'_>) {
    #[cfg(feature = "opcode-coverage")]
    // SAFETY: `ip` is an op of `m.code`, whose `op_codes` has one entry per op.
    unsafe {
        crate::coverage::record(
            *m.code
                .op_codes
                .get_unchecked(ip.offset_from(m.base) as usize),
        );
    }
}

/// Stops the chain.
#[inline(always)]
fn stop(m: &mut Machine<'_>, why: Stop) -> *const Op {
    m.stop = why;
    ptr::null()
}

/// Fails the division at `ip`.
#[cold]
#[inline(never)]
unsafe fn fail_division(ip: *const Op, m: &mut Machine<'_>, error: DivisionError) -> *const Op {
    // SAFETY: `ip` and `m.base` point into one function's ops.
    m.cont.current.pc = unsafe { ip.offset_from(m.base) } as u32;
    // Opaque: were it known to be null, callers would return null
    // themselves after calling, instead of jumping here.
    std::hint::black_box(stop(m, Stop::Error(error.status())))
}

/// The handler of every op without one of its own: runs it through
/// [`BytecodeInstance::slow_op`], then continues after it, at the target it
/// names, or stops the chain. Never inlined: the handlers whose fast path
/// misses jump here, and keep no call of their own.
#[inline(never)]
unsafe fn slow(
    ip: *const Op,
    regs: *mut u32,
    m: &mut Machine<'_>,
    table: &'static Table,
) -> *const Op {
    // SAFETY: `ip` is an op of this function; `slow_step` leaves the frame
    // and registers as they were unless it stops the chain; a jump target
    // is a verified op index.
    unsafe {
        m.cont.current.pc = ip.offset_from(m.base) as u32 + 1;
        match slow_step(m, ip) {
            Step::Next => next(ip.add(1), regs, m, table),
            Step::Jump(target) => {
                checked::op_index(target as usize);
                next(m.base.add(target as usize), regs, m, table)
            }
            Step::Stop => ptr::null(),
        }
    }
}

/// How [`slow`] continues: a value that fits in registers, so that the
/// handler's call to the next one stays in tail position.
enum Step {
    Next,
    Jump(u32),
    Stop,
}

/// Runs the op at `ip` through the slow path; what stops the chain goes
/// to `m.stop`. Takes the op's address, not its value: a copy passed by
/// address would live in [`slow`]'s frame and keep its call to the next
/// handler out of tail position.
///
/// # Safety
/// `ip` points at an op of the running function.
#[inline(never)]
unsafe fn slow_step(m: &mut Machine<'_>, ip: *const Op) -> Step {
    // SAFETY: the caller's contract.
    let op = unsafe { *ip };
    match m.instance.slow_op(m.stack, m.cont, op) {
        Ok(Flow::Next) => Step::Next,
        Ok(Flow::Jump(target)) => Step::Jump(target),
        Ok(Flow::Exit(exit)) => {
            stop(m, Stop::Exit(exit));
            Step::Stop
        }
        Err(error) => {
            stop(m, Stop::Error(error));
            Step::Stop
        }
    }
}

/// The handlers: [`slow`] unless the op has one of its own.
static HANDLERS: Table = {
    let mut table: [Handler; Op::TAG_COUNT] = [slow; Op::TAG_COUNT];
    alu::install(&mut table);
    fused::install(&mut table);
    hot::install(&mut table);
    Table(table)
};

/// Reads an ALU operand register as its value type.
macro_rules! alu_read {
    (I32, $regs:ident, $reg:expr) => {
        r32($regs, $reg) as i32
    };
    (I64, $regs:ident, $reg:expr) => {
        r64($regs, $reg) as i64
    };
    (F32, $regs:ident, $reg:expr) => {
        rf32($regs, $reg)
    };
    (F64, $regs:ident, $reg:expr) => {
        rf64($regs, $reg)
    };
}

/// Writes an ALU result register from its value type.
macro_rules! alu_write {
    (I32, $regs:ident, $reg:expr, $value:ident) => {
        w32($regs, $reg, $value as u32)
    };
    (I64, $regs:ident, $reg:expr, $value:ident) => {
        w64($regs, $reg, $value as u64)
    };
    (F32, $regs:ident, $reg:expr, $value:ident) => {
        w32($regs, $reg, $value.to_bits())
    };
    (F64, $regs:ident, $reg:expr, $value:ident) => {
        w64($regs, $reg, $value.to_bits())
    };
}

/// Evaluates an ALU row's semantics; a `try` row's error fails the op.
macro_rules! alu_eval {
    (ok, $e:expr, $ip:ident, $m:ident) => {
        $e
    };
    (try, $e:expr, $ip:ident, $m:ident) => {
        match $e {
            Ok(value) => value,
            Err(error) => return fail_division($ip, $m, error),
        }
    };
}

/// The op at `$ip`, destructured as variant `$name` (the handler's own).
/// Used inside the handlers' `unsafe` blocks: a handler runs only for ops
/// of its variant, so the other case cannot happen.
macro_rules! fields {
    ($ip:ident, $name:ident { $($field:ident),* }) => {
        let Op::$name { $($field,)* .. } = *$ip else {
            std::hint::unreachable_unchecked()
        };
    };
}

/// One handler per row of [`for_each_alu_op!`](crate::isa): operands read
/// by type, `eval::Variant` called, the result written by type.
macro_rules! alu_handlers {
    (() $( $set:ident $code:literal $mnemonic:literal $name:ident
        ( $($arg:ident : $arg_ty:ident),* ) -> $result_ty:ident = $kind:ident $sem:expr ; )*) => {
        /// Handlers of the ALU rows.
        #[allow(non_snake_case, reason = "named by the Op variant")]
        mod alu {
            use super::*;
            $(
                #[doc = concat!("`vm.", $mnemonic, "`")]
                pub(super) unsafe fn $name(
                    ip: *const Op,
                    regs: *mut u32,
                    m: &mut Machine<'_>,
                    table: &'static Table,
                ) -> *const Op {
                    // SAFETY: as for `Handler`: verified register ordinals.
                    unsafe {
                        fields!(ip, $name { $($arg,)* r });
                        $( let $arg = alu_read!($arg_ty, regs, $arg); )*
                        let value = alu_eval!($kind, crate::isa::eval::$name($($arg),*), ip, m);
                        alu_write!($result_ty, regs, r, value);
                        next(ip.add(1), regs, m, table)
                    }
                }
            )*

            /// Puts these handlers into `table`.
            pub(super) const fn install(table: &mut [Handler; Op::TAG_COUNT]) {
                $( table[OpTag::$name as usize] = $name; )*
            }
        }
    };
}
crate::isa::for_each_alu_op!(alu_handlers! {});

/// A fused add chain: `r = a + b`, then `r = r + c` with `c` read after the
/// first write (so `c == r` adds the sum to itself, as two adds do).
macro_rules! add_chain {
    ($add:ident, $w:ident, $regs:ident, $a:ident, $b:ident, $c:ident, $r:ident) => {
        let sum = crate::isa::eval::$add(alu_read!($w, $regs, $a), alu_read!($w, $regs, $b));
        alu_write!($w, $regs, $r, sum);
        let sum = crate::isa::eval::$add(sum, alu_read!($w, $regs, $c));
        alu_write!($w, $regs, $r, sum);
    };
}

/// A fused compare: `r = cmp(a, b)` written as the compare would, and
/// whether it holds (the branch after it is taken).
macro_rules! fused_compare {
    ($cmp:ident, $w:ident, $regs:ident, $a:ident, $b:ident, $r:ident) => {{
        let taken = crate::isa::eval::$cmp(alu_read!($w, $regs, $a), alu_read!($w, $regs, $b)) != 0;
        w32($regs, $r, u32::from(taken));
        taken
    }};
}

/// One handler per superinstruction of [`for_each_fused_op!`](crate::isa),
/// computing with the [`eval`](crate::isa::eval) functions of the rows it
/// fuses.
macro_rules! fused_handlers {
    (()
     compare_branches { $( $cmp:ident => $fused:ident, $moved:ident ($w:ident) $(latch $add:ident => $latch:ident)? ; )* }
     add_chains { $( $add2:ident => $chain:ident ($w2:ident) ; )* }
     indexed_loads { $add3:ident => $load3:ident ($w3:ident) ; chain $chain4:ident ($add4:ident) => $load4:ident ($w4:ident) ; }) => {
        /// Handlers of the superinstructions.
        #[allow(non_snake_case, reason = "named by the Op variant")]
        mod fused {
            use super::*;
            $(
                /// A compare and the `cond_br` on its result.
                pub(super) unsafe fn $fused(
                    ip: *const Op,
                    regs: *mut u32,
                    m: &mut Machine<'_>,
                    table: &'static Table,
                ) -> *const Op {
                    // SAFETY: as for `Handler`: verified ordinals and targets.
                    unsafe {
                        fields!(ip, $fused { a, b, r, t, f });
                        let taken = fused_compare!($cmp, $w, regs, a, b, r);
                        if predicted(taken) {
                            next(jump(ip, m, t as isize), regs, m, table)
                        } else {
                            next(jump(ip, m, f as isize), regs, m, table)
                        }
                    }
                }
                /// A compare and the `cond_br` on its result whose taken
                /// edge copies one word.
                pub(super) unsafe fn $moved(
                    ip: *const Op,
                    regs: *mut u32,
                    m: &mut Machine<'_>,
                    table: &'static Table,
                ) -> *const Op {
                    // SAFETY: as for `Handler`: verified ordinals and targets.
                    unsafe {
                        fields!(ip, $moved { a, b, r, src, dst, t, f });
                        let taken = fused_compare!($cmp, $w, regs, a, b, r);
                        if predicted(taken) {
                            w32(regs, dst, r32(regs, src));
                            next(jump(ip, m, isize::from(t)), regs, m, table)
                        } else {
                            next(jump(ip, m, isize::from(f)), regs, m, table)
                        }
                    }
                }
            )*
            $($(
                /// A loop latch: the add, the compare of its sum, the branch.
                pub(super) unsafe fn $latch(
                    ip: *const Op,
                    regs: *mut u32,
                    m: &mut Machine<'_>,
                    table: &'static Table,
                ) -> *const Op {
                    // SAFETY: as for `Handler`: verified ordinals and targets.
                    unsafe {
                        fields!(ip, $latch { a, b, r, n, c, targets });
                        let sum = crate::isa::eval::$add(alu_read!($w, regs, a), alu_read!($w, regs, b));
                        alu_write!($w, regs, r, sum);
                        let taken = crate::isa::eval::$cmp(sum, alu_read!($w, regs, n)) != 0;
                        w32(regs, c, u32::from(taken));
                        // The loop goes on while `taken` (see
                        // `for_each_fused_op!`): the exit is laid out of line.
                        let (on, exit) = latch_jumps(targets);
                        if taken {
                            next(jump(ip, m, isize::from(on)), regs, m, table)
                        } else {
                            std::hint::cold_path();
                            next(ip.offset(isize::from(exit)), regs, m, table)
                        }
                    }
                }
            )?)*
            $(
                /// The add chain, then past the absorbed second add (never
                /// the function's last op).
                pub(super) unsafe fn $chain(
                    ip: *const Op,
                    regs: *mut u32,
                    m: &mut Machine<'_>,
                    table: &'static Table,
                ) -> *const Op {
                    // SAFETY: as for `Handler`; the absorbed add is not the
                    // last op (that is a terminator).
                    unsafe {
                        fields!(ip, $chain { a, b, c, r });
                        add_chain!($add2, $w2, regs, a, b, c, r);
                        next(ip.add(2), regs, m, table)
                    }
                }
            )*
            /// The add, then the load's fast path and past the load; on a
            /// miss the load runs next as itself (the add's result already
            /// written, as two ops leave it).
            pub(super) unsafe fn $load3(
                ip: *const Op,
                regs: *mut u32,
                m: &mut Machine<'_>,
                table: &'static Table,
            ) -> *const Op {
                // SAFETY: as for `Handler`; the load follows the add and is
                // not the last op.
                unsafe {
                    fields!(ip, $load3 { a, b, r, buf, dst });
                    let sum = crate::isa::eval::$add3(alu_read!($w3, regs, a), alu_read!($w3, regs, b));
                    alu_write!($w3, regs, r, sum);
                    if hot_load(m.refs, regs, buf, r, dst) {
                        next(ip.add(2), regs, m, table)
                    } else {
                        next(ip.add(1), regs, m, table)
                    }
                }
            }
            /// The same after a fused add chain, stepping over its absorbed
            /// add too.
            pub(super) unsafe fn $load4(
                ip: *const Op,
                regs: *mut u32,
                m: &mut Machine<'_>,
                table: &'static Table,
            ) -> *const Op {
                // SAFETY: as for `Handler`; the absorbed add and the load
                // follow, and neither is the last op.
                unsafe {
                    fields!(ip, $load4 { a, b, c, r, buf, dst });
                    add_chain!($add4, $w4, regs, a, b, c, r);
                    if hot_load(m.refs, regs, buf, r, dst) {
                        next(ip.add(3), regs, m, table)
                    } else {
                        next(ip.add(2), regs, m, table)
                    }
                }
            }

            /// Puts these handlers into `table`.
            pub(super) const fn install(table: &mut [Handler; Op::TAG_COUNT]) {
                $( table[OpTag::$fused as usize] = $fused; )*
                $( table[OpTag::$moved as usize] = $moved; )*
                $($( table[OpTag::$latch as usize] = $latch; )?)*
                $( table[OpTag::$chain as usize] = $chain; )*
                table[OpTag::$load3 as usize] = $load3;
                table[OpTag::$load4 as usize] = $load4;
            }
        }
    };
}
crate::isa::for_each_fused_op!(fused_handlers! {});

/// Defines the hand-written handlers: `Variant { fields } => body` where
/// `body` evaluates to what the handler returns (the next op's handler
/// called with [`next`], or [`slow`] for a fast path that does not apply).
macro_rules! hot_handlers {
    (($ip:ident, $regs:ident, $m:ident, $table:ident)
     $( $(#[$doc:meta])* $name:ident { $($field:ident),* } => $body:expr ; )*) => {
        /// Handlers of the other hot ops.
        #[allow(non_snake_case, reason = "named by the Op variant")]
        #[allow(unused_variables, reason = "every handler has the same signature")]
        mod hot {
            use super::*;
            $(
                $(#[$doc])*
                pub(super) unsafe fn $name(
                    $ip: *const Op,
                    $regs: *mut u32,
                    $m: &mut Machine<'_>,
                    $table: &'static Table,
                ) -> *const Op {
                    // SAFETY: as for `Handler`: verified ordinals, targets
                    // and side-table indices.
                    unsafe {
                        fields!($ip, $name { $($field),* });
                        $body
                    }
                }
            )*

            /// Puts these handlers into `table`.
            pub(super) const fn install(table: &mut [Handler; Op::TAG_COUNT]) {
                $( table[OpTag::$name as usize] = $name; )*
            }
        }
    };
}

hot_handlers! { (ip, regs, m, table)
    GlobalLoadI32 { offset, r } => {
        w32(regs, r, m.instance.global_bytes().load(offset as usize, 4) as u32);
        next(ip.add(1), regs, m, table)
    };
    GlobalStoreI32 { offset, v } => {
        m.instance.global_bytes().store(offset as usize, 4, u64::from(r32(regs, v)));
        next(ip.add(1), regs, m, table)
    };
    GlobalLoadI64 { offset, r } => {
        w64(regs, r, m.instance.global_bytes().load(offset as usize, 8));
        next(ip.add(1), regs, m, table)
    };
    GlobalStoreI64 { offset, v } => {
        m.instance.global_bytes().store(offset as usize, 8, r64(regs, v));
        next(ip.add(1), regs, m, table)
    };
    ConstI32 { value, r } => {
        w32(regs, r, value);
        next(ip.add(1), regs, m, table)
    };
    ConstI64 { lo, hi, r } => {
        w64(regs, r, u64::from(lo) | (u64::from(hi) << 32));
        next(ip.add(1), regs, m, table)
    };
    // Selects are data-dependent: conditional moves, not branches the
    // predictor would have to learn.
    SelectI32 { cond, t, f, r } => {
        let value = std::hint::select_unpredictable(r32(regs, cond) != 0, r32(regs, t), r32(regs, f));
        w32(regs, r, value);
        next(ip.add(1), regs, m, table)
    };
    SelectI64 { cond, t, f, r } => {
        let value = std::hint::select_unpredictable(r32(regs, cond) != 0, r64(regs, t), r64(regs, f));
        w64(regs, r, value);
        next(ip.add(1), regs, m, table)
    };
    Br { target } => next(jump(ip, m, target as isize), regs, m, table);
    CondBr { cond, t, f } => {
        if predicted(r32(regs, cond) != 0) {
            next(jump(ip, m, t as isize), regs, m, table)
        } else {
            next(jump(ip, m, f as isize), regs, m, table)
        }
    };
    // Branches that pass block arguments copy them between registers first
    // (the edge's remap list).
    BrMove { src0, dst0, src1, dst1, target } => {
        w32(regs, dst0, r32(regs, src0));
        w32(regs, dst1, r32(regs, src1));
        next(jump(ip, m, target as isize), regs, m, table)
    };
    BrRemap { branch } => take_branch(ip, branch, regs, m, table);
    CondBrMove { cond, src, dst, t, f } => {
        if predicted(r32(regs, cond) != 0) {
            w32(regs, dst, r32(regs, src));
            next(jump(ip, m, t as isize), regs, m, table)
        } else {
            next(jump(ip, m, f as isize), regs, m, table)
        }
    };
    CondBrRemap { cond, t, f } => {
        if predicted(r32(regs, cond) != 0) {
            take_branch(ip, t, regs, m, table)
        } else {
            take_branch(ip, f, regs, m, table)
        }
    };
    // Typed i32 list traffic stays here; anything unusual (null, other list
    // types, bad index) takes the slow path.
    ListGet { elem, list, index, r } => {
        match (elem, hot_list(m.refs, list)) {
            (ListElem::I32, Some(l)) if let Some(v) = l.try_get_i32(r32(regs, index) as i32) => {
                w32(regs, r, v as u32);
                next(ip.add(1), regs, m, table)
            }
            _ => slow(ip, regs, m, table),
        }
    };
    ListSet { elem, list, index, v } => {
        match (elem, hot_list(m.refs, list)) {
            (ListElem::I32, Some(l)) if l.try_set_i32(r32(regs, index) as i32, r32(regs, v) as i32) => {
                next(ip.add(1), regs, m, table)
            }
            _ => slow(ip, regs, m, table),
        }
    };
    // Word and double-word elements on aligned words of a buffer's own or
    // external memory stay here, without a call; anything else (a narrower
    // element, an unaligned view, rodata, a miss) goes to `buffer_access`.
    // Word and double-word accesses have tags of their own, so the width
    // is known without a jump on `elem`.
    BufferLoadWord { buf, offset, r } => {
        match hot_buffer(m.refs, buf).and_then(|b| b.try_load_words::<4>(r64(regs, offset) as i64)) {
            Some(x) => {
                w32(regs, r, u32::from_le_bytes(x));
                next(ip.add(1), regs, m, table)
            }
            None => buffer_access(ip, regs, m, table),
        }
    };
    BufferStoreWord { buf, offset, v } => {
        let value = r32(regs, v).to_le_bytes();
        if hot_buffer(m.refs, buf).is_some_and(|b| b.try_store_words(r64(regs, offset) as i64, value)) {
            next(ip.add(1), regs, m, table)
        } else {
            buffer_access(ip, regs, m, table)
        }
    };
    BufferLoadDword { buf, offset, r } => {
        match hot_buffer(m.refs, buf).and_then(|b| b.try_load_words::<8>(r64(regs, offset) as i64)) {
            Some(x) => {
                w64(regs, r, u64::from_le_bytes(x));
                next(ip.add(1), regs, m, table)
            }
            None => buffer_access(ip, regs, m, table),
        }
    };
    BufferStoreDword { buf, offset, v } => {
        let value = r64(regs, v).to_le_bytes();
        if hot_buffer(m.refs, buf).is_some_and(|b| b.try_store_words(r64(regs, offset) as i64, value)) {
            next(ip.add(1), regs, m, table)
        } else {
            buffer_access(ip, regs, m, table)
        }
    };
    BufferLoad { } => buffer_access(ip, regs, m, table);
    BufferStore { } => buffer_access(ip, regs, m, table);
    // Calls between functions of this module, and their returns, switch
    // frames here and go on in the chain; imports and the entry frame's
    // return take the slow path.
    Call { call } => call_internal(ip, m, table, call);
    Return { list } => return_to_caller(regs, m, table, list);
}

/// `vm.call` of call site `call` when it calls a function of this module:
/// pushes the caller's frame (to resume after the call, or at the resume
/// block of a yieldable call), moves the arguments into a new frame and
/// continues at the callee's first op. An import goes to [`slow`].
///
/// # Safety
/// As for [`Handler`]; `ip` is a `Call` op and `call` its call site.
#[inline(always)]
unsafe fn call_internal(
    ip: *const Op,
    m: &mut Machine<'_>,
    table: &'static Table,
    call: u32,
) -> *const Op {
    // SAFETY: the verifier checked the call site, the callee ordinal, the
    // resume branch and every argument move against both frames.
    unsafe {
        let info = checked::entry(&m.code.calls, call as usize);
        let CallTarget::Internal { function, args } = &info.target else {
            let (ip, regs) = call_import(ip, m, call);
            return if ip.is_null() {
                ip
            } else {
                continue_in(m, table, ip, regs)
            };
        };
        let instance = m.instance;
        let callee = checked::entry(&instance.module().functions, *function as usize);
        let pc = ip.offset_from(m.base) as u32;
        if let Err(error) = m.stack.enter_frame(callee.frame_bytes) {
            m.cont.current.pc = pc;
            return stop(m, Stop::Error(error));
        }
        let mut caller = m.cont.current;
        caller.pc = match info.resume {
            Some(branch) => checked::entry(&m.code.branches, branch as usize).target,
            None => pc + 1,
        };
        caller.call = call;
        let (i32_base, ref_base) = m
            .stack
            .push_registers(callee.i32_count as usize, callee.ref_count as usize);
        let (i32s, refs) = (
            m.stack.i32_arena.as_mut_ptr(),
            m.stack.ref_arena.as_mut_ptr(),
        );
        let from = (i32s.add(caller.i32_base), refs.add(caller.ref_base));
        // The arenas may have moved: the checked build's view of the
        // caller's frame follows them.
        checked::enter_frame(
            from.0,
            m.code.i32_count,
            from.1,
            m.code.ref_count,
            &m.stack.i32_arena,
            &m.stack.ref_arena,
            &m.code.ops,
        );
        let to = (i32s.add(i32_base), refs.add(ref_base));
        for arg in args.iter() {
            move_into_callee(from, to, arg);
        }
        // An activation's first internal call takes the frame stack the
        // last one on this thread kept (`spare_frames`), not a new one.
        if m.cont.frames.capacity() == 0 {
            m.cont.frames = super::spare_frames();
        }
        m.cont.frames.push(caller);
        m.cont.current = Frame {
            function: *function,
            pc: 0,
            i32_base,
            ref_base,
            call: u32::MAX,
        };
        switch_frame(m, table, callee)
    }
}

/// Moves one argument of an internal call from the caller's registers
/// (`from`: its i32 and ref registers) into the callee's (`to`).
///
/// # Safety
/// The verifier checked `arg`'s source against the caller's register
/// counts and its destination against the callee's; both frames' registers
/// are in the arenas the pointers point into.
#[inline(always)]
unsafe fn move_into_callee(
    from: (*mut u32, *mut Option<Ref>),
    to: (*mut u32, *mut Option<Ref>),
    arg: &Move,
) {
    // SAFETY: the caller's contract.
    unsafe {
        match arg.slot {
            Slot::I32 => w32(to.0, arg.dst, r32(from.0, arg.src)),
            Slot::I64 => w64(to.0, arg.dst, r64(from.0, arg.src)),
            Slot::Ref => {
                let source = RefReg::new(arg.src & REF_MASK, arg.src & MOVE_BIT != 0);
                *rref(to.1, RefReg(arg.dst)) = take_ref(from.1, source);
            }
        }
    }
}

/// `vm.return` of operand list `list` from a frame this activation called
/// (the entry frame's return is [`return_from_activation`]): writes the
/// results into the caller's registers, drops the frame and continues in
/// the caller.
///
/// # Safety
/// As for [`Handler`]; `list` is the running `Return` op's operands.
#[inline(always)]
unsafe fn return_to_caller(
    regs: *mut u32,
    m: &mut Machine<'_>,
    table: &'static Table,
    list: u32,
) -> *const Op {
    let Some(caller) = m.cont.frames.pop() else {
        // SAFETY: the caller's contract.
        return unsafe { return_from_activation(regs, m, list) };
    };
    // SAFETY: the verifier checked the operand list against this frame,
    // the caller's call site and its result registers against the caller's
    // frame, and that the result types match the operands'.
    unsafe {
        let instance = m.instance;
        let caller_code = checked::entry(&instance.module().functions, caller.function as usize);
        let info = checked::entry(&caller_code.calls, caller.call as usize);
        let operands = checked::entry(&m.code.lists, list as usize);
        let caller_regs = m.stack.i32_arena.as_mut_ptr().add(caller.i32_base);
        let caller_refs = m.stack.ref_arena.as_mut_ptr().add(caller.ref_base);
        for (&dst, &src) in info.results.iter().zip(operands.iter()) {
            match dst {
                CallSlot::I32(d) | CallSlot::F32(d) => w32(caller_regs, d, r32(regs, src)),
                CallSlot::I64(d) | CallSlot::F64(d) => w64(caller_regs, d, r64(regs, src)),
                CallSlot::Ref { ordinal, .. } => {
                    let value = take_ref(m.refs, RefReg::new(src & REF_MASK, src & MOVE_BIT != 0));
                    *rref(caller_refs, RefReg(ordinal)) = value;
                }
                // Decoding makes no count slot for a result.
                CallSlot::Count(_) => {}
            }
        }
        let frame = m.cont.current;
        m.stack.leave_frame(m.code.frame_bytes);
        m.stack.i32_arena.truncate(frame.i32_base);
        m.stack.ref_arena.truncate(frame.ref_base);
        m.cont.current = caller;
        switch_frame(m, table, caller_code)
    }
}

/// `vm.call` of import call site `call`
/// ([`BytecodeInstance::call_import`]). Returns where the calling frame
/// goes on, its op and i32 registers re-derived (the callee may have grown
/// the arenas), or a null op when the chain stops (the import deferred or
/// failed). It returns rather than continuing itself: its frame holds the
/// call's result, so a call of the next handler from here could not be a
/// jump, and a loop of import calls would grow the native stack. (Two
/// pointers come back in registers; an `Option` of them would come back
/// through the caller's stack frame, and then the caller's own call of the
/// next handler could not be a jump either.)
///
/// # Safety
/// As for [`Handler`]; `ip` is a `Call` op and `call` its call site.
#[inline(never)]
unsafe fn call_import(ip: *const Op, m: &mut Machine<'_>, call: u32) -> (*const Op, *mut u32) {
    // SAFETY: `ip` and `m.base` point into one function's ops.
    m.cont.current.pc = unsafe { ip.offset_from(m.base) } as u32;
    let instance = m.instance;
    match instance.call_import(m.stack, m.cont, call) {
        Ok(ImportReturn::Continue(pc)) => {
            m.cont.current.pc = pc;
            let code = m.code;
            // SAFETY: the frame is still this activation's, and `pc` a
            // verified op index of its function (after the call, or a
            // resume branch's target).
            unsafe { enter_current_frame(m, code) }
        }
        Ok(ImportReturn::Exit(exit)) => (stop(m, Stop::Exit(exit)), ptr::null_mut()),
        // The frame's `pc` still names the call.
        Err(error) => (stop(m, Stop::Error(error)), ptr::null_mut()),
    }
}

/// `vm.return` of operand list `list` from the activation's entry frame:
/// the results go out as values, the frame's registers are dropped, and the
/// chain stops.
///
/// # Safety
/// As for [`Handler`]; `list` is the `Return` op's operand list.
#[inline(never)]
unsafe fn return_from_activation(regs: *mut u32, m: &mut Machine<'_>, list: u32) -> *const Op {
    let code = m.code;
    // SAFETY: the verifier checked the operands against the function's
    // result types and this frame's registers.
    unsafe {
        let operands = checked::entry(&code.lists, list as usize);
        for (ty, &raw) in code.result_types.iter().zip(operands.iter()) {
            m.results.push(read_value(regs, m.refs, ty, raw));
        }
    }
    let frame = m.cont.current;
    m.stack.leave_frame(code.frame_bytes);
    m.stack.i32_arena.truncate(frame.i32_base);
    m.stack.ref_arena.truncate(frame.ref_base);
    stop(m, Stop::Exit(Exit::Returned))
}

/// Continues in the frame `m.cont.current` names, whose function is
/// `code`, at its `pc` ([`enter_current_frame`], then [`continue_in`]).
///
/// # Safety
/// As for [`enter_current_frame`].
#[inline(always)]
unsafe fn switch_frame<'a>(
    m: &mut Machine<'a>,
    table: &'static Table,
    code: &'a FunctionCode,
) -> *const Op {
    if !THREADED {
        return stop(m, Stop::Reload);
    }
    // SAFETY: the caller's contract.
    unsafe {
        let (ip, regs) = enter_current_frame(m, code);
        continue_in(m, table, ip, regs)
    }
}

/// Points the machine at the frame `m.cont.current` names, whose function
/// is `code` (the arenas may have moved since the frame last ran), and
/// returns its op at `pc` and its i32 registers.
///
/// # Safety
/// `m.cont.current` is a frame of this activation whose registers the
/// arenas hold, running `code` at a verified op index.
#[inline(always)]
unsafe fn enter_current_frame<'a>(
    m: &mut Machine<'a>,
    code: &'a FunctionCode,
) -> (*const Op, *mut u32) {
    let frame = m.cont.current;
    // SAFETY: the caller's contract: the frame's registers start at its
    // bases, and its `pc` is a verified op index of `code`.
    unsafe {
        let regs = m.stack.i32_arena.as_mut_ptr().add(frame.i32_base);
        m.refs = m.stack.ref_arena.as_mut_ptr().add(frame.ref_base);
        m.code = code;
        m.base = code.ops.as_ptr();
        m.branches = code.branches.as_ptr();
        (m.base.add(frame.pc as usize), regs)
    }
}

/// Goes on at `ip` after a frame switch: threaded builds chain into it;
/// unoptimized builds stop the chain instead ([`Stop::Reload`]), since
/// [`run`]'s loop holds the old frame's registers, and `dispatch`
/// re-derives the frame.
///
/// # Safety
/// As for [`Handler`], for `ip` and `regs` of the machine's frame.
#[inline(always)]
unsafe fn continue_in(
    m: &mut Machine<'_>,
    table: &'static Table,
    ip: *const Op,
    regs: *mut u32,
) -> *const Op {
    if THREADED {
        // SAFETY: the caller's contract.
        unsafe { next(ip, regs, m, table) }
    } else {
        stop(m, Stop::Reload)
    }
}

/// A `buffer.load.*` / `buffer.store.*` the handlers above do not finish:
/// any element in bounds of any buffer (narrow elements, unaligned views,
/// rodata) without errors, else [`slow`] for the error.
///
/// # Safety
/// As for [`Handler`]; `ip` is a buffer load or store.
#[inline(never)]
unsafe fn buffer_access(
    ip: *const Op,
    regs: *mut u32,
    m: &mut Machine<'_>,
    table: &'static Table,
) -> *const Op {
    // SAFETY: the caller's contract: verified ordinals of this frame.
    unsafe {
        let done =
            match *ip {
                Op::BufferLoadWord {
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
                }
                | Op::BufferLoad {
                    elem,
                    buf,
                    offset,
                    r,
                } => hot_buffer(m.refs, buf)
                    .is_some_and(|b| buffer_load_fast(b, elem, regs, offset, r)),
                Op::BufferStoreWord {
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
                }
                | Op::BufferStore {
                    elem,
                    buf,
                    offset,
                    v,
                } => hot_buffer(m.refs, buf)
                    .is_some_and(|b| buffer_store_fast(b, elem, regs, offset, v)),
                _ => false,
            };
        if done {
            next(ip.add(1), regs, m, table)
        } else {
            slow(ip, regs, m, table)
        }
    }
}

/// `taken`, through a real (predicted) branch: the loads on the taken
/// side (its target) then run ahead of the compare, and the next op's
/// address never waits for the data the compare reads. Without the empty
/// asm block LLVM may if-convert the two sides into a conditional move,
/// which puts the compare's inputs on the path to every later op.
#[inline(always)]
fn predicted(taken: bool) -> bool {
    if taken {
        // SAFETY: an empty asm block with no operands has no effect; it only
        // stops the optimizer from if-converting this branch.
        #[cfg(not(miri))]
        unsafe {
            std::arch::asm!("", options(nomem, nostack, preserves_flags))
        };
        true
    } else {
        false
    }
}

// ---- register access helpers ----
// SAFETY (all helpers): callers pass ordinals the verifier checked against
// the current frame's register counts, and pointers to that frame's storage.

#[inline(always)]
pub(super) unsafe fn r32(regs: *mut u32, r: Reg) -> u32 {
    checked::i32_regs(regs, r as usize, 1);
    // SAFETY: see above.
    unsafe { *regs.add(r as usize) }
}
#[inline(always)]
pub(super) unsafe fn w32(regs: *mut u32, r: Reg, v: u32) {
    checked::i32_regs(regs, r as usize, 1);
    // SAFETY: see above.
    unsafe { *regs.add(r as usize) = v }
}
#[inline(always)]
pub(super) unsafe fn r64(regs: *mut u32, r: Reg) -> u64 {
    checked::i32_regs(regs, r as usize, 2);
    // SAFETY: i64 ordinals were checked so that `r + 1` is in bounds too.
    unsafe { regs.add(r as usize).cast::<u64>().read_unaligned() }
}
#[inline(always)]
pub(super) unsafe fn w64(regs: *mut u32, r: Reg, v: u64) {
    checked::i32_regs(regs, r as usize, 2);
    // SAFETY: i64 ordinals were checked so that `r + 1` is in bounds too.
    unsafe { regs.add(r as usize).cast::<u64>().write_unaligned(v) }
}
#[inline(always)]
pub(super) unsafe fn rf32(regs: *mut u32, r: Reg) -> f32 {
    // SAFETY: see above.
    f32::from_bits(unsafe { r32(regs, r) })
}
#[inline(always)]
pub(super) unsafe fn rf64(regs: *mut u32, r: Reg) -> f64 {
    // SAFETY: see above.
    f64::from_bits(unsafe { r64(regs, r) })
}

/// The list in a ref register, if it holds one.
#[inline(always)]
unsafe fn hot_list<'a>(refs: *mut Option<Ref>, r: RefReg) -> Option<&'a List> {
    checked::ref_reg(refs, r.index());
    // SAFETY: see above.
    unsafe {
        (*refs.add(r.index()))
            .as_ref()
            .and_then(|v| v.downcast::<List>())
    }
}

/// The buffer in a ref register, if it holds one.
#[inline(always)]
unsafe fn hot_buffer<'a>(refs: *mut Option<Ref>, r: RefReg) -> Option<&'a Buffer> {
    checked::ref_reg(refs, r.index());
    // SAFETY: see above.
    unsafe {
        (*refs.add(r.index()))
            .as_ref()
            .and_then(|v| v.downcast::<Buffer>())
    }
}

/// A word `buffer.load` from the buffer in ref register `buf` at element
/// `offset` into `r`, when [`Buffer::try_load_words`] can: `false`
/// (nothing written) otherwise, and the load op itself runs next.
#[inline(always)]
unsafe fn hot_load(
    refs: *mut Option<Ref>,
    regs: *mut u32,
    buf: RefReg,
    offset: Reg,
    r: Reg,
) -> bool {
    // SAFETY: register accesses as in `hot_buffer` (verified ordinals).
    unsafe {
        match hot_buffer(refs, buf).and_then(|b| b.try_load_words::<4>(r64(regs, offset) as i64)) {
            Some(x) => {
                w32(regs, r, u32::from_le_bytes(x));
                true
            }
            None => false,
        }
    }
}

/// `buffer.load.*` without errors: `false` (nothing written) when the
/// element is out of bounds.
#[inline(always)]
unsafe fn buffer_load_fast(b: &Buffer, elem: BufElem, regs: *mut u32, offset: Reg, r: Reg) -> bool {
    // SAFETY: register accesses as above (verified ordinals of this frame).
    unsafe {
        let off = r64(regs, offset) as i64;
        let value: Option<u64> = match elem {
            BufElem::I8U => b.try_load_element::<1>(off).map(|x| u64::from(x[0])),
            BufElem::I8S => b
                .try_load_element::<1>(off)
                .map(|x| x[0] as i8 as i32 as u32 as u64),
            BufElem::I16U => b
                .try_load_element::<2>(off)
                .map(|x| u64::from(u16::from_le_bytes(x))),
            BufElem::I16S => b
                .try_load_element::<2>(off)
                .map(|x| i16::from_le_bytes(x) as i32 as u32 as u64),
            BufElem::I32 | BufElem::F32 => b
                .try_load_element::<4>(off)
                .map(|x| u64::from(u32::from_le_bytes(x))),
            BufElem::I64 | BufElem::F64 => {
                return match b.try_load_element::<8>(off) {
                    Some(x) => {
                        w64(regs, r, u64::from_le_bytes(x));
                        true
                    }
                    None => false,
                };
            }
        };
        match value {
            Some(v) => {
                w32(regs, r, v as u32);
                true
            }
            None => false,
        }
    }
}

/// `buffer.store.*` without errors: `false` (nothing stored) when the
/// element is out of bounds or the buffer read-only.
#[inline(always)]
unsafe fn buffer_store_fast(
    b: &Buffer,
    elem: BufElem,
    regs: *mut u32,
    offset: Reg,
    v: Reg,
) -> bool {
    // SAFETY: register accesses as above (verified ordinals of this frame).
    unsafe {
        let off = r64(regs, offset) as i64;
        match elem {
            BufElem::I8U | BufElem::I8S => b.try_store_element(off, [r32(regs, v) as u8]),
            BufElem::I16U | BufElem::I16S => {
                b.try_store_element(off, (r32(regs, v) as u16).to_le_bytes())
            }
            BufElem::I32 | BufElem::F32 => b.try_store_element(off, r32(regs, v).to_le_bytes()),
            BufElem::I64 | BufElem::F64 => b.try_store_element(off, r64(regs, v).to_le_bytes()),
        }
    }
}

/// Takes branch-table edge `branch`: applies its register moves, then
/// continues at its target. Most edges copy one or two i32 words: those
/// are copied here, without a loop; an edge with more moves, or one that
/// moves refs, goes out of line ([`take_long_branch`]), so this path saves
/// no registers.
///
/// # Safety
/// As for [`Handler`]; `branch` indexes `m.branches`.
#[inline(always)]
unsafe fn take_branch(
    ip: *const Op,
    branch: u32,
    regs: *mut u32,
    m: &mut Machine<'_>,
    table: &'static Table,
) -> *const Op {
    // SAFETY: the caller's contract; remap registers were verified per
    // bank, and an edge that does not remap refs moves only i32 words.
    unsafe {
        checked::index(branch as usize, m.code.branches.len());
        let br = &*m.branches.add(branch as usize);
        let copy = |&(src, dst): &(u16, u16)| w32(regs, dst, r32(regs, src));
        match (br.remaps_refs, &*br.remap) {
            (false, []) => {}
            (false, [one]) => copy(one),
            (false, [first, second]) => {
                copy(first);
                copy(second);
            }
            _ => return take_long_branch(br, regs, m, table),
        }
        next(jump_to(ip, m, br.target), regs, m, table)
    }
}

/// [`take_branch`] for an edge that moves refs or more than two words.
///
/// # Safety
/// As for [`Handler`]; `br` is an edge of the running function.
#[inline(never)]
unsafe fn take_long_branch(
    br: &Branch,
    regs: *mut u32,
    m: &mut Machine<'_>,
    table: &'static Table,
) -> *const Op {
    // SAFETY: the caller's contract.
    unsafe {
        remap(regs, m.refs, &br.remap);
        next(m.base.add(br.target as usize), regs, m, table)
    }
}
