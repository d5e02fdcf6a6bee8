"""The CUDA path of the games without a board: stud, stud hi/lo, razz and the draw games
(``kernels/equity_deals.cu``).

:func:`grid_counts` is :mod:`gpu_eval.equity_engine.deals.numpy_engine`' exact grid on the device, with
the same integers: every player's completions (the same colex subsets of the deck) scored by
``ge_deals_strengths``, then ``ge_deals_grid_N`` compares every disjoint deal, a block per
row of the first players' completions against all of the last player's (the caller walks the
players in :func:`player_order`, the largest completion set last, and puts the counts
back). :func:`sample_counts` is Monte Carlo on the device (``ge_deals_sample_N``): sample
``s`` deals from its own Philox4x32-10 stream keyed by the seed
(:func:`gpu_eval.equity_engine.holdem.cuda_engine.mc_key`), so a seed reproduces a CUDA result exactly however
the samples are split, but not the NumPy engine's digits.

Per device the module is compiled once by NVRTC, with the hold'em bitmask tables
(``ge_bitmask_tables``) and the low games' tables (``ge_low_tables``) uploaded from the arrays
the NumPy path reads, and the 8-or-better ``BEST5`` low table as a device array. CuPy is
imported lazily, inside the functions.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.cuda import manifest, modules
from gpu_eval.cuda.availability import require_cuda
from gpu_eval.cuda.launch_progress import LaunchPacer
from gpu_eval.cuda.lowball import GAME_CODES, LOW_TABLE_DTYPES, LOW_TABLE_ORDER, low_device_tables
from gpu_eval.equity_engine import device_sampling
from gpu_eval.games import eight_or_better, registry
from gpu_eval.progress import Progress

__all__ = ["get_module", "grid_counts", "sample_counts", "eval_code",
           "player_order", "KERNELS", "MODULE", "HIGH"]

#: The manifest module of this engine (gpu_eval.cuda.manifest).
MODULE = "deals"
#: The module's kernels (its manifest records); a call compiles the base one and its own
#: player count's alone while the whole module is not in the kernel cache
#: (modules.cached_part_state).
PLAYER_KERNELS: manifest.PlayerKernels = manifest.module(MODULE).players
KERNELS: tuple[str, ...] = PLAYER_KERNELS.names()
#: ``eval`` code of the high hand (GE_DEALS_HIGH); the lows are :data:`GAME_CODES`.
HIGH = 3
#: Rows of the grid per launch: the progress bar and Ctrl-C act between launches (a launch is
#: milliseconds), and the kernels' 32-bit counts stay bounded (a launch's rows times its
#: columns per thread: kernels/equity_deals.cu).
ROWS_PER_LAUNCH = 1 << 14
#: Monte Carlo samples per launch (keeps the kernel's 32-bit counters exact).
SAMPLES_PER_LAUNCH = 1 << 24

_STATES: dict = modules.device_cache()
_LOCK = threading.Lock()


@dataclass
class DealsState(modules.DeviceState):
    best5: Any = None


def _build_state(cupy, dev: int, players: int | None) -> DealsState:

    names = PLAYER_KERNELS.names(players)
    module, kernels = modules.compile_module(cupy, MODULE, dev, players)
    tables = modules.upload_bitmask_tables(cupy, module)
    tables += modules.upload_tables(cupy, module, "ge_low_tables", low_device_tables(),
                                    LOW_TABLE_ORDER, LOW_TABLE_DTYPES)
    best5 = cupy.asarray(np.ascontiguousarray(eight_or_better.low_tables()["BEST5"], dtype=np.uint8))
    cupy.cuda.runtime.deviceSynchronize()  # launches may run on other streams
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in names}
    return DealsState(device_id=dev, module=module, kernels=kernels, tables=tables, binom=None,
                      sm_count=int(props["multiProcessorCount"]), blocks_per_sm=blocks,
                      best5=best5)


def get_module(device_id: int | None = None, players: int | None = None) -> DealsState:
    """The deal equity kernels for a device (compiled and tables uploaded once, then cached):
    those of ``players`` players (0: the base kernel alone; default: every count).

    Raises
    ------
    CudaUnavailableError
        If CuPy or a device is missing, or the kernels cannot be compiled.
    """
    return modules.cached_part_state(_STATES, _LOCK, _build_state, MODULE, players, device_id)


def eval_code(game: str) -> int:
    """The kernels' ``eval`` argument for a game: :data:`HIGH`, or its low scale's code.

    Examples
    --------
    >>> eval_code("stud"), eval_code("razz"), eval_code("badugi-draw")
    (3, 1, 2)
    """
    record = registry.GAMES[game]
    return GAME_CODES[record.low] if record.low else HIGH


def player_order(sizes: list[int]) -> list[int]:
    """The order the device walks the players in: the largest completion set last (the
    threads of a block stride over it; on a tie the later player), the others as given.

    Examples
    --------
    >>> player_order([4324, 1, 990]), player_order([42, 42])
    ([1, 2, 0], [0, 1])
    """
    last = max(range(len(sizes)), key=lambda i: (sizes[i], i))
    return [i for i in range(len(sizes)) if i != last] + [last]


def grid_counts(game: str, known: list[int], comps: list[np.ndarray], rows: np.ndarray,
                unions: np.ndarray, scale: int, bar: Progress | None = None
                ) -> tuple[np.ndarray, ...]:
    """``(wins, ties, split units, high units, low units, deals)`` of a grid on the device.

    Parameters
    ----------
    game : str
        A stud or draw game of the registry.
    known : list of int
        Each player's known cards (a hand mask), in the order walked (the caller's
        :func:`player_order`).
    comps : list of numpy.ndarray
        Each player's completions (``uint64`` masks of the cards still to come).
    rows, unions : numpy.ndarray
        The rows of the grid: ``(R, n - 1)`` completion indices of the first ``n - 1``
        players (disjoint), and the cards of each row.
    scale : int
        Pot units.
    bar : Progress, optional
        Advanced by the deals compared.

    Returns
    -------
    tuple of numpy.ndarray
        Per player (in ``known``'s order) the integers the NumPy grid counts, and the deals.

    Examples
    --------
    >>> c = [np.array([1 << 20], np.uint64), np.array([1 << 21, 1 << 20], np.uint64)]
    >>> grid_counts("five-card-draw", [15, 15 << 16], c, np.zeros((1, 1), np.int32),
    ...             c[0], 2)[-1]  # doctest: +SKIP
    1
    """
    cupy = require_cuda()
    n = len(known)
    state = get_module(players=n)
    code, hilo = eval_code(game), registry.GAMES[game].hilo
    sizes = [len(c) for c in comps]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.uint32)
    S = cupy.empty(int(offsets[-1]), dtype=cupy.uint16)
    L = cupy.empty(int(offsets[-1]), dtype=cupy.uint8) if hilo else None
    null = np.uint64(0)
    d_masks = None
    for j in range(n):
        at = int(offsets[j])
        d_masks = cupy.asarray(np.ascontiguousarray(comps[j], dtype=np.uint64))
        state.launch("ge_deals_strengths", sizes[j],
                     (d_masks, np.uint32(sizes[j]), np.uint64(known[j]), np.int32(code),
                      state.best5, S[at:], null if L is None else L[at:]))
    out = [cupy.zeros(n, dtype=cupy.uint64) for _ in range(5)] + [cupy.zeros(1, cupy.uint64)]
    d_offsets = cupy.asarray(offsets)
    name = f"ge_deals_grid_{n}"
    rows = np.ascontiguousarray(rows, dtype=np.int32).reshape(len(rows), n - 1)
    pacer = LaunchPacer(cupy, bar)  # the bar follows the device; Ctrl-C stops between launches
    for a in range(0, len(rows), ROWS_PER_LAUNCH):
        b = min(len(rows), a + ROWS_PER_LAUNCH)
        d_rows = cupy.asarray(np.ascontiguousarray(rows[a:b]))
        d_union = cupy.asarray(np.ascontiguousarray(unions[a:b], dtype=np.uint64))
        blocks = state.grid(name, (b - a) * modules.THREADS_PER_BLOCK)
        state.kernels[name]((blocks,), (modules.THREADS_PER_BLOCK,),
                            (d_rows, d_union, np.uint32(b - a), S, null if L is None else L,
                             d_offsets, d_masks, np.uint32(sizes[-1]), np.uint32(scale),
                             *out))
        pacer.launched((b - a) * sizes[-1])
    pacer.finish()
    host = [a.get().astype(np.int64) for a in out]
    return (*host[:5], host[5][0])


def sample_counts(prob: Any, entropy: int, start: int, stop: int,
                  bar: Progress | None = None) -> tuple[np.ndarray, ...]:
    """Monte Carlo samples ``[start, stop)`` of ``prob`` on the device: ``(wins, ties, units,
    units squared, high units, low units)`` per player, as
    :func:`gpu_eval.equity_engine.deals.numpy_engine.task` counts them (the device's own random streams).
    ``prob`` is a :class:`gpu_eval.equity_engine.deals.numpy_engine.DealProblem` (its ``known``,
    ``need``, ``deck``, ``game``, ``hilo`` and ``scale``).

    Examples
    --------
    >>> p = deals.prepare(["AhKh3c", "QsQd7h"], "", "", "stud")  # doctest: +SKIP
    >>> sample_counts(p, 1, 0, 1000)[2].sum() == 1000 * p.scale  # doctest: +SKIP
    True
    """
    cupy = require_cuda()
    n = len(prob.known)
    state = get_module(players=n)
    key0, key1 = device_sampling.mc_key(entropy)
    known = cupy.asarray(np.array(prob.known, dtype=np.uint64))
    need = cupy.asarray(np.array(prob.need, dtype=np.uint8))
    deck = cupy.asarray(np.ascontiguousarray(ID_TO_MASK[prob.deck], dtype=np.uint64))
    totals = cupy.zeros(6 * n, dtype=cupy.uint64)
    best5 = state.best5 if prob.hilo else np.uint64(0)
    pacer = LaunchPacer(cupy, bar)
    for lo in range(start, stop, SAMPLES_PER_LAUNCH):
        hi = min(stop, lo + SAMPLES_PER_LAUNCH)
        state.launch(f"ge_deals_sample_{n}", hi - lo,
                     (known, need, deck, np.uint32(len(prob.deck)),
                      np.int32(eval_code(prob.game)), best5, np.uint32(prob.scale),
                      np.uint32(key0), np.uint32(key1), np.uint64(lo), np.uint64(hi), totals))
        pacer.launched(hi - lo)
    pacer.finish()
    return tuple(totals.get().astype(np.int64).reshape(6, n))
