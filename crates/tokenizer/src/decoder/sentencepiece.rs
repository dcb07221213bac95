//! Direct decoders for SentencePiece-style configurations: Metaspace (`▁`
//! back to spaces), and Llama's Sequence of Replace, ByteFallback, Fuse and
//! Strip. Each id's text is computed at load; decoding joins them as the
//! `tokenizers` crate does.

use serde_json::Value;

use crate::pipeline::Decode;
use crate::pre_tokenizer::metaspace::{Metaspace, PrependScheme};

/// Per id: what it decodes to (ranges in `SentencePieceDecoder::texts`)
/// and whether it is special.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// The id has a token.
    present: bool,
    special: bool,
    /// ByteFallback: the byte a `<0xNN>` token stands for.
    byte: Option<u8>,
    /// The token's text after the per-token steps.
    text: (u32, u32),
    /// Metaspace: the text as the first token (replacement dropped).
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
    table: Vec<Entry>,
    /// The texts of all entries, one after the other.
    texts: String,
    kind: Kind,
}

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
        for id in 0..=max_id {
            let entry = match pipeline.id_to_token(id) {
                Some(token) => {
                    per_token.entry(&token, added.is_special_token(&token), &mut texts)?
                }
                None => Entry::default(),
            };
            table.push(entry);
        }
        Some(SentencePieceDecoder { table, texts, kind })
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
    fn entry(&self, token: &str, special: bool, texts: &mut String) -> Option<Entry> {
        let mut add = |text: &str| -> Option<(u32, u32)> {
            let start = u32::try_from(texts.len()).ok()?;
            texts.push_str(text);
            Some((start, u32::try_from(texts.len()).ok()?))
        };
        let mut entry = Entry {
            present: true,
            special,
            ..Entry::default()
        };
        match self {
            PerToken::Metaspace(replacement) => {
                entry.text = add(&token.replace(*replacement, " "))?;
                entry.first = add(&token.replace(*replacement, ""))?;
            }
            PerToken::Replace(replaces) => {
                let mut text = token.to_string();
                for (pattern, content) in replaces {
                    text = text.replace(pattern.as_str(), content);
                }
                entry.byte = fallback_byte(&text);
                entry.text = add(&text)?;
            }
        }
        Some(entry)
    }
}

/// The byte of a `<0xNN>` token, tested as the crate's ByteFallback does.
fn fallback_byte(token: &str) -> Option<u8> {
    if token.len() == 6 && token.starts_with("<0x") && token.ends_with('>') {
        u8::from_str_radix(token.get(3..5)?, 16).ok()
    } else {
        None
    }
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
    fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> String {
        let mut out = String::with_capacity(ids.len() * 6);
        let texts = self.texts.as_str();
        let text = |(start, end): (u32, u32)| texts.get(start as usize..end as usize);
        let entries = ids
            .iter()
            .filter_map(|&id| self.table.get(id as usize))
            .filter(|entry| entry.present && !(skip_special_tokens && entry.special));
        match self.kind {
            Kind::Metaspace { drop_first } => {
                let mut first = drop_first;
                for entry in entries {
                    let range = if first { entry.first } else { entry.text };
                    first = false;
                    out.push_str(text(range).unwrap_or_default());
                }
            }
            Kind::ByteFallback { strip, strip_start } => {
                let mut bytes = Vec::new();
                for entry in entries {
                    if let Some(b) = entry.byte {
                        bytes.push(b);
                        continue;
                    }
                    if !bytes.is_empty() {
                        flush_bytes(&mut bytes, &mut out);
                    }
                    out.push_str(text(entry.text).unwrap_or_default());
                }
                flush_bytes(&mut bytes, &mut out);
                let stripped = out
                    .chars()
                    .take(strip_start)
                    .take_while(|&c| c == strip)
                    .map(char::len_utf8)
                    .sum::<usize>();
                out.drain(..stripped);
            }
        }
        out
    }
}

/// A run of byte tokens: its text if UTF-8, else U+FFFD per byte.
fn flush_bytes(bytes: &mut Vec<u8>, out: &mut String) {
    if bytes.is_empty() {
        return;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => out.push_str(text),
        Err(_) => out.extend(std::iter::repeat_n('\u{FFFD}', bytes.len())),
    }
    bytes.clear();
}
