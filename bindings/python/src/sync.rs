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
    Ok(())
}

/// The deadline of a wait: `timeout` nanoseconds from now, or `deadline`
/// in nanoseconds since the Unix epoch, or none (wait forever).
fn deadline_of(timeout: Option<u64>, deadline: Option<u64>) -> PyResult<Option<Instant>> {
    match (timeout, deadline) {
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "timeout and deadline cannot both be set",
        )),
        (Some(ns), None) => Ok(Some(Instant::now() + Duration::from_nanos(ns))),
        (None, Some(ns)) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            Ok(Some(
                Instant::now() + Duration::from_nanos(ns.saturating_sub(now)),
            ))
        }
        (None, None) => Ok(None),
    }
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

    /// Waits (without the GIL) until the value reaches `payload`; timeout
    /// in nanoseconds.
    #[pyo3(signature = (payload, timeout=None, deadline=None))]
    fn wait(
        &self,
        py: Python<'_>,
        payload: u64,
        timeout: Option<u64>,
        deadline: Option<u64>,
    ) -> PyResult<()> {
        let deadline = deadline_of(timeout, deadline)?;
        let semaphore = self.semaphore.clone();
        py.allow_threads(|| semaphore.wait(payload, deadline))
            .py_context("Error waiting on semaphore")
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

    /// Waits (without the GIL) for every timepoint; timeout in nanoseconds.
    #[pyo3(signature = (timeout=None, deadline=None))]
    fn wait(&self, py: Python<'_>, timeout: Option<u64>, deadline: Option<u64>) -> PyResult<()> {
        let deadline = deadline_of(timeout, deadline)?;
        let fence = self.lock()?.clone();
        py.allow_threads(|| fence.wait(deadline))
            .py_context("Error waiting on fence")
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
