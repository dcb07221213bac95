//! Upstream IREE's C embedding API (`iree/runtime/api.h` and the parts of
//! `iree/base`, `iree/vm` and `iree/hal` its programs use) with upstream's
//! symbols and layouts, over this project's runtime: built as
//! `libiree_runtime.so` / `libiree_runtime.a`, with headers under
//! `include/`. Programs written against upstream's headers relink
//! unchanged (see `docs/c-api.md` for what is implemented).
//!
//! Every exported function catches unwinding (`boundary`): a panic
//! becomes an INTERNAL status (or a safe return value) instead of crossing
//! into C. Objects handed to C are the runtime's own objects in their
//! `Arc`s (`handles`, [`refs`]); C modules become VM modules through
//! their vtables ([`vm_module`]).

#![allow(
    clippy::missing_safety_doc,
    reason = "every exported function documents its contract under # Safety"
)]

mod abi;
pub mod allocator;
mod boundary;
mod bytecode;
pub mod dynamic;
pub mod exported;
pub mod hal;
pub mod hal_local;
pub mod hal_sync;
mod handles;
pub mod io;
pub mod io_parameters;
mod layout;
pub mod native_module;
pub mod refs;
pub mod runtime;
pub mod status;
pub mod strings;
mod time;
pub mod vm;
pub mod vm_context;
pub mod vm_module;
pub mod vm_stack;
