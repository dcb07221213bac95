//! `VmBuffer`: a `vm.buffer` made from Python, whose bytes Python reads
//! and writes through the buffer protocol (`memoryview(b)`, `bytes(b)`).
//!
//! The limited API has the buffer protocol only from Python 3.11, and this
//! module is built for the 3.9 one, where PyO3 cannot declare
//! `__getbuffer__`. So on 3.11 and later the class exported as `VmBuffer`
//! is a subclass of the `#[pyclass]`, made at import with
//! `PyType_FromSpecWithBases` and a `bf_getbuffer` slot (slot numbers and
//! the `Py_buffer` layout are the stable ABI's). On 3.9 and 3.10 it is the
//! `#[pyclass]` itself: everything but the buffer protocol, and `bytes(b)`
//! still works through `__bytes__`.

use std::alloc::Layout;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr::NonNull;

use iree_base::{Status, StatusCode};
use iree_vm::Ref;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple, PyType};

use crate::errors::status_to_py;
use crate::vm::VmRef;

/// Adds `VmBuffer` to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let base = py.get_type::<VmBuffer>();
    if py.version_info() >= (3, 11) {
        m.add("VmBuffer", buffer_subclass(&base)?)
    } else {
        m.add("VmBuffer", base)
    }
}

/// Zeroed host bytes with an alignment, freed on drop.
struct HostBytes {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the bytes are plain memory owned by this value; they are reached
// only through the `vm.buffer` that owns it (atomically) and the exports
// of the `VmBuffer` holding that.
unsafe impl Send for HostBytes {}
// SAFETY: as above; `&HostBytes` gives no access to the bytes.
unsafe impl Sync for HostBytes {}

impl HostBytes {
    /// `length` zeroed bytes aligned to `alignment`, with the 4-byte words
    /// holding them (as `vm.buffer` accesses them) inside the allocation.
    fn zeroed(length: usize, alignment: usize) -> Result<HostBytes, Status> {
        let too_large = || {
            Status::new(
                StatusCode::ResourceExhausted,
                format!("cannot allocate a buffer of {length} bytes aligned to {alignment}"),
            )
        };
        let size = length
            .checked_next_multiple_of(4)
            .ok_or_else(too_large)?
            .max(4);
        let layout = Layout::from_size_align(size, alignment.max(8)).map_err(|_| too_large())?;
        // SAFETY: `layout` has a nonzero size.
        let ptr =
            NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) }).ok_or_else(too_large)?;
        Ok(HostBytes { ptr, layout })
    }
}

impl Drop for HostBytes {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// A `vm.buffer` of `length` bytes (zeroed), mutable by the VM and through
/// the buffer protocol when `mutable`.
#[pyclass(
    module = "iree_rust.runtime._binding",
    name = "VmBuffer",
    subclass,
    frozen
)]
pub struct VmBuffer {
    /// The `vm.buffer` ref.
    r: Ref,
    /// The address of the bytes, which `r` keeps alive and in place.
    address: usize,
    length: usize,
    mutable: bool,
}

impl VmBuffer {
    fn buffer(&self) -> Option<&iree_vm::Buffer> {
        self.r.downcast::<iree_vm::Buffer>()
    }
}

#[pymethods]
impl VmBuffer {
    #[new]
    #[pyo3(signature = (length, alignment=0, mutable=true))]
    fn new(length: usize, alignment: usize, mutable: bool) -> PyResult<VmBuffer> {
        if alignment != 0 && !alignment.is_power_of_two() {
            return Err(status_to_py(
                &Status::new(
                    StatusCode::InvalidArgument,
                    format!("alignments must be powers of two (got {alignment})"),
                ),
                "Error creating buffer",
            ));
        }
        let bytes = HostBytes::zeroed(length, alignment)
            .map_err(|s| status_to_py(&s, "Error creating buffer"))?;
        let address = bytes.ptr.as_ptr() as usize;
        // SAFETY: `bytes` owns `layout.size()` (a multiple of 4, at least
        // `length`) zeroed bytes aligned to at least 8, so the words holding
        // the range are in the allocation, which the buffer keeps alive as
        // its owner. Besides the buffer, only buffer-protocol exports of the
        // `VmBuffer` reach the bytes (from Python, as with upstream's
        // `VmBuffer`): Python code that writes them while a VM call on
        // another thread uses the buffer races with it, as upstream's would.
        let buffer =
            unsafe { iree_vm::Buffer::external(bytes.ptr.as_ptr(), length, mutable, bytes) };
        Ok(VmBuffer {
            r: Ref::new(buffer),
            address,
            length,
            mutable,
        })
    }

    /// A copy of the contents.
    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = self.buffer().map(|b| b.to_vec()).unwrap_or_default();
        PyBytes::new(py, &bytes)
    }

    fn __len__(&self) -> usize {
        self.length
    }

    /// A `VmRef` to the buffer.
    #[getter]
    fn r#ref(&self) -> VmRef {
        VmRef { r: self.r.clone() }
    }

    /// A `VmRef` to the buffer.
    #[getter]
    fn __iree_vm_ref__(&self) -> VmRef {
        self.r#ref()
    }

    /// The buffer a `VmRef` refers to when it is one made by `VmBuffer`,
    /// else None.
    #[staticmethod]
    fn __iree_vm_cast__(py: Python<'_>, r: PyRef<'_, VmRef>) -> PyResult<PyObject> {
        let _ = r;
        // Buffers the VM makes have no address to export, and a VmRef does
        // not lead back to the VmBuffer object that made one.
        Ok(py.None())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.downcast::<VmBuffer>() {
            Ok(o) => Ref::ptr_eq(&self.r, &o.get().r),
            Err(_) => false,
        }
    }

    fn __repr__(&self) -> String {
        format!("<VmBuffer size {} at 0x{:x}>", self.length, self.address)
    }
}

/// `Py_buffer` (stable ABI layout).
#[repr(C)]
struct PyBufferView {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

const PYBUF_WRITABLE: c_int = 0x0001;
const PYBUF_FORMAT: c_int = 0x0004;
const PYBUF_ND: c_int = 0x0008;
const PYBUF_STRIDES: c_int = 0x0010 | PYBUF_ND;

/// The buffer's format: unsigned bytes.
const FORMAT_BYTES: &CStr = c"B";

/// `bf_getbuffer` of the `VmBuffer` subclass: a one-dimensional view of
/// unsigned bytes, read-only unless the buffer is mutable, as
/// `PyBuffer_FillInfo` makes.
///
/// # Safety
///
/// Called by CPython with the GIL held, `exporter` an instance of the
/// subclass and `view` null or writable.
unsafe extern "C" fn get_buffer(
    exporter: *mut ffi::PyObject,
    view: *mut PyBufferView,
    flags: c_int,
) -> c_int {
    // SAFETY: CPython holds the GIL while calling a type slot.
    let py = unsafe { Python::assume_gil_acquired() };
    // SAFETY: `exporter` is a live object borrowed for the call.
    let object = unsafe { Bound::from_borrowed_ptr(py, exporter) };
    let (address, length, mutable) = match object.downcast::<VmBuffer>() {
        Ok(b) => {
            let b = b.get();
            (b.address, b.length, b.mutable)
        }
        Err(e) => {
            PyErr::from(e).restore(py);
            return -1;
        }
    };
    if view.is_null() {
        pyo3::exceptions::PyBufferError::new_err("NULL view in getbuffer").restore(py);
        return -1;
    }
    if flags & PYBUF_WRITABLE != 0 && !mutable {
        pyo3::exceptions::PyBufferError::new_err("Object is not writable.").restore(py);
        // SAFETY: `view` is non-null and writable (checked; CPython's
        // contract); a failed request leaves `obj` null.
        unsafe { (*view).obj = std::ptr::null_mut() };
        return -1;
    }
    // SAFETY: as above for `view`; `exporter` gets the new reference the
    // view holds, which `PyBuffer_Release` drops. The bytes at `address`
    // live as long as the `VmBuffer`, so as long as the view.
    unsafe {
        let view = &mut *view;
        ffi::Py_IncRef(exporter);
        view.obj = exporter;
        view.buf = address as *mut c_void;
        view.len = length as ffi::Py_ssize_t;
        view.itemsize = 1;
        view.readonly = c_int::from(!mutable);
        view.ndim = 1;
        view.format = if flags & PYBUF_FORMAT != 0 {
            FORMAT_BYTES.as_ptr().cast_mut()
        } else {
            std::ptr::null_mut()
        };
        view.shape = if flags & PYBUF_ND != 0 {
            &mut view.len
        } else {
            std::ptr::null_mut()
        };
        view.strides = if flags & PYBUF_STRIDES == PYBUF_STRIDES {
            &mut view.itemsize
        } else {
            std::ptr::null_mut()
        };
        view.suboffsets = std::ptr::null_mut();
        view.internal = std::ptr::null_mut();
    }
    0
}

/// The subclass of `base` (the `#[pyclass]`) that adds `bf_getbuffer`.
fn buffer_subclass<'py>(base: &Bound<'py, PyType>) -> PyResult<Bound<'py, PyAny>> {
    let py = base.py();
    // The slots are copied; the name must outlive the type (static).
    let mut slots = [
        ffi::PyType_Slot {
            slot: ffi::Py_bf_getbuffer,
            pfunc: get_buffer as *mut c_void,
        },
        ffi::PyType_Slot {
            slot: 0,
            pfunc: std::ptr::null_mut(),
        },
    ];
    let mut spec = ffi::PyType_Spec {
        name: c"iree_rust.runtime._binding.VmBuffer".as_ptr(),
        // Zero: the base's size.
        basicsize: 0,
        itemsize: 0,
        flags: ffi::Py_TPFLAGS_DEFAULT as _,
        slots: slots.as_mut_ptr(),
    };
    let bases = PyTuple::new(py, [base])?;
    // SAFETY: `spec` and its slots are valid for the call, the name is
    // static, and `bases` is a tuple of one heap type that allows
    // subclasses; the result is a new reference or null with an exception.
    let subclass = unsafe { ffi::PyType_FromSpecWithBases(&mut spec, bases.as_ptr()) };
    if subclass.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: a new, non-null reference.
    Ok(unsafe { Bound::from_owned_ptr(py, subclass) })
}
