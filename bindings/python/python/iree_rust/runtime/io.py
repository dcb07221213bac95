"""numpy helpers over `ParameterIndex`: arrays in and out of parameter
entries (with upstream's `TENSORv0:` metadata) and `.irpa` archives from
Python values."""

import json
from os import PathLike
from typing import Any, Sequence, Union

import numpy as np

from ._binding import ParameterIndex, ParameterIndexEntry

__all__ = [
    "parameter_index_add_numpy_ndarray",
    "parameter_index_entry_as_numpy_flat_ndarray",
    "parameter_index_entry_as_numpy_ndarray",
    "SplatValue",
    "save_archive_file",
]

_METADATA_VERSION = "TENSORv0"
# Archives written by iree-turbine.
_TURBINE_METADATA_VERSION = "PYTORCH"


class SplatValue:
    """A single element repeated `count` times (a shape or a number)."""

    def __init__(self, pattern, count: Union[Sequence[int], int]):
        elements = int(np.prod(np.shape(pattern))) if not isinstance(pattern, np.generic) else 1
        if not isinstance(pattern, (np.ndarray, np.generic)):
            elements = len(pattern)
        if elements != 1:
            raise ValueError("SplatValue requires an array of a single element")
        self.pattern = pattern
        logical = count if isinstance(count, int) else int(np.prod(count))
        self.total_length = logical * pattern.itemsize

    def __repr__(self):
        return f"SplatValue({self.pattern} of {self.total_length})"


def save_archive_file(entries: "dict[str, Union[Any, SplatValue]]", file_path: PathLike):
    """Writes `entries` (key -> buffer or `SplatValue`) as an `.irpa` file."""
    index = ParameterIndex()
    for key, value in entries.items():
        if isinstance(value, SplatValue):
            index.add_splat(key, value.pattern, value.total_length)
        else:
            index.add_buffer(key, value)
    index.create_archive_file(str(file_path))


def _tensor_metadata(array: np.ndarray) -> str:
    from .dtypes import map_dtype_to_hal_element_type

    dtype = array.dtype
    description = {
        "type": "Tensor",
        "dtype": dtype.name,
        "shape": list(array.shape),
        "dtype_desc": {
            "class_name": type(dtype).__name__,
            "is_complex": bool(np.issubdtype(dtype, np.complexfloating)),
            "is_floating_point": bool(np.issubdtype(dtype, np.floating)),
            "is_signed": bool(np.issubdtype(dtype, np.signedinteger)),
            "itemsize": dtype.itemsize,
        },
    }
    if map_dtype_to_hal_element_type(dtype) is None:
        raise KeyError(f"Numpy dtype {dtype} not found.")
    return f"{_METADATA_VERSION}:{json.dumps(description)}"


def parameter_index_add_numpy_ndarray(index: ParameterIndex, name: str, array: np.ndarray):
    """Adds a copy of `array` as entry `name`, with metadata recording its
    dtype and shape."""
    metadata = _tensor_metadata(array)
    index.add_buffer(name, np.ascontiguousarray(array).tobytes(), metadata=metadata)


def parameter_index_entry_as_numpy_flat_ndarray(index_entry: ParameterIndexEntry) -> np.ndarray:
    """The entry's bytes as a flat uint8 array (for a splat, its pattern)."""
    if index_entry.is_file:
        return np.frombuffer(index_entry.file_view, dtype=np.uint8)
    if index_entry.is_splat:
        # As upstream: a 0-d array holding the pattern bytes.
        return np.array(index_entry.splat_pattern, copy=True)
    raise ValueError(f"Unsupported ParameterIndexEntry: {index_entry}")


def parameter_index_entry_as_numpy_ndarray(index_entry: ParameterIndexEntry) -> np.ndarray:
    """The entry as an array of the dtype and shape its metadata records."""
    text = index_entry.metadata.decode()
    version, sep, body = text.partition(":")
    if not sep:
        raise ValueError(
            f'Invalid metadata for parameter index entry "{index_entry.key}": '
            f"no format version prefix"
        )
    if version not in (_METADATA_VERSION, _TURBINE_METADATA_VERSION):
        raise ValueError(
            f'Unsupported metadata format version "{version}" for parameter '
            f'index entry "{index_entry.key}"'
        )
    description = json.loads(body)
    try:
        if description["type"] != "Tensor":
            raise ValueError(f"Metadata for parameter entry {index_entry.key} is not a Tensor")
        dtype = np.dtype(description["dtype"])
        shape = [int(d) for d in description["shape"]]
    except (KeyError, TypeError) as e:
        raise ValueError(f"Bad metadata for parameter entry {index_entry.key}") from e
    flat = parameter_index_entry_as_numpy_flat_ndarray(index_entry)
    return flat.view(dtype=dtype).reshape(shape)
