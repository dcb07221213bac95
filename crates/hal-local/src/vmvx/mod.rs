//! VMVX executables (`vmvx-bytecode-fb`): dispatch functions compiled to VM
//! bytecode and run by our interpreter (upstream's
//! `hal/local/loaders/vmvx_module_loader.c`).
//!
//! An executable's payload is a VM bytecode module whose exports are the
//! dispatch functions, each with the kernel calling convention
//! [`ENTRY_CCONV`]:
//!
//! ```text
//! (local_memory: !vm.buffer, constants: !vm.buffer,
//!  bindings: !vm.list<!vm.buffer>,
//!  workgroup_id_x/y/z: i32, workgroup_size_x/y/z: i32,
//!  workgroup_count_x/y/z: i32) -> ()
//! ```
//!
//! Exports describe themselves with reflection attributes
//! (`local_memory` in bytes, `constant_count`, `binding_count`,
//! `parameter_count`). Modules compiled with microkernels import `vmvx.*`
//! functions from the native [`module`] registered before them.
//!
//! # Workers and memory
//!
//! Workgroups of one dispatch run concurrently on several workers. Each
//! worker (`processor_id`) gets its own VM context (the `vmvx` module plus
//! the kernel module, created on first use and behind a mutex, so two
//! threads never share one). For each workgroup the bindings and the
//! worker's local memory are wrapped as external `vm.buffer`s
//! ([`Buffer::external`]), whose accesses are atomic: workers writing
//! (disjoint parts of) the same binding never race; the constants are copied
//! into a read-only buffer. The wrappers must not outlive the call; a kernel
//! that keeps one (in a global) loses its worker context, which is rebuilt
//! for the next workgroup, and fails the dispatch.

pub mod module;

use std::sync::Arc;

use iree_base::{bail, Result, ResultExt, Status, StatusCode};
use iree_vm::buffer::SharedBytes;
use iree_vm::list::ListElementType;
use iree_vm::{Buffer, Context, Function, Instance, List, Module, Ref, Stack, Value};
use iree_vm_bytecode::BytecodeModule;
use parking_lot::Mutex;

use crate::executable::{ExecutableLoader, WorkgroupExecutable};
use crate::library::{
    DispatchAttrsV0, DispatchStateV0, ExportInfo, WorkgroupStateV0, LOCAL_MEMORY_PAGE_SIZE,
};

/// The executable format VMVX modules carry.
pub const VMVX_FORMAT: &str = "vmvx-bytecode-fb";

/// The calling convention every dispatch export must have.
pub const ENTRY_CCONV: &str = "0rrriiiiiiiii_v";

/// Worker slots per executable: `processor_id` is below the dispatch's
/// `max_concurrency`, which the ABI carries in 8 bits.
const WORKER_SLOTS: usize = 256;

/// Loads `vmvx-bytecode-fb` executables into [`VmvxExecutable`]s, all sharing
/// one VM instance and one `vmvx` native module.
pub struct VmvxLoader {
    instance: Arc<Instance>,
    vmvx: Arc<dyn Module>,
}

impl VmvxLoader {
    /// A loader with a fresh VM instance and `vmvx` module.
    pub fn new() -> VmvxLoader {
        VmvxLoader {
            instance: Instance::new(),
            vmvx: module::create(),
        }
    }
}

impl Default for VmvxLoader {
    fn default() -> VmvxLoader {
        VmvxLoader::new()
    }
}

impl std::fmt::Debug for VmvxLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VmvxLoader").finish_non_exhaustive()
    }
}

impl ExecutableLoader for VmvxLoader {
    fn name(&self) -> &str {
        "vmvx"
    }

    fn supports(&self, format: &str) -> bool {
        format == VMVX_FORMAT
    }

    fn formats(&self) -> Vec<String> {
        vec![VMVX_FORMAT.to_string()]
    }

    fn load(
        &self,
        _format: &str,
        data: &[u8],
        constants: &[u32],
    ) -> Result<Arc<dyn WorkgroupExecutable>> {
        Ok(Arc::new(VmvxExecutable::load_with_constants(
            self.instance.clone(),
            self.vmvx.clone(),
            data,
            constants,
        )?))
    }
}

/// One worker's VM state: its context and a reusable stack.
struct Worker {
    /// Keeps the module instances `entries` call into alive.
    _context: Context,
    /// The dispatch functions in this context, by export ordinal.
    entries: Vec<Function>,
    stack: Stack,
}

/// A loaded VMVX executable: the verified kernel module, its exports and
/// one lazily created VM context per worker.
pub struct VmvxExecutable {
    instance: Arc<Instance>,
    vmvx: Arc<dyn Module>,
    module: Arc<BytecodeModule>,
    exports: Vec<ExportInfo>,
    /// The VM export ordinal of each dispatch export.
    entry_ordinals: Vec<u32>,
    workers: Box<[Mutex<Option<Worker>>]>,
}

impl std::fmt::Debug for VmvxExecutable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VmvxExecutable")
            .field("exports", &self.exports)
            .finish_non_exhaustive()
    }
}

/// Reads an unsigned reflection attribute the way upstream does
/// (`iree_string_view_atoi_uint32`; absent or unparsable is 0).
fn attr_u32(export: &iree_vm::ExportInfo, key: &str) -> u32 {
    export
        .attr(key)
        .and_then(|v| v.trim().parse::<u32>().ok())
        .unwrap_or(0)
}

impl VmvxExecutable {
    /// Loads and verifies the bytecode module in `data` and describes its
    /// exports; `vmvx` is the native module kernels may import from.
    ///
    /// Fails with INVALID_ARGUMENT when an export does not have the kernel
    /// calling convention or the module needs executable-level constants
    /// (`__set_constants`; none are provided).
    pub fn load(
        instance: Arc<Instance>,
        vmvx: Arc<dyn Module>,
        data: &[u8],
    ) -> Result<VmvxExecutable> {
        Self::load_with_constants(instance, vmvx, data, &[])
    }

    /// [`load`](Self::load) given executable-level `constants`. As
    /// upstream's VMVX loader, a module without `__set_constants` given
    /// some fails with INVALID_ARGUMENT; a module with it fails the export
    /// calling-convention check (upstream verifies every export, that
    /// function included, before it would call it), so constants never
    /// reach a VMVX kernel.
    pub fn load_with_constants(
        instance: Arc<Instance>,
        vmvx: Arc<dyn Module>,
        data: &[u8],
        constants: &[u32],
    ) -> Result<VmvxExecutable> {
        let module = BytecodeModule::from_vec(&instance, data.to_vec())?;
        let mut exports = Vec::new();
        let mut entry_ordinals = Vec::new();
        for (ordinal, export) in module.exports().iter().enumerate() {
            if export.cconv != ENTRY_CCONV {
                bail!(
                    InvalidArgument,
                    "executable entry point does not match the expected calling convention; \
                     expected '{ENTRY_CCONV}' but got '{}', possible ABI version mismatch",
                    export.cconv
                );
            }
            let local_memory = attr_u32(export, "local_memory") / LOCAL_MEMORY_PAGE_SIZE as u32;
            let attrs = DispatchAttrsV0 {
                local_memory_pages: local_memory as u16,
                constant_count: attr_u32(export, "constant_count") as u8,
                binding_count: attr_u32(export, "binding_count") as u8,
                parameter_count: attr_u32(export, "parameter_count") as u16,
                // Upstream leaves these zero (as its function info reports
                // them) and dispatches with 1 in their place (see `run_workgroup`).
                workgroup_size_x: 0,
                workgroup_size_y: 0,
                workgroup_size_z: 0,
                ..DispatchAttrsV0::default()
            };
            exports.push(ExportInfo::new(export.name.clone(), attrs));
            entry_ordinals.push(ordinal as u32);
        }
        // Upstream checks this when it creates the worker contexts, after
        // verifying every export (so `__set_constants` itself, with its own
        // calling convention, fails the check above first).
        if module.lookup_export("__set_constants").is_some() {
            bail!(
                InvalidArgument,
                "executable requires executable-level constants but none were provided"
            );
        }
        if !constants.is_empty() {
            bail!(
                InvalidArgument,
                "executable has no executable-level constants but {} constants were provided",
                constants.len()
            );
        }
        let mut executable = VmvxExecutable {
            instance,
            vmvx,
            module,
            exports,
            entry_ordinals,
            workers: (0..WORKER_SLOTS).map(|_| Mutex::new(None)).collect(),
        };
        // The first worker's context now: imports that do not resolve (or
        // resolve to a different signature) fail the load, as upstream's
        // eagerly created worker contexts do.
        let first = executable.new_worker()?;
        *executable.workers[0].get_mut() = Some(first);
        Ok(executable)
    }

    /// A new worker context: the `vmvx` module, then the kernel module.
    fn new_worker(&self) -> Result<Worker> {
        let modules: [Arc<dyn Module>; 2] = [self.vmvx.clone(), self.module.clone()];
        let context = Context::with_modules(self.instance.clone(), modules)?;
        let instance = context
            .modules()
            .last()
            .cloned()
            .ok_or_else(|| Status::new(StatusCode::Internal, "empty VMVX worker context"))?;
        let entries = self
            .entry_ordinals
            .iter()
            .map(|&ordinal| Function::new(instance.clone(), ordinal))
            .collect();
        Ok(Worker {
            _context: context,
            entries,
            stack: Stack::new(),
        })
    }

    /// Runs one workgroup on `worker` with `args`, then clears the stack's
    /// registers so only the kernel module's state can still hold the
    /// argument refs.
    fn call(worker: &mut Worker, ordinal: usize, args: &[Value]) -> Result<()> {
        let function = worker.entries.get(ordinal).ok_or_else(|| {
            Status::new(
                StatusCode::InvalidArgument,
                "entry point ordinal out of bounds",
            )
        })?;
        let result = iree_vm::invoke_with_stack(function, args, &mut worker.stack);
        match result {
            Ok(_) => worker.stack.ref_arena.clear(),
            // A failed call may leave frames behind: start afresh.
            Err(_) => worker.stack = Stack::new(),
        }
        result.map(drop)
    }
}

/// Wraps `length` bytes at `ptr` as an external `vm.buffer` ref.
///
/// # Safety
///
/// As [`Buffer::external`]: the bytes stay valid (and writable when
/// `writable`) while the buffer lives, and are accessed only atomically
/// while it is used.
unsafe fn external_ref(ptr: *mut u8, length: usize, writable: bool) -> Ref {
    // SAFETY: this function's contract.
    Ref::new(unsafe { Buffer::external(ptr, length, writable, ()) })
}

/// Drops the binding list's references when nothing else holds the list;
/// true when the list and every wrapper in `owned` are then held only here.
fn release(bindings: &Ref, owned: &[Ref]) -> bool {
    if Ref::strong_count(bindings) != 1 {
        return false;
    }
    if let Some(list) = bindings.downcast::<List>() {
        list.clear();
    }
    owned.iter().all(|r| Ref::strong_count(r) == 1)
}

impl WorkgroupExecutable for VmvxExecutable {
    fn exports(&self) -> &[ExportInfo] {
        &self.exports
    }

    unsafe fn run_workgroup(
        &self,
        ordinal: usize,
        dispatch: &DispatchStateV0,
        workgroup: &WorkgroupStateV0,
    ) -> Result<i32> {
        if ordinal >= self.exports.len() {
            bail!(InvalidArgument, "entry point ordinal out of bounds");
        }
        let Some(slot) = self.workers.get(workgroup.processor_id as usize) else {
            bail!(InvalidArgument, "worker_id out of bounds");
        };

        // The call's memory as external buffers. They live in `owned` and,
        // cloned, in `args`; after the call they must be back to one
        // reference each before this function returns and the memory may go.
        let binding_count = usize::from(dispatch.binding_count);
        let bindings = List::with_capacity(
            ListElementType::Ref(iree_vm::buffer::buffer_type()),
            binding_count,
        )?;
        let mut owned: Vec<Ref> = Vec::with_capacity(binding_count + 3);
        for i in 0..binding_count {
            // SAFETY: the caller guarantees `binding_ptrs`/`binding_lengths`
            // hold `binding_count` entries.
            let (ptr, length) = unsafe {
                (
                    *dispatch.binding_ptrs.add(i),
                    *dispatch.binding_lengths.add(i),
                )
            };
            // SAFETY: the caller guarantees each binding is valid for the
            // kernel's reads and writes for this call and that no Rust code
            // accesses it concurrently (other workgroups run through these
            // atomic wrappers too); the wrapper is dropped before we return
            // (checked below).
            let buffer = unsafe { external_ref(ptr.cast(), length, true) };
            bindings.push(Value::Ref(Some(buffer.clone())))?;
            owned.push(buffer);
        }
        // Constants are copied into a read-only buffer: they are few, and
        // the ABI hands them over through a shared pointer, which atomic
        // accesses (they need write permission) may not use.
        let constant_count = usize::from(dispatch.constant_count);
        let constant_bytes: Vec<u8> = if constant_count == 0 {
            Vec::new()
        } else {
            // SAFETY: `constants` points to `constant_count` u32s that nothing
            // writes during the dispatch (caller).
            let values = unsafe { std::slice::from_raw_parts(dispatch.constants, constant_count) };
            values.iter().flat_map(|v| v.to_le_bytes()).collect()
        };
        let constants_length = constant_bytes.len();
        let constant_bytes: SharedBytes = Arc::new(constant_bytes);
        let constants = Ref::new(Buffer::rodata(constant_bytes, 0..constants_length)?);
        // SAFETY: `local_memory` is valid for `local_memory_size` bytes and
        // private to this worker for the call (caller); dropped before
        // return (checked below).
        let local_memory = unsafe {
            external_ref(
                workgroup.local_memory.cast(),
                workgroup.local_memory_size as usize,
                true,
            )
        };
        let bindings = Ref::new(bindings);
        owned.push(local_memory.clone());
        let args = [
            Value::Ref(Some(local_memory)),
            Value::Ref(Some(constants)),
            Value::Ref(Some(bindings.clone())),
            Value::I32(workgroup.workgroup_id_x as i32),
            Value::I32(workgroup.workgroup_id_y as i32),
            Value::I32(i32::from(workgroup.workgroup_id_z)),
            Value::I32(dispatch.workgroup_size_x.max(1) as i32),
            Value::I32(dispatch.workgroup_size_y.max(1) as i32),
            Value::I32(i32::from(dispatch.workgroup_size_z.max(1))),
            Value::I32(dispatch.workgroup_count_x as i32),
            Value::I32(dispatch.workgroup_count_y as i32),
            Value::I32(i32::from(dispatch.workgroup_count_z)),
        ];

        let mut guard = slot.lock();
        let result = (|| {
            if guard.is_none() {
                *guard = Some(
                    self.new_worker()
                        .annotate("creating a VMVX worker context")?,
                );
            }
            let worker = guard
                .as_mut()
                .ok_or_else(|| Status::new(StatusCode::Internal, "VMVX worker context missing"))?;
            Self::call(worker, ordinal, &args)
        })();
        drop(args);
        if !release(&bindings, &owned) {
            // Whatever still references the wrappers now is kernel module
            // state (a global): drop this worker's context, and the state
            // with it.
            *guard = None;
            if !release(&bindings, &owned) {
                // Nothing but the worker context can hold these refs (the
                // `vmvx` module keeps no state, the stack was cleared);
                // letting the memory go while a reference survives would be
                // unsound.
                std::process::abort();
            }
            result?;
            bail!(
                FailedPrecondition,
                "dispatch '{}' kept a reference to its bindings, constants or local memory",
                self.exports[ordinal].name
            );
        }
        result.map(|()| 0)
    }
}
