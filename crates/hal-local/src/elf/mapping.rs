//! The memory an ELF image is loaded into.
//!
//! Two states, as two types:
//!
//! * [`Staging`]: freshly reserved read-write pages the loader fills through a
//!   safe `&mut [u8]` (segment copies, relocations);
//! * [`Sealed`]: the same pages after [`Staging::seal`] applied final
//!   per-page protections. No mutable view exists any more; reads go through
//!   [`Sealed::read_const`], which only reads pages that are readable and not
//!   writable, so nothing (not even loaded code) can change them concurrently.
//!
//! All of the loader's memory `unsafe` is here: three small blocks (the
//! mutable view, the protection change, the read) and the Send/Sync impls.

use iree_base::{bail, Result, Status, StatusCode};

/// Final protection of one page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PageProt {
    pub read: bool,
    pub write: bool,
    pub exec: bool,
}

impl PageProt {
    fn to_region(self) -> region::Protection {
        let mut p = region::Protection::NONE;
        if self.read {
            p |= region::Protection::READ;
        }
        if self.write {
            p |= region::Protection::WRITE;
        }
        if self.exec {
            p |= region::Protection::EXECUTE;
        }
        p
    }
}

/// The page size images are laid out with: the host's, at least 4 KiB.
pub(crate) fn page_size() -> usize {
    region::page::size().max(4096)
}

/// Read-write pages being filled by the loader.
pub(crate) struct Staging {
    alloc: region::Allocation,
    len: usize,
}

impl Staging {
    /// Reserves `len` bytes (a multiple of [`page_size`]) of zeroed,
    /// read-write memory.
    pub(crate) fn new(len: usize) -> Result<Staging> {
        debug_assert!(len > 0 && len.is_multiple_of(page_size()));
        let alloc = region::alloc(len, region::Protection::READ_WRITE).map_err(|e| {
            Status::new(
                StatusCode::ResourceExhausted,
                format!("reserving {len} bytes for the ELF image failed: {e}"),
            )
        })?;
        if alloc.len() < len {
            bail!(
                ResourceExhausted,
                "reserving {len} bytes for the ELF image returned less"
            );
        }
        Ok(Staging { alloc, len })
    }

    /// Absolute address of the first byte.
    pub(crate) fn base(&self) -> u64 {
        self.alloc.as_ptr::<u8>() as u64
    }

    /// The whole image, writable.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        let ptr = self.alloc.as_mut_ptr::<u8>();
        // SAFETY: `alloc` is a live mapping of at least `len` bytes that are
        // readable and writable (READ_WRITE, and no protection change happens
        // while a `Staging` exists); it is zero-initialized by the OS, and the
        // returned borrow is tied to `&mut self`, so it is the only view.
        unsafe { std::slice::from_raw_parts_mut(ptr, self.len) }
    }

    /// Applies `pages` (one entry per page, covering the whole image) and
    /// turns the staging memory into a sealed image.
    pub(crate) fn seal(self, pages: Vec<PageProt>) -> Result<Sealed> {
        let page = page_size();
        if pages.len() * page != self.len {
            bail!(Internal, "page protection table does not cover the image");
        }
        let mut start = 0;
        while start < pages.len() {
            let prot = pages[start];
            let mut end = start + 1;
            while end < pages.len() && pages[end] == prot {
                end += 1;
            }
            let ptr = self.alloc.as_ptr::<u8>().wrapping_add(start * page);
            // SAFETY: [ptr, ptr + (end - start) * page) is a page-aligned
            // subrange of `alloc`, which this function owns: no reference to
            // the memory exists (`bytes_mut` borrows ended with `self` moved
            // in), so changing its protection cannot invalidate a borrow.
            unsafe { region::protect(ptr, (end - start) * page, prot.to_region()) }.map_err(
                |e| {
                    Status::new(
                        StatusCode::Internal,
                        format!("protecting ELF pages failed: {e}"),
                    )
                },
            )?;
            start = end;
        }
        Ok(Sealed {
            alloc: self.alloc,
            len: self.len,
            pages,
            page,
        })
    }
}

/// The image after protection; immutable from Rust's side.
pub(crate) struct Sealed {
    alloc: region::Allocation,
    len: usize,
    pages: Vec<PageProt>,
    page: usize,
}

// SAFETY: `Sealed` owns its mapping (the raw pointer inside
// `region::Allocation` is what makes it !Send/!Sync); Rust code only reads
// its immutable pages, and unmapping happens on drop, once.
unsafe impl Send for Sealed {}
// SAFETY: as above: `&Sealed` only permits reads of read-only pages.
unsafe impl Sync for Sealed {}

impl Sealed {
    /// Absolute address of the first byte.
    pub(crate) fn base(&self) -> u64 {
        self.alloc.as_ptr::<u8>() as u64
    }

    /// Image length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The image offset of `address`, if it is inside the image.
    pub(crate) fn offset_of(&self, address: u64) -> Option<usize> {
        let off = address.checked_sub(self.base())?;
        (off < self.len as u64).then_some(off as usize)
    }

    /// Protection of the page holding image offset `offset`.
    pub(crate) fn prot_at(&self, offset: usize) -> Option<PageProt> {
        self.pages.get(offset / self.page).copied()
    }

    /// Copies bytes at image offset `offset` out of read-only pages.
    pub(crate) fn read_const(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        let Some(end) = offset.checked_add(out.len()).filter(|&e| e <= self.len) else {
            bail!(
                OutOfRange,
                "read of {} bytes at image offset 0x{offset:x} is outside the {}-byte image",
                out.len(),
                self.len
            );
        };
        if out.is_empty() {
            return Ok(());
        }
        let first = offset / self.page;
        let last = (end - 1) / self.page;
        if !self.pages[first..=last].iter().all(|p| p.read && !p.write) {
            bail!(
                OutOfRange,
                "read of {} bytes at image offset 0x{offset:x} touches memory that is not read-only",
                out.len()
            );
        }
        let src = self.alloc.as_ptr::<u8>().wrapping_add(offset);
        // SAFETY: [src, src + out.len()) lies inside the live mapping (checked
        // against `len`), every page it touches is readable, and none is
        // writable, so no other thread or loaded code can be writing it; `out`
        // is a distinct Rust buffer, so the ranges do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), out.len()) };
        Ok(())
    }
}
