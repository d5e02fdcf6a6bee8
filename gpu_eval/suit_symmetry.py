"""Suit symmetry, in one place: the 24 suit permutations, moving hand masks by them, the
permutations that keep a problem (its known cards, its ranges), one representative per orbit
(boards, flops), and the class keys of combo pairs.

Every engine that plays one board per orbit (:mod:`gpu_eval.equity_engine.enumerate_boards`,
:mod:`gpu_eval.equity_engine.board_orbits`, the cluster's slices), the preflop table's combo
pair classes (:mod:`gpu_eval.equity_engine.holdem.shipped_table`, :func:`gpu_eval.preflop_table`)
and the flop classes of :func:`gpu_eval.distributed.flop_sweep` call these functions.

Seam: a hand-isomorphism indexer (Waugh's numbering, ``gpu_eval/solver_tables/indexer.py``)
numbers hands up to suit isomorphism within rounds; when it lands, :func:`canonical_masks`
and :func:`canonical_pairs` are the two functions to answer from it (an index per class
instead of the smallest image), and their callers need not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import permutations

import numpy as np

__all__ = ["SUIT_PERMS", "permute_suits", "stabilizer", "keeping_range", "orbit_sizes",
           "orbit_representatives", "canonical_masks", "canonical_pairs"]

SUIT_PERMS: tuple[tuple[int, ...], ...] = tuple(permutations(range(4)))
_LANE = np.uint64(0x1FFF)


def permute_suits(masks: np.ndarray, perm: Sequence[int]) -> np.ndarray:
    """Hand masks with suit ``s`` replaced by ``perm[s]`` (the 16-bit lanes moved).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> cards.format(permute_suits(cards.to_mask("AhKd"), (0, 2, 1, 3)))  # d <-> h
    'KhAd'
    """
    m = np.asarray(masks, dtype=np.uint64)
    out = np.zeros_like(m)
    for s in range(4):
        lane = (m >> np.uint64(16 * s)) & _LANE
        out |= lane << np.uint64(16 * perm[s])
    return out


def stabilizer(card_sets: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The suit permutations that map each of ``card_sets`` (masks) onto itself.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> stabilizer([int(cards.to_mask("AhKh")), int(cards.to_mask("QsQd"))])
    ((0, 1, 2, 3), (0, 3, 2, 1))
    """
    return _stabilizer(tuple(int(c) for c in card_sets))


@lru_cache(maxsize=256)
def _stabilizer(card_sets: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    # ``p`` keeps every set when each suit's lanes (one per set) equal those of its image:
    # a few Python integers, not 24 x 4 NumPy passes over a tiny array (an exact equity
    # call on a random spot pays this once; the cache rarely hits there).
    if any(m & ~0x1FFF1FFF1FFF1FFF for m in card_sets):  # bits off the lanes: no card set
        return ()
    suit = [tuple((m >> (16 * s)) & 0x1FFF for m in card_sets) for s in range(4)]
    return tuple(p for p in SUIT_PERMS if all(suit[p[s]] == suit[s] for s in range(4)))


def keeping_range(group: tuple[tuple[int, ...], ...], masks: np.ndarray, weights: np.ndarray
                  ) -> tuple[tuple[int, ...], ...]:
    """The suit permutations of ``group`` that map a weighted range onto itself: every combo
    mask goes to a combo of the range with the same weight (so its equity is unchanged).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> group = stabilizer([])                       # all 24 suit permutations
    >>> aks = cards.to_mask(["AsKs", "AhKh", "AdKd", "AcKc"])
    >>> len(keeping_range(group, aks, np.ones(4)))   # suited AK is symmetric in every suit
    24
    >>> len(keeping_range(group, aks[:1], np.ones(1)))   # AsKs: the other three suits move
    6
    """
    want = _fingerprint(masks)
    weights = np.asarray(weights)
    plain = weights.size == 0 or bool((weights == weights.flat[0]).all())
    ordered = None
    keep = []
    for perm in group:
        image = permute_suits(masks, perm)
        if _fingerprint(image) != want:   # not the same set of combos: no sort needed
            continue
        if ordered is None:
            ordered = np.argsort(masks)
        if plain:   # one weight for all: the same set of masks is enough
            if np.array_equal(np.sort(image), masks[ordered]):
                keep.append(perm)
            continue
        back = np.argsort(image)
        if np.array_equal(image[back], masks[ordered]) and \
                np.array_equal(weights[back], weights[ordered]):
            keep.append(perm)
    return tuple(keep)


def _fingerprint(masks: np.ndarray) -> int:
    """A sum of mixed masks (wrapping, 64-bit): equal for any two orderings of the same masks,
    so a permutation whose image differs here cannot keep the range (a range of a few hundred
    thousand Omaha combos: one pass instead of a sort per permutation)."""
    x = np.asarray(masks, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(29)
    return int(x.sum(dtype=np.uint64))


def orbit_representatives(boards: np.ndarray, group: tuple[tuple[int, ...], ...]
                          ) -> list[tuple[np.ndarray, int]]:
    """The boards that are the smallest of their ``group`` orbit, grouped by orbit size.

    Applied to a slice of the completions, every orbit has exactly one smallest board, in
    exactly one slice, so summing ``orbit size x counts`` over the slices gives the totals
    of the whole list (what :func:`symmetric_completions` plays at once).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> boards = cards.to_mask(["2c3c4c", "2d3d4d"])   # one orbit of 4 boards
    >>> [(cards.format(b), m) for b, m in orbit_representatives(boards, stabilizer([]))]
    [(['2c3c4c'], 4)]
    """
    if len(group) <= 1:
        return [(boards, 1)]
    orbit = orbit_sizes(boards, group)
    keep = orbit > 0
    reps, orbit = boards[keep], orbit[keep]
    return [(np.ascontiguousarray(reps[orbit == m]), int(m)) for m in np.unique(orbit)]


def orbit_sizes(masks: np.ndarray, group: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """Per mask, the size of its orbit under ``group`` when it is the orbit's smallest mask
    (the one played for the whole orbit), else 0 (``uint8``).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> orbit_sizes(cards.to_mask(["2c3c4c", "2d3d4d"]), stabilizer([])).tolist()
    [4, 0]
    """
    keep = np.ones(len(masks), dtype=bool)
    fixed_by = np.zeros(len(masks), dtype=np.uint8)
    for perm in group:
        image = permute_suits(masks, perm)
        keep &= image >= masks
        fixed_by += image == masks
    return np.where(keep, len(group) // np.maximum(fixed_by, 1), 0).astype(np.uint8)


def canonical_masks(masks: np.ndarray, group: tuple[tuple[int, ...], ...] = SUIT_PERMS
                    ) -> np.ndarray:
    """The smallest image of each mask under ``group``: equal for masks of one orbit.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> a, b = canonical_masks(cards.to_mask(["AhKh", "AsKs"]))
    >>> bool(a == b)
    True
    """
    m = np.asarray(masks, dtype=np.uint64)
    out = m.copy()
    for perm in group:
        np.minimum(out, permute_suits(m, perm), out=out)
    return out


def canonical_pairs(perm_rows: np.ndarray, ia: np.ndarray, ib: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Suit-isomorphism class of each ordered pair of combo rows ``(ia, ib)``.

    ``perm_rows[p, r]`` is the row of combo ``r`` with its suits permuted by permutation
    ``p`` (any numbering of the 1,326 combos). The key of a pair is the smallest
    ``row(sigma a) * 1326 + row(sigma b)`` over the permutations; a pair and its swap
    ``(b, a)`` have equities ``e`` and ``1 - e``, so both map to the smaller of their two
    keys. Returns ``(key, flipped, symmetric)``: ``flipped`` when the pair is the swap of
    its class representative, ``symmetric`` when the pair is its own swap.

    Examples
    --------
    >>> rows = np.array([[0, 1, 2, 3], [1, 0, 3, 2]], dtype=np.int32)  # a toy: 2 perms
    >>> key, flipped, sym = canonical_pairs(rows, np.array([0, 1]), np.array([2, 3]))
    >>> bool(key[0] == key[1]), flipped.tolist(), sym.tolist()
    (True, [False, False], [False, False])
    """
    n = 1326
    ia = np.asarray(ia, dtype=np.intp)
    ib = np.asarray(ib, dtype=np.intp)
    big = np.iinfo(np.int32).max  # keys < 1326**2 fit in int32, halving memory traffic
    key = np.full(ia.shape, big, dtype=np.int32)
    swap = np.full(ia.shape, big, dtype=np.int32)
    tmp = np.empty(ia.shape, dtype=np.int32)
    for p in perm_rows:
        pa, pb = p[ia], p[ib]
        np.multiply(pa, n, out=tmp)
        tmp += pb
        np.minimum(key, tmp, out=key)
        np.multiply(pb, n, out=tmp)
        tmp += pa
        np.minimum(swap, tmp, out=swap)
    return np.minimum(key, swap), swap < key, swap == key
