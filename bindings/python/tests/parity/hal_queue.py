"""Allocators, semaphores and fences with deadlines, queue operations and
command buffers (upstream's hal_test scenarios)."""
import threading
import time

import numpy as np

import iree.runtime as rt

device = rt.get_device("local-task")
allocator = device.allocator
MT, BU = rt.MemoryType, rt.BufferUsage

print(rt.BufferCompatibility.IMPORTABLE | rt.BufferCompatibility.EXPORTABLE, rt.BufferCompatibility.EXPORTABLE & rt.BufferCompatibility.EXPORTABLE)
print(rt.MemoryAccess.READ | rt.MemoryAccess.WRITE, rt.MemoryAccess.ALL & rt.MemoryAccess.READ, rt.MemoryType.OPTIMAL & rt.MemoryType.OPTIMAL)
print(rt.HalElementType.is_byte_aligned(rt.HalElementType.INT_8), rt.HalElementType.dense_byte_count(rt.HalElementType.INT_8))

allocator.trim()
device.begin_profiling()
device.flush_profiling()
device.end_profiling()
for mode in ["queue", "SOMETHING THAT DOESN'T EXIST"]:
    try:
        device.begin_profiling(mode=mode)
        print("no error")
    except ValueError:
        print("ValueError")

stats = allocator.statistics
print(allocator.has_statistics, sorted(stats))
print("HOST_LOCAL" in allocator.formatted_statistics)
compat = allocator.query_buffer_compatibility(
    memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, intended_usage=BU.DEFAULT, allocation_size=1024
)
print(bool(compat & int(rt.BufferCompatibility.ALLOCATABLE)), bool(compat & int(rt.BufferCompatibility.IMPORTABLE)))

buffer = allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=13)
print(type(buffer).__name__, buffer.byte_length(), type(buffer.map()).__name__)
bv = rt.HalBufferView(buffer, (1, 2), rt.HalElementType.INT_16)
print(bv.shape, bv.byte_length)
staging = allocator.allocate_host_staging_buffer_copy(device, np.int32(7))
print(type(staging).__name__, staging.byte_length(), staging.map().asarray([1], np.dtype(np.int32)).tolist())

# Semaphores and fences: waits return whether the value was reached.
sem = device.create_semaphore(0)
print(sem.wait(1, deadline=0))
sem.signal(1)
print(sem.wait(1, deadline=0), sem.wait(1, timeout=0))
failed = device.create_semaphore(0)
failed.fail("TEST FAILURE")
try:
    failed.wait(1, deadline=0)
except RuntimeError as e:
    print("RuntimeError", "TEST FAILURE" in str(e), str(e).startswith("synchronous semaphore failure"))
fence = rt.HalFence.create_at(device.create_semaphore(0), 1)
print(fence.wait(deadline=0))
fence.signal()
print(fence.wait(deadline=0), fence.wait())
fence = rt.HalFence.create_at(device.create_semaphore(0), 1)
fence.fail("TEST FAILURE")
try:
    fence.wait(deadline=0)
except RuntimeError as e:
    print("RuntimeError", "TEST FAILURE" in str(e), str(e).startswith("synchronous fence failure"))
# A failure from another thread wakes a waiter.
sem = device.create_semaphore(0)
errors = []


def waiter():
    try:
        sem.wait(1)
    except RuntimeError as e:
        errors.append(e)


t = threading.Thread(target=waiter)
t.start()
time.sleep(0.1)
sem.fail("TEST FAILURE")
t.join()
print(len(errors), "TEST FAILURE" in str(errors[0]))

# Queue allocations, with semaphore lists and with fences.
sem = device.create_semaphore(0)
buf = device.queue_alloca(1024, wait_semaphores=[(sem, 0)], signal_semaphores=[(sem, 1)])
print(type(buf).__name__, buf.byte_length())
device.queue_dealloca(buf, wait_semaphores=[(sem, 1)], signal_semaphores=[])
sem = device.create_semaphore(0)
f0, f1, f2 = rt.HalFence(1), rt.HalFence(1), rt.HalFence(2)
f0.insert(sem, 0)
f1.insert(sem, 1)
f2.insert(sem, 2)
buf = device.queue_alloca(1024, wait_semaphores=f0, signal_semaphores=f1)
device.queue_dealloca(buf, wait_semaphores=f1, signal_semaphores=f2)
print(f2.wait(), sem.query())

# Queue copies.
original = np.zeros([3, 4], dtype=np.int32) + 2
source = allocator.allocate_buffer_copy(
    memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, device=device, buffer=original,
    element_type=rt.HalElementType.SINT_32,
).get_buffer()
target = allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=source.byte_length())
sem = device.create_semaphore(0)
device.queue_copy(source, target, wait_semaphores=rt.HalFence.create_at(sem, 0), signal_semaphores=rt.HalFence.create_at(sem, 1))
rt.HalFence.create_at(sem, 1).wait()
print(target.map().asarray(original.shape, original.dtype).tolist())
small = allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=12)
big = allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=13)
try:
    device.queue_copy(big, small, wait_semaphores=rt.HalFence.create_at(sem, 1), signal_semaphores=rt.HalFence.create_at(sem, 2))
except ValueError as e:
    print("ValueError", "length must be less than" in str(e))

# Command buffers.
cb = rt.HalCommandBuffer(device)
try:
    cb.begin()
except RuntimeError as e:
    print("RuntimeError", "FAILED_PRECONDITION" in str(e))
cb = rt.HalCommandBuffer(device, begin=False)
cb.begin()
cb = rt.HalCommandBuffer(device)
b1 = allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=13)
b2 = allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=13)
cb.copy(b1, b2, end=True)
try:
    cb.end()
except RuntimeError as e:
    print("RuntimeError", "FAILED_PRECONDITION" in str(e))
cb = rt.HalCommandBuffer(device)
filled = allocator.allocate_buffer(memory_type=MT.DEVICE_LOCAL, allowed_usage=BU.DEFAULT, allocation_size=12)
cb.fill(filled, np.int32(7), 0, 12, end=True)
sem = device.create_semaphore(0)
device.queue_execute(cb, wait_semaphores=[(sem, 0)], signal_semaphores=[(sem, 1)])
rt.HalFence.create_at(sem, 1).wait()
print(filled.map().asarray([3], np.dtype(np.int32)).tolist())
cb = rt.HalCommandBuffer(device)
cb.copy(filled, b1, 4, 0, 8)
cb.end()
device.queue_execute(cb, wait_semaphores=rt.HalFence.create_at(sem, 1), signal_semaphores=rt.HalFence.create_at(sem, 2))
rt.HalFence.create_at(sem, 2).wait()
print(b1.map().asarray([2], np.dtype(np.int32)).tolist())
