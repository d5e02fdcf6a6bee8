"""The CUDA hand indexer: :class:`gpu_eval.HandIndexer` on the device (kernels/hand_index.cu).

:func:`index` numbers the rows of a CuPy ``uint8`` card array with the kernel
``ge_hand_index`` (a thread a hand), from the layout's tables laid out by
:func:`kernel_tables` and uploaded once per device and layout. The kernel checks every row
(ids in the deck, no card twice) and reports the lowest bad row, which the caller names.
The module is compiled once per device by NVRTC and cached like the package's other CUDA
modules (:func:`gpu_eval.cuda.modules.cached_device_state`). CuPy is imported only when a
function here runs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from gpu_eval.cuda import availability, manifest, modules, streaming

__all__ = ["index", "kernel_tables", "get_state", "KERNELS", "MODULE",
           "ROWS_PER_LAUNCH", "NO_BAD_ROW"]

#: The manifest module of this launcher (gpu_eval.cuda.manifest), and its kernels.
MODULE = "indexer"
KERNELS: tuple[str, ...] = manifest.module(MODULE).kernels
#: Rows per launch at most (fewer where free device memory says so).
ROWS_PER_LAUNCH = 1 << 24
#: ``first_bad`` when every row is valid.
NO_BAD_ROW = (1 << 64) - 1
#: Fields per round of ``rinfo`` and per configuration of ``cfgdata`` (kernels/hand_index.cu).
RINFO_FIELDS = 8
CFG_FIELDS = 9
BINOM_SIDE = 17

@dataclass
class IndexerState(modules.DeviceState):
    """The compiled kernel of a device, with each layout's uploaded tables."""

    layouts: dict = field(default_factory=dict)  # (rounds, nranks) -> device tables


_STATES: dict[tuple[int, str], IndexerState] = modules.device_cache()
_LOCK = threading.Lock()


def kernel_tables(tables) -> dict[str, np.ndarray]:
    """A layout's tables as the kernel reads them (``rinfo``, ``lookup``, ``cfgdata``,
    ``binom``; see kernels/hand_index.cu).

    Parameters
    ----------
    tables : gpu_eval.solver_tables.indexer.LayoutTables
        The layout's tables.

    Returns
    -------
    dict of str to numpy.ndarray
        ``int64`` arrays (``binom`` ``uint64``).

    Examples
    --------
    >>> from gpu_eval.solver_tables.indexer import layout_tables
    >>> t = kernel_tables(layout_tables((2, 3)))
    >>> t["rinfo"].reshape(-1, 8)[:, :3].tolist()   # qn, radix, dense per round
    [[3, 3, 1], [12, 4, 1]]
    """
    rinfo, lookup, cfgdata = [], [], []
    at = cfg_at = 0
    for rt in tables.per_round:
        n_cfg = len(rt.configs)
        if rt.code_to_config is not None:
            part = rt.code_to_config.astype(np.int64)
            dense, length = 1, len(part)
        else:
            part = np.concatenate([rt.sorted_codes, rt.sorted_configs.astype(np.int64)])
            dense, length = 0, n_cfg
        rinfo.append([rt.qn, rt.radix[-1], dense, at, length, cfg_at, 0, 0])
        lookup.append(part)
        at += len(part)
        rows = np.zeros((n_cfg, CFG_FIELDS), dtype=np.int64)
        rows[:, 0] = rt.offsets
        rows[:, 1:5] = rt.mult
        rows[:, 5:9] = rt.member
        cfgdata.append(rows.ravel())
        cfg_at += n_cfg
    binom = np.array([[comb(n, k) for k in range(BINOM_SIDE)] for n in range(BINOM_SIDE)],
                     dtype=np.uint64).ravel()
    return {"rinfo": np.array(rinfo, dtype=np.int64).ravel(),
            "lookup": np.concatenate(lookup).astype(np.int64),
            "cfgdata": np.concatenate(cfgdata), "binom": binom}


def get_state(device_id: int | None = None) -> IndexerState:
    """The indexer kernel compiled for a device (cached).

    Raises
    ------
    gpu_eval.cuda.availability.CudaUnavailableError
        If CuPy or a device is missing, or the kernel does not compile.

    Examples
    --------
    >>> get_state().kernels["ge_hand_index"]  # doctest: +SKIP
    """
    return modules.cached_device_state(_STATES, _LOCK, _build_state, device_id)


def _build_state(cupy, dev: int) -> IndexerState:
    module, kernels = modules.compile_module(cupy, MODULE, dev)
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in KERNELS}
    return IndexerState(dev, module, kernels, [], None, int(props["multiProcessorCount"]),
                        blocks)


def _device_tables(cupy, state: IndexerState, tables) -> dict[str, Any]:
    key = (tables.rounds, tables.nranks)
    found = state.layouts.get(key)
    if found is None:
        with _LOCK:
            found = state.layouts.get(key)
            if found is None:
                found = {k: cupy.asarray(v) for k, v in kernel_tables(tables).items()}
                state.layouts[key] = found
    return found


def index(ids, tables, *, lowest_rank: int, all_rounds: bool = False) -> tuple[Any, int | None]:
    """Indices of ``(N, cards)`` rows on the device.

    Parameters
    ----------
    ids : cupy.ndarray or numpy.ndarray
        Card ids, one hand a row, round by round. A NumPy array (``uint8``) is streamed
        through the current device a chunk at a time (sized from free device memory), the
        indices coming back as it goes. A CuPy array is indexed on its own device into a CuPy
        result; ids of any integer dtype are checked for range a chunk at a time before the
        cast to ``uint8`` (no temporary grows with the input).
    tables : gpu_eval.solver_tables.indexer.LayoutTables
        The layout's tables.
    lowest_rank : int
        The deck's lowest rank (0 for 52 cards, 4 for the short deck).
    all_rounds : bool
        Every round's index (``(N, n_rounds)``) instead of the last round's (``(N,)``).

    Returns
    -------
    tuple
        ``(indices, first_bad)``: ``int64`` indices (CuPy for CuPy input, else NumPy), -1 on
        invalid rows, and the lowest invalid row (None if none): an id out of the deck's
        range first (as the NumPy path checks), else a card outside the deck or twice.

    Examples
    --------
    >>> from gpu_eval.solver_tables.indexer import layout_tables
    >>> out, bad = index(cupy.asarray(ids), layout_tables((2, 5)), lowest_rank=0)  # doctest: +SKIP
    """
    cupy = availability.require_cuda()
    n, k = ids.shape
    width = len(tables.rounds) if all_rounds else 1
    if not availability.is_cupy_array(ids):
        state = get_state()
        with cupy.cuda.Device(state.device_id):
            launch = _launcher(cupy, state, tables, k, lowest_rank, all_rounds)
            out, = streaming.stream_host(
                state, [np.ascontiguousarray(ids, dtype=np.uint8)],
                [((width,), np.int64, np.int64)],
                lambda st, d_in, d_out, m: launch(d_in[0], d_out[0], m), max_rows=ROWS_PER_LAUNCH)
        bad = np.flatnonzero(out[:, -1] < 0)  # the kernel writes -1 on every bad row
        return (out if all_rounds else out.reshape(n)), (int(bad[0]) if bad.size else None)
    with ids.device:
        state = get_state(ids.device.id)
        launch = _launcher(cupy, state, tables, k, lowest_rank, all_rounds)
        wide = ids.dtype != cupy.uint8
        row_bytes = k * (ids.dtype.itemsize + 2) + 8 * width
        if wide:  # ids out of range first, over every row, before any cast
            out_of_range: list[int] = []

            def check(lo: int, hi: int) -> None:
                if not out_of_range:
                    chunk = ids[lo:hi]
                    rows = cupy.flatnonzero(((chunk < 0) | (chunk >= 52)).any(axis=1))
                    if rows.size:
                        out_of_range.append(lo + int(rows[0]))

            streaming.for_chunks(cupy, n, row_bytes, check)
            if out_of_range:
                return None, out_of_range[0]
        out = cupy.empty((n, width), dtype=cupy.int64)
        first: list[int] = []

        def work(lo: int, hi: int) -> None:
            if first:
                return
            chunk = ids[lo:hi]
            chunk = cupy.ascontiguousarray(chunk.astype(cupy.uint8) if wide else chunk)
            bad = launch(chunk, out[lo:hi], hi - lo)
            row = int(bad.get()[0])
            if row != NO_BAD_ROW:
                first.append(lo + row)  # launches go in row order: the first is the lowest

        streaming.for_chunks(cupy, n, row_bytes, work, max_rows=ROWS_PER_LAUNCH)
    return (out if all_rounds else out.reshape(n)), (first[0] if first else None)


def _launcher(cupy, state: IndexerState, tables, k: int, lowest_rank: int, all_rounds: bool):
    """``launch(d_ids, d_out, m) -> first_bad``: one launch over ``m`` rows on the current
    stream, its lowest bad row (relative) in a one-element device array."""
    t = _device_tables(cupy, state, tables)
    cpr = sum(c << (4 * r) for r, c in enumerate(tables.rounds))
    fixed = (np.int32(k), np.int32(len(tables.rounds)), np.uint32(cpr), np.int32(lowest_rank),
             np.int32(tables.nranks), np.int32(bool(all_rounds)))

    def launch(d_ids, d_out, m: int):
        bad = cupy.full(1, np.uint64(NO_BAD_ROW), dtype=cupy.uint64)
        state.launch("ge_hand_index", m, (d_ids, np.uint64(m), *fixed, t["rinfo"], t["lookup"],
                                          t["cfgdata"], t["binom"], d_out, bad))
        return bad

    return launch
