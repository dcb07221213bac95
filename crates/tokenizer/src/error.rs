//! Errors as values: a status-like kind plus a human readable message.

use std::fmt;

/// The class of an [`Error`], modelled on IREE status codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input (file contents, JSON, tiktoken data, arguments) is malformed.
    InvalidArgument,
    /// A named thing (file, encoding) does not exist.
    NotFound,
    /// The call is not valid in the object's current state (e.g. a
    /// finalized stream).
    FailedPrecondition,
    /// The input uses a feature this implementation does not support.
    Unimplemented,
    /// An unexpected internal failure.
    Internal,
}

impl ErrorKind {
    /// The IREE status code name of this kind, e.g. `INVALID_ARGUMENT`.
    pub fn status_name(self) -> &'static str {
        match self {
            ErrorKind::InvalidArgument => "INVALID_ARGUMENT",
            ErrorKind::NotFound => "NOT_FOUND",
            ErrorKind::FailedPrecondition => "FAILED_PRECONDITION",
            ErrorKind::Unimplemented => "UNIMPLEMENTED",
            ErrorKind::Internal => "INTERNAL",
        }
    }
}

/// A tokenizer error: a kind and a message that names what failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// A new error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// An [`ErrorKind::InvalidArgument`] error.
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidArgument, message)
    }

    /// The kind of this error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// This error with `context` prefixed to its message (`context; message`).
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.message = format!("{context}; {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; {}", self.kind.status_name(), self.message)
    }
}

impl std::error::Error for Error {}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Converts an error of the Hugging Face `tokenizers` crate.
pub(crate) fn from_hf(kind: ErrorKind, err: impl fmt::Display) -> Error {
    Error::new(kind, err.to_string())
}

/// Runs `f`, turning a panic inside the `tokenizers` crate (a bug there on
/// some malformed configuration) into an [`ErrorKind::Internal`] error.
pub(crate) fn guard<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Error::new(
                ErrorKind::Internal,
                format!("{what} failed: {detail}"),
            ))
        }
    }
}
