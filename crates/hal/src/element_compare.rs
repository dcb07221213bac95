//! Element-wise comparison of buffer contents, shared by everything that
//! checks results: `iree-run-module --expected_output=` and the `check`
//! module's `expect_eq` / `expect_almost_eq`.
//!
//! The approximate rule is upstream's `iree_math_fuzzy_compare_f64`
//! (NumPy's `isclose`, evaluated in f64): `|actual - expected| <= atol +
//! rtol * |expected|`, NaN matches NaN, and a non-finite expected value
//! only matches itself.

use crate::element_type::ElementType;
use crate::math;

/// Whether `actual` is close enough to `expected`
/// (`iree_math_fuzzy_compare_f64`). Asymmetric: `rtol` scales with the
/// expected (reference) value.
pub fn fuzzy_eq(actual: f64, expected: f64, atol: f64, rtol: f64) -> bool {
    if actual == expected || (actual.is_nan() && expected.is_nan()) {
        return true;
    }
    if !expected.is_finite() {
        return false;
    }
    (actual - expected).abs() <= atol + rtol * expected.abs()
}

/// The value of one float element (every float kind but complex), widened
/// to f64 exactly; `None` for other element types or too few bytes.
pub fn float_element(data: &[u8], element_type: ElementType) -> Option<f64> {
    let byte = || data.first().copied();
    let half = || Some(u16::from_le_bytes(data.get(..2)?.try_into().ok()?));
    let value = match element_type {
        ElementType::FLOAT_8_E4M3_FN => math::f8e4m3fn_to_f32(byte()?),
        ElementType::FLOAT_8_E4M3_FNUZ => math::f8e4m3fnuz_to_f32(byte()?),
        ElementType::FLOAT_8_E5M2 => math::f8e5m2_to_f32(byte()?),
        ElementType::FLOAT_8_E5M2_FNUZ => math::f8e5m2fnuz_to_f32(byte()?),
        ElementType::FLOAT_8_E8M0_FNU => math::f8e8m0fnu_to_f32(byte()?),
        ElementType::BFLOAT_16 => math::bf16_to_f32(half()?),
        ElementType::FLOAT_16 => math::f16_to_f32(half()?),
        ElementType::FLOAT_32 => f32::from_le_bytes(data.get(..4)?.try_into().ok()?),
        ElementType::FLOAT_64 => {
            return Some(f64::from_le_bytes(data.get(..8)?.try_into().ok()?));
        }
        _ => return None,
    };
    Some(f64::from(value))
}

/// The bytes of element `index` of dense contents: the element's own
/// bytes, or for packed sub-byte types the byte holding it; `None` past
/// the end.
pub fn element_bytes(data: &[u8], element_type: ElementType, index: usize) -> Option<&[u8]> {
    if !element_type.is_byte_aligned() {
        let per_byte = 8 / element_type.bit_count().clamp(1, 8);
        let byte = index / per_byte;
        return data.get(byte..byte + 1);
    }
    let size = element_type.dense_byte_count();
    data.get(index.checked_mul(size)?..)?.get(..size)
}

/// How two elements are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ElementEquality {
    /// Byte for byte.
    Exact,
    /// Float elements by [`fuzzy_eq`]; elements of other types exactly.
    Approximate {
        /// Absolute tolerance.
        atol: f64,
        /// Relative tolerance (of the expected value).
        rtol: f64,
    },
}

/// The index of the first of `count` dense elements at which `actual`
/// differs from `expected`, or `None`. A buffer too short to hold `count`
/// elements differs where it ends.
pub fn first_difference(
    element_type: ElementType,
    count: usize,
    expected: &[u8],
    actual: &[u8],
    equality: ElementEquality,
) -> Option<usize> {
    if !element_type.is_byte_aligned() {
        // Packed sub-byte elements: compare the bytes holding them and
        // report the first element of the first differing byte.
        let per_byte = 8 / element_type.bit_count().clamp(1, 8);
        let limit = element_type.packed_byte_count(count).unwrap_or(usize::MAX);
        let bytes = first_difference(ElementType::OPAQUE_8, limit, expected, actual, equality);
        return bytes.map(|byte| (byte * per_byte).min(count));
    }
    let size = element_type.dense_byte_count().max(1);
    let limit = count.saturating_mul(size);
    let expected = &expected[..limit.min(expected.len())];
    let actual = &actual[..limit.min(actual.len())];
    let mut pairs = expected.chunks_exact(size).zip(actual.chunks_exact(size));
    let approximate = match equality {
        ElementEquality::Approximate { atol, rtol }
            if float_element(&[0; 8], element_type).is_some() =>
        {
            Some((atol, rtol))
        }
        _ => None,
    };
    let position = match approximate {
        None => pairs.position(|(e, a)| e != a),
        Some((atol, rtol)) => pairs.position(|(e, a)| {
            match (
                float_element(a, element_type),
                float_element(e, element_type),
            ) {
                (Some(a), Some(e)) => !fuzzy_eq(a, e, atol, rtol),
                _ => true,
            }
        }),
    };
    position.or_else(|| {
        (expected.len() < limit || actual.len() < limit)
            .then(|| expected.len().min(actual.len()) / size)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn fuzzy_eq_follows_numpy_isclose() {
        assert!(fuzzy_eq(729.0, 729.0001220703125, 1e-5, 1e-5));
        assert!(fuzzy_eq(f64::NAN, f64::NAN, 0.0, 0.0));
        assert!(fuzzy_eq(f64::INFINITY, f64::INFINITY, 0.0, 0.0));
        assert!(!fuzzy_eq(f64::INFINITY, f64::NEG_INFINITY, 0.0, 1.0));
        assert!(!fuzzy_eq(1.0, f64::INFINITY, 1e30, 1.0));
        assert!(!fuzzy_eq(1.0, f64::NAN, 1.0, 1.0));
        // Asymmetric: rtol scales with the expected value.
        assert!(fuzzy_eq(0.0, 100.0, 0.0, 0.01) == (100.0 <= 1.0));
        assert!(fuzzy_eq(99.0, 100.0, 0.0, 0.01));
        assert!(!fuzzy_eq(100.0, 99.0, 0.0, 0.01));
    }

    #[test]
    fn float_elements_of_every_kind() {
        assert_eq!(
            float_element(&1.5f32.to_le_bytes(), ElementType::FLOAT_32),
            Some(1.5)
        );
        assert_eq!(
            float_element(&0.1f64.to_le_bytes(), ElementType::FLOAT_64),
            Some(0.1)
        );
        assert_eq!(
            float_element(&0x3C00u16.to_le_bytes(), ElementType::FLOAT_16),
            Some(1.0)
        );
        assert_eq!(
            float_element(&0x3F80u16.to_le_bytes(), ElementType::BFLOAT_16),
            Some(1.0)
        );
        assert_eq!(float_element(&[0x3C], ElementType::FLOAT_8_E5M2), Some(1.0));
        assert_eq!(float_element(&[1, 0, 0, 0], ElementType::INT_32), None);
        assert_eq!(float_element(&[0], ElementType::FLOAT_32), None);
    }

    #[test]
    fn approximate_compares_floats_and_exact_everything_else() {
        let approx = ElementEquality::Approximate {
            atol: 1e-4,
            rtol: 0.0,
        };
        let e = f32s(&[1.0, 2.0, f32::NAN]);
        let a = f32s(&[1.00001, 2.0, f32::NAN]);
        assert_eq!(
            first_difference(ElementType::FLOAT_32, 3, &e, &a, approx),
            None
        );
        assert_eq!(
            first_difference(ElementType::FLOAT_32, 3, &e, &a, ElementEquality::Exact),
            Some(0)
        );
        let far = f32s(&[1.0, 2.001, 0.0]);
        assert_eq!(
            first_difference(ElementType::FLOAT_32, 3, &e, &far, approx),
            Some(1)
        );
        let (ei, ai) = ([1u8, 0, 2, 0], [1u8, 0, 3, 0]);
        assert_eq!(
            first_difference(ElementType::INT_16, 2, &ei, &ai, approx),
            Some(1)
        );
    }

    #[test]
    fn packed_elements_compare_by_byte() {
        let (e, a) = ([0x21u8, 0x43], [0x21u8, 0x53]);
        let i4 = ElementType::INT_4;
        assert_eq!(
            first_difference(i4, 4, &e, &a, ElementEquality::Exact),
            Some(2)
        );
        assert_eq!(element_bytes(&a, i4, 3), Some(&a[1..2]));
        assert_eq!(element_bytes(&a, i4, 4), None);
        assert_eq!(element_bytes(&a, ElementType::INT_16, 0), Some(&a[..]));
        assert_eq!(element_bytes(&a, ElementType::INT_16, 1), None);
    }

    #[test]
    fn short_buffers_differ_where_they_end() {
        let e = [1u8, 2, 3, 4];
        let a = [1u8, 2];
        assert_eq!(
            first_difference(ElementType::INT_8, 4, &e, &a, ElementEquality::Exact),
            Some(2)
        );
    }
}
