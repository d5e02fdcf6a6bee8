"""kernels/solver_tables.cu built as host C++ and run by the block emulator of
emulation.equity_host (every thread a fiber, real ``__syncthreads``), for the tests.

The wrapper is equity_host's emulator (its fiber scheduler and launch helper) around the
solver-table kernels, their barrier routed through the emulator's, so the kernels run with the very grid
and block sizes the launcher uses and a misplaced barrier fails here as it would race on a GPU.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from gpu_eval.cuda.modules import BITMASK_TABLE_ORDER

from emulation import equity_host

# equity_host's fiber scheduler, launch helper and table setters (the part of its wrapper
# from the system headers to its kernel wrappers), without its kernels: a smaller build.
_EMULATOR = equity_host._WRAPPER[equity_host._WRAPPER.index("#include <ucontext.h>"):
                                 equity_host._WRAPPER.index("#define GE_EMU_HEAD")]
_WRAPPER = r"""
void ge_eq_emu_sync();
#define GE_TABLES_SYNC() ge_eq_emu_sync()
#include "solver_tables.cu"
#define GE_WARP 32
""" + _EMULATOR + r"""
#define GE_EMU_HEAD unsigned gx, unsigned gy, unsigned bx, int nt

extern "C" void emu_ge_tables_board_strengths(GE_EMU_HEAD, const ge_u64* boards, ge_u32 n,
                                              const ge_u64* pairs, ge_u32 c, ge_u16* out) {
    ge_emu_launch(gx, gy, bx, nt, [=]() { ge_tables_board_strengths(boards, n, pairs, c, out); });
}

extern "C" void emu_ge_tables_river_counts(GE_EMU_HEAD, const ge_u64* boards, ge_u32 n,
                                           const ge_u64* pairs, const ge_u16* cards, ge_u32 c,
                                           ge_u32 deck, ge_u32 ns, ge_u16* wins, ge_u16* ties) {
    ge_emu_launch(gx, gy, bx, nt, [=]() {
        ge_tables_river_counts(boards, n, pairs, cards, c, deck, ns, wins, ties);
    });
}
"""

_P = equity_host._P
SIGNATURES = {
    "ge_tables_board_strengths": ((_P, np.uint64), "u32", (_P, np.uint64), "u32",
                                  (_P, np.uint16)),
    "ge_tables_river_counts": ((_P, np.uint64), "u32", (_P, np.uint64), (_P, np.uint16), "u32",
                               "u32", "u32", (_P, np.uint16), (_P, np.uint16)),
}
#: Which arguments each kernel writes (the stand-in CuPy's stream-order model).
OUTPUTS = {"ge_tables_board_strengths": (4,), "ge_tables_river_counts": (7, 8)}


@cache
def build() -> Path:
    """Compile (or find in the cache) the library; raises HostBuildUnavailableError."""
    return equity_host.build_emulated(_WRAPPER, "ge_tables", "kernels/solver_tables.cu")


class TablesHost(equity_host.EquityHost):
    """The solver-table kernels on the CPU (``launch`` checks the arguments against
    :data:`SIGNATURES` and runs the kernel with the given grid and block); ``set_tables``
    points ``ge_bitmask_tables`` at a game's tables."""

    def __init__(self, path: Path, threads: int = 2) -> None:
        super().__init__(path, threads)
        assert self.lib.emu_table_count() == len(BITMASK_TABLE_ORDER)
        equity_host.SIGNATURES.update(SIGNATURES)   # distinct names: launch() checks them too


def load_private() -> TablesHost:
    """A fresh copy of the library, loaded on its own: each RawModule has its own
    ``ge_bitmask_tables`` (hold'em and short-deck modules live side by side, as on a GPU)."""
    return TablesHost(equity_host.private_copy(build()))
