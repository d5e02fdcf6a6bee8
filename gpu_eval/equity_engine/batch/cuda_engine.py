"""The CUDA path of :func:`gpu_eval.equity_batch` on the flop, turn and river (kernels/equity_batch.cu).

:func:`spot_counts` takes the spots :mod:`gpu_eval.equity_engine.batch.api` has validated, as hand
masks, and counts per spot and player the board completions won outright, the split pots
and the split-pot units, the very integers of the NumPy path. Per chunk of spots,
``ge_batch_<P>`` runs a warp per spot on the flop and turn (each lane a share of the 990 or
44-46 completions, counted in registers and summed by shuffles) and a thread per spot on the
river. The module (``kernels/equity_batch.cu``, with the bitmask evaluator's tables) is
compiled once per device by NVRTC and cached like the other CUDA modules
(:func:`gpu_eval.cuda.modules.cached_device_state`). CuPy is imported only when a function
here runs.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from gpu_eval.cuda import availability, manifest, modules, streaming

__all__ = ["spot_counts", "get_state", "KERNELS", "PLAYER_KERNELS", "MODULE", "SPOTS_PER_LAUNCH"]

#: The manifest module of this engine (gpu_eval.cuda.manifest).
MODULE = "batch"
#: The module's kernels (one per player count, from its manifest records); a call compiles
#: its own count's alone while the whole module is not in the kernel cache
#: (modules.cached_part_state).
PLAYER_KERNELS: manifest.PlayerKernels = manifest.module(MODULE).players
KERNELS: tuple[str, ...] = PLAYER_KERNELS.names()
MAX_PLAYERS = PLAYER_KERNELS.counts[-1]
THREADS = modules.THREADS_PER_BLOCK
WARP = 32
#: Spots per launch at most (fewer where free device memory says so): keeps each launch short
#: enough for Ctrl-C between launches.
SPOTS_PER_LAUNCH = 1 << 21

_STATES: dict[tuple[int, str], modules.DeviceState] = modules.device_cache()
_LOCK = threading.Lock()


def get_state(device_id: int | None = None, players: int | None = None) -> modules.DeviceState:
    """The batch kernels compiled for a device, with the evaluator's tables uploaded (cached):
    the kernel of ``players`` players (default: every count).

    Raises
    ------
    gpu_eval.cuda.availability.CudaUnavailableError
        If CuPy or a device is missing, or the kernels do not compile.

    Examples
    --------
    >>> get_state().kernels["ge_batch_2"]  # doctest: +SKIP
    """
    return modules.cached_part_state(_STATES, _LOCK, _build_state, MODULE, players, device_id)


def _build_state(cupy, dev: int, players: int | None) -> modules.DeviceState:
    names = PLAYER_KERNELS.names(players)
    module, kernels = modules.compile_module(cupy, MODULE, dev, players)
    tables = modules.upload_bitmask_tables(cupy, module)
    cupy.cuda.runtime.deviceSynchronize()
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in names}
    return modules.DeviceState(dev, module, kernels, tables, None,
                              int(props["multiProcessorCount"]), blocks)


def _grid(state: modules.DeviceState, name: str, n: int, k: int) -> int:
    """Blocks for ``n`` spots: a warp a spot (k > 0) or a thread a spot (the river), at
    most one full wave (the kernels stride over the rest)."""
    per_block = THREADS // WARP if k else THREADS
    return max(1, min(-(-n // per_block), state.sm_count * state.blocks_per_sm[name]))


def spot_counts(hole: np.ndarray, board: np.ndarray, free: np.ndarray, k: int, *,
                device_out: bool = False) -> tuple[Any, Any, Any]:
    """Wins, ties and split-pot units of every spot and player, on the GPU.

    Parameters
    ----------
    hole : numpy.ndarray of uint64, shape (N, P)
        Each player's hole-card mask (2 <= P <= 10).
    board : numpy.ndarray of uint64, shape (N,)
        The known board of each spot (3, 4 or 5 cards).
    free : numpy.ndarray of uint64, shape (N,)
        The cards a completion may use (the deck less holes, board and dead cards).
    k : int
        Cards to come: 2 (flop), 1 (turn) or 0 (river).
    device_out : bool
        Return CuPy arrays (left on the device) instead of NumPy ones.

    Returns
    -------
    tuple
        ``(wins, ties, units)``, int64 arrays of shape (N, P); units are split pots in
        ``lcm(1..P)`` units of a pot (``lcm / c`` for a c-way split), as the NumPy path counts.

    Raises
    ------
    ValueError
        An unsupported player count or street.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> h = cards.to_mask(["AhKh", "QsQd"]).reshape(1, 2)
    >>> b = cards.to_mask(["2c7d9h"])
    >>> free = ~(h[:, 0] | h[:, 1] | b) & np.uint64(0x1FFF1FFF1FFF1FFF)
    >>> w, t, u = spot_counts(h, b, free, 2)  # doctest: +SKIP
    >>> w.tolist(), t.tolist()  # doctest: +SKIP
    ([[237, 753]], [[0, 0]])
    """
    hole = np.ascontiguousarray(hole, dtype=np.uint64)
    n, p = hole.shape
    if not 2 <= p <= MAX_PLAYERS:
        raise ValueError(f"spot_counts: {p} players; the CUDA path takes 2 to {MAX_PLAYERS}")
    if k not in (0, 1, 2):
        raise ValueError(f"spot_counts: k={k}; the CUDA path plays the flop (2), turn (1) "
                         f"and river (0)")
    cupy = availability.require_cuda()
    state = get_state(players=p)
    name = f"ge_batch_{p}"
    board = np.ascontiguousarray(board, dtype=np.uint64)
    free = np.ascontiguousarray(free, dtype=np.uint64)
    counts = [((p,), np.uint32, np.int64)] * 3

    def launch(st, d_in, d_out, m: int) -> None:
        st.kernels[name]((_grid(st, name, m, k),), (THREADS,),
                         (d_in[0], d_in[1], d_in[2], np.uint32(m), np.int32(k), *d_out))

    if not device_out:  # NumPy out: the counts come back a chunk at a time, as int64
        wins, ties, units = streaming.stream_host(state, [hole, board, free], counts, launch,
                                                  max_rows=SPOTS_PER_LAUNCH)
        return wins, ties, units
    with cupy.cuda.Device(state.device_id):
        out = [cupy.empty((n, p), dtype=cupy.int64) for _ in range(3)]

        def work(lo: int, hi: int) -> None:
            d_out = [cupy.empty((hi - lo, p), dtype=cupy.uint32) for _ in range(3)]
            launch(state, [cupy.asarray(a[lo:hi]) for a in (hole, board, free)], d_out,
                   hi - lo)
            for o, d in zip(out, d_out):
                o[lo:hi] = d  # the int64 result, a chunk at a time (no second full copy)

        streaming.for_chunks(cupy, n, 8 * (p + 2) + 12 * p, work, max_rows=SPOTS_PER_LAUNCH)
        return out[0], out[1], out[2]
