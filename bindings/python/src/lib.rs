//! `iree_rust.runtime._binding`: the native half of the `iree_rust.runtime`
//! Python package, a drop-in for upstream's `iree.runtime` (3.13) built on
//! the iree-rs runtime crates.
//!
//! The classes here carry upstream's names and signatures (`VmInstance`,
//! `VmModule`, `VmContext`, `VmFunction`, `VmVariantList`, `VmRef`,
//! `HalDriver`, `HalDevice`, `HalBuffer`, `HalBufferView`,
//! `PyModuleInterface`, `ParameterIndex`, ...); the pure-Python half of the
//! package (`python/iree_rust/runtime`) layers `Config`, `SystemContext`
//! and `DeviceArray` on them. `FunctionInvoker` is the whole call
//! path of `module.function(*args)` in Rust, with the GIL released while
//! the VM runs.

mod dlpack;
mod errors;
mod hal;
mod invoke;
mod io;
mod pymodule;
mod replay;
mod sync;
mod tokenizer;
mod tools;
mod vm;
mod vm_buffer;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _binding(m: &Bound<'_, PyModule>) -> PyResult<()> {
    vm::register(m)?;
    hal::register(m)?;
    invoke::register(m)?;
    io::register(m)?;
    pymodule::register(m)?;
    replay::register(m)?;
    sync::register(m)?;
    vm_buffer::register(m)?;
    tools::register(m)?;
    tokenizer::register(m)?;
    Ok(())
}
