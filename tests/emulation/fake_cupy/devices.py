"""The stand-in's devices: two of them, a current one per thread (``with Device(1):``), their
properties, and ``cupy.cuda.runtime``'s device calls.

Device memory is :mod:`.memory`'s; stream order :mod:`.streams`'.
"""

from __future__ import annotations

import threading
import types

__all__ = ["Device", "DEVICE_COUNT", "current_id", "properties", "runtime_namespace"]

#: Devices the stand-in has (0 and 1), so multi-device code paths run in CI.
DEVICE_COUNT = 2
_PROPS = {"multiProcessorCount": 2, "maxThreadsPerMultiProcessor": 2048,
          "regsPerMultiprocessor": 65536, "sharedMemPerMultiprocessor": 233472,
          "name": b"Emulated", "major": 9, "minor": 0}

_local = threading.local()


def current_id() -> int:
    """The current device of this thread (0 until ``Device(i)`` is entered or used)."""
    return getattr(_local, "device", 0)


def _check(device_id: int) -> int:
    device_id = int(device_id)
    if not 0 <= device_id < DEVICE_COUNT:
        raise RuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {device_id} (the "
                           f"stand-in CuPy has {DEVICE_COUNT} devices)")
    return device_id


class Device:
    """``cupy.cuda.Device``: ``Device()`` is the current device; ``with Device(i):`` makes
    ``i`` current until the block ends."""

    def __init__(self, device=None):
        self.id = current_id() if device is None else _check(getattr(device, "id", device))
        self._prev: list[int] = []

    def __enter__(self):
        self._prev.append(current_id())
        _local.device = self.id
        return self

    def __exit__(self, *exc):
        _local.device = self._prev.pop()
        return False

    def use(self):
        _local.device = self.id

    def synchronize(self):
        from emulation.fake_cupy import streams

        streams.device_synchronize()

    @property
    def mem_info(self) -> tuple[int, int]:
        """``(free, total)`` bytes of this device (total: its cap, when one is set)."""
        from emulation.fake_cupy import memory

        return memory.mem_info(self.id)

    @property
    def compute_capability(self) -> str:
        return f"{_PROPS['major']}{_PROPS['minor']}"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("device", self.id))

    def __repr__(self):
        return f"<CUDA Device {self.id}>"


def properties(device_id: int) -> dict:
    """``getDeviceProperties``: a small device (2 SMs), the same for both."""
    _check(device_id)
    return dict(_PROPS)


def _set_device(device_id: int) -> None:
    _local.device = _check(device_id)


def runtime_namespace(device_synchronize, mem_get_info) -> types.SimpleNamespace:
    """``cupy.cuda.runtime``: the calls the package makes."""
    return types.SimpleNamespace(
        getDeviceCount=lambda: DEVICE_COUNT,
        getDevice=current_id,
        setDevice=_set_device,
        getDeviceProperties=properties,
        deviceSynchronize=device_synchronize,
        memGetInfo=mem_get_info,
    )
