//! [`BytecodeModule`]: a loaded, verified VMFB, and [`BytecodeInstance`], its
//! state (globals, resolved imports) inside one context.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_vm::buffer::{Buffer, SharedBytes};
use iree_vm::{
    CallStatus, Cconv, ExportInfo, ImportInfo, Instance, Module, ModuleDependency, ModuleInstance,
    Ref, ResolvedImport, Stack, TypeDef, Value,
};
use parking_lot::Mutex;

use crate::decode::{decode_function, FunctionCode, ModuleView};
use crate::format::{parse_module, FeatureBits, ModuleMetadata};

/// A verified bytecode module. The file image is kept alive and rodata is
/// served from it in place.
pub struct BytecodeModule {
    pub(crate) meta: ModuleMetadata,
    pub(crate) types: Vec<TypeDef>,
    pub(crate) functions: Vec<FunctionCode>,
    pub(crate) rodata: Vec<Ref>,
    exports: Vec<ExportInfo>,
    export_functions: Vec<u32>,
    imports: Vec<ImportInfo>,
    dependencies: Vec<ModuleDependency>,
    _file: SharedBytes,
}

/// Refuses a module needing features this VM lacks, as upstream's loader
/// does before anything else.
pub(crate) fn check_features(meta: &ModuleMetadata) -> Result<()> {
    let supported =
        FeatureBits::EXT_F32 | FeatureBits::EXT_F64 | FeatureBits::YIELD | FeatureBits::UNWIND;
    if supported.contains(meta.requirements) {
        return Ok(());
    }
    Err(Status::new(
        StatusCode::Unimplemented,
        format!(
            "required module features [{}] are not available",
            meta.requirements.names()
        ),
    ))
}

/// The parsed calling conventions of the internal functions and of the
/// imports; one signature per function descriptor.
pub(crate) fn cconvs(meta: &ModuleMetadata) -> Result<(Vec<Cconv>, Vec<Cconv>)> {
    let function_cconvs = meta
        .function_signatures
        .iter()
        .map(|s| Cconv::parse(&s.calling_convention))
        .collect::<Result<Vec<_>>>()?;
    let import_cconvs = meta
        .imports
        .iter()
        .map(|i| Cconv::parse(&i.signature.calling_convention))
        .collect::<Result<Vec<_>>>()?;
    if function_cconvs.len() != meta.functions.len() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "function signature and descriptor counts differ",
        ));
    }
    Ok((function_cconvs, import_cconvs))
}

impl BytecodeModule {
    /// Parses and verifies a module from a file image.
    pub fn from_bytes(instance: &Instance, file: SharedBytes) -> Result<Arc<BytecodeModule>> {
        let bytes: &[u8] = file.bytes();
        let _span = tracing::debug_span!("vm.module.load", bytes = bytes.len()).entered();
        let meta = parse_module(bytes)?;
        check_features(&meta)?;
        let types = meta
            .types
            .iter()
            .map(|name| instance.types().resolve_type_name(name))
            .collect::<Result<Vec<_>>>()
            .annotate("resolving module types")?;
        let (function_cconvs, import_cconvs) = cconvs(&meta)?;
        let view = ModuleView {
            meta: &meta,
            types: &types,
            function_cconvs: &function_cconvs,
            import_cconvs: &import_cconvs,
        };
        let functions = (0..meta.functions.len())
            .map(|i| decode_function(&view, bytes, i))
            .collect::<Result<Vec<_>>>()?;
        let rodata = meta
            .rodata
            .iter()
            .map(|range| Buffer::rodata(file.clone(), range.clone()).map(Ref::new))
            .collect::<Result<Vec<_>>>()?;
        let mut exports = Vec::with_capacity(meta.exports.len());
        let mut export_functions = Vec::with_capacity(meta.exports.len());
        for e in &meta.exports {
            let sig = meta
                .function_signatures
                .get(e.internal_ordinal as usize)
                .ok_or_else(|| {
                    Status::new(
                        StatusCode::InvalidArgument,
                        format!("export '{}' names a missing function", e.local_name),
                    )
                })?;
            exports.push(ExportInfo {
                name: e.local_name.clone(),
                cconv: sig.calling_convention.clone(),
                attrs: sig
                    .attrs
                    .iter()
                    .map(|a| (a.key.clone(), a.value.clone()))
                    .collect(),
            });
            export_functions.push(e.internal_ordinal);
        }
        let imports = meta
            .imports
            .iter()
            .map(|i| ImportInfo {
                full_name: i.full_name.clone(),
                cconv: i.signature.calling_convention.clone(),
                optional: i.optional,
            })
            .collect();
        let dependencies = meta
            .dependencies
            .iter()
            .map(|d| ModuleDependency {
                name: d.name.clone(),
                minimum_version: d.minimum_version,
                optional: d.optional,
            })
            .collect();
        Ok(Arc::new(BytecodeModule {
            meta,
            types,
            functions,
            rodata,
            exports,
            export_functions,
            imports,
            dependencies,
            _file: file,
        }))
    }

    /// Parses and verifies a module from owned bytes.
    pub fn from_vec(instance: &Instance, bytes: Vec<u8>) -> Result<Arc<BytecodeModule>> {
        Self::from_bytes(instance, Arc::new(bytes))
    }

    /// The parsed file metadata.
    pub fn metadata(&self) -> &ModuleMetadata {
        &self.meta
    }

    /// The decoded functions (for tooling such as opcode coverage).
    pub fn functions(&self) -> &[FunctionCode] {
        &self.functions
    }
}

impl Module for BytecodeModule {
    fn name(&self) -> &str {
        &self.meta.name
    }
    fn version(&self) -> u32 {
        self.meta.version
    }
    fn dependencies(&self) -> &[ModuleDependency] {
        &self.dependencies
    }
    fn exports(&self) -> &[ExportInfo] {
        &self.exports
    }
    fn imports(&self) -> &[ImportInfo] {
        &self.imports
    }
    fn instantiate(
        self: Arc<Self>,
        _instance: &Arc<Instance>,
        imports: Vec<Option<ResolvedImport>>,
    ) -> Result<Arc<dyn ModuleInstance>> {
        // Sizes come from the file: allocate fallibly so a hostile module
        // gets RESOURCE_EXHAUSTED instead of aborting the process. Globals
        // start zeroed; the module's `__init` sets initial values.
        let globals = GlobalBytes::new(self.meta.global_bytes_capacity as usize)?;
        let ref_count = self.meta.global_ref_count as usize;
        let mut refs = Vec::new();
        refs.try_reserve_exact(ref_count)
            .map_err(|_| out_of_memory("ref globals", ref_count))?;
        refs.resize(ref_count, None);
        let ref_globals = Mutex::new(refs);
        Ok(Arc::new(BytecodeInstance {
            module: self,
            globals,
            ref_globals,
            imports,
        }))
    }
}

/// Value-global storage (`rwdata`): bytes addressed at any offset, kept in
/// atomic words so concurrent invocations of one context stay free of data
/// races (a racing program may observe torn 8-byte values, as upstream's can).
pub(crate) struct GlobalBytes {
    words: Box<[AtomicU32]>,
}

impl GlobalBytes {
    fn new(byte_len: usize) -> Result<GlobalBytes> {
        // One spare word so an access ending at the last byte can touch it.
        let count = byte_len.div_ceil(4) + 1;
        // Zeroed allocation: the OS supplies zero pages lazily, so a large
        // capacity costs nothing until it is used (as upstream's calloc), and
        // failure is an error rather than an abort.
        let layout = std::alloc::Layout::array::<AtomicU32>(count)
            .map_err(|_| out_of_memory("global storage", byte_len))?;
        // SAFETY: `layout` has a non-zero size (count >= 1).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<AtomicU32>();
        if ptr.is_null() {
            return Err(out_of_memory("global storage", byte_len));
        }
        // SAFETY: `ptr` is a fresh allocation with the layout of `[AtomicU32;
        // count]`, which is what the box will free it with; all-zero bytes are
        // a valid `AtomicU32` (the value 0). Ownership moves into the box.
        let words = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, count)) };
        Ok(GlobalBytes { words })
    }

    /// Loads `size` (4 or 8) little-endian bytes at `offset`; the caller has
    /// checked `offset + size` against the capacity.
    #[inline]
    pub(crate) fn load(&self, offset: usize, size: usize) -> u64 {
        let w = offset / 4;
        let shift = (offset % 4) * 8;
        let word = |i: usize| u64::from(self.words[i].load(Ordering::Relaxed));
        let value = if shift == 0 {
            if size == 4 {
                word(w)
            } else {
                word(w) | (word(w + 1) << 32)
            }
        } else {
            let lo = word(w) | (word(w + 1) << 32);
            let v = lo >> shift;
            if size == 4 {
                v
            } else {
                v | (word(w + 2) << (64 - shift))
            }
        };
        if size == 4 {
            value & 0xFFFF_FFFF
        } else {
            value
        }
    }

    /// Stores the low `size` (4 or 8) bytes of `value` at `offset`.
    #[inline]
    pub(crate) fn store(&self, offset: usize, size: usize, value: u64) {
        if offset.is_multiple_of(4) {
            let w = offset / 4;
            self.words[w].store(value as u32, Ordering::Relaxed);
            if size == 8 {
                self.words[w + 1].store((value >> 32) as u32, Ordering::Relaxed);
            }
            return;
        }
        for i in 0..size {
            let byte = offset + i;
            let shift = (byte % 4) * 8;
            let mask = !(0xFFu32 << shift);
            let bits = u32::from((value >> (i * 8)) as u8) << shift;
            // Each byte lands with an atomic read-modify-write of its word.
            let _ = self.words[byte / 4].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
                Some((w & mask) | bits)
            });
        }
    }
}

#[cold]
fn out_of_memory(what: &str, size: usize) -> Status {
    Status::new(
        StatusCode::ResourceExhausted,
        format!("cannot allocate {what} of size {size}"),
    )
}

/// A bytecode module's state in one context.
pub struct BytecodeInstance {
    module: Arc<BytecodeModule>,
    globals: GlobalBytes,
    ref_globals: Mutex<Vec<Option<Ref>>>,
    imports: Vec<Option<ResolvedImport>>,
}

impl BytecodeInstance {
    /// The internal function behind export `export_ordinal`.
    fn export_function(&self, export_ordinal: u32) -> Result<u32> {
        self.module
            .export_functions
            .get(export_ordinal as usize)
            .copied()
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!("export ordinal {export_ordinal} out of range"),
                )
            })
    }

    pub(crate) fn module(&self) -> &BytecodeModule {
        &self.module
    }
    pub(crate) fn global_bytes(&self) -> &GlobalBytes {
        &self.globals
    }
    pub(crate) fn ref_globals(&self) -> &Mutex<Vec<Option<Ref>>> {
        &self.ref_globals
    }
    pub(crate) fn imports(&self) -> &[Option<ResolvedImport>] {
        &self.imports
    }
}

impl ModuleInstance for BytecodeInstance {
    fn module(&self) -> &dyn Module {
        &*self.module
    }

    fn call(
        &self,
        stack: &mut Stack,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        let function = self.export_function(export_ordinal)?;
        iree_vm::Cconv::check_values(
            &self.module.functions[function as usize].arg_slots,
            args,
            "argument",
        )?;
        self.execute(stack, function, args, results)
    }

    fn call_verified(
        &self,
        stack: &mut Stack,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        let function = self.export_function(export_ordinal)?;
        self.execute(stack, function, args, results)
    }

    fn call_from_registers(
        &self,
        stack: &mut Stack,
        export_ordinal: u32,
        call: iree_vm::RegisterCall<'_>,
    ) -> Result<CallStatus> {
        let function = self.export_function(export_ordinal)?;
        self.execute_from_registers(stack, function, call)
    }

    fn resume(&self, stack: &mut Stack, results: &mut Vec<Value>) -> Result<CallStatus> {
        self.resume_execution(stack, results)
    }
}
