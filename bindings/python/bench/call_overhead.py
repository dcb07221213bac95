"""10k calls of a tiny function from a Python loop.

    python call_overhead.py iree.runtime        # upstream
    python call_overhead.py iree_rust.runtime   # ours

Prints the best of --repeat runs of --calls calls, per function, for a
scalar function (add_i32: i32, i32 -> i32) and a tensor one (mul4:
tensor<4xf32> x 2 -> tensor<4xf32>, results read back with to_host()).
"""

import argparse
import importlib
import os
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
VMFB = os.path.join(HERE, "..", "tests", "data", "tiny.vmfb")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runtime", nargs="?", default="iree_rust.runtime")
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--driver", default="local-sync")
    args = parser.parse_args()
    rt = importlib.import_module(args.runtime)
    module = rt.load_vm_flatbuffer_file(VMFB, driver=args.driver)
    add = module.add_i32
    mul4 = module.mul4
    a = np.arange(4, dtype=np.float32)
    b = np.full(4, 2.0, dtype=np.float32)

    def scalar_loop(n):
        x = 0
        for _ in range(n):
            x = add(x, 1)
        assert x == n, x

    def tensor_loop(n):
        for _ in range(n):
            r = mul4(a, b).to_host()
        assert r.tolist() == [0.0, 2.0, 4.0, 6.0], r

    for name, loop in [("add_i32", scalar_loop), ("mul4", tensor_loop)]:
        loop(100)  # warm up
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            loop(args.calls)
            best = min(best, time.perf_counter() - start)
        print(
            f"{args.runtime} {args.driver} {name}: {args.calls} calls in "
            f"{best * 1e3:.1f} ms ({best / args.calls * 1e6:.2f} us/call)"
        )


if __name__ == "__main__":
    main()
