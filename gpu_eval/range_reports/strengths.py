"""The strengths of some columns on complete boards."""

from __future__ import annotations

import numpy as np

from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.solver_tables.board_strengths import strengths_of_masks
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["column_strengths"]


def column_strengths(boards: np.ndarray, lay: DeckLayout, cols: np.ndarray) -> np.ndarray:
    """``(n, K)`` strengths of the columns ``cols`` on each complete board (higher is better;
    0 where the column touches the board): the board-major rank-pair table for many columns,
    one evaluation per cell for a few.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> lay = deck_layout("holdem")
    >>> s = column_strengths(cards.to_mask(["AsKsQsJs2d"]), lay, np.arange(lay.columns))
    >>> int((s == s.max()).sum()), int((s == 0).sum())   # the Ts; the columns through the board
    (46, 245)
    """
    if len(cols) * 4 >= lay.columns:
        return strengths_of_masks(boards, lay)[:, cols]
    pm = lay.pair_masks[cols]
    hands = boards[:, None] | pm[None, :]
    out = evaluate_masks(hands.ravel(), tables=lay.tables).reshape(hands.shape)
    out[(boards[:, None] & pm[None, :]) != 0] = 0
    return out
