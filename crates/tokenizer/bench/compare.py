#!/usr/bin/env python3
"""Parity and throughput of tokenizer implementations on real files, in one run.

    python compare.py TEXT FILE[:ENCODING] [FILE[:ENCODING]...] [--rounds N]
                      [--parity-only | --speed-only] [--json OUT]

Implementations, where importable: ours (`iree_rust.runtime.Tokenizer`),
upstream IREE's (`iree.runtime.Tokenizer`, iree-base-runtime 3.13.0) and the
reference package (`tiktoken` for .tiktoken files, `tokenizers` for
tokenizer.json). A .tiktoken file is loaded under ENCODING (default: its stem
if that names an encoding, else gpt2) by all three; the tiktoken reference
gets that encoding's split pattern and special tokens from `tiktoken_ext`.

Parity, against the reference: the ids of every line of TEXT and of the whole
text (special tokens matched, no post-processor tokens); streaming encode of
the whole text in seeded random chunks of 1-300 characters; decode of every
line's reference ids; streaming decode of the whole text one id at a time.

Throughput (MB of UTF-8 text per second; best of --rounds rounds, the
implementations alternating within each round): encode and decode of the
whole text; batch encode of its lines (`encode_batch` where the package has
one: `tokenizers` and ours run it on all cores, tiktoken on threads; a Python
loop for upstream, which has none); streaming encode in 4 KiB chunks;
streaming decode one id per call.
"""

import argparse
import base64
import importlib
import json
import os
import random
import resource
import time

ENCODINGS = {"cl100k_base", "o200k_base", "o200k_harmony", "r50k_base", "gpt2", "p50k_base",
             "p50k_edit"}


def read_ranks(path):
    ranks = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                b64, rank = line.split()
                ranks[base64.b64decode(b64)] = int(rank)
    return ranks


class Iree:
    """Ours or upstream's Tokenizer, behind one interface."""

    def __init__(self, module, path, encoding):
        rt = importlib.import_module(module)
        if encoding:
            with open(path, encoding="utf-8") as f:
                self.tok = rt.Tokenizer.from_tiktoken(f.read(), encoding)
        else:
            self.tok = rt.Tokenizer.from_file(path)
        self.encode = self.tok.encode
        self.decode = self.tok.decode
        batch = getattr(self.tok, "encode_batch", None)
        self.encode_batch = batch or (lambda texts: [self.tok.encode(t) for t in texts])
        self.batch_kind = "encode_batch" if batch else "loop"

    def stream_encode(self, text, cuts):
        out = []
        with self.tok.encode_stream() as stream:
            at = 0
            for cut in cuts:
                out += stream.feed(text[at:cut])
                at = cut
            out += stream.feed(text[at:])
            out += stream.finalize()
        return out

    def stream_decode(self, ids):
        parts = []
        with self.tok.decode_stream() as stream:
            for i in ids:
                parts.append(stream.feed_one(i))
            parts.append(stream.finalize())
        return "".join(parts)


class Reference:
    def __init__(self, path, encoding):
        if encoding:
            import tiktoken
            import tiktoken_ext.openai_public as public

            ranks = read_ranks(path)
            public.load_tiktoken_bpe = lambda *a, **k: ranks
            public.data_gym_to_mergeable_bpe_ranks = lambda *a, **k: ranks
            params = getattr(public, encoding)()
            params["mergeable_ranks"] = ranks
            enc = tiktoken.Encoding(**params)
            self.encode = lambda text: enc.encode(text, allowed_special="all",
                                                  disallowed_special=())
            self.decode = enc.decode
            self.encode_batch = lambda texts: enc.encode_batch(
                texts, allowed_special="all", disallowed_special=())
            self.name = f"tiktoken {tiktoken.__version__}"
        else:
            import tokenizers

            tok = tokenizers.Tokenizer.from_file(path)
            self.encode = lambda text: tok.encode(text, add_special_tokens=False).ids
            self.decode = lambda ids: tok.decode(ids, skip_special_tokens=False)
            self.encode_batch = lambda texts: [
                e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
            self.name = f"tokenizers {tokenizers.__version__}"
        self.batch_kind = "encode_batch"


def load_all(path, encoding):
    impls, notes = {}, []
    for name, module in (("ours", "iree_rust.runtime"), ("upstream", "iree.runtime")):
        try:
            start = time.perf_counter()
            impls[name] = Iree(module, path, encoding)
            notes.append(f"{name} load {1e3 * (time.perf_counter() - start):.0f} ms")
        except Exception as e:  # noqa: BLE001 - reported
            notes.append(f"{name}: cannot load ({type(e).__name__}: {str(e)[:160]})")
    try:
        start = time.perf_counter()
        ref = Reference(path, encoding)
        impls["reference"] = ref
        notes.append(f"{ref.name} load {1e3 * (time.perf_counter() - start):.0f} ms")
    except Exception as e:  # noqa: BLE001 - reported
        notes.append(f"reference: cannot load ({e})")
    return impls, notes


def parity(impls, text, lines):
    ref = impls.get("reference")
    if ref is None:
        return {}
    ref_lines = [ref.encode(line) for line in lines]
    ref_whole = ref.encode(text)
    ref_text = ref.decode(ref_whole)
    rng = random.Random(1127)
    cuts, at = [], 0
    while True:
        at += rng.randint(1, 300)
        if at >= len(text):
            break
        cuts.append(at)
    results = {}
    for name, impl in impls.items():
        if name == "reference":
            continue
        r = {}

        def check(key, fn):
            try:
                r[key] = fn()
            except Exception as e:  # noqa: BLE001 - reported
                r[key] = f"ERROR ({type(e).__name__}: {str(e)[:100]})"

        bad = []
        check("lines", lambda: (bad.extend(i for i, line in enumerate(lines)
                                           if impl.encode(line) != ref_lines[i]),
                                f"{len(lines) - len(bad)}/{len(lines)}")[1])
        check("whole", lambda: impl.encode(text) == ref_whole)
        check("stream_encode", lambda: impl.stream_encode(text, cuts) == ref_whole)
        check("decode_lines", lambda: f"{sum(impl.decode(ids) == ref.decode(ids) for ids in ref_lines)}"
                                      f"/{len(lines)}")
        check("stream_decode", lambda: impl.stream_decode(ref_whole) == ref_text)
        r["first_bad_lines"] = [(i, lines[i][:60]) for i in bad[:2]]
        results[name] = r
    return results


def best_of(rounds, jobs):
    """jobs: {key: fn}; runs every fn once per round, in turn; best times."""
    best, failed = {}, set()
    for _ in range(rounds):
        for key, fn in jobs.items():
            if key in failed:
                continue
            start = time.perf_counter()
            try:
                fn()
            except Exception:  # noqa: BLE001 - e.g. upstream's decode without a decoder
                failed.add(key)
                best.pop(key, None)
                continue
            elapsed = time.perf_counter() - start
            best[key] = min(best.get(key, elapsed), elapsed)
    return best


def speed(impls, text, lines, rounds):
    mb = len(text.encode()) / 1e6
    whole = {name: impl.encode(text) for name, impl in impls.items()}
    chunks = list(range(4096, len(text), 4096))
    jobs = {}
    for name, impl in impls.items():
        jobs[(name, "encode")] = lambda impl=impl: impl.encode(text)
        jobs[(name, "decode")] = lambda impl=impl, ids=whole[name]: impl.decode(ids)
        jobs[(name, "batch")] = lambda impl=impl: impl.encode_batch(lines)
        if isinstance(impl, Iree):
            jobs[(name, "stream_encode")] = lambda impl=impl: impl.stream_encode(text, chunks)
            jobs[(name, "stream_decode")] = lambda impl=impl, ids=whole[name]: impl.stream_decode(ids)
    best = best_of(rounds, jobs)
    out = {}
    for (name, kind), t in best.items():
        out.setdefault(name, {})[kind] = mb / t
    for name in impls:
        out[name]["batch_kind"] = impls[name].batch_kind
        out[name]["tokens"] = len(whole[name])
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("text")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parity-only", action="store_true")
    parser.add_argument("--speed-only", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    # Upstream 3.13's decode of a tokenizer.json without a decoder asks for
    # unbounded memory (std::bad_alloc with a limit, the OOM killer without):
    # a limit makes that a reported MemoryError.
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    lines = text.splitlines()
    print(f"text: {args.text}, {len(text.encode()) / 1e6:.2f} MB, {len(lines)} lines, "
          f"{os.cpu_count()} cores")
    report = {}
    for spec in args.files:
        path, _, encoding = spec.partition(":")
        if path.endswith(".tiktoken") and not encoding:
            stem = os.path.basename(path)[: -len(".tiktoken")]
            encoding = stem if stem in ENCODINGS else "gpt2"
        name = os.path.basename(path) + (f" ({encoding})" if encoding else "")
        impls, notes = load_all(path, encoding or None)
        print(f"\n== {name}: " + "; ".join(notes), flush=True)
        entry = {"notes": notes}
        if not args.speed_only:
            entry["parity"] = parity(impls, text, lines)
            def shown(value):
                return {True: "=", False: "DIFFERENT"}.get(value, value)

            for impl, r in entry["parity"].items():
                print(f"  parity {impl:8s} vs reference: lines {shown(r['lines'])}, whole "
                      f"{shown(r['whole'])}, stream-encode {shown(r['stream_encode'])}, "
                      f"decode lines {shown(r['decode_lines'])}, stream-decode "
                      f"{shown(r['stream_decode'])}", flush=True)
                for i, line in r["first_bad_lines"]:
                    print(f"    differs on line {i}: {line!r}")
        if not args.parity_only:
            entry["speed"] = speed(impls, text, lines, args.rounds)
            print(f"  {'MB/s':10s} {'encode':>8s} {'decode':>8s} {'batch':>8s} "
                  f"{'stream-enc':>10s} {'stream-dec':>10s}")
            for impl, s in entry["speed"].items():
                def cell(key, width=8):
                    return f"{s[key]:{width}.1f}" if key in s else " " * (width - 1) + "-"
                print(f"  {impl:10s} {cell('encode')} {cell('decode')} {cell('batch')} "
                      f"{cell('stream_encode', 10)} {cell('stream_decode', 10)}"
                      f"   (batch: {s['batch_kind']})")
            ours = entry["speed"].get("ours")
            others = [v for k, v in entry["speed"].items() if k != "ours"]
            if ours and others:
                ratios = {k: ours[k] / max(o[k] for o in others if k in o)
                          for k in ("encode", "decode", "batch")
                          if k in ours and any(k in o for o in others)}
                entry["ours_vs_fastest"] = ratios
                print("  ours / fastest other: " + ", ".join(
                    f"{k} {v:.2f}x" for k, v in ratios.items()), flush=True)
        report[name] = entry
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    print_markdown(report)


def print_markdown(report):
    """The run as two Markdown tables (docs/tokenizer.md)."""
    print("\n| file | ours | upstream |\n| --- | --- | --- |")
    for name, entry in report.items():
        cells = []
        for impl in ("ours", "upstream"):
            r = entry.get("parity", {}).get(impl)
            if r is None:
                cells.append("cannot load")
                continue
            ok = all(r.get(k) is True for k in ("whole", "stream_encode", "stream_decode"))
            cells.append(f"lines {r['lines']}, decode {r['decode_lines']}"
                         + ("; whole, streamed both ways: equal" if ok else
                            f"; whole {r['whole']}, stream-encode {r['stream_encode']},"
                            f" stream-decode {r['stream_decode']}"))
        print(f"| {name} | {cells[0]} | {cells[1]} |")
    print("\n| file | encode ours / upstream / ref | decode | batch | ours / fastest other |"
          "\n| --- | --- | --- | --- | --- |")
    for name, entry in report.items():
        speed = entry.get("speed")
        if not speed:
            continue

        def trio(key):
            return " / ".join(f"{speed[i][key]:.1f}" if key in speed.get(i, {}) else "-"
                              for i in ("ours", "upstream", "reference"))

        ratios = ", ".join(f"{v:.2f}" for v in entry.get("ours_vs_fastest", {}).values())
        print(f"| {name} | {trio('encode')} | {trio('decode')} | {trio('batch')} | {ratios} |")


if __name__ == "__main__":
    main()
