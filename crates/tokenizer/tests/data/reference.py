#!/usr/bin/env python3
"""Writes expected.json: the ids the reference implementations (the Python
`tokenizers` and `tiktoken` packages) give for TEXTS on the fixtures here.
Needs `pip install tokenizers tiktoken`; the output is committed so that the
Rust tests need neither."""

import base64
import json
import os

import tiktoken
import tokenizers

HERE = os.path.dirname(os.path.abspath(__file__))

TEXTS = [
    "",
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "  leading and trailing spaces  ",
    "line one\nline two\r\n\n\tindented",
    "numbers 1234567 and 3.14159",
    "caf\u00e9 na\u00efve \u00fcber",
    "\u4f60\u597d\u4e16\u754c and emoji \U0001F600\U0001F680!",
    "Hello <|endoftext|> world",
    "[CLS] unaffable running [SEP] [MASK]",
    "streaming must match batching, don't it?",
    "<s>hello</s> world",
    "x" * 300,
]

JSON_FIXTURES = ["bpe_byte_level.json", "wordpiece_bert.json", "unigram_metaspace.json"]


def main():
    out = {}
    for name in JSON_FIXTURES:
        tok = tokenizers.Tokenizer.from_file(os.path.join(HERE, name))
        cases = []
        for text in TEXTS:
            plain = tok.encode(text, add_special_tokens=False).ids
            special = tok.encode(text, add_special_tokens=True).ids
            cases.append({
                "text": text,
                "ids": plain,
                "ids_with_special": special,
                "decoded": tok.decode(plain, skip_special_tokens=False),
                "decoded_skip": tok.decode(special, skip_special_tokens=True),
            })
        out[name] = cases
    ranks = {}
    with open(os.path.join(HERE, "gpt2.tiktoken")) as f:
        for line in f:
            if line.strip():
                b64, rank = line.split()
                ranks[base64.b64decode(b64)] = int(rank)
    enc = tiktoken.Encoding(
        name="fixture",
        pat_str=r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
        mergeable_ranks=ranks,
        special_tokens={"<|endoftext|>": 50256},
    )
    cases = []
    for text in TEXTS:
        ids = enc.encode(text, allowed_special="all")
        cases.append({
            "text": text,
            "ids": ids,
            "ordinary": enc.encode_ordinary(text),
            "decoded": enc.decode(ids),
        })
    out["gpt2.tiktoken"] = cases
    with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
