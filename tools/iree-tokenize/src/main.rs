//! `iree-tokenize`: the executable. The tool is the library's
//! `main_with_args`.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(iree_tokenize::main_with_args(std::env::args_os()))
}
