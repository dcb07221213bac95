"""Array layouts in calls: empty, 1x1, transposed and Fortran-ordered
inputs, and a large array, through a dynamic-shape function."""
import os

import numpy as np

import iree.runtime as rt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
m = rt.load_vm_flatbuffer_file(os.path.join(DATA, "dtypes.vmfb"), driver="local-task")
r = m.abs_dynamic(np.zeros((0, 3), np.float32))
print(repr(r), r.to_host().shape)
print(m.abs_dynamic(np.full((1, 1), -7, np.float32)).to_host())
print(m.abs_dynamic(np.arange(-6, 6, dtype=np.float32).reshape(3, 4).T).to_host())
print(m.abs_dynamic(np.asfortranarray(np.arange(-6, 6, dtype=np.float32).reshape(3, 4))).to_host())
big = np.random.RandomState(0).randn(512, 1024).astype(np.float32)
out = m.abs_dynamic(big)
print(out.shape, np.array_equal(out.to_host(), np.abs(big)))
