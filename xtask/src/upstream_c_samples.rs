//! `cargo xtask upstream-c-samples --iree-src DIR`: upstream's C and C++
//! sample programs (from the user's iree-org/iree checkout) built with `cc`
//! and `c++` against this project's C API headers (`crates/c-api/include`,
//! ahead of DIR/runtime/src, which then only supplies upstream's
//! header-only C++ wrappers such as `iree/vm/native_module_cc.h`), linked
//! against `libiree_runtime`, and run on modules compiled with the pinned
//! compiler. Each program's output is checked against what it documents
//! (the CHECK lines of its test `.mlir`, or the output its README names).
//!
//! Upstream's runtime library is never built: only its sample sources are
//! compiled, into `target/upstream-c-samples/`. Every object's undefined
//! `iree_*` symbols (`nm -u`) must be exported by `libiree_runtime.so`.
//! Prints each sample and `N passed, N failed`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::venv::{self, Venv};
use crate::{repo_root, Result};

const USAGE: &str = "usage: cargo xtask upstream-c-samples --iree-src DIR [--release] [-v]";

/// Options of the command.
struct Options {
    iree_src: PathBuf,
    release: bool,
    verbose: bool,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut iree_src = None;
    let (mut release, mut verbose) = (false, false);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--iree-src" => iree_src = it.next().map(PathBuf::from),
            s if s.starts_with("--iree-src=") => iree_src = Some(PathBuf::from(&s[11..])),
            "--release" => release = true,
            "-v" | "--verbose" => verbose = true,
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    let iree_src = iree_src.ok_or_else(|| format!("--iree-src is required\n{USAGE}"))?;
    if !iree_src.join("runtime/src/iree/runtime/demo").is_dir()
        || !iree_src.join("samples").is_dir()
    {
        return Err(format!(
            "{} has no runtime/src/iree/runtime/demo or samples/: point --iree-src at an iree-org/iree checkout",
            iree_src.display()
        ));
    }
    Ok(Options {
        iree_src: std::fs::canonicalize(&iree_src)
            .map_err(|e| format!("{}: {e}", iree_src.display()))?,
        release,
        verbose,
    })
}

/// Where things are for one run.
struct Env {
    src: PathBuf,
    include: PathBuf,
    lib_dir: PathBuf,
    tool_dir: PathBuf,
    work: PathBuf,
    venv: Venv,
    exported: BTreeSet<String>,
    verbose: bool,
}

/// Runs a command, returning its output (an error only when it cannot start).
fn output(command: &mut Command) -> Result<Output> {
    command
        .output()
        .map_err(|e| format!("running {:?}: {e}", command.get_program()))
}

/// Runs a command that must succeed; its stderr is the error otherwise.
fn checked(command: &mut Command, what: &str) -> Result<Output> {
    let out = output(command)?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

impl Env {
    fn upstream(&self, path: &str) -> PathBuf {
        self.src.join(path)
    }

    /// Compiles `mlir` with the pinned compiler and `flags` into `name`.
    fn compile_mlir(&self, mlir: &Path, flags: &[&str], name: &str) -> Result<PathBuf> {
        let out = self.work.join(name);
        checked(
            Command::new(self.venv.iree_compile())
                .args(flags)
                .arg(mlir)
                .arg("-o")
                .arg(&out),
            &format!("iree-compile {}", mlir.display()),
        )?;
        Ok(out)
    }

    /// Compiles one source to an object (C or C++ by its extension).
    fn object(&self, source: &Path, flags: &[&str], extra_includes: &[PathBuf]) -> Result<PathBuf> {
        let is_cxx = source.extension().is_some_and(|e| e == "cc" || e == "cpp");
        let stem = source
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("object");
        let parent = source
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|p| p.to_str())
            .unwrap_or("");
        let out = self.work.join(format!("{parent}_{stem}.o"));
        let mut command = Command::new(if is_cxx { "c++" } else { "cc" });
        command.args(if is_cxx {
            ["-std=c++17", "-fPIC"]
        } else {
            ["-std=gnu11", "-fPIC"]
        });
        command.arg("-c").arg("-I").arg(&self.include);
        for include in extra_includes {
            command.arg("-I").arg(include);
        }
        command
            .arg("-I")
            .arg(self.src.join("runtime/src"))
            .args(flags)
            .arg(source)
            .arg("-o")
            .arg(&out);
        checked(&mut command, &format!("compiling {}", source.display()))?;
        Ok(out)
    }

    /// The `iree_*` symbols `objects` need (`nm -u`) that neither they nor
    /// the library define.
    fn missing_symbols(&self, objects: &[PathBuf]) -> Result<Vec<String>> {
        let mut defined = BTreeSet::new();
        for object in objects {
            let out = checked(Command::new("nm").arg("--defined-only").arg(object), "nm")?;
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if let Some(name) = line.split_whitespace().last() {
                    defined.insert(name.to_string());
                }
            }
        }
        let mut missing = BTreeSet::new();
        for object in objects {
            let out = checked(Command::new("nm").arg("-u").arg(object), "nm -u")?;
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if let Some(name) = line.split_whitespace().last() {
                    if name.starts_with("iree_")
                        && !self.exported.contains(name)
                        && !defined.contains(name)
                    {
                        missing.insert(name.to_string());
                    }
                }
            }
        }
        Ok(missing.into_iter().collect())
    }

    /// Links `objects` into an executable or (`shared`) a library, against
    /// `libiree_runtime.so`.
    fn link(&self, objects: &[PathBuf], name: &str, shared: bool) -> Result<PathBuf> {
        let missing = self.missing_symbols(objects)?;
        if !missing.is_empty() {
            return Err(format!(
                "symbols the program needs but the library lacks: {missing:?}"
            ));
        }
        let out = self.work.join(name);
        let mut command = Command::new("c++");
        if shared {
            command.arg("-shared");
        }
        command
            .args(objects)
            .arg("-L")
            .arg(&self.lib_dir)
            .arg("-liree_runtime")
            .arg(format!("-Wl,-rpath,{}", self.lib_dir.display()))
            .arg("-o")
            .arg(&out);
        checked(&mut command, &format!("linking {name}"))?;
        Ok(out)
    }

    /// Runs `program` with `args` (in the work directory).
    fn run(&self, program: &Path, args: &[&str]) -> Result<Output> {
        let out = output(Command::new(program).args(args).current_dir(&self.work))?;
        if self.verbose {
            println!(
                "  $ {} {}\n{}{}",
                program.display(),
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(out)
    }

    /// Embeds `file` as upstream's `iree_c_embed_data` rule does, with the
    /// venv's `iree-c-embed-data`; returns the generated `.c` file, whose
    /// header is `<header_path>` under the work directory's `gen/`.
    fn embed(&self, file: &Path, identifier: &str, header_path: &str) -> Result<PathBuf> {
        let header = self.work.join("gen").join(header_path);
        std::fs::create_dir_all(header.parent().expect("a header directory"))
            .map_err(|e| format!("creating {}: {e}", header.display()))?;
        let implementation = self.work.join(format!("{identifier}.c"));
        checked(
            Command::new(self.venv.runtime_libs.join("iree-c-embed-data"))
                .arg(format!("--output_header={}", header.display()))
                .arg(format!("--output_impl={}", implementation.display()))
                .arg(format!("--identifier={identifier}"))
                .arg("--flatten")
                .arg(file),
            "iree-c-embed-data",
        )?;
        Ok(implementation)
    }
}

/// The lines of `path` that are `// <prefix>...: pattern` directives.
fn check_lines(path: &Path, prefix: &str) -> Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut checks = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("//") else {
            continue;
        };
        let rest = rest.trim_start();
        for kind in ["-LABEL", "-NEXT", ""] {
            let directive = format!("{prefix}{kind}:");
            if let Some(pattern) = rest.strip_prefix(&directive) {
                checks.push((kind.to_string(), pattern.trim().to_string()));
                break;
            }
        }
    }
    if checks.is_empty() {
        return Err(format!("{} has no {prefix} lines", path.display()));
    }
    Ok(checks)
}

/// Whether `line` contains `pattern`, where `{{a|b}}` matches any of its
/// alternatives (the only regular expressions upstream's sample checks use).
fn line_matches(line: &str, pattern: &str) -> bool {
    match pattern.find("{{") {
        None => line.contains(pattern),
        Some(open) => {
            let Some(close) = pattern[open..].find("}}").map(|c| open + c) else {
                return line.contains(pattern);
            };
            let (before, alternatives, after) = (
                &pattern[..open],
                &pattern[open + 2..close],
                &pattern[close + 2..],
            );
            alternatives
                .split('|')
                .any(|alt| line_matches(line, &format!("{before}{alt}{after}")))
        }
    }
}

/// FileCheck's CHECK / CHECK-NEXT / CHECK-LABEL over `output`.
fn file_check(output: &str, checks: &[(String, String)]) -> Result<()> {
    let lines: Vec<&str> = output.lines().collect();
    let mut next = 0usize;
    for (kind, pattern) in checks {
        let found = if kind == "-NEXT" {
            (next < lines.len() && line_matches(lines[next], pattern)).then_some(next)
        } else {
            (next..lines.len()).find(|&i| line_matches(lines[i], pattern))
        };
        match found {
            Some(i) => next = i + 1,
            None => {
                return Err(format!(
                    "CHECK{kind}: `{pattern}` not found after line {next} of the output:\n{output}"
                ))
            }
        }
    }
    Ok(())
}

/// Succeeds when `out` exited 0 and its stdout passes `checks`.
fn expect_checks(out: &Output, checks: &[(String, String)]) -> Result<()> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "exited with {}\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    file_check(&stdout, checks)
}

/// What upstream's runtime demos print last.
const DEMO_RESULT: &str = "4xf32=10 110 1200 13000";

fn expect_demo(out: &Output) -> Result<()> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && stdout.trim_end().ends_with(DEMO_RESULT) {
        Ok(())
    } else {
        Err(format!(
            "exited with {} and printed\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The VMVX flags of the demos' module (upstream's CMake rule).
const VMVX: [&str; 2] = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=vmvx",
];

/// The llvm-cpu flags of the samples, for any CPU of the architecture.
const LLVM_CPU: [&str; 3] = [
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=generic",
];

fn hello_world(env: &Env, variant: &str) -> Result<()> {
    let demo = env.upstream("runtime/src/iree/runtime/demo");
    let module = env.compile_mlir(&demo.join("simple_mul.mlir"), &VMVX, "simple_mul.vmfb")?;
    let gen = env.work.join("gen");
    match variant {
        "file" => {
            let object = env.object(
                &demo.join("hello_world_explained.c"),
                &["-DIREE_RUNTIME_DEMO_LOAD_FILE_FROM_COMMAND_LINE_ARG"],
                &[],
            )?;
            let exe = env.link(&[object], "hello_world_file", false)?;
            expect_demo(&env.run(&exe, &[module.to_str().unwrap_or_default()])?)
        }
        _ => {
            let data = env.embed(
                &module,
                "iree_runtime_demo_simple_mul_module",
                "iree/runtime/demo/simple_mul_module_c.h",
            )?;
            let (source, flags): (&str, &[&str]) = if variant == "terse" {
                ("hello_world_terse.c", &[])
            } else {
                (
                    "hello_world_explained.c",
                    &["-DIREE_RUNTIME_DEMO_LOAD_FILE_FROM_EMBEDDED_DATA"],
                )
            };
            let main = env.object(&demo.join(source), flags, std::slice::from_ref(&gen))?;
            let data = env.object(&data, &[], &[])?;
            let exe = env.link(&[main, data], &format!("hello_world_{variant}"), false)?;
            expect_demo(&env.run(&exe, &[])?)
        }
    }
}

/// `samples/custom_module/{basic,sync,async}`: `main.c` and `module.cc`,
/// run as their lit tests run them (`<program> module.vmfb example.main`).
fn custom_module(env: &Env, name: &str, compile_flags: &[&str]) -> Result<()> {
    let dir = env.upstream(&format!("samples/custom_module/{name}"));
    let example = dir.join("test/example.mlir");
    let module = env.compile_mlir(&example, compile_flags, &format!("custom_{name}.vmfb"))?;
    let objects = vec![
        env.object(&dir.join("main.c"), &[], std::slice::from_ref(&dir))?,
        env.object(&dir.join("module.cc"), &[], std::slice::from_ref(&dir))?,
    ];
    let exe = env.link(&objects, &format!("custom-module-{name}-run"), false)?;
    let out = env.run(&exe, &[module.to_str().unwrap_or_default(), "example.main"])?;
    expect_checks(&out, &check_lines(&example, "CHECK")?)
}

/// The host of `samples/custom_module/static`, which upstream links into its
/// tools: creates the sample module through its two entry points and runs
/// `--function` as `iree-run-module` does (`EXEC @name`).
const STATIC_HOST: &str = r#"// Generated by cargo xtask upstream-c-samples (iree-rs).
#include <stdio.h>
#include "iree/runtime/api.h"
extern iree_status_t register_sample_module_types(iree_vm_instance_t*);
extern iree_status_t create_sample_module(iree_vm_instance_t*, iree_allocator_t,
                                          iree_vm_module_t**);
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  iree_runtime_instance_options_t options;
  iree_runtime_instance_options_initialize(&options);
  iree_runtime_instance_options_use_all_available_drivers(&options);
  iree_runtime_instance_t* instance = NULL;
  IREE_CHECK_OK(iree_runtime_instance_create(&options, iree_allocator_system(),
                                             &instance));
  iree_vm_instance_t* vm = iree_runtime_instance_vm_instance(instance);
  IREE_CHECK_OK(register_sample_module_types(vm));
  iree_hal_device_t* device = NULL;
  IREE_CHECK_OK(iree_runtime_instance_try_create_default_device(
      instance, iree_make_cstring_view("local-sync"), &device));
  iree_runtime_session_options_t session_options;
  iree_runtime_session_options_initialize(&session_options);
  iree_runtime_session_t* session = NULL;
  IREE_CHECK_OK(iree_runtime_session_create_with_device(
      instance, &session_options, device, iree_allocator_system(), &session));
  iree_vm_module_t* module = NULL;
  IREE_CHECK_OK(create_sample_module(vm, iree_allocator_system(), &module));
  IREE_CHECK_OK(iree_runtime_session_append_module(session, module));
  iree_vm_module_release(module);
  IREE_CHECK_OK(
      iree_runtime_session_append_bytecode_module_from_file(session, argv[1]));
  char name[256];
  snprintf(name, sizeof(name), "example.%s", argv[2]);
  fprintf(stdout, "EXEC @%s\n", argv[2]);
  fflush(stdout);
  iree_status_t status = iree_runtime_session_call_by_name(
      session, iree_make_cstring_view(name), NULL, NULL);
  iree_runtime_session_release(session);
  iree_hal_device_release(device);
  iree_runtime_instance_release(instance);
  if (!iree_status_is_ok(status)) {
    iree_status_fprint(stderr, status);
    iree_status_ignore(status);
    return 1;
  }
  return 0;
}
"#;

fn custom_module_static(env: &Env) -> Result<()> {
    let dir = env.upstream("samples/custom_module/static");
    let example = dir.join("test/example.mlir");
    let module = env.compile_mlir(&example, &VMVX, "custom_static.vmfb")?;
    let host = env.work.join("static_host.c");
    std::fs::write(&host, STATIC_HOST).map_err(|e| format!("writing {}: {e}", host.display()))?;
    let objects = vec![
        env.object(&host, &[], &[])?,
        env.object(&dir.join("module.cc"), &[], &[])?,
    ];
    let exe = env.link(&objects, "custom-module-static-run", false)?;
    let out = env.run(&exe, &[module.to_str().unwrap_or_default(), "main"])?;
    expect_checks(&out, &check_lines(&example, "CHECK")?)
}

/// `samples/custom_module/dynamic`: the module library built against this
/// project's library, loaded by our `iree-run-module` as its lit test loads
/// it (`--module=module.so@create_custom_module`).
fn custom_module_dynamic(env: &Env) -> Result<()> {
    let dir = env.upstream("samples/custom_module/dynamic");
    let example = dir.join("test/example.mlir");
    let module = env.compile_mlir(&example, &VMVX, "custom_dynamic.vmfb")?;
    let object = env.object(&dir.join("module.cc"), &[], &[])?;
    let library = env.link(&[object], "module.so", true)?;
    let tool = env.tool_dir.join("iree-run-module");
    let library_flag = format!("--module={}@create_custom_module", library.display());
    let module_flag = format!("--module={}", module.display());
    let args = ["--device=local-sync", &library_flag, &module_flag];
    let out = env.run(&tool, &[&args[..], &["--function=main"]].concat())?;
    expect_checks(&out, &check_lines(&example, "CHECK")?)?;
    // `--function=error` fails with exit 1, its status on stderr.
    let out = env.run(&tool, &[&args[..], &["--function=error"]].concat())?;
    if out.status.code() != Some(1) {
        return Err(format!("--function=error exited with {}", out.status));
    }
    let combined = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    file_check(&combined, &check_lines(&example, "CERROR")?)
}

/// `samples/simple_embedding` with the synchronous device and a VMVX or
/// embedded-ELF module; prints `simple_embedding done`.
fn simple_embedding(env: &Env, variant: &str) -> Result<()> {
    let dir = env.upstream("samples/simple_embedding");
    let mlir = dir.join("simple_embedding_test.mlir");
    let (device_source, module_flags, identifier, header): (&str, Vec<&str>, &str, &str) =
        match variant {
            "vmvx_sync" => (
                "device_vmvx_sync.c",
                VMVX.to_vec(),
                "iree_samples_simple_embedding_test_module_vmvx",
                "samples/simple_embedding/simple_embedding_test_bytecode_module_vmvx_c.h",
            ),
            _ => (
                "device_embedded_sync.c",
                vec![
                    "--iree-hal-target-device=local",
                    "--iree-hal-local-target-device-backends=llvm-cpu",
                    "--iree-llvmcpu-target-triple=x86_64-pc-linux-elf",
                    "--iree-llvmcpu-target-cpu=generic",
                    "--iree-llvmcpu-debug-symbols=false",
                    "--iree-vm-bytecode-module-strip-source-map=true",
                    "--iree-vm-emit-polyglot-zip=false",
                ],
                "iree_samples_simple_embedding_test_module_cpu_x86_64",
                "samples/simple_embedding/simple_embedding_test_bytecode_module_cpu_x86_64_c.h",
            ),
        };
    let module = env.compile_mlir(
        &mlir,
        &module_flags,
        &format!("simple_embedding_{variant}.vmfb"),
    )?;
    let data = env.embed(&module, identifier, header)?;
    let gen = env.work.join("gen");
    let objects = vec![
        env.object(&dir.join("simple_embedding.c"), &[], &[])?,
        env.object(&dir.join(device_source), &[], std::slice::from_ref(&gen))?,
        env.object(&data, &[], &[])?,
    ];
    let exe = env.link(&objects, &format!("simple_embedding_{variant}"), false)?;
    let out = env.run(&exe, &[])?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && stdout.contains("simple_embedding done") {
        Ok(())
    } else {
        Err(format!(
            "exited with {}\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `samples/static_library`: kernels compiled into the program
/// (`--iree-llvmcpu-link-static`) and registered through their library
/// query function; prints what its test expects.
fn static_library(env: &Env) -> Result<()> {
    let dir = env.upstream("samples/static_library");
    let object = env.work.join("simple_mul.o");
    let module = env.compile_mlir(
        &dir.join("simple_mul.mlir"),
        &[
            "--iree-hal-target-device=local",
            "--iree-hal-local-target-device-backends=llvm-cpu",
            "--iree-llvmcpu-target-cpu=generic",
            "--iree-llvmcpu-link-embedded=false",
            "--iree-llvmcpu-link-static",
            &format!(
                "--iree-llvmcpu-static-library-output-path={}",
                object.display()
            ),
            "--iree-vm-target-index-bits=32",
        ],
        "static_library_simple_mul.vmfb",
    )?;
    let data = env.embed(
        &module,
        "iree_samples_static_library_simple_mul",
        "samples/static_library/simple_mul_c.h",
    )?;
    let gen = env.work.join("gen");
    let objects = vec![
        env.object(
            &dir.join("static_library_demo.c"),
            &[],
            std::slice::from_ref(&gen),
        )?,
        env.object(
            &dir.join("create_bytecode_module.c"),
            &[],
            std::slice::from_ref(&gen),
        )?,
        env.object(&data, &[], &[])?,
        object,
    ];
    let exe = env.link(&objects, "static_library_demo", false)?;
    let out = env.run(&exe, &[])?;
    expect_checks(
        &out,
        &check_lines(&dir.join("static_library_demo_test.txt"), "CHECK")?,
    )
}

/// Builds the library and `iree-run-module`, then runs every sample.
pub fn run(args: &[String]) -> Result<bool> {
    let options = parse(args)?;
    let root = repo_root();
    let venv = venv::ensure(&root)?;
    let profile = if options.release { "release" } else { "dev" };
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .args([
            "build",
            "-p",
            "iree-c-api",
            "-p",
            "iree-run-module",
            "--profile",
            profile,
        ])
        .status()
        .map_err(|e| format!("running cargo: {e}"))?;
    if !status.success() {
        return Err("cargo build -p iree-c-api -p iree-run-module failed".into());
    }
    let lib_dir = root
        .join("target")
        .join(if options.release { "release" } else { "debug" });
    let work = root.join("target").join("upstream-c-samples");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("creating {}: {e}", work.display()))?;
    let so = lib_dir.join("libiree_runtime.so");
    let nm = checked(
        Command::new("nm").args(["-D", "--defined-only"]).arg(&so),
        "nm -D",
    )?;
    let exported = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    let env = Env {
        src: options.iree_src,
        include: root.join("crates/c-api/include"),
        tool_dir: lib_dir.clone(),
        lib_dir,
        work,
        venv,
        exported,
        verbose: options.verbose,
    };
    let async_flags: Vec<&str> = ["--iree-execution-model=async-external"]
        .into_iter()
        .chain(LLVM_CPU)
        .collect();
    type Sample<'a> = (&'a str, Box<dyn Fn(&Env) -> Result<()> + 'a>);
    let samples: Vec<Sample> = vec![
        (
            "runtime/demo hello_world_explained (file)",
            Box::new(|e: &Env| hello_world(e, "file")),
        ),
        (
            "runtime/demo hello_world_explained (embedded)",
            Box::new(|e: &Env| hello_world(e, "embedded")),
        ),
        (
            "runtime/demo hello_world_terse",
            Box::new(|e: &Env| hello_world(e, "terse")),
        ),
        (
            "custom_module/basic",
            Box::new(|e: &Env| custom_module(e, "basic", &["--iree-execution-model=host-only"])),
        ),
        (
            "custom_module/sync",
            Box::new(|e: &Env| custom_module(e, "sync", &LLVM_CPU)),
        ),
        (
            "custom_module/async",
            Box::new(move |e: &Env| custom_module(e, "async", &async_flags)),
        ),
        ("custom_module/static", Box::new(custom_module_static)),
        ("custom_module/dynamic", Box::new(custom_module_dynamic)),
        (
            "simple_embedding (vmvx, local-sync)",
            Box::new(|e: &Env| simple_embedding(e, "vmvx_sync")),
        ),
        (
            "simple_embedding (embedded ELF, local-sync)",
            Box::new(|e: &Env| simple_embedding(e, "embedded_sync")),
        ),
        ("static_library", Box::new(static_library)),
    ];
    let (mut passed, mut failed) = (0, 0);
    for (name, sample) in &samples {
        match sample(&env) {
            Ok(()) => {
                passed += 1;
                println!("PASS {name}");
            }
            Err(error) => {
                failed += 1;
                println!("FAIL {name}\n  {}", error.replace('\n', "\n  "));
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_follow_filecheck() {
        let checks = vec![
            ("-LABEL".to_string(), "BEGIN".to_string()),
            ("-NEXT".to_string(), "PRINT {{debug|optimized}}".to_string()),
            (String::new(), "END".to_string()),
        ];
        assert!(file_check("x\nBEGIN a\nPRINT optimized\ny\nEND\n", &checks).is_ok());
        assert!(file_check("BEGIN a\nx\nPRINT debug\nEND\n", &checks).is_err());
        assert!(file_check("BEGIN\nPRINT release\nEND\n", &checks).is_err());
    }
}
