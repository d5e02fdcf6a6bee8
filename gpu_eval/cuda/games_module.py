"""The compiled ``kernels/equity_games.cu`` module per device, and the device lows of
:func:`gpu_eval.evaluate_low` (``ge_games_low``).

Per device, ``kernels/equity_games.cu`` is compiled once by NVRTC through ``cupy.RawModule``
(the sources' hash in the code), with ``ge_shortdeck_tables[2]`` and ``ge_omaha_tables``
uploaded from the tables the NumPy path uses (:func:`gpu_eval.cuda.variants.family_tables`)
and the Omaha low table (:func:`gpu_eval.games.eight_or_better.low_tables`) as a device array. The
equity engine of the other games (:mod:`gpu_eval.equity_engine.board_games.cuda_engine`) launches its
kernels from
the same module; evaluation lives here so that ``evaluate_low`` does not reach into an equity
engine. CuPy is imported lazily.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpu_eval.cuda import manifest, modules, streaming
from gpu_eval.cuda.availability import require_cuda
from gpu_eval.games import eight_or_better
from gpu_eval.games.registry import OMAHA, SHORTDECK

__all__ = ["get_module", "low_cuda", "KERNELS", "PLAYER_KERNELS", "MODULE",
           "MAX_PLAYERS", "LOW_ONE_BOARD", "LOW_ONE_HOLE"]

#: The manifest module of these launchers (gpu_eval.cuda.manifest).
MODULE = "games"
#: The module's kernels (its manifest records); a call compiles the base ones and its own
#: player count's alone while the whole module is not in the kernel cache
#: (modules.cached_part_state).
PLAYER_KERNELS: manifest.PlayerKernels = manifest.module(MODULE).players
KERNELS: tuple[str, ...] = PLAYER_KERNELS.names()
#: Most players of the showdown and sampling kernels (one of each per player count).
MAX_PLAYERS = PLAYER_KERNELS.counts[-1]

_STATES: dict[tuple[int, str], Any] = modules.device_cache()
_LOCK = threading.Lock()


@dataclass
class GamesState(modules.DeviceState):
    low_table: Any = None


def _build_state(cupy, dev: int, players: int | None) -> GamesState:
    from gpu_eval.cuda.variants import family_tables  # noqa: PLC0415

    names = PLAYER_KERNELS.names(players)
    module, kernels = modules.compile_module(cupy, MODULE, dev, players)
    arrays = []
    for family in (SHORTDECK, OMAHA):
        for symbol, tables, order, dtypes in family_tables(family):
            arrays += modules.upload_tables(cupy, module, symbol, tables, order, dtypes)
    low = cupy.asarray(np.ascontiguousarray(eight_or_better.low_tables()["OMAHA"]))
    cupy.cuda.runtime.deviceSynchronize()  # launches may run on other streams
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in names}
    return GamesState(device_id=dev, module=module, kernels=kernels, tables=arrays,
                       binom=None, sm_count=int(props["multiProcessorCount"]),
                       blocks_per_sm=blocks, streams=[], low_table=low)


def get_module(device_id: int | None = None, players: int | None = None) -> GamesState:
    """The game equity kernels for a device (compiled and tables uploaded once, then cached):
    those of ``players`` players (0: the base kernels alone; default: every count).

    Raises
    ------
    CudaUnavailableError
        If CuPy or a device is missing, or the kernels cannot be compiled.
    """
    return modules.cached_part_state(_STATES, _LOCK, _build_state, MODULE, players, device_id)


#: ``shared`` flags of ``ge_games_low``: one board for every row, one hand for every board.
LOW_ONE_BOARD, LOW_ONE_HOLE = 1, 2


def low_cuda(hole_masks: Any, board_masks: Any | None, table: np.ndarray) -> Any:
    """Lows of validated hand masks on the device (``ge_games_low``): Omaha 2 + 3 with
    ``board_masks``, else the best five of each hand. Hole rows and boards broadcast as in
    NumPy: one per row, one board for every row, or one hand against every board.

    CuPy masks in give a CuPy ``uint8`` array out, computed on their device; NumPy masks are
    streamed through the current device a chunk at a time (sized from its free memory) and
    give NumPy out.

    Examples
    --------
    >>> t = eight_or_better.low_tables()["OMAHA"]  # doctest: +SKIP
    >>> low_cuda(cards.to_mask(["Ah2d3cKs"]), cards.to_mask(["2c5d4h", "7s8s9c"]), t)
    ... # doctest: +SKIP
    array([56,  0], dtype=uint8)
    """
    from gpu_eval.cuda.availability import is_cupy_array  # noqa: PLC0415

    cupy = require_cuda()
    on_device = [x for x in (hole_masks, board_masks) if is_cupy_array(x)]
    if on_device:
        with on_device[0].device:
            return _low_on_device(cupy, hole_masks, board_masks, table)
    h = np.ascontiguousarray(hole_masks, dtype=np.uint64).reshape(-1)
    b = None if board_masks is None else np.ascontiguousarray(board_masks,
                                                              dtype=np.uint64).reshape(-1)
    n, shared = _low_shape(h.size, None if b is None else b.size)
    state = get_module(players=0)
    with cupy.cuda.Device(state.device_id):
        d_table = cupy.asarray(np.ascontiguousarray(table, dtype=np.uint8))
        # A row shared by every other (one hand, one board) goes up once; the rest streams.
        d_hole = cupy.asarray(h) if shared & LOW_ONE_HOLE else None
        d_board = cupy.asarray(b) if shared & LOW_ONE_BOARD else None
    ins = [x for x, one in ((h, d_hole), (b, d_board)) if x is not None and one is None]

    def launch(st, d_in, d_out, m: int) -> None:
        rest = iter(d_in)
        hole = d_hole if d_hole is not None else next(rest)
        board = np.uint64(0) if b is None else (d_board if d_board is not None else next(rest))
        st.launch("ge_games_low", m, (hole, board, np.int32(shared), d_table, d_out[0],
                                      np.uint64(m)))

    out, = streaming.stream_host(state, ins, [((), np.uint8, np.uint8)], launch)
    return out


def _low_shape(h: int, b: int | None) -> tuple[int, int]:
    """``(rows, shared flags)`` of ``h`` hole rows against ``b`` boards (None: no board);
    the caller checked that the sizes are equal or one is 1."""
    n = h if b is None else max(h, b)
    shared = 0
    if b is not None and n > 1:
        shared = (LOW_ONE_BOARD if b == 1 else 0) | (LOW_ONE_HOLE if h == 1 else 0)
    return n, shared


def _low_on_device(cupy, hole_masks: Any, board_masks: Any | None, table: np.ndarray) -> Any:
    """:func:`low_cuda` for CuPy masks, on the current device (theirs)."""
    state = get_module(players=0)
    h = cupy.ascontiguousarray(cupy.asarray(hole_masks), dtype=cupy.uint64).reshape(-1)
    b = None if board_masks is None else cupy.ascontiguousarray(
        cupy.asarray(board_masks), dtype=cupy.uint64).reshape(-1)
    n, shared = _low_shape(int(h.size), None if b is None else int(b.size))
    d_table = cupy.asarray(np.ascontiguousarray(table, dtype=np.uint8))
    out = cupy.empty(n, dtype=cupy.uint8)
    if n:
        state.launch("ge_games_low", n, (h, np.uint64(0) if b is None else b,
                                         np.int32(shared), d_table, out, np.uint64(n)))
    return out
