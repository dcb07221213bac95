//! (to be written) SentencePiece-style direct encoder: Unigram, and BPE with
//! byte fallback.

use crate::model::byte_bpe::BpeSource;
use crate::pipeline::Encode;
use crate::TokenSpan;

/// Direct encoder for SentencePiece-style configurations.
pub(crate) struct SentencePieceEncoder {}

impl SentencePieceEncoder {
    /// The encoder for `pipeline`, if it reproduces it exactly. `source`:
    /// a BPE model's vocabulary and merges in file order.
    pub(crate) fn from_pipeline(
        _pipeline: &tokenizers::Tokenizer,
        _source: Option<&BpeSource>,
    ) -> Option<Self> {
        None
    }
}

impl Encode for SentencePieceEncoder {
    fn encode(&self, _text: &str, _match_special: bool, _out: &mut Vec<TokenSpan>) {}
}
