//! Runs committed testdata modules through `iree_runtime` alone, on both
//! CPU devices: tensors in and out, scalars, functions by bare and
//! qualified name, the coarse-fences ABI, and errors for bad calls.

use iree_runtime::{Instance, Session, StatusCode, Tensor, Value};

fn testdata(path: &str) -> String {
    format!("{}/../../testdata/{path}", env!("CARGO_MANIFEST_DIR"))
}

const DEVICES: [&str; 2] = ["local-sync", "local-task"];

#[test]
fn tensors_in_and_out_on_both_devices() {
    let instance = Instance::new();
    for device in DEVICES {
        let mut session = Session::new(&instance, device).unwrap();
        session
            .load_module_file(testdata("llvm-cpu/expected_output.vmfb"))
            .unwrap();
        let a = Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let b = Tensor::from_slice(&[4], &[5.0f32, 6.0, 7.0, 8.0]).unwrap();
        for name in ["mul", "module.mul"] {
            let results = session
                .call(name, &[a.clone().into(), b.clone().into()])
                .unwrap();
            let product = Tensor::try_from(results[0].clone()).unwrap();
            assert_eq!(product.shape(), [4]);
            assert_eq!(
                product.to_vec::<f32>().unwrap(),
                [5.0, 12.0, 21.0, 32.0],
                "{device}"
            );
        }
    }
}

#[test]
fn scalars_and_several_results() {
    let instance = Instance::new();
    for device in DEVICES {
        let mut session = Session::new(&instance, device).unwrap();
        session
            .load_module_file(testdata("llvm-cpu/scalars_mixed.vmfb"))
            .unwrap();
        let x = Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap();
        let y = Tensor::from_slice(&[3], &[10i32, 20, 30]).unwrap();
        let results = session
            .call("offset", &[x.into(), Value::from(100i32), y.into()])
            .unwrap();
        let sum = Tensor::try_from(results[0].clone()).unwrap();
        assert_eq!(sum.to_vec::<i32>().unwrap(), [111, 122, 133]);
        assert_eq!(i32::try_from(results[1].clone()).unwrap(), 10000);
    }
}

#[test]
fn coarse_fences_functions_are_called_like_synchronous_ones() {
    let instance = Instance::new();
    for device in DEVICES {
        let mut session = Session::new(&instance, device).unwrap();
        session
            .load_module_file(testdata("llvm-cpu/async_elementwise.vmfb"))
            .unwrap();
        let a = Tensor::from_slice(&[3], &[1i32, -2, 3]).unwrap();
        let results = session.call("two", &[a.into()]).unwrap();
        let doubled = Tensor::try_from(results[0].clone()).unwrap();
        let squared = Tensor::try_from(results[1].clone()).unwrap();
        assert_eq!(doubled.to_vec::<i32>().unwrap(), [2, -4, 6]);
        assert_eq!(squared.to_vec::<i32>().unwrap(), [1, 4, 9]);
    }
}

#[test]
fn bad_calls_are_errors() {
    let instance = Instance::new();
    let mut session = Session::new(&instance, "local-sync").unwrap();
    assert_eq!(
        session.call("mul", &[]).unwrap_err().code(),
        StatusCode::FailedPrecondition,
        "no module loaded"
    );
    session
        .load_module_file(testdata("llvm-cpu/expected_output.vmfb"))
        .unwrap();
    let a = Tensor::from_slice(&[4], &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let ints = Tensor::from_slice(&[4], &[1i32, 2, 3, 4]).unwrap();
    let short = Tensor::from_slice(&[3], &[1.0f32, 2.0, 3.0]).unwrap();
    let missing = session.call("nope", &[]).unwrap_err();
    assert_eq!(missing.code(), StatusCode::NotFound);
    assert!(missing.to_string().contains("nope"), "{missing}");
    assert!(
        session.call("mul", &[a.clone().into()]).is_err(),
        "too few inputs"
    );
    assert!(
        session
            .call("mul", &[a.clone().into(), 1i32.into()])
            .is_err(),
        "scalar for tensor"
    );
    assert!(
        session
            .call("mul", &[a.clone().into(), ints.into()])
            .is_err(),
        "element type"
    );
    assert!(
        session
            .call("mul", &[a.clone().into(), short.into()])
            .is_err(),
        "shape"
    );
    assert!(a.to_vec::<i32>().is_err(), "reading f32 as i32");
    assert!(
        Tensor::from_slice(&[2, 2], &[1.0f32]).is_err(),
        "shape and data disagree"
    );
    assert_eq!(
        Session::new(&instance, "no-such-driver")
            .err()
            .map(|e| e.code()),
        Some(StatusCode::NotFound)
    );
    assert_eq!(
        session
            .load_module_file("/no/such.vmfb")
            .unwrap_err()
            .code(),
        StatusCode::NotFound
    );
    assert!(session.load_module_bytes(vec![1, 2, 3]).is_err());
}

#[test]
fn sessions_are_send() {
    fn assert_send<T: Send>() {}
    assert_send::<Session>();
    assert_send::<Tensor>();
}

#[test]
fn half_precision_and_bool_tensors_round_trip() {
    use iree_runtime::half::{bf16, f16};
    use iree_runtime::ElementType;
    let h = Tensor::from_slice(&[2], &[f16::from_f32(1.5), f16::from_f32(-2.0)]).unwrap();
    assert_eq!(h.element_type(), ElementType::FLOAT_16);
    assert_eq!(h.to_vec::<f16>().unwrap()[1].to_f32(), -2.0);
    let b = Tensor::from_slice(&[1], &[bf16::from_f32(3.0)]).unwrap();
    assert_eq!(b.element_type(), ElementType::BFLOAT_16);
    assert!(b.to_vec::<f16>().is_err());
    let flags = Tensor::from_slice(&[3], &[true, false, true]).unwrap();
    assert_eq!(flags.to_vec::<bool>().unwrap(), [true, false, true]);
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_round_trip() {
    let array = ndarray::ArrayD::from_shape_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let tensor = Tensor::from_array(&array).unwrap();
    assert_eq!(tensor.shape(), [2, 2]);
    assert_eq!(tensor.to_array::<f32>().unwrap(), array);
}

#[test]
fn lists_come_back_as_values() {
    let instance = Instance::new();
    let mut session = Session::new(&instance, "local-sync").unwrap();
    session
        .load_module_file(testdata("vm/list_variant.vmfb"))
        .unwrap();
    let results = session
        .call("nested", &[Value::from(7i32), Value::from(9i64)])
        .unwrap();
    let outer = Vec::<Value>::try_from(results[0].clone()).unwrap();
    assert_eq!(outer.len(), 3);
    let first = Vec::<Value>::try_from(outer[0].clone()).unwrap();
    assert_eq!(i32::try_from(first[0].clone()).unwrap(), 7);
    assert!(Vec::<Value>::try_from(outer[1].clone()).unwrap().is_empty());
    assert_eq!(i64::try_from(outer[2].clone()).unwrap(), 9);
    let mixed = session
        .call(
            "mixed",
            &[Value::from(-5i32), Value::from(1i64), Value::from(16i64)],
        )
        .unwrap();
    let mixed = Vec::<Value>::try_from(mixed[0].clone()).unwrap();
    assert!(
        matches!(mixed[2], Value::Ref(Some(_))),
        "a vm.buffer stays a ref"
    );
    assert!(matches!(mixed[3], Value::Ref(None)));
}

#[test]
fn inline_execution_models() {
    // Modules of the inline models import hal_inline (and hal_loader for
    // inline-dynamic) instead of hal: the session provides them itself.
    let instance = Instance::new();
    for group in ["static_vmvx", "dynamic_llvm_cpu", "dynamic_vmvx"] {
        for device in DEVICES {
            let mut session = Session::new(&instance, device).unwrap();
            session
                .load_module_file(testdata(&format!("inline/{group}.vmfb")))
                .unwrap();
            let a = Tensor::from_slice(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
            let b = Tensor::from_slice(&[3, 2], &[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
            let results = session.call("dyn_matmul", &[a.into(), b.into()]).unwrap();
            let product = Tensor::try_from(results[0].clone()).unwrap();
            assert_eq!(product.shape(), [2, 2], "{group} on {device}");
            assert_eq!(
                product.to_vec::<f32>().unwrap(),
                [4.0, 5.0, 10.0, 11.0],
                "{group} on {device}"
            );
            // A wrong shape is the module's own check failing, as a status.
            let wrong = Tensor::from_slice(&[3], &[1i32, 2, 3]).unwrap();
            let err = session
                .call("add", &[wrong.clone().into(), wrong.into()])
                .unwrap_err();
            assert_eq!(err.code(), StatusCode::InvalidArgument, "{group}: {err}");
        }
    }
}
