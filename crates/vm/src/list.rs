//! `vm.list`: a growable, reference-counted list of primitive values, refs or
//! variants.
//!
//! A list has one of three storage modes, fixed at creation:
//!
//! * **value** (`!vm.list<i32>` etc.): a dense array of one primitive type;
//!   reads and writes through an accessor of another type convert (see
//!   [`convert_value`]);
//! * **ref** (`!vm.list<!vm.buffer>`, or any ref type): each element is a
//!   possibly-null ref, type-checked on store;
//! * **variant** (`!vm.list<?>`): each element is independently a primitive
//!   value, a ref, or empty.
//!
//! The opcode methods ([`List::new`], [`List::reserve`], [`List::resize`],
//! [`List::get_i32`], [`List::set_ref`], ...) take the raw i32 register values
//! and reinterpret them as unsigned 32-bit sizes and indices, exactly like the
//! reference interpreter: index -1 is reported as `index 4294967295 out of
//! bounds (N)`, and `resize(-1)` asks for 4294967295 elements.
//!
//! A list is safe to share between threads. Primitive-value lists keep their
//! elements in atomics (`atomic_vec`, a private module) so element access takes no
//! lock; ref and variant lists sit behind a mutex, and refs displaced by a
//! store or a shrink are released after the lock is dropped, so their
//! destructors may freely touch other lists.

use std::fmt;

use iree_base::{Result, Status, StatusCode};
use parking_lot::Mutex;

use crate::atomic_vec::AtomicVec;
use crate::refs::{Ref, RefObject, StaticRefObject};
use crate::types::{RefType, RefTypeDescriptor, TypeDef, ValueType};
use crate::value::Value;

/// The registered descriptor of `vm.list`.
pub static LIST_TYPE_DESCRIPTOR: RefTypeDescriptor = RefTypeDescriptor { name: "vm.list" };

/// The `vm.list` reference type.
pub fn list_type() -> RefType {
    RefType::new(&LIST_TYPE_DESCRIPTOR)
}

/// Borrows the [`List`] held in a ref register, failing with
/// `INVALID_ARGUMENT "list is null"` when the register is null or holds a ref
/// of another type (every `vm.list.*` opcode reports both that way).
pub fn list_operand(value: &Option<Ref>) -> Result<&List> {
    value
        .as_ref()
        .and_then(|r| r.downcast::<List>())
        .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "list is null"))
}

/// What a list holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListElementType {
    /// Primitive values of one type, stored densely.
    Value(ValueType),
    /// Refs of one registered type (or null).
    Ref(RefType),
    /// Refs of any type (or null); only host code creates these.
    AnyRef,
    /// Each element independently a value, a ref or empty (`!vm.list<?>`).
    Variant,
}

impl ListElementType {
    /// The storage a `vm.list.alloc` with this `type_of` operand creates.
    ///
    /// The compiler encodes the *element* type: `!vm.list<i32>` → `i32`,
    /// `!vm.list<!vm.buffer>` → `!vm.buffer`, `!vm.list<!vm.list<i32>>` →
    /// `!vm.list<i32>` (resolved to the `vm.list` ref type), and
    /// `!vm.list<?>` → `!vm.opaque`. The loader resolves `!vm.opaque` to the
    /// undefined type, which selects variant storage, so
    /// [`TypeDef::AnyRef`] maps to [`ListElementType::Variant`].
    pub fn from_type_def(type_def: TypeDef) -> ListElementType {
        match type_def {
            TypeDef::Value(v) => ListElementType::Value(v),
            TypeDef::Ref(r) => ListElementType::Ref(r),
            TypeDef::AnyRef => ListElementType::Variant,
        }
    }
}

impl fmt::Display for ListElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListElementType::Value(v) => f.write_str(v.name()),
            ListElementType::Ref(r) => write!(f, "!{}", r.name()),
            ListElementType::AnyRef => f.write_str("!vm.ref<?>"),
            ListElementType::Variant => f.write_str("?"),
        }
    }
}

/// Converts a primitive value to `target` with the list accessor rules of the
/// reference runtime (`iree_vm_list_convert_value_type`):
///
/// * same type: unchanged;
/// * integer to integer: sign-extended or truncated (two's complement);
/// * f32 ↔ f64: numeric conversion;
/// * integer ↔ float: **zero** of the target type (no numeric conversion).
///
/// `value` must be primitive; a ref converts to zero.
pub fn convert_value(value: &Value, target: ValueType) -> Value {
    let int = match *value {
        Value::I8(v) => Some(v as i64),
        Value::I16(v) => Some(v as i64),
        Value::I32(v) => Some(v as i64),
        Value::I64(v) => Some(v),
        _ => None,
    };
    match (int, value, target) {
        (Some(i), _, ValueType::I8) => Value::I8(i as i8),
        (Some(i), _, ValueType::I16) => Value::I16(i as i16),
        (Some(i), _, ValueType::I32) => Value::I32(i as i32),
        (Some(i), _, ValueType::I64) => Value::I64(i),
        (None, Value::F32(f), ValueType::F32) => Value::F32(*f),
        (None, Value::F32(f), ValueType::F64) => Value::F64(*f as f64),
        (None, Value::F64(f), ValueType::F64) => Value::F64(*f),
        (None, Value::F64(f), ValueType::F32) => Value::F32(*f as f32),
        _ => Value::zero(target),
    }
}

/// Reinterprets an i32 register as the unsigned size the reference runtime uses.
fn unsigned(value: i32) -> usize {
    value as u32 as usize
}

#[cold]
#[track_caller]
fn allocation_failed() -> Status {
    Status::new(
        StatusCode::ResourceExhausted,
        "libc allocator failed the request",
    )
}

#[cold]
#[track_caller]
fn index_out_of_bounds(index: usize, count: usize) -> Status {
    Status::new(
        StatusCode::OutOfRange,
        format!("index {index} out of bounds ({count})"),
    )
}

#[cold]
#[track_caller]
fn precondition(message: &str) -> Status {
    Status::new(StatusCode::FailedPrecondition, message)
}

/// Dense primitive storage, one lock-free vector per element type (floats
/// and signed integers kept as their bit patterns).
enum Values {
    I8(AtomicVec<u8>),
    I16(AtomicVec<u16>),
    I32(AtomicVec<u32>),
    I64(AtomicVec<u64>),
    F32(AtomicVec<u32>),
    F64(AtomicVec<u64>),
}

macro_rules! each_values {
    ($values:expr, $v:ident => $body:expr) => {
        match $values {
            Values::I8($v) => $body,
            Values::I16($v) => $body,
            Values::I32($v) => $body,
            Values::I64($v) => $body,
            Values::F32($v) => $body,
            Values::F64($v) => $body,
        }
    };
}

impl Values {
    fn with_capacity(ty: ValueType, capacity: usize) -> Result<Values> {
        Ok(match ty {
            ValueType::I8 => Values::I8(AtomicVec::with_capacity(capacity)?),
            ValueType::I16 => Values::I16(AtomicVec::with_capacity(capacity)?),
            ValueType::I32 => Values::I32(AtomicVec::with_capacity(capacity)?),
            ValueType::I64 => Values::I64(AtomicVec::with_capacity(capacity)?),
            ValueType::F32 => Values::F32(AtomicVec::with_capacity(capacity)?),
            ValueType::F64 => Values::F64(AtomicVec::with_capacity(capacity)?),
        })
    }

    fn value_type(&self) -> ValueType {
        match self {
            Values::I8(_) => ValueType::I8,
            Values::I16(_) => ValueType::I16,
            Values::I32(_) => ValueType::I32,
            Values::I64(_) => ValueType::I64,
            Values::F32(_) => ValueType::F32,
            Values::F64(_) => ValueType::F64,
        }
    }

    fn len(&self) -> usize {
        each_values!(self, v => v.len())
    }

    fn capacity(&self) -> usize {
        each_values!(self, v => v.capacity())
    }

    fn reserve(&self, min_capacity: usize) -> Result<()> {
        each_values!(self, v => v.reserve(min_capacity))
    }

    fn resize(&self, new_len: usize) -> Result<()> {
        each_values!(self, v => v.resize(new_len))
    }

    /// Element `index` as a value of the element type.
    fn get(&self, index: usize) -> Option<Value> {
        Some(match self {
            Values::I8(v) => Value::I8(v.get(index)? as i8),
            Values::I16(v) => Value::I16(v.get(index)? as i16),
            Values::I32(v) => Value::I32(v.get(index)? as i32),
            Values::I64(v) => Value::I64(v.get(index)? as i64),
            Values::F32(v) => Value::F32(f32::from_bits(v.get(index)?)),
            Values::F64(v) => Value::F64(f64::from_bits(v.get(index)?)),
        })
    }

    /// Stores `value` (any primitive) converted to the element type
    /// (`iree_vm_list_set_value`); `false` when `index` is out of range.
    fn set(&self, index: usize, value: &Value) -> bool {
        let c = convert_value(value, self.value_type());
        match self {
            Values::I8(v) => v.set(index, as_i64(&c) as u8),
            Values::I16(v) => v.set(index, as_i64(&c) as u16),
            Values::I32(v) => v.set(index, as_i64(&c) as u32),
            Values::I64(v) => v.set(index, as_i64(&c) as u64),
            Values::F32(v) => v.set(index, as_f32(&c).to_bits()),
            Values::F64(v) => v.set(index, as_f64(&c).to_bits()),
        }
    }

    fn check_index(&self, index: usize) -> Result<()> {
        let len = self.len();
        if index >= len {
            return Err(index_out_of_bounds(index, len));
        }
        Ok(())
    }

    /// A consistent snapshot of every element.
    fn to_values(&self) -> Vec<Value> {
        match self {
            Values::I8(v) => v.to_vec().into_iter().map(|b| Value::I8(b as i8)).collect(),
            Values::I16(v) => v
                .to_vec()
                .into_iter()
                .map(|b| Value::I16(b as i16))
                .collect(),
            Values::I32(v) => v
                .to_vec()
                .into_iter()
                .map(|b| Value::I32(b as i32))
                .collect(),
            Values::I64(v) => v
                .to_vec()
                .into_iter()
                .map(|b| Value::I64(b as i64))
                .collect(),
            Values::F32(v) => v
                .to_vec()
                .into_iter()
                .map(|b| Value::F32(f32::from_bits(b)))
                .collect(),
            Values::F64(v) => v
                .to_vec()
                .into_iter()
                .map(|b| Value::F64(f64::from_bits(b)))
                .collect(),
        }
    }
}

/// Storage of ref and variant lists, behind the list's mutex.
enum Storage {
    /// Typed or any-typed refs.
    Refs(Vec<Option<Ref>>),
    /// Variants; an empty slot is `Value::Ref(None)`.
    Variants(Vec<Value>),
}

/// What a store or shrink displaced; dropped after the lock is released.
type Displaced = Vec<Option<Ref>>;

impl Storage {
    fn len(&self) -> usize {
        match self {
            Storage::Refs(v) => v.len(),
            Storage::Variants(v) => v.len(),
        }
    }

    fn capacity(&self) -> usize {
        match self {
            Storage::Refs(v) => v.capacity(),
            Storage::Variants(v) => v.capacity(),
        }
    }

    fn reserve(&mut self, min_capacity: usize) -> Result<()> {
        fn grow<T>(v: &mut Vec<T>, min_capacity: usize) -> Result<()> {
            if v.capacity() >= min_capacity {
                return Ok(());
            }
            v.try_reserve(min_capacity - v.len())
                .map_err(|_| allocation_failed())
        }
        match self {
            Storage::Refs(v) => grow(v, min_capacity),
            Storage::Variants(v) => grow(v, min_capacity),
        }
    }

    /// Resizes to `new_len`, filling new slots with null/empty; returns the
    /// refs cut off by a shrink.
    fn resize(&mut self, new_len: usize) -> Result<Displaced> {
        let len = self.len();
        if new_len > len {
            self.reserve(new_len)?;
        }
        let mut displaced = Vec::new();
        match self {
            // Shrinks drain in place: the list keeps its capacity (a list
            // cleared and refilled per call allocates nothing), and only
            // refs are collected (nothing to collect: no allocation).
            Storage::Refs(v) => {
                if new_len < len {
                    displaced = v.drain(new_len..).filter(Option::is_some).collect();
                } else {
                    v.resize(new_len, None);
                }
            }
            Storage::Variants(v) => {
                if new_len < len {
                    displaced = v
                        .drain(new_len..)
                        .filter_map(|e| match e {
                            Value::Ref(r) => Some(r),
                            _ => None,
                        })
                        .collect();
                } else {
                    v.resize(new_len, Value::NULL);
                }
            }
        }
        Ok(displaced)
    }

    /// Element `index` (in bounds) as a generic value.
    fn value_at(&self, index: usize) -> Value {
        match self {
            Storage::Refs(v) => Value::Ref(v[index].clone()),
            Storage::Variants(v) => v[index].clone(),
        }
    }

    #[track_caller]
    fn check_index(&self, index: usize) -> Result<()> {
        let len = self.len();
        if index >= len {
            return Err(index_out_of_bounds(index, len));
        }
        Ok(())
    }
}

/// Stores `value` at `index` of a locked ref or variant list, returning what
/// it displaced (to be dropped once the lock is released).
///
/// Refs follow `iree_vm_list_set_ref`, variants `iree_vm_list_set_variant`.
fn store(
    element_type: ListElementType,
    storage: &mut Storage,
    index: usize,
    value: Value,
) -> Result<Value> {
    storage.check_index(index)?;
    match (storage, value) {
        (Storage::Refs(v), Value::Ref(r)) => {
            if let (ListElementType::Ref(expected), Some(r)) = (element_type, &r) {
                if r.ref_type() != expected {
                    return Err(crate::refs::source_type_mismatch());
                }
            }
            Ok(Value::Ref(std::mem::replace(&mut v[index], r)))
        }
        (Storage::Refs(_), _) => Err(precondition("list cannot store values")),
        (Storage::Variants(v), value) => Ok(std::mem::replace(&mut v[index], value)),
    }
}

/// How a list keeps its elements.
enum Elements {
    /// Primitive values: lock-free element access.
    Values(Values),
    /// Refs or variants, behind a mutex.
    Locked(Mutex<Storage>),
}

/// A `vm.list`: a growable list shared by reference, safe to use from
/// several threads.
pub struct List {
    element_type: ListElementType,
    elements: Elements,
}

impl RefObject for List {
    fn ref_type(&self) -> RefType {
        list_type()
    }
}

impl StaticRefObject for List {
    fn static_ref_type() -> RefType {
        list_type()
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "List<{}>[{}]", self.element_type, self.len())
    }
}

impl List {
    /// `vm.list.alloc`: an empty list of `element` with room for
    /// `initial_capacity` elements (the i32 is reinterpreted as unsigned; an
    /// allocation the host cannot make fails with `RESOURCE_EXHAUSTED`).
    pub fn new(element: ListElementType, initial_capacity: i32) -> Result<List> {
        List::with_capacity(element, unsigned(initial_capacity))
    }

    /// An empty list of `element` with room for `capacity` elements.
    pub fn with_capacity(element: ListElementType, capacity: usize) -> Result<List> {
        let elements = match element {
            ListElementType::Value(ty) => Elements::Values(Values::with_capacity(ty, capacity)?),
            ListElementType::Ref(_) | ListElementType::AnyRef => {
                let mut storage = Storage::Refs(Vec::new());
                storage.reserve(capacity)?;
                Elements::Locked(Mutex::new(storage))
            }
            ListElementType::Variant => {
                let mut storage = Storage::Variants(Vec::new());
                storage.reserve(capacity)?;
                Elements::Locked(Mutex::new(storage))
            }
        };
        Ok(List {
            element_type: element,
            elements,
        })
    }

    /// The element type fixed at creation.
    pub fn element_type(&self) -> ListElementType {
        self.element_type
    }

    /// `vm.list.reserve`: ensures room for `min_capacity` elements (the i32 is
    /// reinterpreted as unsigned). Never changes the size.
    pub fn reserve(&self, min_capacity: i32) -> Result<()> {
        match &self.elements {
            Elements::Values(values) => values.reserve(unsigned(min_capacity)),
            Elements::Locked(storage) => storage.lock().reserve(unsigned(min_capacity)),
        }
    }

    /// The number of elements the list can hold without reallocating.
    pub fn capacity(&self) -> usize {
        match &self.elements {
            Elements::Values(values) => values.capacity(),
            Elements::Locked(storage) => storage.lock().capacity(),
        }
    }

    /// `vm.list.size`: the element count as the i32 register value (a count
    /// above `i32::MAX` wraps, as in the reference runtime).
    pub fn size(&self) -> i32 {
        self.len() as i32
    }

    /// The element count.
    pub fn len(&self) -> usize {
        match &self.elements {
            Elements::Values(values) => values.len(),
            Elements::Locked(storage) => storage.lock().len(),
        }
    }

    /// True when the list has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `vm.list.resize`: grows with zero values / null refs / empty variants,
    /// or shrinks releasing the removed elements (the i32 is reinterpreted as
    /// unsigned).
    pub fn resize(&self, new_size: i32) -> Result<()> {
        self.resize_len(unsigned(new_size))
    }

    /// Resizes to `new_len` elements (see [`List::resize`]).
    pub fn resize_len(&self, new_len: usize) -> Result<()> {
        match &self.elements {
            Elements::Values(values) => values.resize(new_len),
            Elements::Locked(storage) => {
                let displaced = storage.lock().resize(new_len)?;
                drop(displaced);
                Ok(())
            }
        }
    }

    /// Removes every element, releasing refs.
    pub fn clear(&self) {
        let _ = self.resize_len(0);
    }

    /// Reads element `index` converted to `ty` (`iree_vm_list_get_value_as`).
    ///
    /// Errors: `OUT_OF_RANGE "index I out of bounds (N)"`; on a ref list
    /// `FAILED_PRECONDITION "list does not store values"`; on a variant slot
    /// holding a ref or nothing `FAILED_PRECONDITION "variant at index I is not
    /// a value type"`.
    pub fn get_value_as(&self, index: usize, ty: ValueType) -> Result<Value> {
        let value = match &self.elements {
            Elements::Values(values) => {
                values.check_index(index)?;
                values
                    .get(index)
                    .ok_or_else(|| index_out_of_bounds(index, values.len()))?
            }
            Elements::Locked(storage) => {
                let storage = storage.lock();
                storage.check_index(index)?;
                match &*storage {
                    Storage::Variants(v) => match &v[index] {
                        Value::Ref(_) => {
                            return Err(precondition(&format!(
                                "variant at index {index} is not a value type"
                            )))
                        }
                        other => other.clone(),
                    },
                    Storage::Refs(_) => return Err(precondition("list does not store values")),
                }
            }
        };
        Ok(convert_value(&value, ty))
    }

    /// Writes a primitive `value` at `index` (`iree_vm_list_set_value`): value
    /// lists convert it to their element type (see [`convert_value`]); variant
    /// slots take it as is, releasing any ref they held.
    ///
    /// Errors: `OUT_OF_RANGE` for the index; on a ref list `FAILED_PRECONDITION
    /// "list cannot store values"`. Passing a ref is routed to
    /// [`List::set_ref_at`].
    pub fn set_value_at(&self, index: usize, value: Value) -> Result<()> {
        match &self.elements {
            Elements::Values(values) => {
                values.check_index(index)?;
                if value.is_ref() {
                    return Err(precondition("list cannot store refs"));
                }
                if values.set(index, &value) {
                    Ok(())
                } else {
                    Err(index_out_of_bounds(index, values.len()))
                }
            }
            Elements::Locked(storage) => {
                let mut storage = storage.lock();
                let displaced = store(self.element_type, &mut storage, index, value)?;
                drop(storage);
                drop(displaced);
                Ok(())
            }
        }
    }

    /// Reads the ref at `index` without a type check (`iree_vm_list_get_ref_retain`).
    ///
    /// Errors: `OUT_OF_RANGE` for the index; on a value list
    /// `FAILED_PRECONDITION "list does not store refs"`; on a variant slot
    /// holding a primitive value `FAILED_PRECONDITION` with an empty message.
    /// An empty variant slot reads as null.
    pub fn get_ref_at(&self, index: usize) -> Result<Option<Ref>> {
        match &self.elements {
            Elements::Values(values) => {
                values.check_index(index)?;
                Err(precondition("list does not store refs"))
            }
            Elements::Locked(storage) => {
                let storage = storage.lock();
                storage.check_index(index)?;
                match &*storage {
                    Storage::Refs(v) => Ok(v[index].clone()),
                    Storage::Variants(v) => match &v[index] {
                        Value::Ref(r) => Ok(r.clone()),
                        _ => Err(precondition("")),
                    },
                }
            }
        }
    }

    /// Stores `value` (possibly null) at `index` (`iree_vm_list_set_ref_retain`).
    ///
    /// Typed ref lists accept null or a ref of exactly their type, otherwise
    /// `INVALID_ARGUMENT "source ref type mismatch"` (the list is unchanged);
    /// any-ref lists and variant slots accept any ref. Value lists fail with
    /// `FAILED_PRECONDITION "list cannot store refs"`; a bad index with
    /// `OUT_OF_RANGE`.
    pub fn set_ref_at(&self, index: usize, value: Option<Ref>) -> Result<()> {
        self.set_value_at(index, Value::Ref(value))
    }

    /// Reads element `index` of an i32 list without locking; `None` when the
    /// list has another element type or the index is out of range (callers
    /// then take the general path, which reports the error).
    #[inline]
    pub fn try_get_i32(&self, index: i32) -> Option<i32> {
        match &self.elements {
            Elements::Values(Values::I32(v)) => v.get(unsigned(index)).map(|x| x as i32),
            _ => None,
        }
    }

    /// Writes element `index` of an i32 list without locking; `false` when
    /// the list has another element type or the index is out of range.
    #[inline]
    pub fn try_set_i32(&self, index: i32, value: i32) -> bool {
        match &self.elements {
            Elements::Values(Values::I32(v)) => v.set(unsigned(index), value as u32),
            _ => false,
        }
    }

    /// `vm.list.get.ref`: the ref at `index`, or null when it does not match
    /// the op's `type_of` operand `expected`.
    ///
    /// Mismatches are not errors: a stored ref whose type differs from
    /// `expected` yields null; so does any non-null ref when `expected` is a
    /// value type or [`TypeDef::AnyRef`] (`!vm.opaque`, which the reference
    /// loader resolves to the undefined type). Errors are those of
    /// [`List::get_ref_at`].
    pub fn get_ref(&self, index: i32, expected: TypeDef) -> Result<Option<Ref>> {
        let value = self.get_ref_at(unsigned(index))?;
        Ok(value.filter(|r| matches!(expected, TypeDef::Ref(t) if t == r.ref_type())))
    }

    /// `vm.list.set.ref` (see [`List::set_ref_at`]).
    pub fn set_ref(&self, index: i32, value: Option<Ref>) -> Result<()> {
        self.set_ref_at(unsigned(index), value)
    }

    /// Reads element `index` whatever the storage (`iree_vm_list_get_variant`):
    /// a value of the element type, a ref (possibly null), or for an empty
    /// variant slot `Value::Ref(None)`. Only the index can fail.
    pub fn get_value(&self, index: usize) -> Result<Value> {
        match &self.elements {
            Elements::Values(values) => {
                values.check_index(index)?;
                values
                    .get(index)
                    .ok_or_else(|| index_out_of_bounds(index, values.len()))
            }
            Elements::Locked(storage) => {
                let storage = storage.lock();
                storage.check_index(index)?;
                Ok(storage.value_at(index))
            }
        }
    }

    /// Writes element `index` (`iree_vm_list_set_variant`): primitives as
    /// [`List::set_value_at`], refs (null included) as [`List::set_ref_at`].
    pub fn set_value(&self, index: usize, value: Value) -> Result<()> {
        self.set_value_at(index, value)
    }

    /// Appends `value` (grow by one, then [`List::set_value`]). When the store
    /// is rejected the list keeps its previous size.
    pub fn push(&self, value: Value) -> Result<()> {
        match &self.elements {
            Elements::Values(values) => {
                if value.is_ref() {
                    return Err(precondition("list cannot store refs"));
                }
                let index = values.len();
                values.resize(index + 1)?;
                values.set(index, &value);
                Ok(())
            }
            Elements::Locked(storage) => {
                let mut storage = storage.lock();
                let index = storage.len();
                storage.resize(index + 1)?;
                match store(self.element_type, &mut storage, index, value) {
                    Ok(displaced) => {
                        drop(storage);
                        drop(displaced);
                        Ok(())
                    }
                    Err(e) => {
                        let displaced = storage.resize(index);
                        drop(storage);
                        drop(displaced);
                        Err(e)
                    }
                }
            }
        }
    }

    /// A snapshot of all elements, as [`List::get_value`] reads them.
    pub fn to_values(&self) -> Vec<Value> {
        match &self.elements {
            Elements::Values(values) => values.to_values(),
            Elements::Locked(storage) => {
                let storage = storage.lock();
                (0..storage.len()).map(|i| storage.value_at(i)).collect()
            }
        }
    }
}

// The accessors below extract a number from a value already converted to the
// wanted type; any other variant reads as zero.
fn as_i32(v: &Value) -> i32 {
    as_i64(v) as i32
}
fn as_i64(v: &Value) -> i64 {
    match *v {
        Value::I8(x) => x as i64,
        Value::I16(x) => x as i64,
        Value::I32(x) => x as i64,
        Value::I64(x) => x,
        _ => 0,
    }
}
fn as_f32(v: &Value) -> f32 {
    match *v {
        Value::F32(x) => x,
        _ => 0.0,
    }
}
fn as_f64(v: &Value) -> f64 {
    match *v {
        Value::F64(x) => x,
        _ => 0.0,
    }
}

/// `vm.list.get.<T>` and `vm.list.set.<T>` for the four register types. A list
/// whose storage is exactly `T` takes a fast path with no conversion; any
/// other list goes through the general conversion rules ([`convert_value`]).
macro_rules! typed_accessors {
    ($($get:ident, $set:ident, $t:ty, $variant:ident, $as:ident, $from:expr, $to:expr;)+) => {
        impl List {
            $(
                #[doc = concat!("`vm.list.get.", stringify!($t), "`.")]
                pub fn $get(&self, index: i32) -> Result<$t> {
                    if let Elements::Values(Values::$variant(v)) = &self.elements {
                        if let Some(bits) = v.get(unsigned(index)) {
                            return Ok($from(bits));
                        }
                    }
                    Ok($as(&self.get_value_as(unsigned(index), ValueType::$variant)?))
                }

                #[doc = concat!("`vm.list.set.", stringify!($t), "`.")]
                pub fn $set(&self, index: i32, value: $t) -> Result<()> {
                    if let Elements::Values(Values::$variant(v)) = &self.elements {
                        if v.set(unsigned(index), $to(value)) {
                            return Ok(());
                        }
                    }
                    self.set_value_at(unsigned(index), Value::$variant(value))
                }
            )+
        }
    };
}

typed_accessors! {
    get_i32, set_i32, i32, I32, as_i32, |b: u32| b as i32, |v: i32| v as u32;
    get_i64, set_i64, i64, I64, as_i64, |b: u64| b as i64, |v: i64| v as u64;
    get_f32, set_f32, f32, F32, as_f32, f32::from_bits, f32::to_bits;
    get_f64, set_f64, f64, F64, as_f64, f64::from_bits, f64::to_bits;
}
