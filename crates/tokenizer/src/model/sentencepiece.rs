//! A direct encoder for SentencePiece-style configurations: a Prepend,
//! Replace and Precompiled normalizer (`normalizer/sentencepiece.rs`), a
//! Metaspace pre-tokenizer or none (`pre_tokenizer/metaspace.rs`), and a
//! Unigram model or a BPE model with byte fallback (Llama-2 and Mistral).
//! It runs the stages of the general pipeline without its per-character
//! alignments and is built only for configurations it reproduces exactly
//! (`SentencePieceEncoder::from_pipeline`); `tests/sentencepiece.rs`
//! compares it with the general pipeline.

use std::collections::HashMap;

use ahash::AHashMap;
use serde_json::Value;
use tokenizers::models::bpe::BPE;
use tokenizers::models::ModelWrapper;
use tokenizers::Model as _;

use crate::added_tokens::{AddedMatcher, Section};
use crate::model::byte_bpe::{merge_map, merge_symbols, BpeSource, Merges};
use crate::model::piece_cache::{self, PieceCache};
use crate::normalizer::sentencepiece::{Mapped, SpNormalizer};
use crate::pipeline::Encode;
use crate::pre_tokenizer::metaspace::{Metaspace, PrependScheme};
use crate::TokenSpan;

/// The character that SentencePiece models use for spaces.
const METASPACE: char = '\u{2581}';

/// Direct encoder for SentencePiece-style configurations.
pub(crate) struct SentencePieceEncoder {
    /// Distinguishes encoders in the per-thread piece cache.
    cache_owner: u64,
    normalizer: SpNormalizer,
    /// `None`: no pre-tokenizer (each section is one piece).
    metaspace: Option<Metaspace>,
    model: Model,
    added: AddedMatcher,
}

enum Model {
    Unigram(Unigram),
    Bpe(Bpe),
}

/// Buffers reused across the sections of one encode call.
#[derive(Default)]
struct Scratch {
    cache: PieceCache,
    normalized: Mapped,
    temp: Mapped,
    pretokenized: Mapped,
    pieces: Vec<(usize, usize)>,
    sections: Vec<Section>,
    ids: Vec<u32>,
    lattice: Vec<Best>,
}

impl SentencePieceEncoder {
    /// The encoder for `pipeline`, if it reproduces it exactly. `source`:
    /// a BPE model's vocabulary and merges in file order.
    pub(crate) fn from_pipeline(
        pipeline: &tokenizers::Tokenizer,
        source: Option<&BpeSource>,
    ) -> Option<Self> {
        let normalizer_json = match pipeline.get_normalizer() {
            Some(n) => Some(serde_json::to_value(n).ok()?),
            None => None,
        };
        let normalizer = SpNormalizer::from_json(normalizer_json.as_ref())?;
        let metaspace = match pipeline.get_pre_tokenizer() {
            Some(pre) => Some(Metaspace::from_json(&serde_json::to_value(pre).ok()?)?),
            None => None,
        };
        // `first` depends on where the crate's alignments put the start of
        // a section, which a charsmap can move; only plain text here.
        if metaspace.is_some_and(|m| m.prepend == PrependScheme::First) && !normalizer.is_empty() {
            return None;
        }
        let model = match pipeline.get_model() {
            ModelWrapper::Unigram(unigram) => {
                Model::Unigram(Unigram::new(&serde_json::to_value(unigram).ok()?)?)
            }
            ModelWrapper::BPE(bpe) => Model::Bpe(Bpe::new(bpe, source?, metaspace.is_none())?),
            _ => return None,
        };
        let added = AddedMatcher::new(pipeline, |s| normalizer.normalize_str(s))?;
        Some(SentencePieceEncoder {
            cache_owner: piece_cache::new_owner(),
            normalizer,
            metaspace,
            model,
            added,
        })
    }
}

impl Encode for SentencePieceEncoder {
    fn encode(&self, text: &str, match_special: bool, out: &mut Vec<TokenSpan>) {
        let first = out.len();
        let mut raw = Vec::new();
        self.added.split_raw(text, 0, match_special, &mut raw);
        let mut scratch = Scratch {
            cache: PieceCache::take(self.cache_owner),
            ..Scratch::default()
        };
        let mut words = Words::default();
        for section in raw {
            match section.id {
                Some(id) => out.push(TokenSpan {
                    id,
                    start: section.start,
                    end: section.end,
                    word: Some(words.next(true)),
                }),
                None => self.encode_section(
                    &text[section.start..section.end],
                    section.start,
                    match_special,
                    &mut words,
                    &mut scratch,
                    out,
                ),
            }
        }
        widen_segments(&mut out[first..]);
        scratch.cache.put_back();
    }
}

/// Segment numbering. A segment starts only where the input is cut
/// cleanly: at a section start, or where the normalized text passes to the
/// next input character (text that one character expanded to, and a
/// prepended `▁`, stay in the segment of that character), so that
/// re-encoding from a segment start gives the same segments.
#[derive(Default)]
struct Words {
    count: u32,
}

impl Words {
    /// The segment of a run of tokens that starts cleanly or not.
    fn next(&mut self, clean: bool) -> u32 {
        if clean || self.count == 0 {
            self.count += 1;
        }
        self.count - 1
    }
}

/// Gives every token of a segment the segment's whole input range.
fn widen_segments(spans: &mut [TokenSpan]) {
    let mut i = 0;
    while i < spans.len() {
        let mut j = i + 1;
        while j < spans.len() && spans[j].word == spans[i].word {
            j += 1;
        }
        let start = spans[i..j].iter().map(|s| s.start).min().unwrap_or(0);
        let end = spans[i..j].iter().map(|s| s.end).max().unwrap_or(0);
        for span in &mut spans[i..j] {
            span.start = start;
            span.end = end;
        }
        i = j;
    }
}

/// Whether normalized position `at` of `text` starts at its own input
/// character.
fn starts_cleanly(text: &Mapped, at: usize) -> bool {
    at == 0 || text.origin.get(at) != text.origin.get(at - 1)
}

impl SentencePieceEncoder {
    /// Normalizes one section of raw text (at input offset `base`), splits
    /// it at normalized added tokens and encodes the rest.
    fn encode_section(
        &self,
        text: &str,
        base: usize,
        match_special: bool,
        words: &mut Words,
        s: &mut Scratch,
        out: &mut Vec<TokenSpan>,
    ) {
        self.normalizer
            .normalize(text, base, &mut s.normalized, &mut s.temp);
        if s.normalized.text.is_empty() {
            return;
        }
        let end = base + text.len();
        let origin_at = |n: &Mapped, p: usize| n.origin.get(p).copied().unwrap_or(end);
        s.sections.clear();
        self.added
            .split_normalized(&s.normalized.text, 0, match_special, &mut s.sections);
        let sections = std::mem::take(&mut s.sections);
        for section in &sections {
            let clean = starts_cleanly(&s.normalized, section.start);
            let start = origin_at(&s.normalized, section.start);
            let stop = origin_at(&s.normalized, section.end);
            if let Some(id) = section.id {
                out.push(TokenSpan {
                    id,
                    start,
                    end: stop,
                    word: Some(words.next(clean)),
                });
                continue;
            }
            let range = (section.start, section.end);
            self.encode_part(range, clean, stop, words, s, out);
        }
        s.sections = sections;
    }

    /// Pre-tokenizes and encodes `s.part` (normalized text ending at input
    /// offset `end`; `clean`: it starts at its own input character).
    fn encode_part(
        &self,
        (from, to): (usize, usize),
        clean: bool,
        end: usize,
        words: &mut Words,
        s: &mut Scratch,
        out: &mut Vec<TokenSpan>,
    ) {
        s.pieces.clear();
        let (text, first) = match &self.metaspace {
            Some(metaspace) => {
                let part = &s.normalized.text[from..to];
                let origin = &s.normalized.origin[from..to];
                let at_start = origin.first() == Some(&0);
                metaspace.pre_tokenize(part, origin, at_start, &mut s.pretokenized, &mut s.pieces);
                (&s.pretokenized, 0)
            }
            None => {
                let part = &s.normalized.text[from..to];
                match &self.model {
                    Model::Bpe(bpe) if bpe.split_words => word_pieces(part, from, &mut s.pieces),
                    _ => s.pieces.push((from, to)),
                }
                (&s.normalized, from)
            }
        };
        for &(a, b) in &s.pieces {
            let word = words.next(if a == first {
                clean
            } else {
                starts_cleanly(text, a)
            });
            let start = text.origin[a];
            let stop = text.origin.get(b).copied().unwrap_or(end);
            let piece = &text.text[a..b];
            let ids = s
                .cache
                .ids(piece.as_bytes(), &mut s.ids, |ids| match &self.model {
                    Model::Unigram(unigram) => unigram.encode(piece, &mut s.lattice, ids),
                    Model::Bpe(bpe) => bpe.encode(piece, ids),
                });
            out.extend(ids.iter().map(|&id| TokenSpan {
                id,
                start,
                end: stop,
                word: Some(word),
            }));
        }
    }
}

/// Splits text before each `▁` that follows another character than `▁`
/// (BPE without a pre-tokenizer, where `Bpe::split_words` holds).
fn word_pieces(text: &str, base: usize, pieces: &mut Vec<(usize, usize)>) {
    let mut start = 0;
    let mut previous_is_space = true;
    for (at, c) in text.char_indices() {
        let is_space = c == METASPACE;
        if is_space && !previous_is_space && at > start {
            pieces.push((base + start, base + at));
            start = at;
        }
        previous_is_space = is_space;
    }
    if text.len() > start {
        pieces.push((base + start, base + text.len()));
    }
}

/// The ids of the byte tokens `<0xNN>` present in a vocabulary.
fn byte_token_ids(lookup: impl Fn(&str) -> Option<u32>) -> [Option<u32>; 256] {
    let mut ids = [None; 256];
    for (byte, id) in ids.iter_mut().enumerate() {
        *id = lookup(&format!("<0x{byte:02X}>"));
    }
    ids
}

/// A BPE model as the crate runs it on SentencePiece vocabularies:
/// characters, else their bytes as `<0xNN>` tokens (byte fallback), else
/// the unknown token (consecutive ones fused with `fuse_unk`), then merges.
struct Bpe {
    chars: AHashMap<char, u32>,
    ascii: [Option<u32>; 128],
    /// With byte fallback: the ids of all 256 byte tokens.
    bytes: Option<[u32; 256]>,
    unk: Option<u32>,
    fuse_unk: bool,
    merges: Merges,
    /// A `▁` after another character is a boundary no merge crosses (see
    /// `Bpe::boundaries_hold`), so words are encoded one by one.
    split_words: bool,
}

impl Bpe {
    fn new(bpe: &BPE, source: &BpeSource, whole_sections: bool) -> Option<Bpe> {
        if bpe.dropout.is_some_and(|d| d > 0.0)
            || bpe.continuing_subword_prefix.is_some()
            || bpe.end_of_word_suffix.is_some()
            || bpe.ignore_merges
        {
            return None;
        }
        let mut by_string: HashMap<&str, u32> = HashMap::with_capacity(source.vocab.len());
        for (token, id) in &source.vocab {
            by_string.insert(token.as_str(), *id);
        }
        // The model must be the one the source describes.
        if by_string.len() != bpe.get_vocab_size() {
            return None;
        }
        let unk = match &bpe.unk_token {
            // An unknown token outside the vocabulary is an error there.
            Some(token) => Some(*by_string.get(token.as_str())?),
            None => None,
        };
        let bytes = if bpe.byte_fallback {
            // With only some byte tokens the crate's order of unknown and
            // byte tokens is irregular: not reproduced.
            let ids = byte_token_ids(|s| by_string.get(s).copied());
            if ids.iter().any(Option::is_none) {
                return None;
            }
            Some(ids.map(|id| id.unwrap_or(u32::MAX)))
        } else {
            None
        };
        let merges = merge_map(source, &by_string)?;
        // Tokens whose string is not their text (byte and unknown tokens)
        // must not merge: the crate's stale-entry test compares results,
        // which is the same as comparing pairs only for text tokens.
        let opaque = |id: u32| Some(id) == unk || bytes.is_some_and(|b| b.contains(&id));
        if merges.keys().any(|&(a, b)| opaque(a) || opaque(b)) {
            return None;
        }
        let mut chars = AHashMap::new();
        let mut ascii = [None; 128];
        for (&token, &id) in &by_string {
            let mut it = token.chars();
            if let (Some(c), None) = (it.next(), it.next()) {
                chars.insert(c, id);
                if c.is_ascii() {
                    ascii[c as usize] = Some(id);
                }
            }
        }
        let split_words =
            whole_sections && Self::boundaries_hold(&by_string, bpe.unk_token.as_deref());
        Some(Bpe {
            chars,
            ascii,
            bytes,
            unk,
            fuse_unk: bpe.fuse_unk,
            merges,
            split_words,
        })
    }

    /// Whether no merge can cross a `▁` that follows another character:
    /// `▁` is a token, no token has another character followed by `▁`, and
    /// the unknown token does not end with `▁`. (A merge across such a
    /// boundary would make a token containing `x▁`.)
    fn boundaries_hold(by_string: &HashMap<&str, u32>, unk: Option<&str>) -> bool {
        let mut utf8 = [0u8; 4];
        if !by_string.contains_key(&*METASPACE.encode_utf8(&mut utf8)) {
            return false;
        }
        if unk.is_some_and(|u| u.ends_with(METASPACE)) {
            return false;
        }
        by_string.keys().all(|token| {
            let mut previous = METASPACE;
            token.chars().all(|c| {
                let crossing = c == METASPACE && previous != METASPACE;
                previous = c;
                !crossing
            })
        })
    }

    /// The id of a one-character token.
    fn char_id(&self, c: char) -> Option<u32> {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.chars.get(&c).copied()
        }
    }

    /// BPE of one word into `out`.
    fn encode(&self, word: &str, out: &mut Vec<u32>) {
        let mut pending_unk = false;
        for c in word.chars() {
            if let Some(id) = self.char_id(c) {
                self.flush_unk(&mut pending_unk, out);
                out.push(id);
            } else if let Some(bytes) = &self.bytes {
                let mut utf8 = [0u8; 4];
                out.extend(c.encode_utf8(&mut utf8).bytes().map(|b| bytes[b as usize]));
            } else if let Some(unk) = self.unk {
                if pending_unk && !self.fuse_unk {
                    out.push(unk);
                }
                pending_unk = true;
            }
        }
        self.flush_unk(&mut pending_unk, out);
        merge_symbols(&self.merges, out);
    }

    fn flush_unk(&self, pending: &mut bool, out: &mut Vec<u32>) {
        if std::mem::take(pending) {
            if let Some(unk) = self.unk {
                out.push(unk);
            }
        }
    }
}

/// A best path ending at a lattice position (SentencePiece's Viterbi).
#[derive(Clone, Copy)]
struct Best {
    score: f64,
    /// Where the last token starts; `u32::MAX` while unreached.
    start: u32,
    id: u32,
}

const UNREACHED: Best = Best {
    score: 0.0,
    start: u32::MAX,
    id: 0,
};

/// The crate's unknown-token penalty below the lowest score.
const UNK_PENALTY: f64 = 10.0;

/// A Unigram model: the best-scoring segmentation (Viterbi), consecutive
/// unknown pieces fused, then byte fallback or the unknown token for
/// pieces outside the vocabulary.
struct Unigram {
    trie: Trie,
    scores: Vec<f64>,
    unk: u32,
    unk_score: f64,
    /// With byte fallback: the ids of the byte tokens present.
    bytes: Option<[Option<u32>; 256]>,
}

impl Unigram {
    /// From the canonical JSON of the model.
    fn new(model: &Value) -> Option<Unigram> {
        let vocab = model.get("vocab")?.as_array()?;
        let unk = u32::try_from(model.get("unk_id")?.as_u64()?).ok()?;
        let byte_fallback = model.get("byte_fallback")?.as_bool()?;
        let mut scores = Vec::with_capacity(vocab.len());
        // Repeated strings keep their last id, as the crate's map does.
        let mut ids: AHashMap<&str, u32> = AHashMap::with_capacity(vocab.len());
        for (id, entry) in vocab.iter().enumerate() {
            let token = entry.get(0)?.as_str()?;
            scores.push(entry.get(1)?.as_f64()?);
            ids.insert(token, u32::try_from(id).ok()?);
        }
        if unk as usize >= scores.len() {
            return None;
        }
        let min_score = scores.iter().copied().fold(f64::INFINITY, f64::min);
        let bytes = byte_fallback.then(|| byte_token_ids(|s| ids.get(s).copied()));
        Some(Unigram {
            trie: Trie::new(ids.into_iter().filter(|(t, _)| !t.is_empty()).collect()),
            scores,
            unk,
            unk_score: min_score - UNK_PENALTY,
            bytes,
        })
    }

    /// Encodes one piece into `out`.
    fn encode(&self, piece: &str, lattice: &mut Vec<Best>, out: &mut Vec<u32>) {
        let bytes = piece.as_bytes();
        lattice.clear();
        lattice.resize(bytes.len() + 1, UNREACHED);
        let mut pos = 0;
        while pos < bytes.len() {
            let base = lattice[pos].score;
            let char_len = utf8_len(bytes[pos]);
            let mut single = false;
            self.trie.prefixes(&bytes[pos..], |len, id| {
                let score = self.scores[id as usize] + base;
                relax(&mut lattice[pos + len], score, pos, id);
                single |= len == char_len;
            });
            if !single {
                let end = (pos + char_len).min(bytes.len());
                relax(&mut lattice[end], self.unk_score + base, pos, self.unk);
            }
            pos += char_len;
        }
        self.backtrack(piece, lattice, out);
    }

    /// The tokens of the best path, consecutive unknown ones fused.
    fn backtrack(&self, piece: &str, lattice: &[Best], out: &mut Vec<u32>) {
        let first = out.len();
        let mut end = piece.len();
        let mut unk_end = None;
        while end > 0 {
            let best = lattice[end];
            let start = best.start as usize;
            if start >= end {
                break;
            }
            if best.id == self.unk {
                unk_end.get_or_insert(end);
            } else {
                if let Some(stop) = unk_end.take() {
                    self.push_unknown(&piece[end..stop], out);
                }
                out.push(best.id);
            }
            end = start;
        }
        if let Some(stop) = unk_end {
            self.push_unknown(&piece[..stop], out);
        }
        out[first..].reverse();
    }

    /// A fused run of unknown pieces (pushed in reverse, like `backtrack`).
    fn push_unknown(&self, text: &str, out: &mut Vec<u32>) {
        if let Some(id) = self.trie.get(text.as_bytes()) {
            out.push(id);
            return;
        }
        if let Some(bytes) = &self.bytes {
            let ids: Option<Vec<u32>> = text.bytes().map(|b| bytes[b as usize]).collect();
            if let Some(ids) = ids {
                out.extend(ids.iter().rev());
                return;
            }
        }
        out.push(self.unk);
    }
}

/// Takes `score` at `best` if it is unreached or `score` is higher.
fn relax(best: &mut Best, score: f64, start: usize, id: u32) {
    if best.start == u32::MAX || score > best.score {
        *best = Best {
            score,
            start: start as u32,
            id,
        };
    }
}

/// The length of the UTF-8 sequence that `first` starts.
fn utf8_len(first: u8) -> usize {
    match first {
        0..0xC0 => 1,
        0xC0..0xE0 => 2,
        0xE0..0xF0 => 3,
        _ => 4,
    }
}

/// A byte trie of the vocabulary: children in sorted runs, the root's in a
/// table.
struct Trie {
    root: Vec<u32>,
    /// Per node: its children are `labels/children[first[n]..first[n + 1]]`.
    first: Vec<u32>,
    labels: Vec<u8>,
    children: Vec<u32>,
    /// Per node: the token id ending there, `u32::MAX` if none.
    value: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Trie {
    fn new(mut entries: Vec<(&str, u32)>) -> Trie {
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        // Sorted keys add each node's children in label order, so only a
        // node's last child can continue the next key.
        let mut last_child: Vec<Option<(u8, u32)>> = vec![None];
        let mut value = vec![NONE];
        let mut edges: Vec<(u32, u8, u32)> = Vec::new();
        for (token, id) in entries {
            let mut node = 0usize;
            for &b in token.as_bytes() {
                node = match last_child[node] {
                    Some((label, child)) if label == b => child as usize,
                    _ => {
                        let child = last_child.len() as u32;
                        edges.push((node as u32, b, child));
                        last_child[node] = Some((b, child));
                        last_child.push(None);
                        value.push(NONE);
                        child as usize
                    }
                };
            }
            value[node] = id;
        }
        // Edges grouped by parent (a counting sort keeps label order).
        let nodes = value.len();
        let mut first = vec![0u32; nodes + 1];
        for &(parent, _, _) in &edges {
            first[parent as usize + 1] += 1;
        }
        for n in 0..nodes {
            first[n + 1] += first[n];
        }
        let mut labels = vec![0u8; edges.len()];
        let mut children = vec![0u32; edges.len()];
        let mut fill = first.clone();
        let mut root = vec![NONE; 256];
        for &(parent, label, child) in &edges {
            let at = fill[parent as usize] as usize;
            fill[parent as usize] += 1;
            labels[at] = label;
            children[at] = child;
            if parent == 0 {
                root[label as usize] = child;
            }
        }
        Trie {
            root,
            first,
            labels,
            children,
            value,
        }
    }

    fn child(&self, node: u32, label: u8) -> Option<u32> {
        if node == 0 {
            let child = self.root[label as usize];
            return (child != NONE).then_some(child);
        }
        let (lo, hi) = (
            self.first[node as usize] as usize,
            self.first[node as usize + 1] as usize,
        );
        let at = self.labels[lo..hi].binary_search(&label).ok()?;
        Some(self.children[lo + at])
    }

    /// Calls `found(len, id)` for each token that is a prefix of `key`,
    /// shortest first.
    fn prefixes(&self, key: &[u8], mut found: impl FnMut(usize, u32)) {
        let mut node = 0;
        for (i, &b) in key.iter().enumerate() {
            let Some(child) = self.child(node, b) else {
                return;
            };
            node = child;
            let id = self.value[node as usize];
            if id != NONE {
                found(i + 1, id);
            }
        }
    }

    /// The id of the token `key`.
    fn get(&self, key: &[u8]) -> Option<u32> {
        let mut node = 0;
        for &b in key {
            node = self.child(node, b)?;
        }
        let id = self.value[node as usize];
        (id != NONE && !key.is_empty()).then_some(id)
    }
}
