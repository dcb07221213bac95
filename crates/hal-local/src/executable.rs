//! What a local device needs from an executable, whatever its format:
//! exports described by the library ABI and a way to run one workgroup.
//!
//! Embedded ELF libraries, system shared libraries and VMVX modules all
//! implement [`WorkgroupExecutable`]; an [`ExecutableLoader`] turns a format
//! string and payload into one. The device then runs grids the same way for
//! every format ([`crate::dispatch`]).

use std::ops::Range;
use std::sync::Arc;

use iree_base::Result;

use crate::library::{run_workgroup_range, DispatchStateV0, ExportInfo, WorkgroupStateV0};

/// An executable whose exports run one workgroup per call with the v0
/// dispatch ABI.
pub trait WorkgroupExecutable: Send + Sync {
    /// The exports, in ordinal order.
    fn exports(&self) -> &[ExportInfo];

    /// Runs one workgroup of export `ordinal`; returns the kernel's result
    /// (0 = success).
    ///
    /// # Safety
    ///
    /// `dispatch` and `workgroup` must describe what the export was compiled
    /// for: `binding_ptrs`/`binding_lengths` point to `binding_count`
    /// entries, each binding valid for the reads and writes the kernel
    /// performs for this workgroup; `constants` points to `constant_count`
    /// values; `local_memory` is valid for `local_memory_size` bytes; and no
    /// Rust code accesses the bindings concurrently (other workgroups of the
    /// same dispatch may).
    unsafe fn run_workgroup(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        workgroup: &WorkgroupStateV0,
    ) -> Result<i32>;

    /// Runs the workgroups of linear indices `indices` (x fastest) of
    /// export `ordinal` in order, as `processor_id` with `local_memory`;
    /// stops at the first non-zero kernel result and returns it with its
    /// workgroup's index. One call per run of workgroups, so a format can
    /// look its kernel up once (the library formats do).
    ///
    /// # Safety
    ///
    /// As [`WorkgroupExecutable::run_workgroup`], for every workgroup of
    /// `indices`.
    unsafe fn run_workgroups(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        indices: Range<u64>,
        processor_id: u32,
        local_memory: &mut [u8],
    ) -> Result<Option<(u64, i32)>> {
        run_workgroup_range(dispatch, indices, processor_id, local_memory, |workgroup| {
            // SAFETY: this method's contract, for this workgroup.
            unsafe { self.run_workgroup(ordinal, dispatch, workgroup) }
        })
    }
}

/// Turns executable payloads of the formats it supports into
/// [`WorkgroupExecutable`]s (`iree_hal_executable_loader_t`).
pub trait ExecutableLoader: Send + Sync {
    /// A short name for diagnostics (`embedded-elf`, `system-library`, `vmvx`).
    fn name(&self) -> &str;

    /// Whether this loader accepts `format` (`embedded-elf-x86_64`, ...).
    fn supports(&self, format: &str) -> bool;

    /// The formats this loader accepts on this host, for error messages.
    fn formats(&self) -> Vec<String>;

    /// Loads `data`, an executable of `format`, with its executable-level
    /// `constants` (`hal.executable.create`'s constants buffer). Library-ABI
    /// loaders require exactly the count the library declares
    /// ([`crate::library::check_executable_constant_count`]).
    fn load(
        &self,
        format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn WorkgroupExecutable>>;
}

/// Loads `embedded-elf-<host arch>` executables with the crate's own ELF
/// loader ([`crate::EmbeddedElfLibrary`]).
#[derive(Debug, Default)]
pub struct EmbeddedElfLoader;

impl ExecutableLoader for EmbeddedElfLoader {
    fn name(&self) -> &str {
        "embedded-elf"
    }

    fn supports(&self, format: &str) -> bool {
        format == crate::device::host_embedded_elf_format()
    }

    fn formats(&self) -> Vec<String> {
        vec![crate::device::host_embedded_elf_format().to_string()]
    }

    fn load(
        &self,
        _format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn WorkgroupExecutable>> {
        Ok(Arc::new(crate::EmbeddedElfLibrary::load_with_constants(
            data,
            crate::library::ProcessorV0::default(),
            constants,
        )?))
    }
}

impl WorkgroupExecutable for crate::EmbeddedElfLibrary {
    fn exports(&self) -> &[ExportInfo] {
        crate::EmbeddedElfLibrary::exports(self)
    }

    unsafe fn run_workgroup(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        workgroup: &WorkgroupStateV0,
    ) -> Result<i32> {
        // SAFETY: the caller upholds `dispatch`'s contract, which is this
        // method's.
        unsafe { self.dispatch(ordinal, dispatch, workgroup) }
    }

    unsafe fn run_workgroups(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        indices: Range<u64>,
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
