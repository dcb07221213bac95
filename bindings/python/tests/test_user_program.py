"""The must-show program: examples/user_program.py, written for upstream's
`iree.runtime`, run with `iree_rust.runtime` instead (its import line is the
only change) prints exactly what upstream printed
(examples/user_program.expected.txt, recorded with iree-base-runtime
3.13.0)."""

import os
import subprocess
import sys

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
PROGRAM = os.path.abspath(os.path.join(EXAMPLES, "user_program.py"))
EXPECTED = os.path.abspath(os.path.join(EXAMPLES, "user_program.expected.txt"))

UPSTREAM_IMPORT = "import iree.runtime as rt\n"
OUR_IMPORT = "import iree_rust.runtime as rt\n"

RUNNER = """
import sys
path = sys.argv[1]
source = open(path).read()
assert source.count({upstream!r}) == 1
source = source.replace({upstream!r}, {ours!r})
exec(compile(source, path, "exec"), {{"__name__": "__main__", "__file__": path}})
""".format(upstream=UPSTREAM_IMPORT, ours=OUR_IMPORT)


def test_user_program_prints_what_upstream_prints():
    run = subprocess.run(
        [sys.executable, "-c", RUNNER, PROGRAM],
        capture_output=True,
        text=True,
        timeout=300,
        cwd="/",
    )
    assert run.returncode == 0, run.stderr
    with open(EXPECTED) as f:
        expected = f.read()
    assert run.stdout == expected
    # Nothing is reported at exit (no leak reports, no unraisable errors).
    assert run.stderr == ""
