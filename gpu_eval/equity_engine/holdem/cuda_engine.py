"""The CUDA equity engine: ``kernels/equity.cu`` behind :mod:`gpu_eval.equity_engine.api`.

:func:`gpu_eval.equity_engine.api.engine_for` imports this module for ``backend="cuda"`` (and for
``"auto"`` when a device is usable). It provides what
:mod:`gpu_eval.equity_engine.holdem.numpy_engine` provides, with the same arguments and results:

* :func:`showdown_counts` -- exact integer win / tie / tie-unit / valid-board counts per
  matchup over a list of boards: identical to the NumPy engine's, integer for integer.
  Per chunk of boards, ``ge_eq_strengths`` evaluates each distinct hole combo once per board
  into a strength table, and ``ge_eq_showdown_<n>`` compares the matchups' strengths (a warp
  takes 32 matchups and a slice of the boards, counting in registers).
* :func:`sample_counts` -- Monte Carlo with the same semantics as the NumPy engine (matchup
  drawn by the product of combo weights, card clashes redrawn, "dealt" players and the board
  dealt from what is left), but its own random numbers: Philox4x32-10 keyed by the seed, one
  stream per sample index (see ``kernels/equity.cuh``), so a seed gives the same result on
  any device and launch configuration -- though not the NumPy engine's numbers.
  :func:`philox4x32` and :func:`mc_draws` are a NumPy twin of the device generator and draws,
  for tests.
* :func:`preflop_matrix_cuda` -- wins and ties of all 1326 x 1326 heads-up combo pairs over
  all 2,598,960 boards (``ge_eq_pairs``: 64 x 64 pair tiles, boards staged in shared memory);
  :func:`preflop_pair_counts` serves :func:`gpu_eval.preflop_table` and
  :func:`gpu_eval.equity_matrix` from it for exact preflop work with many pairs.

CuPy is imported only when a function here runs. Results are small host objects (NumPy).
The kernels are compiled once per device by NVRTC (``cupy.RawModule``), in a module of their
own beside :func:`gpu_eval.cuda.holdem.get_module`'s, with the same table upload and cache keying
(:mod:`gpu_eval.cuda.modules`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from math import comb
from typing import Any

import numpy as np

from gpu_eval import ranges
from gpu_eval.combinatorics import BINOM
from gpu_eval.cuda import availability, manifest, modules, streaming
from gpu_eval.cuda.launch_progress import LaunchPacer
from gpu_eval.cuda.waves import whole_wave_splits
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.deal_check import check_dealable
from gpu_eval.equity_engine.device_sampling import (
    MAX_TRIES,
    MODE_DEALT,
    MODE_FIXED,
    MODE_UNIFORM,
    MODE_WEIGHTED,
    mc_key,
    philox4x32,
    player_modes,
)
from gpu_eval.equity_engine.holdem.numpy_engine import Counts
from gpu_eval.equity_engine.pots import pot_units
from gpu_eval.progress import Progress

__all__ = ["showdown_counts", "sample_counts", "preflop_matrix_cuda", "pair_matrix_cuda",
           "preflop_pair_counts", "philox4x32", "mc_key", "mc_draws", "player_modes",
           "RATE", "EXACT_WORK_LIMIT"]

#: Work units (evaluations + comparisons) per second, for progress bars and long-run warnings:
#: a conservative guess for a data-centre GPU (to be measured on one).
RATE = 2e10
#: ``exact=None`` enumerates up to this much work (about two seconds at :data:`RATE`).
EXACT_WORK_LIMIT = 4e10

#: The manifest module of this engine (gpu_eval.cuda.manifest).
MODULE = "equity"
_LOW_WORD = np.uint64(0xFFFFFFFF)  # the low 32 bits of a 64-bit word
MAX_PLAYERS = 10
#: The module's kernels (its manifest records); a call compiles the base ones and its own
#: player count's alone while the whole module is not in the kernel cache
#: (modules.cached_part_state).
PLAYER_KERNELS: manifest.PlayerKernels = manifest.module(MODULE).players
KERNELS: tuple[str, ...] = PLAYER_KERNELS.names()
THREADS = modules.THREADS_PER_BLOCK  # block size of the launches (occupancy is sized for it)
PAIR_THREADS = 256  # ge_eq_pairs: a 16 x 16 grid of threads, 4 x 4 pairs each
WARP = 32
#: Bytes of the strength table per chunk of boards at most (less where free device memory
#: says so).
STRENGTH_BYTES = 1 << 29
#: Monte Carlo samples per launch (the progress bar and Ctrl-C act between launches).
SAMPLES_PER_LAUNCH = 1 << 27
#: Exact preflop pair work with at least this many pairs uses the all-pairs matrix (computed
#: once per process, then cached) instead of playing the pairs board by board.
PREFLOP_MATRIX_MIN_PAIRS = 5000
PAIR_TILE = 64
PAIR_BOARDS = 32
PREFLOP_BOARDS = comb(52, 5)
PREFLOP_PER_PAIR = comb(48, 5)

_STATES: dict[tuple[int, str], modules.DeviceState] = modules.device_cache()
_MATRIX: dict[int, tuple[np.ndarray, np.ndarray, int]] = modules.device_cache()
_LOCK = threading.Lock()


# ---------------------------------------------------------------------------------------------
# The module.
# ---------------------------------------------------------------------------------------------

def get_state(device_id: int | None = None, players: int | None = None) -> modules.DeviceState:
    """The equity kernels compiled for a device, with its tables uploaded (cached):
    those of ``players`` players (0: the base kernels alone; default: every count).

    Raises
    ------
    gpu_eval.cuda.availability.CudaUnavailableError
        If CuPy or a device is missing, or the kernels do not compile.
    """
    return modules.cached_part_state(_STATES, _LOCK, _build_state, MODULE, players, device_id)


def _build_state(cupy, dev: int, players: int | None) -> modules.DeviceState:
    names = PLAYER_KERNELS.names(players)
    module, kernels = modules.compile_module(cupy, MODULE, dev, players)
    tables = modules.upload_bitmask_tables(cupy, module)
    binom = cupy.asarray(np.ascontiguousarray(BINOM, dtype=np.uint64))
    cupy.cuda.runtime.deviceSynchronize()
    props = cupy.cuda.runtime.getDeviceProperties(dev)
    blocks = {name: modules.resident_blocks_per_sm(kernels[name], props) for name in names}
    return modules.DeviceState(dev, module, kernels, tables, binom,
                               int(props["multiProcessorCount"]), blocks)


def _full_grid(state: modules.DeviceState, name: str) -> int:
    return state.sm_count * state.blocks_per_sm[name]


_NULL = np.uint64(0)  # a null pointer argument


# Board lists are often the same cached read-only arrays (every completion of a deck): their
# device copies are kept, keyed by the host array, which is kept alive with them.
_BOARD_CACHE: OrderedDict[tuple[int, int], tuple[np.ndarray, Any]] = modules.device_cache(
    OrderedDict())
_BOARD_CACHE_BYTES = 256 << 20


def _device_boards(cupy, dev: int, boards: np.ndarray) -> Any:
    host = np.ascontiguousarray(boards, dtype=np.uint64)
    if host is not boards or boards.flags.writeable:
        return cupy.asarray(host)
    key = (dev, id(boards))
    with _LOCK:
        hit = _BOARD_CACHE.get(key)
        if hit is not None and hit[0] is boards:
            _BOARD_CACHE.move_to_end(key)
            return hit[1]
    dev_arr = cupy.asarray(host)
    with _LOCK:
        _BOARD_CACHE[key] = (boards, dev_arr)
        while sum(b.nbytes for b, _ in _BOARD_CACHE.values()) > _BOARD_CACHE_BYTES \
                and len(_BOARD_CACHE) > 1:
            _BOARD_CACHE.popitem(last=False)
    return dev_arr


# ---------------------------------------------------------------------------------------------
# Exact showdowns.
# ---------------------------------------------------------------------------------------------

def _launch_strengths(state: modules.DeviceState, d_pool: Any, n_pool: int, d_boards: Any,
                      d_deck: Any, k: int, first: int, base: int, n_boards: int, d_s: Any,
                      ld: int) -> None:
    """``ge_eq_strengths``: S[b * ld + p] for boards given as a device array (``d_boards``)
    or, with ``d_boards=None``, as colex numbers ``first ..`` of ``d_deck``'s cards."""
    tile = min(max(THREADS * 8 // n_pool, 8), 256)  # as the kernel computes it
    grid = max(1, min(-(-n_boards // tile), _full_grid(state, "ge_eq_strengths")))
    state.kernels["ge_eq_strengths"](
        (grid,), (THREADS,),
        (d_pool, np.uint32(n_pool), _NULL if d_boards is None else d_boards,
         _NULL if d_deck is None else d_deck, np.int32(k), np.uint64(first), state.binom,
         np.uint64(base), np.uint32(n_boards), d_s, np.uint32(ld)))


def _showdown_tasks(state: modules.DeviceState, name: str, n_matchups: int, n_boards: int
                    ) -> tuple[int, int]:
    """``(blocks, boards per task)`` for ``ge_eq_showdown_<n>``.

    A task is (a group of up to 32 matchups, a slice of boards). Enough tasks to fill the
    device twice over, but at least 16 boards per lane and at most 4096 slices per group:
    each task ends with shuffles and 64-bit atomics, which all land on the same few counters
    when there are few matchups.
    """
    groups = -(-n_matchups // WARP)
    lanes_per_matchup = WARP // (1 << max(0, (min(n_matchups, WARP) - 1).bit_length()))
    want = 2 * state.sm_count * 64  # warps: ~2 waves of 64 resident warps per SM
    per_task = max(64, 16 * lanes_per_matchup, -(-n_boards * groups // want),
                   -(-n_boards // 4096))
    per_task = min(per_task, n_boards)
    warps = groups * -(-n_boards // per_task)
    blocks = max(1, min(-(-warps * WARP // THREADS), _full_grid(state, name)))
    return blocks, per_task


def showdown_counts(pool: np.ndarray, matchups: np.ndarray, boards: np.ndarray, *,
                    base: int = 0, progress: Progress | None = None) -> Counts:
    """Play every matchup on every board on the GPU: the CUDA twin of
    :func:`gpu_eval.equity_engine.holdem.numpy_engine.showdown_counts`.

    Parameters
    ----------
    pool : numpy.ndarray of uint64, shape (P,)
        Distinct hole-card masks.
    matchups : numpy.ndarray of int, shape (M, n)
        Pool index of each player's hole cards per matchup (2 <= n <= 10).
    boards : numpy.ndarray of uint64, shape (B,)
        Board completions (or sampled boards), none sharing a card with ``base``.
    base : int
        Known board cards, OR-ed into each board.
    progress : Progress, optional
        Updated with the boards done.

    Returns
    -------
    Counts
        The same integers as the NumPy engine.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.equity_engine import enumerate_boards as eb
    >>> pool = cards.to_mask(["AhKh", "QsQd"])
    >>> deck = eb.FULL_DECK & ~int(pool[0] | pool[1])
    >>> c = showdown_counts(pool, np.array([[0, 1]]), eb.completions(deck, 5))  # doctest: +SKIP
    >>> c.wins.tolist(), c.ties.tolist()  # doctest: +SKIP
    ([[787966, 917606]], [[6732, 6732]])
    """
    pool = np.ascontiguousarray(pool, dtype=np.uint64)
    mu = np.ascontiguousarray(matchups, dtype=np.int32)
    m_count, n = mu.shape
    if not 2 <= n <= MAX_PLAYERS:
        raise ValueError(f"showdown_counts: {n} players; the CUDA engine takes 2 to "
                         f"{MAX_PLAYERS}")
    scale = pot_units(n)
    n_boards = len(boards)
    zeros = np.zeros((m_count, n), dtype=np.int64)
    if n_boards == 0 or m_count == 0:
        return Counts(zeros, zeros.copy(), zeros.copy(), np.zeros(m_count, np.int64), scale)
    cupy = availability.require_cuda()
    state = get_state(players=n)
    name = f"ge_eq_showdown_{n}"
    n_pool = len(pool)
    ld = n_pool + (n_pool & 1)
    with cupy.cuda.Device(state.device_id):
        d_pool = cupy.asarray(pool)
        d_mu = cupy.asarray(mu)
        d_boards = _device_boards(cupy, state.device_id, boards)
        out = cupy.zeros(3 * m_count * n + m_count, dtype=cupy.uint64)
        d_w, d_t = out[:m_count * n], out[m_count * n:2 * m_count * n]
        d_u, d_v = out[2 * m_count * n:3 * m_count * n], out[3 * m_count * n:]
        # Boards a chunk: as many strength rows as free device memory allows (at most
        # STRENGTH_BYTES), fewer if the table cannot be had; the table is reused: the stream
        # orders the chunks.
        chunk, d_s = streaming.allocate_rows(
            cupy, streaming.rows_per_chunk(cupy, 2 * ld, n_boards,
                                           max_rows=min(STRENGTH_BYTES // (2 * ld), 1 << 30)),
            lambda rows: cupy.empty(rows * ld, dtype=cupy.uint16))
        pacer = LaunchPacer(cupy, progress)  # the bar follows the device; Ctrl-C between chunks
        for lo in range(0, n_boards, chunk):
            nb = min(chunk, n_boards - lo)
            _launch_strengths(state, d_pool, n_pool, d_boards[lo:lo + nb], None, 0, 0,
                              int(base), nb, d_s, ld)
            blocks, per_task = _showdown_tasks(state, name, m_count, nb)
            state.kernels[name](
                (blocks,), (THREADS,),
                (d_s, np.uint32(ld), np.uint32(nb), d_mu, np.uint32(m_count),
                 np.uint32(per_task), d_w, d_t, d_u, d_v))
            pacer.launched(nb)
        pacer.finish()
        host = out.get().astype(np.int64)
    k = m_count * n
    return Counts(host[:k].reshape(m_count, n), host[k:2 * k].reshape(m_count, n),
                  host[2 * k:3 * k].reshape(m_count, n), host[3 * k:], scale)


# ---------------------------------------------------------------------------------------------
# Monte Carlo, and the NumPy twin of its generator and draws.
# ---------------------------------------------------------------------------------------------

def _pack(holes: Sequence[np.ndarray], cum_weights: Sequence[np.ndarray | None]
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(combos, offsets, cum)``: every player's combos end to end, and their weights."""
    combos = np.ascontiguousarray(np.concatenate([np.asarray(h, np.uint64).reshape(-1)
                                                  for h in holes]))
    sizes = [len(np.asarray(h).reshape(-1)) for h in holes]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.uint32)
    cum = np.concatenate([np.zeros(s) if cw is None else np.asarray(cw, np.float64)
                          for s, cw in zip(sizes, cum_weights)])
    return combos, offsets, np.ascontiguousarray(cum, dtype=np.float64)


class _TwinStream:
    """The per-sample Philox word streams of rows of samples (``GeRng`` in equity.cuh)."""

    def __init__(self, key: tuple[int, int], samples: np.ndarray) -> None:
        self.key = np.array(key, dtype=np.uint32)
        s = np.asarray(samples, dtype=np.uint64)
        self.ctr = np.stack([s & _LOW_WORD, s >> np.uint64(32)], axis=1).astype(np.uint32)
        self.block = np.zeros(len(s), dtype=np.uint32)
        self.buf = np.zeros((len(s), 4), dtype=np.uint32)
        self.used = np.full(len(s), 4, dtype=np.int64)

    def next(self, rows: np.ndarray) -> np.ndarray:
        """The next word of each row in ``rows`` (distinct row numbers)."""
        empty = rows[self.used[rows] == 4]
        if empty.size:
            ctr = np.column_stack([self.ctr[empty], self.block[empty],
                                   np.zeros(empty.size, np.uint32)])
            self.buf[empty] = philox4x32(ctr, self.key)
            self.block[empty] += np.uint32(1)
            self.used[empty] = 0
        out = self.buf[rows, self.used[rows]]
        self.used[rows] += 1
        return out

    def below(self, rows: np.ndarray, n: int) -> np.ndarray:
        """Uniform ints in ``[0, n)`` (Lemire's method with rejection, as on the device)."""
        m = self.next(rows).astype(np.uint64) * np.uint64(n)
        threshold = np.uint64((2**32 - n) % n)
        redo = np.flatnonzero((m & _LOW_WORD) < threshold)
        while redo.size:
            m[redo] = self.next(rows[redo]).astype(np.uint64) * np.uint64(n)
            redo = redo[(m[redo] & _LOW_WORD) < threshold]
        return (m >> np.uint64(32)).astype(np.int64)

    def unit(self, rows: np.ndarray) -> np.ndarray:
        """Uniform doubles in ``[0, 1)`` from 53 bits of two words."""
        a = (self.next(rows) >> np.uint32(5)).astype(np.float64)
        b = (self.next(rows) >> np.uint32(6)).astype(np.float64)
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)

    def deal(self, rows: np.ndarray, deck: np.ndarray, used: np.ndarray) -> np.ndarray:
        """One card per row from ``deck`` avoiding ``used[i]``, redrawn while taken."""
        bits = deck[self.below(rows, len(deck))]
        redo = np.flatnonzero(bits & used)
        while redo.size:
            bits[redo] = deck[self.below(rows[redo], len(deck))]
            redo = redo[(bits[redo] & used[redo]) != 0]
        return bits


def mc_draws(holes: Sequence[np.ndarray], cum_weights: Sequence[np.ndarray | None],
             deck_mask: int, k: int, start: int, count: int, key: tuple[int, int], *,
             dealt: Sequence[bool] | None = None, max_tries: int = MAX_TRIES
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The NumPy twin of the device's Monte Carlo deals (``ge_mc_draw``), bit for bit.

    Parameters are those of :func:`sample_counts`, plus the samples ``[start, start +
    count)`` and the Philox ``key`` (:func:`mc_key`).

    Returns
    -------
    (holes, boards, ok)
        ``uint64 (count, n)`` hole masks, ``uint64 (count,)`` board completions (without the
        known board) and ``bool (count,)``: False where the ranges did not fit in
        ``max_tries`` attempts.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.equity_engine import enumerate_boards as eb
    >>> h = [cards.to_mask(["AhKh"]), cards.to_mask(["QsQd"])]
    >>> deck = eb.FULL_DECK & ~int(h[0][0] | h[1][0])
    >>> holes, boards, ok = mc_draws(h, [None, None], deck, 5, 0, 3, mc_key(7))
    >>> cards.mask_popcount(boards).tolist(), bool(((boards & int(h[0][0])) == 0).all())
    ([5, 5, 5], True)
    """
    n = len(holes)
    modes = player_modes(cum_weights, dealt)
    deck = enumerate_boards.deck_values(deck_mask)
    rows = np.arange(count)
    rng = _TwinStream(key, np.arange(start, start + count, dtype=np.uint64))
    hole = np.zeros((count, n), dtype=np.uint64)
    ok = np.ones(count, dtype=bool)
    ranged = [p for p in range(n) if modes[p] in (MODE_UNIFORM, MODE_WEIGHTED)]
    for p in range(n):
        if modes[p] == MODE_FIXED:
            hole[:, p] = np.asarray(holes[p], np.uint64).reshape(-1)[0]
    todo = rows
    for _ in range(max_tries):
        if not todo.size:
            break
        used = np.zeros(todo.size, dtype=np.uint64)
        clash = np.zeros(todo.size, dtype=bool)
        for p in ranged:
            combos = np.asarray(holes[p], np.uint64).reshape(-1)
            if modes[p] == MODE_UNIFORM:
                idx = rng.below(todo, len(combos))
            else:
                cw = np.asarray(cum_weights[p], np.float64)
                idx = np.searchsorted(cw, rng.unit(todo) * cw[-1], side="right")
                idx = np.minimum(idx, len(cw) - 1)
            h = combos[idx]
            clash |= (h & used) != 0
            used |= h
            hole[todo, p] = h
        todo = todo[clash]
    ok[todo] = False  # never fitted
    live = np.flatnonzero(ok)
    used = np.zeros(count, dtype=np.uint64)
    for p in ranged:
        used |= hole[:, p]
    for p in range(n):
        if modes[p] == MODE_DEALT:
            c1 = rng.deal(live, deck, used[live])
            used[live] |= c1
            c2 = rng.deal(live, deck, used[live])
            used[live] |= c2
            hole[live, p] = c1 | c2
    board = np.zeros(count, dtype=np.uint64)
    for _ in range(k):
        c = rng.deal(live, deck, used[live])
        used[live] |= c
        board[live] |= c
    # A failed sample keeps its last attempt's ranged combos, 0 for dealt players and board,
    # as on the device.
    return hole, board, ok


def sample_counts(holes: Sequence[np.ndarray], cum_weights: Sequence[np.ndarray | None],
                  deck_mask: int, base: int, k: int, n_samples: int, entropy: int, *,
                  dealt: Sequence[bool] | None = None, first: int = 0,
                  progress: Progress | None = None) -> tuple[np.ndarray, ...]:
    """Monte Carlo showdowns on the GPU: :func:`gpu_eval.equity_engine.holdem.numpy_engine.sample_counts`.

    Same parameters and results ``(wins, ties, units, units_sq)``, each ``int64 (n,)``; the
    random numbers are the device's own (Philox4x32-10 keyed by :func:`mc_key` of
    ``entropy``, one stream per sample), so a seed reproduces a result exactly on any GPU;
    ``first`` numbers the first sample (a span of a run cut into tasks).

    Raises
    ------
    ValueError
        If the ranges almost never fit together (a sample found no compatible combos in
        :data:`MAX_TRIES` draws).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.equity_engine import enumerate_boards as eb
    >>> h = [cards.to_mask(["AhKh"]), cards.to_mask(["QsQd"])]
    >>> deck = eb.FULL_DECK & ~int(h[0][0] | h[1][0])
    >>> w, t, u, u2 = sample_counts(h, [None, None], deck, 0, 5, 10**6, 7)  # doctest: +SKIP
    >>> int(u.sum()) == 2 * 10**6  # doctest: +SKIP
    True
    """
    n = len(holes)
    if not 2 <= n <= MAX_PLAYERS:
        raise ValueError(f"sample_counts: {n} players; the CUDA engine takes 2 to "
                         f"{MAX_PLAYERS}")
    modes = player_modes(cum_weights, dealt)
    combos, offsets, cum = _pack(holes, cum_weights)
    deck = enumerate_boards.deck_values(deck_mask)
    # Ranges that can never be dealt together would make every sample redraw MAX_TRIES times.
    check_dealable(holes, cum_weights, modes == MODE_DEALT, len(deck), k)
    key0, key1 = mc_key(entropy)
    cupy = availability.require_cuda()
    state = get_state(players=n)
    name = f"ge_eq_sample_{n}"
    full = _full_grid(state, name)
    with cupy.cuda.Device(state.device_id):
        args = [cupy.asarray(a) for a in (combos, offsets, cum, modes, deck)]
        totals = cupy.zeros(4 * n, dtype=cupy.uint64)
        failures = cupy.zeros(1, dtype=cupy.uint64)
        # The bar follows the device and Ctrl-C acts between launches; after a failed sample
        # the device flag ends every later launch's samples at once.
        pacer = LaunchPacer(cupy, progress)
        for lo in range(0, n_samples, SAMPLES_PER_LAUNCH):
            hi = min(n_samples, lo + SAMPLES_PER_LAUNCH)
            grid = max(1, min(full, -(-(hi - lo) // THREADS)))
            state.kernels[name](
                (grid,), (THREADS,),
                (*args, np.uint32(len(deck)), np.uint64(base), np.int32(k), np.uint32(key0),
                 np.uint32(key1), np.uint64(first + lo), np.uint64(first + hi), np.uint32(MAX_TRIES),
                 totals, failures))
            pacer.launched(hi - lo)
        pacer.finish()
        result = totals.get().astype(np.int64).reshape(4, n)
        failed = int(failures.get()[0])
    if failed:
        raise ValueError("the players' ranges almost never fit together (a sample found no "
                         f"compatible combos in {MAX_TRIES:,} draws)")
    return tuple(result)


# ---------------------------------------------------------------------------------------------
# The all-pairs matrix.
# ---------------------------------------------------------------------------------------------

def finish_pair_matrix(wins: np.ndarray, ties: np.ndarray, hands: np.ndarray, per_pair: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Complete the matrices of ``ge_eq_pairs``: the pairs below the diagonal tiles from
    those above (``wins[j, i] = per_pair - wins[i, j] - ties[i, j]``, ties symmetric), and
    zeros for pairs that share a card.

    Examples
    --------
    >>> h = np.array([1, 2, 5], dtype=np.uint64)  # the first and last share a card
    >>> w = np.array([[0, 5, 1], [0, 0, 7], [0, 0, 0]]); t = np.ones((3, 3), np.int64)
    >>> w2, t2 = finish_pair_matrix(w, t, h, 10)
    >>> w2.tolist(), t2[0].tolist()
    ([[0, 5, 0], [0, 0, 7], [0, 0, 0]], [0, 1, 0])
    """
    w = np.asarray(wins, dtype=np.int64)
    t = np.asarray(ties, dtype=np.int64)
    tile = np.arange(len(hands)) // PAIR_TILE
    lower = tile[:, None] > tile[None, :]
    w = np.where(lower, per_pair - w.T - t.T, w)
    t = np.where(lower, t.T, t)
    masks = np.asarray(hands, dtype=np.uint64)
    share = (masks[:, None] & masks[None, :]) != 0
    w[share] = 0
    t[share] = 0
    return w.astype(np.uint32), t.astype(np.uint32)


def pair_matrix_cuda(hands: np.ndarray, deck_mask: int = enumerate_boards.FULL_DECK,
                     k: int = 5, progress: Progress | None = None
                     ) -> tuple[np.ndarray, np.ndarray, int]:
    """Heads-up wins and ties of every pair of ``hands`` over every k-card board of a deck.

    Parameters
    ----------
    hands : numpy.ndarray of uint64, shape (H,)
        Two-card hand masks, all inside ``deck_mask``.
    deck_mask : int
        The cards boards are dealt from (including the hands' cards).
    k : int
        Board cards, 1..5.
    progress : Progress, optional
        Updated with the boards done.

    Returns
    -------
    (wins, ties, per_pair)
        ``uint32 (H, H)``: boards where hand ``i`` beats hand ``j``, and split boards, over
        the ``per_pair = C(R - 4, k)`` boards avoiding both (R: cards in the deck); 0 for
        pairs that share a card.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> deck = int(cards.to_mask("2c 3c 4c 5c 6c 7d 8d 9d Th Jh Qs Ks"))
    >>> hands = cards.to_mask(["2c3c", "Qs Ks", "7d8d"])
    >>> w, t, n = pair_matrix_cuda(hands, deck, 5)  # doctest: +SKIP
    >>> n, int(w[0, 1] + w[1, 0] + t[0, 1]) == n  # doctest: +SKIP
    (56, True)
    """
    hands = np.ascontiguousarray(hands, dtype=np.uint64)
    if np.any(hands & ~np.uint64(deck_mask)):
        raise ValueError("pair_matrix_cuda: every hand must lie inside the deck")
    if not 1 <= k <= 5:
        raise ValueError(f"pair_matrix_cuda: k must be 1..5, got {k!r}")
    deck_ids = enumerate_boards.deck_ids(deck_mask)
    n_hands = len(hands)
    total = comb(len(deck_ids), k)
    per_pair = comb(len(deck_ids) - 4, k)
    if n_hands == 0 or total == 0:
        empty = np.zeros((n_hands, n_hands), dtype=np.uint32)
        return empty, empty.copy(), per_pair
    n_tiles = -(-n_hands // PAIR_TILE)
    ld = n_tiles * PAIR_TILE
    tile_pairs = n_tiles * (n_tiles + 1) // 2
    cupy = availability.require_cuda()
    state = get_state(players=0)
    wave = _full_grid(state, "ge_eq_pairs")
    # At least 4 waves of blocks, and a grid that ends on a whole wave where one is near.
    splits = whole_wave_splits(tile_pairs, wave, max(1, -(-4 * wave // tile_pairs)))
    with cupy.cuda.Device(state.device_id):
        d_hands = cupy.asarray(hands)
        d_deck = cupy.asarray(deck_ids)
        chunk, d_s = streaming.allocate_rows(  # columns >= n_hands stay 0
            cupy, streaming.rows_per_chunk(cupy, 2 * ld, total, max_rows=max(
                PAIR_BOARDS, 2 * STRENGTH_BYTES // (2 * ld))),
            lambda rows: cupy.zeros(rows * ld, dtype=cupy.uint16))
        d_w = cupy.zeros(n_hands * n_hands, dtype=cupy.uint32)
        d_t = cupy.zeros(n_hands * n_hands, dtype=cupy.uint32)
        pacer = LaunchPacer(cupy, progress)  # the bar follows the device; Ctrl-C between chunks
        for lo in range(0, total, chunk):
            nb = min(chunk, total - lo)
            _launch_strengths(state, d_hands, n_hands, None, d_deck, k, lo, 0, nb, d_s, ld)
            ny = max(1, min(splits, -(-nb // (8 * PAIR_BOARDS))))
            state.kernels["ge_eq_pairs"](
                (tile_pairs, ny), (PAIR_THREADS,),
                (d_s, np.uint32(ld), np.uint32(nb), np.uint32(n_hands), d_w, d_t))
            pacer.launched(nb)
        pacer.finish()
        w = d_w.get().reshape(n_hands, n_hands)
        t = d_t.get().reshape(n_hands, n_hands)
    w, t = finish_pair_matrix(w, t, hands, per_pair)
    return w, t, per_pair


def preflop_matrix_cuda(progress: Progress | None = None
                        ) -> tuple[np.ndarray, np.ndarray, int]:
    """Exact heads-up preflop wins and ties of all 1326 x 1326 combo pairs (cached).

    Rows and columns are the combos in :mod:`gpu_eval.ranges` order (``ranges.ALL_COMBOS``: high
    card first, descending). Every compatible pair is played on all 1,712,304 boards that
    avoid its four cards.

    Returns
    -------
    (wins, ties, boards_per_pair)
        ``uint32 (1326, 1326)`` read-only: boards where combo ``i`` beats combo ``j``, split
        boards; 0 for pairs that share a card; ``boards_per_pair`` is 1,712,304.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> w, t, n = preflop_matrix_cuda()  # doctest: +SKIP
    >>> i, j = _combo_rows(cards.to_mask(["AhKh", "QsQd"]))  # doctest: +SKIP
    >>> int(w[i, j]), int(t[i, j]), n  # doctest: +SKIP
    (787966, 6732, 1712304)
    """
    state = get_state(players=0)
    hit = _MATRIX.get(state.device_id)
    if hit is None:
        w, t, per_pair = pair_matrix_cuda(ranges.ALL_COMBO_MASKS, enumerate_boards.FULL_DECK, 5,
                                          progress)
        assert per_pair == PREFLOP_PER_PAIR
        w.flags.writeable = False
        t.flags.writeable = False
        hit = _MATRIX.setdefault(state.device_id, (w, t, per_pair))
    elif progress is not None:
        progress.update(PREFLOP_BOARDS)
    return hit


def _combo_rows(masks: np.ndarray) -> np.ndarray:
    """Row of each two-card mask in ``ranges.ALL_COMBOS``."""
    order = np.argsort(ranges.ALL_COMBO_MASKS)
    sorted_masks = ranges.ALL_COMBO_MASKS[order]
    pos = np.minimum(np.searchsorted(sorted_masks, masks), len(order) - 1)
    if not np.array_equal(sorted_masks[pos], masks):
        raise ValueError("the pool holds a mask that is not a two-card combo")
    return order[pos]


def preflop_pair_counts(pool: np.ndarray, pairs: np.ndarray, *,
                        progress: Progress | None = None) -> Counts | None:
    """Exact preflop heads-up counts of pairs, read from the all-pairs matrix.

    Parameters
    ----------
    pool : numpy.ndarray of uint64
        Two-card combo masks.
    pairs : numpy.ndarray of int, shape (M, 2)
        Pool indices of each pair (no shared card).
    progress : Progress, optional

    Returns
    -------
    Counts or None
        What :func:`showdown_counts` gives on every board of the full deck; None when there
        are fewer than :data:`PREFLOP_MATRIX_MIN_PAIRS` pairs and the matrix is not cached
        yet (playing the pairs is then cheaper).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> pool = cards.to_mask(["AhKh", "QsQd"])
    >>> c = preflop_pair_counts(pool, np.array([[0, 1]]))  # doctest: +SKIP
    >>> c is None or c.wins.tolist() == [[787966, 917606]]  # doctest: +SKIP
    True
    """
    state = get_state(players=0)
    if len(pairs) < PREFLOP_MATRIX_MIN_PAIRS and state.device_id not in _MATRIX:
        return None
    w, t, per_pair = preflop_matrix_cuda(progress)
    rows = _combo_rows(np.asarray(pool, dtype=np.uint64))
    a = rows[np.asarray(pairs)[:, 0]]
    b = rows[np.asarray(pairs)[:, 1]]
    wins = np.column_stack([w[a, b], w[b, a]]).astype(np.int64)
    ties = np.column_stack([t[a, b], t[a, b]]).astype(np.int64)
    valid = np.full(len(a), per_pair, dtype=np.int64)
    return Counts(wins, ties, ties.copy(), valid, pot_units(2))
