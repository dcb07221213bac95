//! Local (CPU) HAL executables: the embedded ELF and system-library
//! loaders, the executable library ABI, and VMVX (bytecode) executables
//! with the `vmvx` module.
//!
//! * [`elf::ElfModule`] parses, maps, relocates and protects an ELF shared
//!   object from an `embedded-elf-<arch>` executable without running any of
//!   it (x86_64 and aarch64, on any host).
//! * [`EmbeddedElfLibrary`] goes on for an image of the host architecture:
//!   runs its initializers, calls `iree_hal_executable_library_query`, reads
//!   and checks the library it returns, and dispatches workgroups.
//! * [`SystemLibrary`] loads a `system-elf-<host arch>` executable (a
//!   platform shared object) with the platform's dynamic loader, after
//!   checking every header that loader reads, and then queries and dispatches
//!   it the same way.
//! * [`vmvx::VmvxLoader`] loads `vmvx-bytecode-fb` executables: kernels as
//!   VM bytecode run by our interpreter, with [`vmvx::module`] providing
//!   the microkernels they import.
//!
//! # Trust
//!
//! Parsing, relocation and the system-library checks treat the file as hostile: malformed input fails
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
pub mod executor;
pub mod library;
pub mod pool;
mod queried;
/// The fence-ordered queue (in `iree-hal`, shared with the GPU drivers).
pub use iree_hal::queue;
pub mod static_library;
pub mod system_library;
pub mod topology;
pub mod vmvx;

use iree_base::{bail, Result};

pub use device::{default_loaders, LocalDevice, LocalSyncDevice, LocalSyncDriver, LocalTaskDriver};
pub use dispatch::{
    dispatch_grid, dispatch_grid_host, dispatch_grid_on_pool, dispatch_grid_parallel, BufferBinding,
};
pub use elf::{ElfModule, Machine};
pub use executable::{EmbeddedElfLoader, ExecutableLoader, WorkgroupExecutable};
pub use library::{
    DispatchAttrsV0, DispatchStateV0, EnvironmentV0, ExportInfo, LibraryInfo, ProcessorV0,
    WorkgroupStateV0, LIBRARY_VERSION_LATEST,
};
pub use pool::WorkerPool;
pub use queue::{DeferredExecution, Queue, QueueOp};
pub use static_library::{StaticLibrary, StaticLibraryLoader, STATIC_LIBRARY_FORMAT};
pub use system_library::{host_system_elf_format, SystemLibrary, SystemLibraryLoader};
pub use topology::{TaskTopology, TaskTopologyOptions};

use queried::QueriedLibrary;
pub use vmvx::{VmvxExecutable, VmvxLoader};

/// An embedded ELF executable library loaded for this host, queried and
/// ready to dispatch.
pub struct EmbeddedElfLibrary {
    /// Declared before `module`: dropped while the image is still mapped.
    library: QueriedLibrary,
    module: ElfModule,
}

impl std::fmt::Debug for EmbeddedElfLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedElfLibrary")
            .field("module", &self.module)
            .field("info", self.library.info())
            .finish()
    }
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
        Self::load_with_constants(bytes, processor, &[])
    }

    /// [`load_with_processor`](Self::load_with_processor) with the
    /// executable-level constants (`hal.executable.create`'s constants) the
    /// library's environment carries; their count must be the library's
    /// ([`library::check_executable_constant_count`]).
    pub fn load_with_constants(
        bytes: &[u8],
        processor: ProcessorV0,
        constants: &[u32],
    ) -> Result<EmbeddedElfLibrary> {
        let module = ElfModule::load(bytes)?;
        Self::from_module(module, processor, constants)
    }

    /// Runs `module`'s initializers and queries its library with
    /// `constants` as its executable-level constants.
    pub fn from_module(
        module: ElfModule,
        processor: ProcessorV0,
        constants: &[u32],
    ) -> Result<EmbeddedElfLibrary> {
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
        // SAFETY: `module` is a relocated host-architecture image whose
        // initializers have run; `query` is its query symbol (checked to be
        // code by `QueriedLibrary::query`); the result is stored next to
        // `module` and dropped first.
        let library = unsafe { QueriedLibrary::query(&module, query, processor, constants)? };
        Ok(EmbeddedElfLibrary { library, module })
    }

    /// Calls the library's query function again with `max_version` and
    /// this library's environment; returns the address of the library it
    /// answers with, or 0 (the 3.13 compiler's query answers only version 6).
    pub fn query(&self, max_version: u32) -> u64 {
        self.library.query_again(max_version)
    }

    /// Absolute address of the `iree_hal_executable_library_v0_t` that
    /// `query` returned at load.
    pub fn library_address(&self) -> u64 {
        self.library.library_address()
    }

    /// The loaded image.
    pub fn module(&self) -> &ElfModule {
        &self.module
    }

    /// The library description (name, version, imports, exports).
    pub fn info(&self) -> &LibraryInfo {
        self.library.info()
    }

    /// The exports, in ordinal order.
    pub fn exports(&self) -> &[ExportInfo] {
        self.library.exports()
    }

    /// The environment passed to every dispatch.
    pub fn environment(&self) -> &EnvironmentV0 {
        self.library.environment()
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
        // SAFETY: the caller upholds this method's contract, which is
        // `QueriedLibrary::dispatch`'s.
        unsafe {
            self.library
                .dispatch(ordinal, dispatch_state, workgroup_state)
        }
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
        self.library
            .dispatch_workgroup(ordinal, constants, bindings, workgroup_count, workgroup_id)
    }
}
