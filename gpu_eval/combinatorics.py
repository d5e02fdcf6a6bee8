"""Enumerating and unranking k-card subsets in colexicographic order; the rank multisets of
k cards.

Colex order lists the k-subsets of ``{0..n-1}`` so that those of ``{0..m-1}`` come first, for
every ``m``; subset number ``i`` is found by unranking with the combinatorial number system.
The CUDA kernels use the same numbering, so a slice ``[start, stop)`` of the subsets means the
same hands on both backends.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb

import numpy as np
from numpy.typing import ArrayLike

from gpu_eval.cards import ID_TO_MASK

# BINOM[n, k] for n <= 52, k <= 9, as uint64 (the kernels receive the same table).
BINOM = np.array([[comb(n, k) for k in range(10)] for n in range(53)], dtype=np.uint64)


def subset_masks(n: int, k: int, values: np.ndarray | None = None) -> np.ndarray:
    """OR of ``values[i]`` over every k-subset of ``{0..n-1}``, in colex order.

    Parameters
    ----------
    n, k : int
        Universe size and subset size.
    values : numpy.ndarray of uint64, optional
        The value of each element; by default the hand-mask bit of card id ``i``.

    Returns
    -------
    numpy.ndarray
        ``uint64`` array of length ``C(n, k)``.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> cards.format(subset_masks(5, 4)[:2])
    ['2c2d2h2s', '2c2d2h3c']
    """
    vals = ID_TO_MASK if values is None else np.asarray(values, dtype=np.uint64)
    return _subset_masks(n, k, vals.tobytes())


@lru_cache(maxsize=4)
def _subset_masks(n: int, k: int, vals_bytes: bytes) -> np.ndarray:
    vals = np.frombuffer(vals_bytes, dtype=np.uint64)
    level = np.zeros(1, dtype=np.uint64)  # the one 0-subset
    for j in range(1, k + 1):
        # j-subsets of {0..n-1} in colex order: for each top element t >= j-1, the
        # (j-1)-subsets of {0..t-1} (a prefix of the previous level) plus t.
        parts = [level[: comb(t, j - 1)] | vals[t] for t in range(j - 1, n)]
        level = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    level.flags.writeable = False
    return level


@lru_cache(maxsize=8)
def subsets(n: int, k: int) -> np.ndarray:
    """Every k-subset of ``range(n)`` as sorted ``uint8`` rows, colex order (cached,
    read-only): the rows of :func:`unrank` for ``n = 52``, built level by level.

    Examples
    --------
    >>> subsets(4, 2).tolist()
    [[0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3]]
    """
    level = np.zeros((1, 0), dtype=np.uint8)
    for j in range(1, k + 1):
        # j-subsets in colex order: for each top element t, the (j-1)-subsets of {0..t-1}
        # (a prefix of the previous level) plus t.
        parts = [np.column_stack([level[:comb(t, j - 1)],
                                  np.full(comb(t, j - 1), t, dtype=np.uint8)])
                 for t in range(j - 1, n)]
        level = np.concatenate(parts) if parts else np.zeros((0, j), dtype=np.uint8)
    level.flags.writeable = False
    return level


def rank(rows: ArrayLike) -> np.ndarray:
    """The colex number of each increasing row of k elements (the inverse of :func:`unrank`):
    the sum of ``C(row[j], j + 1)``.

    Examples
    --------
    >>> rank([[0, 1], [1, 2], [2, 3]]).tolist()
    [0, 2, 5]
    >>> bool((rank(unrank(range(1000), 5)) == range(1000)).all())
    True
    """
    r = np.asarray(rows, dtype=np.intp)
    return BINOM[r, np.arange(1, r.shape[-1] + 1)].sum(axis=-1).astype(np.int64)


def unrank(index: np.ndarray, k: int) -> np.ndarray:
    """The colex-ordered k-subset number ``index`` of ``{0..51}``, as sorted ids.

    Parameters
    ----------
    index : array_like of int
        Subset numbers, ``0 <= index < C(52, k)``.
    k : int
        Subset size.

    Returns
    -------
    numpy.ndarray
        ``uint8`` array of shape ``index.shape + (k,)``, each row increasing.

    Examples
    --------
    >>> unrank([0, 1, 2], 2).tolist()
    [[0, 1], [0, 2], [1, 2]]
    """
    idx = np.array(index, dtype=np.uint64)
    out = np.zeros(idx.shape + (k,), dtype=np.uint8)
    for j in range(k, 0, -1):
        # Largest element c with C(c, j) <= idx.
        col = BINOM[:, j]
        c = np.searchsorted(col, idx, side="right") - 1
        out[..., j - 1] = c
        idx = idx - col[c]
    return out


# Subsets up to this size come from one cached list; bigger ones are built piece by piece.
_BASE_K = 4


def colex_masks(values: np.ndarray, k: int, start: int, stop: int) -> np.ndarray:
    """OR of ``values`` over the k-subsets number ``start`` to ``stop - 1`` in colex order.

    The same numbering as ``subset_masks`` (whose result this is
    a slice of) and ``unrank``, built without the whole list: subsets with top element ``t``
    are numbers ``C(t, k) .. C(t + 1, k) - 1``, each a (k-1)-subset of ``{0..t-1}`` plus
    ``t``, so a slice splits into a few slices one size smaller.

    Parameters
    ----------
    values : numpy.ndarray of uint64
        The value of each element (the mask bit of each card of a deck).
    k : int
        Subset size (0 gives the one empty subset).
    start, stop : int
        The slice of subset numbers, ``0 <= start <= stop <= C(len(values), k)``.

    Returns
    -------
    numpy.ndarray
        ``uint64`` array of length ``stop - start``.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> vals = cards.ID_TO_MASK
    >>> bool((colex_masks(vals, 7, 10**6, 10**6 + 5000)
    ...       == cards.to_mask(unrank(range(10**6, 10**6 + 5000), 7))).all())
    True
    """
    vals = np.ascontiguousarray(values, dtype=np.uint64)
    n = len(vals)
    if not 0 <= start <= stop <= math.comb(n, k):
        raise ValueError(f"need 0 <= start <= stop <= C({n}, {k}), got {start}, {stop}")
    if stop == start:
        return np.zeros(0, dtype=np.uint64)
    if k <= _BASE_K:
        return subset_masks(n, k, vals)[start:stop]
    parts = []
    for t in range(k - 1, n):
        lo, hi = math.comb(t, k), math.comb(t + 1, k)
        if hi <= start:
            continue
        if lo >= stop:
            break
        # (k-1)-subsets of {0..t-1} are a prefix of those of {0..n-1}, so the same call works.
        sub = colex_masks(vals, k - 1, max(start, lo) - lo, min(stop, hi) - lo)
        parts.append(sub | vals[t])
    return np.concatenate(parts)


@lru_cache(maxsize=16)
def rank_multiset_keys(k: int) -> np.ndarray:
    """The sorted keys ``sum 5^rank`` of every multiset of ``k`` ranks with at most four of a
    rank: every rank multiset ``k`` cards can have (``int64``, read-only; the key the
    evaluators' rank tables are read by).

    Examples
    --------
    >>> [len(rank_multiset_keys(k)) for k in (0, 1, 2, 5, 7)]
    [1, 13, 91, 6175, 49205]
    >>> rank_multiset_keys(2)[:3].tolist()   # 2-2, 2-3, 3-3
    [2, 6, 10]
    """
    ranks = np.array(list(combinations_with_replacement(range(13), k)) if k else [()],
                     dtype=np.intp)  # each multiset once, ranks increasing
    counts = np.zeros((len(ranks), 13), dtype=np.int64)
    for j in range(k):
        counts[np.arange(len(ranks)), ranks[:, j]] += 1
    out = np.sort(counts[(counts <= 4).all(axis=1)] @ (5 ** np.arange(13, dtype=np.int64)))
    out.flags.writeable = False
    return out

