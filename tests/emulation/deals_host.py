"""kernels/equity_deals.cu built as host C++ and run by the block emulator of
emulation.equity_host (every thread a fiber), for the tests (tests/emulation/fake_cupy.py's
``_DealsModule`` runs gpu_eval/equity_engine/deals/cuda_engine.py's launches on it).

The kernels run with the very grid and block sizes gpu_eval/equity_engine/deals/cuda_engine.py launches (the
grid
kernel reads ``blockIdx`` for its rows and ``threadIdx`` for its columns), with the hold'em
bitmask tables and the low tables written through the module's ``__constant__`` symbols as on
a device; launches are stream-ordered like the stand-in's other kernels.
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path

import numpy as np

from gpu_eval.cuda.lowball import LOW_TABLE_ORDER

from emulation import equity_host

_EMULATOR = equity_host._WRAPPER[equity_host._WRAPPER.index("#include <ucontext.h>"):
                                 equity_host._WRAPPER.index("#define GE_EMU_HEAD")]
_GRIDS = "\n".join(
    f"""extern "C" void emu_ge_deals_grid_{n}(GE_EMU_HEAD, const ge_i32* rows,
        const ge_u64* unions, ge_u32 n_rows, const ge_u16* S, const ge_u8* L,
        const ge_u32* offsets, const ge_u64* last, ge_u32 n_last, ge_u32 scale,
        unsigned long long* w, unsigned long long* t, unsigned long long* u,
        unsigned long long* hi, unsigned long long* lo, unsigned long long* v) {{
    ge_emu_launch(gx, gy, bx, nt, [=]() {{
        ge_deals_grid_{n}(rows, unions, n_rows, S, L, offsets, last, n_last, scale, w, t, u,
                          hi, lo, v);
    }});
}}
extern "C" void emu_ge_deals_sample_{n}(GE_EMU_HEAD, const ge_u64* known, const ge_u8* need,
        const ge_u64* deck, ge_u32 n_deck, int eval, const ge_u8* best5, ge_u32 scale,
        ge_u32 key0, ge_u32 key1, ge_u64 start, ge_u64 stop, unsigned long long* totals) {{
    ge_emu_launch(gx, gy, bx, nt, [=]() {{
        ge_deals_sample_{n}(known, need, deck, n_deck, eval, best5, scale, key0, key1, start,
                            stop, totals);
    }});
}}""" for n in range(2, 9))
_WRAPPER = r"""
#include "equity_deals.cu"
""" + _EMULATOR + r"""
#define GE_EMU_HEAD unsigned gx, unsigned gy, unsigned bx, int nt

static_assert(sizeof(GeLowTables) == GE_LOW_TABLE_COUNT * sizeof(void*), "layout");
extern "C" int emu_low_table_count(void) { return GE_LOW_TABLE_COUNT; }
extern "C" void emu_set_low_tables(const void* const* p) {
    std::memcpy((void*)&ge_low_tables, (const void*)p, sizeof(GeLowTables));
}

extern "C" void emu_ge_deals_strengths(GE_EMU_HEAD, const ge_u64* masks, ge_u32 n,
                                       ge_u64 known, int eval, const ge_u8* best5, ge_u16* S,
                                       ge_u8* L) {
    ge_emu_launch(gx, gy, bx, nt, [=]() { ge_deals_strengths(masks, n, known, eval, best5, S, L); });
}

""" + _GRIDS + "\n"

_P = equity_host._P
_OUT = (_P, np.uint64)
SIGNATURES = {
    "ge_deals_strengths": ((_P, np.uint64), "u32", "u64", "i32", (_P, np.uint8),
                           (_P, np.uint16), (_P, np.uint8, None)),
    **{f"ge_deals_sample_{n}": ((_P, np.uint64), (_P, np.uint8), (_P, np.uint64), "u32", "i32",
                                (_P, np.uint8, None), "u32", "u32", "u32", "u64", "u64", _OUT)
       for n in range(2, 9)},
    **{f"ge_deals_grid_{n}": ((_P, np.int32), (_P, np.uint64), "u32", (_P, np.uint16),
                              (_P, np.uint8, None), (_P, np.uint32), (_P, np.uint64), "u32",
                              "u32", _OUT, _OUT, _OUT, _OUT, _OUT, _OUT)
       for n in range(2, 9)},
}


@cache
def build() -> Path:
    """Compile (or find in the cache) the library; raises HostBuildUnavailableError."""
    return equity_host.build_emulated(_WRAPPER, "ge_deals", "kernels/equity_deals.cu")


class DealsHost(equity_host.EquityHost):
    """The deal kernels on the CPU (``launch`` checks the arguments against
    :data:`SIGNATURES`); ``set_low_tables`` points ``ge_low_tables`` at table addresses."""

    def __init__(self, path: Path, threads: int = 2) -> None:
        super().__init__(path, threads)
        assert self.lib.emu_low_table_count() == len(LOW_TABLE_ORDER)
        equity_host.SIGNATURES.update(SIGNATURES)   # distinct names: launch() checks them too

    def set_low_tables(self, pointers: np.ndarray) -> None:
        self._low_ptrs = np.ascontiguousarray(pointers, dtype=np.uintp)
        self.lib.emu_set_low_tables(ctypes.c_void_p(self._low_ptrs.ctypes.data))


def load_private() -> DealsHost:
    """A fresh copy of the library, loaded on its own (each RawModule its own symbols)."""
    return DealsHost(equity_host.private_copy(build()))

