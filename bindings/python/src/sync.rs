//! Synchronization: `HalSemaphore` and `HalFence` (sets of semaphore
//! timepoints), as async (coarse-fences) functions take them.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use iree_base::{Status, StatusCode};
use iree_hal::{Fence, Semaphore};
use iree_vm::Ref;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::errors::IntoPyResult;
use crate::vm::VmRef;

/// Adds the synchronization classes to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<HalSemaphore>()?;
    m.add_class::<HalFence>()?;
    m.add_class::<TimepointListener>()?;
    Ok(())
}

/// The deadline of a wait: `timeout` nanoseconds from now, or `deadline`
/// in nanoseconds of the monotonic clock (`time.monotonic_ns()`; 0 polls),
/// or none (wait forever).
fn deadline_of(
    py: Python<'_>,
    timeout: Option<u64>,
    deadline: Option<u64>,
) -> PyResult<Option<Instant>> {
    match (timeout, deadline) {
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "timeout and deadline cannot both be set",
        )),
        (Some(ns), None) => Ok(Some(Instant::now() + Duration::from_nanos(ns))),
        (None, Some(ns)) => {
            let now: u64 = py.import("time")?.call_method0("monotonic_ns")?.extract()?;
            Ok(Some(
                Instant::now() + Duration::from_nanos(ns.saturating_sub(now)),
            ))
        }
        (None, None) => Ok(None),
    }
}

/// The outcome of a wait: reached (true), timed out (false), or failed
/// (RuntimeError naming `what`).
fn wait_outcome(result: iree_base::Result<()>, what: &str) -> PyResult<bool> {
    match result {
        Ok(()) => Ok(true),
        Err(status) if status.code() == StatusCode::DeadlineExceeded => Ok(false),
        Err(status) => Err(PyRuntimeError::new_err(format!(
            "synchronous {what} failure: {status}"
        ))),
    }
}

/// The fence a `wait_semaphores`/`signal_semaphores` argument names: a
/// `HalFence`, a list of `(HalSemaphore, value)`, or None (empty).
pub fn fence_arg(obj: &Bound<'_, PyAny>) -> PyResult<Fence> {
    if obj.is_none() {
        return Ok(Fence::new());
    }
    if let Ok(fence) = obj.downcast::<HalFence>() {
        return Ok(fence.get().lock()?.clone());
    }
    let mut fence = Fence::new();
    for item in obj.try_iter()? {
        let (sem, value): (PyRef<'_, HalSemaphore>, u64) = item?.extract()?;
        fence.insert(sem.semaphore.clone(), value);
    }
    Ok(fence)
}

/// A timeline semaphore.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalSemaphore {
    pub(crate) semaphore: Arc<Semaphore>,
}

#[pymethods]
impl HalSemaphore {
    /// The current value (raises if the semaphore failed).
    fn query(&self) -> PyResult<u64> {
        self.semaphore
            .query()
            .py_context("Error querying semaphore")
    }

    /// Advances the value to `new_value`.
    fn signal(&self, new_value: u64) -> PyResult<()> {
        self.semaphore
            .signal(new_value)
            .py_context("Error signaling semaphore")
    }

    /// Fails the semaphore with `message`.
    fn fail(&self, message: &str) {
        self.semaphore
            .fail(Status::new(StatusCode::Unknown, message.to_string()));
    }

    /// Waits (without the GIL) until the value reaches `payload`: true when
    /// it did, false at the timeout (nanoseconds) or deadline.
    #[pyo3(signature = (payload, timeout=None, deadline=None))]
    fn wait(
        &self,
        py: Python<'_>,
        payload: u64,
        timeout: Option<u64>,
        deadline: Option<u64>,
    ) -> PyResult<bool> {
        let deadline = deadline_of(py, timeout, deadline)?;
        let semaphore = self.semaphore.clone();
        wait_outcome(
            py.allow_threads(|| semaphore.wait(payload, deadline)),
            "semaphore",
        )
    }
}

/// A set of semaphore timepoints.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalFence {
    fence: Mutex<Fence>,
}

impl HalFence {
    /// Wraps a fence.
    pub fn wrap(fence: Fence) -> HalFence {
        HalFence {
            fence: Mutex::new(fence),
        }
    }

    fn lock(&self) -> PyResult<MutexGuard<'_, Fence>> {
        self.fence
            .lock()
            .map_err(|_| PyRuntimeError::new_err("fence poisoned"))
    }

    /// A `hal.fence` ref to the current timepoints.
    pub(crate) fn to_ref(&self) -> PyResult<Ref> {
        Ok(Ref::new(iree_modules_hal::HalFence(self.lock()?.clone())))
    }
}

#[pymethods]
impl HalFence {
    #[new]
    fn new(capacity: usize) -> HalFence {
        let _ = capacity;
        HalFence::wrap(Fence::new())
    }

    /// A fence at `value` of `sem`.
    #[staticmethod]
    fn create_at(sem: PyRef<'_, HalSemaphore>, value: u64) -> HalFence {
        let mut fence = Fence::new();
        fence.insert(sem.semaphore.clone(), value);
        HalFence::wrap(fence)
    }

    /// The union of `fences`.
    #[staticmethod]
    fn join(fences: Vec<PyRef<'_, HalFence>>) -> PyResult<HalFence> {
        let copies = fences
            .iter()
            .map(|f| f.lock().map(|g| g.clone()))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(HalFence::wrap(Fence::join(copies.iter())))
    }

    /// Adds timepoint (`sem`, `value`).
    fn insert(&self, sem: PyRef<'_, HalSemaphore>, value: u64) -> PyResult<()> {
        self.lock()?.insert(sem.semaphore.clone(), value);
        Ok(())
    }

    /// Adds the timepoints of `from_fence`.
    fn extend(&self, from_fence: PyRef<'_, HalFence>) -> PyResult<()> {
        let other = from_fence.lock()?.clone();
        let mut fence = self.lock()?;
        for (semaphore, value) in other.timepoints() {
            fence.insert(semaphore.clone(), *value);
        }
        Ok(())
    }

    /// Signals every timepoint.
    fn signal(&self) -> PyResult<()> {
        self.lock()?.signal().py_context("Error signaling fence")
    }

    /// Fails every semaphore with `message`.
    fn fail(&self, message: &str) -> PyResult<()> {
        self.lock()?
            .fail(Status::new(StatusCode::Unknown, message.to_string()));
        Ok(())
    }

    /// Waits (without the GIL) for every timepoint: true when reached,
    /// false at the timeout (nanoseconds) or deadline.
    #[pyo3(signature = (timeout=None, deadline=None))]
    fn wait(&self, py: Python<'_>, timeout: Option<u64>, deadline: Option<u64>) -> PyResult<bool> {
        let deadline = deadline_of(py, timeout, deadline)?;
        let fence = self.lock()?.clone();
        wait_outcome(py.allow_threads(|| fence.wait(deadline)), "fence")
    }

    /// The number of timepoints.
    #[getter]
    fn timepoint_count(&self) -> PyResult<usize> {
        Ok(self.lock()?.timepoints().len())
    }

    /// A `VmRef` to (a snapshot of) the fence.
    #[getter]
    fn r#ref(&self) -> PyResult<VmRef> {
        Ok(VmRef { r: self.to_ref()? })
    }

    /// A `VmRef` to (a snapshot of) the fence.
    #[getter]
    fn __iree_vm_ref__(&self) -> PyResult<VmRef> {
        self.r#ref()
    }
}

/// What the listener thread is told: a timepoint was reached or failed,
/// or stop.
enum ListenerEvent {
    Reached(u64, Option<String>),
    Stop,
}

/// Calls `callback(token, error)` on a thread of its own once each
/// timepoint given to `listen` is reached (`error` None) or its semaphore
/// fails (`error` the failure's text). The semaphore's signaler only
/// queues the event, so signaling never waits for the GIL; the listener
/// thread takes the GIL for the call. For `HalDeviceLoopBridge`.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct TimepointListener {
    events: Mutex<std::sync::mpsc::Sender<ListenerEvent>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

#[pymethods]
impl TimepointListener {
    #[new]
    fn new(callback: PyObject) -> PyResult<TimepointListener> {
        let (sender, receiver) = std::sync::mpsc::channel::<ListenerEvent>();
        let thread = std::thread::Builder::new()
            .name("iree-loop-bridge".into())
            .spawn(move || {
                while let Ok(ListenerEvent::Reached(token, error)) = receiver.recv() {
                    Python::with_gil(|py| {
                        if let Err(e) = callback.call1(py, (token, error)) {
                            e.write_unraisable(py, None);
                        }
                    });
                }
                Python::with_gil(|_| drop(callback));
            })
            .map_err(|e| {
                PyRuntimeError::new_err(format!("cannot start the listener thread: {e}"))
            })?;
        Ok(TimepointListener {
            events: Mutex::new(sender),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Reports `token` once `semaphore` reaches `value` (or fails).
    fn listen(&self, semaphore: PyRef<'_, HalSemaphore>, value: u64, token: u64) -> PyResult<()> {
        let sender = self
            .events
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the listener is poisoned"))?
            .clone();
        semaphore.semaphore.notify_at(
            value,
            Box::new(move |outcome| {
                let error = outcome.err().map(|status| status.to_string());
                // After `stop` nobody listens; the event is dropped.
                let _ = sender.send(ListenerEvent::Reached(token, error));
            }),
        );
        Ok(())
    }

    /// Stops the thread (events still queued are delivered first) and waits
    /// for it. Idempotent.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        let thread = self
            .thread
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the listener is poisoned"))?
            .take();
        if let Some(thread) = thread {
            if let Ok(events) = self.events.lock() {
                let _ = events.send(ListenerEvent::Stop);
            }
            py.allow_threads(|| thread.join())
                .map_err(|_| PyRuntimeError::new_err("the listener thread panicked"))?;
        }
        Ok(())
    }
}
