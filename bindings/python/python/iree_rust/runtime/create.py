"""Module constructors taking upstream's enum arguments."""

from . import _binding

__all__ = ["create_hal_module", "create_io_parameters_module"]

create_hal_module = _binding.create_hal_module
create_io_parameters_module = _binding.create_io_parameters_module
