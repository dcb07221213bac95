"""A sharded program through `iree_rust.runtime` as 2 MPI ranks.

Each rank is a Python process started by `mpirun -n 2`; it runs
`testdata/collectives/collectives.vmfb` (compiled `flow.collective.*`
programs) on `local-task` the way upstream's `run_rank.py` does (driver,
`create_device(device_id)`, `Config(device=...)`, `load_vm_module`). Once
with mpi4py imported first (our MPI provider must reuse the MPI it
initialised) and once without (our runtime initialises MPI itself).
Skipped without `mpirun`; the mpi4py case also without mpi4py.
`cargo xtask upstream-collectives-tests` runs upstream's own tests.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import testdata as _testdata

RANK_SCRIPT = r"""
import sys
if sys.argv[1] == "mpi4py":
    from mpi4py import MPI  # initialises MPI before our runtime loads
import numpy as np
import iree_rust.runtime as rt

module_path, out_dir = sys.argv[2], sys.argv[3]
driver = rt.get_driver("local-task")
infos = driver.query_available_devices()
device = driver.create_device(infos[0]["device_id"])
config = rt.Config(device=device)
with open(module_path, "rb") as f:
    vm_module = rt.VmModule.copy_buffer(config.vm_instance, f.read())
bound = rt.load_vm_module(vm_module, config)
rank, count = bound.rank_and_count()
rank, count = int(rank), int(count)
if sys.argv[1] == "mpi4py":
    assert (rank, count) == (MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size())
x = np.array([1, 2, 3, 4], dtype=np.float32) * (10 ** rank)
y = bound.all_reduce_sum_f32(x)
np.save(f"{out_dir}/rank{rank}.npy", np.asarray(y))
with open(f"{out_dir}/count{rank}", "w") as f:
    f.write(str(count))
"""


def _mpirun():
    return shutil.which("mpirun")


def _run_two_ranks(tmp_path, mode):
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT)
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    module = _testdata("collectives", "collectives.vmfb")
    proc = subprocess.run(
        [_mpirun(), "--oversubscribe", "-n", "2", sys.executable, str(script),
         mode, module, str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Rank r adds r to its input (1..4 scaled by 10**r), then all ranks sum:
    # [1,2,3,4] + [11,21,31,41].
    expected = np.array([12, 23, 34, 45], dtype=np.float32)
    for rank in range(2):
        np.testing.assert_array_equal(np.load(tmp_path / f"rank{rank}.npy"), expected)
        assert (tmp_path / f"count{rank}").read_text() == "2"


@pytest.mark.skipif(_mpirun() is None, reason="mpirun not found (install Open MPI)")
def test_two_ranks_with_mpi4py_first(tmp_path):
    pytest.importorskip("mpi4py")
    _run_two_ranks(tmp_path, "mpi4py")


@pytest.mark.skipif(_mpirun() is None, reason="mpirun not found (install Open MPI)")
def test_two_ranks_runtime_initialises_mpi(tmp_path):
    _run_two_ranks(tmp_path, "plain")
