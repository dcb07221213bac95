//! HAL replay capture from Python: `HalReplayRecorder` (a capture file that
//! records every HAL call made through the devices it wraps), and the
//! process's recorder, which `flags.parse_flags("--device_replay_output=…")`
//! starts: every device the drivers create afterwards is recorded into it,
//! as `iree-run-module --device_replay_output=` records its devices, until
//! `flags` closes it at exit.

use std::sync::Arc;

use iree_hal::Device;
use iree_hal_replay::{FilePolicy, FileValidation, Recorder, RecorderOptions};
use parking_lot::Mutex;
use pyo3::prelude::*;

use crate::errors::IntoPyResult;
use crate::hal::HalDevice;

/// Adds the replay class and functions to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<HalReplayRecorder>()?;
    m.add_function(wrap_pyfunction!(_start_device_replay, m)?)?;
    m.add_function(wrap_pyfunction!(_close_device_replay, m)?)?;
    Ok(())
}

/// The recorder of `--device_replay_output`, while a capture is open.
static PROCESS_RECORDER: Mutex<Option<Arc<Recorder>>> = Mutex::new(None);

/// `device`, recorded when the process's capture is open.
pub fn recorded(device: Arc<dyn Device>) -> Arc<dyn Device> {
    match PROCESS_RECORDER.lock().as_ref() {
        Some(recorder) => recorder.wrap(device),
        None => device,
    }
}

fn create(path: &str, file_policy: &str, file_validation: &str) -> PyResult<Arc<Recorder>> {
    let options = RecorderOptions {
        file_policy: FilePolicy::parse(file_policy).py()?,
        file_validation: FileValidation::parse(file_validation).py()?,
    };
    Recorder::create(path, options).py_context("Error creating the replay capture")
}

/// A HAL replay capture being written (`.ireereplay`, upstream 3.13's
/// format): `wrap` a device and use the device it returns; `close` (or the
/// end of a `with` block) finishes the file.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct HalReplayRecorder {
    recorder: Arc<Recorder>,
}

#[pymethods]
impl HalReplayRecorder {
    /// Creates the capture file `path`; `file_policy` and `file_validation`
    /// take the values of `--device_replay_file_policy` and
    /// `--device_replay_file_validation`.
    #[new]
    #[pyo3(signature = (path, file_policy="reference", file_validation="identity"))]
    fn new(path: &str, file_policy: &str, file_validation: &str) -> PyResult<HalReplayRecorder> {
        Ok(HalReplayRecorder {
            recorder: create(path, file_policy, file_validation)?,
        })
    }

    /// A device recording every call made through it into this capture
    /// (devices wrapped by one recorder share its file, as a device group's
    /// do).
    fn wrap(&self, device: &HalDevice) -> HalDevice {
        let wrapped: Arc<dyn Device> = self.recorder.wrap(device.device.clone());
        HalDevice { device: wrapped }
    }

    /// Opens a replay scope (`init`, `execute`, `deinit` are upstream's
    /// tools'; `iree-benchmark-replay --replay_scope=NAME` times them).
    fn scope_begin(&self, name: &str) {
        self.recorder.scope_begin(name);
    }

    /// Closes a replay scope.
    fn scope_end(&self, name: &str) {
        self.recorder.scope_end(name);
    }

    /// Records written so far.
    #[getter]
    fn record_count(&self) -> u64 {
        self.recorder.record_count()
    }

    /// Finishes the file; calls made afterwards are not recorded.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let recorder = self.recorder.clone();
        py.allow_threads(|| recorder.close())
            .py_context("Error writing the replay capture")
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}

/// Starts the process's capture (`--device_replay_output`), finishing any
/// capture already open.
#[pyfunction]
fn _start_device_replay(
    py: Python<'_>,
    path: &str,
    file_policy: &str,
    file_validation: &str,
) -> PyResult<()> {
    let recorder = create(path, file_policy, file_validation)?;
    let previous = PROCESS_RECORDER.lock().replace(recorder);
    match previous {
        Some(previous) => py
            .allow_threads(|| previous.close())
            .py_context("Error writing the replay capture"),
        None => Ok(()),
    }
}

/// Finishes the process's capture, if one is open.
#[pyfunction]
fn _close_device_replay(py: Python<'_>) -> PyResult<()> {
    let previous = PROCESS_RECORDER.lock().take();
    match previous {
        Some(previous) => py
            .allow_threads(|| previous.close())
            .py_context("Error writing the replay capture"),
        None => Ok(()),
    }
}
