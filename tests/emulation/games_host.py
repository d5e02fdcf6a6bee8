"""kernels/equity_games.cu built as host C++ (through kernels/host_shim.h) for the tests.

Like tests/variants_host.py: a small wrapper compiled with the same compiler and flags, whose
functions run the kernels as a one-thread grid on NumPy arrays, with the tables the NumPy path
uses (bitmask short-deck tables, Omaha tables, the Omaha low table).
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

import numpy as np

from gpu_eval.cuda.modules import BITMASK_TABLE_ORDER
from gpu_eval.games import eight_or_better
from gpu_eval.games.omaha import omaha_tables
from gpu_eval.games.shortdeck import GAMES as SHORTDECK_GAMES
from gpu_eval.games.shortdeck import shortdeck_tables

from emulation import equity_host

OMAHA_TABLE_ORDER = ("card_weight", "board_lo", "board_hi", "noflush", "noflush_offset",
                     "hole_info", "board_info", "covered", "sf_best", "flush5")

_SHOWDOWN_CASES = "\n".join(
    f"        case {n}: ge_games_showdown_{n}(S, L, ld, nb, mu, nm, per, scale, w, t, u, v, "
    f"hi, lo); break;" for n in range(2, 11))

_SAMPLERS = "\n".join(
    f"""extern "C" void emu_ge_games_sample_{n}(GE_EMU_HEAD, const ge_u64* combos,
        const ge_u32* offsets, const double* cum, const ge_u8* modes, const ge_u64* deck,
        ge_u32 n_deck, ge_u64 base, int k, int h, int variant, const ge_u8* low_table,
        ge_u32 scale, ge_u32 key0, ge_u32 key1, ge_u64 start, ge_u64 stop, ge_u32 max_tries,
        unsigned long long* totals, unsigned long long* failures) {{
    ge_emu_launch(gx, gy, bx, nt, [=]() {{
        ge_games_sample_{n}(combos, offsets, cum, modes, deck, n_deck, base, k, h, variant,
                            low_table, scale, key0, key1, start, stop, max_tries, totals,
                            failures);
    }});
}}""" for n in range(2, 11))
# The samplers sum their counters over the block (warp shuffles, a barrier): they run in the
# block emulator of emulation.equity_host, every thread a fiber, with the launch's grid and
# block; the other kernels run as one-thread grids.
_EMULATOR = equity_host._WRAPPER[equity_host._WRAPPER.index("#include <ucontext.h>"):
                                 equity_host._WRAPPER.index("#define GE_EMU_HEAD")]
_WRAPPER = r"""
#include "equity_games.cu"
#include <cstring>
""" + _EMULATOR + r"""
#define GE_EMU_HEAD unsigned gx, unsigned gy, unsigned bx, int nt
""" + _SAMPLERS + r"""

static void ge_host_one_thread(void) {
    gridDim = {1, 1, 1}; blockDim = {1, 1, 1}; blockIdx = {0, 0, 0}; threadIdx = {0, 0, 0};
}
static_assert(sizeof(GeOmahaTables) == GE_OMAHA_TABLE_COUNT * sizeof(void*), "layout");

extern "C" void ge_host_set_tables(const void* const* shortdeck0, const void* const* shortdeck1,
                                   const void* const* omaha) {
    std::memcpy((void*)&ge_shortdeck_tables[0], (const void*)shortdeck0, sizeof(GeBitmaskTables));
    std::memcpy((void*)&ge_shortdeck_tables[1], (const void*)shortdeck1, sizeof(GeBitmaskTables));
    std::memcpy((void*)&ge_omaha_tables, (const void*)omaha, sizeof(GeOmahaTables));
}
// One struct at a time, as gpu_eval/_cuda_games.py writes each __constant__ symbol
// (tests/emulation/fake_cupy.py).
extern "C" int ge_host_shortdeck_table_count(void) {
    return (int)(sizeof(ge_shortdeck_tables) / sizeof(void*));
}
extern "C" int ge_host_omaha_table_count(void) { return GE_OMAHA_TABLE_COUNT; }
extern "C" void ge_host_set_shortdeck(const void* p) {
    std::memcpy((void*)ge_shortdeck_tables, p, sizeof(ge_shortdeck_tables));
}
extern "C" void ge_host_set_omaha(const void* p) {
    std::memcpy((void*)&ge_omaha_tables, p, sizeof(ge_omaha_tables));
}
extern "C" void ge_host_games_strengths(const ge_u8* pool, int h, ge_u32 np,
                                        const ge_u8* boards, ge_u32 nb, int variant,
                                        const ge_u8* low_table, ge_u16* S, ge_u8* L, ge_u32 ld) {
    ge_host_one_thread();
    ge_games_strengths(pool, h, np, boards, nb, variant, low_table, S, L, ld);
}
extern "C" void ge_host_games_low(const ge_u64* hole, const ge_u64* board, int shared,
                                  const ge_u8* table, ge_u8* out, ge_u64 n) {
    ge_host_one_thread();
    ge_games_low(hole, board, shared, table, out, n);
}
extern "C" void ge_host_games_showdown(int n, const ge_u16* S, const ge_u8* L, ge_u32 ld,
                                       ge_u32 nb, const ge_i32* mu, ge_u32 nm, ge_u32 per,
                                       ge_u32 scale, unsigned long long* w,
                                       unsigned long long* t, unsigned long long* u,
                                       unsigned long long* v, unsigned long long* hi,
                                       unsigned long long* lo) {
    ge_host_one_thread();
    switch (n) {
""" + _SHOWDOWN_CASES + r"""
        default: break;
    }
}
"""


def _ptr(a: np.ndarray | None) -> ctypes.c_void_p:
    return ctypes.c_void_p(0 if a is None else a.ctypes.data)


@cache
def build() -> Path:
    """Compile (or find in the cache) the host library; raises HostBuildUnavailableError."""
    return equity_host.build_emulated(_WRAPPER, "ge_games", "kernels/equity_games.cu")


class GameKernels:
    """The games' equity kernels on the CPU, with NumPy wrappers (inputs not validated)."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL(str(build()))
        vp, u32, i32 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int
        self.lib.ge_host_set_tables.argtypes = [vp] * 3
        self.lib.ge_host_set_tables.restype = None
        for name in ("ge_host_set_shortdeck", "ge_host_set_omaha"):
            getattr(self.lib, name).argtypes = [vp]
            getattr(self.lib, name).restype = None
        self.lib.ge_host_shortdeck_table_count.restype = i32
        self.lib.ge_host_omaha_table_count.restype = i32
        self.lib.ge_host_games_strengths.argtypes = [vp, i32, u32, vp, u32, i32, vp, vp, vp, u32]
        self.lib.ge_host_games_strengths.restype = None
        self.lib.ge_host_games_showdown.argtypes = [i32, vp, vp, u32, u32, vp, u32, u32, u32,
                                                    vp, vp, vp, vp, vp, vp]
        self.lib.ge_host_games_showdown.restype = None
        u64 = ctypes.c_uint64
        for n in range(2, 11):
            fn = getattr(self.lib, f"emu_ge_games_sample_{n}")
            fn.argtypes = [u32, u32, u32, i32, vp, vp, vp, vp, vp, u32, u64, i32, i32, i32, vp,
                           u32, u32, u32, u64, u64, u32, vp, vp]
            fn.restype = None
        self.lib.ge_host_games_low.argtypes = [vp, vp, i32, vp, vp, u64]
        self.lib.ge_host_games_low.restype = None
        self._keep: list = []
        self._ptrs = [self._pointers(shortdeck_tables(g).as_dict(), BITMASK_TABLE_ORDER)
                      for g in SHORTDECK_GAMES]
        self._ptrs.append(self._pointers(omaha_tables().as_dict(), OMAHA_TABLE_ORDER))
        self.low_table = np.ascontiguousarray(eight_or_better.low_tables()["OMAHA"])

    def _pointers(self, tables: dict, order) -> np.ndarray:
        arrays = [np.ascontiguousarray(tables[name]) for name in order]
        ptrs = np.array([a.ctypes.data for a in arrays], dtype=np.uintp)
        self._keep += [arrays, ptrs]
        return ptrs

    def strengths(self, pool_ids: np.ndarray, boards: np.ndarray, variant: int, hilo: bool
                  ) -> tuple[np.ndarray, np.ndarray | None]:
        """``(S, L)``: ``(n_boards, n_pool)`` high strengths and (hi/lo) lows."""
        self.lib.ge_host_set_tables(*[_ptr(p) for p in self._ptrs])
        pool = np.ascontiguousarray(pool_ids, dtype=np.uint8)
        b = np.ascontiguousarray(boards, dtype=np.uint8)
        n_pool, h = pool.shape
        S = np.full((len(b), n_pool), 0xFFFF, dtype=np.uint16)
        L = np.full((len(b), n_pool), 0xFF, dtype=np.uint8) if hilo else None
        self.lib.ge_host_games_strengths(_ptr(pool), h, n_pool, _ptr(b), len(b), variant,
                                         _ptr(self.low_table), _ptr(S), _ptr(L), n_pool)
        return S, L

    def showdown(self, S: np.ndarray, L: np.ndarray | None, matchups: np.ndarray, scale: int,
                 per_task: int = 7) -> tuple[np.ndarray, ...]:
        """``(wins, ties, units, valid, high, low)`` as uint64 arrays."""
        mu = np.ascontiguousarray(matchups, dtype=np.int32)
        m, n = mu.shape
        out = [np.zeros((m, n), dtype=np.uint64) for _ in range(3)] + \
            [np.zeros(m, dtype=np.uint64)] + [np.zeros((m, n), dtype=np.uint64) for _ in range(2)]
        self.lib.ge_host_games_showdown(n, _ptr(S), _ptr(L), S.shape[1], S.shape[0], _ptr(mu),
                                        m, per_task, scale, *[_ptr(a) for a in out])
        return tuple(out)

    def sample(self, n: int, combos: np.ndarray, offsets: np.ndarray, cum: np.ndarray,
               modes: np.ndarray, deck: np.ndarray, base: int, k: int, h: int, variant: int,
               hilo: bool, scale: int, key: tuple[int, int], start: int, stop: int,
               max_tries: int, grid: int = 3, block: int = 64
               ) -> tuple[np.ndarray, int]:
        """``(totals (6, n), failures)`` of ``ge_games_sample_n`` run in the block emulator."""
        self.lib.ge_host_set_tables(*[_ptr(p) for p in self._ptrs])
        totals = np.zeros(6 * n, dtype=np.uint64)
        failures = np.zeros(1, dtype=np.uint64)
        arrays = [np.ascontiguousarray(a, dtype=t) for a, t in (
            (combos, np.uint64), (offsets, np.uint32), (cum, np.float64), (modes, np.uint8),
            (deck, np.uint64))]
        getattr(self.lib, f"emu_ge_games_sample_{n}")(
            grid, 1, block, 2, *[_ptr(a) for a in arrays], len(arrays[4]), base, k, h,
            variant, _ptr(self.low_table if hilo else None), scale, key[0], key[1], start,
            stop, max_tries, _ptr(totals), _ptr(failures))
        return totals.reshape(6, n), int(failures[0])


@cache
def load() -> GameKernels:
    return GameKernels()
