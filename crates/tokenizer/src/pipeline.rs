//! Direct encoders and decoders.
//!
//! The general pipeline (the `tokenizers` crate) tracks per-character
//! alignments through every stage, which costs most of its time. For the
//! configurations real models use, a direct encoder runs the same stages
//! without that bookkeeping: byte-level BPE (`model/byte_bpe.rs`), BERT-style
//! WordPiece (`model/wordpiece.rs`) and SentencePiece-style Unigram and BPE
//! (`model/sentencepiece.rs`). Each is built only for a configuration it
//! reproduces exactly (its constructor returns `None` otherwise, and the
//! general pipeline runs); `tests/reference.rs` and the fuzz targets compare
//! every one with the general pipeline (`Tokenizer::general_pipeline_only`).

use std::sync::Arc;

use crate::model::byte_bpe::{BpeSource, ByteBpe};
use crate::TokenSpan;

/// A direct encoder.
pub(crate) trait Encode: Send + Sync {
    /// Encodes `text` (added tokens, normalizer, pre-tokenizer, model; no
    /// post-processor), appending each token with the byte span, in `text`,
    /// of the pre-tokenizer segment it came from and that segment's index.
    /// Special tokens are matched when `match_special`. Segments are in text
    /// order and do not overlap; the streaming encoder relies on this.
    fn encode(&self, text: &str, match_special: bool, out: &mut Vec<TokenSpan>);

    /// The ids alone of [`Encode::encode`], appended to `out`.
    fn encode_ids(&self, text: &str, match_special: bool, out: &mut Vec<u32>) {
        let mut spans = Vec::new();
        self.encode(text, match_special, &mut spans);
        out.extend(spans.iter().map(|s| s.id));
    }
}

/// A direct decoder.
pub(crate) trait Decode: Send + Sync {
    /// Decodes `ids` as the general pipeline does (ids without a token are
    /// skipped; invalid UTF-8 becomes U+FFFD).
    fn decode(&self, ids: &[u32], skip_special_tokens: bool) -> String {
        lossy_utf8(self.decode_bytes(ids, skip_special_tokens))
    }

    /// The bytes whose lossy UTF-8 reading is [`Decode::decode`] (callers
    /// that build strings elsewhere, such as the Python binding, validate
    /// them once there).
    fn decode_bytes(&self, ids: &[u32], skip_special_tokens: bool) -> Vec<u8>;

    /// Whether `decode` is the concatenation of per-id bytes read as UTF-8
    /// with replacement; streaming decode then emits text as soon as its
    /// bytes are complete, with no re-decoding.
    fn is_concatenation(&self) -> bool {
        false
    }

    /// For a concatenation: appends the bytes of `id` (nothing for an id
    /// without a token, or a special one when `skip_special_tokens`).
    fn append_token_bytes(&self, _id: u32, _skip_special_tokens: bool, _out: &mut Vec<u8>) {}
}

/// `bytes` as UTF-8, each invalid sequence replaced by U+FFFD.
pub(crate) fn lossy_utf8(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The direct encoder for `pipeline`, if one reproduces it. `source` is the
/// BPE vocabulary and merges in file order (the `tokenizers` crate keeps its
/// merges private).
pub(crate) fn encoder(
    pipeline: &tokenizers::Tokenizer,
    source: Option<&BpeSource>,
) -> Option<Arc<dyn Encode>> {
    if let Some(encoder) = source.and_then(|source| ByteBpe::from_pipeline(pipeline, source)) {
        return Some(Arc::new(encoder));
    }
    if let Some(encoder) = crate::model::wordpiece::WordPieceEncoder::from_pipeline(pipeline) {
        return Some(Arc::new(encoder));
    }
    if let Some(encoder) =
        crate::model::sentencepiece::SentencePieceEncoder::from_pipeline(pipeline, source)
    {
        return Some(Arc::new(encoder));
    }
    None
}

/// The direct decoder for `pipeline`, if one reproduces it.
pub(crate) fn decoder(pipeline: &tokenizers::Tokenizer) -> Option<Arc<dyn Decode>> {
    if let Some(decoder) = crate::decoder::byte_level::table(pipeline) {
        return Some(Arc::new(decoder));
    }
    if let Some(decoder) = crate::decoder::wordpiece::WordPieceDecoder::from_pipeline(pipeline) {
        return Some(Arc::new(decoder));
    }
    if let Some(decoder) =
        crate::decoder::sentencepiece::SentencePieceDecoder::from_pipeline(pipeline)
    {
        return Some(Arc::new(decoder));
    }
    None
}
