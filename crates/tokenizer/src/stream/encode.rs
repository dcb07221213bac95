//! Streaming encode.
//!
//! The pending text is re-encoded on each feed; the tokens of all but the
//! last [`HOLD_SEGMENTS`] pre-tokenizer segments are final (appending text
//! can only change the segments at the end) unless they overlap a possible
//! added-token prefix at the end. The last emitted segment stays in the
//! buffer as left context, so that start-of-input rules (prefix spaces,
//! `prepend_scheme: first`) apply only at the real start.

use crate::error::{Error, ErrorKind, Result};
use crate::{EncodeOptions, TokenSpan, Tokenizer};

/// Segments at the end of the pending text that are not emitted yet.
const HOLD_SEGMENTS: usize = 2;

/// A streaming encoder made by [`Tokenizer::encode_stream`].
#[derive(Debug)]
pub struct EncodeStream {
    tokenizer: Tokenizer,
    options: EncodeOptions,
    /// Left context (already emitted) followed by pending text.
    buffer: String,
    /// Bytes of `buffer` that are context.
    context: usize,
    prefix_emitted: bool,
    finalized: bool,
}

/// A run of tokens from one pre-tokenizer segment.
struct Segment {
    start: usize,
    end: usize,
    tokens: std::ops::Range<usize>,
}

/// The segments of `spans`: runs of tokens of one pre-tokenizer word, and
/// runs whose input ranges overlap (a normalizer can expand one input
/// character into several that the pre-tokenizer then splits, e.g. NFKC's
/// Thai SARA AM: such pieces cannot be told apart in the input).
fn segments(spans: &[TokenSpan]) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for (i, span) in spans.iter().enumerate() {
        let same_word = i > 0 && span.word.is_some() && spans[i - 1].word == span.word;
        let overlaps = out.last().is_some_and(|s| span.start < s.end);
        let same = same_word || overlaps;
        match out.last_mut() {
            Some(segment) if same => {
                segment.start = segment.start.min(span.start);
                segment.end = segment.end.max(span.end);
                segment.tokens.end = i + 1;
            }
            _ => out.push(Segment {
                start: span.start,
                end: span.end,
                tokens: i..i + 1,
            }),
        }
    }
    out
}

impl EncodeStream {
    pub(crate) fn new(tokenizer: Tokenizer, options: EncodeOptions) -> Self {
        EncodeStream {
            tokenizer,
            options,
            buffer: String::new(),
            context: 0,
            prefix_emitted: false,
            finalized: false,
        }
    }

    /// Whether [`EncodeStream::finalize`] was called.
    pub fn is_finalized(&self) -> bool {
        self.finalized
    }

    fn emit_prefix(&mut self, out: &mut Vec<u32>) {
        if !self.prefix_emitted {
            self.prefix_emitted = true;
            if self.options.add_special_tokens {
                if let Some(affixes) = self.tokenizer.affixes() {
                    out.extend_from_slice(&affixes.prefix);
                }
            }
        }
    }

    /// Feeds a chunk of text; returns the ids that are final.
    pub fn feed(&mut self, chunk: &str) -> Result<Vec<u32>> {
        if self.finalized {
            return Err(Error::new(
                ErrorKind::FailedPrecondition,
                "Cannot feed after finalize",
            ));
        }
        let mut out = Vec::new();
        self.emit_prefix(&mut out);
        if chunk.is_empty() {
            return Ok(out);
        }
        self.buffer.push_str(chunk);
        let match_special = !self.options.no_special_token_matching;
        let spans = self.tokenizer.encode_spans(&self.buffer, match_special)?;
        let fresh: Vec<Segment> = segments(&spans)
            .into_iter()
            .filter(|s| s.start >= self.context)
            .collect();
        let guard = self.tokenizer.added_tokens().partial_match_start(
            &self.buffer,
            self.context,
            match_special,
        );
        let mut emit = fresh.len().saturating_sub(HOLD_SEGMENTS);
        while emit > 0 && fresh[emit - 1].end > guard {
            emit -= 1;
        }
        // The cut is where the first held segment starts; it must be a
        // character boundary (offsets always are, but check).
        let cut = fresh.get(emit).map_or(self.buffer.len(), |s| s.start);
        if emit == 0 || !self.buffer.is_char_boundary(cut) {
            return Ok(out);
        }
        let keep_from = fresh[emit - 1].start;
        if !self.buffer.is_char_boundary(keep_from) || keep_from > cut {
            return Ok(out);
        }
        for segment in &fresh[..emit] {
            out.extend(spans[segment.tokens.clone()].iter().map(|s| s.id));
        }
        self.buffer.drain(..keep_from);
        self.context = cut - keep_from;
        Ok(out)
    }

    /// Flushes the remaining ids (and the post-processor's closing tokens).
    /// A stream can be finalized once.
    pub fn finalize(&mut self) -> Result<Vec<u32>> {
        if self.finalized {
            return Err(Error::new(
                ErrorKind::FailedPrecondition,
                "Already finalized",
            ));
        }
        self.finalized = true;
        let mut out = Vec::new();
        self.emit_prefix(&mut out);
        if self.buffer.len() > self.context {
            let match_special = !self.options.no_special_token_matching;
            let spans = self.tokenizer.encode_spans(&self.buffer, match_special)?;
            for segment in segments(&spans)
                .into_iter()
                .filter(|s| s.start >= self.context)
            {
                out.extend(spans[segment.tokens].iter().map(|s| s.id));
            }
        }
        self.buffer = String::new();
        self.context = 0;
        if self.options.add_special_tokens {
            if let Some(affixes) = self.tokenizer.affixes() {
                out.extend_from_slice(&affixes.suffix);
            }
        }
        Ok(out)
    }
}
