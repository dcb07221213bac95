//! Test support: the `yieldable_test` native module that upstream's VM test
//! suite (`runtime/src/iree/vm/test/async_ops.vmasm`) imports, with the same
//! exports and semantics as upstream's `vm/testing/yieldable_test_module.h`.
//!
//! - `yield_n(arg: i32, yield_count: i32) -> i32` (cconv `0ii_i`): yields
//!   `yield_count` times, adding one each time, and returns
//!   `arg + yield_count`.
//! - `yield_variadic_sum(args: i32..., yield_count: i32) -> i32` (cconv
//!   `0CiDi_i`): the sum of `args`, then as `yield_n`.

use std::any::Any;
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};

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
