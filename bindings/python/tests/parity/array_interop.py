"""DeviceArray and asdevicearray (upstream's array_interop_test
scenarios)."""
import copy
import gc
import pickle

import ml_dtypes  # noqa: F401 (registers bfloat16 and the float8 dtypes)
import numpy as np

import iree.runtime as rt

device = rt.get_device("local-task")
allocator = device.allocator

init = np.zeros([3, 4], dtype=np.int32) + 2
ary = rt.asdevicearray(device, init)
allocator = None
gc.collect()
ary = None
gc.collect()
allocator = device.allocator

ary = rt.asdevicearray(device, init)
print(ary.shape, ary.dtype, ary.dtype == np.int32, repr(ary), ary.is_host_accessible)
print(ary.to_host().tolist(), ary.is_host_accessible)

bv = allocator.allocate_buffer_copy(
    memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT, device=device,
    buffer=init, element_type=rt.HalElementType.SINT_32,
)
over = rt.DeviceArray(device, bv, override_dtype=np.float32)
cp = over.to_host()
print(cp.dtype, cp.tolist(), over.is_host_accessible)

ary = rt.asdevicearray(device, init)
for op in (lambda: np.asarray(ary), lambda: ary + 1, lambda: np.add(ary, 1)):
    try:
        op()
        print("no error")
    except ValueError:
        print("ValueError")

ary = rt.asdevicearray(device, init, implicit_host_transfer=True)
print((ary + init).tolist(), ary.is_host_accessible)
f32 = rt.asdevicearray(device, np.zeros([3, 4], np.float32) + 2, implicit_host_transfer=True)
print(bool(np.isfinite(f32).all()))
seq = rt.asdevicearray(device, np.array([0, 1, 2, 3, 4, 5]), implicit_host_transfer=True)
print([int(v) for v in seq], [int(seq[i]) for i in range(6)], seq.dtype)
print(f32.reshape((4, 3)).shape, np.reshape(f32, (2, 2, 3)).shape)
c = copy.deepcopy(f32)
print(c is not f32, type(c).__name__, np.array_equal(f32.to_host(), c))
p = pickle.loads(pickle.dumps(rt.asdevicearray(device, np.arange(12, dtype=np.float32).reshape(3, 4), implicit_host_transfer=True)))
print(type(p).__name__, p.tolist())
i32 = rt.asdevicearray(device, init, implicit_host_transfer=True)
print(i32.astype(np.int32, copy=False) is i32, i32.astype(np.int32) is i32, i32.astype(np.float32).dtype)

b = np.zeros([3, 4], dtype=np.bool_)
b[1] = True
bary = rt.asdevicearray(device, b)
print(repr(bary), bary.to_host().tolist())
bf = np.arange(12, dtype=np.dtype("bfloat16")).reshape(3, 4)
bfa = rt.asdevicearray(device, bf)
print(bfa.dtype, bfa.to_host().dtype, np.array_equal(bfa.to_host(), bf))
for et, name in [
    (rt.HalElementType.FLOAT_8_E5M2, "float8_e5m2"),
    (rt.HalElementType.FLOAT_8_E4M3_FN, "float8_e4m3fn"),
    (rt.HalElementType.FLOAT_8_E5M2_FNUZ, "float8_e5m2fnuz"),
    (rt.HalElementType.FLOAT_8_E4M3_FNUZ, "float8_e4m3fnuz"),
    (rt.HalElementType.FLOAT_8_E8M0_FNU, "float8_e8m0fnu"),
]:
    x = np.arange(12, dtype=np.dtype(name)).reshape(3, 4)
    a = rt.asdevicearray(device, x)
    print(name, a.dtype, a.to_host().dtype, np.array_equal(a.to_host().view(np.uint8), x.view(np.uint8)), a._buffer_view.element_type == int(et))
print(rt.asdevicearray(device, np.arange(12, dtype=np.float32).reshape(3, 4))._copy_to_host().tolist())
