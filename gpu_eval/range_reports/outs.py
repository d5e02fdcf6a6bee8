"""Nut rank and outs.

* **nut rank**: how many distinct hand strengths that two hole cards can make on this board
  (Omaha: two hole cards and three board cards) beat the combo's; 0 means the combo holds
  the nuts.
* **outs** (flop and turn): the unseen cards (not on the board, in the combo or among the
  dead cards) after which the combo's made-hand class is better in the order of
  :mod:`gpu_eval.range_reports.made_hands` *and* the hole cards matter: on a four-card board
  the combo's category is above that of the board's own cards (pair, two pair, trips, full
  house or quads), on a five-card board its hand beats the board's five cards (Omaha, where
  the board never plays alone: its category is above the board's own, on four or five
  cards). **Nut outs**: the outs after which the combo holds the nuts (nut rank 0).
"""

from __future__ import annotations

import numpy as np

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.games.registry import Game
from gpu_eval.range_reports import bits
from gpu_eval.range_reports.made_hands import category_table

__all__ = ["nut_rank", "board_category", "improves", "unseen_cards"]


def nut_rank(strengths: np.ndarray) -> np.ndarray:
    """``(..., C)`` int16: per column, the distinct nonzero strengths of its row above its
    own (0 for the nuts, -1 where the strength is 0).

    Examples
    --------
    >>> nut_rank(np.array([[0, 5, 9, 5, 7]], dtype=np.uint16)).tolist()
    [[-1, 2, 0, 2, 1]]
    """
    s = np.asarray(strengths)
    flat = s.reshape(-1, s.shape[-1])
    out = np.empty(flat.shape, dtype=np.int16)
    for i, row in enumerate(flat):
        u = np.unique(row[row > 0])
        out[i] = len(u) - np.searchsorted(u, row, side="right")
    out[flat == 0] = -1
    return out.reshape(s.shape)


def board_category(boards: np.ndarray) -> np.ndarray:
    """The category of the board's own ranks (pairs and sets only): 7 quads, 6 full house,
    3 trips, 2 two pair, 1 pair, 0 none (uint8)."""
    b1, b2, b3, b4 = bits.rank_planes(boards)
    full = (b3 != 0) & (bits.popcount(b2) >= 2)
    return np.select([b4 != 0, full, b3 != 0, bits.popcount(b2) >= 2, b2 != 0],
                     [7, 6, 3, 2, 1], 0).astype(np.uint8)


def unseen_cards(known_mask: int, game: Game) -> np.ndarray:
    """Card ids of the game's deck not in ``known_mask`` (uint8)."""
    ids = np.arange(4 * game.lowest_rank, 52)
    return ids[(ID_TO_MASK[ids] & np.uint64(known_mask)) == 0].astype(np.uint8)


def improves(place_new: np.ndarray, s_new: np.ndarray, place_old: np.ndarray,
             new_boards: np.ndarray, board_strength: np.ndarray | None, game: Game
             ) -> tuple[np.ndarray, np.ndarray]:
    """``(out, nut out)`` flags ``(n, C)``: which of ``n`` next boards (rows) is an out of each
    hand (columns), given its class's place in the game's order and its strength there
    (``place_new``, ``s_new``; strength 0 where the hand holds the card), its place now
    (255: the hand touches the board), and (five-card next boards) each board's own
    strength."""
    valid = (s_new > 0) & (place_old != 255)
    better = valid & (place_new < place_old)
    if board_strength is None:           # four cards: above the board's own category
        cat = category_table(game.scale)[s_new]
        better &= cat > board_category(new_boards)[:, None]
    else:
        better &= s_new > board_strength[:, None]
    nuts = s_new == s_new.max(axis=1, keepdims=True)
    return better, better & nuts
