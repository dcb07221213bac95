//! Direct decoders for SentencePiece-style configurations: Metaspace (`▁`
//! back to spaces), and Llama's Sequence of Replace, ByteFallback, Fuse and
//! Strip. Each id's text is computed at load; decoding joins them as the
//! `tokenizers` crate does.

use serde_json::Value;

use crate::decoder::fallback_byte;
use crate::pipeline::Decode;
use crate::pre_tokenizer::metaspace::{Metaspace, PrependScheme};

/// Per id (8 bytes, for cache locality): its text after the per-token
/// steps (`texts[start..start + len]`), flags, and for ByteFallback the
/// byte a `<0xNN>` token stands for.
#[derive(Clone, Copy, Default)]
struct Entry {
    start: u32,
    len: u16,
    byte: u8,
    flags: u8,
}

/// The id has a token.
const PRESENT: u8 = 1;
/// The token is special.
const SPECIAL: u8 = 2;
/// The token is a `<0xNN>` byte.
const BYTE: u8 = 4;

/// An entry and, for Metaspace, the text range as the first token.
struct Built {
    entry: Entry,
    first: (u32, u32),
}

enum Kind {
    /// Metaspace: tokens joined, the first one without its replacements
    /// when `drop_first`.
    Metaspace { drop_first: bool },
    /// Byte tokens assembled into UTF-8 (U+FFFD per byte of an invalid
    /// run), everything joined, then up to `strip_start` leading
    /// `strip` characters removed.
    ByteFallback { strip: char, strip_start: usize },
}

/// Direct decoder for Metaspace and Llama-style decoders.
pub(crate) struct SentencePieceDecoder {
    /// Per id: its entry and its text zero-padded when it has at most
    /// `INLINE` bytes (copied as one block), in one place so that a decode
    /// reads one record per id.
    table: Vec<Hot>,
    /// Metaspace: per id, the text range as the first token (replacement
    /// dropped).
    first: Vec<(u32, u32)>,
    /// The texts of all entries, one after the other.
    texts: String,
    /// Metaspace: the texts as the first token.
    first_texts: String,
    kind: Kind,
}

/// An id's entry and short text (see `SentencePieceDecoder::table`).
struct Hot {
    block: [u8; INLINE],
    entry: Entry,
}

/// Texts of at most this many bytes are copied as one block.
const INLINE: usize = 16;

impl SentencePieceDecoder {
    /// The decoder for `pipeline`, if it reproduces it exactly.
    pub(crate) fn from_pipeline(pipeline: &tokenizers::Tokenizer) -> Option<Self> {
        let config = serde_json::to_value(pipeline.get_decoder()?).ok()?;
        let (kind, per_token) = match Metaspace::from_json(&config) {
            Some(metaspace) => (
                Kind::Metaspace {
                    drop_first: metaspace.prepend != PrependScheme::Never,
                },
                PerToken::Metaspace(metaspace.replacement),
            ),
            None => {
                let steps = llama_steps(&config)?;
                (
                    Kind::ByteFallback {
                        strip: steps.strip,
                        strip_start: steps.strip_start,
                    },
                    PerToken::Replace(steps.replaces),
                )
            }
        };
        let max_id = pipeline.get_vocab(true).values().copied().max()?;
        // Vocabularies with huge id gaps are left to the general path.
        if max_id as usize > 4 * pipeline.get_vocab_size(true) + (1 << 18) {
            return None;
        }
        let added = pipeline.get_added_vocabulary();
        let mut texts = String::new();
        let mut table = Vec::with_capacity(max_id as usize + 1);
        let mut first = Vec::new();
        let mut first_texts = String::new();
        for id in 0..=max_id {
            let built = match pipeline.id_to_token(id) {
                Some(token) => {
                    let special = added.is_special_token(&token);
                    per_token.entry(&token, special, &mut texts, &mut first_texts)?
                }
                None => Built {
                    entry: Entry::default(),
                    first: (0, 0),
                },
            };
            table.push(built.entry);
            if matches!(kind, Kind::Metaspace { .. }) {
                first.push(built.first);
            }
        }
        let table = table
            .into_iter()
            .map(|entry| {
                let mut block = [0u8; INLINE];
                let (start, len) = (entry.start as usize, usize::from(entry.len));
                if len <= INLINE {
                    if let Some(text) = texts.as_bytes().get(start..start + len) {
                        block[..len].copy_from_slice(text);
                    }
                }
                Hot { block, entry }
            })
            .collect();
        Some(SentencePieceDecoder {
            table,
            first,
            texts,
            first_texts,
            kind,
        })
    }
}

/// What is done to each token before joining.
enum PerToken {
    /// The replacement character becomes a space.
    Metaspace(char),
    /// String replacements in order, then the ByteFallback test.
    Replace(Vec<(String, String)>),
}

impl PerToken {
    /// The entry of `token`, its texts appended to `texts`.
    /// The entry of `token`, its text appended to `texts` and its text as
    /// the first token to `first_texts`.
    fn entry(
        &self,
        token: &str,
        special: bool,
        texts: &mut String,
        first_texts: &mut String,
    ) -> Option<Built> {
        let mut entry = Entry {
            flags: if special { PRESENT | SPECIAL } else { PRESENT },
            ..Entry::default()
        };
        let (text, first) = match self {
            PerToken::Metaspace(replacement) => (
                append(texts, &token.replace(*replacement, " "))?,
                append(first_texts, &token.replace(*replacement, ""))?,
            ),
            PerToken::Replace(replaces) => {
                let mut text = token.to_string();
                for (pattern, content) in replaces {
                    text = text.replace(pattern.as_str(), content);
                }
                if let Some(byte) = fallback_byte(&text) {
                    entry.byte = byte;
                    entry.flags |= BYTE;
                }
                (append(texts, &text)?, (0, 0))
            }
        };
        entry.start = text.0;
        // Longer tokens are left to the general path.
        entry.len = u16::try_from(text.1 - text.0).ok()?;
        Some(Built { entry, first })
    }
}

/// Appends `text` to `texts`; its range there.
fn append(texts: &mut String, text: &str) -> Option<(u32, u32)> {
    let start = u32::try_from(texts.len()).ok()?;
    texts.push_str(text);
    Some((start, u32::try_from(texts.len()).ok()?))
}

/// A Llama-style decoder: string Replaces, ByteFallback, Fuse, and
/// optionally a Strip of leading characters only.
struct LlamaSteps {
    /// `(pattern, content)` in order.
    replaces: Vec<(String, String)>,
    strip: char,
    strip_start: usize,
}

fn llama_steps(config: &Value) -> Option<LlamaSteps> {
    if config.get("type")?.as_str()? != "Sequence" {
        return None;
    }
    let steps = config.get("decoders")?.as_array()?;
    let mut replaces = Vec::new();
    let mut rest = steps.as_slice();
    while let Some((step, tail)) = rest.split_first() {
        if step.get("type")?.as_str()? != "Replace" {
            break;
        }
        let pattern = step.get("pattern")?.get("String")?.as_str()?;
        if pattern.is_empty() {
            return None;
        }
        let content = step.get("content")?.as_str()?;
        replaces.push((pattern.to_string(), content.to_string()));
        rest = tail;
    }
    let kind = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_string);
    match rest {
        [fallback, fuse] if kind(fallback)? == "ByteFallback" && kind(fuse)? == "Fuse" => {
            Some(LlamaSteps {
                replaces,
                strip: ' ',
                strip_start: 0,
            })
        }
        [fallback, fuse, strip]
            if kind(fallback)? == "ByteFallback"
                && kind(fuse)? == "Fuse"
                && kind(strip)? == "Strip"
                // Trailing strips index past the start of short text there.
                && strip.get("stop")?.as_u64()? == 0 =>
        {
            let mut content = strip.get("content")?.as_str()?.chars();
            let c = content.next()?;
            let start = usize::try_from(strip.get("start")?.as_u64()?).ok()?;
            content.next().is_none().then_some(LlamaSteps {
                replaces,
                strip: c,
                strip_start: start,
            })
        }
        _ => None,
    }
}

impl Decode for SentencePieceDecoder {
    fn decode_bytes(&self, ids: &[u32], skip_special_tokens: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(ids.len() * 6 + INLINE);
        let texts = self.texts.as_str();
        let text = |start: u32, end: u32| texts.get(start as usize..end as usize);
        let hidden = if skip_special_tokens { SPECIAL } else { 0 };
        let entries = ids.iter().filter_map(|&id| {
            let hot = self.table.get(id as usize)?;
            let flags = hot.entry.flags;
            (flags & PRESENT != 0 && flags & hidden == 0).then_some((id, hot))
        });
        // The text of an id: one block copy when short.
        let append = |out: &mut Vec<u8>, hot: &Hot| {
            let len = usize::from(hot.entry.len);
            if len <= INLINE {
                out.extend_from_slice(&hot.block);
                out.truncate(out.len() - INLINE + len);
            } else {
                let start = hot.entry.start;
                let end = start + u32::from(hot.entry.len);
                out.extend_from_slice(text(start, end).unwrap_or_default().as_bytes());
            }
        };
        match self.kind {
            Kind::Metaspace { drop_first } => {
                let mut first = drop_first;
                for (id, hot) in entries {
                    if first {
                        let (start, end) = self.first.get(id as usize).copied().unwrap_or_default();
                        let piece = self.first_texts.get(start as usize..end as usize);
                        out.extend_from_slice(piece.unwrap_or_default().as_bytes());
                        first = false;
                    } else {
                        append(&mut out, hot);
                    }
                }
            }
            Kind::ByteFallback { strip, strip_start } => {
                // The leading Strip is applied while writing (removing from
                // the front afterwards would move the whole text).
                let mut leading = Leading {
                    strip,
                    left: strip_start,
                };
                let mut bytes = Vec::new();
                for (_, hot) in entries {
                    let entry = &hot.entry;
                    if entry.flags & BYTE != 0 {
                        bytes.push(entry.byte);
                        continue;
                    }
                    if !bytes.is_empty() {
                        flush_bytes(&mut bytes, &mut out, &mut leading);
                    }
                    if leading.left == 0 {
                        append(&mut out, hot);
                    } else {
                        let end = entry.start + u32::from(entry.len);
                        leading.push(&mut out, text(entry.start, end).unwrap_or_default());
                    }
                }
                flush_bytes(&mut bytes, &mut out, &mut leading);
            }
        }
        out
    }
}

/// A Strip decoder's removal of up to `left` leading `strip` characters
/// from the start of the whole output, applied as text is appended.
struct Leading {
    strip: char,
    /// Characters that may still be stripped; 0 once any text is kept.
    left: usize,
}

impl Leading {
    /// Appends `text` to `out`, without the leading characters still to
    /// strip.
    fn push(&mut self, out: &mut Vec<u8>, text: &str) {
        let mut text = text;
        while self.left > 0 {
            match text.strip_prefix(self.strip) {
                Some(rest) => {
                    text = rest;
                    self.left -= 1;
                }
                None => {
                    if !text.is_empty() {
                        self.left = 0;
                    }
                    break;
                }
            }
        }
        out.extend_from_slice(text.as_bytes());
    }
}

/// A run of byte tokens: its text if UTF-8, else U+FFFD per byte.
fn flush_bytes(bytes: &mut Vec<u8>, out: &mut Vec<u8>, leading: &mut Leading) {
    if bytes.is_empty() {
        return;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => leading.push(out, text),
        Err(_) => leading.push(out, &"\u{FFFD}".repeat(bytes.len())),
    }
    bytes.clear();
}
