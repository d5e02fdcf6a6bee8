"""Equity of the games without a shared board: seven-card stud (high, hi/lo, razz) and the
single-draw games. Both are the same problem: each player holds some known cards and is
dealt the rest of a hand from one deck (stud: up to seven cards, the best five play; a draw
game: the cards kept, drawn up to the hand size), and the best hand (or hands) takes the pot.

What a game is (hand size, high / low / hi-lo, its evaluator) is read from its registry
record; ``ge.equity(..., game="razz")`` reaches it through the planner's deal strategies
(:mod:`gpu_eval.equity_engine.planner`: :func:`plan` decides, :func:`task` counts spans,
:func:`finish` builds the result, in one process or on Dask alike).

Exact, two ways (the cheaper runs; :func:`costs`):

* **grid**: every player's completions (all ``need``-card subsets of the deck) are evaluated
  once; the deals are the disjoint tuples of completions, walked as a product of the first
  players' (disjoint) tuples against the last player's completions, in blocks, each pair
  compared into integer pot units (:func:`gpu_eval.equity_engine.pots.split`: the hold'em/Omaha hi/lo rules).
* **inclusion-exclusion** (heads-up, one winner per pot half: every game but hi/lo): the pairs
  of *disjoint* completions are counted as ``sum over card sets S of (-1)^|S|`` times the
  pairs that both contain ``S``, and within each ``S`` the pairs with ``s1 > s2`` are counted
  by sorting, not walked. Heads-up third-street stud, 18,265,297,050 deals, is then about
  2 x 2.6 million sorted entries.

Monte Carlo deals the missing cards of every player from a random order of the deck, in
blocks of :data:`SAMPLE_BLOCK` samples, each with its own stream from ``seed`` (so a seed
reproduces a result); standard errors are those of the per-deal pot share.

On CUDA (``backend="cuda"``, or ``"auto"`` with a usable device, unless NumPy would walk the
deal exactly in under :data:`HOST_SECONDS`: :mod:`gpu_eval.equity_engine.deals.cuda_engine`) exact is always
the
grid, walked by the device with the same integers (its limits are
:data:`CUDA_EXACT_LIMIT` and :data:`CUDA_HARD_LIMIT` pairs; heads-up third-street stud,
2.7e10 pairs, is exact by default there), and Monte Carlo draws from the device's own
per-sample streams (a seed reproduces a CUDA result, not the NumPy digits).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from gpu_eval.card_spelling import CARD_BIT, id_text
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.equity_engine import results as equity_results
from gpu_eval.equity_engine.deals import completions
from gpu_eval.equity_engine.plain_spots import PlainDeal
from gpu_eval.equity_engine.pots import game_units, split
from gpu_eval.equity_engine.problem import Problem
from gpu_eval.equity_engine.problem import prepare as prepare_any
from gpu_eval.games import registry
from gpu_eval.once import cached_property
from gpu_eval.progress import Progress, wanted

__all__ = ["prepare", "deal_problem", "plain_problem", "exact_job", "sample_job", "task",
           "finish", "DealProblem", "DealJob", "strengths", "costs", "expected_seconds",
           "exact_counts", "grid_rows",
           "completion_masks", "tuples", "device_order", "SAMPLE_BLOCK", "EXACT_LIMIT",
           "EXACT_SECONDS", "RATE", "CUDA_RATE", "H200_THREAD_INSTRUCTIONS",
           "GRID_INSTRUCTIONS_PER_DEAL", "GRID_ISSUE_EFFICIENCY", "CUDA_EXACT_LIMIT",
           "CUDA_HARD_LIMIT", "CUDA_MAX_ROWS", "HOST_SECONDS", "BATCH_PAIRS", "batchable",
           "batch_counts"]

#: Monte Carlo samples per block (one random stream each).
SAMPLE_BLOCK = 1 << 15
#: exact=None enumerates when the cheaper exact method costs at most this (pair comparisons
#: for the grid, sorted entries for inclusion-exclusion: both about a few seconds).
EXACT_LIMIT = 3e7
#: exact=True refuses work beyond this (minutes on NumPy).
HARD_LIMIT = 1e9
#: Pair comparisons (or sorted entries) per second on NumPy, for the progress bar.
RATE = 1e7
#: exact=None also enumerates when the fastest method's measured seconds
#: (:func:`expected_seconds`) are at most this: the direct heads-up counts walk far more
#: pairs a second than RATE (heads-up hi/lo fourth street, 1.75e8 pairs, in under a second).
EXACT_SECONDS = EXACT_LIMIT / RATE
#: Thread instructions an H200 issues a second: 132 SMs x 4 warp schedulers x 1.98 GHz x
#: 32 lanes (the device notes' figures; compute capability 9.0 issues one warp instruction
#: per scheduler and clock).
H200_THREAD_INSTRUCTIONS = 132 * 4 * 1.98e9 * 32
#: SASS instructions a deal comparison costs in the grid kernels (nvcc -arch=sm_90, counted
#: in cuobjdump -sass, benchmarks/RESULTS.md 2026-12-02): the general kernel's column loop
#: about 75 a deal heads-up (hi/lo), 90 for three players, 105 for four; the heads-up
#: high-only loop 12.25 (49 for four deals). The rate takes the general loop's 90.
GRID_INSTRUCTIONS_PER_DEAL = 90
#: Share of the issue rate a grid kernel keeps (loads and branches between the arithmetic).
GRID_ISSUE_EFFICIENCY = 0.5
#: Deal comparisons per second on CUDA, derived from the two figures above (about 1.8e11; a
#: paper figure, not measured: benchmarks/gpu_check.sh measures it on a device). The old
#: 2e10 was 10-15x below it, so exact=None sampled spots a GPU enumerates in a second.
CUDA_RATE = H200_THREAD_INSTRUCTIONS * GRID_ISSUE_EFFICIENCY / GRID_INSTRUCTIONS_PER_DEAL
#: exact=None walks the grid on CUDA up to this many pairs (about two seconds at CUDA_RATE),
#: and exact=True up to CUDA_HARD_LIMIT (about a minute).
CUDA_EXACT_LIMIT = 2.0 * CUDA_RATE
CUDA_HARD_LIMIT = 60.0 * CUDA_RATE
#: backend="auto" keeps an exact walk on NumPy when it is expected to take under this many
#: seconds there (a device launch and its copies cost about as much).
HOST_SECONDS = 2e-3
#: Most grid rows (disjoint tuples of the first players' completions) built on the host.
CUDA_MAX_ROWS = 10_000_000
_GRID_BLOCK = 1 << 20  # pair comparisons per grid block
_SMALL_GRID = 256  # at most this many pairs: counted in Python (a NumPy call costs more)
_NO_BAR = Progress(0, "", enabled=False)  # disabled: update() and close() do nothing

#: An exact walk's totals: ``(wins, ties, split units, high units, low units)`` per player,
#: and the deals counted.
ExactTotals = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]
#: Measured NumPy seconds of the exact methods (the 2-vCPU VM): a grid's fixed cost, per
#: completion evaluated, per pair (heads-up: a few passes, a dozen for hi/lo; else through
#: ``pots``); inclusion-exclusion's per shared-set size and per sorted entry. They pick the
#: method (:func:`expected_seconds`) and, with :data:`EXACT_SECONDS`, whether to enumerate.
_GRID_SECONDS = (3e-5, 6e-8, 1.5e-9, 4e-9, 4e-8)
_IE_SECONDS = (5e-5, 6e-8)


@dataclass(frozen=True)
class DealProblem:
    """A validated deal: each player's known cards and how many more it gets."""

    game: str
    labels: tuple[str, ...]
    known: tuple[int, ...]   # each player's known cards, as a hand mask
    need: tuple[int, ...]    # cards still to come, per player
    deck: np.ndarray         # (D,) uint8 ids of the cards that can still come
    dead: str
    #: Whether the pot is split high/low, and the pot units (read on every step of a walk:
    #: set once here).
    hilo: bool = field(init=False)
    scale: int = field(init=False)
    #: The deck's ids as bytes, the key the completions are cached by (one object: its hash
    #: is worked out once).
    deck_bytes: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        hilo = registry.GAMES[self.game].hilo
        object.__setattr__(self, "hilo", hilo)
        object.__setattr__(self, "scale", game_units(len(self.known), hilo))
        object.__setattr__(self, "deck_bytes", self.deck.tobytes())

    @property
    def record(self) -> registry.Game:
        return registry.GAMES[self.game]

    def deals(self) -> int:
        """Deals in the whole space: the ways to hand out the missing cards."""
        return _deals(len(self.deck), self.need)


@lru_cache(maxsize=1024)  # a function of the deal's shape
def _deals(d: int, need: tuple[int, ...]) -> int:
    out, left = 1, d
    for k in need:
        out *= math.comb(left, k)
        left -= k
    return out


def _text(ids) -> str:
    return "".join(id_text(c) for c in sorted(int(c) for c in ids))


_plain_text = lru_cache(maxsize=256)(_text)  # of a tuple of ids (a plain deal's dead cards)


def _deck(deck_mask: int) -> np.ndarray:
    """The ``uint8`` ids of the cards of a deck mask (read-only, cached)."""
    return _deck_parts(deck_mask)[0]


@lru_cache(maxsize=256)
def _deck_parts(deck_mask: int) -> tuple[np.ndarray, bytes]:
    """:func:`_deck` and its bytes (one object per deck: its hash, the completions' cache
    key, is worked out once)."""
    out = np.array([c for c in range(52) if deck_mask & CARD_BIT[c]], dtype=np.uint8)
    out.flags.writeable = False
    return out, out.tobytes()


def deal_problem(prob: Problem) -> DealProblem:
    """The deal engines' compact view of a validated problem of a game without a board.

    Examples
    --------
    >>> from gpu_eval.equity_engine.problem import prepare as prepare_any
    >>> deal_problem(prepare_any(["AhKh3c", "QsQd7h"], game="stud")).need
    (4, 4)
    """
    return DealProblem(prob.game, prob.labels, tuple(int(p.masks[0]) for p in prob.players),
                       tuple(p.need for p in prob.players), _deck(prob.deck_mask),
                       _text(prob.dead) if prob.dead else "")


def plain_problem(deal: PlainDeal, record: registry.Game) -> DealProblem:
    """The :class:`DealProblem` of a deal read from plain text
    (:func:`gpu_eval.equity_engine.plain_spots.plain_deal`): the one :func:`deal_problem`
    gives for the same spot.

    Examples
    --------
    >>> from gpu_eval.equity_engine.plain_spots import plain_deal
    >>> game = registry.get("razz")
    >>> plain_problem(plain_deal(["Ah2h3h", "Kh2d3d"], "", "", game), game).need
    (4, 4)
    """
    deck, deck_bytes = _deck_parts(deal.deck_mask)
    # What DealProblem's __init__ sets, set at once (a frozen dataclass sets each field, and
    # __post_init__ the derived ones, through object.__setattr__, one call each).
    out = object.__new__(DealProblem)
    out.__dict__.update(game=record.name, labels=deal.labels, known=deal.known, need=deal.need,
                        deck=deck, dead=_plain_text(deal.dead) if deal.dead else "",
                        hilo=record.hilo, scale=game_units(len(deal.known), record.hilo),
                        deck_bytes=deck_bytes)
    return out


def prepare(players: Sequence[Any], board: Any, dead: Any, game: str) -> DealProblem:
    """Validate a deal of ``game`` (a stud or draw game; :func:`gpu_eval.equity_engine.
    problem.prepare`, errors naming the player) and give its :class:`DealProblem`.

    Examples
    --------
    >>> p = prepare(["Ah2h3h4h5h", "Kh2d3d4d5d"], "", "", "razz")
    >>> p.need, len(p.deck), p.deals()
    ((2, 2), 42, 671580)
    """
    return deal_problem(prepare_any(players, board, dead, game))


#: The strengths of final hand masks (:func:`completions.strengths`; named here too).
strengths = completions.strengths


def costs(prob: DealProblem) -> dict[str, float]:
    """Work of each exact method that applies: ``{"grid": pair comparisons,
    "inclusion-exclusion": sorted entries}``.

    Examples
    --------
    >>> p = prepare(["AhKh3c", "QsQd7h"], "", "", "stud")
    >>> sorted(costs(p)), f"{costs(p)['inclusion-exclusion']:.3g}"
    (['grid', 'inclusion-exclusion'], '5.22e+06')
    """
    return {m: work for m, work, _ in _figures(len(prob.deck), prob.need, prob.hilo)}


def expected_seconds(prob: DealProblem, method: str, work: float) -> float:
    """Expected NumPy seconds of exact ``method`` over ``work`` of its units (:func:`costs`).

    Examples
    --------
    >>> p = prepare(["7d5h4c3s", "8h6d4s2c"], "", "", "deuce-seven-draw")
    >>> c = costs(p)
    >>> min(c, key=c.get), min(c, key=lambda m: expected_seconds(p, m, c[m]))
    ('inclusion-exclusion', 'grid')
    """
    return _seconds(len(prob.deck), prob.need, prob.hilo, method, work)


@lru_cache(maxsize=1024)  # a function of the deal's shape: worked out once per shape
def _seconds(d: int, need: tuple[int, ...], hilo: bool, method: str, work: float) -> float:
    if method == "inclusion-exclusion":
        per_size, per_entry = _IE_SECONDS
        return per_size * (min(need) + 1) + per_entry * work
    fixed, per_hand, per_pair_hu, per_pair_hu_hilo, per_pair = _GRID_SECONDS
    hands = sum(math.comb(d, k) for k in need)
    pair = per_pair if len(need) > 2 else per_pair_hu_hilo if hilo else per_pair_hu
    return fixed + per_hand * hands + pair * work


@lru_cache(maxsize=1024)
def _figures(d: int, need: tuple[int, ...], hilo: bool) -> tuple[tuple[str, float, float], ...]:
    """``(method, work, expected NumPy seconds)`` of each exact method of a deal from a deck
    of ``d`` cards, each player drawing ``need``: a function of the deal's shape alone, so
    worked out once per shape (the cards do not enter it)."""
    sizes = [math.comb(d, k) for k in need]
    out = {"grid": float(math.prod(sizes))}
    if len(sizes) == 2 and not hilo:
        top = min(need)  # shared sets of at most this many cards
        out["inclusion-exclusion"] = float(sum(s * sum(math.comb(k, j) for j in range(top + 1))
                                               for s, k in zip(sizes, need)))
    return tuple((m, work, _seconds(d, need, hilo, m, work)) for m, work in out.items())


def _fastest(prob: DealProblem, c: dict[str, float]) -> str:
    return min(c, key=lambda m: expected_seconds(prob, m, c[m]))


def completion_masks(prob: DealProblem, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Player ``i``'s completions: ``(deck positions (m, k), masks of those cards)``, every
    ``need``-card subset of the deck in colex order.

    Examples
    --------
    >>> pos, masks = completion_masks(prepare(["7d5h4c3s", "8h6d4s2c"], "", "",
    ...                                       "deuce-seven-draw"), 0)
    >>> pos.shape, masks.dtype.name
    ((44, 1), 'uint64')
    """
    c = completions.completions(prob.deck_bytes, prob.need[i])
    return c.pos, c.masks


def _completions(prob: DealProblem, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                     np.ndarray | None]:
    """Player ``i``'s completions: ``(deck positions (m, k), masks, strengths, lows)``."""
    return completions.player_strengths(prob.game, prob.deck_bytes, prob.need[i],
                                       prob.known[i])


def tuples(masks: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The disjoint tuples of the first ``n - 1`` players' completions (``masks``: every
    player's completion masks): ``(indices (t, n - 1), union of each tuple's cards)``.

    Examples
    --------
    >>> m = [np.array([1, 2], np.uint64), np.array([1, 4], np.uint64), np.zeros(1, np.uint64)]
    >>> idx, union = tuples(m)
    >>> idx.tolist(), union.tolist()
    ([[0, 1], [1, 0], [1, 1]], [5, 3, 6])
    """
    idx = np.zeros((1, 0), dtype=np.int64)
    union = np.zeros(1, dtype=np.uint64)
    for i in range(len(masks) - 1):
        m = masks[i]
        rows = np.repeat(np.arange(len(idx)), len(m))
        cols = np.tile(np.arange(len(m)), len(idx))
        ok = (union[rows] & m[cols]) == 0
        idx = np.column_stack([idx[rows[ok]], cols[ok]])
        union = union[rows[ok]] | m[cols[ok]]
    return idx, union


def grid_rows(prob: DealProblem) -> int:
    """Rows of the grid: the disjoint tuples of all players' completions but the last.

    Examples
    --------
    >>> grid_rows(prepare(["7d5h4c3s2h", "5s4h3d2c"], "", "Ad", "deuce-seven-draw"))
    1
    """
    # Every player's completions are the subsets of one deck: the disjoint tuples number
    # C(D, n0) * C(D - n0, n1) * ..., the deals of all players but the last (not built).
    return _deals(len(prob.deck), prob.need[:-1])


def device_order(prob: DealProblem) -> tuple[DealProblem, list[int]]:
    """``(prob with its players in the order the CUDA grid walks them, that order)``
    (:func:`gpu_eval.equity_engine.deals.cuda_engine.player_order`: the largest completion set last).

    Examples
    --------
    >>> p = prepare(["7d5h4c", "8h6d4s2c"], "", "", "deuce-seven-draw")
    >>> device_order(p)[0].labels, device_order(p)[1]
    (('8h6d4s2c', '7d5h4c'), [1, 0])
    """
    from gpu_eval.equity_engine.deals.cuda_engine import player_order  # noqa: PLC0415 -- CuPy-free helper

    order = player_order([math.comb(len(prob.deck), k) for k in prob.need])
    return replace(prob, labels=tuple(prob.labels[i] for i in order),
                   known=tuple(prob.known[i] for i in order),
                   need=tuple(prob.need[i] for i in order)), order


def _device_grid(prob: DealProblem, bar: Progress, start: int = 0, stop: int | None = None
                 ) -> tuple[np.ndarray, ...]:
    """Rows ``[start, stop)`` of the grid walked on CUDA (rows of :func:`device_order`),
    counts in the caller's player order."""
    from gpu_eval.equity_engine.deals import cuda_engine as cuda_deals  # noqa: PLC0415 -- imports CuPy

    dev, order = device_order(prob)
    comps = [completion_masks(dev, i)[1] for i in range(len(dev.known))]
    idx, union = tuples(comps)
    counts = cuda_deals.grid_counts(dev.game, list(dev.known), comps, idx[start:stop],
                                    union[start:stop], dev.scale, bar)
    back = np.argsort(order)
    return (*(c[back] for c in counts[:5]), counts[5])


def _grid(prob: DealProblem, bar: Progress, start: int = 0, stop: int | None = None
          ) -> ExactTotals:
    n, scale = len(prob.known), prob.scale
    if n == 2:
        walk = _heads_up_hilo_grid if prob.hilo else _heads_up_grid
        read, game, deck, need, known = completions.player_strengths, prob.game, \
            prob.deck_bytes, prob.need, prob.known
        return walk([read(game, deck, need[0], known[0]), read(game, deck, need[1], known[1])],
                    scale, bar, start, stop)
    comps = [_completions(prob, i) for i in range(n)]
    idx, union = tuples([c[1] for c in comps])
    idx, union = idx[start:stop], union[start:stop]
    last_m, last_hi, last_lo = comps[-1][1], comps[-1][2], comps[-1][3]
    wins, ties, units, hu_t, lu_t = (np.zeros(n, dtype=np.int64) for _ in range(5))
    valid = 0
    step = max(1, _GRID_BLOCK // max(1, len(last_m)))
    for a in range(0, len(idx), step):
        sel, u = idx[a:a + step], union[a:a + step]
        ok = (u[:, None] & last_m[None, :]) == 0                       # (t, c)
        hi = np.empty((len(sel), n, len(last_m)), dtype=np.uint16)
        for i in range(n - 1):
            hi[:, i, :] = comps[i][2][sel[:, i]][:, None]
        hi[:, n - 1, :] = last_hi[None, :]
        hi[:, n - 1, :] *= ok  # strength 0 marks a deal that is no deal
        lo = None
        if prob.hilo:  # a hi/lo game's completions have lows
            assert last_lo is not None
            lo = np.empty((len(sel), n, len(last_m)), dtype=np.uint8)
            for i in range(n - 1):
                low_i = comps[i][3]
                assert low_i is not None
                lo[:, i, :] = low_i[sel[:, i]][:, None]
            lo[:, n - 1, :] = last_lo[None, :]
        t, hu, lu, good = split(hi, lo, scale)
        whole = t == scale
        wins += whole.sum(axis=(0, 2))
        ties += ((t > 0) & ~whole).sum(axis=(0, 2))
        units += np.where(whole, 0, t).sum(axis=(0, 2))
        if hu is not None and lu is not None:  # hi/lo
            hu_t += hu.sum(axis=(0, 2))
            lu_t += lu.sum(axis=(0, 2))
        valid += int(good.sum())
        bar.update(len(sel) * len(last_m))
    return wins, ties, units, hu_t, lu_t, valid


def _heads_up_grid(comps: list, scale: int, bar: Progress, start: int, stop: int | None
                   ) -> ExactTotals:
    """The grid of two players, one winner per pot: each disjoint pair of completions (rows
    ``[start, stop)`` of the first player's) is a win, a loss or a split, counted directly
    (what :func:`gpu_eval.equity_engine.pots.split` gives heads-up, in a few passes; a few dozen pairs in
    plain Python, where each NumPy call would cost more than the pairs)."""
    (_, ma, sa, _), (_, mb, sb, _) = comps
    ma, sa = ma[start:stop], sa[start:stop]
    won = tied = valid = 0
    if len(ma) == 1 and not ma[0] or len(mb) == 1 and not mb[0]:
        # A pat hand (no card to come) against the other's completions: every pair is a deal,
        # and the pat hand's one strength is compared with each (no NumPy call pays here).
        pat, draws, flip = (int(sa[0]), sb.tolist(), False) if len(ma) == 1 and not ma[0] \
            else (int(sb[0]), sa.tolist(), True)
        draws.sort()  # then two bisections count, in C, what a Python loop would
        valid = len(draws)
        won = bisect_left(draws, pat)
        tied = bisect_right(draws, pat) - won
        if flip:  # the pat hand is the second player's
            won = valid - won - tied
        bar.update(valid)
    elif len(ma) * len(mb) <= _SMALL_GRID:
        b_side = list(zip(mb.tolist(), sb.tolist()))
        for x, s in zip(ma.tolist(), sa.tolist()):
            for y, t in b_side:
                if not x & y:
                    valid += 1
                    won += s > t
                    tied += s == t
        bar.update(len(ma) * len(mb))
    else:
        step = max(1, _GRID_BLOCK // max(1, len(mb)))
        for a in range(0, len(ma), step):
            ok = (ma[a:a + step, None] & mb[None, :]) == 0
            s = sa[a:a + step, None]
            won += int(np.count_nonzero(ok & (s > sb)))
            tied += int(np.count_nonzero(ok & (s == sb)))
            valid += int(np.count_nonzero(ok))
            bar.update(ok.size)
    # One array, each total a slice of it (a NumPy call per total costs more than a small
    # walk; slices cost less than a reshaped array's rows).
    units = tied * (scale // 2)
    t = np.array([won, valid - won - tied, tied, tied, units, units, 0, 0, 0, 0], dtype=np.int64)
    return t[0:2], t[2:4], t[4:6], t[6:8], t[8:10], valid


def _heads_up_hilo_grid(comps: list, scale: int, bar: Progress, start: int,
                        stop: int | None) -> ExactTotals:
    """The grid of two hi/lo players (rows ``[start, stop)`` of the first player's
    completions), counted directly: what :func:`gpu_eval.equity_engine.pots.split` gives heads-up, from
    a dozen boolean counts a block instead of its per-pair shares. A pot is 4 units: without
    a qualifying low the high takes 4 (2 each on a tie); with one, each half is 2 (1 each)."""
    (_, ma, sa, la), (_, mb, sb, lb) = comps
    ma, sa, la = ma[start:stop], sa[start:stop], la[start:stop]
    assert scale == 4, scale
    c = np.zeros(16, dtype=np.int64)  # the counts below, summed over blocks
    step = max(1, _GRID_BLOCK // max(1, len(mb)))
    for a in range(0, len(ma), step):
        ok = (ma[a:a + step, None] & mb[None, :]) == 0
        s, lo = sa[a:a + step, None], la[a:a + step, None]
        gt, eq = s > sb, s == sb
        low = (lo > 0) | (lb > 0)
        okn, okl = ok & ~low, ok & low
        l_gt, l_lt = lo > lb, lo < lb
        l_eq = (lo == lb) & low
        cnt = np.count_nonzero
        c += np.array([cnt(ok), cnt(okn), cnt(okl),
                       cnt(okn & gt), cnt(okn & eq), cnt(okl & gt), cnt(okl & eq),
                       cnt(ok & l_gt), cnt(ok & l_lt), cnt(ok & l_eq),
                       cnt(ok & gt & l_gt), cnt(ok & ~gt & ~eq & l_lt),
                       cnt(ok & (gt | eq | l_gt | l_eq)), cnt(ok & (~gt | eq | l_lt | l_eq)),
                       0, 0], dtype=np.int64)
        bar.update(ok.size)
    valid, n_none, n_low, ngt, neq, lgt, leq, lo_gt, lo_lt, lo_eq, sc_a, sc_b, pos_a, pos_b = \
        (int(x) for x in c[:14])
    nlt, llt = n_none - ngt - neq, n_low - lgt - leq
    high = np.array([4 * ngt + 2 * neq + 2 * lgt + leq, 4 * nlt + 2 * neq + 2 * llt + leq])
    low_units = np.array([2 * lo_gt + lo_eq, 2 * lo_lt + lo_eq])
    wins = np.array([ngt + sc_a, nlt + sc_b], dtype=np.int64)
    ties = np.array([pos_a, pos_b], dtype=np.int64) - wins
    units = high + low_units - 4 * wins
    return wins, ties, units.astype(np.int64), high.astype(np.int64), \
        low_units.astype(np.int64), valid


def _subset_keys(pos: np.ndarray, j: int, offset: int) -> list[np.ndarray]:
    """Per choice of ``j`` of a completion's cards, the colex number (plus ``offset``) of
    those deck positions, one array per choice."""
    out = []
    for sub in combinations(range(pos.shape[1]), j):
        key = np.full(len(pos), offset, dtype=np.int64)
        for t, col in enumerate(sub):
            c = pos[:, col].astype(np.int64)
            key += _comb_col(c, t + 1)
        out.append(key)
    return out


def _comb_col(c: np.ndarray, r: int) -> np.ndarray:
    out = np.ones_like(c)
    for q in range(r):
        out *= c - q
    return out // math.factorial(r)


def _inclusion_exclusion(prob: DealProblem, bar: Progress, start: int = 0,
                         stop: int | None = None) -> ExactTotals:
    """Sizes ``j`` of the shared card sets in ``[start, stop)`` (all by default)."""
    (pa, _, sa, _), (pb, _, sb, _) = (_completions(prob, i) for i in range(2))
    d = len(prob.deck)
    width = np.int64(1 << 16)
    wins, ties = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    total = 0
    offset = 0
    for j in range(min(prob.need) + 1):
        key_offset = offset
        offset += math.comb(d, j)
        if not start <= j < (min(prob.need) + 1 if stop is None else stop):
            continue
        ka = _subset_keys(pa, j, key_offset)
        kb = _subset_keys(pb, j, key_offset)
        sign = -1 if j % 2 else 1
        a_key = np.concatenate(ka)
        a_s = np.tile(sa.astype(np.int64), len(ka))
        b_comp = np.sort(np.concatenate(kb) * width + np.tile(sb.astype(np.int64), len(kb)))
        base = a_key * width
        lo0 = np.searchsorted(b_comp, base, side="left")
        lt = np.searchsorted(b_comp, base + a_s, side="left")
        le = np.searchsorted(b_comp, base + a_s, side="right")
        hi0 = np.searchsorted(b_comp, base + width, side="left")
        wins[0] += sign * int((lt - lo0).sum())
        ties += sign * int((le - lt).sum())
        wins[1] += sign * int((hi0 - le).sum())
        total += sign * int((hi0 - lo0).sum())
        bar.update(len(a_key) + len(b_comp))
    half = prob.scale // 2
    units = ties * half
    z = np.zeros(2, dtype=np.int64)
    return wins, ties, units, z, z, total


#: Heads-up spots whose completions over the whole deck make at most this many pairs are
#: walked together by :func:`batch_counts` (``equity_batch``); larger ones one at a time.
BATCH_PAIRS = 1 << 12


def batchable(prob: DealProblem) -> bool:
    """Whether :func:`batch_counts` walks this spot (heads-up, a few thousand pairs at most).

    Examples
    --------
    >>> batchable(prepare(["7d5h4c3s2h", "5s4h3d2c"], "", "Ad", "deuce-seven-draw"))
    True
    """
    return len(prob.known) == 2 and \
        math.prod(math.comb(52, k) for k in prob.need) <= BATCH_PAIRS


def batch_counts(probs: Sequence[DealProblem]) -> tuple[np.ndarray, ...]:
    """``(wins, ties, split units, high units, low units)`` ``(S, 2)`` and deals ``(S,)`` of
    many :func:`batchable` spots of one game and one ``need``, walked together: the
    completions of the whole deck, each spot leaving out those that touch its known or dead
    cards, so the NumPy calls are shared by the spots (a spot alone costs more in calls than
    in deals). The integers :func:`task` counts for each spot alone.

    Examples
    --------
    >>> p = prepare(["7d5h4c3s2h", "5s4h3d2c"], "", "Ad", "deuce-seven-draw")
    >>> w, t, u, hu, lu, n = batch_counts([p, p])
    >>> w.tolist(), n.tolist()
    ([[39, 0], [39, 0]], [42, 42])
    """
    first = probs[0]
    assert all(p.game == first.game and p.need == first.need and batchable(p) for p in probs)
    n_spots, scale, hilo = len(probs), first.scale, first.hilo
    full = bytes(range(52))
    c0, c1 = (completions.completions(full, k).masks for k in first.need)
    disjoint = (c0[:, None] & c1[None, :]) == 0
    out = [np.zeros((n_spots, 2), dtype=np.int64) for _ in range(5)]
    valid = np.zeros(n_spots, dtype=np.int64)
    step = max(1, _GRID_BLOCK // (len(c0) * len(c1)))
    for a in range(0, n_spots, step):
        part = probs[a:a + step]
        s = len(part)
        taken = ~np.array([int(np.bitwise_or.reduce(ID_TO_MASK[p.deck])) for p in part],
                          dtype=np.uint64)
        sides = []
        for i, comp in enumerate((c0, c1)):
            ok = (comp[None, :] & taken[:, None]) == 0                      # (s, C)
            hands = comp[None, :] | np.array([p.known[i] for p in part], np.uint64)[:, None]
            hi, lo = np.zeros(ok.shape, np.uint16), np.zeros(ok.shape, np.uint8)
            st, low = strengths(first.game, hands[ok])
            hi[ok] = st
            if low is not None:
                lo[ok] = low
            sides.append((ok, hi, lo))
        (ok0, hi0, lo0), (ok1, hi1, lo1) = sides
        deal = ok0[:, :, None] & ok1[:, None, :] & disjoint[None]           # (s, C0, C1)
        H = np.empty((s * len(c0), 2, len(c1)), dtype=np.uint16)
        H[:, 0, :] = hi0.reshape(-1, 1)
        H[:, 1, :] = (hi1[:, None, :] * deal).reshape(-1, len(c1))  # 0: no deal
        L = None
        if hilo:
            L = np.empty(H.shape, dtype=np.uint8)
            L[:, 0, :] = lo0.reshape(-1, 1)
            L[:, 1, :] = np.broadcast_to(lo1[:, None, :], deal.shape).reshape(-1, len(c1))
        t, hu, lu, good = split(H, L, scale)
        t = t.reshape(s, len(c0), 2, len(c1))
        whole = t == scale
        out[0][a:a + s] = whole.sum(axis=(1, 3))
        out[1][a:a + s] = ((t > 0) & ~whole).sum(axis=(1, 3))
        out[2][a:a + s] = np.where(whole, 0, t).sum(axis=(1, 3))
        if hu is not None and lu is not None:  # hi/lo
            out[3][a:a + s] = hu.reshape(t.shape).sum(axis=(1, 3))
            out[4][a:a + s] = lu.reshape(t.shape).sum(axis=(1, 3))
        valid[a:a + s] = good.reshape(s, -1).sum(axis=1)
    return (*out, valid)


def exact_counts(prob: DealProblem, method: str | None = None,
                 progress: bool | None = None) -> tuple[str, tuple]:
    """``(method, (wins, ties, split units, high units, low units, deals))`` walked exactly
    by ``method`` (default: the faster one, :func:`expected_seconds`).

    Examples
    --------
    >>> p = prepare(["7d5h4c3s2h", "5s4h3d2c"], "", "Ad", "deuce-seven-draw")
    >>> m, (w, t, u, _, _, n) = exact_counts(p)
    >>> m, w.tolist(), t.tolist(), n
    ('grid', [39, 0], [3, 3], 42)
    """
    c = costs(prob)
    method = method or _fastest(prob, c)
    with Progress(int(c[method]), f"{prob.game} exact", unit="pairs" if method == "grid"
                  else "entries", enabled=wanted(progress, expected_seconds(
                      prob, method, c[method]))) as bar:
        run = _grid if method == "grid" else _inclusion_exclusion
        return method, run(prob, bar)


@dataclass(frozen=True)
class DealJob:
    """How a deal's equity is answered (picklable, for clusters): exact by ``method`` over
    ``span`` units (grid rows, or shared-set sizes), or ``n_samples`` Monte Carlo deals."""

    prob: DealProblem
    method: str            # "grid", "inclusion-exclusion" or "monte carlo"
    n_samples: int | None  # Monte Carlo: samples; exact: None
    entropy: int | None
    work: float
    backend: str = "numpy"  # where the tasks run: "numpy" or "cuda"
    #: The expected seconds when already known (a NumPy exact job's, from its shape's
    #: figures); None: :attr:`seconds` works them out.
    expected: float | None = field(default=None, compare=False, repr=False)

    @cached_property  # read on every step of a call: kept after the first read
    def exact(self) -> bool:
        return self.method != "monte carlo"

    @cached_property
    def span(self) -> int:
        """The task units: grid rows, shared-set sizes (inclusion-exclusion) or samples;
        found when the job runs, not when it is costed (a multiway grid's rows are the
        disjoint tuples of the first players' completions, built to be counted)."""
        if not self.exact:
            assert self.n_samples is not None  # a Monte Carlo job has them
            return self.n_samples
        if self.method == "inclusion-exclusion":
            return min(self.prob.need) + 1
        return grid_rows(device_order(self.prob)[0] if self.backend == "cuda" else self.prob)

    @cached_property
    def seconds(self) -> float:
        """Expected seconds of the whole job on its backend: NumPy's measured
        (:func:`expected_seconds`; Monte Carlo at :data:`RATE`), CUDA's estimated
        (:data:`CUDA_RATE`, plus a launch: :data:`HOST_SECONDS`)."""
        if self.expected is not None:
            return self.expected
        if self.backend == "cuda":
            return self.work / CUDA_RATE + HOST_SECONDS
        return expected_seconds(self.prob, self.method, self.work) if self.exact \
            else self.work / RATE

    def spans(self, parts: int = 1) -> list[tuple[int, int]]:
        """``parts`` (at most) task ranges covering the work; Monte Carlo in whole blocks
        (on CUDA, one range: the device takes any range of samples at once)."""
        if self.backend == "cuda" and parts == 1:
            return [(0, self.span)]
        if not self.exact:
            return [(s, min(s + SAMPLE_BLOCK, self.span))
                    for s in range(0, self.span, SAMPLE_BLOCK)]
        span = self.span
        if parts == 1:  # the one local span
            return [(0, span)] if span else []
        parts = max(1, min(parts, span))
        return [(self.span * i // parts, self.span * (i + 1) // parts) for i in range(parts)
                if self.span * i // parts < self.span * (i + 1) // parts]


def exact_job(prob: DealProblem, backend: str, exact: bool | None) -> DealJob | None:
    """The exact job on ``backend``: on NumPy the fastest method (:func:`expected_seconds`),
    on CUDA the grid. None past what the backend walks (NumPy: :data:`HARD_LIMIT` of the
    least work; CUDA: :data:`CUDA_HARD_LIMIT` pairs or :data:`CUDA_MAX_ROWS` rows built on
    the host); with ``exact=True`` that raises, saying so.

    Examples
    --------
    >>> exact_job(prepare(["AhKh3c", "QsQd7h"], "", "", "stud"), "numpy", None).method
    'inclusion-exclusion'
    """
    if backend == "cuda":
        pairs = costs(prob)["grid"]
        dev, _ = device_order(prob)
        # The first players' tuples are built on the host: bounded before they are built.
        rows_bound = math.prod(math.comb(len(prob.deck), k) for k in dev.need[:-1])
        if pairs > CUDA_HARD_LIMIT or rows_bound > CUDA_MAX_ROWS:
            if exact:
                raise ValueError(f"exact {prob.game!r} equity of this deal needs {pairs:.3g} "
                                 f"comparisons over {rows_bound:.3g} rows, more than the CUDA "
                                 f"engine walks; pass exact=False (Monte Carlo)")
            return None
        return DealJob(prob, "grid", None, None, pairs, "cuda")
    least, method, work, seconds = _numpy_exact(len(prob.deck), prob.need, prob.hilo)
    if least > HARD_LIMIT:
        if exact:
            raise ValueError(f"exact {prob.game!r} equity of this deal needs {least:.3g} "
                             f"comparisons; pass exact=False (Monte Carlo)")
        return None
    # What DealJob(prob, method, None, None, work, expected=seconds) sets, set at once (its
    # frozen __init__ sets each field through object.__setattr__), with ``exact``, which it
    # works out when read.
    job = object.__new__(DealJob)
    job.__dict__.update(prob=prob, method=method, n_samples=None, entropy=None, work=work,
                        backend="numpy", expected=seconds, exact=True)
    return job


@lru_cache(maxsize=1024)  # a function of the deal's shape: worked out once per shape
def _numpy_exact(d: int, need: tuple[int, ...], hilo: bool) -> tuple[float, str, float, float]:
    """``(least work, fastest method, its work, its expected seconds)`` on NumPy: the least
    work bounds what NumPy walks; the fastest method walks it (the first of equals, as
    :func:`_fastest`)."""
    figures = _figures(d, need, hilo)
    method, work, seconds = min(figures, key=lambda f: f[2])
    return min(f[1] for f in figures), method, work, seconds


def sample_job(prob: DealProblem, n_samples: int, entropy: int, backend: str) -> DealJob:
    """The Monte Carlo job: ``n_samples`` deals on ``backend``.

    Examples
    --------
    >>> sample_job(prepare(["AhKh3c", "QsQd7h"], "", "", "stud"), 1000, 7, "numpy").span
    1000
    """
    return DealJob(prob, "monte carlo", n_samples, entropy, float(n_samples * len(prob.known)),
                   backend)


def task(job: DealJob, start: int, stop: int, bar: Progress | None = None
         ) -> tuple[np.ndarray, ...]:
    """Integer totals of one task: exact ``(wins, ties, split units, high units, low units,
    deals)``; Monte Carlo ``(wins, ties, units, units squared, high units, low units)`` of
    samples ``[start, stop)`` (whole blocks, each its own stream of the seed).

    Examples
    --------
    >>> job = exact_job(prepare(["7d5h4c3s2h", "5s4h3d2c"], "", "Ad", "deuce-seven-draw"),
    ...                 "numpy", None)
    >>> [int(x[0]) if x.ndim else int(x) for x in task(job, *job.spans()[0])]
    [39, 3, 3, 0, 0, 42]
    """
    bar = bar or _NO_BAR
    prob = job.prob
    out: Sequence[Any] | None
    if job.backend == "cuda":
        from gpu_eval.equity_engine.deals import cuda_engine as cuda_deals  # noqa: PLC0415 -- imports CuPy

        if job.exact:
            out = _device_grid(prob, bar, start, stop)
        else:
            assert job.entropy is not None  # a Monte Carlo job has its seed
            out = cuda_deals.sample_counts(prob, job.entropy, start, stop, bar)
        return tuple(np.asarray(x, dtype=np.int64) for x in out)
    if job.method in ("grid", "inclusion-exclusion"):
        walk = _grid if job.method == "grid" else _inclusion_exclusion
        *totals, deals = walk(prob, bar, start, stop)
        return (*totals, np.asarray(deals, dtype=np.int64))  # the totals: int64 arrays
    else:
        seqs = np.random.SeedSequence(job.entropy).spawn(-(-job.span // SAMPLE_BLOCK))
        out = None
        for b in range(start // SAMPLE_BLOCK, -(-stop // SAMPLE_BLOCK)):
            size = min(SAMPLE_BLOCK, job.span - b * SAMPLE_BLOCK)
            part = _sample_block(prob, seqs[b], size)
            out = list(part) if out is None else [x + y for x, y in zip(out, part)]
            bar.update(size)
    assert out is not None  # a task spans one block at least
    return tuple(np.asarray(x, dtype=np.int64) for x in out)


def finish(job: DealJob, totals: Sequence[np.ndarray],
           backend: str = "numpy") -> equity_results.EquityResult:
    """The :class:`~gpu_eval.EquityResult` of the summed task totals.

    Examples
    --------
    >>> job = exact_job(prepare(["7d5h4c3s2h", "5s4h3d2c"], "", "Ad", "deuce-seven-draw"),
    ...                 "numpy", None)
    >>> finish(job, task(job, 0, job.span)).method
    'exact (grid): 42 deals'
    """
    prob = job.prob
    if job.exact:
        wins, ties, units, hu, lu, deals = totals
        n_deals = int(deals)
        assert n_deals == prob.deals(), (n_deals, prob.deals())
        res = equity_results.spot_result(wins, ties, units, prob.scale, n_deals,
                                         method=_method_text(job.method, n_deals),
                                         labels=prob.labels, backend=backend, dead=prob.dead)
        den = float(prob.scale * n_deals)
    else:
        wins, ties, units, units_sq, hu, lu = totals
        assert job.entropy is not None  # a Monte Carlo job has its seed
        res = equity_results.sampled_result(wins, ties, units, units_sq, len(prob.known),
                                            job.span, job.entropy, scale=prob.scale,
                                            labels=prob.labels, backend=backend, board="",
                                            dead=prob.dead)
        den = float(prob.scale * job.span)
    if prob.hilo:
        res = replace(res, high=equity_results.read_only(np.asarray(hu) / den),
                      low=equity_results.read_only(np.asarray(lu) / den), scoop=res.win)
    return res


@lru_cache(maxsize=256)
def _method_text(method: str, n_deals: int) -> str:
    return f"exact ({method}): {n_deals:,} deals"


def _sample_block(prob: DealProblem, seq: np.random.SeedSequence, size: int
                  ) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seq)
    n, scale = len(prob.known), prob.scale
    total = sum(prob.need)
    order = np.argsort(rng.random((size, len(prob.deck))), axis=1)[:, :total]
    dealt = np.take(ID_TO_MASK, prob.deck[order])                  # (size, total)
    hi = np.empty((1, n, size), dtype=np.uint16)
    lo = np.empty((1, n, size), dtype=np.uint8) if prob.hilo else None
    at = 0
    for i in range(n):
        m = np.full(size, prob.known[i], dtype=np.uint64)
        for j in range(prob.need[i]):
            m |= dealt[:, at + j]
        at += prob.need[i]
        s, low = strengths(prob.game, m)
        hi[0, i] = s
        if lo is not None:
            assert low is not None  # a hi/lo game's strengths have lows
            lo[0, i] = low
    t, hu, lu, _ = split(hi, lo, scale)
    t = t[0].astype(np.int64)
    whole = t == scale
    out = [whole.sum(axis=1), ((t > 0) & ~whole).sum(axis=1), t.sum(axis=1),
           (t * t).sum(axis=1)]
    if hu is not None and lu is not None:  # hi/lo
        out += [hu[0].sum(axis=1), lu[0].sum(axis=1)]
    else:
        out += [np.zeros(n, dtype=np.int64)] * 2
    return tuple(np.asarray(x, dtype=np.int64) for x in out)
