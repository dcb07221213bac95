"""Element types, shapes and scalars in and out of calls; argument errors."""
import os

import ml_dtypes
import numpy as np

import iree.runtime as rt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
m = rt.load_vm_flatbuffer_file(DATA + "/dtypes.vmfb", driver="local-sync")
for name, dt in [("f16", np.float16), ("bf16", ml_dtypes.bfloat16), ("f32", np.float32), ("f64", np.float64), ("i8", np.int8), ("i16", np.int16), ("i32", np.int32), ("i64", np.int64)]:
    a = np.array([1, 2, 3, -4], dtype=dt); r = getattr(m, "add_" + name)(a, a)
    h = r.to_host(); print(name, repr(r), h, h.dtype, r.dtype)
r = m.xor_i1(np.array([True, False, True, False]), np.array([True, True, False, False]))
print(repr(r), r.to_host(), r.dtype)
print(m.abs_dynamic(np.array([[-1, 2, -3], [4, -5, 6]], dtype=np.float32)).to_host())
print(m.scalars(2, 3, 1.5, 2.0))
print(m.nothing(np.zeros(4, np.float32)))
for bad in [lambda: m.add_f32(np.zeros(4, np.float64), np.zeros(4, np.float64)), lambda: m.scalars(1, 2, 3), lambda: m.add_i32(1, 2), lambda: m.scalars(np.zeros(2), 1, 1.0, 1.0)]:
    try: bad(); print("no error")
    except Exception as e: print(type(e).__name__)
print(m.add_f32(np.arange(8, dtype=np.float32)[::2], np.ones(4, np.float32)).to_host())
print(m.add_f32(m.add_f32(np.ones(4, np.float32), np.ones(4, np.float32)), np.ones(4, np.float32)).to_host())
print(np.asarray(m.add_f32(np.ones(4, np.float32), np.ones(4, np.float32)) + 1))
