//! `cargo xtask miri`: the tests of the unsafe code that loads no native
//! code, under Miri, with Stacked Borrows and with Tree Borrows: `iree-vm`
//! (library, `buffer_list`, `external_buffer`), `iree-vm-bytecode`
//! (library, the interpreter, verifier, ref-type, variadic-call and fuzz
//! regression tests) and the HAL's buffer and allocator code (`iree-hal`'s
//! unit tests of buffers, allocators, transfers, fills and copies).
//!
//! Left out, and why: everything that loads or runs native code (the
//! embedded-ELF and system-library loaders of `iree-hal-local`, the GPU
//! drivers, `libloading`): Miri cannot execute foreign code; the tools'
//! tests, which spawn processes; `iree-vm-bytecode`'s `checked_run`, which
//! runs every committed module, `iree-vm-bytecode`'s `format` tests
//! (FlatBuffers built and verified by the thousand) and `iree-hal`'s
//! `transfers` (3 MiB buffers compared byte by byte): hours under Miri,
//! for code the sets above run on small inputs; and the loom models (their
//! own `cargo xtask loom`).
//!
//! The nightly toolchain is pinned by date ([`TOOLCHAIN`]); a `nightly`
//! toolchain of that date is used when the dated name is not installed.

use std::process::Command;

use crate::Result;

/// The pinned nightly (with the `miri` and `rust-src` components).
pub const TOOLCHAIN: &str = "nightly-2026-05-19";

/// One `cargo miri test` invocation: package, target selection, filters.
struct Set {
    name: &'static str,
    args: &'static [&'static str],
}

const SETS: &[Set] = &[
    Set {
        name: "iree-vm",
        args: &[
            "-p",
            "iree-vm",
            "--lib",
            "--test",
            "buffer_list",
            "--test",
            "external_buffer",
        ],
    },
    Set {
        name: "iree-vm-bytecode",
        args: &[
            "-p",
            "iree-vm-bytecode",
            "--lib",
            "--test",
            "interp",
            "--test",
            "verifier",
            "--test",
            "ref_types",
            "--test",
            "variadic_segments",
            "--test",
            "fuzz_regressions",
        ],
    },
    Set {
        name: "iree-hal buffers and allocators",
        args: &[
            "-p",
            "iree-hal",
            "--lib",
            "--",
            "buffer",
            "allocator",
            "transfer",
            "fill",
            "copy",
        ],
    },
];

/// The toolchain to run: [`TOOLCHAIN`], or `nightly` when it is that
/// nightly under its channel name (`$IREE_MIRI_TOOLCHAIN` overrides).
fn toolchain() -> Result<String> {
    if let Ok(t) = std::env::var("IREE_MIRI_TOOLCHAIN") {
        return Ok(t);
    }
    let version = |name: &str| {
        Command::new("rustc")
            .arg(format!("+{name}"))
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    if version(TOOLCHAIN).is_some() {
        return Ok(TOOLCHAIN.to_string());
    }
    let date = TOOLCHAIN.trim_start_matches("nightly-");
    match version("nightly") {
        Some(v) if v.contains(date) => Ok("nightly".to_string()),
        Some(v) => Err(format!(
            "{TOOLCHAIN} is not installed and `nightly` is another one ({}); \
             rustup toolchain install {TOOLCHAIN} --component miri,rust-src",
            v.trim()
        )),
        None => Err(format!(
            "rustup toolchain install {TOOLCHAIN} --component miri,rust-src"
        )),
    }
}

/// The `cargo xtask miri [--tree-borrows | --stacked-borrows]` command (both
/// models by default).
pub fn run(args: &[String]) -> Result<bool> {
    let models: Vec<(&str, &str)> = match args.first().map(String::as_str) {
        None => vec![("Stacked Borrows", ""), ("Tree Borrows", "-Zmiri-tree-borrows")],
        Some("--stacked-borrows") => vec![("Stacked Borrows", "")],
        Some("--tree-borrows") => vec![("Tree Borrows", "-Zmiri-tree-borrows")],
        Some(other) => {
            return Err(format!(
                "unknown option `{other}` (usage: cargo xtask miri [--stacked-borrows | --tree-borrows])"
            ))
        }
    };
    let toolchain = toolchain()?;
    let root = crate::repo_root();
    let mut ok = true;
    for (model, flag) in &models {
        for set in SETS {
            println!("miri ({model}): {}", set.name);
            // Tests read committed files; nothing else needs the host.
            let flags = format!("-Zmiri-disable-isolation {flag}");
            let status = Command::new("cargo")
                .arg(format!("+{toolchain}"))
                .args(["miri", "test"])
                .args(set.args)
                .current_dir(&root)
                .env("MIRIFLAGS", flags.trim())
                .status()
                .map_err(|e| format!("running cargo miri: {e}"))?;
            if !status.success() {
                eprintln!("miri ({model}): {} failed", set.name);
                ok = false;
            }
        }
    }
    Ok(ok)
}
