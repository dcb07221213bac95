#!/usr/bin/env bash
# Builds the `iree_rust.runtime` wheel into its own virtual environment
# (target/python-venv, pinned tools) and runs the pytest suite against it.
# Needs python3 (>= 3.9, with venv) and PyPI; the build needs only cargo.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check \
    maturin==1.16.0 numpy==2.4.6 pytest==8.4.2 ml_dtypes==0.6.0
# mpi4py (for tests/test_collectives.py's mpi4py-first case) builds against
# the installed MPI with mpicc; without mpicc, or if it does not build, that
# case is skipped.
if command -v mpicc >/dev/null 2>&1; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check mpi4py==4.1.2 ||
        echo "note: mpi4py did not install; its collectives test is skipped" >&2
fi
# The build runs in this workspace's target/. By default it uses the dev
# profile, whose dependencies `cargo build`/`cargo test` already built (a
# plain `pip install ./bindings/python` builds release, as benchmarks want:
# IREE_PY_PROFILE=release selects that here). maturin's build hooks look
# for the `maturin` executable on PATH.
export PATH="$PWD/$venv/bin:$PATH"
export MATURIN_PEP517_ARGS="--profile ${IREE_PY_PROFILE:-dev}"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
    --no-build-isolation --force-reinstall --no-deps ./bindings/python
cd bindings/python
exec "../../$venv/bin/python" -m pytest -q -rs -p no:cacheprovider tests "$@"
