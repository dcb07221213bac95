"""Legacy `iree.abi` JSON reflection: arguments cast to the declared
dtypes, results given the declared dtypes and structure."""
import os

import numpy as np

import iree.runtime as rt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
m = rt.load_vm_flatbuffer_file(os.path.join(DATA, "abi.vmfb"), driver="local-sync")
print(sorted(m.pick.vm_function.reflection))
for args in [
    ([True, False, True, False], [1, 2, 3, 4]),
    (np.array([1, 0, 1, 0], bool), np.arange(4, dtype=np.float64)),
    (np.array([1, 0, 1, 0], np.int32), np.arange(4, dtype=np.float32)),
]:
    r = m.pick(*args)
    print(type(r).__name__, [(type(x).__name__, x.to_host().tolist(), x.dtype) for x in r])
d = m.named(np.array([1.5, 2.5]), 21)
print(type(d).__name__, sorted(d), d["sum"].to_host(), d["sum"].dtype, d["k"])
p = m.plain([3, 4])
print(type(p).__name__, p.to_host(), p.dtype)
for bad in [lambda: m.pick(np.zeros(4, np.int8)), lambda: m.pick(a=1)]:
    try:
        bad()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
