"""A stand-in for the slice of CuPy that gpu_eval uses, running the real kernels on the CPU.

"Device" arrays are a NumPy subclass (so CuPy's NumPy-like operations just work), device
pointers are host pointers, and each kernel launch runs the kernel's host build with the
launch's own grid and block. With it the CUDA backend's Python logic (module set-up, table
upload through the ``__constant__`` symbols, launch sizes, streaming, chunking by free memory,
validation of device inputs) runs on machines without a GPU; tests/cuda/test_cuda_emulated.py
checks that the real CuPy has every attribute used here. Split by concern, as numba-cuda's
simulator is:

- :mod:`.devices`: two devices, the current one (``with Device(1):``), properties;
- :mod:`.memory`: what each device holds, a capacity per device and the pool's limit, CuPy's
  ``OutOfMemoryError`` past either, ``mem_info``;
- :mod:`.streams`: streams and events, with stream order modelled (a missing wait reads poison
  and is listed in :data:`races`);
- :mod:`.arrays`: the device arrays and CuPy's array functions;
- :mod:`.kernels`: ``RawModule`` and its kernels, derived from gpu_eval's kernel manifest.

Installed as ``cupy`` by the ``stand_in_cupy`` fixture (tests/conftest.py); imported as
``from emulation import fake_cupy``.
"""

from __future__ import annotations

import types

import numpy as np

from emulation.fake_cupy import devices, memory, streams
from emulation.fake_cupy.arrays import (
    asarray,
    ascontiguousarray,
    asnumpy,
    bincount,
    broadcast_to,
    concatenate,
    empty,
    flatnonzero,
    from_dlpack,
    full,
    log2,
    maximum,
    minimum,
    moveaxis,
    ndarray,
    ones,
    rint,
    sort,
    stack,
    where,
    zeros,
)
from emulation.fake_cupy.kernels import RawKernel, RawModule, launches
from emulation.fake_cupy.memory import get_default_memory_pool, set_device_memory
from emulation.fake_cupy.streams import POISON, races, writer

__all__ = ["ndarray", "asarray", "ascontiguousarray", "asnumpy", "bincount", "broadcast_to",
           "concatenate", "empty", "flatnonzero", "from_dlpack", "full", "log2", "maximum", "minimum",
           "moveaxis", "ones", "rint", "sort", "stack", "where", "zeros", "RawModule",
           "RawKernel", "launches", "races", "writer", "POISON", "cuda", "get_default_memory_pool",
           "set_device_memory", "reset", "uint8", "uint16", "uint32", "uint64", "int32",
           "int64", "float64"]

__version__ = "stand-in"

uint8, uint16, uint32, uint64, int32, int64, float64 = (
    np.uint8, np.uint16, np.uint32, np.uint64, np.int32, np.int64, np.float64)


def _mem_get_info() -> tuple[int, int]:
    return memory.mem_info(devices.current_id())


cuda = types.SimpleNamespace(
    Device=devices.Device,
    Stream=streams.Stream,
    ExternalStream=streams.ExternalStream,
    Event=streams.Event,
    get_current_stream=streams.get_current_stream,
    get_elapsed_time=streams.get_elapsed_time,
    alloc_pinned_memory=memory.alloc_pinned_memory,
    memory=memory.memory_namespace(),
    runtime=devices.runtime_namespace(streams.device_synchronize, _mem_get_info),
    driver=types.SimpleNamespace(),
)


def reset() -> None:
    """Between tests: no launches or races listed, default device memory, device 0 current."""
    launches.clear()
    races.clear()
    memory.reset()
    devices.Device(0).use()
