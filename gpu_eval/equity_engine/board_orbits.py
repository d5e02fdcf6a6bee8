"""The board completions of a deck and their suit orbits (cached), for the engines of the
games beyond hold'em: the NumPy engine (:mod:`gpu_eval.equity_engine.board_games.numpy_engine`) and its CUDA
twin (:mod:`gpu_eval.equity_engine.board_games.cuda_engine`) play the same orbit representatives.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from gpu_eval import combinatorics
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.suit_symmetry import orbit_sizes

__all__ = ["deck_ids", "or_rows", "completions", "orbits", "orbit_lists", "orbit_parts"]


def or_rows(ids: np.ndarray) -> np.ndarray:
    """Hand masks of the rows of an ``(N, k)`` id array."""
    m = np.zeros(len(ids), dtype=np.uint64)
    for j in range(ids.shape[1]):
        m |= np.take(ID_TO_MASK, ids[:, j])
    return m


def deck_ids(deck_mask: int) -> np.ndarray:
    return np.flatnonzero((ID_TO_MASK & np.uint64(deck_mask)) != 0).astype(np.uint8)


@lru_cache(maxsize=4)
def completions(deck_mask: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every k-card completion from the deck, colex order: ``(ids (B, k), masks (B,))``,
    cached (repeated calls on one deck skip building a million boards).

    Examples
    --------
    >>> ids, masks = completions(int(np.bitwise_or.reduce(ID_TO_MASK[:4])), 2)  # the deuces
    >>> ids.tolist(), bool((masks == or_rows(ids)).all())
    ([[0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3]], True)
    """
    deck = deck_ids(deck_mask)
    ids = deck[combinatorics.subsets(len(deck), k)]
    # The masks by the shared colex builder (block copies, level by level), not k passes of
    # gathers over the ids.
    masks = combinatorics.subset_masks(len(deck), k, ID_TO_MASK[deck])
    for a in (ids, masks):
        a.flags.writeable = False
    return ids, masks


@lru_cache(maxsize=4)
def orbits(deck_mask: int, k: int, group: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """Per completion, the size of its orbit under ``group`` when it is the orbit's smallest
    mask (the one board played for the whole orbit), else 0; ``uint8``, cached."""
    out = orbit_sizes(completions(deck_mask, k)[1], group)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=4)
def orbit_lists(deck_mask: int, k: int, group: tuple[tuple[int, ...], ...]) -> tuple:
    """``((completion numbers, ids, masks, orbit size), ...)`` of the orbit representatives,
    by orbit size (numbers increasing); cached."""
    ids, masks = completions(deck_mask, k)
    if len(group) <= 1:
        return ((np.arange(len(masks)), ids, masks, 1),)
    orbit = orbits(deck_mask, k, group)
    out = []
    for m in np.unique(orbit):
        if m:
            idx = np.flatnonzero(orbit == m)
            out.append((idx, np.ascontiguousarray(ids[idx]), masks[idx], int(m)))
    return tuple(out)


def orbit_parts(deck_mask: int, k: int, group: tuple[tuple[int, ...], ...], start: int,
                stop: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """The representatives among completions ``[start, stop)`` (colex numbers), as
    ``[(ids (B, k), masks (B,), orbit size), ...]``: summed over a split of the completions,
    each orbit is played once with its size."""
    out = []
    for idx, ids, masks, m in orbit_lists(deck_mask, k, group):
        a, b = np.searchsorted(idx, [start, stop])
        if b > a:
            out.append((ids[a:b], masks[a:b], m))
    return out
