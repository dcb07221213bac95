//! Local (CPU) HAL executables: the embedded ELF loader, the executable
//! library ABI, and VMVX (bytecode) executables with the `vmvx` module.
//!
//! * [`elf::ElfModule`] parses, maps, relocates and protects an ELF shared
//!   object from an `embedded-elf-<arch>` executable without running any of
//!   it (x86_64 and aarch64, on any host).
//! * [`EmbeddedElfLibrary`] goes on for an image of the host architecture:
//!   runs its initializers, calls `iree_hal_executable_library_query`, reads
//!   and checks the library it returns, and dispatches workgroups.
//! * [`vmvx::VmvxLoader`] loads `vmvx-bytecode-fb` executables: kernels as
//!   VM bytecode run by our interpreter, with [`vmvx::module`] providing
//!   the microkernels they import.
//!
//! # Trust
//!
//! Parsing and relocation treat the file as hostile: malformed input fails
//! with a [`Status`](iree_base::Status). Running the code is different: like
//! upstream, the loader trusts the machine code it loads once it calls into
//! it (initializers, `query`, dispatch functions). A kernel that writes past
//! the bindings it was compiled for corrupts memory; the safe
//! [`EmbeddedElfLibrary::dispatch_workgroup`] checks everything it can see
//! (counts, ids, that each binding is a live Rust slice) and nothing it cannot
//! (how many bytes the kernel's code touches).

pub mod device;
pub mod dispatch;
pub mod elf;
pub mod executable;
pub mod library;
pub mod pool;
pub mod vmvx;

use std::ffi::c_void;

use iree_base::{bail, Result};

pub use device::{default_loaders, LocalDevice, LocalSyncDevice, LocalSyncDriver, LocalTaskDriver};
pub use dispatch::{dispatch_grid, dispatch_grid_on_pool, dispatch_grid_parallel, BufferBinding};
pub use elf::{ElfModule, Machine};
pub use executable::{EmbeddedElfLoader, ExecutableLoader, WorkgroupExecutable};
pub use library::{
    DispatchAttrsV0, DispatchStateV0, EnvironmentV0, ExportInfo, LibraryInfo, ProcessorV0,
    WorkgroupStateV0, LIBRARY_VERSION_LATEST,
};
use library::{DispatchFn, ImportFn, QueryFn};
pub use pool::WorkerPool;
pub use vmvx::{VmvxExecutable, VmvxLoader};

/// An embedded ELF executable library loaded for this host, queried and
/// ready to dispatch.
pub struct EmbeddedElfLibrary {
    module: ElfModule,
    info: LibraryInfo,
    /// Absolute address of the query function (checked to be code).
    query: u64,
    /// Absolute address of the library `query` returned for version 6.
    library: u64,
    /// Kept alive for `environment`'s pointers.
    _constants: Box<[u32]>,
    _import_funcs: Box<[Option<ImportFn>]>,
    _import_contexts: Box<[*const c_void]>,
    /// Boxed so its address is stable across moves of the library.
    environment: Box<EnvironmentV0>,
}

// SAFETY: the raw pointers in `environment` and `_import_contexts` point into
// boxes this struct owns (or are null) and are never written after `load`;
// `ElfModule` is Send + Sync. Kernels are written to be called concurrently
// from many threads with a shared environment (upstream's task executor does).
unsafe impl Send for EmbeddedElfLibrary {}
// SAFETY: see `Send`: `&EmbeddedElfLibrary` gives only reads of immutable
// state plus calls into the kernel, which are reentrant by the ABI.
unsafe impl Sync for EmbeddedElfLibrary {}

impl std::fmt::Debug for EmbeddedElfLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedElfLibrary")
            .field("module", &self.module)
            .field("info", &self.info)
            .finish()
    }
}

/// `iree_hal_executable_import_thunk_v0`: calls `f` with its arguments.
unsafe extern "C" fn import_thunk(
    f: Option<ImportFn>,
    params: *mut c_void,
    context: *mut c_void,
    reserved: *mut c_void,
) -> i32 {
    match f {
        // SAFETY: the kernel passes one of the import functions from
        // `import_funcs` with the arguments that function expects; this thunk
        // is only a trampoline, as upstream's is.
        Some(f) => unsafe { f(params, context, reserved) },
        None => -1,
    }
}

/// Calls the image's query function.
///
/// # Safety
///
/// `query` must be the address of `iree_hal_executable_library_query` inside
/// executable pages of a live, host-architecture image, and `env` must stay
/// valid for the call.
unsafe fn call_query(query: u64, max_version: u32, env: &EnvironmentV0) -> u64 {
    // SAFETY: per this function's contract `query` is the code address of a
    // function with the `QueryFn` signature; a non-null function pointer of
    // the same size as u64 on 64-bit hosts.
    let f: QueryFn = unsafe { std::mem::transmute::<usize, QueryFn>(query as usize) };
    // SAFETY: per this function's contract; `env` is a valid reference.
    unsafe { f(max_version, env) as u64 }
}

/// Runs one initializer.
///
/// # Safety
///
/// `f` must be the address of an `extern "C" fn()` inside executable pages of
/// a live, host-architecture image.
unsafe fn call_initializer(f: u64) {
    // SAFETY: per this function's contract.
    let f: extern "C" fn() = unsafe { std::mem::transmute::<usize, extern "C" fn()>(f as usize) };
    f();
}

impl EmbeddedElfLibrary {
    /// Loads an `embedded-elf-<host arch>` executable: maps and relocates it,
    /// runs its initializers and queries its library (version
    /// [`LIBRARY_VERSION_LATEST`]) with zeroed processor data.
    ///
    /// An image for another architecture fails with UNIMPLEMENTED (use
    /// [`ElfModule::load`] to validate one).
    pub fn load(bytes: &[u8]) -> Result<EmbeddedElfLibrary> {
        Self::load_with_processor(bytes, ProcessorV0::default())
    }

    /// [`load`](Self::load) with explicit processor feature data.
    pub fn load_with_processor(bytes: &[u8], processor: ProcessorV0) -> Result<EmbeddedElfLibrary> {
        let module = ElfModule::load(bytes)?;
        Self::from_module(module, processor)
    }

    /// Runs `module`'s initializers and queries its library.
    pub fn from_module(module: ElfModule, processor: ProcessorV0) -> Result<EmbeddedElfLibrary> {
        // Executing is limited to x86_64 hosts: an aarch64 host would also
        // need an instruction-cache flush after relocation.
        if !(cfg!(target_arch = "x86_64") && module.is_host_machine()) {
            bail!(
                Unimplemented,
                "cannot execute an embedded-elf-{} library on this host",
                module.machine().iree_name()
            );
        }
        for &f in module.initializers() {
            // SAFETY: `ElfModule::load` checked every initializer address is
            // inside the executable pages of this host-architecture image,
            // which `module` keeps mapped.
            unsafe { call_initializer(f) };
        }
        let Some(query) = module.lookup_symbol(library::QUERY_SYMBOL_NAME) else {
            bail!(
                NotFound,
                "exported symbol with name '{}' not found in module",
                library::QUERY_SYMBOL_NAME
            );
        };
        if !library::ImageMemory::is_code(&module, query) {
            bail!(
                InvalidArgument,
                "symbol '{}' is not inside the image's code",
                library::QUERY_SYMBOL_NAME
            );
        }
        let mut environment = Box::new(EnvironmentV0 {
            constants: std::ptr::null(),
            import_thunk: Some(import_thunk),
            import_funcs: std::ptr::null(),
            import_contexts: std::ptr::null(),
            processor,
        });
        // SAFETY: `query` is the query symbol's address, checked above to be
        // in the executable pages of this live host-architecture image;
        // `environment` outlives the call.
        let library = unsafe { call_query(query, LIBRARY_VERSION_LATEST, &environment) };
        if library == 0 {
            bail!(
                FailedPrecondition,
                "executable library query failed: the library does not provide version {LIBRARY_VERSION_LATEST}"
            );
        }
        let info = library::read_library(&module, library)?;
        // Imports: none are provided; optional ones stay null, required ones
        // fail the load as unresolved.
        if let Some(required) = info.imports.iter().find(|n| !n.starts_with('?')) {
            bail!(
                NotFound,
                "executable library import '{required}' is not available"
            );
        }
        let constants = vec![0u32; info.constant_count as usize].into_boxed_slice();
        let import_funcs = vec![None; info.imports.len()].into_boxed_slice();
        let import_contexts = vec![std::ptr::null(); info.imports.len()].into_boxed_slice();
        environment.constants = constants.as_ptr();
        environment.import_funcs = import_funcs.as_ptr();
        environment.import_contexts = import_contexts.as_ptr();
        Ok(EmbeddedElfLibrary {
            module,
            info,
            query,
            library,
            _constants: constants,
            _import_funcs: import_funcs,
            _import_contexts: import_contexts,
            environment,
        })
    }

    /// Calls the library's query function again with `max_version` and
    /// this library's environment; returns the address of the library it
    /// answers with, or 0 (the 3.13 compiler's query answers only version 6).
    pub fn query(&self, max_version: u32) -> u64 {
        // SAFETY: `self.query` was checked at load to be the query symbol
        // inside the executable pages of this host-architecture image, which
        // `self.module` keeps mapped; the environment is owned by `self`.
        unsafe { call_query(self.query, max_version, &self.environment) }
    }

    /// Absolute address of the `iree_hal_executable_library_v0_t` that
    /// `query` returned at load.
    pub fn library_address(&self) -> u64 {
        self.library
    }

    /// The loaded image.
    pub fn module(&self) -> &ElfModule {
        &self.module
    }

    /// The library description (name, version, imports, exports).
    pub fn info(&self) -> &LibraryInfo {
        &self.info
    }

    /// The exports, in ordinal order.
    pub fn exports(&self) -> &[ExportInfo] {
        &self.info.exports
    }

    /// The environment passed to every dispatch.
    pub fn environment(&self) -> &EnvironmentV0 {
        &self.environment
    }

    /// Calls export `ordinal`'s dispatch function for one workgroup and
    /// returns its result (0 = success).
    ///
    /// # Safety
    ///
    /// `dispatch_state` and `workgroup_state` must describe what the kernel
    /// was compiled for: `binding_ptrs`/`binding_lengths` must point to
    /// `binding_count` entries, each binding valid for the reads and writes
    /// the kernel performs for this workgroup; `constants` must point to
    /// `constant_count` values; `local_memory` must be valid for
    /// `local_memory_size` bytes; and nothing else may access the written
    /// bindings concurrently.
    pub unsafe fn dispatch(
        &self,
        ordinal: usize,
        dispatch_state: &DispatchStateV0,
        workgroup_state: &WorkgroupStateV0,
    ) -> Result<i32> {
        let Some(export) = self.info.exports.get(ordinal) else {
            bail!(
                OutOfRange,
                "export ordinal {ordinal} out of range; library has {} exports",
                self.info.exports.len()
            );
        };
        // SAFETY: `read_library` checked the function address lies inside
        // executable pages of this host-architecture image, kept mapped by
        // `self.module`; it is a dispatch function per the library ABI.
        let f: DispatchFn =
            unsafe { std::mem::transmute::<usize, DispatchFn>(export.function as usize) };
        // SAFETY: the environment is owned by `self`; the states are valid
        // references and the caller guarantees what they point to.
        Ok(unsafe { f(&*self.environment, dispatch_state, workgroup_state) })
    }

    /// Runs one workgroup of export `ordinal` over Rust slices.
    ///
    /// Checks that `constants` and `bindings` have exactly the counts the
    /// export declares, that `workgroup_id` is inside `workgroup_count`, and
    /// that the z dimensions fit the ABI's 16 bits; provides zeroed local
    /// memory of the declared size. A non-zero kernel result fails with
    /// INTERNAL. See the crate docs on trusting the kernel's own accesses.
    pub fn dispatch_workgroup(
        &self,
        ordinal: usize,
        constants: &[u32],
        bindings: &mut [&mut [u8]],
        workgroup_count: [u32; 3],
        workgroup_id: [u32; 3],
    ) -> Result<()> {
        let Some(export) = self.info.exports.get(ordinal) else {
            bail!(
                OutOfRange,
                "export ordinal {ordinal} out of range; library has {} exports",
                self.info.exports.len()
            );
        };
        if constants.len() != export.constant_count() {
            bail!(
                InvalidArgument,
                "export '{}' takes {} constants; {} given",
                export.name,
                export.constant_count(),
                constants.len()
            );
        }
        if bindings.len() != export.binding_count() {
            bail!(
                InvalidArgument,
                "export '{}' takes {} bindings; {} given",
                export.name,
                export.binding_count(),
                bindings.len()
            );
        }
        if (0..3).any(|i| workgroup_id[i] >= workgroup_count[i]) {
            bail!(
                OutOfRange,
                "workgroup id {workgroup_id:?} is outside workgroup count {workgroup_count:?}"
            );
        }
        let (Ok(count_z), Ok(id_z)) = (
            u16::try_from(workgroup_count[2]),
            u16::try_from(workgroup_id[2]),
        ) else {
            bail!(
                OutOfRange,
                "workgroup count z {} exceeds 65535",
                workgroup_count[2]
            );
        };
        let binding_ptrs: Vec<*mut c_void> = bindings
            .iter_mut()
            .map(|b| b.as_mut_ptr().cast::<c_void>())
            .collect();
        let binding_lengths: Vec<usize> = bindings.iter().map(|b| b.len()).collect();
        let mut local_memory = vec![0u8; export.local_memory_size()];
        let state = DispatchStateV0::new(
            export,
            [workgroup_count[0], workgroup_count[1]],
            count_z,
            1,
            constants,
            &binding_ptrs,
            &binding_lengths,
        );
        let workgroup = WorkgroupStateV0::new(
            [workgroup_id[0], workgroup_id[1]],
            id_z,
            0,
            &mut local_memory,
        );
        // SAFETY: counts match the export's declaration (checked above); every
        // binding pointer/length pair comes from a live `&mut [u8]` that this
        // call borrows exclusively, constants from a live slice, local memory
        // from a live Vec of the declared size. That the kernel stays inside
        // those lengths is the trust the crate docs describe.
        let result = unsafe { self.dispatch(ordinal, &state, &workgroup)? };
        if result != 0 {
            bail!(
                Internal,
                "dispatch '{}' workgroup {workgroup_id:?} failed with result {result}",
                export.name
            );
        }
        Ok(())
    }
}
