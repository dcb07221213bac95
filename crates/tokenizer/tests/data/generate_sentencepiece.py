#!/usr/bin/env python3
"""Writes the SentencePiece-style fixtures in this directory, trained with
the `sentencepiece` package on generate.py's CORPUS:

- llama_byte_fallback.json: a BPE with byte fallback converted as
  transformers' LlamaConverter does (Prepend + Replace normalizer, no
  pre-tokenizer, Replace/ByteFallback/Fuse/Strip decoder, `<s>` template),
  plus two added tokens (one matched in raw text, one normalized).
- unigram_charsmap.json: a Unigram with byte fallback shaped like AI21's
  J2 (Precompiled charsmap built from a few rules, right Strip, Replace of
  runs of spaces; Metaspace with prepend_scheme "never").

Needs `sentencepiece` and `transformers` (for LlamaConverter's merges).
The outputs are committed; rerun after editing."""

import base64
import json
import os
import tempfile

import sentencepiece as spm
from sentencepiece import sentencepiece_model_pb2
from transformers import LlamaTokenizer
from transformers.convert_slow_tokenizer import convert_slow_tokenizer

from generate import CORPUS, HERE, write_json

# Charsmap rules (code points, hex): ligature, full-width letter, circled
# digit, a deleted zero-width space, an expansion containing spaces, a
# two-character grapheme, and spaces that become plain spaces.
RULES = [
    ("FB01", "66 69"),
    ("FF21", "41"),
    ("2460", "31"),
    ("200B", ""),
    ("3231", "28 682A 29 20 61"),
    ("65 301", "E9"),
    ("3000", "20"),
    ("A0", "20"),
]


def train(workdir, model_type, vocab_size):
    corpus = os.path.join(workdir, "corpus.txt")
    with open(corpus, "w") as f:
        f.write(CORPUS * 20)
    rules = os.path.join(workdir, "rules.tsv")
    with open(rules, "w") as f:
        f.writelines(f"{source}\t{target}\n" for source, target in RULES)
    prefix = os.path.join(workdir, model_type)
    spm.SentencePieceTrainer.train(
        input=corpus,
        model_prefix=prefix,
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        model_type=model_type,
        normalization_rule_tsv=rules,
        byte_fallback=True,
        character_coverage=1.0,
        num_threads=1,
    )
    return prefix + ".model"


def added(id_, content, special, normalized):
    return {
        "id": id_,
        "content": content,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": normalized,
        "special": special,
    }


def llama_byte_fallback(model_file):
    doc = json.loads(convert_slow_tokenizer(LlamaTokenizer(model_file, legacy=True)).to_str())
    size = len(doc["model"]["vocab"])
    doc["added_tokens"] = [
        added(0, "<unk>", True, False),
        added(1, "<s>", True, False),
        added(2, "</s>", True, False),
        added(size, "<tags>", False, False),
        added(size + 1, "{braces}", False, True),
    ]
    doc["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [
            {"SpecialToken": {"id": "<s>", "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": "<s>", "type_id": 1}},
            {"Sequence": {"id": "B", "type_id": 1}},
        ],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
    }
    return doc


def unigram_charsmap(model_file):
    proto = sentencepiece_model_pb2.ModelProto()
    with open(model_file, "rb") as f:
        proto.ParseFromString(f.read())
    charsmap = base64.b64encode(proto.normalizer_spec.precompiled_charsmap).decode()
    vocab = [[p.piece, p.score] for p in proto.pieces]
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "never", "split": True}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            added(0, "<unk>", True, False),
            added(1, "<s>", True, False),
            added(2, "</s>", True, False),
            added(len(vocab), "<|newline|>", False, False),
            added(len(vocab) + 1, "hello world", False, True),
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Precompiled", "precompiled_charsmap": charsmap},
                {"type": "Strip", "strip_left": False, "strip_right": True},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": "\u2581"},
            ],
        },
        "pre_tokenizer": metaspace,
        "post_processor": None,
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": True},
    }


def main():
    with tempfile.TemporaryDirectory() as workdir:
        write_json("llama_byte_fallback.json", llama_byte_fallback(train(workdir, "bpe", 600)))
        write_json("unigram_charsmap.json", unigram_charsmap(train(workdir, "unigram", 340)))


if __name__ == "__main__":
    main()
