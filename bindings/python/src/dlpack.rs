//! DLPack capsules (the `__dlpack__` exchange protocol): buffer views out
//! as `"dltensor"` capsules over their memory, and capsules in as buffer
//! views over theirs, without copies, as upstream's
//! `HalDevice.create_dlpack_capsule` / `from_dlpack_capsule` do.
//!
//! The structs are DLPack's C ABI (`dlpack.h`, the unversioned
//! `DLManagedTensor`). A producer hands its tensor over in a capsule named
//! `"dltensor"`; the consumer that takes it renames the capsule
//! `"used_dltensor"` and calls the tensor's deleter when done with the
//! memory, from any thread. A capsule dropped unconsumed calls the deleter
//! itself.

use std::ffi::{c_void, CStr};
use std::ptr::NonNull;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{
    Buffer, BufferParams, BufferUsage, BufferView, Device, ElementType, EncodingType, MemoryAccess,
    MemoryType, NumericalType,
};
use pyo3::ffi;
use pyo3::prelude::*;

use crate::errors::IntoPyResult;

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy)]
struct DlDevice {
    device_type: i32,
    device_id: i32,
}

/// `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy)]
struct DlDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

/// `DLTensor`.
#[repr(C)]
struct DlTensor {
    data: *mut c_void,
    device: DlDevice,
    ndim: i32,
    dtype: DlDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

/// `DLManagedTensor`.
#[repr(C)]
struct DlManagedTensor {
    dl_tensor: DlTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DlManagedTensor)>,
}

/// The name of a capsule holding an unconsumed `DLManagedTensor`.
const DLTENSOR: &CStr = c"dltensor";
/// The name a consumer gives a capsule it took the tensor from.
const USED_DLTENSOR: &CStr = c"used_dltensor";

/// `kDLCPU`.
pub const DL_CPU: i32 = 1;

/// DLPack device types whose memory the host addresses directly: `kDLCPU`,
/// `kDLCUDAHost`, `kDLROCMHost`, `kDLCUDAManaged`.
const HOST_DEVICE_TYPES: [i32; 4] = [DL_CPU, 3, 11, 13];

/// DLPack type codes and the HAL numerical types they stand for (the bit
/// width is the same on both sides). Signless HAL integers export as
/// `kDLInt`.
const TYPE_CODES: [(u8, NumericalType); 6] = [
    (0, NumericalType::INTEGER_SIGNED),   // kDLInt
    (1, NumericalType::INTEGER_UNSIGNED), // kDLUInt
    (2, NumericalType::FLOAT_IEEE),       // kDLFloat
    (4, NumericalType::FLOAT_BRAIN),      // kDLBfloat
    (5, NumericalType::FLOAT_COMPLEX),    // kDLComplex
    (6, NumericalType::BOOLEAN),          // kDLBool
];

/// The DLPack data type of `element_type`.
fn dl_data_type(element_type: ElementType) -> Result<DlDataType> {
    let numerical = match element_type.numerical_type() {
        NumericalType::INTEGER => NumericalType::INTEGER_SIGNED,
        n => n,
    };
    let code = TYPE_CODES
        .iter()
        .find(|(_, n)| *n == numerical)
        .map(|(code, _)| *code);
    match (code, u8::try_from(element_type.bit_count())) {
        (Some(code), Ok(bits)) => Ok(DlDataType {
            code,
            bits,
            lanes: 1,
        }),
        _ => Err(Status::new(
            StatusCode::InvalidArgument,
            "dlpack unsupported buffer view element type",
        )),
    }
}

/// The HAL element type of DLPack data type `dtype`.
fn element_type(dtype: DlDataType) -> Result<ElementType> {
    if dtype.lanes != 1 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "Unsupported dtype lanes != 1",
        ));
    }
    TYPE_CODES
        .iter()
        .find(|(code, _)| *code == dtype.code)
        .map(|(_, numerical)| ElementType::new(*numerical, u32::from(dtype.bits)))
        .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "Unsupported dlpack dtype code"))
}

/// An exported tensor: the `DLManagedTensor` (first, so a pointer to this
/// is a pointer to it) and what its pointers point into.
#[repr(C)]
struct Exported {
    managed: DlManagedTensor,
    shape: Vec<i64>,
    /// Keeps the memory alive until the consumer calls the deleter.
    _buffer: Buffer,
}

/// The deleter of exported tensors.
///
/// # Safety
///
/// `tensor` must come from [`export_capsule`] and be deleted once.
unsafe extern "C" fn delete_exported(tensor: *mut DlManagedTensor) {
    if !tensor.is_null() {
        // SAFETY: exported tensors are `Box<Exported>`s leaked by
        // `export_capsule`, with the managed tensor at offset 0 (repr(C));
        // the DLPack contract calls the deleter once.
        drop(unsafe { Box::from_raw(tensor.cast::<Exported>()) });
    }
}

/// The destructor of the capsules [`export_capsule`] makes: a capsule
/// still named `"dltensor"` was never consumed, so its tensor is deleted
/// here; a consumer has renamed it otherwise and deletes it itself.
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // SAFETY: CPython calls this with the GIL held and a live capsule;
    // `PyCapsule_IsValid` sets no exception.
    if unsafe { ffi::PyCapsule_IsValid(capsule, DLTENSOR.as_ptr()) } != 1 {
        return;
    }
    // SAFETY: as above; the name was just checked.
    let tensor = unsafe { ffi::PyCapsule_GetPointer(capsule, DLTENSOR.as_ptr()) };
    // SAFETY: an unconsumed capsule owns its tensor, which came from
    // `export_capsule`.
    unsafe { delete_exported(tensor.cast()) };
}

/// A `"dltensor"` capsule over the memory of `view`, labelled with the
/// DLPack device `(device_type, device_id)`. Host memory is exported by
/// its address, device-only memory by its device address; the capsule
/// (then its consumer) keeps the buffer alive. Like upstream, the export
/// does not order the consumer's accesses with device work.
pub fn export_capsule<'py>(
    py: Python<'py>,
    view: &BufferView,
    device_type: i32,
    device_id: i32,
) -> PyResult<Bound<'py, PyAny>> {
    let dtype = dl_data_type(view.element_type()).py()?;
    let shape = view
        .shape()
        .iter()
        .map(|&d| i64::try_from(d))
        .collect::<std::result::Result<Vec<i64>, _>>()
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("dimension too large"))?;
    let ndim = i32::try_from(shape.len())
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("too many dimensions"))?;
    let buffer = view.buffer().clone();
    let offset = usize::try_from(buffer.byte_offset())
        .map_err(|_| pyo3::exceptions::PyValueError::new_err("buffer offset too large"))?;
    let data = match buffer.device_memory() {
        Some(memory) => (memory.device_address() as usize).wrapping_add(offset) as *mut c_void,
        None => {
            // The guard only reads the base address: the consumer's
            // accesses are not tracked (upstream's are not either).
            let access = buffer
                .begin_device_access()
                .py_context("Cannot export device buffer")?;
            access.base_ptr().wrapping_add(offset).cast()
        }
    };
    let mut exported = Box::new(Exported {
        managed: DlManagedTensor {
            dl_tensor: DlTensor {
                data,
                device: DlDevice {
                    device_type,
                    device_id,
                },
                ndim,
                dtype,
                shape: std::ptr::null_mut(),
                // Null strides: dense row-major.
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_exported),
        },
        shape,
        _buffer: buffer,
    });
    // The vector's heap block does not move with the box.
    exported.managed.dl_tensor.shape = exported.shape.as_mut_ptr();
    let tensor = Box::into_raw(exported);
    // SAFETY: `tensor` is a valid, leaked `Exported`; the name is a static
    // C string, as capsules keep the pointer.
    let capsule =
        unsafe { ffi::PyCapsule_New(tensor.cast(), DLTENSOR.as_ptr(), Some(capsule_destructor)) };
    if capsule.is_null() {
        // SAFETY: the capsule was not made, so `tensor` is still ours.
        unsafe { delete_exported(tensor.cast()) };
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `capsule` is a new, non-null reference.
    Ok(unsafe { Bound::from_owned_ptr(py, capsule) })
}

/// A consumed `DLManagedTensor`: its deleter runs when this drops.
struct ManagedTensor(NonNull<DlManagedTensor>);

// SAFETY: DLPack lets consumers call the deleter from any thread, and the
// tensor's memory is reached only through the buffer that owns this.
unsafe impl Send for ManagedTensor {}
// SAFETY: shared references give no access to the tensor.
unsafe impl Sync for ManagedTensor {}

impl Drop for ManagedTensor {
    fn drop(&mut self) {
        // SAFETY: the producer's tensor stays valid until its deleter runs,
        // which happens once, here.
        unsafe {
            if let Some(deleter) = (*self.0.as_ptr()).deleter {
                deleter(self.0.as_ptr());
            }
        }
    }
}

/// A buffer view over the memory of DLPack capsule `capsule`
/// (`"dltensor"`), without a copy. The capsule is renamed
/// `"used_dltensor"`; the tensor's deleter runs when the last buffer
/// using the memory drops, or at once when the import fails. The memory
/// must be dense row-major, host-addressable and aligned to 64 bytes.
pub fn import_capsule(device: &dyn Device, capsule: &Bound<'_, PyAny>) -> PyResult<BufferView> {
    let py = capsule.py();
    // SAFETY: `PyCapsule_GetPointer` checks that its argument is a capsule
    // of that name and sets ValueError otherwise.
    let raw = unsafe { ffi::PyCapsule_GetPointer(capsule.as_ptr(), DLTENSOR.as_ptr()) };
    let Some(raw) = NonNull::new(raw.cast::<DlManagedTensor>()) else {
        return Err(PyErr::fetch(py));
    };
    // SAFETY: `capsule` is a live capsule (checked above); the name is a
    // static C string.
    if unsafe { ffi::PyCapsule_SetName(capsule.as_ptr(), USED_DLTENSOR.as_ptr()) } != 0 {
        return Err(PyErr::fetch(py));
    }
    // The tensor is ours from here: dropping `managed` deletes it.
    let managed = ManagedTensor(raw);
    // SAFETY: a "dltensor" capsule holds a valid `DLManagedTensor`, which
    // its producer keeps valid until the deleter runs (when `managed`
    // drops, after this borrow).
    let tensor = unsafe { &(*managed.0.as_ptr()).dl_tensor };
    let element_type = element_type(tensor.dtype).py()?;
    let ndim = usize::try_from(tensor.ndim).map_err(|_| invalid("negative dlpack ndim"))?;
    let dims: &[i64] = if ndim == 0 || tensor.shape.is_null() {
        &[]
    } else {
        // SAFETY: DLPack's `shape` holds `ndim` dimensions for the life of
        // the tensor.
        unsafe { std::slice::from_raw_parts(tensor.shape, ndim) }
    };
    if dims.len() != ndim {
        return Err(invalid("dlpack tensor has no shape"));
    }
    let shape = dims
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<Vec<usize>, _>>()
        .map_err(|_| invalid("negative dlpack dimension"))?;
    // Strides of a tensor with no elements do not matter.
    if !tensor.strides.is_null() && !dims.contains(&0) {
        // SAFETY: non-null `strides` hold `ndim` strides for the life of
        // the tensor.
        let strides = unsafe { std::slice::from_raw_parts(tensor.strides, ndim) };
        // Strides of 1- and 0-sized dimensions are meaningless; DLPack
        // producers may normalize them to anything.
        let mut expected: i64 = 1;
        for (&dim, &stride) in dims.iter().zip(strides).rev() {
            if dim == 0 || dim == 1 {
                continue;
            }
            if stride != expected {
                return Err(invalid("Unsupported strided tensor"));
            }
            expected = expected.saturating_mul(dim);
        }
    }
    if tensor.byte_offset != 0 {
        return Err(invalid("NYI: dlpack byte_offset != 0"));
    }
    if !HOST_DEVICE_TYPES.contains(&tensor.device.device_type) {
        return Err(invalid(&format!(
            "dlpack device type {} is not host memory; only host memory can be imported",
            tensor.device.device_type
        )));
    }
    let bits = shape
        .iter()
        .try_fold(element_type.bit_count(), |n, &d| n.checked_mul(d))
        .ok_or_else(|| invalid("dlpack tensor too large"))?;
    if bits % 8 != 0 {
        return Err(invalid("dlpack tensor does not have a byte aligned size"));
    }
    let length = bits / 8;
    let address = tensor.data as usize;
    let context = "Could not import external device buffer";
    if length > 0 && !address.is_multiple_of(iree_hal::buffer::HOST_ALLOCATION_ALIGNMENT) {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!(
                "imported heap buffer data must be aligned to {}; got {address:#x}",
                iree_hal::buffer::HOST_ALLOCATION_ALIGNMENT
            ),
        ))
        .py_context(context);
    }
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage::DEFAULT,
        access: MemoryAccess(MemoryAccess::READ.0 | MemoryAccess::WRITE.0),
        ..Default::default()
    };
    let allocator = device.allocator();
    // SAFETY: the producer keeps `length` bytes at `address` valid for
    // reads and writes until the deleter runs, which is when `managed`,
    // moved into the buffer as its owner, drops. Other holders of the
    // producer's memory (the array it came from) may still access it, as
    // DLPack allows; ordering that with device work is theirs to do.
    let buffer = unsafe {
        crate::hal::wrap_host_memory(allocator.as_ref(), params, address, length, managed)
    }
    .py_context(context)?;
    BufferView::new(buffer, shape, element_type, EncodingType::DENSE_ROW_MAJOR).py_context(context)
}

fn invalid(message: &str) -> PyErr {
    pyo3::exceptions::PyValueError::new_err(message.to_string())
}
