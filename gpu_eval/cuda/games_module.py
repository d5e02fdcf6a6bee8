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

__all__ = ["get_module", "low_cuda", "KERNELS", "MODULE"]

#: The manifest module of these launchers (gpu_eval.cuda.manifest), and its kernels.
MODULE = "games"
KERNELS: tuple[str, ...] = manifest.module(MODULE).kernels

_STATES: dict[tuple[int, str], Any] = modules.device_cache()
_LOCK = threading.Lock()


@dataclass
class GamesState(modules.DeviceState):
    low_table: Any = None


def _build_state(cupy, dev: int) -> GamesState:
    from gpu_eval.cuda.variants import family_tables  # noqa: PLC0415

    module, kernels = modules.compile_module(cupy, MODULE, dev)
    arrays = []
    for family in (SHORTDECK, OMAHA):
        for symbol, tables, order, dtypes in family_tables(family):
            arrays += modules.upload_tables(cupy, module, symbol, tables, order, dtypes)
    low = cupy.asarray(np.ascontiguousarray(eight_or_better.low_tables()["OMAHA"]))
    cupy.cuda.runtime.deviceSynchronize()  # launches may run on other streams
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in KERNELS}
    return GamesState(device_id=dev, module=module, kernels=kernels, tables=arrays,
                       binom=None, sm_count=int(props["multiProcessorCount"]),
                       blocks_per_sm=blocks, streams=[], low_table=low)


def get_module(device_id: int | None = None) -> GamesState:
    """The game equity kernels for a device (compiled and tables uploaded once, then cached).

    Raises
    ------
    CudaUnavailableError
        If CuPy or a device is missing, or the kernels cannot be compiled.
    """
    return modules.cached_device_state(_STATES, _LOCK, _build_state, device_id)


def low_cuda(hole_masks: Any, board_masks: Any | None, table: np.ndarray) -> Any:
    """Lows of validated hand masks on the device (``ge_games_low``): Omaha 2 + 3 with
    ``board_masks`` (one per row, or one for all; one row of hole cards against many boards
    too), else the best five of each hand.

    CuPy masks in give a CuPy ``uint8`` array out, computed on their device; NumPy masks are
    streamed through the current device a chunk at a time (sized from its free memory) and
    give NumPy out.

    Examples
    --------
    >>> low_cuda(cards.to_mask(["Ah2d3c4s5h9cKd"]), None, low_tables()["BEST5"])  # doctest: +SKIP
    array([...], dtype=uint8)
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
    n = max(h.size, 0 if b is None else b.size)
    if h.size == 1 and n > 1:  # one hand against many boards
        h = np.broadcast_to(h, (n,)).copy()
    state = get_module()
    with cupy.cuda.Device(state.device_id):
        d_table = cupy.asarray(np.ascontiguousarray(table, dtype=np.uint8))
    shared = b is not None and b.size == 1 and n > 1
    ins = [h] if b is None or shared else [h, b]
    d_shared = None
    if shared:
        with cupy.cuda.Device(state.device_id):
            d_shared = cupy.asarray(b)

    def launch(st, d_in, d_out, m: int) -> None:
        board = np.uint64(0) if b is None else (d_shared if shared else d_in[1])
        st.launch("ge_games_low", m, (d_in[0], board, np.int32(shared), d_table, d_out[0],
                                      np.uint64(m)))

    out, = streaming.stream_host(state, ins, [((), np.uint8, np.uint8)], launch)
    return out


def _low_on_device(cupy, hole_masks: Any, board_masks: Any | None, table: np.ndarray) -> Any:
    """:func:`low_cuda` for CuPy masks, on the current device (theirs)."""
    state = get_module()
    h = cupy.ascontiguousarray(cupy.asarray(hole_masks), dtype=cupy.uint64).reshape(-1)
    b = None if board_masks is None else cupy.ascontiguousarray(
        cupy.asarray(board_masks), dtype=cupy.uint64).reshape(-1)
    n = max(int(h.size), 0 if b is None else int(b.size))
    if int(h.size) == 1 and n > 1:  # one hand against many boards
        h = cupy.ascontiguousarray(cupy.broadcast_to(h, (n,)))
    shared = np.int32(b is not None and int(b.size) == 1 and n != 1)
    d_table = cupy.asarray(np.ascontiguousarray(table, dtype=np.uint8))
    out = cupy.empty(n, dtype=cupy.uint8)
    if n:
        state.launch("ge_games_low", n, (h, np.uint64(0) if b is None else b, shared,
                                         d_table, out, np.uint64(n)))
    return out
