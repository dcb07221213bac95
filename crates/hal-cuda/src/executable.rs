//! Parsing `cuda-nvptx-fb` executables: the 64-byte `CDA1` header, then a
//! verified `iree.hal.cuda.ExecutableDef` flatbuffer.

use flatbuffers::VerifierOptions;
use iree_base::{Result, Status, StatusCode};
use iree_hal::executable_header::read_flatbuffer_header;
use iree_hal_gpu::executable::{missing_block_dims, verification_failed};
use iree_hal_gpu::{BindingFlags, ExecutableInfo, ExportInfo};

use crate::schema;

/// The executable format string the compiler emits for CUDA.
pub const FORMAT: &str = "cuda-nvptx-fb";
/// The header magic and flatbuffer file identifier.
pub const IDENTIFIER: &[u8; 4] = b"CDA1";

/// Verifier limits scaled to the buffer, so crafted input cannot make
/// verification explode.
fn verifier_options(len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: 64,
        max_tables: len / 4 + 1024,
        max_apparent_size: len.saturating_mul(8).saturating_add(1 << 20),
        ignore_missing_null_terminator: false,
    }
}

/// Parses and verifies a `cuda-nvptx-fb` executable: header, flatbuffer
/// structure and identifier, and the presence of block dims. Limits are
/// checked later against a device ([`ExecutableInfo::validate`]).
pub fn parse(data: &[u8]) -> Result<ExecutableInfo<'_>> {
    let (_, flatbuffer) = read_flatbuffer_header(data, IDENTIFIER)?;
    // The identifier check needs the root offset and the identifier (the
    // flatbuffers crate asserts on shorter input).
    if flatbuffer.len() < 8 || !schema::executable_def_buffer_has_identifier(flatbuffer) {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "flatbuffer verification failed: file identifier is not `CDA1`",
        ));
    }
    let def =
        schema::root_as_executable_def_with_opts(&verifier_options(flatbuffer.len()), flatbuffer)
            .map_err(verification_failed)?;
    let modules = def
        .modules()
        .map(|modules| {
            modules
                .iter()
                .map(|m| m.ptx_image().map_or(&[][..], |v| v.bytes()))
                .collect()
        })
        .unwrap_or_default();
    let mut exports = Vec::new();
    for (i, export) in def.exports().into_iter().flatten().enumerate() {
        let dims = export.block_dims().ok_or_else(|| missing_block_dims(i))?;
        exports.push(ExportInfo {
            name: export.kernel_name().unwrap_or_default().to_string(),
            module_ordinal: export.module_ordinal(),
            block_dims: [dims.x(), dims.y(), dims.z()],
            block_shared_memory_size: export.block_shared_memory_size(),
            constant_count: export.constant_count(),
            binding_flags: export
                .binding_flags()
                .map(|flags| flags.iter().map(BindingFlags).collect())
                .unwrap_or_default(),
        });
    }
    Ok(ExecutableInfo { exports, modules })
}
