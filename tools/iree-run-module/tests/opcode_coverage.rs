//! Opcode coverage of the test corpus, measured by execution.
//!
//! Runs every `testdata/vm` case in-process with opcode recording enabled,
//! plus our own spec for what upstream's tool cannot run (real yields and
//! variadic calls into a native module: `testdata/vm-async/async.vmfb`
//! against the `yieldable_test` module defined here), checks those results,
//! and requires that every opcode of the ISA executed.

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_tooling::run::{run, RunOptions};
use iree_tooling::testcases::load_suite;
use iree_vm::{
    invoke, CallStatus, Context, ExportInfo, Instance, Module, ModuleInstance, ResolvedImport,
    Stack, Value,
};
use iree_vm_bytecode::{coverage, BytecodeModule};
use libtest_mimic::{Arguments, Failed, Trial};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn options_for(dir: &Path, args: &[String]) -> RunOptions {
    let mut options = RunOptions::default();
    for arg in args {
        if let Some(m) = arg.strip_prefix("--module=") {
            options.modules.push(dir.join(m).into_os_string());
        } else if let Some(f) = arg.strip_prefix("--function=") {
            options.function = f.to_string();
        } else if let Some(i) = arg.strip_prefix("--input=") {
            options.inputs.push(i.into());
        }
    }
    options
}

/// A native test module with yielding and variadic exports:
/// `yield_n(arg, n)` yields `n` times, then returns `arg + n`;
/// `yield_variadic_sum(i32...)` yields once, then returns the sum;
/// `sum(i32...)` returns the sum without yielding.
struct YieldableTest {
    exports: Vec<ExportInfo>,
}

impl YieldableTest {
    fn new() -> Arc<YieldableTest> {
        let export = |name: &str, cconv: &str| ExportInfo {
            name: name.into(),
            cconv: cconv.into(),
            attrs: vec![],
        };
        Arc::new(YieldableTest {
            exports: vec![
                export("sum", "0CiD_i"),
                export("yield_n", "0ii_i"),
                export("yield_variadic_sum", "0CiD_i"),
            ],
        })
    }
}

impl Module for YieldableTest {
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
    module: Arc<YieldableTest>,
}

/// What a yielded call of this module still has to do.
struct Pending {
    remaining_yields: i32,
    result: i32,
}

fn variadic_sum(args: &[Value]) -> Result<i32> {
    let mut total = 0i32;
    for v in args.iter().skip(1) {
        match v {
            Value::I32(x) => total = total.wrapping_add(*x),
            other => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    format!("expected i32, have {other:?}"),
                ))
            }
        }
    }
    Ok(total)
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
        let pending = match (ordinal, &*args) {
            (0, _) => {
                results.push(Value::I32(variadic_sum(args)?));
                return Ok(CallStatus::Done);
            }
            (1, [Value::I32(arg), Value::I32(n)]) => Pending {
                remaining_yields: *n,
                result: arg.wrapping_add(*n),
            },
            (2, _) => Pending {
                remaining_yields: 1,
                result: variadic_sum(args)?,
            },
            _ => {
                return Err(Status::new(
                    StatusCode::InvalidArgument,
                    "bad yieldable_test call",
                ))
            }
        };
        self.step(stack, pending, results)
    }

    fn resume(&self, stack: &mut Stack, results: &mut Vec<Value>) -> Result<CallStatus> {
        let pending = stack
            .pop_continuation()
            .and_then(|c: Box<dyn Any + Send>| c.downcast::<Pending>().ok())
            .ok_or_else(|| Status::new(StatusCode::FailedPrecondition, "nothing to resume"))?;
        self.step(stack, *pending, results)
    }
}

impl YieldableTestInstance {
    fn step(
        &self,
        stack: &mut Stack,
        mut pending: Pending,
        results: &mut Vec<Value>,
    ) -> Result<CallStatus> {
        if pending.remaining_yields > 0 {
            pending.remaining_yields -= 1;
            stack.push_continuation(Box::new(pending));
            return Ok(CallStatus::Deferred);
        }
        results.push(Value::I32(pending.result));
        Ok(CallStatus::Done)
    }
}

/// Runs the async spec; each entry is (function, args, expected i32 result).
fn run_async_spec() -> std::result::Result<(), String> {
    let instance = Instance::new();
    let bytes = std::fs::read(testdata().join("vm-async/async.vmfb")).map_err(|e| e.to_string())?;
    let module = BytecodeModule::from_vec(&instance, bytes).map_err(|e| e.to_string())?;
    let context = Context::with_modules(
        instance,
        [
            YieldableTest::new() as Arc<dyn Module>,
            module as Arc<dyn Module>,
        ],
    )
    .map_err(|e| e.to_string())?;
    let spec: &[(&str, &[i32], i32)] = &[
        ("yield_loop", &[0], 0),
        ("yield_loop", &[5], 5),
        ("call_yield_n", &[10, 0], 10),
        ("call_yield_n", &[10, 3], 13),
        ("variadic_sum", &[1, 2, 3], 6),
        ("variadic_yield_sum", &[40, 2], 42),
        ("call_nested", &[7, 2], 9),
    ];
    for (name, args, expected) in spec {
        let function = context.lookup_function(name).map_err(|e| e.to_string())?;
        let inputs: Vec<Value> = args.iter().map(|&a| Value::I32(a)).collect();
        let results = invoke(&function, &inputs).map_err(|e| format!("{name}{args:?}: {e}"))?;
        match results.as_slice() {
            [Value::I32(got)] if got == expected => {}
            other => {
                return Err(format!(
                    "{name}{args:?}: expected {expected}, got {other:?}"
                ))
            }
        }
    }
    Ok(())
}

fn check() -> std::result::Result<(), Failed> {
    let dir = testdata().join("vm");
    for case in load_suite(&dir).map_err(|e| Failed::from(e.to_string()))? {
        let mut sink = Vec::new();
        // Failures are expected for some cases; only coverage matters here.
        let _ = run(&options_for(&case.dir, &case.args), &mut sink);
    }
    run_async_spec().map_err(|e| Failed::from(format!("async spec: {e}")))?;
    let executed = coverage::executed();
    let all = coverage::all_opcodes();
    let missing: Vec<String> = all
        .iter()
        .filter(|op| !executed.contains(op))
        .map(|op| {
            format!(
                "{}:{:#04x}",
                ["core", "ext_f32", "ext_f64"][(op >> 8) as usize],
                op & 0xFF
            )
        })
        .collect();
    println!(
        "opcode coverage: {}/{} executed",
        all.len() - missing.len(),
        all.len()
    );
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Failed::from(format!(
            "opcodes never executed: {}",
            missing.join(", ")
        )))
    }
}

fn main() {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, vec![Trial::test("every_opcode_executes", check)]).exit();
}
