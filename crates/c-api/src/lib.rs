//! `libiree_runtime.so` / `libiree_runtime.a`: upstream IREE's C embedding
//! API. The implementation is [`iree_c_api`] (package `iree-c-api-core`),
//! an rlib that Rust hosts link too; this crate only gives the shared and
//! static libraries their name. Headers are in `include/`; see
//! `docs/c-api.md`.

pub use iree_c_api::*;
