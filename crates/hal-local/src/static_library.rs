//! Executable libraries linked into the program itself (upstream's static
//! library loader, format `static`): the compiler's
//! `--iree-llvmcpu-link-static` output is an object file whose library
//! query function the host passes in; an executable of format `static`
//! names the library (its data is the library name, NUL-terminated).
//!
//! The libraries live in the process's own image, so what the library
//! returns is read through `ProcessMemory`: any address in a readable
//! mapping of this process, with code being the executable mappings.

use std::ffi::{c_void, CStr};
use std::sync::Arc;

use iree_base::{bail, Result};

use crate::executable::{ExecutableLoader, WorkgroupExecutable};
use crate::library::{
    self, DispatchStateV0, EnvironmentV0, ExportInfo, ImageMemory, LibraryInfo, ProcessorV0,
    QueryFn, WorkgroupStateV0, LIBRARY_VERSION_LATEST,
};
use crate::queried::QueriedLibrary;

/// The format of executables naming a library linked into the program.
pub const STATIC_LIBRARY_FORMAT: &str = "static";

/// This process's memory as an [`ImageMemory`]: reads succeed inside
/// readable mappings, code is what is mapped executable.
struct ProcessMemory;

impl ImageMemory for ProcessMemory {
    fn read(&self, address: u64, out: &mut [u8]) -> Result<()> {
        let mut at = address;
        let mut done = 0;
        while done < out.len() {
            let region = region::query(at as usize as *const u8)
                .ok()
                .filter(|r| r.protection().contains(region::Protection::READ) && !r.is_guarded());
            let Some(region) = region else {
                bail!(
                    OutOfRange,
                    "address 0x{at:x} is outside this process's readable memory"
                );
            };
            let end = region.as_range().end as u64;
            let n = (out.len() - done).min((end - at) as usize);
            // SAFETY: `[at, at + n)` lies inside a readable mapping of this
            // process; the libraries it belongs to are linked into the
            // program (the loader's contract) and stay mapped.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    at as usize as *const u8,
                    out[done..].as_mut_ptr(),
                    n,
                );
            }
            done += n;
            at += n as u64;
        }
        Ok(())
    }

    fn is_code(&self, address: u64) -> bool {
        region::query(address as usize as *const u8)
            .is_ok_and(|r| r.protection().contains(region::Protection::EXECUTE))
    }
}

/// A library linked into the program, queried for one executable.
#[derive(Debug)]
pub struct StaticLibrary {
    library: QueriedLibrary,
}

impl StaticLibrary {
    /// The library description (name, version, imports, exports).
    pub fn info(&self) -> &LibraryInfo {
        self.library.info()
    }

    /// The environment passed to every dispatch.
    pub fn environment(&self) -> &EnvironmentV0 {
        self.library.environment()
    }
}

impl WorkgroupExecutable for StaticLibrary {
    fn exports(&self) -> &[ExportInfo] {
        self.library.exports()
    }

    unsafe fn run_workgroup(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        workgroup: &WorkgroupStateV0,
    ) -> Result<i32> {
        // SAFETY: the caller upholds this method's contract, which is
        // `QueriedLibrary::dispatch`'s.
        unsafe { self.library.dispatch(ordinal, dispatch, workgroup) }
    }

    unsafe fn run_workgroups(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        indices: std::ops::Range<u64>,
        processor_id: u32,
        local_memory: &mut [u8],
    ) -> Result<Option<(u64, i32)>> {
        // SAFETY: the caller upholds this method's contract, which is
        // `QueriedLibrary::dispatch_run`'s.
        unsafe {
            self.library
                .dispatch_run(ordinal, dispatch, indices, processor_id, local_memory)
        }
    }
}

/// Loads executables of format [`STATIC_LIBRARY_FORMAT`] from the libraries
/// it was given (`iree_hal_static_library_loader_t`).
#[derive(Debug)]
pub struct StaticLibraryLoader {
    /// Each library's name and query function.
    libraries: Vec<(String, QueryFn)>,
}

/// An import thunk for the query made at registration (nothing is called
/// through it: a query only describes the library).
unsafe extern "C" fn no_import(
    _f: Option<library::ImportFn>,
    _params: *mut c_void,
    _context: *mut c_void,
    _reserved: *mut c_void,
) -> i32 {
    -1
}

impl StaticLibraryLoader {
    /// A loader over `queries`, each asked now for its library's name (and
    /// refused when it does not answer for version
    /// [`LIBRARY_VERSION_LATEST`] or answers with a newer one).
    ///
    /// # Safety
    ///
    /// Each query must be the `iree_hal_executable_library_query_fn_t` of an
    /// executable library linked into this process (it stays loaded for as
    /// long as the process runs), built for the library ABI.
    pub unsafe fn new(queries: &[QueryFn]) -> Result<StaticLibraryLoader> {
        let environment = EnvironmentV0 {
            constants: std::ptr::null(),
            import_thunk: Some(no_import),
            import_funcs: std::ptr::null(),
            import_contexts: std::ptr::null(),
            processor: ProcessorV0::default(),
        };
        let mut libraries = Vec::with_capacity(queries.len());
        for &query in queries {
            // SAFETY: per this function's contract `query` is a library's
            // query function; the environment outlives the call.
            let header = unsafe { query(LIBRARY_VERSION_LATEST, &environment) };
            // SAFETY: a non-null answer points at the library's header
            // pointer, in the library's static data (the ABI).
            let header = (!header.is_null())
                .then(|| unsafe { *header })
                .filter(|h| !h.is_null());
            let Some(header) = header else {
                bail!(
                    Unavailable,
                    "failed to query library header for runtime version {LIBRARY_VERSION_LATEST}"
                );
            };
            // SAFETY: as above: the header lives in the library's static data.
            let header = unsafe { *header };
            if header.version > LIBRARY_VERSION_LATEST {
                bail!(
                    FailedPrecondition,
                    "executable does not support this version of the runtime (executable: {}, runtime: {LIBRARY_VERSION_LATEST})",
                    header.version
                );
            }
            if header.name.is_null() {
                bail!(InvalidArgument, "static library has no name");
            }
            // SAFETY: the library's name is a NUL-terminated string in its
            // static data.
            let name = unsafe { CStr::from_ptr(header.name.cast()) }
                .to_string_lossy()
                .into_owned();
            libraries.push((name, query));
        }
        Ok(StaticLibraryLoader { libraries })
    }

    /// The names of the libraries, in registration order.
    pub fn library_names(&self) -> impl Iterator<Item = &str> {
        self.libraries.iter().map(|(name, _)| name.as_str())
    }
}

impl ExecutableLoader for StaticLibraryLoader {
    fn name(&self) -> &str {
        "static-library"
    }

    fn supports(&self, format: &str) -> bool {
        format == STATIC_LIBRARY_FORMAT
    }

    fn formats(&self) -> Vec<String> {
        vec![STATIC_LIBRARY_FORMAT.to_string()]
    }

    /// `data` is the library's name (a trailing NUL is dropped).
    fn load(
        &self,
        _format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn WorkgroupExecutable>> {
        let name = data.strip_suffix(&[0]).unwrap_or(data);
        let name = String::from_utf8_lossy(name);
        let Some(&(_, query)) = self.libraries.iter().find(|(n, _)| *n == name) else {
            bail!(
                NotFound,
                "no static library with the name '{name}' registered"
            );
        };
        // SAFETY: `query` is a library linked into this process (the
        // constructor's contract), so it stays loaded and `ProcessMemory`
        // covers it; `QueriedLibrary::query` checks the query address is
        // code and reads the answer through it.
        let library = unsafe {
            QueriedLibrary::query(
                &ProcessMemory,
                query as usize as u64,
                ProcessorV0::default(),
                constants,
            )?
        };
        Ok(Arc::new(StaticLibrary { library }))
    }
}
