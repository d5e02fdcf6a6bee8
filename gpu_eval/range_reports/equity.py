"""Exact equity of every combo of one range against the other, both ways, from the counts of
:mod:`gpu_eval.range_reports.showdowns`.

For a combo ``h`` against a weighted range (weights ``u``) on a board of ``k`` cards, the
integers are those of ``gpu_eval.equity([h, villain], board=board, exact=True)``:
``matchups`` is the number of opponent combos that share no card with ``h``, the board or
the dead cards; each is played on ``boards`` completions; ``wins`` and ``ties`` are the
showdowns won and split, summed over those matchups without weights. The fractions weigh each
matchup by its opponent's weight: ``win = sum_v u_v wins_v / (sum_v u_v * boards)``, and so on
(``equity = win + tie / 2``, two players).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpu_eval.range_reports.showdowns import count_boards
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["Counts", "versus", "side_counts", "column_weights", "opponents"]


@dataclass(frozen=True)
class Counts:
    """Per hand (last axis; leading axes: boards): the integer ``wins``, ``ties``,
    ``matchups`` and the weighted ``win_weight``, ``tie_weight`` and ``weight`` (total
    opponent weight) the fractions come from, ``boards`` completions per matchup."""

    wins: np.ndarray
    ties: np.ndarray
    matchups: np.ndarray
    win_weight: np.ndarray
    tie_weight: np.ndarray
    weight: np.ndarray
    boards: int

    def map(self, fn: Callable[[np.ndarray], np.ndarray]) -> Counts:
        """``fn`` applied to every array (``boards`` kept)."""
        return Counts(wins=fn(self.wins), ties=fn(self.ties), matchups=fn(self.matchups),
                      win_weight=fn(self.win_weight), tie_weight=fn(self.tie_weight),
                      weight=fn(self.weight), boards=self.boards)

    def fractions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(equity, win, tie)``; NaN where no opponent combo fits."""
        with np.errstate(invalid="ignore", divide="ignore"):
            total = self.weight * self.boards
            win = np.where(self.matchups > 0, self.win_weight / total, np.nan)
            tie = np.where(self.matchups > 0, self.tie_weight / total, np.nan)
            share = np.where(self.matchups > 0, self.tie_weight / (2 * total), np.nan)
        return win + share, win, tie


def column_weights(combos_cols: np.ndarray, weights: np.ndarray, columns: int) -> np.ndarray:
    """A range's weights spread over the columns (0 elsewhere)."""
    out = np.zeros(columns)
    out[combos_cols] = weights
    return out


def opponents(lay: DeckLayout, w: np.ndarray) -> np.ndarray:
    """Per column, the total of ``w`` (``(m, C)``) over the columns sharing no card with it:
    all, less those through either card, plus the column itself (counted twice)."""
    cards = lay.pairs.T.ravel()                 # first cards, then second cards: add.at's order
    through = np.stack([np.bincount(cards, weights=np.concatenate([row, row]), minlength=52)
                        for row in w]).reshape(w.shape[0], 52)
    a = lay.pairs[:, 0].astype(np.intp)
    b = lay.pairs[:, 1].astype(np.intp)
    return w.sum(axis=1, keepdims=True) - through[:, a] - through[:, b] + w


def versus(boards: np.ndarray, lay: DeckLayout, hero: np.ndarray, villain: np.ndarray, *,
           reduce: str = "sum", segments: np.ndarray | None = None, bar=None,
           backend: str = "numpy", multiplicity: np.ndarray | None = None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """The showdown counts of both ranges over the complete ``boards``.

    ``hero``, ``villain``: ``(C,)`` column weights, 0 where a combo is out of the range or
    touches a known card. Returns ``(less, equal, weights, where)``: the counts of
    :func:`count_boards` against the distinct vectors ``weights`` (villain, its indicator,
    hero, its indicator: ``where`` says which row each of those four is), summed over the
    boards (``reduce="sum"``), per board (``"none"``) or per segment (``"segments"``, see
    :func:`count_boards`).
    """
    vecs = [villain, (villain > 0).astype(float), hero, (hero > 0).astype(float)]
    uniq: list[np.ndarray] = []
    where = []
    for v in vecs:   # ranges of weight 1 share one vector with their indicator
        for i, u in enumerate(uniq):
            if np.array_equal(u, v):
                where.append(i)
                break
        else:
            where.append(len(uniq))
            uniq.append(v)
    w = np.stack(uniq)
    less, equal = count_boards(boards, lay, w, reduce=reduce, segments=segments, bar=bar,
                               backend=backend, multiplicity=multiplicity)
    return less, equal, w, where


def side_counts(less: np.ndarray, equal: np.ndarray, opp: np.ndarray, weighted: int,
                counted: int, per_matchup: int) -> Counts:
    """The :class:`Counts` of one side from :func:`versus`'s arrays (row ``weighted`` for the
    opponent's weights, ``counted`` for its indicator) and :func:`opponents` of the same
    vectors (broadcasting against the counts)."""
    shape = less[weighted].shape
    return Counts(wins=np.rint(less[counted]).astype(np.int64),
                  ties=np.rint(equal[counted]).astype(np.int64),
                  matchups=np.rint(np.broadcast_to(opp[counted], shape)).astype(np.int64),
                  win_weight=less[weighted], tie_weight=equal[weighted],
                  weight=np.broadcast_to(opp[weighted], shape), boards=per_matchup)
