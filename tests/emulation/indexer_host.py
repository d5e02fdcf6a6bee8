"""kernels/hand_index.cu on the CPU for the tests: the indexer module's host build
(:mod:`emulation.kernel_build`) on NumPy arrays, two blocks of 64 threads striding over the
rows, with a layout's tables laid out by the launcher's own
:func:`gpu_eval.solver_tables.cuda_indexer.kernel_tables`.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gpu_eval.solver_tables.cuda_indexer import NO_BAD_ROW, kernel_tables

from emulation import kernel_build


class IndexerHost:
    """The kernel on the CPU, with a NumPy wrapper (inputs not validated); ``sanitize``: its
    build under AddressSanitizer and UBSan (run it in a process with the ASan runtime
    preloaded: :func:`emulation.sanitizers.run`)."""

    def __init__(self, sanitize: bool = False) -> None:
        self.library = kernel_build.load("indexer", sanitize=sanitize)

    def index(self, ids: np.ndarray, tables, lowest_rank: int, all_rounds: bool = False
              ) -> tuple[np.ndarray, int]:
        """``(indices, first_bad)`` of ``(N, cards)`` ids, straight through the kernel."""
        ids = np.ascontiguousarray(ids, dtype=np.uint8)
        t = kernel_tables(tables)
        n, k = ids.shape
        width = len(tables.rounds) if all_rounds else 1
        out = np.zeros((n, width), dtype=np.int64)
        bad = np.array([NO_BAD_ROW], dtype=np.uint64)
        cpr = sum(c << (4 * r) for r, c in enumerate(tables.rounds))
        self.library.launch("ge_hand_index", (2,), (64,), (
            ids, np.uint64(n), np.int32(k), np.int32(len(tables.rounds)), np.uint32(cpr),
            np.int32(lowest_rank), np.int32(tables.nranks), np.int32(all_rounds), t["rinfo"],
            t["lookup"], t["cfgdata"], t["binom"], out, bad), {})
        return (out if all_rounds else out.reshape(n)), int(bad[0])


@cache
def load() -> IndexerHost:
    return IndexerHost()
