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

from gpu_eval.cuda import manifest, modules
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
    ``board_masks`` (one per row, or one for all), else the best five of each hand.
    CuPy masks in give a CuPy ``uint8`` array out; NumPy in gives NumPy out."""
    from gpu_eval.cuda.availability import is_cupy_array  # noqa: PLC0415

    cupy = require_cuda()
    state = get_module()
    on_device = is_cupy_array(hole_masks) or is_cupy_array(board_masks)
    h = cupy.ascontiguousarray(cupy.asarray(hole_masks), dtype=cupy.uint64).reshape(-1)
    n = int(h.size)
    b = None if board_masks is None else cupy.ascontiguousarray(
        cupy.asarray(board_masks), dtype=cupy.uint64).reshape(-1)
    shared = np.int32(b is not None and int(b.size) == 1 and n != 1)
    d_table = cupy.asarray(np.ascontiguousarray(table, dtype=np.uint8))
    out = cupy.empty(n, dtype=cupy.uint8)
    if n:
        state.launch("ge_games_low", n, (h, np.uint64(0) if b is None else b, shared,
                                         d_table, out, np.uint64(n)))
    return out if on_device else out.get()
