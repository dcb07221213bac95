//! Test support: the `yieldable_test` native module that upstream's VM test
//! suite (`runtime/src/iree/vm/test/async_ops.vmasm`) imports, with the same
//! exports and semantics as upstream's `vm/testing/yieldable_test_module.h`.
//!
//! - `yield_n(arg: i32, yield_count: i32) -> i32` (cconv `0ii_i`): yields
//!   `yield_count` times, adding one each time, and returns
//!   `arg + yield_count`.
//! - `yield_variadic_sum(args: i32..., yield_count: i32) -> i32` (cconv
//!   `0CiDi_i`): the sum of `args`, then as `yield_n`.
//!
//! Also stand-in modules ([`stand_in_modules`]) that satisfy any module's
//! dependencies and imports with functions returning zeros and nulls, and
//! [`zero_arguments`] for any calling convention: together they let a test
//! or fuzz target run any module's code without the modules it imports.

use std::any::Any;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

use crate::cconv::{Cconv, CconvType};
use crate::instance::Instance;
use crate::module::{CallStatus, ExportInfo, Module, ModuleInstance, ResolvedImport, Stack};
use crate::value::Value;

/// The `yieldable_test` module (see the module documentation).
pub struct YieldableTestModule {
    exports: Vec<ExportInfo>,
}

/// A new `yieldable_test` module, ready to register in a context.
pub fn yieldable_test_module() -> Arc<YieldableTestModule> {
    let export = |name: &str, cconv: &str| ExportInfo {
        name: name.into(),
        cconv: cconv.into(),
        attrs: vec![],
    };
    Arc::new(YieldableTestModule {
        exports: vec![
            export("yield_n", "0ii_i"),
            export("yield_variadic_sum", "0CiDi_i"),
        ],
    })
}

impl Module for YieldableTestModule {
    fn name(&self) -> &str {
        "yieldable_test"
    }
    fn version(&self) -> u32 {
        0
    }
    fn exports(&self) -> &[ExportInfo] {
        &self.exports
    }
    fn instantiate(
        self: Arc<Self>,
        _: &Arc<Instance>,
        _: Vec<Option<ResolvedImport>>,
    ) -> Result<Arc<dyn ModuleInstance>> {
        Ok(Arc::new(YieldableTestInstance { module: self }))
    }
}

struct YieldableTestInstance {
    module: Arc<YieldableTestModule>,
}

/// What a yielded call still has to do.
struct Pending {
    remaining_yields: i32,
    accumulator: i32,
}

fn bad_call(what: &str) -> Status {
    Status::new(
        StatusCode::InvalidArgument,
        format!("yieldable_test: {what}"),
    )
}

fn as_i32(v: &Value) -> Result<i32> {
    match v {
        Value::I32(x) => Ok(*x),
        other => Err(bad_call(&format!("expected i32, have {other:?}"))),
    }
}

impl ModuleInstance for YieldableTestInstance {
    fn module(&self) -> &dyn Module {
        &*self.module
    }

    fn call(
        &self,
        stack: &mut Stack,
        ordinal: u32,
        args: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        let (accumulator, yields) = match (ordinal, &*args) {
            (0, [arg, n]) => (as_i32(arg)?, as_i32(n)?),
            (1, [count, rest @ ..]) => {
                let count = as_i32(count)?;
                let values = usize::try_from(count)
                    .ok()
                    .and_then(|c| rest.get(..c))
                    .ok_or_else(|| bad_call(&format!("bad segment count {count}")))?;
                let [yields] = &rest[values.len()..] else {
                    return Err(bad_call("expected one i32 after the variadic values"));
                };
                let mut sum = 0i32;
                for v in values {
                    sum = sum.wrapping_add(as_i32(v)?);
                }
                (sum, as_i32(yields)?)
            }
            _ => return Err(bad_call(&format!("bad call of export {ordinal}"))),
        };
        step(
            stack,
            Pending {
                remaining_yields: yields,
                accumulator,
            },
            results,
        )
    }

    fn resume(&self, stack: &mut Stack, results: &mut Vec<Value>) -> Result<CallStatus> {
        let pending = stack
            .pop_continuation()
            .and_then(|c: Box<dyn Any + Send>| c.downcast::<Pending>().ok())
            .ok_or_else(|| Status::new(StatusCode::FailedPrecondition, "nothing to resume"))?;
        step(stack, *pending, results)
    }
}

fn step(stack: &mut Stack, mut pending: Pending, results: &mut Vec<Value>) -> Result<CallStatus> {
    if pending.remaining_yields > 0 {
        pending.remaining_yields -= 1;
        pending.accumulator = pending.accumulator.wrapping_add(1);
        stack.push_continuation(Box::new(pending));
        return Ok(CallStatus::Deferred);
    }
    results.push(Value::I32(pending.accumulator));
    Ok(CallStatus::Done)
}

/// A module that provides whatever a module imports from one module name:
/// each export returns zeros and nulls of its result types.
pub struct StandInModule {
    name: String,
    exports: Vec<ExportInfo>,
    results: Vec<Vec<Value>>,
}

/// Stand-ins for every module `module` depends on or imports from (by the
/// name before the first `.` of each import), each exporting the imported
/// functions with the importer's calling conventions, at the highest
/// version. Imports whose calling convention does not parse are left out
/// (linking then fails for a required one, as it would anyway).
pub fn stand_in_modules(module: &dyn Module) -> Vec<Arc<dyn Module>> {
    fn module_named(modules: &mut Vec<StandInModule>, name: &str) -> usize {
        match modules.iter().position(|m| m.name == name) {
            Some(i) => i,
            None => {
                modules.push(StandInModule {
                    name: name.to_string(),
                    exports: Vec::new(),
                    results: Vec::new(),
                });
                modules.len() - 1
            }
        }
    }
    let mut modules: Vec<StandInModule> = Vec::new();
    for dependency in module.dependencies() {
        module_named(&mut modules, &dependency.name);
    }
    for import in module.imports() {
        let Some((name, function)) = import.full_name.split_once('.') else {
            continue;
        };
        let Ok(cconv) = Cconv::parse(&import.cconv) else {
            continue;
        };
        let at = module_named(&mut modules, name);
        let m = &mut modules[at];
        if m.exports.iter().any(|e| e.name == function) {
            continue;
        }
        m.exports.push(ExportInfo {
            name: function.to_string(),
            cconv: import.cconv.clone(),
            attrs: vec![],
        });
        m.results
            .push(cconv.results.iter().map(zero_value).collect());
    }
    modules
        .into_iter()
        .map(|m| Arc::new(m) as Arc<dyn Module>)
        .collect()
}

/// Zero (or null) arguments for a calling convention: one value per
/// argument, variadic lists empty (a zero count).
///
/// Errors: INVALID_ARGUMENT for a malformed calling convention.
pub fn zero_arguments(cconv: &str) -> Result<Vec<Value>> {
    Ok(Cconv::parse(cconv)?.args.iter().map(zero_value).collect())
}

/// Zero of a type; a variadic list's zero count.
fn zero_value(ty: &CconvType) -> Value {
    match ty {
        CconvType::I32 | CconvType::Variadic(_) => Value::I32(0),
        CconvType::I64 => Value::I64(0),
        CconvType::F32 => Value::F32(0.0),
        CconvType::F64 => Value::F64(0.0),
        CconvType::Ref => Value::Ref(None),
    }
}

impl Module for StandInModule {
    fn name(&self) -> &str {
        &self.name
    }
    fn version(&self) -> u32 {
        u32::MAX
    }
    fn exports(&self) -> &[ExportInfo] {
        &self.exports
    }
    fn instantiate(
        self: Arc<Self>,
        _: &Arc<Instance>,
        _: Vec<Option<ResolvedImport>>,
    ) -> Result<Arc<dyn ModuleInstance>> {
        Ok(Arc::new(StandInInstance { module: self }))
    }
}

struct StandInInstance {
    module: Arc<StandInModule>,
}

impl ModuleInstance for StandInInstance {
    fn module(&self) -> &dyn Module {
        &*self.module
    }

    fn call(
        &self,
        _: &mut Stack,
        ordinal: u32,
        _: &mut [Value],
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        let values = self
            .module
            .results
            .get(ordinal as usize)
            .ok_or_else(|| Status::new(StatusCode::NotFound, format!("no export {ordinal}")))?;
        results.extend(values.iter().cloned());
        Ok(CallStatus::Done)
    }

    fn resume(&self, _: &mut Stack, _: &mut Vec<Value>) -> Result<CallStatus> {
        Err(Status::new(
            StatusCode::FailedPrecondition,
            "stand-in calls never yield",
        ))
    }
}
