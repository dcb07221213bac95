//! Parsing `cuda-nvptx-fb` executables: the 64-byte `CDA1` header, then a
//! verified `iree.hal.cuda.ExecutableDef` flatbuffer.

use iree_base::Result;
use iree_hal_gpu::ExecutableInfo;

use crate::schema;

/// The executable format string the compiler emits for CUDA.
pub const FORMAT: &str = "cuda-nvptx-fb";
/// The header magic and flatbuffer file identifier.
pub const IDENTIFIER: &[u8; 4] = b"CDA1";

/// Parses and verifies a `cuda-nvptx-fb` executable: header, flatbuffer
/// structure and identifier, and the presence of block dims. Limits are
/// checked later against a device ([`ExecutableInfo::validate`]).
pub fn parse(data: &[u8]) -> Result<ExecutableInfo<'_>> {
    iree_hal_gpu::parse_executable!(data, schema, IDENTIFIER, ptx_image)
}
