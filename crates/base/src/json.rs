//! JSON text the tools write by hand (Google Benchmark reports, flatcc-style
//! module dumps, Chrome trace events): one string escaper for all of them.

use std::fmt::Write;

/// Appends `text` as a JSON string literal: `"` and `\` escaped, `\n`,
/// `\r`, `\t`, `\b`, `\f` in their short forms and other control
/// characters as `\u00XX` (the forms Google Benchmark and flatcc write).
pub fn push_string(out: &mut String, text: &str) {
    out.push('"');
    if !text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push_str(text);
        out.push('"');
        return;
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `text` as a JSON string literal (see [`push_string`]).
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    push_string(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(string("plain"), "\"plain\"");
        assert_eq!(string("a\"b\\"), "\"a\\\"b\\\\\"");
        assert_eq!(
            string("\n\r\t\u{8}\u{c}\u{1}"),
            "\"\\n\\r\\t\\b\\f\\u0001\""
        );
        assert_eq!(string("é"), "\"é\"");
    }
}
