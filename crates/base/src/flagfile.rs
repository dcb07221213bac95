//! Command lines as upstream's flag parser reads them: `--flagfile=PATH`
//! expands in place to the flags in the file (one a line; blank lines and
//! `#` comments skipped, so a tool's `--help` listing is a flagfile), and
//! a quoted value (`--flag="v"`, as `--help` prints string defaults) loses
//! its quotes. Every tool reads its arguments through [`expand_args`].

use std::ffi::OsString;

/// The program name and arguments of `args`, flagfiles expanded and values
/// unquoted; Err is the one-line message to print (exit code 1) for a
/// flagfile that cannot be read. Arguments that are not UTF-8 pass through
/// unchanged (paths may hold any bytes; the flag parser checks the rest).
pub fn expand_args(args: impl IntoIterator<Item = OsString>) -> Result<Vec<OsString>, String> {
    let mut out = Vec::new();
    for arg in args {
        match arg.into_string() {
            Ok(text) => out.extend(
                expand_flagfiles(vec![text])?
                    .into_iter()
                    .map(|a| OsString::from(unquote(a))),
            ),
            Err(arg) => match crate::os_args::strip_prefix(&arg, "--flagfile=") {
                Some(path) => out.extend(
                    read_flagfile(std::path::Path::new(path))?
                        .into_iter()
                        .map(|a| OsString::from(unquote(a))),
                ),
                None => out.push(arg),
            },
        }
    }
    Ok(out)
}

/// The flags a flagfile lists (one per line; blank lines and `#` comments
/// skipped).
fn read_flagfile(path: &std::path::Path) -> Result<Vec<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect()),
        Err(e) => Err(format!(
            "FLAGS ERROR: failed to read flagfile '{}': {e}",
            path.display()
        )),
    }
}

/// Replaces `--flagfile=PATH` arguments with the flags listed in the file
/// (one per line; blank lines and `#` comments skipped).
pub fn expand_flagfiles(args: Vec<String>) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        match arg.strip_prefix("--flagfile=") {
            Some(path) => out.extend(read_flagfile(std::path::Path::new(path))?),
            None => out.push(arg),
        }
    }
    Ok(out)
}

/// `--name="value"` as `--name=value`; anything else unchanged.
pub fn unquote(arg: String) -> String {
    let Some((name, value)) = arg.split_once('=') else {
        return arg;
    };
    match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) if name.starts_with("--") => format!("{name}={inner}"),
        _ => arg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_around_values_are_dropped() {
        assert_eq!(unquote("--function=\"mul\"".into()), "--function=mul");
        assert_eq!(unquote("--input=\"2xi32=1 2\"".into()), "--input=2xi32=1 2");
        assert_eq!(unquote("--x=\"".into()), "--x=\"");
        assert_eq!(unquote("plain=\"v\"".into()), "plain=\"v\"");
    }

    #[test]
    fn flagfiles_expand_in_place() {
        let path = std::env::temp_dir().join(format!("iree-flagfile-{}.txt", std::process::id()));
        std::fs::write(&path, "# a comment\n\n  --b=\"2\"  \n--c\n").unwrap();
        let args = expand_args(
            [
                "tool",
                "--a=1",
                &format!("--flagfile={}", path.display()),
                "--d",
            ]
            .iter()
            .map(OsString::from),
        )
        .unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(args, ["tool", "--a=1", "--b=2", "--c", "--d"]);
        let missing = expand_args(
            ["tool", "--flagfile=/nonexistent/x"]
                .iter()
                .map(OsString::from),
        );
        assert!(missing
            .unwrap_err()
            .starts_with("FLAGS ERROR: failed to read flagfile"));
    }
}
