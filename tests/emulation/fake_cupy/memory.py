"""The stand-in's device memory: what each device holds, its capacity, CuPy's memory-pool limit,
and CuPy's out-of-memory error past either.

Every device buffer the stand-in creates (an ``empty``, a copy, a result) is counted on the
device it was made on, from its creation until it is garbage collected. A device has a
capacity (:func:`set_device_memory`; large by default), reported by ``Device().mem_info`` and
``runtime.memGetInfo``, and the default pool may carry a limit as on a GPU
(``cupy.get_default_memory_pool().set_limit(size=...)``); an allocation past either raises
:class:`OutOfMemoryError`, whose class name and module path are CuPy's
(``cupy.cuda.memory.OutOfMemoryError``), so code that catches CuPy's error catches this one.
Freed memory returns at once (the stand-in pool caches nothing: ``free_bytes()`` is 0).
"""

from __future__ import annotations

import threading
import types
import weakref

import numpy as np

from emulation.fake_cupy import devices

__all__ = ["OutOfMemoryError", "MemoryPool", "allocate", "mem_info", "set_device_memory",
           "reset", "DEFAULT_CAPACITY", "memory_namespace", "alloc_pinned_memory"]

#: A device's capacity unless a test sets one (the figure of a large card).
DEFAULT_CAPACITY = 80 << 30


class OutOfMemoryError(MemoryError):
    """CuPy's out-of-memory error (same name, module path, arguments and message)."""

    def __init__(self, size: int, total: int, limit: int = 0):
        self._size, self._total, self._limit = size, total, limit
        msg = f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes"
        msg += f", limit set to: {limit:,} bytes)." if limit else ")."
        super().__init__(msg)

    def __reduce__(self):
        return type(self), (self._size, self._total, self._limit)


OutOfMemoryError.__module__ = "cupy.cuda.memory"

_lock = threading.Lock()
_used = [0] * devices.DEVICE_COUNT
_capacity = [DEFAULT_CAPACITY] * devices.DEVICE_COUNT
_limit = [0] * devices.DEVICE_COUNT


def set_device_memory(nbytes: int | None, device: int = 0) -> None:
    """Give ``device`` a capacity of ``nbytes`` (None: the default). A stand-in knob: on a GPU
    the capacity is the card's; tests that run on both set the pool's limit instead."""
    _capacity[device] = DEFAULT_CAPACITY if nbytes is None else int(nbytes)


def reset() -> None:
    """Default capacities and no pool limits (between tests)."""
    for d in range(devices.DEVICE_COUNT):
        _capacity[d], _limit[d] = DEFAULT_CAPACITY, 0


def mem_info(device: int) -> tuple[int, int]:
    """``(free, total)`` bytes of ``device``."""
    return max(0, _capacity[device] - _used[device]), _capacity[device]


def _release(device: int, nbytes: int) -> None:
    with _lock:
        _used[device] -= nbytes


def allocate(buffer: np.ndarray, device: int | None = None) -> None:
    """Count ``buffer`` (a new device allocation's backing array) on ``device`` (default: the
    current one) until it is garbage collected.

    Raises
    ------
    OutOfMemoryError
        If the device's capacity or the pool's limit would be exceeded.
    """
    device = devices.current_id() if device is None else device
    nbytes = int(buffer.nbytes)
    with _lock:
        used = _used[device]
        limit = _limit[device]
        if used + nbytes > _capacity[device] or (limit and used + nbytes > limit):
            raise OutOfMemoryError(nbytes, used, limit)
        _used[device] = used + nbytes
    weakref.finalize(buffer, _release, device, nbytes)


class MemoryPool:
    """``cupy.get_default_memory_pool()``: per-device counts and limits (of the current
    device, as CuPy's are)."""

    def used_bytes(self) -> int:
        return _used[devices.current_id()]

    def total_bytes(self) -> int:
        return _used[devices.current_id()]

    def free_bytes(self) -> int:
        return 0

    def n_free_blocks(self) -> int:
        return 0

    def free_all_blocks(self, stream=None) -> None:
        return None

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        d = devices.current_id()
        if fraction is not None:
            size = int(_capacity[d] * fraction)
        _limit[d] = int(size or 0)

    def get_limit(self) -> int:
        return _limit[devices.current_id()]


_POOL = MemoryPool()


def get_default_memory_pool() -> MemoryPool:
    return _POOL


def alloc_pinned_memory(size: int) -> bytearray:
    """Page-locked host memory (plain host memory here; not device memory)."""
    return bytearray(size)


def memory_namespace() -> types.SimpleNamespace:
    """``cupy.cuda.memory``."""
    return types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError, MemoryPool=MemoryPool,
                                 alloc_pinned_memory=alloc_pinned_memory)
