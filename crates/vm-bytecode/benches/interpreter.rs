//! Interpreter benchmarks over the committed modules in `testdata/bench/`:
//! a tight scalar loop, internal calls, import calls (to bytecode and to a
//! native module) and list element traffic. Each iteration of a benchmark
//! runs one loop of `TRIPS` trips, so times are per `TRIPS` loop bodies.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use iree_vm::native::NativeModuleBuilder;
use iree_vm::{invoke_with_stack, Context, Function, Instance, Module, Stack, Value};
use iree_vm_bytecode::BytecodeModule;

const TRIPS: i32 = 10_000;

fn load(instance: &Arc<Instance>, name: &str) -> Arc<dyn Module> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/bench")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    BytecodeModule::from_vec(instance, bytes).expect("loading benchmark module")
}

fn bench_function(c: &mut Criterion, label: &str, _context: &Context, function: &Function) {
    let mut stack = Stack::new();
    let mut group = c.benchmark_group("interpreter");
    group.throughput(Throughput::Elements(TRIPS as u64));
    group.bench_function(label, |b| {
        b.iter(|| {
            let results = invoke_with_stack(function, &[Value::I32(black_box(TRIPS))], &mut stack)
                .expect("invoke");
            black_box(results);
        })
    });
    group.finish();
}

fn interpreter(c: &mut Criterion) {
    let instance = Instance::new();
    let loops =
        Context::with_modules(instance.clone(), [load(&instance, "loops.vmfb")]).expect("context");
    for name in ["scalar_loop", "call_loop", "list_loop"] {
        let function = loops.lookup_function(name).expect("function");
        bench_function(c, name, &loops, &function);
    }

    let bytecode_import = Context::with_modules(
        instance.clone(),
        [
            load(&instance, "import_callee.vmfb"),
            load(&instance, "import_caller.vmfb"),
        ],
    )
    .expect("context");
    let function = bytecode_import
        .lookup_function("import_loop")
        .expect("function");
    bench_function(
        c,
        "import_loop_bytecode_callee",
        &bytecode_import,
        &function,
    );

    // The same caller, with `callee.step` provided by a native module.
    let native = NativeModuleBuilder::<()>::new("callee", 0)
        .export("step", "0ii_i", |_: &(), (i, acc): (i32, i32)| {
            Ok(acc.wrapping_add(i.wrapping_mul(i)))
        })
        .expect("export")
        .build(|_| Ok(()));
    let native_import = Context::with_modules(
        instance.clone(),
        [
            native as Arc<dyn Module>,
            load(&instance, "import_caller.vmfb"),
        ],
    )
    .expect("context");
    let function = native_import
        .lookup_function("import_loop")
        .expect("function");
    bench_function(c, "import_loop_native_callee", &native_import, &function);
}

criterion_group!(benches, interpreter);
criterion_main!(benches);
