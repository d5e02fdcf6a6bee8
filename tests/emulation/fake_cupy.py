"""A stand-in for the slice of CuPy that gpu_eval.cuda uses, running the real kernels on the CPU.

"Device" arrays are a NumPy subclass (so CuPy's NumPy-like operations just work), device
pointers are host pointers, and each kernel launch calls the same kernel compiled for the host
by emulation.hostbuild. With it, the CUDA backend's Python logic (module set-up, table upload
through the __constant__ symbols, launch sizes, the two-stream streaming of host arrays,
launch splitting in the enumeration, validation of device inputs) runs on machines without a
GPU. tests/cuda/test_cuda_emulated.py also checks that the real CuPy has every attribute used here.

Stream order is modelled, so a missing wait fails a test here instead of racing on a GPU:

- the null stream runs its work at once; a ``Stream()`` of our own *queues* its launches and
  async copies, which run only when the stream is synchronised, when another stream waits on
  an event recorded on it, or at ``deviceSynchronize``;
- every device buffer remembers the stream and position of its last writer; a launch or copy
  reading a buffer written on another stream that it is not ordered after (through
  ``wait_event`` on an event recorded after the write, or a host synchronisation of the
  writer before the launch was queued) reads it as poison (bytes 0x2A), as a real device
  may; ``races`` lists each such read;
- a fresh ``empty`` buffer holds poison too.
"""

from __future__ import annotations

import ctypes
import time
import types
import weakref

import numpy as np

from emulation import hostbuild

uint8, uint16, uint32, uint64, int32, int64, float64 = (
    np.uint8, np.uint16, np.uint32, np.uint64, np.int32, np.int64, np.float64)
launches: list[tuple[str, tuple, tuple]] = []  # (kernel, grid, block) of every launch


POISON = 0x2A  # what a buffer reads as before its writer ran (in range for every kernel)
races: list[str] = []  # one line per poisoned read (a missing stream-order wait)


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


_WRITERS: dict[int, tuple] = {}  # id(root buffer) -> (weakref to it, stream, position)


def _wrote(a, stream=None, seq=None) -> None:
    """Record that ``stream`` (default: the current one, now) wrote buffer ``a``."""
    stream = stream or current_stream()
    if seq is None:
        stream._run_to(stream.seq)  # an eager op comes after everything queued before it
        stream.seq += 1
        stream.done = seq = stream.seq
    r = _root(np.asarray(a))
    _WRITERS[id(r)] = (weakref.ref(r), stream, seq)


def _fresh(a) -> None:
    """A new allocation: no writer (stale entries of freed memory must not match)."""
    _WRITERS.pop(id(_root(np.asarray(a))), None)


def _writer(a):
    r = _root(np.asarray(a))
    entry = _WRITERS.get(id(r))
    if entry is None or entry[0]() is not r:
        return None
    return entry[1], entry[2]


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
        backing = self._backing

        def run(_poisoned):
            ctypes.memmove(backing.ctypes.data, mem, size)  # reads the host memory now
            if self._on_write is not None:
                self._on_write(backing)

        stream._submit(run, reads=(), writes=(backing,))

    def copy_to_host_async(self, mem, size, stream=None):
        assert isinstance(stream, Stream), "pass the stream explicitly"
        assert size <= self._backing.nbytes
        backing = self._backing

        def run(poisoned):
            src = poisoned.get(0, backing)
            ctypes.memmove(mem, np.ascontiguousarray(src).ctypes.data, size)

        stream._submit(run, reads=(backing,), writes=())


class Device:
    def __init__(self, device_id=0):
        self.id = int(device_id)

    def synchronize(self):
        _device_synchronize()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_HOST: dict = {}  # stream -> position the host has seen completed (synchronisations)
_STREAMS: weakref.WeakSet = weakref.WeakSet()


class Stream:
    current = None  # None: the null stream
    null: Stream

    def __init__(self, non_blocking=False, *, _null=False):
        self.non_blocking = non_blocking
        self.eager = _null
        self.synchronized = 0
        self.seq = 0    # operations submitted
        self.done = 0   # operations run
        self._queue: list = []
        self._waits: dict = {}  # stream -> position waited on through an event
        self._prev: list = []
        _STREAMS.add(self)

    def __enter__(self):
        self._prev.append(Stream.current)  # a stack: ExternalStream may re-enter a stream
        Stream.current = self
        return self

    def __exit__(self, *exc):
        Stream.current = self._prev.pop()
        return False

    def __hash__(self):
        return id(self)

    def synchronize(self):
        self.synchronized += 1
        self._run_to(self.seq)
        _HOST[self] = self.seq

    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event):
        if event.stream is None or event.stream is self:
            return
        event.stream._run_to(event.seq)
        self._waits[event.stream] = max(self._waits.get(event.stream, 0), event.seq)

    @property
    def ptr(self):
        return 0 if self.eager else id(self)

    def _clock(self) -> dict:
        clock = dict(_HOST)
        for s, v in self._waits.items():
            clock[s] = max(clock.get(s, 0), v)
        if not self.non_blocking and self is not Stream.null:  # legacy: waits on the null
            clock[Stream.null] = Stream.null.seq
        return clock

    def _submit(self, fn, reads, writes) -> None:
        """Queue (or, on the null stream, run) ``fn(poisoned)``: ``poisoned`` maps the index
        of each read buffer not ordered after its writer to a poison copy."""
        self.seq += 1
        op = (self.seq, self._clock(), fn, tuple(reads))
        for w in writes:
            _wrote(w, self, self.seq)
        if self.eager:
            self._run_to(self.seq - 1)
            self._execute(op)
        else:
            self._queue.append(op)

    def _run_to(self, seq: int) -> None:
        while self._queue and self._queue[0][0] <= seq:
            self._execute(self._queue.pop(0))

    def _execute(self, op) -> None:
        seq, clock, fn, reads = op
        poisoned = {}
        for i, a in enumerate(reads):
            w = _writer(a)
            if w is not None and w[0] is not self and clock.get(w[0], 0) < w[1]:
                races.append(f"stream {id(self):#x} op {seq} reads a buffer written by "
                             f"stream {id(w[0]):#x} op {w[1]} without waiting for it")
                p = np.empty_like(np.asarray(a).view(np.ndarray))
                p.view(np.uint8).reshape(-1)[...] = POISON
                poisoned[i] = p
        fn(poisoned)
        self.done = seq


Stream.null = Stream(_null=True)


def ExternalStream(ptr, device_id=-1) -> Stream:
    """CuPy's handle on a stream made elsewhere: here the stand-in stream with that pointer
    (0, 1 and 2, the legacy and per-thread default streams, are the null stream)."""
    if int(ptr) in (0, 1, 2):
        return Stream.null
    for stream in list(_STREAMS):
        if stream.ptr == int(ptr):
            return stream
    raise ValueError(f"the stand-in CuPy has no stream {int(ptr):#x}")


def current_stream() -> Stream:
    return Stream.current or Stream.null


def get_current_stream(device_id=None) -> Stream:
    return current_stream()


def _host_sync(stream: Stream | None = None) -> None:
    """A blocking read back: the stream's work so far has run and the host knows it."""
    (stream or current_stream()).synchronize()


def _device_synchronize() -> None:
    for s in list(_STREAMS):
        s._run_to(s.seq)
        _HOST[s] = s.seq


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.stream, self.seq = None, 0

    def record(self, stream=None):
        self.stream = stream or current_stream()
        self.seq = self.stream.seq
        self.host_time = time.perf_counter()  # what get_elapsed_time reads: host seconds

    def synchronize(self):
        if self.stream is not None:
            self.stream._run_to(self.seq)
            _HOST[self.stream] = max(_HOST.get(self.stream, 0), self.seq)

    @property
    def done(self):
        # A query is where the stand-in's device makes progress: the work up to the event runs
        # now, and the host has seen it complete (as cudaEventQuery's success tells it).
        if self.stream is not None:
            self.synchronize()
        return self.stream is None or self.stream.done >= self.seq


class ndarray(np.ndarray):
    """A "device" array: a NumPy array that must be fetched with ``.get()`` like CuPy's.

    NumPy operations on it run at once on the current stream (after the work queued there),
    and record the current stream as the writer of the arrays they create or write."""

    def __new__(cls, shape, dtype=np.float64, memptr=None):
        if memptr is None:
            out = np.empty(shape, dtype=dtype)
            out.view(np.uint8).reshape(-1)[...] = POISON  # never written: reads as poison
            _fresh(out)
            return out.view(cls)
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

    @property
    def __cuda_array_interface__(self):
        stream = current_stream()
        return {"shape": self.shape, "typestr": self.dtype.str, "version": 3,
                "strides": None if self.flags.c_contiguous else self.strides,
                "data": (self.ctypes.data, False),
                "stream": 1 if stream is Stream.null else stream.ptr}

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        # Like CuPy: the consumer's stream waits for the work on the current one.
        if stream is not None and stream != -1:
            ExternalStream(stream).wait_event(current_stream().record())
        return self.view(np.ndarray).__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)

    def set(self, arr, stream=None):
        arr = np.asarray(arr)
        assert self.shape == arr.shape and self.dtype == arr.dtype
        _wrote(self)
        self.view(np.ndarray)[...] = arr
        symbol = getattr(self, "_symbol", None)
        if symbol is not None and symbol._on_write is not None:
            symbol._on_write(symbol._backing)

    def get(self, stream=None, order="C", out=None, blocking=True):
        _host_sync(stream)
        if out is None:
            return np.array(self, copy=True).view(np.ndarray)
        out[...] = self
        return out

    def __getitem__(self, item):
        _eager()
        # Like CuPy: indexing down to one element gives a 0-d device array, not a scalar.
        out = super().__getitem__(_host(item) if isinstance(item, ndarray) else item)
        if isinstance(out, ndarray):
            if not np.shares_memory(out, self):  # fancy indexing made a new array
                _wrote(out)
            return out
        out = np.asarray(out).view(ndarray)
        _wrote(out)
        return out

    def __setitem__(self, item, value):
        _wrote(self)  # runs the work queued before it first
        self.view(np.ndarray)[_host(item) if isinstance(item, ndarray) else item] = _host(value)

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        _eager()
        inputs = tuple(_host(x) if isinstance(x, ndarray) else x for x in inputs)
        if out is not None:
            kwargs["out"] = tuple(_host(o) if isinstance(o, ndarray) else o for o in out)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        if out is not None:
            for o in out:
                _wrote(o)
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    # Reading a value on the host waits for the stream (CuPy synchronises there).
    def __bool__(self):
        _host_sync()
        return bool(self.view(np.ndarray))

    def __int__(self):
        _host_sync()
        return int(self.view(np.ndarray))

    def __index__(self):
        _host_sync()
        return int(self.view(np.ndarray))

    def __float__(self):
        _host_sync()
        return float(self.view(np.ndarray))

    def item(self, *args):
        _host_sync()
        return self.view(np.ndarray).item(*args)

    def tolist(self):
        _host_sync()
        return self.view(np.ndarray).tolist()


# Mark the class as CuPy's for gpu_eval.cuda.availability.is_cupy_array.
ndarray.__module__ = "cupy"


def _wrap(result):
    if isinstance(result, tuple):
        return tuple(_wrap(r) for r in result)
    if isinstance(result, np.ndarray):
        out = result.view(ndarray)
        _wrote(out)
        return out
    return result


def _new(result, *inputs):
    """``result`` as a device array written now on the current stream, unless it is a view
    of one of ``inputs`` (then nothing was written)."""
    out = result.view(ndarray) if isinstance(result, np.ndarray) else np.asarray(result).view(
        ndarray)
    if not any(isinstance(x, np.ndarray) and np.shares_memory(out, x) for x in inputs):
        _wrote(out)
    return out


def _eager() -> None:
    """An operation run now on the current stream comes after the work queued there."""
    current_stream()._run_to(current_stream().seq)


def _dev(a) -> ndarray:
    return np.asarray(a).view(ndarray) if not isinstance(a, ndarray) else a


def _host(a) -> np.ndarray:
    return a.view(np.ndarray) if isinstance(a, ndarray) else np.asarray(a)


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


def _from_cai(a) -> ndarray:
    """``__cuda_array_interface__`` input, viewed without a copy. As CuPy does by default
    (``CUPY_CUDA_ARRAY_INTERFACE_SYNC=1``), the producer's ``stream`` is synchronised."""
    cai = dict(a.__cuda_array_interface__)
    stream = cai.pop("stream", None)
    if stream is not None:
        ExternalStream(stream).synchronize()
    cai["version"] = 3
    return np.asarray(_HostView(interface=cai)).view(ndarray)


def from_dlpack(x, *, device=None, copy=None) -> ndarray:
    """A CUDA producer's array without a copy; like CuPy, pass the producer the consumer's
    stream (the current one; 1 for the legacy null stream) so it makes the data ready there."""
    kind, _ = (int(v) for v in x.__dlpack_device__())
    if kind not in (2, 13):
        raise RuntimeError(f"the stand-in CuPy reads CUDA DLPack arrays only, not type {kind}")
    ptr = current_stream().ptr
    capsule = x.__dlpack__(stream=ptr if ptr else 1)
    return np.from_dlpack(_HostView(capsule)).view(ndarray)


def asarray(a, dtype=None):
    _eager()
    if isinstance(a, ndarray) and (dtype is None or np.dtype(dtype) == a.dtype):
        return a  # CuPy: no copy
    if not isinstance(a, np.ndarray) and hasattr(a, "__cuda_array_interface__"):
        return asarray(_from_cai(a), dtype)
    return _new(np.array(_host(a), dtype=dtype, copy=True))


def ascontiguousarray(a, dtype=None):
    _eager()
    return _new(np.ascontiguousarray(_host(a), dtype=dtype), a)


def empty(shape, dtype=np.float64):
    return ndarray(shape, dtype)


def zeros(shape, dtype=np.float64):
    _eager()
    return _new(np.zeros(shape, dtype=dtype))


def where(cond, x, y):
    _eager()
    return _new(np.where(_host(cond), _host(x), _host(y)))


def flatnonzero(a):
    _eager()
    return _new(np.flatnonzero(_host(a)))


def asnumpy(a):
    _host_sync()
    return np.array(_host(a), copy=True)


def _ptr(x) -> ctypes.c_void_p:
    return ctypes.c_void_p(x.data.ptr)


#: Which arguments each kernel writes (the others it only reads).
KERNEL_OUTPUTS = {
    "eval_masks": (1,), "eval_ids": (2,), "eval_deadhorse": (2,), "ids_to_masks": (2, 3),
    "deadhorse_to_masks": (2, 3), "mask_counts": (1,), "enumerate_counts": (5,),
    "shortdeck_eval_masks": (2,), "shortdeck_eval_ids": (3,), "omaha_eval_ids": (5,),
    "wild_eval_masks": (4,), "check_eval_masks": (7, 8), "check_eval_ids": (8, 9),
    "shortdeck_check_eval_masks": (7, 8), "shortdeck_check_eval_ids": (8, 9),
    **{f"batch_{n}": (5, 6, 7) for n in range(2, 11)}, "low_eval_masks": (2,),
    "low_check_eval_masks": (7, 8), "low_check_eval_ids": (8, 9),
    "tables_board_strengths": (4,), "tables_river_counts": (7, 8), "report_counts": (9, 10),
    "deals_strengths": (5, 6),
    **{f"deals_grid_{n}": tuple(range(9, 15)) for n in range(2, 9)},
    **{f"deals_sample_{n}": (11,) for n in range(2, 9)},
    "eq_strengths": (9,), "eq_mc_draws": (13, 14, 15), "eq_philox": (2,), "eq_pairs": (4, 5),
    **{f"eq_showdown_{n}": (6, 7, 8, 9) for n in range(2, 11)},
    **{f"eq_sample_{n}": (13, 14) for n in range(2, 11)},
}


def _outputs(name: str) -> tuple[int, ...]:
    return KERNEL_OUTPUTS[name[len("ge_"):].removeprefix("phash_")]


def _run_check(fn, name, block, args) -> None:
    """A fused validate-and-evaluate kernel (check_eval.cuh), through host launcher ``fn``."""
    if name.endswith("masks"):
        m, n, lo, hi, forbidden, param, mask_invalid, out, first_bad = args
        assert m.dtype == np.uint64 and m.size == int(n)
        head = (_ptr(m), int(n))
    else:
        a, k, n, lo, hi, forbidden, param, mask_invalid, out, first_bad = args
        assert a.dtype == np.uint8 and k.dtype == np.int32 and a.size == int(n) * int(k)
        assert 4 <= int(k) <= 9 and block[0] <= 256, "the shared tile holds 256 rows of 9"
        head = (_ptr(a), int(k), int(n))
    assert (n.dtype, lo.dtype, hi.dtype, forbidden.dtype, param.dtype, mask_invalid.dtype,
            out.dtype, first_bad.dtype) == (np.uint64, np.int32, np.int32, np.uint64, np.int32,
                                            np.int32, np.uint16, np.uint64)
    assert out.size == int(n) and first_bad.size == 3
    tail = (int(lo), int(hi), int(forbidden), int(param), int(mask_invalid), _ptr(out),
            _ptr(first_bad))
    # the hold'em host launchers take a thread count; the one-thread ones do not
    fn(*head, *tail, *(() if name.startswith(("ge_shortdeck_", "ge_low_")) else (1,)))


def _submit_launch(kernel, grid, block, args) -> None:
    """Queue a launch on the current stream; it runs ``kernel._run`` with poison for every
    argument not ordered after its writer."""
    assert all(isinstance(a, (ndarray, np.generic)) for a in args), \
        "kernel arguments must be device arrays or NumPy scalars (typed)"
    arrays = [i for i, a in enumerate(args) if isinstance(a, ndarray)]
    outs = _outputs(kernel.name)

    def run(poisoned):
        real = list(args)
        for j, i in enumerate(arrays):
            if j in poisoned:
                real[i] = np.ascontiguousarray(poisoned[j]).view(ndarray)
        kernel._run(grid, block, tuple(real))

    current_stream()._submit(run, reads=[args[i] for i in arrays],
                             writes=[args[i] for i in outs])


class _Kernel:
    num_regs = 40

    def __init__(self, name: str, host: hostbuild.HostKernels):
        self.name = name
        self.host = host
        self.shared_size_bytes = 4 * 7463 if name == "ge_enumerate_counts" else 0

    def __call__(self, grid, block, args, shared_mem=0):
        launches.append((self.name, tuple(grid), tuple(block)))
        _submit_launch(self, grid, block, args)

    def _run(self, grid, block, args):
        lib = self.host.lib
        fn = getattr(lib, "ge_host_" + self.name[3:], None)
        if self.name.endswith(("check_eval_masks", "check_eval_ids")):
            _run_check(fn, self.name, block, args)
        elif self.name.endswith("eval_masks"):
            m, out, n = args
            assert n.dtype == np.uint64 and m.dtype == np.uint64 and out.dtype == np.uint16
            fn(_ptr(m), _ptr(out), int(n), 1)
        elif self.name.endswith(("eval_ids", "eval_deadhorse")):
            a, k, out, n = args
            assert block[0] <= 256, "the ids kernels' shared tile holds 256 rows"
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


def _c_setter(fn):
    """A host build's table setter that takes the pointer array's address."""
    return lambda a: fn(ctypes.c_void_p(a.ctypes.data))


class _SymbolModule:
    """A stand-in RawModule whose ``__constant__`` table structs are arrays of device
    pointers (``_symbols``: name -> ``uint64`` array), each written into the host build by
    ``_setters[name]`` (a function of that array) when the launcher uploads its tables."""

    _symbols: dict
    _setters: dict

    def get_global(self, name):
        return _MemoryPointer(self._symbols[name], on_write=self._setters[name])


class RawModule(_SymbolModule):
    def __new__(cls, code=None, *, options=(), **kwargs):
        if code is not None and '#include "variants.cu"' in code:
            return _VariantModule(code, options)  # gpu_eval.cuda.variants' module
        if code is not None and '#include "equity_games.cu"' in code:
            return _GamesModule(code, options)  # gpu_eval.cuda.games_module's module
        if code is not None and '#include "equity.cu"' in code:
            return _EquityModule(code, options)  # the hold'em equity engine's module
        if code is not None and '#include "equity_batch.cu"' in code:
            return _BatchModule(code, options)  # gpu_eval.equity_engine.batch.cuda_engine's module
        if code is not None and '#include "solver_tables.cu"' in code:
            return _TablesModule(code, options)  # gpu_eval.solver_tables.cuda_engine' module
        if code is not None and '#include "range_report.cu"' in code:
            return _ReportModule(code, options)  # gpu_eval.range_reports.cuda's module
        if code is not None and '#include "hand_index.cu"' in code:
            from emulation import indexer_host  # gpu_eval.solver_tables.cuda_indexer's module

            return indexer_host.IndexerModule(code, options)
        if code is not None and '#include "equity_deals.cu"' in code:
            return _DealsModule(code, options)  # gpu_eval.equity_engine.deals.cuda_engine' module
        if code is not None and '#include "lowball.cu"' in code:
            return _LowModule(code, options)  # gpu_eval.cuda.lowball' module
        return super().__new__(cls)

    def __init__(self, code=None, *, options=(), **kwargs):
        self.code, self.options = code, options
        self.host = hostbuild.load()
        lib = self.host.lib
        self._symbols = {
            "ge_bitmask_tables": np.zeros(lib.ge_host_bitmask_table_count(), dtype=np.uint64),
            "ge_phash_tables": np.zeros(lib.ge_host_phash_table_count(), dtype=np.uint64)}
        self._setters = {"ge_bitmask_tables": _c_setter(lib.ge_host_set_bitmask_tables),
                         "ge_phash_tables": _c_setter(lib.ge_host_set_phash_tables)}

    def get_function(self, name):
        return _Kernel(name, self.host)


class _VariantKernel:
    """A kernel of kernels/variants.cu (+ convert.cu), run by the host build of
    tests/variants_host.py (conversions: by emulation.hostbuild's)."""

    num_regs = 40
    shared_size_bytes = 0

    def __init__(self, name: str, lib, holdem_lib):
        self.name, self.lib, self.holdem_lib = name, lib, holdem_lib

    def __call__(self, grid, block, args, shared_mem=0):
        launches.append((self.name, tuple(grid), tuple(block)))
        _submit_launch(self, grid, block, args)

    def _run(self, grid, block, args):
        name = self.name
        if name in ("ge_shortdeck_check_eval_masks", "ge_shortdeck_check_eval_ids"):
            _run_check(getattr(self.lib, "ge_host_" + name[3:]), name, block, args)
        elif name == "ge_shortdeck_eval_masks":
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


class _VariantModule(_SymbolModule):
    """The RawModule of gpu_eval.cuda.variants: its __constant__ table structs are the host
    build's (written through ge_host_set_*), its kernels run there."""

    def __init__(self, code, options):
        from emulation import variants_host

        self.code, self.options = code, options
        self.host = variants_host.load()
        self.holdem = hostbuild.load()
        lib = self.host.lib
        self._setters = {name: _c_setter(fn) for name, fn in (
            ("ge_bitmask_tables", lib.ge_host_set_bitmask),
            ("ge_shortdeck_tables", lib.ge_host_set_shortdeck),
            ("ge_omaha_tables", lib.ge_host_set_omaha), ("ge_wild_tables", lib.ge_host_set_wild))}
        self._symbols = {
            "ge_bitmask_tables": np.zeros(self.holdem.lib.ge_host_bitmask_table_count(),
                                          dtype=np.uint64),
            "ge_shortdeck_tables": np.zeros(lib.ge_host_shortdeck_table_count(),
                                            dtype=np.uint64),
            "ge_omaha_tables": np.zeros(lib.ge_host_omaha_table_count(), dtype=np.uint64),
            "ge_wild_tables": np.zeros(lib.ge_host_wild_table_count(), dtype=np.uint64)}

    def get_function(self, name):
        return _VariantKernel(name, self.host.lib, self.holdem.lib)


class _GamesKernel:
    """A kernel of kernels/equity_games.cu, run by the host build of tests/games_host.py."""

    num_regs = 40
    shared_size_bytes = 0

    def __init__(self, name: str, lib):
        self.name, self.lib = name, lib

    def __call__(self, grid, block, args, shared_mem=0):
        launches.append((self.name, tuple(grid), tuple(block)))
        assert all(isinstance(a, (ndarray, np.generic)) for a in args), \
            "kernel arguments must be device arrays or NumPy scalars (typed)"

        def ptr(a):  # a device array, or np.uint64(0) for a null pointer
            if isinstance(a, ndarray):
                return _ptr(a)
            assert a.dtype == np.uint64 and int(a) == 0
            return ctypes.c_void_p(0)

        if self.name == "ge_games_strengths":
            pool, h, n_pool, boards, nb, variant, low, S, L, ld = args
            assert (pool.dtype, h.dtype, n_pool.dtype, boards.dtype, nb.dtype, variant.dtype,
                    low.dtype, S.dtype) == (np.uint8, np.int32, np.uint32, np.uint8, np.uint32,
                                            np.int32, np.uint8, np.uint16)
            assert pool.size == int(n_pool) * int(h) and boards.size == int(nb) * 5
            assert S.size >= int(nb) * int(ld) and low.size == 65536
            self.lib.ge_host_games_strengths(_ptr(pool), int(h), int(n_pool), _ptr(boards),
                                             int(nb), int(variant), _ptr(low), _ptr(S), ptr(L),
                                             int(ld))
        elif self.name == "ge_games_low":
            hole, board, shared, table, out, n = args
            assert (hole.dtype, shared.dtype, table.dtype, out.dtype, n.dtype) == (
                np.uint64, np.int32, np.uint8, np.uint8, np.uint64)
            assert out.size == int(n) and table.size in (256, 65536)
            # shared: bit 0 one board for every row, bit 1 one hand for every board
            assert hole.size == (1 if int(shared) & 2 else int(n))
            assert not isinstance(board, ndarray) or board.size == (
                1 if int(shared) & 1 else int(n))
            self.lib.ge_host_games_low(_ptr(hole), ptr(board), int(shared), _ptr(table),
                                       _ptr(out), int(n))
        elif self.name.startswith("ge_games_sample_"):  # in the block emulator
            n = int(self.name.rsplit("_", 1)[1])
            (combos, offsets, cum, modes, deck, n_deck, base, k, h, variant, low, scale,
             key0, key1, start, stop, max_tries, totals, failures) = args
            assert (combos.dtype, offsets.dtype, cum.dtype, modes.dtype, deck.dtype,
                    n_deck.dtype, base.dtype, k.dtype, h.dtype, variant.dtype, scale.dtype,
                    key0.dtype, key1.dtype, start.dtype, stop.dtype, max_tries.dtype) == (
                np.uint64, np.uint32, np.float64, np.uint8, np.uint64, np.uint32,
                np.uint64, np.int32, np.int32, np.int32, np.uint32, np.uint32, np.uint32,
                np.uint64, np.uint64, np.uint32)
            assert totals.size == 6 * n and deck.size == int(n_deck) and modes.size == n
            getattr(self.lib, self.name.replace("ge_", "emu_ge_", 1))(
                int(grid[0]), 1, int(block[0]), 2, _ptr(combos), _ptr(offsets), _ptr(cum),
                _ptr(modes), _ptr(deck), int(n_deck), int(base), int(k), int(h), int(variant),
                ptr(low), int(scale), int(key0), int(key1), int(start), int(stop),
                int(max_tries), _ptr(totals), _ptr(failures))
        elif self.name.startswith("ge_games_showdown_"):
            n = int(self.name.rsplit("_", 1)[1])
            S, L, ld, nb, mu, nm, per, scale, *out = args
            assert (S.dtype, ld.dtype, nb.dtype, mu.dtype, nm.dtype, per.dtype,
                    scale.dtype) == (np.uint16, np.uint32, np.uint32, np.int32, np.uint32,
                                     np.uint32, np.uint32)
            assert mu.size == int(nm) * n and len(out) == 6
            assert all(a.dtype == np.uint64 for a in out)
            self.lib.ge_host_games_showdown(n, _ptr(S), ptr(L), int(ld), int(nb), _ptr(mu),
                                            int(nm), int(per), int(scale),
                                            *[_ptr(a) for a in out])
        else:
            raise AssertionError(f"unknown game kernel {self.name}")


class _GamesModule(_SymbolModule):
    """The RawModule of gpu_eval.equity_engine.board_games.cuda_engine: table structs and kernels of the
    host build."""

    def __init__(self, code, options):
        from emulation import games_host

        self.code, self.options = code, options
        self.host = games_host.load()
        lib = self.host.lib
        self._setters = {"ge_shortdeck_tables": _c_setter(lib.ge_host_set_shortdeck),
                         "ge_omaha_tables": _c_setter(lib.ge_host_set_omaha)}
        self._symbols = {
            "ge_shortdeck_tables": np.zeros(lib.ge_host_shortdeck_table_count(),
                                            dtype=np.uint64),
            "ge_omaha_tables": np.zeros(lib.ge_host_omaha_table_count(), dtype=np.uint64)}

    def get_function(self, name):
        return _GamesKernel(name, self.host.lib)


class _BatchKernel:
    """A kernel of kernels/equity_batch.cu, run by the block emulator of
    tests/emulation/equity_host.py with the launch's grid and block (warp shuffles included);
    launches are stream-ordered like the others."""

    num_regs = 64
    shared_size_bytes = 0

    def __init__(self, name: str, host):
        self.name, self.host = name, host

    def __call__(self, grid, block, args, shared_mem=0):
        launches.append((self.name, tuple(grid), tuple(block)))
        _submit_launch(self, grid, block, args)

    def _run(self, grid, block, args):
        self.host.launch(self.name, grid, block,
                         [a.view(np.ndarray) if isinstance(a, np.ndarray) else a for a in args])


class _BatchModule(_SymbolModule):
    """The RawModule of gpu_eval.equity_engine.batch.cuda_engine: the bitmask table struct and kernels of the
    equity host build (kernels named ``prefix``...)."""

    prefix = "ge_batch_"

    def __init__(self, code, options):
        from emulation import equity_host

        self._load(code, options, equity_host.load())

    def _load(self, code, options, host) -> None:
        self.code, self.options, self.host = code, options, host
        self._symbols = {"ge_bitmask_tables": np.zeros(host.lib.emu_table_count(),
                                                       dtype=np.uint64)}
        self._setters = {"ge_bitmask_tables": lambda a: host.set_tables(a.view(np.uintp))}

    def get_function(self, name):
        assert name.startswith(self.prefix), name
        return _BatchKernel(name, self.host)


class _EquityModule(_BatchModule):
    """The RawModule of gpu_eval.equity_engine.holdem.cuda_engine: kernels/equity.cu in the
    same host build and block emulator as the batch kernels."""

    prefix = "ge_eq_"


class _TablesModule(_BatchModule):
    """The RawModule of gpu_eval.solver_tables.cuda_engine: kernels/solver_tables.cu in the block
    emulator (emulation.tables_host), one library copy per module (its own table symbol)."""

    prefix = "ge_tables_"

    def __init__(self, code, options):
        from emulation import tables_host

        self._load(code, options, tables_host.load_private())


class _ReportModule(_BatchModule):
    """The RawModule of gpu_eval.range_reports.cuda: kernels/range_report.cu in the block
    emulator (emulation.report_host), one library copy per module (its own table symbol)."""

    prefix = "ge_report_"

    def __init__(self, code, options):
        from emulation import report_host

        self._load(code, options, report_host.load_private())


class _DealsModule(_BatchModule):
    """The RawModule of gpu_eval.equity_engine.deals.cuda_engine: kernels/equity_deals.cu in the block
    emulator
    (emulation.deals_host), its ``ge_bitmask_tables`` and ``ge_low_tables`` its own."""

    prefix = "ge_deals_"

    def __init__(self, code, options):
        from emulation import deals_host

        self._load(code, options, deals_host.load_private())
        self._symbols["ge_low_tables"] = np.zeros(self.host.lib.emu_low_table_count(),
                                                  dtype=np.uint64)
        self._setters["ge_low_tables"] = lambda a: self.host.set_low_tables(a.view(np.uintp))


class _LowKernel:
    """A kernel of kernels/lowball.cu (host build of tests/emulation/lows_host.py); the
    conversions run in emulation.hostbuild's build."""

    num_regs = 32
    shared_size_bytes = 0

    def __init__(self, name: str, lib, holdem_lib):
        self.name, self.lib, self.holdem_lib = name, lib, holdem_lib

    def __call__(self, grid, block, args, shared_mem=0):
        launches.append((self.name, tuple(grid), tuple(block)))
        _submit_launch(self, grid, block, args)

    def _run(self, grid, block, args):
        if self.name in ("ge_low_check_eval_masks", "ge_low_check_eval_ids"):
            _run_check(getattr(self.lib, "ge_host_" + self.name[3:]), self.name, block, args)
        elif self.name == "ge_low_eval_masks":
            m, game, out, n = args
            assert (m.dtype, game.dtype, out.dtype, n.dtype) == (
                np.uint64, np.int32, np.uint16, np.uint64)
            assert m.size >= int(n) and out.size >= int(n) and int(game) in (0, 1, 2)
            self.lib.ge_host_low_eval_masks(_ptr(m), int(game), _ptr(out), int(n))
        elif self.name in ("ge_ids_to_masks", "ge_deadhorse_to_masks"):
            a, k, masks, counts, n = args
            assert a.size == int(n) * int(k) and masks.size == counts.size == int(n)
            getattr(self.holdem_lib, "ge_host_" + self.name[3:])(
                _ptr(a), int(k), _ptr(masks), _ptr(counts), int(n), 1)
        elif self.name == "ge_mask_counts":
            masks, counts, n = args
            self.holdem_lib.ge_host_mask_counts(_ptr(masks), _ptr(counts), int(n), 1)
        else:
            raise AssertionError(f"unknown low kernel {self.name}")


class _LowModule(_SymbolModule):
    """The RawModule of gpu_eval.cuda.lowball: ``ge_low_tables`` is the host build's."""

    def __init__(self, code, options):
        from emulation import lows_host

        self.code, self.options = code, options
        self.host = lows_host.load()
        self.holdem = hostbuild.load()
        self._symbols = {"ge_low_tables": np.zeros(self.host.lib.ge_host_low_table_count(),
                                                   dtype=np.uint64)}
        self._setters = {"ge_low_tables": _c_setter(self.host.lib.ge_host_set_low)}

    def get_function(self, name):
        return _LowKernel(name, self.host.lib, self.holdem.lib)


def broadcast_to(a, shape):
    _eager()
    return _new(np.broadcast_to(_host(a), shape), a)


def moveaxis(a, source, destination):
    _eager()
    return _new(np.moveaxis(_host(a), source, destination), a)


def stack(arrays, axis=0):
    _eager()
    return _new(np.stack([_host(a) for a in arrays], axis=axis))


def maximum(a, b):
    _eager()
    return _new(np.maximum(_host(a), _host(b)))


def sort(a, axis=-1):
    _eager()
    return _new(np.sort(_host(a), axis=axis))


def bincount(a, minlength=0):
    _eager()
    return _new(np.bincount(_host(a), minlength=minlength))


def log2(a):
    _eager()
    return _new(np.log2(_host(a)))


def rint(a):
    _eager()
    return _new(np.rint(_host(a)))


def ones(shape, dtype=np.float64):
    _eager()
    return _new(np.ones(shape, dtype=dtype))


def full(shape, fill_value, dtype=None):
    _eager()
    return _new(np.full(shape, fill_value, dtype=dtype))


def _alloc_pinned_memory(size):
    return bytearray(size)


_PROPS = {"multiProcessorCount": 2, "maxThreadsPerMultiProcessor": 2048,
          "regsPerMultiprocessor": 65536, "sharedMemPerMultiprocessor": 233472,
          "name": b"Emulated"}

def _elapsed_ms(start: Event, stop: Event) -> float:
    """``cupy.cuda.get_elapsed_time``: the host time between the two records (the stand-in
    runs work when the host waits, so this times the calls, not a device)."""
    return (stop.host_time - start.host_time) * 1e3


cuda = types.SimpleNamespace(
    Device=Device,
    get_elapsed_time=_elapsed_ms,
    Stream=Stream,
    ExternalStream=ExternalStream,
    Event=Event,
    get_current_stream=get_current_stream,
    alloc_pinned_memory=_alloc_pinned_memory,
    runtime=types.SimpleNamespace(
        getDeviceCount=lambda: 1,
        getDevice=lambda: 0,
        getDeviceProperties=lambda i: dict(_PROPS),
        deviceSynchronize=_device_synchronize,
    ),
)
