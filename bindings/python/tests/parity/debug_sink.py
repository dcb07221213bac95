"""HalModuleDebugSink: buffer views traced by compiled code reach a
Python callback; an exception in it fails the call (upstream's hal_test
scenarios)."""
import os

import numpy as np

import iree.runtime as rt

VMFB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "trace.vmfb")
seen = []


def callback(key, buffer_views):
    seen.append((key, [rt.DeviceArray(device, bv).to_host().tolist() for bv in buffer_views]))


device = rt.get_device("local-task")
instance = rt.VmInstance()
sink = rt.HalModuleDebugSink(callback)
print(sink.buffer_view_trace_callback is callback)
hal = rt.create_hal_module(instance, device, debug_sink=sink)
program = rt.VmModule.mmap(instance, VMFB)
context = rt.VmContext(instance)
context.register_modules([hal, program])
f = rt.FunctionInvoker(context, device, program.lookup_function("trace_args"))
print(f(np.array([1, 2], dtype=np.int32), np.array([3, 4, 5], dtype=np.int32)))
print(seen)

rt.create_hal_module(instance, device, debug_sink=None)


def raises(key, buffer_views):
    raise KeyError("This is a test exception")


context = rt.VmContext(instance)
context.register_modules([rt.create_hal_module(instance, device, debug_sink=rt.HalModuleDebugSink(raises)), program])
f = rt.FunctionInvoker(context, device, program.lookup_function("trace_args"))
try:
    f(np.array([1, 2], dtype=np.int32), np.array([3, 4, 5], dtype=np.int32))
except RuntimeError as e:
    print("RuntimeError", "UNKNOWN" in str(e))
# Without a sink, traces go nowhere.
context = rt.VmContext(instance, modules=[rt.create_hal_module(instance, device), program])
print(rt.FunctionInvoker(context, device, program.lookup_function("trace_args"))(np.zeros(2, np.int32), np.zeros(3, np.int32)))
