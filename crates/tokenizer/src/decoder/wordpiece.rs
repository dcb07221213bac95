//! A direct WordPiece decoder: each id's text, as the `tokenizers` crate's
//! WordPiece decoder gives it first in the output and after another token,
//! is computed at load; decoding concatenates.

use tokenizers::decoders::wordpiece::cleanup;
use tokenizers::DecoderWrapper;

use crate::pipeline::Decode;

/// Pieces up to this many bytes are copied as one block.
const INLINE: usize = 16;

/// What an id decodes to after another token (the continuing-subword prefix
/// stripped, or a space before), kept small for the decode loop.
#[derive(Clone, Copy, Debug, Default)]
struct Hot {
    /// The piece, zero-padded, if it has at most `INLINE` bytes.
    bytes: [u8; INLINE],
    /// Its length, if at most `INLINE` bytes; `LONG` otherwise.
    len: u8,
    kind: Kind,
}

const LONG: u8 = u8::MAX;

/// Whether an id has a token, and whether it is special.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Kind {
    #[default]
    Unknown,
    Ordinary,
    Special,
}

/// Where an id's pieces are in `WordPieceDecoder::text`.
#[derive(Clone, Copy, Debug, Default)]
struct Cold {
    /// As the first token decoded.
    first: (u32, u32),
    /// After another token.
    after: (u32, u32),
}

/// Direct decoder for the WordPiece decoder.
pub(crate) struct WordPieceDecoder {
    text: String,
    hot: Vec<Hot>,
    cold: Vec<Cold>,
}

/// Ids beyond this many more than the vocabulary's size leave the table to
/// the general pipeline (a sparse vocabulary would make it large).
const SPARSE_SLACK: usize = 1 << 16;

impl WordPieceDecoder {
    /// The decoder for `pipeline`, if its decoder is WordPiece.
    pub(crate) fn from_pipeline(pipeline: &tokenizers::Tokenizer) -> Option<Self> {
        let Some(DecoderWrapper::WordPiece(decoder)) = pipeline.get_decoder() else {
            return None;
        };
        let vocab = pipeline.get_vocab(true);
        let count = vocab.values().map(|&id| id as usize + 1).max().unwrap_or(0);
        if count > vocab.len() + SPARSE_SLACK {
            return None;
        }
        let tokens: Vec<Option<String>> = (0..count)
            .map(|id| {
                u32::try_from(id)
                    .ok()
                    .and_then(|id| pipeline.id_to_token(id))
            })
            .collect();
        // Each token as the first decoded, then after another token.
        let mut pieces = Vec::with_capacity(2 * count);
        for token in tokens.iter().flatten() {
            let after = match token.strip_prefix(decoder.prefix.as_str()) {
                Some(rest) => rest.to_string(),
                None => format!(" {token}"),
            };
            pieces.extend([token.clone(), after]);
        }
        if decoder.cleanup {
            pieces = cleanup_all(pieces)?;
        }
        let added = pipeline.get_added_vocabulary();
        let mut this = WordPieceDecoder {
            text: String::new(),
            hot: vec![Hot::default(); count],
            cold: vec![Cold::default(); count],
        };
        let mut pieces = pieces.chunks_exact(2);
        for (id, token) in tokens.iter().enumerate() {
            let Some(token) = token else {
                continue;
            };
            let [first, after] = pieces.next()? else {
                return None;
            };
            this.cold[id] = Cold {
                first: this.push(first)?,
                after: this.push(after)?,
            };
            let mut hot = Hot {
                len: LONG,
                kind: if added.is_special_token(token) {
                    Kind::Special
                } else {
                    Kind::Ordinary
                },
                ..Hot::default()
            };
            if let Some(bytes) = hot.bytes.get_mut(..after.len()) {
                bytes.copy_from_slice(after.as_bytes());
                hot.len = after.len() as u8;
            }
            this.hot[id] = hot;
        }
        Some(this)
    }

    /// Appends `piece` to `text`; its range there.
    fn push(&mut self, piece: &str) -> Option<(u32, u32)> {
        let start = u32::try_from(self.text.len()).ok()?;
        self.text.push_str(piece);
        Some((start, u32::try_from(self.text.len()).ok()?))
    }

    fn piece(&self, (start, end): (u32, u32)) -> &[u8] {
        self.text
            .as_bytes()
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }
}

/// The WordPiece decoder's cleanup of each piece, done on all at once:
/// pieces joined by NUL, which no cleanup pattern holds, so that no
/// replacement spans two pieces. `None` if the count comes out different.
fn cleanup_all(pieces: Vec<String>) -> Option<Vec<String>> {
    if pieces.is_empty() {
        return Some(pieces);
    }
    let cleaned: Vec<String> = if pieces.iter().any(|p| p.contains('\0')) {
        pieces.iter().map(|p| cleanup(p)).collect()
    } else {
        cleanup(&pieces.join("\0"))
            .split('\0')
            .map(str::to_string)
            .collect()
    };
    (cleaned.len() == pieces.len()).then_some(cleaned)
}

impl Decode for WordPieceDecoder {
    fn decode_bytes(&self, ids: &[u32], skip_special_tokens: bool) -> Vec<u8> {
        // Pieces are copied `INLINE` bytes at a time into a buffer kept at
        // least that much longer than what it holds.
        let mut buf = vec![0u8; ids.len() * 6 + INLINE];
        let mut len = 0;
        let mut first = true;
        for &id in ids {
            let Some(hot) = self.hot.get(id as usize) else {
                continue;
            };
            if hot.kind == Kind::Unknown || (skip_special_tokens && hot.kind == Kind::Special) {
                continue;
            }
            if hot.len != LONG && !first {
                if buf.len() < len + INLINE {
                    buf.resize(2 * buf.len() + INLINE, 0);
                }
                buf[len..len + INLINE].copy_from_slice(&hot.bytes);
                len += hot.len as usize;
                continue;
            }
            let Some(cold) = self.cold.get(id as usize) else {
                continue;
            };
            let piece = self.piece(if first { cold.first } else { cold.after });
            first = false;
            if buf.len() < len + piece.len() + INLINE {
                buf.resize(2 * buf.len() + piece.len() + INLINE, 0);
            }
            buf[len..len + piece.len()].copy_from_slice(piece);
            len += piece.len();
        }
        buf.truncate(len);
        buf
    }
}
