"""numpy dtypes <-> HAL element types (bfloat16 and the float8 types
through ml_dtypes, when it is installed)."""

import numpy as np

from . import _binding
from ._enums import HalElementType

__all__ = [
    "element_type_to_dtype",
    "map_dtype_to_hal_element_type",
]

_PLAIN = [
    (np.float16, HalElementType.FLOAT_16),
    (np.float32, HalElementType.FLOAT_32),
    (np.float64, HalElementType.FLOAT_64),
    (np.int8, HalElementType.SINT_8),
    (np.uint8, HalElementType.UINT_8),
    (np.int16, HalElementType.SINT_16),
    (np.uint16, HalElementType.UINT_16),
    (np.int32, HalElementType.SINT_32),
    (np.uint32, HalElementType.UINT_32),
    (np.int64, HalElementType.SINT_64),
    (np.uint64, HalElementType.UINT_64),
    (np.bool_, HalElementType.BOOL_8),
    (np.complex64, HalElementType.COMPLEX_64),
    (np.complex128, HalElementType.COMPLEX_128),
]

_DTYPE_TO_ELEMENT_TYPE = {np.dtype(t): e for t, e in _PLAIN}
_ELEMENT_TYPE_TO_DTYPE = {int(e): np.dtype(t) for t, e in _PLAIN}
# Signless integers read as signed.
for _bits, _t in [(8, np.int8), (16, np.int16), (32, np.int32), (64, np.int64)]:
    _ELEMENT_TYPE_TO_DTYPE[(0x10 << 24) | _bits] = np.dtype(_t)

_EXTRA = {}
try:
    import ml_dtypes

    for _name, _e in [
        ("bfloat16", HalElementType.BFLOAT_16),
        ("float8_e4m3fn", HalElementType.FLOAT_8_E4M3_FN),
        ("float8_e4m3fnuz", HalElementType.FLOAT_8_E4M3_FNUZ),
        ("float8_e5m2", HalElementType.FLOAT_8_E5M2),
        ("float8_e5m2fnuz", HalElementType.FLOAT_8_E5M2_FNUZ),
        ("float8_e8m0fnu", HalElementType.FLOAT_8_E8M0_FNU),
    ]:
        if hasattr(ml_dtypes, _name):
            _dt = np.dtype(getattr(ml_dtypes, _name))
            _EXTRA[_dt] = int(_e)
            _DTYPE_TO_ELEMENT_TYPE[_dt] = _e
            _ELEMENT_TYPE_TO_DTYPE[int(_e)] = _dt
except ImportError:
    pass

_binding._set_dtype_table(_EXTRA)


def element_type_to_dtype(element_type):
    """The numpy dtype of HAL element type `element_type` (an int or a
    `HalElementType`); KeyError when numpy has none."""
    try:
        return _ELEMENT_TYPE_TO_DTYPE[int(element_type)]
    except KeyError:
        raise KeyError(f"No numpy dtype for element type {int(element_type):#x}") from None


def map_dtype_to_hal_element_type(dtype):
    """The `HalElementType` of a numpy dtype, or None."""
    try:
        return _DTYPE_TO_ELEMENT_TYPE.get(np.dtype(dtype))
    except TypeError:
        return None
