"""Calls on a 4 MiB array: |x| of a 1024x1024 f32 array with the result
read back (`to_host()`), 50 calls after 3 warm-up calls.

    python large_array.py iree.runtime        # upstream
    python large_array.py iree_rust.runtime   # ours
"""

import importlib
import os
import sys
import time

import numpy as np

VMFB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "dtypes.vmfb")


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "iree_rust.runtime"
    rt = importlib.import_module(name)
    m = rt.load_vm_flatbuffer_file(VMFB, driver="local-task")
    x = np.random.RandomState(0).randn(1024, 1024).astype(np.float32)
    for _ in range(3):
        m.abs_dynamic(x).to_host()
    start = time.perf_counter()
    for _ in range(50):
        r = m.abs_dynamic(x).to_host()
    elapsed = (time.perf_counter() - start) / 50
    assert np.array_equal(r, np.abs(x))
    print(f"{name} local-task abs_dynamic 1024x1024 f32 + to_host: {elapsed * 1e3:.2f} ms/call")


if __name__ == "__main__":
    main()
