"""Per-call time of iree_rust.runtime against upstream's iree.runtime.

usage (from the repository root, in a venv holding both packages, such as
target/upstream-py/venv after `cargo xtask upstream-python-tests`):

    python bindings/python/benchmarks/per_call.py upstream
    python bindings/python/benchmarks/per_call.py ours

Run the two alternately a few times. Prints the median over 5 rounds of the
time per call of a tiny call (`mul` of two 4xf32 arrays) and of a call with
two 1 MiB f32 arrays, on local-sync, one thread.
"""

import sys
import time

import numpy as np

if sys.argv[1:] == ["upstream"]:
    import iree.runtime as rt
elif sys.argv[1:] == ["ours"]:
    import iree_rust.runtime as rt
else:
    sys.exit(__doc__)


def per_call_us(path, function, args, calls, device="local-sync"):
    config = rt.Config(device)
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(rt.VmModule.mmap(config.vm_instance, path))
    f = ctx.modules.module[function]
    for _ in range(50):
        f(*args)
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            f(*args)
        rounds.append((time.perf_counter() - start) / calls)
    return sorted(rounds)[2] * 1e6


small = np.array([1, 2, 3, 4], dtype=np.float32)
tiny = per_call_us("testdata/llvm-cpu/expected_output.vmfb", "mul", (small, small), 3000)
large = np.ones(262144, dtype=np.float32)
mib = per_call_us("testdata/llvm-cpu/dynamic_1d.vmfb", "add", (large, large), 200)
print(f"{sys.argv[1]}: tiny {tiny:.1f} us/call, 1 MiB arrays {mib:.1f} us/call")
