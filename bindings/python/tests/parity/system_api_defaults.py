"""Default configuration, device lists and caching, static/dynamic
contexts with a named module (upstream's system_api_test scenarios)."""
import os

import numpy as np

import iree.runtime as rt

VMFB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "arithmetic.vmfb")


def module():
    with open(VMFB, "rb") as f:
        return rt.VmModule.from_flatbuffer(rt.VmInstance(), f.read(), warn_if_copy=False)


try:
    rt.Config("nothere1,nothere2")
except ValueError as e:
    print("ValueError:", e)
config = rt.Config("nothere1,local-task")
print(repr(config.device))
print(rt.Config("nothere1,local-task").device is rt.Config("nothere1,local-task").device)

ctx = rt.SystemContext()
print(ctx.is_dynamic, "hal" in ctx.modules, ctx.modules.hal.name, repr(ctx.config.device))
static = rt.SystemContext(vm_modules=())
print(static.is_dynamic, "hal" in static.modules, static.modules.hal.name)

ctx.add_vm_module(module())
print(ctx.modules.arithmetic.name, repr(ctx.modules.arithmetic["simple_mul"]))
try:
    ctx.add_vm_module(module())
except ValueError as e:
    print("ValueError:", e)
f = ctx.modules.arithmetic["simple_mul"]
a = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
b = np.array([4.0, 5.0, 6.0, 7.0], dtype=np.float32)
r = f(a, b)
print(np.asarray(r), np.asarray(f(r, r)))

m = module()
arithmetic = rt.load_vm_module(m)
print("SIMPLE_MUL RESULTS:", arithmetic.simple_mul(a, b))
print(np.asarray(arithmetic.simple_mul(a, b)))
m2 = rt.load_vm_module(m)
print(np.asarray(m2.simple_mul(b, b)))
