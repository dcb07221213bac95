//! `--help` in upstream's layout: a banner, the tool's description, then
//! every flag under `# ===` section rules, each as `#` comment lines and a
//! `--flag=default` line (commented out when the flag has no default), so
//! that the output is itself a flagfile, as upstream's is. The flags this
//! runtime accepts only for compatibility ([`crate::compat_flags`]) come
//! last, commented out, with what is done with them.

use std::fmt::Write as _;

use crate::compat_flags::{Handling, Tools, COMPAT_FLAGS};

const BANNER_RULE: &str =
    "# ============================================================================";
const SECTION_RULE: &str =
    "# ===----------------------------------------------------------------------===";

/// The `--help` text of `command` (a tool's clap command).
pub fn upstream_layout_help(command: &clap::Command) -> String {
    let name = command.get_name();
    let mut out = String::new();
    let _ = writeln!(out, "{BANNER_RULE}\n# 👻 IREE: {name}\n{BANNER_RULE}\n");
    if let Some(about) = command.get_about() {
        let _ = writeln!(out, "{about}\n");
    }
    section(&mut out, &format!("Flags of {name}"));
    for arg in command.get_arguments() {
        let (Some(long), false) = (arg.get_long(), arg.is_hide_set()) else {
            continue;
        };
        if let Some(help) = arg.get_long_help().or(arg.get_help()) {
            comment(&mut out, &help.to_string());
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        let takes_value = arg.get_action().takes_values();
        match (defaults.as_slice(), takes_value) {
            ([], true) => {
                let _ = writeln!(out, "# --{long}=...");
            }
            ([], false) => {
                let _ = writeln!(out, "# --{long}");
            }
            (values, _) => {
                let _ = writeln!(out, "--{long}={}", quoted(&values.join(",")));
            }
        }
        out.push('\n');
    }
    let tools = Tools::of_program(name);
    let compat: Vec<_> = COMPAT_FLAGS
        .iter()
        .filter(|f| f.tools.overlaps(tools))
        .collect();
    if !compat.is_empty() {
        section(&mut out, "Accepted for compatibility (see docs/flags.md)");
        for flag in compat {
            let what = match flag.handling {
                Handling::OtherDriver => {
                    "Another driver's setting: any value is accepted and ignored.".to_string()
                }
                Handling::Ignored(why) => format!("Accepted and ignored: {why}."),
                Handling::DefaultOnly(default) => format!(
                    "Only the default ({}) is supported; other values fail with UNIMPLEMENTED.",
                    quoted(default)
                ),
                Handling::OneOf(values) => format!(
                    "One of [{}], checked; no other effect here.",
                    values.join(", ")
                ),
            };
            comment(&mut out, &what);
            let _ = writeln!(out, "# --{}=...\n", flag.name);
        }
    }
    out
}

/// `text` as `# ` comment lines of at most 78 columns.
fn comment(out: &mut String, text: &str) {
    for paragraph in text.lines() {
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if !line.is_empty() && line.len() + 1 + word.len() > 76 {
                let _ = writeln!(out, "# {line}");
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        let _ = writeln!(out, "# {line}");
    }
}

fn section(out: &mut String, title: &str) {
    let _ = writeln!(out, "{SECTION_RULE}\n# {title}\n{SECTION_RULE}\n");
}

/// A default as upstream prints it: strings quoted, numbers and booleans
/// bare.
fn quoted(value: &str) -> String {
    let bare =
        value == "true" || value == "false" || (!value.is_empty() && value.parse::<f64>().is_ok());
    if bare {
        value.to_string()
    } else {
        format!("\"{value}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser)]
    #[command(name = "iree-run-module", about = "Runs things.")]
    struct Flags {
        /// The function.
        #[arg(long = "function", default_value = "")]
        function: String,
        /// Repeatable.
        #[arg(long = "input")]
        input: Vec<String>,
        /// A count.
        #[arg(long = "count", default_value_t = 3)]
        count: u32,
    }

    #[test]
    fn help_is_a_flagfile_in_upstreams_layout() {
        use clap::CommandFactory;
        let text = upstream_layout_help(&Flags::command());
        assert!(text.starts_with(BANNER_RULE));
        assert!(text.contains("# 👻 IREE: iree-run-module\n"));
        assert!(text.contains("# The function\n--function=\"\"\n"));
        assert!(text.contains("# Repeatable\n# --input=...\n"));
        assert!(text.contains("--count=3\n"));
        assert!(text.contains("# --cuda_tracing=...\n"));
        let args = iree_base::flagfile::expand_flagfiles(vec![]).unwrap();
        assert!(args.is_empty());
        for line in text.lines() {
            assert!(
                line.is_empty()
                    || line.starts_with('#')
                    || line.starts_with("--")
                    || line == "Runs things.",
                "{line}"
            );
        }
    }
}
