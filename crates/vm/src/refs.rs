//! Reference-counted typed objects (`iree_vm_ref_t`).

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

use crate::types::{RefType, TypeDef};

/// An object that can be held by a VM ref register: buffers, lists, HAL objects.
pub trait RefObject: Any + Send + Sync {
    /// The registered type of this object.
    fn ref_type(&self) -> RefType;
}

/// A [`RefObject`] whose registered type is known without an instance, so
/// typed native functions can take and return it as `Arc<T>` (see
/// [`crate::native`]).
pub trait StaticRefObject: RefObject {
    /// The registered type of every object of this Rust type.
    fn static_ref_type() -> RefType;
}

/// A non-null, reference-counted handle to a [`RefObject`].
///
/// Cloning retains (an atomic increment); dropping releases. VM registers
/// hold `Option<Ref>`, where `None` is the null ref.
#[derive(Clone)]
pub struct Ref {
    object: Arc<dyn RefObject>,
    /// The object's address with its [`Kind`] in the low bits, recorded
    /// when the handle is made from the concrete type, so that downcasts to
    /// the VM's own hot types (every `vm.buffer` and `vm.list` access) need
    /// neither a virtual `type_id` nor the vtable load that finds the
    /// object inside a `dyn` `Arc`. Same size as a separate kind byte.
    tagged: *const u8,
}

// SAFETY: `tagged` only points at the object `object` owns, which is `Send
// + Sync` (`RefObject`); it is read only through `&self` while `object`
// keeps the object alive.
unsafe impl Send for Ref {}
// SAFETY: as above.
unsafe impl Sync for Ref {}

/// The concrete types [`Ref::downcast`] recognizes without `Any`, as the
/// low bits of [`Ref::tagged`] (both types are at least 4-aligned).
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
enum Kind {
    Other = 0,
    Buffer = 1,
    List = 2,
}

/// The bits of [`Ref::tagged`] that hold the [`Kind`].
const KIND_BITS: usize = 3;

impl Kind {
    /// The kind of objects of type `T` (folds to a constant per `T`).
    #[inline(always)]
    fn of<T: RefObject>() -> Kind {
        let id = TypeId::of::<T>();
        if id == TypeId::of::<crate::buffer::Buffer>() {
            Kind::Buffer
        } else if id == TypeId::of::<crate::list::List>() {
            Kind::List
        } else {
            Kind::Other
        }
    }
}

impl Ref {
    /// Wraps a new object.
    pub fn new<T: RefObject>(object: T) -> Ref {
        Ref::from_arc(Arc::new(object))
    }

    /// Wraps an existing shared object.
    pub fn from_arc<T: RefObject>(object: Arc<T>) -> Ref {
        let kind = Kind::of::<T>();
        debug_assert!(kind == Kind::Other || align_of::<T>() > KIND_BITS);
        let tagged = Arc::as_ptr(&object)
            .cast::<u8>()
            .map_addr(|address| address | kind as usize);
        Ref { object, tagged }
    }

    /// The object's registered type.
    pub fn ref_type(&self) -> RefType {
        self.object.ref_type()
    }

    /// Borrows the object as `T` if it is one.
    #[inline(always)]
    pub fn downcast<T: RefObject>(&self) -> Option<&T> {
        let kind = Kind::of::<T>();
        if kind == Kind::Other {
            let any: &dyn Any = &*self.object;
            return any.downcast_ref::<T>();
        }
        if self.tagged.addr() & KIND_BITS != kind as usize {
            return None;
        }
        let object = self.tagged.map_addr(|address| address & !KIND_BITS);
        // SAFETY: the kind bits are recorded from the concrete type the
        // handle was made from (`from_arc`), with the object's address, and
        // equal non-`Other` kinds mean equal `TypeId`s, so `object` points
        // at a `T`; the borrow lives as long as `self`'s strong reference.
        Some(unsafe { &*object.cast::<T>() })
    }

    /// Returns a shared handle to the object as `T` if it is one.
    pub fn downcast_arc<T: RefObject>(&self) -> Option<Arc<T>> {
        let any: Arc<dyn Any + Send + Sync> = self.object.clone();
        any.downcast::<T>().ok()
    }

    /// Converts into a shared handle to the object as `T`, or gives the
    /// handle back when the object is not a `T`.
    pub fn into_arc<T: RefObject>(self) -> std::result::Result<Arc<T>, Ref> {
        let any: Arc<dyn Any + Send + Sync> = self.object.clone();
        match any.downcast::<T>() {
            Ok(object) => Ok(object),
            Err(_) => Err(self),
        }
    }

    /// Borrows the object as `T`, or fails with INVALID_ARGUMENT naming both types.
    pub fn checked<T: RefObject>(&self, expected: RefType) -> Result<&T> {
        self.downcast::<T>()
            .ok_or_else(|| type_mismatch(expected, Some(self)))
    }

    /// True when both handles point at the same object.
    pub fn ptr_eq(a: &Ref, b: &Ref) -> bool {
        std::ptr::addr_eq(Arc::as_ptr(&a.object), Arc::as_ptr(&b.object))
    }

    /// The current strong count (for tests and leak checks).
    pub fn strong_count(this: &Ref) -> usize {
        Arc::strong_count(&this.object)
    }
}

impl fmt::Debug for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}@{:p}", self.ref_type(), Arc::as_ptr(&self.object))
    }
}

/// The error for a ref of the wrong type (or null where one is required).
#[cold]
pub fn type_mismatch(expected: RefType, actual: Option<&Ref>) -> Status {
    match actual {
        None => Status::new(
            StatusCode::InvalidArgument,
            format!("expected a non-null ref of type '{}'", expected.name()),
        ),
        Some(r) => Status::new(
            StatusCode::InvalidArgument,
            format!(
                "ref type mismatch: expected '{}' but have '{}'",
                expected.name(),
                r.ref_type().name()
            ),
        ),
    }
}

/// Upstream's check of a ref moved or copied into a slot whose type comes
/// from a module's type table (`iree_vm_ref_retain_or_move_checked`: the
/// `type_of` operand of the global, select, switch and cast ops): null
/// always passes, any ref passes a `!vm.opaque` slot, a ref of another type
/// fails, and so does any ref when the type is a value type (upstream reads
/// a value type's ref type as null, which matches no ref).
///
/// Errors: INVALID_ARGUMENT "source ref type mismatch".
#[inline]
pub fn check_slot_type(expected: TypeDef, value: Option<&Ref>) -> Result<()> {
    match (expected, value) {
        (_, None) | (TypeDef::AnyRef, _) => Ok(()),
        (TypeDef::Ref(t), Some(v)) if v.ref_type() == t => Ok(()),
        _ => Err(source_type_mismatch()),
    }
}

/// The error of a ref stored into a slot of another type (upstream's
/// wording, which names neither type).
#[cold]
pub fn source_type_mismatch() -> Status {
    Status::new(StatusCode::InvalidArgument, "source ref type mismatch")
}

/// Borrows a `T` out of an optional ref, failing on null or a type mismatch.
pub fn deref_as<T: RefObject>(value: &Option<Ref>, expected: RefType) -> Result<&T> {
    match value {
        Some(r) => r.checked::<T>(expected),
        None => Err(type_mismatch(expected, None)),
    }
}
