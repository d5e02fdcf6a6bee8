"""Matchups equal up to a permutation of suits: play one, copy its counts to the others.

A matchup (one hole-card combo per player) is played on every completion of the board from
the deck left by the board, the dead cards and its own hole cards. A suit permutation
``sigma`` that maps the board onto itself and the dead cards onto themselves maps that deck
onto the deck of the matchup ``sigma(m)`` and each board onto a board with the same showdown,
so ``m`` and ``sigma(m)`` have the same wins and ties, player by player. The ranges need not
be symmetric: this is about single matchups, not totals. With a dead 2c, for example, the six
permutations of diamonds, hearts and spades cut the 2,562 matchups of ``QQ+,AKs`` vs
``22+,A2s+,KTs+`` to a few hundred that need playing.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

import numpy as np

__all__ = ["stabilizer", "orbits"]

_LANE = np.uint64(0x1FFF)


def _permute(masks: np.ndarray, perm: Sequence[int]) -> np.ndarray:
    """Hand masks (bit ``16 * suit + rank``) with suit ``s`` moved to ``perm[s]``."""
    out = np.zeros_like(masks)
    for s in range(4):
        out |= ((masks >> np.uint64(16 * s)) & _LANE) << np.uint64(16 * perm[s])
    return out


def stabilizer(card_sets: Sequence[int]) -> list[tuple[int, ...]]:
    """Suit permutations that map each of ``card_sets`` (hand masks) onto itself.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> len(stabilizer([int(cards.to_mask("2c"))])), len(stabilizer([0]))
    (6, 24)
    """
    sets = np.array([int(c) for c in card_sets], dtype=np.uint64)
    return [p for p in permutations(range(4)) if np.array_equal(_permute(sets, p), sets)]


def orbits(pool: np.ndarray, matchups: np.ndarray, card_sets: Sequence[int]
           ) -> tuple[np.ndarray, np.ndarray]:
    """One matchup per orbit under the suit permutations that fix ``card_sets``.

    Parameters
    ----------
    pool : numpy.ndarray of uint64
        Hole-card masks.
    matchups : numpy.ndarray of int, shape (M, n)
        Pool index of each player's combo, per matchup.
    card_sets : sequence of int
        Masks the permutations must keep (the board, the dead cards).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``reps``: rows of ``matchups`` to play, one per orbit; ``inverse``: for each matchup,
        the position in ``reps`` of its orbit's representative.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> pool = cards.to_mask(["AhKh", "AdKd", "AsKs", "QcQd"])
    >>> reps, inv = orbits(pool, np.array([[0, 3], [1, 3], [2, 3]]), [int(cards.to_mask("2c"))])
    >>> len(reps), inv.tolist()   # AhKh and AsKs vs QcQd are alike; AdKd shares a suit
    (2, [0, 1, 0])
    """
    pool = np.asarray(pool, dtype=np.uint64)
    matchups = np.asarray(matchups, dtype=np.intp)
    m_count, n = matchups.shape
    held = pool[matchups]  # (M, n)
    best = held.copy()
    for perm in stabilizer(card_sets)[1:]:  # the first is the identity
        img = _permute(held, perm)
        # Lexicographic comparison of the n-tuples: the first player that differs decides.
        less = np.zeros(m_count, dtype=bool)
        undecided = np.ones(m_count, dtype=bool)
        for j in range(n):
            less |= undecided & (img[:, j] < best[:, j])
            undecided &= img[:, j] == best[:, j]
        best[less] = img[less]
    key = np.ascontiguousarray(best).view(np.dtype((np.void, 8 * n))).reshape(-1)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)
