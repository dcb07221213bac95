//! Device profiling: a recorder every driver can feed with timed queue
//! operations and dispatches, started and stopped with
//! [`Device::profiling_begin`](crate::Device::profiling_begin) and
//! [`Device::profiling_end`](crate::Device::profiling_end).
//!
//! A [`ProfileRecorder`] costs one relaxed atomic load per check while no
//! capture is running. A capture ([`ProfileCapture`]) renders as Chrome
//! trace-event JSON (which Perfetto and `chrome://tracing` open) and as the
//! per-dispatch statistics table `--print_device_statistics` prints.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;

use iree_base::{Result, Status, StatusCode};
use parking_lot::Mutex;

/// What a profiling capture records, as a set of data families.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProfilingMode(u8);

impl ProfilingMode {
    /// Records nothing.
    pub const NONE: ProfilingMode = ProfilingMode(0);
    /// Queue operations (alloca, dealloca, execute, host operations).
    pub const QUEUE: ProfilingMode = ProfilingMode(1);
    /// Every executed dispatch (and, on multi-worker devices, the span each
    /// worker spent on it).
    pub const DISPATCH: ProfilingMode = ProfilingMode(2);

    /// Parses upstream's `--device_profiling_mode` value: a comma-separated
    /// list of data families. `queue-events`/`queue`,
    /// `dispatch-events`/`dispatch`, and `host-execution` (queue operations
    /// and dispatches as the host runs them) select what this runtime
    /// records; upstream's other families (`device-queue-events`,
    /// `memory-events`, `device-metrics`, `command-region-events`,
    /// `counters`, `counter-ranges`, `executable-metadata`,
    /// `executable-traces`) are accepted and record nothing more. Unknown
    /// names are an error.
    pub fn parse(text: &str) -> Result<ProfilingMode> {
        let mut mode = ProfilingMode::NONE;
        let mut rest = text.trim();
        while !rest.is_empty() {
            // As upstream: a trailing comma ends the list, an empty family
            // anywhere else is an error.
            let (name, tail) = rest.split_once(',').unwrap_or((rest, ""));
            rest = tail.trim();
            mode = mode
                | match name.trim() {
                    "" => {
                        return Err(Status::new(
                            StatusCode::InvalidArgument,
                            "--device_profiling_mode contains an empty data family",
                        ))
                    }
                    "queue" | "queue-events" => ProfilingMode::QUEUE,
                    "dispatch" | "dispatch-events" => ProfilingMode::DISPATCH,
                    "host-execution" => ProfilingMode::QUEUE | ProfilingMode::DISPATCH,
                    "device-queue-events"
                    | "memory-events"
                    | "device-metrics"
                    | "command-region-events"
                    | "counters"
                    | "counter-ranges"
                    | "executable-metadata"
                    | "executable-traces" => ProfilingMode::NONE,
                    other => {
                        return Err(Status::new(
                            StatusCode::InvalidArgument,
                            format!("unsupported profiling data family '{other}'"),
                        ))
                    }
                };
        }
        Ok(mode)
    }

    /// Whether every family of `other` is in `self`.
    pub fn contains(self, other: ProfilingMode) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether nothing is selected.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for ProfilingMode {
    type Output = ProfilingMode;
    fn bitor(self, rhs: ProfilingMode) -> ProfilingMode {
        ProfilingMode(self.0 | rhs.0)
    }
}

/// Where an event ran: a device queue, or one worker of a multi-worker
/// device. Each becomes one track (`tid`) of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Track {
    /// Queue operations of queue `n`.
    Queue(u32),
    /// Dispatches of queue `queue`; `lane` separates dispatches that ran
    /// concurrently (commands of one region of a command buffer).
    Dispatches {
        /// The queue.
        queue: u32,
        /// 0 for the first concurrent dispatch, 1 for the next, ….
        lane: u32,
    },
    /// Worker `n` of the device's worker pool.
    Worker(u32),
}

impl Track {
    /// The trace `tid` of this track: queues first, then their dispatch
    /// lanes, then workers.
    fn tid(self) -> u64 {
        match self {
            Track::Queue(n) => 1 + u64::from(n),
            Track::Dispatches { queue, lane } => 100 + 100 * u64::from(queue) + u64::from(lane),
            Track::Worker(n) => 100_000 + u64::from(n),
        }
    }

    fn name(self) -> String {
        match self {
            Track::Queue(n) => format!("queue {n}"),
            Track::Dispatches { queue, lane: 0 } => format!("queue {queue} dispatches"),
            Track::Dispatches { queue, lane } => {
                format!("queue {queue} dispatches (concurrent {lane})")
            }
            Track::Worker(n) => format!("worker {n}"),
        }
    }
}

/// What an event is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A queue operation (`alloca`, `dealloca`, `execute`, `host`).
    Queue,
    /// One executed dispatch.
    Dispatch {
        /// The executable's label (`embedded-elf-x86_64#0`).
        executable: Arc<str>,
        /// The dispatched export's ordinal in the executable.
        ordinal: u32,
        /// The workgroup count it ran over.
        workgroup_count: [u32; 3],
    },
    /// The part of a dispatch one worker ran (the span from the first to
    /// the last of its workgroups it ran).
    WorkerSlice {
        /// The executable's label.
        executable: Arc<str>,
        /// Workgroups this worker ran.
        workgroups: u64,
    },
}

impl EventKind {
    fn category(&self) -> &'static str {
        match self {
            EventKind::Queue => "queue",
            EventKind::Dispatch { .. } => "dispatch",
            EventKind::WorkerSlice { .. } => "worker",
        }
    }
}

/// An event's name: a fixed operation name, or a shared export name
/// (cloning either allocates nothing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventName {
    /// A fixed name (`execute`).
    Static(&'static str),
    /// A shared name (an export's).
    Shared(Arc<str>),
}

impl std::ops::Deref for EventName {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            EventName::Static(name) => name,
            EventName::Shared(name) => name,
        }
    }
}

impl From<&'static str> for EventName {
    fn from(name: &'static str) -> EventName {
        EventName::Static(name)
    }
}

impl From<Arc<str>> for EventName {
    fn from(name: Arc<str>) -> EventName {
        EventName::Shared(name)
    }
}

/// One timed event: `start_ns` from the capture's start, for `duration_ns`.
#[derive(Clone, Debug)]
pub struct ProfileEvent {
    /// The operation's name, or the dispatched export's.
    pub name: EventName,
    /// What it is.
    pub kind: EventKind,
    /// Where it ran.
    pub track: Track,
    /// Start, in nanoseconds since the capture began.
    pub start_ns: u64,
    /// Duration in nanoseconds.
    pub duration_ns: u64,
}

/// One export of a [`ProfileExecutable`]: what profile bundles list for
/// it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileExport {
    /// The export's name.
    pub name: Arc<str>,
    /// Push constants it takes.
    pub constant_count: u32,
    /// Bindings it takes.
    pub binding_count: u32,
    /// Its static workgroup size (1x1x1 when it has none).
    pub workgroup_size: [u32; 3],
}

/// What a profile knows of an executable a device loaded: its label (the
/// one [`EventKind::Dispatch`] names) and its exports, by ordinal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileExecutable {
    /// The label from [`ProfileRecorder::executable_label`].
    pub label: Arc<str>,
    /// Its exports, by ordinal.
    pub exports: Vec<ProfileExport>,
}

/// A device's profiling sink: drivers ask [`ProfileRecorder::mode`] before
/// timing anything and hand finished events to [`ProfileRecorder::record`].
pub struct ProfileRecorder {
    /// The active [`ProfilingMode`] bits; 0 while no capture runs.
    mode: AtomicU8,
    /// Labels handed to executables (`<format>#<n>`).
    executables: AtomicU32,
    /// The executables of the device still alive (see
    /// [`ProfileRecorder::register_executable`]).
    loaded: Mutex<Vec<Weak<ProfileExecutable>>>,
    capture: Mutex<Option<Capturing>>,
}

struct Capturing {
    epoch: Instant,
    events: Vec<ProfileEvent>,
    executables: Vec<Arc<ProfileExecutable>>,
}

impl Default for ProfileRecorder {
    fn default() -> ProfileRecorder {
        ProfileRecorder {
            mode: AtomicU8::new(0),
            executables: AtomicU32::new(0),
            loaded: Mutex::new(Vec::new()),
            capture: Mutex::new(None),
        }
    }
}

impl ProfileRecorder {
    /// A recorder with no capture running.
    pub fn new() -> Arc<ProfileRecorder> {
        Arc::new(ProfileRecorder::default())
    }

    /// The families being recorded now ([`ProfilingMode::NONE`] when no
    /// capture runs): one relaxed load.
    #[inline]
    pub fn mode(&self) -> ProfilingMode {
        ProfilingMode(self.mode.load(Ordering::Relaxed))
    }

    /// Whether dispatches are being recorded now.
    #[inline]
    pub fn records_dispatches(&self) -> bool {
        self.mode().contains(ProfilingMode::DISPATCH)
    }

    /// Whether queue operations are being recorded now.
    #[inline]
    pub fn records_queue(&self) -> bool {
        self.mode().contains(ProfilingMode::QUEUE)
    }

    /// A label for a newly created executable of `format`
    /// (`embedded-elf-x86_64#3`): the trace names executables by it.
    pub fn executable_label(&self, format: &str) -> Arc<str> {
        let n = self.executables.fetch_add(1, Ordering::Relaxed);
        Arc::from(format!("{format}#{n}"))
    }

    /// Notes a newly loaded executable, so that captures list it (with its
    /// exports) among their [`ProfileCapture::executables`]. The recorder
    /// keeps only a weak reference: the executable owns `executable`.
    pub fn register_executable(&self, executable: &Arc<ProfileExecutable>) {
        let mut loaded = self.loaded.lock();
        loaded.retain(|e| e.strong_count() > 0);
        loaded.push(Arc::downgrade(executable));
        drop(loaded);
        if let Some(capturing) = self.capture.lock().as_mut() {
            capturing.executables.push(executable.clone());
        }
    }

    /// Starts a capture of `mode`; FAILED_PRECONDITION while one runs.
    pub fn begin(&self, mode: ProfilingMode) -> Result<()> {
        let mut capture = self.capture.lock();
        if capture.is_some() {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "device profiling already begun",
            ));
        }
        let executables = self
            .loaded
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        *capture = Some(Capturing {
            epoch: Instant::now(),
            events: Vec::new(),
            executables,
        });
        self.mode.store(mode.0, Ordering::Release);
        Ok(())
    }

    /// Ends the capture and returns what it recorded; FAILED_PRECONDITION
    /// when none runs.
    pub fn end(&self) -> Result<ProfileCapture> {
        self.mode.store(0, Ordering::Release);
        let Some(capturing) = self.capture.lock().take() else {
            return Err(Status::new(
                StatusCode::FailedPrecondition,
                "device profiling not begun",
            ));
        };
        // In the order they completed: trace viewers order by time.
        Ok(ProfileCapture {
            duration_ns: nanos_since(capturing.epoch, Instant::now()),
            events: capturing.events,
            executables: capturing.executables,
        })
    }

    /// Records finished events, each `(name, kind, track, start, end)`;
    /// dropped when no capture runs. An event that began before the
    /// capture is clipped to the capture's start.
    pub fn record<I>(&self, events: I)
    where
        I: IntoIterator<Item = (EventName, EventKind, Track, Instant, Instant)>,
    {
        let mut capture = self.capture.lock();
        let Some(capturing) = capture.as_mut() else {
            return;
        };
        let epoch = capturing.epoch;
        capturing
            .events
            .extend(events.into_iter().map(|(name, kind, track, start, end)| {
                let start = start.max(epoch);
                ProfileEvent {
                    name,
                    kind,
                    track,
                    start_ns: nanos_since(epoch, start),
                    // A measurable duration: a span that the clock saw
                    // as empty still took time.
                    duration_ns: nanos_since(start, end).max(1),
                }
            }));
    }

    /// Times `op` as queue operation `name` on queue 0 (callers check
    /// [`ProfileRecorder::records_queue`] first).
    #[cold]
    pub fn time_queue_op<T>(&self, name: &'static str, op: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let value = op();
        let end = Instant::now();
        self.record([(
            EventName::Static(name),
            EventKind::Queue,
            Track::Queue(0),
            start,
            end,
        )]);
        value
    }
}

fn nanos_since(earlier: Instant, later: Instant) -> u64 {
    u64::try_from(later.saturating_duration_since(earlier).as_nanos()).unwrap_or(u64::MAX)
}

/// What one capture recorded.
#[derive(Clone, Debug, Default)]
pub struct ProfileCapture {
    /// How long the capture ran, in nanoseconds.
    pub duration_ns: u64,
    /// The events, in the order they were recorded (as they completed).
    pub events: Vec<ProfileEvent>,
    /// The executables loaded when the capture began or during it, in the
    /// order they were loaded.
    pub executables: Vec<Arc<ProfileExecutable>>,
}

/// Per-export dispatch statistics of a capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DispatchStatistics {
    /// The export's name.
    pub name: String,
    /// Dispatches run.
    pub count: u64,
    /// Their total duration in nanoseconds.
    pub total_ns: u64,
    /// The shortest, in nanoseconds.
    pub min_ns: u64,
    /// The longest, in nanoseconds.
    pub max_ns: u64,
}

impl DispatchStatistics {
    /// The mean duration in nanoseconds.
    pub fn mean_ns(&self) -> u64 {
        self.total_ns / self.count.max(1)
    }
}

impl ProfileCapture {
    /// The dispatch events.
    pub fn dispatches(&self) -> impl Iterator<Item = &ProfileEvent> {
        self.events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Dispatch { .. }))
    }

    /// Statistics per dispatched export, by total time (longest first, then
    /// by name).
    pub fn dispatch_statistics(&self) -> Vec<DispatchStatistics> {
        let mut by_name: std::collections::HashMap<&str, DispatchStatistics> =
            std::collections::HashMap::new();
        for event in self.dispatches() {
            let d = event.duration_ns;
            by_name
                .entry(&*event.name)
                .and_modify(|s| {
                    s.count += 1;
                    s.total_ns += d;
                    s.min_ns = s.min_ns.min(d);
                    s.max_ns = s.max_ns.max(d);
                })
                .or_insert_with(|| DispatchStatistics {
                    name: event.name.to_string(),
                    count: 1,
                    total_ns: d,
                    min_ns: d,
                    max_ns: d,
                });
        }
        let mut rows: Vec<_> = by_name.into_values().collect();
        rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.name.cmp(&b.name)));
        rows
    }

    /// The `--print_device_statistics` block in upstream's layout: a blank
    /// line, `IREE HAL device statistics:`, the totals, then one aggregate
    /// row per queue operation kind (`host_execute_queue p=0 q=0 <op>`,
    /// dispatches included) and per dispatched function (`host_execute
    /// <name>`), in the order each first finished. Only what this runtime
    /// measures is printed: CPU devices have no device-side timestamps
    /// (upstream prints 0 ns for those totals too), and queue submission
    /// to readiness is not timed, so upstream's `host_queue` rows are
    /// absent.
    pub fn format_device_statistics(&self) -> String {
        struct Aggregate {
            label: String,
            /// When its first operation finished.
            first_ns: u64,
            count: u64,
            total_ns: u64,
            tiles: u64,
            tile_ns: u64,
            is_function: bool,
        }
        let mut rows: Vec<Aggregate> = Vec::new();
        let mut add =
            |label: String, start: u64, duration: u64, tiles: u64, is_function: bool| match rows
                .iter_mut()
                .find(|r| r.label == label)
            {
                Some(r) => {
                    r.first_ns = r.first_ns.min(start + duration);
                    r.count += 1;
                    r.total_ns += duration;
                    r.tiles += tiles;
                    r.tile_ns += duration;
                }
                None => rows.push(Aggregate {
                    label,
                    first_ns: start + duration,
                    count: 1,
                    total_ns: duration,
                    tiles,
                    tile_ns: duration,
                    is_function,
                }),
            };
        let (mut function_total, mut queue_total) = (0u64, 0u64);
        for event in &self.events {
            let queue = match event.track {
                Track::Queue(q) | Track::Dispatches { queue: q, .. } => q,
                Track::Worker(_) => 0,
            };
            match &event.kind {
                EventKind::Queue => {
                    queue_total += event.duration_ns;
                    add(
                        format!("host_execute_queue p=0 q={queue} {}", &*event.name),
                        event.start_ns,
                        event.duration_ns,
                        0,
                        false,
                    );
                }
                EventKind::Dispatch { .. } => {
                    function_total += event.duration_ns;
                    queue_total += event.duration_ns;
                    add(
                        format!("host_execute_queue p=0 q={queue} dispatch"),
                        event.start_ns,
                        event.duration_ns,
                        1,
                        true,
                    );
                    add(
                        format!("host_execute {}", &*event.name),
                        event.start_ns,
                        event.duration_ns,
                        1,
                        true,
                    );
                }
                EventKind::WorkerSlice { .. } => {}
            }
        }
        rows.sort_by_key(|r| r.first_ns);
        let mut out = String::from("\nIREE HAL device statistics:\n");
        let _ = writeln!(out, "  aggregate_rows={}", rows.len());
        let _ = writeln!(out, "  dispatch_function_total=0 ns");
        let _ = writeln!(
            out,
            "  host_execution_function_total={}",
            format_ns(function_total)
        );
        let _ = writeln!(
            out,
            "  host_execution_queue_total={}",
            format_ns(queue_total)
        );
        let _ = writeln!(out, "  device_queue_total=0 ns");
        for r in &rows {
            let _ = write!(
                out,
                "  {}  count={} total={} avg={}",
                r.label,
                r.count,
                format_ns(r.total_ns),
                format_ns(r.total_ns / r.count.max(1))
            );
            if r.is_function {
                let _ = writeln!(out, " tiles={} tile_sum={}", r.tiles, format_ns(r.tile_ns));
            } else {
                let _ = writeln!(out, " operations={}", r.count);
            }
        }
        out
    }

    /// The capture as Chrome trace-event JSON: one complete (`"ph":"X"`)
    /// event per recorded event (timestamps in microseconds), named tracks
    /// (`thread_name` metadata) for each queue, dispatch lane and worker,
    /// and `otherData.capture_duration_us`.
    pub fn to_chrome_trace_json(&self, device: &str) -> String {
        let mut out = String::with_capacity(256 + self.events.len() * 192);
        out.push_str("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"device\":");
        iree_base::json::push_string(&mut out, device);
        out.push_str(",\"capture_duration_us\":");
        push_micros(&mut out, self.duration_ns);
        out.push_str("},\"traceEvents\":[\n");
        let _ = write!(
            out,
            "{{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{{\"name\":"
        );
        iree_base::json::push_string(&mut out, device);
        out.push_str("}}");
        let mut tracks: Vec<Track> = self.events.iter().map(|e| e.track).collect();
        tracks.sort();
        tracks.dedup();
        for track in tracks {
            let _ = write!(
                out,
                ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":\"{}\"}}}}",
                track.tid(),
                track.name()
            );
            let _ = write!(
                out,
                ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}}}",
                track.tid(),
                track.tid()
            );
        }
        for event in &self.events {
            out.push_str(",\n{\"ph\":\"X\",\"pid\":1,\"tid\":");
            push_u64(&mut out, event.track.tid());
            out.push_str(",\"cat\":\"");
            out.push_str(event.kind.category());
            out.push_str("\",\"name\":");
            iree_base::json::push_string(&mut out, &event.name);
            out.push_str(",\"ts\":");
            push_micros(&mut out, event.start_ns);
            out.push_str(",\"dur\":");
            push_micros(&mut out, event.duration_ns);
            match &event.kind {
                EventKind::Queue => {}
                EventKind::Dispatch {
                    executable,
                    workgroup_count: [x, y, z],
                    ..
                } => {
                    out.push_str(",\"args\":{\"executable\":");
                    iree_base::json::push_string(&mut out, executable);
                    out.push_str(",\"workgroup_count\":[");
                    push_u64(&mut out, u64::from(*x));
                    out.push(',');
                    push_u64(&mut out, u64::from(*y));
                    out.push(',');
                    push_u64(&mut out, u64::from(*z));
                    out.push_str("],\"duration_ns\":");
                    push_u64(&mut out, event.duration_ns);
                    out.push('}');
                }
                EventKind::WorkerSlice {
                    executable,
                    workgroups,
                } => {
                    out.push_str(",\"args\":{\"executable\":");
                    iree_base::json::push_string(&mut out, executable);
                    out.push_str(",\"workgroups\":");
                    push_u64(&mut out, *workgroups);
                    out.push('}');
                }
            }
            out.push('}');
        }
        out.push_str("\n]}\n");
        out
    }
}

/// Nanoseconds as fractional microseconds (the trace format's unit).
#[cfg(test)]
fn micros(ns: u64) -> String {
    let mut out = String::new();
    push_micros(&mut out, ns);
    out
}

/// Appends `ns` as microseconds with three decimals (`12.345`).
fn push_micros(out: &mut String, ns: u64) {
    push_u64(out, ns / 1000);
    let frac = ns % 1000;
    out.push('.');
    out.push(char::from(b'0' + (frac / 100) as u8));
    out.push(char::from(b'0' + (frac / 10 % 10) as u8));
    out.push(char::from(b'0' + (frac % 10) as u8));
}

/// Appends `value` in decimal (without `fmt`: traces hold many numbers).
fn push_u64(out: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or("0"));
}

/// A duration for the statistics table (`1.234 us`).
fn format_ns(ns: u64) -> String {
    match ns {
        0..=999 => format!("{ns} ns"),
        1_000..=999_999 => format!("{}.{:03} us", ns / 1_000, ns % 1_000),
        1_000_000..=999_999_999 => format!("{}.{:03} ms", ns / 1_000_000, ns / 1_000 % 1_000),
        _ => format!("{}.{:03} s", ns / 1_000_000_000, ns / 1_000_000 % 1_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn modes_parse_upstream_families_and_reject_unknown_ones() {
        assert_eq!(ProfilingMode::parse("").unwrap(), ProfilingMode::NONE);
        assert_eq!(
            ProfilingMode::parse("queue,dispatch").unwrap(),
            ProfilingMode::QUEUE | ProfilingMode::DISPATCH
        );
        assert_eq!(
            ProfilingMode::parse("dispatch-events").unwrap(),
            ProfilingMode::DISPATCH
        );
        assert_eq!(
            ProfilingMode::parse("memory-events").unwrap(),
            ProfilingMode::NONE
        );
        let err = ProfilingMode::parse("queue,bogus").unwrap_err();
        assert_eq!(err.code(), StatusCode::InvalidArgument);
        assert!(err.message().contains("'bogus'"));
        // Upstream's spacing and comma rules.
        assert_eq!(
            ProfilingMode::parse(" queue-events , dispatch-events,").unwrap(),
            ProfilingMode::QUEUE | ProfilingMode::DISPATCH
        );
        for bad in [",queue-events", "queue-events,,dispatch-events", " , "] {
            let err = ProfilingMode::parse(bad).unwrap_err();
            assert_eq!(err.code(), StatusCode::InvalidArgument);
            assert_eq!(
                err.message(),
                "--device_profiling_mode contains an empty data family"
            );
        }
        let err = ProfilingMode::parse("QUEUE-EVENTS").unwrap_err();
        assert!(err.message().contains("'QUEUE-EVENTS'"));
    }

    #[test]
    fn a_capture_records_only_while_running_and_summarizes_by_total() {
        let recorder = ProfileRecorder::new();
        assert!(!recorder.records_dispatches());
        let t0 = Instant::now();
        recorder.record([(
            EventName::Static("x"),
            EventKind::Queue,
            Track::Queue(0),
            t0,
            t0,
        )]);
        assert!(recorder.end().is_err());
        recorder.begin(ProfilingMode::DISPATCH).unwrap();
        assert!(recorder.begin(ProfilingMode::DISPATCH).is_err());
        assert!(recorder.records_dispatches() && !recorder.records_queue());
        let start = Instant::now();
        let exe: Arc<str> = Arc::from("elf#0");
        let dispatch = |name: &'static str, us: u64| {
            (
                EventName::Static(name),
                EventKind::Dispatch {
                    executable: exe.clone(),
                    ordinal: 0,
                    workgroup_count: [2, 1, 1],
                },
                Track::Dispatches { queue: 0, lane: 0 },
                start,
                start + Duration::from_micros(us),
            )
        };
        recorder.record([dispatch("a", 1), dispatch("b", 5), dispatch("a", 3)]);
        let capture = recorder.end().unwrap();
        assert!(!recorder.records_dispatches());
        let stats = capture.dispatch_statistics();
        assert_eq!(stats.len(), 2);
        assert_eq!((&*stats[0].name, stats[0].count), ("b", 1));
        assert_eq!(
            (
                &*stats[1].name,
                stats[1].count,
                stats[1].min_ns,
                stats[1].max_ns
            ),
            ("a", 2, 1000, 3000)
        );
        assert_eq!(stats[1].mean_ns(), 2000);
        let table = capture.format_device_statistics();
        assert!(
            table.starts_with("\nIREE HAL device statistics:\n"),
            "{table}"
        );
        assert!(table.contains("host_execute a  count=2 "), "{table}");
        assert!(
            table.contains("host_execute_queue p=0 q=0 dispatch  count=3 "),
            "{table}"
        );
        let json = capture.to_chrome_trace_json("local-sync \"x\"");
        assert_eq!(json.matches("\"ph\":\"X\"").count(), 3);
        assert!(json.contains("\"workgroup_count\":[2,1,1]"));
        assert!(json.contains("local-sync \\\"x\\\""));
        assert!(json.contains("\"ts\":0.000") || json.contains("\"dur\":1.000"));
        assert_eq!(micros(12_345), "12.345");
        assert_eq!(micros(7), "0.007");
    }
}
