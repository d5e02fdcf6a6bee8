"""The board completions of a deck and their suit orbits (cached), for the engines of the
games beyond hold'em: the NumPy engine (:mod:`gpu_eval.equity_engine.board_games.numpy_engine`) and its CUDA
twin (:mod:`gpu_eval.equity_engine.board_games.cuda_engine`) play the same orbit representatives.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.suit_symmetry import orbit_sizes

__all__ = ["subsets", "deck_ids", "or_rows", "completions", "orbits", "orbit_lists", "orbit_parts"]


def or_rows(ids: np.ndarray) -> np.ndarray:
    """Hand masks of the rows of an ``(N, k)`` id array."""
    m = np.zeros(len(ids), dtype=np.uint64)
    for j in range(ids.shape[1]):
        m |= np.take(ID_TO_MASK, ids[:, j])
    return m


@lru_cache(maxsize=8)
def subsets(n: int, k: int) -> np.ndarray:
    """Every k-subset of ``range(n)`` as sorted ``uint8`` rows, colex order (read-only)."""
    level = np.zeros((1, 0), dtype=np.uint8)
    for j in range(1, k + 1):
        parts = [np.column_stack([level[:math.comb(t, j - 1)],
                                  np.full(math.comb(t, j - 1), t, dtype=np.uint8)])
                 for t in range(j - 1, n)]
        level = np.concatenate(parts) if parts else np.zeros((0, j), dtype=np.uint8)
    level.flags.writeable = False
    return level


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
    bits = ID_TO_MASK[deck]
    # Level by level, colex: the j-subsets whose largest card is the deck's t-th are the
    # (j-1)-subsets of the t cards below it (the previous level's first C(t, j-1) rows) plus
    # that card, so each level is block copies of the one before (no gather of B*k card ids
    # through index arrays, nor k passes over the masks).
    ids = np.zeros((1, 0), dtype=np.uint8)
    masks = np.zeros(1, dtype=np.uint64)
    for j in range(1, k + 1):
        n_rows = math.comb(len(deck), j)
        next_ids = np.empty((n_rows, j), dtype=np.uint8)
        next_masks = np.empty(n_rows, dtype=np.uint64)
        at = 0
        for t in range(j - 1, len(deck)):
            size = math.comb(t, j - 1)
            next_ids[at:at + size, :j - 1] = ids[:size]
            next_ids[at:at + size, j - 1] = deck[t]
            np.bitwise_or(masks[:size], bits[t], out=next_masks[at:at + size])
            at += size
        ids, masks = next_ids, next_masks
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
