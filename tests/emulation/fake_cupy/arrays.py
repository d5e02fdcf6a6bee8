"""The stand-in's device arrays: a NumPy subclass that must be fetched with ``.get()`` like
CuPy's, remembers its device, counts its memory there (:mod:`.memory`) and takes part in
stream order (:mod:`.streams`); CuPy's array functions the package uses, and the protocols
(``__cuda_array_interface__``, DLPack) other libraries' arrays come in by.

NumPy operations on a device array run at once on the current stream (after the work queued
there) and record it as the writer of what they create or write. As on CuPy, an operation on
an array of another device than the current one is refused (``ValueError``).
"""

from __future__ import annotations

import ctypes

import numpy as np

from emulation.fake_cupy import devices, memory, streams

__all__ = ["ndarray", "MemoryPointer", "asarray", "ascontiguousarray", "empty", "zeros", "ones",
           "full", "where", "flatnonzero", "asnumpy", "from_dlpack", "broadcast_to", "moveaxis",
           "stack", "maximum", "minimum", "sort", "bincount", "log2", "rint", "concatenate"]


class MemoryPointer:
    """``ndarray.data``: the buffer's address and its async copies (on an explicit stream)."""

    def __init__(self, backing: np.ndarray, device_id: int = 0):
        self._backing = backing
        self.device_id = device_id

    @property
    def ptr(self) -> int:
        return self._backing.ctypes.data

    @property
    def device(self) -> devices.Device:
        return devices.Device(self.device_id)

    def copy_from_host_async(self, mem, size, stream=None):
        assert isinstance(stream, streams.Stream), "pass the stream explicitly"
        assert size <= self._backing.nbytes
        backing = self._backing
        stream.submit(lambda _poisoned: ctypes.memmove(backing.ctypes.data, mem, size),
                      reads=(), writes=(backing,))

    def copy_to_host_async(self, mem, size, stream=None):
        assert isinstance(stream, streams.Stream), "pass the stream explicitly"
        assert size <= self._backing.nbytes
        backing = self._backing

        def run(poisoned):
            src = poisoned.get(0, backing)
            ctypes.memmove(mem, np.ascontiguousarray(src).ctypes.data, size)

        stream.submit(run, reads=(backing,), writes=())


def _same_device(*arrays) -> None:
    """CuPy's refusal of an operation on an array that lives on another device."""
    dev = devices.current_id()
    for a in arrays:
        if isinstance(a, ndarray) and a._device_id != dev:
            raise ValueError(f"The device where the array resides ({a._device_id}) is "
                             f"different from the current device ({dev}).")


class ndarray(np.ndarray):
    """A "device" array on one of the stand-in's devices (see the module's docstring)."""

    _device_id = 0

    def __new__(cls, shape, dtype=np.float64, memptr=None):
        if memptr is None:
            out = np.empty(shape, dtype=dtype)
            memory.allocate(out)
            out.view(np.uint8).reshape(-1)[...] = streams.POISON  # never written: poison
            streams.fresh(out)
            return out.view(cls)
        n = int(np.prod(shape))
        backing = memptr._backing.view(dtype)
        assert backing.size >= n, "symbol smaller than the array written over it"
        out = backing[:n].reshape(shape).view(cls)
        out._device_id = memptr.device_id
        return out

    def __array_finalize__(self, obj):
        self._device_id = getattr(obj, "_device_id", devices.current_id())
        if self.base is None:  # NumPy made new memory for it (astype, copy, ...)
            memory.allocate(self, self._device_id)

    @property
    def data(self):
        assert self.flags.c_contiguous, "kernels get contiguous arrays only"
        return MemoryPointer(self, self._device_id)

    @property
    def device(self):
        return devices.Device(self._device_id)

    @property
    def __cuda_array_interface__(self):
        stream = streams.current_stream()
        return {"shape": self.shape, "typestr": self.dtype.str, "version": 3,
                "strides": None if self.flags.c_contiguous else self.strides,
                "data": (self.ctypes.data, False),
                "stream": 1 if stream is streams.Stream.null else stream.ptr}

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        # Like CuPy: the consumer's stream waits for the work on the current one.
        if stream is not None and stream != -1:
            streams.ExternalStream(stream).wait_event(streams.current_stream().record())
        return self.view(np.ndarray).__dlpack__()

    def __dlpack_device__(self):
        return (2, self._device_id)

    def set(self, arr, stream=None):
        arr = np.asarray(arr)
        assert self.shape == arr.shape and self.dtype == arr.dtype
        streams.wrote(self)
        self.view(np.ndarray)[...] = arr

    def get(self, stream=None, order="C", out=None, blocking=True):
        streams.host_sync(stream)
        if out is None:
            return np.array(self, copy=True).view(np.ndarray)
        out[...] = self
        return out

    def __getitem__(self, item):
        streams.eager()
        # Like CuPy: indexing down to one element gives a 0-d device array, not a scalar.
        out = super().__getitem__(_host(item) if isinstance(item, ndarray) else item)
        if isinstance(out, ndarray):
            if not np.shares_memory(out, self):  # fancy indexing made a new array
                streams.wrote(out)
            return out
        return _new(np.asarray(out))

    def __setitem__(self, item, value):
        _same_device(self, value)
        streams.wrote(self)  # runs the work queued before it first
        self.view(np.ndarray)[_host(item) if isinstance(item, ndarray) else item] = _host(value)

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        _same_device(*inputs, *(out or ()))
        streams.eager()
        inputs = tuple(_host(x) if isinstance(x, ndarray) else x for x in inputs)
        if out is not None:
            kwargs["out"] = tuple(_host(o) if isinstance(o, ndarray) else o for o in out)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        if out is not None:
            for o in out:
                streams.wrote(o)
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    # Reading a value on the host waits for the stream (CuPy synchronises there).
    def __bool__(self):
        streams.host_sync()
        return bool(self.view(np.ndarray))

    def __int__(self):
        streams.host_sync()
        return int(self.view(np.ndarray))

    def __index__(self):
        streams.host_sync()
        return int(self.view(np.ndarray))

    def __float__(self):
        streams.host_sync()
        return float(self.view(np.ndarray))

    def item(self, *args):
        streams.host_sync()
        return self.view(np.ndarray).item(*args)

    def tolist(self):
        streams.host_sync()
        return self.view(np.ndarray).tolist()


# Mark the class as CuPy's for gpu_eval.cuda.availability.is_cupy_array.
ndarray.__module__ = "cupy"


def _wrap(result):
    if isinstance(result, tuple):
        return tuple(_wrap(r) for r in result)
    if isinstance(result, np.ndarray):
        return _new(result)
    return result


def _new(result, *inputs):
    """``result`` (a host array just computed) as a device array written now on the current
    stream, unless it is a view of one of ``inputs`` (then nothing was written or allocated)."""
    result = np.asarray(result)
    if any(isinstance(x, np.ndarray) and np.shares_memory(result, x) for x in inputs):
        return result.view(ndarray)
    root = result
    while isinstance(root.base, np.ndarray):
        root = root.base
    memory.allocate(root)
    out = result.view(ndarray)
    streams.wrote(out)
    return out


def _host(a) -> np.ndarray:
    return a.view(np.ndarray) if isinstance(a, ndarray) else np.asarray(a)


def _op(fn, *args, view_of=(), **kwargs):
    """A CuPy function run now on the current stream, on arrays of the current device."""
    _same_device(*args)
    streams.eager()
    return _new(fn(*(_host(a) if isinstance(a, np.ndarray) else a for a in args), **kwargs),
                *view_of)


class _HostView:
    """Host memory named by a protocol, for NumPy to view (device pointers are host ones)."""

    def __init__(self, capsule=None, interface=None):
        self.capsule = capsule
        if interface is not None:
            self.__array_interface__ = interface

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def _foreign(a: np.ndarray, device_id: int) -> ndarray:
    """Another library's memory viewed as a device array (not counted: it is not ours)."""
    out = a.view(ndarray)
    out._device_id = device_id
    return out


def _from_cai(a) -> ndarray:
    """``__cuda_array_interface__`` input, viewed without a copy. As CuPy does by default
    (``CUPY_CUDA_ARRAY_INTERFACE_SYNC=1``), the producer's ``stream`` is synchronised."""
    cai = dict(a.__cuda_array_interface__)
    stream = cai.pop("stream", None)
    if stream is not None:
        streams.ExternalStream(stream).synchronize()
    cai["version"] = 3
    return _foreign(np.asarray(_HostView(interface=cai)), devices.current_id())


def from_dlpack(x, *, device=None, copy=None) -> ndarray:
    """A CUDA producer's array without a copy; like CuPy, pass the producer the consumer's
    stream (the current one; 1 for the legacy null stream) so it makes the data ready there."""
    kind, dev = (int(v) for v in x.__dlpack_device__())
    if kind not in (2, 13):
        raise RuntimeError(f"the stand-in CuPy reads CUDA DLPack arrays only, not type {kind}")
    ptr = streams.current_stream().ptr
    capsule = x.__dlpack__(stream=ptr if ptr else 1)
    return _foreign(np.from_dlpack(_HostView(capsule)), dev if kind == 2 else 0)


def asarray(a, dtype=None):
    streams.eager()
    if isinstance(a, ndarray) and (dtype is None or np.dtype(dtype) == a.dtype):
        return a  # CuPy: no copy (and no move to the current device)
    if not isinstance(a, np.ndarray) and hasattr(a, "__cuda_array_interface__"):
        return asarray(_from_cai(a), dtype)
    _same_device(a)
    return _new(np.array(_host(a), dtype=dtype, copy=True))


def ascontiguousarray(a, dtype=None):
    return _op(np.ascontiguousarray, a, dtype=dtype, view_of=(a,))


def empty(shape, dtype=np.float64):
    return ndarray(shape, dtype)


def zeros(shape, dtype=np.float64):
    return _op(np.zeros, shape, dtype=dtype)


def ones(shape, dtype=np.float64):
    return _op(np.ones, shape, dtype=dtype)


def full(shape, fill_value, dtype=None):
    return _op(np.full, shape, fill_value, dtype=dtype)


def where(cond, x, y):
    return _op(np.where, cond, x, y)


def flatnonzero(a):
    return _op(np.flatnonzero, a)


def broadcast_to(a, shape):
    return _op(np.broadcast_to, a, shape, view_of=(a,))


def moveaxis(a, source, destination):
    return _op(np.moveaxis, a, source, destination, view_of=(a,))


def stack(arrays, axis=0):
    _same_device(*arrays)
    return _op(np.stack, [_host(a) for a in arrays], axis=axis)


def concatenate(arrays, axis=0):
    _same_device(*arrays)
    return _op(np.concatenate, [_host(a) for a in arrays], axis=axis)


def maximum(a, b):
    return _op(np.maximum, a, b)


def minimum(a, b):
    return _op(np.minimum, a, b)


def sort(a, axis=-1):
    return _op(np.sort, a, axis=axis)


def bincount(a, minlength=0):
    return _op(np.bincount, a, minlength=minlength)


def log2(a):
    return _op(np.log2, a)


def rint(a):
    return _op(np.rint, a)


def asnumpy(a, stream=None):
    streams.host_sync(stream)
    return np.array(_host(a), copy=True)
