//! The ABI end to end inside one process: modules exported with
//! `dynamic_module!` and loaded through their entry points.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use iree_base::{Result, Status, StatusCode};
use iree_vm::native::NativeModuleBuilder;
use iree_vm::{
    invoke, Buffer, Context, Function, ImportInfo, Instance, Module, Ref, ResolvedImport, Value,
};
use iree_vm_dynamic::{load_from_entry_point, ModuleParams};

/// The library module's per-context state.
struct Counter {
    sum: AtomicI32,
    twice: Option<ResolvedImport>,
}

fn counter(params: &ModuleParams) -> Result<Arc<dyn Module>> {
    let start: i32 = params.get("start").unwrap_or("0").parse().unwrap_or(0);
    let module = NativeModuleBuilder::<Counter>::new("counter", 3)
        .import(ImportInfo {
            full_name: "math.twice".to_string(),
            cconv: "0i_i".to_string(),
            optional: false,
        })
        .function("add", |state: &Counter, x: i32| {
            Ok(state.sum.fetch_add(x, Ordering::Relaxed).wrapping_add(x))
        })?
        // Calls the host's `math.twice` through the import.
        .function("add_twice", |state: &Counter, x: i32| {
            let twice = state.twice.as_ref().expect("required import");
            let function = Function::new(twice.instance.clone(), twice.export_ordinal);
            match invoke(&function, &[Value::I32(x)])?[..] {
                [Value::I32(y)] => Ok(state.sum.fetch_add(y, Ordering::Relaxed).wrapping_add(y)),
                _ => Err(Status::new(StatusCode::Internal, "bad import result")),
            }
        })?
        .function("echo", |_: &Counter, r: Option<Ref>| Ok(r))?
        .function("scalars", |_: &Counter, (a, b, c): (i64, f32, f64)| {
            Ok((a * 2, b * 2.0, c * 2.0))
        })?
        .function("own_buffer", |_: &Counter, ()| {
            Ok(Ref::new(Buffer::from_vec(vec![1, 2, 3])))
        })?
        .function("boom", |_: &Counter, ()| -> Result<i32> {
            panic!("kaboom")
        })?
        .build(move |instantiation| {
            Ok(Counter {
                sum: AtomicI32::new(start),
                twice: instantiation.imports[0].clone(),
            })
        });
    Ok(module)
}

fn failing(_: &ModuleParams) -> Result<Arc<dyn Module>> {
    Err(Status::new(StatusCode::PermissionDenied, "not today"))
}

fn panicking(_: &ModuleParams) -> Result<Arc<dyn Module>> {
    panic!("factory panicked")
}

iree_vm_dynamic::dynamic_module!(
    test_counter_create = counter,
    test_failing_create = failing,
    test_panicking_create = panicking,
);

/// A host module for the library's import.
fn math() -> Arc<dyn Module> {
    NativeModuleBuilder::<()>::new("math", 0)
        .function("twice", |_: &(), x: i32| Ok(x * 2))
        .unwrap()
        .build(|_| Ok(()))
}

fn load(
    entry: iree_vm_dynamic::abi::CreateModuleFn,
    params: &[(&str, &str)],
) -> Result<Arc<dyn Module>> {
    let params: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    // SAFETY: the entry points are defined above with `dynamic_module!`.
    let module = unsafe { load_from_entry_point(entry, "in-process", &params, Vec::new()) }?;
    Ok(module)
}

fn context(params: &[(&str, &str)]) -> Context {
    let module = load(test_counter_create, params).unwrap();
    assert_eq!(module.name(), "counter");
    assert_eq!(module.version(), 3);
    Context::with_modules(Instance::new(), [math(), module]).unwrap()
}

#[test]
fn state_is_per_context_and_params_arrive() {
    let a = context(&[("start", "10")]);
    let b = context(&[]);
    let add_a = a.lookup_function("counter.add").unwrap();
    let add_b = b.lookup_function("counter.add").unwrap();
    assert_eq!(add_a.cconv().unwrap().to_cconv_string(), "0i_i");
    a.invoke(&add_a, &[Value::I32(1)]).unwrap();
    let out = a.invoke(&add_a, &[Value::I32(2)]).unwrap();
    assert!(matches!(out[..], [Value::I32(13)]), "{out:?}");
    let out = b.invoke(&add_b, &[Value::I32(5)]).unwrap();
    assert!(matches!(out[..], [Value::I32(5)]), "{out:?}");
}

#[test]
fn scalars_and_host_refs_round_trip() {
    let c = context(&[]);
    let scalars = c.lookup_function("counter.scalars").unwrap();
    let out = c
        .invoke(
            &scalars,
            &[Value::I64(-4), Value::F32(1.5), Value::F64(-0.25)],
        )
        .unwrap();
    assert!(
        matches!(out[..], [Value::I64(-8), Value::F32(3.0), Value::F64(-0.5)]),
        "{out:?}"
    );
    let echo = c.lookup_function("counter.echo").unwrap();
    let buffer = Ref::new(Buffer::from_vec(vec![9; 4]));
    let out = c.invoke(&echo, &[Value::from(buffer.clone())]).unwrap();
    match &out[..] {
        [Value::Ref(Some(r))] => assert!(Ref::ptr_eq(r, &buffer)),
        other => panic!("unexpected {other:?}"),
    }
    drop(out);
    let out = c.invoke(&echo, &[Value::NULL]).unwrap();
    assert!(matches!(out[..], [Value::Ref(None)]));
    drop(out);
    // Every handle the library held was released.
    assert_eq!(Ref::strong_count(&buffer), 1);
}

#[test]
fn errors_cross_as_statuses() {
    let c = context(&[]);
    let own = c.lookup_function("counter.own_buffer").unwrap();
    let err = c.invoke(&own, &[]).unwrap_err();
    assert_eq!(err.code(), StatusCode::InvalidArgument);
    assert!(
        err.to_string().contains("made inside a dynamic module"),
        "{err}"
    );
    let boom = c.lookup_function("counter.boom").unwrap();
    let err = c.invoke(&boom, &[]).unwrap_err();
    assert_eq!(err.code(), StatusCode::Internal);
    assert!(err.to_string().contains("kaboom"), "{err}");
    assert!(err.to_string().contains("counter.boom"), "{err}");
    let err = load(test_failing_create, &[]).err().unwrap();
    assert_eq!(err.code(), StatusCode::PermissionDenied);
    assert!(err.to_string().contains("not today"), "{err}");
    let err = load(test_panicking_create, &[]).err().unwrap();
    assert_eq!(err.code(), StatusCode::Internal);
    assert!(err.to_string().contains("factory panicked"), "{err}");
}

#[test]
fn imports_resolve_against_earlier_modules() {
    // The library imports `math.twice`; without `math` registered first the
    // context refuses it.
    let module = load(test_counter_create, &[]).unwrap();
    let err = Context::with_modules(Instance::new(), [module])
        .err()
        .unwrap();
    assert_eq!(err.code(), StatusCode::NotFound);
    assert!(err.to_string().contains("math.twice"), "{err}");
    let c = context(&[]);
    let add_twice = c.lookup_function("counter.add_twice").unwrap();
    let out = c.invoke(&add_twice, &[Value::I32(21)]).unwrap();
    assert!(matches!(out[..], [Value::I32(42)]), "{out:?}");
}
