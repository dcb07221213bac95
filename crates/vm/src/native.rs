//! Native (Rust) modules declared by calling-convention strings.
//!
//! Each export is declared with its cconv and a Rust function; arguments are
//! checked against the cconv before the function runs, so bodies never see
//! ill-typed input from bytecode. Typed functions (`Fn(&S, (i32, i64)) ->
//! Result<i32>`) are marshalled through [`FromArgs`] / [`IntoResults`], whose
//! cconv is checked against the declared one when the module is built.
//!
//! ```
//! use iree_vm::native::NativeModuleBuilder;
//! let module = NativeModuleBuilder::<()>::new("math", 0)
//!     .export("add", "0ii_i", |_: &(), (a, b): (i32, i32)| Ok(a.wrapping_add(b)))
//!     .unwrap()
//!     .build(|_| Ok(()));
//! ```

use std::marker::PhantomData;
use std::sync::Arc;

use iree_base::{Result, ResultExt, Status, StatusCode};

use crate::cconv::{Cconv, CconvType};
use crate::instance::Instance;
use crate::module::{
    CallStatus, ExportInfo, ImportInfo, Module, ModuleDependency, ModuleInstance, ResolvedImport,
    Stack,
};
use crate::refs::Ref;
use crate::value::Value;

type RawFn<S> = dyn Fn(&S, &mut [Value], &mut Vec<Value>) -> Result<()> + Send + Sync;
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
    function: Box<RawFn<S>>,
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
        mut self,
        name: &str,
        cconv: &str,
        f: impl Fn(&S, &mut [Value], &mut Vec<Value>) -> Result<()> + Send + Sync + 'static,
    ) -> Result<Self> {
        let parsed = Cconv::parse(cconv)?;
        self.exports.push(ExportInfo {
            name: name.to_string(),
            cconv: cconv.to_string(),
            attrs: Vec::new(),
        });
        self.functions.push(NativeExport {
            cconv: parsed,
            function: Box::new(f),
        });
        Ok(self)
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
        self.export_raw(name, cconv, move |state, args, results| {
            let mut reader = ArgReader {
                values: args,
                next: 0,
            };
            let a = A::from_args(&mut reader)?;
            f(state, a)?.into_results(results);
            Ok(())
        })
    }

    /// Declares an export whose calling convention follows from the Rust
    /// signature: arguments `i32`, `i64`, `f32`, `f64`, `Option<Ref>` (any
    /// ref) and [`Variadic`] spans, as a tuple (or `()`); results the same
    /// scalar and ref types, a single one or a tuple.
    ///
    /// ```
    /// use iree_vm::native::NativeModuleBuilder;
    /// let module = NativeModuleBuilder::<()>::new("math", 0)
    ///     .function("mul_add", |_: &(), (a, b, c): (i32, i32, i32)| Ok(a * b + c))
    ///     .unwrap()
    ///     .build(|_| Ok(()));
    /// assert_eq!(iree_vm::Module::exports(&*module)[0].cconv, "0iii_i");
    /// ```
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
        let export = self
            .module
            .functions
            .get(export_ordinal as usize)
            .ok_or_else(|| {
                Status::new(
                    StatusCode::NotFound,
                    format!("export ordinal {export_ordinal} out of range"),
                )
            })?;
        let name = || {
            format!(
                "while invoking native function {}.{}",
                self.module.name, self.module.exports[export_ordinal as usize].name
            )
        };
        if check_args {
            Cconv::check_values(&export.cconv.args, args, "argument").annotate_with(name)?;
        }
        let first_result = results.len();
        (export.function)(&self.state, args, results).annotate_with(name)?;
        Cconv::check_values(&export.cconv.results, &results[first_result..], "result")
            .annotate_with(name)?;
        Ok(CallStatus::Done)
    }
}

/// Sequential reader over flattened arguments; refs are moved out.
pub struct ArgReader<'a> {
    values: &'a mut [Value],
    next: usize,
}

impl ArgReader<'_> {
    fn take(&mut self) -> Result<&mut Value> {
        let v = self
            .values
            .get_mut(self.next)
            .ok_or_else(|| Status::new(StatusCode::InvalidArgument, "too few arguments"))?;
        self.next += 1;
        Ok(v)
    }
}

/// A single argument type convertible from a [`Value`].
pub trait Arg: Sized {
    /// The cconv element for this type.
    fn cconv_type() -> CconvType;
    /// Reads one value (or one variadic span).
    fn read(reader: &mut ArgReader<'_>) -> Result<Self>;
}

macro_rules! scalar_arg {
    ($t:ty, $variant:ident, $cc:ident) => {
        impl Arg for $t {
            fn cconv_type() -> CconvType {
                CconvType::$cc
            }
            fn read(reader: &mut ArgReader<'_>) -> Result<Self> {
                match reader.take()? {
                    Value::$variant(v) => Ok(*v),
                    other => Err(Status::new(
                        StatusCode::InvalidArgument,
                        format!("expected {} argument but have {other:?}", stringify!($t)),
                    )),
                }
            }
        }
    };
}
scalar_arg!(i32, I32, I32);
scalar_arg!(i64, I64, I64);
scalar_arg!(f32, F32, F32);
scalar_arg!(f64, F64, F64);

impl Arg for Option<Ref> {
    fn cconv_type() -> CconvType {
        CconvType::Ref
    }
    fn read(reader: &mut ArgReader<'_>) -> Result<Self> {
        match reader.take()? {
            Value::Ref(r) => Ok(r.take()),
            other => Err(Status::new(
                StatusCode::InvalidArgument,
                format!("expected ref argument but have {other:?}"),
            )),
        }
    }
}

/// A `C...D` variadic span of tuples `T`.
pub struct Variadic<T>(pub Vec<T>);

impl<T: FromArgs> Arg for Variadic<T> {
    fn cconv_type() -> CconvType {
        CconvType::Variadic(T::cconv_types())
    }
    fn read(reader: &mut ArgReader<'_>) -> Result<Self> {
        let count = match reader.take()? {
            Value::I32(c) if *c >= 0 => *c as usize,
            _ => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    "expected a variadic span count",
                ))
            }
        };
        let mut items = Vec::with_capacity(count.min(1024));
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
    fn from_args(reader: &mut ArgReader<'_>) -> Result<Self>;
}

/// A tuple of results.
pub trait IntoResults {
    /// The cconv elements of the tuple.
    fn cconv_types() -> Vec<CconvType>;
    /// Appends the values.
    fn into_results(self, out: &mut Vec<Value>);
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

impl IntoResults for () {
    fn cconv_types() -> Vec<CconvType> {
        Vec::new()
    }
    fn into_results(self, _out: &mut Vec<Value>) {}
}

impl FromArgs for () {
    fn cconv_types() -> Vec<CconvType> {
        Vec::new()
    }
    fn from_args(_reader: &mut ArgReader<'_>) -> Result<Self> {
        Ok(())
    }
}

macro_rules! tuple_impls {
    ($($name:ident),+) => {
        impl<$($name: Arg),+> FromArgs for ($($name,)+) {
            fn cconv_types() -> Vec<CconvType> {
                vec![$($name::cconv_type()),+]
            }
            fn from_args(reader: &mut ArgReader<'_>) -> Result<Self> {
                Ok(($($name::read(reader)?,)+))
            }
        }
        impl<$($name: ResultValue),+> IntoResults for ($($name,)+) {
            fn cconv_types() -> Vec<CconvType> {
                vec![$($name::cconv_type()),+]
            }
            #[allow(non_snake_case, reason = "tuple fields named after their type parameters")]
            fn into_results(self, out: &mut Vec<Value>) {
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
            fn into_results(self, out: &mut Vec<Value>) {
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

/// Keeps `PhantomData` imported for downstream generic helpers.
#[doc(hidden)]
pub type Marker<S> = PhantomData<S>;
