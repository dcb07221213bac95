//! [`StatusCode`] and [`Status`]: IREE's error model.

use std::fmt;
use std::panic::Location;

/// An IREE status code (`iree_status_code_t`). Codes occupy 5 bits; the 19
/// named ones are associated constants, and the remaining values (which
/// `vm.fail` can produce) print with an empty name, as upstream's do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StatusCode(u8);

#[allow(
    non_upper_case_globals,
    reason = "named like enum variants, as callers use them"
)]
impl StatusCode {
    /// Success.
    pub const Ok: StatusCode = StatusCode(0);
    /// The operation was cancelled.
    pub const Cancelled: StatusCode = StatusCode(1);
    /// An error with no better category.
    pub const Unknown: StatusCode = StatusCode(2);
    /// The caller passed an invalid argument.
    pub const InvalidArgument: StatusCode = StatusCode(3);
    /// A deadline passed before the operation completed.
    pub const DeadlineExceeded: StatusCode = StatusCode(4);
    /// Something that was looked up does not exist.
    pub const NotFound: StatusCode = StatusCode(5);
    /// Something that was created already exists.
    pub const AlreadyExists: StatusCode = StatusCode(6);
    /// The caller may not do this.
    pub const PermissionDenied: StatusCode = StatusCode(7);
    /// A resource (memory, stack, handles) ran out.
    pub const ResourceExhausted: StatusCode = StatusCode(8);
    /// The system is not in a state that allows the operation.
    pub const FailedPrecondition: StatusCode = StatusCode(9);
    /// The operation was aborted.
    pub const Aborted: StatusCode = StatusCode(10);
    /// A value is outside its valid range (indices, offsets).
    pub const OutOfRange: StatusCode = StatusCode(11);
    /// The operation is not implemented or not supported.
    pub const Unimplemented: StatusCode = StatusCode(12);
    /// An internal invariant was broken.
    pub const Internal: StatusCode = StatusCode(13);
    /// A service or device is not available.
    pub const Unavailable: StatusCode = StatusCode(14);
    /// Data was lost or corrupted.
    pub const DataLoss: StatusCode = StatusCode(15);
    /// The caller is not authenticated.
    pub const Unauthenticated: StatusCode = StatusCode(16);
    /// The operation yielded and must be resumed later.
    pub const Deferred: StatusCode = StatusCode(17);
    /// Versions or formats are incompatible.
    pub const Incompatible: StatusCode = StatusCode(18);
}

impl StatusCode {
    /// The named codes, in numeric order.
    pub const ALL: [StatusCode; 19] = [
        StatusCode::Ok,
        StatusCode::Cancelled,
        StatusCode::Unknown,
        StatusCode::InvalidArgument,
        StatusCode::DeadlineExceeded,
        StatusCode::NotFound,
        StatusCode::AlreadyExists,
        StatusCode::PermissionDenied,
        StatusCode::ResourceExhausted,
        StatusCode::FailedPrecondition,
        StatusCode::Aborted,
        StatusCode::OutOfRange,
        StatusCode::Unimplemented,
        StatusCode::Internal,
        StatusCode::Unavailable,
        StatusCode::DataLoss,
        StatusCode::Unauthenticated,
        StatusCode::Deferred,
        StatusCode::Incompatible,
    ];

    /// The code for a raw value, as `vm.fail` carries it: upstream keeps the
    /// low 5 bits.
    pub fn from_raw(raw: u32) -> StatusCode {
        StatusCode((raw & 0x1F) as u8)
    }

    /// The numeric value.
    pub fn raw(self) -> u32 {
        u32::from(self.0)
    }

    /// The upper-case name upstream prints (`INVALID_ARGUMENT`); empty for
    /// codes without a name.
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "OK",
            1 => "CANCELLED",
            2 => "UNKNOWN",
            3 => "INVALID_ARGUMENT",
            4 => "DEADLINE_EXCEEDED",
            5 => "NOT_FOUND",
            6 => "ALREADY_EXISTS",
            7 => "PERMISSION_DENIED",
            8 => "RESOURCE_EXHAUSTED",
            9 => "FAILED_PRECONDITION",
            10 => "ABORTED",
            11 => "OUT_OF_RANGE",
            12 => "UNIMPLEMENTED",
            13 => "INTERNAL",
            14 => "UNAVAILABLE",
            15 => "DATA_LOSS",
            16 => "UNAUTHENTICATED",
            17 => "DEFERRED",
            18 => "INCOMPATIBLE",
            _ => "",
        }
    }
}

impl fmt::Display for StatusCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error: an IREE status code, a message, where it was raised and the
/// context added on its way up.
///
/// Displays the way upstream's tools print a status:
/// `file:line: CODE; message; annotation; ...`.
#[derive(Clone)]
pub struct Status {
    inner: Box<StatusInner>,
}

#[derive(Clone)]
struct StatusInner {
    code: StatusCode,
    message: String,
    location: Option<(&'static str, u32)>,
    annotations: Vec<String>,
}

impl Status {
    /// A status with `code` and `message`, located at the caller.
    #[track_caller]
    #[cold]
    pub fn new(code: StatusCode, message: impl Into<String>) -> Status {
        let location = Location::caller();
        Status {
            inner: Box::new(StatusInner {
                code,
                message: message.into(),
                location: Some((location.file(), location.line())),
                annotations: Vec::new(),
            }),
        }
    }

    /// A status with an explicit source location (`<vm>:0` for `vm.fail`).
    #[cold]
    pub fn with_location(
        code: StatusCode,
        message: impl Into<String>,
        file: &'static str,
        line: u32,
    ) -> Status {
        Status {
            inner: Box::new(StatusInner {
                code,
                message: message.into(),
                location: Some((file, line)),
                annotations: Vec::new(),
            }),
        }
    }

    /// A bare status: a code with no message and no source location, as
    /// upstream's `iree_status_from_code` (prints as just `CODE`).
    #[cold]
    pub fn from_code(code: StatusCode) -> Status {
        Status {
            inner: Box::new(StatusInner {
                code,
                message: String::new(),
                location: None,
                annotations: Vec::new(),
            }),
        }
    }

    /// A status with `code` and `message` but no source location (a status
    /// made from C without a file, `iree_status_allocate(code, NULL, 0, m)`).
    #[cold]
    pub fn without_location(code: StatusCode, message: impl Into<String>) -> Status {
        Status {
            inner: Box::new(StatusInner {
                code,
                message: message.into(),
                location: None,
                annotations: Vec::new(),
            }),
        }
    }

    /// Where the status was raised (`file`, `line`), if known.
    pub fn location(&self) -> Option<(&'static str, u32)> {
        self.inner.location
    }

    /// The status code.
    pub fn code(&self) -> StatusCode {
        self.inner.code
    }

    /// The primary message.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The annotations added while the status propagated, innermost first.
    pub fn annotations(&self) -> &[String] {
        &self.inner.annotations
    }

    /// Appends a context annotation (shown after the message, separated by `; `).
    #[must_use]
    pub fn annotate(mut self, annotation: impl Into<String>) -> Status {
        self.inner.annotations.push(annotation.into());
        self
    }

    /// `file:line: CODE; message`: the root cause without the annotations
    /// added while it propagated (what Google Benchmark's error rows show).
    pub fn to_string_without_annotations(&self) -> String {
        let mut s = String::new();
        if let Some((file, line)) = self.inner.location {
            s.push_str(&format!("{file}:{line}: "));
        }
        s.push_str(self.inner.code.name());
        if !self.inner.message.is_empty() {
            s.push_str("; ");
            s.push_str(&self.inner.message);
        }
        s
    }

    /// `CODE; message; annotations...` without the location prefix.
    pub fn to_string_without_location(&self) -> String {
        let mut s = String::new();
        s.push_str(self.inner.code.name());
        if !self.inner.message.is_empty() {
            s.push_str("; ");
            s.push_str(&self.inner.message);
        }
        for a in &self.inner.annotations {
            s.push_str("; ");
            s.push_str(a);
        }
        s
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((file, line)) = self.inner.location {
            write!(f, "{file}:{line}: ")?;
        }
        f.write_str(&self.to_string_without_location())
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Status {}

/// The result type used throughout the runtime.
pub type Result<T, E = Status> = std::result::Result<T, E>;

/// Adds context to a failed [`Result`].
pub trait ResultExt<T> {
    /// Annotates the error, if any, with `annotation`.
    fn annotate(self, annotation: impl Into<String>) -> Result<T>;
    /// Annotates the error, if any, with the text `f` makes (only on error).
    fn annotate_with<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn annotate(self, annotation: impl Into<String>) -> Result<T> {
        self.map_err(|s| s.annotate(annotation))
    }
    fn annotate_with<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|s| s.annotate(f()))
    }
}

/// Returns early with a [`Status`] built from a code and a format string.
///
/// `bail!(InvalidArgument, "bad {}", x)` expands to
/// `return Err(Status::new(StatusCode::InvalidArgument, format!("bad {}", x)))`.
#[macro_export]
macro_rules! bail {
    ($code:ident, $($arg:tt)+) => {
        return ::core::result::Result::Err($crate::Status::new($crate::StatusCode::$code, format!($($arg)+)))
    };
}

/// Builds a [`Status`] from a code and a format string.
#[macro_export]
macro_rules! status {
    ($code:ident, $($arg:tt)+) => {
        $crate::Status::new($crate::StatusCode::$code, format!($($arg)+))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_upstream() {
        let s = Status::with_location(StatusCode::InvalidArgument, "bad thing", "<vm>", 0)
            .annotate("")
            .annotate("invoking function 'boom'");
        assert_eq!(
            s.to_string(),
            "<vm>:0: INVALID_ARGUMENT; bad thing; ; invoking function 'boom'"
        );
    }

    #[test]
    fn bare_codes_print_without_location_or_message() {
        let s = Status::from_code(StatusCode::InvalidArgument).annotate("parsing input `x`");
        assert_eq!(s.to_string(), "INVALID_ARGUMENT; parsing input `x`");
    }

    #[test]
    fn raw_codes_round_trip() {
        for code in StatusCode::ALL {
            assert_eq!(StatusCode::from_raw(code.raw()), code);
        }
        assert_eq!(StatusCode::from_raw(100), StatusCode::DeadlineExceeded);
        assert_eq!(StatusCode::from_raw(19).name(), "");
        assert_eq!(StatusCode::from_raw(u32::MAX).name(), "");
    }
}
