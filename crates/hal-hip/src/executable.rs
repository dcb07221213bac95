//! Parsing `rocm-hsaco-fb` executables: the 64-byte `HIP1` header, then a
//! verified `iree.hal.hip.ExecutableDef` flatbuffer.

use std::sync::LazyLock;

use iree_base::Result;
use iree_flatbuffer_verifier::Schema;
use iree_hal_gpu::ExecutableInfo;

use crate::schema;

/// The executable format string the compiler emits for HIP.
pub const FORMAT: &str = "rocm-hsaco-fb";
/// The header magic and flatbuffer file identifier.
pub const IDENTIFIER: &[u8; 4] = b"HIP1";

/// The schema the flatbuffer is verified against (flatcc's rules).
static FBS: LazyLock<Schema> = LazyLock::new(|| {
    Schema::parse(&[
        (
            "hip_executable_def.fbs",
            include_str!("../schemas/hip_executable_def.fbs"),
        ),
        (
            "executable_debug_info.fbs",
            include_str!("../schemas/executable_debug_info.fbs"),
        ),
    ])
    .expect("the committed schema is readable (checked by a unit test)")
});

/// Parses and verifies a `rocm-hsaco-fb` executable: header, flatbuffer
/// structure and identifier, and the presence of block dims. Limits are
/// checked later against a device ([`ExecutableInfo::validate`]).
pub fn parse(data: &[u8]) -> Result<ExecutableInfo<'_>> {
    iree_hal_gpu::parse_executable!(data, schema, &FBS, IDENTIFIER, hsaco_image)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_schema_is_readable() {
        assert_eq!(super::FBS.root_name(), "iree.hal.hip.ExecutableDef");
        assert_eq!(super::FBS.identifier(), Some(*super::IDENTIFIER));
    }
}
