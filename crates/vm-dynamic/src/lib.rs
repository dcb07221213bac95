//! Dynamic modules: VM modules served by shared libraries through a
//! versioned C ABI ([`abi`]), the host side that loads them
//! ([`load_from_file`], what `iree-run-module --module=lib.so` uses) and the
//! SDK a library author uses ([`export`], [`dynamic_module!`]).
//!
//! A library is written with the ordinary native-module API and exported
//! with one macro:
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::sync::atomic::{AtomicI32, Ordering};
//! use iree_vm::native::NativeModuleBuilder;
//!
//! iree_vm_dynamic::dynamic_module!(|_params: &iree_vm_dynamic::ModuleParams| {
//!     let module = NativeModuleBuilder::<AtomicI32>::new("counter", 0)
//!         .function("add", |sum: &AtomicI32, x: i32| {
//!             Ok(sum.fetch_add(x, Ordering::Relaxed).wrapping_add(x))
//!         })?
//!         .build(|_| Ok(AtomicI32::new(0)));
//!     Ok(module as _)
//! });
//! ```
//!
//! built as a `cdylib`, and loaded with `--module=libcounter.so` ahead of
//! the modules that import it. See `docs/native-modules.md` and
//! `samples/sample-module`.
//!
//! This crate knows nothing of devices: HAL objects cross as opaque host
//! refs, and `iree-modules-hal` offers the host extension that reads and
//! creates buffer views.

pub mod abi;
pub mod boundary;
pub mod export;
pub mod host;

pub use export::{Host, HostRef, HostRefType, ModuleParams, TypedHostRef};
pub use host::{load_from_entry_point, load_from_file, DynamicModule, Extension};

/// True when `path` names a shared library by its extension (`.so`,
/// `.dylib`, `.dll`, `.sos`), which is how upstream's tools tell dynamic
/// modules from bytecode.
pub fn is_dynamic_library_path(path: impl AsRef<std::ffi::OsStr>) -> bool {
    // Extensions are ASCII: other bytes of the name do not matter.
    let path = path.as_ref().to_string_lossy();
    let file = path.rsplit(['/', '\\']).next().unwrap_or(&path);
    matches!(
        file.rsplit_once('.').map(|(_, ext)| ext),
        Some("so" | "dylib" | "dll" | "sos")
    )
}

/// Defines a library's entry points (and the ABI marker symbol) for
/// modules made by factories `Fn(&ModuleParams) -> Result<Arc<dyn Module>>`.
///
/// `dynamic_module!(factory)` exports it under the default name
/// ([`abi::ENTRY_POINT_NAME`], loaded by `--module=lib.so`);
/// `dynamic_module!(name_a = factory_a, name_b = factory_b)` exports several
/// under their own names (`--module=lib.so@name_a`). Use it once per
/// library. Errors and panics of the factory and of every module function
/// reach the host as statuses; nothing unwinds across the ABI.
#[macro_export]
macro_rules! dynamic_module {
    ($($symbol:ident = $factory:expr),+ $(,)?) => {
        /// The dynamic module ABI version this library was built for.
        #[unsafe(no_mangle)]
        #[allow(non_upper_case_globals)]
        pub static iree_rs_vm_dynamic_module_abi: u32 = $crate::abi::ABI_VERSION;

        $(
            /// A dynamic module entry point (`CreateModuleFn` of the dynamic module ABI).
            ///
            /// # Safety
            /// Called by the host as the ABI specifies.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn $symbol(
                max_version: u32,
                host: *const $crate::abi::HostApi,
                param_count: usize,
                params: *const $crate::abi::StringPair,
                out_module: *mut *const $crate::abi::ModuleApi,
                status: *const $crate::abi::StatusSink,
            ) -> u32 {
                // SAFETY: the host calls this entry point as the ABI specifies.
                unsafe {
                    $crate::export::create_module(
                        max_version,
                        host,
                        param_count,
                        params,
                        out_module,
                        status,
                        $factory,
                    )
                }
            }
        )+
    };
    ($factory:expr) => {
        $crate::dynamic_module!(iree_vm_dynamic_module_create = $factory);
    };
}

#[cfg(test)]
mod tests {
    use super::is_dynamic_library_path;

    #[test]
    fn dynamic_library_paths() {
        assert!(is_dynamic_library_path(
            "target/release/libsample_module.so"
        ));
        assert!(is_dynamic_library_path("x.dylib"));
        assert!(is_dynamic_library_path("C:\\x.dll"));
        assert!(!is_dynamic_library_path("m.vmfb"));
        assert!(!is_dynamic_library_path("so"));
        assert!(!is_dynamic_library_path("dir.so/m.vmfb"));
        assert!(!is_dynamic_library_path("-"));
    }
}
