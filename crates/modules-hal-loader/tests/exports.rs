//! The `hal_loader` module's exports: names, calling conventions and
//! version as upstream's, a real inline dispatch of an embedded ELF kernel
//! over `!vm.buffer` bindings, and bad arguments failing with a status.

use std::sync::Arc;

use iree_base::StatusCode;
use iree_modules_hal::register_types;
use iree_modules_hal_loader::{create_hal_loader_module, EXPORTS, HAL_LOADER_MODULE_VERSION};
use iree_vm::buffer::Buffer as VmBuffer;
use iree_vm::{Context, Function, Instance, Module, Ref, Value};

struct Loader {
    context: Context,
    module: Arc<dyn Module>,
}

impl Loader {
    fn new() -> Loader {
        let instance = Instance::new();
        register_types(&instance).unwrap();
        let module = create_hal_loader_module(iree_hal_local::default_loaders()).unwrap();
        let context = Context::with_modules(instance, vec![module.clone()]).unwrap();
        Loader { context, module }
    }

    fn call(&self, name: &str, args: &[Value]) -> iree_base::Result<Vec<Value>> {
        let ordinal = self.module.lookup_export(name).expect("export exists");
        let function = Function::new(self.context.modules()[0].clone(), ordinal);
        self.context.invoke(&function, args)
    }

    fn code(&self, name: &str, args: &[Value]) -> StatusCode {
        self.call(name, args).expect_err(name).code()
    }
}

fn bytes(data: &[u8]) -> Value {
    Value::from(Ref::new(VmBuffer::from_vec(data.to_vec())))
}

fn null() -> Value {
    Value::Ref(None)
}

#[test]
fn exports_match_upstream() {
    let loader = Loader::new();
    assert_eq!(loader.module.name(), "hal_loader");
    assert_eq!(loader.module.version(), HAL_LOADER_MODULE_VERSION);
    let exports: Vec<(&str, &str)> = loader
        .module
        .exports()
        .iter()
        .map(|e| (e.name.as_str(), e.cconv.as_str()))
        .collect();
    assert_eq!(exports, EXPORTS);
}

#[test]
fn query_support() {
    let loader = Loader::new();
    let supported = |format: &[u8]| match loader.call("executable.query_support", &[bytes(format)])
    {
        Ok(results) => matches!(results[..], [Value::I32(1)]),
        Err(e) => panic!("{e}"),
    };
    assert!(supported(b"vmvx-bytecode-fb"));
    assert!(!supported(b"no-such-format"));
    assert_eq!(
        loader.code("executable.query_support", &[null()]),
        StatusCode::InvalidArgument
    );
}

#[test]
fn bad_arguments_are_errors() {
    let loader = Loader::new();
    let load = |format: &[u8], data: Value, constants: Value| {
        loader.code("executable.load", &[bytes(format), data, constants])
    };
    assert_eq!(
        load(b"no-such-format", bytes(&[0; 16]), null()),
        StatusCode::NotFound
    );
    assert_eq!(
        load(b"vmvx-bytecode-fb", null(), null()),
        StatusCode::InvalidArgument
    );
    assert_ne!(
        load(b"vmvx-bytecode-fb", bytes(&[0; 16]), null()),
        StatusCode::Ok
    );
    assert_eq!(
        load(b"vmvx-bytecode-fb", bytes(&[0; 16]), bytes(&[0; 3])),
        StatusCode::InvalidArgument
    );
    assert_eq!(
        loader.code("executable.lookup.function", &[null(), bytes(b"f")]),
        StatusCode::InvalidArgument
    );
    let dispatch = |executable: Value| {
        loader.code(
            "executable.dispatch",
            &[
                executable,
                0i64.into(),
                1.into(),
                1.into(),
                1.into(),
                0.into(),
                0.into(),
            ],
        )
    };
    assert_eq!(dispatch(null()), StatusCode::InvalidArgument);
    assert_eq!(dispatch(bytes(&[0; 4])), StatusCode::InvalidArgument);
}

/// `simple_mul` (4 x f32, bindings a, b, out) from `iree-hal-local`'s test
/// data, loaded and dispatched inline.
#[cfg(target_arch = "x86_64")]
#[test]
fn embedded_elf_dispatch_over_vm_buffers() {
    let elf = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../hal-local/tests/data/simple_mul_x86.so"
    ))
    .unwrap();
    let loader = Loader::new();
    let executable = loader
        .call(
            "executable.load",
            &[bytes(b"embedded-elf-x86_64"), bytes(&elf), null()],
        )
        .unwrap()
        .remove(0);
    let name = {
        let iree_vm::Value::Ref(r) = &executable else {
            panic!()
        };
        let e = r
            .as_ref()
            .unwrap()
            .downcast::<iree_modules_hal::HalExecutable>()
            .unwrap();
        e.0.export_name(0).unwrap().to_string()
    };
    let function = loader
        .call(
            "executable.lookup.function",
            &[executable.clone(), bytes(name.as_bytes())],
        )
        .unwrap();
    assert!(matches!(function[..], [Value::I64(0)]));
    assert_eq!(
        loader.code(
            "executable.lookup.function",
            &[executable.clone(), bytes(b"nope")]
        ),
        StatusCode::NotFound
    );
    let floats = |v: [f32; 4]| bytes(&v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<_>>());
    let (a, b, out) = (
        floats([1.0, 2.0, 3.0, 4.0]),
        floats([5.0, 6.0, 7.0, 8.0]),
        floats([0.0; 4]),
    );
    // Flattened variadics: count, then the tuples' fields.
    let mut args = vec![
        executable.clone(),
        0i64.into(),
        1.into(),
        1.into(),
        1.into(),
        0.into(),
        3.into(),
    ];
    for buffer in [&a, &b, &out] {
        args.extend([buffer.clone(), 0i64.into(), 16i64.into()]);
    }
    loader.call("executable.dispatch", &args).unwrap();
    let Value::Ref(r) = &out else { panic!() };
    let result = r.as_ref().unwrap().downcast::<VmBuffer>().unwrap().to_vec();
    let result: Vec<f32> = result
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(result, [5.0, 12.0, 21.0, 32.0]);

    // Out of range: function id, a binding range, the binding count.
    let mut bad = args.clone();
    bad[1] = 1i64.into();
    assert_eq!(
        loader.code("executable.dispatch", &bad),
        StatusCode::OutOfRange
    );
    let mut bad = args.clone();
    bad[8] = 8i64.into();
    assert_eq!(
        loader.code("executable.dispatch", &bad),
        StatusCode::OutOfRange
    );
    let mut bad = args[..args.len() - 3].to_vec();
    bad[6] = 2.into();
    assert_eq!(
        loader.code("executable.dispatch", &bad),
        StatusCode::InvalidArgument
    );
}
