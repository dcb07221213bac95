//! Encodes arbitrary text with the fixture tokenizers of
//! `crates/tokenizer/tests/data`. For byte-level BPE (tokenizer.json and
//! tiktoken) `decode(encode(x)) == x`. For every fixture, streaming encode
//! (chunk sizes from the input) equals one-shot encode, and streaming decode
//! (one id at a time) equals one-shot decode. Where the byte-level fast
//! paths are used, they must agree with the general pipeline.
#![no_main]

use std::sync::OnceLock;

use iree_tokenizer::{EncodeOptions, Tokenizer};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: iree_fuzz::CappedAlloc = iree_fuzz::CappedAlloc;

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../crates/tokenizer/tests/data/"
);

/// The fixtures, and whether each one round-trips any text exactly.
fn fixtures() -> &'static [(Tokenizer, bool)] {
    static FIXTURES: OnceLock<Vec<(Tokenizer, bool)>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let load = |name: &str| Tokenizer::from_file(format!("{DATA}{name}")).expect(name);
        let ranks = std::fs::read(format!("{DATA}gpt2.tiktoken")).expect("gpt2.tiktoken");
        let tiktoken = |encoding: &str| Tokenizer::from_tiktoken(&ranks, encoding).expect(encoding);
        vec![
            (load("bpe_byte_level.json"), true),
            (load("gpt2.tiktoken"), true),
            // The same ranks under the cl100k and o200k split patterns.
            (tiktoken("cl100k_base"), true),
            (tiktoken("o200k_base"), true),
            (load("wordpiece_bert.json"), false),
            (load("unigram_metaspace.json"), false),
        ]
    })
}

/// The general-pipeline copy of a fixture (cached per fixture).
fn general(tok: &Tokenizer) -> &'static Tokenizer {
    static GENERAL: OnceLock<Vec<Tokenizer>> = OnceLock::new();
    let all = GENERAL.get_or_init(|| {
        fixtures()
            .iter()
            .map(|(t, _)| t.general_pipeline_only())
            .collect()
    });
    let index = fixtures()
        .iter()
        .position(|(t, _)| std::ptr::eq(t, tok))
        .expect("a fixture");
    &all[index]
}

fuzz_target!(|data: &[u8]| {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let options = EncodeOptions {
        add_special_tokens: shape & 1 != 0,
        no_special_token_matching: shape & 2 != 0,
    };
    let chunk = 1 + usize::from(shape >> 2);
    for (tok, lossless) in fixtures() {
        let ids = tok.encode(&text, options).expect("encode");
        let decoded = tok.decode(&ids, false).expect("decode");
        if tok.uses_fast_paths() != (false, false) {
            let general = general(tok);
            assert_eq!(
                general.encode(&text, options).expect("encode"),
                ids,
                "{tok:?}"
            );
            assert_eq!(
                general.decode(&ids, false).expect("decode"),
                decoded,
                "{tok:?}"
            );
            assert_eq!(
                general.decode(&ids, true).expect("decode"),
                tok.decode(&ids, true).expect("decode")
            );
        }
        if *lossless && !options.add_special_tokens {
            assert_eq!(decoded, text, "{tok:?}");
        }
        // Streaming encode in chunks of `chunk` characters.
        let mut stream = tok.encode_stream(options);
        let mut streamed = Vec::new();
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        for piece in chars.chunks(chunk) {
            let start = piece[0].0;
            let last = piece[piece.len() - 1];
            streamed.extend(
                stream
                    .feed(&text[start..last.0 + last.1.len_utf8()])
                    .expect("feed"),
            );
        }
        streamed.extend(stream.finalize().expect("finalize"));
        assert_eq!(streamed, ids, "{tok:?} chunk {chunk}");
        // Streaming decode, one id at a time.
        let mut stream = tok.decode_stream(false);
        let mut text_out = String::new();
        for &id in &ids {
            text_out.push_str(&stream.feed_one(id).expect("feed_one"));
        }
        text_out.push_str(&stream.finalize().expect("finalize"));
        assert_eq!(text_out, decoded, "{tok:?}");
    }
});
