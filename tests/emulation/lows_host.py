"""kernels/lowball.cu on the CPU for the low-game tests: the module's host build
(:mod:`emulation.kernel_build`) on NumPy arrays, with the tables the NumPy path uses
(gpu_eval.cuda.lowball.low_device_tables).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gpu_eval.cuda.lowball import GAME_CODES

from emulation import kernel_build


class LowKernels:
    """The low kernel on the CPU (inputs are not validated)."""

    def __init__(self) -> None:
        kernel_build.load("lows")

    def evaluate(self, masks: np.ndarray, game: str) -> np.ndarray:
        """Strengths of ``masks`` under ``game``: two blocks of 64 threads striding."""
        m = np.ascontiguousarray(masks, dtype=np.uint64)
        out = np.empty(len(m), dtype=np.uint16)
        kernel_build.launch("ge_low_eval_masks", (2,), (64,),
                            (m, np.int32(GAME_CODES[game]), out, np.uint64(len(m))))
        return out


@cache
def load() -> LowKernels:
    return LowKernels()
