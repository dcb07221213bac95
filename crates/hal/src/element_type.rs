//! Element and encoding types of buffer views (`iree/hal/buffer_view.h`),
//! and their text names as `iree-run-module` reads and prints them
//! (`iree/hal/string_util.c`).

use std::fmt;

use iree_base::{Result, Status, StatusCode};

use iree_base::cnumber::atoi_u32;

/// The numerical interpretation of an element: the top byte of an
/// [`ElementType`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NumericalType(pub u8);

impl NumericalType {
    /// Unknown or opaque data.
    pub const UNKNOWN: NumericalType = NumericalType(0x00);
    /// An integer whose signedness is decided by the operations on it
    /// (printed signed).
    pub const INTEGER: NumericalType = NumericalType(0x10);
    /// A signed integer.
    pub const INTEGER_SIGNED: NumericalType = NumericalType(0x11);
    /// An unsigned integer.
    pub const INTEGER_UNSIGNED: NumericalType = NumericalType(0x12);
    /// A boolean (`i1`, stored in a byte).
    pub const BOOLEAN: NumericalType = NumericalType(0x13);
    /// The float family bit.
    pub const FLOAT: NumericalType = NumericalType(0x20);
    /// An IEEE-754 binary float (f16, f32, f64).
    pub const FLOAT_IEEE: NumericalType = NumericalType(0x21);
    /// A brain float (bf16).
    pub const FLOAT_BRAIN: NumericalType = NumericalType(0x22);
    /// A complex number made of two floats (cf64 is two f32s).
    pub const FLOAT_COMPLEX: NumericalType = NumericalType(0x23);
    /// `f8E5M2`.
    pub const FLOAT_8_E5M2: NumericalType = NumericalType(0x24);
    /// `f8E4M3FN`.
    pub const FLOAT_8_E4M3_FN: NumericalType = NumericalType(0x25);
    /// `f8E5M2FNUZ`.
    pub const FLOAT_8_E5M2_FNUZ: NumericalType = NumericalType(0x26);
    /// `f8E4M3FNUZ`.
    pub const FLOAT_8_E4M3_FNUZ: NumericalType = NumericalType(0x27);
    /// `f8E8M0FNU`.
    pub const FLOAT_8_E8M0_FNU: NumericalType = NumericalType(0x28);
}

/// The type of the elements of a buffer view: `(numerical_type << 24) |
/// bit_count`, as upstream's `iree_hal_element_type_t`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ElementType(pub u32);

impl ElementType {
    /// No type (`IREE_HAL_ELEMENT_TYPE_NONE`).
    pub const NONE: ElementType = ElementType::new(NumericalType::UNKNOWN, 0);
    /// 8 opaque bits (`*8`).
    pub const OPAQUE_8: ElementType = ElementType::new(NumericalType::UNKNOWN, 8);
    /// 16 opaque bits (`*16`).
    pub const OPAQUE_16: ElementType = ElementType::new(NumericalType::UNKNOWN, 16);
    /// 32 opaque bits (`*32`).
    pub const OPAQUE_32: ElementType = ElementType::new(NumericalType::UNKNOWN, 32);
    /// 64 opaque bits (`*64`).
    pub const OPAQUE_64: ElementType = ElementType::new(NumericalType::UNKNOWN, 64);
    /// A boolean stored in one byte (`i1`).
    pub const BOOL_8: ElementType = ElementType::new(NumericalType::BOOLEAN, 8);
    /// `i4`.
    pub const INT_4: ElementType = ElementType::new(NumericalType::INTEGER, 4);
    /// `si4`.
    pub const SINT_4: ElementType = ElementType::new(NumericalType::INTEGER_SIGNED, 4);
    /// `ui4`.
    pub const UINT_4: ElementType = ElementType::new(NumericalType::INTEGER_UNSIGNED, 4);
    /// `i8`.
    pub const INT_8: ElementType = ElementType::new(NumericalType::INTEGER, 8);
    /// `si8`.
    pub const SINT_8: ElementType = ElementType::new(NumericalType::INTEGER_SIGNED, 8);
    /// `ui8`.
    pub const UINT_8: ElementType = ElementType::new(NumericalType::INTEGER_UNSIGNED, 8);
    /// `i16`.
    pub const INT_16: ElementType = ElementType::new(NumericalType::INTEGER, 16);
    /// `si16`.
    pub const SINT_16: ElementType = ElementType::new(NumericalType::INTEGER_SIGNED, 16);
    /// `ui16`.
    pub const UINT_16: ElementType = ElementType::new(NumericalType::INTEGER_UNSIGNED, 16);
    /// `i32`.
    pub const INT_32: ElementType = ElementType::new(NumericalType::INTEGER, 32);
    /// `si32`.
    pub const SINT_32: ElementType = ElementType::new(NumericalType::INTEGER_SIGNED, 32);
    /// `ui32`.
    pub const UINT_32: ElementType = ElementType::new(NumericalType::INTEGER_UNSIGNED, 32);
    /// `i64`.
    pub const INT_64: ElementType = ElementType::new(NumericalType::INTEGER, 64);
    /// `si64`.
    pub const SINT_64: ElementType = ElementType::new(NumericalType::INTEGER_SIGNED, 64);
    /// `ui64`.
    pub const UINT_64: ElementType = ElementType::new(NumericalType::INTEGER_UNSIGNED, 64);
    /// `f16`.
    pub const FLOAT_16: ElementType = ElementType::new(NumericalType::FLOAT_IEEE, 16);
    /// `f32`.
    pub const FLOAT_32: ElementType = ElementType::new(NumericalType::FLOAT_IEEE, 32);
    /// `f64`.
    pub const FLOAT_64: ElementType = ElementType::new(NumericalType::FLOAT_IEEE, 64);
    /// `bf16`.
    pub const BFLOAT_16: ElementType = ElementType::new(NumericalType::FLOAT_BRAIN, 16);
    /// `cf64`: complex of two f32.
    pub const COMPLEX_FLOAT_64: ElementType = ElementType::new(NumericalType::FLOAT_COMPLEX, 64);
    /// `cf128`: complex of two f64.
    pub const COMPLEX_FLOAT_128: ElementType = ElementType::new(NumericalType::FLOAT_COMPLEX, 128);
    /// `f8E5M2`.
    pub const FLOAT_8_E5M2: ElementType = ElementType::new(NumericalType::FLOAT_8_E5M2, 8);
    /// `f8E4M3FN`.
    pub const FLOAT_8_E4M3_FN: ElementType = ElementType::new(NumericalType::FLOAT_8_E4M3_FN, 8);
    /// `f8E5M2FNUZ`.
    pub const FLOAT_8_E5M2_FNUZ: ElementType =
        ElementType::new(NumericalType::FLOAT_8_E5M2_FNUZ, 8);
    /// `f8E4M3FNUZ`.
    pub const FLOAT_8_E4M3_FNUZ: ElementType =
        ElementType::new(NumericalType::FLOAT_8_E4M3_FNUZ, 8);
    /// `f8E8M0FNU`.
    pub const FLOAT_8_E8M0_FNU: ElementType = ElementType::new(NumericalType::FLOAT_8_E8M0_FNU, 8);

    /// Composes an element type (`iree_hal_make_element_type`).
    /// `bit_count` must be at most 255 to stay in its byte; like upstream,
    /// this is not checked.
    pub const fn new(numerical_type: NumericalType, bit_count: u32) -> ElementType {
        ElementType(((numerical_type.0 as u32) << 24) | bit_count)
    }

    /// The raw 32-bit value, as the `hal` module passes it.
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// The numerical type (top byte).
    pub const fn numerical_type(self) -> NumericalType {
        NumericalType((self.0 >> 24) as u8)
    }

    /// Bits per element (low byte).
    pub const fn bit_count(self) -> usize {
        (self.0 & 0xFF) as usize
    }

    /// Whether the elements are opaque (numerical type unknown).
    pub const fn is_opaque(self) -> bool {
        self.numerical_type().0 == NumericalType::UNKNOWN.0
    }

    /// Whether the numerical type has every integer bit (integers of any
    /// signedness and booleans, as upstream's bit test does).
    pub const fn is_integer(self) -> bool {
        let n = self.numerical_type().0;
        n & NumericalType::INTEGER.0 == NumericalType::INTEGER.0
    }

    /// Whether the numerical type is boolean.
    pub const fn is_boolean(self) -> bool {
        let n = self.numerical_type().0;
        n & NumericalType::BOOLEAN.0 == NumericalType::BOOLEAN.0
    }

    /// Whether the numerical type has the float bit (every float kind,
    /// complex included).
    pub const fn is_float(self) -> bool {
        let n = self.numerical_type().0;
        n & NumericalType::FLOAT.0 == NumericalType::FLOAT.0
    }

    /// Whether the numerical type has every complex-float bit, as upstream's
    /// bit test does. Like upstream's macro this is also true of
    /// `f8E4M3FNUZ` (0x27 has the bits of 0x23).
    pub const fn is_complex_float(self) -> bool {
        let n = self.numerical_type().0;
        n & NumericalType::FLOAT_COMPLEX.0 == NumericalType::FLOAT_COMPLEX.0
    }

    /// Whether elements start on byte boundaries (bit count multiple of 8).
    pub const fn is_byte_aligned(self) -> bool {
        self.bit_count().is_multiple_of(8)
    }

    /// Bytes one element occupies when stored densely, rounding sub-byte
    /// types up to a byte (`iree_hal_element_dense_byte_count`).
    pub const fn dense_byte_count(self) -> usize {
        self.bit_count().div_ceil(8)
    }

    /// Bytes `element_count` densely packed elements occupy; sub-byte
    /// elements share bytes (`iree_hal_element_packed_byte_count`): whole
    /// bytes times the count for byte-aligned types, else the bit count
    /// rounded up. `None` on overflow.
    pub fn packed_byte_count(self, element_count: usize) -> Option<usize> {
        let bits = self.bit_count();
        if bits.is_multiple_of(8) {
            element_count.checked_mul(bits / 8)
        } else {
            Some(element_count.checked_mul(bits)?.div_ceil(8))
        }
    }

    /// Parses an element type name the way upstream does
    /// (`iree_hal_parse_element_type`): `i1` (boolean, one byte), `i<N>`,
    /// `si<N>`, `ui<N>`, `f<N>`, `bf<N>`, `cf<N>`, the five fp8 names and
    /// `x<N>`/`*<N>` for opaque data, where `N` is any C integer (base
    /// prefixes included) up to 255.
    ///
    /// Fails with `INVALID_ARGUMENT; unhandled element type prefix in
    /// '<name>'` or `INVALID_ARGUMENT; out of range bit count in '<name>'`.
    pub fn parse(name: &str) -> Result<ElementType> {
        let special = match name {
            "i1" => Some(ElementType::BOOL_8),
            "f8E5M2" => Some(ElementType::FLOAT_8_E5M2),
            "f8E4M3FN" => Some(ElementType::FLOAT_8_E4M3_FN),
            "f8E5M2FNUZ" => Some(ElementType::FLOAT_8_E5M2_FNUZ),
            "f8E4M3FNUZ" => Some(ElementType::FLOAT_8_E4M3_FNUZ),
            "f8E8M0FNU" => Some(ElementType::FLOAT_8_E8M0_FNU),
            _ => None,
        };
        if let Some(special) = special {
            return Ok(special);
        }
        // Order matters: `i` before `si`/`ui`, `f` before `bf`/`cf`, as in
        // upstream (the fp8 names were matched whole above).
        const PREFIXES: [(&str, NumericalType); 8] = [
            ("i", NumericalType::INTEGER),
            ("si", NumericalType::INTEGER_SIGNED),
            ("ui", NumericalType::INTEGER_UNSIGNED),
            ("f", NumericalType::FLOAT_IEEE),
            ("bf", NumericalType::FLOAT_BRAIN),
            ("cf", NumericalType::FLOAT_COMPLEX),
            ("x", NumericalType::UNKNOWN),
            ("*", NumericalType::UNKNOWN),
        ];
        let Some((numerical_type, bits)) = PREFIXES
            .iter()
            .find_map(|(prefix, ty)| name.strip_prefix(prefix).map(|rest| (*ty, rest)))
        else {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!("unhandled element type prefix in '{name}'"),
            ));
        };
        match atoi_u32(bits) {
            Some(bit_count) if bit_count <= 0xFF => Ok(ElementType::new(numerical_type, bit_count)),
            _ => Err(Status::new(
                StatusCode::InvalidArgument,
                format!("out of range bit count in '{name}'"),
            )),
        }
    }

    /// The name upstream prints (`iree_hal_format_element_type`): the fp8
    /// names, `i1` for booleans of any width, otherwise a prefix (`i`, `si`,
    /// `ui`, `f`, `bf`, `cf`, or `*` for anything else) and the bit count.
    pub fn name(self) -> String {
        let special = match self {
            ElementType::FLOAT_8_E5M2 => Some("f8E5M2"),
            ElementType::FLOAT_8_E4M3_FN => Some("f8E4M3FN"),
            ElementType::FLOAT_8_E5M2_FNUZ => Some("f8E5M2FNUZ"),
            ElementType::FLOAT_8_E4M3_FNUZ => Some("f8E4M3FNUZ"),
            ElementType::FLOAT_8_E8M0_FNU => Some("f8E8M0FNU"),
            _ => None,
        };
        if let Some(special) = special {
            return special.to_string();
        }
        let mut bit_count = self.bit_count();
        let prefix = match self.numerical_type() {
            NumericalType::BOOLEAN => {
                bit_count = 1;
                "i"
            }
            NumericalType::INTEGER => "i",
            NumericalType::INTEGER_SIGNED => "si",
            NumericalType::INTEGER_UNSIGNED => "ui",
            NumericalType::FLOAT_IEEE => "f",
            NumericalType::FLOAT_BRAIN => "bf",
            NumericalType::FLOAT_COMPLEX => "cf",
            _ => "*",
        };
        format!("{prefix}{bit_count}")
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl fmt::Debug for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ElementType({} = {:#010x})", self.name(), self.0)
    }
}

/// How the elements of a buffer view are laid out
/// (`iree_hal_encoding_type_t`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct EncodingType(pub u32);

impl EncodingType {
    /// Unknown layout; contents cannot be interpreted generically.
    pub const OPAQUE: EncodingType = EncodingType(0);
    /// Densely packed, C-style row-major elements.
    pub const DENSE_ROW_MAJOR: EncodingType = EncodingType(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(ElementType::FLOAT_32.raw(), 0x2100_0020);
        assert_eq!(ElementType::INT_32.raw(), 0x1000_0020);
        assert_eq!(ElementType::BOOL_8.raw(), 0x1300_0008);
        assert_eq!(ElementType::FLOAT_8_E8M0_FNU.raw(), 0x2800_0008);
        assert_eq!(ElementType::COMPLEX_FLOAT_128.dense_byte_count(), 16);
        assert_eq!(ElementType::INT_4.packed_byte_count(3), Some(2));
    }
}
