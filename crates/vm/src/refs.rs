//! Reference-counted typed objects (`iree_vm_ref_t`).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

use crate::types::RefType;

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
pub struct Ref(Arc<dyn RefObject>);

impl Ref {
    /// Wraps a new object.
    pub fn new<T: RefObject>(object: T) -> Ref {
        Ref(Arc::new(object))
    }

    /// Wraps an existing shared object.
    pub fn from_arc<T: RefObject>(object: Arc<T>) -> Ref {
        Ref(object)
    }

    /// The object's registered type.
    pub fn ref_type(&self) -> RefType {
        self.0.ref_type()
    }

    /// Borrows the object as `T` if it is one.
    pub fn downcast<T: RefObject>(&self) -> Option<&T> {
        let any: &dyn Any = &*self.0;
        any.downcast_ref::<T>()
    }

    /// Returns a shared handle to the object as `T` if it is one.
    pub fn downcast_arc<T: RefObject>(&self) -> Option<Arc<T>> {
        let any: Arc<dyn Any + Send + Sync> = self.0.clone();
        any.downcast::<T>().ok()
    }

    /// Converts into a shared handle to the object as `T`, or gives the
    /// handle back when the object is not a `T`.
    pub fn into_arc<T: RefObject>(self) -> std::result::Result<Arc<T>, Ref> {
        let any: Arc<dyn Any + Send + Sync> = self.0.clone();
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
        std::ptr::addr_eq(Arc::as_ptr(&a.0), Arc::as_ptr(&b.0))
    }

    /// The current strong count (for tests and leak checks).
    pub fn strong_count(this: &Ref) -> usize {
        Arc::strong_count(&this.0)
    }
}

impl fmt::Debug for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}@{:p}", self.ref_type(), Arc::as_ptr(&self.0))
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

/// Borrows a `T` out of an optional ref, failing on null or a type mismatch.
pub fn deref_as<T: RefObject>(value: &Option<Ref>, expected: RefType) -> Result<&T> {
    match value {
        Some(r) => r.checked::<T>(expected),
        None => Err(type_mismatch(expected, None)),
    }
}
