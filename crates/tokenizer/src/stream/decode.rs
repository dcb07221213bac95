//! Streaming decode.
//!
//! A short window of recent ids is decoded as a whole on each feed, and the
//! text past what was already returned is emitted, minus trailing U+FFFD
//! (an incomplete UTF-8 character that the next ids may complete). Decoding
//! in context keeps decoder rules that depend on the previous token (word
//! piece joining, leading-space stripping) equal to one-shot decode. The
//! window is shortened when its tail decodes alone to the same text.

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
    finalized: bool,
}

impl DecodeStream {
    pub(crate) fn new(tokenizer: Tokenizer, skip_special_tokens: bool) -> Self {
        DecodeStream {
            tokenizer,
            skip_special_tokens,
            window: Vec::new(),
            emitted: String::new(),
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
        self.window.extend_from_slice(ids);
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
