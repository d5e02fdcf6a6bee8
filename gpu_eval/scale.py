"""The dense hold'em strength scale, derived from first principles.

A hand class is fixed by its category, its "important" ranks (the pair, the trips, ...) and its
kickers. Within a category, classes are ordered lexicographically by (important ranks, kickers),
highest first, which is exactly the order of poker. We number each category densely:

==============  ======  ==============================================================
category        count   index within the category
==============  ======  ==============================================================
high card       1,277   position among non-straight 5-rank sets, in colex order
pair            2,860   pair * 220 + colex(3 kickers, pair rank removed)
two pair          858   colex(2 pair ranks) * 11 + kicker (the 2 pair ranks removed)
trips             858   trips * 66 + colex(2 kickers, trips rank removed)
straight           10   top rank - 3 (the wheel is 0)
flush           1,277   as high card
full house        156   trips * 12 + pair (trips rank removed)
quads             156   quads * 12 + kicker (quads rank removed)
straight flush     10   as straight
==============  ======  ==============================================================

``strength = base[category] + index + 1``, so 1 is 7-5-4-3-2 unsuited and 7462 a royal flush;
``strength == 7463 - cactus_kev_rank``. "colex" is the colexicographic index of a k-subset,
``sum_j C(r_j, j)`` over its ranks ``r_1 < ... < r_k``; for subsets of equal size it orders
them as poker does (compare the highest rank first), and it does not depend on the size of the
universe, so removing a rank from the mask ("compress") and taking colex gives a dense index.
"""

from __future__ import annotations

from math import comb

import numpy as np

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
FIVE_OF_A_KIND = 9

CATEGORY_SIZES = (1277, 2860, 858, 858, 10, 1277, 156, 156, 10)
#: ``BASE[c]`` is the number of classes below category ``c``.
BASE = tuple(int(x) for x in np.concatenate([[0], np.cumsum(CATEGORY_SIZES)]))
NUM_CLASSES = BASE[-1]  # 7462
#: Length of an array indexed by strength: 0 (no hand) .. NUM_CLASSES.
NUM_STRENGTHS = NUM_CLASSES + 1

#: The ten straights as 13-bit rank masks, lowest (the wheel, A-2-3-4-5) first.
STRAIGHT_MASKS = tuple([0x100F] + [0x1F << low for low in range(9)])

ALL_RANK_MASKS = np.arange(1 << 13, dtype=np.int64)


#: ``_COMB[r, j] = C(r, j)``: the terms of :func:`colex` (built once; the table builders call
#: ``colex`` hundreds of times on small arrays).
_COMB = np.array([[comb(rank, j) for j in range(14)] for rank in range(13)], dtype=np.int64)


def colex(masks: np.ndarray | int) -> np.ndarray:
    """Colexicographic index of each 13-bit mask among the masks with the same popcount."""
    masks = np.asarray(masks, dtype=np.int64)
    out = np.zeros(masks.shape, dtype=np.int64)
    seen = np.zeros(masks.shape, dtype=np.int64)
    for rank in range(13):
        has = (masks >> rank) & 1
        seen += has
        out += has * _COMB[rank][seen]
    return out


def highest_bit(masks: np.ndarray) -> np.ndarray:
    """The highest set bit of each mask (0 for 0), at most ``1 << 12``."""
    masks = np.asarray(masks, dtype=np.int64)
    # frexp's exponent e has 2**(e-1) <= m < 2**e: exact for m < 2**53 (a float64 holds it),
    # and any m >= 2**12 gives 1 << 12 whatever float rounding does above that.
    top = np.minimum(np.frexp(masks)[1] - 1, 12).astype(np.int64)
    return np.where(masks > 0, np.int64(1) << np.maximum(top, 0), 0)


def top_bits(masks: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` highest set bits of each mask (fewer where the mask has fewer)."""
    rest = np.asarray(masks, dtype=np.int64).copy()
    out = np.zeros_like(rest)
    for _ in range(k):
        hb = highest_bit(rest)
        out |= hb
        rest &= ~hb
    return out


def bit_rank(bits: np.ndarray) -> np.ndarray:
    """Rank (0..12) of a one-bit mask; -1 for 0."""
    bits = np.asarray(bits, dtype=np.int64)
    return np.where(bits > 0, np.log2(np.maximum(bits, 1)).astype(np.int64), -1)


def remove_rank(masks: np.ndarray | int, rank: np.ndarray | int) -> np.ndarray:
    """Delete bit ``rank`` from each mask and close the gap (ranks above move down by one)."""
    masks = np.asarray(masks, dtype=np.int64)
    low = (np.int64(1) << rank) - 1
    return (masks & low) | ((masks >> 1) & ~low)


def straight_index(masks: np.ndarray) -> np.ndarray:
    """Index 0..9 of the best straight in each rank mask (0 the wheel), -1 if none."""
    masks = np.asarray(masks, dtype=np.int64)
    out = np.full(masks.shape, -1, dtype=np.int64)
    for i, s in enumerate(STRAIGHT_MASKS):
        out[(masks & s) == s] = i
    return out


def _five_rank_index() -> np.ndarray:
    """Index of each 5-bit non-straight mask among such masks in colex order (-1 otherwise)."""
    five = (np.bitwise_count(ALL_RANK_MASKS) == 5) & ~np.isin(ALL_RANK_MASKS, STRAIGHT_MASKS)
    out = np.full(ALL_RANK_MASKS.shape, -1, dtype=np.int64)
    out[five] = np.arange(five.sum())  # ascending integers are colex order for equal popcount
    return out


FIVE_RANK_INDEX = _five_rank_index()


def five_distinct_strength(masks: np.ndarray, flush: bool) -> np.ndarray:
    """Strength of the best hand made of distinct ranks from each rank mask (>= 5 bits).

    Without ``flush`` that is a straight or a high card; with it, a straight flush or a flush.
    Masks with fewer than 5 ranks give 0.
    """
    masks = np.asarray(masks, dtype=np.int64)
    st = straight_index(masks)
    hi = FIVE_RANK_INDEX[top_bits(masks, 5)]
    cat_st, cat_hi = (STRAIGHT_FLUSH, FLUSH) if flush else (STRAIGHT, HIGH_CARD)
    out = np.where(st >= 0, BASE[cat_st] + st, BASE[cat_hi] + hi) + 1
    return np.where(np.bitwise_count(masks) >= 5, out, 0)
