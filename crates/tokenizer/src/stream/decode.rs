//! Streaming decode.
//!
//! A short window of recent ids is decoded as a whole on each feed, and the
//! text past what was already returned is emitted, minus trailing U+FFFD
//! (an incomplete UTF-8 character that the next ids may complete). Decoding
//! in context keeps decoder rules that depend on the previous token (word
//! piece joining, leading-space stripping) equal to one-shot decode. The
//! window is shortened when its tail decodes alone to the same text.
//!
//! Where decoding is a concatenation of per-id bytes (byte-level BPE), the
//! stream instead appends each id's bytes and emits every complete UTF-8
//! character (and U+FFFD for every byte sequence that can no longer become
//! one), as one-shot decode's lossy UTF-8 reading would: constant work per
//! id.

use crate::decoder::{common_prefix_len, stable_len};
use crate::error::{Error, ErrorKind, Result};
use crate::Tokenizer;

/// Ids kept as context once the window is shortened.
const KEEP: usize = 4;
/// Window length at which shortening is tried.
const TRIM_AT: usize = 8;

/// A streaming decoder made by [`Tokenizer::decode_stream`].
#[derive(Debug)]
pub struct DecodeStream {
    tokenizer: Tokenizer,
    skip_special_tokens: bool,
    window: Vec<u32>,
    /// The decoded text of `window` that was already returned.
    emitted: String,
    /// For a concatenating decoder: bytes not yet returned (an incomplete
    /// UTF-8 sequence at most).
    pending: Vec<u8>,
    finalized: bool,
}

impl DecodeStream {
    pub(crate) fn new(tokenizer: Tokenizer, skip_special_tokens: bool) -> Self {
        DecodeStream {
            tokenizer,
            skip_special_tokens,
            window: Vec::new(),
            emitted: String::new(),
            pending: Vec::new(),
            finalized: false,
        }
    }

    /// Whether [`DecodeStream::finalize`] was called.
    pub fn is_finalized(&self) -> bool {
        self.finalized
    }

    /// Feeds ids; returns the text that is complete.
    pub fn feed(&mut self, ids: &[u32]) -> Result<String> {
        if self.finalized {
            return Err(Error::new(
                ErrorKind::FailedPrecondition,
                "Cannot feed after finalize",
            ));
        }
        if ids.is_empty() {
            return Ok(String::new());
        }
        if let Some(decoder) = self.tokenizer.concatenating_decoder() {
            for &id in ids {
                decoder.append_token_bytes(id, self.skip_special_tokens, &mut self.pending);
            }
            return Ok(take_complete(&mut self.pending));
        }
        self.window.extend_from_slice(ids);
        // A ByteFallback decoder turns a whole run of byte tokens into one
        // U+FFFD per byte if any part of it is not UTF-8, so the text of a
        // run that may still grow is held back entirely.
        let run = self
            .window
            .iter()
            .rev()
            .take_while(|&&id| self.tokenizer.is_byte_fallback_token(id))
            .count();
        if run > 0 {
            let settled = &self.window[..self.window.len() - run];
            let text = self.tokenizer.decode(settled, self.skip_special_tokens)?;
            return Ok(self.advance(&text, stable_len(&text)));
        }
        let text = self
            .tokenizer
            .decode(&self.window, self.skip_special_tokens)?;
        let stable = stable_len(&text);
        let out = self.advance(&text, stable);
        if stable == text.len() && self.window.len() >= TRIM_AT {
            self.trim(&text)?;
        }
        Ok(out)
    }

    /// Returns `text[..end]` past what was emitted, and records it.
    fn advance(&mut self, text: &str, end: usize) -> String {
        let start = common_prefix_len(&self.emitted, &text[..end]);
        if start < self.emitted.len() {
            // The decoder rewrote text already returned; it cannot be taken
            // back, so continue after the longer of the two.
            if end <= self.emitted.len() {
                return String::new();
            }
            let from = (self.emitted.len()..=end)
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(end);
            let out = text[from..end].to_string();
            self.emitted = text[..end].to_string();
            return out;
        }
        let out = text[start..end].to_string();
        self.emitted = text[..end].to_string();
        out
    }

    /// Shortens the window to its last ids when they decode alone to the
    /// same text as in context.
    fn trim(&mut self, text: &str) -> Result<()> {
        for keep in KEEP..self.window.len() {
            let tail = &self.window[self.window.len() - keep..];
            let alone = self.tokenizer.decode(tail, self.skip_special_tokens)?;
            if stable_len(&alone) == alone.len() && text.ends_with(&alone) {
                self.window.drain(..self.window.len() - keep);
                self.emitted = alone;
                return Ok(());
            }
            if keep >= 2 * KEEP {
                break;
            }
        }
        Ok(())
    }

    /// Feeds one id; same as `feed(&[id])`.
    pub fn feed_one(&mut self, id: u32) -> Result<String> {
        self.feed(&[id])
    }

    /// Returns the remaining text (an incomplete character becomes U+FFFD).
    /// A stream can be finalized once.
    pub fn finalize(&mut self) -> Result<String> {
        if self.finalized {
            return Err(Error::new(
                ErrorKind::FailedPrecondition,
                "Already finalized",
            ));
        }
        self.finalized = true;
        if !self.pending.is_empty() {
            let out = String::from_utf8_lossy(&self.pending).into_owned();
            self.pending.clear();
            return Ok(out);
        }
        if self.window.is_empty() {
            return Ok(String::new());
        }
        let text = self
            .tokenizer
            .decode(&self.window, self.skip_special_tokens)?;
        let out = self.advance(&text, text.len());
        self.window.clear();
        self.emitted.clear();
        Ok(out)
    }
}

/// Removes and returns the text of `bytes` up to an incomplete UTF-8
/// sequence at its end; invalid sequences become U+FFFD, as in
/// `String::from_utf8_lossy`.
fn take_complete(bytes: &mut Vec<u8>) -> String {
    let mut out = String::new();
    let mut at = 0;
    while at < bytes.len() {
        match std::str::from_utf8(&bytes[at..]) {
            Ok(text) => {
                out.push_str(text);
                at = bytes.len();
            }
            Err(e) => {
                let valid = at + e.valid_up_to();
                out.push_str(std::str::from_utf8(&bytes[at..valid]).unwrap_or_default());
                match e.error_len() {
                    Some(len) => {
                        out.push('\u{FFFD}');
                        at = valid + len;
                    }
                    None => {
                        at = valid;
                        break;
                    }
                }
            }
        }
    }
    bytes.drain(..at);
    out
}

#[cfg(test)]
mod tests {
    use super::take_complete;

    /// Fed byte by byte, the pieces concatenate to the lossy reading of
    /// the whole, for valid, truncated and invalid sequences.
    #[test]
    fn incremental_utf8_equals_lossy_whole() {
        let cases: [&[u8]; 7] = [
            "héllo wörld \u{1F600}!".as_bytes(),
            b"\xf0\x9f\x98",
            b"a\xff\xfeb\xc3",
            b"\xe2\x82\xe2\x82\xac\x80",
            b"\xed\xa0\x80x\xf4\x90\x80\x80",
            b"\xc0\xaf\xe0\x80\xaf",
            b"",
        ];
        for case in cases {
            for step in 1..=4 {
                let mut pending = Vec::new();
                let mut out = String::new();
                for chunk in case.chunks(step) {
                    pending.extend_from_slice(chunk);
                    out += &take_complete(&mut pending);
                    assert!(pending.len() < 4);
                }
                out += &String::from_utf8_lossy(&pending);
                assert_eq!(out, String::from_utf8_lossy(case), "{case:?} step {step}");
            }
        }
    }
}
