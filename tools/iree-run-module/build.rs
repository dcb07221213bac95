//! Exports the C API's symbols (`iree_*`) from the executable, so that
//! dynamic module libraries built against upstream IREE's C API
//! (`--module=lib.so`) resolve their calls to this process's runtime (see
//! `docs/c-api.md`).

fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" || target_os == "android" {
        println!("cargo:rustc-link-arg-bins=-Wl,--export-dynamic-symbol=iree_*");
    }
}
