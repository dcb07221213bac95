"""`FunctionInvoker`: calls a module function with Python values.

Two paths, one behaviour:

* A function of a real `VmContext` without legacy `iree.abi` reflection is
  called by the native invoker (`_binding.FunctionInvoker`): arguments are
  converted by the function's calling convention, the VM runs without the
  GIL, and buffer-view results come back as `DeviceArray`s.
* Anything else (functions with `iree.abi` JSON reflection, and any object
  with `VmContext`'s `invoke(function, arg_list, ret_list)` and a function
  with a `reflection` dict, as test doubles are) goes through
  `_ListInvoker` below: arguments are packed into a `VmVariantList` by the
  reflection descriptors (or by their Python types when there are none),
  the context's `invoke` runs, and the result list is unpacked by the
  result descriptors.
"""

import abc
import json
import logging

import numpy as np

from . import _binding
from ._binding import HalBufferView, VmRef, VmVariantList
from ._enums import BufferUsage, MemoryType
from .array_interop import DeviceArray
from .dtypes import map_abi_type_to_dtype_info, map_dtype_to_hal_element_type

__all__ = [
    "FunctionInvoker",
    "IMPLICIT_BUFFER_ARG_MEMORY_TYPE",
    "IMPLICIT_BUFFER_ARG_USAGE",
]

#: Memory type of the buffers made for array arguments.
IMPLICIT_BUFFER_ARG_MEMORY_TYPE = MemoryType.DEVICE_LOCAL
#: Usage of the buffers made for array arguments.
IMPLICIT_BUFFER_ARG_USAGE = BufferUsage.DEFAULT


class ArgumentError(ValueError):
    pass


class ReturnError(ValueError):
    pass


class FunctionInvoker(abc.ABC):
    """Wraps a function of a context so that it can be called with Python
    values: `FunctionInvoker(vm_context, device, vm_function)(*args)`."""

    def __new__(cls, vm_context, device, vm_function):
        if cls is FunctionInvoker and _is_native_call(vm_context, vm_function):
            return _binding.FunctionInvoker(vm_context, device, vm_function)
        return super().__new__(_ListInvoker if cls is FunctionInvoker else cls)


FunctionInvoker.register(_binding.FunctionInvoker)


def _is_native_call(vm_context, vm_function):
    return (
        type(vm_context) is _binding.VmContext
        and type(vm_function) is _binding.VmFunction
        and "iree.abi" not in vm_function.reflection
    )


class _ListInvoker(FunctionInvoker):
    """Packs arguments into a list, calls `vm_context.invoke`, unpacks."""

    __slots__ = (
        "_vm_context",
        "_device",
        "_vm_function",
        "_packer",
        "_ret_descs",
        "_inlined_results",
    )

    def __init__(self, vm_context, device, vm_function):
        self._vm_context = vm_context
        self._device = device
        self._vm_function = vm_function
        arg_descs, self._ret_descs = _parse_reflection(vm_function)
        # A single slist/stuple/sdict result descriptor describes the whole
        # result list, not its first element.
        self._inlined_results = (
            self._ret_descs is not None
            and len(self._ret_descs) == 1
            and isinstance(self._ret_descs[0], list)
            and bool(self._ret_descs[0])
            and self._ret_descs[0][0] in ("slist", "stuple", "sdict")
        )
        self._packer = _ArgumentPacker(device, arg_descs)

    @property
    def vm_function(self):
        return self._vm_function

    def __call__(self, *args, **kwargs):
        arg_list = self._packer.pack(args, kwargs)
        ret_descs = self._ret_descs
        ret_list = VmVariantList(len(ret_descs) if ret_descs is not None else 1)
        self._vm_context.invoke(self._vm_function, arg_list, ret_list)
        if self._inlined_results:
            outer = VmVariantList(1)
            outer.push_list(ret_list)
            ret_list = outer
        results = _Unpacker(self._device).sequence(ret_list, ret_descs)
        if len(results) == 1:
            return results[0]
        if not results:
            return None
        return tuple(results)

    def __repr__(self):
        return repr(self._vm_function)


def _parse_reflection(vm_function):
    """`(argument descriptors, result descriptors)` from `iree.abi`
    reflection, or `(None, None)` for functions without it."""
    reflection = vm_function.reflection
    abi_json = reflection.get("iree.abi")
    if abi_json is None:
        logging.debug("Function lacks reflection data. Interop will be limited: %r", vm_function)
        return None, None
    try:
        abi = json.loads(abi_json)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"Reflection metadata is not valid JSON: {abi_json}") from e
    try:
        arg_descs, ret_descs = abi["a"], abi["r"]
    except (KeyError, TypeError) as e:
        raise RuntimeError(f"Malformed function reflection metadata: {reflection}") from e
    if not isinstance(arg_descs, list) or not isinstance(ret_descs, list):
        raise RuntimeError(f"Malformed function reflection metadata structure: {reflection}")
    return arg_descs, ret_descs


# --- Python -> VM -----------------------------------------------------------


class _ArgumentPacker:
    """Packs call arguments into a `VmVariantList`: by the reflection
    descriptors when there are some, else by each value's Python type."""

    __slots__ = ("_device", "_packers", "_positional", "_kwarg_index")

    def __init__(self, device, arg_descs):
        self._device = device
        self._packers = None
        if arg_descs is None:
            return
        self._packers = []
        self._positional = 0
        self._kwarg_index = {}
        for desc in arg_descs:
            if isinstance(desc, list) and desc and desc[0] == "named":
                self._kwarg_index[desc[1]] = len(self._packers)
                desc = desc[2]
            else:
                self._positional += 1
            self._packers.append(_packer_for_desc(desc))

    def pack(self, args, kwargs):
        if self._packers is None:
            if kwargs:
                raise ValueError("kwargs not supported for dynamic dispatch functions")
            arg_list = VmVariantList(len(args))
            for value in args:
                _pack_dynamic(self._device, arg_list, value)
            return arg_list

        if len(args) > self._positional:
            raise ValueError(f"mismatched call arity: expected {self._positional} got {len(args)}")
        values = list(args) + [_MISSING] * (len(self._packers) - len(args))
        for name, value in kwargs.items():
            index = self._kwarg_index.get(name)
            if index is None:
                raise ValueError(f"specified kwarg '{name}' is unknown")
            if values[index] is not _MISSING:
                raise ValueError(f"mismatched call arity: duplicate keyword argument '{name}'")
            values[index] = value
        for i, value in enumerate(values):
            if value is _MISSING:
                raise ValueError(f"mismatched call arity: expected a value for argument {i}")
        arg_list = VmVariantList(len(values))
        for packer, value in zip(self._packers, values):
            packer(self._device, arg_list, value)
        return arg_list


_MISSING = object()


def _packer_for_desc(desc):
    """The function that packs a value described by `desc` into a list."""
    if isinstance(desc, list):
        kind = desc[0]
        if kind == "ndarray":
            dtype = _abi_dtype(desc[1])
            return lambda device, lst, value: _pack_ndarray(device, lst, value, dtype)
        if kind in ("slist", "stuple"):
            return _sequence_packer([_packer_for_desc(d) for d in desc[1:]])
        if kind == "sdict":
            return _dict_packer([(d[0], _packer_for_desc(d[1])) for d in desc[1:]])
        raise ValueError(f"Unrecognized reflection compound type: {kind}")
    if desc in ("f32", "f64"):
        return lambda device, lst, value: lst.push_float(float(value))
    if desc in ("i8", "i16", "i32", "i64"):
        return lambda device, lst, value: lst.push_int(int(value))
    raise ValueError(f"Unrecognized reflection primitive type: {desc}")


def _abi_dtype(abi_type):
    try:
        return map_abi_type_to_dtype_info(abi_type).dtype
    except (KeyError, TypeError):
        raise ValueError(f"could not map abi type {abi_type!r} to numpy dtype") from None


def _sequence_packer(item_packers):
    def pack(device, lst, value):
        if len(value) != len(item_packers):
            raise ValueError(f"expected a sequence with {len(item_packers)} values. got: {value!r}")
        items = VmVariantList(len(item_packers))
        for i, packer in enumerate(item_packers):
            try:
                item = value[i]
            except Exception as e:
                raise ValueError(f"could not get item {i} from: {value!r}: {e}") from e
            packer(device, items, item)
        lst.push_list(items)

    return pack


def _dict_packer(keyed_packers):
    def pack(device, lst, value):
        if len(value) != len(keyed_packers):
            raise ValueError(f"expected a dict with {len(keyed_packers)} values. got: {value!r}")
        items = VmVariantList(len(keyed_packers))
        for key, packer in keyed_packers:
            try:
                item = value[key]
            except Exception as e:
                raise ValueError(f"could not get item {key!r} from: {value!r}: {e}") from e
            packer(device, items, item)
        lst.push_list(items)

    return pack


def _pack_ndarray(device, lst, value, dtype):
    """Pushes an array argument: device arrays and buffer views as they
    are, anything else converted to `dtype` and copied to the device."""
    if isinstance(value, DeviceArray):
        lst.push_ref(value._buffer_view)
        return
    if isinstance(value, HalBufferView):
        lst.push_ref(value)
        return
    try:
        host = np.asarray(value, dtype=dtype, order="C")
    except Exception as e:
        raise ValueError(
            f"could not convert value to numpy array: dtype={dtype!r}, error='{e}', value={value!r}"
        ) from e
    lst.push_ref(_to_device(device, host))


def _to_device(device, host):
    element_type = map_dtype_to_hal_element_type(host.dtype)
    if element_type is None:
        raise ValueError(
            f"could not map dtype {host.dtype!r} to element type: mapping not found"
        )
    return device.allocator.allocate_buffer_copy(
        memory_type=IMPLICIT_BUFFER_ARG_MEMORY_TYPE,
        allowed_usage=IMPLICIT_BUFFER_ARG_USAGE,
        device=device,
        buffer=host,
        element_type=element_type,
    )


def _pack_dynamic(device, lst, value):
    """Pushes a value by its Python type (functions without reflection):
    ints as i64, floats as f64, lists and tuples as lists, dicts as lists
    of their values in key order, arrays as buffer views."""
    kind = type(value)
    if kind is int:
        lst.push_int(value)
    elif kind is float:
        lst.push_float(value)
    elif kind is list or kind is tuple:
        items = VmVariantList(len(value))
        for item in value:
            _pack_dynamic(device, items, item)
        lst.push_list(items)
    elif kind is dict:
        items = VmVariantList(len(value))
        for key in sorted(value):
            _pack_dynamic(device, items, value[key])
        lst.push_list(items)
    elif kind is HalBufferView:
        lst.push_ref(value)
    elif kind is DeviceArray:
        lst.push_ref(value._buffer_view)
    elif hasattr(value, "__array__"):
        try:
            host = np.asarray(value, order="C")
        except Exception as e:
            raise ValueError(
                f"could not convert value to numpy array: error='{e}', value={value!r}"
            ) from e
        lst.push_ref(_to_device(device, host))
    else:
        raise ValueError(f"could not convert python value to VM: {value!r}")


# --- VM -> Python -----------------------------------------------------------


class _Unpacker:
    """Converts a result list to Python values by the result descriptors
    (or, without them, buffer views to `DeviceArray`s and the rest as the
    list holds them)."""

    __slots__ = ("device", "current")

    def __init__(self, device):
        self.device = device
        # (list, index, descriptor) being converted, for error messages.
        self.current = None

    def sequence(self, vm_list, descs):
        count = len(vm_list)
        if descs is None:
            descs = [None] * count
        elif count != len(descs):
            self._fail(f"mismatched return arity: {count} vs {len(descs)}")
        results = []
        for index, desc in enumerate(descs):
            self.current = (vm_list, index, desc)
            if desc is None:
                results.append(self._dynamic(vm_list, index))
                continue
            kind = desc if isinstance(desc, str) else desc[0]
            convert = _RESULT_CONVERTERS.get(kind)
            if convert is None:
                self._fail(f"cannot map VM type to Python: {kind}")
            try:
                results.append(convert(self, vm_list, index, desc))
            except ReturnError:
                raise
            except Exception as e:
                self._fail("exception converting from VM type to Python", e)
        return results

    def _dynamic(self, vm_list, index):
        value = vm_list.get_variant(index)
        if isinstance(value, VmRef):
            view = value.deref(HalBufferView, True)
            if view is not None:
                return DeviceArray(self.device, view, implicit_host_transfer=True)
        return value

    def _fail(self, summary, cause=None):
        where = ""
        if self.current is not None:
            vm_list, index, desc = self.current
            try:
                where = f"{index}@{vm_list} with description {desc}"
            except Exception:
                where = f"<error printing list item> with description {desc}"
        error = ReturnError(
            f"Error processing function return: {summary} (while decoding return {where})"
        )
        raise error from cause

    def ndarray(self, vm_list, index, desc):
        view = vm_list.get_as_object(index, HalBufferView)
        try:
            dtype = map_abi_type_to_dtype_info(desc[1]).dtype
        except KeyError:
            self._fail(f"unrecognized dtype '{desc[1]}'")
        return DeviceArray(self.device, view, implicit_host_transfer=True, override_dtype=dtype)

    def slist(self, vm_list, index, desc):
        return self.sequence(vm_list.get_as_list(index), desc[1:])

    def stuple(self, vm_list, index, desc):
        return tuple(self.slist(vm_list, index, desc))

    def sdict(self, vm_list, index, desc):
        keys = [key for key, _ in desc[1:]]
        values = self.sequence(vm_list.get_as_list(index), [d for _, d in desc[1:]])
        return dict(zip(keys, values))

    def homogeneous_list(self, vm_list, index, desc):
        items = vm_list.get_as_list(index)
        return self.sequence(items, desc[1:] * len(items))


def _scalar_converter(bound):
    def convert(unpacker, vm_list, index, desc):
        value = vm_list.get_variant(index)
        if not isinstance(value, bound):
            raise ReturnError(f"expected an {bound} value but got {value.__class__}")
        return value

    return convert


_RESULT_CONVERTERS = {
    "ndarray": _Unpacker.ndarray,
    "slist": _Unpacker.slist,
    "stuple": _Unpacker.stuple,
    "sdict": _Unpacker.sdict,
    "py_homogeneous_list": _Unpacker.homogeneous_list,
    **{t: _scalar_converter(int) for t in ("i8", "i16", "i32", "i64")},
    **{t: _scalar_converter(float) for t in ("f16", "f32", "f64", "bf16")},
}
