"""Equity for the games beside hold'em: Omaha 4/5/6 high and hi/lo, short deck (both orders).

:func:`gpu_eval.equity` plans every ``game`` outside the hold'em family with :func:`plan` here
(:mod:`gpu_eval.equity_engine.planner` runs its tasks).
The games:

=====================  ==========  ============================================================
game                   hole cards  rules
=====================  ==========  ============================================================
``"omaha"``            4           best hand of exactly two hole cards and three board cards
``"omaha5"``           5           the same with five hole cards (100 two-plus-three hands)
``"omaha6"``           6           six hole cards (150 two-plus-three hands)
``"omaha-hilo"``       4           high as Omaha; low 8-or-better ace-to-five, also exactly
                                   2 + 3 (chosen apart from the high); see below
``"omaha5-hilo"``      5           the same with five hole cards
``"shortdeck"``        2           36 cards 6..A; A-6-7-8-9 a straight; a flush beats a full
                                   house
``"shortdeck-triton"`` 2           as ``"shortdeck"``, and three of a kind beats a straight
=====================  ==========  ============================================================

Hi/lo pots: with a qualifying low (:mod:`gpu_eval.games.eight_or_better`) the pot is halved, the high half
divided among the players tied for the best high hand and the low half among those tied for
the best low; with no qualifying low the high hand(s) take the whole pot. Pots are counted in
integer units, ``2 * lcm(1..n)`` per pot for hi/lo (``lcm(1..n)`` otherwise), so every split
is exact and exact results are integers underneath. The result carries, per player,
``high`` and ``low`` (the pot share won through each half; ``equity = high + low``) and
``scoop`` (the probability of winning the whole pot alone, which is also ``win``); ``tie``
is then the share won from pots taken in part (a half, or a split of one), and ``wins`` /
``ties`` count those pots.

How the exact engine works
--------------------------
As for hold'em (:mod:`gpu_eval.equity_engine.api`): known cards leave the deck, every completion of the
board is enumerated (colex order; one board per orbit of the suit permutations that fix the
problem, counted with its orbit's size), each distinct hole hand of every player is evaluated
once per board -- Omaha through :func:`gpu_eval.evaluate_omaha`'s tables, which take all 60 /
100 / 150 two-plus-three hands of a row in a few lookups, short deck through the bitmask
evaluator with short-deck tables -- and the strengths are compared per matchup into integer
counts (as ``showdown_counts`` does), which :func:`gpu_eval.equity_engine.api.exact_result`
turns into the :class:`~gpu_eval.EquityResult` hold'em gives. Board chunks run on all cores.

Monte Carlo draws a matchup by weight (redrawing when two players' hands share a card), deals
"random" players from the deck, then a uniform board completion, in blocks of
``SAMPLE_BLOCK`` samples each with its own random stream from ``seed``: a seed reproduces a
result on any number of threads. Standard errors are those of the per-sample pot share.

Backends: NumPy, or with ``backend="cuda"`` (or ``"auto"`` and a usable device) the GPU
(:mod:`gpu_eval.equity_engine.board_games.cuda_engine`): exact counts are the same integers; Monte Carlo
draws from the
device's own Philox streams, so a seed reproduces a CUDA result but not NumPy's digits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gpu_eval import cards, combinatorics
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.equity_engine import board_orbits
from gpu_eval.equity_engine import results as equity_results
from gpu_eval.equity_engine.deal_check import check_dealable
from gpu_eval.equity_engine.pots import game_units, split
from gpu_eval.equity_engine.problem import (
    MAX_LISTED,
    MAX_MATCHUPS,
    Player,
    Problem,
    enumerate_matchups,
)
from gpu_eval.games import eight_or_better, registry
from gpu_eval.games.registry import OMAHA, SHORTDECK
from gpu_eval.progress import Progress

__all__ = ["exact_task", "sample_task", "ExactJob", "SampleJob", "GAMES", "HILO_GAMES", "work_of",
           "SAMPLE_BLOCK", "RATE", "EXACT_WORK_LIMIT", "listed", "matchups", "board_counts",
           "exact_work", "common"]

#: The games handled here: the shared-board games besides hold'em (Omaha, hi/lo, short deck,
#: Courchevel).
GAMES = tuple(g for g in registry.names() if registry.GAMES[g].engine == "board games")
HILO_GAMES = registry.names(OMAHA, hilo=True)
SHORTDECK_GAMES = registry.names(SHORTDECK)
#: Monte Carlo samples per block (one random stream each).
SAMPLE_BLOCK = 1 << 15
#: Work units (:func:`exact_work`: hold'em 7-card evaluations plus comparisons) per second on
#: NumPy, two cores: the hold'em engine's rate, the units weighted to match it.
RATE = 8e7
#: ``exact=None`` enumerates up to this much work on NumPy (a few seconds).
EXACT_WORK_LIMIT = 3e8
# Hand evaluations per board chunk of the exact engine (rows of one evaluator call).
_ROWS = 1 << 16
# Relative cost of one evaluation (a hold'em 7-card evaluation is 1), by hole cards.
_EVAL_COST = {2: 1.0, 4: 1.5, 5: 3.0, 6: 4.5}


def _text(ids) -> str:
    ids = [int(c) for c in np.asarray(ids).reshape(-1)]
    return " ".join(cards.RANKS[c // 4] + cards.SUITS[c % 4] for c in ids) if ids else "-"


# ---------------------------------------------------------------------------------------------
# Strengths and pots.
# ---------------------------------------------------------------------------------------------

def _high(game: str, hole_ids: np.ndarray, hole_masks: np.ndarray, board_ids: np.ndarray,
          board_masks: np.ndarray) -> np.ndarray:
    """High strengths of rows (hole, board), 0 where they share a card (``uint16``)."""
    if game in SHORTDECK_GAMES:
        from gpu_eval.evaluator.api import evaluate  # noqa: PLC0415

        m = hole_masks | board_masks
        st = np.asarray(evaluate(m, game=game, backend="numpy")).view(np.uint16).copy()
        st[(hole_masks & board_masks) != 0] = 0
        return st
    from gpu_eval.evaluator.api import evaluate_omaha  # noqa: PLC0415

    return np.asarray(evaluate_omaha(hole_ids, board_ids, game=game,
                                     backend="numpy", invalid="mask"))


def _low(hole_masks: np.ndarray, board_masks: np.ndarray) -> np.ndarray:
    """Omaha 2 + 3 low strengths (0: no qualifying low); cards assumed disjoint."""
    t = eight_or_better.low_tables()["OMAHA"]
    return np.take(t, eight_or_better.low_masks(hole_masks).astype(np.intp) * 256
                   + eight_or_better.low_masks(board_masks))




def _scale(game: str, n: int) -> int:
    return game_units(n, game in HILO_GAMES)


# ---------------------------------------------------------------------------------------------
# The jobs an exact or a sampled run is given.
# ---------------------------------------------------------------------------------------------

def listed(prob: Problem) -> Problem | None:
    """The problem with every ``"random"`` player's hands listed (every hand of the deck
    left), or None when one would hold more than :data:`~gpu_eval.equity_engine.problem.MAX_LISTED`
    (then only Monte Carlo runs)."""
    if not any(p.any_cards for p in prob.players):
        return prob
    if any(p.size(prob.deck_mask) > MAX_LISTED for p in prob.players if p.any_cards):
        return None
    return replace(prob, players=[p.listed(prob.deck_mask) for p in prob.players])


def matchups(prob: Problem) -> tuple[np.ndarray, np.ndarray] | None:
    """Every compatible matchup of a listed problem and its weight, or None beyond
    :data:`~gpu_eval.equity_engine.problem.MAX_MATCHUPS`."""
    return enumerate_matchups([p.masks for p in prob.players],
                              [p.weights for p in prob.players], MAX_MATCHUPS)


def board_counts(prob: Problem) -> tuple[int, int]:
    """``(board completions, completions per matchup)`` of a problem."""
    r_deck = bin(prob.deck_mask).count("1")
    ranged = sum(1 for p in prob.players if not p.fixed)
    h = prob.record.hole_cards
    return math.comb(r_deck, prob.k), math.comb(r_deck - h * ranged, prob.k)


def exact_work(prob: Problem, matchups: tuple[np.ndarray, np.ndarray]) -> float:
    """Work units of the exact run before suit symmetry (a bound: a hand in two ranges is
    evaluated once): evaluations (weighted by what a hand of the game costs against a
    hold'em 7-card evaluation) plus comparisons (heads-up 1,
    3 per player multiway, twice that for hi/lo: three-way hi/lo pots take about 15 times a
    heads-up comparison)."""
    n_pool = sum(len(p.masks) for p in prob.players)  # hands shared by two ranges: once
    return work_of(prob, n_pool, len(matchups[0]))


def work_of(prob: Problem, n_pool: int, n_matchups: int) -> float:
    """:func:`exact_work` from the listed problem's number of hands and of matchups."""
    n_boards, per_matchup = board_counts(prob)
    n = len(prob.players)
    cmp_cost = (1 if n == 2 else 3 * n) * (2 if prob.record.hilo else 1)
    return n_pool * n_boards * _EVAL_COST[prob.record.hole_cards] \
        + n_matchups * per_matchup * cmp_cost


def common(prob: Problem, backend: str) -> dict:
    """The fields every result of the problem carries (labels, board, dead cards)."""
    return dict(labels=prob.labels, backend=backend,
                board=_text(prob.board) if prob.board else "",
                dead=_text(prob.dead) if prob.dead else "")


def _with_hilo(res: equity_results.EquityResult, hu: np.ndarray, lu: np.ndarray, den: np.ndarray
               ) -> equity_results.EquityResult:
    return replace(res, high=equity_results.read_only(hu / den),
                   low=equity_results.read_only(lu / den), scoop=res.win)


def _listing_pool(prob: Problem) -> tuple[np.ndarray, np.ndarray, list] | None:
    """The distinct hands of a listed problem with a listed ``"random"`` player:
    ``(masks, ids, rows)``, ``rows[j]`` each of player ``j``'s hands' place among them (None:
    its own row number), or None without such a player.

    The hands start with every hand of the deck left, in the listing's colex order (as
    :meth:`~gpu_eval.equity_engine.problem.Player.listed` gives), so the other players' hands
    are placed by their colex rank and only the few outside it are sorted: ``np.unique`` of
    up to millions of listed masks would cost more than the rest of the plan. The order of
    the hands is the job's own; the counts of every matchup do not depend on it."""
    h, deck_mask = prob.record.hole_cards, prob.deck_mask
    n_deck = bin(deck_mask).count("1")
    if all(len(p.masks) != math.comb(n_deck, h) for p in prob.players):
        return None
    all_ids, all_masks = board_orbits.completions(deck_mask, h)
    full = [len(p.masks) == len(all_masks) and np.array_equal(p.masks, all_masks)
            for p in prob.players]
    if not any(full):
        return None
    where = np.full(52, n_deck, dtype=np.intp)  # a card's place in the deck (n_deck: not in it)
    where[board_orbits.deck_ids(deck_mask)] = np.arange(n_deck)
    ranks: list[tuple[np.ndarray, np.ndarray] | None] = []
    outside: list[tuple[np.ndarray, np.ndarray]] = []
    for p, is_full in zip(prob.players, full):
        if is_full:
            ranks.append(None)
            continue
        pos = np.sort(where[p.ids], axis=1)
        inside = (pos[:, -1] < n_deck) & (np.diff(pos, axis=1) > 0).all(axis=1)
        rank = combinatorics.rank(np.where(inside[:, None], pos, 0))
        if not np.array_equal(all_masks[rank[inside]], p.masks[inside]):
            return None  # not the listing's colex order after all: the general way
        ranks.append((rank, inside))
        outside.append((p.masks[~inside], p.ids[~inside]))
    rest_masks = np.concatenate([m for m, _ in outside]) if outside else all_masks[:0]
    rest_ids = np.concatenate([i for _, i in outside]) if outside else all_ids[:0]
    rest, first, inverse = np.unique(rest_masks, return_index=True, return_inverse=True)
    rows: list[np.ndarray | None] = []
    at = 0
    for r in ranks:
        if r is None:
            rows.append(None)
            continue
        rank, inside = r
        n_out = int((~inside).sum())
        rank[~inside] = len(all_masks) + inverse[at:at + n_out]
        at += n_out
        rows.append(rank)
    return (np.concatenate([all_masks, rest]), np.concatenate([all_ids, rest_ids[first]]),
            rows)


@dataclass(frozen=True, eq=False)
class ExactJob:
    """Everything an exact task needs (picklable): the distinct hole hands (``pool``), each
    matchup's pool rows, the deck, the known board and the suit symmetry group."""

    game: str
    pool: np.ndarray        # (P,) uint64 masks
    pool_ids: np.ndarray    # (P, h) uint8
    pool_idx: np.ndarray    # (M, n) intp
    weights: np.ndarray     # (M,) matchup weights
    board: tuple
    board_mask: int
    deck_mask: int
    k: int
    group: tuple
    scale: int
    per_matchup: int
    n_boards: int
    chunk: int
    common: dict

    @classmethod
    def build(cls, prob: Problem, matchups: tuple[np.ndarray, np.ndarray], per_matchup: int,
              group: tuple, common: dict) -> ExactJob:
        idx, w = matchups
        sides = prob.players
        listing = _listing_pool(prob)
        if listing is not None:
            pool, pool_ids, rows = listing
            pool_idx = np.empty(idx.shape, dtype=np.intp)
            for j, r in enumerate(rows):
                pool_idx[:, j] = idx[:, j] if r is None else r[idx[:, j]]
        else:
            all_masks = np.concatenate([s.masks for s in sides])
            all_ids = np.concatenate([s.ids for s in sides])
            pool, first, inverse = np.unique(all_masks, return_index=True,
                                             return_inverse=True)
            offsets = np.cumsum([0] + [len(s.masks) for s in sides[:-1]])
            pool_ids = all_ids[first]
            pool_idx = inverse[idx + offsets[None, :]].astype(np.intp)
        n_boards = math.comb(bin(prob.deck_mask).count("1"), prob.k)
        # Rows of one evaluator call per chunk, times the orbit share that survives.
        chunk = max(256, (_ROWS * len(group)) // len(pool))
        return cls(prob.game, pool, pool_ids, pool_idx, w, tuple(prob.board), prob.board_mask,
                   prob.deck_mask, prob.k, group, _scale(prob.game, len(sides)), per_matchup,
                   n_boards, chunk, common)

    @property
    def backend(self) -> str:
        """Where the exact tasks run: ``"numpy"`` or ``"cuda"``."""
        return self.common["backend"]

    #: An exact job (the planner's ``game board enumeration``).
    exact = True

    @property
    def work(self) -> float:
        """Evaluations plus comparisons over the suit symmetry (how a cluster sizes tasks)."""
        return (len(self.pool) * self.n_boards + len(self.weights) * self.per_matchup) \
            / len(self.group)

    def finish(self, totals: Sequence[np.ndarray]) -> equity_results.EquityResult:
        """The result of the summed task arrays ``(wins, ties, units, valid, high, low)``."""
        wins, ties, units, valid, hu, lu = totals
        w = self.weights
        res = equity_results.exact_result(wins, ties, units, valid, self.scale, w, self.per_matchup,
                              **self.common)
        if self.game in HILO_GAMES:
            den = np.float64(self.scale * self.per_matchup * w.sum())
            res = _with_hilo(res, w @ hu, w @ lu, den)
        return res


def exact_task(job: ExactJob, start: int, stop: int, bar: Progress | None = None
               ) -> tuple[np.ndarray, ...]:
    """Integer counts of every matchup over completions ``[start, stop)`` (colex order of the
    deck's k-subsets), one board per suit-symmetry orbit, weighted by the orbit's size:
    ``(wins, ties, units, valid, high units, low units)``, each ``(M, n)`` but ``valid``
    ``(M,)``. On the job's backend: NumPy here, or
    :func:`gpu_eval.equity_engine.board_games.cuda_engine.exact_task` (the same integers).

    Examples
    --------
    >>> from gpu_eval.equity_engine.problem import prepare, symmetry_group
    >>> p = prepare(["AsAhKdQc", "JhTc9s8d"], "Ac2h3s", game="omaha")
    >>> board_counts(p), exact_work(p, matchups(p))
    ((820, 820), 3280.0)
    >>> job = ExactJob.build(p, matchups(p), 820, symmetry_group(p), common(p, "numpy"))
    >>> print(job.finish(exact_task(job, 0, job.n_boards)).equity.round(8))
    [0.98902439 0.01097561]
    """
    if job.backend == "cuda":
        from gpu_eval.equity_engine.board_games import cuda_engine  # noqa: PLC0415 -- imports CuPy

        return cuda_engine.exact_task(job, start, stop, bar)
    m_count, n = job.pool_idx.shape
    out = [np.zeros((m_count, n), dtype=np.int64) for _ in range(3)] + \
        [np.zeros(m_count, dtype=np.int64)] + \
        [np.zeros((m_count, n), dtype=np.int64) for _ in range(2)]
    parts = board_orbits.orbit_parts(job.deck_mask, job.k, job.group, start, stop)
    for b_ids, b_masks, mult in parts:
        if len(b_masks):
            for acc, v in zip(out, _tally(job, b_ids, b_masks)):
                acc += mult * v
    return tuple(out)


def _tally(job: ExactJob, comp_ids: np.ndarray, comp_masks: np.ndarray
           ) -> tuple[np.ndarray, ...]:
    """Counts of every matchup on these completions (each counted once)."""
    game, pool, scale = job.game, job.pool, job.scale
    hilo = game in HILO_GAMES
    m_count, n = job.pool_idx.shape
    n_pool, c = len(pool), len(comp_masks)
    known = np.array(job.board, dtype=np.uint8)
    b_ids = np.concatenate([np.broadcast_to(known, (c, len(known))), comp_ids], axis=1)
    b_masks = comp_masks | np.uint64(job.board_mask)
    if n_pool <= 8:  # a few hands: one evaluator call each, the board array shared
        hi = np.stack([_high(game, job.pool_ids[p], pool[p], b_ids, b_masks)
                       for p in range(n_pool)])
        lo = np.stack([_low(pool[p], b_masks) for p in range(n_pool)]) if hilo else None
    else:  # many hands, fewer boards per chunk: one call for the whole (hand, board) grid
        rows_masks = np.repeat(pool, c)
        all_b_masks = np.tile(b_masks, n_pool)
        hi = _high(game, np.repeat(job.pool_ids, c, axis=0), rows_masks,
                   np.tile(b_ids, (n_pool, 1)), all_b_masks).reshape(n_pool, c)
        lo = _low(rows_masks, all_b_masks).reshape(n_pool, c) if hilo else None
    wins, ties, units, hu_t, lu_t = (np.zeros((m_count, n), dtype=np.int64) for _ in range(5))
    valid = np.zeros(m_count, dtype=np.int64)
    block = max(1, (1 << 20) // (c * n))  # matchups compared at a time
    for a in range(0, m_count, block):
        z = min(a + block, m_count)
        sel = job.pool_idx[a:z]
        t, hu, lu, ok = split(hi[sel], None if lo is None else lo[sel], scale)
        whole = t == scale
        wins[a:z] = whole.sum(axis=2)
        ties[a:z] = ((t > 0) & ~whole).sum(axis=2)
        units[a:z] = np.where(whole, 0, t).sum(axis=2)
        if hilo:
            assert hu is not None and lu is not None  # a hi/lo game splits the low half
            hu_t[a:z] = hu.sum(axis=2)
            lu_t[a:z] = lu.sum(axis=2)
        valid[a:z] = ok.sum(axis=1)
    return wins, ties, units, valid, hu_t, lu_t


# ---------------------------------------------------------------------------------------------
# Monte Carlo.
# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# Monte Carlo.
# ---------------------------------------------------------------------------------------------

def _draw_cards(rng: np.random.Generator, avail: np.ndarray, k: int, used: np.ndarray,
                any_used: bool = True) -> np.ndarray:
    """``(size, k)`` ids, unordered: a uniform k-subset of ``avail`` avoiding ``used[row]``.

    Each row draws k cards of ``avail`` with replacement, and a row whose cards repeat or hit
    ``used`` is drawn again whole, which keeps every row uniform over the subsets that avoid
    its used cards. Rows still colliding after many rounds (a nearly exhausted deck) take
    the k smallest of random keys over their free cards.
    """
    size = len(used)
    out = np.empty((size, k), dtype=np.uint8)
    if k == 0 or size == 0:
        return out
    r = len(avail)
    todo: np.ndarray | None = None  # None: every row (the first round)
    for _ in range(64):
        m = size if todo is None else len(todo)
        pick = np.take(avail, rng.integers(0, r, size=(m, k), dtype=np.uint8))
        masks = board_orbits.or_rows(pick)
        bad = np.bitwise_count(masks) != k
        if any_used:
            bad |= (masks & (used if todo is None else used[todo])) != 0
        if todo is None:
            out[:] = pick
            todo = np.flatnonzero(bad)
        else:
            good = ~bad
            out[todo[good]] = pick[good]
            todo = todo[bad]
        if not todo.size:
            return out
    assert todo is not None  # set by the first round
    keys = rng.random((len(todo), r))
    keys[(ID_TO_MASK[avail][None, :] & used[todo][:, None]) != 0] = 2.0
    out[todo] = avail[np.argpartition(keys, k - 1, axis=1)[:, :k]]
    return out


def _draw_hands(rng: np.random.Generator, size: int, sides: list[Player], ranged: list[int],
                uniform: dict[int, bool], cum: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Per ranged player, ``size`` hand indices drawn by weight; conflicting tuples redrawn."""
    out = {p: np.empty(size, dtype=np.intp) for p in ranged}
    if not ranged:
        return out

    def draw(p: int, m: int) -> np.ndarray:
        if uniform[p]:
            return rng.integers(0, len(cum[p]), size=m)
        pick = np.searchsorted(cum[p], rng.random(m) * cum[p][-1], side="right")
        return np.minimum(pick, len(cum[p]) - 1)

    todo = np.arange(size)
    stalled = 0
    need = sum(sides[p].ids.shape[1] for p in ranged)
    while todo.size:
        acc = np.zeros(todo.size, dtype=np.uint64)
        for p in ranged:
            got = draw(p, todo.size)
            out[p][todo] = got
            acc |= sides[p].masks[got]
        bad = np.bitwise_count(acc) != need
        stalled = stalled + 1 if bad.all() else 0
        if stalled > 1000:
            raise ValueError("the players' ranges almost never fit together (no compatible "
                             "matchup found in 1000 rounds of draws)")
        todo = todo[bad]
    return out




@dataclass(frozen=True, eq=False)
class SampleJob:
    """Everything a Monte Carlo task needs (picklable)."""

    game: str
    sides: list
    dealt: list
    ranged: list
    cum: dict
    uniform: dict
    avail: np.ndarray
    board: tuple
    board_mask: int
    k: int
    scale: int
    n_samples: int
    entropy: int
    common: dict

    @classmethod
    def build(cls, prob: Problem, n_samples: int, entropy: int, common: dict
              ) -> SampleJob:
        sides = prob.players
        n = len(sides)
        h = prob.record.hole_cards
        avail = board_orbits.deck_ids(prob.deck_mask)
        n_any = math.comb(len(avail), h)
        dealt = [bool(s.any_cards) or (not s.fixed and len(s.masks) == n_any
                                  and bool(np.all(s.weights == s.weights[0]))) for s in sides]
        ranged = [p for p in range(n) if not sides[p].fixed and not dealt[p]]
        cum = {p: np.cumsum(sides[p].weights) for p in ranged}
        uniform = {p: bool(np.allclose(sides[p].weights, sides[p].weights[0], rtol=1e-12,
                                       atol=0)) for p in ranged}
        # Ranges that can never be dealt together would make every sample redraw (NumPy:
        # until its stall count gives up; CUDA: MAX_TRIES times): refused before any draw.
        check_dealable([np.zeros(1, np.uint64) if d else s.masks for s, d in zip(sides, dealt)],
                       [None if (s.fixed or d) else np.cumsum(s.weights)
                        for s, d in zip(sides, dealt)], dealt, len(avail), prob.k,
                       hole_cards=h)
        return cls(prob.game, sides, dealt, ranged, cum, uniform, avail, tuple(prob.board),
                   prob.board_mask, prob.k, _scale(prob.game, n), n_samples, entropy, common)

    #: A sampled job (the planner's ``game monte carlo``), in blocks of this many samples.
    exact = False
    block = SAMPLE_BLOCK

    @property
    def backend(self) -> str:
        """Where the samples are drawn: ``"numpy"`` or ``"cuda"``."""
        return self.common["backend"]

    def finish(self, totals: Sequence[np.ndarray]) -> equity_results.EquityResult:
        """The result of the summed task arrays (see :func:`sample_task`)."""
        wins, ties, units, units_sq, hu, lu = (np.asarray(x) for x in totals)
        scale, ns, n = self.scale, self.n_samples, len(self.sides)
        res = equity_results.sampled_result(wins, ties, units, units_sq, n, ns, self.entropy, scale=scale,
                                **self.common)
        if self.game in HILO_GAMES:
            res = _with_hilo(res, hu, lu, np.float64(scale * ns))
        return res


def sample_task(job: SampleJob, start: int, stop: int, bar: Progress | None = None
                ) -> tuple[np.ndarray, ...]:
    """Monte Carlo samples ``[start, stop)`` (within one block of ``SAMPLE_BLOCK``, whose
    random stream is ``SeedSequence(entropy, spawn_key=(start // SAMPLE_BLOCK,))``):
    ``(wins, ties, units, units squared, high units, low units)`` per player. With the CUDA
    backend, :func:`gpu_eval.equity_engine.board_games.cuda_engine.sample_counts` (its own random streams;
    any range)."""
    if job.backend == "cuda":
        from gpu_eval.equity_engine.board_games import cuda_engine  # noqa: PLC0415 -- imports CuPy

        return cuda_engine.sample_counts(job, start, stop, bar)
    game, sides = job.game, job.sides
    n = len(sides)
    h = registry.GAMES[game].hole_cards
    hilo = game in HILO_GAMES
    size = stop - start
    rng = np.random.default_rng(np.random.SeedSequence(job.entropy,
                                                       spawn_key=(start // SAMPLE_BLOCK,)))
    pick = _draw_hands(rng, size, sides, job.ranged, job.uniform, job.cum)
    hole_ids: list[Any] = [None] * n
    hole_m: list[Any] = [None] * n
    used = np.zeros(size, dtype=np.uint64)
    for p in range(n):
        if sides[p].fixed:
            hole_ids[p] = np.broadcast_to(sides[p].ids[0], (size, h))
            hole_m[p] = np.broadcast_to(sides[p].masks[:1], (size,))
        elif p in pick:
            hole_ids[p] = sides[p].ids[pick[p]]
            hole_m[p] = sides[p].masks[pick[p]]
            used |= hole_m[p]
    for p in range(n):
        if job.dealt[p]:
            hole_ids[p] = _draw_cards(rng, job.avail, h, used)
            hole_m[p] = board_orbits.or_rows(hole_ids[p])
            used |= hole_m[p]
    comp = _draw_cards(rng, job.avail, job.k, used,
                       any_used=bool(job.ranged) or any(job.dealt))
    known = np.array(job.board, dtype=np.uint8)
    b_ids = np.concatenate([np.broadcast_to(known, (size, len(known))), comp], axis=1)
    b_m = board_orbits.or_rows(comp) | np.uint64(job.board_mask)
    hi = np.stack([_high(game, np.ascontiguousarray(hole_ids[p]), hole_m[p], b_ids, b_m)
                   for p in range(n)])[None]
    lo = np.stack([_low(hole_m[p], b_m) for p in range(n)])[None] if hilo else None
    t, hu, lu, _ = split(hi, lo, job.scale)
    t = t[0].astype(np.int64)
    whole = t == job.scale
    zero = np.zeros(n, dtype=np.int64)
    return (whole.sum(axis=1), ((t > 0) & ~whole).sum(axis=1), t.sum(axis=1),
            (t * t).sum(axis=1), hu[0].sum(axis=1) if hu is not None else zero,
            lu[0].sum(axis=1) if lu is not None else zero.copy())
