//! Added tokens (special and not): the strings matched in raw text before
//! normalization and pre-tokenization.

/// The added-token strings of a tokenizer, as the streaming encoder needs
/// them: to hold back text that could still grow into one.
#[derive(Clone, Debug, Default)]
pub struct AddedTokens {
    special: Vec<String>,
    ordinary: Vec<String>,
}

impl AddedTokens {
    /// Collects the added tokens of `tokenizer`.
    pub(crate) fn of(tokenizer: &tokenizers::Tokenizer) -> Self {
        let mut tokens = AddedTokens::default();
        let mut decoder: Vec<_> = tokenizer.get_added_tokens_decoder().into_iter().collect();
        decoder.sort_by_key(|(id, _)| *id);
        for (_, token) in decoder {
            if token.content.is_empty() {
                continue;
            }
            if token.special {
                tokens.special.push(token.content);
            } else {
                tokens.ordinary.push(token.content);
            }
        }
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
        let available = bytes.len().saturating_sub(from);
        let mut start = bytes.len();
        let groups: &[&Vec<String>] = if match_special {
            &[&self.special, &self.ordinary]
        } else {
            &[&self.ordinary]
        };
        for token in groups.iter().flat_map(|g| g.iter()) {
            let token = token.as_bytes();
            let longest = (token.len() - 1).min(available);
            for k in (1..=longest).rev() {
                if bytes.len() - k >= start {
                    break;
                }
                if bytes.ends_with(&token[..k]) {
                    start = bytes.len() - k;
                    break;
                }
            }
        }
        start
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
        };
        assert_eq!(tokens.partial_match_start("Hello <|end", 0, true), 6);
        assert_eq!(tokens.partial_match_start("Hello <|end", 0, false), 11);
        assert_eq!(tokens.partial_match_start("Hello <|end", 8, true), 11);
        assert_eq!(tokens.partial_match_start("a [", 0, false), 2);
        assert_eq!(tokens.partial_match_start("<|endoftext|>", 0, true), 13);
        assert_eq!(tokens.partial_match_start("", 0, true), 0);
    }
}
