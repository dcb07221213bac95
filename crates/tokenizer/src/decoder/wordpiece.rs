//! (to be written) wordpiece direct decoder.

use crate::pipeline::Decode;

/// Direct decoder.
pub(crate) struct WordPieceDecoder {}

impl WordPieceDecoder {
    /// The decoder for `pipeline`, if it reproduces it exactly.
    pub(crate) fn from_pipeline(_pipeline: &tokenizers::Tokenizer) -> Option<Self> {
        None
    }
}

impl Decode for WordPieceDecoder {
    fn decode(&self, _ids: &[u32], _skip_special_tokens: bool) -> String {
        String::new()
    }
}
