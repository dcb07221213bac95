"""The tokenizer API (`Tokenizer`, `TokenizerEncodeStream`,
`TokenizerDecodeStream`): loading, encode/decode against reference ids,
streaming, vocabulary queries, errors, threads. Fixtures are the ones of
the iree-tokenizer crate (crates/tokenizer/tests/data)."""

import base64
import gc
import json
import os
import pathlib
import threading

import pytest

import iree_rust.runtime as rt

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DATA = os.path.join(REPO, "crates", "tokenizer", "tests", "data")
BPE = os.path.join(DATA, "bpe_byte_level.json")
WORDPIECE = os.path.join(DATA, "wordpiece_bert.json")
UNIGRAM = os.path.join(DATA, "unigram_metaspace.json")
TIKTOKEN = os.path.join(DATA, "gpt2.tiktoken")
JSON_FIXTURES = [BPE, WORDPIECE, UNIGRAM]

with open(os.path.join(DATA, "expected.json"), encoding="utf-8") as f:
    EXPECTED = json.load(f)


@pytest.fixture(scope="module")
def bpe():
    return rt.Tokenizer.from_file(BPE)


@pytest.fixture(scope="module", params=JSON_FIXTURES + [TIKTOKEN], ids=os.path.basename)
def any_tok(request):
    return rt.Tokenizer.from_file(request.param)


def with_template(path, prefix, suffix):
    """The fixture at `path` with a TemplateProcessing post-processor adding
    `prefix` / `suffix` (token strings of its added tokens)."""
    doc = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    ids = {t["content"]: t["id"] for t in doc["added_tokens"]}
    single = [{"SpecialToken": {"id": t, "type_id": 0}} for t in prefix]
    single.append({"Sequence": {"id": "A", "type_id": 0}})
    single += [{"SpecialToken": {"id": t, "type_id": 0}} for t in suffix]
    doc["post_processor"] = {
        "type": "TemplateProcessing",
        "single": single,
        "pair": single + [{"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {
            t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in set(prefix) | set(suffix)
        },
    }
    return json.dumps(doc)


# Loading.


def test_load_from_str_path_bytes_and_json():
    a = rt.Tokenizer.from_file(BPE)
    b = rt.Tokenizer.from_file(pathlib.Path(BPE))
    c = rt.Tokenizer.from_file(os.fsencode(BPE))
    d = rt.Tokenizer.from_huggingface_json(pathlib.Path(BPE).read_text(encoding="utf-8"))
    for tok in (a, b, c, d):
        assert tok.model_type == "BPE"
        assert tok.encode("Hello world") == a.encode("Hello world")


def test_model_types_and_repr():
    assert rt.Tokenizer.from_file(WORDPIECE).model_type == "WordPiece"
    assert rt.Tokenizer.from_file(UNIGRAM).model_type == "Unigram"
    tok = rt.Tokenizer.from_file(TIKTOKEN)
    assert tok.model_type == "BPE"
    assert repr(tok) == f"<Tokenizer model_type='BPE' vocab_size={tok.vocab_size}>"


@pytest.mark.parametrize("bad", ["", "not json", "{invalid json", "[]", "{}", '{"model": 3}'])
def test_bad_json_raises_value_error(bad):
    with pytest.raises(ValueError):
        rt.Tokenizer.from_huggingface_json(bad)


def test_file_errors(tmp_path):
    with pytest.raises(ValueError, match="Failed to open file"):
        rt.Tokenizer.from_file(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("not json content")
    with pytest.raises(ValueError):
        rt.Tokenizer.from_file(bad)
    unknown = tmp_path / "mystery.tiktoken"
    unknown.write_text("AA== 0\n")
    with pytest.raises(ValueError, match="Unknown tiktoken encoding in filename"):
        rt.Tokenizer.from_file(unknown)
    for not_a_path in (42, 1.5, object(), None):
        with pytest.raises(TypeError):
            rt.Tokenizer.from_file(not_a_path)


def every_byte_tiktoken():
    return "\n".join(f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256))


@pytest.mark.parametrize(
    "encoding",
    ["cl100k_base", "o200k_base", "o200k_harmony", "r50k_base", "gpt2", "p50k_base", "p50k_edit"],
)
def test_from_tiktoken_named_encodings(encoding):
    tok = rt.Tokenizer.from_tiktoken(every_byte_tiktoken(), encoding)
    assert tok.vocab_size > 256
    text = "tiktoken <|endoftext|> bytes \u00e9\u4e16"
    ids = tok.encode(text)
    assert tok.token_to_id("<|endoftext|>") in ids
    assert tok.decode(ids) == text


def test_from_tiktoken_errors():
    with pytest.raises(ValueError, match="Unknown tiktoken encoding: nope"):
        rt.Tokenizer.from_tiktoken(every_byte_tiktoken(), "nope")
    for bad in ["", "AA== 0", "AA==0\n", "AA== x\n", "!!!! 0\n", "AA== 1\nAQ== 0\n"]:
        with pytest.raises(ValueError):
            rt.Tokenizer.from_tiktoken(bad, "cl100k_base")


# Encode and decode against the reference ids.


@pytest.mark.parametrize("name", [os.path.basename(p) for p in JSON_FIXTURES])
def test_json_fixtures_match_reference(name):
    tok = rt.Tokenizer.from_file(os.path.join(DATA, name))
    for case in EXPECTED[name]:
        ids = tok.encode(case["text"])
        assert isinstance(ids, list) and all(type(i) is int for i in ids)
        assert ids == case["ids"], case["text"]
        special = tok.encode(case["text"], add_special_tokens=True)
        assert special == case["ids_with_special"], case["text"]
        assert tok.decode(ids) == case["decoded"]
        assert tok.decode(special, skip_special_tokens=True) == case["decoded_skip"]


def test_tiktoken_fixture_matches_tiktoken():
    tok = rt.Tokenizer.from_file(TIKTOKEN)
    for case in EXPECTED["gpt2.tiktoken"]:
        assert tok.encode(case["text"]) == case["ids"], case["text"]
        assert tok.encode(case["text"], no_special_token_matching=True) == case["ordinary"]
        assert tok.decode(case["ids"]) == case["decoded"]


def test_byte_level_round_trips_any_text(bpe):
    for text in ["", " ", "caf\u00e9", "\u4f60\u597d\u4e16\u754c", "hello \U0001F600 world", "\x00\x7f\t\r\n"]:
        assert bpe.decode(bpe.encode(text)) == text


def test_decode_accepts_sequences_and_skips_unknown_ids(bpe):
    ids = bpe.encode("Hello")
    assert bpe.decode(tuple(ids)) == "Hello"
    assert bpe.decode(ids + [10**6, -1]) == "Hello"
    with pytest.raises(TypeError):
        bpe.decode("Hello")


def test_special_tokens():
    tok = rt.Tokenizer.from_huggingface_json(with_template(BPE, ["<|endoftext|>"], ["<|endoftext|>"]))
    eot = tok.token_to_id("<|endoftext|>")
    plain = tok.encode("Hello")
    assert tok.encode("Hello", add_special_tokens=True) == [eot] + plain + [eot]
    assert tok.encode("<|endoftext|>") == [eot]
    literal = tok.encode("<|endoftext|>", no_special_token_matching=True)
    assert eot not in literal and len(literal) > 1
    assert tok.decode([eot] + plain, skip_special_tokens=True) == "Hello"
    assert tok.decode([eot] + plain) == "<|endoftext|>Hello"
    assert tok.encode("", add_special_tokens=True) == [eot, eot]


def test_wordpiece_bert_conventions():
    tok = rt.Tokenizer.from_file(WORDPIECE)
    ids = tok.encode("Unaffable RUNNING!", add_special_tokens=True)
    assert ids[0] == tok.token_to_id("[CLS]") and ids[-1] == tok.token_to_id("[SEP]")
    assert tok.decode(ids, skip_special_tokens=True) == "unaffable running!"
    assert tok.special_ids["unk"] == tok.token_to_id("[UNK]")
    assert tok.encode("zzzzzzzz\u2603")[-1] == tok.token_to_id("[UNK]")


# Vocabulary queries.


def test_vocabulary(bpe):
    assert bpe.vocab_size == bpe.token_to_id("<|endoftext|>") + 1
    assert bpe.id_to_token(bpe.token_to_id("\u0120the")) == "\u0120the"
    for bad in (-1, -(2**40), bpe.vocab_size, 2**40):
        assert bpe.id_to_token(bad) is None
    assert bpe.token_to_id("definitely not a token") is None
    ids = bpe.special_ids
    assert set(ids) == {"bos", "eos", "unk", "pad", "sep", "cls", "mask"}
    assert all(v is None or isinstance(v, int) for v in ids.values())


# Streaming.


def stream_encode(tok, text, chunks, **kwargs):
    enc = tok.encode_stream(**kwargs)
    out, at = [], 0
    for cut in chunks:
        out += enc.feed(text[at:cut])
        at = cut
    out += enc.feed(text[at:])
    return out + enc.finalize()


@pytest.mark.parametrize(
    "options", [{}, {"add_special_tokens": True}, {"no_special_token_matching": True}]
)
def test_stream_encode_matches_batch_at_every_split(any_tok, options):
    for text in ["Hello <|endoftext|> world", "don't  stop\n\nnow 12345", "caf\u00e9 \U0001F600!"]:
        batch = any_tok.encode(text, **options)
        for cut in range(len(text) + 1):
            assert stream_encode(any_tok, text, [cut], **options) == batch, (text, cut)
        assert stream_encode(any_tok, text, range(1, len(text)), **options) == batch


def test_stream_encode_large_input(any_tok):
    text = "The quick brown fox jumps over the lazy dog. " * 3000
    batch = any_tok.encode(text)
    assert stream_encode(any_tok, text, range(1000, len(text), 1000)) == batch
    assert stream_encode(any_tok, "a" * 5000, []) == any_tok.encode("a" * 5000)


def test_stream_decode_matches_batch(any_tok):
    text = "Hello \U0001F600 w\u00f6rld, \u4f60\u597d! The quick brown fox."
    for skip in (False, True):
        ids = any_tok.encode(text, add_special_tokens=True)
        batch = any_tok.decode(ids, skip_special_tokens=skip)
        dec = any_tok.decode_stream(skip_special_tokens=skip)
        assert "".join(dec.feed_one(i) for i in ids) + dec.finalize() == batch
        dec = any_tok.decode_stream(skip_special_tokens=skip)
        assert dec.feed(ids[:3]) + dec.feed(ids[3:]) + dec.finalize() == batch


def test_stream_decode_holds_incomplete_characters(bpe):
    ids = bpe.encode("\U0001F600")
    dec = bpe.decode_stream()
    assert [dec.feed_one(i) for i in ids] == [""] * (len(ids) - 1) + ["\U0001F600"]
    dec = bpe.decode_stream()
    assert dec.feed(ids[:1]) == ""
    assert dec.finalize() == "\ufffd"


def test_stream_lifecycle(bpe):
    enc = bpe.encode_stream()
    assert repr(enc) == "<TokenizerEncodeStream>"
    assert enc.finalize() == []
    with pytest.raises(ValueError, match="Already finalized"):
        enc.finalize()
    with pytest.raises(ValueError, match="Cannot feed after finalize"):
        enc.feed("x")
    dec = bpe.decode_stream()
    assert repr(dec) == "<TokenizerDecodeStream>"
    assert dec.finalize() == ""
    for call in (lambda: dec.feed([1]), lambda: dec.feed_one(1), dec.finalize):
        with pytest.raises(ValueError):
            call()
    with bpe.encode_stream() as enc:
        enc.feed("Hello")
    with pytest.raises(ValueError):
        enc.finalize()  # __exit__ finalized it
    with bpe.decode_stream() as dec:
        assert dec.feed(bpe.encode("Hello")) + dec.finalize() == "Hello"


def test_streams_keep_their_tokenizer_alive():
    tok = rt.Tokenizer.from_file(BPE)
    enc, dec = tok.encode_stream(), tok.decode_stream()
    del tok
    gc.collect()
    ids = enc.feed("Hello world") + enc.finalize()
    assert dec.feed(ids) + dec.finalize() == "Hello world"


# Threads.


def test_shared_tokenizer_across_threads(any_tok):
    texts = [f"thread {i}: " + "some words to encode " * 200 for i in range(8)]
    expected = [any_tok.encode(t) for t in texts]
    results, errors = {}, []

    def work(i):
        try:
            for _ in range(5):
                ids = any_tok.encode(texts[i])
                enc = any_tok.encode_stream()
                streamed = enc.feed(texts[i]) + enc.finalize()
                assert streamed == ids
            results[i] = (ids, any_tok.decode(ids))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, (ids, text) in results.items():
        assert ids == expected[i]
        assert text == any_tok.decode(expected[i])
