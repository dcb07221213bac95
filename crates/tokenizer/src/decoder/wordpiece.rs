//! A direct WordPiece decoder: each id's text, as the `tokenizers` crate's
//! WordPiece decoder gives it first in the output and after another token,
//! is computed at load; decoding concatenates.

use tokenizers::decoders::wordpiece::cleanup;
use tokenizers::DecoderWrapper;

use crate::pipeline::Decode;

/// The text of one id in `WordPieceDecoder::text`.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    /// As the first token decoded.
    first: (u32, u32),
    /// After another token: the continuing-subword prefix stripped, or a
    /// space before.
    after: (u32, u32),
    /// The id has a token.
    known: bool,
    /// The token is special (dropped when skipping special tokens).
    special: bool,
}

/// Direct decoder for the WordPiece decoder.
pub(crate) struct WordPieceDecoder {
    text: String,
    entries: Vec<Entry>,
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
        let added = pipeline.get_added_vocabulary();
        let mut this = WordPieceDecoder {
            text: String::new(),
            entries: vec![Entry::default(); count],
        };
        for (id, entry) in (0u32..).zip(this.entries.iter_mut()) {
            let Some(token) = pipeline.id_to_token(id) else {
                continue;
            };
            let after = match token.strip_prefix(decoder.prefix.as_str()) {
                Some(rest) => rest.to_string(),
                None => format!(" {token}"),
            };
            let mut push = |piece: &str| {
                // Every cleanup pattern starts with a space.
                let piece = if decoder.cleanup && piece.contains(' ') {
                    cleanup(piece)
                } else {
                    piece.to_string()
                };
                let start = u32::try_from(this.text.len()).ok()?;
                this.text.push_str(&piece);
                Some((start, u32::try_from(this.text.len()).ok()?))
            };
            *entry = Entry {
                first: push(&token)?,
                after: push(&after)?,
                known: true,
                special: added.is_special_token(&token),
            };
        }
        Some(this)
    }
}

impl Decode for WordPieceDecoder {
    fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> String {
        let mut out = String::with_capacity(ids.len() * 8);
        let mut first = true;
        for &id in ids {
            let Some(entry) = self.entries.get(id as usize) else {
                continue;
            };
            if !entry.known || (skip_special_tokens && entry.special) {
                continue;
            }
            let (start, end) = if first { entry.first } else { entry.after };
            first = false;
            out.push_str(self.text.get(start as usize..end as usize).unwrap_or(""));
        }
        out
    }
}
