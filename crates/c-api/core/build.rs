//! Compiles the C half of the variadic entry points (`iree_status_allocate_f`
//! and `iree_status_annotate_f`): stable Rust cannot define C-variadic
//! functions, so `src/varargs.c` formats the message and calls back into
//! Rust, and `src/status.rs` exports the public names as jumps to it.

fn main() {
    println!("cargo:rerun-if-changed=src/varargs.c");
    cc::Build::new()
        .file("src/varargs.c")
        .include("../include")
        .warnings(true)
        .compile("iree_c_api_varargs");
}
