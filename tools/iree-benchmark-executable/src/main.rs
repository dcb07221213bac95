//! `iree-benchmark-executable`: the command-line tool; everything is in the library, shared
//! with the `iree_rust.runtime` Python package's console script.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(iree_benchmark_executable::main_with_args(
        std::env::args_os(),
    ))
}
