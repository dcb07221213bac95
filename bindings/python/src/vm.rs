//! VM classes: `VmInstance`, `VmModule`, `VmFunction`, `VmContext`,
//! `VmVariantList`, `VmRef`, and the conversions between VM values and
//! Python objects they share.

use std::sync::{Arc, RwLock, Weak};

use iree_base::{Status, StatusCode};
use iree_vm::list::{List, ListElementType};
use iree_vm::{CconvType, Context, Function, Module, Ref, Value};
use iree_vm_bytecode::BytecodeModule;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyTuple, PyType};
use pyo3::IntoPyObjectExt;

use crate::errors::IntoPyResult;
use crate::hal::{HalBuffer, HalBufferView};

/// Adds the VM classes to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<VmInstance>()?;
    m.add_class::<VmModule>()?;
    m.add_class::<VmFunction>()?;
    m.add_class::<VmContext>()?;
    m.add_class::<VmVariantList>()?;
    m.add_class::<VmRef>()?;
    Ok(())
}

/// The VM's type registry (`VmInstance()`), with the HAL's ref types
/// registered.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct VmInstance {
    pub(crate) vm: Arc<iree_vm::Instance>,
}

#[pymethods]
impl VmInstance {
    #[new]
    fn new() -> PyResult<VmInstance> {
        let vm = iree_vm::Instance::new();
        iree_modules_hal::register_types(&vm).py()?;
        Ok(VmInstance { vm })
    }
}

/// A loaded module: bytecode (`.vmfb`), a native Rust module (`hal`,
/// `io_parameters`) or one defined in Python (`PyModuleInterface`).
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct VmModule {
    pub(crate) module: Arc<dyn Module>,
    /// `destroy_callback` of `mmap`/`wrap_buffer`, called when this object
    /// goes away.
    destroy_callback: Option<PyObject>,
    /// The Python buffer the module was made from (`stashed_flatbuffer_blob`).
    stashed: Option<PyObject>,
}

impl VmModule {
    /// Wraps a module.
    pub fn wrap(module: Arc<dyn Module>) -> VmModule {
        VmModule {
            module,
            destroy_callback: None,
            stashed: None,
        }
    }

    /// Loads `buffer`'s bytes (copied), remembering `buffer` as upstream's
    /// modules do.
    fn from_python_buffer(instance: &VmInstance, buffer: &Bound<'_, PyAny>) -> PyResult<VmModule> {
        let mut module = load_bytes(instance, python_bytes(buffer)?)?;
        module.stashed = Some(buffer.clone().unbind());
        Ok(module)
    }
}

impl Drop for VmModule {
    fn drop(&mut self) {
        if let Some(callback) = self.destroy_callback.take() {
            Python::with_gil(|py| {
                if let Err(e) = callback.call0(py) {
                    e.write_unraisable(py, None);
                }
            });
        }
    }
}

/// The bytes of a Python object that supports `bytes(obj)` (bytes,
/// bytearray, memoryview, numpy arrays, mmap objects).
fn python_bytes(buffer: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = buffer.downcast::<pyo3::types::PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    let builtins = buffer.py().import("builtins")?;
    let bytes = builtins.getattr("bytes")?.call1((buffer,))?;
    Ok(bytes
        .downcast::<pyo3::types::PyBytes>()?
        .as_bytes()
        .to_vec())
}

/// The alignment upstream wants of module memory it uses in place
/// (`IREE_HAL_HEAP_BUFFER_ALIGNMENT`): it copies or rejects buffers that
/// start elsewhere.
const MODULE_BUFFER_ALIGNMENT: usize = 64;

/// The address of the first byte of a buffer-protocol object (read
/// through numpy, since the limited API has no buffer protocol before
/// Python 3.11).
fn buffer_address(buffer: &Bound<'_, PyAny>) -> PyResult<usize> {
    let py = buffer.py();
    let array = crate::invoke::numpy(py)?.call_method1("frombuffer", (buffer, "uint8"))?;
    let interface = array.getattr("__array_interface__")?;
    let (address, _read_only): (usize, bool) = interface.get_item("data")?.extract()?;
    Ok(address)
}

/// Warns (UserWarning) as upstream does when `buffer` is not aligned for
/// use in place and so is copied, unless told not to.
fn warn_copy(buffer: &Bound<'_, PyAny>, warn_if_copy: bool) -> PyResult<()> {
    if warn_if_copy && buffer_address(buffer)? % MODULE_BUFFER_ALIGNMENT != 0 {
        let py = buffer.py();
        PyErr::warn(
            py,
            &py.get_type::<pyo3::exceptions::PyUserWarning>(),
            c"Making copy of unaligned VmModule buffer. It is recommended to make this deterministic by calling `copy_buffer` to always make a copy or `mmap` to efficiently load from a file. This warning can be silenced by adding `warn_if_copy=False` to `from_buffer`",
            1,
        )?;
    }
    Ok(())
}

fn load_bytes(instance: &VmInstance, bytes: Vec<u8>) -> PyResult<VmModule> {
    let module = BytecodeModule::from_bytes(&instance.vm, Arc::new(bytes))
        .py_context("Error creating vm module from FlatBuffer")?;
    Ok(VmModule::wrap(module))
}

#[pymethods]
impl VmModule {
    /// Memory-maps (here: reads once into immutable page-aligned memory) a
    /// `.vmfb` file.
    #[staticmethod]
    #[pyo3(signature = (instance, filepath, destroy_callback=None))]
    fn mmap(
        instance: PyRef<'_, VmInstance>,
        filepath: &Bound<'_, PyAny>,
        destroy_callback: Option<PyObject>,
    ) -> PyResult<VmModule> {
        let path: String = filepath.str()?.extract()?;
        let bytes = iree_runtime::image::read_image(&path).map_err(|e| {
            let code = if e.kind() == std::io::ErrorKind::NotFound {
                StatusCode::NotFound
            } else {
                StatusCode::Unavailable
            };
            crate::errors::status_to_py(
                &Status::new(code, format!("failed to open file '{path}': {e}")),
                "",
            )
        })?;
        let module = BytecodeModule::from_bytes(&instance.vm, bytes)
            .py_context("Error creating vm module from mapped file")?;
        Ok(VmModule {
            module,
            destroy_callback,
            stashed: None,
        })
    }

    /// A module from a copy of `buffer`'s bytes.
    #[staticmethod]
    fn copy_buffer(
        instance: PyRef<'_, VmInstance>,
        buffer: &Bound<'_, PyAny>,
    ) -> PyResult<VmModule> {
        VmModule::from_python_buffer(&instance, buffer)
    }

    /// A module from `buffer`. Modules here always own a copy of their
    /// bytes; as upstream, a buffer that is not 64-byte aligned (which
    /// upstream must copy) warns unless `warn_if_copy` is False.
    #[staticmethod]
    #[pyo3(signature = (instance, buffer, warn_if_copy=true))]
    fn from_flatbuffer(
        instance: PyRef<'_, VmInstance>,
        buffer: &Bound<'_, PyAny>,
        warn_if_copy: bool,
    ) -> PyResult<VmModule> {
        warn_copy(buffer, warn_if_copy)?;
        VmModule::from_python_buffer(&instance, buffer)
    }

    /// Same as `from_flatbuffer`.
    #[staticmethod]
    #[pyo3(signature = (instance, buffer, warn_if_copy=true))]
    fn from_buffer(
        instance: PyRef<'_, VmInstance>,
        buffer: &Bound<'_, PyAny>,
        warn_if_copy: bool,
    ) -> PyResult<VmModule> {
        Self::from_flatbuffer(instance, buffer, warn_if_copy)
    }

    /// A module over `buffer`, which must be 64-byte aligned as upstream
    /// requires (its bytes are copied here); `destroy_callback` runs when
    /// the module object goes away.
    #[staticmethod]
    #[pyo3(signature = (instance, buffer, destroy_callback=None, close_buffer=false))]
    fn wrap_buffer(
        instance: PyRef<'_, VmInstance>,
        buffer: &Bound<'_, PyAny>,
        destroy_callback: Option<PyObject>,
        close_buffer: bool,
    ) -> PyResult<VmModule> {
        let address = buffer_address(buffer)?;
        if address % MODULE_BUFFER_ALIGNMENT != 0 {
            return Err(PyValueError::new_err(format!(
                "VmModule.from_aligned_memory received an unaligned buffer. Got {address:#x}, expected alignment {MODULE_BUFFER_ALIGNMENT}"
            )));
        }
        let mut module = VmModule::from_python_buffer(&instance, buffer)?;
        if close_buffer {
            buffer.call_method0("close")?;
            module.stashed = None;
        }
        module.destroy_callback = destroy_callback;
        Ok(module)
    }

    /// The system module `name` (`hal` needs a device: use
    /// `create_hal_module`).
    #[staticmethod]
    fn resolve_module_dependency(
        instance: PyRef<'_, VmInstance>,
        name: &str,
        minimum_version: u32,
    ) -> PyResult<VmModule> {
        let _ = instance;
        let module = iree_runtime::inline_system_module(name, None)
            .ok_or_else(|| {
                PyRuntimeError::new_err(format!(
                    "Error resolving module dependency '{name}': NOT_FOUND; no registered provider"
                ))
            })?
            .py_context("Error resolving module dependency")?;
        if module.version() < minimum_version {
            return Err(PyRuntimeError::new_err(format!(
                "Error resolving module dependency '{name}': NOT_FOUND; version {} is older than the required {minimum_version}",
                module.version()
            )));
        }
        Ok(VmModule::wrap(module))
    }

    /// `(name, minimum_version, optional)` of every module this one
    /// imports from, in order.
    #[getter]
    fn _dependencies(&self) -> Vec<(String, u32, bool)> {
        self.module
            .dependencies()
            .iter()
            .map(|d| (d.name.clone(), d.minimum_version, d.optional))
            .collect()
    }

    /// The module name.
    #[getter]
    fn name(&self) -> &str {
        self.module.name()
    }

    /// The module version.
    #[getter]
    fn version(&self) -> u32 {
        self.module.version()
    }

    /// Exported function names, in export order.
    #[getter]
    fn function_names(&self) -> Vec<String> {
        self.module
            .exports()
            .iter()
            .map(|e| e.name.clone())
            .collect()
    }

    /// The buffer the module was made from (`from_buffer`,
    /// `from_flatbuffer`, `copy_buffer`, `wrap_buffer`); None for `mmap`
    /// and native modules.
    #[getter]
    fn stashed_flatbuffer_blob(&self, py: Python<'_>) -> Option<PyObject> {
        self.stashed.as_ref().map(|b| b.clone_ref(py))
    }

    /// The export `name`, or None.
    #[pyo3(signature = (name, linkage=2))]
    fn lookup_function(&self, name: &str, linkage: i64) -> Option<VmFunction> {
        if linkage != 2 {
            return None;
        }
        self.module.lookup_export(name).map(|ordinal| VmFunction {
            module: Arc::downgrade(&self.module),
            module_name: self.module.name().to_string(),
            info: self.module.exports()[ordinal as usize].clone(),
            ordinal,
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "<VmModule {} : [{}]>",
            self.module.name(),
            self.function_names().join(", ")
        )
    }
}

/// An exported function of a module. Like upstream's, it does not keep
/// its module alive: calling it through a context keeps the module, and
/// once the module is gone the function can no longer be resolved.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct VmFunction {
    module: Weak<dyn Module>,
    module_name: String,
    info: iree_vm::ExportInfo,
    pub(crate) ordinal: u32,
}

impl VmFunction {
    pub(crate) fn info(&self) -> &iree_vm::ExportInfo {
        &self.info
    }
}

#[pymethods]
impl VmFunction {
    /// `Linkage.EXPORT` (2).
    #[getter]
    fn linkage(&self) -> i64 {
        2
    }

    /// The providing module's name.
    #[getter]
    fn module_name(&self) -> &str {
        &self.module_name
    }

    /// The function name.
    #[getter]
    fn name(&self) -> String {
        self.info().name.clone()
    }

    /// The export ordinal.
    #[getter]
    fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// The reflection attributes (`iree.abi.declaration`, ...).
    #[getter]
    fn reflection<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (k, v) in &self.info().attrs {
            dict.set_item(k, v)?;
        }
        Ok(dict)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let reflection = self.reflection(py)?.repr()?.to_string();
        Ok(format!(
            "<VmFunction {}({}), reflection = {reflection}>",
            self.info().name,
            self.info().cconv
        ))
    }
}

/// An ordered set of module instances with their imports resolved.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct VmContext {
    pub(crate) context: RwLock<Context>,
}

impl VmContext {
    /// The function `function` names, bound to its module's instance in
    /// this context.
    pub(crate) fn resolve(&self, function: &VmFunction) -> PyResult<Function> {
        let context = self
            .context
            .read()
            .map_err(|_| PyRuntimeError::new_err("the VM context is poisoned"))?;
        let module = function.module.upgrade();
        let instance = module
            .and_then(|module| {
                context
                    .modules()
                    .iter()
                    .rev()
                    .find(|m| {
                        std::ptr::addr_eq(m.module() as *const dyn Module, Arc::as_ptr(&module))
                    })
                    .cloned()
            })
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "module '{}' of function '{}' is not registered in this context",
                    function.module_name, function.info.name
                ))
            })?;
        Ok(Function::new(instance, function.ordinal))
    }
}

fn modules_of(modules: &Bound<'_, PyAny>) -> PyResult<Vec<Arc<dyn Module>>> {
    let mut out = Vec::new();
    for item in modules.try_iter()? {
        let item = item?;
        let module = item.downcast::<VmModule>()?;
        out.push(module.get().module.clone());
    }
    Ok(out)
}

#[pymethods]
impl VmContext {
    #[new]
    #[pyo3(signature = (instance, modules=None))]
    fn new(
        py: Python<'_>,
        instance: PyRef<'_, VmInstance>,
        modules: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<VmContext> {
        let modules = match modules {
            Some(m) => modules_of(m)?,
            None => Vec::new(),
        };
        let vm = instance.vm.clone();
        let context = py
            .allow_threads(|| Context::with_modules(vm, modules))
            .py_context("Error creating VM context")?;
        Ok(VmContext {
            context: RwLock::new(context),
        })
    }

    /// Registers more modules, in order.
    fn register_modules(&self, py: Python<'_>, modules: &Bound<'_, PyAny>) -> PyResult<()> {
        let modules = modules_of(modules)?;
        py.allow_threads(|| {
            let mut context = self
                .context
                .write()
                .map_err(|_| Status::new(StatusCode::Internal, "the VM context is poisoned"))?;
            for module in modules {
                context.register(module)?;
            }
            Ok(())
        })
        .py_context("Error registering modules")
    }

    /// A number identifying this context.
    #[getter]
    fn context_id(slf: &Bound<'_, Self>) -> usize {
        slf.as_ptr() as usize
    }

    /// Calls `function` with the values of `inputs`, appending its results
    /// to `outputs`.
    fn invoke(
        &self,
        py: Python<'_>,
        function: PyRef<'_, VmFunction>,
        inputs: PyRef<'_, VmVariantList>,
        outputs: PyRef<'_, VmVariantList>,
    ) -> PyResult<()> {
        let function = self.resolve(&function)?;
        let cconv = function.cconv().py()?;
        let values = inputs.list.to_values();
        if values.len() != cconv.args.len() {
            return Err(PyValueError::new_err(format!(
                "Error invoking function: INVALID_ARGUMENT; input list and function mismatch; expected {} arguments but passed {}",
                cconv.args.len(),
                values.len()
            )));
        }
        let mut args: Vec<Value> = Vec::with_capacity(values.len());
        for (i, (value, ty)) in values.into_iter().zip(&cconv.args).enumerate() {
            // A list element of the wrong kind cannot be read as the
            // argument (upstream: FAILED_PRECONDITION from the list).
            if value.is_ref() != (*ty == CconvType::Ref) {
                return Err(PyRuntimeError::new_err(format!(
                    "Error invoking function: FAILED_PRECONDITION; input {i} is {} but the function takes {}",
                    if value.is_ref() { "a ref" } else { "a value" },
                    if *ty == CconvType::Ref { "a ref" } else { "a value" }
                )));
            }
            args.push(coerce(value, ty));
        }
        let results = py
            .allow_threads(|| iree_vm::invoke(&function, &args))
            .py_context("Error invoking function")?;
        for value in results {
            outputs.list.push(value).py()?;
        }
        Ok(())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> String {
        format!("<VmContext {:#x}>", slf.as_ptr() as usize)
    }
}

/// Converts a primitive to the primitive type a cconv slot wants (lists
/// hold what `push_int`/`push_float` stored: i64 and f64).
pub(crate) fn coerce(value: Value, ty: &CconvType) -> Value {
    match (ty, &value) {
        (CconvType::I32, Value::I64(v)) => Value::I32(*v as i32),
        (CconvType::I32, Value::I8(v)) => Value::I32(i32::from(*v)),
        (CconvType::I32, Value::I16(v)) => Value::I32(i32::from(*v)),
        (CconvType::I64, Value::I32(v)) => Value::I64(i64::from(*v)),
        (CconvType::F32, Value::F64(v)) => Value::F32(*v as f32),
        (CconvType::F64, Value::F32(v)) => Value::F64(f64::from(*v)),
        _ => value,
    }
}

/// A `vm.list` of variants.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct VmVariantList {
    pub(crate) list: Arc<List>,
}

impl VmVariantList {
    /// Wraps a list.
    pub fn wrap(list: Arc<List>) -> VmVariantList {
        VmVariantList { list }
    }

    fn get(&self, index: usize) -> PyResult<Value> {
        self.list
            .get_value(index)
            .map_err(|s| pyo3::exceptions::PyIndexError::new_err(s.to_string()))
    }
}

/// The VM value a Python object is, for a dynamic (variant) slot: ints are
/// i64, floats f64, lists/tuples become lists, and refs stay refs.
pub(crate) fn py_to_variant(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Ref(None));
    }
    if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyInt>() {
        return Ok(Value::I64(obj.extract()?));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Value::F64(obj.extract()?));
    }
    if let Some(r) = py_to_ref(obj)? {
        return Ok(Value::Ref(Some(r)));
    }
    Err(PyTypeError::new_err(format!(
        "cannot convert a {} to a VM value",
        obj.get_type().name()?
    )))
}

/// The ref a Python object holds (`VmRef`, `HalBufferView`, `HalBuffer`,
/// `VmVariantList`, anything with `__iree_vm_ref__`), or None.
pub(crate) fn py_to_ref(obj: &Bound<'_, PyAny>) -> PyResult<Option<Ref>> {
    if let Ok(view) = obj.downcast::<HalBufferView>() {
        return Ok(Some(view.get().r.clone()));
    }
    if let Ok(r) = obj.downcast::<VmRef>() {
        return Ok(Some(r.get().r.clone()));
    }
    if let Ok(list) = obj.downcast::<VmVariantList>() {
        return Ok(Some(Ref::from_arc(list.get().list.clone())));
    }
    if let Ok(buffer) = obj.downcast::<HalBuffer>() {
        return Ok(Some(buffer.get().r.clone()));
    }
    if let Ok(fence) = obj.downcast::<crate::sync::HalFence>() {
        return Ok(Some(fence.get().to_ref()?));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let list = List::with_capacity(ListElementType::Variant, obj.len()?).py()?;
        for item in obj.try_iter()? {
            list.push(py_to_variant(&item?)?).py()?;
        }
        return Ok(Some(Ref::new(list)));
    }
    if let Ok(inner) = obj.getattr("__iree_vm_ref__") {
        if !inner.is(obj) {
            return py_to_ref(&inner);
        }
    }
    Ok(None)
}

/// The Python object for a VM value: ints, floats, None, or a `VmRef`.
pub(crate) fn value_to_py(py: Python<'_>, value: Value) -> PyResult<PyObject> {
    match value {
        Value::I8(v) => v.into_py_any(py),
        Value::I16(v) => v.into_py_any(py),
        Value::I32(v) => v.into_py_any(py),
        Value::I64(v) => v.into_py_any(py),
        Value::F32(v) => f64::from(v).into_py_any(py),
        Value::F64(v) => v.into_py_any(py),
        Value::Ref(None) => Ok(py.None()),
        Value::Ref(Some(r)) => VmRef { r }.into_py_any(py),
    }
}

/// How upstream prints a list element in `repr(VmVariantList)`.
fn format_value(value: &Value, out: &mut String) {
    use std::fmt::Write as _;
    match value {
        Value::I8(v) => write!(out, "{v}"),
        Value::I16(v) => write!(out, "{v}"),
        Value::I32(v) => write!(out, "{v}"),
        Value::I64(v) => write!(out, "{v}"),
        Value::F32(v) => write!(out, "{v:.6}"),
        Value::F64(v) => write!(out, "{v:.6}"),
        Value::Ref(None) => write!(out, "None"),
        Value::Ref(Some(r)) => {
            if let Some(list) = r.downcast::<List>() {
                out.push_str("List[");
                for (i, v) in list.to_values().iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    format_value(v, out);
                }
                out.push(']');
                Ok(())
            } else if let Some(view) = r.downcast::<iree_modules_hal::HalBufferView>() {
                let shape: Vec<String> = view.0.shape().iter().map(|d| d.to_string()).collect();
                write!(
                    out,
                    "HalBufferView({}:0x{})",
                    shape.join("x"),
                    crate::hal::element_type_hex(view.0.element_type())
                )
            } else if let Some(fence) = r.downcast::<iree_modules_hal::HalFence>() {
                write!(out, "fence({})", fence.0.timepoints().len())
            } else {
                write!(out, "Unknown({})", r.ref_type().name())
            }
        }
    }
    .expect("writing to a String cannot fail");
}

#[pymethods]
impl VmVariantList {
    #[new]
    fn new(capacity: usize) -> PyResult<VmVariantList> {
        Ok(VmVariantList {
            list: Arc::new(List::with_capacity(ListElementType::Variant, capacity).py()?),
        })
    }

    /// The list a `VmRef` refers to.
    #[staticmethod]
    fn __iree_vm_cast__(r: PyRef<'_, VmRef>) -> PyResult<VmVariantList> {
        r.r.downcast_arc::<List>()
            .map(|list| VmVariantList { list })
            .ok_or_else(|| PyValueError::new_err("ref is not a vm.list"))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.downcast::<VmVariantList>() {
            Ok(o) => Arc::ptr_eq(&self.list, &o.get().list),
            Err(_) => false,
        }
    }

    /// Appends an integer (as i64).
    fn push_int(&self, value: i64) -> PyResult<()> {
        self.list.push(Value::I64(value)).py()
    }

    /// Appends a float (as f64).
    fn push_float(&self, value: f64) -> PyResult<()> {
        self.list.push(Value::F64(value)).py()
    }

    /// Appends a list.
    fn push_list(&self, value: PyRef<'_, VmVariantList>) -> PyResult<()> {
        self.list
            .push(Value::Ref(Some(Ref::from_arc(value.list.clone()))))
            .py()
    }

    /// Appends a ref (`VmRef` or an object with `__iree_vm_ref__`).
    fn push_ref(&self, r: &Bound<'_, PyAny>) -> PyResult<()> {
        let r = py_to_ref(r)?.ok_or_else(|| PyTypeError::new_err("expected a VM ref"))?;
        self.list.push(Value::Ref(Some(r))).py()
    }

    /// Element `index`: an int, a float, None or a `VmRef`.
    fn get_variant(&self, py: Python<'_>, index: usize) -> PyResult<PyObject> {
        value_to_py(py, self.get(index)?)
    }

    /// Element `index` as a `VmRef`.
    fn get_as_ref(&self, index: usize) -> PyResult<VmRef> {
        match self.get(index)? {
            Value::Ref(Some(r)) => Ok(VmRef { r }),
            _ => Err(PyValueError::new_err(format!(
                "list element {index} is not a ref"
            ))),
        }
    }

    /// Element `index` as a `VmVariantList`.
    fn get_as_list(&self, index: usize) -> PyResult<VmVariantList> {
        match self.get(index)? {
            Value::Ref(Some(r)) => match r.downcast_arc::<List>() {
                Some(list) => Ok(VmVariantList { list }),
                None => Err(PyValueError::new_err(format!(
                    "list element {index} is not a list"
                ))),
            },
            _ => Err(PyValueError::new_err(format!(
                "list element {index} is not a list"
            ))),
        }
    }

    /// Element `index` as an object of `clazz` (`HalBufferView`, ...).
    #[pyo3(signature = (index, clazz=None))]
    fn get_as_object(
        &self,
        py: Python<'_>,
        index: usize,
        clazz: Option<&Bound<'_, PyType>>,
    ) -> PyResult<PyObject> {
        let r = self.get_as_ref(index)?;
        match clazz {
            Some(clazz) => r.deref(py, clazz, false),
            None => r.into_py_any(py),
        }
    }

    fn __len__(&self) -> usize {
        self.list.len()
    }

    /// The number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.list.len()
    }

    /// A `VmRef` to the list.
    #[getter]
    fn r#ref(&self) -> VmRef {
        VmRef {
            r: Ref::from_arc(self.list.clone()),
        }
    }

    /// A `VmRef` to the list.
    #[getter]
    fn __iree_vm_ref__(&self) -> VmRef {
        self.r#ref()
    }

    fn __repr__(&self) -> String {
        let values = self.list.to_values();
        let mut out = format!("<VmVariantList({}): [", values.len());
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            format_value(v, &mut out);
        }
        out.push_str("]>");
        out
    }
}

/// A reference to a VM object.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct VmRef {
    pub(crate) r: Ref,
}

#[pymethods]
impl VmRef {
    /// The object as `value` (`HalBufferView`, `HalBuffer`, `HalFence`,
    /// `VmVariantList`); None when it is another type and `optional`.
    #[pyo3(signature = (value, optional=false))]
    fn deref(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyType>,
        optional: bool,
    ) -> PyResult<PyObject> {
        if value.is(py.get_type::<HalBufferView>())
            && self
                .r
                .downcast::<iree_modules_hal::HalBufferView>()
                .is_some()
        {
            return HalBufferView { r: self.r.clone() }.into_py_any(py);
        }
        if value.is(py.get_type::<HalBuffer>())
            && self.r.downcast::<iree_modules_hal::HalBuffer>().is_some()
        {
            return HalBuffer { r: self.r.clone() }.into_py_any(py);
        }
        if value.is(py.get_type::<crate::sync::HalFence>()) {
            if let Some(fence) = self.r.downcast::<iree_modules_hal::HalFence>() {
                return crate::sync::HalFence::wrap(fence.0.clone()).into_py_any(py);
            }
        }
        if value.is(py.get_type::<VmVariantList>()) {
            if let Some(list) = self.r.downcast_arc::<List>() {
                return VmVariantList { list }.into_py_any(py);
            }
        }
        if optional {
            return Ok(py.None());
        }
        Err(PyValueError::new_err(format!(
            "ref of type '{}' cannot be dereferenced as {}",
            self.r.ref_type().name(),
            value.name()?
        )))
    }

    /// Whether the object is a `ref_type`.
    fn isinstance(&self, py: Python<'_>, ref_type: &Bound<'_, PyType>) -> PyResult<bool> {
        Ok(!self.deref(py, ref_type, true)?.is_none(py))
    }

    /// This ref.
    #[getter]
    fn __iree_vm_ref__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(match py_to_ref(other)? {
            Some(r) => Ref::ptr_eq(&self.r, &r),
            None => false,
        })
    }

    fn __hash__(&self) -> u64 {
        let s = format!("{:?}", self.r);
        s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
        })
    }

    fn __repr__(&self) -> String {
        format!("<VmRef {}>", self.r.ref_type().name())
    }
}
