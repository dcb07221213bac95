//! (to be written) WordPiece direct encoder.

use crate::pipeline::Encode;
use crate::TokenSpan;

/// Direct encoder for BERT-style WordPiece configurations.
pub(crate) struct WordPieceEncoder {}

impl WordPieceEncoder {
    /// The encoder for `pipeline`, if it reproduces it exactly.
    pub(crate) fn from_pipeline(_pipeline: &tokenizers::Tokenizer) -> Option<Self> {
        None
    }
}

impl Encode for WordPieceEncoder {
    fn encode(&self, _text: &str, _match_special: bool, _out: &mut Vec<TokenSpan>) {}
}
