"""Config, SystemContext, BoundModule and the load_vm_* helpers
(upstream's system_api_test scenarios)."""
import os

import numpy as np

import iree.runtime as rt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
TINY = os.path.join(DATA, "tiny.vmfb")
DTYPES = os.path.join(DATA, "dtypes.vmfb")

try:
    rt.Config("local-task", device=rt.get_device("local-task"))
except ValueError as e:
    print("ValueError:", e)
config = rt.Config(device=rt.get_device("local-sync"))
print(repr(config.device), [m.name for m in config.default_vm_modules])
config = rt.Config("local-task")
print(repr(config.device), type(config.vm_instance).__name__)

ctx = rt.SystemContext(config=config)
print(ctx.is_dynamic, sorted(ctx.modules.keys()), ctx.instance is config.vm_instance)
print(type(ctx.vm_context).__name__, ctx.config is config)
m = rt.VmModule.mmap(config.vm_instance, TINY)
ctx.add_vm_module(m)
print(sorted(ctx.modules), repr(ctx.modules.module))
print(ctx.modules.module.add_i32(40, 2), ctx.modules["module"]["add_i32"](1, 1))
print(ctx.modules.module.add_i32 is ctx.modules.module.add_i32)
print(repr(ctx.modules.module.add_i32))
print(type(ctx.modules.module.add_i32.vm_function).__name__)
try:
    ctx.add_vm_module(m)
except ValueError as e:
    print("ValueError:", e)
try:
    ctx.modules.module.nope
except AttributeError as e:
    print("AttributeError:", e)
try:
    ctx.modules.module["nope"]
except KeyError as e:
    print("KeyError")
try:
    ctx.modules.nope
except AttributeError as e:
    print("AttributeError:", e)

static = rt.SystemContext(vm_modules=[rt.VmModule.mmap(config.vm_instance, DTYPES)], config=config)
print(static.is_dynamic, sorted(static.modules))
print(static.modules.module.add_i32(np.arange(4, dtype=np.int32), np.ones(4, dtype=np.int32)).to_host())

with open(TINY, "rb") as f:
    blob = f.read()
bm = rt.load_vm_flatbuffer(blob, driver="local-sync")
print(repr(bm), bm.name, type(bm.vm_module).__name__)
print(bm.add_i32(3, 4))
bm = rt.load_vm_flatbuffer(blob, backend="llvm-cpu")
print(bm.mul4(np.ones(4, np.float32), np.full(4, 3, np.float32)).to_host())
for kwargs in [{}, {"driver": "local-sync", "backend": "llvm-cpu"}]:
    try:
        rt.load_vm_flatbuffer(blob, **kwargs)
    except ValueError as e:
        print("ValueError:", e)
cb = []
bm = rt.load_vm_flatbuffer_file(TINY, driver="local-task", destroy_callback=lambda: cb.append(1))
print(bm.add_i32(1, 2))
a, b = rt.load_vm_modules(
    rt.VmModule.mmap(config.vm_instance, TINY), config=config
) + [None]
print(a.name, b)
one = rt.load_vm_module(rt.VmModule.mmap(config.vm_instance, DTYPES), config)
print(one.scalars(1, 2, 0.5, 4.0))

for v in [None, [1, 2], (1,), {"a": 1}, 3, 2.5, True, np.arange(3)]:
    n = rt.normalize_value(v)
    print(type(n).__name__, getattr(n, "dtype", None), n if not isinstance(n, np.ndarray) else n.tolist())
print(rt.TARGET_BACKEND_TO_DRIVER["llvm-cpu"])
