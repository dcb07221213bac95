"""numpy arrays through parameter indices and .irpa archives (upstream's
io_runtime_test scenarios for iree.runtime.io)."""
import os
import tempfile

import numpy as np

import iree.runtime as rt

index = rt.ParameterIndex()
a = np.arange(12, dtype=np.float32).reshape(3, 4)
b = np.array([[1, -2], [3, -4]], dtype=np.int16)
rt.parameter_index_add_numpy_ndarray(index, "a", a)
rt.parameter_index_add_numpy_ndarray(index, "b", b)
for key, entry in index.items():
    print(key, entry.length, entry.metadata.decode())
    back = rt.parameter_index_entry_as_numpy_ndarray(entry)
    print(back.dtype, back.shape, back.tolist())
    print(rt.parameter_index_entry_as_numpy_flat_ndarray(entry)[:4].tolist())

splat = rt.SplatValue(np.array(2.5, dtype=np.float32), [4, 8])
print(repr(splat), splat.total_length)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "out.irpa")
    rt.save_archive_file({"x": np.arange(6, dtype=np.int32), "s": splat}, path)
    loaded = rt.ParameterIndex()
    loaded.load(path)
    for key, entry in loaded.items():
        print(key, entry.length, entry.is_file, entry.is_splat)
        flat = rt.parameter_index_entry_as_numpy_flat_ndarray(entry)
        print(flat.view(np.int32 if key == "x" else np.float32).tolist())
    copy = index.create_archive_file(os.path.join(d, "copy.irpa"))
    print(type(copy).__name__, len(copy), [k for k, _ in copy.items()])
    target = rt.ParameterIndex()
    returned = index.create_archive_file(os.path.join(d, "copy2.irpa"), target_index=target)
    print(len(target))
