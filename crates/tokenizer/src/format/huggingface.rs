//! Hugging Face `tokenizer.json`: parsed by the `tokenizers` crate, which is
//! the reference implementation of the format.

use std::str::FromStr;

use crate::error::{Error, ErrorKind, Result};

/// Parses a `tokenizer.json` document.
pub(crate) fn parse(json: &str) -> Result<(tokenizers::Tokenizer, Option<u32>)> {
    // A first pass with serde_json gives a precise syntax error, and a
    // document that is not an object is rejected before the typed parse.
    let value: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| Error::invalid(format!("invalid tokenizer JSON: {e}")))?;
    let Some(object) = value.as_object() else {
        return Err(Error::invalid("tokenizer JSON must be an object"));
    };
    if !object.contains_key("model") {
        return Err(Error::invalid("tokenizer JSON has no 'model'"));
    }
    let tokenizer = tokenizers::Tokenizer::from_str(json).map_err(|e| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("invalid tokenizer JSON: {e}"),
        )
    })?;
    let unk = unk_token_id(&value, &tokenizer);
    Ok((tokenizer, unk))
}

/// The id of the model's unknown token, if it has one.
fn unk_token_id(value: &serde_json::Value, tokenizer: &tokenizers::Tokenizer) -> Option<u32> {
    let model = value.get("model")?;
    if let Some(unk) = model.get("unk_token").and_then(|v| v.as_str()) {
        return tokenizer.token_to_id(unk);
    }
    let unk_id = model.get("unk_id").and_then(|v| v.as_u64())?;
    let id = u32::try_from(unk_id).ok()?;
    tokenizer.id_to_token(id).map(|_| id)
}
