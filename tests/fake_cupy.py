"""A stand-in for the slice of CuPy that gpu_eval._cuda uses, running the real kernels on the CPU.

"Device" arrays are a NumPy subclass (so CuPy's NumPy-like operations just work), device
pointers are host pointers, and each kernel launch calls the same kernel compiled for the host
by gpu_eval._hostbuild. With it, the CUDA backend's Python logic (module set-up, table upload
through the __constant__ symbols, launch sizes, the two-stream streaming of host arrays,
launch splitting in the enumeration, validation of device inputs) runs on machines without a
GPU. tests/test_cuda_emulated.py also checks that the real CuPy has every attribute used here.
"""

from __future__ import annotations

import ctypes
import types

import numpy as np

from gpu_eval import _hostbuild

uint8, uint16, uint32, uint64, int32, int64 = (np.uint8, np.uint16, np.uint32, np.uint64,
                                                np.int32, np.int64)
launches: list[tuple[str, tuple, tuple]] = []  # (kernel, grid, block) of every launch


class _MemoryPointer:
    def __init__(self, backing: np.ndarray, on_write=None):
        self._backing = backing
        self._on_write = on_write

    @property
    def ptr(self) -> int:
        return self._backing.ctypes.data

    def copy_from_host_async(self, mem, size, stream=None):
        assert isinstance(stream, Stream), "pass the stream explicitly"
        assert size <= self._backing.nbytes
        ctypes.memmove(self.ptr, mem, size)
        if self._on_write is not None:
            self._on_write(self._backing)

    def copy_to_host_async(self, mem, size, stream=None):
        assert isinstance(stream, Stream), "pass the stream explicitly"
        assert size <= self._backing.nbytes
        ctypes.memmove(mem, self.ptr, size)


class Device:
    def __init__(self, device_id=0):
        self.id = int(device_id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Stream:
    current = None

    def __init__(self, non_blocking=False):
        self.synchronized = 0

    def __enter__(self):
        self._prev, Stream.current = Stream.current, self
        return self

    def __exit__(self, *exc):
        Stream.current = self._prev
        return False

    def synchronize(self):
        self.synchronized += 1


class ndarray(np.ndarray):
    """A "device" array: a NumPy array that must be fetched with ``.get()`` like CuPy's."""

    def __new__(cls, shape, dtype=np.float64, memptr=None):
        if memptr is None:
            return np.empty(shape, dtype=dtype).view(cls)
        n = int(np.prod(shape))
        backing = memptr._backing.view(dtype)
        assert backing.size >= n, "symbol smaller than the array written over it"
        out = backing[:n].reshape(shape).view(cls)
        out._symbol = memptr
        return out

    @property
    def data(self):
        assert self.flags.c_contiguous, "kernels get contiguous arrays only"
        return _MemoryPointer(self)

    @property
    def device(self):
        return Device(0)

    def set(self, arr, stream=None):
        arr = np.asarray(arr)
        assert self.shape == arr.shape and self.dtype == arr.dtype
        self[...] = arr
        symbol = getattr(self, "_symbol", None)
        if symbol is not None and symbol._on_write is not None:
            symbol._on_write(symbol._backing)

    def get(self, stream=None, order="C", out=None, blocking=True):
        if out is None:
            return np.array(self, copy=True).view(np.ndarray)
        out[...] = self
        return out

    def __getitem__(self, item):
        # Like CuPy: indexing down to one element gives a 0-d device array, not a scalar.
        out = super().__getitem__(item)
        return out if isinstance(out, ndarray) else np.asarray(out).view(ndarray)


# Mark the class as CuPy's for gpu_eval._cuda.is_cupy_array.
ndarray.__module__ = "cupy"


def _dev(a) -> ndarray:
    return np.asarray(a).view(ndarray) if not isinstance(a, ndarray) else a


def _host(a) -> np.ndarray:
    return a.view(np.ndarray) if isinstance(a, ndarray) else np.asarray(a)


def asarray(a, dtype=None):
    return np.array(_host(a), dtype=dtype, copy=True).view(ndarray)


def ascontiguousarray(a, dtype=None):
    return np.ascontiguousarray(_host(a), dtype=dtype).view(ndarray)


def empty(shape, dtype=np.float64):
    return ndarray(shape, dtype)


def zeros(shape, dtype=np.float64):
    return np.zeros(shape, dtype=dtype).view(ndarray)


def where(cond, x, y):
    return np.where(_host(cond), _host(x), _host(y)).view(ndarray)


def flatnonzero(a):
    return np.flatnonzero(_host(a)).view(ndarray)


def asnumpy(a):
    return np.array(_host(a), copy=True)


def _ptr(x) -> ctypes.c_void_p:
    return ctypes.c_void_p(x.data.ptr)


class _Kernel:
    num_regs = 40

    def __init__(self, name: str, host: _hostbuild.HostKernels):
        self.name = name
        self.host = host
        self.shared_size_bytes = 4 * 7463 if name == "ge_enumerate_counts" else 0

    def __call__(self, grid, block, args, shared_mem=0):
        launches.append((self.name, tuple(grid), tuple(block)))
        assert all(isinstance(a, (ndarray, np.generic)) for a in args), \
            "kernel arguments must be device arrays or NumPy scalars (typed)"
        lib = self.host.lib
        fn = getattr(lib, "ge_host_" + self.name[3:], None)
        if self.name.endswith("eval_masks"):
            m, out, n = args
            assert n.dtype == np.uint64 and m.dtype == np.uint64 and out.dtype == np.uint16
            fn(_ptr(m), _ptr(out), int(n), 1)
        elif self.name.endswith(("eval_ids", "eval_deadhorse")):
            a, k, out, n = args
            assert k.dtype == np.int32 and n.dtype == np.uint64
            assert a.dtype == (np.uint8 if self.name.endswith("ids") else np.int32)
            fn(_ptr(a), int(k), _ptr(out), int(n), 1)
        elif self.name in ("ge_ids_to_masks", "ge_deadhorse_to_masks"):
            a, k, masks, counts, n = args
            assert a.dtype == (np.uint8 if "ids" in self.name else np.int32)
            assert (k.dtype, masks.dtype, counts.dtype, n.dtype) == (
                np.int32, np.uint64, np.uint8, np.uint64)
            assert a.size == int(n) * int(k) and masks.size == counts.size == int(n)
            fn(_ptr(a), int(k), _ptr(masks), _ptr(counts), int(n), 1)
        elif self.name == "ge_mask_counts":
            masks, counts, n = args
            assert (masks.dtype, counts.dtype, n.dtype) == (np.uint64, np.uint8, np.uint64)
            fn(_ptr(masks), _ptr(counts), int(n), 1)
        elif self.name == "ge_enumerate_counts":
            k, lo, hi, run, binom, hist = args
            assert (k.dtype, lo.dtype, hi.dtype, run.dtype) == (
                np.int32, np.uint64, np.uint64, np.uint32)
            assert int(hi) - int(lo) < 2**32, "per-block counters are 32-bit"
            fn(int(k), int(lo), int(hi), int(run), _ptr(binom), _ptr(hist), int(grid[0]), 1)
        else:
            raise AssertionError(f"unknown kernel {self.name}")


class RawModule:
    def __init__(self, code=None, *, options=(), **kwargs):
        self.code, self.options = code, options
        self.host = _hostbuild.load()
        lib = self.host.lib
        self._symbols = {
            "ge_bitmask_tables": np.zeros(lib.ge_host_bitmask_table_count(), dtype=np.uint64),
            "ge_phash_tables": np.zeros(lib.ge_host_phash_table_count(), dtype=np.uint64)}

    def get_function(self, name):
        return _Kernel(name, self.host)

    def get_global(self, name):
        setter = {"ge_bitmask_tables": self.host.lib.ge_host_set_bitmask_tables,
                  "ge_phash_tables": self.host.lib.ge_host_set_phash_tables}[name]
        return _MemoryPointer(self._symbols[name],
                              on_write=lambda a: setter(ctypes.c_void_p(a.ctypes.data)))


def _alloc_pinned_memory(size):
    return bytearray(size)


_PROPS = {"multiProcessorCount": 2, "maxThreadsPerMultiProcessor": 2048,
          "regsPerMultiprocessor": 65536, "sharedMemPerMultiprocessor": 233472,
          "name": b"Emulated"}

cuda = types.SimpleNamespace(
    Device=Device,
    Stream=Stream,
    alloc_pinned_memory=_alloc_pinned_memory,
    runtime=types.SimpleNamespace(
        getDeviceCount=lambda: 1,
        getDevice=lambda: 0,
        getDeviceProperties=lambda i: dict(_PROPS),
        deviceSynchronize=lambda: None,
    ),
)
