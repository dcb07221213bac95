//! Parses the input as tiktoken data (`<base64> <rank>` lines); the first
//! byte picks the named encoding. Malformed data must give an
//! `iree_tokenizer::Error`, never a panic; a tokenizer that loads must
//! round-trip text through encode and decode (byte-level BPE is lossless).
#![no_main]

use iree_tokenizer::format::tiktoken::ENCODINGS;
use iree_tokenizer::{EncodeOptions, Tokenizer};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let encoding = &ENCODINGS[selector as usize % ENCODINGS.len()];
    let Ok(tok) = Tokenizer::from_tiktoken(rest, encoding.name) else {
        return;
    };
    for text in [
        "",
        "Hello world",
        "caf\u{e9} <|endoftext|> \u{1F600}\n\t 123",
    ] {
        let ids = tok.encode(text, EncodeOptions::default()).expect("encode");
        assert_eq!(tok.decode(&ids, false).expect("decode"), text);
    }
});
