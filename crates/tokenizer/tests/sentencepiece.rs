//! The SentencePiece-style direct encoder and decoder (Unigram, BPE with
//! byte fallback) against the general pipeline: ids, segment spans,
//! streaming encode and decode, on the fixtures in `tests/data`
//! (`generate_sentencepiece.py` writes the two SentencePiece ones).

mod common;

use common::{boundaries, document, load_file as load, stream_encode, OPTIONS};
use iree_tokenizer::{TokenSpan, Tokenizer};
use serde_json::Value;

const FIXTURES: [&str; 3] = [
    "unigram_metaspace.json",
    "unigram_charsmap.json",
    "llama_byte_fallback.json",
];

/// Texts that exercise unknown characters, byte fallback, the charsmap,
/// spaces and added tokens.
fn hostile_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "",
        " ",
        "   ",
        "\u{2581}",
        "\u{2581}\u{2581}x",
        "Hello world",
        " Hello world ",
        "  leading and trailing  ",
        "The quick brown fox jumps over the lazy dog.",
        "hello world hello  world   hello\u{3000}world\u{a0}!",
        "streaming tokens while the model is running; streaming must match",
        "Numbers like 12345 and 2026 appear, as do symbols: <tags>, {braces}, [lists].",
        "<s>Hello</s> <unk> <s><s></s>x</s",
        "<|newline|>a<|newline|><|newline|>",
        "hello world</s>hello worldhello world",
        " {braces}{braces} x{braces}",
        "\u{1F600}\u{1F600} emoji \u{1F469}\u{200D}\u{1F4BB} zwj",
        "\u{4F60}\u{597D}\u{4E16}\u{754C} CJK \u{3042}\u{3044}",
        "\u{FB01}ne \u{FF21}\u{2460} \u{200B}zero\u{200B} \u{3231}x e\u{301}e\u{301}\u{301}",
        "\u{200B}\u{200B}start",
        "tabs\tand\nnewlines\r\n\r\n end\n",
        "\u{0}\u{1}\u{7f}\u{80}\u{ff}\u{fffd}\u{10FFFF}",
        "the the the then there these those other mother brother together",
        "unknownchars: \u{0416}\u{0436} \u{05D0} \u{0627}\u{0644} \u{0E01}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    texts.push("a".repeat(300) + &" ".repeat(50) + &"ab ".repeat(40));
    texts.push("\u{2581}".repeat(20) + "x" + &"\u{2581}".repeat(3));
    texts
}

/// Checks the segment spans: within the text, in order, non-overlapping,
/// one range per segment.
fn check_spans(spans: &[TokenSpan], text: &str) {
    let mut previous: Option<(usize, usize, Option<u32>)> = None;
    for span in spans {
        assert!(
            span.start <= span.end && span.end <= text.len(),
            "{span:?} in {text:?}"
        );
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        if let Some((start, end, word)) = previous {
            if word == span.word {
                assert_eq!((start, end), (span.start, span.end), "{text:?}");
            } else {
                assert!(span.start >= end, "{spans:?} {text:?}");
            }
        }
        previous = Some((span.start, span.end, span.word));
    }
}

fn compare(tok: &Tokenizer, texts: &[String], label: &str) {
    assert_eq!(tok.uses_fast_paths(), (true, true), "{label}");
    let general = tok.general_pipeline_only();
    for text in texts {
        for options in OPTIONS {
            let ids = tok.encode(text, options).unwrap();
            let expected = general.encode(text, options).unwrap();
            assert_eq!(ids, expected, "{label} {text:?} {options:?}");
            for skip in [false, true] {
                assert_eq!(
                    tok.decode(&ids, skip).unwrap(),
                    general.decode(&ids, skip).unwrap(),
                    "{label} {text:?} {ids:?} skip {skip}"
                );
            }
        }
        for match_special in [false, true] {
            let spans = tok.encode_spans(text, match_special).unwrap();
            let general_spans = general.encode_spans(text, match_special).unwrap();
            let ids = |s: &[TokenSpan]| s.iter().map(|s| s.id).collect::<Vec<_>>();
            assert_eq!(ids(&spans), ids(&general_spans), "{label} {text:?}");
            check_spans(&spans, text);
        }
    }
}

#[test]
fn fixtures_match_the_general_pipeline() {
    let texts = hostile_texts();
    for name in FIXTURES {
        compare(&load(name), &texts, name);
    }
}

#[test]
fn every_id_decodes_as_the_general_pipeline() {
    for name in FIXTURES {
        let tok = load(name);
        let general = tok.general_pipeline_only();
        let all: Vec<u32> = (0..tok.vocab_size() as u32 + 3).collect();
        // Byte tokens in runs, valid UTF-8 or not, and alone.
        let mut mixed: Vec<u32> = all.iter().rev().copied().collect();
        mixed.extend(all.iter().step_by(7));
        for ids in [&all, &mixed] {
            for skip in [false, true] {
                assert_eq!(
                    tok.decode(ids, skip).unwrap(),
                    general.decode(ids, skip).unwrap(),
                    "{name} skip {skip}"
                );
            }
        }
        for id in all {
            assert_eq!(
                tok.decode(&[id], false).unwrap(),
                general.decode(&[id], false).unwrap(),
                "{name} {id}"
            );
        }
    }
}

#[test]
fn streaming_encode_matches_one_shot() {
    let texts = hostile_texts();
    for name in FIXTURES {
        let tok = load(name);
        for text in &texts {
            for options in OPTIONS {
                let batch = tok.encode(text, options).unwrap();
                assert_eq!(stream_encode(&tok, text, options, &[]), batch);
                if text.len() > 120 {
                    continue;
                }
                let splits: Vec<usize> = boundaries(text);
                for &cut in &splits {
                    assert_eq!(
                        stream_encode(&tok, text, options, &[cut]),
                        batch,
                        "{name} {text:?} at {cut}"
                    );
                }
                assert_eq!(
                    stream_encode(&tok, text, options, &splits),
                    batch,
                    "{name} {text:?} per char"
                );
            }
        }
    }
}

#[test]
fn streaming_encode_long_text_in_chunks() {
    let text = hostile_texts().concat().repeat(5);
    for name in FIXTURES {
        let tok = load(name);
        let options = OPTIONS[0];
        let batch = tok.encode(&text, options).unwrap();
        assert_eq!(
            batch,
            tok.general_pipeline_only().encode(&text, options).unwrap()
        );
        for chunk in [1usize, 7, 64, 1000] {
            let mut cuts = Vec::new();
            let mut at = chunk;
            while at < text.len() {
                while !text.is_char_boundary(at) {
                    at += 1;
                }
                cuts.push(at);
                at += chunk;
            }
            cuts.dedup();
            cuts.retain(|&c| c < text.len());
            assert_eq!(
                stream_encode(&tok, &text, options, &cuts),
                batch,
                "{name} chunk {chunk}"
            );
        }
    }
}

#[test]
fn streaming_decode_matches_one_shot() {
    // The Llama fixture included: the stream holds back a run of byte
    // tokens until it ends (ByteFallback turns a whole run that is not
    // UTF-8 into U+FFFD per byte).
    for name in FIXTURES {
        let tok = load(name);
        for text in hostile_texts() {
            let ids = tok.encode(&text, OPTIONS[1]).unwrap();
            for skip in [false, true] {
                let mut stream = tok.decode_stream(skip);
                let mut out = String::new();
                for &id in &ids {
                    out.push_str(&stream.feed_one(id).unwrap());
                }
                out.push_str(&stream.finalize().unwrap());
                assert_eq!(out, tok.decode(&ids, skip).unwrap(), "{name} {text:?}");
            }
        }
    }
}

/// Variants of the fixtures' configurations: each either takes the direct
/// paths and matches the general pipeline, or is left to the general
/// pipeline.
#[test]
fn configuration_variants_match_or_are_refused() {
    let texts = hostile_texts();
    let mut variants: Vec<(String, Value)> = Vec::new();
    let unigram = document("unigram_metaspace.json");
    for scheme in ["always", "never", "first"] {
        for split in [true, false] {
            let mut doc = unigram.clone();
            for key in ["pre_tokenizer", "decoder"] {
                doc[key]["prepend_scheme"] = scheme.into();
                doc[key]["split"] = split.into();
            }
            variants.push((format!("unigram {scheme} split {split}"), doc));
        }
    }
    let charsmap = document("unigram_charsmap.json");
    let mut doc = charsmap.clone();
    doc["model"]["byte_fallback"] = false.into();
    variants.push(("charsmap without byte fallback".into(), doc));
    let mut doc = charsmap.clone();
    doc["pre_tokenizer"]["prepend_scheme"] = "always".into();
    doc["decoder"]["prepend_scheme"] = "always".into();
    variants.push(("charsmap always".into(), doc));
    let llama = document("llama_byte_fallback.json");
    let mut doc = llama.clone();
    doc["model"]["byte_fallback"] = false.into();
    variants.push(("llama unk".into(), doc.clone()));
    doc["model"]["fuse_unk"] = false.into();
    variants.push(("llama unk unfused".into(), doc));
    let mut doc = llama.clone();
    doc["pre_tokenizer"] = serde_json::json!({
        "type": "Metaspace", "replacement": "\u{2581}", "prepend_scheme": "first", "split": true
    });
    doc["normalizer"] = Value::Null;
    variants.push(("llama metaspace".into(), doc));
    // A token with a character before `▁`: words are not independent.
    let mut doc = llama.clone();
    let size = doc["model"]["vocab"].as_object().unwrap().len();
    doc["model"]["vocab"]["e\u{2581}"] = size.into();
    doc["model"]["merges"]
        .as_array_mut()
        .unwrap()
        .insert(0, serde_json::json!(["e", "\u{2581}"]));
    for token in doc["added_tokens"].as_array_mut().unwrap() {
        if token["id"].as_u64().unwrap() as usize >= size {
            token["id"] = (token["id"].as_u64().unwrap() + 1).into();
        }
    }
    variants.push(("llama crossing merge".into(), doc));
    let mut fast = Vec::new();
    for (label, doc) in variants {
        let tok = Tokenizer::from_huggingface_json(&doc.to_string()).unwrap();
        if tok.uses_fast_paths().0 {
            fast.push(label.clone());
            compare(&tok, &texts, &label);
        } else {
            // Refused configurations run the general pipeline.
            let general = tok.general_pipeline_only();
            assert_eq!(
                tok.encode("hello world", OPTIONS[0]).unwrap(),
                general.encode("hello world", OPTIONS[0]).unwrap()
            );
        }
    }
    // All of these are reproduced (the crossing merge by whole sections).
    assert_eq!(fast.len(), 12, "{fast:?}");
}
