//! The module model: [`Module`] (an immutable definition), [`ModuleInstance`]
//! (a module bound to its state inside one context) and the [`Stack`] that an
//! invocation threads through every call.

use std::any::Any;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

use crate::cconv::Cconv;
use crate::instance::Instance;
use crate::register_call::RegisterCall;
use crate::value::Value;

/// A module this module needs registered before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleDependency {
    /// The module name (`hal`).
    pub name: String,
    /// The lowest version that satisfies this dependency.
    pub minimum_version: u32,
    /// When true a missing module is tolerated.
    pub optional: bool,
}

/// An exported function.
#[derive(Clone, Debug)]
pub struct ExportInfo {
    /// The local name (`add`); callers see `module.add`.
    pub name: String,
    /// The calling-convention string.
    pub cconv: String,
    /// Reflection attributes (`iree.abi.declaration`, `iree.abi.model`).
    pub attrs: Vec<(String, String)>,
}

impl ExportInfo {
    /// Looks up a reflection attribute.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A function a module imports from another.
#[derive(Clone, Debug)]
pub struct ImportInfo {
    /// The fully-qualified name (`hal.buffer.length`).
    pub full_name: String,
    /// The calling convention the importer expects.
    pub cconv: String,
    /// When true the import may stay unresolved (see `vm.import.resolved`).
    pub optional: bool,
}

/// An import bound to the export that provides it.
#[derive(Clone)]
pub struct ResolvedImport {
    /// The providing module instance.
    pub instance: Arc<dyn ModuleInstance>,
    /// The export ordinal within that instance's module.
    pub export_ordinal: u32,
}

/// Outcome of a call that did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallStatus {
    /// The call completed and its results are set.
    Done,
    /// The call yielded; resume it through [`ModuleInstance::resume`].
    Deferred,
}

/// An immutable module definition, shareable across contexts.
pub trait Module: Send + Sync {
    /// The module name used for import resolution (`hal`, `module`).
    fn name(&self) -> &str;
    /// The module version, checked against dependents' minimum versions.
    fn version(&self) -> u32;
    /// Modules that must be registered before this one.
    fn dependencies(&self) -> &[ModuleDependency] {
        &[]
    }
    /// Exported functions; the index is the export ordinal.
    fn exports(&self) -> &[ExportInfo];
    /// Imported functions; the index is the import ordinal.
    fn imports(&self) -> &[ImportInfo] {
        &[]
    }
    /// Creates the module's state in a context, with its imports resolved
    /// (`None` for an optional import that nothing provides).
    fn instantiate(
        self: Arc<Self>,
        instance: &Arc<Instance>,
        imports: Vec<Option<ResolvedImport>>,
    ) -> Result<Arc<dyn ModuleInstance>>;

    /// Finds an export ordinal by local name.
    fn lookup_export(&self, name: &str) -> Option<u32> {
        self.exports()
            .iter()
            .position(|e| e.name == name)
            .map(|i| i as u32)
    }
}

/// A module bound to its state within one context.
pub trait ModuleInstance: Send + Sync {
    /// The module definition.
    fn module(&self) -> &dyn Module;

    /// Calls an export. `args` is flattened as the cconv describes; the
    /// callee may move refs out of it (leaving other values behind), which
    /// spares an increment and a decrement per ref argument. Results are
    /// appended to `results`. A [`CallStatus::Deferred`] outcome leaves a
    /// continuation on `stack` to be picked up by [`ModuleInstance::resume`].
    fn call(
        &self,
        stack: &mut Stack,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus>;

    /// [`call`](Self::call) for a caller that guarantees `args` match the
    /// export's calling convention: bytecode calling a resolved import, whose
    /// signature [`check_import_signature`] matched at link time, with
    /// arguments taken from verified registers. Implementations may skip
    /// checking the argument types; the default checks them as `call` does.
    fn call_verified(
        &self,
        stack: &mut Stack,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        self.call(stack, export_ordinal, args, results)
    }

    /// [`call_verified`](Self::call_verified) with the arguments and results
    /// in the calling frame's registers (a bytecode import call). The
    /// default takes the arguments as values and stores the results once
    /// the call is done ([`RegisterCall::through_values`]); an instance that
    /// can read and write registers itself overrides it.
    fn call_from_registers(
        &self,
        stack: &mut Stack,
        export_ordinal: u32,
        call: RegisterCall<'_>,
    ) -> Result<CallStatus> {
        call.through_values(self, stack, export_ordinal)
    }

    /// Resumes the most recent deferred call made on this instance.
    fn resume(&self, _stack: &mut Stack, _results: &mut Vec<Value>) -> Result<CallStatus> {
        Err(Status::new(
            StatusCode::FailedPrecondition,
            format!("module '{}' has no call to resume", self.module().name()),
        ))
    }

    /// Delivers a context-wide signal (`__notify`); ignored by default.
    fn notify(&self, _signal: i32) -> Result<()> {
        Ok(())
    }
}

/// Per-invocation execution state shared by every module the call passes
/// through: the call-depth budget, reusable scratch space, and the
/// continuations of calls that yielded.
pub struct Stack {
    frame_bytes: usize,
    frame_bytes_limit: usize,
    continuations: Vec<Box<dyn Any + Send>>,
    /// Reusable scratch arena for i32 registers; modules may grow it, and must
    /// not hold pointers into it across calls.
    pub i32_arena: Vec<u32>,
    /// Reusable scratch arena for ref registers.
    pub ref_arena: Vec<Option<crate::Ref>>,
    /// Reusable argument buffers for import calls, one per nesting level;
    /// every pooled buffer is empty ([`Stack::return_args`] clears it).
    arg_pool: Vec<Vec<Value>>,
}

impl Stack {
    /// Default budget of frame storage, in bytes. Frames charge their
    /// register storage plus a fixed header against it.
    pub const DEFAULT_FRAME_BYTES_LIMIT: usize = 1024 * 1024;

    /// A fresh stack with the default budget.
    pub fn new() -> Stack {
        Stack::with_limit(Self::DEFAULT_FRAME_BYTES_LIMIT)
    }

    /// A fresh stack with a budget of `frame_bytes_limit` bytes.
    pub fn with_limit(frame_bytes_limit: usize) -> Stack {
        Stack {
            frame_bytes: 0,
            frame_bytes_limit,
            continuations: Vec::new(),
            i32_arena: Vec::new(),
            ref_arena: Vec::new(),
            arg_pool: Vec::new(),
        }
    }

    /// Charges a frame of `bytes` against the budget; RESOURCE_EXHAUSTED when
    /// the budget would be exceeded.
    #[inline]
    pub fn enter_frame(&mut self, bytes: usize) -> Result<()> {
        let next = self.frame_bytes + bytes;
        if next > self.frame_bytes_limit {
            return Err(Status::new(
                StatusCode::ResourceExhausted,
                format!(
                    "VM stack overflow: {next} bytes of frames exceed the {} byte stack",
                    self.frame_bytes_limit
                ),
            ));
        }
        self.frame_bytes = next;
        Ok(())
    }

    /// Appends a frame's registers to the arenas, `i32_count` zeroed i32
    /// slots and `ref_count` null refs, and returns where they start (the
    /// i32 base, the ref base). Inlined into the interpreter's call path,
    /// where `Vec::resize` was an out-of-line call plus a `memset` per frame.
    #[inline]
    pub fn push_registers(&mut self, i32_count: usize, ref_count: usize) -> (usize, usize) {
        let bases = (self.i32_arena.len(), self.ref_arena.len());
        self.i32_arena.extend(std::iter::repeat_n(0, i32_count));
        self.ref_arena
            .extend(std::iter::repeat_with(|| None).take(ref_count));
        bases
    }

    /// Releases a frame charged by [`Stack::enter_frame`].
    #[inline]
    pub fn leave_frame(&mut self, bytes: usize) {
        self.frame_bytes -= bytes;
    }

    /// Frame bytes in use.
    pub fn frame_bytes(&self) -> usize {
        self.frame_bytes
    }

    /// True when no call is in progress on the stack: no frames, registers
    /// or saved continuations (its scratch capacity may remain).
    pub fn is_idle(&self) -> bool {
        self.frame_bytes == 0
            && self.continuations.is_empty()
            && self.i32_arena.is_empty()
            && self.ref_arena.is_empty()
    }

    /// Saves the continuation of a call that yielded.
    pub fn push_continuation(&mut self, continuation: Box<dyn Any + Send>) {
        self.continuations.push(continuation);
    }

    /// Takes the most recently saved continuation.
    pub fn pop_continuation(&mut self) -> Option<Box<dyn Any + Send>> {
        self.continuations.pop()
    }

    /// Takes a cleared argument buffer from the pool.
    pub fn take_args(&mut self) -> Vec<Value> {
        // Pooled buffers were cleared when returned.
        self.arg_pool.pop().unwrap_or_default()
    }

    /// Returns an argument buffer to the pool.
    pub fn return_args(&mut self, mut args: Vec<Value>) {
        args.clear();
        self.arg_pool.push(args);
    }
}

impl Default for Stack {
    fn default() -> Stack {
        Stack::new()
    }
}

/// Checks that an export's cconv matches what `importer` expects (INTERNAL on
/// a mismatch, worded as upstream words it).
pub fn check_import_signature(
    importer: &dyn Module,
    import: &ImportInfo,
    provider: &dyn Module,
    export: &ExportInfo,
) -> Result<()> {
    // An importer that names no calling convention (a native module
    // written in C declares imports by name only) takes the provider's.
    if import.cconv.is_empty() {
        return Ok(());
    }
    let expected = Cconv::parse(&import.cconv)?;
    let actual = Cconv::parse(&export.cconv)?;
    if expected != actual {
        return Err(Status::new(
            StatusCode::Internal,
            format!(
                "import function {} signature mismatch between {} and source {}; expected {} but got {}",
                import.full_name,
                importer.name(),
                provider.name(),
                import.cconv,
                export.cconv
            ),
        ));
    }
    Ok(())
}
