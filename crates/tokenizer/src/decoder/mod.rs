//! Decoders turn token ids back into text. The general pipeline runs every
//! decoder of tokenizer.json through the `tokenizers` crate; the submodules
//! are direct decoders for configurations they reproduce exactly (chosen in
//! `pipeline.rs`). This module also holds what streaming decode needs on top:
//! finding text that is not final yet because a multi-byte character is
//! still incomplete.

pub(crate) mod byte_level;
pub(crate) mod sentencepiece;
pub(crate) mod wordpiece;

/// Bytes of a token copied as one block when it has at most this many.
const INLINE: usize = 16;
/// `Inline::len` of a token longer than `INLINE` (read from the arena).
const LONG: u8 = u8::MAX;

/// A token's bytes, zero-padded, for the one-block copy.
#[derive(Clone, Copy)]
struct Inline {
    bytes: [u8; INLINE],
    /// The length, or `LONG`.
    len: u8,
    special: bool,
}

/// Per-id byte strings, with whether each id is a special token: what
/// direct decoders look up per id. Every token is in one arena; tokens of
/// up to 16 bytes are also kept inline, so that concatenating them copies
/// a fixed 16-byte block per id (no length-dependent copy call).
pub(crate) struct TokenTable {
    bytes: Vec<u8>,
    /// `offsets[id]..offsets[id + 1]` are the bytes of `id`.
    offsets: Vec<u32>,
    inline: Vec<Inline>,
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
            inline: Vec::with_capacity(max_id as usize + 1),
        };
        table.offsets.push(0);
        for id in 0..=max_id {
            let (bytes, special) = entry(id).unwrap_or_default();
            let mut inline = Inline {
                bytes: [0; INLINE],
                len: LONG,
                special,
            };
            if bytes.len() <= INLINE {
                inline.bytes[..bytes.len()].copy_from_slice(&bytes);
                inline.len = bytes.len() as u8;
            }
            table.bytes.extend_from_slice(&bytes);
            table.offsets.push(u32::try_from(table.bytes.len()).ok()?);
            table.inline.push(inline);
        }
        Some(table)
    }

    /// The bytes of `id` and whether it is special; `None` past the table.
    pub(crate) fn get(&self, id: u32) -> Option<(&[u8], bool)> {
        let id = id as usize;
        let special = self.inline.get(id)?.special;
        let range = self.offsets[id] as usize..self.offsets[id + 1] as usize;
        Some((&self.bytes[range], special))
    }

    /// The bytes of `ids` concatenated (ids past the table skipped, special
    /// ones too when `skip_special`).
    pub(crate) fn concat(&self, ids: &[u32], skip_special: bool) -> Vec<u8> {
        // A block of INLINE bytes is appended per token and the buffer cut
        // back to the token's length: one fixed-size copy, no zeroing.
        let mut buf = Vec::with_capacity(ids.len() * 4 + INLINE);
        let mut len = 0;
        for &id in ids {
            let Some(inline) = self.inline.get(id as usize) else {
                continue;
            };
            if skip_special && inline.special {
                continue;
            }
            if inline.len != LONG {
                buf.extend_from_slice(&inline.bytes);
                len += inline.len as usize;
            } else if let Some((bytes, _)) = self.get(id) {
                buf.extend_from_slice(bytes);
                len += bytes.len();
            }
            buf.truncate(len);
        }
        buf
    }
}

/// The byte of a `<0xNN>` token, tested as the `tokenizers` crate's
/// ByteFallback decoder does.
pub(crate) fn fallback_byte(token: &str) -> Option<u8> {
    if token.len() == 6 && token.starts_with("<0x") && token.ends_with('>') {
        u8::from_str_radix(token.get(3..5)?, 16).ok()
    } else {
        None
    }
}

/// Per id, whether the decoder has a ByteFallback step and the id's token is
/// `<0xNN>` (a byte); empty when the decoder has no ByteFallback step.
pub(crate) fn byte_fallback_tokens(pipeline: &tokenizers::Tokenizer) -> Vec<bool> {
    let has_step = pipeline
        .get_decoder()
        .and_then(|d| serde_json::to_string(d).ok())
        .is_some_and(|json| json.contains(r#""type":"ByteFallback""#));
    if !has_step {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (token, id) in pipeline.get_vocab(true) {
        if fallback_byte(&token).is_some() {
            let id = id as usize;
            if id >= out.len() {
                out.resize(id + 1, false);
            }
            out[id] = true;
        }
    }
    out
}

/// The length of `text` without its trailing U+FFFD characters, which may
/// still turn into text once more ids arrive: an incomplete UTF-8 sequence
/// (up to three), or a run of byte-fallback tokens, which the ByteFallback
/// decoder turns into one U+FFFD per byte until the whole run is valid
/// UTF-8 (a run of any length).
pub fn stable_len(text: &str) -> usize {
    text.trim_end_matches('\u{FFFD}').len()
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
        assert_eq!(stable_len("x\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"), 1);
        assert_eq!(stable_len("a\u{FFFD}b"), 5);
    }

    #[test]
    fn common_prefix_respects_chars() {
        assert_eq!(common_prefix_len("héllo", "hèllo"), 1);
        assert_eq!(common_prefix_len("abc", "abd"), 2);
        assert_eq!(common_prefix_len("", "abd"), 0);
    }
}
