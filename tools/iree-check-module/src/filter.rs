//! `--gtest_filter=`: `POSITIVE[-NEGATIVE]`, each a `:`-separated list of
//! patterns where `*` matches any text and `?` one character; a test runs
//! when its full name matches a positive pattern (all do when there are
//! none) and no negative one.

/// A parsed `--gtest_filter=`.
#[derive(Debug, Clone)]
pub struct TestFilter {
    text: String,
    positive: Vec<String>,
    negative: Vec<String>,
}

impl TestFilter {
    /// Parses the flag's value; `*` runs everything.
    pub fn parse(text: &str) -> TestFilter {
        let (positive, negative) = text.split_once('-').unwrap_or((text, ""));
        let patterns = |list: &str| -> Vec<String> {
            list.split(':')
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect()
        };
        let mut positive = patterns(positive);
        if positive.is_empty() {
            positive.push("*".to_string());
        }
        TestFilter {
            text: text.to_string(),
            positive,
            negative: patterns(negative),
        }
    }

    /// Whether the test named `name` (`suite.test`) runs.
    pub fn matches(&self, name: &str) -> bool {
        self.positive
            .iter()
            .any(|p| glob(p.as_bytes(), name.as_bytes()))
            && !self
                .negative
                .iter()
                .any(|p| glob(p.as_bytes(), name.as_bytes()))
    }

    /// The flag's value as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the filter is the default (runs everything).
    pub fn is_everything(&self) -> bool {
        self.positive == ["*"] && self.negative.is_empty()
    }
}

/// `*`/`?` wildcard matching, iterative with one backtrack point.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtest_filter_syntax() {
        let all = TestFilter::parse("*");
        assert!(all.is_everything() && all.matches("module.anything"));
        let f = TestFilter::parse("module.add*:module.sub");
        assert!(f.matches("module.add") && f.matches("module.add_i32"));
        assert!(f.matches("module.sub") && !f.matches("module.sub2"));
        let f = TestFilter::parse("-*wrong*:module.b?d");
        assert!(f.matches("module.add"));
        assert!(!f.matches("module.wrong_sum") && !f.matches("module.bad"));
        let f = TestFilter::parse("*.x?z-*.xaz");
        assert!(f.matches("m.xyz") && !f.matches("m.xaz") && !f.matches("m.xz"));
        assert!(!TestFilter::parse("").is_everything() || TestFilter::parse("").matches("a.b"));
    }
}
