"""A program written for upstream's `iree.runtime`.

tests/test_user_program.py runs it unchanged but for the import line, with
`iree_rust.runtime`, and compares its output with upstream's recording
(user_program.expected.txt).
"""

import os

import numpy as np

import iree.runtime as rt

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
MUL_VMFB = os.path.join(REPO, "testdata", "llvm-cpu", "expected_output.vmfb")
PYMOD_VMFB = os.path.join(HERE, "..", "tests", "data", "pymod_user.vmfb")
PARAMS_VMFB = os.path.join(REPO, "testdata", "params", "floats.vmfb")
PARAMS_IRPA = os.path.join(REPO, "testdata", "params", "floats.irpa")

a = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
b = np.array([5.0, 6.0, 7.0, 8.0], dtype=np.float32)

# 1. Config + SystemContext + an mmap'd module on local-task.
print("== SystemContext on local-task")
config = rt.Config("local-task")
ctx = rt.SystemContext(config=config)
vm_module = rt.VmModule.mmap(config.vm_instance, MUL_VMFB)
ctx.add_vm_module(vm_module)
print("module:", vm_module.name)
print("functions:", sorted(vm_module.function_names))
print("loaded:", sorted(ctx.modules.keys()))
result = ctx.modules.module.mul(a, b)
print("mul type:", type(result).__name__)
print("mul repr:", repr(result))
print("mul shape/dtype:", result.shape, result.dtype)
print("mul:", result.to_host())
print("mul as array:", np.asarray(result) * 2)
i = ctx.modules.module["iadd"](
    np.array([[1, 2], [3, 4]], dtype=np.int32), np.full((2, 2), 10, dtype=np.int32)
)
print("iadd:", i.to_host().tolist(), i.dtype)
h, f = ctx.modules.module.pair(np.array([0.5, 1.5, -2.0], dtype=np.float16))
print("pair:", h.to_host(), h.dtype, f.to_host(), f.dtype)
s = ctx.modules.module.scalar(21, 1.5)
print("scalar:", s)

# 2. The one-liner on local-sync.
print("== load_vm_flatbuffer_file on local-sync")
m = rt.load_vm_flatbuffer_file(MUL_VMFB, driver="local-sync")
print("one-liner:", m.mul(a, a).to_host())

# 3. A bad-shape call raises; the context stays usable.
print("== errors")
try:
    m.mul(np.zeros(3, dtype=np.float32), np.zeros(3, dtype=np.float32))
    print("no error")
except Exception as e:
    print("bad shape raised:", type(e).__name__)
try:
    m.mul(a)
    print("no error")
except Exception as e:
    print("missing argument raised:", type(e).__name__)
try:
    m.no_such_function
    print("no error")
except AttributeError as e:
    print("unknown function raised:", type(e).__name__)
print("good call after errors:", m.mul(a, b).to_host())

# 4. A module defined in Python, imported by compiled code.
print("== PyModuleInterface")
calls = []


class PyMod:
    def __init__(self, iface):
        self.count = 0

    def add_one(self, x):
        self.count += 1
        calls.append(("add_one", x))
        return x + 1

    def scale(self, x, k):
        calls.append(("scale", x, k))
        return x * k


iface = rt.PyModuleInterface("pymod", PyMod)
iface.export("add_one", "0i_i", PyMod.add_one)
iface.export("scale", "0ff_f", PyMod.scale)
pymod = iface.create()
config2 = rt.Config("local-sync")
ctx2 = rt.SystemContext(config=config2)
ctx2.add_vm_module(pymod)
user = rt.VmModule.mmap(config2.vm_instance, PYMOD_VMFB)
ctx2.add_vm_module(user)
print("twice_plus_one(20):", ctx2.modules.module.twice_plus_one(20))
print("scaled(2.5):", ctx2.modules.module.scaled(2.5))
print("python saw:", calls)

# 5. Parameters from an .irpa through ParameterIndex.
print("== parameters")
index = rt.ParameterIndex()
index.load(PARAMS_IRPA)
print("parameters:", len(index), sorted(k for k, _ in index.items()))
provider = index.create_provider(scope="model")
config3 = rt.Config("local-task")
ctx3 = rt.SystemContext(config=config3)
ctx3.add_vm_module(rt.create_io_parameters_module(config3.vm_instance, provider))
ctx3.add_vm_module(rt.VmModule.mmap(config3.vm_instance, PARAMS_VMFB))
print("add:", ctx3.modules.module.add(np.zeros(4, dtype=np.float32)).to_host())
print("halfs:", ctx3.modules.module.halfs().to_host())
print("done")
