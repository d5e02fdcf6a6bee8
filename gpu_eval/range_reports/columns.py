"""What every hole pair (column) holds on a board, hold'em and short deck: strength, made-hand
class, draws, nut rank, outs and nut outs, for many boards at once.

A range's rows are then a gather of its combos' columns, so one classification of the deck's
1,326 (short deck: 630) pairs serves both ranges and any range.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.evaluator.api import evaluate
from gpu_eval.games.registry import Game
from gpu_eval.range_reports import bits
from gpu_eval.range_reports.draws import draw_columns
from gpu_eval.range_reports.made_hands import class_order, classify_columns
from gpu_eval.range_reports.outs import improves, nut_rank
from gpu_eval.solver_tables.board_strengths import strengths_of_masks
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["Features", "column_features", "gather"]


@dataclass(frozen=True)
class Features:
    """Per board (rows) and hand (columns): ``strength`` (uint16, 0 where the hand touches
    the board), ``made`` (class number in the game's order, 255 where blocked), ``draws``
    (bits of :data:`gpu_eval.range_reports.draws.DRAWS`), ``straight_ranks`` (ranks that
    complete a straight), ``nut_rank`` (-1 where blocked), ``outs`` and ``nut_outs`` (None
    when not asked for; 0 on the river)."""

    strength: np.ndarray
    made: np.ndarray
    draws: np.ndarray
    straight_ranks: np.ndarray
    nut_rank: np.ndarray
    outs: np.ndarray | None = None
    nut_outs: np.ndarray | None = None

    def map(self, fn: Callable[[np.ndarray], np.ndarray]) -> Features:
        """``fn`` applied to every array (``outs`` and ``nut_outs`` stay None when absent)."""
        return Features(fn(self.strength), fn(self.made), fn(self.draws),
                        fn(self.straight_ranks), fn(self.nut_rank),
                        None if self.outs is None else fn(self.outs),
                        None if self.nut_outs is None else fn(self.nut_outs))


def gather(f: Features, cols: np.ndarray) -> Features:
    """The features of the hands ``cols`` (indices along the last axis)."""
    return f.map(lambda a: np.take(a, cols, axis=-1))


def in_order(made_ids: np.ndarray, game: Game) -> np.ndarray:
    """Class ids (hold'em numbering, 255 blocked) as places in the game's order."""
    order = class_order(game).astype(np.uint8)
    return np.where(made_ids == 255, 255, order[np.minimum(made_ids, len(order) - 1)]
                    ).astype(np.uint8)


def _basic(boards: np.ndarray, lay: DeckLayout, game: Game):
    s = strengths_of_masks(boards, lay)
    made = in_order(classify_columns(boards, s, lay, game), game)
    return s, made


def column_features(boards: np.ndarray, lay: DeckLayout, game: Game, *, dead: int = 0,
                    outs: bool = True) -> Features:
    """The :class:`Features` of every column on each of ``boards`` (masks, all of one size:
    3, 4 or 5 cards); outs only when asked for.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.games import registry
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> f = column_features(cards.to_mask(["Kd7c2h"]), deck_layout("holdem"), registry.get("holdem"))
    >>> j = 1325                            # AhAs: an overpair, 2 outs to a set, 6 hands better
    >>> int(f.made[0, j]), int(f.outs[0, j]), int(f.nut_rank[0, j])
    (8, 2, 6)
    """
    boards = np.ascontiguousarray(boards, dtype=np.uint64)
    k = int(bits.popcount(boards[:1])[0]) if len(boards) else 3
    s, made = _basic(boards, lay, game)
    draws, ranks = draw_columns(boards, lay, game)
    blocked = s == 0
    draws[blocked] = 0
    ranks[blocked] = 0
    f = Features(s, made, draws, ranks, nut_rank(s))
    if not outs:
        return f
    n_out = np.zeros(s.shape, dtype=np.int16)
    n_nut = np.zeros(s.shape, dtype=np.int16)
    if k < game.full_board:
        low = 4 * game.lowest_rank
        ids = np.arange(low, 52)
        nxt = boards[:, None] | ID_TO_MASK[ids][None, :]                     # (B, n)
        fresh = (boards[:, None] & ID_TO_MASK[ids][None, :]) == 0
        fresh &= (ID_TO_MASK[ids] & np.uint64(dead))[None, :] == 0
        uniq, inv = np.unique(nxt[fresh], return_inverse=True)
        s_new, made_new = _basic(uniq, lay, game)
        own = None
        if k + 1 == 5:   # a five-card board's own hand: an out must beat it
            own = np.asarray(evaluate(uniq, game=game.name, backend="numpy")).view(np.uint16)
        owner = np.nonzero(fresh)[0]                   # the board each next board follows
        for b in range(len(boards)):
            sel = inv[owner == b]
            out, nut = improves(made_new[sel], s_new[sel], made[b], uniq[sel],
                                None if own is None else own[sel], game)
            n_out[b] = out.sum(axis=0)
            n_nut[b] = nut.sum(axis=0)
    return Features(s, made, draws, ranks, f.nut_rank, n_out, n_nut)
