//! The tiktoken format: one `<base64 token bytes> <rank>` pair per line, plus
//! a named encoding that supplies the split pattern and the special tokens.
//!
//! A tiktoken vocabulary becomes a byte-level BPE pipeline: vocabulary strings
//! are the byte-level spellings of the token bytes, each multi-byte token gets
//! the merge that rank-ordered BPE reaches on its own bytes, the pattern
//! becomes a regex split followed by a byte-level mapping, and whole pieces
//! found in the vocabulary are emitted directly (tiktoken's shortcut).

use std::collections::HashMap;

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, SplitDelimiterBehavior};

use crate::error::{from_hf, Error, ErrorKind, Result};
use crate::model::byte_bpe::BpeSource;
use crate::model::{byte_level, rank_bpe};

/// The longest token, in bytes, a tiktoken file may hold.
pub const MAX_TOKEN_BYTES: usize = 256;

/// Unused ranks a tiktoken file may leave beyond one per token.
pub const MAX_UNUSED_RANKS: usize = 1 << 16;

/// A named tiktoken encoding: its split pattern and its special tokens.
#[derive(Clone, Copy, Debug)]
pub struct Encoding {
    /// The encoding's name, e.g. `cl100k_base`.
    pub name: &'static str,
    /// The regex that splits text into pieces before BPE.
    pub pattern: &'static str,
    /// Special tokens: text and id.
    pub special_tokens: &'static [(&'static str, u32)],
}

/// A split pattern of the named encodings.
pub const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}++|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*",
    r"|\s*[\r\n]+|\s+(?!\S)|\s++"
);
/// A split pattern of the named encodings.
pub const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
);
/// A split pattern of the named encodings.
pub const GPT2_PATTERN: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

/// The encodings accepted by name, as upstream IREE accepts them.
pub const ENCODINGS: &[Encoding] = &[
    Encoding {
        name: "cl100k_base",
        pattern: CL100K_PATTERN,
        special_tokens: &[
            ("<|endoftext|>", 100257),
            ("<|fim_prefix|>", 100258),
            ("<|fim_middle|>", 100259),
            ("<|fim_suffix|>", 100260),
            ("<|endofprompt|>", 100276),
        ],
    },
    Encoding {
        name: "o200k_base",
        pattern: O200K_PATTERN,
        special_tokens: &[("<|endoftext|>", 199999), ("<|endofprompt|>", 200018)],
    },
    Encoding {
        name: "o200k_harmony",
        pattern: O200K_PATTERN,
        special_tokens: &[
            ("<|startoftext|>", 199998),
            ("<|endoftext|>", 199999),
            ("<|return|>", 200002),
            ("<|constrain|>", 200003),
            ("<|channel|>", 200005),
            ("<|start|>", 200006),
            ("<|end|>", 200007),
            ("<|message|>", 200008),
            ("<|call|>", 200012),
            ("<|endofprompt|>", 200018),
        ],
    },
    Encoding {
        name: "r50k_base",
        pattern: GPT2_PATTERN,
        special_tokens: &[("<|endoftext|>", 50256)],
    },
    Encoding {
        name: "gpt2",
        pattern: GPT2_PATTERN,
        special_tokens: &[("<|endoftext|>", 50256)],
    },
    Encoding {
        name: "p50k_base",
        pattern: GPT2_PATTERN,
        special_tokens: &[("<|endoftext|>", 50256)],
    },
    Encoding {
        name: "p50k_edit",
        pattern: GPT2_PATTERN,
        special_tokens: &[
            ("<|endoftext|>", 50256),
            ("<|fim_prefix|>", 50281),
            ("<|fim_middle|>", 50282),
            ("<|fim_suffix|>", 50283),
        ],
    },
];

/// The names in [`ENCODINGS`], comma separated (for error messages).
pub const ENCODING_NAMES: &str =
    "cl100k_base, o200k_base, o200k_harmony, r50k_base, gpt2, p50k_base, p50k_edit";

/// The encoding called `name`, if it is one of [`ENCODINGS`].
pub fn encoding_by_name(name: &str) -> Option<&'static Encoding> {
    ENCODINGS.iter().find(|e| e.name == name)
}

/// One parsed tiktoken file: token bytes by rank (`None` for rank gaps).
#[derive(Debug, Default)]
pub struct Ranks {
    /// Token bytes indexed by rank.
    pub tokens: Vec<Option<Vec<u8>>>,
}

/// Parses tiktoken data. Ranks must increase; gaps are allowed (they are
/// reserved for special tokens).
pub fn parse(data: &[u8]) -> Result<Ranks> {
    if data.is_empty() {
        return Err(Error::invalid("empty tiktoken input"));
    }
    let mut ranks = Ranks::default();
    let mut gaps = 0usize;
    for (index, line) in data.split(|&b| b == b'\n').enumerate() {
        let line_number = index + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let Some(space) = line.iter().position(|&b| b == b' ') else {
            return Err(Error::invalid(format!(
                "line {line_number}: missing space between base64 token and rank"
            )));
        };
        let (b64, rank_text) = (&line[..space], &line[space + 1..]);
        if b64.is_empty() {
            return Err(Error::invalid(format!(
                "line {line_number}: empty base64 token"
            )));
        }
        let rank = parse_rank(rank_text).ok_or_else(|| {
            Error::invalid(format!(
                "line {line_number}: invalid rank '{}'",
                String::from_utf8_lossy(rank_text)
            ))
        })?;
        let expected = ranks.tokens.len();
        if (rank as usize) < expected {
            return Err(Error::invalid(format!(
                "line {line_number}: rank {rank} is out of order (expected >= {expected})"
            )));
        }
        if rank > i32::MAX as u32 {
            return Err(Error::invalid(format!(
                "line {line_number}: rank {rank} exceeds maximum token ID"
            )));
        }
        // Padding alone (whisper's multilingual.tiktoken has "= 50256") is
        // an empty token, which upstream rejects as such.
        let bytes = if b64.iter().all(|&c| c == b'=') {
            Vec::new()
        } else {
            base64_decode(b64).map_err(|e| Error::invalid(format!("line {line_number}: {e}")))?
        };
        if bytes.is_empty() {
            return Err(Error::invalid(format!(
                "line {line_number}: base64 decodes to empty token"
            )));
        }
        if bytes.len() > MAX_TOKEN_BYTES {
            return Err(Error::invalid(format!(
                "line {line_number}: token of {} bytes exceeds the {MAX_TOKEN_BYTES}-byte limit",
                bytes.len()
            )));
        }
        // Unused ranks (reserved for special tokens) are few in real files;
        // bound them so that a rank jump cannot allocate gigabytes.
        let gap = rank as usize - expected;
        let used = expected - gaps;
        gaps += gap;
        if gaps > MAX_UNUSED_RANKS + used {
            return Err(Error::invalid(format!(
                "line {line_number}: rank {rank} leaves too many unused ranks ({gaps} in all)"
            )));
        }
        ranks.tokens.resize(rank as usize, None);
        ranks.tokens.push(Some(bytes));
    }
    if ranks.tokens.is_empty() {
        return Err(Error::invalid("tiktoken file contains no valid entries"));
    }
    Ok(ranks)
}

fn parse_rank(text: &[u8]) -> Option<u32> {
    if text.is_empty() || text.len() > 10 || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = text.iter().fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
    u32::try_from(value).ok()
}

/// Decodes standard (RFC 4648) base64 with `=` padding.
pub fn base64_decode(text: &[u8]) -> std::result::Result<Vec<u8>, String> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    if !text.len().is_multiple_of(4) {
        return Err(format!("invalid base64 length {}", text.len()));
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let quads = text.len() / 4;
    for (qi, quad) in text.chunks_exact(4).enumerate() {
        let padding = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if padding > 2 || (padding > 0 && qi + 1 != quads) {
            return Err("invalid base64 padding".to_string());
        }
        let mut acc = 0u32;
        for &c in &quad[..4 - padding] {
            let v = value(c).ok_or_else(|| format!("invalid base64 character {:?}", c as char))?;
            acc = (acc << 6) | v;
        }
        acc <<= 6 * padding as u32;
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - padding]);
    }
    Ok(out)
}

/// Builds the tokenizer pipeline for tiktoken `data` under `encoding`.
pub(crate) fn build(
    data: &[u8],
    encoding: &Encoding,
) -> Result<(tokenizers::Tokenizer, BpeSource)> {
    let parsed = parse(data)?;
    if parsed.tokens.len() < 256 {
        return Err(Error::invalid(format!(
            "tiktoken file has {} entries, need at least 256 single-byte tokens",
            parsed.tokens.len()
        )));
    }
    let mut seen_bytes = [false; 256];
    for (rank, token) in parsed.tokens[..256].iter().enumerate() {
        match token.as_deref() {
            Some([b]) if !seen_bytes[*b as usize] => seen_bytes[*b as usize] = true,
            _ => {
                return Err(Error::invalid(format!(
                    "tiktoken rank {rank} must be a distinct single-byte token"
                )))
            }
        }
    }
    let mut rank_of: HashMap<Vec<u8>, u32> = HashMap::with_capacity(parsed.tokens.len());
    for (rank, token) in parsed.tokens.iter().enumerate() {
        if let Some(bytes) = token {
            // A repeated token keeps its first (lowest) rank, as tiktoken does.
            rank_of.entry(bytes.clone()).or_insert(rank as u32);
        }
    }
    let mut vocab: HashMap<String, u32> = HashMap::with_capacity(parsed.tokens.len());
    let mut merges: Vec<(String, String)> = Vec::new();
    for (rank, token) in parsed.tokens.iter().enumerate() {
        let Some(bytes) = token else { continue };
        if rank_of.get(bytes) != Some(&(rank as u32)) {
            continue;
        }
        vocab.insert(byte_level::encode(bytes), rank as u32);
        if bytes.len() >= 2 {
            let bounds = rank_bpe::merge_by_rank(bytes, &rank_of, rank as u32);
            if bounds.len() == 2 {
                let split = bounds[0];
                merges.push((
                    byte_level::encode(&bytes[..split]),
                    byte_level::encode(&bytes[split..]),
                ));
            }
        }
    }
    for &(text, id) in encoding.special_tokens {
        if let Some(Some(bytes)) = parsed.tokens.get(id as usize) {
            return Err(Error::invalid(format!(
                "special token {text} id {id} collides with BPE token {:?}",
                String::from_utf8_lossy(bytes)
            )));
        }
        // In the model's vocabulary, so the added token keeps this id.
        vocab.insert(text.to_string(), id);
    }
    let source = BpeSource {
        vocab: vocab.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        merges: merges.clone(),
    };
    let model = BPE::builder()
        .vocab_and_merges(vocab.into_iter().collect::<ahash::AHashMap<_, _>>(), merges)
        .ignore_merges(true)
        .build()
        .map_err(|e| from_hf(ErrorKind::InvalidArgument, e))?;
    let split = Split::new(
        SplitPattern::Regex(encoding.pattern.to_string()),
        SplitDelimiterBehavior::Isolated,
        false,
    )
    .map_err(|e| from_hf(ErrorKind::Internal, e))?;
    let pre_tokenizer = Sequence::new(vec![
        split.into(),
        ByteLevel::new(false, false, false).into(),
    ]);
    let mut tokenizer = tokenizers::Tokenizer::new(model);
    tokenizer.with_pre_tokenizer(Some(pre_tokenizer));
    tokenizer.with_decoder(Some(ByteLevelDecoder::default()));
    let mut specials: Vec<(&str, u32)> = encoding.special_tokens.to_vec();
    specials.sort_by_key(|&(_, id)| id);
    for (text, id) in specials {
        let token = AddedToken::from(text, true).normalized(false);
        tokenizer.add_special_tokens(&[token]);
        if tokenizer.token_to_id(text) != Some(id) {
            return Err(Error::new(
                ErrorKind::Internal,
                format!("special token {text} did not receive id {id}"),
            ));
        }
    }
    Ok((tokenizer, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        assert_eq!(base64_decode(b"AA==").unwrap(), vec![0]);
        assert_eq!(base64_decode(b"aGk=").unwrap(), b"hi".to_vec());
        assert_eq!(base64_decode(b"aGV5").unwrap(), b"hey".to_vec());
        assert!(base64_decode(b"aGk").is_err());
        assert!(base64_decode(b"a=k=").is_err());
        assert!(base64_decode(b"a*k=").is_err());
    }

    #[test]
    fn parse_reports_line_errors() {
        let err = parse(b"AA== 0\nAQ==\n").unwrap_err();
        assert_eq!(
            err.message(),
            "line 2: missing space between base64 token and rank"
        );
        let err = parse(b"AA== 1\nAQ== 0\n").unwrap_err();
        assert!(err.message().contains("out of order"), "{err}");
        let err = parse(b"AA== x\n").unwrap_err();
        assert_eq!(err.message(), "line 1: invalid rank 'x'");
        assert!(parse(b"").is_err());
        assert!(parse(b"\n\n").is_err());
        let err = parse(b"AA== 0\n= 1\n").unwrap_err();
        assert_eq!(err.message(), "line 2: base64 decodes to empty token");
        let err = parse(b"AA== 0\nAQ== 1000000\n").unwrap_err();
        assert!(err.message().contains("too many unused ranks"), "{err}");
        let ranks = parse(b"AA== 0\r\nAQ== 2\n").unwrap();
        assert_eq!(ranks.tokens, vec![Some(vec![0]), None, Some(vec![1])]);
    }

    #[test]
    fn patterns_compile() {
        for encoding in ENCODINGS {
            fancy_regex::Regex::new(encoding.pattern).unwrap();
        }
    }
}
