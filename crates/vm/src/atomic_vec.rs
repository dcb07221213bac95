//! [`AtomicVec`]: the element storage of primitive-value lists, readable and
//! writable from any thread without a lock.
//!
//! Elements live in atomics inside a *slab* (its length plus zero-initialized
//! element storage) that is published through an atomic pointer. Element
//! reads and writes load the current slab, check the index against its
//! length, and access the element with a relaxed atomic operation (a plain
//! move on x86 and aarch64). Structural changes (reserve, resize) are
//! serialized by a mutex; a change that needs more room copies into a new
//! slab, publishes it, and *retires* the old one, which stays allocated until
//! the vector drops. A reader holding an old slab therefore never touches
//! freed memory; at worst a write racing with a reallocation lands in the old
//! slab and is lost, which only a racy program can observe (upstream's lists
//! are unsynchronized, so such a program has undefined behaviour there).

use std::sync::atomic::{
    AtomicPtr, AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering,
};

use iree_base::{Result, Status, StatusCode};
use parking_lot::Mutex;

/// A primitive element word and its atomic cell.
///
/// # Safety
///
/// `Atomic` must be valid when all its bytes are zero and must have the
/// layout `alloc_zeroed` is asked for (`Layout::array::<Atomic>`), as every
/// integer atomic does.
pub(crate) unsafe trait Word: Copy + Default + Send + Sync + 'static {
    /// The atomic cell holding one element.
    type Atomic: Send + Sync;
    /// Relaxed load.
    fn load(cell: &Self::Atomic) -> Self;
    /// Relaxed store.
    fn store(cell: &Self::Atomic, value: Self);
}

macro_rules! word {
    ($t:ty, $a:ty) => {
        // SAFETY: integer atomics are valid when zeroed and have the layout
        // of an array of themselves.
        unsafe impl Word for $t {
            type Atomic = $a;
            #[inline(always)]
            fn load(cell: &$a) -> $t {
                cell.load(Ordering::Relaxed)
            }
            #[inline(always)]
            fn store(cell: &$a, value: $t) {
                cell.store(value, Ordering::Relaxed)
            }
        }
    };
}
word!(u8, AtomicU8);
word!(u16, AtomicU16);
word!(u32, AtomicU32);
word!(u64, AtomicU64);

struct Slab<A> {
    len: AtomicUsize,
    data: Box<[A]>,
}

#[cold]
fn allocation_failed() -> Status {
    Status::new(
        StatusCode::ResourceExhausted,
        "libc allocator failed the request",
    )
}

/// `count` zeroed cells; the OS supplies zero pages lazily, so a huge count
/// costs address space only until it is touched.
fn zeroed_cells<W: Word>(count: usize) -> Result<Box<[W::Atomic]>> {
    if count == 0 {
        return Ok(Vec::new().into_boxed_slice());
    }
    let layout = std::alloc::Layout::array::<W::Atomic>(count).map_err(|_| allocation_failed())?;
    // SAFETY: `layout` has a non-zero size (count > 0; the cells are not ZSTs).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<W::Atomic>();
    if ptr.is_null() {
        return Err(allocation_failed());
    }
    // SAFETY: `ptr` is a fresh allocation of `layout`, which is how a boxed
    // slice of `count` cells is freed; zeroed cells are valid (`Word`'s
    // contract). Ownership moves into the box.
    Ok(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, count)) })
}

/// A slab replaced by a reallocation, kept (never moved or freed) until the
/// vector drops because readers may still hold references into it. It is
/// held as a raw pointer, not a `Box`: a `Box` asserts unique ownership,
/// which those readers' shared references contradict (Miri's data-race
/// check reports the retag).
struct RetiredSlab<A>(std::ptr::NonNull<Slab<A>>);

// SAFETY: a retired slab is only read through shared references (its cells
// are atomics) and freed once, by the vector's `drop` with `&mut self`.
unsafe impl<A: Send + Sync> Send for RetiredSlab<A> {}
// SAFETY: as above.
unsafe impl<A: Send + Sync> Sync for RetiredSlab<A> {}

impl<A> Drop for RetiredSlab<A> {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` and is retired: the
        // vector owning this value is being dropped, so no reader remains.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}

type Retired<A> = Vec<RetiredSlab<A>>;

/// A growable vector of `W` elements with lock-free element access.
pub(crate) struct AtomicVec<W: Word> {
    current: AtomicPtr<Slab<W::Atomic>>,
    /// Serializes structural changes and owns retired slabs.
    retired: Mutex<Retired<W::Atomic>>,
}

impl<W: Word> AtomicVec<W> {
    /// An empty vector with room for `capacity` elements.
    pub(crate) fn with_capacity(capacity: usize) -> Result<Self> {
        let slab = Box::new(Slab {
            len: AtomicUsize::new(0),
            data: zeroed_cells::<W>(capacity)?,
        });
        Ok(AtomicVec {
            current: AtomicPtr::new(Box::into_raw(slab)),
            retired: Mutex::new(Vec::new()),
        })
    }

    #[inline(always)]
    fn slab(&self) -> &Slab<W::Atomic> {
        // SAFETY: `current` always points at a live slab: slabs are created
        // by `Box::into_raw` and freed only in `drop` (retired ones are kept
        // in `retired` until then), and `&self` keeps the vector alive.
        unsafe { &*self.current.load(Ordering::Acquire) }
    }

    /// The element count.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.slab().len.load(Ordering::Acquire)
    }

    /// The element capacity.
    pub(crate) fn capacity(&self) -> usize {
        self.slab().data.len()
    }

    /// Element `index`, or `None` when out of range.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<W> {
        let slab = self.slab();
        if index < slab.len.load(Ordering::Acquire) {
            slab.data.get(index).map(W::load)
        } else {
            None
        }
    }

    /// Writes element `index`; `false` when out of range.
    #[inline]
    pub(crate) fn set(&self, index: usize, value: W) -> bool {
        let slab = self.slab();
        if index < slab.len.load(Ordering::Acquire) {
            if let Some(cell) = slab.data.get(index) {
                W::store(cell, value);
                return true;
            }
        }
        false
    }

    /// Ensures room for `min_capacity` elements (exactly that many when it
    /// must grow). Never changes the length.
    pub(crate) fn reserve(&self, min_capacity: usize) -> Result<()> {
        let mut retired = self.retired.lock();
        if self.capacity() >= min_capacity {
            return Ok(());
        }
        self.regrow(&mut retired, self.len(), min_capacity)
    }

    /// Resizes to `new_len`: elements exposed by growing read as zero (also
    /// after a shrink). Grows geometrically, falling back to the exact size
    /// when the larger allocation fails.
    pub(crate) fn resize(&self, new_len: usize) -> Result<()> {
        let mut retired = self.retired.lock();
        let slab = self.slab();
        let len = slab.len.load(Ordering::Acquire);
        if new_len <= slab.data.len() {
            // Cells past the length may hold values from before a shrink:
            // zero the ones a grow exposes before publishing the new length.
            for cell in slab.data.get(len..new_len).unwrap_or(&[]) {
                W::store(cell, W::default());
            }
            slab.len.store(new_len, Ordering::Release);
            return Ok(());
        }
        let doubled = new_len.max(slab.data.len().saturating_mul(2));
        self.regrow(&mut retired, new_len, doubled)
            .or_else(|_| self.regrow(&mut retired, new_len, new_len))
    }

    /// Copies into a new slab of `capacity` cells with length `len`,
    /// publishes it and retires the old one. Caller holds the lock.
    fn regrow(&self, retired: &mut Retired<W::Atomic>, len: usize, capacity: usize) -> Result<()> {
        let old = self.slab();
        let old_len = old.len.load(Ordering::Acquire);
        let data = zeroed_cells::<W>(capacity)?;
        for (dst, src) in data.iter().zip(old.data.iter().take(old_len.min(len))) {
            W::store(dst, W::load(src));
        }
        let slab = Box::into_raw(Box::new(Slab {
            len: AtomicUsize::new(len),
            data,
        }));
        let previous = self.current.swap(slab, Ordering::AcqRel);
        // Readers that still hold `previous` stay valid: it is kept, not
        // freed, until the vector drops.
        if let Some(previous) = std::ptr::NonNull::new(previous) {
            retired.push(RetiredSlab(previous));
        }
        Ok(())
    }

    /// A copy of the elements.
    pub(crate) fn to_vec(&self) -> Vec<W> {
        let slab = self.slab();
        let len = slab.len.load(Ordering::Acquire);
        slab.data.iter().take(len).map(W::load).collect()
    }
}

impl<W: Word> Drop for AtomicVec<W> {
    fn drop(&mut self) {
        // SAFETY: `current` came from `Box::into_raw` and, with `&mut self`,
        // no reader can hold it any more.
        drop(unsafe { Box::from_raw(*self.current.get_mut()) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_shrinks_and_keeps_values() {
        let v = AtomicVec::<u32>::with_capacity(2).unwrap();
        assert_eq!(v.len(), 0);
        assert_eq!(v.get(0), None);
        v.resize(3).unwrap();
        assert!(v.set(2, 7));
        assert!(!v.set(3, 1));
        v.resize(100).unwrap();
        assert_eq!(v.get(2), Some(7));
        assert_eq!(v.get(99), Some(0));
        v.resize(1).unwrap();
        v.resize(3).unwrap();
        assert_eq!(v.get(2), Some(0), "regrown elements read as zero");
        v.reserve(1000).unwrap();
        assert_eq!(v.capacity(), 1000);
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn concurrent_access_during_growth() {
        // Miri interprets every access: fewer rounds there.
        let (rounds, grows) = if cfg!(miri) {
            (300, 100)
        } else {
            (20_000, 2000)
        };
        let v = std::sync::Arc::new(AtomicVec::<u64>::with_capacity(1).unwrap());
        v.resize(1).unwrap();
        let readers: Vec<_> = (0..3)
            .map(|_| {
                let v = v.clone();
                std::thread::spawn(move || {
                    for i in 0..rounds {
                        v.set(0, i);
                        let _ = v.get((i % 64) as usize);
                    }
                })
            })
            .collect();
        for n in 1..grows {
            v.resize(n).unwrap();
        }
        for r in readers {
            r.join().unwrap();
        }
        assert_eq!(v.len(), grows - 1);
    }
}
