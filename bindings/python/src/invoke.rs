//! `FunctionInvoker`: `module.function(*args)` from Python, the whole call
//! path in Rust. Arguments are converted by the function's calling
//! convention (numpy arrays and array-likes become buffer views on the
//! device, Python numbers the scalar the slot wants, lists `vm.list`s);
//! the VM runs with the GIL released; buffer-view results come back as
//! `DeviceArray`s, scalars as Python numbers.

use std::sync::{Arc, Mutex};

use iree_base::Status;
use iree_hal::{Device, ElementType, Fence};
use iree_modules_hal::HalFence;
use iree_vm::{CconvType, Function, Ref, Stack, Value};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyString, PyTuple, PyType};
use pyo3::IntoPyObjectExt;

use crate::errors::status_to_py;
use crate::hal::{view_from_host, HalBufferView, HalDevice};
use crate::vm::{py_to_ref, VmContext, VmFunction, VmRef};

/// Adds `FunctionInvoker` and the dtype hook to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FunctionInvoker>()?;
    m.add_function(wrap_pyfunction!(_set_dtype_table, m)?)?;
    Ok(())
}

static NUMPY: GILOnceCell<Py<PyModule>> = GILOnceCell::new();
static NDARRAY: GILOnceCell<Py<PyType>> = GILOnceCell::new();
static DEVICE_ARRAY: GILOnceCell<Py<PyType>> = GILOnceCell::new();
/// `{numpy dtype: element type}` for dtypes without a plain numpy type
/// string (`ml_dtypes.bfloat16`, the float8 types), set by the package.
static DTYPE_TABLE: GILOnceCell<Py<PyDict>> = GILOnceCell::new();

/// The `numpy` module.
pub fn numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    Ok(NUMPY
        .get_or_try_init(py, || py.import("numpy").map(Bound::unbind))?
        .bind(py))
}

/// `numpy.ndarray`.
pub fn numpy_ndarray(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    Ok(NDARRAY
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                numpy(py)?
                    .getattr("ndarray")?
                    .downcast_into::<PyType>()?
                    .unbind(),
            )
        })?
        .bind(py))
}

fn device_array_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    Ok(DEVICE_ARRAY
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(
                py.import("iree_rust.runtime.array_interop")?
                    .getattr("DeviceArray")?
                    .downcast_into::<PyType>()?
                    .unbind(),
            )
        })?
        .bind(py))
}

/// Installs the table of extra dtypes (`{dtype: element type}`).
#[pyfunction]
fn _set_dtype_table(py: Python<'_>, table: Bound<'_, PyDict>) -> PyResult<()> {
    DTYPE_TABLE
        .set(py, table.unbind())
        .map_err(|_| PyRuntimeError::new_err("the dtype table is already set"))
}

/// The element type of a numpy dtype type string (`<f4`, `|b1`).
fn element_type_of_typestr(typestr: &str) -> Option<ElementType> {
    Some(match typestr.get(1..)? {
        "f2" => ElementType::FLOAT_16,
        "f4" => ElementType::FLOAT_32,
        "f8" => ElementType::FLOAT_64,
        "i1" => ElementType::SINT_8,
        "i2" => ElementType::SINT_16,
        "i4" => ElementType::SINT_32,
        "i8" => ElementType::SINT_64,
        "u1" => ElementType::UINT_8,
        "u2" => ElementType::UINT_16,
        "u4" => ElementType::UINT_32,
        "u8" => ElementType::UINT_64,
        "b1" => ElementType::BOOL_8,
        "c8" => ElementType::COMPLEX_FLOAT_64,
        "c16" => ElementType::COMPLEX_FLOAT_128,
        _ => return None,
    })
}

/// A buffer view on `device` holding a copy of numpy array `array`.
/// Element types of the native-order dtypes already seen, by dtype object
/// (numpy keeps one object per builtin dtype): reading `dtype.str` formats
/// a string on every call, which was a tenth of a tiny call's Python side.
/// Holds strong references, so an address is never reused for another
/// dtype while it is listed; bounded, as dtypes made on the fly
/// (structured, parametrized) would grow it without end.
static DTYPES_SEEN: Mutex<Vec<(Py<PyAny>, ElementType)>> = Mutex::new(Vec::new());
/// How many dtypes [`DTYPES_SEEN`] remembers.
const DTYPES_REMEMBERED: usize = 32;

fn ndarray_to_view(device: &dyn Device, array: &Bound<'_, PyAny>) -> PyResult<Ref> {
    let py = array.py();
    let dtype = array.getattr(pyo3::intern!(py, "dtype"))?;
    let seen = DTYPES_SEEN.lock().ok().and_then(|seen| {
        seen.iter()
            .find(|(d, _)| d.as_ptr() == dtype.as_ptr())
            .map(|(_, t)| *t)
    });
    let element_type = match seen {
        Some(t) => t,
        None => {
            let t = element_type_of_dtype(py, &dtype)?;
            let Some(t) = t else {
                // Big-endian data: converted to native order first.
                let native = dtype.call_method1(pyo3::intern!(py, "newbyteorder"), ("=",))?;
                let converted = array.call_method1(pyo3::intern!(py, "astype"), (native,))?;
                return ndarray_to_view(device, &converted);
            };
            if let Ok(mut seen) = DTYPES_SEEN.lock() {
                if seen.len() < DTYPES_REMEMBERED {
                    seen.push((dtype.clone().unbind(), t));
                }
            }
            t
        }
    };
    let shape: Vec<usize> = array.getattr(pyo3::intern!(py, "shape"))?.extract()?;
    let nbytes: usize = array.getattr(pyo3::intern!(py, "nbytes"))?.extract()?;
    if nbytes >= DIRECT_COPY_BYTES {
        if let Some(view) = contiguous_to_view(device, array, &shape, element_type, nbytes)? {
            return Ok(Ref::new(iree_modules_hal::HalBufferView(view)));
        }
    }
    let bytes = array.call_method0(pyo3::intern!(py, "tobytes"))?;
    let bytes = bytes.downcast::<PyBytes>()?.as_bytes();
    let view = view_from_host(device, shape, element_type, bytes)
        .map_err(|s| status_to_py(&s, "Error allocating buffer view"))?;
    Ok(Ref::new(iree_modules_hal::HalBufferView(view)))
}

/// The element type of `dtype` from its type string (then the dtype
/// table); `None` for big-endian data, which must be converted first.
fn element_type_of_dtype(
    py: Python<'_>,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Option<ElementType>> {
    let typestr = dtype.getattr(pyo3::intern!(py, "str"))?;
    let typestr = typestr.downcast::<PyString>()?.to_cow()?;
    let typestr: &str = &typestr;
    if typestr.starts_with('>') {
        return Ok(None);
    }
    Ok(Some(match element_type_of_typestr(typestr) {
        Some(t) => t,
        None => {
            let known = match DTYPE_TABLE.get(py) {
                Some(table) => table.bind(py).get_item(dtype)?,
                None => None,
            };
            match known {
                Some(t) => ElementType(t.extract()?),
                None => {
                    return Err(PyTypeError::new_err(format!(
                        "unsupported numpy dtype {}",
                        dtype.str()?
                    )))
                }
            }
        }
    }))
}

/// Arrays at least this large are copied straight from numpy's memory
/// (one copy instead of two); smaller ones through `tobytes()`, which
/// costs less than asking numpy for its array interface.
const DIRECT_COPY_BYTES: usize = 64 * 1024;

/// A buffer view holding a copy of C-contiguous `array`, read in place
/// through `__array_interface__`; None when the array is not C-contiguous
/// or its byte size is not what `shape` x `element_type` needs.
fn contiguous_to_view(
    device: &dyn Device,
    array: &Bound<'_, PyAny>,
    shape: &[usize],
    element_type: ElementType,
    nbytes: usize,
) -> PyResult<Option<iree_hal::BufferView>> {
    let py = array.py();
    let interface = array.getattr(pyo3::intern!(py, "__array_interface__"))?;
    let interface = interface.downcast::<PyDict>()?;
    let contiguous = match interface.get_item("strides")? {
        Some(strides) => strides.is_none(),
        None => true,
    };
    let expected = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .and_then(|count| element_type.packed_byte_count(count));
    if !contiguous || expected != Some(nbytes) {
        return Ok(None);
    }
    let Some(data) = interface.get_item("data")? else {
        return Ok(None);
    };
    let (address, _read_only): (usize, bool) = data.extract()?;
    if address == 0 {
        return Ok(None);
    }
    // SAFETY: numpy reports `address` as the start of this C-contiguous
    // array's `nbytes` bytes (checked above against its shape and element
    // size). `array` is borrowed for the whole read, so the memory stays
    // allocated, and the GIL is held, so no Python code can resize or free
    // it meanwhile. The bytes are only read (copied into the new buffer).
    let bytes = unsafe { std::slice::from_raw_parts(address as *const u8, nbytes) };
    view_from_host(device, shape.to_vec(), element_type, bytes)
        .map(Some)
        .map_err(|s| status_to_py(&s, "Error allocating buffer view"))
}

/// The shape and C-order bytes of `numpy.asarray(obj)`.
pub fn array_bytes(obj: &Bound<'_, PyAny>) -> PyResult<(Vec<usize>, Vec<u8>)> {
    let py = obj.py();
    let array = numpy(py)?.call_method1(pyo3::intern!(py, "asarray"), (obj,))?;
    let kind = array
        .getattr(pyo3::intern!(py, "dtype"))?
        .getattr(pyo3::intern!(py, "kind"))?;
    if kind.extract::<String>()? == "O" {
        return Err(PyTypeError::new_err(
            "arrays of Python objects have no device representation",
        ));
    }
    let shape: Vec<usize> = array.getattr(pyo3::intern!(py, "shape"))?.extract()?;
    let bytes = array.call_method0(pyo3::intern!(py, "tobytes"))?;
    let bytes = bytes.downcast::<PyBytes>()?.as_bytes().to_vec();
    Ok((shape, bytes))
}

/// A function of a context, callable from Python. Its state is shared:
/// [`FunctionInvoker::_share`] makes another invoker object over the same
/// state, which is how `BoundModule` hands out a new invoker per attribute
/// lookup (as upstream does) without building one each time.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct FunctionInvoker {
    state: Arc<Invoker>,
}

impl std::ops::Deref for FunctionInvoker {
    type Target = Invoker;
    fn deref(&self) -> &Invoker {
        &self.state
    }
}

/// What a [`FunctionInvoker`] calls with.
pub struct Invoker {
    vm_context: Py<VmContext>,
    device_obj: Py<HalDevice>,
    vm_function: Py<VmFunction>,
    device: Arc<dyn Device>,
    function: Function,
    args: Vec<CconvType>,
    coarse_fences: bool,
    /// Reused across calls (its scratch space); a concurrent call from
    /// another thread takes a fresh one.
    stack: Mutex<Stack>,
}

impl Invoker {
    /// The VM value for argument `index` of slot type `ty`.
    fn convert_arg(&self, index: usize, obj: &Bound<'_, PyAny>, ty: &CconvType) -> PyResult<Value> {
        let py = obj.py();
        let scalar = |what: &str| {
            PyRuntimeError::new_err(format!(
                "Error invoking function: FAILED_PRECONDITION; argument {index} is {what} but the function takes {}",
                match ty {
                    CconvType::I32 => "an i32",
                    CconvType::I64 => "an i64",
                    CconvType::F32 => "an f32",
                    CconvType::F64 => "an f64",
                    CconvType::Ref => "a ref",
                    CconvType::Variadic(_) => "a variadic list",
                }
            ))
        };
        match ty {
            CconvType::I32 | CconvType::I64 => {
                if obj.is_instance_of::<PyInt>() || obj.is_instance_of::<PyBool>() {
                    let v: i64 = obj.extract()?;
                    return Ok(if *ty == CconvType::I32 {
                        Value::I32(v as i32)
                    } else {
                        Value::I64(v)
                    });
                }
                Err(scalar("not an int"))
            }
            CconvType::F32 | CconvType::F64 => {
                if obj.is_instance_of::<PyFloat>()
                    || obj.is_instance_of::<PyInt>()
                    || obj.is_instance_of::<PyBool>()
                {
                    let v: f64 = obj.extract()?;
                    return Ok(if *ty == CconvType::F32 {
                        Value::F32(v as f32)
                    } else {
                        Value::F64(v)
                    });
                }
                Err(scalar("not a number"))
            }
            CconvType::Ref => {
                if obj.is_instance(numpy_ndarray(py)?)? {
                    return Ok(Value::Ref(Some(ndarray_to_view(&*self.device, obj)?)));
                }
                if obj.is_instance(device_array_class(py)?)? {
                    let view = obj.getattr(pyo3::intern!(py, "_buffer_view"))?;
                    if let Some(r) = py_to_ref(&view)? {
                        return Ok(Value::Ref(Some(r)));
                    }
                }
                if obj.is_none() {
                    return Ok(Value::Ref(None));
                }
                if let Some(r) = py_to_ref(obj)? {
                    return Ok(Value::Ref(Some(r)));
                }
                if obj.is_instance_of::<PyInt>()
                    || obj.is_instance_of::<PyFloat>()
                    || obj.is_instance_of::<PyBool>()
                {
                    return Err(scalar("a Python number"));
                }
                let array = numpy(py)?.call_method1(pyo3::intern!(py, "asarray"), (obj,))?;
                Ok(Value::Ref(Some(ndarray_to_view(&*self.device, &array)?)))
            }
            CconvType::Variadic(_) => Err(PyValueError::new_err(
                "functions with variadic arguments cannot be called from Python",
            )),
        }
    }

    fn result_to_py(&self, py: Python<'_>, value: Value) -> PyResult<PyObject> {
        match value {
            Value::Ref(Some(r)) if r.downcast::<iree_modules_hal::HalBufferView>().is_some() => {
                let view = HalBufferView { r };
                device_array_class(py)?
                    .call1((self.device_obj.clone_ref(py), view, true))
                    .map(Bound::unbind)
            }
            Value::Ref(Some(r)) => VmRef { r }.into_py_any(py),
            other => crate::vm::value_to_py(py, other),
        }
    }

    fn run(&self, args: Vec<Value>) -> Result<Vec<Value>, Status> {
        match self.stack.try_lock() {
            Ok(mut stack) => iree_vm::invoke_with_stack(&self.function, &args, &mut stack),
            Err(_) => iree_vm::invoke(&self.function, &args),
        }
    }
}

#[pymethods]
impl FunctionInvoker {
    #[new]
    fn new(
        vm_context: Bound<'_, VmContext>,
        device: Bound<'_, HalDevice>,
        vm_function: Bound<'_, VmFunction>,
    ) -> PyResult<FunctionInvoker> {
        let function = vm_context.get().resolve(vm_function.get())?;
        let cconv = function.cconv().map_err(|s| status_to_py(&s, ""))?;
        let coarse_fences = function.info().attr("iree.abi.model") == Some("coarse-fences");
        let mut args = cconv.args;
        if coarse_fences && args.len() >= 2 {
            args.truncate(args.len() - 2);
        }
        Ok(FunctionInvoker {
            state: Arc::new(Invoker {
                device: device.get().device.clone(),
                vm_context: vm_context.unbind(),
                device_obj: device.unbind(),
                vm_function: vm_function.unbind(),
                function,
                args,
                coarse_fences,
                stack: Mutex::new(Stack::new()),
            }),
        })
    }

    /// Another invoker of the same function over this one's state (its
    /// resolved function, argument types and reusable stack): a new object,
    /// as a new lookup gives, for the cost of an allocation.
    fn _share(&self) -> FunctionInvoker {
        FunctionInvoker {
            state: self.state.clone(),
        }
    }

    /// The function called.
    #[getter]
    fn vm_function(&self, py: Python<'_>) -> Py<VmFunction> {
        self.vm_function.clone_ref(py)
    }

    /// The device results are on.
    #[getter]
    fn _device_obj(&self, py: Python<'_>) -> Py<HalDevice> {
        self.device_obj.clone_ref(py)
    }

    /// The context the function runs in.
    #[getter]
    fn _vm_context(&self, py: Python<'_>) -> Py<VmContext> {
        self.vm_context.clone_ref(py)
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyObject> {
        let this = slf.get();
        let py = slf.py();
        if kwargs.is_some_and(|k| !k.is_empty()) {
            return Err(PyValueError::new_err(
                "kwargs not supported for dynamic dispatch functions",
            ));
        }
        // Async (coarse-fences) functions: callers may pass the wait and
        // signal fences themselves, as upstream requires; without them the
        // call waits for its own signal fence.
        let explicit_fences = this.coarse_fences && args.len() == this.args.len() + 2;
        if explicit_fences {
            let mut values = Vec::with_capacity(args.len());
            for (i, obj) in args.iter().enumerate() {
                let ty = this.args.get(i).unwrap_or(&CconvType::Ref);
                values.push(this.convert_arg(i, &obj, ty)?);
            }
            let results = py
                .allow_threads(|| this.run(values))
                .map_err(|s| status_to_py(&s, "Error invoking function"))?;
            return this.results_to_py(py, results);
        }
        if args.len() != this.args.len() {
            return Err(PyValueError::new_err(format!(
                "Error invoking function: INVALID_ARGUMENT; input list and function mismatch; expected {} arguments but passed {}",
                this.args.len(),
                args.len()
            )));
        }
        let mut values = Vec::with_capacity(this.args.len() + 2);
        for (i, (obj, ty)) in args.iter().zip(&this.args).enumerate() {
            values.push(this.convert_arg(i, &obj, ty)?);
        }
        let results = if this.coarse_fences {
            let finish = Fence::with_new_semaphore();
            values.push(Value::Ref(Some(Ref::new(HalFence(Fence::new())))));
            values.push(Value::Ref(Some(Ref::new(HalFence(finish.clone())))));
            py.allow_threads(|| {
                let results = this.run(values)?;
                finish.wait(None)?;
                Ok(results)
            })
        } else {
            py.allow_threads(|| this.run(values))
        }
        .map_err(|s| status_to_py(&s, "Error invoking function"))?;
        this.results_to_py(py, results)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.vm_function.bind(py).repr()?.to_string())
    }
}

impl Invoker {
    /// None, the one result, or a tuple of them.
    fn results_to_py(&self, py: Python<'_>, results: Vec<Value>) -> PyResult<PyObject> {
        match results.len() {
            0 => Ok(py.None()),
            1 => {
                let value = results.into_iter().next().expect("one result");
                self.result_to_py(py, value)
            }
            _ => {
                let items = results
                    .into_iter()
                    .map(|v| self.result_to_py(py, v))
                    .collect::<PyResult<Vec<_>>>()?;
                PyTuple::new(py, items)?.into_py_any(py)
            }
        }
    }
}
