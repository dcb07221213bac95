//! Import calls made straight from the calling frame's registers.
//!
//! The bytecode interpreter calls an import by naming, for each flattened
//! argument and result, the register of the calling frame that holds it
//! ([`CallSlot`]): a [`RegisterCall`]. A module instance that reads its
//! arguments from there ([`NativeModuleInstance`](crate::native::NativeModuleInstance)
//! with typed exports) builds no vector of [`Value`]s on the way in or out;
//! any other takes them as values ([`RegisterCall::through_values`], the
//! default of [`ModuleInstance::call_from_registers`]).

use iree_base::{Result, Status, StatusCode};

use crate::module::{CallStatus, ModuleInstance, Stack};
use crate::refs::Ref;
use crate::value::Value;

/// Where one flattened argument or result of an import call is in the
/// calling frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallSlot {
    /// An i32 register.
    I32(u16),
    /// An i64 register: two i32 registers, the low word first.
    I64(u16),
    /// An f32 register (an i32 register's bits).
    F32(u16),
    /// An f64 register (an i64 register's bits).
    F64(u16),
    /// A ref register. `moved`: the call takes the caller's reference and
    /// leaves the register null (a result slot is never moved).
    Ref {
        /// The ref register's ordinal.
        ordinal: u16,
        /// Whether the caller gives up its reference.
        moved: bool,
    },
    /// The count of a variadic span: a constant, not a register (arguments
    /// only).
    Count(u16),
}

/// An import call whose arguments and results are registers of the calling
/// frame, whose i32 and ref registers start at `i32_base` and `ref_base` of
/// the [`Stack`]'s arenas.
#[derive(Clone, Copy, Debug)]
pub struct RegisterCall<'a> {
    /// Where the calling frame's i32 registers start in `Stack::i32_arena`.
    pub i32_base: usize,
    /// Where the calling frame's ref registers start in `Stack::ref_arena`.
    pub ref_base: usize,
    /// The flattened arguments, in cconv order.
    pub args: &'a [CallSlot],
    /// The results, in cconv order.
    pub results: &'a [CallSlot],
}

impl RegisterCall<'_> {
    /// The calling frame's registers in `stack`.
    pub fn registers<'s>(&self, stack: &'s mut Stack) -> Result<FrameRegisters<'s>> {
        let i32 = stack.i32_arena.get_mut(self.i32_base..);
        let refs = stack.ref_arena.get_mut(self.ref_base..);
        match (i32, refs) {
            (Some(i32), Some(refs)) => Ok(FrameRegisters { i32, refs }),
            _ => Err(Status::new(
                StatusCode::Internal,
                "import call's frame is not on the stack",
            )),
        }
    }

    /// Appends the arguments to `out` as values (moved refs leave their
    /// registers null).
    pub fn take_values(&self, stack: &mut Stack, out: &mut Vec<Value>) -> Result<()> {
        let mut registers = self.registers(stack)?;
        // Extended, not pushed one by one: each value is written straight
        // into the vector.
        let mut failed = None;
        out.extend(self.args.iter().map(|&slot| {
            registers.read(slot).unwrap_or_else(|error| {
                failed.get_or_insert(error);
                Value::NULL
            })
        }));
        failed.map_or(Ok(()), Err)
    }

    /// Copies the arguments into another frame of the same stack, whose
    /// registers start at `i32_base` and `ref_base` and take the arguments
    /// in `to` (one per argument: the callee's own argument registers).
    /// Words and word pairs are copied as bits; a ref is moved or retained
    /// as its slot says. INTERNAL when an argument does not fit its
    /// register's kind (a word into a pair, a ref into a word) or a
    /// register is outside the arenas.
    pub fn copy_args_into(
        &self,
        stack: &mut Stack,
        (i32_base, ref_base): (usize, usize),
        to: &[CallSlot],
    ) -> Result<()> {
        if self.args.len() != to.len() {
            return Err(Status::new(
                StatusCode::Internal,
                "import call's arguments do not match the callee",
            ));
        }
        let words = &mut stack.i32_arena;
        let refs = &mut stack.ref_arena;
        for (&from, &to) in self.args.iter().zip(to) {
            match (from, to) {
                (CallSlot::I32(s) | CallSlot::F32(s), CallSlot::I32(d) | CallSlot::F32(d)) => {
                    let [value] = *arena_at(words, self.i32_base, s)?;
                    *arena_at(words, i32_base, d)? = [value];
                }
                (CallSlot::Count(n), CallSlot::I32(d)) => {
                    *arena_at(words, i32_base, d)? = [u32::from(n)];
                }
                (CallSlot::I64(s) | CallSlot::F64(s), CallSlot::I64(d) | CallSlot::F64(d)) => {
                    let value: [u32; 2] = *arena_at(words, self.i32_base, s)?;
                    *arena_at(words, i32_base, d)? = value;
                }
                (CallSlot::Ref { ordinal, moved }, CallSlot::Ref { ordinal: d, .. }) => {
                    let [register] = arena_at(refs, self.ref_base, ordinal)?;
                    let value = if moved {
                        register.take()
                    } else {
                        register.clone()
                    };
                    *arena_at(refs, ref_base, d)? = [value];
                }
                (from, to) => {
                    return Err(Status::new(
                        StatusCode::Internal,
                        format!("import argument {from:?} cannot enter register {to:?}"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// Stores `values`, one per result slot, into the calling frame (refs
    /// are moved out of `values`).
    pub fn store_values(&self, stack: &mut Stack, values: &mut [Value]) -> Result<()> {
        if values.len() != self.results.len() {
            return Err(Status::new(
                StatusCode::Internal,
                format!(
                    "import returned {} results but {} were expected",
                    values.len(),
                    self.results.len()
                ),
            ));
        }
        let mut registers = self.registers(stack)?;
        for (&slot, value) in self.results.iter().zip(values) {
            registers.write(slot, std::mem::take(value))?;
        }
        Ok(())
    }

    /// Makes the call through [`ModuleInstance::call_verified`]: the
    /// arguments taken as values, the results stored once it is done (a
    /// deferred call stores none).
    pub fn through_values<M: ModuleInstance + ?Sized>(
        &self,
        module: &M,
        stack: &mut Stack,
        export_ordinal: u32,
    ) -> Result<CallStatus> {
        let mut args = stack.take_args();
        let status = self.take_values(stack, &mut args).and_then(|()| {
            self.returning_into_frame(stack, |stack, results| {
                module.call_verified(stack, export_ordinal, &mut args, results)
            })
        });
        stack.return_args(args);
        status
    }

    /// Runs `call`, which appends the call's results to the vector it is
    /// given (one from the stack's pool), and stores them into the calling
    /// frame once the call is done (a deferred call stores none).
    #[inline]
    pub fn returning_into_frame(
        &self,
        stack: &mut Stack,
        call: impl FnOnce(&mut Stack, &mut Vec<Value>) -> Result<CallStatus>,
    ) -> Result<CallStatus> {
        let mut results = stack.take_args();
        let status = match call(stack, &mut results) {
            Ok(CallStatus::Done) => self
                .store_values(stack, &mut results)
                .map(|()| CallStatus::Done),
            other => other,
        };
        stack.return_args(results);
        status
    }
}

/// A calling frame's registers, borrowed from the stack's arenas: the
/// frame's first register and everything after it.
pub struct FrameRegisters<'a> {
    i32: &'a mut [u32],
    refs: &'a mut [Option<Ref>],
}

impl FrameRegisters<'_> {
    /// The value in `slot` (a moved ref leaves its register null).
    #[inline(always)]
    pub fn read(&mut self, slot: CallSlot) -> Result<Value> {
        Ok(match slot {
            CallSlot::I32(r) => Value::I32(self.word(r)? as i32),
            CallSlot::F32(r) => Value::F32(f32::from_bits(self.word(r)?)),
            CallSlot::I64(r) => Value::I64(self.pair(r)? as i64),
            CallSlot::F64(r) => Value::F64(f64::from_bits(self.pair(r)?)),
            CallSlot::Ref { ordinal, moved } => Value::Ref(self.take_ref(ordinal, moved)?),
            CallSlot::Count(n) => Value::I32(i32::from(n)),
        })
    }

    /// Writes `value` into `slot`; INTERNAL when its type is not the slot's.
    /// Inlined: a caller writing a value of a known type checks one tag.
    #[inline(always)]
    pub fn write(&mut self, slot: CallSlot, value: Value) -> Result<()> {
        match (slot, value) {
            (CallSlot::I32(r), Value::I32(v)) => *self.word_mut(r)? = v as u32,
            (CallSlot::F32(r), Value::F32(v)) => *self.word_mut(r)? = v.to_bits(),
            (CallSlot::I64(r), Value::I64(v)) => self.set_pair(r, v as u64)?,
            (CallSlot::F64(r), Value::F64(v)) => self.set_pair(r, v.to_bits())?,
            (CallSlot::Ref { ordinal, .. }, Value::Ref(v)) => *self.ref_register(ordinal)? = v,
            (slot, value) => {
                return Err(Status::new(
                    StatusCode::Internal,
                    format!("import result type mismatch: expected {slot:?}, have {value:?}"),
                ))
            }
        }
        Ok(())
    }

    /// The ref in register `ordinal`: taken when `moved`, else a new
    /// reference to it.
    #[inline]
    pub(crate) fn take_ref(&mut self, ordinal: u16, moved: bool) -> Result<Option<Ref>> {
        let register = self.ref_register(ordinal)?;
        Ok(if moved {
            register.take()
        } else {
            register.clone()
        })
    }

    #[inline]
    pub(crate) fn word(&self, r: u16) -> Result<u32> {
        self.i32
            .get(usize::from(r))
            .copied()
            .ok_or_else(|| out_of_frame(r))
    }

    #[inline]
    fn word_mut(&mut self, r: u16) -> Result<&mut u32> {
        self.i32
            .get_mut(usize::from(r))
            .ok_or_else(|| out_of_frame(r))
    }

    #[inline]
    pub(crate) fn pair(&self, r: u16) -> Result<u64> {
        match self.i32.get(usize::from(r)..usize::from(r) + 2) {
            Some(&[lo, hi]) => Ok(u64::from(lo) | u64::from(hi) << 32),
            _ => Err(out_of_frame(r)),
        }
    }

    #[inline]
    fn set_pair(&mut self, r: u16, v: u64) -> Result<()> {
        match self.i32.get_mut(usize::from(r)..usize::from(r) + 2) {
            Some([lo, hi]) => {
                *lo = v as u32;
                *hi = (v >> 32) as u32;
                Ok(())
            }
            _ => Err(out_of_frame(r)),
        }
    }

    #[inline]
    fn ref_register(&mut self, ordinal: u16) -> Result<&mut Option<Ref>> {
        self.refs
            .get_mut(usize::from(ordinal))
            .ok_or_else(|| out_of_frame(ordinal))
    }
}

/// The `N` registers from register `r` of the frame whose registers start
/// at `base` of `arena` (one bounds check).
#[inline(always)]
fn arena_at<T, const N: usize>(arena: &mut [T], base: usize, r: u16) -> Result<&mut [T; N]> {
    let at = base + usize::from(r);
    arena
        .get_mut(at..at + N)
        .and_then(|run| run.try_into().ok())
        .ok_or_else(|| out_of_frame(r))
}

#[cold]
fn out_of_frame(register: u16) -> Status {
    Status::new(
        StatusCode::Internal,
        format!("import call register {register} is outside the calling frame"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::Buffer;

    #[test]
    fn copy_args_into_another_frame() {
        let mut stack = Stack::new();
        let caller = stack.push_registers(8, 2);
        let callee = stack.push_registers(8, 2);
        stack.i32_arena[caller.0 + 1] = 7;
        stack.i32_arena[caller.0 + 2] = 0x1111;
        stack.i32_arena[caller.0 + 3] = 0x2222;
        let buffer = Ref::new(Buffer::from_vec(vec![0u8; 3]));
        stack.ref_arena[caller.1] = Some(buffer.clone());
        stack.ref_arena[caller.1 + 1] = Some(buffer.clone());
        let args = [
            CallSlot::I32(1),
            CallSlot::F64(2),
            CallSlot::Count(5),
            CallSlot::Ref {
                ordinal: 0,
                moved: false,
            },
            CallSlot::Ref {
                ordinal: 1,
                moved: true,
            },
        ];
        let to = [
            CallSlot::I32(0),
            CallSlot::I64(2),
            CallSlot::I32(4),
            CallSlot::Ref {
                ordinal: 0,
                moved: false,
            },
            CallSlot::Ref {
                ordinal: 1,
                moved: false,
            },
        ];
        let call = RegisterCall {
            i32_base: caller.0,
            ref_base: caller.1,
            args: &args,
            results: &[],
        };
        call.copy_args_into(&mut stack, callee, &to).unwrap();
        assert_eq!(
            stack.i32_arena[callee.0..callee.0 + 5],
            [7, 0, 0x1111, 0x2222, 5]
        );
        // The kept ref stays with the caller, the moved one leaves it.
        assert!(stack.ref_arena[caller.1].is_some());
        assert!(stack.ref_arena[caller.1 + 1].is_none());
        for r in 0..2 {
            let got = stack.ref_arena[callee.1 + r].as_ref().unwrap();
            assert!(Ref::ptr_eq(got, &buffer));
        }

        // A word into a pair, a count or mismatched arity, and a register
        // past the arenas fail as INTERNAL, without a panic.
        let bad: [(&[CallSlot], &[CallSlot]); 4] = [
            (&[CallSlot::I32(1)], &[CallSlot::I64(0)]),
            (&[CallSlot::I32(1)], &[]),
            (&[CallSlot::I64(7)], &[CallSlot::I64(0)]),
            (&[CallSlot::I32(1)], &[CallSlot::I32(u16::MAX)]),
        ];
        for (args, to) in bad {
            let call = RegisterCall {
                i32_base: callee.0,
                ref_base: callee.1,
                args,
                results: &[],
            };
            let error = call.copy_args_into(&mut stack, callee, to).unwrap_err();
            assert_eq!(error.code(), StatusCode::Internal, "{args:?} -> {to:?}");
        }
    }
}
