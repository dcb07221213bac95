#!/usr/bin/env python3
"""Writes the mixed-script text the tokenizer parity and throughput runs use.

    python corpus.py OUT.txt

Sources, all on a machine with CPython 3.11 and `pip install faker==40.63.0`
(nothing is downloaded at run time):
- CPython's `pydoc_data/topics.py` (English prose and code) and
  `test/cjkencodings/*-utf8.txt` (Chinese, Japanese, Korean), found in this
  interpreter's standard library or another installed CPython's;
- `/usr/share/common-licenses/GPL-3` (English legal text), where present;
- Faker's localized generators, seeded, in 33 locales (Arabic, Armenian,
  Bengali, Cyrillic, Devanagari, Georgian, Greek, Hebrew, Persian, Tamil,
  Thai, Vietnamese, CJK, Latin with diacritics), with emoji.
The output is the same for the same Python and Faker versions.
"""

import glob
import os
import sys
import sysconfig

LOCALES = [
    "ar_AA", "ar_SA", "az_AZ", "bn_BD", "cs_CZ", "de_DE", "el_GR", "es_ES",
    "fa_IR", "fr_FR", "he_IL", "hi_IN", "hu_HU", "hy_AM", "it_IT", "ja_JP",
    "ka_GE", "ko_KR", "pl_PL", "pt_BR", "ro_RO", "ru_RU", "sk_SK", "sv_SE",
    "ta_IN", "th_TH", "tr_TR", "uk_UA", "vi_VN", "zh_CN", "zh_TW", "la",
    "en_US",
]
# Bytes of generated text per locale.
PER_LOCALE = 12_000


def stdlib_texts():
    stdlib = sysconfig.get_paths()["stdlib"]
    roots = [stdlib] + sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/lib/python3.*")))
    topics = next((os.path.join(r, "pydoc_data", "topics.py") for r in roots
                   if os.path.exists(os.path.join(r, "pydoc_data", "topics.py"))), None)
    cjk_dir = next((os.path.join(r, "test", "cjkencodings") for r in roots
                    if os.path.isdir(os.path.join(r, "test", "cjkencodings"))), None)
    if topics is None or cjk_dir is None:
        sys.exit("corpus.py: needs CPython's pydoc_data/topics.py and test/cjkencodings")
    parts = [open(topics, encoding="utf-8").read()]
    gpl = "/usr/share/common-licenses/GPL-3"
    if os.path.exists(gpl):
        parts.append(open(gpl, encoding="utf-8").read())
    for path in sorted(glob.glob(os.path.join(cjk_dir, "*-utf8.txt"))):
        parts.append(open(path, encoding="utf-8", errors="replace").read())
    return parts


def faker_texts():
    from faker import Faker

    parts = []
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(20261127)
        chunks, size = [], 0
        while size < PER_LOCALE:
            line = " ".join([
                fake.name(), "—", fake.address().replace("\n", ", "), "|",
                fake.company(), fake.emoji(), fake.paragraph(nb_sentences=3),
            ])
            chunks.append(line)
            size += len(line.encode())
        parts.append("\n".join(chunks))
    return parts


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    text = "\n".join(stdlib_texts() + faker_texts()) + "\n"
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{sys.argv[1]}: {len(text.encode()) / 1e6:.2f} MB, {text.count(chr(10))} lines")


if __name__ == "__main__":
    main()
