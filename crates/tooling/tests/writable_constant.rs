//! A program that writes in place into an imported module constant
//! (`testdata/llvm-cpu/writable_constant.mlir`, where the pinned compiler
//! imports a `util.unfoldable_constant` with write usage and a matmul
//! accumulates into it).
//!
//! Within one context the imported buffer is a global, so a second call
//! accumulates onto the first one's result, as upstream's in-place writes
//! do. Contexts of one loaded module share the constant, as upstream's
//! share their module's memory: a second context continues from the
//! first's writes (upstream's Python, one `VmModule.copy_buffer` module and
//! two `SystemContext`s: [[112 124] [154 170]], [[223 246] [305 336]], then
//! [[334 368] [456 502]]). The import is a copy-on-write window of the
//! module, so the module's own bytes never change: the same file loaded
//! again starts from the constant as compiled.

use std::sync::Arc;

use iree_tooling::run::{
    create_context, load_modules, main_instance, run_function, RunContext, RunOptions,
};
use iree_vm::{Function, Instance};

fn options(device: &str) -> RunOptions {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    RunOptions {
        modules: vec![root
            .join("llvm-cpu/writable_constant.vmfb")
            .into_os_string()],
        function: "mm_into_constant".into(),
        inputs: vec!["2x2xi32=[5 6][7 8]".into(), "2x2xi32=[9 10][11 12]".into()],
        devices: vec![device.into()],
        ..RunOptions::default()
    }
}

fn call(run: &RunContext, options: &RunOptions) -> String {
    let mut out = Vec::new();
    assert_eq!(run_function(run, options, &mut out).unwrap(), 0);
    let text = String::from_utf8(out).unwrap();
    text.lines().last().unwrap().to_string()
}

#[test]
fn writes_into_an_imported_constant_are_shared_by_contexts_and_never_reach_the_module() {
    for device in ["local-sync", "local-task"] {
        let options = options(device);
        let instance = Instance::new();
        iree_modules_hal::register_types(&instance).unwrap();
        let modules = load_modules(&instance, &options).unwrap();
        let context = |modules: Vec<Arc<dyn iree_vm::Module>>| {
            let main = modules.last().cloned().unwrap();
            let ordinal = main.lookup_export("mm_into_constant").unwrap();
            let (context, device) =
                create_context(instance.clone(), modules, &options, None, &[]).unwrap();
            let function = Function::new(main_instance(&context, &main).unwrap(), ordinal);
            RunContext {
                context,
                function,
                device,
            }
        };
        let first = context(modules.clone());
        assert_eq!(
            call(&first, &options),
            "2x2xi32=[112 124][154 170]",
            "{device}"
        );
        assert_eq!(
            call(&first, &options),
            "2x2xi32=[223 246][305 336]",
            "{device}"
        );
        let second = context(modules);
        assert_eq!(
            call(&second, &options),
            "2x2xi32=[334 368][456 502]",
            "{device}"
        );
        let reloaded = context(load_modules(&instance, &options).unwrap());
        assert_eq!(
            call(&reloaded, &options),
            "2x2xi32=[112 124][154 170]",
            "{device}"
        );
    }
}
