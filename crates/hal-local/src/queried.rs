//! What every loaded executable library has once its image is in memory,
//! whoever loaded it (our ELF loader or the platform's `dlopen`): the
//! environment handed to it, the library its query function returned, and
//! the calls into it.
//!
//! [`QueriedLibrary::query`] calls `iree_hal_executable_library_query`,
//! validates the answer with [`read_library`] through the image's
//! [`ImageMemory`], checks imports and builds the environment; dispatches go
//! through [`QueriedLibrary::dispatch`]. The image itself stays with the
//! caller, which must keep it loaded for as long as the `QueriedLibrary`
//! lives.

use std::ffi::c_void;

use iree_base::{bail, Result};

use crate::library::{
    self, read_library, DispatchFn, DispatchStateV0, EnvironmentV0, ExportInfo, ImageMemory,
    ImportFn, LibraryInfo, ProcessorV0, QueryFn, WorkgroupStateV0, LIBRARY_VERSION_LATEST,
};

/// A library whose query function has answered, with the environment its
/// dispatch functions receive.
///
/// Invariant: the image `query` and every export's function live in stays
/// loaded, with its code executable, for as long as this value lives (the
/// owner of the image guarantees it; see [`QueriedLibrary::query`]).
pub(crate) struct QueriedLibrary {
    info: LibraryInfo,
    /// Absolute address of the query function (checked to be code).
    query: u64,
    /// Absolute address of the library `query` returned for version 6.
    library: u64,
    /// Kept alive for `environment`'s pointers.
    _constants: Box<[u32]>,
    _import_funcs: Box<[Option<ImportFn>]>,
    _import_contexts: Box<[*const c_void]>,
    /// Boxed so its address is stable across moves.
    environment: Box<EnvironmentV0>,
}

// SAFETY: the raw pointers in `environment` and `_import_contexts` point into
// boxes this struct owns (or are null) and are never written after `query`;
// the rest is plain data. Kernels are written to be called concurrently from
// many threads with a shared environment (upstream's task executor does).
unsafe impl Send for QueriedLibrary {}
// SAFETY: see `Send`: `&QueriedLibrary` gives only reads of immutable state
// plus calls into the library, which are reentrant by the ABI.
unsafe impl Sync for QueriedLibrary {}

impl std::fmt::Debug for QueriedLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueriedLibrary")
            .field("info", &self.info)
            .field("library", &format_args!("0x{:x}", self.library))
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

impl QueriedLibrary {
    /// Checks that `query` lies in `mem`'s code, calls it for version
    /// [`LIBRARY_VERSION_LATEST`] with an environment carrying `processor`,
    /// and a copy of `constants`, reads and validates the library it returns
    /// through `mem`, checks that every import it requires is available
    /// (none are provided: optional imports stay null), then that
    /// `constants` has exactly the library's executable-level constant count
    /// ([`library::check_executable_constant_count`]; upstream's order).
    ///
    /// # Safety
    ///
    /// `mem` must describe a live image of the host architecture that has
    /// been fully loaded (relocated, initializers run), whose executable
    /// ranges hold code compiled for the library ABI, and `query`, when
    /// inside those ranges, must be its `iree_hal_executable_library_query`.
    /// The caller must keep the image loaded for as long as the returned
    /// value lives.
    pub(crate) unsafe fn query(
        mem: &dyn ImageMemory,
        query: u64,
        processor: ProcessorV0,
        constants: &[u32],
    ) -> Result<QueriedLibrary> {
        if !mem.is_code(query) {
            bail!(
                InvalidArgument,
                "symbol '{}' is not inside the image's code",
                library::QUERY_SYMBOL_NAME
            );
        }
        // The library sees its constants from the query on, as upstream's
        // loaders set them before querying.
        let constants: Box<[u32]> = constants.into();
        let mut environment = Box::new(EnvironmentV0 {
            constants: if constants.is_empty() {
                std::ptr::null()
            } else {
                constants.as_ptr()
            },
            import_thunk: Some(import_thunk),
            import_funcs: std::ptr::null(),
            import_contexts: std::ptr::null(),
            processor,
        });
        // SAFETY: `query` was checked above to be in the executable pages of
        // the image, which the caller guarantees is live, host-architecture
        // and has it as its query function; `environment` outlives the call.
        let library = unsafe { call_query(query, LIBRARY_VERSION_LATEST, &environment) };
        if library == 0 {
            bail!(
                FailedPrecondition,
                "executable library query failed: the library does not provide version {LIBRARY_VERSION_LATEST}"
            );
        }
        let info = read_library(mem, library)?;
        // Imports: none are provided; optional ones stay null, required ones
        // fail the load as unresolved.
        if let Some(required) = info.imports.iter().find(|n| !n.starts_with('?')) {
            bail!(
                NotFound,
                "executable library import '{required}' is not available"
            );
        }
        library::check_executable_constant_count(info.constant_count, constants.len())?;
        let import_funcs = vec![None; info.imports.len()].into_boxed_slice();
        let import_contexts = vec![std::ptr::null(); info.imports.len()].into_boxed_slice();
        environment.import_funcs = import_funcs.as_ptr();
        environment.import_contexts = import_contexts.as_ptr();
        Ok(QueriedLibrary {
            info,
            query,
            library,
            _constants: constants,
            _import_funcs: import_funcs,
            _import_contexts: import_contexts,
            environment,
        })
    }

    /// Calls the query function again with `max_version` and this library's
    /// environment; returns the address it answers with (0: none).
    pub(crate) fn query_again(&self, max_version: u32) -> u64 {
        // SAFETY: `self.query` was checked at construction to be the query
        // function inside the image's code; the type's invariant keeps the
        // image loaded; the environment is owned by `self`.
        unsafe { call_query(self.query, max_version, &self.environment) }
    }

    /// Absolute address of the library `query` returned.
    pub(crate) fn library_address(&self) -> u64 {
        self.library
    }

    /// The library description.
    pub(crate) fn info(&self) -> &LibraryInfo {
        &self.info
    }

    /// The exports, in ordinal order.
    pub(crate) fn exports(&self) -> &[ExportInfo] {
        &self.info.exports
    }

    /// The environment passed to every dispatch.
    pub(crate) fn environment(&self) -> &EnvironmentV0 {
        &self.environment
    }

    /// Calls export `ordinal`'s dispatch function for one workgroup.
    ///
    /// # Safety
    ///
    /// As [`crate::WorkgroupExecutable::run_workgroup`].
    pub(crate) unsafe fn dispatch(
        &self,
        ordinal: usize,
        dispatch_state: &DispatchStateV0,
        workgroup_state: &WorkgroupStateV0,
    ) -> Result<i32> {
        let export = library::export_at(&self.info.exports, ordinal)?;
        // SAFETY: `read_library` checked the function address lies inside
        // the image's code, kept loaded by the type's invariant; it is a
        // dispatch function per the library ABI.
        let f: DispatchFn =
            unsafe { std::mem::transmute::<usize, DispatchFn>(export.function as usize) };
        // SAFETY: the environment is owned by `self`; the states are valid
        // references and the caller guarantees what they point to.
        Ok(unsafe { f(&*self.environment, dispatch_state, workgroup_state) })
    }

    /// Runs the workgroups of linear indices `indices` of export `ordinal`
    /// in order, looking the function up once; stops at the first non-zero
    /// result and returns it with its workgroup's index.
    ///
    /// # Safety
    ///
    /// As [`QueriedLibrary::dispatch`], for every workgroup of `indices`.
    pub(crate) unsafe fn dispatch_run(
        &self,
        ordinal: usize,
        dispatch_state: &DispatchStateV0,
        indices: std::ops::Range<u64>,
        processor_id: u32,
        local_memory: &mut [u8],
    ) -> Result<Option<(u64, i32)>> {
        let export = library::export_at(&self.info.exports, ordinal)?;
        // SAFETY: as in `dispatch`.
        let f: DispatchFn =
            unsafe { std::mem::transmute::<usize, DispatchFn>(export.function as usize) };
        // A grid of one workgroup (common among models' small dispatches)
        // skips the id walk. Here, not in `run_workgroup_range`: a second
        // call site of its closure there cost the row loop of every other
        // grid about one instruction a workgroup (callgrind, PP-OCR cls).
        if indices == (0..1) {
            let workgroup = WorkgroupStateV0::new([0, 0], 0, processor_id, local_memory);
            // SAFETY: as in `dispatch`, for workgroup 0 of the grid.
            let code = unsafe { f(&*self.environment, dispatch_state, &workgroup) };
            return Ok((code != 0).then_some((0, code)));
        }
        library::run_workgroup_range(
            dispatch_state,
            indices,
            processor_id,
            local_memory,
            |workgroup| {
                // SAFETY: as in `dispatch`, for this workgroup.
                Ok(unsafe { f(&*self.environment, dispatch_state, workgroup) })
            },
        )
    }

    /// Runs one workgroup of export `ordinal` over Rust slices: checks that
    /// `constants` and `bindings` have exactly the counts the export
    /// declares, that `workgroup_id` is inside `workgroup_count` and that the
    /// z dimensions fit the ABI's 16 bits; provides zeroed local memory of
    /// the declared size. A non-zero kernel result fails with INTERNAL.
    pub(crate) fn dispatch_workgroup(
        &self,
        ordinal: usize,
        constants: &[u32],
        bindings: &mut [&mut [u8]],
        workgroup_count: [u32; 3],
        workgroup_id: [u32; 3],
    ) -> Result<()> {
        let export = library::export_at(&self.info.exports, ordinal)?;
        export.check_dispatch_counts(constants.len(), bindings.len())?;
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
