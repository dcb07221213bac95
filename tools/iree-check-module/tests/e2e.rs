//! End-to-end check suites (added with the suites).

fn main() {}
