"""iree_rust.runtime on a CUDA device (run by `xtask gpu-check` on the GPU machine).

usage: python_check.py KERNELS_VMFB

KERNELS_VMFB is testdata/cuda/kernels.mlir compiled for CUDA: `mul`
(4xf32 elementwise), `dyn_add` (dynamic shapes) and `matmul` (64x64). Each
result is checked against numpy; every line printed is one check. Exits 1 on
the first failure.
"""

import sys

import numpy as np

import iree_rust.runtime as rt


def check(what, ok):
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        sys.exit(1)


def main(path):
    driver = rt.get_driver("cuda")
    devices = driver.query_available_devices()
    check(f"cuda devices: {[d['name'] for d in devices]}", len(devices) >= 1)

    config = rt.Config("cuda")
    ctx = rt.SystemContext(config=config)
    with open(path, "rb") as f:
        module = rt.VmModule.copy_buffer(ctx.instance, f.read())
    ctx.add_vm_module(module)
    kernels = ctx.modules.module

    a = np.array([1, 2, 3, 4], dtype=np.float32)
    b = np.array([5, 6, 7, 8], dtype=np.float32)
    r = kernels["mul"](a, b).to_host()
    check(f"mul: {r.tolist()}", np.array_equal(r, a * b))

    x = np.arange(1000, dtype=np.float32)
    r = kernels["dyn_add"](x, x).to_host()
    check("dyn_add over 1000 elements", np.array_equal(r, x + x))

    rng = np.random.default_rng(20261126)
    m = rng.standard_normal((64, 64)).astype(np.float32)
    n = rng.standard_normal((64, 64)).astype(np.float32)
    r = kernels["matmul"](m, n).to_host()
    err = float(np.max(np.abs(r - m @ n)))
    check(f"matmul 64x64: max abs error {err:.2e}", err < 1e-3)

    # Device arrays: upload once, call twice, read back.
    device = ctx.config.device
    da = rt.asdevicearray(device, a)
    r = kernels["mul"](da, da).to_host()
    check("device array argument", np.array_equal(r, a * a))

    # Many calls in a row (queue ordering, fences, buffer reuse).
    acc = np.zeros(4, dtype=np.float32)
    ones = np.ones(4, dtype=np.float32)
    for _ in range(200):
        acc = kernels["dyn_add"](acc, ones).to_host()
    check(f"200 chained calls: {acc.tolist()}", np.array_equal(acc, 200 * ones))


if __name__ == "__main__":
    main(sys.argv[1])
