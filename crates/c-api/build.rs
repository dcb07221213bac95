//! The tests load dynamic module libraries into the test process through
//! `iree_c_api::dynamic`: the test executables export the C API symbols
//! (`iree_*`) for those libraries, as the tools do.

fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" || target_os == "android" {
        println!("cargo:rustc-link-arg-tests=-Wl,--export-dynamic-symbol=iree_*");
    }
}
