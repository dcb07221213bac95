"""iree_rust.runtime: the `iree.runtime` Python API (3.13) over the iree-rs
runtime. Programs written for `iree.runtime` run unchanged but for the
import."""

from . import _binding

from ._binding import (
    FunctionInvoker,
    FileHandle,
    HalBuffer,
    HalCommandBuffer,
    HalBufferView,
    HalDevice,
    HalDriver,
    HalModuleDebugSink,
    HalFence,
    HalReplayRecorder,
    HalSemaphore,
    HalAllocator,
    MappedMemory,
    ParameterIndex,
    ParameterIndexEntry,
    ParameterProvider,
    PyModuleInterface,
    Tokenizer,
    TokenizerDecodeStream,
    TokenizerEncodeStream,
    VmBuffer,
    VmContext,
    VmFunction,
    VmInstance,
    VmModule,
    VmRef,
    VmVariantList,
    create_hal_module,
    create_io_parameters_module,
)
from ._enums import (
    BufferCompatibility,
    BufferUsage,
    HalElementType,
    Linkage,
    MemoryAccess,
    MemoryType,
)
from .array_interop import *
from .device_loop import HalDeviceLoopBridge
from .system_api import *
from .system_setup import (
    get_device,
    get_driver,
    get_first_device,
    query_available_drivers,
)
from .function import *
from .dtypes import map_dtype_to_hal_element_type
from .io import *
from .benchmark import *
from . import flags
