"""Suit symmetry of a report's runouts: when a permutation of the suits keeps the board, the
dead cards and both ranges (weights included), runouts it maps onto each other give the same
counts, column for column permuted. So one runout per orbit is counted, times the orbit's
size, and the sum is made symmetric again:

    total[col] = 1/|G| * sum over s in G of reps_sum[s(col)]

(``reps_sum``: each representative's counts times its orbit's size). This is exact: the
rainbow flop ``Kd7c2h`` has no such permutation, a two-tone flop has one besides the identity
(the two suits not on it swap), a monotone flop five, a paired flop at least one.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gpu_eval.range_reports.hands import Side
from gpu_eval.solver_tables.layout import DeckLayout, deck_layout
from gpu_eval.suit_symmetry import keeping_range, orbit_sizes, stabilizer

__all__ = ["report_group", "orbit_reps", "column_perms", "symmetrize"]


def report_group(known: int, sides: list[Side | None]) -> tuple[tuple[int, ...], ...]:
    """The suit permutations that keep the known cards (board and dead, ``known``) and map
    each range onto itself with its weights.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.games import registry
    >>> from gpu_eval.range_reports.hands import read_range
    >>> g, board = registry.get("holdem"), int(cards.to_mask("Ts9s4d"))
    >>> len(report_group(board, [read_range("QQ+, AKs", g, board, "hero")]))
    2
    """
    group = stabilizer([known])
    for s in sides:
        if s is not None and len(group) > 1:
            group = keeping_range(group, s.masks, s.weights)
    return group


def orbit_reps(boards: np.ndarray, group) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, sizes)``: the boards that stand for their orbit under ``group`` and how many
    boards each stands for."""
    if len(group) <= 1:
        return np.arange(len(boards)), np.ones(len(boards), dtype=np.int64)
    sizes = orbit_sizes(boards, group).astype(np.int64)
    keep = np.flatnonzero(sizes)
    return keep, sizes[keep]


@cache
def _perm_columns(game: str, perm: tuple[int, ...]) -> np.ndarray:
    lay = deck_layout(game)
    low = lay.lowest_card
    p = lay.pairs.astype(np.int64)
    q = (p & ~3) | np.array(perm, dtype=np.int64)[p & 3]
    a, b = q.min(axis=1) - low, q.max(axis=1) - low
    out = b * (b - 1) // 2 + a
    out.flags.writeable = False
    return out


def column_perms(lay: DeckLayout, group) -> np.ndarray:
    """``(|G|, C)``: for each permutation, the column each column's cards go to."""
    return np.stack([_perm_columns(lay.game, tuple(p)) for p in group])


def symmetrize(values: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """``1/|G| * sum_s values[..., perms[s]]`` (the columns on the last axis).

    Examples
    --------
    >>> symmetrize(np.array([2.0, 4.0, 6.0]), np.array([[0, 1, 2], [1, 0, 2]])).tolist()
    [3.0, 3.0, 6.0]
    """
    if len(perms) <= 1:
        return values
    out = np.zeros_like(values)
    for p in perms:
        out += np.take(values, p, axis=-1)
    out /= len(perms)
    return out

