//! Decoders turn token ids back into text. The general pipeline runs every
//! decoder of tokenizer.json through the `tokenizers` crate; the submodules
//! are direct decoders for configurations they reproduce exactly (chosen in
//! `pipeline.rs`). This module also holds what streaming decode needs on top:
//! finding text that is not final yet because a multi-byte character is
//! still incomplete.

pub(crate) mod byte_level;
pub(crate) mod sentencepiece;
pub(crate) mod wordpiece;

/// Per-id byte strings in one arena, with whether each id is a special
/// token: what direct decoders look up per id.
pub(crate) struct TokenTable {
    bytes: Vec<u8>,
    /// `offsets[id]..offsets[id + 1]` are the bytes of `id`.
    offsets: Vec<u32>,
    special: Vec<bool>,
}

impl TokenTable {
    /// Builds the table of ids `0..=max_id`; `entry(id)` gives the bytes and
    /// whether the id is special, `None` for an id without a token (decoded
    /// as nothing). `None` when the bytes exceed 4 GiB.
    pub(crate) fn build(
        max_id: u32,
        mut entry: impl FnMut(u32) -> Option<(Vec<u8>, bool)>,
    ) -> Option<TokenTable> {
        let mut table = TokenTable {
            bytes: Vec::new(),
            offsets: Vec::with_capacity(max_id as usize + 2),
            special: Vec::with_capacity(max_id as usize + 1),
        };
        table.offsets.push(0);
        for id in 0..=max_id {
            let (bytes, special) = entry(id).unwrap_or_default();
            table.bytes.extend_from_slice(&bytes);
            table.offsets.push(u32::try_from(table.bytes.len()).ok()?);
            table.special.push(special);
        }
        Some(table)
    }

    /// The bytes of `id` and whether it is special; `None` past the table.
    pub(crate) fn get(&self, id: u32) -> Option<(&[u8], bool)> {
        let id = id as usize;
        let special = *self.special.get(id)?;
        let range = self.offsets[id] as usize..self.offsets[id + 1] as usize;
        Some((&self.bytes[range], special))
    }
}

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
