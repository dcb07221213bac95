//! C handles of the library's objects.
//!
//! Objects C holds are `Arc`s handed out with [`Arc::into_raw`]; their
//! count is the `Arc`'s. Functions that return a *borrowed* handle to
//! something an object owns by value (the buffer of a buffer view, the
//! allocator of a device, the C-layout header of a `vm.buffer`) need an
//! object with a stable address that lives as long as its owner:
//! [`DerivedHandles`] keeps one per owner, dropped once the owner is gone.

use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::sync::{Arc, Weak};

use iree_base::{Result, Status, StatusCode};
use parking_lot::Mutex;

/// Borrows the object behind a handle; `None` for NULL.
///
/// # Safety
/// `ptr` is NULL or a live handle (`Arc::into_raw` of an `Arc<T>`).
pub(crate) unsafe fn borrow<'a, T>(ptr: *const T) -> Option<&'a T> {
    // SAFETY: per the contract.
    unsafe { ptr.as_ref() }
}

/// Borrows the object behind a handle, or INVALID_ARGUMENT naming `what`.
///
/// # Safety
/// As [`borrow`].
pub(crate) unsafe fn require<'a, T>(ptr: *const T, what: &str) -> Result<&'a T> {
    // SAFETY: forwarded contract.
    unsafe { borrow(ptr) }.ok_or_else(|| null_argument(what))
}

/// The error for a NULL argument upstream checks.
#[cold]
pub(crate) fn null_argument(what: &str) -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        format!("{what} must not be NULL"),
    )
}

/// A new `Arc` (with its own count) of the object behind a handle.
///
/// # Safety
/// As [`borrow`], non-null.
pub(crate) unsafe fn clone_arc<T>(ptr: *const T) -> Arc<T> {
    // SAFETY: per the contract.
    unsafe {
        Arc::increment_strong_count(ptr);
        Arc::from_raw(ptr)
    }
}

/// Runs `f` with the `Arc` behind a handle, without changing its count.
///
/// # Safety
/// As [`borrow`], non-null.
pub(crate) unsafe fn with_arc<T, R>(ptr: *const T, f: impl FnOnce(&Arc<T>) -> R) -> R {
    // SAFETY: per the contract; the count is left as it was.
    let arc = ManuallyDrop::new(unsafe { Arc::from_raw(ptr) });
    f(&arc)
}

/// Hands an `Arc` to C (the handle owns its count).
pub(crate) fn into_handle<T>(object: Arc<T>) -> *mut T {
    Arc::into_raw(object).cast_mut()
}

/// Adds a count to a handle's object (NULL does nothing).
///
/// # Safety
/// As [`borrow`].
pub(crate) unsafe fn retain<T>(ptr: *const T) {
    if !ptr.is_null() {
        // SAFETY: per the contract.
        unsafe { Arc::increment_strong_count(ptr) }
    }
}

/// Drops a handle's count (NULL does nothing).
///
/// # Safety
/// As [`borrow`]; the caller owns the count.
pub(crate) unsafe fn release<T>(ptr: *const T) {
    if !ptr.is_null() {
        // SAFETY: per the contract.
        unsafe { Arc::decrement_strong_count(ptr) }
    }
}

/// Objects derived from owners (keyed by the owner's address), each kept
/// while its owner lives. Entries of dropped owners are swept as the map
/// grows and when an owner is released from C for the last time.
pub(crate) struct DerivedHandles<O, V> {
    entries: Mutex<Option<Derived<O, V>>>,
}

struct Derived<O, V> {
    map: HashMap<usize, (Weak<O>, V)>,
    sweep_at: usize,
}

impl<O, V> DerivedHandles<O, V> {
    /// An empty set.
    pub(crate) const fn new() -> DerivedHandles<O, V> {
        DerivedHandles {
            entries: Mutex::new(None),
        }
    }

    /// `key` of the object derived from `owner`, made by `make` the first
    /// time; valid while `owner` lives.
    pub(crate) fn get_or_make<K: Copy>(
        &self,
        owner: &Arc<O>,
        key: impl Fn(&V) -> K,
        make: impl FnOnce() -> Result<V>,
    ) -> Result<K> {
        let address = Arc::as_ptr(owner) as usize;
        let mut guard = self.entries.lock();
        let derived = guard.get_or_insert_with(|| Derived {
            map: HashMap::new(),
            sweep_at: 16,
        });
        if let Some((weak, value)) = derived.map.get(&address) {
            if weak.as_ptr() == Arc::as_ptr(owner) && weak.strong_count() > 0 {
                return Ok(key(value));
            }
        }
        let value = make()?;
        let result = key(&value);
        let stale = derived.map.insert(address, (Arc::downgrade(owner), value));
        let mut swept = Vec::new();
        if derived.map.len() >= derived.sweep_at {
            swept.extend(
                derived
                    .map
                    .extract_if(|_, (weak, _)| weak.strong_count() == 0)
                    .map(|(_, (_, value))| value),
            );
            derived.sweep_at = (derived.map.len() * 2).max(16);
        }
        drop(guard);
        // Values are dropped outside the lock (they may release objects).
        drop(stale);
        drop(swept);
        Ok(result)
    }

    /// Forgets what was derived from the owner at `address` (called when C
    /// drops what may be the owner's last count).
    pub(crate) fn forget(&self, address: usize) {
        let removed = self
            .entries
            .lock()
            .as_mut()
            .and_then(|derived| derived.map.remove(&address));
        drop(removed);
    }

    /// Sets what is derived from `owner` (a view made from a given buffer
    /// derives that buffer).
    pub(crate) fn insert(&self, owner: &Arc<O>, value: V) {
        let address = Arc::as_ptr(owner) as usize;
        let stale = self
            .entries
            .lock()
            .get_or_insert_with(|| Derived {
                map: HashMap::new(),
                sweep_at: 16,
            })
            .map
            .insert(address, (Arc::downgrade(owner), value));
        drop(stale);
    }
}

/// Addresses of live objects of one kind, for recognizing this library's
/// own objects among pointers C hands back (function pointers cannot be
/// compared reliably).
pub(crate) struct LiveSet {
    addresses: Mutex<Option<std::collections::HashSet<usize>>>,
}

impl LiveSet {
    /// An empty set.
    pub(crate) const fn new() -> LiveSet {
        LiveSet {
            addresses: Mutex::new(None),
        }
    }

    /// Records a live object.
    pub(crate) fn insert(&self, address: usize) {
        self.addresses
            .lock()
            .get_or_insert_with(Default::default)
            .insert(address);
    }

    /// Forgets an object that is going away.
    pub(crate) fn remove(&self, address: usize) {
        if let Some(set) = self.addresses.lock().as_mut() {
            set.remove(&address);
        }
    }

    /// True while the object at `address` lives.
    pub(crate) fn contains(&self, address: usize) -> bool {
        self.addresses
            .lock()
            .as_ref()
            .is_some_and(|set| set.contains(&address))
    }
}
