#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ with the small .vmfb files checked into the
# repository. Corpus directories are gitignored; run this before fuzzing on a
# fresh checkout (re-running is harmless: files are named by content hash).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
shopt -s nullglob
seeds=("$root"/testdata/vm/*.vmfb "$root"/crates/vm-bytecode/tests/data/*.vmfb)
if [ ${#seeds[@]} -eq 0 ]; then
  echo "seed.sh: no .vmfb files found under $root" >&2
  exit 1
fi
for target in load_module parse_format; do
  dir="$here/corpus/$target"
  mkdir -p "$dir"
  n=0
  for f in "${seeds[@]}"; do
    # Skip anything large: the seeds should stay small for the fuzzer.
    [ "$(stat -c %s "$f")" -le 65536 ] || continue
    cp "$f" "$dir/seed-$(sha1sum "$f" | cut -c1-16)"
    n=$((n + 1))
  done
  echo "seed.sh: $n seeds -> corpus/$target"
done
