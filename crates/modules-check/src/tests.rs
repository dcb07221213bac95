use super::*;
use iree_hal::{
    parse_buffer_view_text, Buffer, BufferUsage, EncodingType, MemoryAccess, MemoryType,
};
use iree_vm::{Context, Function, Instance, Value};

fn view(text: &str) -> BufferView {
    let (shape, element_type, bytes) = parse_buffer_view_text(text).unwrap();
    let buffer = Buffer::allocate_host(
        bytes.len() as u64,
        MemoryType::HOST_LOCAL | MemoryType::DEVICE_VISIBLE,
        BufferUsage::DEFAULT | BufferUsage::MAPPING,
        MemoryAccess::ALL,
    )
    .unwrap();
    buffer.write(0, &bytes).unwrap();
    BufferView::new(buffer, shape, element_type, EncodingType::DENSE_ROW_MAJOR).unwrap()
}

fn view_ref(text: &str) -> Value {
    Value::from(Ref::new(HalBufferView(view(text))))
}

/// The first line of an `expect_almost_eq` failure.
fn almost_eq(lhs: &str, rhs: &str, atol: f32, rtol: f32) -> Option<String> {
    expect_almost_eq(&view(lhs), &view(rhs), atol, rtol)
        .unwrap()
        .map(|m| m.lines().next().unwrap().to_string())
}

#[test]
fn almost_eq_messages_match_upstreams() {
    // The expectations of upstream's check/test/failure.mlir.
    let prefix = "check.expect_almost_eq: Expected near equality of these values. ";
    let cases = [
        (
            "5xf32=1 2 3 4 5",
            "5xf32=0.999 2 3 4 5",
            1e-4,
            0.0,
            "Contents does not match to tolerance parameters atol=0.0001, rtol=0. The first failure occurs at index 0 as the lhs value 1 differs from the rhs value 0.999 by -1.000e-03.",
        ),
        (
            "5xf64=1 2 3 4 5",
            "5xf64=0.98 2 3 4 5",
            1e-2,
            0.0,
            "Contents does not match to tolerance parameters atol=0.01, rtol=0. The first failure occurs at index 0 as the lhs value 1 differs from the rhs value 0.98 by -2.000e-02.",
        ),
        (
            "2xf16=0 100",
            "2xf16=0.011 99",
            1e-2,
            1e-2,
            "Contents does not match to tolerance parameters atol=0.01, rtol=0.01. The first failure occurs at index 0 as the lhs value 0 differs from the rhs value 0.0110016 by 1.100e-02.",
        ),
        (
            "2xbf16=0 100",
            "2xbf16=0.009 98",
            1e-2,
            1e-2,
            "Contents does not match to tolerance parameters atol=0.01, rtol=0.01. The first failure occurs at index 1 as the lhs value 100 differs from the rhs value 98 by -2.000e+00.",
        ),
        (
            "2xf8E5M2=0 100",
            "2xf8E5M2=0.25 75",
            0.1,
            0.1,
            "Contents does not match to tolerance parameters atol=0.1, rtol=0.1. The first failure occurs at index 0 as the lhs value 0 differs from the rhs value 0.25 by 2.500e-01.",
        ),
    ];
    for (lhs, rhs, atol, rtol, expected) in cases {
        assert_eq!(
            almost_eq(lhs, rhs, atol, rtol).as_deref(),
            Some(format!("{prefix}{expected}").as_str()),
            "{lhs} vs {rhs}"
        );
    }
    // Upstream's check/test/success.mlir.
    assert_eq!(
        almost_eq("5xf32=1 2 3 4 5", "5xf32=0.999999 2 3 4 5", 1e-4, 0.0),
        None
    );
    assert_eq!(
        almost_eq("2xf16=0 100", "2xf16=0.009 99", 1.5e-2, 1.5e-2),
        None
    );
    assert_eq!(
        almost_eq("2xbf16=0 100", "2xbf16=0.009 99", 1.5e-2, 1.5e-2),
        None
    );
    assert_eq!(
        almost_eq("2xf8E5M2=0 100", "2xf8E5M2=0.2 80", 0.3, 0.3),
        None
    );
    assert_eq!(
        almost_eq("3xf32=NAN INF -INF", "3xf32=NAN INF -INF", 0.0, 0.0),
        None
    );
}

#[test]
fn almost_eq_prints_both_views_and_metadata_mismatches() {
    let message = expect_almost_eq(&view("2xf32=1 2"), &view("3xf32=1 2 3"), 1e-4, 0.0)
        .unwrap()
        .unwrap();
    assert_eq!(
        message,
        "check.expect_almost_eq: Expected near equality of these values. Shapes do not match.\n  lhs:\n    2xf32=1 2\n  rhs:\n    3xf32=1 2 3"
    );
    let message = expect_almost_eq(&view("2xf32=1 2"), &view("2xf64=1 2"), 1e-4, 0.0)
        .unwrap()
        .unwrap();
    assert!(
        message.contains(" Element types do not match.\n"),
        "{message}"
    );
    let error = expect_almost_eq(&view("2xi32=1 2"), &view("2xi32=1 2"), 1e-4, 0.0).unwrap_err();
    assert_eq!(error.code(), StatusCode::InvalidArgument);
    assert!(error.message().contains("unsupported element type i32"));
}

#[test]
fn eq_names_the_first_difference_and_prints_both_views() {
    assert_eq!(
        expect_eq(&view("4xi32=1 2 3 4"), &view("4xi32=1 2 3 4")).unwrap(),
        None
    );
    let message = expect_eq(&view("2x2xi32=[1 2][3 4]"), &view("2x2xi32=[1 2][3 5]"))
        .unwrap()
        .unwrap();
    assert_eq!(
        message,
        "check.expect_eq: Expected equality of these values. Contents does not match. The first difference is at index 3: lhs 4 and rhs 5.\n  lhs:\n    2x2xi32=[1 2][3 4]\n  rhs:\n    2x2xi32=[1 2][3 5]"
    );
    // Floats compare bytewise: -0 is not 0.
    let message = expect_eq(&view("2xf32=0 1"), &view("2xf32=-0 1"))
        .unwrap()
        .unwrap();
    assert!(message.contains("index 0: lhs 0 and rhs -0."), "{message}");
    // Metadata mismatches with equal bytes name only the metadata.
    let message = expect_eq(&view("4xi8=1 2 3 4"), &view("2x2xi8=[1 2][3 4]"))
        .unwrap()
        .unwrap();
    assert!(message
        .starts_with("check.expect_eq: Expected equality of these values. Shapes do not match.\n"));
    let message = expect_eq(&view("2xi32=1 2"), &view("2xui32=1 2"))
        .unwrap()
        .unwrap();
    assert!(
        message.contains("Element types do not match.\n"),
        "{message}"
    );
    let message = expect_eq(&view("2xi8=1 2"), &view("2xi16=1 2"))
        .unwrap()
        .unwrap();
    assert!(
        message.contains("Element types do not match. Contents does not match.\n"),
        "{message}"
    );
}

#[test]
fn eq_elides_large_views_as_iree_run_module_does() {
    let lhs = format!("2000xi8={}", "1 ".repeat(2000));
    let rhs = format!("2000xi8={}2", "1 ".repeat(1999));
    let message = expect_eq(&view(&lhs), &view(&rhs)).unwrap().unwrap();
    assert!(
        message.contains("index 1999: lhs 1 and rhs 2."),
        "{message}"
    );
    assert!(message.contains("1 1...\n  rhs:"), "{message}");
    assert!(message.ends_with("1 1..."), "{message}");
}

#[test]
fn all_true_names_the_first_zero() {
    assert_eq!(expect_all_true(&view("2x2xi32=1")).unwrap(), None);
    assert_eq!(expect_all_true(&view("3xf32=1 NAN -1")).unwrap(), None);
    assert_eq!(expect_all_true(&view("2xi1=01 01")).unwrap(), None);
    let message = expect_all_true(&view("3xi8=1 0 2")).unwrap().unwrap();
    assert_eq!(
        message,
        "check.expect_all_true: Expected all elements to be nonzero. The first zero is at index 1.\n  operand:\n    3xi8=1 0 2"
    );
    let message = expect_all_true(&view("2xf64=1 -0")).unwrap().unwrap();
    assert!(message.contains("index 1."), "{message}");
    let error = expect_all_true(&view("2xi4=11")).unwrap_err();
    assert!(error.message().contains("unsupported element type i4"));
}

/// Calls export `name` of a fresh `check` module with `args`.
fn call(name: &str, args: &[Value]) -> (Result<Vec<Value>>, Vec<String>) {
    let failures = Failures::new();
    let module = create_check_module(failures.clone()).unwrap();
    let context = Context::with_modules(Instance::new(), vec![module]).unwrap();
    let instance = context.modules()[0].clone();
    let ordinal = instance.module().lookup_export(name).unwrap();
    let result = context.invoke(&Function::new(instance, ordinal), args);
    (result, failures.take())
}

#[test]
fn exports_have_the_compilers_signatures() {
    let module = create_check_module(Failures::new()).unwrap();
    let exports: Vec<(&str, &str)> = module
        .exports()
        .iter()
        .map(|e| (e.name.as_str(), e.cconv.as_str()))
        .collect();
    assert_eq!(exports, EXPORTS);
    assert_eq!(module.name(), "check");
    assert_eq!(module.version(), CHECK_MODULE_VERSION);
}

#[test]
fn failures_are_recorded_and_the_call_succeeds() {
    let (result, failures) = call("expect_true", &[Value::I32(0)]);
    assert!(result.is_ok());
    assert_eq!(failures, ["check.expect_true: Expected 0 to be nonzero."]);
    let (result, failures) = call("expect_true", &[Value::I32(-3)]);
    assert!(result.is_ok() && failures.is_empty());
    let (_, failures) = call("expect_false", &[Value::I32(7)]);
    assert_eq!(failures, ["check.expect_false: Expected 7 to be zero."]);
    let (result, failures) = call(
        "expect_almost_eq",
        &[
            Value::Ref(None),
            view_ref("2xf32=1 2"),
            view_ref("2xf32=1 2.00001"),
            Value::F32(1e-4),
            Value::F32(0.0),
        ],
    );
    assert!(result.is_ok() && failures.is_empty());
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let buffer = Value::from(Ref::new(iree_vm::Buffer::from_vec(vec![1, 2, 3, 4])));
    let (result, failures) = call(
        "expect_eq",
        &[Value::Ref(None), buffer.clone(), view_ref("1xi32=1")],
    );
    let error = result.unwrap_err();
    assert_eq!(error.code(), StatusCode::InvalidArgument);
    assert!(
        error
            .to_string()
            .contains("lhs: expected a hal.buffer_view but have a vm.buffer"),
        "{error}"
    );
    assert!(failures.is_empty());
    let (result, _) = call("expect_all_true", &[Value::Ref(None), Value::Ref(None)]);
    assert!(result
        .unwrap_err()
        .to_string()
        .contains("operand: a non-null hal.buffer_view is required"));
    let (result, _) = call(
        "expect_eq",
        &[buffer, view_ref("1xi32=1"), view_ref("1xi32=1")],
    );
    assert!(result
        .unwrap_err()
        .to_string()
        .contains("device: expected a hal.device but have a vm.buffer"));
    let (result, _) = call("expect_true", &[Value::I64(1)]);
    assert_eq!(result.unwrap_err().code(), StatusCode::InvalidArgument);
}
