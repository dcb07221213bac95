//! BERT-style pre-tokenizers with the `tokenizers` crate's semantics:
//! `BertPreTokenizer` (split at whitespace, which is dropped, and isolate
//! each punctuation character), `WhitespaceSplit` (split at whitespace) and
//! `Whitespace` (the matches of `\w+|[^\w\s]+`).

use tokenizers::PreTokenizerWrapper;
use unicode_categories::UnicodeCategories;

/// What a character is to a splitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Word,
    Space,
    Punctuation,
}

/// A BERT-style pre-tokenizer.
#[derive(Clone, Debug)]
pub(crate) enum BertPreTokenizer {
    /// Splits at `Space` characters and isolates `Punctuation` ones
    /// (classes of ASCII characters precomputed).
    Classes {
        punctuation: bool,
        ascii: [Class; 128],
    },
    /// The matches of `\w+|[^\w\s]+` (HF's `Whitespace`).
    Pattern(regex::Regex),
}

/// HF's `Whitespace` pattern.
const WHITESPACE_PATTERN: &str = r"\w+|[^\w\s]+";

/// BertPreTokenizer's punctuation: ASCII punctuation or Unicode P*.
fn is_bert_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

fn class(c: char, punctuation: bool) -> Class {
    if c.is_whitespace() {
        Class::Space
    } else if punctuation && is_bert_punctuation(c) {
        Class::Punctuation
    } else {
        Class::Word
    }
}

impl BertPreTokenizer {
    /// The pre-tokenizer for `pre`, if it is one of those implemented here.
    pub(crate) fn from_wrapper(pre: &PreTokenizerWrapper) -> Option<BertPreTokenizer> {
        let punctuation = match pre {
            PreTokenizerWrapper::BertPreTokenizer(_) => true,
            PreTokenizerWrapper::WhitespaceSplit(_) => false,
            PreTokenizerWrapper::Whitespace(_) => {
                return regex::Regex::new(WHITESPACE_PATTERN)
                    .ok()
                    .map(BertPreTokenizer::Pattern)
            }
            _ => return None,
        };
        let mut ascii = [Class::Word; 128];
        for (b, slot) in (0u8..).zip(ascii.iter_mut()) {
            *slot = class(char::from(b), punctuation);
        }
        Some(BertPreTokenizer::Classes { punctuation, ascii })
    }

    /// Calls `piece(start, end)` for each piece of `text`, in order.
    pub(crate) fn split(&self, text: &str, mut piece: impl FnMut(usize, usize)) {
        let (punctuation, ascii) = match self {
            BertPreTokenizer::Pattern(regex) => {
                regex
                    .find_iter(text)
                    .for_each(|m| piece(m.start(), m.end()));
                return;
            }
            BertPreTokenizer::Classes { punctuation, ascii } => (*punctuation, ascii),
        };
        let bytes = text.as_bytes();
        let mut word_start = None;
        let mut at = 0;
        while let Some(&b) = bytes.get(at) {
            let (kind, width) = match ascii.get(b as usize) {
                Some(&kind) => (kind, 1),
                None => match text[at..].chars().next() {
                    Some(c) => (class(c, punctuation), c.len_utf8()),
                    None => break,
                },
            };
            if kind == Class::Word {
                word_start.get_or_insert(at);
            } else {
                if let Some(start) = word_start.take() {
                    piece(start, at);
                }
                if kind == Class::Punctuation {
                    piece(at, at + width);
                }
            }
            at += width;
        }
        if let Some(start) = word_start {
            piece(start, bytes.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(pre: PreTokenizerWrapper, text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        BertPreTokenizer::from_wrapper(&pre)
            .unwrap()
            .split(text, |a, b| out.push(&text[a..b]));
        out
    }

    #[test]
    fn splits_like_the_tokenizers_crate() {
        use tokenizers::pre_tokenizers::bert::BertPreTokenizer as Bert;
        use tokenizers::pre_tokenizers::whitespace::{Whitespace, WhitespaceSplit};
        let text = "Hey friend!  How\u{3000}are «you»?!";
        assert_eq!(
            pieces(PreTokenizerWrapper::BertPreTokenizer(Bert), text),
            ["Hey", "friend", "!", "How", "are", "«", "you", "»", "?", "!"]
        );
        assert_eq!(
            pieces(PreTokenizerWrapper::WhitespaceSplit(WhitespaceSplit), text),
            ["Hey", "friend!", "How", "are", "«you»?!"]
        );
        assert_eq!(
            pieces(PreTokenizerWrapper::Whitespace(Whitespace), text),
            ["Hey", "friend", "!", "How", "are", "«", "you", "»?!"]
        );
    }
}
