"""`DeviceArray`: a buffer view that behaves like a numpy array."""

import numpy as np
import numpy.lib.mixins

from ._binding import HalBufferView, HalDevice
from ._enums import BufferUsage, MemoryType
from .dtypes import element_type_to_dtype, map_dtype_to_hal_element_type

__all__ = [
    "asdevicearray",
    "DeviceArray",
]

_HANDLED = {}

# DLPack's `kDLCPU` device type.
_DL_CPU = 1


def _handles(function):
    def register(implementation):
        _HANDLED[function] = implementation
        return implementation

    return register


class DeviceArray(numpy.lib.mixins.NDArrayOperatorsMixin):
    """An array in a device buffer (`HalBufferView`).

    Shape and dtype are always available. Reading the elements copies them
    to a host numpy array, explicitly with `to_host()`, or implicitly
    (`np.asarray`, ufuncs, numpy functions) when the array was created with
    `implicit_host_transfer=True`, as function results are.
    """

    def __init__(
        self,
        device: HalDevice,
        buffer_view: HalBufferView,
        implicit_host_transfer: bool = False,
        override_dtype=None,
    ):
        self._device = device
        self._buffer_view = buffer_view
        self._implicit_host_transfer = implicit_host_transfer
        self._override_dtype = override_dtype
        self._host_array = None

    def __array__(self, dtype=None, copy=None):
        host = self._transfer_to_host(True)
        return host if dtype is None else host.astype(dtype, copy=False)

    def __array_function__(self, func, types, args, kwargs):
        implementation = _HANDLED.get(func)
        if implementation is not None:
            return implementation(*args, **kwargs)
        host = self.to_host()
        return host.__array_function__(func, types, args, kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        def host(x):
            return x._transfer_to_host(True) if isinstance(x, DeviceArray) else x

        inputs = [host(x) for x in inputs]
        if kwargs.get("out") is not None:
            kwargs = dict(kwargs)
            kwargs["out"] = tuple(host(x) for x in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __repr__(self):
        return f"<IREE DeviceArray: shape={np.shape(self)}, dtype={self.dtype}>"

    @property
    def is_host_accessible(self):
        """Whether the elements were copied to the host already."""
        return self._host_array is not None

    def to_host(self) -> np.ndarray:
        """The elements as a numpy array (copied from the device once)."""
        return self._transfer_to_host(False)

    def _transfer_to_host(self, implicit):
        if implicit and not self._implicit_host_transfer:
            raise ValueError(
                "DeviceArray cannot be implicitly transferred to the host: "
                "if necessary, do an explicit transfer via .to_host()"
            )
        host = self._host_array
        if host is None:
            host = self._host_array = self._copy_to_host()
        return host

    def _copy_to_host(self) -> np.ndarray:
        """A new host copy of the elements (not cached)."""
        raw = element_type_to_dtype(self._buffer_view.element_type)
        host = self._buffer_view._to_numpy(raw)
        if self._override_dtype is not None and self._override_dtype != raw:
            host = host.astype(self._override_dtype)
        return host

    def astype(self, dtype, casting="unsafe", copy=True):
        if self.dtype == dtype and not copy:
            return self
        return self.to_host().astype(dtype, casting=casting, copy=copy)

    def reshape(self, *args):
        return self.to_host().reshape(*args)

    @property
    def shape(self):
        return self._buffer_view.shape

    @property
    def dtype(self):
        if self._override_dtype is not None:
            return self._override_dtype
        return element_type_to_dtype(self._buffer_view.element_type)

    def __iter__(self):
        return iter(self.to_host())

    def __dlpack_device__(self):
        """The DLPack device of `__dlpack__`'s tensors: `(kDLCPU, 0)`."""
        return (_DL_CPU, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule (`"dltensor"`) of the elements.

        A host-visible buffer (every buffer of a CPU device) is exported
        without a copy: the consumer shares the device buffer's memory.
        Other buffers, and arrays whose dtype differs from their element
        type, are exported as a host copy; `copy=False` refuses that with
        BufferError, and `copy=True` always copies.
        """
        del stream, max_version  # CPU tensors need no stream; unversioned capsule.
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"cannot export a DeviceArray to DLPack device {dl_device}")
        if not copy and self._exports_in_place():
            return self._device.create_dlpack_capsule(self._buffer_view, _DL_CPU, 0)
        if copy is False:
            raise BufferError("DeviceArray cannot be exported to DLPack without a copy")
        return self._copy_to_host().__dlpack__()

    def _exports_in_place(self):
        memory_type = self._buffer_view.get_buffer().memory_type()
        if not memory_type & int(MemoryType.HOST_VISIBLE):
            return False
        if self._override_dtype is None:
            return True
        try:
            return self._override_dtype == element_type_to_dtype(self._buffer_view.element_type)
        except KeyError:
            return False

    def __getitem__(self, index):
        return self.to_host()[index]

    def __deepcopy__(self, memo):
        return self.to_host()

    def __reduce__(self):
        return _from_host, (self.to_host(),)


def _from_host(array):
    return array


@_handles(np.shape)
def _shape(a):
    return a.shape


@_handles(np.reshape)
def _reshape(a, *args):
    return a.reshape(*args)


def asdevicearray(
    device: HalDevice,
    a,
    dtype=None,
    *,
    implicit_host_transfer: bool = False,
    memory_type=None,
    allowed_usage=None,
    element_type=None,
) -> DeviceArray:
    """A `DeviceArray` on `device` holding a copy of `a` (any array-like);
    a `DeviceArray` given without `dtype` is returned as it is."""
    if isinstance(a, DeviceArray):
        if dtype is None:
            return a
        a = a.to_host()
    host = np.asarray(a, dtype=dtype, order="C")
    et = element_type if element_type is not None else map_dtype_to_hal_element_type(host.dtype)
    if et is None:
        raise ValueError(f"Could not map dtype {host.dtype} to IREE element type")
    view = device.allocator.allocate_buffer_copy(
        memory_type=MemoryType.DEVICE_LOCAL if memory_type is None else memory_type,
        allowed_usage=BufferUsage.DEFAULT if allowed_usage is None else allowed_usage,
        device=device,
        buffer=host,
        element_type=et,
    )
    return DeviceArray(
        device,
        view,
        implicit_host_transfer=implicit_host_transfer,
        override_dtype=host.dtype,
    )
