//! The `hal_inline` module's exports: names, calling conventions and
//! version as upstream's, storage aliasing the buffer's bytes, and bad
//! arguments failing with a status.

use std::sync::Arc;

use iree_base::StatusCode;
use iree_hal::HeapAllocator;
use iree_modules_hal::{register_types, HalBuffer};
use iree_modules_hal_inline::{create_hal_inline_module, EXPORTS, HAL_INLINE_MODULE_VERSION};
use iree_vm::buffer::Buffer as VmBuffer;
use iree_vm::{Context, Function, Instance, Module, Ref, Value};

fn context() -> (Context, Arc<dyn Module>) {
    let instance = Instance::new();
    register_types(&instance).unwrap();
    let module = create_hal_inline_module(HeapAllocator::new(), None).unwrap();
    let context = Context::with_modules(instance, vec![module.clone()]).unwrap();
    (context, module)
}

fn call(name: &str, args: &[Value]) -> iree_base::Result<Vec<Value>> {
    let (context, module) = context();
    let ordinal = module.lookup_export(name).expect("export exists");
    let function = Function::new(context.modules()[0].clone(), ordinal);
    context.invoke(&function, args)
}

fn code(name: &str, args: &[Value]) -> StatusCode {
    call(name, args).expect_err(name).code()
}

fn vm_bytes(bytes: &[u8]) -> Value {
    Value::from(Ref::new(VmBuffer::from_vec(bytes.to_vec())))
}

#[test]
fn exports_match_upstream() {
    let (_, module) = context();
    assert_eq!(module.name(), "hal_inline");
    assert_eq!(module.version(), HAL_INLINE_MODULE_VERSION);
    let exports: Vec<(&str, &str)> = module
        .exports()
        .iter()
        .map(|e| (e.name.as_str(), e.cconv.as_str()))
        .collect();
    assert_eq!(exports, EXPORTS);
    assert_eq!(exports.len(), 15);
}

#[test]
fn storage_aliases_the_buffer() {
    let results = call(
        "buffer.allocate.initialized",
        &[
            64.into(),
            vm_bytes(&[1, 2, 3, 4, 5]),
            1i64.into(),
            3i64.into(),
        ],
    )
    .unwrap();
    let [Value::Ref(buffer), Value::Ref(storage)] = &results[..] else {
        panic!("two refs expected: {results:?}");
    };
    let buffer = buffer.as_ref().unwrap().downcast::<HalBuffer>().unwrap();
    let storage = storage.as_ref().unwrap().downcast::<VmBuffer>().unwrap();
    assert_eq!(buffer.0.byte_length(), 3);
    assert_eq!(storage.to_vec(), [2, 3, 4]);
    storage.write_bytes(1, &[9]).unwrap();
    let mut read = [0u8; 3];
    buffer.0.read(0, &mut read).unwrap();
    assert_eq!(read, [2, 9, 4]);
}

#[test]
fn bad_arguments_are_errors() {
    let null = Value::Ref(None);
    let bytes = vm_bytes(&[0; 8]);
    assert_eq!(
        code("buffer.allocate", &[0.into(), (-1i64).into()]),
        StatusCode::OutOfRange
    );
    assert_eq!(
        code(
            "buffer.allocate.initialized",
            &[0.into(), null.clone(), 0i64.into(), 0i64.into()]
        ),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        code(
            "buffer.allocate.initialized",
            &[0.into(), bytes.clone(), 4i64.into(), 8i64.into()]
        ),
        StatusCode::OutOfRange
    );
    assert_eq!(
        code("buffer.storage", std::slice::from_ref(&null)),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        code("buffer.storage", std::slice::from_ref(&bytes)),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        code("buffer.length", std::slice::from_ref(&bytes)),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        code("buffer.wrap", &[bytes.clone(), 0i64.into(), 8i64.into()]),
        StatusCode::Unimplemented
    );
    assert_eq!(
        code("buffer.wrap", &[null.clone(), 0i64.into(), 8i64.into()]),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        code("buffer_view.rank", std::slice::from_ref(&null)),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        code("device.query.i64", &[null.clone(), bytes.clone()]),
        StatusCode::InvalidArgument
    );
    // A subspan past the end of a real buffer.
    let results = call("buffer.allocate", &[0.into(), 16i64.into()]).unwrap();
    let buffer = results[0].clone();
    assert_eq!(
        code("buffer.subspan", &[buffer, 8i64.into(), 16i64.into()]),
        StatusCode::OutOfRange
    );
}

#[test]
fn unknown_queries_are_not_found_values() {
    let results = call(
        "device.query.i64",
        &[vm_bytes(b"hal.cpu"), vm_bytes(b"no-such-feature")],
    )
    .unwrap();
    assert!(matches!(results[..], [Value::I32(0), Value::I64(0)]));
}
