"""Tiny array producers that speak only the interchange protocols (no framework needed).

``DLPackOnly`` exposes ``__dlpack__`` / ``__dlpack_device__`` over a NumPy array, ``CAIOnly``
only ``__cuda_array_interface__``: what an unknown library's array looks like to gpu_eval.
The interop tests and the bad-input fuzz test both feed them to the public API.
"""

from __future__ import annotations

import numpy as np


class DLPackOnly:
    """An unknown producer that speaks DLPack and nothing else, over a NumPy array
    (``device_type`` 2 pretends it lies on a CUDA device, for the stand-in CuPy)."""

    def __init__(self, a: np.ndarray, device_type: int = 1, on_export=None):
        self._a, self._device, self._on_export = a, device_type, on_export
        self.streams: list = []  # the stream each consumer asked for

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.streams.append(stream)
        if self._on_export is not None:
            self._on_export(stream)
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return (self._device, 0)


class CAIOnly:
    """An unknown producer with only ``__cuda_array_interface__`` (v3, with a stream)."""

    def __init__(self, a: np.ndarray, stream: int | None = None):
        self._a, self.stream = a, stream

    @property
    def __cuda_array_interface__(self):
        return {"shape": self._a.shape, "typestr": self._a.dtype.str, "strides": None,
                "data": (self._a.ctypes.data, False), "version": 3, "stream": self.stream}
