//! A direct implementation of byte-level BPE, the model of GPT-2 style
//! tokenizer.json files and of every tiktoken file: added-token matching,
//! regex pre-tokenization, byte-to-id mapping and merges, without the
//! per-character alignment bookkeeping of the general pipeline. It is used
//! only for configurations it reproduces exactly (see `ByteBpe::from_pipeline`),
//! and tests and the `tokenizer_round_trip` fuzz target compare it with the
//! general pipeline.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use ahash::AHashMap;
use fancy_regex::Regex;
use serde_json::Value;
use tokenizers::models::ModelWrapper;
use tokenizers::Model;

use crate::added_tokens::{AddedMatcher, Section};
use crate::model::byte_level;
use crate::model::piece_cache::{self, PieceCache};
use crate::pipeline::Encode;
use crate::TokenSpan;

/// GPT-2's split pattern, as the ByteLevel pre-tokenizer applies it.
const BYTE_LEVEL_PATTERN: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

/// Split patterns run on the `regex` crate (see `Splitter`): GPT-2's
/// (ByteLevel and r50k/p50k), cl100k's and o200k's (tiktoken), and the
/// Llama-3 and Qwen2 tokenizer.json ones.
pub const AUTOMATON_PATTERNS: &[&str] = &[
    BYTE_LEVEL_PATTERN,
    crate::format::tiktoken::CL100K_PATTERN,
    crate::format::tiktoken::O200K_PATTERN,
    crate::format::tiktoken::GPT2_PATTERN,
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    // DeepSeek V2/V3 (the last of its three Splits; JSON escapes, so CR and
    // LF are literal characters in the classes).
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
];

/// The split regex. Patterns without lookaround, and patterns whose only
/// lookaround is the usual `\s+(?!\S)` alternative, run on the `regex`
/// crate's automata (without that lookahead; the whitespace run it would
/// have shortened is shortened here).
enum Splitter {
    Backtracking(Regex),
    Automaton {
        regex: regex::Regex,
        /// The pattern had the `\s+(?!\S)` alternative.
        lookahead: bool,
        /// The pattern has a `\s*[\r\n]+` alternative before `\s+(?!\S)`.
        newline_alternative: bool,
    },
}

impl Splitter {
    fn new(pattern: &str) -> Option<Splitter> {
        const LOOKAHEAD: &str = r"|\s+(?!\S)|";
        // Only patterns known to have the required shape: the lookahead
        // alternative followed by `\s+` last, and no earlier alternative
        // that matches whitespace alone other than `\s*[\r\n]+`. Their
        // possessive quantifiers are the same as greedy ones.
        if AUTOMATON_PATTERNS.contains(&pattern) {
            let plain = pattern.replacen(LOOKAHEAD, "|", 1).replace("++", "+");
            if let Ok(regex) = automaton(&plain) {
                let before = &pattern[..pattern.find(LOOKAHEAD).unwrap_or(0)];
                return Some(Splitter::Automaton {
                    regex,
                    lookahead: true,
                    newline_alternative: before.contains(r"\s*[\r\n]+")
                        || before.contains("\\s*[\r\n]+"),
                });
            }
        }
        // The `regex` crate refuses lookaround and backreferences, and
        // `fancy_regex` hands patterns without them to it unchanged.
        if let Ok(regex) = automaton(pattern) {
            return Some(Splitter::Automaton {
                regex,
                lookahead: false,
                newline_alternative: false,
            });
        }
        Regex::new(pattern).ok().map(Splitter::Backtracking)
    }

    /// Calls `piece(start, end)` for each match and each gap between
    /// matches, in order (HF's isolated split).
    fn split(&self, text: &str, mut piece: impl FnMut(usize, usize)) {
        let mut at = 0;
        match self {
            Splitter::Backtracking(regex) => {
                for m in regex.find_iter(text) {
                    let Ok(m) = m else { break };
                    piece(at, m.start());
                    piece(m.start(), m.end());
                    at = m.end();
                }
            }
            Splitter::Automaton {
                regex,
                lookahead,
                newline_alternative,
            } => {
                let mut from = 0;
                while let Some(m) = regex.find_at(text, from) {
                    let mut end = m.end();
                    let matched = m.as_str();
                    let next_is_text = text[end..]
                        .chars()
                        .next()
                        .is_some_and(|c| !c.is_whitespace());
                    if *lookahead
                        && next_is_text
                        && matched.chars().all(char::is_whitespace)
                        && !(*newline_alternative && matched.contains(['\r', '\n']))
                    {
                        // `\s+(?!\S)` leaves the last whitespace character for
                        // the next piece.
                        if let Some(last) = matched.chars().next_back() {
                            if matched.len() > last.len_utf8() {
                                end -= last.len_utf8();
                            }
                        }
                    }
                    piece(at, m.start());
                    piece(m.start(), end);
                    at = end;
                    from = if end > m.start() {
                        end
                    } else {
                        end + text[end..].chars().next().map_or(1, char::len_utf8)
                    };
                    if from > text.len() {
                        break;
                    }
                }
            }
        }
        piece(at, text.len());
    }
}

/// The vocabulary and merges of a BPE model, as its source file gives them
/// (the `tokenizers` crate keeps its merges private).
#[derive(Debug, Default)]
pub struct BpeSource {
    /// Vocabulary strings and ids.
    pub vocab: Vec<(String, u32)>,
    /// Merges, in rank order.
    pub merges: Vec<(String, String)>,
}

impl BpeSource {
    /// Reads `vocab` and `merges` of a tokenizer.json `model` object.
    pub fn from_json(model: &Value) -> Option<BpeSource> {
        let vocab = model
            .get("vocab")?
            .as_object()?
            .iter()
            .map(|(token, id)| Some((token.clone(), u32::try_from(id.as_u64()?).ok()?)))
            .collect::<Option<Vec<_>>>()?;
        let merges = model
            .get("merges")?
            .as_array()?
            .iter()
            .map(|merge| match merge {
                Value::String(s) => {
                    let (a, b) = s.split_once(' ')?;
                    (!b.contains(' ')).then(|| (a.to_string(), b.to_string()))
                }
                Value::Array(pair) if pair.len() == 2 => {
                    Some((pair[0].as_str()?.to_string(), pair[1].as_str()?.to_string()))
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(BpeSource { vocab, merges })
    }
}

/// Byte-level BPE encoder.
pub struct ByteBpe {
    /// Split regexes applied in turn: each splits the pieces of the one
    /// before (a pre-tokenizer Sequence of Splits).
    splitters: Vec<Splitter>,
    /// The id of each byte's byte-level character; `None` for one missing
    /// from the vocabulary (dropped, as `tokenizers` does without an
    /// unknown token or byte fallback).
    byte_ids: [Option<u32>; 256],
    merges: Merges,
    /// With `ignore_merges`: whole pieces found in the vocabulary.
    whole: Option<AHashMap<Vec<u8>, u32>>,
    added: AddedMatcher,
    /// Distinguishes this encoder in the per-thread piece cache.
    cache_owner: u64,
}

impl std::fmt::Debug for ByteBpe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ByteBpe")
            .field("merges", &self.merges.len())
            .finish()
    }
}

/// The bytes a vocabulary string spells in the byte-level alphabet, or
/// `None` if a character is outside it.
pub fn alphabet_bytes(token: &str) -> Option<Vec<u8>> {
    token.chars().map(byte_level::char_to_byte).collect()
}

/// The byte-level decoding of a vocabulary string (HF's ByteLevel decoder:
/// the raw string when a character is outside the byte alphabet).
pub fn token_bytes(token: &str) -> Vec<u8> {
    alphabet_bytes(token).unwrap_or_else(|| token.as_bytes().to_vec())
}

impl ByteBpe {
    /// Builds the encoder for `pipeline` if its configuration is one this
    /// encoder reproduces exactly: no normalizer; a ByteLevel pre-tokenizer
    /// with its regex, or a regex Split (isolated) followed by a regex-less
    /// ByteLevel, without prefix space; a BPE model without dropout or
    /// subword affixes whose vocabulary holds all 256 bytes; added tokens
    /// without strip or single-word rules.
    pub(crate) fn from_pipeline(
        pipeline: &tokenizers::Tokenizer,
        source: &BpeSource,
    ) -> Option<ByteBpe> {
        // No normalizer, or an empty Sequence of them.
        if let Some(normalizer) = pipeline.get_normalizer() {
            let value = serde_json::to_value(normalizer).ok()?;
            if value
                .get("normalizers")
                .and_then(Value::as_array)
                .is_none_or(|n| !n.is_empty())
            {
                return None;
            }
        }
        let patterns = split_patterns(&serde_json::to_value(pipeline.get_pre_tokenizer()?).ok()?)?;
        let ModelWrapper::BPE(bpe) = pipeline.get_model() else {
            return None;
        };
        if bpe.dropout.is_some_and(|d| d > 0.0)
            || bpe.continuing_subword_prefix.is_some()
            || bpe.end_of_word_suffix.is_some()
        {
            return None;
        }
        let splitters = patterns
            .iter()
            .map(|pattern| Splitter::new(pattern))
            .collect::<Option<Vec<_>>>()?;
        let mut by_string: HashMap<&str, u32> = HashMap::with_capacity(source.vocab.len());
        for (token, id) in &source.vocab {
            by_string.insert(token.as_str(), *id);
        }
        // The model must be the one the source describes.
        if by_string.len() != bpe.get_vocab_size() {
            return None;
        }
        let mut byte_ids = [None; 256];
        let mut utf8 = [0u8; 4];
        for b in 0..=255u8 {
            byte_ids[b as usize] = by_string
                .get(byte_level::byte_to_char(b).encode_utf8(&mut utf8) as &str)
                .copied();
        }
        // A missing byte becomes the unknown token or byte-fallback tokens
        // when the model has them: not reproduced here.
        if byte_ids.contains(&None) && (bpe.unk_token.is_some() || bpe.byte_fallback) {
            return None;
        }
        let merges = merge_map(source, &by_string)?;
        let whole = bpe.ignore_merges.then(|| {
            by_string
                .iter()
                .filter_map(|(token, &id)| Some((alphabet_bytes(token)?, id)))
                .collect::<AHashMap<_, _>>()
        });
        // No normalizer: normalized tokens match their content.
        let added = AddedMatcher::new(pipeline, str::to_string)?;
        Some(ByteBpe {
            splitters,
            byte_ids,
            merges,
            whole,
            added,
            cache_owner: piece_cache::new_owner(),
        })
    }
}

impl Encode for ByteBpe {
    fn encode(&self, text: &str, match_special: bool, out: &mut Vec<TokenSpan>) {
        self.encode_with(text, match_special, |ids, start, end, word| {
            out.extend(ids.iter().map(|&id| TokenSpan {
                id,
                start,
                end,
                word: Some(word),
            }));
        });
    }

    fn encode_ids(&self, text: &str, match_special: bool, out: &mut Vec<u32>) {
        self.encode_with(text, match_special, |ids, _, _, _| {
            out.extend_from_slice(ids)
        });
    }
}

impl ByteBpe {
    /// Encodes `text`, handing each segment's ids to `emit` with the
    /// segment's byte range and index.
    fn encode_with(
        &self,
        text: &str,
        match_special: bool,
        mut emit: impl FnMut(&[u32], usize, usize, u32),
    ) {
        let mut raw = Vec::new();
        self.added.split_raw(text, 0, match_special, &mut raw);
        let mut sections = Vec::with_capacity(raw.len());
        for section in raw {
            match section.id {
                Some(_) => sections.push(section),
                None => self.added.split_normalized(
                    &text[section.start..section.end],
                    section.start,
                    match_special,
                    &mut sections,
                ),
            }
        }
        let mut word = 0u32;
        let mut symbols = Vec::new();
        let mut cache = PieceCache::take(self.cache_owner);
        for Section { start, end, id } in sections {
            if let Some(id) = id {
                emit(&[id], start, end, word);
                word += 1;
                continue;
            }
            let section = &text[start..end];
            split_all(&self.splitters, section, 0, &mut |from, to| {
                if from < to {
                    let piece = &section.as_bytes()[from..to];
                    let ids = cache.ids(piece, &mut symbols, |ids| self.encode_piece(piece, ids));
                    emit(ids, start + from, start + to, word);
                    word += 1;
                }
            });
        }
        cache.put_back();
    }
}

impl ByteBpe {
    /// BPE of one piece into `out` (cleared first).
    fn encode_piece(&self, bytes: &[u8], out: &mut Vec<u32>) {
        out.clear();
        if let Some(id) = self.whole.as_ref().and_then(|w| w.get(bytes)) {
            out.push(*id);
            return;
        }
        out.extend(bytes.iter().filter_map(|&b| self.byte_ids[b as usize]));
        merge_symbols(&self.merges, out);
    }
}

/// Merges in rank order: `(left, right) -> (rank, merged)`.
pub(crate) type Merges = AHashMap<(u32, u32), (u32, u32)>;

/// The merge map of `source`, its strings resolved through `by_string`;
/// `None` where a merge names a string outside the vocabulary.
pub(crate) fn merge_map(source: &BpeSource, by_string: &HashMap<&str, u32>) -> Option<Merges> {
    let mut merges = AHashMap::with_capacity(source.merges.len());
    for (rank, (a, b)) in source.merges.iter().enumerate() {
        let (ia, ib) = (*by_string.get(a.as_str())?, *by_string.get(b.as_str())?);
        let joined = format!("{a}{b}");
        let new_id = *by_string.get(joined.as_str())?;
        // A repeated pair keeps its last rank, as `tokenizers` builds its map.
        merges.insert((ia, ib), (u32::try_from(rank).ok()?, new_id));
    }
    Some(merges)
}

/// Applies `merges` to the symbols `out` as the `tokenizers` crate's BPE
/// does: the lowest-ranked pair first, the leftmost on ties.
pub(crate) fn merge_symbols(merges: &Merges, out: &mut Vec<u32>) {
    if out.len() < 2 {
        return;
    }
    if out.len() <= 16 {
        merge_short::<16>(merges, out);
        return;
    }
    if out.len() <= 64 {
        merge_short::<64>(merges, out);
        return;
    }
    // Long pieces: a heap of candidate merges over a linked list.
    let n = out.len();
    let mut ids = out.clone();
    let mut next: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    let mut heap = BinaryHeap::new();
    for i in 0..n - 1 {
        if let Some(&(rank, _)) = merges.get(&(ids[i], ids[i + 1])) {
            heap.push(Reverse((rank, i, ids[i], ids[i + 1])));
        }
    }
    while let Some(Reverse((_, i, left, right))) = heap.pop() {
        let j = next[i];
        if !alive[i] || j >= n || ids[i] != left || ids[j] != right {
            continue;
        }
        let Some(&(_, new_id)) = merges.get(&(left, right)) else {
            continue;
        };
        ids[i] = new_id;
        alive[j] = false;
        next[i] = next[j];
        if next[i] < n {
            prev[next[i]] = i;
        }
        if prev[i] < n {
            let p = prev[i];
            if let Some(&(rank, _)) = merges.get(&(ids[p], ids[i])) {
                heap.push(Reverse((rank, p, ids[p], ids[i])));
            }
        }
        if next[i] < n {
            let k = next[i];
            if let Some(&(rank, _)) = merges.get(&(ids[i], ids[k])) {
                heap.push(Reverse((rank, i, ids[i], ids[k])));
            }
        }
    }
    out.clear();
    let mut i = 0;
    while i < n {
        out.push(ids[i]);
        i = next[i];
    }
}

/// Short pieces: repeatedly merges the lowest-ranked pair (leftmost on
/// ties), keeping each adjacent pair's merge so that only the two pairs
/// around a merge are looked up again.
fn merge_short<const N: usize>(merges: &Merges, out: &mut Vec<u32>) {
    const NONE: (u32, u32) = (u32::MAX, 0);
    let pair = |a: u32, b: u32| merges.get(&(a, b)).copied().unwrap_or(NONE);
    // `pairs[i]`: (rank, merged) of `out[i], out[i + 1]`.
    let mut pairs = [NONE; N];
    for i in 0..out.len() - 1 {
        pairs[i] = pair(out[i], out[i + 1]);
    }
    loop {
        let count = out.len() - 1;
        let mut best = 0;
        for i in 1..count {
            if pairs[i].0 < pairs[best].0 {
                best = i;
            }
        }
        if count == 0 || pairs[best].0 == u32::MAX {
            return;
        }
        out[best] = pairs[best].1;
        out.remove(best + 1);
        pairs.copy_within(best + 1..count, best);
        if best > 0 {
            pairs[best - 1] = pair(out[best - 1], out[best]);
        }
        if best + 1 < out.len() {
            pairs[best] = pair(out[best], out[best + 1]);
        }
    }
}

/// `pattern` on the `regex` crate, with room for the lazy DFA of a split
/// pattern with large overlapping Unicode classes (o200k's letter-case
/// classes): with the default cache, text in scripts outside Latin exhausts
/// it and the search falls back to slower engines (o200k on the mixed-script
/// corpus: 4.6 -> 37 MB/s encode).
fn automaton(pattern: &str) -> std::result::Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .dfa_size_limit(64 << 20)
        .build()
}

/// Calls `piece(start, end)` for each non-empty piece of `text` (offsets
/// relative to `base`) after splitting by each of `splitters` in turn.
fn split_all(splitters: &[Splitter], text: &str, base: usize, piece: &mut dyn FnMut(usize, usize)) {
    let Some((first, rest)) = splitters.split_first() else {
        piece(base, base + text.len());
        return;
    };
    first.split(text, |from, to| {
        if from < to {
            split_all(rest, &text[from..to], base + from, piece);
        }
    });
}

/// The regexes a supported pre-tokenizer splits with, in order (canonical
/// JSON form): ByteLevel with its regex, or a Sequence of isolated,
/// non-inverted Splits followed by a regex-less ByteLevel.
fn split_patterns(pre: &Value) -> Option<Vec<String>> {
    let kind = pre.get("type")?.as_str()?;
    let flag = |v: &Value, key: &str| v.get(key).and_then(Value::as_bool);
    match kind {
        "ByteLevel" if flag(pre, "use_regex")? && !flag(pre, "add_prefix_space")? => {
            Some(vec![BYTE_LEVEL_PATTERN.to_string()])
        }
        "Sequence" => {
            let steps = pre.get("pretokenizers")?.as_array()?;
            let (level, splits) = steps.split_last()?;
            if splits.is_empty()
                || level.get("type")?.as_str()? != "ByteLevel"
                || flag(level, "use_regex")?
                || flag(level, "add_prefix_space")?
            {
                return None;
            }
            splits.iter().map(split_regex).collect()
        }
        _ => None,
    }
}

/// The regex of an isolated, non-inverted Split.
fn split_regex(split: &Value) -> Option<String> {
    if split.get("type")?.as_str()? != "Split"
        || split.get("behavior")?.as_str()? != "Isolated"
        || split.get("invert")?.as_bool()?
    {
        return None;
    }
    let pattern = split.get("pattern")?;
    if let Some(regex) = pattern.get("Regex").and_then(Value::as_str) {
        Some(regex.to_string())
    } else {
        pattern
            .get("String")
            .and_then(Value::as_str)
            .map(fancy_regex::escape)
            .map(|s| s.into_owned())
    }
}
