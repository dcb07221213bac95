//! Parameter files: opened once, mapped read-only for indexing and copying,
//! and mapped privately per parameter when a device can use host memory.

use std::fs::File;
use std::path::{Path, PathBuf};

use iree_base::progress::Progress;
use iree_base::{Result, Status, StatusCode};
use iree_hal::ExternalHostMemory;
use memmap2::{Mmap, MmapMut, MmapOptions};

/// How parameter files are opened (upstream's `--parameter_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FileMode {
    /// Map the file and read from it as parameters are used (`file`).
    #[default]
    Mapped,
    /// Read the whole file into memory when it is opened (`preload`).
    Preload,
}

impl FileMode {
    /// Parses a `--parameter_mode=` value.
    pub fn parse(text: &str) -> Result<FileMode> {
        match text {
            "file" => Ok(FileMode::Mapped),
            "preload" => Ok(FileMode::Preload),
            _ => Err(Status::new(
                StatusCode::InvalidArgument,
                format!("unrecognized --parameter_mode= value '{text}'"),
            )),
        }
    }
}

/// The bytes of a file as the index sees them.
enum Contents {
    /// An empty file (zero-length mappings are not allowed).
    Empty,
    /// A shared read-only mapping.
    Mapped(Mmap),
    /// The whole file read into memory.
    Preloaded(Box<[u8]>),
}

/// An open parameter file.
pub struct ParameterFile {
    path: PathBuf,
    file: File,
    contents: Contents,
    writable: bool,
}

impl std::fmt::Debug for ParameterFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParameterFile")
            .field("path", &self.path)
            .field("len", &self.len())
            .field("writable", &self.writable)
            .finish()
    }
}

fn io_error(path: &Path, what: &str, error: std::io::Error) -> Status {
    let code = match error.kind() {
        std::io::ErrorKind::NotFound => StatusCode::NotFound,
        std::io::ErrorKind::PermissionDenied => StatusCode::PermissionDenied,
        _ => StatusCode::Unavailable,
    };
    Status::new(
        code,
        format!("{what} parameter file `{}`: {error}", path.display()),
    )
}

/// Bytes read per step of a preload (see [`Progress`]).
const PRELOAD_CHUNK: usize = 64 << 20;

impl ParameterFile {
    /// Opens `path` for reading.
    pub fn open(path: impl AsRef<Path>, mode: FileMode) -> Result<ParameterFile> {
        Self::open_with(path.as_ref(), mode, false)
    }

    /// Opens `path` for reading and writing (scatter targets).
    pub fn open_writable(path: impl AsRef<Path>) -> Result<ParameterFile> {
        Self::open_with(path.as_ref(), FileMode::Mapped, true)
    }

    fn open_with(path: &Path, mode: FileMode, writable: bool) -> Result<ParameterFile> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(writable)
            .open(path)
            .map_err(|e| io_error(path, "opening", e))?;
        let len = file
            .metadata()
            .map_err(|e| io_error(path, "reading the size of", e))?
            .len();
        let len = usize::try_from(len).map_err(|_| {
            Status::new(
                StatusCode::OutOfRange,
                format!(
                    "parameter file `{}` is too large to map ({len} bytes)",
                    path.display()
                ),
            )
        })?;
        let contents = if len == 0 {
            Contents::Empty
        } else if mode == FileMode::Preload {
            let mut bytes = vec![0u8; len].into_boxed_slice();
            let mut progress =
                Progress::start(&format!("preloading {}", path.display()), len as u64);
            let mut offset = 0;
            // In chunks, so a progress bar moves while a large file loads.
            for chunk in bytes.chunks_mut(PRELOAD_CHUNK) {
                read_exact_at(&file, chunk, offset).map_err(|e| io_error(path, "reading", e))?;
                offset += chunk.len() as u64;
                progress.advance(chunk.len() as u64);
            }
            Contents::Preloaded(bytes)
        } else {
            // SAFETY: the mapping is read-only and private to this process.
            // As with every memory-mapped loader, another process truncating
            // or rewriting the file while it is mapped changes what we read
            // (truncation faults); parameter files are expected to stay
            // unchanged while a program uses them, as upstream expects.
            let map = unsafe { Mmap::map(&file) }.map_err(|e| io_error(path, "mapping", e))?;
            Contents::Mapped(map)
        };
        Ok(ParameterFile {
            path: path.to_path_buf(),
            file,
            contents,
            writable,
        })
    }

    /// The path the file was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The whole file.
    pub fn bytes(&self) -> &[u8] {
        match &self.contents {
            Contents::Empty => &[],
            Contents::Mapped(map) => map,
            Contents::Preloaded(bytes) => bytes,
        }
    }

    /// The file size in bytes.
    pub fn len(&self) -> u64 {
        self.bytes().len() as u64
    }

    /// True for an empty file.
    pub fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }

    /// Whether the file was opened for writing.
    pub fn is_writable(&self) -> bool {
        self.writable
    }

    /// The bytes `[offset, offset + length)`, checked against the file.
    pub fn range(&self, offset: u64, length: u64) -> Result<&[u8]> {
        let bytes = self.bytes();
        offset
            .checked_add(length)
            .filter(|&end| end <= bytes.len() as u64)
            .map(|end| &bytes[offset as usize..end as usize])
            .ok_or_else(|| {
                Status::new(
                    StatusCode::OutOfRange,
                    format!(
                        "range [{offset}, +{length}) is past the end of parameter file `{}` ({} bytes); the file may be truncated",
                        self.path.display(),
                        bytes.len()
                    ),
                )
            })
    }

    /// A private copy-on-write mapping of `[offset, offset + length)`, for
    /// a device to use as host memory without copying: pages are read from
    /// the file on first touch, and writes through the buffer stay private
    /// (they never reach the file or other buffers). `None` when the file
    /// is not mapped (preloaded, empty) or the range is empty.
    pub fn map_private(&self, offset: u64, length: u64) -> Result<Option<ExternalHostMemory>> {
        self.range(offset, length)?;
        if length == 0 || !matches!(self.contents, Contents::Mapped(_)) {
            return Ok(None);
        }
        let page = page_size();
        let start = offset - offset % page;
        let skip = (offset - start) as usize;
        let map_len = skip + length as usize;
        // SAFETY: a private mapping of our own open file; see `open_with`
        // for the caveat on concurrent modification by other processes.
        let mut map: MmapMut = unsafe {
            MmapOptions::new()
                .offset(start)
                .len(map_len)
                .map_copy(&self.file)
        }
        .map_err(|e| io_error(&self.path, "mapping a range of", e))?;
        // SAFETY: `skip < map_len`; the pointer stays inside the mapping.
        let ptr = unsafe { map.as_mut_ptr().add(skip) };
        // SAFETY: the `length` bytes at `ptr` belong to `map`, which the
        // returned value owns, and no one else can reach that private
        // mapping.
        let memory = unsafe { ExternalHostMemory::new(ptr, length as usize, Box::new(map)) }?;
        Ok(Some(memory))
    }

    /// Writes `data` at `offset` (scatter). The file must be writable and
    /// the range inside it.
    pub fn write_at(&self, offset: u64, data: &[u8]) -> Result<()> {
        if !self.writable {
            return Err(Status::new(
                StatusCode::PermissionDenied,
                format!(
                    "parameter file `{}` was not opened for writing",
                    self.path.display()
                ),
            ));
        }
        self.range(offset, data.len() as u64)?;
        write_all_at(&self.file, data, offset).map_err(|e| io_error(&self.path, "writing", e))
    }
}

impl iree_hal::File for ParameterFile {
    fn length(&self) -> u64 {
        self.len()
    }

    fn access(&self) -> iree_hal::MemoryAccess {
        if self.writable {
            iree_hal::MemoryAccess::READ | iree_hal::MemoryAccess::WRITE
        } else {
            iree_hal::MemoryAccess::READ
        }
    }

    fn read(&self, offset: u64, length: u64, f: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
        f(self.range(offset, length)?)
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        self.write_at(offset, data)
    }

    fn path(&self) -> Option<&Path> {
        Some(&self.path)
    }
}

fn page_size() -> u64 {
    // memmap2 aligns offsets for us only at the start of the mapping; the
    // kernel needs the offset to be a multiple of the page size. 64 KiB
    // covers every page size in use (4, 16 and 64 KiB).
    64 * 1024
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(unix)]
fn write_all_at(file: &File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        let n = file.seek_read(buf, offset)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut buf[n..];
        offset += n as u64;
    }
    Ok(())
}

#[cfg(windows)]
fn write_all_at(file: &File, mut buf: &[u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        let n = file.seek_write(buf, offset)?;
        buf = &buf[n..];
        offset += n as u64;
    }
    Ok(())
}
