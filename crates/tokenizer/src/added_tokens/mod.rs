//! Added tokens (special and not): the strings matched in raw text before
//! normalization and pre-tokenization.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// The added-token strings of a tokenizer, as the streaming encoder needs
/// them: to hold back text that could still grow into one. Each kind is
/// sorted, so that whether a string is a proper prefix of some token is a
/// binary search.
#[derive(Clone, Debug, Default)]
pub struct AddedTokens {
    special: Vec<String>,
    ordinary: Vec<String>,
    /// The longest token, in bytes.
    longest: usize,
}

impl AddedTokens {
    /// Collects the added tokens of `tokenizer`.
    pub(crate) fn of(tokenizer: &tokenizers::Tokenizer) -> Self {
        let mut tokens = AddedTokens::default();
        for (_, token) in tokenizer.get_added_tokens_decoder() {
            if token.content.is_empty() {
                continue;
            }
            tokens.longest = tokens.longest.max(token.content.len());
            if token.special {
                tokens.special.push(token.content);
            } else {
                tokens.ordinary.push(token.content);
            }
        }
        tokens.special.sort_unstable();
        tokens.ordinary.sort_unstable();
        tokens
    }

    /// The number of special added tokens.
    pub fn special_count(&self) -> usize {
        self.special.len()
    }

    /// The earliest byte offset `p >= from` such that `text[p..]` is a
    /// non-empty proper prefix of an added token that could be matched
    /// (special ones only when `match_special`), or `text.len()`.
    pub fn partial_match_start(&self, text: &str, from: usize, match_special: bool) -> usize {
        let bytes = text.as_bytes();
        let groups: &[&Vec<String>] = if match_special {
            &[&self.special, &self.ordinary]
        } else {
            &[&self.ordinary]
        };
        // Only the last `longest - 1` bytes can start a proper prefix.
        let first = from.max(bytes.len().saturating_sub(self.longest.saturating_sub(1)));
        (first..bytes.len())
            .find(|&p| {
                groups
                    .iter()
                    .any(|tokens| has_longer_with_prefix(tokens, &bytes[p..]))
            })
            .unwrap_or(bytes.len())
    }
}

/// Whether sorted `tokens` hold one that starts with `prefix` and is longer.
fn has_longer_with_prefix(tokens: &[String], prefix: &[u8]) -> bool {
    let at = tokens.partition_point(|t| t.as_bytes() < prefix);
    tokens[at..]
        .iter()
        .take_while(|t| t.as_bytes().starts_with(prefix))
        .any(|t| t.len() > prefix.len())
}

/// A stretch of text: an added token (`id`) or text between added tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Section {
    /// Byte offset of the start.
    pub start: usize,
    /// Byte offset of the end (exclusive).
    pub end: usize,
    /// The added token's id; `None` for ordinary text.
    pub id: Option<u32>,
}

/// Added tokens of one kind, matched leftmost-longest in one pass.
struct Pass {
    matcher: AhoCorasick,
    ids: Vec<u32>,
    special: Vec<bool>,
}

impl Pass {
    fn new(tokens: &[(u32, String, bool)]) -> Option<Option<Pass>> {
        if tokens.is_empty() {
            return Some(None);
        }
        let matcher = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(tokens.iter().map(|(_, content, _)| content.as_str()))
            .ok()?;
        Some(Some(Pass {
            matcher,
            ids: tokens.iter().map(|(id, _, _)| *id).collect(),
            special: tokens.iter().map(|(_, _, special)| *special).collect(),
        }))
    }

    /// Splits `text` at the added tokens it contains (special ones only when
    /// `match_special`), appending sections with offsets relative to `base`.
    fn split(&self, text: &str, base: usize, match_special: bool, out: &mut Vec<Section>) {
        let mut at = 0;
        for m in self.matcher.find_iter(text) {
            let index = m.pattern().as_usize();
            if !match_special && self.special[index] {
                continue;
            }
            if m.start() > at {
                out.push(Section {
                    start: base + at,
                    end: base + m.start(),
                    id: None,
                });
            }
            out.push(Section {
                start: base + m.start(),
                end: base + m.end(),
                id: Some(self.ids[index]),
            });
            at = m.end();
        }
        if at < text.len() || text.is_empty() {
            out.push(Section {
                start: base + at,
                end: base + text.len(),
                id: None,
            });
        }
    }
}

/// Finds added tokens as the `tokenizers` crate does: tokens with
/// `normalized: false` in the raw text first, then tokens with
/// `normalized: true` (their content normalized) in the normalized text of
/// what is left. Leftmost-longest within each pass.
pub(crate) struct AddedMatcher {
    raw: Option<Pass>,
    normalized: Option<Pass>,
}

impl AddedMatcher {
    /// Builds the matcher of `pipeline`'s added tokens; `normalize` gives the
    /// normalized form of a `normalized: true` token's content. `None` (the
    /// general pipeline then runs) where the general pipeline does what this
    /// does not reproduce: a token with `lstrip`, `rstrip` or `single_word`;
    /// a normalized token that normalizes to nothing (the general pipeline
    /// then splits text at every character); two tokens with one id (a token
    /// already in the model's vocabulary takes its id, and the id-keyed list
    /// this is built from keeps one of them, while the general pipeline
    /// matches both).
    pub(crate) fn new(
        pipeline: &tokenizers::Tokenizer,
        normalize: impl Fn(&str) -> String,
    ) -> Option<AddedMatcher> {
        let decoder = pipeline.get_added_tokens_decoder();
        let by_content = pipeline.get_added_vocabulary().get_vocab();
        let one_per_id = by_content.len() == decoder.len()
            && by_content
                .iter()
                .all(|(content, id)| decoder.get(id).is_some_and(|t| &t.content == content));
        let mut added: Vec<_> = decoder.into_iter().collect();
        added.sort_by_key(|(id, _)| *id);
        let vanishes = |t: &tokenizers::AddedToken| {
            t.normalized && !t.content.is_empty() && normalize(&t.content).is_empty()
        };
        if !one_per_id
            || added
                .iter()
                .any(|(_, t)| t.lstrip || t.rstrip || t.single_word || vanishes(t))
        {
            return None;
        }
        let pass = |normalized: bool| {
            let tokens: Vec<(u32, String, bool)> = added
                .iter()
                .filter(|(_, t)| t.normalized == normalized && !t.content.is_empty())
                .map(|(id, t)| {
                    let content = if normalized {
                        normalize(&t.content)
                    } else {
                        t.content.clone()
                    };
                    (*id, content, t.special)
                })
                .collect();
            Pass::new(&tokens)
        };
        Some(AddedMatcher {
            raw: pass(false)?,
            normalized: pass(true)?,
        })
    }

    /// Sections of raw `text` split at `normalized: false` tokens, with
    /// offsets relative to `base`.
    pub(crate) fn split_raw(
        &self,
        text: &str,
        base: usize,
        match_special: bool,
        out: &mut Vec<Section>,
    ) {
        match &self.raw {
            Some(pass) => pass.split(text, base, match_special, out),
            None => out.push(Section {
                start: base,
                end: base + text.len(),
                id: None,
            }),
        }
    }

    /// Sections of normalized `text` split at `normalized: true` tokens,
    /// with offsets relative to `base`.
    pub(crate) fn split_normalized(
        &self,
        text: &str,
        base: usize,
        match_special: bool,
        out: &mut Vec<Section>,
    ) {
        match &self.normalized {
            Some(pass) => pass.split(text, base, match_special, out),
            None => out.push(Section {
                start: base,
                end: base + text.len(),
                id: None,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_partial_prefixes() {
        let tokens = AddedTokens {
            special: vec!["<|endoftext|>".into()],
            ordinary: vec!["[X]".into()],
            longest: 13,
        };
        assert_eq!(tokens.partial_match_start("Hello <|end", 0, true), 6);
        assert_eq!(tokens.partial_match_start("Hello <|end", 0, false), 11);
        assert_eq!(tokens.partial_match_start("Hello <|end", 8, true), 11);
        assert_eq!(tokens.partial_match_start("a [", 0, false), 2);
        assert_eq!(tokens.partial_match_start("<|endoftext|>", 0, true), 13);
        assert_eq!(tokens.partial_match_start("", 0, true), 0);
    }

    /// The binary search agrees with trying every token at every offset.
    #[test]
    fn partial_prefixes_match_brute_force() {
        let words = [
            "<",
            "<|",
            "<|end",
            "<|endoftext|>",
            "ab",
            "abc",
            "b",
            "[X]",
            "x",
        ];
        let mut seed = 7u32;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) as usize % n
        };
        for _ in 0..300 {
            let mut tokens = AddedTokens::default();
            for _ in 0..1 + next(5) {
                let word = words[next(words.len())].to_string();
                tokens.longest = tokens.longest.max(word.len());
                if next(2) == 0 {
                    tokens.special.push(word)
                } else {
                    tokens.ordinary.push(word)
                }
            }
            tokens.special.sort_unstable();
            tokens.ordinary.sort_unstable();
            let text: String = (0..next(12))
                .map(|_| ['<', '|', 'e', 'a', 'b', 'x', '['][next(7)])
                .collect();
            for match_special in [false, true] {
                let from = next(text.len() + 1);
                let brute = (from..text.len())
                    .find(|&p| {
                        tokens
                            .ordinary
                            .iter()
                            .chain(tokens.special.iter().filter(|_| match_special))
                            .any(|t| t.len() > text.len() - p && t.starts_with(&text[p..]))
                    })
                    .unwrap_or(text.len());
                assert_eq!(
                    tokens.partial_match_start(&text, from, match_special),
                    brute,
                    "{tokens:?} {text:?} from {from}"
                );
            }
        }
    }
}
