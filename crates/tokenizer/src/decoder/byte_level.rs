//! The ByteLevel decoder: each token's string mapped back through the
//! byte-level alphabet, concatenated, then read as UTF-8 with replacement.

use crate::decoder::TokenTable;
use crate::model::byte_bpe;
use crate::pipeline::Decode;

/// Per-id token bytes and whether the token is special.
pub(crate) struct ByteLevelDecoder {
    table: TokenTable,
}

impl Decode for ByteLevelDecoder {
    fn decode_bytes(&self, ids: &[u32], skip_special_tokens: bool) -> Vec<u8> {
        self.table.concat(ids, skip_special_tokens)
    }

    fn is_concatenation(&self) -> bool {
        true
    }

    #[inline]
    fn append_token_bytes(&self, id: u32, skip_special_tokens: bool, out: &mut Vec<u8>) {
        if let Some((token, special)) = self.table.get(id) {
            if !(skip_special_tokens && special) {
                out.extend_from_slice(token);
            }
        }
    }
}

/// Per-id bytes when the decoder is exactly ByteLevel (HF's semantics:
/// byte-level decoding of each token string, concatenated, then UTF-8 with
/// replacement), with whether the token is special.
pub(crate) fn table(pipeline: &tokenizers::Tokenizer) -> Option<ByteLevelDecoder> {
    use tokenizers::DecoderWrapper;
    if !matches!(pipeline.get_decoder(), Some(DecoderWrapper::ByteLevel(_))) {
        return None;
    }
    // One copy of the vocabulary (`get_vocab_size` would make another).
    let vocab = pipeline.get_vocab(true);
    let max_id = vocab.values().copied().max()?;
    // Vocabularies with huge id gaps are left to the general path.
    if max_id as usize > 4 * vocab.len() + (1 << 18) {
        return None;
    }
    let added = pipeline.get_added_vocabulary();
    let table = TokenTable::build(max_id, |id| {
        let token = pipeline.id_to_token(id)?;
        let special = added.is_special_token(&token);
        Some((byte_bpe::token_bytes(&token), special))
    })?;
    Some(ByteLevelDecoder { table })
}
