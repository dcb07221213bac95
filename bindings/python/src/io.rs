//! Parameters: `ParameterIndex`, `ParameterIndexEntry`,
//! `ParameterProvider` and `create_io_parameters_module`.

use std::io::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};

use iree_io_parameters::{
    append_file_to_index, BuilderEntry, DataContents, EntryStorage, FileMode, IndexEntry,
    IndexProvider, IrpaBuilder, ParameterFile,
};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::errors::IntoPyResult;
use crate::vm::{VmInstance, VmModule};

/// Adds the parameter classes to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ParameterIndex>()?;
    m.add_class::<ParameterIndexEntry>()?;
    m.add_class::<ParameterProvider>()?;
    m.add_class::<FileHandle>()?;
    m.add_class::<FileBytes>()?;
    m.add_function(wrap_pyfunction!(create_io_parameters_module, m)?)?;
    Ok(())
}

/// An index of named parameters.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct ParameterIndex {
    index: Mutex<iree_io_parameters::ParameterIndex>,
    /// The files that came from `wrap_fd` handles, with their descriptors,
    /// so that entries in them name their handle as upstream's do.
    fd_files: Mutex<Vec<(Arc<ParameterFile>, i32)>>,
}

/// One entry of a `ParameterIndex`.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct ParameterIndexEntry {
    entry: IndexEntry,
    /// The descriptor of the `wrap_fd` handle holding the entry's bytes.
    fd: Option<i32>,
}

/// Bytes that parameter entries can point into: a copy of host memory
/// (`wrap_memory`) or an open file (`wrap_fd`).
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct FileHandle {
    file: Arc<ParameterFile>,
    /// The descriptor a `wrap_fd` handle was made from; None for handles
    /// over memory (host allocations and the files of loaded indices).
    fd: Option<i32>,
}

/// Read-only bytes of a parameter file, exported to numpy through the
/// array interface; the array keeps this object, and so the file, alive.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
struct FileBytes {
    file: Arc<ParameterFile>,
    offset: usize,
    length: usize,
}

#[pymethods]
impl FileBytes {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let bytes = &self.file.bytes()[self.offset..self.offset + self.length];
        let interface = PyDict::new(py);
        interface.set_item("shape", (self.length,))?;
        interface.set_item("typestr", "|u1")?;
        interface.set_item("data", (bytes.as_ptr() as usize, true))?;
        interface.set_item("version", 3)?;
        Ok(interface)
    }
}

/// A read-only `memoryview` of `length` bytes at `offset` in `file`,
/// without a copy: a view of a numpy array over the file's memory.
fn file_memoryview<'py>(
    py: Python<'py>,
    file: &Arc<ParameterFile>,
    offset: u64,
    length: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let in_range = file.range(offset, length).is_ok();
    let (Ok(offset), Ok(length), true) =
        (usize::try_from(offset), usize::try_from(length), in_range)
    else {
        return Err(PyValueError::new_err(format!(
            "range {offset}+{length} is outside the file's {} bytes",
            file.bytes().len()
        )));
    };
    let holder = Bound::new(
        py,
        FileBytes {
            file: file.clone(),
            offset,
            length,
        },
    )?;
    let array = crate::invoke::numpy(py)?.call_method1("asarray", (holder,))?;
    py.import("builtins")?
        .getattr("memoryview")?
        .call1((array,))
}

#[pymethods]
impl FileHandle {
    /// A handle over a copy of `host_buffer`'s bytes.
    #[staticmethod]
    #[pyo3(signature = (host_buffer, readable=true, writable=false))]
    fn wrap_memory(
        host_buffer: &Bound<'_, PyAny>,
        readable: bool,
        writable: bool,
    ) -> PyResult<FileHandle> {
        let _ = (readable, writable);
        let bytes = python_bytes(host_buffer)?;
        let file = staged_file(&bytes)
            .map_err(|e| PyRuntimeError::new_err(format!("Error staging host memory: {e}")))?;
        Ok(FileHandle {
            file: Arc::new(file),
            fd: None,
        })
    }

    /// A handle over the open file `fd` (mapped; the descriptor is not
    /// closed).
    #[staticmethod]
    #[pyo3(signature = (fd, readable=true, writable=false))]
    fn wrap_fd(fd: i32, readable: bool, writable: bool) -> PyResult<FileHandle> {
        let _ = readable;
        let path = format!("/proc/self/fd/{fd}");
        let file = if writable {
            ParameterFile::open_writable(&path)
        } else {
            ParameterFile::open(&path, FileMode::Mapped)
        }
        .py_context("Error wrapping file descriptor")?;
        Ok(FileHandle {
            file: Arc::new(file),
            fd: Some(fd),
        })
    }

    /// The bytes, as a read-only `memoryview` (for handles over host
    /// memory).
    #[getter]
    fn host_allocation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.fd.is_some() {
            return Err(PyValueError::new_err(
                "FileHandle is not based on a host allocation",
            ));
        }
        file_memoryview(py, &self.file, 0, self.file.bytes().len() as u64)
    }

    /// Whether the handle is over host memory.
    #[getter]
    fn is_host_allocation(&self) -> bool {
        self.fd.is_none()
    }

    /// Whether the handle wraps a file descriptor.
    #[getter]
    fn is_fd(&self) -> bool {
        self.fd.is_some()
    }

    /// The wrapped file descriptor.
    #[getter]
    fn fd(&self) -> PyResult<i32> {
        self.fd
            .ok_or_else(|| PyValueError::new_err("FileHandle is not based on a file descriptor"))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(match slf.get().fd {
            Some(fd) => format!("FileHandle<fd({fd})>"),
            None => format!(
                "FileHandle<host_allocation({})>",
                slf.getattr("host_allocation")?.repr()?
            ),
        })
    }

    /// Whether the handle was opened for asynchronous I/O (never).
    #[getter]
    fn is_async(&self) -> bool {
        false
    }
}

/// The bytes of a Python object that supports `bytes(obj)`.
fn python_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    let py = obj.py();
    Ok(py
        .import("builtins")?
        .getattr("bytes")?
        .call1((obj,))?
        .downcast::<PyBytes>()?
        .as_bytes()
        .to_vec())
}

/// Serves parameters of one scope to the `io_parameters` module.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct ParameterProvider {
    provider: Arc<dyn iree_io_parameters::ParameterProvider>,
}

fn metadata_bytes(metadata: Option<&Bound<'_, PyAny>>) -> PyResult<Box<[u8]>> {
    Ok(match metadata {
        None => Box::new([]),
        Some(m) if m.is_instance_of::<PyString>() => {
            m.extract::<String>()?.into_bytes().into_boxed_slice()
        }
        Some(m) => m.extract::<Vec<u8>>()?.into_boxed_slice(),
    })
}

impl ParameterIndex {
    /// Notes that `handle`'s file came from a descriptor, if it did.
    fn remember_fd(&self, handle: &FileHandle) -> PyResult<()> {
        if let Some(fd) = handle.fd {
            let mut fd_files = self
                .fd_files
                .lock()
                .map_err(|_| PyRuntimeError::new_err("parameter index poisoned"))?;
            if !fd_files.iter().any(|(f, _)| Arc::ptr_eq(f, &handle.file)) {
                fd_files.push((handle.file.clone(), fd));
            }
        }
        Ok(())
    }

    /// The Python object for `entry`.
    fn entry_object(&self, entry: &IndexEntry) -> PyResult<ParameterIndexEntry> {
        let fd = match &entry.storage {
            EntryStorage::File { file, .. } => self
                .fd_files
                .lock()
                .map_err(|_| PyRuntimeError::new_err("parameter index poisoned"))?
                .iter()
                .find(|(f, _)| Arc::ptr_eq(f, file))
                .map(|&(_, fd)| fd),
            EntryStorage::Splat { .. } => None,
        };
        Ok(ParameterIndexEntry {
            entry: entry.clone(),
            fd,
        })
    }

    fn lock(&self) -> PyResult<MutexGuard<'_, iree_io_parameters::ParameterIndex>> {
        self.index
            .lock()
            .map_err(|_| PyRuntimeError::new_err("parameter index poisoned"))
    }
}

#[pymethods]
impl ParameterIndex {
    #[new]
    fn new() -> ParameterIndex {
        ParameterIndex {
            index: Mutex::new(iree_io_parameters::ParameterIndex::new()),
            fd_files: Mutex::new(Vec::new()),
        }
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(self.lock()?.len())
    }

    fn __getitem__(&self, i: isize) -> PyResult<ParameterIndexEntry> {
        let index = self.lock()?;
        let n = index.len() as isize;
        let i = if i < 0 { i + n } else { i };
        if i < 0 || i >= n {
            return Err(PyIndexError::new_err("parameter index entry out of range"));
        }
        self.entry_object(&index.entries()[i as usize])
    }

    /// Capacity hint (nothing to do).
    fn reserve(&self, new_capacity: usize) {
        let _ = new_capacity;
    }

    /// `(key, entry)` for every entry, in order.
    fn items(&self) -> PyResult<Vec<(String, ParameterIndexEntry)>> {
        self.lock()?
            .entries()
            .iter()
            .map(|e| Ok((e.key_str().into_owned(), self.entry_object(e)?)))
            .collect()
    }

    /// Adds the entries of a parameter file (`.irpa`, `.gguf`,
    /// `.safetensors`), mapped (default) or read into memory
    /// (`mmap=False`).
    #[pyo3(signature = (file_path, format=None, readable=true, writable=false, mmap=None, *, mode=None))]
    #[allow(clippy::too_many_arguments)] // upstream's signature
    fn load(
        &self,
        py: Python<'_>,
        file_path: &Bound<'_, PyAny>,
        format: Option<String>,
        readable: bool,
        writable: bool,
        mmap: Option<bool>,
        mode: Option<String>,
    ) -> PyResult<()> {
        let _ = (format, readable, writable);
        if mmap.is_some() && mode.is_some() {
            return Err(PyValueError::new_err(
                "'mmap' and 'mode' are mutually exclusive",
            ));
        }
        let file_mode = match (mmap, mode.as_deref()) {
            (Some(false), _) | (None, Some("preload")) => FileMode::Preload,
            _ => FileMode::Mapped,
        };
        let path: String = file_path.str()?.extract()?;
        let mut loaded = iree_io_parameters::ParameterIndex::new();
        py.allow_threads(|| append_file_to_index(&path, file_mode, &mut loaded))
            .py_context("Error loading parameter file")?;
        let mut index = self.lock()?;
        for entry in loaded.entries() {
            index.add(entry.clone());
        }
        Ok(())
    }

    /// Adds `key` as `total_length` bytes of the repeating `pattern`.
    #[pyo3(signature = (key, pattern, total_length, *, metadata=None))]
    fn add_splat(
        &self,
        key: String,
        pattern: &Bound<'_, PyAny>,
        total_length: u64,
        metadata: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let bytes: Vec<u8> = if let Ok(b) = pattern.downcast::<PyBytes>() {
            b.as_bytes().to_vec()
        } else {
            let py = pattern.py();
            let array = py.import("numpy")?.call_method1("asarray", (pattern,))?;
            array
                .call_method0("tobytes")?
                .downcast::<PyBytes>()?
                .as_bytes()
                .to_vec()
        };
        if bytes.is_empty() || bytes.len() > 16 {
            return Err(PyValueError::new_err(
                "splat patterns must be 1 to 16 bytes",
            ));
        }
        let mut pattern = [0u8; 16];
        pattern[..bytes.len()].copy_from_slice(&bytes);
        self.lock()?.add(IndexEntry {
            key: key.into_bytes().into_boxed_slice(),
            metadata: metadata_bytes(metadata)?,
            length: total_length,
            storage: EntryStorage::Splat {
                pattern,
                pattern_length: bytes.len() as u8,
            },
        });
        Ok(())
    }

    /// Adds `key` as `length` bytes at `offset` of `file_handle`.
    #[pyo3(signature = (key, file_handle, length, *, offset=0, metadata=None))]
    fn add_from_file_handle(
        &self,
        key: String,
        file_handle: PyRef<'_, FileHandle>,
        length: u64,
        offset: u64,
        metadata: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        file_handle.file.range(offset, length).py()?;
        self.remember_fd(&file_handle)?;
        self.lock()?.add(IndexEntry {
            key: key.into_bytes().into_boxed_slice(),
            metadata: metadata_bytes(metadata)?,
            length,
            storage: EntryStorage::File {
                file: file_handle.file.clone(),
                offset,
            },
        });
        Ok(())
    }

    /// Adds the entries of the archive in `file_handle`, of `format`
    /// (`irpa`, `gguf`, `safetensors`).
    fn load_from_file_handle(
        &self,
        py: Python<'_>,
        file_handle: PyRef<'_, FileHandle>,
        format: &str,
    ) -> PyResult<()> {
        let format = iree_io_parameters::Format::from_path(format).py()?;
        let file = file_handle.file.clone();
        let mut loaded = iree_io_parameters::ParameterIndex::new();
        py.allow_threads(|| {
            iree_io_parameters::formats::parse_file_index(
                format,
                file,
                FileMode::Mapped,
                &mut loaded,
            )
        })
        .py_context("Error loading parameter archive")?;
        self.remember_fd(&file_handle)?;
        let mut index = self.lock()?;
        for entry in loaded.entries() {
            index.add(entry.clone());
        }
        Ok(())
    }

    /// Adds `key` holding a copy of `buffer`'s bytes.
    #[pyo3(signature = (key, buffer, *, readable=true, writable=false, metadata=None))]
    fn add_buffer(
        &self,
        key: String,
        buffer: &Bound<'_, PyAny>,
        readable: bool,
        writable: bool,
        metadata: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = (readable, writable);
        let bytes = python_bytes(buffer)?;
        // Parameter files are files: stage the bytes in an unlinked
        // temporary one, read back into memory.
        let file = staged_file(&bytes)
            .map_err(|e| PyRuntimeError::new_err(format!("Error staging parameter buffer: {e}")))?;
        self.lock()?.add(IndexEntry {
            key: key.into_bytes().into_boxed_slice(),
            metadata: metadata_bytes(metadata)?,
            length: bytes.len() as u64,
            storage: EntryStorage::File {
                file: Arc::new(file),
                offset: 0,
            },
        });
        Ok(())
    }

    /// Writes the entries to a new `.irpa` archive at `file_path` and
    /// returns the archive's index (appended to `target_index` when
    /// given). Entry metadata is not written.
    #[pyo3(signature = (file_path, file_offset=0, target_index=None))]
    fn create_archive_file(
        &self,
        py: Python<'_>,
        file_path: &Bound<'_, PyAny>,
        file_offset: u64,
        target_index: Option<Py<ParameterIndex>>,
    ) -> PyResult<Py<ParameterIndex>> {
        if file_offset != 0 {
            return Err(pyo3::exceptions::PyNotImplementedError::new_err(
                "archives at a nonzero file offset are not supported",
            ));
        }
        let path: String = file_path.str()?.extract()?;
        let mut builder = IrpaBuilder::new();
        for entry in self.lock()?.entries() {
            let key = entry.key.to_vec();
            let built = match &entry.storage {
                EntryStorage::Splat {
                    pattern,
                    pattern_length,
                } => BuilderEntry::Splat {
                    key,
                    length: entry.length,
                    pattern: pattern[..*pattern_length as usize].to_vec(),
                },
                EntryStorage::File { file, offset } => BuilderEntry::Data {
                    key,
                    length: entry.length,
                    contents: DataContents::FileRange(file.clone(), *offset),
                },
            };
            builder.add(built).py()?;
        }
        let written = py
            .allow_threads(|| builder.write_file_indexed(&path))
            .py_context("Error creating parameter archive")?;
        let target = match target_index {
            Some(t) => t,
            None => Py::new(py, ParameterIndex::new())?,
        };
        {
            let mut index = target.get().lock()?;
            for entry in written.entries() {
                index.add(entry.clone());
            }
        }
        Ok(target)
    }

    /// A provider serving a snapshot of this index under `scope`.
    #[pyo3(signature = (*, scope=String::new(), max_concurrent_operations=None))]
    fn create_provider(
        &self,
        scope: String,
        max_concurrent_operations: Option<usize>,
    ) -> PyResult<ParameterProvider> {
        let _ = max_concurrent_operations;
        let mut copy = iree_io_parameters::ParameterIndex::new();
        for entry in self.lock()?.entries() {
            copy.add(entry.clone());
        }
        Ok(ParameterProvider {
            provider: Arc::new(IndexProvider::new(scope.into_bytes(), copy)),
        })
    }

    /// The entries in upstream's `iree-dump-parameters` table.
    fn __repr__(&self) -> PyResult<String> {
        Ok(self.lock()?.dump(""))
    }
}

/// `bytes` in a parameter file read into memory (its temporary file is
/// removed before this returns).
fn staged_file(bytes: &[u8]) -> std::io::Result<ParameterFile> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "iree-rust-param-{}-{}.bin",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        std::fs::File::create(&path)?.write_all(bytes)?;
        ParameterFile::open(&path, FileMode::Preload).map_err(std::io::Error::other)
    })();
    let _ = std::fs::remove_file(&path);
    result
}

#[pymethods]
impl ParameterIndexEntry {
    /// The key.
    #[getter]
    fn key(&self) -> String {
        self.entry.key_str().into_owned()
    }

    /// The length in bytes.
    #[getter]
    fn length(&self) -> u64 {
        self.entry.length
    }

    /// Format-specific metadata.
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.entry.metadata)
    }

    /// Whether the bytes are in a file.
    #[getter]
    fn is_file(&self) -> bool {
        matches!(self.entry.storage, EntryStorage::File { .. })
    }

    /// Whether the entry is a repeated pattern.
    #[getter]
    fn is_splat(&self) -> bool {
        matches!(self.entry.storage, EntryStorage::Splat { .. })
    }

    /// The splat pattern.
    #[getter]
    fn splat_pattern<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match &self.entry.storage {
            EntryStorage::Splat {
                pattern,
                pattern_length,
            } => Ok(PyBytes::new(py, &pattern[..*pattern_length as usize])),
            EntryStorage::File { .. } => Err(PyValueError::new_err("Entry is not splat")),
        }
    }

    /// `(FileHandle, offset)` of the entry's bytes.
    #[getter]
    fn file_storage(&self) -> PyResult<(FileHandle, u64)> {
        match &self.entry.storage {
            EntryStorage::File { file, offset } => Ok((
                FileHandle {
                    file: file.clone(),
                    fd: self.fd,
                },
                *offset,
            )),
            EntryStorage::Splat { .. } => {
                Err(PyValueError::new_err("Entry is not file storage based"))
            }
        }
    }

    /// The entry's bytes in its file, as a read-only `memoryview` (no copy).
    #[getter]
    fn file_view<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.entry.storage {
            EntryStorage::File { file, offset } => {
                file_memoryview(py, file, *offset, self.entry.length)
            }
            EntryStorage::Splat { .. } => {
                Err(PyValueError::new_err("Entry is not file storage based"))
            }
        }
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let this = slf.get();
        Ok(match &this.entry.storage {
            EntryStorage::Splat { .. } => format!(
                "<ParameterIndexEntry '{}' splat {}:{}>",
                this.key(),
                slf.getattr("splat_pattern")?.repr()?,
                this.entry.length
            ),
            EntryStorage::File { offset, .. } => {
                let handle = slf.getattr("file_storage")?.get_item(0)?;
                format!(
                    "<ParameterIndexEntry '{}' {}:{offset}:{}",
                    this.key(),
                    handle.repr()?,
                    this.entry.length
                )
            }
        })
    }
}

/// Builds the `io_parameters` module over `providers`.
#[pyfunction]
#[pyo3(signature = (instance, *providers))]
fn create_io_parameters_module(
    instance: PyRef<'_, VmInstance>,
    providers: Vec<PyRef<'_, ParameterProvider>>,
) -> PyResult<VmModule> {
    let _ = instance;
    let providers = providers.iter().map(|p| p.provider.clone()).collect();
    let module = iree_io_parameters::create_io_parameters_module(providers)
        .py_context("Error creating io_parameters module")?;
    Ok(VmModule::wrap(module))
}
