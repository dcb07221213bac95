"""Enumerations of the HAL and VM, with upstream's member names and values.

Members print as `Type.MEMBER`; `int()`, `&` and `|` give plain ints, as
upstream's do.
"""

import enum

__all__ = [
    "BufferCompatibility",
    "BufferUsage",
    "HalElementType",
    "Linkage",
    "MemoryAccess",
    "MemoryType",
]


class _IntLikeEnum(enum.Enum):
    def __int__(self):
        return self.value

    def __index__(self):
        return self.value

    def __and__(self, other):
        return self.value & int(other)

    __rand__ = __and__

    def __or__(self, other):
        return self.value | int(other)

    __ror__ = __or__

    def __repr__(self):
        return f"{type(self).__name__}.{self.name}"

    __str__ = __repr__


class Linkage(_IntLikeEnum):
    INTERNAL = 0
    IMPORT = 1
    EXPORT = 2
    IMPORT_OPTIONAL = 3
    EXPORT_OPTIONAL = 4


class MemoryType(_IntLikeEnum):
    NONE = 0
    OPTIMAL = 1
    HOST_VISIBLE = 2
    HOST_COHERENT = 4
    HOST_CACHED = 8
    HOST_LOCAL = 70
    DEVICE_VISIBLE = 16
    DEVICE_LOCAL = 48


class MemoryAccess(_IntLikeEnum):
    NONE = 0
    READ = 1
    WRITE = 2
    DISCARD = 4
    DISCARD_WRITE = 6
    ALL = 7


class BufferUsage(_IntLikeEnum):
    NONE = 0
    TRANSFER_SOURCE = 1 << 0
    TRANSFER_TARGET = 1 << 1
    TRANSFER = 3
    DISPATCH_INDIRECT_PARAMETERS = 1 << 8
    DISPATCH_UNIFORM_READ = 1 << 9
    DISPATCH_STORAGE_READ = 1 << 10
    DISPATCH_STORAGE_WRITE = 1 << 11
    DISPATCH_STORAGE = (1 << 10) | (1 << 11)
    DISPATCH_IMAGE_READ = 1 << 12
    DISPATCH_IMAGE_WRITE = 1 << 13
    DISPATCH_IMAGE = (1 << 12) | (1 << 13)
    SHARING_EXPORT = 1 << 16
    SHARING_REPLICATE = 1 << 17
    SHARING_CONCURRENT = 1 << 18
    SHARING_IMMUTABLE = 1 << 19
    MAPPING_SCOPED = 1 << 24
    MAPPING_PERSISTENT = 1 << 25
    MAPPING_OPTIONAL = 1 << 26
    MAPPING_ACCESS_RANDOM = 1 << 27
    MAPPING_ACCESS_SEQUENTIAL_WRITE = 1 << 28
    MAPPING = (1 << 24) | (1 << 27)
    DEFAULT = 3 | (1 << 10) | (1 << 11)


class BufferCompatibility(_IntLikeEnum):
    NONE = 0
    ALLOCATABLE = 1
    IMPORTABLE = 2
    EXPORTABLE = 4
    QUEUE_TRANSFER = 1 << 10
    QUEUE_DISPATCH = 1 << 11


def _et(numerical_type, bits):
    return (numerical_type << 24) | bits


class HalElementType(_IntLikeEnum):
    NONE = 0
    OPAQUE_8 = 8
    OPAQUE_16 = 16
    OPAQUE_32 = 32
    OPAQUE_64 = 64
    BOOL_8 = _et(0x13, 8)
    INT_4 = _et(0x10, 4)
    INT_8 = _et(0x10, 8)
    INT_16 = _et(0x10, 16)
    INT_32 = _et(0x10, 32)
    INT_64 = _et(0x10, 64)
    SINT_4 = _et(0x11, 4)
    SINT_8 = _et(0x11, 8)
    SINT_16 = _et(0x11, 16)
    SINT_32 = _et(0x11, 32)
    SINT_64 = _et(0x11, 64)
    UINT_4 = _et(0x12, 4)
    UINT_8 = _et(0x12, 8)
    UINT_16 = _et(0x12, 16)
    UINT_32 = _et(0x12, 32)
    UINT_64 = _et(0x12, 64)
    FLOAT_16 = _et(0x21, 16)
    FLOAT_32 = _et(0x21, 32)
    FLOAT_64 = _et(0x21, 64)
    BFLOAT_16 = _et(0x22, 16)
    COMPLEX_64 = _et(0x23, 64)
    COMPLEX_128 = _et(0x23, 128)
    FLOAT_8_E4M3_FN = _et(0x25, 8)
    FLOAT_8_E4M3_FNUZ = _et(0x27, 8)
    FLOAT_8_E5M2 = _et(0x24, 8)
    FLOAT_8_E5M2_FNUZ = _et(0x26, 8)
    FLOAT_8_E8M0_FNU = _et(0x28, 8)

    @staticmethod
    def map_to_dtype(element_type):
        from .dtypes import element_type_to_dtype

        return element_type_to_dtype(int(element_type))

    @staticmethod
    def is_byte_aligned(element_type):
        return (int(element_type) & 0xFF) % 8 == 0

    @staticmethod
    def dense_byte_count(element_type):
        return (int(element_type) & 0xFF) // 8
