//! A dynamic module: module `sample`, built as `libsample_module.so` and
//! loaded ahead of the programs that import it:
//!
//! ```text
//! cargo build --release -p sample-module
//! iree-run-module --device=local-task \
//!     --module=target/release/libsample_module.so \
//!     --module=testdata/dynamic/sample_user.vmfb \
//!     --function=accumulate --input=2 --input=3
//! ```
//!
//! Exports, declared to compiled programs as
//! `func.func private @sample.accumulate(i32) -> i32` and
//! `func.func private @sample.reverse(tensor<?xf32>) -> tensor<?xf32>`:
//!
//! * `accumulate(i32) -> i32`: adds the argument to a running sum kept per
//!   context (starting at 0) and returns the new sum.
//! * `reverse(!hal.buffer_view) -> !hal.buffer_view`: a new rank-1 f32 view
//!   with the elements of the given one in reverse order, made on the
//!   host's device through the `hal.buffer_view` host extension.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::ElementType;
use iree_modules_hal::dynamic::{HostBufferView, HostBufferViews};
use iree_vm::native::NativeModuleBuilder;
use iree_vm::Module;
use iree_vm_dynamic::ModuleParams;

/// The state `sample` keeps in each context.
struct SampleState {
    /// The running sum of `accumulate`.
    sum: AtomicI32,
    /// The host's buffer-view functions.
    views: HostBufferViews,
}

/// `accumulate(i32) -> i32`.
fn accumulate(state: &SampleState, value: i32) -> Result<i32> {
    let previous = state.sum.fetch_add(value, Ordering::Relaxed);
    Ok(previous.wrapping_add(value))
}

/// `reverse(!hal.buffer_view) -> !hal.buffer_view`.
fn reverse(state: &SampleState, view: HostBufferView) -> Result<HostBufferView> {
    let shape = state.views.shape(&view)?;
    let element_type = state.views.element_type(&view)?;
    if shape.len() != 1 || element_type != ElementType::FLOAT_32 {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "sample.reverse expects a rank-1 f32 view but has shape {shape:?} and element \
                 type {:#010x}",
                element_type.0
            ),
        ));
    }
    let mut bytes = state.views.read(&view)?;
    // Reverse whole 4-byte elements: reversing the bytes then each element.
    bytes.reverse();
    for element in bytes.chunks_exact_mut(4) {
        element.reverse();
    }
    state.views.create(&shape, element_type, &bytes)
}

/// Builds module `sample`; called once per load by the host.
fn create_sample_module(params: &ModuleParams) -> Result<Arc<dyn Module>> {
    let views = HostBufferViews::lookup(params.host())?;
    let module = NativeModuleBuilder::<SampleState>::new("sample", 0)
        .function("accumulate", accumulate)?
        .function("reverse", reverse)?
        .build(move |_| {
            Ok(SampleState {
                sum: AtomicI32::new(0),
                views,
            })
        });
    Ok(module)
}

iree_vm_dynamic::dynamic_module!(create_sample_module);
