//! `iree-benchmark-replay`: times replays of an `.ireereplay` capture under
//! Google Benchmark's flags and reports (`crates/benchmark`), as upstream's
//! tool does. Every iteration replays the whole capture on fresh objects;
//! `--replay_scope=NAME` reports only the time spent inside the capture's
//! `NAME` scopes (manual time), `execute` being the call `iree-run-module`
//! captured.

use std::cell::Cell;
use std::ffi::OsString;
use std::time::Instant;

use clap::Parser;
use iree_base::{Result, Status, StatusCode};
use iree_benchmark::report::TimeUnit;
use iree_benchmark::{run_benchmarks, GoogleBenchmarkFlags};
use iree_hal_replay::execute::ScopeEvent;
use iree_hal_replay::Plan;
use iree_tooling::flags::{parse_args, ModuleFlags};
use iree_tooling::replay::{capture_path, create_devices, read_capture, ReplayFlags};

/// Command-line flags, spelled as upstream spells them.
#[derive(Parser, Debug)]
#[command(
    name = "iree-benchmark-replay",
    about = "Benchmarks deterministic execution of an IREE HAL replay file.\n\nEach iteration replays the whole capture on the --device= devices, on\nfresh objects. --replay_scope=NAME times only what runs inside the\ncapture's NAME scopes.\n\nUsage:\n  iree-benchmark-replay [benchmark options] [replay options] <capture.ireereplay>"
)]
struct Flags {
    #[command(flatten)]
    common: ModuleFlags,
    #[command(flatten)]
    replay: ReplayFlags,
    /// Times only replay operations inside matching named scope markers;
    /// the full replay still runs each iteration.
    #[arg(long = "replay_scope", default_value = "")]
    replay_scope: String,
    #[command(flatten)]
    google: GoogleBenchmarkFlags,
}

const AGENTS_MD: &str = "\
# iree-benchmark-replay

Each iteration replays the whole `.ireereplay` capture on fresh objects.
Fix the iteration count for small captures, and time only a scope with
`--replay_scope` (`execute` is the call `iree-run-module` captured):

```bash
iree-benchmark-replay --device=local-task --benchmark_min_time=20x \\
  --replay_scope=execute /tmp/model.ireereplay
```

`iree-run-replay --agents_md` describes capture, single runs, file remaps
and executable substitution.
";

/// Time spent inside the selected scope during one replay.
struct ScopeTimer<'n> {
    name: &'n [u8],
    depth: usize,
    observed: bool,
    started: Option<Instant>,
    seconds: f64,
}

impl ScopeTimer<'_> {
    fn event(&mut self, event: &ScopeEvent<'_>) -> Result<()> {
        if event.name != self.name {
            return Ok(());
        }
        if event.begin {
            self.observed = true;
            if self.depth == 0 {
                self.started = Some(Instant::now());
            }
            self.depth += 1;
            return Ok(());
        }
        if self.depth == 0 {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                format!(
                    "replay scope '{}' ended before it began",
                    String::from_utf8_lossy(self.name)
                ),
            ));
        }
        self.depth -= 1;
        if self.depth == 0 {
            if let Some(started) = self.started.take() {
                self.seconds += started.elapsed().as_secs_f64();
            }
        }
        Ok(())
    }
}

fn run(flags: Flags, program: &str) -> Result<u8> {
    let settings = flags.google.validate()?;
    let options = match flags.common.into_run_options() {
        Ok(options) => options,
        Err(code) => return Ok(code),
    };
    let path = capture_path(&flags.replay.files)?;
    let bytes = read_capture(path)?;
    let devices = create_devices(&options)?;
    let profiling = options.profiling.begin(devices.first())?;
    let plan = Plan::new(&bytes)?;
    let scope = flags.replay_scope.as_bytes();
    let manual = Cell::new(0.0);
    let mut execute = flags.replay.execute_options()?;
    let iterate = || -> Result<()> {
        if scope.is_empty() {
            execute.on_scope = None;
            return plan.execute(&devices, &mut execute);
        }
        let timer = std::rc::Rc::new(std::cell::RefCell::new(ScopeTimer {
            name: scope,
            depth: 0,
            observed: false,
            started: None,
            seconds: 0.0,
        }));
        let events = timer.clone();
        // The callback lives for this replay only.
        execute.on_scope = Some(Box::new(move |event: &ScopeEvent<'_>| {
            events.borrow_mut().event(event)
        }));
        let result = plan.execute(&devices, &mut execute);
        execute.on_scope = None;
        result?;
        let timer = timer.borrow();
        let name = String::from_utf8_lossy(scope);
        if !timer.observed {
            return Err(Status::new(
                StatusCode::NotFound,
                format!("--replay_scope='{name}' did not match any replay scope marker"),
            ));
        }
        if timer.depth != 0 {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                format!("--replay_scope='{name}' matched a scope that did not end"),
            ));
        }
        manual.set(manual.get() + timer.seconds);
        Ok(())
    };
    let (name, manual_time) = if scope.is_empty() {
        ("BM_replay/process_time/real_time".to_string(), None)
    } else {
        (
            format!(
                "BM_replay/scope:{}/process_time/manual_time",
                flags.replay_scope
            ),
            Some(&manual),
        )
    };
    let benchmark = iree_benchmark::Benchmark {
        name,
        time_unit: TimeUnit::Millisecond,
        items_per_iteration: 1,
        iterate: Box::new(iterate),
        dispatch_statistics: None,
        manual_time,
    };
    let failures = run_benchmarks(&settings, vec![benchmark], 1, program)?;
    if let Some(profiling) = profiling {
        profiling.finish()?;
    }
    match failures.into_iter().next() {
        Some(first) => Err(first),
        None => Ok(0),
    }
}

/// Runs `iree-benchmark-replay` with the command line `args` (the program
/// name first, as `std::env::args_os()` gives it) and returns its exit
/// status.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> u8 {
    iree_base::tool_setup::init();
    let args: Vec<OsString> = args.into_iter().collect();
    let program = args
        .first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_else(|| "iree-benchmark-replay".to_string());
    let flags: Flags = match parse_args(args) {
        Ok(flags) => flags,
        Err(code) => return code,
    };
    if flags.replay.wants_agents_md() {
        print!("{AGENTS_MD}");
        return 0;
    }
    match run(flags, &program) {
        Ok(code) => code,
        Err(status) => {
            eprintln!("{status}");
            1
        }
    }
}
