"""kernels/range_report.cu built as host C++ and run by the block emulator of
emulation.equity_host (every thread a fiber, real ``__syncthreads``), for the tests.

As emulation.tables_host: equity_host's emulator (fiber scheduler, launch helper, table
setters) around the range-report kernel, its barrier routed through the emulator's, so the
kernel runs with the grid and block the launcher uses and a misplaced barrier fails here as it
would race on a GPU.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from gpu_eval.cuda.modules import BITMASK_TABLE_ORDER

from emulation import equity_host

_EMULATOR = equity_host._WRAPPER[equity_host._WRAPPER.index("#include <ucontext.h>"):
                                 equity_host._WRAPPER.index("#define GE_EMU_HEAD")]
_WRAPPER = r"""
void ge_eq_emu_sync();
#define GE_REPORT_SYNC() ge_eq_emu_sync()
#include "range_report.cu"
#define GE_WARP 32
""" + _EMULATOR + r"""
#define GE_EMU_HEAD unsigned gx, unsigned gy, unsigned bx, int nt

extern "C" void emu_ge_report_counts(GE_EMU_HEAD, const ge_u64* boards, ge_u32 n,
                                     const ge_u64* pairs, const ge_u16* cards, ge_u32 c,
                                     const ge_u16* starts, const ge_u16* mates,
                                     const double* w, ge_u32 m, double* less, double* equal) {
    ge_emu_launch(gx, gy, bx, nt, [=]() {
        ge_report_counts(boards, n, pairs, cards, c, starts, mates, w, m, less, equal);
    });
}
"""

_P = equity_host._P
SIGNATURES = {
    "ge_report_counts": ((_P, np.uint64), "u32", (_P, np.uint64), (_P, np.uint16), "u32",
                         (_P, np.uint16), (_P, np.uint16), (_P, np.float64), "u32",
                         (_P, np.float64), (_P, np.float64)),
}
#: Which arguments the kernel writes (the stand-in CuPy's stream-order model).
OUTPUTS = {"ge_report_counts": (9, 10)}


@cache
def build() -> Path:
    """Compile (or find in the cache) the library; raises HostBuildUnavailableError."""
    return equity_host.build_emulated(_WRAPPER, "ge_report", "kernels/range_report.cu")


class ReportHost(equity_host.EquityHost):
    """The range-report kernel on the CPU (``launch`` checks the arguments against
    :data:`SIGNATURES`); ``set_tables`` points ``ge_bitmask_tables`` at a game's tables."""

    def __init__(self, path: Path, threads: int = 2) -> None:
        super().__init__(path, threads)
        assert self.lib.emu_table_count() == len(BITMASK_TABLE_ORDER)
        equity_host.SIGNATURES.update(SIGNATURES)   # distinct names: launch() checks them too


def load_private() -> ReportHost:
    """A fresh copy of the library, loaded on its own (its own ``ge_bitmask_tables``)."""
    return ReportHost(equity_host.private_copy(build()))
