"""Counts of a few given hands at a time: each hero against its opponents, compared directly.

For a handful of hands the board-major counting (``river_counts``) would count all 1,081
heroes of every board; here each row's hero is compared with the ``C`` columns of its own board
(``board_strengths``), those that share a card with the hero or the board left out. This path
serves ``indices=`` queries; the tests hold it and the board-major counts to the same integers.
"""

from __future__ import annotations

import numpy as np

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.solver_tables.board_strengths import strengths_of_masks
from gpu_eval.solver_tables.layout import DeckLayout
from gpu_eval.solver_tables.river_counts import opponents

__all__ = ["hero_counts", "column_of"]

#: Rows per NumPy batch (a (rows, C) strength block is about 2.7 MB).
BATCH = 1024


def column_of(holes: np.ndarray, lay: DeckLayout) -> np.ndarray:
    """The column of each hole pair (colex of the two cards within the deck)."""
    h = holes.astype(np.intp) - lay.lowest_card
    lo, hi = h.min(axis=1), h.max(axis=1)
    return hi * (hi - 1) // 2 + lo


def hero_counts(holes: np.ndarray, boards: np.ndarray, lay: DeckLayout
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(wins, ties)`` (int32) of hero ``holes[i]`` on the 5-card ``boards[i]``."""
    n = len(holes)
    wins = np.empty(n, dtype=np.int32)
    ties = np.empty(n, dtype=np.int32)
    col = column_of(holes, lay)
    # The columns through the board (0 from strengths_of_masks) or the hero (zeroed here)
    # are the only ones at 0, so every column below the hero less these is a win.
    blocked = lay.columns - opponents(lay)
    for a in range(0, n, BATCH):
        b = slice(a, a + BATCH)
        bm = np.bitwise_or.reduce(ID_TO_MASK[boards[b]], axis=1)
        s = strengths_of_masks(bm, lay)
        rows = np.arange(len(s))
        mine = s[rows, col[b]][:, None]
        # the hero's two cards' columns (its own among them): a scatter, not a mask test
        through = lay.card_columns[holes[b]].reshape(len(s), -1)
        s.reshape(-1)[(rows * lay.columns)[:, None] + through] = 0
        wins[b] = np.add.reduce(s < mine, axis=1, dtype=np.int32) - blocked
        ties[b] = np.add.reduce(s == mine, axis=1, dtype=np.int32)
    return wins, ties
