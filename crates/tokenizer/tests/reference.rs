//! Encode/decode of the fixtures in `tests/data` against the ids the
//! reference implementations give (`tests/data/expected.json`, written by
//! `tests/data/reference.py`), and streaming against one-shot results.

mod common;

use common::{boundaries, data, stream_encode, ORDINARY, PLAIN, SPECIAL};
use iree_tokenizer::{ErrorKind, Tokenizer};
use serde_json::{json, Value};

fn expected(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(data("expected.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all[name].as_array().unwrap().clone()
}

fn ids(value: &Value) -> Vec<u32> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect()
}

const JSON_FIXTURES: [&str; 3] = [
    "bpe_byte_level.json",
    "wordpiece_bert.json",
    "unigram_metaspace.json",
];

#[test]
fn json_fixtures_match_reference() {
    for name in JSON_FIXTURES {
        let tok = Tokenizer::from_file(data(name)).unwrap();
        for case in expected(name) {
            let text = case["text"].as_str().unwrap();
            let plain = tok.encode(text, PLAIN).unwrap();
            assert_eq!(plain, ids(&case["ids"]), "{name}: {text:?}");
            let special = tok.encode(text, SPECIAL).unwrap();
            assert_eq!(special, ids(&case["ids_with_special"]), "{name}: {text:?}");
            assert_eq!(
                tok.decode(&plain, false).unwrap(),
                case["decoded"].as_str().unwrap(),
                "{name}: {text:?}"
            );
            assert_eq!(
                tok.decode(&special, true).unwrap(),
                case["decoded_skip"].as_str().unwrap(),
                "{name}: {text:?}"
            );
        }
    }
}

#[test]
fn tiktoken_fixture_matches_reference() {
    let tok = Tokenizer::from_file(data("gpt2.tiktoken")).unwrap();
    assert_eq!(tok.model_type(), "BPE");
    for case in expected("gpt2.tiktoken") {
        let text = case["text"].as_str().unwrap();
        let got = tok.encode(text, PLAIN).unwrap();
        assert_eq!(got, ids(&case["ids"]), "{text:?}");
        assert_eq!(
            tok.encode(text, ORDINARY).unwrap(),
            ids(&case["ordinary"]),
            "{text:?}"
        );
        assert_eq!(
            tok.decode(&got, false).unwrap(),
            case["decoded"].as_str().unwrap()
        );
    }
    let data = std::fs::read(data("gpt2.tiktoken")).unwrap();
    let inline = Tokenizer::from_tiktoken(&data, "r50k_base").unwrap();
    assert_eq!(
        inline.encode("Hello world", PLAIN).unwrap(),
        tok.encode("Hello world", PLAIN).unwrap()
    );
    assert_eq!(inline.token_to_id("<|endoftext|>"), Some(50256));
    assert_eq!(inline.id_to_token(0).as_deref(), Some("!"));
}

fn all_fixtures() -> Vec<Tokenizer> {
    let mut out: Vec<Tokenizer> = JSON_FIXTURES
        .iter()
        .map(|n| Tokenizer::from_file(data(n)).unwrap())
        .collect();
    out.push(Tokenizer::from_file(data("gpt2.tiktoken")).unwrap());
    out
}

#[test]
fn streaming_encode_matches_batch_at_every_split() {
    for tok in all_fixtures() {
        for case in expected("bpe_byte_level.json") {
            let text = case["text"].as_str().unwrap();
            for options in [PLAIN, SPECIAL, ORDINARY] {
                let batch = tok.encode(text, options).unwrap();
                assert_eq!(stream_encode(&tok, text, options, &[]), batch);
                if text.len() > 80 {
                    continue;
                }
                let splits = boundaries(text);
                for &cut in &splits {
                    assert_eq!(
                        stream_encode(&tok, text, options, &[cut]),
                        batch,
                        "{tok:?} {text:?} at {cut}"
                    );
                }
                // Every character its own chunk.
                assert_eq!(
                    stream_encode(&tok, text, options, &splits),
                    batch,
                    "{tok:?} {text:?} per char"
                );
            }
        }
    }
}

#[test]
fn streaming_encode_with_an_expanding_normalizer() {
    // NFKC turns Thai SARA AM (one input character) into two characters
    // that the byte-level regex puts in different segments with the same
    // input offset; the stream must not emit the first one twice.
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("bpe_byte_level.json")).unwrap())
            .unwrap();
    doc["normalizer"] = serde_json::json!({"type": "NFKC"});
    let tok = Tokenizer::from_huggingface_json(&doc.to_string()).unwrap();
    for text in [
        "\u{e18}\u{e33}\u{e23}\u{e07} x \u{e33}\u{e33}",
        "\u{fb01}ne \u{2460}\u{e33}a",
    ] {
        let batch = tok.encode(text, PLAIN).unwrap();
        let splits = boundaries(text);
        for &cut in &splits {
            assert_eq!(
                stream_encode(&tok, text, PLAIN, &[cut]),
                batch,
                "{text:?} at {cut}"
            );
        }
        assert_eq!(
            stream_encode(&tok, text, PLAIN, &splits),
            batch,
            "{text:?} per char"
        );
    }
}

#[test]
fn streaming_decode_of_byte_fallback_runs() {
    // Llama-style: characters outside the vocabulary become <0xNN> tokens,
    // and the ByteFallback decoder gives one U+FFFD per byte until the
    // whole run of byte tokens is valid UTF-8.
    let mut vocab = serde_json::Map::new();
    for (id, token) in ["<unk>", "<s>", "</s>", "\u{2581}a", "b"]
        .iter()
        .enumerate()
    {
        vocab.insert(token.to_string(), json!(id));
    }
    for byte in 0..=255u32 {
        vocab.insert(format!("<0x{byte:02X}>"), json!(5 + byte));
    }
    let doc = json!({
        "version": "1.0",
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u{2581}"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u{2581}"}]},
        "pre_tokenizer": null,
        "model": {"type": "BPE", "vocab": vocab, "merges": [], "unk_token": "<unk>",
                  "fuse_unk": true, "byte_fallback": true},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u{2581}"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "added_tokens": []
    });
    let tok = Tokenizer::from_huggingface_json(&doc.to_string()).unwrap();
    let text = "a \u{2010c}\u{11a}\u{4e2d}b a\u{1F600}\u{1F600}";
    let ids = tok.encode(text, PLAIN).unwrap();
    let mut ids_bad = ids.clone();
    ids_bad.insert(3, 5 + 0xff);
    for ids in [ids, ids_bad] {
        let one_shot = tok.decode(&ids, false).unwrap();
        let mut stream = tok.decode_stream(false);
        let mut streamed = String::new();
        for &id in &ids {
            streamed += &stream.feed_one(id).unwrap();
        }
        streamed += &stream.finalize().unwrap();
        assert_eq!(streamed, one_shot);
    }
}

#[test]
fn strip_decoder_from_the_end_is_refused_at_load() {
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("bpe_byte_level.json")).unwrap())
            .unwrap();
    doc["decoder"] = json!({"type": "Sequence", "decoders": [
        {"type": "Strip", "content": " ", "start": 0, "stop": 1}]});
    let err = Tokenizer::from_huggingface_json(&doc.to_string()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unimplemented, "{err}");
    doc["decoder"] = json!({"type": "Strip", "content": " ", "start": 1, "stop": 0});
    assert!(Tokenizer::from_huggingface_json(&doc.to_string()).is_ok());
}

#[test]
fn streaming_encode_long_text_in_chunks() {
    let text =
        "The quick brown fox jumps over the lazy dog. Hello <|endoftext|> world!\n".repeat(200);
    for tok in all_fixtures() {
        let batch = tok.encode(&text, PLAIN).unwrap();
        for chunk in [1usize, 7, 64, 1000] {
            let cuts: Vec<usize> = (chunk..text.len()).step_by(chunk).collect();
            assert_eq!(
                stream_encode(&tok, &text, PLAIN, &cuts),
                batch,
                "{tok:?} chunk {chunk}"
            );
        }
    }
}

#[test]
fn streaming_decode_matches_batch() {
    for tok in all_fixtures() {
        for case in expected("bpe_byte_level.json") {
            let text = case["text"].as_str().unwrap();
            for skip in [false, true] {
                let ids = tok.encode(text, SPECIAL).unwrap();
                let batch = tok.decode(&ids, skip).unwrap();
                let mut one = tok.decode_stream(skip);
                let mut got: String = ids.iter().map(|&id| one.feed_one(id).unwrap()).collect();
                got += &one.finalize().unwrap();
                assert_eq!(got, batch, "{tok:?} {text:?} skip={skip}");
                let mut halves = tok.decode_stream(skip);
                let mid = ids.len() / 2;
                let mut got = halves.feed(&ids[..mid]).unwrap();
                got += &halves.feed(&ids[mid..]).unwrap();
                got += &halves.finalize().unwrap();
                assert_eq!(got, batch);
            }
        }
    }
}

#[test]
fn byte_level_decode_waits_for_complete_characters() {
    let tok = Tokenizer::from_file(data("bpe_byte_level.json")).unwrap();
    let ids = tok.encode("\u{1F600}", PLAIN).unwrap();
    assert!(ids.len() > 1, "{ids:?}");
    let mut stream = tok.decode_stream(false);
    for &id in &ids[..ids.len() - 1] {
        assert_eq!(stream.feed_one(id).unwrap(), "");
    }
    assert_eq!(stream.feed_one(ids[ids.len() - 1]).unwrap(), "\u{1F600}");
    assert_eq!(stream.finalize().unwrap(), "");
    // An incomplete character left at the end comes out as U+FFFD.
    let mut stream = tok.decode_stream(false);
    assert_eq!(stream.feed(&ids[..1]).unwrap(), "");
    assert_eq!(stream.finalize().unwrap(), "\u{FFFD}");
}

#[test]
fn streams_refuse_use_after_finalize() {
    let tok = Tokenizer::from_file(data("bpe_byte_level.json")).unwrap();
    let mut enc = tok.encode_stream(PLAIN);
    enc.finalize().unwrap();
    assert_eq!(
        enc.feed("x").unwrap_err().kind(),
        ErrorKind::FailedPrecondition
    );
    assert_eq!(enc.finalize().unwrap_err().message(), "Already finalized");
    let mut dec = tok.decode_stream(false);
    dec.finalize().unwrap();
    assert_eq!(
        dec.feed(&[1]).unwrap_err().message(),
        "Cannot feed after finalize"
    );
    assert!(dec.finalize().is_err());
}

#[test]
fn vocabulary_queries() {
    let bert = Tokenizer::from_file(data("wordpiece_bert.json")).unwrap();
    assert_eq!(bert.model_type(), "WordPiece");
    assert_eq!(bert.special_ids().unk, Some(1));
    assert_eq!(bert.token_to_id("[CLS]"), Some(2));
    assert_eq!(bert.id_to_token(3).as_deref(), Some("[SEP]"));
    assert_eq!(bert.id_to_token(1_000_000), None);
    let affixes = bert.affixes().unwrap();
    assert_eq!(
        (affixes.prefix.as_slice(), affixes.suffix.as_slice()),
        (&[2u32][..], &[3u32][..])
    );
    let uni = Tokenizer::from_file(data("unigram_metaspace.json")).unwrap();
    assert_eq!(uni.model_type(), "Unigram");
    assert_eq!(uni.special_ids().unk, Some(0));
    let bpe = Tokenizer::from_file(data("bpe_byte_level.json")).unwrap();
    assert_eq!(
        bpe.vocab_size(),
        bpe.token_to_id("<|endoftext|>").unwrap() as usize + 1
    );
    assert_eq!(bpe.special_ids().unk, None);
}

#[test]
fn encode_batch_matches_encode() {
    let tok = Tokenizer::from_file(data("bpe_byte_level.json")).unwrap();
    // Texts of very different lengths, many chunks of them: the order of
    // the results must not depend on which thread encoded what.
    let texts: Vec<String> = (0..500)
        .map(|i| format!("text number {i} ").repeat(if i % 7 == 0 { 400 } else { 1 + i % 5 }))
        .collect();
    let batch = tok.encode_batch(&texts, PLAIN).unwrap();
    for (text, ids) in texts.iter().zip(&batch) {
        assert_eq!(&tok.encode(text, PLAIN).unwrap(), ids);
    }
}

#[test]
fn load_errors_are_values() {
    let err = Tokenizer::from_file("/nonexistent/tokenizer.json").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(err.message().starts_with("Failed to open file"), "{err}");
    for bad in [
        "",
        "{invalid json",
        "[]",
        "{}",
        "{\"model\": 5}",
        "not json content",
    ] {
        let err = Tokenizer::from_huggingface_json(bad).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{bad:?}: {err}");
    }
    let err = Tokenizer::from_tiktoken("AA== 0\n", "cl100k_base").unwrap_err();
    assert!(err.message().contains("need at least 256"), "{err}");
    let err = Tokenizer::from_tiktoken("AA== 0\n", "no_such_encoding").unwrap_err();
    assert!(
        err.message()
            .starts_with("Unknown tiktoken encoding: no_such_encoding"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!("iree-tokenizer-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("unknown_enc.tiktoken");
    std::fs::write(&path, "AA== 0\n").unwrap();
    let err = Tokenizer::from_file(&path).unwrap_err();
    assert!(
        err.message()
            .starts_with("Unknown tiktoken encoding in filename"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn all_named_tiktoken_encodings_load() {
    // Every byte as its own token, in byte order; base64 of one byte `b` is
    // two alphabet characters and `==`.
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut lines = String::new();
    for b in 0..=255u8 {
        let (hi, lo) = (
            ALPHABET[(b >> 2) as usize],
            ALPHABET[((b & 3) << 4) as usize],
        );
        lines.push_str(&format!("{}{}== {b}\n", hi as char, lo as char));
    }
    for encoding in iree_tokenizer::format::tiktoken::ENCODINGS {
        let tok = Tokenizer::from_tiktoken(&lines, encoding.name).unwrap();
        assert_eq!(
            tok.vocab_size(),
            256 + encoding.special_tokens.len(),
            "{}",
            encoding.name
        );
        let text = "Hello, world! 12345 caf\u{e9} <|endoftext|>";
        let ids = tok.encode(text, PLAIN).unwrap();
        assert_eq!(tok.decode(&ids, false).unwrap(), text);
        assert!(ids.contains(&tok.token_to_id("<|endoftext|>").unwrap()));
    }
}

#[test]
fn fast_paths_match_the_general_pipeline() {
    let bpe = Tokenizer::from_file(data("bpe_byte_level.json")).unwrap();
    let tiktoken = Tokenizer::from_file(data("gpt2.tiktoken")).unwrap();
    assert_eq!(bpe.uses_fast_paths(), (true, true));
    assert_eq!(tiktoken.uses_fast_paths(), (true, true));
    // The WordPiece and Unigram fixtures have direct paths of their own,
    // compared with the general pipeline in tests/wordpiece.rs and
    // tests/sentencepiece.rs.
    for name in ["wordpiece_bert.json", "unigram_metaspace.json"] {
        assert_eq!(
            Tokenizer::from_file(data(name)).unwrap().uses_fast_paths(),
            (true, true),
            "{name}"
        );
    }
    let mut texts: Vec<String> = expected("bpe_byte_level.json")
        .iter()
        .map(|c| c["text"].as_str().unwrap().to_string())
        .collect();
    texts.push("a".repeat(100) + &"ab".repeat(40) + " the the the\u{a0}\u{3000}x\r\n");
    texts.push("<|endoftext|><|endoftext|>x<|endoftext".to_string());
    texts.push("\u{0}\u{1}\u{7f}\u{80}\u{ff}\u{fffd} 'll 's 're   \t\n".to_string());
    for tok in [bpe, tiktoken] {
        let general = tok.general_pipeline_only();
        assert_eq!(general.uses_fast_paths(), (false, false));
        for text in &texts {
            for options in [PLAIN, SPECIAL, ORDINARY] {
                let ids = tok.encode(text, options).unwrap();
                assert_eq!(
                    ids,
                    general.encode(text, options).unwrap(),
                    "{tok:?} {text:?} {options:?}"
                );
                for skip in [false, true] {
                    assert_eq!(
                        tok.decode(&ids, skip).unwrap(),
                        general.decode(&ids, skip).unwrap()
                    );
                }
            }
        }
        // Every byte sequence decodes the same, valid UTF-8 or not.
        let ids: Vec<u32> = (0..tok.vocab_size() as u32 + 3).collect();
        assert_eq!(
            tok.decode(&ids, false).unwrap(),
            general.decode(&ids, false).unwrap()
        );
        assert_eq!(
            tok.decode(&ids, true).unwrap(),
            general.decode(&ids, true).unwrap()
        );
    }
}

#[test]
fn fast_split_matches_each_named_pattern() {
    let ranks = std::fs::read(data("gpt2.tiktoken")).unwrap();
    let texts = [
        "a  b   c\n\n  d \t\n x  \r\n\r\n  y   ",
        "  leading\u{3000}\u{3000}ideographic\u{a0}\u{a0}nbsp \u{2028}sep",
        "tabs\t\t\tand\n\n\nnewlines\r\r\n done  ",
        "Hello, WORLD! It's 12345 o'clock; DON'T we're   'll\n\n\n",
        "\u{1F600}  \u{1F600}\n \u{1F600}",
        "   ",
        " ",
        "\n",
        "x\n  ",
        "CamelCaseWords and\u{0301}combining marks /path/to\n/x",
    ];
    // tokenizer.json with a regex Split then a regex-less ByteLevel, for
    // each pattern the fast splitter knows (Llama-3 and Qwen2 among them).
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("bpe_byte_level.json")).unwrap())
            .unwrap();
    for pattern in iree_tokenizer::model::byte_bpe::AUTOMATON_PATTERNS {
        let mut doc = doc.clone();
        doc["pre_tokenizer"] = serde_json::json!({
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": false},
                {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}
            ]
        });
        let tok = Tokenizer::from_huggingface_json(&doc.to_string()).unwrap();
        assert_eq!(tok.uses_fast_paths(), (true, true), "{pattern}");
        let general = tok.general_pipeline_only();
        for text in texts {
            assert_eq!(
                tok.encode(text, PLAIN).unwrap(),
                general.encode(text, PLAIN).unwrap(),
                "{pattern} {text:?}"
            );
        }
    }
    // DeepSeek V3's shape: an empty normalizer Sequence, three Splits (the
    // first two without lookaround) and a regex-less ByteLevel.
    let mut deepseek = doc.clone();
    let last = iree_tokenizer::model::byte_bpe::AUTOMATON_PATTERNS
        .last()
        .unwrap();
    deepseek["normalizer"] = serde_json::json!({"type": "Sequence", "normalizers": []});
    deepseek["pre_tokenizer"] = serde_json::json!({
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "\\p{N}{1,3}"}, "behavior": "Isolated", "invert": false},
            {"type": "Split", "pattern": {"Regex": "[\u{4e00}-\u{9fa5}\u{3040}-\u{309f}\u{30a0}-\u{30ff}]+"}, "behavior": "Isolated", "invert": false},
            {"type": "Split", "pattern": {"Regex": last}, "behavior": "Isolated", "invert": false},
            {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}
        ]
    });
    let tok = Tokenizer::from_huggingface_json(&deepseek.to_string()).unwrap();
    assert_eq!(tok.uses_fast_paths(), (true, true));
    let general = tok.general_pipeline_only();
    let cjk = [
        "1234567 x12y 3.14159",
        "\u{65e5}\u{672c}\u{8a9e}\u{3072}\u{3089}\u{304c}\u{306a}abc\u{30ab}\u{30bf}42",
    ];
    // Ids and segments equal (the direct path gives each token its
    // segment's span, the general pipeline the token's own).
    let words = |t: &Tokenizer, text: &str| -> Vec<(u32, Option<u32>)> {
        t.encode_spans(text, true)
            .unwrap()
            .iter()
            .map(|s| (s.id, s.word))
            .collect()
    };
    for text in texts.iter().chain(&cjk) {
        assert_eq!(
            words(&tok, text),
            words(&general, text),
            "deepseek {text:?}"
        );
    }
    for encoding in iree_tokenizer::format::tiktoken::ENCODINGS {
        let tok = Tokenizer::from_tiktoken(&ranks, encoding.name).unwrap();
        assert_eq!(tok.uses_fast_paths(), (true, true), "{}", encoding.name);
        let general = tok.general_pipeline_only();
        for text in texts {
            for options in [PLAIN, ORDINARY] {
                assert_eq!(
                    tok.encode(text, options).unwrap(),
                    general.encode(text, options).unwrap(),
                    "{} {text:?}",
                    encoding.name
                );
            }
        }
    }
}

#[test]
fn fast_path_drops_bytes_missing_from_the_vocabulary() {
    // A byte-level BPE whose vocabulary lacks some byte characters and has
    // no unknown token (pix2tex's LaTeX tokenizer): `tokenizers` drops them.
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("bpe_byte_level.json")).unwrap())
            .unwrap();
    let missing = ["\u{120}", "e", "\u{10a}", "\u{c3}"];
    let vocab = doc["model"]["vocab"].as_object_mut().unwrap();
    for token in missing {
        vocab.remove(token);
    }
    let merges = doc["model"]["merges"].as_array_mut().unwrap();
    merges.retain(|m| {
        let text = m
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| m.to_string());
        !missing.iter().any(|t| text.contains(t))
    });
    doc["model"]["unk_token"] = Value::Null;
    let tok = Tokenizer::from_huggingface_json(&doc.to_string()).unwrap();
    assert!(tok.uses_fast_paths().0);
    let general = tok.general_pipeline_only();
    for text in ["Hello there, caf\u{e9}\n\nthe end", "eee  \u{e9}\u{e8}", ""] {
        assert_eq!(
            tok.encode(text, PLAIN).unwrap(),
            general.encode(text, PLAIN).unwrap(),
            "{text:?}"
        );
    }
}

#[test]
fn fast_path_keeps_the_last_rank_of_a_repeated_merge() {
    // Found by fuzzing: `tokenizers` keeps the last rank of a repeated merge.
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(data("bpe_byte_level.json")).unwrap())
            .unwrap();
    let merges = doc["model"]["merges"].as_array_mut().unwrap();
    let first = merges.remove(0);
    let second = merges[0].clone();
    merges.push(first.clone());
    merges.insert(1, first);
    merges.push(second);
    let tok = Tokenizer::from_huggingface_json(&doc.to_string()).unwrap();
    assert_eq!(tok.uses_fast_paths(), (true, true));
    let general = tok.general_pipeline_only();
    for case in expected("bpe_byte_level.json") {
        let text = case["text"].as_str().unwrap();
        assert_eq!(
            tok.encode(text, PLAIN).unwrap(),
            general.encode(text, PLAIN).unwrap(),
            "{text:?}"
        );
    }
}
