"""The high-level API: `Config`, `SystemContext` and the `load_vm_*`
helpers, with modules reachable as `context.modules.<module>.<function>`."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _binding
from .create import create_hal_module
from .function import FunctionInvoker
from .system_setup import get_first_device

__all__ = [
    "load_vm_flatbuffer",
    "load_vm_flatbuffer_file",
    "load_vm_module",
    "load_vm_modules",
    "normalize_value",
    "Config",
    "SystemContext",
    "TARGET_BACKEND_TO_DRIVER",
]

TARGET_BACKEND_TO_DRIVER = {
    "llvm-cpu": "local-task",
    "vmvx": "local-task",
    "vulkan-spirv": "vulkan",
}


class Config:
    """A device, a VM instance and the default modules (`hal` on the
    device) of the contexts made with it."""

    device: _binding.HalDevice
    vm_instance: _binding.VmInstance
    default_vm_modules: Tuple[_binding.VmModule, ...]

    def __init__(
        self,
        driver_name: Optional[str] = None,
        *,
        device: Optional[_binding.HalDevice] = None,
    ):
        if device is not None and driver_name is not None:
            raise ValueError(
                "Either 'device' or 'driver_name' can be specified (not both)"
            )
        if device is None:
            names = driver_name.split(",") if driver_name is not None else None
            device = get_first_device(names)
        self.device = device
        self.vm_instance = _binding.VmInstance()
        self.default_vm_modules = (create_hal_module(self.vm_instance, self.device),)


def normalize_value(value: Any):
    """`value` as IREE takes it: lists, tuples, dicts and None unchanged;
    anything else a numpy array (Python ints and floats as 32-bit)."""
    if value is None or isinstance(value, (list, tuple, dict)):
        return value
    array = np.asarray(value)
    if isinstance(value, (bool, int, float)):
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64:
            array = array.astype(np.int32)
    return array


class BoundModule:
    """A module of a `SystemContext`: functions as attributes or items."""

    def __init__(self, context: "SystemContext", vm_module: _binding.VmModule):
        self._context = context
        self._vm_module = vm_module
        # Per function looked up by attribute: the invoker's `_share`, which
        # makes a new invoker object over the first one's state.
        self._shares = {}

    @property
    def name(self):
        return self._vm_module.name

    @property
    def vm_module(self):
        return self._vm_module

    def __getattr__(self, name):
        # A new invoker per lookup, as upstream's (`module.fn is module.fn`
        # is false there too), but after the first lookup of a name it
        # shares the first one's state instead of resolving the function
        # and building an invoker again: the idiom upstream's docs teach,
        # `ctx.modules.module.fn(a, b)`, paid about 2.4 us per call for that.
        share = self._shares.get(name)
        if share is not None:
            return share()
        try:
            invoker = self[name]
        except KeyError:
            raise AttributeError(name)
        if isinstance(invoker, _binding.FunctionInvoker):
            self._shares[name] = invoker._share
        return invoker

    def __getitem__(self, name):
        # A new invoker per lookup, as upstream makes (bind it to a name to
        # call it repeatedly).
        vm_function = self._vm_module.lookup_function(name)
        if vm_function is None:
            raise KeyError(f"Function '{name}' not found in module '{self}'")
        return FunctionInvoker(
            self._context.vm_context, self._context.config.device, vm_function
        )

    def __repr__(self):
        return f"<BoundModule {self._vm_module!r}>"


class BoundModules(dict):
    """Modules by name, also as attributes."""

    def __getattr__(self, name):
        try:
            module = self[name]
        except KeyError:
            raise AttributeError(name)
        # As `BoundModule` keeps its functions: a name is bound once and
        # never rebound (`add_vm_modules` refuses duplicates), so the next
        # `modules.name` is a plain attribute lookup.
        self.__dict__[name] = module
        return module


class SystemContext:
    """A VM context on a `Config`'s device. Without `vm_modules` it is
    dynamic: modules are added later with `add_vm_module(s)`."""

    def __init__(
        self,
        vm_modules: Optional[Sequence[_binding.VmModule]] = None,
        config: Optional[Config] = None,
    ):
        self._config = config if config is not None else Config()
        self._is_dynamic = vm_modules is None
        defaults = tuple(self._config.default_vm_modules)
        if self._is_dynamic:
            self._vm_context = _binding.VmContext(instance=self._config.vm_instance)
            self._vm_context.register_modules(defaults)
            registered = defaults
        else:
            vm_modules = tuple(vm_modules)
            registered = defaults + _inline_dependencies(self._config, defaults, vm_modules) + vm_modules
            self._vm_context = _binding.VmContext(
                instance=self._config.vm_instance, modules=registered
            )
        self._bound_modules = BoundModules(
            (m.name, BoundModule(self, m)) for m in registered
        )

    @property
    def vm_context(self) -> _binding.VmContext:
        return self._vm_context

    @property
    def is_dynamic(self) -> bool:
        return self._is_dynamic

    @property
    def config(self) -> Config:
        return self._config

    @property
    def instance(self) -> _binding.VmInstance:
        return self._config.vm_instance

    @property
    def modules(self) -> BoundModules:
        return self._bound_modules

    def add_module_dependency(self, name, minimum_version=0):
        module = _binding.VmModule.resolve_module_dependency(
            self._config.vm_instance, name, minimum_version
        )
        self._vm_context.register_modules([module])

    def add_vm_modules(self, vm_modules):
        assert self._is_dynamic, "Cannot 'add_module' on a static context"
        # Names are bound before registering (as upstream does: a module
        # that fails to register keeps its name).
        for m in vm_modules:
            if m.name in self._bound_modules:
                raise ValueError(f"Attempt to register duplicate VmModule: '{m.name}'")
            self._bound_modules[m.name] = BoundModule(self, m)
        registered = tuple(m.vm_module for m in self._bound_modules.values())
        inline = _inline_dependencies(self._config, registered, vm_modules)
        for m in inline:
            self._bound_modules[m.name] = BoundModule(self, m)
        self._vm_context.register_modules(inline + tuple(vm_modules))

    def add_vm_module(self, vm_module):
        self.add_vm_modules((vm_module,))


# The modules of the inline execution models; they need no device, so a
# context gets them when its modules import them.
_INLINE_MODULES = ("hal_inline", "hal_loader")


def _inline_dependencies(config, registered, vm_modules):
    """`hal_inline`/`hal_loader` modules that `vm_modules` import and
    neither they nor `registered` provide, in the order first imported."""
    have = {m.name for m in registered} | {m.name for m in vm_modules}
    out = []
    for m in vm_modules:
        for name, minimum_version, _optional in getattr(m, "_dependencies", ()):
            if name in _INLINE_MODULES and name not in have:
                out.append(
                    _binding.VmModule.resolve_module_dependency(config.vm_instance, name, minimum_version)
                )
                have.add(name)
    return tuple(out)


def load_vm_modules(*vm_modules, config: Optional[Config] = None):
    """The `BoundModule`s of `vm_modules` in a new `SystemContext`."""
    context = SystemContext(vm_modules=vm_modules, config=config)
    return [context.modules[m.name] for m in vm_modules]


def load_vm_module(vm_module, config: Optional[Config] = None):
    """The `BoundModule` of `vm_module` in a new `SystemContext`."""
    return load_vm_modules(vm_module, config=config)[0]


def _config_for(driver: Optional[str], backend: Optional[str]) -> Config:
    if driver is None and backend is None:
        raise ValueError(
            "Either 'driver' or 'backend' must be specified, but got "
            "'None' for both."
        )
    if driver is not None and backend is not None:
        raise ValueError(
            "Cannot specify both 'driver' and a 'backend' to infer the driver from."
        )
    return Config(driver if driver is not None else TARGET_BACKEND_TO_DRIVER[backend])


def load_vm_flatbuffer(
    vm_flatbuffer: bytes, *, driver: Optional[str] = None, backend: Optional[str] = None
) -> BoundModule:
    """A module from `.vmfb` bytes (copied), on `driver` or the driver of
    `backend`."""
    config = _config_for(driver, backend)
    module = _binding.VmModule.copy_buffer(config.vm_instance, vm_flatbuffer)
    return load_vm_module(module, config)


def load_vm_flatbuffer_file(
    path: str,
    *,
    driver: Optional[str] = None,
    backend: Optional[str] = None,
    destroy_callback=None,
) -> BoundModule:
    """A module from a `.vmfb` file, on `driver` or the driver of
    `backend`; `destroy_callback` runs when the module is released."""
    config = _config_for(driver, backend)
    module = _binding.VmModule.mmap(
        config.vm_instance, str(path), destroy_callback=destroy_callback
    )
    return load_vm_module(module, config)
