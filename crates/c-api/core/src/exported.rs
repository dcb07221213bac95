//! A table referencing every symbol the C API's headers declare (generated
//! by `build.rs`), so that a program linking this crate and calling
//! [`keep_exported_symbols`] keeps the whole C API in its image.

/// Addresses of exported variables.
#[repr(transparent)]
struct ExportedVariables<const N: usize>([*const u8; N]);

// SAFETY: the addresses are only ever read as addresses.
unsafe impl<const N: usize> Sync for ExportedVariables<N> {}

include!(concat!(env!("OUT_DIR"), "/exported.rs"));

/// Keeps every exported function and variable in the linked image (the
/// linker drops what nothing references). Hosts that load upstream-ABI
/// module libraries call it (through [`crate::dynamic`]) so that the
/// libraries' `iree_*` references resolve to this process's C API.
pub fn keep_exported_symbols() -> usize {
    std::hint::black_box(&EXPORTED_FUNCTIONS).len()
        + std::hint::black_box(&EXPORTED_VARIABLES).0.len()
}
