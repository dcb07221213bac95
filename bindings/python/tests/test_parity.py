"""Upstream parity: each script under tests/parity/ (and the must-show
examples/user_program.py) is written for upstream's `iree.runtime`; run
with `iree_rust.runtime` instead (the import line is the only change), it
must print exactly what upstream printed, as recorded next to it in
`<script>.expected.txt` with iree-base-runtime 3.13.0
(`python tests/record_upstream.py` re-records)."""

import glob
import os
import subprocess
import sys

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = sorted(glob.glob(os.path.join(TESTS, "parity", "*.py"))) + [
    os.path.abspath(os.path.join(TESTS, "..", "examples", "user_program.py"))
]

UPSTREAM_IMPORT = "import iree.runtime as rt\n"
OUR_IMPORT = "import iree_rust.runtime as rt\n"

# Runs a program with its import line swapped, as its own file.
RUNNER = """
import sys
path = sys.argv[1]
source = open(path).read()
assert source.count({upstream!r}) == 1, "one upstream import line"
source = source.replace({upstream!r}, {ours!r})
exec(compile(source, path, "exec"), {{"__name__": "__main__", "__file__": path}})
""".format(upstream=UPSTREAM_IMPORT, ours=OUR_IMPORT)


def run_with_ours(path):
    return subprocess.run(
        [sys.executable, "-W", "ignore::UserWarning", "-c", RUNNER, path],
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )


@pytest.mark.parametrize("program", PROGRAMS, ids=os.path.basename)
def test_prints_what_upstream_prints(program):
    run = run_with_ours(program)
    assert run.returncode == 0, run.stderr
    with open(os.path.splitext(program)[0] + ".expected.txt") as f:
        expected = f.read()
    assert run.stdout == expected
    # Nothing is reported at exit: no leaks, no unraisable errors.
    assert run.stderr == ""
