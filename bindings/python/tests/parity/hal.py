"""Drivers, devices, element types, buffers and DeviceArray (upstream's
hal_test and array-interop scenarios)."""
import numpy as np

import iree.runtime as rt

print(sorted(d for d in rt.query_available_drivers() if d.startswith("local")))
print(rt.HalDriver.query() == rt.query_available_drivers())
driver = rt.get_driver("local-sync")
print(type(driver).__name__, rt.get_driver("local-sync://") is not None)
device = driver.create_default_device()
print(type(device).__name__, repr(device))
print(rt.get_device("local-task") is rt.get_device("local-task"))
try:
    rt.get_driver("no-such-driver")
except ValueError:
    print("unknown driver: ValueError")

ET = rt.HalElementType
print(ET.FLOAT_32, repr(ET.SINT_8), int(ET.FLOAT_32), int(ET.BFLOAT_16), int(ET.BOOL_8))
print(ET.map_to_dtype(ET.FLOAT_16), ET.map_to_dtype(ET.SINT_64), ET.map_to_dtype(ET.UINT_8))
print(ET.is_byte_aligned(ET.INT_4), ET.is_byte_aligned(ET.FLOAT_32))
print(ET.dense_byte_count(ET.FLOAT_64), ET.dense_byte_count(ET.INT_8))
print(rt.MemoryType.DEVICE_LOCAL, int(rt.MemoryType.HOST_LOCAL))
print(rt.MemoryType.DEVICE_LOCAL | rt.MemoryType.HOST_VISIBLE)
print(rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING, int(rt.BufferUsage.DEFAULT))
print(rt.Linkage.EXPORT, rt.MemoryAccess.ALL)

allocator = device.allocator
buf = allocator.allocate_buffer(
    memory_type=rt.MemoryType.DEVICE_LOCAL | rt.MemoryType.HOST_VISIBLE,
    allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
    allocation_size=13,
)
print(type(buf).__name__, buf.byte_length())
print(buf.memory_type() & int(rt.MemoryType.HOST_VISIBLE) != 0)
for dt, et in [
    (np.int8, ET.SINT_8), (np.int16, ET.SINT_16), (np.int32, ET.SINT_32),
    (np.int64, ET.SINT_64), (np.uint8, ET.UINT_8), (np.uint16, ET.UINT_16),
    (np.uint32, ET.UINT_32), (np.uint64, ET.UINT_64), (np.float16, ET.FLOAT_16),
    (np.float32, ET.FLOAT_32), (np.float64, ET.FLOAT_64),
]:
    ary = np.asarray([1, 2, 3, 4], dtype=dt)
    bv = allocator.allocate_buffer_copy(
        memory_type=rt.MemoryType.DEVICE_LOCAL,
        allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
        device=device,
        buffer=ary,
        element_type=et,
    )
    back = rt.DeviceArray(device, bv, override_dtype=dt, implicit_host_transfer=True)
    print(np.dtype(dt).name, bv.shape, bv.byte_length, bv.element_type == et, np.array_equal(ary, back.to_host()), back.dtype)

bv = allocator.allocate_buffer_copy(
    memory_type=rt.MemoryType.DEVICE_LOCAL,
    allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
    device=device,
    buffer=np.arange(6, dtype=np.float32).reshape(2, 3),
    element_type=ET.FLOAT_32,
)
print(bv.shape, bv.get_buffer().byte_length(), bv == bv, bv.ref == bv.ref)
arr = rt.DeviceArray(device, bv)
print(repr(arr), arr.shape, arr.dtype, arr.is_host_accessible)
try:
    np.asarray(arr)
except ValueError:
    print("implicit transfer refused")
print(arr.to_host(), arr.is_host_accessible)
implicit = rt.DeviceArray(device, bv, implicit_host_transfer=True)
print(np.asarray(implicit).sum(), (implicit * 2).tolist(), np.shape(implicit), implicit.astype(np.int32))
print(implicit[1], list(iter(implicit))[0], implicit.reshape(3, 2).tolist())
d = rt.asdevicearray(device, [[1, 2], [3, 4]], dtype=np.int32, implicit_host_transfer=True)
print(type(d).__name__, d.shape, d.dtype, np.asarray(d).tolist())
mapped = bv.map()
print(type(mapped).__name__, mapped.asarray(bv.shape, np.dtype(np.float32)).tolist(), mapped.asarray([6], np.dtype("float32")).tolist())
print(ET.map_to_dtype(bv.element_type))
