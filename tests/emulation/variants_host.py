"""kernels/variants.cu built as host C++ (through kernels/host_shim.h) for the variant tests.

emulation.hostbuild's wrapper covers the hold'em kernels only, so this small build compiles its
own wrapper around variants.cu with the same compiler, flags and cache directory, and calls the
kernels themselves (as a one-thread grid) on NumPy arrays, with the tables the NumPy path uses.
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

import numpy as np

from gpu_eval.cuda.modules import BITMASK_TABLE_ORDER
from gpu_eval.evaluator.tables import bitmask_tables
from gpu_eval.games.omaha import omaha_tables
from gpu_eval.games.shortdeck import GAMES as SHORTDECK_GAMES
from gpu_eval.games.shortdeck import shortdeck_tables
from gpu_eval.games.wild import WILD_TABLE_ORDER, wild_device_tables

from emulation import hostbuild

OMAHA_TABLE_ORDER = ("card_weight", "board_lo", "board_hi", "noflush", "noflush_offset",
                     "hole_info", "board_info", "covered", "sf_best", "flush5")

_WRAPPER = r"""
#include "variants.cu"
#include <cstring>

static void ge_host_one_thread(void) {
    gridDim = {1, 1, 1}; blockDim = {1, 1, 1}; blockIdx = {0, 0, 0}; threadIdx = {0, 0, 0};
}
static_assert(sizeof(GeOmahaTables) == GE_OMAHA_TABLE_COUNT * sizeof(void*), "layout");
static_assert(sizeof(GeWildTables) == GE_WILD_TABLE_COUNT * sizeof(void*), "layout");

extern "C" int ge_host_omaha_table_count(void) { return GE_OMAHA_TABLE_COUNT; }
extern "C" int ge_host_wild_table_count(void) { return GE_WILD_TABLE_COUNT; }
extern "C" void ge_host_set_tables(const void* const* bitmask, const void* const* shortdeck0,
                                   const void* const* shortdeck1, const void* const* omaha,
                                   const void* const* wild) {
    std::memcpy((void*)&ge_bitmask_tables, (const void*)bitmask, sizeof(GeBitmaskTables));
    std::memcpy((void*)&ge_shortdeck_tables[0], (const void*)shortdeck0, sizeof(GeBitmaskTables));
    std::memcpy((void*)&ge_shortdeck_tables[1], (const void*)shortdeck1, sizeof(GeBitmaskTables));
    std::memcpy((void*)&ge_omaha_tables, (const void*)omaha, sizeof(GeOmahaTables));
    std::memcpy((void*)&ge_wild_tables, (const void*)wild, sizeof(GeWildTables));
}
// One struct at a time, as gpu_eval/cuda/variants.py writes each __constant__ symbol.
extern "C" void ge_host_set_bitmask(const void* p) {
    std::memcpy((void*)&ge_bitmask_tables, p, sizeof(ge_bitmask_tables));
}
extern "C" void ge_host_set_shortdeck(const void* p) {  // 2 x GE_BITMASK_TABLE_COUNT pointers
    std::memcpy((void*)ge_shortdeck_tables, p, sizeof(ge_shortdeck_tables));
}
extern "C" void ge_host_set_omaha(const void* p) {
    std::memcpy((void*)&ge_omaha_tables, p, sizeof(ge_omaha_tables));
}
extern "C" void ge_host_set_wild(const void* p) {
    std::memcpy((void*)&ge_wild_tables, p, sizeof(ge_wild_tables));
}
extern "C" int ge_host_shortdeck_table_count(void) {
    return (int)(sizeof(ge_shortdeck_tables) / sizeof(void*));
}
extern "C" void ge_host_shortdeck_eval_masks(const ge_u64* m, int v, ge_u16* out, ge_u64 n) {
    ge_host_one_thread(); ge_shortdeck_eval_masks(m, v, out, n);
}
extern "C" void ge_host_shortdeck_eval_ids(const ge_u8* ids, int k, int v, ge_u16* out,
                                           ge_u64 n) {
    ge_host_one_thread(); ge_shortdeck_eval_ids(ids, k, v, out, n);
}
extern "C" void ge_host_shortdeck_check_eval_masks(const ge_u64* m, ge_u64 n, int lo, int hi,
                                                   ge_u64 forbidden, int v, int mi,
                                                   ge_u16* out, unsigned long long* fb) {
    ge_host_one_thread(); ge_shortdeck_check_eval_masks(m, n, lo, hi, forbidden, v, mi, out, fb);
}
extern "C" void ge_host_shortdeck_check_eval_ids(const ge_u8* ids, int k, ge_u64 n, int lo,
                                                 int hi, ge_u64 forbidden, int v, int mi,
                                                 ge_u16* out, unsigned long long* fb) {
    ge_host_one_thread();
    ge_shortdeck_check_eval_ids(ids, k, n, lo, hi, forbidden, v, mi, out, fb);
}
extern "C" void ge_host_omaha_eval_ids(const ge_u8* hole, int h, const ge_u8* board, int b,
                                       int shared, ge_u16* out, ge_u64 n) {
    ge_host_one_thread(); ge_omaha_eval_ids(hole, h, board, b, shared, out, n);
}
extern "C" void ge_host_wild_eval_masks(const ge_u64* m, const ge_u8* jk, ge_u32 ranks, int bug,
                                        ge_u16* out, ge_u64 n) {
    ge_host_one_thread(); ge_wild_eval_masks(m, jk, ranks, bug, out, n);
}
"""
_FLAGS = ("-O2", "-std=c++17", "-shared", "-fPIC", "-Wall", "-Wno-unknown-pragmas")


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


@cache
def build() -> Path:
    """Compile (or find in the cache) the host library; raises HostBuildUnavailableError."""
    return hostbuild.compile_cached(_WRAPPER, "ge_variants", [_FLAGS], "the variant kernels")


class VariantKernels:
    """The variant kernels on the CPU, with NumPy wrappers (inputs are not validated)."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL(str(build()))
        vp, u64, u32, i32 = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_int
        for name, args in {
            "ge_host_set_tables": [vp] * 5,
            "ge_host_set_bitmask": [vp], "ge_host_set_shortdeck": [vp],
            "ge_host_set_omaha": [vp], "ge_host_set_wild": [vp],
            "ge_host_shortdeck_eval_masks": [vp, i32, vp, u64],
            "ge_host_shortdeck_eval_ids": [vp, i32, i32, vp, u64],
            "ge_host_omaha_eval_ids": [vp, i32, vp, i32, i32, vp, u64],
            "ge_host_wild_eval_masks": [vp, vp, u32, i32, vp, u64],
            "ge_host_shortdeck_check_eval_masks": [vp, u64, i32, i32, u64, i32, i32, vp, vp],
            "ge_host_shortdeck_check_eval_ids": [vp, i32, u64, i32, i32, u64, i32, i32, vp, vp],
        }.items():
            fn = getattr(self.lib, name)
            fn.argtypes, fn.restype = args, None
        self.lib.ge_host_omaha_table_count.restype = i32
        self.lib.ge_host_wild_table_count.restype = i32
        self.lib.ge_host_shortdeck_table_count.restype = i32
        assert self.lib.ge_host_shortdeck_table_count() == 2 * len(BITMASK_TABLE_ORDER)
        assert self.lib.ge_host_omaha_table_count() == len(OMAHA_TABLE_ORDER)
        assert self.lib.ge_host_wild_table_count() == len(WILD_TABLE_ORDER)
        self._keep = []
        ptrs = [self._pointers(bitmask_tables().as_dict(), BITMASK_TABLE_ORDER)]
        ptrs += [self._pointers(shortdeck_tables(g).as_dict(), BITMASK_TABLE_ORDER)
                 for g in SHORTDECK_GAMES]
        ptrs.append(self._pointers(omaha_tables().as_dict(), OMAHA_TABLE_ORDER))
        ptrs.append(self._pointers(wild_device_tables(), WILD_TABLE_ORDER))
        self._ptrs = ptrs
        self._set_tables()

    def _set_tables(self) -> None:
        """Point the library's table structs at this object's tables. Done before every call:
        the structs are process-wide, and tests/emulation/fake_cupy.py points them at its own copies."""
        self.lib.ge_host_set_tables(*[_ptr(p) for p in self._ptrs])

    def _pointers(self, tables: dict, order) -> np.ndarray:
        arrays = [np.ascontiguousarray(tables[name]) for name in order]
        ptrs = np.array([a.ctypes.data for a in arrays], dtype=np.uintp)
        self._keep += [arrays, ptrs]
        return ptrs

    def shortdeck_masks(self, masks: np.ndarray, variant: int) -> np.ndarray:
        m = np.ascontiguousarray(masks, dtype=np.uint64)
        out = np.empty(len(m), dtype=np.uint16)
        self._set_tables()
        self.lib.ge_host_shortdeck_eval_masks(_ptr(m), variant, _ptr(out), len(m))
        return out

    def shortdeck_ids(self, ids: np.ndarray, variant: int) -> np.ndarray:
        a = np.ascontiguousarray(ids, dtype=np.uint8)
        out = np.empty(len(a), dtype=np.uint16)
        self._set_tables()
        self.lib.ge_host_shortdeck_eval_ids(_ptr(a), a.shape[1], variant, _ptr(out), len(a))
        return out

    def omaha(self, hole: np.ndarray, board: np.ndarray) -> np.ndarray:
        h = np.ascontiguousarray(hole, dtype=np.uint8)
        b = np.ascontiguousarray(board, dtype=np.uint8)
        shared = int(b.ndim == 1)
        out = np.empty(len(h), dtype=np.uint16)
        self._set_tables()
        self.lib.ge_host_omaha_eval_ids(_ptr(h), h.shape[1], _ptr(b), b.shape[-1], shared,
                                        _ptr(out), len(h))
        return out

    def wild(self, masks: np.ndarray, jokers: np.ndarray, wild_ranks: int, bug: bool
             ) -> np.ndarray:
        m = np.ascontiguousarray(masks, dtype=np.uint64)
        j = np.ascontiguousarray(jokers, dtype=np.uint8)
        out = np.empty(len(m), dtype=np.uint16)
        self._set_tables()
        self.lib.ge_host_wild_eval_masks(_ptr(m), _ptr(j), wild_ranks, int(bug), _ptr(out),
                                         len(m))
        return out


@cache
def load() -> VariantKernels:
    return VariantKernels()
