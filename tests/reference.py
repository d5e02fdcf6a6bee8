"""A slow, obviously correct hold'em evaluator used only by the tests.

It reads a 5-card hand the way a person does: count the ranks, look for a flush and a
straight, name the category, and list the ranks in the order they are compared (most
repeated first, then highest). Its key is a plain integer ``category * 16**5 + ranks``; bigger
keys are better hands. Nothing here shares code with the package's evaluators.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR, HIGH = (
    8, 7, 6, 5, 4, 3, 2, 1, 0)


def key5(ids: np.ndarray) -> np.ndarray:
    """Comparison key of each 5-card hand in an ``(N, 5)`` id array."""
    ids = np.asarray(ids, dtype=np.int64)
    if len(ids) > _CHUNK:  # in slices: the (N, 13) temporaries of every 5-card hand are ~1 GB
        return np.concatenate([_key5(ids[i:i + _CHUNK]) for i in range(0, len(ids), _CHUNK)])
    return _key5(ids)


_CHUNK = 1 << 16


def _key5(ids: np.ndarray) -> np.ndarray:
    ranks, suits = ids // 4, ids % 4
    counts = (ranks[:, :, None] == np.arange(13)).sum(axis=1)            # (N, 13)
    flush = (suits == suits[:, :1]).all(axis=1)
    # order the five ranks by (how many of that rank, rank), both descending
    order_key = counts[np.arange(len(ids))[:, None], ranks] * 16 + ranks  # (N, 5)
    ordered = np.take_along_axis(ranks, np.argsort(-order_key, axis=1), axis=1)
    pattern = np.sort(counts, axis=1)[:, ::-1][:, :2]                      # two biggest counts
    distinct = pattern[:, 0] == 1
    wheel = distinct & (np.sort(ranks, axis=1) == [0, 1, 2, 3, 12]).all(axis=1)
    straight = distinct & ((ordered[:, 0] - ordered[:, 4] == 4) | wheel)
    top = np.where(wheel, 3, ordered[:, 0])
    cat = np.select(
        [straight & flush, pattern[:, 0] == 4, (pattern[:, 0] == 3) & (pattern[:, 1] == 2),
         flush, straight, pattern[:, 0] == 3, (pattern[:, 0] == 2) & (pattern[:, 1] == 2),
         pattern[:, 0] == 2],
        [STRAIGHT_FLUSH, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, TRIPS, TWO_PAIR, PAIR], HIGH)
    # a straight is compared by its top card alone (the wheel's is the five)
    is_straight = ((cat == STRAIGHT) | (cat == STRAIGHT_FLUSH))[:, None]
    digits = np.where(is_straight, np.stack([top] + [0 * top] * 4, axis=1), ordered)
    key = cat.astype(np.int64)
    for i in range(5):
        key = key * 16 + digits[:, i]
    return key


def best_key(ids: np.ndarray) -> np.ndarray:
    """Key of the best 5-card hand inside each row of an ``(N, k)`` id array, k >= 5."""
    ids = np.asarray(ids)
    best = None
    for cols in combinations(range(ids.shape[1]), 5):
        k = key5(ids[:, list(cols)])
        best = k if best is None else np.maximum(best, k)
    return best


def category_of_key(key: np.ndarray) -> np.ndarray:
    return np.asarray(key) // 16 ** 5
