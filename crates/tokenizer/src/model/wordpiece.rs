//! A direct implementation of BERT-style WordPiece: added-token matching,
//! the BERT normalizer, a BERT-style pre-tokenizer and greedy
//! longest-match-first WordPiece, without the per-character alignment
//! bookkeeping of the general pipeline. Used only for configurations it
//! reproduces exactly (see `WordPieceEncoder::from_pipeline`);
//! `tests/wordpiece.rs` compares it with the general pipeline.

use ahash::AHashMap;
use tokenizers::models::ModelWrapper;
use tokenizers::Model;

use crate::added_tokens::{AddedMatcher, Section};
use crate::normalizer::bert::{Alignments, BertNormalizer};
use crate::pipeline::Encode;
use crate::pre_tokenizer::bert::BertPreTokenizer;
use crate::TokenSpan;

/// Pieces of at most this many bytes are looked up as one integer.
const SHORT: usize = 15;

/// A piece of at most `SHORT` bytes as an integer: the bytes of `window`
/// (the piece and what follows it, zero-padded) up to `len`, and `len` in
/// the top byte.
fn packed(window: u128, len: usize) -> u128 {
    let mask = u128::MAX.checked_shr(128 - 8 * len as u32).unwrap_or(0);
    (window & mask) | ((len as u128) << 120)
}

/// Vocabulary strings of one kind (word-initial or continuing).
#[derive(Debug, Default)]
struct Pieces {
    /// Pieces of at most `SHORT` bytes, `packed`.
    short: AHashMap<u128, u32>,
    long: AHashMap<Box<str>, u32>,
    /// The length of the longest piece, in bytes.
    longest: usize,
}

impl Pieces {
    fn insert(&mut self, piece: &str, id: u32) {
        self.longest = self.longest.max(piece.len());
        if piece.len() <= SHORT {
            let mut window = [0u8; 16];
            window[..piece.len()].copy_from_slice(piece.as_bytes());
            self.short
                .insert(packed(u128::from_le_bytes(window), piece.len()), id);
        } else {
            self.long.insert(piece.into(), id);
        }
    }

    /// The longest vocabulary piece that `word[start..]` starts with, and
    /// where it ends.
    fn longest_match(&self, word: &str, start: usize) -> Option<(u32, usize)> {
        let mut end = word.len().min(start + self.longest);
        while end > start + SHORT {
            if let Some(&id) = word.get(start..end).and_then(|s| self.long.get(s)) {
                return Some((id, end));
            }
            end -= 1;
        }
        let mut window = [0u8; 16];
        let tail = word.as_bytes().get(start..end).unwrap_or_default();
        window[..tail.len()].copy_from_slice(tail);
        let window = u128::from_le_bytes(window);
        while end > start {
            if word.is_char_boundary(end) {
                if let Some(&id) = self.short.get(&packed(window, end - start)) {
                    return Some((id, end));
                }
            }
            end -= 1;
        }
        None
    }
}

/// WordPiece's vocabulary and rules.
#[derive(Debug)]
struct Vocabulary {
    /// Pieces that start a word.
    initial: Pieces,
    /// Pieces that continue a word, without the continuing-subword prefix.
    continuing: Pieces,
    unk: u32,
    max_input_chars_per_word: usize,
}

impl Vocabulary {
    fn new(model: &tokenizers::models::wordpiece::WordPiece) -> Option<Vocabulary> {
        let vocab = model.get_vocab();
        let mut initial = Pieces::default();
        let mut continuing = Pieces::default();
        for (piece, &id) in &vocab {
            initial.insert(piece, id);
            if let Some(rest) = piece.strip_prefix(model.continuing_subword_prefix.as_str()) {
                continuing.insert(rest, id);
            }
        }
        Some(Vocabulary {
            initial,
            continuing,
            // The general pipeline fails without it.
            unk: *vocab.get(&model.unk_token)?,
            max_input_chars_per_word: model.max_input_chars_per_word,
        })
    }

    /// Appends the ids of `word` (not empty) to `out`.
    fn tokenize(&self, word: &str, out: &mut Vec<u32>) {
        let too_long = word.len() > self.max_input_chars_per_word
            && word.chars().count() > self.max_input_chars_per_word;
        let first = out.len();
        let mut start = 0;
        while start < word.len() && !too_long {
            let pieces = if start == 0 {
                &self.initial
            } else {
                &self.continuing
            };
            let Some((id, end)) = pieces.longest_match(word, start) else {
                break;
            };
            out.push(id);
            start = end;
        }
        if start < word.len() {
            out.truncate(first);
            out.push(self.unk);
        }
    }
}

/// Direct encoder for BERT-style WordPiece configurations.
pub(crate) struct WordPieceEncoder {
    normalizer: Option<BertNormalizer>,
    pre_tokenizer: BertPreTokenizer,
    vocabulary: Vocabulary,
    added: AddedMatcher,
}

impl WordPieceEncoder {
    /// The encoder for `pipeline` if its configuration is one this encoder
    /// reproduces exactly: no normalizer or one made of the steps of
    /// `normalizer/bert.rs`; a pre-tokenizer of `pre_tokenizer/bert.rs`; a
    /// WordPiece model whose unknown token is in its vocabulary; added
    /// tokens without strip or single-word rules, none normalized to nothing.
    pub(crate) fn from_pipeline(pipeline: &tokenizers::Tokenizer) -> Option<Self> {
        let ModelWrapper::WordPiece(model) = pipeline.get_model() else {
            return None;
        };
        let normalizer = match pipeline.get_normalizer() {
            Some(normalizer) => Some(BertNormalizer::from_wrapper(normalizer)?),
            None => None,
        };
        let pre_tokenizer = BertPreTokenizer::from_wrapper(pipeline.get_pre_tokenizer()?)?;
        let vocabulary = Vocabulary::new(model)?;
        let normalize = |content: &str| {
            let mut out = String::new();
            match &normalizer {
                Some(normalizer) => normalizer.normalize(content, &mut out, None),
                None => out.push_str(content),
            }
            out
        };
        let added = AddedMatcher::new(pipeline, normalize)?;
        Some(WordPieceEncoder {
            normalizer,
            pre_tokenizer,
            vocabulary,
            added,
        })
    }
}

/// Buffers reused across the sections of one encode.
#[derive(Default)]
struct Scratch {
    normalized: String,
    /// Where the bytes of `normalized` come from in the section.
    alignments: Alignments,
    sections: Vec<Section>,
    ids: Vec<u32>,
}

/// Where the tokens of one stretch of text go.
struct Output<'a> {
    out: &'a mut Vec<TokenSpan>,
    word: u32,
}

impl Output<'_> {
    fn segment(&mut self, ids: &[u32], start: usize, end: usize) {
        let word = Some(self.word);
        self.out.extend(ids.iter().map(|&id| TokenSpan {
            id,
            start,
            end,
            word,
        }));
        self.word += 1;
    }
}

impl Encode for WordPieceEncoder {
    fn encode(&self, text: &str, match_special: bool, out: &mut Vec<TokenSpan>) {
        let mut raw = Vec::new();
        self.added.split_raw(text, 0, match_special, &mut raw);
        let mut scratch = Scratch::default();
        let mut output = Output { out, word: 0 };
        for section in raw {
            match section.id {
                Some(id) => output.segment(&[id], section.start, section.end),
                None => self.encode_section(
                    text,
                    section.start,
                    section.end,
                    match_special,
                    &mut scratch,
                    &mut output,
                ),
            }
        }
    }
}

impl WordPieceEncoder {
    /// Encodes `text[start..end]`, a stretch without raw added tokens.
    fn encode_section(
        &self,
        text: &str,
        start: usize,
        end: usize,
        match_special: bool,
        scratch: &mut Scratch,
        output: &mut Output,
    ) {
        let section = &text[start..end];
        scratch.normalized.clear();
        scratch.alignments.clear();
        match &self.normalizer {
            Some(normalizer) => normalizer.normalize(
                section,
                &mut scratch.normalized,
                Some(&mut scratch.alignments),
            ),
            None => {
                scratch.normalized.push_str(section);
                scratch.alignments.copied(0, 0);
            }
        }
        scratch.sections.clear();
        self.added
            .split_normalized(&scratch.normalized, 0, match_special, &mut scratch.sections);
        let Scratch {
            normalized,
            alignments,
            sections,
            ids,
        } = scratch;
        // The span in `text` of normalized bytes `from..to` (not empty): from
        // the start of the character the first byte comes from to the end of
        // the one the last byte comes from.
        let mut run = 0;
        let mut span = |from: usize, to: usize| {
            let first = start + alignments.source(from, &mut run);
            let mut last = start + alignments.source(to - 1, &mut run);
            while last > 0 && !text.is_char_boundary(last) {
                last -= 1;
            }
            let width = text
                .get(last..)
                .and_then(|rest| rest.chars().next())
                .map_or(0, char::len_utf8);
            (first, last + width)
        };
        for part in sections.iter() {
            if part.start >= part.end {
                continue;
            }
            if let Some(id) = part.id {
                let (from, to) = span(part.start, part.end);
                output.segment(&[id], from, to);
                continue;
            }
            let stretch = &normalized[part.start..part.end];
            self.pre_tokenizer.split(stretch, |a, b| {
                ids.clear();
                self.vocabulary.tokenize(&stretch[a..b], ids);
                let (from, to) = span(part.start + a, part.start + b);
                output.segment(ids, from, to);
            });
        }
    }
}
