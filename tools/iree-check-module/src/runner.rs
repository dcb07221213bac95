//! Runs the exported functions of the main module as tests and reports them
//! the way gtest (which upstream's tool is built on) does.
//!
//! Every test gets a fresh VM context (fresh globals, as upstream sets up a
//! context per test); the device is created once and shared. A test fails
//! when a `check.expect_*` call records a failure or the function returns
//! an error; either way the remaining tests still run.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use iree_base::{Result, ResultExt, Status, StatusCode};
use iree_hal::Device;
use iree_modules_check::{create_check_module, Failures};
use iree_tooling::replay::{start_capture, Capture};
use iree_tooling::run::{create_context, load_modules, main_instance, no_user_module, RunOptions};
use iree_vm::{Cconv, Function, Instance, Module};

use crate::filter::TestFilter;

/// One test: an exported function of the main module.
struct TestCase {
    /// `module.function`.
    name: String,
    ordinal: u32,
}

/// What the tests need: the loaded modules, the `check` module and where
/// its failures go, and the device once a context has created it.
struct TestSession<'a> {
    options: &'a RunOptions,
    instance: Arc<Instance>,
    modules: Vec<Arc<dyn Module>>,
    check: Arc<dyn Module>,
    failures: Failures,
    device: Option<Arc<dyn Device>>,
}

impl TestSession<'_> {
    /// Runs one test, returning its failure messages (empty: passed).
    fn run(&mut self, test: &TestCase) -> Vec<String> {
        let outcome = self.invoke(test.ordinal);
        let mut messages = self.failures.take();
        if let Err(status) = outcome {
            messages.push(status.to_string());
        }
        messages
    }

    fn invoke(&mut self, ordinal: u32) -> Result<()> {
        let (context, device) = create_context(
            self.instance.clone(),
            self.modules.clone(),
            self.options,
            self.device.clone(),
            std::slice::from_ref(&self.check),
        )?;
        if self.device.is_none() {
            self.device = device;
        }
        let main = self.modules.last().ok_or_else(no_user_module)?;
        let function = Function::new(main_instance(&context, main)?, ordinal);
        let name = function.info().name.clone();
        context
            .invoke(&function, &[])
            .annotate_with(|| format!("invoking function '{name}'"))?;
        Ok(())
    }
}

/// The exports of `module` that are tests: all but `__*` and names with
/// `$`. Each must take and return nothing.
fn list_tests(module: &dyn Module) -> Result<Vec<TestCase>> {
    let mut tests = Vec::new();
    for (ordinal, export) in module.exports().iter().enumerate() {
        if export.name.starts_with("__") || export.name.contains('$') {
            continue;
        }
        let cconv = Cconv::parse(&export.cconv)?;
        if !cconv.args.is_empty() || !cconv.results.is_empty() {
            return Err(Status::new(
                StatusCode::InvalidArgument,
                format!(
                    "expected function with no inputs or outputs, but export '{}' has signature '{}'",
                    export.name, export.cconv
                ),
            ));
        }
        tests.push(TestCase {
            name: format!("{}.{}", module.name(), export.name),
            ordinal: ordinal as u32,
        });
    }
    if tests.is_empty() {
        return Err(Status::new(
            StatusCode::InvalidArgument,
            format!(
                "module '{}' exports no test functions; each export other than `__*` is run as a test",
                module.name()
            ),
        ));
    }
    Ok(tests)
}

/// How the run is reported and filtered.
pub struct CheckOptions {
    /// `--gtest_filter=`.
    pub filter: TestFilter,
    /// `--gtest_list_tests`: list the tests instead of running them.
    pub list_only: bool,
}

/// `N test` / `N tests`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Loads the modules, runs every selected test and prints gtest's report
/// to `out`. Returns whether every test passed; module and context errors
/// (missing or mismatched imports, exports with arguments) are errors of
/// the whole run.
pub fn run_tests(options: &RunOptions, check: &CheckOptions, out: &mut dyn Write) -> Result<bool> {
    let io = |e: std::io::Error| Status::new(StatusCode::Unavailable, format!("writing: {e}"));
    let instance = Instance::new();
    iree_modules_hal::register_types(&instance)?;
    let modules = load_modules(&instance, options)?;
    let main = modules.last().cloned().ok_or_else(no_user_module)?;
    let tests = list_tests(&*main)?;
    let failures = Failures::new();
    let mut session = TestSession {
        options,
        instance,
        modules,
        check: create_check_module(failures.clone())?,
        failures,
        device: None,
    };
    let selected: Vec<&TestCase> = tests
        .iter()
        .filter(|t| check.filter.matches(&t.name))
        .collect();
    let suite = main.name();
    if check.list_only {
        let mut text = format!("{suite}.\n");
        for test in &selected {
            text.push_str(&format!("  {}\n", &test.name[suite.len() + 1..]));
        }
        out.write_all(text.as_bytes()).map_err(io)?;
        return Ok(true);
    }
    // Link the modules once up front: a missing or mismatched import is an
    // error of the module, not of each test.
    let mut recorder = None;
    if !selected.is_empty() {
        // `--device_replay_output`: the tests run on a recorded device.
        let given = start_capture(options)?.map(
            |Capture {
                 recorder: r,
                 device,
             }| {
                recorder = Some(r);
                device
            },
        );
        let (_context, device) = create_context(
            session.instance.clone(),
            session.modules.clone(),
            options,
            given,
            std::slice::from_ref(&session.check),
        )?;
        session.device = device;
    }
    // `--device_profiling_*` / `--print_device_statistics`: over all tests.
    let profiling = options.profiling.begin(session.device.as_ref())?;
    let started = Instant::now();
    let suites = usize::from(!selected.is_empty());
    let mut header = String::new();
    if !check.filter.is_everything() {
        header.push_str(&format!(
            "Note: Google Test filter = {}\n",
            check.filter.text()
        ));
    }
    header.push_str(&format!(
        "[==========] Running {} from {}.\n[----------] Global test environment set-up.\n",
        count(selected.len(), "test"),
        count(suites, "test suite"),
    ));
    if !selected.is_empty() {
        header.push_str(&format!(
            "[----------] {} from {suite}\n",
            count(selected.len(), "test")
        ));
    }
    out.write_all(header.as_bytes()).map_err(io)?;
    let mut failed = Vec::new();
    for test in &selected {
        writeln!(out, "[ RUN      ] {}", test.name).map_err(io)?;
        out.flush().map_err(io)?;
        let test_started = Instant::now();
        if let Some(recorder) = &recorder {
            recorder.scope_begin("execute");
        }
        let messages = session.run(test);
        if let Some(recorder) = &recorder {
            recorder.scope_end("execute");
        }
        let ms = test_started.elapsed().as_millis();
        let mut text = String::new();
        for message in &messages {
            text.push_str(&format!("{}: Failure\n{message}\n\n", test.name));
        }
        if messages.is_empty() {
            text.push_str(&format!("[       OK ] {} ({ms} ms)\n", test.name));
        } else {
            text.push_str(&format!("[  FAILED  ] {} ({ms} ms)\n", test.name));
            failed.push(test.name.clone());
        }
        out.write_all(text.as_bytes()).map_err(io)?;
        out.flush().map_err(io)?;
    }
    let total_ms = started.elapsed().as_millis();
    let mut footer = String::new();
    if !selected.is_empty() {
        footer.push_str(&format!(
            "[----------] {} from {suite} ({total_ms} ms total)\n\n",
            count(selected.len(), "test")
        ));
    }
    footer.push_str(&format!(
        "[----------] Global test environment tear-down\n[==========] {} from {} ran. ({total_ms} ms total)\n[  PASSED  ] {}.\n",
        count(selected.len(), "test"),
        count(suites, "test suite"),
        count(selected.len() - failed.len(), "test"),
    ));
    if !failed.is_empty() {
        footer.push_str(&format!(
            "[  FAILED  ] {}, listed below:\n",
            count(failed.len(), "test")
        ));
        for name in &failed {
            footer.push_str(&format!("[  FAILED  ] {name}\n"));
        }
        footer.push_str(&format!(
            "\n{:>2} FAILED {}\n",
            failed.len(),
            if failed.len() == 1 { "TEST" } else { "TESTS" }
        ));
    }
    out.write_all(footer.as_bytes()).map_err(io)?;
    if let Some(profiling) = profiling {
        profiling.finish()?;
    }
    drop(session.check);
    if let Some(recorder) = recorder {
        recorder.close()?;
    }
    if options.print_statistics {
        if let Some(device) = session.device {
            eprint!(
                "Device: {}\n{}",
                device.id(),
                device.allocator().statistics().format()
            );
        }
    }
    Ok(failed.is_empty())
}
