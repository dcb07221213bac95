//! (to be written) sentencepiece direct decoder.

use crate::pipeline::Decode;

/// Direct decoder.
pub(crate) struct SentencePieceDecoder {}

impl SentencePieceDecoder {
    /// The decoder for `pipeline`, if it reproduces it exactly.
    pub(crate) fn from_pipeline(_pipeline: &tokenizers::Tokenizer) -> Option<Self> {
        None
    }
}

impl Decode for SentencePieceDecoder {
    fn decode(&self, _ids: &[u32], _skip_special_tokens: bool) -> String {
        String::new()
    }
}
