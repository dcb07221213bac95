"""Semaphores, fences, and an async (coarse-fences) function called with
explicit fences through VmContext.invoke."""
import os

import numpy as np

import iree.runtime as rt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")

config = rt.Config("local-task")
device = config.device
sem = device.create_semaphore(0)
print(type(sem).__name__, sem.query())
sem.signal(2)
print(sem.query())
sem.wait(1)
sem.wait(2, timeout=1000)
f = rt.HalFence.create_at(sem, 3)
print(type(f).__name__, f.timepoint_count)
g = rt.HalFence(2)
print(g.timepoint_count)
g.insert(device.create_semaphore(0), 1)
g.extend(f)
print(g.timepoint_count)
j = rt.HalFence.join([f, g])
print(j.timepoint_count)
f.signal()
print(sem.query())
f.wait()
other = device.create_semaphore(5)
bad = rt.HalFence.create_at(other, 6)
bad.fail("nope")
try:
    other.query()
    print("no error")
except Exception as e:
    print("failed semaphore:", type(e).__name__)

# An async function, by hand: wait fence (already reached), signal fence.
m = rt.VmModule.mmap(config.vm_instance, os.path.join(DATA, "async_mul.vmfb"))
ctx = rt.VmContext(config.vm_instance, modules=[config.default_vm_modules[0], m])
fn = m.lookup_function("mul4")
print(repr(fn))
timeline = device.create_semaphore(0)
args = rt.VmVariantList(4)
for x in (np.array([1, 2, 3, 4], np.float32), np.array([2, 2, 2, 2], np.float32)):
    args.push_ref(device.allocator.allocate_buffer_copy(
        memory_type=rt.MemoryType.DEVICE_LOCAL,
        allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
        device=device,
        buffer=x,
        element_type=rt.HalElementType.FLOAT_32,
    ).ref)
args.push_ref(rt.HalFence.create_at(timeline, 0).ref)
done = rt.HalFence.create_at(timeline, 1)
args.push_ref(done.ref)
results = rt.VmVariantList(1)
ctx.invoke(fn, args, results)
done.wait()
print(timeline.query())
out = results.get_as_object(0, rt.HalBufferView)
print(rt.DeviceArray(device, out, implicit_host_transfer=True).to_host())

