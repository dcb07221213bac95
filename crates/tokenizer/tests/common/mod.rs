//! Helpers shared by the tokenizer's integration tests: fixture paths, the
//! encode options every comparison runs under, and streaming encode.
#![allow(dead_code)] // each test binary uses a subset

use std::path::PathBuf;

use iree_tokenizer::{EncodeOptions, Tokenizer};
use serde_json::Value;

/// A file of `tests/data`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A `tests/data` JSON file, parsed.
pub fn document(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(data(name)).unwrap()).unwrap()
}

/// A `tests/data` tokenizer file, loaded.
pub fn load_file(name: &str) -> Tokenizer {
    Tokenizer::from_file(data(name)).unwrap()
}

/// Special tokens matched, none added.
pub const PLAIN: EncodeOptions = EncodeOptions {
    add_special_tokens: false,
    no_special_token_matching: false,
};
/// Special tokens matched and the post-processor's added.
pub const SPECIAL: EncodeOptions = EncodeOptions {
    add_special_tokens: true,
    no_special_token_matching: false,
};
/// Special tokens treated as text.
pub const ORDINARY: EncodeOptions = EncodeOptions {
    add_special_tokens: false,
    no_special_token_matching: true,
};
/// The three, for tests that run under each.
pub const OPTIONS: [EncodeOptions; 3] = [PLAIN, SPECIAL, ORDINARY];

/// The ids of `text` fed to an encode stream in pieces cut at `cuts`.
pub fn stream_encode(
    tok: &Tokenizer,
    text: &str,
    options: EncodeOptions,
    cuts: &[usize],
) -> Vec<u32> {
    let mut stream = tok.encode_stream(options);
    let mut out = Vec::new();
    let mut at = 0;
    for &cut in cuts {
        out.extend(stream.feed(&text[at..cut]).unwrap());
        at = cut;
    }
    out.extend(stream.feed(&text[at..]).unwrap());
    out.extend(stream.finalize().unwrap());
    out
}

/// The character boundaries inside `text` (every place a stream can cut).
pub fn boundaries(text: &str) -> Vec<usize> {
    (1..text.len())
        .filter(|&i| text.is_char_boundary(i))
        .collect()
}
