//! Decoders turn token ids back into text. The general pipeline runs every
//! decoder of tokenizer.json through the `tokenizers` crate; the submodules
//! are direct decoders for configurations they reproduce exactly (chosen in
//! `pipeline.rs`). This module also holds what streaming decode needs on top:
//! finding text that is not final yet because a multi-byte character is
//! still incomplete.

pub(crate) mod byte_level;
pub(crate) mod sentencepiece;
pub(crate) mod wordpiece;

/// The length of `text` without its trailing U+FFFD characters (at most
/// three: the longest incomplete UTF-8 sequence), which may turn into one
/// character once more bytes arrive.
pub fn stable_len(text: &str) -> usize {
    let mut end = text.len();
    for _ in 0..3 {
        match text[..end].strip_suffix('\u{FFFD}') {
            Some(rest) => end = rest.len(),
            None => break,
        }
    }
    end
}

/// The length of the longest common prefix of `a` and `b` that ends on a
/// character boundary of both.
pub fn common_prefix_len(a: &str, b: &str) -> usize {
    let mut len = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !(a.is_char_boundary(len) && b.is_char_boundary(len)) {
        len -= 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_len_drops_trailing_replacements() {
        assert_eq!(stable_len("ab"), 2);
        assert_eq!(stable_len("ab\u{FFFD}"), 2);
        assert_eq!(stable_len("\u{FFFD}\u{FFFD}"), 0);
        assert_eq!(stable_len("a\u{FFFD}b"), 5);
    }

    #[test]
    fn common_prefix_respects_chars() {
        assert_eq!(common_prefix_len("héllo", "hèllo"), 1);
        assert_eq!(common_prefix_len("abc", "abd"), 2);
        assert_eq!(common_prefix_len("", "abd"), 0);
    }
}
