//! Project automation, run as `cargo xtask <command>`:
//!
//! * `test`: every test of the project (what CI runs after its format and
//!   lint gates) and one summary naming the tests that did not run here and
//!   why (`test_all.rs`);
//! * `readme`: run the README's commands and compare their output with what
//!   it shows (`readme.rs`);
//! * `venv`: create or verify the pinned upstream IREE venv at `.iree-venv`;
//! * `testdata`: compile `testdata/<suite>/*.mlir` and record upstream's
//!   output for every case;
//! * `conformance`: run every case through upstream and through our
//!   `iree-run-module` and compare;
//! * `opcodes`: list which core VM opcodes the `vm` suite's modules contain;
//! * `bench`: time ours against upstream on `testdata` workloads and real
//!   models from PyPI wheels (`models.rs`);
//! * `bench-collectives`: all_reduce through our `iree-benchmark-module`
//!   against `MPI_Allreduce` called directly, 2 ranks, shared memory and TCP
//!   (`bench_collectives.rs`);
//! * `loom`: model-check the semaphore, queue and worker-pool protocols;
//! * `icount`: the interpreter's instruction counts against a committed
//!   baseline, the regression guard `cargo xtask test` runs (`icount.rs`);
//! * `gpu-pack`, `gpu-check`: the CUDA driver on a GPU machine, prepared here
//!   and run there in one call (`gpu.rs`);
//! * `e2e`: compile the end-to-end check suites of `testdata/e2e`;
//! * `param-rss`: peak memory of loading a large parameter file, ours
//!   against upstream;
//! * `upstream-python-tests`: upstream's own Python binding tests against
//!   upstream's wheel and against `iree_rust.runtime` (`upstream_py.rs`);
//! * `upstream-collectives-tests`: upstream's collectives tests
//!   (`tests/e2e/collectives`) against `iree_rust.runtime` under `mpirun`
//!   (`upstream_collectives.rs`);
//! * `upstream-c-samples`: upstream's C and C++ sample programs built
//!   against our C API headers and `libiree_runtime` (`upstream_c_samples.rs`);
//! * `vm-suite`: upstream's VM test suite (`vm/test/*.vmasm`) in process
//!   (`vm_suite.rs`);
//! * `record-cpuinfo`, `record-flags`, `dump-diff`: recordings and differentials of the
//!   inspection tools (`tools.rs`);
//! * `replay-diff`: HAL replay captures, dumps and replays, ours against
//!   upstream's (`replay.rs`); `replay-bench`: the same for real models,
//!   with `iree-benchmark-replay` timings (`replay_bench.rs`).
//!
//! The test-data format is described in `testdata/README.md` and implemented
//! by `iree_tooling::testcases`.

mod bench;
mod bench_collectives;
mod bench_python;
mod cli;
mod conformance;
mod diff;
mod e2e;
mod gpu;
mod icount;
mod miri;
mod models;
mod opcodes;
mod param_rss;
mod proc;
mod readme;
mod replay;
mod replay_bench;
mod robustness;
mod serve_load;
mod test_all;
mod testdata;
mod tools;
mod upstream_c_samples;
mod upstream_collectives;
mod upstream_py;
mod venv;
mod vm_suite;

use std::path::PathBuf;
use std::process::ExitCode;

/// Errors are messages for the user.
pub type Result<T, E = String> = std::result::Result<T, E>;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  test [--skip STEP,...]    every test: cargo test --workspace, the serve_async example,
                            the ndarray feature, the Python package (bindings/python/
                            test.sh), loom, icount, readme; then one summary: counts,
                            and every test that did not run here with its reason (steps:
                            cargo-test, serve-async, ndarray, python, loom, icount,
                            readme)
  readme                    run each command README.md shows with its output (a ```sh
                            block followed by a ```text block) and compare stdout
  venv                      create/verify the pinned upstream venv at .iree-venv
                            (downloads about 600 MB from PyPI the first time)
  testdata [options]        compile testdata/<suite>/*.mlir (when stale) and record
                            upstream's output for every case in expected/
      --suite S             only suite S (repeatable)
      --group G             only group G (repeatable)
      --filter TEXT         only cases whose id (suite/group/name) contains TEXT
      --force               recompile every .vmfb
      --jobs N              parallel runs (default: number of CPUs)
  conformance [options]     run every case through upstream and ours and compare
      --suite S, --group G, --filter TEXT, --jobs N   as above
      --device D            run every case on device D (replacing its own --device=)
      --recorded            compare with the recorded expected/ files instead of
                            running upstream (no venv needed)
      -v, --verbose         also list passing cases
                            our binary: $IREE_RS_RUN_MODULE, or else
                            target/release/iree-run-module built first
  opcodes [--suite S]       list which core VM opcodes appear in the disassembly of
                            testdata/<suite>/*.vmfb (default suite: vm)
      --verbose             also list, per opcode, the groups containing it
  bench [--runs N] [--filter TEXT]
                            median wall time and peak RSS of ours vs upstream,
                            alternating runs: testdata workloads, and real ONNX
                            models from PyPI wheels (prepared under target/models)
                            on local-sync and local-task, outputs compared bit for bit;
                            then iree-benchmark-module's per-call time (tiny dispatch
                            on local-sync and local-task, a VM-only call, models), the
                            per-call breakdown of each model call (total, kernel time
                            from each runtime's own profile, the runtime's own share;
                            ours and upstream's), iree-benchmark-executable's
                            per-dispatch time, Python's per-call time
                            (bindings/python/benchmarks/per_call.py, venv and release
                            wheel under target/bench-py), and a summary of the ratios
                            by part (interpreter, dispatch path, Python call, models)
  serve-load [--model M] [--device D,..] [--threads N] [--calls N]
                            one shared iree_runtime::Model under load (default silero-vad,
                            4 threads x 10000 calls, local-sync and local-task): results vs
                            the single-threaded one, peak RSS growth, 1 vs 2 thread
                            throughput, 8 concurrent callers' memory vs one (and vs 8
                            separate Sessions)
  bench-collectives [--runs N] [--device D] [--transport shm|tcp] [--sizes 4k,1m,...]
                            all_reduce (f32 sum, 4 KiB..64 MiB) over 2 ranks under mpirun,
                            our iree-benchmark-module (default --device=local-sync) vs
                            MPI_Allreduce called directly (xtask/experiments/allreduce_raw.c,
                            built with mpicc), alternating (default 5 runs), on shared
                            memory and on TCP; per-call medians and ours/raw
  param-rss [--mib N]       peak RSS (and anonymous / file-backed RSS) and wall time of
                            loading an N MiB (default 1024) parameter file, ours vs
                            upstream, on local-sync/local-task, --parameter_mode=file/preload
  e2e [--force]             compile the check suites testdata/e2e/src/*.mlir for
                            llvm-cpu, llvm-cpu-system and vmvx, and testdata/e2e/bad
                            (when stale); cargo test -p iree-check-module runs them
  gpu-pack [--no-models]    build everything the CUDA check needs on a GPU machine with
                            no toolchain and no network: our tools, xtask and the GPU
                            test binaries (release), upstream's native tools, our Python
                            package, the testdata suites, e2e check suites and the bench
                            models compiled for CUDA; packed into gpu-pack.tar.xz
                            (there: `tar -xJf gpu-pack.tar.xz && gpu-pack/run.sh`)
  gpu-check --pack DIR --out DIR [--jobs N] [--only differential,e2e,tests,python,models]
            [--filter TEXT,...]
                            (on the GPU machine, by run.sh) every case upstream vs ours on
                            cuda, check suites, Rust GPU tests, Python, model outputs and
                            per-call times (--filter: only differential cases whose id
                            contains a TEXT); writes DIR/report.md; exit 2 when the first
                            CUDA call fails
  record-flags              record the flag listing of upstream's --help for
                            iree-run-module, iree-benchmark-module and
                            iree-benchmark-executable under testdata/tools/flags
  record-cpuinfo            record this machine's CPUID answers and upstream's
                            iree-cpuinfo output under testdata/tools/cpuinfo
  dump-diff [--output MODE]... [--record] [-v]
                            run upstream's and our iree-dump-module (default modes:
                            metadata, flatbuffer-json, flatbuffer-json-pretty,
                            disassembly, disassembly-offsets, all; -pretty adds
                            --pretty, -offsets --bytecode_offsets) on every
                            testdata .vmfb and compare stdout and success; --record
                            rewrites testdata/tools/dump-module (one module per
                            directory; JSON and disassembly only under 16 KiB) for
                            cargo test -p iree-dump-module
  replay-diff [--suite S] [--group G] [--filter TEXT] [--jobs N] [--record] [-v]
                            every testdata case that runs on a local device, on local-sync
                            and local-task: upstream's capture (--device_replay_output)
                            dumped by our iree-dump-replay exactly as by upstream's (text,
                            jsonl) and replayed by our iree-run-replay; our capture dumped
                            and replayed by upstream's tools (and replayed by ours); prints
                            `N passed, N failed`; --record rewrites testdata/replay/upstream
                            and testdata/replay/ours (hermetic captures of a few cases and
                            upstream's dumps of them) for cargo test
  replay-bench [--model M]... [--device D]... [--runs N] [--iterations N]
                            real models (default silero-vad, ppocr-cls; prepared as bench
                            prepares them) on local-sync and local-task: each runtime's
                            capture replayed by the other's iree-run-replay, then
                            iree-benchmark-replay --replay_scope=execute ms per iteration,
                            ours vs upstream (each on its own capture, and both on
                            upstream's), alternating runs (default 5 of 50 iterations), medians
  upstream-python-tests --iree-src DIR [--all] [--release] [-v]
                            run upstream's Python binding tests (DIR/runtime/bindings/
                            python/tests of an iree-org/iree checkout matching 3.13)
                            against upstream's wheel and, import swapped, against
                            iree_rust.runtime (wheel built here, venv under
                            target/upstream-py); prints per-file counts and
                            `N passed, N failed` over the tests upstream passes
                            (tokenizer_test.py only with --all)
  upstream-collectives-tests --iree-src DIR [--release] [-v]
                            run upstream's tests/e2e/collectives (1, 2 and 4 ranks
                            under mpirun, local-task, llvm-cpu) against
                            iree_rust.runtime, import swapped (venv with mpi4py
                            under target/upstream-collectives); prints each test
                            and `N passed, N failed`
  upstream-c-samples --iree-src DIR [--release] [-v]
                            build upstream's C/C++ samples (DIR: an iree-org/iree
                            checkout: runtime demo hello_world_*, samples/custom_module/*,
                            simple_embedding, static_library) with cc/c++ against
                            crates/c-api/include and libiree_runtime, run them on modules
                            compiled with the pinned compiler, check what each documents
                            (and that every iree_* symbol they use is exported); prints
                            `N passed, N failed`
  vm-suite DIR [-v]         assemble upstream's VM test suite (DIR: runtime/src/iree/
                            vm/test of an iree-org/iree checkout matching 3.13) with
                            the pinned iree-as-module and run every export in process
                            (fail_* must fail, the rest succeed; none skipped)
  icount [--update] [--filter TEXT]
                            the interpreter's instruction counts (callgrind, release
                            build of crates/vm-bytecode/examples/vm_count.rs) of every
                            opcode loop and some VM-bound programs of testdata/bench
                            against testdata/bench/instruction_counts.txt; fails on a
                            rise of more than 2%; --update rewrites the baseline
  robustness [--against DIR] [--count N] [--seed S] [--jobs N] [--ours PATH] [--only I]
             [--timeout SECS] [--kinds vm,vmvx,embedded-elf,system-library,params,npy,flags]
                            seeded mutations of the testdata inputs of every kind, each
                            run through our iree-run-module (default target/release,
                            else target/debug; $IREE_RS_RUN_MODULE) and, with --against,
                            upstream's (DIR: its _runtime_libs); classes per kind (ok,
                            error, panic, signal, timeout, oom), our crashes outside
                            mutated native code and the inputs upstream rejects that we
                            run (kept under target/robustness/); fails if either exists
  miri [--stacked-borrows | --tree-borrows]
                            cargo miri test (pinned nightly, both aliasing models by
                            default) of iree-vm, iree-vm-bytecode (interpreter included)
                            and the HAL's buffer and allocator tests; see xtask/src/miri.rs
                            for what it leaves out and why
  loom                      model-check semaphores, fences, the device queue and the
                            worker pool with loom (RUSTFLAGS=--cfg loom, own target dir)
";

/// Runs every `tests/loom.rs` under `--cfg loom` in `target/loom` (so the
/// normal build cache survives).
fn loom() -> Result<bool> {
    let root = repo_root();
    let status =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&root)
            .env("RUSTFLAGS", "--cfg loom")
            .env("CARGO_TARGET_DIR", root.join("target").join("loom"))
            .args([
                "test",
                "--release",
                "-p",
                "iree-hal",
                "-p",
                "iree-hal-local",
                "--test",
                "loom",
            ])
            .status()
            .map_err(|e| format!("running cargo: {e}"))?;
    Ok(status.success())
}

/// The repository root (the parent of this crate's directory).
pub fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or(manifest)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
        print!("{USAGE}");
        return if args.is_empty() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let cmd = args.remove(0);
    let result = match cmd.as_str() {
        "venv" => venv::ensure(&repo_root()).map(|v| {
            println!(
                "venv ok: {} (iree-base-compiler {}, iree-base-runtime {})",
                v.dir.display(),
                venv::IREE_VERSION,
                venv::IREE_VERSION
            );
            true
        }),
        "testdata" => cli::Options::parse(&args).and_then(|o| testdata::run(&o)),
        "conformance" => cli::Options::parse(&args).and_then(|o| conformance::run(&o)),
        "opcodes" => cli::Options::parse(&args).and_then(|o| opcodes::run(&o)),
        "bench" => bench::run(&args),
        "bench-collectives" => bench_collectives::run(&args),
        "serve-load" => serve_load::run(&args),
        "loom" => loom(),
        "icount" => icount::run(&args),
        "test" => test_all::run(&args),
        "readme" => readme::run(),
        "param-rss" => param_rss::run(&args),
        "e2e" => e2e::run(&args),
        "gpu-pack" => gpu::pack(&args),
        "gpu-check" => gpu::check(&args),
        "record-cpuinfo" => tools::record_cpuinfo(),
        "record-flags" => tools::record_flags(),
        "dump-diff" => tools::dump_diff(&args),
        "replay-diff" => replay::run_command(&args),
        "replay-bench" => replay_bench::run_command(&args),
        "upstream-python-tests" => upstream_py::run(&args),
        "upstream-collectives-tests" => upstream_collectives::run(&args),
        "upstream-c-samples" => upstream_c_samples::run(&args),
        "vm-suite" => vm_suite::run(&args),
        "robustness" => robustness::run(&args),
        "miri" => miri::run(&args),
        other => {
            eprint!("unknown command `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
