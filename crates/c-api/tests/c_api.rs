//! C programs against `libiree_runtime`: our own programs doing what
//! upstream's runtime demos and samples do, built with the system C
//! compiler against `include/` and run; the struct layouts against the
//! numbers upstream's headers give; the exported symbols against the
//! headers.

mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use support::{compile, crate_dir, embed, library, run, run_ok, testdata, Linking};

/// What upstream's runtime demos print for `module.simple_mul`.
const SIMPLE_MUL_OUTPUT: &str =
    "4xf32=1 1.1 1.2 1.3\n * \n4xf32=10 100 1000 10000\n = \n4xf32=10 110 1200 13000";

fn simple_mul() -> PathBuf {
    testdata().join("c-api/simple_mul.vmfb")
}

#[test]
fn hello_world_from_a_file() {
    let exe = compile(
        "hello_world_file",
        &["hello_world.c".into()],
        &[],
        Linking::Shared,
    );
    let module = simple_mul();
    assert_eq!(run_ok(&exe, &[module.to_str().unwrap()]), SIMPLE_MUL_OUTPUT);
}

#[test]
fn hello_world_embedded_and_statically_linked() {
    let data = embed(&simple_mul(), "simple_mul_data");
    for (name, linking) in [
        ("hello_world_embedded", Linking::Shared),
        ("hello_world_static", Linking::Static),
    ] {
        let exe = compile(
            name,
            &["hello_world.c".into(), data.clone()],
            &["-DEMBEDDED_MODULE"],
            linking,
        );
        assert_eq!(run_ok(&exe, &[]), SIMPLE_MUL_OUTPUT, "{name}");
    }
}

#[test]
fn the_c_example_builds_and_runs() {
    let example = crate_dir().join("examples/simple_mul.c");
    let exe = compile("example_simple_mul", &[example], &[], Linking::Shared);
    let module = simple_mul();
    assert_eq!(
        run_ok(&exe, &[module.to_str().unwrap()]),
        "4xf32=10 110 1200 13000\n"
    );
}

#[test]
fn hello_world_reports_a_missing_module_as_upstream_does() {
    let exe = compile(
        "hello_world_missing",
        &["hello_world.c".into()],
        &[],
        Linking::Shared,
    );
    let output = run(&exe, &["/nonexistent/simple_mul.vmfb"]);
    // The demo returns the status code (NOT_FOUND = 5) and prints the
    // status to stderr.
    assert_eq!(output.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("NOT_FOUND; failed to open file '/nonexistent/simple_mul.vmfb'"),
        "{stderr}"
    );
}

/// The expected text was checked against upstream's own status
/// implementation (its `iree/base` sources built with `IREE_STATUS_MODE=2`,
/// the mode of its release builds) running the same program.
#[test]
fn statuses_print_as_upstream_prints_them() {
    let exe = compile("status", &["status.c".into()], &[], Linking::Shared);
    let expected = "\
code 10 ok 0
code-only: ABORTED
annotated code-only: UNKNOWN; why
allocated: inner.c:12: NOT_FOUND; no such thing
annotated: inner.c:12: NOT_FOUND; no such thing; while looking for 42
annotated plain: inner.c:12: NOT_FOUND; no such thing; while looking
formatted: f.c:3: INVALID_ARGUMENT; x=7 (1.50)
no location: INTERNAL; nowhere
joined: inner.c:12: NOT_FOUND; no such thing; additional failure: ABORTED
unnamed code: 
format 57: inner.c:12: NOT_FOUND; no such thing; while looking for 7
truncated: inner.c
to_string 57: inner.c:12: NOT_FOUND; no such thing; while looking for 7
location inner.c:12 message no such thing
consumed 5
clone: inner.c:12: NOT_FOUND; no such thing
code string DEADLINE_EXCEEDED
";
    assert_eq!(run_ok(&exe, &[]), expected);
}

#[test]
fn bad_input_returns_statuses() {
    let exe = compile("errors", &["errors.c".into()], &[], Linking::Shared);
    let module = simple_mul();
    let expected = "\
instance without options: INVALID_ARGUMENT
device without drivers: FAILED_PRECONDITION
unknown driver: NOT_FOUND
session without device: INVALID_ARGUMENT
garbage module: INVALID_ARGUMENT
missing file: NOT_FOUND
module without instance: INVALID_ARGUMENT
unknown function: NOT_FOUND
unknown module: NOT_FOUND
call without arguments: INVALID_ARGUMENT
push NULL view: INVALID_ARGUMENT
pop from empty outputs: INVALID_ARGUMENT
list for a tensor: INVALID_ARGUMENT
list as a buffer view: INVALID_ARGUMENT
deref as view: null
index out of range: OUT_OF_RANGE
list into a view list: INVALID_ARGUMENT
value into a view list: FAILED_PRECONDITION
done
";
    assert_eq!(run_ok(&exe, &[module.to_str().unwrap()]), expected);
}

/// A module written in C with the native module API, imported by bytecode:
/// what upstream's samples/custom_module/basic shows, in C.
#[test]
fn native_module_written_in_c() {
    let exe = compile(
        "native_module",
        &["native_module.c".into()],
        &[],
        Linking::Shared,
    );
    let module = testdata().join("c-api/custom_user.vmfb");
    let expected = "\
module custom: 4 exports
PRINT hello
PRINT (no shout)
main(30) = 42
make() = made in C of type custom.string
custom.add(40, 2) = 42
state freed after 8 calls
strings destroyed: 3
";
    assert_eq!(run_ok(&exe, &[module.to_str().unwrap()]), expected);
}

#[test]
fn device_and_context_built_by_hand() {
    // What upstream's simple_embedding sample does: a synchronous device
    // with a VMVX loader, a device group, the hal module with a stdio debug
    // sink, iree_vm_invoke.
    let exe = compile("embedding", &["embedding.c".into()], &[], Linking::Shared);
    let module = testdata().join("c-api/traced_mul.vmfb");
    assert_eq!(
        run_ok(&exe, &[module.to_str().unwrap()]),
        "=== product ===\n4xf32=8 8 8 8\n\nresult 8 8 8 8\n"
    );
}

#[test]
fn static_library_linked_into_the_program() {
    // What upstream's static_library sample does, with the kernel library
    // written in C against our executable_library.h.
    let exe = compile(
        "static_library",
        &["static_library.c".into()],
        &[],
        Linking::Shared,
    );
    let module = testdata().join("c-api/static_mul.vmfb");
    let module = module.to_str().unwrap();
    assert_eq!(
        run_ok(&exe, &[module, "good"]),
        "4xf32=3 6 12 20\nkernel ran: yes\n"
    );
    let refused = run(&exe, &[module, "bad-version"]);
    let stdout = String::from_utf8_lossy(&refused.stdout);
    assert_eq!(refused.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "FAILED_PRECONDITION; executable does not support this version of the runtime (executable: 7, runtime: 6)"
        ),
        "{stdout}"
    );
}

#[test]
fn parameters_from_an_index_provider() {
    let exe = compile("parameters", &["parameters.c".into()], &[], Linking::Shared);
    let module = testdata().join("c-api/params.vmfb");
    let archive = testdata().join("params/ints.irpa");
    let expected = "\
3 entries
//===--------------------------------------------------------------------------------------------------------------===//
// Parameter scope `model` (3 entries, 64 total bytes)
//===------------+------------------+------------------+-----------------------------------------------------------===//
//         Start |              End |           Length | Key
//---------------+------------------+------------------+--------------------------------------------------------------//
             384 |              408 |               24 | `w_i32`
             448 |              464 |               16 | `w_i8`
             512 |              536 |               24 | `w_i64`

serves model: 1, other: 0
2x3xi32=[1 -4 9][1600000 -25 36]
missing file: NOT_FOUND
unknown format: UNIMPLEMENTED
";
    assert_eq!(
        run_ok(&exe, &[module.to_str().unwrap(), archive.to_str().unwrap()]),
        expected
    );
}

#[test]
fn struct_layouts_match_upstream() {
    let exe = compile("layout", &["layout.c".into()], &[], Linking::Shared);
    let expected = std::fs::read_to_string(crate_dir().join("tests/layout_expected.txt"))
        .expect("reading layout_expected.txt");
    let actual = run_ok(&exe, &[]);
    for (line, (a, e)) in actual.lines().zip(expected.lines()).enumerate() {
        assert_eq!(a, e, "layout line {}", line + 1);
    }
    assert_eq!(actual.lines().count(), expected.lines().count());
}

/// The names of the functions and variables the headers declare as
/// exported (`IREE_API_EXPORT ... name(` and `IREE_API_EXPORT_VARIABLE`),
/// including those declared through `IREE_VM_DECLARE_TYPE_ADAPTERS`.
fn declared_symbols() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut stack = vec![crate_dir().join("include")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("reading include/") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("reading a header");
            // Join declarations onto one line each, then take the name
            // before the first `(` of every exported declaration.
            let flat = text.replace('\n', " ");
            for piece in flat.split("IREE_API_EXPORT").skip(1) {
                if piece.starts_with("_VARIABLE") || piece.trim_start().starts_with('#') {
                    continue;
                }
                let Some(open) = piece.find('(') else {
                    continue;
                };
                let before = &piece[..open];
                if before.contains(';') || before.contains('{') {
                    continue;
                }
                let name = before
                    .trim_end()
                    .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or_default();
                // Names made by macros (`name##_retain_ref`) and the macro
                // parameter of `IREE_ALLOCATOR_SYSTEM_CTL` are not symbols.
                if name.starts_with("iree_") && !name.contains("##") {
                    names.insert(name.to_string());
                }
            }
            for line in text.lines() {
                let line = line.trim();
                let Some(rest) = line.strip_prefix("IREE_VM_DECLARE_TYPE_ADAPTERS(") else {
                    continue;
                };
                let Some(prefix) = rest.split(',').next() else {
                    continue;
                };
                if prefix == "name" {
                    continue;
                }
                for suffix in [
                    "_registration",
                    "_retain_ref",
                    "_move_ref",
                    "_check_deref",
                    "_check_deref_or_null",
                ] {
                    names.insert(format!("{prefix}{suffix}"));
                }
            }
        }
    }
    names
}

#[test]
fn every_declared_function_is_exported() {
    let library = library();
    let so = library.lib_dir.join("libiree_runtime.so");
    let output = Command::new("nm")
        .arg("-D")
        .arg("--defined-only")
        .arg(&so)
        .output()
        .expect("running nm");
    assert!(output.status.success(), "nm failed");
    let exported: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().nth(2).map(str::to_string))
        .collect();
    let declared = declared_symbols();
    assert!(
        declared.len() > 150,
        "found only {} declarations",
        declared.len()
    );
    let missing: Vec<&String> = declared
        .iter()
        .filter(|name| !exported.contains(*name))
        .collect();
    assert!(missing.is_empty(), "declared but not exported: {missing:?}");
}
