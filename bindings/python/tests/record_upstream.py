"""Re-records the expected output of the parity programs with upstream's
runtime: run it with the pinned upstream venv's python
(`.iree-venv/bin/python bindings/python/tests/record_upstream.py`)."""

import glob
import os
import subprocess
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = sorted(glob.glob(os.path.join(TESTS, "parity", "*.py"))) + [
    os.path.abspath(os.path.join(TESTS, "..", "examples", "user_program.py"))
]

for program in PROGRAMS:
    # Upstream's extension reports leaks on stderr at exit; only stdout is
    # recorded.
    run = subprocess.run(
        [sys.executable, "-W", "ignore::UserWarning", program],
        capture_output=True,
        text=True,
        cwd="/",
    )
    if run.returncode != 0:
        sys.exit(f"{program} failed:\n{run.stderr}")
    with open(os.path.splitext(program)[0] + ".expected.txt", "w") as f:
        f.write(run.stdout)
    print("recorded", os.path.relpath(program, TESTS))
