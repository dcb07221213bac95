//! The `hal_loader` VM module (version 1): loads executables with the local
//! executable loaders and dispatches them inline, on the calling thread,
//! for programs compiled with `--iree-execution-model=inline-dynamic`.
//!
//! Dispatch bindings are `!vm.buffer`s (usually the storage of
//! `hal_inline` buffers): their bytes are handed to the kernels in place.
//! Executables are `!hal.executable`s, the `hal` module's reference type;
//! the loaders are `iree-hal-local`'s (embedded ELF, system library, VMVX),
//! the same that local devices use.
//!
//! Every argument bytecode hands in is checked; bad input is a status
//! error. What a kernel does inside its bindings is trusted, as for every
//! local executable.

use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_hal::{BufferBinding, Executable};
use iree_hal_local::{ExecutableLoader, WorkgroupExecutable};
use iree_modules_hal::{
    deref, executable_constants_arg, executable_type, lookup_function, size_arg, string_arg,
    HalExecutable,
};
use iree_vm::buffer::{buffer_type as vm_buffer_type, Buffer as VmBuffer};
use iree_vm::native::{NativeModuleBuilder, Variadic};
use iree_vm::{Module, Ref};

/// The module version (`IREE_HAL_LOADER_MODULE_VERSION_LATEST`).
pub const HAL_LOADER_MODULE_VERSION: u32 = 1;

/// Every export with its calling convention, as upstream declares them.
pub const EXPORTS: &[(&str, &str)] = &[
    ("executable.dispatch", "0rIiiiCiDCrIID_v"),
    ("executable.load", "0rrr_r"),
    ("executable.lookup.function", "0rr_I"),
    ("executable.query_support", "0r_i"),
];

/// The most bindings one dispatch may have (upstream's limit).
const MAX_BINDINGS: usize = 32;

/// Per-context state: the loaders, asked in order.
pub struct HalLoaderState {
    loaders: Vec<Arc<dyn ExecutableLoader>>,
}

/// An executable loaded by `hal_loader.executable.load`: a `!hal.executable`
/// whose workgroups run inline.
pub struct InlineExecutable {
    inner: Arc<dyn WorkgroupExecutable>,
}

impl Executable for InlineExecutable {
    fn export_count(&self) -> usize {
        self.inner.exports().len()
    }

    fn export_name(&self, ordinal: usize) -> Option<&str> {
        self.inner.exports().get(ordinal).map(|e| e.name.as_str())
    }

    fn dispatch(
        &self,
        ordinal: usize,
        workgroup_count: [u32; 3],
        constants: &[u32],
        bindings: &[BufferBinding<'_>],
    ) -> Result<()> {
        iree_hal_local::dispatch_grid(&*self.inner, ordinal, constants, bindings, workgroup_count)
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// `executable.dispatch` arguments: executable, function id, workgroup
/// counts, constants, bindings (buffer, offset, length).
type DispatchArgs = (
    Option<Ref>,
    i64,
    i32,
    i32,
    i32,
    Variadic<(i32,)>,
    Variadic<(Option<Ref>, i64, i64)>,
);

/// Builds the `hal_loader` module over `loaders` (typically
/// [`iree_hal_local::device::default_loaders`]). Register the `hal` types
/// first ([`iree_modules_hal::register_types`]).
pub fn create_hal_loader_module(
    loaders: Vec<Arc<dyn ExecutableLoader>>,
) -> Result<Arc<dyn Module>> {
    let b = NativeModuleBuilder::<HalLoaderState>::new("hal_loader", HAL_LOADER_MODULE_VERSION)
        .export(
            "executable.query_support",
            "0r_i",
            |state: &HalLoaderState, (format,): (Option<Ref>,)| {
                let format = string_arg(&format, "executable format")?;
                Ok(i32::from(state.loaders.iter().any(|l| l.supports(&format))))
            },
        )?
        .export(
            "executable.load",
            "0rrr_r",
            |state: &HalLoaderState,
             (format, data, constants): (Option<Ref>, Option<Ref>, Option<Ref>)| {
                let format = string_arg(&format, "executable format")?;
                let data: &VmBuffer = deref(&data, vm_buffer_type(), "executable data")?;
                let constants = executable_constants_arg(&constants)?;
                Ok(Ref::new(HalExecutable(load(
                    &state.loaders,
                    &format,
                    data,
                    &constants,
                )?)))
            },
        )?
        .export(
            "executable.lookup.function",
            "0rr_I",
            |_: &HalLoaderState, (executable, name): (Option<Ref>, Option<Ref>)| {
                lookup_function(&executable, &name)
            },
        )?
        .export(
            "executable.dispatch",
            "0rIiiiCiDCrIID_v",
            |_: &HalLoaderState, args: DispatchArgs| dispatch(args),
        )?;
    Ok(b.build(move |_| {
        Ok(HalLoaderState {
            loaders: loaders.clone(),
        })
    }))
}

/// Loads `data` with the first loader of `format` that takes it, with the
/// executable-level `constants`.
fn load(
    loaders: &[Arc<dyn ExecutableLoader>],
    format: &str,
    data: &VmBuffer,
    constants: &[u32],
) -> Result<Arc<dyn Executable>> {
    let Some(loader) = loaders.iter().find(|l| l.supports(format)) else {
        return Err(Status::new(
            StatusCode::NotFound,
            format!("no executable loader registered for the given executable format '{format}'"),
        ));
    };
    let inner = data
        .with_bytes(|bytes| loader.load(format, bytes, constants))
        .map_err(|e| e.annotate(format!("while loading a '{format}' executable")))?;
    Ok(Arc::new(InlineExecutable { inner }))
}

/// `hal_loader.executable.dispatch`: runs every workgroup on the calling
/// thread with the bindings' bytes in place.
fn dispatch((executable, function, x, y, z, constants, bindings): DispatchArgs) -> Result<()> {
    let executable = &deref::<HalExecutable>(&executable, executable_type(), "executable")?.0;
    let Some(inline) = executable
        .as_any()
        .and_then(|any| any.downcast_ref::<InlineExecutable>())
    else {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            "executable was not loaded by hal_loader.executable.load",
        ));
    };
    let count = inline.inner.exports().len();
    let ordinal = match usize::try_from(function) {
        Ok(ordinal) if ordinal < count => ordinal,
        _ => {
            return Err(Status::new(
                StatusCode::OutOfRange,
                format!(
                    "function id {} out of range (count: {count})",
                    function as u64
                ),
            ))
        }
    };
    if bindings.0.len() > MAX_BINDINGS {
        return Err(Status::new(
            StatusCode::ResourceExhausted,
            "too many bindings",
        ));
    }
    let constants: Vec<u32> = constants.0.iter().map(|&(c,)| c as u32).collect();
    let mut ranges: Vec<(*mut u8, usize)> = Vec::with_capacity(bindings.0.len());
    for (i, (buffer, offset, length)) in bindings.0.iter().enumerate() {
        let buffer: &VmBuffer = deref(buffer, vm_buffer_type(), format_args!("binding {i}"))?;
        ranges.push(buffer.host_range(size_arg(*offset, "binding offset")?, *length as u64)?);
    }
    let workgroup_count = [x as u32, y as u32, z as u32];
    // SAFETY: each range was checked to lie within its VM buffer, and the
    // buffers (borrowed from the argument list) live until the call
    // returns. The calling thread is inside this native call, so the program
    // makes no access to them meanwhile; a kernel's accesses inside its
    // bindings (writing only the bindings the compiler made writable) are
    // trusted, as for every local executable.
    unsafe {
        iree_hal_local::dispatch_grid_host(
            &*inline.inner,
            ordinal,
            &constants,
            &ranges,
            workgroup_count,
        )
    }
}
