//! `cargo xtask readme`: the README's commands still do what it shows.
//!
//! A checked example is a ```` ```sh ```` block followed, with only blank
//! lines between, by a ```` ```text ```` block: the command is run from the
//! repository root with `sh -c` and its standard output must equal the text
//! block exactly (standard error, where cargo reports building, is not
//! compared). A `sh` block without a `text` block after it is shown, not
//! run. `cargo xtask test` runs this after the tests, so CI keeps the README
//! true.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::Result;

/// One command the README shows with its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// The line of the README where the command's block starts (1-based).
    pub line: usize,
    /// The command, as written (continuation lines included).
    pub command: String,
    /// The standard output the README shows.
    pub stdout: String,
}

/// The checked examples of a Markdown text (see the module docs).
pub fn examples(markdown: &str) -> Vec<Example> {
    // Fenced blocks: (start line, info string, body).
    let mut blocks: Vec<(usize, String, String, usize)> = Vec::new();
    let mut lines = markdown.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let mut body = String::new();
        let mut end = number;
        for (n, l) in lines.by_ref() {
            end = n;
            if l.trim_start().starts_with("```") {
                break;
            }
            body.push_str(l);
            body.push('\n');
        }
        blocks.push((number + 1, info.trim().to_string(), body, end + 1));
    }
    let all: Vec<&str> = markdown.lines().collect();
    blocks
        .windows(2)
        .filter_map(|pair| {
            let (start, info, command, end) = &pair[0];
            let (next_start, next_info, stdout, _) = &pair[1];
            let between = &all[*end..next_start - 1];
            (info == "sh" && next_info == "text" && between.iter().all(|l| l.trim().is_empty()))
                .then(|| Example {
                    line: *start,
                    command: command.trim_end().to_string(),
                    stdout: stdout.clone(),
                })
        })
        .collect()
}

/// The `cargo xtask readme` command: runs every checked example of
/// `README.md` and reports each mismatch.
pub fn run() -> Result<bool> {
    let root = crate::repo_root();
    let path = root.join("README.md");
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let examples = examples(&text);
    if examples.is_empty() {
        return Err("README.md shows no command with its output (```sh then ```text)".into());
    }
    let mut failed = 0;
    for example in &examples {
        eprintln!("readme: line {}: {}", example.line, example.command);
        match check(&root, example) {
            Ok(()) => {}
            Err(why) => {
                failed += 1;
                println!(
                    "FAIL README.md:{}: {}\n  {why}",
                    example.line, example.command
                );
            }
        }
    }
    println!(
        "readme: {} passed, {failed} failed",
        examples.len() - failed
    );
    Ok(failed == 0)
}

fn check(root: &Path, example: &Example) -> Result<()> {
    let output = Command::new("sh")
        .arg("-c")
        .arg(&example.command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("running sh: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!("exited with {}; stdout:\n{stdout}", output.status));
    }
    if stdout != example.stdout {
        return Err(format!(
            "stdout differs from what the README shows:\n{}",
            crate::diff::line_diff(&example.stdout, &stdout, 40).join("\n")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sh_block_followed_by_a_text_block_is_an_example() {
        let md = "intro\n\n```sh\ncargo run -- \\\n  --x\n```\n\n```text\nout 1\nout 2\n```\n\n\
                  ```sh\nshown only\n```\nprose\n```text\nnot its output\n```\n";
        assert_eq!(
            examples(md),
            [Example {
                line: 3,
                command: "cargo run -- \\\n  --x".into(),
                stdout: "out 1\nout 2\n".into(),
            }]
        );
    }
}
