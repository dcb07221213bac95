"""Per-call time of iree_rust.runtime against upstream's iree.runtime, in one
alternating run.

usage (from the repository root, in a venv holding both packages, such as
target/upstream-py/venv after `cargo xtask upstream-python-tests`):

    python bindings/python/benchmarks/per_call.py [--rounds N]

Each round starts one process per package (the order alternating by round;
the two packages in one process disturb each other's allocator, so each
runs alone). A process times a tiny call (`mul` of two 4xf32 arrays, 3000
calls) and a call with two 1 MiB f32 arrays (200 calls), on local-sync, one
thread, after a warm-up. Prints the median over the rounds of the time per
call of each and the ratio ours/upstream.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

WORKLOADS = [
    # name, module, function, argument maker, calls, looked up per call
    ("tiny call", "testdata/llvm-cpu/expected_output.vmfb", "mul",
     lambda: (np.array([1, 2, 3, 4], dtype=np.float32),) * 2, 3000, False),
    # The idiom upstream's docs teach: `ctx.modules.module.fn(a, b)`, the
    # module and function found by attribute on every call.
    ("tiny call, ctx.modules.module.mul(a, b)", "testdata/llvm-cpu/expected_output.vmfb", "mul",
     lambda: (np.array([1, 2, 3, 4], dtype=np.float32),) * 2, 3000, True),
    ("1 MiB arrays", "testdata/llvm-cpu/dynamic_1d.vmfb", "add",
     lambda: (np.ones(262144, dtype=np.float32),) * 2, 200, False),
]


def measure(side):
    """Times every workload with one package; returns {name: us per call}."""
    if side == "upstream":
        import iree.runtime as rt
    else:
        import iree_rust.runtime as rt
    times = {}
    for name, path, function, make_args, calls, by_attribute in WORKLOADS:
        config = rt.Config("local-sync")
        ctx = rt.SystemContext(config=config)
        ctx.add_vm_module(rt.VmModule.mmap(config.vm_instance, path))
        args = make_args()
        if by_attribute:
            assert function == "mul"

            def call():
                return ctx.modules.module.mul(*args)
        else:
            f = ctx.modules.module[function]

            def call():
                return f(*args)
        for _ in range(50):
            call()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        times[name] = (time.perf_counter() - start) / calls * 1e6
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--side", choices=["upstream", "ours"], help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.side:
        print(json.dumps(measure(options.side)))
        return
    samples = {"upstream": [], "ours": []}
    for round_ in range(options.rounds):
        order = ["upstream", "ours"] if round_ % 2 == 0 else ["ours", "upstream"]
        for side in order:
            out = subprocess.run(
                [sys.executable, __file__, "--side", side],
                check=True, capture_output=True, text=True,
            ).stdout
            samples[side].append(json.loads(out))
    for name, *_ in WORKLOADS:
        up = statistics.median(s[name] for s in samples["upstream"])
        us = statistics.median(s[name] for s in samples["ours"])
        print(f"{name:<40} upstream {up:8.1f} us/call   ours {us:8.1f} us/call   ratio {us / up:.3f}")


if __name__ == "__main__":
    main()
