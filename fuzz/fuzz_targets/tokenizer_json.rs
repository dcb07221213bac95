//! Parses the input as a Hugging Face `tokenizer.json`. Malformed documents
//! must give an `iree_tokenizer::Error`, never a panic; a tokenizer that
//! loads must encode, decode and stream a few texts without panicking, and
//! where it takes the direct paths they must agree with the general
//! pipeline, streamed or not.
#![no_main]

use iree_tokenizer::{EncodeOptions, Tokenizer};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(tok) = Tokenizer::from_huggingface_json(json) else {
        return;
    };
    let _ = (tok.vocab_size(), tok.model_type(), tok.special_ids());
    for text in ["", "Hello world", "caf\u{e9} <s> [CLS] \u{1F600}\n\t 123"] {
        for add_special_tokens in [false, true] {
            let options = EncodeOptions {
                add_special_tokens,
                no_special_token_matching: false,
            };
            if let Ok(ids) = tok.encode(text, options) {
                let _ = tok.decode(&ids, false);
                let _ = tok.decode(&ids, true);
                for &id in ids.iter().take(8) {
                    let _ = tok.id_to_token(id);
                }
            }
        }
        let mut stream = tok.encode_stream(EncodeOptions::default());
        let _ = stream.feed(text);
        let _ = stream.finalize();
    }
    let _ = tok.decode(&[0, 1, 2, 3, u32::MAX], false);
    if tok.uses_fast_paths() != (false, false) {
        let general = tok.general_pipeline_only();
        for text in [
            "",
            "Hello  world\n\n x",
            "caf\u{e9} <s> [CLS] \u{1F600}\n\t 123 'll",
        ] {
            for no_special_token_matching in [false, true] {
                let options = EncodeOptions {
                    add_special_tokens: false,
                    no_special_token_matching,
                };
                let fast = tok.encode(text, options);
                assert_eq!(fast.is_ok(), general.encode(text, options).is_ok());
                if let (Ok(a), Ok(b)) = (fast, general.encode(text, options)) {
                    assert_eq!(a, b, "encode {text:?}");
                    // Streaming in two pieces (at every character boundary)
                    // relies on the direct path's segments.
                    for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                        let mut stream = tok.encode_stream(options);
                        let mut streamed = stream.feed(&text[..cut]).unwrap_or_default();
                        streamed.extend(stream.feed(&text[cut..]).unwrap_or_default());
                        streamed.extend(stream.finalize().unwrap_or_default());
                        assert_eq!(streamed, b, "stream {text:?} cut at {cut}");
                    }
                    assert_eq!(tok.decode(&a, false).ok(), general.decode(&a, false).ok());
                    assert_eq!(tok.decode(&a, true).ok(), general.decode(&a, true).ok());
                }
            }
        }
        let ids: Vec<u32> = (0..64).chain([u32::MAX]).collect();
        assert_eq!(
            tok.decode(&ids, false).ok(),
            general.decode(&ids, false).ok()
        );
    }
});
