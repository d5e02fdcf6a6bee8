"""kernels/lowball.cu built as host C++ (through kernels/host_shim.h) for the low-game tests.

Like tests/emulation/variants_host.py: a small wrapper compiled with the same compiler and flags,
whose functions run the kernel as a one-thread grid on NumPy arrays, with the tables the NumPy
path uses (gpu_eval.cuda.lowball.low_device_tables).
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

import numpy as np

from gpu_eval.cuda.lowball import GAME_CODES, LOW_TABLE_ORDER, low_device_tables

from emulation import hostbuild

_WRAPPER = r"""
#include "lowball.cu"
#include <cstring>

static_assert(sizeof(GeLowTables) == GE_LOW_TABLE_COUNT * sizeof(void*), "layout");

extern "C" int ge_host_low_table_count(void) { return GE_LOW_TABLE_COUNT; }
// As gpu_eval/cuda/lowball.py writes the __constant__ struct (field by field, in order).
extern "C" void ge_host_set_low(const void* p) {
    std::memcpy((void*)&ge_low_tables, p, sizeof(ge_low_tables));
}
static void ge_host_one_thread(void) {
    gridDim = {1, 1, 1}; blockDim = {1, 1, 1}; blockIdx = {0, 0, 0}; threadIdx = {0, 0, 0};
}
extern "C" void ge_host_low_eval_masks(const ge_u64* m, int game, ge_u16* out, ge_u64 n) {
    ge_host_one_thread();
    ge_low_eval_masks(m, game, out, n);
}
extern "C" void ge_host_low_check_eval_masks(const ge_u64* m, ge_u64 n, int lo, int hi,
                                             ge_u64 forbidden, int game, int mi, ge_u16* out,
                                             unsigned long long* fb) {
    ge_host_one_thread();
    ge_low_check_eval_masks(m, n, lo, hi, forbidden, game, mi, out, fb);
}
extern "C" void ge_host_low_check_eval_ids(const ge_u8* ids, int k, ge_u64 n, int lo, int hi,
                                           ge_u64 forbidden, int game, int mi, ge_u16* out,
                                           unsigned long long* fb) {
    ge_host_one_thread();
    ge_low_check_eval_ids(ids, k, n, lo, hi, forbidden, game, mi, out, fb);
}
"""
_FLAGS = ("-O2", "-std=c++17", "-shared", "-fPIC", "-Wall", "-Wno-unknown-pragmas")


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


@cache
def build() -> Path:
    """Compile (or find in the cache) the host library; raises HostBuildUnavailableError."""
    return hostbuild.compile_cached(_WRAPPER, "ge_lows", [_FLAGS], "the low kernels")


class LowKernels:
    """The low kernel on the CPU (inputs are not validated)."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL(str(build()))
        vp, u64, i32 = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int
        self.lib.ge_host_set_low.argtypes, self.lib.ge_host_set_low.restype = [vp], None
        fn = self.lib.ge_host_low_eval_masks
        fn.argtypes, fn.restype = [vp, i32, vp, u64], None
        fn = self.lib.ge_host_low_check_eval_masks
        fn.argtypes, fn.restype = [vp, u64, i32, i32, u64, i32, i32, vp, vp], None
        fn = self.lib.ge_host_low_check_eval_ids
        fn.argtypes, fn.restype = [vp, i32, u64, i32, i32, u64, i32, i32, vp, vp], None
        self.lib.ge_host_low_table_count.restype = i32
        assert self.lib.ge_host_low_table_count() == len(LOW_TABLE_ORDER)
        t = low_device_tables()
        self._arrays = [np.ascontiguousarray(t[name]) for name in LOW_TABLE_ORDER]
        self._ptrs = np.array([a.ctypes.data for a in self._arrays], dtype=np.uintp)

    def evaluate(self, masks: np.ndarray, game: str) -> np.ndarray:
        """Strengths of ``masks`` under ``game``, with this object's tables."""
        m = np.ascontiguousarray(masks, dtype=np.uint64)
        out = np.empty(len(m), dtype=np.uint16)
        self.lib.ge_host_set_low(_ptr(self._ptrs))  # the struct is process-wide
        self.lib.ge_host_low_eval_masks(_ptr(m), GAME_CODES[game], _ptr(out), len(m))
        return out


@cache
def load() -> LowKernels:
    return LowKernels()
