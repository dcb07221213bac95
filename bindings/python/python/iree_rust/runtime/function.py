"""`FunctionInvoker`: calls a module function with Python values.

The invoker is native (`_binding.FunctionInvoker`): arguments are converted
by the function's calling convention, the VM runs without the GIL, and
buffer-view results come back as `DeviceArray`s.

Functions compiled with legacy `iree.abi` JSON reflection (`{"a": [...],
"r": [...]}`) are called through `_abi_call` below, which interprets the
descriptors as upstream does: arguments are cast to the declared dtypes,
results get the declared dtypes (`i1` as bool) and structure (`stuple`,
`slist`, `sdict`, `py_homogeneous_list`).
"""

import numpy as np

from ._binding import FunctionInvoker, HalBufferView, VmRef
from .array_interop import DeviceArray

__all__ = ["FunctionInvoker"]

# ABI scalar/element type names and the numpy dtypes that carry them.
_ABI_DTYPES = {
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
}
# How bool arrays travel: as bytes.
_ABI_STORAGE = {"i1": np.int8}


class ArgumentError(ValueError):
    pass


class ReturnError(ValueError):
    pass


def _abi_dtype(name):
    try:
        return np.dtype(_ABI_DTYPES[name])
    except KeyError:
        if name == "bf16":
            import ml_dtypes

            return np.dtype(ml_dtypes.bfloat16)
        raise


def _pack_arg(value, desc):
    kind = desc if isinstance(desc, str) else desc[0]
    if kind == "ndarray" and not isinstance(value, (DeviceArray, HalBufferView, VmRef)):
        storage = _ABI_STORAGE.get(desc[1])
        dtype = np.dtype(storage) if storage is not None else _abi_dtype(desc[1])
        return np.asarray(value).astype(dtype, copy=False)
    return value


def _abi_call(invoker, arg_descs, ret_descs, args, kwargs):
    if kwargs:
        raise ValueError(f"specified kwarg '{next(iter(kwargs))}' is unknown")
    if len(args) != len(arg_descs):
        missing = min(len(args), len(arg_descs))
        raise ValueError(
            f"mismatched call arity: expected a value for argument {missing}"
            if len(args) < len(arg_descs)
            else f"mismatched call arity: expected {len(arg_descs)} arguments but got {len(args)}"
        )
    try:
        packed = [_pack_arg(v, d) for v, d in zip(args, arg_descs)]
    except Exception as e:
        raise ArgumentError(f"Error passing argument: {e}") from e
    results = invoker._call_raw(*packed)
    # A single structured result stands for all the function's results.
    if len(ret_descs) == 1 and isinstance(ret_descs[0], list) and ret_descs[0] and ret_descs[0][0] in ("slist", "stuple", "sdict"):
        results = [results]
    converted = _unpack_sequence(invoker, results, ret_descs)
    if len(converted) == 1:
        return converted[0]
    if not converted:
        return None
    return tuple(converted)


def _unpack_sequence(invoker, values, descs):
    if len(values) != len(descs):
        raise ReturnError(
            f"Error processing function return: mismatched return arity: {len(values)} vs {len(descs)}"
        )
    return [_unpack(invoker, v, d) for v, d in zip(values, descs)]


def _as_list(value):
    if isinstance(value, list):
        return value
    if isinstance(value, VmRef):
        from ._binding import VmVariantList

        lst = value.deref(VmVariantList)
        return [lst.get_variant(i) for i in range(len(lst))]
    raise ReturnError(f"Error processing function return: expected a list, got {type(value).__name__}")


def _unpack(invoker, value, desc):
    kind = desc if isinstance(desc, str) else desc[0]
    if kind == "ndarray":
        if isinstance(value, VmRef):
            value = DeviceArray(invoker._device_obj, value.deref(HalBufferView), implicit_host_transfer=True)
        if not isinstance(value, DeviceArray):
            raise ReturnError(f"Error processing function return: expected an array, got {type(value).__name__}")
        try:
            dtype = _abi_dtype(desc[1])
        except KeyError:
            raise ReturnError(f"Error processing function return: unrecognized dtype '{desc[1]}'") from None
        return DeviceArray(value._device, value._buffer_view, implicit_host_transfer=True, override_dtype=dtype)
    if kind in ("slist", "stuple"):
        items = _unpack_sequence(invoker, _wrap(invoker, _as_list(value)), desc[1:])
        return tuple(items) if kind == "stuple" else items
    if kind == "sdict":
        keys = [k for k, _ in desc[1:]]
        items = _unpack_sequence(invoker, _wrap(invoker, _as_list(value)), [d for _, d in desc[1:]])
        return dict(zip(keys, items))
    if kind == "py_homogeneous_list":
        items = _wrap(invoker, _as_list(value))
        return _unpack_sequence(invoker, items, desc[1:] * len(items))
    if kind in ("i8", "i16", "i32", "i64"):
        if not isinstance(value, int):
            raise ReturnError(f"expected an {int} value but got {value.__class__}")
        return value
    if kind in ("f16", "f32", "f64", "bf16"):
        if not isinstance(value, float):
            raise ReturnError(f"expected an {float} value but got {value.__class__}")
        return value
    raise ReturnError(f"Error processing function return: cannot map VM type to Python: {kind}")


def _wrap(invoker, values):
    out = []
    for v in values:
        if isinstance(v, VmRef) and v.isinstance(HalBufferView):
            v = DeviceArray(invoker._device_obj, v.deref(HalBufferView), implicit_host_transfer=True)
        out.append(v)
    return out
