"""kernels/variants.cu on the CPU for the variant tests: short deck, Omaha and wild cards run by
the module's host build (:mod:`emulation.kernel_build`) on NumPy arrays, with the tables the
NumPy path uses, in one block of 64 threads striding over the rows.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from emulation import kernel_build

_GRID, _BLOCK = (1,), (64,)


def _launch(name: str, args: tuple) -> None:
    kernel_build.launch(name, _GRID, _BLOCK, args)


class VariantKernels:
    """The variant kernels on the CPU, with NumPy wrappers (inputs are not validated)."""

    def __init__(self) -> None:
        kernel_build.load("variants")  # build now: a missing compiler shows at once

    def shortdeck_masks(self, masks: np.ndarray, variant: int) -> np.ndarray:
        m = np.ascontiguousarray(masks, dtype=np.uint64)
        out = np.empty(len(m), dtype=np.uint16)
        _launch("ge_shortdeck_eval_masks", (m, np.int32(variant), out, np.uint64(len(m))))
        return out

    def shortdeck_ids(self, ids: np.ndarray, variant: int) -> np.ndarray:
        a = np.ascontiguousarray(ids, dtype=np.uint8)
        out = np.empty(len(a), dtype=np.uint16)
        _launch("ge_shortdeck_eval_ids", (a, np.int32(a.shape[1]), np.int32(variant), out,
                                          np.uint64(len(a))))
        return out

    def omaha(self, hole: np.ndarray, board: np.ndarray) -> np.ndarray:
        h = np.ascontiguousarray(hole, dtype=np.uint8)
        b = np.ascontiguousarray(board, dtype=np.uint8)
        out = np.empty(len(h), dtype=np.uint16)
        _launch("ge_omaha_eval_ids", (h, np.int32(h.shape[1]), b, np.int32(b.shape[-1]),
                                      np.int32(b.ndim == 1), out, np.uint64(len(h))))
        return out

    def wild(self, masks: np.ndarray, jokers: np.ndarray, wild_ranks: int, bug: bool
             ) -> np.ndarray:
        m = np.ascontiguousarray(masks, dtype=np.uint64)
        j = np.ascontiguousarray(jokers, dtype=np.uint8)
        out = np.empty(len(m), dtype=np.uint16)
        _launch("ge_wild_eval_masks", (m, j, np.uint32(wild_ranks), np.int32(bug), out,
                                       np.uint64(len(m))))
        return out


@cache
def load() -> VariantKernels:
    return VariantKernels()
