//! `iree_time_now` and deadlines (nanoseconds on the monotonic clock).

use crate::boundary;

/// `IREE_TIME_INFINITE_PAST`.
const INFINITE_PAST: i64 = i64::MIN;
/// `IREE_TIME_INFINITE_FUTURE` (also `IREE_DURATION_INFINITE`).
const INFINITE_FUTURE: i64 = i64::MAX;

/// `iree_time_now`: nanoseconds on the monotonic clock.
#[no_mangle]
pub extern "C" fn iree_time_now() -> i64 {
    boundary::value("iree_time_now", 0, || {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `now` is a valid out pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
        // `time_t` and `c_long` are narrower than i64 on 32-bit targets.
        #[allow(clippy::unnecessary_cast)]
        let (sec, nsec) = (now.tv_sec as i64, now.tv_nsec as i64);
        sec.saturating_mul(1_000_000_000).saturating_add(nsec)
    })
}

/// `iree_relative_timeout_to_deadline_ns`: now plus `timeout_ns` (0 is
/// the infinite past, an infinite duration the infinite future).
#[no_mangle]
pub extern "C" fn iree_relative_timeout_to_deadline_ns(timeout_ns: i64) -> i64 {
    boundary::value(
        "iree_relative_timeout_to_deadline_ns",
        0,
        || match timeout_ns {
            0 => INFINITE_PAST,
            INFINITE_FUTURE => INFINITE_FUTURE,
            timeout => iree_time_now().saturating_add(timeout),
        },
    )
}

/// A C timeout as the HAL's deadline (`None`: wait forever).
pub(crate) fn deadline(type_: u32, nanos: i64) -> Option<std::time::Instant> {
    let deadline_ns = if type_ == 0 {
        nanos
    } else {
        iree_relative_timeout_to_deadline_ns(nanos)
    };
    if deadline_ns == INFINITE_FUTURE {
        return None;
    }
    let remaining = deadline_ns.saturating_sub(iree_time_now()).max(0) as u64;
    Some(std::time::Instant::now() + std::time::Duration::from_nanos(remaining))
}
