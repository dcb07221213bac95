#!/usr/bin/env python3
"""Writes the tokenizer test fixtures in this directory (our own small
vocabularies, trained on CORPUS below). Run from anywhere; needs only the
Python standard library. The outputs are committed; rerun after editing."""

import base64
import collections
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))

CORPUS = """
The quick brown fox jumps over the lazy dog. Hello world, hello there!
Tokenizers turn text into numbers and numbers back into text. The runtime
streams tokens while the model is running; streaming must match batch output.
Numbers like 12345 and 2026 appear, as do symbols: <tags>, {braces}, [lists].
the the the then there these those other mother brother together whether
running jumping tokenizing encoding decoding streaming matching batching
"""


def bytes_to_unicode():
    printable = list(range(ord("!"), ord("~") + 1))
    printable += list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def pieces(text):
    # A simplification of GPT-2's split: words keep their leading space.
    return re.findall(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+", text)


def train_byte_bpe(text, merges_wanted):
    """Plain BPE training over bytes; returns merges as byte pairs."""
    words = collections.Counter(tuple(bytes([b]) for b in p.encode()) for p in pieces(text))
    merges = []
    for _ in range(merges_wanted):
        pairs = collections.Counter()
        for word, count in words.items():
            for a, b in zip(word, word[1:]):
                pairs[(a, b)] += count
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        merged = collections.Counter()
        for word, count in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] += count
        words = merged
    return merges


def write_json(name, doc):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")


def byte_level_bpe(merges):
    b2u = bytes_to_unicode()
    enc = lambda bs: "".join(b2u[b] for b in bs)
    vocab = {b2u[b]: b for b in range(256)}
    merge_strings = []
    for a, b in merges:
        vocab.setdefault(enc(a + b), len(vocab))
        merge_strings.append(f"{enc(a)} {enc(b)}")
    eot = len(vocab)
    vocab["<|endoftext|>"] = eot
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": eot, "content": "<|endoftext|>", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": True},
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                           "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merge_strings},
    }


def wordpiece_bert():
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = ["the", "quick", "brown", "fox", "hello", "world", "token", "run", "un", "stream",
             "match", "batch", "text", "number", "jump", "over", "lazy", "dog", "café"]
    pieces_ = ["##s", "##ing", "##izer", "##able", "##aff", "##ed", "##er", "##ning", "##ize"]
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab = {}
    for t in specials + list(".,!?'-;:()0123456789") + letters + ["##" + c for c in letters] + words + pieces_:
        vocab.setdefault(t, len(vocab))
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t in specials]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [vocab["[CLS]"]], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [vocab["[SEP]"]], "tokens": ["[SEP]"]},
            },
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }


def unigram_metaspace():
    vocab = [["<unk>", 0.0], ["<s>", 0.0], ["</s>", 0.0], ["\u2581", -2.0]]
    scored = {"\u2581the": -3.0, "\u2581hello": -4.0, "\u2581world": -4.0, "\u2581quick": -5.0,
              "\u2581brown": -5.0, "\u2581fox": -5.0, "\u2581stream": -5.5, "ing": -4.5,
              "er": -4.5, "\u2581t": -5.0, "he": -5.0, "llo": -5.5, "or": -5.0, "ld": -5.5}
    vocab += [[k, v] for k, v in scored.items()]
    for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?'":
        vocab.append([c, -8.0])
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True} for i, t in enumerate(["<unk>", "<s>", "</s>"])
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                          "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "</s>", "type_id": 1}}],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}},
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                    "split": True},
        "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": False},
    }


def tiktoken_file(merges):
    # Single bytes first, in a shuffled (non-identity) order as real files do.
    order = list(range(33, 127)) + [b for b in range(256) if not 33 <= b < 127]
    ranks = {bytes([b]): i for i, b in enumerate(order)}
    for a, b in merges:
        ranks.setdefault(a + b, len(ranks))
    lines = [f"{base64.b64encode(t).decode()} {r}" for t, r in sorted(ranks.items(), key=lambda kv: kv[1])]
    with open(os.path.join(HERE, "gpt2.tiktoken"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    merges = train_byte_bpe(CORPUS, 120)
    write_json("bpe_byte_level.json", byte_level_bpe(merges))
    write_json("wordpiece_bert.json", wordpiece_bert())
    write_json("unigram_metaspace.json", unigram_metaspace())
    tiktoken_file(merges)


if __name__ == "__main__":
    main()
