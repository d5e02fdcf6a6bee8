"""The CUDA path of the range report's counting (``kernels/range_report.cu``): every selected
column's weighted wins and ties on complete boards, the same integers (0/1 weights) as
:func:`gpu_eval.range_reports.showdowns.count_boards` on NumPy.

One module per device and game (the game's bitmask tables in its ``ge_bitmask_tables``): the
manifest module ``range_report`` (:mod:`gpu_eval.cuda.manifest`), compiled once by NVRTC or
loaded from the kernel cache (:func:`gpu_eval.cuda.modules.compile_module`, every launch
checked against the kernel's record). The boards stream through the device a chunk at a time,
chunks sized from its free memory and retried smaller when it runs out
(:func:`gpu_eval.cuda.streaming.for_chunks`), on the current device: the one holding the
caller's input (``range_report`` makes it current). A launch counts a chunk of boards, a CUDA
block per board, against one or two weight vectors; the per-board results are added up on
the device (all boards, or per segment of boards) and come back to the host. CuPy is
imported only when a function here runs.
"""

from __future__ import annotations

import threading

import numpy as np

from gpu_eval.cuda import availability, manifest, modules, streaming

__all__ = ["counts_cuda", "get_state", "column_tables", "KERNELS", "MODULE",
           "BOARDS_PER_LAUNCH", "VECTORS_PER_LAUNCH"]

#: The manifest module of this launcher (gpu_eval.cuda.manifest), and its kernels.
MODULE = "range_report"
KERNELS: tuple[str, ...] = manifest.module(MODULE).kernels
THREADS = modules.THREADS_PER_BLOCK
#: Boards per launch at most (fewer where free device memory says so): their
#: (boards, 2, columns) float64 results stay under 64 MB and each launch short.
BOARDS_PER_LAUNCH = 2048
#: Weight vectors one launch counts with (the kernel's shared running sums).
VECTORS_PER_LAUNCH = 2

_STATES: dict[str, dict] = modules.device_cache()
_LOCK = threading.Lock()


def get_state(lay, device_id: int | None = None) -> modules.DeviceState:
    """The kernel compiled for a device (default: the current one) with the tables of
    ``lay``'s game uploaded (cached per game).

    Examples
    --------
    >>> get_state(deck_layout("shortdeck")).kernels["ge_report_counts"]  # doctest: +SKIP
    """
    with _LOCK:
        states = _STATES.setdefault(lay.game, {})

    def build(cupy, dev):
        module, kernels = modules.compile_module(cupy, MODULE, dev)
        tables = modules.upload_bitmask_tables(cupy, module, lay.tables)
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
    non-decreasing; None: one segment): ``(m, S, K)`` float64 NumPy arrays.

    Counted on the current device, a chunk of boards at a time (sized from its free memory,
    at most :data:`BOARDS_PER_LAUNCH`; a chunk that runs out of memory is counted again in
    smaller ones).

    Examples
    --------
    >>> lay = deck_layout("holdem")  # doctest: +SKIP
    >>> less, equal = counts_cuda(ge.cards.to_mask(["AsKsQsJsTs"]), lay,
    ...                           np.ones((1, 2)), np.array([0, 1]))  # doctest: +SKIP
    """
    cupy = availability.require_cuda()
    state = get_state(lay)
    boards = np.ascontiguousarray(boards, dtype=np.uint64).reshape(-1)
    n = len(boards)
    m, K = weights.shape
    seg = np.zeros(n, dtype=np.intp) if segments is None else np.asarray(segments, np.intp)
    n_seg = int(seg[-1]) + 1 if n else 1
    out_l = np.zeros((m, n_seg, K))
    out_e = np.zeros((m, n_seg, K))
    if n == 0 or K == 0:
        return out_l, out_e
    masks, cards, start, mates = column_tables(lay, cols)
    mult = (None if multiplicity is None
            else np.ascontiguousarray(multiplicity, dtype=np.float64).reshape(-1))
    name = KERNELS[0]
    with cupy.cuda.Device(state.device_id):
        d_masks, d_cards = cupy.asarray(masks), cupy.asarray(cards)
        d_start, d_mates = cupy.asarray(start), cupy.asarray(mates)
        for v0 in range(0, m, VECTORS_PER_LAUNCH):
            vecs = weights[v0:v0 + VECTORS_PER_LAUNCH]
            nv = len(vecs)
            d_w = cupy.asarray(np.ascontiguousarray(vecs, dtype=np.float64))

            def work(lo: int, hi: int, v0: int = v0, nv: int = nv, d_w=d_w) -> None:
                # Rows [lo, hi) only, and the host totals touched once every sum is back:
                # a chunk that ran out of device memory is run again, smaller.
                b = hi - lo
                d_boards = cupy.asarray(boards[lo:hi])
                less = cupy.empty((b, nv, K), dtype=cupy.float64)
                equal = cupy.empty((b, nv, K), dtype=cupy.float64)
                # A block per board: THREADS items a board make the grid one block a board
                # (at most one wave; the blocks stride over the rest).
                state.launch(name, b * THREADS, (
                    d_boards, np.uint32(b), d_masks, d_cards, np.uint32(K), d_start, d_mates,
                    d_w, np.uint32(nv), less, equal))
                d_mult = None if mult is None else cupy.asarray(mult[lo:hi])
                # Each segment's boards of this chunk, added up on the device.
                edges = np.flatnonzero(np.diff(seg[lo:hi])) + 1
                sums = []
                for a, z in zip(np.concatenate([[0], edges]), np.concatenate([edges, [b]])):
                    la, ea = less[a:z], equal[a:z]
                    if d_mult is not None:
                        times = d_mult[a:z, None, None]
                        la, ea = la * times, ea * times
                    sums.append((int(seg[lo + a]), la.sum(axis=0), ea.sum(axis=0)))
                got = [(s, sl.get(), se.get()) for s, sl, se in sums]
                for s, sl, se in got:
                    out_l[v0:v0 + nv, s] += sl
                    out_e[v0:v0 + nv, s] += se

            # A board's device bytes: its mask and multiplicity, its two (nv, K) results,
            # as much again for their products by the multiplicity and the segments' sums.
            streaming.for_chunks(cupy, n, 16 + 6 * nv * K * 8, work, max_rows=BOARDS_PER_LAUNCH)
    return out_l, out_e
