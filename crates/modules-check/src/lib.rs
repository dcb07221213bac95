//! The `check` VM module (version 0): the `check.expect_*` imports that
//! compiled tests call (`check.expect_eq(%a, %b) : tensor<4xi32>`).
//!
//! An expectation that does not hold is not an error: as upstream's gtest
//! `EXPECT_*`, it is recorded in [`Failures`] and the function keeps
//! running, so a test reports every failed expectation. Errors (a null or
//! wrong ref where a buffer view is expected, an element type a check
//! cannot compare) fail the call with a status instead.
//!
//! Messages carry upstream's wording (`Expected equality of these values.
//! Contents does not match.`), extended with the first differing index and
//! both values for `expect_eq`, and print the operands in
//! `iree-run-module`'s format.

use std::sync::Arc;

use iree_base::cformat::{format_e_glibc, format_g_glibc};
use iree_base::{Result, Status, StatusCode};
use iree_hal::{
    compute_view_size, element_bytes, first_difference, float_element, format_element, fuzzy_eq,
    BufferView, ElementEquality, ElementType,
};
use iree_modules_hal::{buffer_view_type, deref, device_type, HalBufferView, HalDevice};
use iree_vm::native::NativeModuleBuilder;
use iree_vm::{Module, Ref};
use parking_lot::Mutex;

/// The module version compiled programs require (`check >= 0`).
pub const CHECK_MODULE_VERSION: u32 = 0;

/// The exports with the calling conventions the 3.13 compiler imports them
/// with (`iree-dump-module` of a compiled test).
pub const EXPORTS: &[(&str, &str)] = &[
    ("expect_all_true", "0rr_v"),
    ("expect_almost_eq", "0rrrff_v"),
    ("expect_eq", "0rrr_v"),
    ("expect_false", "0i_v"),
    ("expect_true", "0i_v"),
];

/// Elements printed per operand in a failure message (as upstream).
const MAX_PRINTED_ELEMENTS: usize = 1024;

/// The failed expectations of the calls so far, shared between the module
/// and whoever runs the tests; cloning shares the same list.
#[derive(Clone, Default)]
pub struct Failures(Arc<Mutex<Vec<String>>>);

impl Failures {
    /// An empty list.
    pub fn new() -> Failures {
        Failures::default()
    }

    /// Removes and returns the messages recorded so far, oldest first.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock())
    }

    fn record(&self, message: String) {
        self.0.lock().push(message);
    }
}

/// Builds the `check` module; failed expectations go to `failures`.
pub fn create_check_module(failures: Failures) -> Result<Arc<dyn Module>> {
    type Views = (Option<Ref>, Option<Ref>, Option<Ref>);
    let module =
        NativeModuleBuilder::<Failures>::new("check", CHECK_MODULE_VERSION)
            .export("expect_true", "0i_v", |failures, (operand,): (i32,)| {
                if operand == 0 {
                    failures.record(format!(
                        "check.expect_true: Expected {operand} to be nonzero."
                    ));
                }
                Ok(())
            })?
            .export("expect_false", "0i_v", |failures, (operand,): (i32,)| {
                if operand != 0 {
                    failures.record(format!(
                        "check.expect_false: Expected {operand} to be zero."
                    ));
                }
                Ok(())
            })?
            .export(
                "expect_all_true",
                "0rr_v",
                |failures, (device, operand): (Option<Ref>, Option<Ref>)| {
                    check_device(&device)?;
                    let view = view_arg(&operand, "operand")?;
                    if let Some(message) = expect_all_true(view)? {
                        failures.record(message);
                    }
                    Ok(())
                },
            )?
            .export(
                "expect_eq",
                "0rrr_v",
                |failures, (device, lhs, rhs): Views| {
                    check_device(&device)?;
                    let (lhs, rhs) = (view_arg(&lhs, "lhs")?, view_arg(&rhs, "rhs")?);
                    if let Some(message) = expect_eq(lhs, rhs)? {
                        failures.record(message);
                    }
                    Ok(())
                },
            )?
            .export(
                "expect_almost_eq",
                "0rrrff_v",
                |failures,
                 (device, lhs, rhs, atol, rtol): (
                    Option<Ref>,
                    Option<Ref>,
                    Option<Ref>,
                    f32,
                    f32,
                )| {
                    check_device(&device)?;
                    let (lhs, rhs) = (view_arg(&lhs, "lhs")?, view_arg(&rhs, "rhs")?);
                    if let Some(message) = expect_almost_eq(lhs, rhs, atol, rtol)? {
                        failures.record(message);
                    }
                    Ok(())
                },
            )?
            .build(move |_| Ok(failures.clone()));
    Ok(module)
}

/// The device argument is only used by upstream to stage device memory;
/// our buffers read back through any device. A non-null one must still be
/// a device.
fn check_device(device: &Option<Ref>) -> Result<()> {
    if device.is_some() {
        deref::<HalDevice>(device, device_type(), "device")?;
    }
    Ok(())
}

fn view_arg<'a>(value: &'a Option<Ref>, what: &str) -> Result<&'a BufferView> {
    Ok(&deref::<HalBufferView>(value, buffer_view_type(), what)?.0)
}

/// Runs `f` over the view's dense contents, read back from whichever
/// device holds them.
fn with_contents<R>(view: &BufferView, f: impl FnOnce(&[u8]) -> R) -> Result<R> {
    let length = compute_view_size(view.shape(), view.element_type(), view.encoding())?;
    let buffer = view.buffer();
    if (length as u64) > buffer.byte_length() {
        return Err(Status::new(
            StatusCode::OutOfRange,
            format!(
                "buffer view of {length} bytes over a buffer of {} bytes",
                buffer.byte_length()
            ),
        ));
    }
    buffer.map_read(0, length as u64, f)
}

/// One element as `iree-run-module` prints it.
fn element_text(data: &[u8], element_type: ElementType, index: usize) -> String {
    let mut text = String::new();
    match element_bytes(data, element_type, index) {
        Some(bytes) if format_element(bytes, element_type, &mut text).is_ok() => text,
        _ => "(out of range)".to_string(),
    }
}

/// `  <name>:\n    <view>` for each operand.
fn print_views(views: &[(&str, &BufferView)]) -> Result<String> {
    let mut text = String::new();
    for (name, view) in views {
        text.push_str(&format!(
            "\n  {name}:\n    {}",
            view.format(MAX_PRINTED_ELEMENTS)?
        ));
    }
    Ok(text)
}

fn unsupported(check: &str, element_type: ElementType) -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        format!("{check}: unsupported element type {}", element_type.name()),
    )
}

/// Every element nonzero (integers and booleans of any width, floats of
/// every kind; `-0.0` is zero and NaN nonzero).
fn expect_all_true(view: &BufferView) -> Result<Option<String>> {
    let element_type = view.element_type();
    let is_float = float_element(&[0; 8], element_type).is_some();
    if !(is_float || element_type.is_integer()) || !element_type.is_byte_aligned() {
        return Err(unsupported("check.expect_all_true", element_type));
    }
    let size = element_type.dense_byte_count();
    let zero = with_contents(view, |data| {
        data.chunks_exact(size)
            .position(|element| match float_element(element, element_type) {
                Some(value) => value == 0.0,
                None => element.iter().all(|&b| b == 0),
            })
    })?;
    let Some(index) = zero else { return Ok(None) };
    Ok(Some(format!(
        "check.expect_all_true: Expected all elements to be nonzero. The first zero is at index {index}.{}",
        print_views(&[("operand", view)])?
    )))
}

/// Same element type, shape and bytes.
fn expect_eq(lhs: &BufferView, rhs: &BufferView) -> Result<Option<String>> {
    let types_eq = lhs.element_type() == rhs.element_type();
    let shapes_eq = lhs.shape() == rhs.shape();
    let difference = with_contents(lhs, |l| {
        with_contents(rhs, |r| {
            if !(types_eq && shapes_eq) {
                return (l != r).then(String::new);
            }
            let element_type = lhs.element_type();
            let index = first_difference(
                element_type,
                lhs.element_count(),
                r,
                l,
                ElementEquality::Exact,
            )?;
            Some(format!(
                " The first difference is at index {index}: lhs {} and rhs {}.",
                element_text(l, element_type, index),
                element_text(r, element_type, index)
            ))
        })
    })??;
    if types_eq && shapes_eq && difference.is_none() {
        return Ok(None);
    }
    let mut message = "check.expect_eq: Expected equality of these values.".to_string();
    if !types_eq {
        message.push_str(" Element types do not match.");
    }
    if !shapes_eq {
        message.push_str(" Shapes do not match.");
    }
    if let Some(detail) = difference {
        message.push_str(" Contents does not match.");
        message.push_str(&detail);
    }
    message.push_str(&print_views(&[("lhs", lhs), ("rhs", rhs)])?);
    Ok(Some(message))
}

/// Same element type and shape, and every element of `lhs` within `atol +
/// rtol * |rhs|` of `rhs` (float types only).
fn expect_almost_eq(
    lhs: &BufferView,
    rhs: &BufferView,
    atol: f32,
    rtol: f32,
) -> Result<Option<String>> {
    let types_eq = lhs.element_type() == rhs.element_type();
    let shapes_eq = lhs.shape() == rhs.shape();
    let mut detail = None;
    if types_eq && shapes_eq {
        let element_type = lhs.element_type();
        if float_element(&[0; 8], element_type).is_none() {
            return Err(unsupported("check.expect_almost_eq", element_type));
        }
        let (atol64, rtol64) = (f64::from(atol), f64::from(rtol));
        detail = with_contents(lhs, |l| {
            with_contents(rhs, |r| {
                let size = element_type.dense_byte_count();
                l.chunks_exact(size)
                    .zip(r.chunks_exact(size))
                    .enumerate()
                    .find_map(|(index, (a, b))| {
                        let a = float_element(a, element_type)?;
                        let b = float_element(b, element_type)?;
                        (!fuzzy_eq(a, b, atol64, rtol64)).then_some((index, a, b))
                    })
            })
        })??;
    }
    if types_eq && shapes_eq && detail.is_none() {
        return Ok(None);
    }
    let mut message = "check.expect_almost_eq: Expected near equality of these values.".to_string();
    if !types_eq {
        message.push_str(" Element types do not match.");
    }
    if !shapes_eq {
        message.push_str(" Shapes do not match.");
    }
    if let Some((index, l, r)) = detail {
        let g = |x: f64| format_g_glibc(x, 6, false);
        message.push_str(&format!(
            " Contents does not match to tolerance parameters atol={}, rtol={}. \
             The first failure occurs at index {index} as the lhs value {} differs \
             from the rhs value {} by {}.",
            g(f64::from(atol)),
            g(f64::from(rtol)),
            g(l),
            g(r),
            format_e_glibc(r - l, 3, false)
        ));
    }
    message.push_str(&print_views(&[("lhs", lhs), ("rhs", rhs)])?);
    Ok(Some(message))
}

#[cfg(test)]
mod tests;
