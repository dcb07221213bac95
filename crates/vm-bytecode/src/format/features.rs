//! [`FeatureBits`]: VM features a module or function requires.

use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign, Not};

use iree_base::{Result, Status, StatusCode};

/// Bit set of VM features (`iree.vm.FeatureBits` in the schema).
///
/// Unknown bits are kept as they are so that they can be reported; use
/// [`FeatureBits::unknown`] to find them.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FeatureBits(u32);

impl FeatureBits {
    /// The 32-bit floating point extension (`EXT_F32`).
    pub const EXT_F32: FeatureBits = FeatureBits(1 << 0);
    /// The 64-bit floating point extension (`EXT_F64`).
    pub const EXT_F64: FeatureBits = FeatureBits(1 << 1);
    /// The function may yield (return DEFERRED) and must be resumable.
    pub const YIELD: FeatureBits = FeatureBits(1 << 2);
    /// The function needs ref cleanup when its frame is unwound.
    pub const UNWIND: FeatureBits = FeatureBits(1 << 3);

    /// Every bit this implementation knows a name for.
    pub const KNOWN: FeatureBits = FeatureBits(0xF);

    /// Names of the known bits, in bit order (the order they are printed in).
    pub const NAMES: [(FeatureBits, &'static str); 4] = [
        (Self::EXT_F32, "EXT_F32"),
        (Self::EXT_F64, "EXT_F64"),
        (Self::YIELD, "YIELD"),
        (Self::UNWIND, "UNWIND"),
    ];

    /// No features.
    pub const fn empty() -> FeatureBits {
        FeatureBits(0)
    }

    /// The set with exactly `bits`, unknown bits included.
    pub const fn from_bits_retain(bits: u32) -> FeatureBits {
        FeatureBits(bits)
    }

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Whether no bit is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every bit of `other` is set in `self`.
    pub const fn contains(self, other: FeatureBits) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether `self` and `other` share a bit.
    pub const fn intersects(self, other: FeatureBits) -> bool {
        self.0 & other.0 != 0
    }

    /// The bits of `self` that are not in `other`.
    pub const fn difference(self, other: FeatureBits) -> FeatureBits {
        FeatureBits(self.0 & !other.0)
    }

    /// The bits no name is known for.
    pub const fn unknown(self) -> FeatureBits {
        self.difference(Self::KNOWN)
    }

    /// The set as text the way upstream prints bit fields: known names joined
    /// by `|`, then any remaining bits as upper-case hex with an `h` suffix
    /// (`EXT_F32|YIELD`, `EXT_F64|F0h`); empty for no bits.
    pub fn names(self) -> String {
        let mut out = String::new();
        let mut remaining = self.0;
        for (bit, name) in Self::NAMES {
            if remaining & bit.0 == bit.0 {
                if !out.is_empty() {
                    out.push('|');
                }
                out.push_str(name);
                remaining &= !bit.0;
            }
        }
        if remaining != 0 {
            if !out.is_empty() {
                out.push('|');
            }
            out.push_str(&format!("{remaining:X}h"));
        }
        out
    }

    /// Checks that `available` covers `self` (the required features), with
    /// upstream's INVALID_ARGUMENT error naming the missing, available and
    /// required sets otherwise.
    pub fn check_available(self, available: FeatureBits) -> Result<()> {
        if available.contains(self) {
            return Ok(());
        }
        Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "required module features [{}] are not available in this runtime \
                 configuration; have [{}] while module requires [{}]",
                self.difference(available).names(),
                available.names(),
                self.names()
            ),
        ))
    }
}

impl fmt::Display for FeatureBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names())
    }
}

impl fmt::Debug for FeatureBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FeatureBits({})", self.names())
    }
}

impl BitOr for FeatureBits {
    type Output = FeatureBits;
    fn bitor(self, rhs: FeatureBits) -> FeatureBits {
        FeatureBits(self.0 | rhs.0)
    }
}

impl BitOrAssign for FeatureBits {
    fn bitor_assign(&mut self, rhs: FeatureBits) {
        self.0 |= rhs.0;
    }
}

impl BitAnd for FeatureBits {
    type Output = FeatureBits;
    fn bitand(self, rhs: FeatureBits) -> FeatureBits {
        FeatureBits(self.0 & rhs.0)
    }
}

impl Not for FeatureBits {
    type Output = FeatureBits;
    fn not(self) -> FeatureBits {
        FeatureBits(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_like_upstream_bitfield_format() {
        assert_eq!(FeatureBits::empty().names(), "");
        assert_eq!(
            (FeatureBits::YIELD | FeatureBits::UNWIND).names(),
            "YIELD|UNWIND"
        );
        assert_eq!(FeatureBits::from_bits_retain(0xF2).names(), "EXT_F64|F0h");
        assert_eq!(FeatureBits::from_bits_retain(0x100).names(), "100h");
    }

    #[test]
    fn check_available_reports_sets() {
        let required = FeatureBits::EXT_F32 | FeatureBits::EXT_F64;
        assert!(required
            .check_available(required | FeatureBits::YIELD)
            .is_ok());
        let err = required.check_available(FeatureBits::EXT_F32).unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument);
        assert_eq!(
            err.message(),
            "required module features [EXT_F64] are not available in this runtime \
             configuration; have [EXT_F32] while module requires [EXT_F32|EXT_F64]"
        );
    }
}
