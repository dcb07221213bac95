"""ParameterIndex, providers and the io_parameters module (upstream's
io_runtime_test scenarios)."""
import os

import numpy as np

import iree.runtime as rt

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = os.path.join(HERE, "..", "..", "..", "..", "testdata", "params")

index = rt.ParameterIndex()
print(len(index))
index.load(os.path.join(PARAMS, "floats.irpa"))
print(len(index))
for key, entry in index.items():
    print(key, entry.key, entry.length, entry.is_file, entry.is_splat)
print(index[0].key, index[len(index) - 1].key)

index2 = rt.ParameterIndex()
index2.load(os.path.join(PARAMS, "floats.safetensors"), mmap=False)
print(len(index2), sorted(k for k, _ in index2.items()))

# Parameters from Python: a buffer, a splat, and one from a file.
built = rt.ParameterIndex()
built.add_buffer("w_f32", np.array([10, 20, 30, 40], dtype=np.float32).tobytes())
built.add_splat("w_f16", np.array(1.5, dtype=np.float16), 16)
built.add_splat("w_big", np.array(0.25, dtype=np.float32), 128 * 128 * 4, metadata="big")
for key, entry in built.items():
    print(key, entry.length, entry.is_file, entry.is_splat, entry.metadata)
print(built[1].splat_pattern)


def run(index, scope):
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(rt.create_io_parameters_module(config.vm_instance, index.create_provider(scope=scope)))
    ctx.add_vm_module(rt.VmModule.mmap(config.vm_instance, os.path.join(PARAMS, "floats.vmfb")))
    m = ctx.modules.module
    print(m.add(np.ones(4, dtype=np.float32)).to_host())
    print(m.halfs().to_host())
    print(m.corner().to_host())
    print(m.matvec(np.ones(128, dtype=np.float32)).to_host()[:4])


run(index, "model")
run(built, "model")

# A missing scope fails at the call; the context stays usable.
config = rt.Config("local-task")
ctx = rt.SystemContext(config=config)
ctx.add_vm_module(rt.create_io_parameters_module(config.vm_instance, index.create_provider(scope="other")))
try:
    ctx.add_vm_module(rt.VmModule.mmap(config.vm_instance, os.path.join(PARAMS, "floats.vmfb")))
    print("no error")
except Exception as e:
    print("missing scope:", type(e).__name__)
print(sorted(ctx.modules))
try:
    rt.ParameterIndex().load(os.path.join(PARAMS, "nope.irpa"))
except Exception as e:
    print("missing file:", type(e).__name__)
