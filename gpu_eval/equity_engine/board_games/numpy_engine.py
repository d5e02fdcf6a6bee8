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

from gpu_eval import cards
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.equity_engine import board_orbits, enumerate_boards
from gpu_eval.equity_engine import problem as equity_problem
from gpu_eval.equity_engine import results as equity_results
from gpu_eval.equity_engine.holdem.numpy_engine import pot_units
from gpu_eval.games import eight_or_better, registry
from gpu_eval.games.registry import HOLDEM, OMAHA, SHORTDECK

__all__ = ["plan", "exact_task", "sample_task", "ExactPlan", "SamplePlan", "GAMES",
           "HOLE_CARDS", "HILO_GAMES", "SHORT_DECK", "SAMPLE_BLOCK", "check_game", "pots"]

#: The games handled here: the Omaha and short-deck families of the registry.
GAMES = tuple(g for g in registry.names() if registry.GAMES[g].family in (OMAHA, SHORTDECK))
#: Hole cards per game handled here.
HOLE_CARDS = {g: registry.GAMES[g].hole_cards for g in GAMES}
HILO_GAMES = registry.names(OMAHA, hilo=True)
SHORTDECK_GAMES = registry.names(SHORTDECK)
#: The range syntax of each game: Omaha's own, else hold'em's (short deck: ranks 6..A).
_RANGE_GAME = {g: g if registry.GAMES[g].is_omaha else HOLDEM for g in GAMES}
#: The 36-card short deck (6..A) as a hand mask.
SHORT_DECK = int(np.bitwise_or.reduce(ID_TO_MASK[16:]))
_LOW_CARDS = int(np.bitwise_or.reduce(ID_TO_MASK[:16]))
#: Monte Carlo samples per block (one random stream each).
SAMPLE_BLOCK = 1 << 15
# Hand evaluations per board chunk of the exact engine (rows of one evaluator call).
_ROWS = 1 << 16
# Relative cost of one evaluation (a hold'em 7-card evaluation is 1) for exact=None; a
# matchup-board comparison costs 1 heads-up, 3 per player multiway, twice that for hi/lo
# (measured: three-way hi/lo pots take about 15 times a heads-up comparison).
_EVAL_COST = {2: 1.0, 4: 1.5, 5: 3.0, 6: 4.5}


def _text(ids) -> str:
    ids = [int(c) for c in np.asarray(ids).reshape(-1)]
    return " ".join(cards.RANKS[c // 4] + cards.SUITS[c % 4] for c in ids) if ids else "-"


def _ids_of_mask(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> (16 * (c % 4) + c // 4) & 1]


# ---------------------------------------------------------------------------------------------
# Inputs.
# ---------------------------------------------------------------------------------------------

def check_game(game: str) -> None:
    """Raise ``ValueError`` listing the known games when ``game`` is not one.

    Examples
    --------
    >>> check_game("omaha")
    >>> check_game("pineapple")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown game 'pineapple': expected one of holdem, shortdeck, ..., courchevel-hilo
    """
    if game not in HOLE_CARDS:
        raise ValueError(f"unknown game {game!r}: expected one of "
                         f"{', '.join((HOLDEM,) + GAMES)}")


def _card_list(x, what: str, game: str) -> list[int]:
    """Card ids of a board or dead-card argument (text, ids or masks); no repeats; in the
    game's deck."""
    ids = equity_problem.card_set(x, what)
    if game in SHORTDECK_GAMES:
        low = [c for c in ids if c < 16]
        if low:
            raise ValueError(f"{what}: card {_text(low[:1])} is not in the 36-card short deck "
                             f"(ranks 6 to A)")
    return ids


@dataclass
class _Side:
    """One player: a label and its hole hands (``(M, h)`` ids, masks, weights).

    ``anyh > 0``: an Omaha ``random`` player, every ``anyh``-card hand of the cards left with
    equal weights, not enumerated (PLO6 has 20 million); Monte Carlo deals it from the deck,
    and :func:`_materialize` lists its hands when an exact run needs them.
    """

    label: str
    ids: np.ndarray | None
    masks: np.ndarray | None
    weights: np.ndarray | None
    anyh: int = 0

    @property
    def fixed(self) -> bool:
        return not self.anyh and len(self.masks) == 1

    def without(self, mask: int) -> _Side:
        if self.anyh:  # dealt from what the deck leaves: nothing to remove
            return self
        keep = (self.masks & np.uint64(mask)) == 0
        return _Side(self.label, self.ids[keep], self.masks[keep], self.weights[keep])

    def size(self, deck_mask: int) -> int:
        """Hands it holds (of the deck left, for a ``random`` Omaha player)."""
        if self.anyh:
            return math.comb(bin(deck_mask).count("1"), self.anyh)
        return len(self.masks)


#: Most hands a ``random`` Omaha player is enumerated into for an exact run.
_MAX_ANY = 2_000_000


def _materialize(prob: _Problem) -> bool:
    """List the hands of ``random`` Omaha players (every hand of the deck left); False when
    there would be more than :data:`_MAX_ANY` (then only Monte Carlo can run)."""
    for i, s in enumerate(prob.sides):
        if s.anyh:
            if s.size(prob.deck_mask) > _MAX_ANY:
                return False
            n_deck = bin(prob.deck_mask).count("1")
            ids = board_orbits.deck_ids(prob.deck_mask)[board_orbits.subsets(n_deck, s.anyh)]
            prob.sides[i] = _Side(s.label, ids, board_orbits.or_rows(ids), np.ones(len(ids)))
    return True


def _fixed_side(ids: list[int], who: str, label: str, game: str) -> _Side:
    h = HOLE_CARDS[game]
    if len(ids) != h:
        raise ValueError(f"{who} ({label!r}): {len(ids)} hole card{'s' * (len(ids) != 1)}; "
                         f"{game!r} deals {h}")
    if len(set(ids)) != len(ids):
        dup = next(c for c in ids if ids.count(c) > 1)
        raise ValueError(f"{who} ({label!r}): card {_text([dup])} is used twice")
    if game in SHORTDECK_GAMES and min(ids) < 16:
        raise ValueError(f"{who} ({label!r}): card {_text([min(ids)])} is not in the 36-card "
                         f"short deck (ranks 6 to A)")
    arr = np.array([sorted(ids)], dtype=np.uint8)
    return _Side(label, arr, board_orbits.or_rows(arr), np.ones(1))


def _range_side(r: Any, who: str, label: str, game: str) -> _Side:
    h = HOLE_CARDS[game]
    ids = np.asarray(r.combos, dtype=np.uint8)
    if ids.ndim != 2 or ids.shape[1] != h:
        raise ValueError(f"{who} ({label!r}): a range of {ids.shape[-1]}-card hands; {game!r} "
                         f"deals {h}")
    side = _Side(label, ids, np.asarray(r.masks, dtype=np.uint64),
                 np.asarray(r.weights, dtype=np.float64))
    if game in SHORTDECK_GAMES:
        side = side.without(_LOW_CARDS)
    if len(side.masks) == 0:
        raise ValueError(f"{who}: range {label!r} holds no {game!r} hands")
    return side


def _as_side(spec: Any, who: str, game: str) -> _Side:
    from gpu_eval import ranges  # noqa: PLC0415 -- light, but only needed here

    h = HOLE_CARDS[game]
    range_game = _RANGE_GAME[game]
    if hasattr(spec, "combos") and hasattr(spec, "weights") and hasattr(spec, "masks"):
        return _range_side(spec, who, equity_problem.range_label(spec), game)
    if isinstance(spec, str):
        text = spec.strip()
        if not text:
            raise ValueError(f"{who}: empty hand or range text")
        if range_game != HOLDEM and text.lower() in ("random", "any"):
            return _Side(text, None, None, None, anyh=h)
        try:
            ids = [int(c) for c in np.atleast_1d(cards.parse(text)).reshape(-1)]
        except ValueError:
            ids = None
        if ids is not None and (len(ids) >= h or range_game == HOLDEM):
            return _fixed_side(ids, who, text, game)
        try:
            r = ranges.Range(text, game=range_game)
        except ValueError as exc:
            raise ValueError(f"{who} ({text!r}): {exc}") from None
        return _range_side(r, who, text, game)
    if isinstance(spec, (np.ndarray, list, tuple, np.integer)) and not isinstance(spec, bool):
        arr = np.asarray(spec)
        if arr.dtype == np.uint64 and arr.ndim == 0:
            return _fixed_side(_ids_of_mask(int(arr)), who, cards.format(arr), game)
        if arr.dtype.kind in "iu" and arr.ndim in (1, 2):
            if arr.size and (arr.min() < 0 or arr.max() > 51):
                raise ValueError(f"{who}: card id out of range 0..51 in {arr.tolist()}")
            if arr.ndim == 1:
                return _fixed_side([int(c) for c in arr], who, _text(arr).replace(" ", ""),
                                   game)
            if arr.shape[1] != h:
                raise ValueError(f"{who}: hands of {arr.shape[1]} cards; {game!r} deals {h}")
            rows = np.sort(arr.astype(np.uint8), axis=1)
            m = board_orbits.or_rows(rows)
            bad = np.flatnonzero(np.bitwise_count(m) != h)
            if bad.size:
                raise ValueError(f"{who}: hand row {int(bad[0])} uses a card twice")
            m, first = np.unique(m, return_index=True)
            label = _text(rows[0]).replace(" ", "") if len(m) == 1 else f"<{len(m)} hands>"
            return _Side(label, rows[first], m, np.ones(len(m)))
    raise TypeError(f"{who} must be a hand or range as text, a Range, or card ids of shape "
                    f"({h},); got {type(spec).__name__}")


@dataclass
class _Problem:
    game: str
    sides: list[_Side]
    board: list[int]
    dead: list[int]
    deck_mask: int
    k: int

    @property
    def board_mask(self) -> int:
        return int(board_orbits.or_rows(np.array([self.board], dtype=np.uint8))[0]) if self.board else 0

    @property
    def dead_mask(self) -> int:
        return int(board_orbits.or_rows(np.array([self.dead], dtype=np.uint8))[0]) if self.dead else 0


def _prepare(players: Any, board: Any, dead: Any, game: str) -> _Problem:
    if isinstance(players, (str, np.ndarray)) or not isinstance(players, Sequence):
        raise TypeError("players must be a list of hands or ranges, such as "
                        "['AsAhKdQc', 'JhTc9s8d']")
    n = len(players)
    if not 2 <= n <= equity_problem.MAX_PLAYERS:
        raise ValueError(f"equity needs 2 to {equity_problem.MAX_PLAYERS} players, got {n}")
    record = registry.get(game)
    h = record.hole_cards
    b = _card_list(board, "the board", game)
    if len(b) not in record.board_sizes:
        raise ValueError(f"the board has {len(b)} card{'s' * (len(b) != 1)} ({_text(b)}); a "
                         f"{game!r} board has {equity_problem.sizes_text(record.board_sizes)} cards")
    d = _card_list(dead, "the dead cards", game)
    both = sorted(set(b) & set(d))
    if both:
        raise ValueError(f"card {_text(both[:1])} is both on the board and in the dead cards")
    deck_size, full = record.deck_size, record.full_board
    need = h * n + full + len(d)
    if need > deck_size:
        raise ValueError(f"too many players for the deck: {n} players of {game!r} need {h * n} "
                         f"hole cards, plus {full} board cards and {len(d)} dead cards: {need} > "
                         f"{deck_size}")
    sides = [_as_side(spec, f"player {i + 1}", game) for i, spec in enumerate(players)]
    owner = {c: "the board" for c in b}
    owner.update({c: "the dead cards" for c in d})
    for i, s in enumerate(sides):
        if s.fixed:
            for c in s.ids[0].tolist():
                if c in owner:
                    raise ValueError(f"card {_text([c])} is used twice: by player {i + 1} "
                                     f"({s.label}) and {owner[c]}")
                owner[c] = f"player {i + 1} ({s.label})"
    known = int(board_orbits.or_rows(np.array([list(owner)], dtype=np.uint8))[0]) if owner else 0
    changed = True
    while changed:  # a range left with one hand is a known hand whose cards leave the others
        changed = False
        for i, s in enumerate(sides):
            if s.fixed or s.anyh:
                continue
            s2 = s.without(known)
            if len(s2.masks) == 0:
                raise ValueError(f"player {i + 1}'s range {s.label!r} is empty after removing "
                                 f"the board, dead cards and other players' known hands "
                                 f"({_text(_ids_of_mask(known))})")
            sides[i] = s2
            if s2.fixed:
                known |= int(s2.masks[0])
                changed = True
    fixed = 0
    for s in sides:
        if s.fixed:
            fixed |= int(s.masks[0])
    full = SHORT_DECK if game in SHORTDECK_GAMES else enumerate_boards.FULL_DECK
    bm = int(board_orbits.or_rows(np.array([b], dtype=np.uint8))[0]) if b else 0
    dm = int(board_orbits.or_rows(np.array([d], dtype=np.uint8))[0]) if d else 0
    deck = full & ~(bm | dm | fixed)
    return _Problem(game, sides, b, d, deck, record.cards_to_come(len(b)))


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


def _pots(hi: np.ndarray, lo: np.ndarray | None, scale: int
          ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray]:
    """Pot units won per player on each board: ``hi`` (and ``lo``) ``(m, n, c)`` strengths.

    Returns ``(total, high units, low units, valid)``: ``(m, n, c)`` int32 units (the high
    and low parts only for hi/lo) and the ``(m, c)`` boards that share no card with any
    player (strength 0 marks a shared card).
    """
    n = hi.shape[1]
    valid = hi.min(axis=1) != 0
    best = hi.max(axis=1)
    win = (hi == best[:, None, :]) & valid[:, None, :]
    cnt = win.sum(axis=1, dtype=np.int32)
    np.maximum(cnt, 1, out=cnt)
    share = np.zeros(n + 1, dtype=np.int32)
    share[1:] = scale // np.arange(1, n + 1)
    if lo is None:
        return win * share[cnt][:, None, :], None, None, valid
    lbest = lo.max(axis=1)
    has_low = (lbest > 0) & valid
    lwin = (lo == lbest[:, None, :]) & has_low[:, None, :]
    lcnt = np.maximum(lwin.sum(axis=1, dtype=np.int32), 1)
    half = share // 2  # scale is even: 2 * lcm(1..n)
    hshare = np.where(has_low, half[cnt], share[cnt])
    hu = win * hshare[:, None, :]
    lu = lwin * half[lcnt][:, None, :]
    return hu + lu, hu, lu, valid


#: Pot units of every player per deal, shared with the board-less games (``deals.py``).
pots = _pots


def _scale(game: str, n: int) -> int:
    return 2 * pot_units(n) if game in HILO_GAMES else pot_units(n)


def _group(prob: _Problem) -> tuple[tuple[int, ...], ...]:
    """Suit permutations that keep the known cards and map each range onto itself."""
    known = [int(s.masks[0]) for s in prob.sides if s.fixed]
    group = enumerate_boards.stabilizer(known + [prob.board_mask, prob.dead_mask])
    for s in prob.sides:
        if s.fixed or s.anyh:  # a random player maps onto itself
            continue
        group = enumerate_boards.keeping_range(group, s.masks, s.weights)
    return group


# ---------------------------------------------------------------------------------------------
# equity()
# ---------------------------------------------------------------------------------------------
def plan(players: Sequence[Any], board: Any = "", dead: Any = "", *,
         exact: bool | None = None, samples: int | None = None,
         seed: int | None = None, game: str = OMAHA, backend: str = "auto"
         ) -> ExactPlan | SamplePlan:
    """Validate the input and decide exact or Monte Carlo for this family (the planner's
    ``game board enumeration`` and ``game monte carlo`` strategies apply by its answer).

    The plan's tasks (:func:`exact_task` over board spans ``[a, b)`` of
    ``range(plan.n_boards)``, or :func:`sample_task` over blocks of ``SAMPLE_BLOCK`` samples)
    return integer arrays; their elementwise sum, passed to ``plan.finish``, is the result.
    :mod:`gpu_eval.equity_engine.planner` runs them in this process or on a cluster.

    Examples
    --------
    >>> p = plan(["AsAhKdQc", "JhTc9s8d"], board="Ac2h3s", game="omaha")
    >>> type(p).__name__, p.n_boards
    ('ExactPlan', 820)
    >>> print(p.finish(exact_task(p, 0, p.n_boards)).equity.round(8))
    [0.98902439 0.01097561]
    """
    check_game(game)
    from gpu_eval import backend_choice  # noqa: PLC0415

    if backend not in backend_choice.BACKENDS:
        raise ValueError(f"backend={backend!r}: expected one of {', '.join(backend_choice.BACKENDS)}")
    samples = equity_problem.check_options(exact, samples, seed)
    prob = _prepare(players, board, dead, game)
    sides = prob.sides
    h = HOLE_CARDS[game]
    r_deck = bin(prob.deck_mask).count("1")
    n_boards = math.comb(r_deck, prob.k)
    ranged = [i for i, s in enumerate(sides) if not s.fixed]
    per_matchup = math.comb(r_deck - h * len(ranged), prob.k)
    upper = math.prod(s.size(prob.deck_mask) for s in sides)
    limit = equity_problem.EXACT_WORK_LIMIT
    matchups = None
    if exact is not False and (exact or upper * per_matchup <= 20 * limit):
        if _materialize(prob):
            matchups = _matchups(sides, equity_problem.MAX_MATCHUPS)
        if matchups is None and exact:
            raise ValueError(f"exact=True: more than {equity_problem.MAX_MATCHUPS:,} matchups to "
                             f"enumerate; pass exact=False for Monte Carlo")
    elif upper <= 2_000_000 and _materialize(prob):
        matchups = _matchups(sides, equity_problem.MAX_MATCHUPS)
    if matchups is not None and len(matchups[0]) == 0:
        labels = ", ".join(repr(s.label) for s in sides)
        raise ValueError(f"no matchup is possible: the players' hands ({labels}) cannot all "
                         f"be dealt at once without sharing a card")
    common = dict(labels=tuple(s.label for s in sides), backend="numpy",
                  board=_text(prob.board) if prob.board else "",
                  dead=_text(prob.dead) if prob.dead else "")
    if matchups is not None and exact is not False:
        n_pool = len(np.unique(np.concatenate([s.masks for s in sides])))
        cmp_cost = (1 if len(sides) == 2 else 3 * len(sides)) * (2 if game in HILO_GAMES else 1)
        work = n_pool * n_boards * _EVAL_COST[h] + len(matchups[0]) * per_matchup * cmp_cost
        if exact or work <= limit * 8:  # the symmetry cannot shrink it more than that much
            group = _group(prob)
            if exact or work / len(group) <= limit:
                common["backend"] = backend_choice.resolve(backend)
                return ExactPlan.build(prob, matchups, per_matchup, group, common)
    n_samples = samples if samples is not None else equity_problem.DEFAULT_SAMPLES
    common["backend"] = backend_choice.resolve(backend)
    return SamplePlan.build(prob, n_samples, equity_problem.entropy_of(seed), common)


def _matchups(sides: list[_Side], cap: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Every compatible matchup (one hand per player, no shared card) and its weight."""
    idx = np.zeros((1, 0), dtype=np.int32)
    acc = np.zeros(1, dtype=np.uint64)
    w = np.ones(1)
    for s in sides:
        if len(idx) * len(s.masks) > 2 * cap:
            return None
        rows, cols = np.nonzero((acc[:, None] & s.masks[None, :]) == 0)
        if len(rows) > cap:
            return None
        idx = np.column_stack([idx[rows], cols.astype(np.int32)])
        acc = acc[rows] | s.masks[cols]
        w = w[rows] * s.weights[cols]
    return idx, w


def _with_hilo(res: equity_results.EquityResult, hu: np.ndarray, lu: np.ndarray, den: np.ndarray
               ) -> equity_results.EquityResult:
    return replace(res, high=equity_results.read_only(hu / den),
                   low=equity_results.read_only(lu / den), scoop=res.win)


@dataclass(frozen=True, eq=False)
class ExactPlan:
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
    def build(cls, prob: _Problem, matchups: tuple[np.ndarray, np.ndarray], per_matchup: int,
              group: tuple, common: dict) -> ExactPlan:
        idx, w = matchups
        sides = prob.sides
        all_masks = np.concatenate([s.masks for s in sides])
        all_ids = np.concatenate([s.ids for s in sides])
        pool, first, inverse = np.unique(all_masks, return_index=True, return_inverse=True)
        offsets = np.cumsum([0] + [len(s.masks) for s in sides[:-1]])
        n_boards = math.comb(bin(prob.deck_mask).count("1"), prob.k)
        # Rows of one evaluator call per chunk, times the orbit share that survives.
        chunk = max(256, (_ROWS * len(group)) // len(pool))
        return cls(prob.game, pool, all_ids[first], inverse[idx + offsets[None, :]].astype(
            np.intp), w, tuple(prob.board), prob.board_mask, prob.deck_mask, prob.k, group,
            _scale(prob.game, len(sides)), per_matchup, n_boards, chunk, common)

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


def exact_task(job: ExactPlan, start: int, stop: int) -> tuple[np.ndarray, ...]:
    """Integer counts of every matchup over completions ``[start, stop)`` (colex order of the
    deck's k-subsets), one board per suit-symmetry orbit, weighted by the orbit's size:
    ``(wins, ties, units, valid, high units, low units)``, each ``(M, n)`` but ``valid``
    ``(M,)``. On the plan's backend: NumPy here, or
    :func:`gpu_eval.equity_engine.board_games.cuda_engine.exact_task`
    (the same integers)."""
    if job.backend == "cuda":
        from gpu_eval.equity_engine.board_games import cuda_engine as cuda_omaha_shortdeck  # noqa: PLC0415 -- imports CuPy

        return cuda_omaha_shortdeck.exact_task(job, start, stop)
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


def _tally(job: ExactPlan, comp_ids: np.ndarray, comp_masks: np.ndarray
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
        t, hu, lu, ok = _pots(hi[sel], None if lo is None else lo[sel], scale)
        whole = t == scale
        wins[a:z] = whole.sum(axis=2)
        ties[a:z] = ((t > 0) & ~whole).sum(axis=2)
        units[a:z] = np.where(whole, 0, t).sum(axis=2)
        if hilo:
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
    todo = None  # None: every row (the first round)
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
    keys = rng.random((len(todo), r))
    keys[(ID_TO_MASK[avail][None, :] & used[todo][:, None]) != 0] = 2.0
    out[todo] = avail[np.argpartition(keys, k - 1, axis=1)[:, :k]]
    return out


def _draw_hands(rng: np.random.Generator, size: int, sides: list[_Side], ranged: list[int],
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
class SamplePlan:
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
    def build(cls, prob: _Problem, n_samples: int, entropy: int, common: dict
              ) -> SamplePlan:
        sides = prob.sides
        n = len(sides)
        h = HOLE_CARDS[prob.game]
        avail = board_orbits.deck_ids(prob.deck_mask)
        n_any = math.comb(len(avail), h)
        dealt = [bool(s.anyh) or (not s.fixed and len(s.masks) == n_any
                                  and bool(np.all(s.weights == s.weights[0]))) for s in sides]
        ranged = [p for p in range(n) if not sides[p].fixed and not dealt[p]]
        cum = {p: np.cumsum(sides[p].weights) for p in ranged}
        uniform = {p: bool(np.allclose(sides[p].weights, sides[p].weights[0], rtol=1e-12,
                                       atol=0)) for p in ranged}
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


def sample_task(job: SamplePlan, start: int, stop: int) -> tuple[np.ndarray, ...]:
    """Monte Carlo samples ``[start, stop)`` (within one block of ``SAMPLE_BLOCK``, whose
    random stream is ``SeedSequence(entropy, spawn_key=(start // SAMPLE_BLOCK,))``):
    ``(wins, ties, units, units squared, high units, low units)`` per player. With the CUDA
    backend, :func:`gpu_eval.equity_engine.board_games.cuda_engine.sample_counts` (its own random streams;
    any range)."""
    if job.backend == "cuda":
        from gpu_eval.equity_engine.board_games import cuda_engine as cuda_omaha_shortdeck  # noqa: PLC0415 -- imports CuPy

        return cuda_omaha_shortdeck.sample_counts(job, start, stop)
    game, sides = job.game, job.sides
    n = len(sides)
    h = HOLE_CARDS[game]
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
    t, hu, lu, _ = _pots(hi, lo, job.scale)
    t = t[0].astype(np.int64)
    whole = t == job.scale
    zero = np.zeros(n, dtype=np.int64)
    return (whole.sum(axis=1), ((t > 0) & ~whole).sum(axis=1), t.sum(axis=1),
            (t * t).sum(axis=1), hu[0].sum(axis=1) if hilo else zero,
            lu[0].sum(axis=1) if hilo else zero.copy())
