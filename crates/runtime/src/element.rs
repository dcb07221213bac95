//! Rust types that tensors hold.

use iree_hal::ElementType;

/// A Rust type with a tensor element type: its bytes are the element's
/// little-endian bytes.
pub trait Element: Copy + Send + Sync + 'static {
    /// The element type a tensor made from this type has.
    const ELEMENT_TYPE: ElementType;

    /// Whether a tensor of `element_type` can be read as this type (same
    /// width, and the signless integer types for either signedness).
    fn accepts(element_type: ElementType) -> bool {
        element_type == Self::ELEMENT_TYPE
    }

    /// Appends the little-endian bytes of `values` to `out`.
    fn write_le(values: &[Self], out: &mut Vec<u8>);

    /// Reads elements from little-endian `bytes` (a multiple of the width).
    fn read_le(bytes: &[u8]) -> Vec<Self>;

    /// `values` as their little-endian bytes, in place, where their memory
    /// already is exactly that (the numeric types on little-endian hosts);
    /// `None` where the bytes must be made ([`Element::write_le`]).
    fn as_le_bytes(values: &[Self]) -> Option<&[u8]> {
        let _ = values;
        None
    }
}

macro_rules! numeric_elements {
    ($($t:ty => $element:ident $(| $also:ident)*;)*) => {$(
        impl Element for $t {
            const ELEMENT_TYPE: ElementType = ElementType::$element;

            fn accepts(element_type: ElementType) -> bool {
                element_type == ElementType::$element $(|| element_type == ElementType::$also)*
            }

            fn write_le(values: &[Self], out: &mut Vec<u8>) {
                out.reserve(std::mem::size_of_val(values));
                for value in values {
                    out.extend_from_slice(&value.to_le_bytes());
                }
            }

            fn read_le(bytes: &[u8]) -> Vec<Self> {
                bytes
                    .chunks_exact(std::mem::size_of::<$t>())
                    .map(|chunk| <$t>::from_le_bytes(chunk.try_into().expect("exact chunk")))
                    .collect()
            }

            fn as_le_bytes(values: &[Self]) -> Option<&[u8]> {
                if cfg!(target_endian = "big") {
                    return None;
                }
                // SAFETY: a numeric type has no padding and every byte of it
                // is initialized; `u8` has alignment 1; the slice covers
                // exactly the memory of `values` and borrows it.
                Some(unsafe {
                    std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
                })
            }
        }
    )*};
}

numeric_elements! {
    i8 => INT_8 | SINT_8;
    i16 => INT_16 | SINT_16;
    i32 => INT_32 | SINT_32;
    i64 => INT_64 | SINT_64;
    u8 => UINT_8 | INT_8;
    u16 => UINT_16 | INT_16;
    u32 => UINT_32 | INT_32;
    u64 => UINT_64 | INT_64;
    f32 => FLOAT_32;
    f64 => FLOAT_64;
    half::f16 => FLOAT_16;
    half::bf16 => BFLOAT_16;
}

impl Element for bool {
    const ELEMENT_TYPE: ElementType = ElementType::BOOL_8;

    fn accepts(element_type: ElementType) -> bool {
        element_type == ElementType::BOOL_8 || element_type == ElementType::INT_8
    }

    fn write_le(values: &[Self], out: &mut Vec<u8>) {
        out.extend(values.iter().map(|&b| u8::from(b)));
    }

    fn read_le(bytes: &[u8]) -> Vec<Self> {
        bytes.iter().map(|&b| b != 0).collect()
    }
}
