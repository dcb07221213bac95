"""VmInstance, VmContext, VmModule, VmFunction, VmVariantList, VmRef and
FunctionInvoker used directly (upstream's vm_test scenarios)."""
import os

import numpy as np

import iree.runtime as rt

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
TINY = os.path.join(DATA, "tiny.vmfb")
DTYPES = os.path.join(DATA, "dtypes.vmfb")

# Variant lists.
lst = rt.VmVariantList(5)
print(lst.size, len(lst), str(lst))
lst.push_int(10 * 1000 * 1000 * 1000)
print(str(lst))
lst.push_float(2.5)
print(repr(lst), lst.get_variant(0), lst.get_variant(1))
try:
    lst.get_as_list(5)
except IndexError as e:
    print("IndexError")

# Contexts.
instance = rt.VmInstance()
c1 = rt.VmContext(instance)
c2 = rt.VmContext(instance)
print("distinct context ids:", c1.context_id != c2.context_id)

device = rt.get_device("local-sync")
hal = rt.create_hal_module(instance, device)
print(hal.name, hal.version >= 0)

# Modules and functions.
m = rt.VmModule.mmap(instance, TINY)
print(repr(m), m.name, m.function_names)
f = m.lookup_function("add_i32")
print(f.name, f.module_name, f.ordinal >= 0, f.linkage, f.reflection)
print(repr(f))
print(m.lookup_function("notfound"))
with open(TINY, "rb") as fh:
    blob = fh.read()
for make in (rt.VmModule.copy_buffer, rt.VmModule.from_flatbuffer, rt.VmModule.from_buffer):
    print(make.__name__, make(instance, blob).function_names)
try:
    rt.VmModule.copy_buffer(instance, b"not a module at all")
    print("no error")
except Exception as e:
    print("bad flatbuffer:", type(e).__name__)

# A dynamic context, then calls through lists.
context = rt.VmContext(instance)
context.register_modules([hal, m])
args = rt.VmVariantList(2)
args.push_int(5)
args.push_int(6)
results = rt.VmVariantList(1)
context.invoke(f, args, results)
print(repr(results), results.get_variant(0))

# A static context and the invoker.
static = rt.VmContext(instance, modules=[hal, m])
invoker = rt.FunctionInvoker(static, device, f)
print(invoker(5, 6), repr(invoker))
mul4 = rt.FunctionInvoker(static, device, m.lookup_function("mul4"))
out = mul4(np.array([1, 2, 3, 4], dtype=np.float32), np.array([4, 5, 6, 7], dtype=np.float32))
print(type(out).__name__, out.to_host())

# Buffer views through lists.
dtm = rt.VmModule.mmap(instance, DTYPES)
ctx = rt.VmContext(instance, modules=[hal, dtm])
bv = device.allocator.allocate_buffer_copy(
    memory_type=rt.MemoryType.DEVICE_LOCAL,
    allowed_usage=rt.BufferUsage.DEFAULT,
    device=device,
    buffer=np.array([[-1.5, 2.0], [3.0, -4.0]], dtype=np.float32),
    element_type=rt.HalElementType.FLOAT_32,
)
args = rt.VmVariantList(1)
args.push_ref(bv.ref)
results = rt.VmVariantList(1)
ctx.invoke(dtm.lookup_function("abs_dynamic"), args, results)
out = results.get_as_object(0, rt.HalBufferView)
print(type(out).__name__, out.shape, out.element_type == rt.HalElementType.FLOAT_32)
r = results.get_as_ref(0)
print(type(r).__name__, r.isinstance(rt.HalBufferView), type(r.deref(rt.HalBufferView)).__name__)
arr = rt.DeviceArray(device, out, implicit_host_transfer=True)
print(np.asarray(arr))
print(type(results.get_variant(0)).__name__)

# Errors leave the context usable.
bad = rt.VmVariantList(1)
bad.push_int(1)
try:
    ctx.invoke(dtm.lookup_function("abs_dynamic"), bad, rt.VmVariantList(1))
except Exception as e:
    print("bad invoke:", type(e).__name__)
results = rt.VmVariantList(1)
ctx.invoke(dtm.lookup_function("abs_dynamic"), args, results)
print(np.asarray(rt.DeviceArray(device, results.get_as_object(0, rt.HalBufferView), implicit_host_transfer=True)))
