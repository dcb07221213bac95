//! A small line diff for failure reports.

/// A unified-style line diff of `expected` against `actual`: lines only in
/// `expected` start with `-`, lines only in `actual` with `+`, shared lines
/// with a space. Shared runs far from a change are elided. At most
/// `max_lines` lines are returned.
pub fn line_diff(expected: &str, actual: &str, max_lines: usize) -> Vec<String> {
    let a: Vec<&str> = expected.split_inclusive('\n').collect();
    let b: Vec<&str> = actual.split_inclusive('\n').collect();
    // LCS table; outputs are small (cap the work anyway).
    let ops: Vec<(char, &str)> = if a.len() * b.len() > 4_000_000 {
        a.iter()
            .map(|l| ('-', *l))
            .chain(b.iter().map(|l| ('+', *l)))
            .collect()
    } else {
        let (n, m) = (a.len(), b.len());
        let mut lcs = vec![vec![0u32; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i][j] = if a[i] == b[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        let mut ops = Vec::new();
        while i < n || j < m {
            if i < n && j < m && a[i] == b[j] {
                ops.push((' ', a[i]));
                i += 1;
                j += 1;
            } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
                ops.push(('-', a[i]));
                i += 1;
            } else {
                ops.push(('+', b[j]));
                j += 1;
            }
        }
        ops
    };
    const CONTEXT: usize = 2;
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let near = |k: usize| changed.iter().any(|&c| c.abs_diff(k) <= CONTEXT);
    let mut out = Vec::new();
    let mut skipped = false;
    for (k, (tag, line)) in ops.iter().enumerate() {
        if *tag == ' ' && !near(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push("  ...".to_string());
            skipped = false;
        }
        out.push(format!("{tag} {}", show_line(line)));
    }
    if out.len() > max_lines {
        let more = out.len() - max_lines;
        out.truncate(max_lines);
        out.push(format!("  ... ({more} more diff lines)"));
    }
    out
}

/// A line for display: without its newline, marking a missing final newline.
fn show_line(line: &str) -> String {
    match line.strip_suffix('\n') {
        Some(l) => l.to_string(),
        None => format!("{line}⏎ (no newline at end)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_lines() {
        let d = line_diff("a\nb\nc\n", "a\nB\nc\n", 10);
        assert_eq!(d, vec!["  a", "- b", "+ B", "  c"]);
        let d = line_diff("x\n", "x", 10);
        assert_eq!(d, vec!["- x", "+ x⏎ (no newline at end)"]);
        assert!(line_diff("same\n", "same\n", 10).is_empty());
    }
}
