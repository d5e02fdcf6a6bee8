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
    ids = np.asarray(ids, dtype=np.int16)
    ranks, suits = ids // 4, ids % 4
    rows = np.arange(len(ids))
    counts = np.zeros((len(ids), 13), dtype=np.int16)                    # (N, 13)
    for j in range(5):
        counts[rows, ranks[:, j]] += 1
    flush = (suits == suits[:, :1]).all(axis=1)
    # order the five ranks by (how many of that rank, rank), both descending
    order_key = counts[rows[:, None], ranks] * 16 + ranks                # (N, 5)
    ordered = np.sort(order_key, axis=1)[:, ::-1] % 16
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
    is_straight = (cat == STRAIGHT) | (cat == STRAIGHT_FLUSH)
    digits = ordered.copy()
    digits[is_straight] = 0
    digits[is_straight, 0] = top[is_straight]
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
