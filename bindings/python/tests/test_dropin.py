"""Drop-in behaviour that upstream's own binding tests exercise (see
`cargo xtask upstream-python-tests`), checked here with our own cases:
the invoker over any context-like object, dtype tables, driver caching,
printed forms, module buffers, parameter views, lifetimes and the asyncio
bridge."""

import array
import asyncio
import gc
import json
import os
import warnings

import numpy as np
import pytest

import iree_rust.runtime as rt
from iree_rust.runtime import dtypes
from iree_rust.runtime._binding import (
    VmVariantList,
    clear_hal_driver_cache,
    create_hal_driver,
)
from iree_rust.runtime.function import (
    IMPLICIT_BUFFER_ARG_MEMORY_TYPE,
    IMPLICIT_BUFFER_ARG_USAGE,
    FunctionInvoker,
)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


# --- FunctionInvoker over a context-like object -------------------------------


class RecordingContext:
    """Anything with `invoke(function, arg_list, ret_list)` will do."""

    def __init__(self, results=()):
        self.results = results
        self.calls = []

    def invoke(self, function, arg_list, ret_list):
        self.calls.append(repr(arg_list))
        for push in self.results:
            push(ret_list)


class Function:
    def __init__(self, a=None, r=None):
        self.reflection = {} if a is None else {"iree.abi": json.dumps({"a": a, "r": r})}


@pytest.fixture(scope="module")
def device():
    return rt.get_device("local-sync")


def call(device, function, *args, results=(), **kwargs):
    context = RecordingContext(results)
    value = FunctionInvoker(context, device, function)(*args, **kwargs)
    return value, context.calls


def test_invoker_packs_by_python_type_without_reflection(device):
    value, calls = call(
        device,
        Function(),
        7,
        2.5,
        [1, (2, 3)],
        {"z": 1, "a": 2},
        results=[lambda l: l.push_int(5), lambda l: l.push_int(6)],
    )
    assert calls == ["<VmVariantList(4): [7, 2.500000, List[1, List[2, 3]], List[2, 1]]>"]
    assert value == (5, 6)
    _, calls = call(device, Function(), np.array([1, 2], dtype=np.int32))
    assert calls == ["<VmVariantList(1): [HalBufferView(2:0x20000011)]>"]
    with pytest.raises(ValueError, match="could not convert python value to VM: 'x'"):
        call(device, Function(), "x")
    with pytest.raises(ValueError, match="kwargs not supported"):
        call(device, Function(), a=1)


def test_invoker_binds_named_arguments_by_reflection(device):
    f = Function(a=["i32", ["named", "a", "i32"], ["named", "b", "f32"]], r=["i32"])
    value, calls = call(device, f, 1, b=3, a=2, results=[lambda l: l.push_int(9)])
    assert calls == ["<VmVariantList(3): [1, 2, 3.000000]>"]
    assert value == 9
    with pytest.raises(ValueError, match="mismatched call arity: expected 1 got 2"):
        call(device, f, 1, 2)
    with pytest.raises(ValueError, match="expected a value for argument 2"):
        call(device, f, 1, a=2)
    with pytest.raises(ValueError, match="specified kwarg 'c' is unknown"):
        call(device, f, 1, a=2, b=3, c=4)


def test_invoker_packs_structures_by_reflection(device):
    f = Function(a=[["slist", "i32", "i32"], ["sdict", ["x", "i64"], ["y", "i64"]]], r=[])
    value, calls = call(device, f, (1, 2), {"y": 4, "x": 3})
    assert calls == ["<VmVariantList(2): [List[1, 2], List[3, 4]]>"]
    assert value is None
    with pytest.raises(ValueError, match="expected a sequence with 2 values. got: \\[1\\]"):
        call(device, f, [1], {"x": 1, "y": 2})
    with pytest.raises(ValueError, match="expected a dict with 2 values"):
        call(device, f, [1, 2], {"x": 1})
    with pytest.raises(ValueError, match="could not get item 'y' from: "):
        call(device, f, [1, 2], {"x": 1, "z": 2})


def test_invoker_casts_arrays_to_the_declared_dtype(device):
    f = Function(a=[["ndarray", "f32", 1, 2]], r=[])
    seen = {}

    class Context:
        def invoke(self, function, arg_list, ret_list):
            seen["view"] = arg_list.get_as_object(0, rt.HalBufferView)

    FunctionInvoker(Context(), device, f)([1, 2])
    view = seen["view"]
    assert view.element_type == int(rt.HalElementType.FLOAT_32)
    assert int(IMPLICIT_BUFFER_ARG_MEMORY_TYPE) == int(rt.MemoryType.DEVICE_LOCAL)
    assert int(IMPLICIT_BUFFER_ARG_USAGE) == int(rt.BufferUsage.DEFAULT)


def test_invoker_unpacks_results_by_reflection(device):
    def push_view(lst):
        lst.push_ref(
            device.allocator.allocate_buffer_copy(
                memory_type=IMPLICIT_BUFFER_ARG_MEMORY_TYPE,
                allowed_usage=IMPLICIT_BUFFER_ARG_USAGE,
                device=device,
                buffer=np.array([1, 0], dtype=np.int8),
                element_type=rt.HalElementType.UINT_8,
            )
        )

    def push_nested(lst):
        inner = VmVariantList(2)
        inner.push_int(10)
        inner.push_int(20)
        lst.push_list(inner)

    f = Function(a=[], r=[["ndarray", "i1", 1, 2], ["sdict", ["p", "i32"], ["q", "i32"]]])
    flags, mapping = call(device, f, results=[push_view, push_nested])[0]
    assert flags.dtype == np.bool_ and list(flags.to_host()) == [True, False]
    assert mapping == {"p": 10, "q": 20}
    homogeneous = Function(a=[], r=[["py_homogeneous_list", "i64"]])
    assert call(device, homogeneous, results=[push_nested])[0] == [10, 20]
    with pytest.raises(ValueError, match="mismatched return arity: 1 vs 2"):
        call(device, Function(a=[], r=["i32", "i32"]), results=[lambda l: l.push_int(1)])
    with pytest.raises(ValueError, match="expected an <class 'float'> value"):
        call(device, Function(a=[], r=["f32"]), results=[lambda l: l.push_int(1)])


def test_native_and_list_invokers_are_both_function_invokers(device):
    instance = rt.VmInstance()
    module = rt.VmModule.mmap(instance, os.path.join(DATA, "tiny.vmfb"))
    context = rt.VmContext(instance, modules=[rt.create_hal_module(instance, device), module])
    native = FunctionInvoker(context, device, module.lookup_function("add_i32"))
    assert isinstance(native, FunctionInvoker)
    assert native(2, 3) == 5
    listed = FunctionInvoker(RecordingContext(), device, Function())
    assert isinstance(listed, FunctionInvoker)


# --- dtypes -----------------------------------------------------------------


def test_dtype_infos_read_one_table_every_way():
    info = dtypes.map_name_to_dtype_info("uint16")
    assert (info.dtype, info.abi_type, info.hal_type) == (np.dtype(np.uint16), "i16", rt.HalElementType.UINT_16)
    assert info.is_integer and not info.is_signed
    assert dtypes.map_abi_type_to_dtype_info("i16").dtype == np.dtype(np.int16)
    assert dtypes.map_abi_type_to_dtype_info("complex<f32>").is_complex
    assert dtypes.map_dtype_to_dtype_info(np.float64).name == "float64"
    assert dtypes.DTYPE_TO_ABI_TYPE[np.dtype(np.bool_)] == "i1"
    for lookup, key in [
        (dtypes.map_name_to_dtype_info, "nope"),
        (dtypes.map_abi_type_to_dtype_info, "bf16"),
        (dtypes.map_dtype_to_dtype_info, "bfloat16"),
    ]:
        with pytest.raises(KeyError):
            lookup(key)


# --- drivers ------------------------------------------------------------------


def test_cached_drivers_are_one_object_until_the_cache_is_cleared():
    first = rt.get_driver("local-sync")
    assert rt.get_driver("local-sync://") is first
    fresh = create_hal_driver("local-sync")
    assert fresh is not first and fresh is not create_hal_driver("local-sync")
    clear_hal_driver_cache()
    assert rt.get_driver("local-sync") is not first
    with pytest.raises(ValueError, match="no driver 'nope'"):
        create_hal_driver("nope")


# --- printed forms ------------------------------------------------------------


def test_lists_print_element_types_bytes_and_fences_as_upstream(device):
    lst = rt.VmVariantList(2)
    view = device.allocator.allocate_buffer_copy(
        memory_type=rt.MemoryType.DEVICE_LOCAL,
        allowed_usage=rt.BufferUsage.DEFAULT,
        device=device,
        buffer=np.zeros([2, 3], dtype=np.float32),
        element_type=rt.HalElementType.FLOAT_32,
    )
    lst.push_ref(view)
    lst.push_ref(rt.HalFence(3))
    assert repr(lst) == "<VmVariantList(2): [HalBufferView(2x3:0x20000021), fence(0)]>"
    assert "element_type=0x20000021" in repr(view)


# --- module buffers -----------------------------------------------------------


def test_module_buffers_warn_and_fail_only_when_unaligned():
    instance = rt.VmInstance()
    with open(os.path.join(DATA, "tiny.vmfb"), "rb") as f:
        data = f.read()
    raw = np.zeros(len(data) + 128, dtype=np.uint8)
    start = (-raw.ctypes.data) % 64
    raw[start : start + len(data)] = np.frombuffer(data, dtype=np.uint8)
    aligned = memoryview(raw[start : start + len(data)])
    raw2 = np.zeros(len(data) + 128, dtype=np.uint8)
    start2 = (-raw2.ctypes.data) % 64 + 1
    raw2[start2 : start2 + len(data)] = np.frombuffer(data, dtype=np.uint8)
    unaligned = memoryview(raw2[start2 : start2 + len(data)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rt.VmModule.from_buffer(instance, aligned).name == "module"
        rt.VmModule.wrap_buffer(instance, aligned)
    with pytest.warns(UserWarning, match="Making copy of unaligned VmModule buffer"):
        rt.VmModule.from_buffer(instance, unaligned)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rt.VmModule.from_buffer(instance, unaligned, warn_if_copy=False)
    with pytest.raises(ValueError, match="received an unaligned buffer"):
        rt.VmModule.wrap_buffer(instance, unaligned)


# --- parameters ---------------------------------------------------------------


def test_parameter_entries_view_their_bytes_in_place():
    index = rt.ParameterIndex()
    index.add_buffer("w", np.arange(6, dtype=np.int32).tobytes())
    index.add_splat("s", array.array("b", [7]), 12)
    entries = dict(index.items())
    view = entries["w"].file_view
    assert isinstance(view, memoryview) and view.readonly and len(view) == 24
    np.testing.assert_array_equal(np.asarray(view).view(np.int32), np.arange(6))
    handle, offset = entries["w"].file_storage
    assert offset == 0 and handle.is_host_allocation
    assert repr(entries["s"]) == "<ParameterIndexEntry 's' splat b'\\x07':12>"
    assert repr(entries["w"]).startswith("<ParameterIndexEntry 'w' FileHandle<host_allocation(<memory at ")
    assert repr(entries["w"]).endswith(">)>:0:24")
    with pytest.raises(ValueError, match="Entry is not file storage based"):
        entries["s"].file_view
    with pytest.raises(ValueError, match="Entry is not splat"):
        entries["w"].splat_pattern
    assert "Parameter scope <global> (2 entries, 36 total bytes)" in repr(index)
    del index, entries, handle
    gc.collect()
    # The view keeps the bytes alive on its own.
    np.testing.assert_array_equal(np.asarray(view).view(np.int32), np.arange(6))


def test_entries_of_descriptor_handles_name_their_descriptor(tmp_path):
    path = tmp_path / "p.irpa"
    rt.save_archive_file({"x": np.arange(4, dtype=np.float32)}, path)
    with open(path, "rb") as f:
        handle = rt.FileHandle.wrap_fd(f.fileno(), True, False)
        assert repr(handle) == f"FileHandle<fd({f.fileno()})>"
        index = rt.ParameterIndex()
        index.load_from_file_handle(handle, "irpa")
        assert repr(index[0]).startswith(f"<ParameterIndexEntry 'x' FileHandle<fd({f.fileno()})>:")
        np.testing.assert_array_equal(np.asarray(index[0].file_view).view(np.float32), np.arange(4))


# --- lifetimes ----------------------------------------------------------------


def test_functions_do_not_keep_their_module_alive():
    instance = rt.VmInstance()

    class Methods:
        def __init__(self, iface):
            pass

        def f(self):
            pass

    iface = rt.PyModuleInterface("m", Methods)
    iface.export("f", "0v", Methods.f)
    module = iface.create()
    context = rt.VmContext(instance, modules=(module,))
    function = module.lookup_function("f")
    context.invoke(function, rt.VmVariantList(0), rt.VmVariantList(0))
    del context, module
    gc.collect()
    assert iface.destroyed
    assert function.name == "f" and function.module_name == "m"
    other = rt.VmContext(instance)
    with pytest.raises(ValueError, match="not registered in this context"):
        other.invoke(function, rt.VmVariantList(0), rt.VmVariantList(0))


def test_a_debug_sink_its_callback_refers_to_is_collected(device):
    collected = []

    class Callback:
        def __call__(self, key, views):
            pass

        def __del__(self):
            collected.append(True)

    callback = Callback()
    callback.sink = rt.HalModuleDebugSink(callback)
    instance = rt.VmInstance()
    hal = rt.create_hal_module(instance, device, debug_sink=callback.sink)
    del callback, hal
    gc.collect()
    assert collected == [True]


# --- asyncio bridge -------------------------------------------------------------


def test_loop_bridge_resolves_futures_as_semaphores_advance():
    device = rt.get_device("local-task")
    loop = asyncio.new_event_loop()
    bridge = rt.HalDeviceLoopBridge(device, loop)
    try:
        sem = device.create_semaphore(0)
        order = []

        async def main():
            first = bridge.on_semaphore(sem, 1, "one")
            second = bridge.on_semaphore(sem, 2, "two")
            first.add_done_callback(lambda f: (order.append(f.result()), sem.signal(2)))
            sem.signal(1)
            assert await second == "two"
            failed = bridge.on_semaphore(sem, 3, "never")
            sem.fail("broken")
            with pytest.raises(RuntimeError, match="semaphore failed"):
                await failed

        loop.run_until_complete(asyncio.wait_for(main(), 10))
        assert order == ["one"]
    finally:
        bridge.stop()
        bridge.stop()
        loop.close()


# --- inline execution models ------------------------------------------------------

INLINE = os.path.join(os.path.dirname(DATA), "..", "..", "..", "testdata", "inline")


@pytest.mark.parametrize("name", ["static_vmvx", "dynamic_llvm_cpu", "dynamic_vmvx"])
def test_inline_modules_get_their_system_modules(name):
    path = os.path.join(INLINE, f"{name}.vmfb")
    m = rt.load_vm_flatbuffer_file(path, driver="local-sync")
    out = m.add(np.array([1, 2, 3, 4], np.float32), np.array([10, 20, 30, 40], np.float32))
    np.testing.assert_array_equal(out.to_host(), [11, 22, 33, 44])
    ctx = rt.SystemContext(config=rt.Config("local-task"))
    ctx.add_vm_module(rt.VmModule.mmap(ctx.instance, path))
    assert "hal_inline" in ctx.modules
    np.testing.assert_array_equal(ctx.modules.module.add(np.ones(4, np.float32), np.ones(4, np.float32)).to_host(), [2, 2, 2, 2])
    instance = rt.VmInstance()
    assert rt.VmModule.resolve_module_dependency(instance, "hal_loader", 1).name == "hal_loader"
    with pytest.raises(RuntimeError, match="NOT_FOUND"):
        rt.VmModule.resolve_module_dependency(instance, "hal_loader", 99)


def test_devices_by_id_info_and_uri():
    driver = rt.get_driver("local-sync")
    infos = driver.query_available_devices()
    assert infos == [{"device_id": 0, "path": "", "name": "default"}]
    driver.create_device(infos[0]["device_id"])
    driver.create_device(infos[0])
    with pytest.raises(ValueError, match="Device id 5555 not found"):
        driver.create_device(5555)
    with pytest.raises(ValueError, match="device paths not yet implemented"):
        driver.create_device_by_uri("local-sync://0")
