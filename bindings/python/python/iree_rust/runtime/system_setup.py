"""Drivers and devices for the whole process."""

import logging
import os
from threading import RLock
from typing import Collection, Dict, Optional, Sequence, Union

from ._binding import HalDevice, HalDriver, get_cached_hal_driver

__all__ = [
    "get_device",
    "get_driver",
    "get_first_device",
    "query_available_drivers",
    "DEFAULT_DRIVER_NAMES",
]

DEFAULT_DRIVER_NAMES = "local-task,cuda,vulkan"

_devices: Dict[str, Union[HalDevice, Exception]] = {}
_lock = RLock()


def query_available_drivers() -> Collection[str]:
    """The names of the drivers this runtime has."""
    return HalDriver.query()


def get_driver(device_uri: str) -> HalDriver:
    """The driver of `device_uri` (a driver name or `driver://path`)."""
    return get_cached_hal_driver(device_uri)


def get_device(device_uri: str, cache: bool = True) -> HalDevice:
    """The device of `device_uri`, created once and then shared unless
    `cache` is False."""
    with _lock:
        if cache:
            known = _devices.get(device_uri)
            if isinstance(known, Exception):
                raise known
            if known is not None:
                return known
        device = get_driver(device_uri).create_device_by_uri(device_uri)
        if cache:
            _devices[device_uri] = device
        return device


def get_first_device(
    device_uris: Optional[Sequence[str]] = None, cache: bool = True
) -> HalDevice:
    """The first device that can be created from `device_uris` (default:
    $IREE_DEFAULT_DEVICE, else local-task, cuda, vulkan)."""
    if device_uris is None:
        names = os.environ.get("IREE_DEFAULT_DEVICE", DEFAULT_DRIVER_NAMES)
        device_uris = [n.strip() for n in names.split(",")]
    failure = None
    for uri in device_uris:
        try:
            return get_device(uri, cache=cache)
        except ValueError:
            continue  # No such driver.
        except Exception as e:  # The driver could not make a device.
            logging.info("Failed to create device %s: %s", uri, e)
            failure = e
    if failure is not None:
        raise RuntimeError(
            "Could not create device. Exception for last tried follows."
        ) from failure
    raise ValueError(f"No device found from list {device_uris}")
