"""Hole-card strengths on many boards, sharing the work of combos with the same ranks.

On a five-card board that holds at most two cards of each suit nobody can make a flush (two
hole cards bring a suit to four at most), so a hand's strength there depends only on its
ranks: the six combos of QQ, or the four of AKs, are one evaluation per such board, not six or
four. Most boards are like that (about five in six after a rainbow flop). :func:`strengths`
reads one strength per distinct hole-rank pair and board rank multiset on those boards from
:func:`plain7` (the evaluator's strength of every flush-free 7-card rank multiset, computed
once; :func:`plain_strengths` evaluates the same integers on stand-in hands) and evaluates
every combo itself on the other boards.

The result equals ``evaluate_masks(pool[:, None] | boards[None, :])`` wherever a combo shares
no card with the board; where it does, the value is meaningless (callers mask those boards).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np

from gpu_eval.card_spelling import RANK_POW5
from gpu_eval.combinatorics import rank_multiset_keys
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.evaluator.tables import bitmask_tables

__all__ = ["strengths", "rank_pairs", "flush_free", "plain_strengths", "stand_ins", "plain7",
           "rank_keys", "plain_by_key", "plain_rows", "lookup_strengths",
           "small_unique"]

_LANE = np.uint64(0x1FFF)
# Fewer combos than this, and evaluating each one on every board is faster than the lookups.
_MIN_LOOKUP_POOL = 12
# Lowest set bit of a 4-bit suit set (3 for none: the stand-in then collides, and every real
# combo with that rank collides with the board too, so its value is never used).
_LOW = np.array([3, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0], dtype=np.int64)
_LOW.flags.writeable = False


@lru_cache(maxsize=1)
def plain7() -> tuple[np.ndarray, np.ndarray]:
    """Every 7-card rank multiset (at most 4 of a rank): sorted keys ``sum 5^rank`` and the
    evaluator's strength without flushes of each (``uint16``), both read-only.

    A hand without a flush has the strength of its ranks alone, so this table (49,205 rows,
    built once in about 0.1 s) answers any flush-free 7-card hand by a binary search.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> keys, plain = plain7()
    >>> hand = cards.to_mask("AsAh Kd Qc 9s 5d 2h")
    >>> key = sum(5 ** r for r in (12, 12, 11, 10, 7, 3, 0))
    >>> int(plain[np.searchsorted(keys, key)]) == int(evaluate_masks(hand)[0])
    True
    """
    ranks = np.array(list(combinations_with_replacement(range(13), 7)), dtype=np.intp)
    counts = np.zeros((len(ranks), 13), dtype=np.intp)
    for j in range(7):
        counts[np.arange(len(ranks)), ranks[:, j]] += 1
    keep = (counts <= 4).all(axis=1)
    ranks, counts = ranks[keep], counts[keep]
    # Stand-in cards with these ranks and no flush: the i-th card in rank order gets suit
    # i mod 4 (at most 2 of a suit in 7 cards; copies of a rank are consecutive, so they
    # get different suits).
    bits = (np.uint64(1) << (np.uint64(16) * (np.arange(7, dtype=np.uint64) % np.uint64(4))
                             + ranks.astype(np.uint64)))
    masks = np.bitwise_or.reduce(bits, axis=1)
    keys = counts @ (5 ** np.arange(13, dtype=np.int64))
    order = np.argsort(keys)
    keys, plain = keys[order], evaluate_masks(masks)[order]
    keys.flags.writeable = plain.flags.writeable = False
    return keys, plain


@lru_cache(maxsize=3)
def plain_rows(k: int) -> tuple[dict[int, int], np.ndarray, np.ndarray]:
    """:func:`plain7` laid out for hands of ``7 - k`` known cards (``k`` = 0, 1 or 2 to
    come): ``(row of each known rank key, strengths (rows, columns), the columns' rank keys)``,
    a row per rank multiset of the known cards, a column per multiset of the ``k`` cards to
    come (sorted keys), 0 where the two hold a rank more than four times; read-only.

    A known hand's flush-free strengths over every completion are then one row, read from a
    few kilobytes, instead of a binary search per completion in the 49,205 keys of
    :func:`plain7`. Built once per ``k`` (a fraction of a second; 1.1 MB after the flop).

    Examples
    --------
    >>> rows, table, cols = plain_rows(2)
    >>> table.shape, len(rows), len(cols)
    ((6175, 91), 6175, 91)
    >>> keys, plain = plain7()
    >>> known = sum(5 ** r for r in (12, 12, 11, 7, 3))  # A A K 9 5, then 2 and 2 to come
    >>> to_come = 2 * 5 ** 0
    >>> bool(table[rows[known], cols.searchsorted(to_come)]
    ...      == plain[keys.searchsorted(known + to_come)])
    True
    """
    keys7, plain = plain7()
    known, cols = rank_multiset_keys(7 - k), rank_multiset_keys(k)
    total = known[:, None] + cols[None, :]
    at = np.minimum(keys7.searchsorted(total), len(keys7) - 1)
    table = np.where(keys7[at] == total, plain[at], 0).astype(np.uint16)
    table.flags.writeable = False
    return dict(zip(known.tolist(), range(len(known)))), table, cols


@lru_cache(maxsize=1)
def _lane_keys() -> np.ndarray:
    """``sum 5^rank`` over the ranks of each 13-bit suit lane (``int64[8192]``)."""
    bits = (np.arange(8192, dtype=np.int64)[:, None] >> np.arange(13)) & 1
    out = bits @ (5 ** np.arange(13, dtype=np.int64))
    out.flags.writeable = False
    return out


def rank_keys(masks: np.ndarray) -> np.ndarray:
    """``sum 5^rank`` over the cards of each ``uint64`` mask (``int64``): the key of its rank
    multiset, as in :func:`plain7`.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> rank_keys(cards.to_mask(["2c2d3h", "As"])).tolist()
    [7, 244140625]
    """
    masks = np.ascontiguousarray(masks, dtype=np.uint64)
    return np.take(_lane_keys(), _lanes(masks)).sum(axis=-1)


def _lanes(masks: np.ndarray) -> np.ndarray:
    """The four 16-bit suit lanes of contiguous ``uint64`` masks, ``(..., 4)`` (a view on
    little-endian machines; the top three bits of each lane are always clear)."""
    lanes = masks.view("<u2") if masks.dtype.byteorder in "=<|" and np.little_endian else \
        np.stack([(masks >> np.uint64(16 * s)) & _LANE for s in range(4)], axis=-1)
    return lanes.reshape(masks.shape + (4,))


def plain_by_key(r1: np.ndarray, r2: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """``(pairs, boards)`` strengths of hole ranks ``(r1, r2)`` on flush-free ``boards``, read
    from :func:`plain7`: the integers :func:`plain_strengths` evaluates, without evaluating
    (each distinct board rank multiset is looked up once per pair; a rank the board and the
    pair would hold five times gives a meaningless value, as in :func:`stand_ins`).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> boards = cards.to_mask(["2c7d9hKsJd", "2c7d9h8s3d"])
    >>> r1, r2 = np.array([10, 0]), np.array([10, 12])
    >>> bool((plain_by_key(r1, r2, boards) == plain_strengths(r1, r2, boards)).all())
    True
    """
    keys7, plain = plain7()
    uniq, inv = np.unique(rank_keys(boards), return_inverse=True)
    held = RANK_POW5[np.asarray(r1, dtype=np.intp)] + RANK_POW5[np.asarray(r2, dtype=np.intp)]
    pos = np.searchsorted(keys7, held[:, None] + uniq[None, :])
    np.minimum(pos, len(keys7) - 1, out=pos)
    return np.take(plain[pos], inv.reshape(-1), axis=1)


def lookup_strengths(pool: np.ndarray, boards: np.ndarray, rp: np.ndarray, r1: np.ndarray,
                     r2: np.ndarray) -> np.ndarray:
    """``(len(pool), len(boards))`` strengths of two-card ``pool`` masks on five-card
    ``boards`` (flushes possible or not) without evaluating: the better of the rank pair's
    strength without flushes (:func:`plain_by_key`) and the flush table of the suit lane that
    holds three or more board cards (only it can reach five). ``rp, r1, r2``:
    :func:`rank_pairs` of ``pool``. Meaningless where a combo shares a card with the board.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> pool = cards.to_mask(["QsQd", "AhKh", "5h4h"])
    >>> boards = cards.to_mask(["2c7d9hKsJd", "2c7h9h8h3d", "Th9h8h7h6c"])
    >>> direct = evaluate_masks((pool[:, None] | boards[None, :]).ravel()).reshape(3, 3)
    >>> bool((lookup_strengths(pool, boards, *rank_pairs(pool)) == direct).all())
    True
    """
    st = plain_by_key(r1, r2, boards)[rp]
    flush = bitmask_tables().flush
    for s in range(4):
        lane = ((boards >> np.uint64(16 * s)) & _LANE).astype(np.intp)
        on = np.flatnonzero(np.bitwise_count(lane) >= 3)
        if on.size:
            held = ((pool >> np.uint64(16 * s)) & _LANE).astype(np.intp)
            fl = np.take(flush, held[:, None] | lane[None, on])
            st[:, on] = np.maximum(st[:, on], fl)
    return st


def rank_pairs(pool: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per combo, the index of its (low rank, high rank) pair; and the distinct pairs' ranks.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> idx, r1, r2 = rank_pairs(cards.to_mask(["QsQh", "AhKh", "QdQc"]))
    >>> idx.tolist(), r1.tolist(), r2.tolist()
    ([0, 1, 0], [10, 11], [10, 12])
    """
    pool = np.ascontiguousarray(pool, dtype=np.uint64)
    held = np.bitwise_or.reduce(_lanes(pool), axis=-1)  # the ranks held, whatever the suits
    keys, idx = small_unique(np.take(_pair_keys(), held), 169)
    return idx, keys // 13, keys % 13


@lru_cache(maxsize=1)
def _pair_keys() -> np.ndarray:
    """``13 * low rank + high rank`` of a set of one or two ranks (13-bit), 0 otherwise."""
    out = np.zeros(8192, dtype=np.intp)
    for a in range(13):
        for b in range(a, 13):
            out[(1 << a) | (1 << b)] = 13 * a + b
    out.flags.writeable = False
    return out


def small_unique(x: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(x, return_inverse=True)`` of ints in ``[0, bound)``, by marking them in a
    table of ``bound`` flags instead of sorting (a few times faster for small arrays).

    Examples
    --------
    >>> [a.tolist() for a in small_unique(np.array([5, 2, 5, 7]), 10)]
    [[2, 5, 7], [1, 0, 1, 2]]
    """
    x = np.asarray(x, dtype=np.intp).reshape(-1)
    present = np.zeros(bound, dtype=bool)
    present[x] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[x]


def flush_free(boards: np.ndarray) -> np.ndarray:
    """Boards holding at most two cards of every suit (nobody can make a flush there)."""
    boards = np.ascontiguousarray(boards, dtype=np.uint64)
    return np.bitwise_count(_lanes(boards)).max(axis=-1) < 3


def plain_strengths(r1: np.ndarray, r2: np.ndarray, boards: np.ndarray,
                    evaluate=evaluate_masks) -> np.ndarray:
    """``(pairs, boards)`` strengths of hole ranks ``(r1, r2)`` on flush-free ``boards``.

    Each is the strength of a stand-in hand (:func:`stand_ins`).
    """
    return evaluate(stand_ins(r1, r2, boards).reshape(-1)).reshape(len(r1), len(boards))


def stand_ins(r1: np.ndarray, r2: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """``(pairs, boards)`` seven-card masks: each flush-free board with hole cards of ranks
    ``(r1, r2)`` in suits the board does not hold at that rank (meaningless where no such
    suits are left: then every combo of the pair shares a card with the board).
    """
    ranks = np.arange(13, dtype=np.uint64)
    held = np.zeros((len(boards), 13), dtype=np.int64)
    for s in range(4):
        lane = (boards >> np.uint64(16 * s)) & _LANE
        held |= ((lane[:, None] >> ranks[None, :]) & np.uint64(1)).astype(np.int64) << s
    free = ~held & 0xF
    first = _LOW[free]
    second = _LOW[free & ~(1 << first)]
    s1 = first[:, r1].T  # (pairs, boards)
    s2 = np.where((r1 == r2)[:, None], second[:, r2].T, first[:, r2].T)
    bits = (np.left_shift(np.uint64(1), (16 * s1 + r1[:, None]).astype(np.uint64))
            | np.left_shift(np.uint64(1), (16 * s2 + r2[:, None]).astype(np.uint64)))
    return bits | boards[None, :]


def strengths(pool: np.ndarray, boards: np.ndarray, out: np.ndarray | None = None,
              evaluate=evaluate_masks) -> np.ndarray:
    """``(len(pool), len(boards))`` uint16 strengths of two-card ``pool`` masks on five-card
    ``boards`` masks (see the module docstring for boards that collide with a combo);
    ``evaluate`` is the hand-mask evaluator to use.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> pool = cards.to_mask(["QsQh", "QdQc", "AhKh"])
    >>> boards = cards.to_mask(["2c7d9hKsJd", "2c7d9h8h3h"])
    >>> direct = evaluate_masks((pool[:, None] | boards[None, :]).ravel()).reshape(3, 2)
    >>> bool((strengths(pool, boards) == direct).all())
    True
    """
    pool = np.asarray(pool, dtype=np.uint64)
    boards = np.asarray(boards, dtype=np.uint64)
    n_pool, n_b = len(pool), len(boards)
    st = np.empty((n_pool, n_b), dtype=np.uint16) if out is None else out
    if n_pool == 0 or n_b == 0:
        return st
    rp, r1, r2 = rank_pairs(pool)
    # Every combo evaluated when the lookups cannot pay: too few combos (a board's lookups
    # cost about ten evaluations, whatever the pool) or too few shared ranks -- both tested
    # before the flush test, a pass over every board -- or no flush-free board.
    few = n_pool < _MIN_LOOKUP_POOL or 2 * len(r1) > n_pool
    free = None if few else flush_free(boards)
    if free is None or not free.any():
        evaluate((pool[:, None] | boards[None, :]).reshape(-1), st.reshape(-1))
        return st
    fl = np.flatnonzero(~free)
    nf = np.flatnonzero(free)
    if fl.size:  # every combo on the flush boards, looked up too
        st[:, fl] = lookup_strengths(pool, boards[fl], rp, r1, r2)
    st[:, nf] = plain_by_key(r1, r2, boards[nf])[rp]  # the rank pairs on the others, looked up
    return st
