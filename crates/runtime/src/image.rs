//! Module files in memory: read once into page-aligned, immutable memory
//! that devices can use in place.
//!
//! Where the OS has sealed memory files (Linux memfds), a module lives in
//! one: the module sees a read-only shared mapping, and a constant that a
//! compiled program imports with write usage (the pinned compiler asks for
//! it for every constant, and writes `util.unfoldable_constant` results
//! used as `outs` in place) gets a copy-on-write mapping of its pages
//! ([`SharedImage::writable_window`]): no copy unless written, one mapping
//! per constant however many contexts import it, and the module's own
//! bytes never change.
//! Elsewhere the file is read into anonymous memory made read-only, and
//! writable imports are copied instead.

use std::io::Read;
use std::ops::Range;
use std::sync::Arc;

use iree_vm::buffer::{SharedBytes, SharedImage, WritableWindow};

/// Reads the file at `path` into page-aligned, immutable memory.
pub fn read_image(path: impl AsRef<std::path::Path>) -> std::io::Result<SharedBytes> {
    let mut file = std::fs::File::open(path)?;
    let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
    if len == 0 {
        return Ok(Arc::new(Vec::new()));
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Some(image) = SealedImage::copy_of(&mut file, len)? {
        return Ok(Arc::new(image));
    }
    let mut memory = memmap2::MmapOptions::new().len(len).map_anon()?;
    file.read_exact(&mut memory)?;
    Ok(Arc::new(memory.make_read_only()?))
}

/// A module file copied into a sealed memfd and mapped read-only.
#[cfg(any(target_os = "linux", target_os = "android"))]
struct SealedImage {
    file: std::fs::File,
    map: memmap2::Mmap,
    /// The live copy-on-write windows, by byte range, for every import of
    /// the same range to share.
    windows: parking_lot::Mutex<std::collections::HashMap<(usize, usize), std::sync::Weak<Window>>>,
}

/// A private (copy-on-write) mapping of some of a [`SealedImage`]'s pages.
#[cfg(any(target_os = "linux", target_os = "android"))]
struct Window {
    map: memmap2::MmapMut,
    /// Where in `map` the window's range starts (its offset in its page).
    start: usize,
}

#[cfg(any(target_os = "linux", target_os = "android"))]
impl SealedImage {
    /// `len` bytes of `source` in a new sealed memfd; `None` where memfds
    /// are not available.
    fn copy_of(source: &mut std::fs::File, len: usize) -> std::io::Result<Option<SealedImage>> {
        use rustix::fs::{memfd_create, MemfdFlags, SealFlags};
        let Ok(fd) = memfd_create(
            "iree-module",
            MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
        ) else {
            return Ok(None);
        };
        let mut file = std::fs::File::from(fd);
        let copied = std::io::copy(&mut source.take(len as u64), &mut file)?;
        if copied != len as u64 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file shrank while it was read",
            ));
        }
        // From here on the contents never change: shared mappings (the
        // module's view) are immutable; private ones copy on write.
        rustix::fs::fcntl_add_seals(
            &file,
            SealFlags::WRITE | SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL,
        )?;
        // SAFETY: the memfd is sealed against writes and resizing, so the
        // mapped bytes can never change or vanish while the map lives.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Some(SealedImage {
            file,
            map,
            windows: Default::default(),
        }))
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
impl SharedImage for SealedImage {
    fn bytes(&self) -> &[u8] {
        &self.map
    }

    fn writable_window(&self, range: Range<usize>) -> Option<WritableWindow> {
        if range.start > range.end || range.end > self.map.len() || range.is_empty() {
            return None;
        }
        let mut windows = self.windows.lock();
        windows.retain(|_, window| window.strong_count() > 0);
        let key = (range.start, range.end);
        let window = match windows.get(&key).and_then(std::sync::Weak::upgrade) {
            Some(window) => window,
            None => {
                let page = rustix::param::page_size();
                let first_page = range.start / page * page;
                // SAFETY: a private mapping of a sealed file: writes through
                // it go to private pages (copy-on-write) and never reach the
                // file or another mapping; the file cannot change or shrink
                // underneath it.
                let map = unsafe {
                    memmap2::MmapOptions::new()
                        .offset(first_page as u64)
                        .len(range.end - first_page)
                        .map_copy(&self.file)
                        .ok()?
                };
                let window = Arc::new(Window {
                    map,
                    start: range.start - first_page,
                });
                windows.insert(key, Arc::downgrade(&window));
                window
            }
        };
        let ptr = window.map.as_ptr().wrapping_add(window.start).cast_mut();
        let ptr = std::ptr::NonNull::new(ptr)?;
        // SAFETY: `ptr..ptr + range.len()` lies in the mapping (whole pages,
        // so the words holding it do too), which is writable, reached only
        // through the windows this image hands out for this range, and lives
        // as long as any owner (an `Arc` of it).
        Some(unsafe { WritableWindow::new(ptr, range.len(), Box::new(window)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writable_windows_are_shared_and_never_change_the_image() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/llvm-cpu/expected_output.vmfb"
        );
        let image = read_image(path).unwrap();
        let original = image.bytes().to_vec();
        assert_eq!(original, std::fs::read(path).unwrap());
        let range = 100..4200;
        let window = image.writable_window(range.clone());
        if cfg!(any(target_os = "linux", target_os = "android")) {
            let (ptr, len, owner) = window.expect("a writable window").into_parts();
            assert_eq!(len, range.len());
            // SAFETY: `WritableWindow` makes these bytes writable while
            // `owner` lives; nothing else touches them in this test.
            let bytes = unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), len) };
            assert_eq!(bytes, &original[range.clone()]);
            bytes.fill(0xAB);
            assert!(bytes.iter().all(|&b| b == 0xAB));
            // A second import of the range shares the window and its writes.
            let (again, _, again_owner) =
                image.writable_window(range.clone()).unwrap().into_parts();
            assert_eq!(again, ptr);
            drop((owner, again_owner));
            // Once no window lives, a new one starts from the image again.
            let (fresh, len, fresh_owner) =
                image.writable_window(range.clone()).unwrap().into_parts();
            // SAFETY: as above.
            let fresh = unsafe { std::slice::from_raw_parts(fresh.as_ptr(), len) };
            assert_eq!(fresh, &original[range.clone()]);
            drop(fresh_owner);
        }
        assert_eq!(image.bytes(), &original[..], "the image never changes");
        assert!(image.writable_window(0..original.len() + 1).is_none());
    }
}
