//! Hugging Face `tokenizer.json`: parsed by the `tokenizers` crate, which is
//! the reference implementation of the format.

use std::str::FromStr;

use crate::error::{Error, ErrorKind, Result};
use crate::model::byte_bpe::BpeSource;

/// Parses a `tokenizer.json` document.
pub(crate) fn parse(json: &str) -> Result<(tokenizers::Tokenizer, Option<u32>, Option<BpeSource>)> {
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
    if let Some(normalizer) = object.get("normalizer") {
        validate_charsmaps(normalizer)?;
    }
    let tokenizer = tokenizers::Tokenizer::from_str(json).map_err(|e| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("invalid tokenizer JSON: {e}"),
        )
    })?;
    // Validated in its canonical form: serde accepts e.g. a template
    // without its "type" tag, so the document itself is no guide.
    if let Some(processor) = tokenizer.get_post_processor() {
        let canonical = serde_json::to_value(processor)
            .map_err(|e| Error::invalid(format!("invalid post_processor: {e}")))?;
        validate_post_processor(&canonical)?;
    }
    if let Some(decoder) = tokenizer.get_decoder() {
        let canonical = serde_json::to_value(decoder)
            .map_err(|e| Error::invalid(format!("invalid decoder: {e}")))?;
        validate_decoder(&canonical)?;
    }
    let unk = unk_token_id(&value, &tokenizer);
    let source = value.get("model").and_then(BpeSource::from_json);
    Ok((tokenizer, unk, source))
}

/// Rejects a Strip decoder that strips from the end (`stop > 0`): the
/// `tokenizers` crate indexes past the start of a token shorter than `stop`
/// (a panic, found by fuzzing), and the standard files strip only from the
/// start (Llama's leading space).
fn validate_decoder(decoder: &serde_json::Value) -> Result<()> {
    match decoder.get("type").and_then(|t| t.as_str()) {
        Some("Sequence") => decoder
            .get("decoders")
            .and_then(|d| d.as_array())
            .into_iter()
            .flatten()
            .try_for_each(validate_decoder),
        Some("Strip") if decoder.get("stop").and_then(|s| s.as_u64()).unwrap_or(0) > 0 => {
            Err(Error::new(
                ErrorKind::Unimplemented,
                "decoder Strip with stop > 0 is not supported (only stripping from the start)",
            ))
        }
        _ => Ok(()),
    }
}

/// Checks the `precompiled_charsmap` of every Precompiled normalizer the
/// way `tokenizers` reads it (it panics on one that does not parse, found by
/// fuzzing).
fn validate_charsmaps(value: &serde_json::Value) -> Result<()> {
    match value {
        serde_json::Value::Object(object) => {
            if object.get("type").and_then(|t| t.as_str()) == Some("Precompiled") {
                let invalid = |e: &dyn std::fmt::Display| {
                    Error::invalid(format!("invalid Precompiled normalizer: {e}"))
                };
                // The trie size in the header is allocated before it is
                // checked against the data.
                let charsmap = object.get("precompiled_charsmap").and_then(|c| c.as_str());
                let bytes =
                    base64::decode(charsmap.unwrap_or_default()).map_err(|e| invalid(&e))?;
                let trie_size = bytes
                    .get(..4)
                    .map(|h| u32::from_le_bytes([h[0], h[1], h[2], h[3]]));
                if trie_size.is_none_or(|size| size as usize > bytes.len() - 4) {
                    return Err(invalid(&"trie larger than the charsmap"));
                }
                if !crate::normalizer::sentencepiece::charsmap_is_safe(&bytes) {
                    return Err(invalid(&"its trie reaches outside the charsmap"));
                }
                serde_json::from_str::<spm_precompiled::Precompiled>(&value.to_string())
                    .map_err(|e| invalid(&e))?;
            }
            object.values().try_for_each(validate_charsmaps)
        }
        serde_json::Value::Array(items) => items.iter().try_for_each(validate_charsmaps),
        _ => Ok(()),
    }
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

/// Checks what the `tokenizers` crate accepts when parsing but would panic
/// on later: template pieces naming special tokens that are not defined, and
/// special tokens whose `ids` and `tokens` differ in length.
fn validate_post_processor(processor: &serde_json::Value) -> Result<()> {
    let Some(object) = processor.as_object() else {
        return Ok(());
    };
    match object.get("type").and_then(|t| t.as_str()) {
        Some("Sequence") => {
            for inner in object
                .get("processors")
                .and_then(|p| p.as_array())
                .into_iter()
                .flatten()
            {
                validate_post_processor(inner)?;
            }
        }
        Some("TemplateProcessing") => {
            let specials = object.get("special_tokens").and_then(|s| s.as_object());
            for (name, special) in specials.into_iter().flatten() {
                let len = |key: &str| special.get(key).and_then(|v| v.as_array()).map(Vec::len);
                if len("ids") != len("tokens") {
                    return Err(Error::invalid(format!(
                        "post_processor special token '{name}' has {:?} ids but {:?} tokens",
                        len("ids"),
                        len("tokens")
                    )));
                }
            }
            for template in ["single", "pair"] {
                let pieces = object.get(template).and_then(|t| t.as_array());
                for piece in pieces.into_iter().flatten() {
                    if let Some(id) = piece.get("Sequence").and_then(|t| t.get("id")) {
                        let allowed: &[&str] = if template == "single" {
                            &["A"]
                        } else {
                            &["A", "B"]
                        };
                        if !id.as_str().is_some_and(|id| allowed.contains(&id)) {
                            return Err(Error::invalid(format!(
                                "post_processor template '{template}' uses sequence {id}, \
                                 which it does not have"
                            )));
                        }
                    }
                    let Some(id) = piece.get("SpecialToken").and_then(|t| t.get("id")) else {
                        continue;
                    };
                    let id = id.as_str().unwrap_or_default();
                    if !specials.is_some_and(|s| s.contains_key(id)) {
                        return Err(Error::invalid(format!(
                            "post_processor template '{template}' uses special token '{id}', \
                             which special_tokens does not define"
                        )));
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: &str =
        r#""model": {"type": "WordLevel", "vocab": {"a": 0, "[CLS]": 1}, "unk_token": "a"}"#;

    #[test]
    fn unreadable_charsmap_is_an_error() {
        let json = format!(
            r#"{{{MODEL}, "normalizer": {{"type": "Sequence", "normalizers":
                [{{"type": "Precompiled", "precompiled_charsmap": "AAAA"}}]}}}}"#
        );
        let err = parse(&json).unwrap_err();
        assert!(err.message().contains("Precompiled"), "{err}");
        // A header announcing a 2 GiB trie.
        let huge = json.replace("AAAA", "////fw==");
        assert!(parse(&huge).unwrap_err().message().contains("trie larger"));
        // A trie whose root points past its end.
        let outside = json.replace("AAAA", "BAAAAAD8/38=");
        assert!(parse(&outside).unwrap_err().message().contains("outside"));
    }

    #[test]
    fn template_with_undefined_special_token_is_an_error() {
        let json = format!(
            r#"{{{MODEL}, "post_processor": {{"type": "TemplateProcessing",
                "single": [{{"SpecialToken": {{"id": "[CLS]", "type_id": 0}}}},
                           {{"Sequence": {{"id": "A", "type_id": 0}}}}],
                "pair": [{{"Sequence": {{"id": "A", "type_id": 0}}}}],
                "special_tokens": {{"[CLSX]": {{"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}}}}}}}}"#
        );
        let err = parse(&json).unwrap_err();
        assert!(err.message().contains("does not define"), "{err}");
        let untagged = json.replace(r#""type": "TemplateProcessing","#, "");
        assert!(parse(&untagged)
            .unwrap_err()
            .message()
            .contains("does not define"));
        let fixed = json.replace("[CLSX]", "[CLS]");
        let single_b = fixed.replacen(r#""id": "A""#, r#""id": "B""#, 1);
        assert!(parse(&single_b).unwrap_err().message().contains("sequence"));
        parse(&fixed).unwrap();
        let uneven = fixed.replace(r#""ids": [1]"#, r#""ids": [1, 1]"#);
        assert!(parse(&uneven).unwrap_err().message().contains("ids but"));
    }
}
