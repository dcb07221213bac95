"""Modules defined in Python (upstream's py_module_test scenarios), and a
Python module imported by compiled code with tensors."""
import gc
import os

import numpy as np

import iree.runtime as rt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
instance = rt.VmInstance()

# Life cycle.
iface = rt.PyModuleInterface("test1", lambda iface: None)
print(iface.initialized, iface.destroyed)
m = iface.create()
print(iface.initialized, type(m).__name__, m.name, m.function_names)
m = None
gc.collect()
print("destroyed:", iface.destroyed)

# One state per context.
calls = []


def ctor(iface):
    calls.append(iface)
    return None


iface = rt.PyModuleInterface("test1", ctor)
m = iface.create()
c1 = rt.VmContext(instance, modules=(m,))
c2 = rt.VmContext(instance, modules=(m,))
print("ctor calls:", len(calls), calls[0] is iface)
calls = None
c1 = c2 = m = None
gc.collect()
print("destroyed:", iface.destroyed)

# Void export with state.
messages = []


class Methods:
    def __init__(self, iface):
        self.iface = iface
        self.counter = 0

    def say_hello(self):
        messages.append(f"Hello! Your number is {self.counter}")
        self.counter += 1


iface = rt.PyModuleInterface("test1", Methods)
iface.export("say_hello", "0v", Methods.say_hello)
m = iface.create()
context = rt.VmContext(instance, modules=(m,))
f = m.lookup_function("say_hello")
context.invoke(f, rt.VmVariantList(0), rt.VmVariantList(0))
context.invoke(f, rt.VmVariantList(0), rt.VmVariantList(0))
print(messages)
context = m = f = None
gc.collect()
print("destroyed:", iface.destroyed)


# Python exceptions become errors of the call.
class Raises:
    def __init__(self, iface):
        pass

    def do_it(self):
        raise ValueError("This is from Python")


iface = rt.PyModuleInterface("test1", Raises)
iface.export("do_it", "0v", Raises.do_it)
m = iface.create()
context = rt.VmContext(instance, modules=(m,))
try:
    context.invoke(m.lookup_function("do_it"), rt.VmVariantList(0), rt.VmVariantList(0))
except RuntimeError as e:
    print("RuntimeError", "ValueError: This is from Python" in str(e))

# Primitive arguments and results.
values = []


class Prims:
    def __init__(self, iface):
        pass

    def take(self, a, b):
        values.append((a, b))

    def give(self):
        return next_results


next_results = None
iface = rt.PyModuleInterface("test1", Prims)
for name, cconv in [("take_i32", "0ii"), ("take_i64", "0II"), ("take_f32", "0ff"), ("take_f64", "0FF")]:
    iface.export(name, cconv, Prims.take)
for name, cconv in [("give_i32", "0v_ii"), ("give_i64", "0v_II"), ("give_f32", "0v_ff"), ("give_f64", "0v_FF"), ("give_one", "0v_i")]:
    iface.export(name, cconv, Prims.give)
m = iface.create()
context = rt.VmContext(instance, modules=(m,))
args = rt.VmVariantList(2)
args.push_int(42)
args.push_int(43)
context.invoke(m.lookup_function("take_i32"), args, rt.VmVariantList(0))
context.invoke(m.lookup_function("take_i64"), args, rt.VmVariantList(0))
args = rt.VmVariantList(2)
args.push_float(2.0)
args.push_float(4.0)
context.invoke(m.lookup_function("take_f32"), args, rt.VmVariantList(0))
context.invoke(m.lookup_function("take_f64"), args, rt.VmVariantList(0))
print(repr(values))
for name, nr in [("give_i32", (42, 43)), ("give_i64", (42, 43)), ("give_f32", (2.0, 4.0)), ("give_f64", (2.0, 4.0)), ("give_one", 42)]:
    next_results = nr
    results = rt.VmVariantList(2)
    context.invoke(m.lookup_function(name), rt.VmVariantList(0), results)
    print(name, repr(results))


# Refs in and out.
class Refs:
    def __init__(self, iface):
        pass

    def take(self, a, b):
        values.append((a.deref(rt.VmVariantList), b.deref(rt.VmVariantList)))

    def give(self):
        r0 = rt.VmVariantList(1)
        r0.push_int(42)
        r1 = rt.VmVariantList(1)
        r1.push_int(84)
        return r0.ref, r1.ref


values = []
iface = rt.PyModuleInterface("test1", Refs)
iface.export("take", "0rr", Refs.take)
iface.export("give", "0v_rr", Refs.give)
m = iface.create()
context = rt.VmContext(instance, modules=(m,))
a0 = rt.VmVariantList(1)
a0.push_int(42)
a1 = rt.VmVariantList(1)
a1.push_int(84)
args = rt.VmVariantList(2)
args.push_list(a0)
args.push_list(a1)
context.invoke(m.lookup_function("take"), args, rt.VmVariantList(2))
print("REF VALUES:", values)
results = rt.VmVariantList(2)
context.invoke(m.lookup_function("give"), rt.VmVariantList(0), results)
print("REF RESULTS:", results)


# Compiled code calling a Python function on tensors.
class Twice:
    def __init__(self, iface):
        self.seen = []

    def twice(self, ref):
        view = ref.deref(rt.HalBufferView)
        self.seen.append((view.shape, view.element_type == rt.HalElementType.FLOAT_32))
        host = rt.DeviceArray(device, view, implicit_host_transfer=True)
        doubled = np.asarray(host) * 2
        out = device.allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL,
            allowed_usage=rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING,
            device=device,
            buffer=doubled,
            element_type=rt.HalElementType.FLOAT_32,
        )
        print("python saw", self.seen[-1])
        return out.ref


config = rt.Config("local-sync")
device = config.device
iface = rt.PyModuleInterface("pyt", Twice)
iface.export("twice", "0r_r", Twice.twice)
ctx = rt.SystemContext(config=config)
ctx.add_vm_module(iface.create())
ctx.add_vm_module(rt.VmModule.mmap(config.vm_instance, os.path.join(DATA, "pymod_tensor.vmfb")))
print(ctx.modules.module.run(np.array([1, 2, 3, 4], dtype=np.float32)).to_host())
