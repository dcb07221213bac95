//! Load test of one shared [`iree_runtime::Model`]: what a service calling a
//! real model from many threads sees.
//!
//! ```sh
//! cargo run --release -p iree-tooling --example serve_load -- \
//!     MODULE.vmfb FUNCTION DEVICE INPUT.npy... [--mode MODE] [--threads N] [--calls N]
//! ```
//!
//! Modes (each prints `key=value` lines for `cargo xtask serve-load`):
//! * `load` (default): `--threads` threads (4) x `--calls` calls (10 000)
//!   through one `Model`. Every result is compared byte for byte with a
//!   single-threaded call's; the peak RSS after the first 1 000 calls and
//!   at the last call give the growth. Each thread's warm-up (1 000 calls)
//!   also runs the measuring code and a yield once, and no thread exits
//!   before the last call is measured: a code path's first run pages in
//!   64 KiB of shared library text, which is not memory the model uses.
//! * `throughput`: `--calls` calls from 1 thread, then from 2 threads;
//!   calls per second and the ratio.
//! * `sessions`: `--threads` concurrent callers of one `Model`, `--calls`
//!   each; the process's peak RSS.
//! * `separate`: the same callers, each with a `Session` of its own (the
//!   model loaded once per caller), for comparison.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

use iree_runtime::{Instance, Model, Result, Session, Status, StatusCode, Tensor, Value};

/// What the command line asked for.
struct Options {
    module: String,
    function: String,
    device: String,
    inputs: Vec<String>,
    mode: String,
    threads: usize,
    calls: usize,
}

fn parse_options() -> std::result::Result<Options, String> {
    let mut positional = Vec::new();
    let (mut mode, mut threads, mut calls) = ("load".to_string(), 4usize, 10_000usize);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--mode" => mode = value("--mode")?,
            "--threads" => threads = parse_count(&value("--threads")?)?,
            "--calls" => calls = parse_count(&value("--calls")?)?,
            _ => positional.push(arg),
        }
    }
    if positional.len() < 3 {
        return Err("usage: serve_load MODULE FUNCTION DEVICE INPUT.npy... \
                    [--mode load|throughput|sessions|separate] [--threads N] [--calls N]"
            .to_string());
    }
    let inputs = positional.split_off(3);
    let [module, function, device]: [String; 3] = positional.try_into().expect("three");
    Ok(Options {
        module,
        function,
        device,
        inputs,
        mode,
        threads,
        calls,
    })
}

fn parse_count(text: &str) -> std::result::Result<usize, String> {
    text.parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or(format!("`{text}` is not a positive count"))
}

fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(why) => {
            eprintln!("{why}");
            std::process::exit(2);
        }
    };
    if let Err(status) = run(&options) {
        eprintln!("{status}");
        std::process::exit(1);
    }
}

fn run(options: &Options) -> Result<()> {
    let instance = Instance::new();
    let inputs = options
        .inputs
        .iter()
        .map(|path| read_npy(path).map(Value::from))
        .collect::<Result<Vec<_>>>()?;
    match options.mode.as_str() {
        "load" => load(&*load_model(&instance, options)?, options, &inputs),
        "throughput" => throughput(&*load_model(&instance, options)?, options, &inputs),
        "sessions" => {
            let model = load_model(&instance, options)?;
            model.reserve_contexts(options.threads)?;
            concurrent_callers(options, |_| {
                let model = model.clone();
                let inputs = inputs.clone();
                Ok(move || model.call(&options.function, &inputs).map(drop))
            })?;
            println!("contexts={}", model.context_count());
            Ok(())
        }
        "separate" => concurrent_callers(options, |_| {
            let mut session = Session::new(&instance, &options.device)?;
            session.load_module_file(&options.module)?;
            let inputs = inputs.clone();
            Ok(move || session.call(&options.function, &inputs).map(drop))
        }),
        other => Err(Status::new(
            StatusCode::InvalidArgument,
            format!("unknown mode `{other}`"),
        )),
    }
}

fn load_model(instance: &Instance, options: &Options) -> Result<Arc<Model>> {
    let mut session = Session::new(instance, &options.device)?;
    session.load_module_file(&options.module)?;
    Ok(Arc::new(session.into_model()?))
}

/// `--threads` x `--calls` calls, each result checked against the first.
fn load(model: &Model, options: &Options, inputs: &[Value]) -> Result<()> {
    let call = || {
        model
            .call(&options.function, inputs)
            .and_then(|r| result_bytes(&r))
    };
    let expected = call()?;
    // Warm-up, in the threads that then count: every context, thread stack
    // and thread-local cache exists before the first counted call.
    model.reserve_contexts(options.threads)?;
    let warm = Barrier::new(options.threads + 1);
    let finished = Barrier::new(options.threads);
    let done = AtomicUsize::new(0);
    let mismatches = AtomicUsize::new(0);
    let rss_after_first_1000 = AtomicUsize::new(0);
    let anon_after_first_1000 = AtomicUsize::new(0);
    // Read when the last call returns, before threads exit (thread exit
    // pages in library code of its own).
    let at_last_call = parking_lot::Mutex::new((0, 0));
    let total = options.threads * options.calls;
    let mut start = Instant::now();
    let outcome: Result<()> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..options.threads)
            .map(|_| {
                s.spawn(|| -> Result<()> {
                    let warmed = (0..1000).try_for_each(|_| call().map(drop));
                    // Paths that 1 000 calls may not take still page in their
                    // code (64 KiB of shared library text per first fault)
                    // when first taken: the measuring code itself, and the
                    // yield of a contended spin. Take them once now.
                    let _ = (peak_rss_kib(), anon_rss_kib());
                    std::thread::yield_now();
                    warm.wait();
                    let counted = warmed.and_then(|()| {
                        (0..options.calls).try_for_each(|_| -> Result<()> {
                            if call()? != expected {
                                mismatches.fetch_add(1, Ordering::Relaxed);
                            }
                            let count = done.fetch_add(1, Ordering::Relaxed) + 1;
                            if count == 1000 {
                                rss_after_first_1000.store(peak_rss_kib(), Ordering::Relaxed);
                                anon_after_first_1000.store(anon_rss_kib(), Ordering::Relaxed);
                            }
                            if count == total {
                                *at_last_call.lock() = (peak_rss_kib(), anon_rss_kib());
                            }
                            Ok(())
                        })
                    });
                    // No thread exits (thread exit pages in libc code of its
                    // own) before the last call is measured; a failed thread
                    // still arrives here, so the others do not wait forever.
                    finished.wait();
                    counted
                })
            })
            .collect();
        warm.wait();
        start = Instant::now();
        workers
            .into_iter()
            .try_for_each(|w| w.join().expect("worker"))
    });
    outcome?;
    let elapsed = start.elapsed().as_secs_f64();
    let (last, last_anon) = at_last_call.into_inner();
    let (first, first_anon) = (
        rss_after_first_1000.into_inner(),
        anon_after_first_1000.into_inner(),
    );
    println!("calls={}", done.into_inner());
    println!("mismatches={}", mismatches.into_inner());
    println!(
        "calls_per_second={:.0}",
        (options.threads * options.calls) as f64 / elapsed
    );
    println!("peak_rss_kib_after_1000={first}");
    println!("peak_rss_kib_at_end={last}");
    println!(
        "rss_growth_percent={:.3}",
        (last as f64 / first as f64 - 1.0) * 100.0
    );
    println!("anon_rss_kib_after_1000={first_anon}");
    println!("anon_rss_kib_at_end={last_anon}");
    println!(
        "anon_rss_growth_percent={:.3}",
        (last_anon as f64 / first_anon as f64 - 1.0) * 100.0
    );
    println!("contexts={}", model.context_count());
    Ok(())
}

/// Calls per second from one thread and from two.
fn throughput(model: &Model, options: &Options, inputs: &[Value]) -> Result<()> {
    let call = || model.call(&options.function, inputs).map(drop);
    (0..100).try_for_each(|_| call())?;
    let mut rates = Vec::new();
    for threads in [1usize, 2] {
        let per_thread = options.calls / threads;
        let start = Instant::now();
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| s.spawn(|| (0..per_thread).try_for_each(|_| call())))
                .collect();
            workers
                .into_iter()
                .try_for_each(|w| w.join().expect("worker"))
        })?;
        let rate = (per_thread * threads) as f64 / start.elapsed().as_secs_f64();
        println!("calls_per_second_{threads}_threads={rate:.0}");
        rates.push(rate);
    }
    println!("speedup_2_threads={:.3}", rates[1] / rates[0]);
    Ok(())
}

/// `--threads` callers, each made by `make` on the main thread and then
/// calling `--calls` times, all at once; prints the peak RSS.
fn concurrent_callers<F, C>(options: &Options, make: F) -> Result<()>
where
    F: Fn(usize) -> Result<C>,
    C: FnMut() -> Result<()> + Send,
{
    let callers = (0..options.threads)
        .map(&make)
        .collect::<Result<Vec<_>>>()?;
    let barrier = Barrier::new(options.threads);
    let failed = AtomicBool::new(false);
    // Read while every caller still holds what it made.
    let resident = parking_lot::Mutex::new((0, 0));
    let outcome = std::thread::scope(|s| {
        let workers: Vec<_> = callers
            .into_iter()
            .enumerate()
            .map(|(index, mut caller)| {
                let (barrier, failed, resident) = (&barrier, &failed, &resident);
                s.spawn(move || -> Result<()> {
                    barrier.wait();
                    let mut outcome = Ok(());
                    for _ in 0..options.calls {
                        if failed.load(Ordering::Relaxed) {
                            break;
                        }
                        if let Err(status) = caller() {
                            failed.store(true, Ordering::Relaxed);
                            outcome = Err(status);
                            break;
                        }
                    }
                    barrier.wait();
                    if index == 0 {
                        *resident.lock() = resident_kib();
                    }
                    barrier.wait();
                    outcome
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().expect("worker"))
    });
    outcome?;
    let (rss, pss) = resident.into_inner();
    println!("callers={}", options.threads);
    println!("peak_rss_kib={}", peak_rss_kib());
    println!("rss_kib={rss}");
    println!("pss_kib={pss}");
    Ok(())
}

/// Every tensor result's bytes in order (other results compare by their
/// debug text).
fn result_bytes(results: &[Value]) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    for value in results {
        match value {
            Value::Tensor(tensor) => bytes.extend(tensor.to_bytes()?),
            other => bytes.extend(format!("{other:?}").into_bytes()),
        }
    }
    Ok(bytes)
}

fn read_npy(path: &str) -> Result<Tensor> {
    let file = std::fs::File::open(path)
        .map_err(|e| Status::new(StatusCode::NotFound, format!("opening '{path}': {e}")))?;
    let array = iree_tooling::numpy::load_ndarray(&mut std::io::BufReader::new(file))?;
    Tensor::from_bytes(&array.shape, array.element_type, &array.data)
}

/// The process's resident set and proportional set size (`Rss`, `Pss` of
/// `smaps_rollup`), in KiB; zeros where unknown. A file page mapped at
/// several addresses (each context's copy-on-write window of the module's
/// constants) counts once per mapping in `Rss` and once in all in `Pss`.
fn resident_kib() -> (usize, usize) {
    let rollup = std::fs::read_to_string("/proc/self/smaps_rollup").unwrap_or_default();
    let field = |name: &str| {
        rollup
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    };
    (field("Rss:"), field("Pss:"))
}

/// The process's peak resident set (`VmHWM`), in KiB; 0 where unknown.
/// It includes shared-library code, which pages in as code paths first run.
fn peak_rss_kib() -> usize {
    status_kib("VmHWM:")
}

/// The process's resident anonymous memory (`RssAnon`: what it allocated,
/// without file-backed pages such as library code), in KiB.
fn anon_rss_kib() -> usize {
    status_kib("RssAnon:")
}

/// A `/proc/self/status` field in KiB; 0 where unknown.
fn status_kib(field: &str) -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with(field))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}
