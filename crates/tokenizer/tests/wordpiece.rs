//! The direct WordPiece encoder and decoder (`model/wordpiece.rs`,
//! `decoder/wordpiece.rs`) against the general pipeline: ids, spans,
//! streaming and decoding, on the BERT fixture, variants of its
//! configuration and hostile text.

mod common;

use common::{boundaries, document, stream_encode, OPTIONS};
use iree_tokenizer::{TokenSpan, Tokenizer};
use serde_json::{json, Value};

fn fixture() -> Value {
    document("wordpiece_bert.json")
}

fn load(doc: &Value) -> Tokenizer {
    Tokenizer::from_huggingface_json(&doc.to_string()).unwrap()
}

/// Texts that exercise each stage: accents (precomposed and combining),
/// CJK, control characters, every kind of whitespace, punctuation, words
/// over the length limit, added tokens whole and cut.
fn hostile_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "",
        " ",
        "Hello world",
        "The quick brown fox jumps over the lazy dog.",
        "  leading and trailing spaces  ",
        "line one\nline two\r\n\n\tindented\u{b}\u{c}x",
        "café naïve über CAFÉ Ÿ Ǆ İstanbul ΣΑΣ ß ﬁ",
        "cafe\u{301} e\u{301}\u{316}x a\u{316}\u{301} \u{301}lone \u{301}",
        "\u{301}\u{316}\u{301}",
        "é\u{302}x é\u{302} e\u{301}\u{302}",
        "你好世界 and emoji 😀🚀! 㐀𠀀 가나다 カタカナ",
        "\u{0}a\u{1}b\u{7f}c\u{80}d\u{ad}e\u{200b}f\u{fffd}g\u{e000}h\u{feff}i\u{1f}",
        "nbsp\u{a0}x\u{2003}y\u{3000}z\u{2028}w\u{85}v\u{1680}u",
        "[CLS] unaffable running [SEP] [MASK][MASK]x[PAD",
        "[cls] [CLS[SEP]] [[MASK]]",
        "streaming must match batching, don't it? «quoted» — dash… ¿qué?",
        "it's 3.14159 and 1,234,567; (paren) [bracket] {brace} a_b a-b a/b",
        "\u{10ffff}\u{e0001}\u{1d165}\u{0345}\u{0f73}\u{0f75}\u{ac00}\u{1100}\u{1161}",
        "xxxxx",
        "\t\n\r",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    texts.push("x".repeat(100));
    texts.push("x".repeat(101));
    texts.push("é".repeat(100) + " " + &"é".repeat(101));
    texts.push("unaffable".repeat(12) + " ok");
    texts
}

/// The general pipeline's spans at segment granularity: each token gets the
/// span of its whole segment (its first token's start to its last's end).
fn segment_spans(spans: &[TokenSpan]) -> Vec<TokenSpan> {
    let mut out = spans.to_vec();
    let mut start = 0;
    while start < out.len() {
        let mut end = start + 1;
        while end < out.len() && out[end].word == out[start].word {
            end += 1;
        }
        let (from, to) = (out[start].start, out[end - 1].end);
        for span in &mut out[start..end] {
            span.start = from;
            span.end = to;
        }
        start = end;
    }
    out
}

/// Encode, spans and decode of `tok` (direct) and its general pipeline agree
/// on `text`.
fn assert_agree(tok: &Tokenizer, text: &str) {
    let general = tok.general_pipeline_only();
    for options in OPTIONS {
        let ids = tok.encode(text, options).unwrap();
        assert_eq!(
            ids,
            general.encode(text, options).unwrap(),
            "{text:?} {options:?}"
        );
        for skip in [false, true] {
            assert_eq!(
                tok.decode(&ids, skip).unwrap(),
                general.decode(&ids, skip).unwrap(),
                "{text:?} {ids:?} skip={skip}"
            );
        }
    }
    for match_special in [true, false] {
        assert_eq!(
            tok.encode_spans(text, match_special).unwrap(),
            segment_spans(&general.encode_spans(text, match_special).unwrap()),
            "{text:?} match_special={match_special}"
        );
    }
}

#[test]
fn fixture_takes_the_direct_paths() {
    let tok = load(&fixture());
    assert_eq!(tok.uses_fast_paths(), (true, true));
    assert_eq!(
        tok.general_pipeline_only().uses_fast_paths(),
        (false, false)
    );
}

#[test]
fn fixture_matches_the_general_pipeline() {
    let tok = load(&fixture());
    for text in hostile_texts() {
        assert_agree(&tok, &text);
    }
}

#[test]
fn streaming_matches_one_shot() {
    let tok = load(&fixture());
    for text in hostile_texts() {
        let cuts: Vec<usize> = boundaries(&text);
        for options in OPTIONS {
            let batch = tok.encode(&text, options).unwrap();
            assert_eq!(stream_encode(&tok, &text, options, &[]), batch);
            assert_eq!(
                stream_encode(&tok, &text, options, &cuts),
                batch,
                "{text:?} per char"
            );
            for &cut in cuts.iter().step_by(3) {
                assert_eq!(
                    stream_encode(&tok, &text, options, &[cut]),
                    batch,
                    "{text:?} at {cut}"
                );
            }
        }
    }
}

#[test]
fn every_id_decodes_like_the_general_pipeline() {
    let mut doc = fixture();
    for (id, content) in [
        (200, "[EXTRA]"),
        (201, "[A LONGER ADDED TOKEN, IT'S OVER 16 BYTES]"),
        (202, "[NUL \u{0} . do not]"),
    ] {
        doc["added_tokens"].as_array_mut().unwrap().push(json!({
            "id": id, "content": content, "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": false
        }));
    }
    for cleanup in [true, false] {
        doc["decoder"]["cleanup"] = json!(cleanup);
        let tok = load(&doc);
        assert!(tok.uses_fast_paths().1);
        let general = tok.general_pipeline_only();
        let ids: Vec<u32> = (0..205).chain([5, 9, 7, 200, 2, 8, 202, 6, 1]).collect();
        // Long pieces, first and after others, past the decoder's first guess
        // of the output length.
        let long: Vec<u32> = [201, 5].repeat(40).into_iter().chain([201]).collect();
        for ids in [&long[..], &long[1..]] {
            for skip in [false, true] {
                assert_eq!(
                    tok.decode(ids, skip).unwrap(),
                    general.decode(ids, skip).unwrap()
                );
            }
        }
        for skip in [false, true] {
            assert_eq!(
                tok.decode(&ids, skip).unwrap(),
                general.decode(&ids, skip).unwrap()
            );
            // The first token decoded is the first kept one.
            assert_eq!(
                tok.decode(&[2, 51, 1, 9], skip).unwrap(),
                general.decode(&[2, 51, 1, 9], skip).unwrap()
            );
        }
    }
}

/// Variants of the fixture's configuration that the direct paths reproduce.
fn variants() -> Vec<Value> {
    let base = fixture();
    let mut out = Vec::new();
    let mut with = |f: &dyn Fn(&mut Value)| {
        let mut doc = base.clone();
        f(&mut doc);
        out.push(doc);
    };
    for clean_text in [true, false] {
        for handle_chinese_chars in [true, false] {
            for strip_accents in [json!(null), json!(true), json!(false)] {
                for lowercase in [true, false] {
                    let normalizer = json!({
                        "type": "BertNormalizer", "clean_text": clean_text,
                        "handle_chinese_chars": handle_chinese_chars,
                        "strip_accents": strip_accents, "lowercase": lowercase
                    });
                    with(&|doc| doc["normalizer"] = normalizer.clone());
                }
            }
        }
    }
    with(&|doc| doc["normalizer"] = Value::Null);
    with(&|doc| {
        doc["normalizer"] = json!({"type": "Sequence", "normalizers": [
            {"type": "NFD"}, {"type": "Lowercase"}, {"type": "StripAccents"}]})
    });
    with(&|doc| {
        doc["normalizer"] = json!({"type": "Sequence", "normalizers": [
            {"type": "NFKD"}, {"type": "BertNormalizer", "clean_text": true,
             "handle_chinese_chars": true, "strip_accents": false, "lowercase": true}]})
    });
    with(&|doc| doc["pre_tokenizer"] = json!({"type": "Whitespace"}));
    with(&|doc| doc["pre_tokenizer"] = json!({"type": "WhitespaceSplit"}));
    with(&|doc| {
        // Pieces longer than the packed lookups hold.
        let vocab = doc["model"]["vocab"].as_object_mut().unwrap();
        for (id, piece) in [
            (300, "supercalifragilistic"),
            (301, "##expialidocious"),
            (302, "##abcdefghijklmnopqrstu"),
            (303, "abcdefghijklmnop"),
            (304, "ĳĳĳĳĳĳĳĳĳĳ"),
        ] {
            vocab.insert(piece.to_string(), json!(id));
        }
    });
    with(&|doc| {
        // A normalized added token of combining marks: matched inside a
        // decomposed character (its segment overlaps the one before).
        doc["normalizer"] = json!({"type": "Sequence", "normalizers": [
            {"type": "NFD"}, {"type": "Lowercase"}]});
        doc["added_tokens"].as_array_mut().unwrap().push(json!({
            "id": 200, "content": "\u{301}\u{302}", "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": true, "special": false
        }));
    });
    with(&|doc| doc["model"]["max_input_chars_per_word"] = json!(5));
    with(&|doc| doc["model"]["max_input_chars_per_word"] = json!(0));
    with(&|doc| {
        let vocab = doc["model"]["vocab"].as_object_mut().unwrap();
        let renamed: Vec<(String, Value)> = vocab
            .iter()
            .map(|(k, v)| (k.replace("##", "@"), v.clone()))
            .collect();
        vocab.clear();
        vocab.extend(renamed);
        doc["model"]["continuing_subword_prefix"] = json!("@");
        doc["decoder"]["prefix"] = json!("@");
    });
    with(&|doc| {
        // Added tokens matched in normalized text, special or not.
        let added = doc["added_tokens"].as_array_mut().unwrap();
        for (id, content, special) in [
            (200, "HeLLo", false),
            (201, "Ünï", true),
            (202, "你", false),
            (204, "New  York", false),
        ] {
            added.push(json!({
                "id": id, "content": content, "single_word": false, "lstrip": false,
                "rstrip": false, "normalized": true, "special": special
            }));
        }
        added.push(json!({
            "id": 203, "content": "running", "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": false
        }));
    });
    out
}

#[test]
fn configuration_variants_match_the_general_pipeline() {
    let mut texts = hostile_texts();
    texts.push("hello HELLO HeLLo ünï UNI Ünï 你好 running RUNNING".to_string());
    texts.push("new york NEW\tYORK new  york e\u{301}\u{302}x \u{301}\u{302}".to_string());
    texts.push(
        "supercalifragilisticexpialidocious abcdefghijklmnopqrstuvwxyz \
         abcdefghijklmnopabcdefghijklmnopqrstu ĳĳĳĳĳĳĳĳĳĳĳĳ supercalifragilisti"
            .to_string(),
    );
    for doc in variants() {
        let tok = load(&doc);
        assert_eq!(tok.uses_fast_paths(), (true, true), "{doc}");
        for text in &texts {
            assert_agree(&tok, text);
        }
    }
}

#[test]
fn unsupported_configurations_take_the_general_pipeline() {
    let base = fixture();
    let mut cases = Vec::new();
    for normalizer in [
        json!({"type": "NFC"}),
        json!({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]}),
        json!({"type": "Replace", "pattern": {"String": "a"}, "content": "b"}),
    ] {
        let mut doc = base.clone();
        doc["normalizer"] = normalizer;
        cases.push(doc);
    }
    let mut doc = base.clone();
    doc["pre_tokenizer"] = json!({"type": "Metaspace", "replacement": "▁",
        "prepend_scheme": "always", "split": true});
    cases.push(doc);
    let mut doc = base.clone();
    doc["model"]["unk_token"] = json!("<missing>");
    cases.push(doc);
    let mut doc = base.clone();
    doc["added_tokens"][0]["lstrip"] = json!(true);
    cases.push(doc);
    // A normalized added token that normalizes to nothing: the general
    // pipeline then splits text at every character.
    let mut doc = base.clone();
    doc["added_tokens"].as_array_mut().unwrap().push(json!({
        "id": 200, "content": "\u{301}", "single_word": false, "lstrip": false,
        "rstrip": false, "normalized": true, "special": false
    }));
    let general = load(&doc).general_pipeline_only();
    assert_eq!(general.encode("ab", OPTIONS[0]).unwrap(), [25, 26]);
    cases.push(doc);
    // Added tokens take the model's ids; two sharing one (found by fuzzing):
    // the general pipeline matches both, the added-token table holds one.
    let mut doc = base.clone();
    doc["model"]["vocab"]["[CLS]"] = json!(3);
    let general = load(&doc).general_pipeline_only();
    assert_eq!(general.encode("[CLS][SEP]", OPTIONS[0]).unwrap(), [3, 3]);
    cases.push(doc);
    for doc in cases {
        assert!(!load(&doc).uses_fast_paths().0, "{doc}");
    }
    let mut doc = base;
    doc["decoder"] = json!({"type": "Sequence", "decoders": [{"type": "WordPiece", "prefix": "##", "cleanup": true}]});
    assert_eq!(load(&doc).uses_fast_paths(), (true, false));
}

/// A small deterministic generator (xorshift).
struct Random(u64);

impl Random {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn random_hostile_text_matches_the_general_pipeline() {
    // Pieces of text, separated by `|`.
    const PIECES: &str = "a|B|e|É|\u{301}|\u{316}|\u{345}|\u{1d165}|\u{f73}| |\t|\n|\u{a0}|\
        \u{3000}|\u{0}|\u{1}|\u{ad}|\u{fffd}|你|㐀|가|İ|ß|ﬁ|Ǆ|.|,|!|'|«|_|-|[CLS]|[MASK|]|HeLLo|\
        run|##|😀|\u{e000}|x|\u{1100}|\u{1161}|\u{f71}|\u{315}|\u{5b0}|\u{e48}|ΐ|\u{2126}|\
        \u{212b}|㎏|①|\u{fb2c}|Σ|ĳ|\u{302}";
    let pieces: Vec<&str> = PIECES.split('|').collect();
    let toks: Vec<Tokenizer> = variants().iter().map(load).collect();
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    // More rounds with WP_ROUNDS=n (e.g. 150000 in release mode).
    let rounds = std::env::var("WP_ROUNDS").map_or(1500, |r| r.parse().unwrap_or(1500));
    for round in 0..rounds {
        let tok = &toks[round % toks.len()];
        let len = random.below(16);
        let text: String = (0..len)
            .map(|_| pieces[random.below(pieces.len())])
            .collect();
        assert_agree(tok, &text);
        // Every variant, one cycle in four. The streaming encoder needs
        // segments that do not overlap, which one input character
        // normalized into several segments breaks, on either path (NFKD's
        // `…` into `...`, a normalized added token matched inside a
        // decomposed character).
        let overlap = tok
            .encode_spans(&text, true)
            .unwrap()
            .windows(2)
            .any(|w| w[0].word != w[1].word && w[1].start < w[0].end);
        if (round / toks.len()).is_multiple_of(4) && !overlap {
            let cuts: Vec<usize> = boundaries(&text);
            let options = OPTIONS[round % OPTIONS.len()];
            assert_eq!(
                stream_encode(tok, &text, options, &cuts),
                tok.encode(&text, options).unwrap(),
                "{text:?} per char"
            );
        }
    }
}
