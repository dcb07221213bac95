#!/usr/bin/env python3
"""Parity and throughput of tokenizer implementations on real files.

Compares, where importable: ours (`iree_rust.runtime.Tokenizer`), upstream
IREE (`iree.runtime.Tokenizer`) and the reference (`tiktoken` for .tiktoken
files, `tokenizers` for tokenizer.json). Parity: the ids of every line of
TEXT, and of the whole text. Throughput: best of 3 over the whole text.

    python compare.py TEXT FILE [FILE...] [--encoding NAME]

A .tiktoken file is loaded under --encoding (default gpt2) for every
implementation, with the GPT-2 split pattern for the tiktoken reference.
"""

import argparse
import base64
import importlib
import time

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def load_iree(module, path, encoding):
    rt = importlib.import_module(module)
    if path.endswith(".tiktoken"):
        with open(path, encoding="utf-8") as f:
            return rt.Tokenizer.from_tiktoken(f.read(), encoding)
    return rt.Tokenizer.from_file(path)


class Reference:
    def __init__(self, path, encoding):
        if path.endswith(".tiktoken"):
            import tiktoken

            ranks = {}
            with open(path) as f:
                for line in f:
                    if line.strip():
                        b64, rank = line.split()
                        ranks[base64.b64decode(b64)] = int(rank)
            self.enc = tiktoken.Encoding(
                name=encoding, pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                special_tokens={"<|endoftext|>": 50256} if encoding == "gpt2" else {},
            )
            self.encode = lambda text: self.enc.encode(text, allowed_special="all")
            self.decode = self.enc.decode
            self.name = f"tiktoken {tiktoken.__version__}"
        else:
            import tokenizers

            tok = tokenizers.Tokenizer.from_file(path)
            self.encode = lambda text: tok.encode(text, add_special_tokens=False).ids
            self.decode = lambda ids: tok.decode(ids, skip_special_tokens=False)
            self.name = f"tokenizers {tokenizers.__version__}"


def best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("text")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--encoding", default="gpt2")
    args = parser.parse_args()
    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    mb = len(text.encode()) / 1e6
    for path in args.files:
        print(f"== {path} on {args.text} ({mb:.2f} MB, {len(lines)} lines)")
        impls = {}
        for name, module in (("ours", "iree_rust.runtime"), ("upstream", "iree.runtime")):
            try:
                start = time.perf_counter()
                tok = load_iree(module, path, args.encoding)
                print(f"  {name}: load {1e3 * (time.perf_counter() - start):.0f} ms")
                impls[name] = (tok.encode, tok.decode, tok)
            except Exception as e:  # noqa: BLE001 - reported
                print(f"  {name}: not available ({type(e).__name__}: {e})")
        try:
            start = time.perf_counter()
            ref = Reference(path, args.encoding)
            print(f"  reference {ref.name}: load {1e3 * (time.perf_counter() - start):.0f} ms")
            impls["reference"] = (ref.encode, ref.decode, None)
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  reference: not available ({e})")
        ids = {name: [encode(line) for line in lines] for name, (encode, _, _) in impls.items()}
        whole = {name: encode(text) for name, (encode, _, _) in impls.items()}
        if "reference" in ids:
            for name in impls:
                if name == "reference":
                    continue
                bad = [i for i, (a, b) in enumerate(zip(ids[name], ids["reference"])) if a != b]
                same_whole = whole[name] == whole["reference"]
                dec_bad = sum(
                    impls[name][1](r) != impls["reference"][1](r) for r in ids["reference"][:2000]
                )
                print(f"  parity {name} vs reference: {len(lines) - len(bad)}/{len(lines)} lines equal,"
                      f" whole text {'equal' if same_whole else 'DIFFERENT'},"
                      f" decode mismatches {dec_bad}/2000")
                for i in bad[:3]:
                    print(f"    line {i}: {lines[i][:80]!r}\n      {name}: {ids[name][i][:20]}\n"
                          f"      ref: {ids['reference'][i][:20]}")
        for name, (encode, decode, tok) in impls.items():
            t_enc = best(lambda: encode(text))
            t_dec = best(lambda: decode(whole[name]))
            line = f"  {name:9s} encode {mb / t_enc:7.2f} MB/s  decode {mb / t_dec:7.2f} MB/s"
            if tok is not None:
                def stream():
                    dec = tok.decode_stream()
                    for i in whole[name]:
                        dec.feed_one(i)
                    dec.finalize()

                def enc_stream():
                    enc = tok.encode_stream()
                    for i in range(0, len(text), 4096):
                        enc.feed(text[i:i + 4096])
                    enc.finalize()

                t_sd = best(stream, 1)
                t_se = best(enc_stream, 1)
                line += (f"  stream-encode(4K) {mb / t_se:7.2f} MB/s"
                         f"  stream-decode {1e6 * t_sd / len(whole[name]):.2f} us/token")
            print(line, flush=True)


if __name__ == "__main__":
    main()
