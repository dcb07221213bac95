//! Native (Rust) modules: exports written as Rust functions.
//!
//! A [`NativeModuleBuilder`] collects exports and builds a [`NativeModule`],
//! which any [`Context`](crate::Context) can register next to bytecode
//! modules. Each context gets its own state `S`, created by the factory
//! given to [`NativeModuleBuilder::build`] when the module is registered;
//! exports receive `&S` (use interior mutability for state that changes).
//!
//! With [`NativeModuleBuilder::function`] the calling convention follows
//! from the Rust signature: the arguments are one [`Arg`] or a tuple of them,
//! the results one [`ResultValue`], a tuple of them or `()`.
//!
//! | Rust type | cconv | VM type |
//! | --- | --- | --- |
//! | `i32`, `i64`, `f32`, `f64` | `i` `I` `f` `F` | the scalar |
//! | `Arc<Buffer>`, `Arc<List>`, `Arc<T>` for any [`StaticRefObject`] (`hal.buffer_view` in `iree-modules-hal`) | `r` | a non-null ref of that type |
//! | `Option<Arc<T>>` | `r` | a ref of that type, or null |
//! | [`Ref`], `Option<Ref>` | `r` | any ref (non-null / nullable) |
//! | [`Variadic<T>`] (T a tuple) | `C...D` | a variadic list of tuples |
//!
//! Arguments are checked against the cconv before the function runs and
//! results after it returns, so bodies never see ill-typed input from
//! bytecode; a ref of the wrong type fails with INVALID_ARGUMENT. Modules
//! whose cconv is given as text use [`NativeModuleBuilder::export`] (checked
//! against the Rust types) or [`NativeModuleBuilder::export_raw`].
//!
//! ```
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicI64, Ordering};
//! use iree_vm::native::{NativeModuleBuilder, Variadic};
//! use iree_vm::{Buffer, Context, Instance, Value};
//!
//! /// Per-context state: a running total.
//! struct Counter {
//!     total: AtomicI64,
//! }
//!
//! let module = NativeModuleBuilder::<Counter>::new("counter", 0)
//!     // (i64) -> i64, cconv `0I_I`.
//!     .function("add", |state: &Counter, n: i64| {
//!         Ok(state.total.fetch_add(n, Ordering::Relaxed) + n)
//!     })?
//!     // (i32, i32) -> (i32, i32), cconv `0ii_ii`.
//!     .function("divmod", |_: &Counter, (a, b): (i32, i32)| {
//!         Ok((a.wrapping_div(b.max(1)), a.wrapping_rem(b.max(1))))
//!     })?
//!     // (!vm.buffer) -> i64, cconv `0r_I`.
//!     .function("length", |_: &Counter, buffer: Arc<Buffer>| Ok(buffer.len() as i64))?
//!     // (i32, tuple<f32>...) -> f32, cconv `0iCfD_f`.
//!     .function("scaled_sum", |_: &Counter, (k, xs): (i32, Variadic<(f32,)>)| {
//!         Ok(xs.0.iter().map(|(x,)| x * k as f32).sum::<f32>())
//!     })?
//!     .build(|_| Ok(Counter { total: AtomicI64::new(0) }));
//!
//! let context = Context::with_modules(Instance::new(), [module as _])?;
//! let add = context.lookup_function("counter.add")?;
//! assert_eq!(add.cconv()?.to_cconv_string(), "0I_I");
//! context.invoke(&add, &[Value::I64(2)])?;
//! let results = context.invoke(&add, &[Value::I64(3)])?;
//! assert!(matches!(results[..], [Value::I64(5)]));
//! # Ok::<(), iree_base::Status>(())
//! ```

use std::marker::PhantomData;
use std::sync::Arc;

use smallvec::SmallVec;

use iree_base::{Result, ResultExt, Status, StatusCode};

use crate::cconv::{Cconv, CconvType};
use crate::instance::Instance;
use crate::module::{
    CallStatus, ExportInfo, ImportInfo, Module, ModuleDependency, ModuleInstance, ResolvedImport,
    Stack,
};
use crate::refs::{type_mismatch, Ref, StaticRefObject};
use crate::register_call::{CallSlot, FrameRegisters, RegisterCall};
use crate::value::Value;

type RawFn<S> = dyn Fn(&S, &mut [Value], &mut Vec<Value>) -> Result<()> + Send + Sync;
/// A typed export's body for flattened values: a raw function's shape.
type TypedValuesFn<S> = RawFn<S>;
type TypedFrameFn<S> = dyn Fn(&S, FrameArgs<'_>) -> Result<()> + Send + Sync;
type StateFactory<S> = dyn Fn(&NativeInstantiation<'_>) -> Result<S> + Send + Sync;

/// What a native module's state factory is given.
pub struct NativeInstantiation<'a> {
    /// The VM instance (for type registration and lookups).
    pub instance: &'a Arc<Instance>,
    /// The module's resolved imports.
    pub imports: &'a [Option<ResolvedImport>],
}

struct NativeExport<S> {
    cconv: Cconv,
    body: ExportBody<S>,
}

/// How an export's Rust function takes its arguments.
enum ExportBody<S> {
    /// Flattened values in and out; its results are checked against the
    /// cconv after each call, since it may produce values of any type.
    Raw(Box<RawFn<S>>),
    /// Typed arguments read and results written through an [`ArgReader`]
    /// and a [`ResultWriter`]: one body compiled for values, one for the
    /// calling frame's registers (each argument then costs a check of its
    /// slot's tag and a load). Only values of its signature come out,
    /// which [`NativeModuleBuilder::export`] matched to the cconv once.
    Typed {
        values: Box<TypedValuesFn<S>>,
        frame: Box<TypedFrameFn<S>>,
    },
}

/// Builds a [`NativeModule`].
pub struct NativeModuleBuilder<S> {
    name: String,
    version: u32,
    dependencies: Vec<ModuleDependency>,
    imports: Vec<ImportInfo>,
    exports: Vec<ExportInfo>,
    functions: Vec<NativeExport<S>>,
}

impl<S: Send + Sync + 'static> NativeModuleBuilder<S> {
    /// Starts a module named `name` at `version`.
    pub fn new(name: &str, version: u32) -> Self {
        NativeModuleBuilder {
            name: name.to_string(),
            version,
            dependencies: Vec::new(),
            imports: Vec::new(),
            exports: Vec::new(),
            functions: Vec::new(),
        }
    }

    /// Declares a dependency.
    pub fn dependency(mut self, dep: ModuleDependency) -> Self {
        self.dependencies.push(dep);
        self
    }

    /// Declares an import.
    pub fn import(mut self, import: ImportInfo) -> Self {
        self.imports.push(import);
        self
    }

    /// Declares an export whose body works on raw flattened values.
    /// Arguments are checked against `cconv` before `f` runs and results
    /// after it returns.
    pub fn export_raw(
        self,
        name: &str,
        cconv: &str,
        f: impl Fn(&S, &mut [Value], &mut Vec<Value>) -> Result<()> + Send + Sync + 'static,
    ) -> Result<Self> {
        self.push_export(name, cconv, ExportBody::Raw(Box::new(f)))
    }

    fn push_export(mut self, name: &str, cconv: &str, body: ExportBody<S>) -> Result<Self> {
        let parsed = Cconv::parse(cconv)?;
        self.exports.push(ExportInfo {
            name: name.to_string(),
            cconv: cconv.to_string(),
            attrs: Vec::new(),
        });
        self.functions.push(NativeExport {
            cconv: parsed,
            body,
        });
        Ok(self)
    }

    /// Declares an export whose calling convention follows from its Rust
    /// signature: `A` is one [`Arg`] or a tuple of them, `R` one
    /// [`ResultValue`], a tuple of them or `()`. Fails only for types that
    /// make no valid cconv (a variadic inside a variadic).
    pub fn function<A: FromArgs, R: IntoResults>(
        self,
        name: &str,
        f: impl Fn(&S, A) -> Result<R> + Send + Sync + 'static,
    ) -> Result<Self> {
        let cconv = Cconv {
            args: A::cconv_types(),
            results: R::cconv_types(),
        }
        .to_cconv_string();
        self.export(name, &cconv, f)
    }

    /// Declares an export with typed arguments and results; the types'
    /// cconv must equal `cconv`.
    pub fn export<A: FromArgs, R: IntoResults>(
        self,
        name: &str,
        cconv: &str,
        f: impl Fn(&S, A) -> Result<R> + Send + Sync + 'static,
    ) -> Result<Self> {
        let declared = Cconv::parse(cconv)?;
        let derived = Cconv {
            args: A::cconv_types(),
            results: R::cconv_types(),
        };
        if declared != derived {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "export '{name}' declares cconv {cconv} but its Rust signature is {derived:?}"
                ),
            ));
        }
        // Results need no check: `R` writes values of the types `derived`
        // lists, equal to the declared cconv.
        let f = Arc::new(f);
        let g = f.clone();
        let values = move |state: &S, args: &mut [Value], results: &mut Vec<Value>| {
            let a = A::from_args(&mut ValueArgs { args, next: 0 })?;
            f(state, a)?.into_results(results);
            Ok(())
        };
        let frame = move |state: &S, mut reader: FrameArgs<'_>| {
            let a = A::from_args(&mut reader)?;
            let r = g(state, a)?;
            let mut results = reader.into_results();
            r.into_results(&mut results);
            results.finish()
        };
        self.push_export(
            name,
            cconv,
            ExportBody::Typed {
                values: Box::new(values),
                frame: Box::new(frame),
            },
        )
    }

    /// Finishes the module; `state` creates per-context state.
    pub fn build(
        mut self,
        state: impl Fn(&NativeInstantiation<'_>) -> Result<S> + Send + Sync + 'static,
    ) -> Arc<NativeModule<S>> {
        // Keep exports sorted by name, as upstream requires of native modules.
        let mut order: Vec<usize> = (0..self.exports.len()).collect();
        order.sort_by(|&a, &b| self.exports[a].name.cmp(&self.exports[b].name));
        let mut exports = Vec::with_capacity(order.len());
        let mut functions = Vec::with_capacity(order.len());
        let mut old_functions: Vec<Option<NativeExport<S>>> =
            self.functions.drain(..).map(Some).collect();
        for i in order {
            exports.push(self.exports[i].clone());
            functions.push(old_functions[i].take().expect("each export taken once"));
        }
        Arc::new(NativeModule {
            name: self.name,
            version: self.version,
            dependencies: self.dependencies,
            imports: self.imports,
            exports,
            functions,
            state_factory: Box::new(state),
        })
    }
}

/// A module implemented in Rust.
pub struct NativeModule<S> {
    name: String,
    version: u32,
    dependencies: Vec<ModuleDependency>,
    imports: Vec<ImportInfo>,
    exports: Vec<ExportInfo>,
    functions: Vec<NativeExport<S>>,
    state_factory: Box<StateFactory<S>>,
}

impl<S: Send + Sync + 'static> Module for NativeModule<S> {
    fn name(&self) -> &str {
        &self.name
    }
    fn version(&self) -> u32 {
        self.version
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
        instance: &Arc<Instance>,
        imports: Vec<Option<ResolvedImport>>,
    ) -> Result<Arc<dyn ModuleInstance>> {
        let state = (self.state_factory)(&NativeInstantiation {
            instance,
            imports: &imports,
        })?;
        Ok(Arc::new(NativeModuleInstance {
            module: self,
            state,
            imports,
        }))
    }
}

/// A native module bound to its state.
pub struct NativeModuleInstance<S> {
    module: Arc<NativeModule<S>>,
    state: S,
    imports: Vec<Option<ResolvedImport>>,
}

impl<S> NativeModuleInstance<S> {
    /// The module state.
    pub fn state(&self) -> &S {
        &self.state
    }
    /// The resolved imports.
    pub fn imports(&self) -> &[Option<ResolvedImport>] {
        &self.imports
    }
}

impl<S: Send + Sync + 'static> ModuleInstance for NativeModuleInstance<S> {
    fn module(&self) -> &dyn Module {
        &*self.module
    }

    fn call(
        &self,
        _stack: &mut Stack,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        self.call_export(export_ordinal, args, results, true)
    }

    fn call_verified(
        &self,
        _stack: &mut Stack,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        self.call_export(export_ordinal, args, results, false)
    }

    fn call_from_registers(
        &self,
        stack: &mut Stack,
        export_ordinal: u32,
        call: RegisterCall<'_>,
    ) -> Result<CallStatus> {
        let export = self.export(export_ordinal)?;
        let ExportBody::Typed { frame, .. } = &export.body else {
            return call.through_values(self, stack, export_ordinal);
        };
        let reader = FrameArgs {
            registers: call.registers(stack)?,
            args: call.args,
            results: call.results,
            next: 0,
        };
        frame(&self.state, reader).annotate_with(|| self.while_invoking(export_ordinal))?;
        Ok(CallStatus::Done)
    }
}

impl<S: Send + Sync + 'static> NativeModuleInstance<S> {
    /// Runs export `export_ordinal`, checking `args` against its calling
    /// convention when `check_args` (callers that guarantee them skip it)
    /// and its results always.
    fn call_export(
        &self,
        export_ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
        check_args: bool,
    ) -> Result<CallStatus> {
        let export = self.export(export_ordinal)?;
        let name = || self.while_invoking(export_ordinal);
        if check_args {
            Cconv::check_values(&export.cconv.args, args, "argument").annotate_with(name)?;
        }
        match &export.body {
            ExportBody::Raw(function) => {
                let first_result = results.len();
                function(&self.state, args, results).annotate_with(name)?;
                Cconv::check_values(&export.cconv.results, &results[first_result..], "result")
                    .annotate_with(name)?;
            }
            ExportBody::Typed { values, .. } => {
                values(&self.state, args, results).annotate_with(name)?;
            }
        }
        Ok(CallStatus::Done)
    }

    fn export(&self, export_ordinal: u32) -> Result<&NativeExport<S>> {
        self.module
            .functions
            .get(export_ordinal as usize)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!("export ordinal {export_ordinal} out of range"),
                )
            })
    }

    /// The context an export's error is annotated with.
    #[cold]
    fn while_invoking(&self, export_ordinal: u32) -> String {
        format!(
            "while invoking native function {}.{}",
            self.module.name, self.module.exports[export_ordinal as usize].name
        )
    }
}

/// Reads a call's flattened arguments in order (refs are moved out), from
/// values ([`ValueArgs`]) or from the calling frame's registers
/// ([`FrameArgs`]). Argument types ([`Arg`]) read through it.
pub trait ArgReader {
    /// The next argument as a `what`: `value` takes it from a flattened
    /// value, `register` from the calling frame as its call slot says; each
    /// gives `None` for an argument of another type. A reader uses the one
    /// for its source, so that reading an `i64` compiles to a check of one
    /// tag and a load.
    fn take_typed<T>(
        &mut self,
        what: &'static str,
        value: impl FnOnce(&mut Value) -> Option<T>,
        register: impl FnOnce(&mut FrameRegisters<'_>, CallSlot) -> Option<Result<T>>,
    ) -> Result<T>;
}

/// Arguments as flattened values.
pub struct ValueArgs<'a> {
    args: &'a mut [Value],
    next: usize,
}

impl ArgReader for ValueArgs<'_> {
    #[inline(always)]
    fn take_typed<T>(
        &mut self,
        what: &'static str,
        value: impl FnOnce(&mut Value) -> Option<T>,
        _: impl FnOnce(&mut FrameRegisters<'_>, CallSlot) -> Option<Result<T>>,
    ) -> Result<T> {
        let v = self.args.get_mut(self.next).ok_or_else(too_few_arguments)?;
        self.next += 1;
        match value(v) {
            Some(t) => Ok(t),
            None => Err(wrong_argument(what, &*v)),
        }
    }
}

/// Arguments in the calling frame's registers, whose results go there too
/// ([`FrameArgs::into_results`]).
pub struct FrameArgs<'a> {
    registers: FrameRegisters<'a>,
    args: &'a [CallSlot],
    results: &'a [CallSlot],
    next: usize,
}

impl ArgReader for FrameArgs<'_> {
    #[inline(always)]
    fn take_typed<T>(
        &mut self,
        what: &'static str,
        _: impl FnOnce(&mut Value) -> Option<T>,
        register: impl FnOnce(&mut FrameRegisters<'_>, CallSlot) -> Option<Result<T>>,
    ) -> Result<T> {
        let slot = *self.args.get(self.next).ok_or_else(too_few_arguments)?;
        self.next += 1;
        register(&mut self.registers, slot).unwrap_or_else(|| Err(wrong_argument(what, &slot)))
    }
}

impl<'a> FrameArgs<'a> {
    /// The writer of the call's results, once every argument is read.
    pub fn into_results(self) -> FrameResults<'a> {
        FrameResults {
            registers: self.registers,
            results: self.results,
            next: 0,
            error: None,
        }
    }
}

/// The next argument as a ref (moved out of a value; out of a register as
/// the call site says).
#[inline(always)]
fn take_ref<R: ArgReader>(reader: &mut R) -> Result<Option<Ref>> {
    reader.take_typed(
        "ref",
        |v| match v {
            Value::Ref(r) => Some(r.take()),
            _ => None,
        },
        |registers, slot| match slot {
            CallSlot::Ref { ordinal, moved } => Some(registers.take_ref(ordinal, moved)),
            _ => None,
        },
    )
}

#[cold]
fn too_few_arguments() -> Status {
    Status::new(StatusCode::InvalidArgument, "too few arguments")
}

#[cold]
fn wrong_argument(what: &str, have: &dyn std::fmt::Debug) -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        format!("expected {what} argument but have {have:?}"),
    )
}

/// Writes a call's results in order: appended to a vector of values, or
/// stored into the calling frame's result registers ([`FrameResults`]).
pub trait ResultWriter {
    /// Writes the next result.
    fn push(&mut self, value: Value);
}

impl ResultWriter for Vec<Value> {
    #[inline(always)]
    fn push(&mut self, value: Value) {
        Vec::push(self, value);
    }
}

/// Stores results into the calling frame's result registers.
pub struct FrameResults<'a> {
    registers: FrameRegisters<'a>,
    results: &'a [CallSlot],
    next: usize,
    /// The first failure to store a result, reported by [`Self::finish`].
    error: Option<Status>,
}

impl ResultWriter for FrameResults<'_> {
    /// Inlined, so that a result of a known type stores with one check of
    /// its slot's tag.
    #[inline(always)]
    fn push(&mut self, value: Value) {
        let stored = match self.results.get(self.next) {
            Some(&slot) => self.registers.write(slot, value),
            None => Err(result_count_mismatch(self.results.len())),
        };
        self.next += 1;
        if let Err(error) = stored {
            self.error.get_or_insert(error);
        }
    }
}

impl FrameResults<'_> {
    /// Whether every result was stored where the call site expects it.
    pub fn finish(self) -> Result<()> {
        if let Some(error) = self.error {
            return Err(error);
        }
        if self.results.len() != self.next {
            return Err(result_count_mismatch(self.results.len()));
        }
        Ok(())
    }
}

#[cold]
fn result_count_mismatch(expected: usize) -> Status {
    Status::new(
        StatusCode::Internal,
        format!("export returned a different number of results than the {expected} expected"),
    )
}

/// A single argument type convertible from a [`Value`].
pub trait Arg: Sized {
    /// The cconv element for this type.
    fn cconv_type() -> CconvType;
    /// Reads one value (or one variadic span).
    fn read<R: ArgReader>(reader: &mut R) -> Result<Self>;
}

macro_rules! scalar_arg {
    ($t:ty, $variant:ident, $load:ident, $from:expr) => {
        impl Arg for $t {
            fn cconv_type() -> CconvType {
                CconvType::$variant
            }
            #[inline]
            fn read<R: ArgReader>(reader: &mut R) -> Result<Self> {
                reader.take_typed(
                    stringify!($t),
                    |v| match v {
                        Value::$variant(v) => Some(*v),
                        _ => None,
                    },
                    |registers, slot| match slot {
                        CallSlot::$variant(r) => Some(registers.$load(r).map($from)),
                        _ => None,
                    },
                )
            }
        }
    };
}
scalar_arg!(i32, I32, word, |w| w as i32);
scalar_arg!(i64, I64, pair, |w| w as i64);
scalar_arg!(f32, F32, word, f32::from_bits);
scalar_arg!(f64, F64, pair, f64::from_bits);

impl Arg for Option<Ref> {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    #[inline]
    fn read<R: ArgReader>(reader: &mut R) -> Result<Self> {
        take_ref(reader)
    }
}

impl Arg for Ref {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    #[inline]
    fn read<R: ArgReader>(reader: &mut R) -> Result<Self> {
        match Option::<Ref>::read(reader)? {
            Some(r) => Ok(r),
            None => Err(Status::new(
                StatusCode::InvalidArgument,
                "expected a non-null ref argument",
            )),
        }
    }
}

impl<T: StaticRefObject> Arg for Arc<T> {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    #[inline]
    fn read<R: ArgReader>(reader: &mut R) -> Result<Self> {
        match Option::<Arc<T>>::read(reader)? {
            Some(object) => Ok(object),
            None => Err(type_mismatch(T::static_ref_type(), None)),
        }
    }
}

impl<T: StaticRefObject> Arg for Option<Arc<T>> {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    #[inline]
    fn read<R: ArgReader>(reader: &mut R) -> Result<Self> {
        match Option::<Ref>::read(reader)? {
            None => Ok(None),
            Some(r) => r
                .into_arc::<T>()
                .map(Some)
                .map_err(|r| type_mismatch(T::static_ref_type(), Some(&r))),
        }
    }
}

/// A `C...D` variadic span of tuples `T`. Spans hold a few tuples (a
/// dispatch's bindings, a fence join's fences): up to 4 are kept inline, so
/// reading one allocates nothing.
pub struct Variadic<T>(pub SmallVec<[T; 4]>);

impl<T: FromArgs> Arg for Variadic<T> {
    fn cconv_type() -> CconvType {
        CconvType::Variadic(T::cconv_types())
    }
    #[inline]
    fn read<R: ArgReader>(reader: &mut R) -> Result<Self> {
        let count = reader.take_typed(
            "a variadic span count",
            |v| match v {
                Value::I32(c) if *c >= 0 => Some(*c as usize),
                _ => None,
            },
            |_, slot| match slot {
                CallSlot::Count(n) => Some(Ok(usize::from(n))),
                _ => None,
            },
        )?;
        let mut items = SmallVec::with_capacity(count.min(1024));
        for _ in 0..count {
            items.push(T::from_args(reader)?);
        }
        Ok(Variadic(items))
    }
}

/// A tuple of arguments.
pub trait FromArgs: Sized {
    /// The cconv elements of the tuple.
    fn cconv_types() -> Vec<CconvType>;
    /// Reads the tuple.
    fn from_args<R: ArgReader>(reader: &mut R) -> Result<Self>;
}

/// A tuple of results.
pub trait IntoResults {
    /// The cconv elements of the tuple.
    fn cconv_types() -> Vec<CconvType>;
    /// Appends the values.
    fn into_results<W: ResultWriter>(self, out: &mut W);
}

/// A single result type.
pub trait ResultValue {
    /// The cconv element.
    fn cconv_type() -> CconvType;
    /// Converts into a value.
    fn into_value(self) -> Value;
}

macro_rules! result_value {
    ($t:ty, $cc:ident) => {
        impl ResultValue for $t {
            fn cconv_type() -> CconvType {
                CconvType::$cc
            }
            fn into_value(self) -> Value {
                Value::from(self)
            }
        }
    };
}
result_value!(i32, I32);
result_value!(i64, I64);
result_value!(f32, F32);
result_value!(f64, F64);
result_value!(Option<Ref>, Ref);
result_value!(Ref, Ref);

impl<T: StaticRefObject> ResultValue for Arc<T> {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    fn into_value(self) -> Value {
        Value::from(Ref::from_arc(self))
    }
}

impl<T: StaticRefObject> ResultValue for Option<Arc<T>> {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    fn into_value(self) -> Value {
        Value::Ref(self.map(Ref::from_arc))
    }
}

impl IntoResults for () {
    fn cconv_types() -> Vec<CconvType> {
        Vec::new()
    }
    fn into_results<W: ResultWriter>(self, _out: &mut W) {}
}

impl FromArgs for () {
    fn cconv_types() -> Vec<CconvType> {
        Vec::new()
    }
    #[inline]
    fn from_args<R: ArgReader>(_reader: &mut R) -> Result<Self> {
        Ok(())
    }
}

macro_rules! tuple_impls {
    ($($name:ident),+) => {
        impl<$($name: Arg),+> FromArgs for ($($name,)+) {
            fn cconv_types() -> Vec<CconvType> {
                vec![$($name::cconv_type()),+]
            }
            #[inline]
            fn from_args<R: ArgReader>(reader: &mut R) -> Result<Self> {
                Ok(($($name::read(reader)?,)+))
            }
        }
        impl<$($name: ResultValue),+> IntoResults for ($($name,)+) {
            fn cconv_types() -> Vec<CconvType> {
                vec![$($name::cconv_type()),+]
            }
            #[allow(non_snake_case, reason = "tuple fields named after their type parameters")]
            #[inline]
            fn into_results<W: ResultWriter>(self, out: &mut W) {
                let ($($name,)+) = self;
                $(out.push($name.into_value());)+
            }
        }
    };
}
tuple_impls!(A);
tuple_impls!(A, B);
tuple_impls!(A, B, C);
tuple_impls!(A, B, C, D);
tuple_impls!(A, B, C, D, E);
tuple_impls!(A, B, C, D, E, F);
tuple_impls!(A, B, C, D, E, F, G);
tuple_impls!(A, B, C, D, E, F, G, H);
tuple_impls!(A, B, C, D, E, F, G, H, I);
tuple_impls!(A, B, C, D, E, F, G, H, I, J);
tuple_impls!(A, B, C, D, E, F, G, H, I, J, K);
tuple_impls!(A, B, C, D, E, F, G, H, I, J, K, L);

macro_rules! single_result {
    ($t:ty) => {
        impl IntoResults for $t {
            fn cconv_types() -> Vec<CconvType> {
                vec![<$t as ResultValue>::cconv_type()]
            }
            #[inline]
            fn into_results<W: ResultWriter>(self, out: &mut W) {
                out.push(self.into_value());
            }
        }
    };
}
single_result!(i32);
single_result!(i64);
single_result!(f32);
single_result!(f64);
single_result!(Option<Ref>);
single_result!(Ref);

impl<T: StaticRefObject> IntoResults for Arc<T> {
    fn cconv_types() -> Vec<CconvType> {
        vec![CconvType::Ref]
    }
    #[inline]
    fn into_results<W: ResultWriter>(self, out: &mut W) {
        out.push(self.into_value());
    }
}

impl<T: StaticRefObject> IntoResults for Option<Arc<T>> {
    fn cconv_types() -> Vec<CconvType> {
        vec![CconvType::Ref]
    }
    #[inline]
    fn into_results<W: ResultWriter>(self, out: &mut W) {
        out.push(self.into_value());
    }
}

/// A single argument stands for a one-element tuple, so `|state, x: i32|`
/// works as well as `|state, (x,): (i32,)|`.
macro_rules! single_arg {
    ([$($g:ident: $bound:path),*] $t:ty) => {
        impl<$($g: $bound),*> FromArgs for $t {
            fn cconv_types() -> Vec<CconvType> {
                vec![<$t as Arg>::cconv_type()]
            }
            #[inline]
            fn from_args<R: ArgReader>(reader: &mut R) -> Result<Self> {
                <$t as Arg>::read(reader)
            }
        }
    };
}
single_arg!([] i32);
single_arg!([] i64);
single_arg!([] f32);
single_arg!([] f64);
single_arg!([] Ref);
single_arg!([] Option<Ref>);
single_arg!([T: StaticRefObject] Arc<T>);
single_arg!([T: StaticRefObject] Option<Arc<T>>);
single_arg!([T: FromArgs] Variadic<T>);

/// Keeps `PhantomData` imported for downstream generic helpers.
#[doc(hidden)]
pub type Marker<S> = PhantomData<S>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::Buffer;
    use crate::context::Context;
    use crate::list::List;

    fn module() -> Arc<NativeModule<()>> {
        NativeModuleBuilder::<()>::new("typed", 0)
            .function("len", |_: &(), b: Arc<Buffer>| Ok(b.len() as i32))
            .unwrap()
            .function("maybe", |_: &(), b: Option<Arc<Buffer>>| {
                Ok(b.map_or(-1, |b| b.len() as i64))
            })
            .unwrap()
            .function("echo", |_: &(), b: Arc<Buffer>| Ok(b))
            .unwrap()
            .function("sum", |_: &(), (xs,): (Variadic<(i32, f64)>,)| {
                Ok(xs.0.iter().map(|(a, b)| *a as f64 * b).sum::<f64>())
            })
            .unwrap()
            .function("nothing", |_: &(), ()| Ok(()))
            .unwrap()
            .build(|_| Ok(()))
    }

    #[test]
    fn cconv_follows_the_rust_signature() {
        let m = module();
        let cconv = |name: &str| {
            let i = m.lookup_export(name).unwrap() as usize;
            m.exports()[i].cconv.clone()
        };
        assert_eq!(cconv("len"), "0r_i");
        assert_eq!(cconv("maybe"), "0r_I");
        assert_eq!(cconv("echo"), "0r_r");
        assert_eq!(cconv("sum"), "0CiFD_F");
        assert_eq!(cconv("nothing"), "0v_v");
    }

    #[test]
    fn typed_exports_read_and_write_the_callers_registers() {
        use crate::register_call::{CallSlot, RegisterCall};
        let m = module();
        let instance = m
            .clone()
            .instantiate(&crate::Instance::new(), Vec::new())
            .unwrap();
        let mut stack = Stack::new();
        // A frame above another's registers: its bases are not 0.
        stack.i32_arena = vec![0; 4];
        stack.ref_arena = vec![None; 1];
        let (i32_base, ref_base) = stack.push_registers(12, 3);
        let f64_at = |stack: &Stack, r: usize| {
            let words = &stack.i32_arena[i32_base + r..i32_base + r + 2];
            f64::from_bits(u64::from(words[0]) | u64::from(words[1]) << 32)
        };
        // sum(span of (i32, f64)) -> f64, a span of two tuples.
        stack.i32_arena[i32_base] = 2;
        stack.i32_arena[i32_base + 4] = 4;
        for (r, x) in [(2, 0.5f64), (6, 2.0)] {
            stack.i32_arena[i32_base + r] = x.to_bits() as u32;
            stack.i32_arena[i32_base + r + 1] = (x.to_bits() >> 32) as u32;
        }
        let args = [
            CallSlot::Count(2),
            CallSlot::I32(0),
            CallSlot::F64(2),
            CallSlot::I32(4),
            CallSlot::F64(6),
        ];
        let call = RegisterCall {
            i32_base,
            ref_base,
            args: &args,
            results: &[CallSlot::F64(8)],
        };
        let sum = m.lookup_export("sum").unwrap();
        instance.call_from_registers(&mut stack, sum, call).unwrap();
        assert_eq!(f64_at(&stack, 8), 9.0);
        // echo(buffer) -> buffer: a kept argument stays, a moved one is taken.
        let buffer = Ref::new(Buffer::from_vec(vec![0u8; 3]));
        let echo = m.lookup_export("echo").unwrap();
        for moved in [false, true] {
            stack.ref_arena[ref_base] = Some(buffer.clone());
            let call = RegisterCall {
                i32_base,
                ref_base,
                args: &[CallSlot::Ref { ordinal: 0, moved }],
                results: &[CallSlot::Ref {
                    ordinal: 2,
                    moved: false,
                }],
            };
            instance
                .call_from_registers(&mut stack, echo, call)
                .unwrap();
            assert_eq!(stack.ref_arena[ref_base].is_none(), moved);
            assert!(Ref::ptr_eq(
                stack.ref_arena[ref_base + 2].as_ref().unwrap(),
                &buffer
            ));
        }
        // A slot of the wrong type fails as a value of the wrong type does.
        let call = RegisterCall {
            i32_base,
            ref_base,
            args: &[CallSlot::I32(0)],
            results: &[CallSlot::I32(1)],
        };
        let len = m.lookup_export("len").unwrap();
        let err = instance
            .call_from_registers(&mut stack, len, call)
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument, "{err}");
        // So does a register outside the frame, as INTERNAL.
        let call = RegisterCall {
            i32_base,
            ref_base,
            args: &[CallSlot::Ref {
                ordinal: 9,
                moved: false,
            }],
            results: &[CallSlot::I32(1)],
        };
        let err = instance
            .call_from_registers(&mut stack, len, call)
            .unwrap_err();
        assert_eq!(err.code(), StatusCode::Internal, "{err}");
    }

    #[test]
    fn typed_refs_are_checked() {
        let context = Context::with_modules(crate::Instance::new(), [module() as _]).unwrap();
        let len = context.lookup_function("typed.len").unwrap();
        let buffer = Ref::new(Buffer::from_vec(vec![0u8; 7]));
        let out = context
            .invoke(&len, &[Value::from(buffer.clone())])
            .unwrap();
        assert!(matches!(out[..], [Value::I32(7)]));
        let list = Ref::new(List::new(crate::list::ListElementType::Variant, 0).unwrap());
        let err = context.invoke(&len, &[Value::from(list)]).unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument);
        assert!(err.message().contains("vm.buffer"), "{err}");
        let err = context.invoke(&len, &[Value::NULL]).unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument);
        let maybe = context.lookup_function("typed.maybe").unwrap();
        let out = context.invoke(&maybe, &[Value::NULL]).unwrap();
        assert!(matches!(out[..], [Value::I64(-1)]));
        let echo = context.lookup_function("typed.echo").unwrap();
        let out = context
            .invoke(&echo, &[Value::from(buffer.clone())])
            .unwrap();
        match &out[..] {
            [Value::Ref(Some(r))] => assert!(Ref::ptr_eq(r, &buffer)),
            other => panic!("unexpected {other:?}"),
        }
        let sum = context.lookup_function("typed.sum").unwrap();
        let args = [
            Value::I32(2),
            Value::I32(3),
            Value::F64(0.5),
            Value::I32(4),
            Value::F64(2.0),
        ];
        let out = context.invoke(&sum, &args).unwrap();
        assert!(matches!(out[..], [Value::F64(x)] if x == 9.5));
    }
}
