"""A stand-in for the slice of CuPy that gpu_eval.cuda.holdem uses, running the real kernels on the CPU.

"Device" arrays are a NumPy subclass (so CuPy's NumPy-like operations just work), device
pointers are host pointers, and each kernel launch calls the same kernel compiled for the host
by emulation.hostbuild. With it, the CUDA backend's Python logic (module set-up, table upload
through the __constant__ symbols, launch sizes, the two-stream streaming of host arrays,
launch splitting in the enumeration, validation of device inputs) runs on machines without a
GPU. tests/test_cuda_emulated.py also checks that the real CuPy has every attribute used here.
"""

from __future__ import annotations

import ctypes
import types

import numpy as np

from emulation import hostbuild

uint8, uint16, uint32, uint64, int32, int64, float64 = (
    np.uint8, np.uint16, np.uint32, np.uint64, np.int32, np.int64, np.float64)
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


# Mark the class as CuPy's for gpu_eval.cuda.holdem.is_cupy_array.
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

    def __init__(self, name: str, host: hostbuild.HostKernels):
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
    def __new__(cls, code=None, *, options=(), **kwargs):
        if code is not None and '#include "variants.cu"' in code:
            return _VariantModule(code, options)  # gpu_eval.cuda.variants' module
        return super().__new__(cls)

    def __init__(self, code=None, *, options=(), **kwargs):
        self.code, self.options = code, options
        self.host = hostbuild.load()
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


class _VariantKernel:
    """A kernel of kernels/variants.cu (+ convert.cu), run by the host build of
    tests/variants_host.py (conversions: by emulation.hostbuild's)."""

    num_regs = 40
    shared_size_bytes = 0

    def __init__(self, name: str, lib, holdem_lib):
        self.name, self.lib, self.holdem_lib = name, lib, holdem_lib

    def __call__(self, grid, block, args, shared_mem=0):
        launches.append((self.name, tuple(grid), tuple(block)))
        assert all(isinstance(a, (ndarray, np.generic)) for a in args), \
            "kernel arguments must be device arrays or NumPy scalars (typed)"
        name = self.name
        if name == "ge_shortdeck_eval_masks":
            m, variant, out, n = args
            assert (m.dtype, variant.dtype, out.dtype, n.dtype) == (
                np.uint64, np.int32, np.uint16, np.uint64)
            assert m.size >= int(n) and out.size >= int(n) and int(variant) in (0, 1)
            self.lib.ge_host_shortdeck_eval_masks(_ptr(m), int(variant), _ptr(out), int(n))
        elif name == "ge_shortdeck_eval_ids":
            ids, k, variant, out, n = args
            assert (ids.dtype, k.dtype, variant.dtype, out.dtype, n.dtype) == (
                np.uint8, np.int32, np.int32, np.uint16, np.uint64)
            assert ids.size >= int(n) * int(k) and 5 <= int(k) <= 9
            self.lib.ge_host_shortdeck_eval_ids(_ptr(ids), int(k), int(variant), _ptr(out),
                                                int(n))
        elif name == "ge_omaha_eval_ids":
            hole, h, board, b, shared, out, n = args
            assert (hole.dtype, h.dtype, board.dtype, b.dtype, shared.dtype, out.dtype,
                    n.dtype) == (np.uint8, np.int32, np.uint8, np.int32, np.int32, np.uint16,
                                 np.uint64)
            assert hole.size >= int(n) * int(h)
            assert board.size >= (int(b) if int(shared) else int(n) * int(b))
            self.lib.ge_host_omaha_eval_ids(_ptr(hole), int(h), _ptr(board), int(b),
                                            int(shared), _ptr(out), int(n))
        elif name == "ge_wild_eval_masks":
            m, jokers, ranks, bug, out, n = args
            assert (m.dtype, jokers.dtype, ranks.dtype, bug.dtype, out.dtype, n.dtype) == (
                np.uint64, np.uint8, np.uint32, np.int32, np.uint16, np.uint64)
            assert m.size >= int(n) and jokers.size >= int(n)
            self.lib.ge_host_wild_eval_masks(_ptr(m), _ptr(jokers), int(ranks), int(bug),
                                             _ptr(out), int(n))
        elif name in ("ge_ids_to_masks", "ge_deadhorse_to_masks"):
            a, k, masks, counts, n = args
            assert a.dtype == (np.uint8 if "ids" in name else np.int32)
            assert a.size == int(n) * int(k) and masks.size == counts.size == int(n)
            getattr(self.holdem_lib, "ge_host_" + name[3:])(
                _ptr(a), int(k), _ptr(masks), _ptr(counts), int(n), 1)
        elif name == "ge_mask_counts":
            masks, counts, n = args
            assert (masks.dtype, counts.dtype, n.dtype) == (np.uint64, np.uint8, np.uint64)
            self.holdem_lib.ge_host_mask_counts(_ptr(masks), _ptr(counts), int(n), 1)
        else:
            raise AssertionError(f"unknown variant kernel {name}")


class _VariantModule:
    """The RawModule of gpu_eval.cuda.variants: its __constant__ table structs are the host
    build's (written through ge_host_set_*), its kernels run there."""

    def __init__(self, code, options):
        from emulation import variants_host

        self.code, self.options = code, options
        self.host = variants_host.load()
        self.holdem = hostbuild.load()
        lib = self.host.lib
        self._setters = {"ge_bitmask_tables": lib.ge_host_set_bitmask,
                         "ge_shortdeck_tables": lib.ge_host_set_shortdeck,
                         "ge_omaha_tables": lib.ge_host_set_omaha,
                         "ge_wild_tables": lib.ge_host_set_wild}
        self._symbols = {
            "ge_bitmask_tables": np.zeros(self.holdem.lib.ge_host_bitmask_table_count(),
                                          dtype=np.uint64),
            "ge_shortdeck_tables": np.zeros(lib.ge_host_shortdeck_table_count(),
                                            dtype=np.uint64),
            "ge_omaha_tables": np.zeros(lib.ge_host_omaha_table_count(), dtype=np.uint64),
            "ge_wild_tables": np.zeros(lib.ge_host_wild_table_count(), dtype=np.uint64)}

    def get_function(self, name):
        return _VariantKernel(name, self.host.lib, self.holdem.lib)

    def get_global(self, name):
        setter = self._setters[name]
        return _MemoryPointer(self._symbols[name],
                              on_write=lambda a: setter(ctypes.c_void_p(a.ctypes.data)))


def broadcast_to(a, shape):
    return np.broadcast_to(_host(a), shape).view(ndarray)


def sort(a, axis=-1):
    return np.sort(_host(a), axis=axis).view(ndarray)


def bincount(a, minlength=0):
    return np.bincount(_host(a), minlength=minlength).view(ndarray)


def log2(a):
    return np.log2(_host(a)).view(ndarray)


def rint(a):
    return np.rint(_host(a)).view(ndarray)


def ones(shape, dtype=np.float64):
    return np.ones(shape, dtype=dtype).view(ndarray)


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
