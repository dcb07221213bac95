"""iree-rs: IREE's runtime in Rust. `iree_rust.runtime` is the Python API."""
