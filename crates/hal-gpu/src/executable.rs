//! Executable descriptions shared by `cuda-nvptx-fb` and `rocm-hsaco-fb`.

use iree_base::{Result, Status, StatusCode};

use crate::backend::GpuLimits;

/// Upstream's per-dispatch binding limit for the GPU drivers
/// (`IREE_HAL_CUDA_MAX_DISPATCH_BINDING_COUNT`).
pub const MAX_BINDING_COUNT: usize = 16;
/// Upstream's per-dispatch constant limit for the GPU drivers.
pub const MAX_CONSTANT_COUNT: u32 = 64;

/// The flags of one binding (`BindingBits` in the schemas).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BindingFlags(pub u64);

impl BindingFlags {
    /// The kernel only reads the binding.
    pub const READ_ONLY: BindingFlags = BindingFlags(1 << 0);
    /// The binding is passed indirectly.
    pub const INDIRECT: BindingFlags = BindingFlags(1 << 1);

    /// True when every bit of `other` is set.
    pub fn contains(self, other: BindingFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

/// One exported kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportInfo {
    /// The kernel's symbol name in its module.
    pub name: String,
    /// The export's name before the compiler made it a valid symbol (its
    /// debug info): `hal.executable.lookup.function` may name it either way
    /// (`paddle-onnx$async_dispatch_0` is `paddle_onnx_async_dispatch_0` in
    /// the PTX).
    pub debug_name: Option<String>,
    /// Which module holds the kernel.
    pub module_ordinal: u32,
    /// Threads per block (x, y, z).
    pub block_dims: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub block_shared_memory_size: u32,
    /// 32-bit constants passed after the bindings.
    pub constant_count: u32,
    /// One entry per binding, in binding order.
    pub binding_flags: Vec<BindingFlags>,
}

impl ExportInfo {
    /// The number of buffer bindings.
    pub fn binding_count(&self) -> usize {
        self.binding_flags.len()
    }
}

/// A parsed executable: its exports and its module images (PTX text or
/// HSACO code objects), borrowed from the executable data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutableInfo<'a> {
    /// Exports in ordinal order.
    pub exports: Vec<ExportInfo>,
    /// Module images in ordinal order.
    pub modules: Vec<&'a [u8]>,
}

fn invalid(message: String) -> Status {
    Status::new(StatusCode::InvalidArgument, message)
}

impl ExecutableInfo<'_> {
    /// Checks what the flatbuffer verifier cannot: non-empty modules and
    /// names, module ordinals in range, block dims and shared memory within
    /// `limits`, constant and binding counts within upstream's maxima. The
    /// messages follow upstream's.
    pub fn validate(&self, limits: &GpuLimits) -> Result<()> {
        for (i, module) in self.modules.iter().enumerate() {
            if module.is_empty() {
                return Err(invalid(format!("modules[{i}] contents are empty")));
            }
        }
        for (i, export) in self.exports.iter().enumerate() {
            if export.module_ordinal as usize >= self.modules.len() {
                return Err(invalid(format!(
                    "exports[{i}] module_ordinal {} is out of bounds {}",
                    export.module_ordinal,
                    self.modules.len()
                )));
            }
            if export.name.is_empty() {
                return Err(invalid(format!("exports[{i}] name is empty")));
            }
            let [x, y, z] = export.block_dims;
            let [mx, my, mz] = limits.max_block_dims;
            if x > mx || y > my || z > mz {
                return Err(invalid(format!(
                    "exports[{i}] block dims {x}x{y}x{z} exceeds device maximum {mx}x{my}x{mz}"
                )));
            }
            if export.block_shared_memory_size > limits.max_block_shared_memory_size {
                return Err(invalid(format!(
                    "exports[{i}] requires {}B of shared memory and exceeds the device maximum of {}B per block",
                    export.block_shared_memory_size, limits.max_block_shared_memory_size
                )));
            }
            if export.constant_count > MAX_CONSTANT_COUNT {
                return Err(invalid(format!(
                    "exports[{i}] constant_count {} exceeds maximum of {MAX_CONSTANT_COUNT}",
                    export.constant_count
                )));
            }
            if export.binding_flags.len() > MAX_BINDING_COUNT {
                return Err(invalid(format!(
                    "exports[{i}] binding_flags count {} exceeds maximum of {MAX_BINDING_COUNT}",
                    export.binding_flags.len()
                )));
            }
        }
        Ok(())
    }
}

/// Fails with a missing-field error naming the export (upstream: "blocks
/// dims are missing").
pub fn missing_block_dims(ordinal: usize) -> Status {
    invalid(format!("exports[{ordinal}] blocks dims are missing"))
}

/// Turns a flatbuffer verifier error into upstream's status.
pub fn verification_failed(error: impl std::fmt::Display) -> Status {
    invalid(format!("flatbuffer verification failed: {error}"))
}

/// Verifies an executable's flatbuffer with flatcc's rules against
/// `schema` (what upstream's driver checks before it reads a field, with
/// its error text) and returns the options for the `flatbuffers` crate's
/// verifier, which the generated accessors need to run next: both get the
/// same work limits, scaled to the buffer. The flatbuffer starts 64 bytes
/// into executable data that is itself 64-byte aligned, so alignment is
/// judged from its start.
pub fn verify_flatbuffer(
    schema: &iree_flatbuffer_verifier::Schema,
    flatbuffer: &[u8],
) -> Result<flatbuffers::VerifierOptions> {
    let limits = iree_flatbuffer_verifier::Limits::for_len(flatbuffer.len());
    iree_flatbuffer_verifier::verify_root(schema, flatbuffer, 0, &limits)
        .map_err(verification_failed)?;
    Ok(limits.verifier_options())
}

/// What the parser macro needs from outside this crate.
#[doc(hidden)]
pub mod __private {
    pub use iree_hal::executable_header::read_flatbuffer_header;
}

/// Parses and verifies one driver's executable: the 64-byte header with
/// `$identifier`, then the `ExecutableDef` flatbuffer of the flatc-generated
/// module `$schema`, verified against `$fbs` (the driver's parsed `.fbs`
/// schema, see [`verify_flatbuffer`]), whose module tables hold the code in
/// field `$image` (`ptx_image`, `hsaco_image`). Both schemas share every
/// other field, so this is written once; it checks structure and the
/// presence of block dims, and limits are checked later against a device
/// ([`ExecutableInfo::validate`]).
#[macro_export]
macro_rules! parse_executable {
    ($data:expr, $schema:ident, $fbs:expr, $identifier:expr, $image:ident) => {{
        use $crate::executable::{missing_block_dims, verification_failed, verify_flatbuffer};
        let data: &[u8] = $data;
        let identifier: &[u8; 4] = $identifier;
        (|| -> ::iree_base::Result<$crate::ExecutableInfo<'_>> {
            let (_, flatbuffer) =
                $crate::executable::__private::read_flatbuffer_header(data, identifier)?;
            let opts = verify_flatbuffer($fbs, flatbuffer)?;
            let def = $schema::root_as_executable_def_with_opts(&opts, flatbuffer)
                .map_err(verification_failed)?;
            let modules = def
                .modules()
                .map(|modules| {
                    modules
                        .iter()
                        .map(|m| m.$image().map_or(&[][..], |v| v.bytes()))
                        .collect()
                })
                .unwrap_or_default();
            let mut exports = Vec::new();
            for (i, export) in def.exports().into_iter().flatten().enumerate() {
                let dims = export.block_dims().ok_or_else(|| missing_block_dims(i))?;
                exports.push($crate::ExportInfo {
                    name: export.kernel_name().unwrap_or_default().to_string(),
                    debug_name: export
                        .debug_info()
                        .and_then(|d| d.name())
                        .map(str::to_string),
                    module_ordinal: export.module_ordinal(),
                    block_dims: [dims.x(), dims.y(), dims.z()],
                    block_shared_memory_size: export.block_shared_memory_size(),
                    constant_count: export.constant_count(),
                    binding_flags: export
                        .binding_flags()
                        .map(|flags| flags.iter().map($crate::BindingFlags).collect())
                        .unwrap_or_default(),
                });
            }
            Ok($crate::ExecutableInfo { exports, modules })
        })()
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> ExecutableInfo<'static> {
        ExecutableInfo {
            exports: vec![ExportInfo {
                name: "k".into(),
                debug_name: None,
                module_ordinal: 0,
                block_dims: [64, 1, 1],
                block_shared_memory_size: 0,
                constant_count: 2,
                binding_flags: vec![BindingFlags::READ_ONLY, BindingFlags(0)],
            }],
            modules: vec![b"image"],
        }
    }

    #[test]
    fn validation_checks_limits_and_ordinals() {
        let limits = GpuLimits::default();
        info().validate(&limits).unwrap();
        let message = |f: fn(&mut ExecutableInfo<'static>)| {
            let mut i = info();
            f(&mut i);
            let e = i.validate(&limits).unwrap_err();
            assert_eq!(e.code(), StatusCode::InvalidArgument);
            e.message().to_string()
        };
        assert!(message(|i| i.exports[0].module_ordinal = 1).contains("out of bounds"));
        assert!(message(|i| i.exports[0].name.clear()).contains("name is empty"));
        assert!(message(|i| i.exports[0].block_dims = [2048, 1, 1]).contains("block dims"));
        assert!(
            message(|i| i.exports[0].block_shared_memory_size = 1 << 30).contains("shared memory")
        );
        assert!(message(|i| i.exports[0].constant_count = 65).contains("constant_count"));
        assert!(
            message(|i| i.exports[0].binding_flags = vec![BindingFlags(0); 17])
                .contains("binding_flags")
        );
        assert!(message(|i| i.modules[0] = b"").contains("contents are empty"));
    }
}
