//! Parsing `rocm-hsaco-fb` executables: the 64-byte `HIP1` header, then a
//! verified `iree.hal.hip.ExecutableDef` flatbuffer.

use iree_base::Result;
use iree_hal_gpu::ExecutableInfo;

use crate::schema;

/// The executable format string the compiler emits for HIP.
pub const FORMAT: &str = "rocm-hsaco-fb";
/// The header magic and flatbuffer file identifier.
pub const IDENTIFIER: &[u8; 4] = b"HIP1";

/// Parses and verifies a `rocm-hsaco-fb` executable: header, flatbuffer
/// structure and identifier, and the presence of block dims. Limits are
/// checked later against a device ([`ExecutableInfo::validate`]).
pub fn parse(data: &[u8]) -> Result<ExecutableInfo<'_>> {
    iree_hal_gpu::parse_executable!(data, schema, IDENTIFIER, hsaco_image)
}
