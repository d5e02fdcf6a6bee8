"""The CUDA path of the range report's counting (``kernels/range_report.cu``): every selected
column's weighted wins and ties on complete boards, the same integers (0/1 weights) as
:func:`gpu_eval.range_reports.showdowns.count_boards` on NumPy.

One module per device and game (the game's bitmask tables in its ``ge_bitmask_tables``),
compiled once by NVRTC and cached like the package's other CUDA modules. A launch counts a
block of boards, a CUDA block per board, against one or two weight vectors; the per-board
results are added up on the device (all boards, or per segment of boards) and come back to
the host. CuPy is imported only when a function here runs.
"""

from __future__ import annotations

import threading

import numpy as np

from gpu_eval.cuda import availability, modules
from gpu_eval.cuda.nvrtc import module_code

__all__ = ["counts_cuda", "get_state", "module_source", "column_tables", "KERNELS",
           "MODULE_FILE", "BOARDS_PER_LAUNCH"]

MODULE_FILE = "range_report.cu"
KERNELS: tuple[str, ...] = ("ge_report_counts",)
THREADS = modules.THREADS_PER_BLOCK
#: Boards per launch: their (boards, 2, columns) float64 results stay under 64 MB.
BOARDS_PER_LAUNCH = 2048
#: Weight vectors one launch counts with (the kernel's shared running sums).
VECTORS_PER_LAUNCH = 2

_STATES: dict[str, dict] = {}
_LOCK = threading.Lock()


def module_source() -> str:
    """The code handed to ``cupy.RawModule``; its first line carries the sources' hash.

    Examples
    --------
    >>> module_source().splitlines()[1]
    '#include "range_report.cu"'
    """
    return module_code("range report kernels", [MODULE_FILE])


def get_state(lay, device_id: int | None = None) -> modules.DeviceState:
    """The kernel compiled for a device with the tables of ``lay``'s game uploaded (cached
    per game)."""
    with _LOCK:
        states = _STATES.setdefault(lay.game, {})

    def build(cupy, dev):
        module, kernels = modules.compile_module(cupy, module_source(), KERNELS,
                                                 "range report", dev)
        tables = modules.upload_tables(cupy, module, "ge_bitmask_tables", lay.tables.as_dict(),
                                       modules.BITMASK_TABLE_ORDER, modules.BITMASK_TABLE_DTYPES)
        cupy.cuda.runtime.deviceSynchronize()
        props = cupy.cuda.runtime.getDeviceProperties(dev)
        blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in KERNELS}
        return modules.DeviceState(dev, module, kernels, tables, None,
                                   int(props["multiProcessorCount"]), blocks)

    return modules.cached_device_state(states, _LOCK, build, device_id)


def column_tables(lay, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray]:
    """The kernel's column arguments for the columns ``cols`` of ``lay``: their masks, their
    two deck-relative cards (``a | b << 8``), and per card of the deck the selected columns
    through it (``mates[start[x]:start[x + 1]]``, positions in ``cols``).

    Examples
    --------
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> masks, cards, start, mates = column_tables(deck_layout("holdem"), np.array([0, 1325]))
    >>> cards.tolist(), start[:3].tolist(), mates[:2].tolist()
    ([256, 13106], [0, 1, 2], [0, 0])
    """
    low = lay.lowest_card
    pc = lay.pairs[cols].astype(np.int64) - low                            # (K, 2)
    cards = (pc[:, 0] | (pc[:, 1] << 8)).astype(np.uint16)
    owner = pc.ravel()
    order = np.argsort(owner, kind="stable")
    mates = (order // 2).astype(np.uint16)
    start = np.zeros(lay.deck_size + 1, dtype=np.uint16)
    np.cumsum(np.bincount(owner, minlength=lay.deck_size), out=start[1:])
    return (np.ascontiguousarray(lay.pair_masks[cols]), cards, start, mates)


def counts_cuda(boards: np.ndarray, lay, weights: np.ndarray, cols: np.ndarray, *,
                segments: np.ndarray | None = None, multiplicity: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(less, equal)`` of the columns ``cols`` on ``boards`` (validated 5-card masks)
    against ``weights`` (``(m, K)`` over ``cols``), each board's counts times its
    ``multiplicity`` (default 1), added up per segment (``segments``: each board's,
    non-decreasing; None: one segment): ``(m, S, K)`` float64 NumPy arrays."""
    cupy = availability.require_cuda()
    state = get_state(lay)
    n = len(boards)
    m, K = weights.shape
    seg = np.zeros(n, dtype=np.intp) if segments is None else np.asarray(segments, np.intp)
    n_seg = int(seg[-1]) + 1 if n else 1
    out_l = np.zeros((m, n_seg, K))
    out_e = np.zeros((m, n_seg, K))
    if n == 0 or K == 0:
        return out_l, out_e
    masks, cards, start, mates = column_tables(lay, cols)
    name = KERNELS[0]
    with cupy.cuda.Device(state.device_id):
        d_masks, d_cards = cupy.asarray(masks), cupy.asarray(cards)
        d_start, d_mates = cupy.asarray(start), cupy.asarray(mates)
        d_boards = cupy.asarray(np.ascontiguousarray(boards, dtype=np.uint64))
        d_mult = None if multiplicity is None else cupy.asarray(
            np.asarray(multiplicity, dtype=np.float64))
        for v0 in range(0, m, VECTORS_PER_LAUNCH):
            vecs = weights[v0:v0 + VECTORS_PER_LAUNCH]
            nv = len(vecs)
            d_w = cupy.asarray(np.ascontiguousarray(vecs, dtype=np.float64))
            for lo in range(0, n, BOARDS_PER_LAUNCH):
                hi = min(n, lo + BOARDS_PER_LAUNCH)
                less = cupy.empty((hi - lo, nv, K), dtype=cupy.float64)
                equal = cupy.empty((hi - lo, nv, K), dtype=cupy.float64)
                grid = max(1, min(hi - lo, state.sm_count * state.blocks_per_sm[name]))
                state.kernels[name]((grid,), (THREADS,), (
                    cupy.ascontiguousarray(d_boards[lo:hi]), np.uint32(hi - lo), d_masks,
                    d_cards, np.uint32(K), d_start, d_mates, d_w, np.uint32(nv), less, equal))
                # Each segment's boards of this launch, added up on the device.
                edges = np.flatnonzero(np.diff(seg[lo:hi])) + 1
                for a, b in zip(np.concatenate([[0], edges]), np.concatenate([edges, [hi - lo]])):
                    s = int(seg[lo + a])
                    la, ea = less[a:b], equal[a:b]
                    if d_mult is not None:
                        times = d_mult[lo + a:lo + b, None, None]
                        la, ea = la * times, ea * times
                    out_l[v0:v0 + nv, s] += la.sum(axis=0).get()
                    out_e[v0:v0 + nv, s] += ea.sum(axis=0).get()
    return out_l, out_e
