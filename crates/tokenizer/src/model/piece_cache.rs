//! A per-thread cache of the ids of recently encoded pieces, for the direct
//! encoders: words repeat, and a lookup is much cheaper than a BPE merge
//! loop or a Viterbi pass (the `tokenizers` crate's models keep a cache for
//! the same reason). One encoder's pieces at a time per thread: an encoder
//! takes the thread's cache, and finds it emptied if another encoder used
//! it last.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use ahash::AHashMap;

/// Pieces longer than this (bytes) are not cached.
const CACHED_PIECE_LEN: usize = 48;
/// The cache is emptied when it holds this many pieces.
const CACHE_CAPACITY: usize = 1 << 16;

/// Piece bytes to ids, owned by one encoder.
#[derive(Default)]
pub(crate) struct PieceCache {
    owner: Option<u64>,
    ids: AHashMap<Box<[u8]>, Box<[u32]>>,
}

thread_local! {
    static PIECE_CACHE: RefCell<PieceCache> = RefCell::new(PieceCache::default());
}

/// A number that tells encoders apart in the per-thread caches.
pub(crate) fn new_owner() -> u64 {
    static OWNERS: AtomicU64 = AtomicU64::new(0);
    OWNERS.fetch_add(1, Ordering::Relaxed)
}

impl PieceCache {
    /// The calling thread's cache, emptied unless `owner` used it last;
    /// give it back with [`PieceCache::put_back`].
    pub(crate) fn take(owner: u64) -> PieceCache {
        let mut cache = PIECE_CACHE.with_borrow_mut(std::mem::take);
        if cache.owner != Some(owner) {
            cache.ids.clear();
            cache.owner = Some(owner);
        }
        cache
    }

    /// Returns the cache to the calling thread.
    pub(crate) fn put_back(self) {
        PIECE_CACHE.with_borrow_mut(|cache| *cache = self);
    }

    /// The ids of `piece`: cached, or computed by `encode` into `scratch`
    /// (cleared first) and cached when the piece is short.
    pub(crate) fn ids<'a>(
        &'a mut self,
        piece: &[u8],
        scratch: &'a mut Vec<u32>,
        encode: impl FnOnce(&mut Vec<u32>),
    ) -> &'a [u32] {
        // (A `get` whose result is returned conditionally would keep the map
        // borrowed below; the borrow checker cannot see otherwise yet.)
        if self.ids.contains_key(piece) {
            return &self.ids[piece];
        }
        scratch.clear();
        encode(scratch);
        if piece.len() <= CACHED_PIECE_LEN {
            if self.ids.len() >= CACHE_CAPACITY {
                self.ids.clear();
            }
            self.ids.insert(piece.into(), scratch.as_slice().into());
        }
        scratch
    }
}
