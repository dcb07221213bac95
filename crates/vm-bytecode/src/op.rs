//! The decoded instruction form the interpreter executes.
//!
//! Bytecode is verified and translated once at load time into [`Op`]s: a
//! fixed-size enum with register ordinals already split by bank, branch
//! targets resolved to op indices, and variable-length payloads (register
//! lists, remap lists, strings) moved into per-function side tables. The
//! interpreter can then trust every index it reads.
//!
//! A branch op carries each target as a [`Jump`]: its distance in ops from
//! the branch op itself (the interpreter steps `ip` by it). Branch-table
//! edges ([`Branch`](crate::decode::Branch)) keep op indices.

/// An i32-bank register ordinal (also used for f32, and for the low half of
/// i64/f64 pairs).
pub type Reg = u16;

/// A branch target as a distance in ops from the branch op (negative:
/// backwards). See the module docs.
pub type Jump = i32;

/// A [`Jump`] narrowed to 16 bits, for ops with no room for a full one.
pub type ShortJump = i16;

/// A loop latch's `targets` field: its taken jump in the low 16 bits, its
/// exit's in the high ones (one load for both).
#[inline(always)]
pub const fn latch_targets(taken: ShortJump, exit: ShortJump) -> u32 {
    (taken as u16 as u32) | ((exit as u16 as u32) << 16)
}

/// The `(taken, exit)` jumps of a latch's `targets` ([`latch_targets`]).
#[inline(always)]
pub const fn latch_jumps(targets: u32) -> (ShortJump, ShortJump) {
    (
        targets as u16 as ShortJump,
        (targets >> 16) as u16 as ShortJump,
    )
}

/// A ref-bank register ordinal with the move flag in bit 15.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefReg(pub u16);

impl RefReg {
    /// The move flag: the op may steal the reference instead of retaining it.
    pub const MOVE: u16 = 0x8000;

    /// Builds from an ordinal and the move flag.
    pub fn new(ordinal: u16, is_move: bool) -> RefReg {
        RefReg(ordinal | if is_move { Self::MOVE } else { 0 })
    }

    /// The register ordinal.
    #[inline(always)]
    pub fn index(self) -> usize {
        (self.0 & !Self::MOVE) as usize
    }

    /// True when the operand is the value's last use.
    #[inline(always)]
    pub fn is_move(self) -> bool {
        self.0 & Self::MOVE != 0
    }
}

/// Element kinds for buffer loads, stores and fills.
#[derive(Clone, Copy, Debug)]
pub enum BufElem {
    /// i8, zero-extended on load
    I8U,
    /// i8, sign-extended on load
    I8S,
    /// i16, zero-extended on load
    I16U,
    /// i16, sign-extended on load
    I16S,
    /// i32
    I32,
    /// i64
    I64,
    /// f32
    F32,
    /// f64
    F64,
}

/// Value kinds of list elements accessed by `list.get/set.*`.
#[derive(Clone, Copy, Debug)]
pub enum ListElem {
    /// `list.get/set.i32`
    I32,
    /// `list.get/set.i64`
    I64,
    /// `list.get/set.f32`
    F32,
    /// `list.get/set.f64`
    F64,
}

macro_rules! define_op {
    (($( $(#[$special_meta:meta])* $special:ident { $($special_fields:tt)* } ),* $(,)?)
     $( $set:ident $code:literal $mnemonic:literal $name:ident
           ( $($arg:ident : $arg_ty:ident),* ) -> $result_ty:ident = $kind:ident $sem:expr ; )*) => {
        /// One decoded instruction. Register fields are frame-relative ordinals that
        /// the verifier checked against the frame's register counts; `u32` fields
        /// index the function's side tables or op array and were checked too.
        ///
        /// Field names follow one convention: `a`, `b`, `c` are operands, `r` the
        /// result, `v` a stored value, and `ty` a type-table ordinal.
        ///
        /// `repr(u8)` makes the first byte the variant's tag, numbered from 0
        /// in declaration order ([`Op::tag`], [`Op::TAG_COUNT`]): the
        /// interpreter finds each op's handler by it ([`OpTag`]).
        #[derive(Clone, Copy, Debug)]
        #[repr(u8)]
        #[allow(missing_docs, reason = "operand fields follow the convention above")]
        pub enum Op {
            $(
                #[doc = concat!("`vm.", $mnemonic, "`")]
                $name { $($arg: Reg,)* r: Reg },
            )*
            $( $(#[$special_meta])* $special { $($special_fields)* }, )*
        }

        impl Op {
            /// How many variants `Op` has: every tag is below this.
            pub const TAG_COUNT: usize = {
                let count = [$(stringify!($name),)* $(stringify!($special),)*].len();
                assert!(count <= 256, "Op tags are one byte");
                count
            };
        }

        /// The tag of each [`Op`] variant, by name (`OpTag::AddI32 as
        /// usize` is `Op::AddI32 { .. }.tag()`): the same variants in the
        /// same order, without fields, so constant tables can be indexed
        /// by variant.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        #[allow(missing_docs, reason = "one per Op variant, named alike")]
        pub enum OpTag {
            $( $name, )*
            $( $special, )*
        }
    };
}

impl Op {
    /// The variant's tag: its declaration index, below [`Op::TAG_COUNT`].
    #[inline(always)]
    pub fn tag(&self) -> u8 {
        // SAFETY: `Op` is `repr(u8)`, whose layout starts every variant
        // with its `u8` discriminant; implicit discriminants count from 0.
        unsafe { *std::ptr::from_ref(self).cast::<u8>() }
    }
}

/// Adds the superinstructions of [`for_each_fused_op!`](crate::isa) to the
/// `Op` variants, then defines `Op` with [`define_op!`].
macro_rules! define_op_with_fused {
    (($($special:tt)*)
     compare_branches { $( $cmp:ident => $fused:ident, $moved:ident ($w:ident) $(latch $add:ident => $latch:ident)? ; )* }
     add_chains { $( $add2:ident => $chain:ident ($w2:ident) ; )* }
     indexed_loads { $add3:ident => $load3:ident ($w3:ident) ; chain $chain4:ident ($add4:ident) => $load4:ident ($w4:ident) ; }) => {
        crate::isa::for_each_alu_op!(define_op! {
            $(
                #[doc = concat!("[`Op::", stringify!($cmp), "`] and the `cond_br` testing its result ",
                                "(the result is still written).")]
                $fused { a: Reg, b: Reg, r: Reg, t: Jump, f: Jump },
                #[doc = concat!("[`Op::", stringify!($cmp), "`] and the [`Op::CondBrMove`] testing its ",
                                "result: when taken, copies `src` to `dst` and jumps by `t`, ",
                                "else by `f`.")]
                $moved { a: Reg, b: Reg, r: Reg, src: Reg, dst: Reg, t: ShortJump, f: ShortJump },
            )*
            $($(
                #[doc = concat!("Loop latch: `r = ", stringify!($add), "(a, b)`, `c = ", stringify!($cmp),
                                "(r, n)`, branch on `c` (both results written). `targets` holds the ",
                                "taken and exit jumps ([`latch_targets`]).")]
                $latch { a: Reg, b: Reg, r: Reg, n: Reg, c: Reg, targets: u32 },
            )?)*
            $(
                #[doc = concat!("`r = ", stringify!($add2), "(a, b)` then `r = ", stringify!($add2),
                                "(r, c)` (`c` read after the first write): a three-term address sum.")]
                $chain { a: Reg, b: Reg, c: Reg, r: Reg },
            )*
            #[doc = concat!("[`Op::", stringify!($add3), "`] then a word `buffer.load` of `buf` at ",
                            "element `r` into `dst`.")]
            $load3 { a: Reg, b: Reg, r: Reg, buf: RefReg, dst: Reg },
            #[doc = concat!("[`Op::", stringify!($chain4), "`] then a word `buffer.load` of `buf` at ",
                            "element `r` into `dst`.")]
            $load4 { a: Reg, b: Reg, c: Reg, r: Reg, buf: RefReg, dst: Reg },
            $($special)*
        });
    };
}

crate::isa::for_each_fused_op!(define_op_with_fused! {
    // ---- globals (f32/f64 share the bit-moving i32/i64 forms) ----
    /// Loads 4 bytes of global storage.
    GlobalLoadI32 { offset: u32, r: Reg },
    /// Stores 4 bytes of global storage.
    GlobalStoreI32 { offset: u32, v: Reg },
    /// Loads 4 bytes at a dynamic offset.
    GlobalLoadIndI32 { offset: Reg, r: Reg },
    /// Stores 4 bytes at a dynamic offset.
    GlobalStoreIndI32 { offset: Reg, v: Reg },
    /// Loads 8 bytes of global storage.
    GlobalLoadI64 { offset: u32, r: Reg },
    /// Stores 8 bytes of global storage.
    GlobalStoreI64 { offset: u32, v: Reg },
    /// Loads 8 bytes at a dynamic offset.
    GlobalLoadIndI64 { offset: Reg, r: Reg },
    /// `global.load.indirect.f64`: loads 8 bytes but, like upstream, bounds
    /// checks only `offset + 4` (the 3.13 compiler emits this opcode for
    /// `global.load.indirect.f32`); storage is padded so the read stays inside.
    GlobalLoadIndF64 { offset: Reg, r: Reg },
    /// Stores 8 bytes at a dynamic offset.
    GlobalStoreIndI64 { offset: Reg, v: Reg },
    /// Loads a ref global (`ty` indexes the module type table).
    GlobalLoadRef { global: u32, ty: u32, r: RefReg },
    /// Stores a ref global.
    GlobalStoreRef { global: u32, ty: u32, v: RefReg },
    /// Loads a ref global by dynamic ordinal.
    GlobalLoadIndRef { global: Reg, ty: u32, r: RefReg },
    /// Stores a ref global by dynamic ordinal.
    GlobalStoreIndRef { global: Reg, ty: u32, v: RefReg },

    // ---- constants ----
    /// A 32-bit constant (i32 or f32 bits).
    ConstI32 { value: u32, r: Reg },
    /// A 64-bit constant split in halves (i64 or f64 bits).
    ConstI64 { lo: u32, hi: u32, r: Reg },
    /// The null ref.
    ConstRefZero { r: RefReg },
    /// A read-only buffer over a rodata segment.
    ConstRefRodata { rodata: u32, r: RefReg },

    // ---- lists ----
    /// `list.alloc`
    ListAlloc { ty: u32, capacity: Reg, r: RefReg },
    /// `list.reserve`
    ListReserve { list: RefReg, capacity: Reg },
    /// `list.size`
    ListSize { list: RefReg, r: Reg },
    /// `list.resize`
    ListResize { list: RefReg, size: Reg },
    /// `list.get.{i32,i64,f32,f64}`
    ListGet {
        elem: ListElem,
        list: RefReg,
        index: Reg,
        r: Reg,
    },
    /// `list.set.{i32,i64,f32,f64}`
    ListSet {
        elem: ListElem,
        list: RefReg,
        index: Reg,
        v: Reg,
    },
    /// `list.get.ref`
    ListGetRef {
        list: RefReg,
        index: Reg,
        ty: u32,
        r: RefReg,
    },
    /// `list.set.ref`
    ListSetRef { list: RefReg, index: Reg, v: RefReg },
    /// `select.i32` / `select.f32`
    SelectI32 { cond: Reg, t: Reg, f: Reg, r: Reg },
    /// `select.i64` / `select.f64`
    SelectI64 { cond: Reg, t: Reg, f: Reg, r: Reg },
    /// `select.ref`: the chosen ref must fit type `ty`.
    SelectRef {
        cond: Reg,
        t: RefReg,
        f: RefReg,
        r: RefReg,
        ty: u32,
    },
    /// `switch.i32` / `switch.f32`; `list` indexes the register-list table.
    SwitchI32 {
        index: Reg,
        default: Reg,
        list: u32,
        r: Reg,
    },
    /// `switch.i64`: like upstream, a selected case reads only the low 32
    /// bits of its register and sign-extends them (the default is read whole).
    SwitchI64 {
        index: Reg,
        default: Reg,
        list: u32,
        r: Reg,
    },
    /// `switch.f64`: cases and default are read whole.
    SwitchF64 {
        index: Reg,
        default: Reg,
        list: u32,
        r: Reg,
    },
    /// `switch.ref`: the chosen ref must fit type `ty`.
    SwitchRef {
        index: Reg,
        default: RefReg,
        r: RefReg,
        ty: u32,
        list: u32,
    },

    // ---- refs ----
    /// `cmp.eq.ref`
    CmpEqRef { a: RefReg, b: RefReg, r: Reg },
    /// `cmp.ne.ref`
    CmpNeRef { a: RefReg, b: RefReg, r: Reg },
    /// `cmp.nz.ref`
    CmpNzRef { a: RefReg, r: Reg },
    /// `cast.any.ref`
    CastAnyRef { a: RefReg, ty: u32, r: RefReg },
    /// `assign.ref`
    AssignRef { a: RefReg, r: RefReg },
    /// `discard.refs` over a register list.
    DiscardRefs { list: u32 },

    // ---- buffers ----
    /// `buffer.load.{i32,f32}`: a tag of its own, so dispatch reaches the
    /// word access without a second jump on `elem`.
    BufferLoadWord {
        elem: BufElem,
        buf: RefReg,
        offset: Reg,
        r: Reg,
    },
    /// `buffer.store.{i32,f32}`
    BufferStoreWord {
        elem: BufElem,
        buf: RefReg,
        offset: Reg,
        v: Reg,
    },
    /// `buffer.load.{i64,f64}`
    BufferLoadDword {
        elem: BufElem,
        buf: RefReg,
        offset: Reg,
        r: Reg,
    },
    /// `buffer.store.{i64,f64}`
    BufferStoreDword {
        elem: BufElem,
        buf: RefReg,
        offset: Reg,
        v: Reg,
    },
    /// `buffer.load.{i8,i16}.{u,s}`
    BufferLoad {
        elem: BufElem,
        buf: RefReg,
        offset: Reg,
        r: Reg,
    },
    /// `buffer.store.{i8,i16}`
    BufferStore {
        elem: BufElem,
        buf: RefReg,
        offset: Reg,
        v: Reg,
    },
    /// `buffer.fill.*`
    BufferFill {
        elem: BufElem,
        buf: RefReg,
        offset: Reg,
        length: Reg,
        v: Reg,
    },
    /// `buffer.alloc`
    BufferAlloc {
        length: Reg,
        alignment: Reg,
        r: RefReg,
    },
    /// `buffer.clone`; operands in the aux table entry.
    BufferClone { aux: u32 },
    /// `buffer.length`
    BufferLength { buf: RefReg, r: Reg },
    /// `buffer.copy`; operands in the aux table entry.
    BufferCopy { aux: u32 },
    /// `buffer.compare`; operands in the aux table entry.
    BufferCompare { aux: u32 },
    /// `buffer.hash`; operands in the aux table entry.
    BufferHash { aux: u32 },

    // ---- control flow ----
    /// Unconditional branch through a remap-table entry.
    BrRemap { branch: u32 },
    /// Unconditional branch whose edge copies one or two i32 words: `src0`
    /// to `dst0`, then `src1` to `dst1` (one copy is given twice), then
    /// jumps by `target`. The edge is in the op, not in a side table.
    BrMove {
        src0: Reg,
        dst0: Reg,
        src1: Reg,
        dst1: Reg,
        target: Jump,
    },
    /// Conditional branch with no remapping on either edge.
    CondBr { cond: Reg, t: Jump, f: Jump },
    /// Conditional branch whose edges remap registers.
    CondBrRemap { cond: Reg, t: u32, f: u32 },
    /// Conditional branch whose taken edge copies one i32 word, `src` to
    /// `dst` (after the condition is read), and whose other edge copies
    /// nothing: a loop latch passing one value around, with its edge and
    /// targets in the op instead of the branch table.
    CondBrMove {
        cond: Reg,
        src: Reg,
        dst: Reg,
        t: Jump,
        f: Jump,
    },
    /// `br_table`; `table` indexes the branch-table side table.
    BrTable { index: Reg, table: u32 },
    /// `call` / `call.yieldable` / `call.variadic(.yieldable)`.
    Call { call: u32 },
    /// `return`; `list` indexes the register-list table.
    Return { list: u32 },
    /// `fail` with a message from the string table.
    Fail { status: Reg, message: u32 },
    /// `import.resolved`
    ImportResolved { import: u32, r: Reg },
    /// `yield`: branch, then return DEFERRED.
    Yield { branch: u32 },
    /// `trace` / `print`: discard moved refs.
    Trace { list: u32 },
    /// `cond_break`: a branch, as breakpoints are ignored.
    CondBreak { cond: Reg, branch: u32 },
    /// Unconditional branch with no register remapping.
    Br { target: Jump },
});

// The interpreter's ops stay 16 bytes: four to a cache line.
const _: () = assert!(std::mem::size_of::<Op>() == 16);

#[cfg(test)]
mod tests {
    use super::{Op, OpTag};

    #[test]
    fn tags_count_variants_in_declaration_order() {
        // The first ALU row and the last hand-written variant bound the range.
        assert_eq!(Op::AddI32 { a: 0, b: 0, r: 0 }.tag(), 0);
        assert_eq!(usize::from(Op::Br { target: 0 }.tag()), Op::TAG_COUNT - 1);
        assert_eq!(OpTag::AddI32 as u8, 0);
        assert_eq!(OpTag::Br as usize, Op::TAG_COUNT - 1);
        let select = Op::SelectI64 {
            cond: 0,
            t: 0,
            f: 0,
            r: 0,
        };
        assert_eq!(select.tag(), OpTag::SelectI64 as u8);
    }
}
