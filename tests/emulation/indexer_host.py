"""kernels/hand_index.cu built as host C++ (through kernels/host_shim.h) for the tests, and the
stand-in CuPy module that runs it (tests/emulation/fake_cupy.py hands ``RawModule`` code that
includes hand_index.cu to :class:`IndexerModule`).

The kernel itself runs, as a grid of one-thread blocks over OS threads' slices (like
emulation.hostbuild's launchers), on the very arrays the launcher (gpu_eval/solver_tables/cuda_indexer.py)
passes; launches are stream-ordered like the stand-in's other kernels.
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

import numpy as np

from emulation import hostbuild

_WRAPPER = r"""
#include "hand_index.cu"

extern "C" void ge_host_hand_index(const ge_u8* ids, ge_u64 n, int k, int n_rounds, ge_u32 cpr,
                                   int lowest, int nranks, int all_rounds,
                                   const long long* rinfo, const long long* lookup,
                                   const long long* cfgdata, const ge_u64* binom,
                                   long long* out, ge_u64* first_bad, int nthreads) {
    const int width = all_rounds ? n_rounds : 1;
    #pragma omp parallel for schedule(static, 1) num_threads(nthreads)
    for (int part = 0; part < nthreads; ++part) {
        const ge_u64 lo = n * (ge_u64)part / (ge_u64)nthreads;
        const ge_u64 hi = n * (ge_u64)(part + 1) / (ge_u64)nthreads;
        gridDim = {1, 1, 1}; blockDim = {1, 1, 1}; blockIdx = {0, 0, 0}; threadIdx = {0, 0, 0};
        ge_u64 bad = ~0ull;
        ge_hand_index(ids + lo * (ge_u64)k, hi - lo, k, n_rounds, cpr, lowest, nranks,
                      all_rounds, rinfo, lookup, cfgdata, binom, out + lo * (ge_u64)width, &bad);
        if (bad != ~0ull) atomicMin((unsigned long long*)first_bad, bad + lo);
    }
}
"""
_FLAGS = ("-O2", "-std=c++17", "-shared", "-fPIC", "-Wall", "-Wno-unknown-pragmas")


@cache
def build(sanitize: bool = False) -> Path:
    """Compile (or find in the cache) the host library; raises HostBuildUnavailableError.
    ``sanitize``: under AddressSanitizer and UBSan (emulation.sanitizers; run it there)."""
    if sanitize:
        from emulation import sanitizers

        return hostbuild.compile_cached(_WRAPPER, "ge_hand_index_sanitized",
                                        [sanitizers.FLAGS], "kernels/hand_index.cu")
    return hostbuild.compile_cached(_WRAPPER, "ge_hand_index",
                                    [(*_FLAGS, "-fopenmp"), _FLAGS], "kernels/hand_index.cu")


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


class IndexerHost:
    """The kernel on the CPU, with a NumPy wrapper (inputs not validated)."""

    def __init__(self, threads: int = 2, path: Path | None = None) -> None:
        self.lib = ctypes.CDLL(str(path or build()))
        vp, u64, u32, i32 = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_int
        self.lib.ge_host_hand_index.argtypes = [vp, u64, i32, i32, u32, i32, i32, i32,
                                                vp, vp, vp, vp, vp, vp, i32]
        self.lib.ge_host_hand_index.restype = None
        self.threads = threads

    def run(self, ids, n, k, n_rounds, cpr, lowest, nranks, all_rounds, rinfo, lookup,
            cfgdata, binom, out, first_bad) -> None:
        """Launch over raw arguments, as the device kernel takes them."""
        assert ids.dtype == np.uint8 and ids.size >= int(n) * int(k)
        assert out.dtype == np.int64 and first_bad.dtype == np.uint64
        assert out.size >= int(n) * (int(n_rounds) if int(all_rounds) else 1)
        assert all(a.dtype == np.int64 for a in (rinfo, lookup, cfgdata))
        assert binom.dtype == np.uint64
        self.lib.ge_host_hand_index(_ptr(ids), int(n), int(k), int(n_rounds), int(cpr),
                                    int(lowest), int(nranks), int(all_rounds), _ptr(rinfo),
                                    _ptr(lookup), _ptr(cfgdata), _ptr(binom), _ptr(out),
                                    _ptr(first_bad), self.threads)

    def index(self, ids: np.ndarray, tables, lowest_rank: int, all_rounds: bool = False
              ) -> tuple[np.ndarray, int]:
        """``(indices, first_bad)`` of ``(N, cards)`` ids, straight through the kernel."""
        from gpu_eval.solver_tables.cuda_indexer import NO_BAD_ROW, kernel_tables

        ids = np.ascontiguousarray(ids, dtype=np.uint8)
        t = kernel_tables(tables)
        n, k = ids.shape
        width = len(tables.rounds) if all_rounds else 1
        out = np.zeros((n, width), dtype=np.int64)
        bad = np.array([NO_BAD_ROW], dtype=np.uint64)
        cpr = sum(c << (4 * r) for r, c in enumerate(tables.rounds))
        self.run(ids, n, k, len(tables.rounds), cpr, lowest_rank, tables.nranks,
                 int(all_rounds), t["rinfo"], t["lookup"], t["cfgdata"], t["binom"], out, bad)
        return (out if all_rounds else out.reshape(n)), int(bad[0])


@cache
def load() -> IndexerHost:
    return IndexerHost()


class _IndexerKernel:
    """``ge_hand_index`` in the stand-in CuPy: queued on the current stream, run on the host."""

    num_regs = 80
    shared_size_bytes = 0

    def __init__(self, name: str) -> None:
        assert name == "ge_hand_index", name
        self.name = name

    def __call__(self, grid, block, args, shared_mem=0):
        from emulation import fake_cupy

        fake_cupy.launches.append((self.name, tuple(grid), tuple(block)))
        assert all(isinstance(a, (fake_cupy.ndarray, np.generic)) for a in args), \
            "kernel arguments must be device arrays or NumPy scalars (typed)"
        assert [type(a) for a in args[1:8]] == [np.uint64, np.int32, np.int32, np.uint32,
                                                np.int32, np.int32, np.int32]
        host = load()
        device = [i for i, a in enumerate(args) if isinstance(a, fake_cupy.ndarray)]

        def run(poisoned):  # a buffer read before its writer ran reads as poison
            real = [a.view(np.ndarray) if isinstance(a, fake_cupy.ndarray) else a for a in args]
            for j, i in enumerate(device):
                if j in poisoned:
                    real[i] = np.ascontiguousarray(poisoned[j])
            host.run(*real)

        fake_cupy.current_stream()._submit(run, reads=[args[i] for i in device],
                                           writes=[args[12], args[13]])


class IndexerModule:
    """The RawModule of gpu_eval.solver_tables.cuda_indexer in the stand-in CuPy (no __constant__ tables:
    the kernel takes its tables as arguments)."""

    def __init__(self, code, options):
        self.code, self.options = code, options
        load()

    def get_function(self, name):
        return _IndexerKernel(name)

    def get_global(self, name):
        raise AssertionError(f"the indexer module has no symbol {name}")
