//! IREE statuses as Python exceptions, with upstream's choice of class.

use iree_base::{Status, StatusCode};
use pyo3::exceptions::{PyIndexError, PyNotImplementedError, PyRuntimeError, PyValueError};
use pyo3::PyErr;

/// The Python exception for `status`, prefixed with `context` (upstream
/// words invocation failures `Error invoking function: ...`): ValueError
/// for INVALID_ARGUMENT and NOT_FOUND, IndexError for OUT_OF_RANGE, NotImplementedError
/// for UNIMPLEMENTED, RuntimeError otherwise.
pub fn status_to_py(status: &Status, context: &str) -> PyErr {
    let message = if context.is_empty() {
        status.to_string()
    } else {
        format!("{context}: {status}")
    };
    match status.code() {
        StatusCode::InvalidArgument | StatusCode::NotFound => PyValueError::new_err(message),
        StatusCode::OutOfRange => PyIndexError::new_err(message),
        StatusCode::Unimplemented => PyNotImplementedError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// `Result<T, Status>` to `PyResult<T>`.
pub trait IntoPyResult<T> {
    /// Converts with no prefix.
    fn py(self) -> pyo3::PyResult<T>;
    /// Converts, prefixing the message with `context`.
    fn py_context(self, context: &str) -> pyo3::PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, Status> {
    fn py(self) -> pyo3::PyResult<T> {
        self.map_err(|s| status_to_py(&s, ""))
    }

    fn py_context(self, context: &str) -> pyo3::PyResult<T> {
        self.map_err(|s| status_to_py(&s, context))
    }
}
