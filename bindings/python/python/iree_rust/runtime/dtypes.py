"""numpy dtypes, their names, their ABI type names (`iree.abi` reflection)
and HAL element types: one table, read in every direction.

bfloat16 and the float8 types come from ml_dtypes. They have element types
but no ABI name, so they are outside `DTypeInfo`'s table, as upstream has
them."""

import dataclasses
from typing import Any, Optional

import numpy as np

from . import _binding
from ._enums import HalElementType

__all__ = [
    "DTypeInfo",
    "DTYPE_TO_ABI_TYPE",
    "element_type_to_dtype",
    "map_abi_type_to_dtype_info",
    "map_dtype_to_dtype_info",
    "map_dtype_to_hal_element_type",
    "map_name_to_dtype_info",
]


@dataclasses.dataclass(frozen=True)
class DTypeInfo:
    """A numpy dtype with its name, ABI type name and HAL element type."""

    dtype: np.dtype
    name: str
    abi_type: str
    hal_type: HalElementType

    @property
    def is_complex(self) -> bool:
        return np.issubdtype(self.dtype, np.complexfloating)

    @property
    def is_floating_point(self) -> bool:
        return np.issubdtype(self.dtype, np.floating)

    @property
    def is_integer(self) -> bool:
        return np.issubdtype(self.dtype, np.integer)

    @property
    def is_signed(self) -> bool:
        return np.issubdtype(self.dtype, np.signedinteger)


# (numpy type, ABI type name, element type). Unsigned integers share their
# ABI names with the signed ones; the ABI name maps back to the signed type.
_TABLE = [
    (np.float16, "f16", HalElementType.FLOAT_16),
    (np.float32, "f32", HalElementType.FLOAT_32),
    (np.float64, "f64", HalElementType.FLOAT_64),
    (np.int8, "i8", HalElementType.SINT_8),
    (np.uint8, "i8", HalElementType.UINT_8),
    (np.int16, "i16", HalElementType.SINT_16),
    (np.uint16, "i16", HalElementType.UINT_16),
    (np.int32, "i32", HalElementType.SINT_32),
    (np.uint32, "i32", HalElementType.UINT_32),
    (np.int64, "i64", HalElementType.SINT_64),
    (np.uint64, "i64", HalElementType.UINT_64),
    (np.bool_, "i1", HalElementType.BOOL_8),
    (np.complex64, "complex<f32>", HalElementType.COMPLEX_64),
    (np.complex128, "complex<f64>", HalElementType.COMPLEX_128),
]

_DTYPE_TO_INFO = {}
for _t, _abi, _e in _TABLE:
    _dt = np.dtype(_t)
    _DTYPE_TO_INFO[_dt] = DTypeInfo(_dt, _dt.name, _abi, _e)
_NAME_TO_INFO = {info.name: info for info in _DTYPE_TO_INFO.values()}
_ABI_TYPE_TO_INFO = {
    info.abi_type: info
    for info in _DTYPE_TO_INFO.values()
    if not info.is_integer or info.is_signed
}

#: numpy dtype -> ABI type name (`np.dtype(np.uint8)` -> `"i8"`).
DTYPE_TO_ABI_TYPE = {info.dtype: info.abi_type for info in _DTYPE_TO_INFO.values()}

_DTYPE_TO_ELEMENT_TYPE = {info.dtype: info.hal_type for info in _DTYPE_TO_INFO.values()}
_ELEMENT_TYPE_TO_DTYPE = {int(info.hal_type): info.dtype for info in _DTYPE_TO_INFO.values()}
# Signless integers read as signed.
for _bits, _t in [(8, np.int8), (16, np.int16), (32, np.int32), (64, np.int64)]:
    _ELEMENT_TYPE_TO_DTYPE[(0x10 << 24) | _bits] = np.dtype(_t)

# The ml_dtypes types: element types only. The native side gets them as a
# table, since they have no numpy type string of their own.
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


def map_dtype_to_dtype_info(dtype) -> DTypeInfo:
    """The `DTypeInfo` of a numpy dtype (or type); KeyError when unknown."""
    dtype = np.dtype(dtype)
    try:
        return _DTYPE_TO_INFO[dtype]
    except KeyError:
        raise KeyError(f"Numpy dtype {dtype} not found.") from None


def map_name_to_dtype_info(name: str) -> DTypeInfo:
    """The `DTypeInfo` of a dtype name (`"float32"`); KeyError when unknown."""
    try:
        return _NAME_TO_INFO[name]
    except KeyError:
        raise KeyError(f"Numpy dtype name {name!r} not found.") from None


def map_abi_type_to_dtype_info(abi_type: str) -> DTypeInfo:
    """The `DTypeInfo` of an ABI type name (`"i16"`, signed for integers);
    KeyError when unknown."""
    try:
        return _ABI_TYPE_TO_INFO[abi_type]
    except KeyError:
        raise KeyError(f"ABI type {abi_type!r} not found.") from None


def element_type_to_dtype(element_type):
    """The numpy dtype of HAL element type `element_type` (an int or a
    `HalElementType`); KeyError when numpy has none."""
    try:
        return _ELEMENT_TYPE_TO_DTYPE[int(element_type)]
    except KeyError:
        raise KeyError(f"No numpy dtype for element type {int(element_type):#x}") from None


def map_dtype_to_hal_element_type(dtype: Any) -> Optional[HalElementType]:
    """The `HalElementType` of a numpy dtype (or type), or None."""
    try:
        return _DTYPE_TO_ELEMENT_TYPE.get(np.dtype(dtype))
    except TypeError:
        return None
