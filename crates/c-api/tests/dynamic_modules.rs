//! Dynamic module libraries built against upstream's dynamic module ABI
//! (our own `tests/c/dynamic_module.c`) load in every host: a C program
//! through `iree_vm_dynamic_module_load_from_file`, `iree-run-module
//! --module=lib.so`, and a Rust `Session` through `iree_c_api::dynamic`.

mod support;

use std::path::Path;

use iree_runtime::{Instance, Session, Value};
use support::{compile, compile_shared, iree_run_module, run, run_ok, testdata, Linking};

fn user_module() -> String {
    testdata()
        .join("c-api/dynamic_user.vmfb")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn c_host_loads_a_dynamic_module() {
    let library = compile_shared("libdyn_c_host.so", "dynamic_module.c", false);
    let host = compile(
        "dynamic_host",
        &["dynamic_host.c".into()],
        &[],
        Linking::Shared,
    );
    let output = run_ok(&host, &[library.to_str().unwrap(), &user_module()]);
    assert_eq!(output, "add_base(7) = 42\n");
}

#[test]
fn iree_run_module_loads_a_dynamic_module() {
    // Linked against libiree_runtime.so too, as upstream's samples link
    // their runtime: the copy loaded beside the tool stays unused.
    for (name, link) in [("libdyn_tool.so", false), ("libdyn_tool_linked.so", true)] {
        let library = compile_shared(name, "dynamic_module.c", link);
        let flag = format!(
            "--module={}@iree_vm_dynamic_module_create?base=5",
            library.display()
        );
        let user = format!("--module={}", user_module());
        let tool = iree_run_module();
        let output = run_ok(
            tool,
            &[
                "--device=local-sync",
                &flag,
                &user,
                "--function=add_base",
                "--input=37",
            ],
        );
        assert_eq!(output, "EXEC @add_base\nresult[0]: i32=42\n", "{name}");
        let failed = run(
            tool,
            &["--device=local-sync", &flag, &user, "--function=fail"],
        );
        assert_eq!(failed.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8_lossy(&failed.stderr);
        assert!(
            stderr.contains("UNKNOWN; forced failure 5; while invoking native function dyn.fail"),
            "{stderr}"
        );
    }
}

#[test]
fn session_loads_a_dynamic_module() {
    let library = compile_shared("libdyn_session.so", "dynamic_module.c", false);
    let instance = Instance::new();
    let mut session = Session::new(&instance, "local-sync").expect("a local-sync session");
    let module = iree_c_api::dynamic::load(
        instance.vm(),
        &library,
        "",
        &[("base".to_string(), "35".to_string())],
    )
    .expect("loading the dynamic module");
    assert_eq!(module.name(), "dyn");
    session.add_module(module);
    session
        .load_module_file(Path::new(&user_module()))
        .expect("loading dynamic_user.vmfb");
    let results = session
        .call("user.add_base", &[Value::I32(7)])
        .expect("calling add_base");
    assert!(matches!(results[..], [Value::I32(42)]), "{results:?}");
    let error = session.call("user.fail", &[]).expect_err("fail fails");
    assert!(error.to_string().contains("forced failure 35"), "{error}");
}
