"""Exact preflop showdown counts by rank class: the NumPy fast path for a few matchups.

With no board card known, the suits of a board matter only where somebody can make a flush.
For one matchup (every player's two cards fixed) and a suit ``s``, a flush needs at least
``t_s = 5 - max_p (player p's cards of suit s)`` board cards of that suit. That is 3 or more,
so on any board at most one suit can matter, and the boards split into:

* **flush boards**: some suit ``s`` holds ``j >= t_s`` of the five board cards. Such a board
  is fixed, up to suits that cannot matter, by ``s``, the ``j`` ranks of suit ``s`` and the
  multiset of the other ``5 - j`` ranks. That class holds ``prod_r C(a'_r, m_r)`` boards
  (``a'_r``: cards of rank ``r`` left outside suit ``s``; ``m_r``: how many the class takes).
  A player's strength there is the better of his flush (the flush table of his suit-``s``
  ranks with the class's suited ranks, 0 under five cards) and his strength without flushes
  on the class's ranks (a full house or quads beat a flush).
* **every other board**: nobody can make a flush, so the result depends only on the multiset
  of the five board ranks. There are 6,175 such rank classes, each holding
  ``prod_r C(a_r, m_r)`` boards minus its flush boards.

A hand's strength without flushes depends only on its ranks: it is evaluated once per hole-rank
pair and rank class (on a stand-in hand with those ranks and no flush) and cached. So a matchup
costs table lookups over about 41,000 classes, and no board is evaluated: AhKh vs QsQd takes
a few milliseconds instead of 1,712,304 evaluations per player. The counts are the exact
integers that enumerating every board gives, and the tests check the two against each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from math import comb, lcm

import numpy as np

from gpu_eval.card_spelling import RANK_POW5
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.evaluator.tables import bitmask_tables

_BINOM = np.array([[comb(a, m) for m in range(6)] for a in range(5)], dtype=np.int64)
_RANK_BITS = np.arange(13, dtype=np.uint64)


@cache
def _multisets(size: int) -> np.ndarray:
    """Every multiset of ``size`` ranks, at most 4 of a rank, as ``(N, 13)`` rank counts."""
    rows = [np.bincount(np.array(c, dtype=np.intp), minlength=13)
            for c in combinations_with_replacement(range(13), size)]
    out = np.array(rows, dtype=np.int64).reshape(-1, 13)
    out = out[(out <= 4).all(axis=1)]
    out.flags.writeable = False
    return out


def _available(deck_mask: int) -> np.ndarray:
    """``(4, 13)`` 0/1: card (rank r, suit s) is in the deck."""
    lanes = np.array([(deck_mask >> (16 * s)) & 0x1FFF for s in range(4)], dtype=np.int64)
    return (lanes[:, None] >> np.arange(13)) & 1


def _stand_in_masks(counts: np.ndarray) -> np.ndarray:
    """Hand masks with the given rank counts ``(N, 13)`` and no flush: the cards, taken in rank
    order, get suits 0, 1, 2, 3, 0, ... (at most 2 of a suit in 7 cards; a rank's copies get
    different suits). Ranks held more than 4 times are cut to 4 (such rows count 0 boards)."""
    start = np.cumsum(counts, axis=1) - counts
    masks = np.zeros(len(counts), dtype=np.uint64)
    for copy in range(4):
        suit = ((start + copy) % 4).astype(np.uint64)
        bits = np.left_shift(np.uint64(1), suit * np.uint64(16) + _RANK_BITS)
        masks |= np.where(counts > copy, bits, np.uint64(0)).sum(axis=1, dtype=np.uint64)
    return masks


@lru_cache(maxsize=1)
def _rank_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 5-card rank multisets, their keys, and the order that sorts the keys."""
    ranks5 = _multisets(5)
    keys = ranks5 @ RANK_POW5
    order = np.argsort(keys)
    return ranks5, keys[order], order


def _class_of(keys: np.ndarray) -> np.ndarray:
    """Row of :func:`_rank_table` of each rank-multiset key."""
    _, sorted_keys, order = _rank_table()
    return order[np.searchsorted(sorted_keys, keys)]


@cache
def _all_suited_subsets(j: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_suited_subsets` of the full 13-rank lane."""
    subsets = np.array(list(combinations(range(13), j)), dtype=np.intp).reshape(-1, j)
    masks = np.bitwise_or.reduce(np.left_shift(1, subsets), axis=1)  # intp: fast to index with
    keys = RANK_POW5[subsets].sum(axis=1)[:, None] + (_multisets(5 - j) @ RANK_POW5)[None, :]
    classes = _class_of(keys.ravel()).reshape(keys.shape)
    masks.flags.writeable = classes.flags.writeable = False
    return masks, classes


@lru_cache(maxsize=256)
def _suited_subsets(lane: int, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Every j-subset of the ranks in a 13-bit ``lane`` as rank masks, and the rank class of
    each subset joined with each multiset of ``5 - j`` other ranks: ``(S,)`` and ``(S, R)``.

    The rows of the full lane's subsets that lie in ``lane`` (in the same order: the full
    lane's subsets in lexicographic order, filtered); a matchup misses this cache often,
    and a filter costs far less than searching every class key again.
    """
    masks, classes = _all_suited_subsets(j)
    keep = np.flatnonzero((masks & ~lane) == 0)
    masks, classes = masks[keep], classes[keep]
    masks.flags.writeable = classes.flags.writeable = False
    return masks, classes


@cache
def _full_deck_boards_per_rank_class() -> np.ndarray:
    """:func:`_boards_per_rank_class` of a deck with four cards of every rank."""
    return np.prod(_BINOM[4][_rank_table()[0]], axis=1)


@lru_cache(maxsize=1024)
def _boards_per_rank_class(per_rank: tuple[int, ...]) -> np.ndarray:
    """Boards with each 5-card rank multiset, ``prod_r C(a_r, m_r)``, when the deck holds
    ``per_rank[r]`` cards of rank ``r``."""
    # The full deck's products with the factors of the few short ranks swapped: a division
    # that is exact (C(4, m_r) is one of the product's factors, never 0 as m_r <= 4).
    ranks5 = _rank_table()[0]
    out = _full_deck_boards_per_rank_class().copy()
    for r, a in enumerate(per_rank):
        if a != 4:
            m = ranks5[:, r]
            out //= _BINOM[4][m]
            out *= _BINOM[a][m]
    out.flags.writeable = False
    return out


@cache
def _plain_strengths(hole_ranks: tuple[int, ...]) -> np.ndarray:
    """Strength, without flushes, of the hole ranks plus each 5-card rank multiset (a hand's
    result on a board where no flush is possible depends on nothing else)."""
    ranks5 = _rank_table()[0]
    held = np.bincount(np.array(hole_ranks, dtype=np.intp), minlength=13)
    out = evaluate_masks(_stand_in_masks(ranks5 + held))
    out.flags.writeable = False
    return out


def _flush_classes(avail: np.ndarray, thresholds: Sequence[int]):
    """The flush-board classes, per ``(suit, j)`` block: the suit, ``j``, the suited ranks of
    each class (13-bit lanes), boards per class and each class's rank class. Classes are the
    suited subsets (rows) times the multisets of other ranks (columns), flattened."""
    blocks = []
    for s in range(4):
        lane = int(sum(1 << r for r in range(13) if avail[s, r]))
        other = avail.sum(axis=0) - avail[s]  # cards of each rank outside suit s
        for j in range(thresholds[s], min(5, bin(lane).count("1")) + 1):
            lane_masks, classes = _suited_subsets(lane, j)
            rest_count = np.prod(_BINOM[other[None, :], _multisets(5 - j)], axis=1)
            keep = np.flatnonzero(rest_count)
            counts = np.broadcast_to(rest_count[keep], (len(lane_masks), len(keep))).ravel()
            blocks.append((s, j, np.repeat(lane_masks, len(keep)), counts,
                           classes[:, keep].ravel()))
    return blocks


def _tally(strengths: np.ndarray, boards: np.ndarray, share: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wins, split pots and split-pot units per player, each class counted ``boards`` times."""
    if len(strengths) == 2:  # heads-up: two sums
        a, b = strengths
        won = int(boards[a > b].sum())
        tied = int(boards[a == b].sum())
        wins = np.array([won, int(boards.sum()) - won - tied], dtype=np.int64)
        ties = np.array([tied, tied], dtype=np.int64)
        return wins, ties, ties * share[2]
    best = strengths.max(axis=0)
    win = strengths == best
    cnt = win.sum(axis=0)
    solo = cnt == 1
    wins = (win & solo).astype(np.int64) @ boards
    ties = (win & ~solo).astype(np.int64) @ boards
    units = (win * share[cnt]).astype(np.int64) @ boards
    return wins, ties, units


def matchup_counts(holes: Sequence[int], deck_mask: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Exact ``(wins, ties, units, boards)`` of one preflop matchup over all 5-card boards.

    Parameters
    ----------
    holes : sequence of int
        Each player's two-card hand mask (no card shared).
    deck_mask : int
        The cards boards are drawn from (none of the holes' cards).

    Returns
    -------
    tuple
        Per player outright wins and split pots (board counts) and the split pots in pot
        units (``lcm(1..n)`` per pot, as :func:`gpu_eval.equity_engine.holdem.numpy_engine.showdown_counts`);
        then the number of boards, ``C(cards in deck, 5)``.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.equity_engine import enumerate_boards as eb
    >>> h = [int(m) for m in cards.to_mask(["AhKh", "QsQd"])]
    >>> w, t, u, b = matchup_counts(h, eb.FULL_DECK & ~(h[0] | h[1]))
    >>> w.tolist(), t.tolist(), b
    ([787966, 917606], [6732, 6732], 1712304)
    """
    n = len(holes)
    scale = lcm(*range(1, n + 1))  # pot units, as numpy_engine.pot_units
    share = np.zeros(n + 1, dtype=np.int64)
    share[2:] = scale // np.arange(2, n + 1)
    avail = _available(deck_mask)
    suited = [[bin((h >> (16 * s)) & 0x1FFF).count("1") for s in range(4)] for h in holes]
    blocks = _flush_classes(avail, [5 - max(h[s] for h in suited) for s in range(4)])
    plain_st = [_plain_strengths(tuple(sorted(b % 16 for b in _bits(h)))) for h in holes]

    # Rank classes: all boards with the multiset, less the flush boards among them.
    plain = _boards_per_rank_class(tuple(int(x) for x in avail.sum(axis=0))).copy()
    if blocks:
        flushes = np.bincount(np.concatenate([b[4] for b in blocks]), minlength=len(plain),
                              weights=np.concatenate([b[3] for b in blocks]))
        plain -= np.rint(flushes).astype(np.int64)  # exact: sums far below 2**53
    assert (plain >= 0).all()
    live = np.flatnonzero(plain)

    # Every class's boards and strengths, rank classes first, then the flush-board blocks. On
    # a flush board a player's strength is the better of his flush (straight flush) from the
    # suited cards, 0 when he holds fewer than five of them, and the plain strength of the
    # class's ranks (a full house or quads beat a flush). No board is evaluated.
    flush = bitmask_tables().flush
    counts = np.concatenate([plain[live]] + [b[3] for b in blocks])
    strengths = np.empty((n, len(counts)), dtype=np.uint16)
    for p, h in enumerate(holes):
        strengths[p, :len(live)] = plain_st[p][live]
        at = len(live)
        for s, _, lanes, _, classes in blocks:
            got = strengths[p, at:at + len(lanes)]
            np.take(plain_st[p], classes, out=got)
            np.maximum(got, flush[lanes | ((h >> (16 * s)) & 0x1FFF)], out=got)
            at += len(lanes)
    wins, ties, units = _tally(strengths, counts, share)
    boards = int(counts.sum())
    assert boards == comb(bin(deck_mask).count("1"), 5)
    return wins, ties, units, boards


def _bits(mask: int) -> list[int]:
    """Bit positions set in ``mask``."""
    return [i for i in range(64) if mask >> i & 1]
