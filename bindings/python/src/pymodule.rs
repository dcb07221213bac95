//! `PyModuleInterface`: a VM module whose functions are Python callables,
//! built on the native module API (`NativeModuleBuilder::export_raw`).
//!
//! Each context that registers the module calls `ctor(iface)` once for its
//! state object; an export `name` with cconv `cconv` calls
//! `method(state, *args)`, refs arriving as `VmRef`s. A Python exception
//! becomes an error status (`RuntimeError` in the caller, naming the
//! exception) and unwinds no further.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use iree_base::{Status, StatusCode};
use iree_vm::native::NativeModuleBuilder;
use iree_vm::{Cconv, CconvType, Value};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyTuple};

use crate::errors::IntoPyResult;
use crate::vm::{py_to_ref, value_to_py, VmModule};

/// Adds `PyModuleInterface` to the extension module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyModuleInterface>()
}

/// Sets its flag when the module that owns it is dropped.
struct DestroyGuard(Arc<AtomicBool>);

impl Drop for DestroyGuard {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Per-context state: what `ctor(iface)` returned.
struct PyState {
    object: PyObject,
}

/// Builder of a module implemented in Python.
#[pyclass(module = "iree_rust.runtime._binding", frozen)]
pub struct PyModuleInterface {
    name: String,
    ctor: PyObject,
    exports: Mutex<Vec<(String, String, PyObject)>>,
    initialized: AtomicBool,
    destroyed: Arc<AtomicBool>,
}

/// The status for a Python exception raised by an export.
fn py_err_to_status(py: Python<'_>, err: PyErr) -> Status {
    let kind = err
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".to_string());
    let message = err
        .value(py)
        .str()
        .map(|s| s.to_string())
        .unwrap_or_default();
    Status::new(StatusCode::Unknown, format!("{kind}: {message}"))
}

/// The VM value of a Python result for slot `ty`.
fn result_value(obj: &Bound<'_, PyAny>, ty: &CconvType) -> PyResult<Value> {
    let number = obj.is_instance_of::<PyInt>()
        || obj.is_instance_of::<PyBool>()
        || obj.is_instance_of::<PyFloat>();
    Ok(match ty {
        CconvType::I32 => Value::I32(obj.extract::<i64>()? as i32),
        CconvType::I64 => Value::I64(obj.extract()?),
        CconvType::F32 => Value::F32(obj.extract::<f64>()? as f32),
        CconvType::F64 => Value::F64(obj.extract()?),
        CconvType::Ref if obj.is_none() => Value::Ref(None),
        CconvType::Ref if !number => match py_to_ref(obj)? {
            Some(r) => Value::Ref(Some(r)),
            None => return Err(PyTypeError::new_err("expected a VM ref result")),
        },
        _ => {
            return Err(PyTypeError::new_err(format!(
                "cannot return a {} for a {ty:?} result",
                obj.get_type().name()?
            )))
        }
    })
}

/// Calls `method(state, *args)` and converts its results.
fn call_export(
    method: &PyObject,
    cconv: &Cconv,
    state: &PyState,
    args: &mut [Value],
    results: &mut Vec<Value>,
) -> iree_base::Result<()> {
    Python::with_gil(|py| {
        let mut call = || -> PyResult<()> {
            let mut py_args = Vec::with_capacity(args.len() + 1);
            py_args.push(state.object.clone_ref(py));
            for value in args.iter_mut() {
                py_args.push(value_to_py(py, std::mem::take(value))?);
            }
            let ret = method.call1(py, PyTuple::new(py, py_args)?)?;
            let ret = ret.bind(py);
            match cconv.results.len() {
                0 => {}
                1 => results.push(result_value(ret, &cconv.results[0])?),
                n => {
                    let items: Vec<Bound<'_, PyAny>> = ret.try_iter()?.collect::<PyResult<_>>()?;
                    if items.len() != n {
                        return Err(PyTypeError::new_err(format!(
                            "expected {n} results but the function returned {}",
                            items.len()
                        )));
                    }
                    for (item, ty) in items.iter().zip(&cconv.results) {
                        results.push(result_value(item, ty)?);
                    }
                }
            }
            Ok(())
        };
        call().map_err(|e| py_err_to_status(py, e))
    })
}

#[pymethods]
impl PyModuleInterface {
    #[new]
    fn new(module_name: String, ctor: PyObject) -> PyModuleInterface {
        PyModuleInterface {
            name: module_name,
            ctor,
            exports: Mutex::new(Vec::new()),
            initialized: AtomicBool::new(false),
            destroyed: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Declares export `name` with calling convention `cconv` (`0ii_i`),
    /// implemented by `callable(state, *args)`.
    fn export(&self, name: String, cconv: String, callable: PyObject) -> PyResult<()> {
        if self.initialized.load(Ordering::Acquire) {
            return Err(PyRuntimeError::new_err(
                "Attempt to export function after module created",
            ));
        }
        Cconv::parse(&cconv).py()?;
        self.exports
            .lock()
            .map_err(|_| PyRuntimeError::new_err("exports poisoned"))?
            .push((name, cconv, callable));
        Ok(())
    }

    /// Creates the module (once).
    fn create(slf: Bound<'_, Self>) -> PyResult<VmModule> {
        let py = slf.py();
        let this = slf.get();
        if this.initialized.swap(true, Ordering::AcqRel) {
            return Err(PyRuntimeError::new_err(
                "Cannot create a module from a PyModuleInterface more than once",
            ));
        }
        let exports = std::mem::take(
            &mut *this
                .exports
                .lock()
                .map_err(|_| PyRuntimeError::new_err("exports poisoned"))?,
        );
        let guard = Arc::new(DestroyGuard(this.destroyed.clone()));
        let mut builder = NativeModuleBuilder::<PyState>::new(&this.name, 0);
        for (name, cconv, method) in exports {
            let parsed = Cconv::parse(&cconv).py()?;
            let guard = guard.clone();
            builder = builder
                .export_raw(&name, &cconv, move |state, args, results| {
                    let _alive = &guard;
                    call_export(&method, &parsed, state, args, results)
                })
                .py()?;
        }
        let ctor = this.ctor.clone_ref(py);
        let iface = slf.clone().unbind();
        let module = builder.build(move |_| {
            let _alive = &guard;
            Python::with_gil(|py| {
                ctor.call1(py, (iface.clone_ref(py),))
                    .map(|object| PyState { object })
                    .map_err(|e| py_err_to_status(py, e))
            })
        });
        Ok(VmModule::wrap(module))
    }

    /// Whether `create()` was called.
    #[getter]
    fn initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    /// Whether the created module is gone.
    #[getter]
    fn destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }

    fn __repr__(&self) -> String {
        let state = if self.destroyed() {
            "DESTROYED"
        } else if self.initialized() {
            "INITIALIZED"
        } else {
            "UNINITIALIZED"
        };
        format!("<PyModuleInterface '{}' {state}>", self.name)
    }
}
