"""The NumPy equity kernels: showdown counts over a set of boards, and Monte Carlo blocks.

Two functions do all the heavy work, and the CUDA engine (``gpu_eval.equity_engine.holdem.cuda_engine``)
provides
the same two with the same arguments and results:

* :func:`showdown_counts` -- for a *pool* of distinct hole-card masks and a list of matchups
  (rows of pool indices, one per player), play every matchup on every board of a list:
  each pool entry is evaluated on each board once (``hole | board``; a board that shares a
  card with the hole gets strength 0, which excludes it for every matchup using that entry),
  then strengths are compared per matchup. Results are integer counts, so chunks add up
  exactly in any order. The exact engine passes every completion of the board; the Monte
  Carlo matrix engines pass sampled boards.
* :func:`sample_counts` -- Monte Carlo for :func:`gpu_eval.equity`: sample a matchup by the
  product of combo weights (rejecting card conflicts), then a board completion, evaluate and
  count; in blocks, each block with its own random stream (``SeedSequence(entropy,
  spawn_key=(block,))``) so a seed gives the same answer on any number of threads.

The engine module may also define ``RATE`` (work units per second, for progress bars and
warnings), ``EXACT_WORK_LIMIT``, ``DEFAULT_SAMPLES`` and ``DEFAULT_TABLE_SAMPLES``; where it
does, :mod:`gpu_eval.equity_engine.api` uses its values instead of its own defaults.

Split pots are counted in *units*: with ``n`` players a pot is ``L = lcm(1..n)`` units and each
of ``c`` winners gets ``L // c``, so a fractional tie share is an exact integer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.holdem.shortcuts import combo_pair_grid, flush_free_pairs, flush_free_ranks
from gpu_eval.equity_engine.pots import pot_units
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.evaluator.numpy_path import run_chunked
from gpu_eval.progress import Progress

#: Monte Carlo samples per block (one random stream, one task on the thread pool).
SAMPLE_BLOCK = 1 << 16
# Elements (hands or matchup-boards) per temporary array: big enough to amortise NumPy call
# overhead, small enough to stay in cache-sized pieces.
_ELEMS = 1 << 18
# Evaluations + comparisons per second this engine manages on a typical core pair; only used
# to decide when a run is long enough for a progress bar.
RATE = 8e7
#: ``exact=None`` enumerates up to this much work (evaluations plus comparisons, over the suit
#: symmetry): a few seconds with NumPy on two cores.
EXACT_WORK_LIMIT = 3e8


@dataclass
class Counts:
    """Integer results of :func:`showdown_counts`, per matchup ``m`` and player ``p``.

    ``wins[m, p]`` boards won outright, ``ties[m, p]`` boards split (any number of ways),
    ``units[m, p]`` the tie shares in pot units (``scale`` units per pot), ``valid[m]`` boards
    the matchup was played on (boards sharing no card with its hole cards).
    """

    wins: np.ndarray
    ties: np.ndarray
    units: np.ndarray
    valid: np.ndarray
    scale: int

    def equity(self) -> np.ndarray:
        """``(M, n)`` equity per matchup (NaN where a matchup had no valid board)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return ((self.wins * self.scale + self.units)
                    / (self.scale * self.valid[:, None].astype(np.float64)))


def _run(n: int, work, chunk: int, progress: Progress | None) -> None:
    """``run_chunked`` that counts progress and, after an interrupt, drops queued chunks.

    Nothing is shared between chunks but the totals, which each chunk adds under a lock once
    it is complete; the caller throws the totals away when this raises, so an interrupt never
    leaves a half-updated result behind.
    """
    cancel = threading.Event()

    def guarded(s: int, e: int) -> None:
        if cancel.is_set():  # after Ctrl-C the queued chunks return at once
            return
        work(s, e)
        if progress is not None:
            progress.update(e - s)

    try:
        run_chunked(n, guarded, chunk)
    except BaseException:
        cancel.set()
        raise


def showdown_counts(pool: np.ndarray, matchups: np.ndarray, boards: np.ndarray, *,
                    base: int = 0, progress: Progress | None = None) -> Counts:
    """Play every matchup on every board; integer win/tie counts per matchup and player.

    Parameters
    ----------
    pool : numpy.ndarray of uint64, shape (P,)
        Distinct hole-card masks (two cards each).
    matchups : numpy.ndarray of int, shape (M, n)
        Pool index of each player's hole cards, per matchup; the hole cards of a matchup
        never share a card.
    boards : numpy.ndarray of uint64, shape (B,)
        Board completions (or sampled boards); none shares a card with ``base``.
    base : int
        Board cards common to all boards (the known board), OR-ed into each.
    progress : Progress, optional
        Updated with the number of boards done.

    Returns
    -------
    Counts
        Integer counts; a board is counted for a matchup only when it shares no card with
        any of the matchup's hole cards.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.equity_engine import enumerate_boards as eb
    >>> pool = cards.to_mask(["AhKh", "QsQd"])
    >>> deck = eb.FULL_DECK & ~int(pool[0] | pool[1])
    >>> c = showdown_counts(pool, np.array([[0, 1]]), eb.completions(deck, 5))
    >>> c.wins.tolist(), c.ties.tolist(), c.valid.tolist()
    ([[787966, 917606]], [[6732, 6732]], [1712304])
    """
    pool = np.ascontiguousarray(pool, dtype=np.uint64)
    matchups = np.ascontiguousarray(matchups, dtype=np.intp)
    m_count, n = matchups.shape
    scale = pot_units(n)
    share = np.zeros(n + 1, dtype=np.uint16)
    share[2:] = scale // np.arange(2, n + 1)
    wins = np.zeros((m_count, n), dtype=np.int64)
    ties = np.zeros((m_count, n), dtype=np.int64)
    units = np.zeros((m_count, n), dtype=np.int64)
    valid = np.zeros(m_count, dtype=np.int64)
    n_boards = len(boards)
    if n_boards == 0 or m_count == 0:
        return Counts(wins, ties, units, valid, scale)

    # Only pool entries with a card that some board can hold need the collision check.
    reach = np.uint64(np.bitwise_or.reduce(boards))
    colliding = np.flatnonzero((pool & reach) != 0)
    any_collision = colliding.size > 0
    n_pool = len(pool)
    chunk = int(min(max(_ELEMS // n_pool, 256), 1 << 17))
    chunk = min(chunk, max(8192, -(-n_boards // 8)))  # several chunks per core, for balance
    lock = threading.Lock()
    bas = np.uint64(base)
    dense = combo_pair_grid.plan(matchups) if n == 2 else None  # range vs range heads-up
    pairs = flush_free_ranks.rank_pairs(pool) if dense is not None else None  # once, not per chunk
    by_ranks = dense is not None and flush_free_pairs.pays(pool, pairs)  # many combos per rank pair
    if dense is not None:  # a matchup's cell of the (A combos, B combos) results
        cell = dense[1] * len(dense[2]) + dense[3]


    def add_heads_up(w0: np.ndarray, t: np.ndarray, v: np.ndarray) -> None:
        """Add one chunk's heads-up counts per matchup: A's wins ``w0``, ties ``t``, boards ``v``."""
        with lock:
            wins[:, 0] += w0
            wins[:, 1] += v - w0 - t
            ties[:, 0] += t
            ties[:, 1] += t
            units[:] += t[:, None] * (scale // 2)
            valid[:] += v

    def work(s: int, e: int) -> None:
        b = boards[s:e] | bas if base else boards[s:e]
        c = e - s
        if by_ranks:  # compare rank pairs on flush-free boards, combos on the others
            gt, eq, ok = flush_free_pairs.heads_up(pool, b, dense[0], dense[2], pairs=pairs)
            w0, t, v = np.take(gt, cell), np.take(eq, cell), np.take(ok, cell)
            add_heads_up(w0, t, v)
            return
        # Combos with the same ranks share work (looked up here, so tests can wrap it).
        st = flush_free_ranks.strengths(pool, b, evaluate=evaluate_masks)
        if any_collision:
            hit = (pool[colliding, None] & b[None, :]) != 0
            st[colliding] = np.where(hit, 0, st[colliding])
        if dense is not None:  # every (A combo, B combo) pair at once, then the matchups
            ra, pa, rb, pb = dense
            gt, eq, ok = combo_pair_grid.heads_up(st[ra], st[rb], any_collision)
            w0, t = gt[pa, pb], eq[pa, pb]
            v = ok[pa, pb] if ok is not None else np.full(m_count, c, dtype=np.int64)
            add_heads_up(w0, t, v)
            return
        block = max(1, _ELEMS // c)  # matchups compared at a time
        for lo in range(0, m_count, block):
            hi = min(lo + block, m_count)
            idx = matchups[lo:hi]
            w = np.zeros((hi - lo, n), dtype=np.int64)
            t = np.zeros((hi - lo, n), dtype=np.int64)
            v = np.full(hi - lo, c, dtype=np.int64)
            if n == 2:
                _heads_up(st[idx[:, 0]], st[idx[:, 1]], any_collision, w, t, v)
                u = t * (scale // 2)
            else:
                u = np.zeros((hi - lo, n), dtype=np.int64)
                _multiway(st[idx], any_collision, share, w, t, u, v)
            with lock:
                wins[lo:hi] += w
                ties[lo:hi] += t
                units[lo:hi] += u
                valid[lo:hi] += v

    _run(n_boards, work, chunk, progress)
    return Counts(wins, ties, units, valid, scale)


def _row_counts(x: np.ndarray) -> np.ndarray:
    """True values along the last axis of a bool array: packed to bits and popcounted, several
    times faster than ``np.count_nonzero(x, axis=-1)``."""
    return np.bitwise_count(np.packbits(x, axis=-1)).sum(axis=-1, dtype=np.int64)


def _heads_up(a: np.ndarray, b: np.ndarray, check: bool, w: np.ndarray, t: np.ndarray,
              v: np.ndarray) -> None:
    """Two players' strengths ``(m, C)`` -> wins ``w``, ties ``t``, valid boards ``v``."""
    if check:
        va = a != 0
        vb = b != 0
        # b valid and a > b implies a valid too; a == b with a valid implies b valid.
        w[:, 0] = _row_counts((a > b) & vb)
        tie = _row_counts((a == b) & va)
        va &= vb
        v[:] = _row_counts(va)
    else:
        w[:, 0] = _row_counts(a > b)
        tie = _row_counts(a == b)
    w[:, 1] = v - w[:, 0] - tie
    t[:, 0] = tie
    t[:, 1] = tie


def _multiway(s: np.ndarray, check: bool, share: np.ndarray, w: np.ndarray, t: np.ndarray,
              u: np.ndarray, v: np.ndarray) -> None:
    """Strengths ``(m, n, C)`` -> wins, ties, tie units ``(m, n)``, valid boards ``(m,)``."""
    best = s.max(axis=1)
    win = s == best[:, None, :]
    if check:
        ok = s.min(axis=1) != 0
        win &= ok[:, None, :]
        v[:] = _row_counts(ok)
    cnt = win.sum(axis=1, dtype=np.uint8)
    solo = (cnt == 1)[:, None, :]
    w[:] = _row_counts(win & solo)
    t[:] = _row_counts(win & ~solo)
    u[:] = (win * share[cnt][:, None, :]).sum(axis=2, dtype=np.int64)


def sample_counts(holes: Sequence[np.ndarray], cum_weights: Sequence[np.ndarray | None],
                  deck_mask: int, base: int, k: int, n_samples: int, entropy: int, *,
                  dealt: Sequence[bool] | None = None, first: int = 0,
                  progress: Progress | None = None) -> tuple[np.ndarray, ...]:
    """Monte Carlo showdowns: sampled matchups on sampled board completions.

    Parameters
    ----------
    holes : list of numpy.ndarray of uint64
        Per player, the masks of its combos (one entry for a known hand).
    cum_weights : list of numpy.ndarray or None
        Per player, the cumulative combo weights (None for a known hand).
    deck_mask : int
        Cards a board completion may use (the range combos' cards are still in it).
    base : int
        The known board cards.
    k : int
        Cards to complete the board.
    n_samples : int
        Number of showdowns.
    entropy : int
        Seed of the random streams.
    dealt : list of bool, optional
        Players whose range is every combo of the deck with equal weights ("random"): they
        are dealt two cards from what the other players and the board leave, after the
        weighted ranges are drawn. That is exact, because every choice of the other combos
        leaves the same number of hands for them, and it avoids the whole-tuple rejection
        that makes many "random" players slow.
    first : int
        The run's number of the first showdown, a multiple of :data:`SAMPLE_BLOCK`: block
        ``b`` of a run is showdowns ``[b * SAMPLE_BLOCK, (b + 1) * SAMPLE_BLOCK)``, drawn
        from ``SeedSequence(entropy, spawn_key=(b,))``, so a run cut into aligned spans
        (a cluster's tasks) sums to the same integers as one call.
    progress : Progress, optional

    Returns
    -------
    tuple of numpy.ndarray
        ``(wins, ties, units, units_sq)``, each ``(n,)`` int64: outright wins, split pots,
        the pot units won per player (``pot_units(n)`` per pot; wins included) and the sum of
        squared per-sample units (for the standard error).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.equity_engine import enumerate_boards as eb
    >>> h = [cards.to_mask(["AhKh"]), cards.to_mask(["QsQd"])]
    >>> deck = eb.FULL_DECK & ~int(h[0][0] | h[1][0])
    >>> w, t, u, u2 = sample_counts(h, [None, None], deck, 0, 5, 1000, 7)
    >>> int(u.sum()) == 2 * 1000
    True
    """
    if first % SAMPLE_BLOCK:
        raise ValueError(f"first={first} is not a multiple of SAMPLE_BLOCK={SAMPLE_BLOCK}")
    n = len(holes)
    scale = pot_units(n)
    share = np.zeros(n + 1, dtype=np.int64)
    share[1:] = scale // np.arange(1, n + 1)
    dealt = [False] * n if dealt is None else list(dealt)
    ranged = [p for p in range(n) if cum_weights[p] is not None and not dealt[p]]
    to_deal = [p for p in range(n) if dealt[p]]
    total = np.zeros((4, n), dtype=np.int64)
    lock = threading.Lock()
    bas = np.uint64(base)

    def block(s: int, e: int) -> None:  # one block: [s, e) is one SAMPLE_BLOCK span
        size = e - s
        rng = np.random.default_rng(np.random.SeedSequence(entropy,
                                                           spawn_key=((first + s) // SAMPLE_BLOCK,)))
        hole = _sample_matchups(rng, size, holes, cum_weights, ranged)
        used = np.zeros(size, dtype=np.uint64)
        for p in ranged:
            used |= hole[p]
        for p in to_deal:
            hole[p] = enumerate_boards.sample(rng, size, deck_mask, 2, used)
            used |= hole[p]
        board = enumerate_boards.sample(rng, size, deck_mask, k, used) | bas
        st = np.empty((n, size), dtype=np.uint16)
        for p in range(n):
            evaluate_masks(hole[p] | board, st[p])
        res = _heads_up_sample_totals(st, scale) if n == 2 else _sample_totals(st, share)
        with lock:
            np.add(total, res, out=total)

    _run(n_samples, block, SAMPLE_BLOCK, progress)
    return tuple(total)


def _sample_totals(st: np.ndarray, share: np.ndarray) -> np.ndarray:
    """``(4, n)`` wins, split pots, pot units and squared units of strengths ``st`` ``(n, S)``."""
    best = st.max(axis=0)
    win = st == best
    cnt = win.sum(axis=0, dtype=np.uint8)
    got = win * share[cnt]  # pot units per player and sample
    return np.stack([np.count_nonzero(win & (cnt == 1), axis=1),
                     np.count_nonzero(win & (cnt > 1), axis=1),
                     got.sum(axis=1), (got * got).sum(axis=1)])


#: What one matchup costs when exact preflop equity counts boards by rank class
#: (:mod:`gpu_eval.equity_engine.holdem.shortcuts.board_rank_classes`), in the work units of board
#: enumeration (an evaluation or a
#: comparison; 1 to 2.5 ms against 10 to 17 ns here). :func:`gpu_eval.equity` takes the cheaper
#: way: few matchups favour classes, ranges that suit symmetry shrinks favour boards.
PREFLOP_CLASS_WORK = 100_000


def preflop_counts(pool: np.ndarray, matchups: np.ndarray, deck_mask: int, *,
                   progress: Progress | None = None) -> Counts:
    """:func:`showdown_counts` over every 5-card board of ``deck_mask``, by rank class.

    The same integers as ``showdown_counts(pool, matchups, completions(deck_mask, 5))``, from
    table lookups over about 41,000 board classes per matchup instead of 1.7 million board
    evaluations per player (see :mod:`gpu_eval.equity_engine.holdem.shortcuts.board_rank_classes`); worth
    it for a few matchups
    (``PREFLOP_CLASS_WORK``).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.equity_engine import enumerate_boards as eb
    >>> pool = cards.to_mask(["AhKh", "QsQd"])
    >>> c = preflop_counts(pool, np.array([[0, 1]]), eb.FULL_DECK & ~int(pool[0] | pool[1]))
    >>> c.wins.tolist(), c.ties.tolist(), c.valid.tolist()
    ([[787966, 917606]], [[6732, 6732]], [1712304])
    """
    from gpu_eval.equity_engine.holdem.shortcuts import board_rank_classes  # noqa: PLC0415 -- only this path needs its tables

    matchups = np.asarray(matchups, dtype=np.intp)
    m_count, n = matchups.shape
    wins, ties, units = (np.zeros((m_count, n), dtype=np.int64) for _ in range(3))
    valid = np.zeros(m_count, dtype=np.int64)
    for m, row in enumerate(matchups):
        holes = [int(pool[i]) for i in row]
        deck = deck_mask
        for h in holes:
            deck &= ~h
        wins[m], ties[m], units[m], valid[m] = board_rank_classes.matchup_counts(holes, deck)
        if progress is not None:
            progress.update(1)
    return Counts(wins, ties, units, valid, pot_units(n))


def _heads_up_sample_totals(st: np.ndarray, scale: int) -> np.ndarray:
    """:func:`_sample_totals` for two players, from two counts: a sample is a win for one
    player (``scale`` units), or a split (``scale // 2`` units each)."""
    a, b = st
    won = np.count_nonzero(a > b)
    tied = np.count_nonzero(a == b)
    wins = np.array([won, a.size - won - tied], dtype=np.int64)
    ties = np.array([tied, tied], dtype=np.int64)
    half = scale // 2
    return np.stack([wins, ties, wins * scale + ties * half,
                     wins * scale * scale + ties * half * half])


def _sample_matchups(rng: np.random.Generator, size: int, holes, cum_weights,
                     ranged: list[int]) -> list[np.ndarray]:
    """Per player, ``size`` hole masks: combos drawn by weight, conflicting draws redrawn.

    Drawing each range independently by weight and rejecting tuples that share a card gives
    each compatible matchup probability proportional to the product of its weights.
    """
    out = [np.empty(size, np.uint64) if p in ranged else np.broadcast_to(h[:1], (size,))
           for p, h in enumerate(holes)]
    uniform = {p: np.allclose(np.diff(cum_weights[p], prepend=0.0), cum_weights[p][0],
                              rtol=1e-12, atol=0) for p in ranged}

    def draw(p: int, m: int) -> np.ndarray:
        cw = cum_weights[p]
        if uniform[p]:  # equal weights: a plain uniform pick (16-bit: ranges hold <= 1326)
            return holes[p][rng.integers(0, len(cw), size=m, dtype=np.uint16)]
        pick = np.searchsorted(cw, rng.random(m) * cw[-1], side="right")
        return holes[p][np.minimum(pick, len(cw) - 1, out=pick)]

    if not ranged:  # known hands only (dealt players are drawn later)
        return out
    if len(ranged) == 1:  # known hands are already out of the range: nothing to reject
        out[ranged[0]][:] = draw(ranged[0], size)
        return out
    todo = None  # the rows still to draw; None: all of them (the first round)
    stalled = 0
    while True:
        acc = None
        for p in ranged:
            got = draw(p, size if todo is None else todo.size)
            if todo is None:
                out[p][:] = got
            else:
                out[p][todo] = got
            if acc is None:
                acc = got.copy()
            else:
                acc |= got
        bad = np.bitwise_count(acc) != 2 * len(ranged)
        stalled = stalled + 1 if bad.all() else 0
        if stalled > 1000:
            raise ValueError("the players' ranges almost never fit together (no compatible "
                             "matchup found in 1000 rounds of draws)")
        todo = np.flatnonzero(bad) if todo is None else todo[bad]
        if not todo.size:
            return out
