//! Command-line values that may not be UTF-8. Paths travel as `OsStr` (a
//! file name in Latin-1 is a valid Linux path); text is checked where it is
//! needed, with an INVALID_ARGUMENT that names the flag.

use std::ffi::OsStr;

use crate::{Result, Status, StatusCode};

/// The bytes of `s` (its platform encoding; on Unix, the bytes themselves).
fn bytes(s: &OsStr) -> &[u8] {
    s.as_encoded_bytes()
}

/// `s` from bytes taken out of an `OsStr` at ASCII boundaries.
#[cfg(unix)]
fn from_bytes(b: &[u8]) -> &OsStr {
    std::os::unix::ffi::OsStrExt::from_bytes(b)
}

/// `s` from bytes taken out of an `OsStr` at ASCII boundaries.
#[cfg(not(unix))]
fn from_bytes(b: &[u8]) -> &OsStr {
    // SAFETY: every caller passes a sub-slice of `as_encoded_bytes()`
    // split only immediately before or after an ASCII byte, which the
    // standard library documents as valid for `from_encoded_bytes_unchecked`.
    unsafe { OsStr::from_encoded_bytes_unchecked(b) }
}

/// Splits `s` at its first `separator` (an ASCII byte).
pub fn split_once(s: &OsStr, separator: u8) -> Option<(&OsStr, &OsStr)> {
    debug_assert!(separator.is_ascii());
    let b = bytes(s);
    let at = b.iter().position(|&c| c == separator)?;
    Some((from_bytes(&b[..at]), from_bytes(&b[at + 1..])))
}

/// `s` without its ASCII `prefix`.
pub fn strip_prefix<'a>(s: &'a OsStr, prefix: &str) -> Option<&'a OsStr> {
    debug_assert!(prefix.is_ascii());
    bytes(s).strip_prefix(prefix.as_bytes()).map(from_bytes)
}

/// Whether `s` starts with the ASCII `prefix`.
pub fn starts_with(s: &OsStr, prefix: &str) -> bool {
    strip_prefix(s, prefix).is_some()
}

/// `s` as text, or INVALID_ARGUMENT naming `flag` (`--function`).
pub fn to_text<'a>(s: &'a OsStr, flag: &str) -> Result<&'a str> {
    s.to_str().ok_or_else(|| {
        Status::new(
            StatusCode::InvalidArgument,
            format!(
                "{flag} value '{}' is not valid UTF-8 (only paths may hold other bytes)",
                s.to_string_lossy()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn non_utf8_bytes_survive_splitting() {
        use std::os::unix::ffi::OsStrExt;
        let flag = OsStr::from_bytes(b"scope=/tmp/caf\xe9.irpa");
        let (scope, path) = split_once(flag, b'=').unwrap();
        assert_eq!(scope, "scope");
        assert_eq!(path.as_bytes(), b"/tmp/caf\xe9.irpa");
        assert_eq!(
            strip_prefix(path, "/tmp/").unwrap().as_bytes(),
            b"caf\xe9.irpa"
        );
        assert!(starts_with(flag, "scope"));
        let status = to_text(path, "--parameters").unwrap_err();
        assert_eq!(status.code(), StatusCode::InvalidArgument);
        assert!(status.message().contains("--parameters"), "{status}");
        assert_eq!(to_text(OsStr::new("ok"), "--x").unwrap(), "ok");
    }
}
