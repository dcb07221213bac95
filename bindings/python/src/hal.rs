//! HAL classes: `HalDriver`, `HalDevice`, `HalBuffer`, `HalBufferView`,
//! driver lookup, `create_hal_module`, and host <-> device copies of
//! array data.

use std::sync::{Arc, OnceLock};

use iree_base::{Result, Status, StatusCode};
use iree_hal::{
    BindingRef, Buffer, BufferParams, BufferUsage, BufferView, Device, Driver, ElementType,
    EncodingType, MemoryType, WHOLE_BUFFER,
};
use iree_vm::Ref;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyByteArray, PyDict, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::errors::IntoPyResult;
use crate::vm::{VmInstance, VmModule, VmRef};

/// Adds the HAL classes and functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<HalDriver>()?;
    m.add_class::<HalDevice>()?;
    m.add_class::<HalAllocator>()?;
    m.add_class::<HalBuffer>()?;
    m.add_class::<HalBufferView>()?;
    m.add_class::<MappedMemory>()?;
    m.add_class::<HalCommandBuffer>()?;
    m.add_class::<HalModuleDebugSink>()?;
    m.add_function(wrap_pyfunction!(get_cached_hal_driver, m)?)?;
    m.add_function(wrap_pyfunction!(create_hal_driver, m)?)?;
    m.add_function(wrap_pyfunction!(clear_hal_driver_cache, m)?)?;
    m.add_function(wrap_pyfunction!(create_hal_module, m)?)?;
    Ok(())
}

/// The process's drivers (every driver this build has).
pub fn runtime() -> &'static iree_runtime::Instance {
    static RUNTIME: OnceLock<iree_runtime::Instance> = OnceLock::new();
    RUNTIME.get_or_init(iree_runtime::Instance::new)
}

/// A HAL driver (`local-sync`, `local-task`, `cuda`, `hip`).
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalDriver {
    driver: Arc<dyn Driver>,
}

#[pymethods]
impl HalDriver {
    /// The names of the drivers available.
    #[staticmethod]
    fn query() -> Vec<String> {
        let mut names = runtime().driver_names();
        names.sort();
        names
    }

    /// The driver's default device.
    #[pyo3(signature = (allocators=None))]
    fn create_default_device(
        &self,
        py: Python<'_>,
        allocators: Option<PyObject>,
    ) -> PyResult<HalDevice> {
        let _ = allocators;
        let driver = self.driver.clone();
        let device = py
            .allow_threads(|| driver.create_device(""))
            .py_context("Error creating default device")?;
        Ok(HalDevice {
            device: crate::replay::recorded(device),
        })
    }

    /// The device `device_id` (an index or a dict from
    /// `query_available_devices`).
    #[pyo3(signature = (device_id, params=None, allocators=None))]
    fn create_device(
        &self,
        py: Python<'_>,
        device_id: &Bound<'_, PyAny>,
        params: Option<PyObject>,
        allocators: Option<PyObject>,
    ) -> PyResult<HalDevice> {
        let _ = (params, allocators);
        let path = if let Ok(info) = device_id.downcast::<PyDict>() {
            match info.get_item("path")? {
                Some(p) => p.extract::<String>()?,
                None => String::new(),
            }
        } else {
            // A device id is an index into `query_available_devices`; the
            // device is made from that entry's path.
            let id = device_id.extract::<i64>()?;
            let devices = self.driver.devices().py()?;
            match usize::try_from(id).ok().and_then(|i| devices.get(i)) {
                Some(info) => info.path.clone(),
                None => {
                    let available: Vec<String> = devices
                        .iter()
                        .enumerate()
                        .map(|(i, d)| {
                            format!("{{ device_id:{i}, path:'{}', name:'{}'}}", d.path, d.name)
                        })
                        .collect();
                    return Err(PyValueError::new_err(format!(
                        "Device id {id} not found. Available devices: [{}]",
                        available.join(", ")
                    )));
                }
            }
        };
        let driver = self.driver.clone();
        let device = py
            .allow_threads(|| driver.create_device(&path))
            .py_context("Error creating device")?;
        Ok(HalDevice {
            device: crate::replay::recorded(device),
        })
    }

    /// A device from a URI (`driver`, `driver://path`).
    #[pyo3(signature = (device_uri, allocators=None))]
    fn create_device_by_uri(
        &self,
        py: Python<'_>,
        device_uri: &str,
        allocators: Option<PyObject>,
    ) -> PyResult<HalDevice> {
        let _ = allocators;
        let path = device_uri.split_once("://").map_or("", |(_, p)| p);
        let driver = self.driver.clone();
        let device = py
            .allow_threads(|| driver.create_device(path))
            .py_context("Error creating device")?;
        Ok(HalDevice {
            device: crate::replay::recorded(device),
        })
    }

    /// The devices this driver can create: dicts with `device_id`, `path`
    /// and `name`.
    fn query_available_devices<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let devices = self.driver.devices().py()?;
        devices
            .into_iter()
            .enumerate()
            .map(|(i, info)| {
                let d = PyDict::new(py);
                d.set_item("device_id", i)?;
                d.set_item("path", info.path)?;
                d.set_item("name", info.name)?;
                Ok(d)
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("<HalDriver \"{}\">", self.driver.name())
    }
}

/// The driver named by `device_uri` (a driver name or `driver://path`).
fn find_driver(device_uri: &str) -> PyResult<HalDriver> {
    let name = device_uri.split_once("://").map_or(device_uri, |(n, _)| n);
    let driver = runtime().drivers().find(name).cloned().ok_or_else(|| {
        PyValueError::new_err(format!(
            "Error creating driver: NOT_FOUND; no driver '{name}' registered; available: {}",
            runtime().driver_names().join(", ")
        ))
    })?;
    Ok(HalDriver { driver })
}

/// `get_cached_hal_driver`'s objects, by driver name.
static DRIVER_CACHE: GILOnceCell<Py<PyDict>> = GILOnceCell::new();

/// The driver for `device_uri` (a driver name or `driver://path`): the
/// same object for a driver name until `clear_hal_driver_cache`.
#[pyfunction]
fn get_cached_hal_driver(py: Python<'_>, device_uri: &str) -> PyResult<Py<HalDriver>> {
    let cache = DRIVER_CACHE
        .get_or_init(py, || PyDict::new(py).unbind())
        .bind(py);
    let name = device_uri.split_once("://").map_or(device_uri, |(n, _)| n);
    if let Some(driver) = cache.get_item(name)? {
        return Ok(driver.downcast_into::<HalDriver>()?.unbind());
    }
    let driver = Py::new(py, find_driver(device_uri)?)?;
    cache.set_item(name, driver.clone_ref(py))?;
    Ok(driver)
}

/// A new driver object for `device_uri`, outside the cache. The drivers
/// of this runtime keep no per-client state, so it shares the process's
/// driver; only the Python object is new.
#[pyfunction]
fn create_hal_driver(device_uri: &str) -> PyResult<HalDriver> {
    find_driver(device_uri)
}

/// Forgets the cached driver objects: `get_cached_hal_driver` makes new ones.
#[pyfunction]
fn clear_hal_driver_cache(py: Python<'_>) {
    if let Some(cache) = DRIVER_CACHE.get(py) {
        cache.bind(py).clear();
    }
}

/// An element type as upstream's reprs print it: the hex digits of its
/// four bytes in memory (little-endian) order, so `SINT_32` (0x10000020)
/// prints `20000010`.
pub(crate) fn element_type_hex(element_type: ElementType) -> String {
    format!("{:08x}", element_type.raw().swap_bytes())
}

/// A device.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalDevice {
    pub(crate) device: Arc<dyn Device>,
}

impl HalDevice {
    fn capture_unimplemented(&self) -> Status {
        Status::new(
            StatusCode::Unimplemented,
            format!("{} external capture not implemented", self.device.id()),
        )
    }
}

#[pymethods]
impl HalDevice {
    /// The device's allocator.
    #[getter]
    fn allocator(&self) -> HalAllocator {
        HalAllocator {
            allocator: self.device.allocator(),
        }
    }

    /// Starts profiling; only the default mode exists (no profile sinks).
    #[pyo3(signature = (mode=None))]
    fn begin_profiling(&self, mode: Option<&str>) -> PyResult<()> {
        match mode {
            None => Ok(()),
            Some(mode) => Err(PyValueError::new_err(format!(
                "profiling mode '{mode}' needs a profile sink, which this runtime does not have"
            ))),
        }
    }

    /// Flushes profiling data (nothing to flush).
    fn flush_profiling(&self) {}

    /// Ends profiling.
    fn end_profiling(&self) {}

    /// A device-local buffer of `allocation_size` bytes, once
    /// `wait_semaphores` are reached; signals `signal_semaphores`.
    fn queue_alloca(
        &self,
        py: Python<'_>,
        allocation_size: u64,
        wait_semaphores: &Bound<'_, PyAny>,
        signal_semaphores: &Bound<'_, PyAny>,
    ) -> PyResult<HalBuffer> {
        let (wait, signal) = (
            crate::sync::fence_arg(wait_semaphores)?,
            crate::sync::fence_arg(signal_semaphores)?,
        );
        let params = BufferParams {
            memory_type: MemoryType::DEVICE_LOCAL,
            usage: BufferUsage::DEFAULT,
            ..Default::default()
        };
        let device = self.device.clone();
        let buffer = py
            .allow_threads(|| device.queue_alloca(&wait, &signal, params, allocation_size))
            .py_context("Error allocating on the queue")?;
        Ok(HalBuffer::wrap(buffer))
    }

    /// Releases a queue allocation in queue order.
    fn queue_dealloca(
        &self,
        py: Python<'_>,
        buffer: PyRef<'_, HalBuffer>,
        wait_semaphores: &Bound<'_, PyAny>,
        signal_semaphores: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (wait, signal) = (
            crate::sync::fence_arg(wait_semaphores)?,
            crate::sync::fence_arg(signal_semaphores)?,
        );
        let buffer = buffer.buffer().clone();
        let device = self.device.clone();
        py.allow_threads(|| device.queue_dealloca(&wait, &signal, &buffer))
            .py_context("Error deallocating on the queue")
    }

    /// Copies all of `source_buffer` to the start of `target_buffer` in
    /// queue order.
    fn queue_copy(
        &self,
        py: Python<'_>,
        source_buffer: PyRef<'_, HalBuffer>,
        target_buffer: PyRef<'_, HalBuffer>,
        wait_semaphores: &Bound<'_, PyAny>,
        signal_semaphores: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let source = source_buffer.buffer().clone();
        let target = target_buffer.buffer().clone();
        let length = source.byte_length();
        if length > target.byte_length() {
            return Err(PyValueError::new_err(format!(
                "copy length must be less than or equal to the target buffer's ({length} > {})",
                target.byte_length()
            )));
        }
        let (wait, signal) = (
            crate::sync::fence_arg(wait_semaphores)?,
            crate::sync::fence_arg(signal_semaphores)?,
        );
        let device = self.device.clone();
        py.allow_threads(|| {
            device.queue_host_call(
                &wait,
                &signal,
                Box::new(move || target.copy_from(0, &source, 0, length)),
            )
        })
        .py_context("Error copying on the queue")
    }

    /// Executes a finished command buffer in queue order.
    fn queue_execute(
        &self,
        py: Python<'_>,
        command_buffer: PyRef<'_, HalCommandBuffer>,
        wait_semaphores: &Bound<'_, PyAny>,
        signal_semaphores: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (wait, signal) = (
            crate::sync::fence_arg(wait_semaphores)?,
            crate::sync::fence_arg(signal_semaphores)?,
        );
        let r = command_buffer.r.clone();
        let device = self.device.clone();
        py.allow_threads(|| {
            let cb = &command_buffer_of(&r).0;
            let cb = cb.lock();
            device.queue_execute(&wait, &signal, Some(&cb), &[])
        })
        .py_context("Error executing command buffer")
    }

    /// Starts an external capture (RenderDoc, ...): UNIMPLEMENTED, as on
    /// upstream's CPU devices; no device here has a capture provider.
    #[pyo3(signature = (provider, file_path=None, label=None))]
    fn begin_external_capture(
        &self,
        provider: &str,
        file_path: Option<&str>,
        label: Option<&str>,
    ) -> PyResult<()> {
        let _ = (provider, file_path, label);
        Err(crate::errors::status_to_py(
            &self.capture_unimplemented(),
            "starting external device capture",
        ))
    }

    /// Ends an external capture: UNIMPLEMENTED (see
    /// `begin_external_capture`).
    fn end_external_capture(&self) -> PyResult<()> {
        Err(crate::errors::status_to_py(
            &self.capture_unimplemented(),
            "ending external device capture",
        ))
    }

    /// A buffer view over the memory of a DLPack capsule (`"dltensor"`),
    /// without a copy; the capsule is renamed `"used_dltensor"` and its
    /// deleter runs when the last buffer using the memory drops.
    #[pyo3(name = "from_dlpack_capsule")]
    fn import_dlpack_capsule(&self, input_capsule: &Bound<'_, PyAny>) -> PyResult<HalBufferView> {
        crate::dlpack::import_capsule(self.device.as_ref(), input_capsule)
            .map(HalBufferView::from_view)
    }

    /// A DLPack capsule (`"dltensor"`) over the memory of `buffer_view`,
    /// without a copy, labelled with the DLPack `device_type_code` and
    /// `device_id`; it keeps the buffer alive until its consumer deletes it.
    fn create_dlpack_capsule<'py>(
        &self,
        py: Python<'py>,
        buffer_view: PyRef<'_, HalBufferView>,
        device_type_code: i32,
        device_id: i32,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::dlpack::export_capsule(py, buffer_view.view(), device_type_code, device_id)
    }

    /// A new timeline semaphore at `initial_value`.
    fn create_semaphore(&self, initial_value: u64) -> crate::sync::HalSemaphore {
        crate::sync::HalSemaphore {
            semaphore: iree_hal::Semaphore::new(initial_value),
        }
    }

    fn __repr__(&self) -> String {
        self.device.id().to_string()
    }
}

/// A device's buffer allocator.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalAllocator {
    allocator: Arc<dyn iree_hal::Allocator>,
}

impl HalAllocator {
    fn allocate(&self, memory_type: u32, allowed_usage: u32, length: u64) -> PyResult<Buffer> {
        let params = BufferParams {
            memory_type: MemoryType(memory_type),
            usage: BufferUsage(allowed_usage),
            ..Default::default()
        };
        self.allocator
            .allocate_buffer(params, length)
            .py_context("Error allocating buffer")
    }
}

#[pymethods]
impl HalAllocator {
    /// A zeroed buffer of `allocation_size` bytes.
    fn allocate_buffer(
        &self,
        memory_type: u32,
        allowed_usage: u32,
        allocation_size: u64,
    ) -> PyResult<HalBuffer> {
        let buffer = self.allocate(memory_type, allowed_usage, allocation_size)?;
        Ok(HalBuffer {
            r: Ref::new(iree_modules_hal::HalBuffer(buffer)),
        })
    }

    /// A buffer holding a copy of array-like `buffer`; a buffer view of its
    /// shape when `element_type` is given.
    #[pyo3(signature = (memory_type, allowed_usage, device, buffer, element_type=None))]
    fn allocate_buffer_copy(
        &self,
        py: Python<'_>,
        memory_type: u32,
        allowed_usage: u32,
        device: PyRef<'_, HalDevice>,
        buffer: &Bound<'_, PyAny>,
        element_type: Option<u32>,
    ) -> PyResult<PyObject> {
        let _ = device;
        let (shape, bytes) = crate::invoke::array_bytes(buffer)?;
        let params = BufferParams {
            memory_type: MemoryType(memory_type),
            usage: BufferUsage(allowed_usage),
            ..Default::default()
        };
        let target = self
            .allocator
            .allocate_buffer_with(params, &bytes)
            .py_context("Error allocating buffer")?;
        match element_type {
            Some(t) => HalBufferView::from_view(
                BufferView::new(target, shape, ElementType(t), EncodingType::DENSE_ROW_MAJOR)
                    .py_context("Error creating buffer view")?,
            )
            .into_py_any(py),
            None => HalBuffer {
                r: Ref::new(iree_modules_hal::HalBuffer(target)),
            }
            .into_py_any(py),
        }
    }

    /// What the allocator can do with buffers of these parameters
    /// (`BufferCompatibility` bits).
    fn query_buffer_compatibility(
        &self,
        memory_type: u32,
        allowed_usage: u32,
        intended_usage: u32,
        allocation_size: u64,
    ) -> u32 {
        let _ = intended_usage;
        let mut params = BufferParams {
            memory_type: MemoryType(memory_type),
            usage: BufferUsage(allowed_usage),
            ..Default::default()
        };
        self.allocator
            .query_buffer_compatibility(&mut params, allocation_size)
            .0
    }

    /// A host-local staging buffer holding a copy of `initial_contents`.
    fn allocate_host_staging_buffer_copy(
        &self,
        device: PyRef<'_, HalDevice>,
        initial_contents: &Bound<'_, PyAny>,
    ) -> PyResult<HalBuffer> {
        let _ = device;
        let (_, bytes) = crate::invoke::array_bytes(initial_contents)?;
        // Upstream asks for OPTIMAL_FOR_DEVICE (OPTIMAL | DEVICE_LOCAL)
        // memory with TRANSFER usage.
        let buffer = self.allocate(
            MemoryType::OPTIMAL.0 | MemoryType::DEVICE_LOCAL.0,
            BufferUsage::TRANSFER.0,
            bytes.len() as u64,
        )?;
        if !bytes.is_empty() {
            buffer
                .write(0, &bytes)
                .py_context("Error copying into buffer")?;
        }
        Ok(HalBuffer::wrap(buffer))
    }

    /// A buffer over the memory of `buffer` (a writable, C-contiguous
    /// buffer-protocol object such as a numpy array), without a copy: the
    /// device reads and writes the object's memory, and the buffer keeps
    /// the object alive.
    fn import_host_allocation(
        &self,
        py: Python<'_>,
        buffer: &Bound<'_, PyAny>,
        memory_type: u32,
        allowed_usage: u32,
    ) -> PyResult<HalBuffer> {
        // Without the buffer protocol in the limited API before 3.11, numpy
        // reads the object's buffer: a flat uint8 array over its bytes.
        let np = crate::invoke::numpy(py)?;
        let flat = np.call_method1(
            pyo3::intern!(py, "frombuffer"),
            (buffer, np.getattr(pyo3::intern!(py, "uint8"))?),
        )?;
        if !flat
            .getattr(pyo3::intern!(py, "flags"))?
            .getattr(pyo3::intern!(py, "writeable"))?
            .extract::<bool>()?
        {
            return Err(pyo3::exceptions::PyBufferError::new_err(
                "Object is not writable.",
            ));
        }
        let (address, len) = array_memory(&flat)?;
        let params = BufferParams {
            memory_type: MemoryType(memory_type),
            usage: BufferUsage(allowed_usage),
            access: iree_hal::MemoryAccess(
                iree_hal::MemoryAccess::ALL.0 | iree_hal::MemoryAccess::UNALIGNED.0,
            ),
            ..Default::default()
        };
        // SAFETY: `flat` holds an export of the object's buffer, so its
        // `len` bytes at `address` stay allocated and in place while `flat`
        // lives, and the buffer owns `flat`. Python code may still write
        // the memory through the object, as it may with upstream's import:
        // ordering those accesses with device work is the caller's part.
        unsafe { wrap_host_memory(self.allocator.as_ref(), params, address, len, flat.unbind()) }
            .map(HalBuffer::wrap)
            .py_context("could not import host allocation")
    }

    /// Allocation statistics by heap.
    #[getter]
    fn statistics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.allocator.statistics();
        let d = PyDict::new(py);
        d.set_item("host_bytes_peak", s.host_bytes_peak)?;
        d.set_item("host_bytes_allocated", s.host_bytes_allocated)?;
        d.set_item("host_bytes_freed", s.host_bytes_freed)?;
        d.set_item("device_bytes_peak", s.device_bytes_peak)?;
        d.set_item("device_bytes_allocated", s.device_bytes_allocated)?;
        d.set_item("device_bytes_freed", s.device_bytes_freed)?;
        Ok(d)
    }

    /// Releases cached memory.
    fn trim(&self) {
        self.allocator.trim();
    }

    /// Whether statistics are kept.
    #[getter]
    fn has_statistics(&self) -> bool {
        true
    }

    /// The statistics as text.
    #[getter]
    fn formatted_statistics(&self) -> String {
        self.allocator.statistics().format()
    }
}

/// Receives the buffer views that compiled programs trace
/// (`flow.tensor.trace`): `buffer_view_trace_callback(key, [HalBufferView])`.
/// The sink takes part in Python's garbage collection, so a callback that
/// refers to its own sink is freed once nothing else holds either. The
/// `hal` modules made with the sink hold the callback too; a callback that
/// refers back to those modules makes a cycle that is never freed.
#[pyclass(module = "iree_rust.runtime._binding")]
pub struct HalModuleDebugSink {
    callback: Option<PyObject>,
}

#[pymethods]
impl HalModuleDebugSink {
    #[new]
    #[pyo3(signature = (buffer_view_trace_callback=None))]
    fn new(buffer_view_trace_callback: Option<PyObject>) -> HalModuleDebugSink {
        HalModuleDebugSink {
            callback: buffer_view_trace_callback,
        }
    }

    /// The callback.
    #[getter]
    fn buffer_view_trace_callback(&self, py: Python<'_>) -> Option<PyObject> {
        self.callback.as_ref().map(|c| c.clone_ref(py))
    }

    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if let Some(callback) = &self.callback {
            visit.call(callback)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.callback = None;
    }
}

/// The Rust sink calling a Python trace callback (with the GIL).
fn debug_sink_of(callback: PyObject) -> iree_modules_hal::DebugSink {
    Arc::new(move |key: &str, views: &[BufferView]| {
        Python::with_gil(|py| {
            let views: Vec<HalBufferView> = views
                .iter()
                .map(|v| HalBufferView::from_view(v.clone()))
                .collect();
            callback.call1(py, (key, views)).map(|_| ()).map_err(|e| {
                Status::new(
                    StatusCode::Unknown,
                    format!("buffer view trace callback raised: {e}"),
                )
            })
        })
    })
}

/// Builds the `hal` module over `device` (or `devices`).
#[pyfunction]
#[pyo3(signature = (instance, device=None, devices=None, debug_sink=None))]
fn create_hal_module(
    py: Python<'_>,
    instance: PyRef<'_, VmInstance>,
    device: Option<PyRef<'_, HalDevice>>,
    devices: Option<Vec<PyRef<'_, HalDevice>>>,
    debug_sink: Option<PyRef<'_, HalModuleDebugSink>>,
) -> PyResult<VmModule> {
    let _ = instance;
    let sink = debug_sink
        .and_then(|s| s.callback.as_ref().map(|c| c.clone_ref(py)))
        .map(debug_sink_of);
    let devices: Vec<Arc<dyn Device>> = match (device, devices) {
        (Some(d), None) => vec![d.device.clone()],
        (None, Some(ds)) if !ds.is_empty() => ds.iter().map(|d| d.device.clone()).collect(),
        _ => {
            return Err(PyValueError::new_err(
                "must specify exactly one of 'device' or (non-empty) 'devices'",
            ))
        }
    };
    let module = iree_modules_hal::create_hal_module_with_debug_sink(devices, sink)
        .py_context("Error creating hal module")?;
    Ok(VmModule::wrap(module))
}

/// A HAL buffer.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalBuffer {
    /// A `hal.buffer` ref.
    pub(crate) r: Ref,
}

impl HalBuffer {
    /// A dense row-major view of the buffer; a failure is a ValueError
    /// prefixed with `context` (upstream's wording differs between
    /// `HalBuffer.create_view` and the `HalBufferView` constructor).
    fn view_as(
        &self,
        shape: Vec<usize>,
        element_type: u32,
        context: &str,
    ) -> PyResult<HalBufferView> {
        let view = BufferView::new(
            self.buffer().clone(),
            shape,
            ElementType(element_type),
            EncodingType::DENSE_ROW_MAJOR,
        )
        .py_context(context)?;
        Ok(HalBufferView::from_view(view))
    }

    /// Wraps a buffer.
    pub fn wrap(buffer: Buffer) -> HalBuffer {
        HalBuffer {
            r: Ref::new(iree_modules_hal::HalBuffer(buffer)),
        }
    }

    /// The buffer.
    pub fn buffer(&self) -> &Buffer {
        &self
            .r
            .downcast::<iree_modules_hal::HalBuffer>()
            .expect("a HalBuffer holds a hal.buffer ref")
            .0
    }
}

#[pymethods]
impl HalBuffer {
    /// The buffer's allowed usage bits.
    fn allowed_usage(&self) -> u32 {
        self.buffer().allowed_usage().0
    }

    /// The buffer's memory type bits.
    fn memory_type(&self) -> u32 {
        self.buffer().memory_type().0
    }

    /// The length in bytes.
    fn byte_length(&self) -> u64 {
        self.buffer().byte_length()
    }

    /// A view of the buffer as `shape` x `element_type`.
    fn create_view(&self, shape: Vec<usize>, element_type: u32) -> PyResult<HalBufferView> {
        self.view_as(shape, element_type, "Error creating buffer view")
    }

    /// The contents for the host (`MappedMemory.asarray`).
    fn map(&self) -> MappedMemory {
        MappedMemory {
            buffer: self.buffer().clone(),
        }
    }

    /// Zeroes `byte_length` bytes at `byte_offset`.
    fn fill_zero(&self, byte_offset: u64, byte_length: u64) -> PyResult<()> {
        self.buffer().fill(byte_offset, byte_length, &[0]).py()
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

    fn __repr__(&self) -> String {
        let b = self.buffer();
        format!(
            "<HalBuffer {} bytes (at offset {} into {}), memory_type={}, allowed_access={}, allowed_usage={}>",
            b.byte_length(),
            b.byte_offset(),
            b.allocation_size(),
            b.memory_type().format(),
            b.allowed_access().format(),
            b.allowed_usage().format()
        )
    }
}

/// A shaped, typed view of a buffer.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalBufferView {
    /// A `hal.buffer_view` ref (so the same object goes in and out of
    /// calls).
    pub(crate) r: Ref,
}

impl HalBufferView {
    /// Wraps a view.
    pub fn from_view(view: BufferView) -> HalBufferView {
        HalBufferView {
            r: Ref::new(iree_modules_hal::HalBufferView(view)),
        }
    }

    /// The view.
    pub fn view(&self) -> &BufferView {
        &self
            .r
            .downcast::<iree_modules_hal::HalBufferView>()
            .expect("a HalBufferView holds a hal.buffer_view ref")
            .0
    }
}

#[pymethods]
impl HalBufferView {
    #[new]
    fn new(
        buffer: PyRef<'_, HalBuffer>,
        shape: Vec<usize>,
        element_type: u32,
    ) -> PyResult<HalBufferView> {
        buffer.view_as(shape, element_type, "creating buffer view")
    }

    /// The viewed buffer.
    fn get_buffer(&self) -> HalBuffer {
        HalBuffer {
            r: Ref::new(iree_modules_hal::HalBuffer(self.view().buffer().clone())),
        }
    }

    /// The element type (an int; compare with `HalElementType`).
    #[getter]
    fn element_type(&self) -> u32 {
        self.view().element_type().raw()
    }

    /// The dimensions.
    #[getter]
    fn shape(&self) -> Vec<usize> {
        self.view().shape().to_vec()
    }

    /// The length of the viewed elements in bytes (shape x element size).
    #[getter]
    fn byte_length(&self) -> u64 {
        let v = self.view();
        dense_length(v.shape(), v.element_type())
            .map(|n| n as u64)
            .unwrap_or_else(|_| v.buffer().byte_length())
    }

    /// A `VmRef` to the view.
    #[getter]
    fn r#ref(&self) -> VmRef {
        VmRef { r: self.r.clone() }
    }

    /// A `VmRef` to the view.
    #[getter]
    fn __iree_vm_ref__(&self) -> VmRef {
        self.r#ref()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.downcast::<HalBufferView>() {
            Ok(o) => Ref::ptr_eq(&self.r, &o.get().r),
            Err(_) => false,
        }
    }

    /// The contents for the host (`MappedMemory.asarray`).
    fn map(&self) -> MappedMemory {
        MappedMemory {
            buffer: self.view().buffer().clone(),
        }
    }

    /// A new numpy array of `dtype` holding a copy of the contents.
    fn _to_numpy<'py>(
        &self,
        py: Python<'py>,
        dtype: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        to_numpy(py, self.view(), dtype)
    }

    fn __repr__(&self) -> String {
        let v = self.view();
        let b = v.buffer();
        let shape: Vec<String> = v.shape().iter().map(|d| d.to_string()).collect();
        format!(
            "<HalBufferView ({}), element_type=0x{}, {} bytes (at offset {} into {}), memory_type={}, allowed_access={}, allowed_usage={}>",
            shape.join(", "),
            element_type_hex(v.element_type()),
            b.byte_length(),
            b.byte_offset(),
            b.allocation_size(),
            b.memory_type().format(),
            b.allowed_access().format(),
            b.allowed_usage().format()
        )
    }
}

/// A buffer's contents for the host. Unlike upstream's mapping, arrays
/// from `asarray` are copies: the HAL tracks host and device access to a
/// buffer, which a long-lived numpy view could not respect.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct MappedMemory {
    buffer: Buffer,
}

#[pymethods]
impl MappedMemory {
    /// The leading bytes as a numpy array of `shape` and dtype
    /// `numpy_dtype_descr`.
    fn asarray<'py>(
        &self,
        py: Python<'py>,
        shape: Vec<usize>,
        numpy_dtype_descr: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let dtype = crate::invoke::numpy(py)?.call_method1("dtype", (numpy_dtype_descr,))?;
        let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
        let length = shape
            .iter()
            .try_fold(itemsize, |n, &d| n.checked_mul(d))
            .ok_or_else(|| PyValueError::new_err("array too large"))?;
        host_array(
            py,
            &self.buffer,
            &shape,
            &dtype,
            length,
            "Error mapping buffer",
        )
    }
}

/// The address and byte length of numpy array `array`'s data.
pub(crate) fn array_memory(array: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    let py = array.py();
    let interface = array.getattr(pyo3::intern!(py, "__array_interface__"))?;
    let (address, _readonly): (usize, bool) =
        interface.get_item(pyo3::intern!(py, "data"))?.extract()?;
    let len: usize = array.getattr(pyo3::intern!(py, "nbytes"))?.extract()?;
    Ok((address, len))
}

/// A buffer over `len` bytes of host memory at `address` that `owner`
/// keeps alive, with the parameters `allocator` would give an allocation
/// of `params`. Memory not aligned to `HOST_ALLOCATION_ALIGNMENT` gets no
/// dispatch usage: compiled kernels assume aligned bindings, so such a
/// buffer is for transfers only (commands that bind it fail validation).
///
/// # Safety
///
/// `[address, address + len)` must be valid for reads and writes for as
/// long as `owner` lives, and Rust code must not otherwise reach it.
pub(crate) unsafe fn wrap_host_memory(
    allocator: &dyn iree_hal::Allocator,
    params: BufferParams,
    address: usize,
    len: usize,
    owner: impl Send + Sync + 'static,
) -> Result<Buffer> {
    let mut params = params.canonicalize();
    let compatibility = allocator.query_buffer_compatibility(&mut params, len as u64);
    if !compatibility.contains(iree_hal::BufferCompatibility::IMPORTABLE) {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "allocator cannot import a buffer with the given parameters",
        ));
    }
    if len > 0 && !address.is_multiple_of(iree_hal::buffer::HOST_ALLOCATION_ALIGNMENT) {
        params.usage = BufferUsage(params.usage.0 & !DISPATCH_USAGE);
    }
    // A zero-length import still needs a non-null, well-aligned address.
    let ptr = std::ptr::NonNull::new(address as *mut u8).unwrap_or(std::ptr::NonNull::dangling());
    // SAFETY: the caller's contract is `from_foreign`'s: the bytes stay
    // valid while the owner lives, and only the buffer reaches them.
    let memory = unsafe { iree_hal::HostMemory::from_foreign(ptr, len, Box::new(owner)) };
    Ok(Buffer::from_host_memory(
        memory,
        params.memory_type,
        params.usage,
        params.access,
        None,
    ))
}

/// Every `DISPATCH_*` usage bit.
const DISPATCH_USAGE: u32 = BufferUsage::DISPATCH_INDIRECT_PARAMETERS.0
    | BufferUsage::DISPATCH_UNIFORM_READ.0
    | BufferUsage::DISPATCH_STORAGE_READ.0
    | BufferUsage::DISPATCH_STORAGE_WRITE.0
    | BufferUsage::DISPATCH_IMAGE_READ.0
    | BufferUsage::DISPATCH_IMAGE_WRITE.0;

/// The byte length of a dense `shape` x `element_type` array.
fn dense_length(shape: &[usize], element_type: ElementType) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .and_then(|count| element_type.packed_byte_count(count))
        .ok_or_else(|| Status::new(StatusCode::OutOfRange, "array too large"))
}

/// A new buffer view on `device` holding a copy of `bytes` as `shape` x
/// `element_type`.
pub fn view_from_host(
    device: &dyn Device,
    shape: Vec<usize>,
    element_type: ElementType,
    bytes: &[u8],
) -> Result<BufferView> {
    let length = dense_length(&shape, element_type)?;
    if length != bytes.len() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "array of {} bytes does not fill a {shape:?} x {element_type} view",
                bytes.len()
            ),
        ));
    }
    let params = BufferParams {
        memory_type: MemoryType::DEVICE_LOCAL,
        usage: BufferUsage(BufferUsage::DEFAULT.0 | BufferUsage::MAPPING.0),
        ..Default::default()
    };
    let buffer = device.allocator().allocate_buffer_with(params, bytes)?;
    BufferView::new(buffer, shape, element_type, EncodingType::DENSE_ROW_MAJOR)
}

/// `numpy.ndarray(shape, dtype, buffer=<copy of the view's bytes>)`.
pub fn to_numpy<'py>(
    py: Python<'py>,
    view: &BufferView,
    dtype: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let length = dense_length(view.shape(), view.element_type()).py()?;
    host_array(
        py,
        view.buffer(),
        view.shape(),
        dtype,
        length,
        "Error mapping buffer view",
    )
}

/// `numpy.ndarray(shape, dtype)` over a copy of the first `length` bytes
/// of `buffer`. The copy starts on a `HOST_ALLOCATION_ALIGNMENT` boundary,
/// as upstream's mapped arrays do, so that it can be imported back without
/// a copy (`from_dlpack_capsule`, `import_host_allocation`).
fn host_array<'py>(
    py: Python<'py>,
    buffer: &Buffer,
    shape: &[usize],
    dtype: &Bound<'py, PyAny>,
    length: usize,
    context: &str,
) -> PyResult<Bound<'py, PyAny>> {
    const ALIGN: usize = iree_hal::buffer::HOST_ALLOCATION_ALIGNMENT;
    let mut offset = 0;
    let bytes = if length == 0 {
        PyByteArray::new(py, &[])
    } else {
        PyByteArray::new_with(py, length + ALIGN - 1, |all| {
            offset = all.as_ptr().align_offset(ALIGN).min(ALIGN - 1);
            buffer
                .read(0, &mut all[offset..offset + length])
                .py_context(context)
        })?
    };
    let kwargs = PyDict::new(py);
    kwargs.set_item(pyo3::intern!(py, "buffer"), bytes)?;
    kwargs.set_item(pyo3::intern!(py, "offset"), offset)?;
    crate::invoke::numpy_ndarray(py)?.call((PyTuple::new(py, shape)?, dtype), Some(&kwargs))
}

fn command_buffer_of(r: &Ref) -> &iree_modules_hal::HalCommandBuffer {
    r.downcast::<iree_modules_hal::HalCommandBuffer>()
        .expect("a HalCommandBuffer holds a hal.command_buffer ref")
}

/// A command buffer: transfer commands recorded from Python, executed by
/// `HalDevice.queue_execute`.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalCommandBuffer {
    /// A `hal.command_buffer` ref.
    r: Ref,
    began: std::sync::atomic::AtomicBool,
}

impl HalCommandBuffer {
    fn record(
        &self,
        end: bool,
        f: impl FnOnce(&mut iree_hal::CommandBuffer) -> Result<()>,
    ) -> PyResult<()> {
        if !self.began.load(std::sync::atomic::Ordering::Acquire) {
            return Err(crate::errors::status_to_py(
                &Status::new(StatusCode::FailedPrecondition, "command buffer not begun"),
                "",
            ));
        }
        let mut cb = command_buffer_of(&self.r).0.lock();
        f(&mut cb).py()?;
        if end {
            cb.finalize().py()?;
        }
        Ok(())
    }
}

#[pymethods]
impl HalCommandBuffer {
    #[new]
    #[pyo3(signature = (device, binding_capacity=0, begin=true))]
    fn new(device: PyRef<'_, HalDevice>, binding_capacity: u32, begin: bool) -> HalCommandBuffer {
        let allocator = device.device.allocator();
        HalCommandBuffer {
            r: Ref::new(iree_modules_hal::HalCommandBuffer(parking_lot::Mutex::new(
                iree_hal::CommandBuffer::new(binding_capacity).with_allocator(allocator),
            ))),
            began: std::sync::atomic::AtomicBool::new(begin),
        }
    }

    /// Starts recording (FAILED_PRECONDITION when already begun).
    fn begin(&self) -> PyResult<()> {
        if self.began.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return Err(crate::errors::status_to_py(
                &Status::new(
                    StatusCode::FailedPrecondition,
                    "command buffer is already recording",
                ),
                "",
            ));
        }
        Ok(())
    }

    /// Finishes recording (FAILED_PRECONDITION when already finished).
    fn end(&self) -> PyResult<()> {
        self.record(true, |_| Ok(()))
    }

    /// Records a copy of `length` bytes (default: the rest of the source).
    #[pyo3(signature = (source_buffer, target_buffer, source_offset=0, target_offset=0, length=None, end=false))]
    fn copy(
        &self,
        source_buffer: PyRef<'_, HalBuffer>,
        target_buffer: PyRef<'_, HalBuffer>,
        source_offset: u64,
        target_offset: u64,
        length: Option<u64>,
        end: bool,
    ) -> PyResult<()> {
        let source = source_buffer.buffer().clone();
        let target = target_buffer.buffer().clone();
        let length = length.unwrap_or_else(|| source.byte_length().saturating_sub(source_offset));
        self.record(end, |cb| {
            cb.copy(
                BindingRef::Direct {
                    buffer: source,
                    offset: source_offset,
                    length,
                },
                BindingRef::Direct {
                    buffer: target,
                    offset: target_offset,
                    length,
                },
            )
        })
    }

    /// Records a fill with `pattern` (a 1, 2 or 4 byte scalar or array).
    #[pyo3(signature = (target_buffer, pattern, target_offset=0, length=None, end=false))]
    fn fill(
        &self,
        target_buffer: PyRef<'_, HalBuffer>,
        pattern: &Bound<'_, PyAny>,
        target_offset: u64,
        length: Option<u64>,
        end: bool,
    ) -> PyResult<()> {
        let (_, bytes) = crate::invoke::array_bytes(pattern)?;
        let target = target_buffer.buffer().clone();
        self.record(end, |cb| {
            cb.fill(
                BindingRef::Direct {
                    buffer: target,
                    offset: target_offset,
                    length: length.unwrap_or(WHOLE_BUFFER),
                },
                &bytes,
            )
        })
    }

    /// A `VmRef` to the command buffer.
    #[getter]
    fn r#ref(&self) -> VmRef {
        VmRef { r: self.r.clone() }
    }

    /// A `VmRef` to the command buffer.
    #[getter]
    fn __iree_vm_ref__(&self) -> VmRef {
        self.r#ref()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.downcast::<HalCommandBuffer>() {
            Ok(o) => Ref::ptr_eq(&self.r, &o.get().r),
            Err(_) => false,
        }
    }
}
