#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from files checked into the repository. Corpus
# directories are gitignored; run this before fuzzing on a fresh checkout
# (re-running is harmless: files are named by content hash).
#   load_module, parse_format, run_module: the small .vmfb files of
#       testdata/vm and crates/vm-bytecode/tests/data.
#   verify_bytecode: every function of those files, with the header that
#       target expects (needs python3; skipped with a warning without it).
#   load_elf: the embedded-ELF libraries in crates/hal-local/tests/data.
#   parse_replay: the HAL replay captures of testdata/replay.
#   every target: fuzz/seeds/<target>/* (hand-made inputs) and
#       fuzz/regressions/<target>/* (inputs that once crashed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
shopt -s nullglob
seeds=()
for f in "$root"/testdata/vm/*.vmfb "$root"/crates/vm-bytecode/tests/data/*.vmfb; do
  # Only small files: the seeds should stay small for the fuzzer.
  [ "$(stat -c %s "$f")" -le 65536 ] && seeds+=("$f")
done
if [ ${#seeds[@]} -eq 0 ]; then
  echo "seed.sh: no .vmfb files found under $root" >&2
  exit 1
fi
for target in load_module parse_format verify_bytecode run_module; do
  mkdir -p "$here/corpus/$target"
done
for target in load_module parse_format run_module; do
  dir="$here/corpus/$target"
  n=0
  for f in "${seeds[@]}"; do
    cp "$f" "$dir/seed-$(sha1sum "$f" | cut -c1-16)"
    n=$((n + 1))
  done
  echo "seed.sh: $n seeds -> corpus/$target"
done
# run_module also runs modules with HAL imports (stand-ins answer them).
n=0
for f in "$root"/testdata/vm-hal/*.vmfb "$root"/testdata/vm-async/*.vmfb "$root"/testdata/vmvx/*.vmfb; do
  if [ "$(stat -c %s "$f")" -le 65536 ]; then
    cp "$f" "$here/corpus/run_module/seed-$(sha1sum "$f" | cut -c1-16)"
    n=$((n + 1))
  fi
done
echo "seed.sh: $n more seeds -> corpus/run_module"
mkdir -p "$here/corpus/load_elf"
n=0
for f in "$root"/crates/hal-local/tests/data/*.so "$root"/crates/hal-local/tests/data/fuzz/*.so; do
  cp "$f" "$here/corpus/load_elf/seed-$(sha1sum "$f" | cut -c1-16)"
  n=$((n + 1))
done
echo "seed.sh: $n seeds -> corpus/load_elf"
if command -v python3 >/dev/null; then
  python3 "$here/extract_seeds.py" "$here/corpus/verify_bytecode" "${seeds[@]}"
else
  echo "seed.sh: python3 not found; corpus/verify_bytecode starts empty" >&2
fi
for target in load_module parse_format verify_bytecode run_module; do
  extra=("$here"/seeds/"$target"/* "$here"/regressions/"$target"/*)
  for f in "${extra[@]}"; do
    cp "$f" "$here/corpus/$target/seed-$(sha1sum "$f" | cut -c1-16)"
  done
  [ ${#extra[@]} -eq 0 ] || echo "seed.sh: ${#extra[@]} hand-made/regression inputs -> corpus/$target"
done
# Parameter files: testdata/params/*.{irpa,gguf,safetensors} (small ones).
for fmt in irpa gguf safetensors; do
  dir="$here/corpus/parse_$fmt"
  mkdir -p "$dir"
  n=0
  for f in "$root"/testdata/params/*."$fmt" "$here"/seeds/parse_"$fmt"/* "$here"/regressions/parse_"$fmt"/*; do
    cp "$f" "$dir/seed-$(sha1sum "$f" | cut -c1-16)"
    n=$((n + 1))
  done
  echo "seed.sh: $n seeds -> corpus/parse_$fmt"
done
# HAL replay captures: testdata/replay/*/*.ireereplay (small ones).
dir="$here/corpus/parse_replay"
mkdir -p "$dir"
n=0
for f in "$root"/testdata/replay/*/*.ireereplay "$here"/regressions/parse_replay/*; do
  [ "$(stat -c %s "$f")" -le 65536 ] || continue
  cp "$f" "$dir/seed-$(sha1sum "$f" | cut -c1-16)"
  n=$((n + 1))
done
echo "seed.sh: $n seeds -> corpus/parse_replay"
# GPU executables: the CDA1/HIP1 executables embedded in testdata/{cuda,hip}/*.vmfb,
# each prefixed with the selector byte parse_gpu_executable expects (0 CUDA, 1 HIP).
mkdir -p "$here/corpus/parse_gpu_executable"
if command -v python3 >/dev/null; then
  python3 - "$here/corpus/parse_gpu_executable" "$root"/testdata/cuda/*.vmfb "$root"/testdata/hip/*.vmfb <<'PY'
import hashlib, struct, sys
out, n = sys.argv[1], 0
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    for magic, selector in ((b"CDA1", 0), (b"HIP1", 1)):
        at = data.find(magic)
        while at >= 0:
            if at + 16 <= len(data):
                size = struct.unpack_from("<Q", data, at + 8)[0]
                blob = bytes([selector]) + data[at : at + 64 + size]
                name = hashlib.sha1(blob).hexdigest()[:16]
                open(f"{out}/seed-{name}", "wb").write(blob)
                n += 1
            at = data.find(magic, at + 4)
print(f"seed.sh: {n} seeds -> corpus/parse_gpu_executable")
PY
fi
# verify_flatbuffer: the flatbuffers of the committed modules (selector 0,
# without the size prefix) and of the CUDA/HIP executables embedded in
# testdata/{cuda,hip} (selectors 1 and 2, without the 64-byte header).
mkdir -p "$here/corpus/verify_flatbuffer"
if command -v python3 >/dev/null; then
  python3 - "$here/corpus/verify_flatbuffer" "$root"/testdata/*/*.vmfb "$root"/crates/vm-bytecode/tests/data/*.vmfb <<'PY'
import hashlib, struct, sys
out, n = sys.argv[1], 0
def keep(blob):
    global n
    open(f"{out}/seed-{hashlib.sha1(blob).hexdigest()[:16]}", "wb").write(blob)
    n += 1
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    at = data.find(b"IREE")
    if at >= 8 and len(data) <= (1 << 20):
        size = struct.unpack_from("<I", data, at - 8)[0]
        keep(bytes([0]) + data[at - 4 : at - 4 + size])
    for magic, selector in ((b"CDA1", 1), (b"HIP1", 2)):
        at = data.find(magic)
        while at >= 0:
            if at + 16 <= len(data):
                size = struct.unpack_from("<Q", data, at + 8)[0]
                keep(bytes([selector]) + data[at + 64 : at + 64 + size])
            at = data.find(magic, at + 4)
print(f"seed.sh: {n} seeds -> corpus/verify_flatbuffer")
PY
fi
# Tokenizers: the fixtures of crates/tokenizer/tests/data (tokenizer.json
# files; the tiktoken file behind a selector byte, in seeds/), and for the
# round trip a few texts behind its option byte.
tok="$root/crates/tokenizer/tests/data"
mkdir -p "$here/corpus/tokenizer_json" "$here/corpus/tokenizer_tiktoken" "$here/corpus/tokenizer_round_trip"
for f in "$tok"/bpe_byte_level.json "$tok"/wordpiece_bert.json "$tok"/unigram_metaspace.json \
  "$here"/seeds/tokenizer_json/* "$here"/regressions/tokenizer_json/*; do
  cp "$f" "$here/corpus/tokenizer_json/seed-$(sha1sum "$f" | cut -c1-16)"
done
for f in "$here"/seeds/tokenizer_tiktoken/* "$here"/regressions/tokenizer_tiktoken/*; do
  cp "$f" "$here/corpus/tokenizer_tiktoken/seed-$(sha1sum "$f" | cut -c1-16)"
done
printf '\000Hello <|endoftext|> world \360\237\230\200 caf\303\251\n\n  x' >"$here/corpus/tokenizer_round_trip/seed-text"
printf '\013The quick brown fox [CLS] jumps over the lazy dog.' >"$here/corpus/tokenizer_round_trip/seed-template"
echo "seed.sh: tokenizer seeds -> corpus/tokenizer_{json,tiktoken,round_trip}"
