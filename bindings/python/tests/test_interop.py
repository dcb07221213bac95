"""Memory shared with other libraries: DLPack capsules, imported host
allocations, and `VmBuffer`'s buffer protocol."""

import gc
import re
import sys
import weakref

import numpy as np
import pytest

import iree_rust.runtime as rt

DTYPES = [
    (np.bool_, rt.HalElementType.BOOL_8),
    (np.int8, rt.HalElementType.SINT_8),
    (np.int16, rt.HalElementType.SINT_16),
    (np.int32, rt.HalElementType.SINT_32),
    (np.int64, rt.HalElementType.SINT_64),
    (np.uint8, rt.HalElementType.UINT_8),
    (np.uint16, rt.HalElementType.UINT_16),
    (np.uint32, rt.HalElementType.UINT_32),
    (np.uint64, rt.HalElementType.UINT_64),
    (np.float16, rt.HalElementType.FLOAT_16),
    (np.float32, rt.HalElementType.FLOAT_32),
    (np.float64, rt.HalElementType.FLOAT_64),
    (np.complex64, rt.HalElementType.COMPLEX_64),
    (np.complex128, rt.HalElementType.COMPLEX_128),
]


@pytest.fixture(scope="module")
def device():
    return rt.get_device("local-task")


def aligned(values):
    """A copy of `values` whose data starts on a 64-byte boundary (DLPack
    imports need that, as upstream's do)."""
    raw = np.zeros(values.nbytes + 64, dtype=np.uint8)
    offset = (-raw.ctypes.data) % 64
    out = raw[offset : offset + values.nbytes].view(values.dtype).reshape(values.shape)
    out[...] = values
    return out


class Producer:
    """A DLPack producer over a capsule made by `HalDevice`."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def sample(dtype, shape=(3, 4)):
    values = np.random.default_rng(0).uniform(-100, 100, shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * values[::-1]
    return values.astype(dtype)


@pytest.mark.parametrize("dtype,element_type", DTYPES)
def test_dlpack_round_trip_shares_memory(device, dtype, element_type):
    source = aligned(sample(dtype))
    view = device.from_dlpack_capsule(source.__dlpack__())
    assert view.element_type == int(element_type)
    assert view.shape == [3, 4]
    back = np.from_dlpack(Producer(device.create_dlpack_capsule(view, 1, 0)))
    assert back.dtype == source.dtype
    np.testing.assert_array_equal(back, source)
    # Both ways without a copy: a write to the source shows in the result.
    source[1, 2] = source[0, 0] if dtype is not np.bool_ else not source[1, 2]
    assert back[1, 2] == source[1, 2]


@pytest.mark.parametrize("dtype,element_type", DTYPES)
def test_device_array_dlpack(device, dtype, element_type):
    values = sample(dtype, (2, 3, 5))
    array = rt.asdevicearray(device, values)
    assert array.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(array), values)
    # A device array over imported memory exports that same memory.
    source = aligned(values)
    shared = rt.DeviceArray(device, device.from_dlpack_capsule(source.__dlpack__()))
    out = np.from_dlpack(shared)
    source[0, 0, 0] = source[1, 2, 4]
    assert out[0, 0, 0] == source[1, 2, 4]
    # copy=True always copies.
    copied = np.from_dlpack(shared, copy=True)
    before = copied[0, 0, 1]
    source[0, 0, 1] = not before if dtype is np.bool_ else before + 1
    assert copied[0, 0, 1] == before


def test_dlpack_deleters_run(device):
    source = aligned(np.arange(16, dtype=np.float32))
    source_ref = weakref.ref(source.base)
    capsule = source.__dlpack__()
    del source
    view = device.from_dlpack_capsule(capsule)
    assert "used_dltensor" in repr(capsule)
    del capsule
    gc.collect()
    assert source_ref() is not None  # the view still uses the memory
    exported = device.create_dlpack_capsule(view, 1, 0)
    assert "dltensor" in repr(exported)
    del view
    gc.collect()
    assert source_ref() is not None  # the unconsumed capsule holds it
    del exported  # never consumed: the capsule deletes the tensor
    gc.collect()
    assert source_ref() is None


def test_dlpack_errors(device):
    with pytest.raises(ValueError, match="invalid PyCapsule"):
        device.from_dlpack_capsule(1)
    capsule = aligned(np.zeros(3)).__dlpack__()
    device.from_dlpack_capsule(capsule)
    with pytest.raises(ValueError, match="incorrect name"):
        device.from_dlpack_capsule(capsule)
    with pytest.raises(ValueError, match="strided"):
        device.from_dlpack_capsule(np.zeros((4, 4))[:, 1].__dlpack__())
    raw = aligned(np.zeros(32, dtype=np.uint8))
    with pytest.raises(IndexError, match="aligned to 64"):
        device.from_dlpack_capsule(raw[4:20].view(np.float32).__dlpack__())
    # The failed imports above released their tensors; the device still works.
    view = device.from_dlpack_capsule(aligned(np.ones(4, np.float32)).__dlpack__())
    np.testing.assert_array_equal(view.map().asarray([4], np.float32), np.ones(4))


def test_mapped_arrays_are_aligned(device):
    for n in range(1, 20):
        array = rt.asdevicearray(device, np.arange(n, dtype=np.int8))
        host = array._buffer_view.map().asarray([n], np.int8)
        assert host.ctypes.data % 64 == 0
        np.testing.assert_array_equal(host, np.arange(n, dtype=np.int8))


HOST_MEMORY = int(rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE)


def test_import_host_allocation_shares_memory(device):
    source = rt.asdevicearray(device, np.arange(16, dtype=np.float32))
    for target in (np.zeros(16, dtype=np.float32), aligned(np.zeros(16, np.float32))):
        buffer = device.allocator.import_host_allocation(
            target, memory_type=HOST_MEMORY, allowed_usage=int(rt.BufferUsage.TRANSFER_TARGET)
        )
        assert buffer.byte_length() == target.nbytes
        semaphore = device.create_semaphore(0)
        device.queue_copy(
            source._buffer_view.get_buffer(),
            buffer,
            wait_semaphores=rt.HalFence.create_at(semaphore, 0),
            signal_semaphores=rt.HalFence.create_at(semaphore, 1),
        )
        rt.HalFence.create_at(semaphore, 1).wait()
        np.testing.assert_array_equal(target, np.arange(16, dtype=np.float32))


def test_import_host_allocation_keeps_the_object_alive(device):
    target = aligned(np.zeros(16, np.float32))
    base = weakref.ref(target.base)
    buffer = device.allocator.import_host_allocation(
        target, memory_type=HOST_MEMORY, allowed_usage=int(rt.BufferUsage.DEFAULT)
    )
    # Aligned memory may be bound to dispatches.
    assert buffer.allowed_usage() & int(rt.BufferUsage.DISPATCH_STORAGE)
    del target
    gc.collect()
    assert base() is not None
    del buffer
    gc.collect()
    assert base() is None


def test_import_host_allocation_errors(device):
    with pytest.raises(BufferError, match="not writable"):
        device.allocator.import_host_allocation(
            b"abcd", memory_type=HOST_MEMORY, allowed_usage=int(rt.BufferUsage.DEFAULT)
        )
    with pytest.raises(ValueError, match="contiguous"):
        device.allocator.import_host_allocation(
            np.zeros((4, 4))[:, 1],
            memory_type=HOST_MEMORY,
            allowed_usage=int(rt.BufferUsage.DEFAULT),
        )
    # Memory off the 64-byte boundary is for transfers only: kernels assume
    # aligned bindings.
    raw = aligned(np.zeros(80, dtype=np.uint8))
    buffer = device.allocator.import_host_allocation(
        raw[4:68], memory_type=HOST_MEMORY, allowed_usage=int(rt.BufferUsage.DEFAULT)
    )
    assert not buffer.allowed_usage() & int(rt.BufferUsage.DISPATCH_STORAGE)
    assert buffer.allowed_usage() & int(rt.BufferUsage.TRANSFER)


def test_external_capture_is_unimplemented(device):
    with pytest.raises(NotImplementedError, match="UNIMPLEMENTED"):
        device.begin_external_capture("renderdoc")
    with pytest.raises(NotImplementedError, match="UNIMPLEMENTED"):
        device.end_external_capture()


def test_vm_buffer_basics():
    buffer = rt.VmBuffer(10, alignment=64)
    match = re.fullmatch(r"<VmBuffer size 10 at 0x([0-9a-f]+)>", repr(buffer))
    assert match and int(match.group(1), 16) % 64 == 0
    assert len(buffer) == 10
    assert bytes(buffer) == bytes(10)
    assert rt.VmBuffer(0).__len__() == 0
    assert buffer == buffer and buffer != rt.VmBuffer(10)
    with pytest.raises(ValueError, match="powers of two"):
        rt.VmBuffer(4, alignment=3)
    lst = rt.VmVariantList(1)
    lst.push_ref(buffer)
    assert lst.get_as_ref(0) == buffer.ref
    assert "vm.buffer" in repr(buffer.ref)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="buffer protocol needs 3.11")
def test_vm_buffer_protocol():
    buffer = rt.VmBuffer(10, alignment=0, mutable=True)
    assert isinstance(buffer, rt.VmBuffer)
    view = memoryview(buffer)
    assert (view.nbytes, view.format, view.readonly) == (10, "B", False)
    view[0:] = b"0123456789"
    assert bytes(buffer) == b"0123456789"
    assert np.frombuffer(buffer, dtype=np.uint8)[3] == ord("3")
    del view, buffer
    gc.collect()

    readonly = rt.VmBuffer(10, alignment=16, mutable=False)
    view = memoryview(readonly)
    assert view.readonly
    with pytest.raises(TypeError):
        view[0:] = b"0123456789"
    assert not np.frombuffer(readonly, dtype=np.uint8).flags.writeable
    assert bytearray(readonly) == bytes(10)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="buffer protocol needs 3.11")
def test_vm_buffer_view_outlives_the_name():
    view = memoryview(rt.VmBuffer(8))
    gc.collect()
    view[:] = b"abcdefgh"
    assert view.tobytes() == b"abcdefgh"
    assert isinstance(view.obj, rt.VmBuffer)


@pytest.mark.parametrize("shape", [(), (0, 4), (2, 0)])
def test_dlpack_scalars_and_empty_tensors(device, shape):
    source = np.full(shape, 3.5, dtype=np.float32)
    source = aligned(source) if source.size else source
    view = device.from_dlpack_capsule(source.__dlpack__())
    assert tuple(view.shape) == shape
    back = np.from_dlpack(Producer(device.create_dlpack_capsule(view, 1, 0)))
    assert back.shape == shape
    np.testing.assert_array_equal(back, source)
