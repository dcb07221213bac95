"""`FunctionInvoker`: calls a module function with Python values.

The invoker is native (`_binding.FunctionInvoker`): arguments are converted
by the function's calling convention, the VM runs without the GIL, and
buffer-view results come back as `DeviceArray`s.
"""

from ._binding import FunctionInvoker

__all__ = ["FunctionInvoker"]
