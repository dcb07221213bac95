//! Module files in memory: read once into page-aligned, immutable memory
//! that devices can use in place.
//!
//! Where the OS has sealed memory files (Linux memfds), a module lives in
//! one: the module sees a read-only shared mapping, and a constant that a
//! compiled program imports and then writes in place (the pinned compiler
//! does this for `util.unfoldable_constant` results used as `outs`) gets a
//! private copy-on-write mapping of its pages ([`SharedImage::private_copy`]):
//! no copy unless written, and the module's own bytes never change.
//! Elsewhere the file is read into anonymous memory made read-only, and
//! writable imports are copied instead.

use std::io::Read;
use std::ops::Range;
use std::sync::Arc;

use iree_vm::buffer::{PrivateCopy, SharedBytes, SharedImage};

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
        Ok(Some(SealedImage { file, map }))
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
impl SharedImage for SealedImage {
    fn bytes(&self) -> &[u8] {
        &self.map
    }

    fn private_copy(&self, range: Range<usize>) -> Option<PrivateCopy> {
        if range.start > range.end || range.end > self.map.len() || range.is_empty() {
            return None;
        }
        let page = rustix::param::page_size();
        let start = range.start / page * page;
        // SAFETY: a private mapping of a sealed file: writes through it go to
        // private pages (copy-on-write) and never reach the file or another
        // mapping; the file cannot change or shrink underneath it.
        let mut map = unsafe {
            memmap2::MmapOptions::new()
                .offset(start as u64)
                .len(range.end - start)
                .map_copy(&self.file)
                .ok()?
        };
        let ptr = std::ptr::NonNull::new(map.as_mut_ptr().wrapping_add(range.start - start))?;
        // SAFETY: `ptr..ptr + range.len()` lies in the mapping (whole pages,
        // so the words holding it do too), which is writable, private to this
        // value and lives as long as the owner.
        Some(unsafe { PrivateCopy::new(ptr, range.len(), Box::new(map)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_copies_are_writable_and_never_change_the_image() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/llvm-cpu/expected_output.vmfb"
        );
        let image = read_image(path).unwrap();
        let original = image.bytes().to_vec();
        assert_eq!(original, std::fs::read(path).unwrap());
        let range = 100..4200;
        let copy = image.private_copy(range.clone());
        if cfg!(any(target_os = "linux", target_os = "android")) {
            let (ptr, len, owner) = copy.expect("a private copy").into_parts();
            assert_eq!(len, range.len());
            // SAFETY: `PrivateCopy` makes these bytes writable and private
            // while `owner` lives.
            let bytes = unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), len) };
            assert_eq!(bytes, &original[range.clone()]);
            bytes.fill(0xAB);
            assert!(bytes.iter().all(|&b| b == 0xAB));
            drop(owner);
        }
        assert_eq!(image.bytes(), &original[..], "the image never changes");
        assert!(image.private_copy(0..original.len() + 1).is_none());
    }
}
