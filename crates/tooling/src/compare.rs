//! `--expected_output=` checking: compares a function's results with expected
//! values and reports differences in upstream's wording.
//!
//! Upstream's rules, kept as facts so the printed report and exit code match:
//! an expected `(ignored)` matches anything; buffer views must agree in shape
//! and element type, then element by element under the equality mode; two
//! primitive values of the same type are always reported as a type mismatch
//! (upstream's checker never compares equal-typed primitives).

use iree_base::Result;
use iree_hal::{
    element_bytes, first_difference, format_element, format_shape_and_element_type, BufferView,
    ElementEquality, ElementType,
};
use iree_modules_hal::HalBufferView;
use iree_vm::Value;

/// How elements are compared: `--equality_mode=` and the tolerance flags.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Equality {
    /// `exact` compares bytes; anything else is approximate.
    pub exact: bool,
    /// `--expected_f16_threshold=` (absolute tolerance for f16).
    pub f16_atol: f32,
    /// `--expected_bf16_threshold=` (absolute tolerance for bf16).
    pub bf16_atol: f32,
    /// `--expected_f32_threshold=` (absolute tolerance for f32).
    pub f32_atol: f32,
    /// `--expected_f64_threshold=` (absolute tolerance for f64).
    pub f64_atol: f64,
    /// `--expected_rtol=` (relative tolerance shared by the float types).
    pub rtol: f64,
}

impl Default for Equality {
    fn default() -> Equality {
        Equality {
            exact: false,
            f16_atol: 0.001,
            bf16_atol: 0.01,
            f32_atol: 0.0001,
            f64_atol: 0.0001,
            rtol: 1e-5,
        }
    }
}

/// The number of elements printed for each side of a failed comparison.
const REPORT_MAX_ELEMENT_COUNT: usize = 1024;

/// Compares `actual` results with `expected` ones (`None` is `(ignored)`),
/// appending upstream's `[FAILED] …` report lines to `report`. Returns whether
/// everything matched.
pub fn compare_results(
    expected: &[Option<Value>],
    actual: &[Value],
    equality: &Equality,
    report: &mut String,
) -> Result<bool> {
    if expected.len() != actual.len() {
        report.push_str(&format!(
            "[FAILED] expected {} list elements but {} provided\n",
            expected.len(),
            actual.len()
        ));
        return Ok(false);
    }
    let mut all_match = true;
    for (i, (expected, actual)) in expected.iter().zip(actual).enumerate() {
        let Some(expected) = expected else { continue };
        if !compare_value(i, expected, actual, equality, report)? {
            all_match = false;
        }
    }
    Ok(all_match)
}

fn compare_value(
    index: usize,
    expected: &Value,
    actual: &Value,
    equality: &Equality,
    report: &mut String,
) -> Result<bool> {
    if let (Some(e), Some(a)) = (buffer_view(expected), buffer_view(actual)) {
        return compare_buffer_views(index, e, a, equality, report);
    }
    if expected.is_ref() == actual.is_ref() && primitive_name(expected) != primitive_name(actual) {
        // Primitives of different types: upstream compares the payloads as
        // the expected type.
        if values_equal_as_expected(expected, actual) {
            return Ok(true);
        }
        let name = primitive_name(expected);
        report.push_str(&format!(
            "[FAILED] result[{index}]: {name} values differ\n  expected: {}\n  actual: {}\n",
            primitive_text(expected),
            primitive_text(actual)
        ));
        return Ok(false);
    }
    report.push_str(&format!(
        "[FAILED] result[{index}]: variant types mismatch; expected {} but got {}\n",
        type_name(expected),
        type_name(actual)
    ));
    Ok(false)
}

fn buffer_view(value: &Value) -> Option<&BufferView> {
    match value {
        Value::Ref(Some(r)) => r.downcast::<HalBufferView>().map(|v| &v.0),
        _ => None,
    }
}

fn primitive_name(value: &Value) -> &'static str {
    match value {
        Value::I8(_) => "i8",
        Value::I16(_) => "i16",
        Value::I32(_) => "i32",
        Value::I64(_) => "i64",
        Value::F32(_) => "f32",
        Value::F64(_) => "f64",
        Value::Ref(_) => "ref",
    }
}

fn type_name(value: &Value) -> String {
    match value {
        Value::Ref(None) => "empty".to_string(),
        Value::Ref(Some(r)) => r.ref_type().name().to_string(),
        other => primitive_name(other).to_string(),
    }
}

fn primitive_text(value: &Value) -> String {
    match value {
        Value::I8(v) => v.to_string(),
        Value::I16(v) => v.to_string(),
        Value::I32(v) => v.to_string(),
        Value::I64(v) => v.to_string(),
        Value::F32(v) => iree_base::cformat::format_g_upper(f64::from(*v)),
        Value::F64(v) => iree_base::cformat::format_g_upper(*v),
        Value::Ref(_) => String::new(),
    }
}

fn values_equal_as_expected(expected: &Value, actual: &Value) -> bool {
    let bits = |v: &Value| -> u64 {
        match *v {
            Value::I8(x) => x as u8 as u64,
            Value::I16(x) => x as u16 as u64,
            Value::I32(x) => x as u32 as u64,
            Value::I64(x) => x as u64,
            Value::F32(x) => x.to_bits() as u64,
            Value::F64(x) => x.to_bits(),
            Value::Ref(_) => 0,
        }
    };
    let mask = match expected {
        Value::I8(_) => 0xff,
        Value::I16(_) => 0xffff,
        Value::I32(_) | Value::F32(_) => 0xffff_ffff,
        _ => u64::MAX,
    };
    bits(expected) & mask == bits(actual) & mask
}

fn compare_buffer_views(
    index: usize,
    expected: &BufferView,
    actual: &BufferView,
    equality: &Equality,
    report: &mut String,
) -> Result<bool> {
    let expected_desc = format_shape_and_element_type(expected.shape(), expected.element_type());
    let mut failure = String::new();
    if expected.shape() != actual.shape() || expected.element_type() != actual.element_type() {
        failure.push_str(&format!(
            "metadata is {}; expected that the view matches {expected_desc}",
            format_shape_and_element_type(actual.shape(), actual.element_type()),
        ));
    } else {
        let element_type = actual.element_type();
        let count = actual.element_count();
        let expected_buffer = expected.buffer();
        let actual_buffer = actual.buffer();
        // Both mapped in place: no copies of large results.
        let mismatch = expected_buffer.map_read(0, expected_buffer.byte_length(), |e| {
            actual_buffer.map_read(0, actual_buffer.byte_length(), |a| {
                first_mismatch(element_type, count, e, a, equality).map(|i| {
                    let mut actual_text = String::new();
                    let mut expected_text = String::new();
                    let (a, e) = (
                        element_bytes(a, element_type, i),
                        element_bytes(e, element_type, i),
                    );
                    format_element(a.unwrap_or_default(), element_type, &mut actual_text)?;
                    format_element(e.unwrap_or_default(), element_type, &mut expected_text)?;
                    Ok::<_, iree_base::Status>((i, actual_text, expected_text))
                })
            })
        })??;
        if let Some(found) = mismatch {
            let (i, actual_text, expected_text) = found?;
            failure.push_str(&format!(
                "element at index {i} ({actual_text}) does not match the expected ({expected_text})"
            ));
        }
    }
    if failure.is_empty() {
        return Ok(true);
    }
    report.push_str(&format!(
        "[FAILED] result[{index}]: {failure}; expected that the view is equal to contents of a view of {expected_desc}\n  expected:\n{}\n  actual:\n{}\n",
        expected.format(REPORT_MAX_ELEMENT_COUNT)?,
        actual.format(REPORT_MAX_ELEMENT_COUNT)?,
    ));
    Ok(false)
}

/// The index of the first element that differs, or `None`: floats of the
/// four types with a threshold flag approximately (that type's absolute
/// tolerance and the shared relative one), everything else exactly.
fn first_mismatch(
    element_type: ElementType,
    count: usize,
    expected: &[u8],
    actual: &[u8],
    equality: &Equality,
) -> Option<usize> {
    let atol = match element_type {
        ElementType::FLOAT_16 => Some(f64::from(equality.f16_atol)),
        ElementType::BFLOAT_16 => Some(f64::from(equality.bf16_atol)),
        ElementType::FLOAT_32 => Some(f64::from(equality.f32_atol)),
        ElementType::FLOAT_64 => Some(equality.f64_atol),
        _ => None,
    };
    let mode = match atol {
        Some(atol) if !equality.exact => ElementEquality::Approximate {
            atol,
            rtol: equality.rtol,
        },
        _ => ElementEquality::Exact,
    };
    first_difference(element_type, count, expected, actual, mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn approximate_uses_absolute_and_relative_tolerance() {
        let eq = Equality::default();
        let e = f32s(&[32000.3, f32::NAN, f32::INFINITY]);
        let a = f32s(&[32000.0, f32::NAN, f32::INFINITY]);
        assert_eq!(first_mismatch(ElementType::FLOAT_32, 3, &e, &a, &eq), None);
        let exact = Equality { exact: true, ..eq };
        assert_eq!(
            first_mismatch(ElementType::FLOAT_32, 3, &e, &a, &exact),
            Some(0)
        );
        let far = f32s(&[32001.0, 0.0, 0.0]);
        assert_eq!(
            first_mismatch(ElementType::FLOAT_32, 1, &far, &a, &eq),
            Some(0)
        );
    }

    #[test]
    fn integers_compare_exactly() {
        let eq = Equality::default();
        let e = [1u8, 0, 0, 0, 2, 0, 0, 0];
        let a = [1u8, 0, 0, 0, 3, 0, 0, 0];
        assert_eq!(first_mismatch(ElementType::INT_32, 2, &e, &a, &eq), Some(1));
    }

    #[test]
    fn list_length_mismatch_reports_both_sizes() {
        let mut report = String::new();
        let matched = compare_results(
            &[None],
            &[Value::I32(1), Value::I32(2)],
            &Equality::default(),
            &mut report,
        )
        .unwrap();
        assert!(!matched);
        assert_eq!(report, "[FAILED] expected 1 list elements but 2 provided\n");
    }

    #[test]
    fn equal_typed_primitives_report_a_type_mismatch_as_upstream_does() {
        let mut report = String::new();
        let matched = compare_results(
            &[Some(Value::I32(42))],
            &[Value::I32(42)],
            &Equality::default(),
            &mut report,
        )
        .unwrap();
        assert!(!matched);
        assert_eq!(
            report,
            "[FAILED] result[0]: variant types mismatch; expected i32 but got i32\n"
        );
    }
}
