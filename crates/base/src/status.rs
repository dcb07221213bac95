//! [`StatusCode`] and [`Status`]: IREE's error model.

use std::fmt;
use std::panic::Location;

/// The canonical IREE status codes (`iree_status_code_t`), with their numeric values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum StatusCode {
    /// Success.
    Ok = 0,
    /// The operation was cancelled.
    Cancelled = 1,
    /// An error with no better category.
    Unknown = 2,
    /// The caller passed an invalid argument.
    InvalidArgument = 3,
    /// A deadline passed before the operation completed.
    DeadlineExceeded = 4,
    /// Something that was looked up does not exist.
    NotFound = 5,
    /// Something that was created already exists.
    AlreadyExists = 6,
    /// The caller may not do this.
    PermissionDenied = 7,
    /// A resource (memory, stack, handles) ran out.
    ResourceExhausted = 8,
    /// The system is not in a state that allows the operation.
    FailedPrecondition = 9,
    /// The operation was aborted.
    Aborted = 10,
    /// A value is outside its valid range (indices, offsets).
    OutOfRange = 11,
    /// The operation is not implemented or not supported.
    Unimplemented = 12,
    /// An internal invariant was broken.
    Internal = 13,
    /// A service or device is not available.
    Unavailable = 14,
    /// Data was lost or corrupted.
    DataLoss = 15,
    /// The caller is not authenticated.
    Unauthenticated = 16,
    /// The operation yielded and must be resumed later.
    Deferred = 17,
    /// Versions or formats are incompatible.
    Incompatible = 18,
}

impl StatusCode {
    /// All codes, in numeric order.
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

    /// The code for a raw value, as carried by `vm.fail`; unknown values map
    /// to [`StatusCode::Unknown`] the way upstream does.
    pub fn from_raw(raw: u32) -> StatusCode {
        Self::ALL
            .get(raw as usize)
            .copied()
            .unwrap_or(StatusCode::Unknown)
    }

    /// The upper-case name upstream prints (`INVALID_ARGUMENT`).
    pub fn name(self) -> &'static str {
        match self {
            StatusCode::Ok => "OK",
            StatusCode::Cancelled => "CANCELLED",
            StatusCode::Unknown => "UNKNOWN",
            StatusCode::InvalidArgument => "INVALID_ARGUMENT",
            StatusCode::DeadlineExceeded => "DEADLINE_EXCEEDED",
            StatusCode::NotFound => "NOT_FOUND",
            StatusCode::AlreadyExists => "ALREADY_EXISTS",
            StatusCode::PermissionDenied => "PERMISSION_DENIED",
            StatusCode::ResourceExhausted => "RESOURCE_EXHAUSTED",
            StatusCode::FailedPrecondition => "FAILED_PRECONDITION",
            StatusCode::Aborted => "ABORTED",
            StatusCode::OutOfRange => "OUT_OF_RANGE",
            StatusCode::Unimplemented => "UNIMPLEMENTED",
            StatusCode::Internal => "INTERNAL",
            StatusCode::Unavailable => "UNAVAILABLE",
            StatusCode::DataLoss => "DATA_LOSS",
            StatusCode::Unauthenticated => "UNAUTHENTICATED",
            StatusCode::Deferred => "DEFERRED",
            StatusCode::Incompatible => "INCOMPATIBLE",
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

    /// `CODE; message; annotations...` without the location prefix.
    pub fn to_string_without_location(&self) -> String {
        let mut s = String::new();
        s.push_str(self.inner.code.name());
        if !self.inner.message.is_empty() || !self.inner.annotations.is_empty() {
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
    fn raw_codes_round_trip() {
        for code in StatusCode::ALL {
            assert_eq!(StatusCode::from_raw(code as u32), code);
        }
        assert_eq!(StatusCode::from_raw(99), StatusCode::Unknown);
    }
}
