//! `iree-benchmark-replay`: the executable. The tool is the library's
//! `main_with_args`, which `iree_rust.runtime`'s console script of the
//! same name runs too.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(iree_benchmark_replay::main_with_args(std::env::args_os()))
}
