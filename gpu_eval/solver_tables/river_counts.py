"""Heads-up showdown counts of every hole pair on a board against every opponent pair.

For one board (5 cards) of ``C`` columns and the board's strengths ``S`` (``board_strengths``,
0 where blocked), the hero pair ``h = {a, b}`` wins against the opponent pairs that share no
card with ``h`` and are weaker. Instead of comparing ``h`` with all of them, the columns are
sorted once and counted with card removal (inclusion-exclusion on the cards ``h`` holds):

    wins(h) = less(h) - less_a(h) - less_b(h)           (no pair weaker than h holds both)
    ties(h) = equal(h) - equal_a(h) - equal_b(h) + 1    (h itself is in all three)

where ``less`` counts every valid column weaker than ``h`` and ``less_a`` those through card
``a``. ``less`` and ``equal`` come from one sort of the board's columns; the per-card counts
from a histogram of dense strength ranks per card (a ``bincount`` over the ``deck - 1`` columns
through each card, then a running sum), so the work is a few passes over the board's columns,
not ``C x C`` comparisons. The counts are exact integers: ``wins + ties + losses`` is the
number of opponent pairs, 990 in hold'em (``C(45, 2)``) and 406 in short deck (``C(29, 2)``).
"""

from __future__ import annotations

from math import comb

import numpy as np

from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["count_columns", "opponents"]


def opponents(lay: DeckLayout, board_cards: int = 5) -> int:
    """Opponent pairs left once a board and the hero's two cards are out of the deck.

    Examples
    --------
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> opponents(deck_layout("holdem")), opponents(deck_layout("shortdeck"))
    (990, 406)
    """
    return comb(lay.deck_size - board_cards - 2, 2)


def count_columns(strengths: np.ndarray, lay: DeckLayout, board_cards: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(wins, ties)``, each ``(B, C)`` uint16, of every hero column on each of ``B`` boards.

    ``strengths`` is the ``(B, C)`` uint16 output of ``board_strengths`` for boards of
    ``board_cards`` cards each; blocked heroes get 0 wins and 0 ties.
    """
    s = np.ascontiguousarray(strengths).view(np.uint16)
    nb, nc = s.shape
    if nb == 0:
        z = np.zeros((0, nc), dtype=np.uint16)
        return z, z.copy()
    rows = np.arange(nb)[:, None]
    order = np.argsort(s, axis=1, kind="stable")           # radix sort of 16-bit keys
    sv = np.take_along_axis(s, order, axis=1)
    new = np.empty((nb, nc), dtype=bool)
    new[:, 0] = True
    np.not_equal(sv[:, 1:], sv[:, :-1], out=new[:, 1:])
    pos = np.arange(nc, dtype=np.int32)
    start = np.maximum.accumulate(np.where(new, pos, 0), axis=1)      # first of the tie group
    last = np.empty((nb, nc), dtype=bool)
    last[:, -1] = True
    last[:, :-1] = new[:, 1:]
    stop = np.minimum.accumulate(np.where(last, pos + 1, nc)[:, ::-1], axis=1)[:, ::-1]
    dense_sorted = np.cumsum(new, axis=1, dtype=np.int32) - 1          # 0 is the blocked group
    less = np.empty((nb, nc), dtype=np.int32)
    equal = np.empty((nb, nc), dtype=np.int32)
    dense = np.empty((nb, nc), dtype=np.int32)
    less[rows, order] = start
    equal[rows, order] = stop - start
    dense[rows, order] = dense_sorted

    # Per card: how many columns through it hold each dense rank, laid out board after board,
    # card after card; a running sum then gives every (board, card, rank) its "weaker" count.
    # Every card lies in exactly ``deck - 1`` columns, so the running sum at the start of
    # (board i, card c) is ``(i * deck + c) * (deck - 1)``, no lookup needed.
    low = lay.lowest_card
    ncard = lay.deck_size
    groups = dense_sorted[:, -1] + 1                                     # distinct ranks
    board_base = np.zeros(nb, dtype=np.int32)
    np.cumsum(groups[:-1] * ncard, out=board_base[1:])
    through = lay.card_columns[low:]                                     # (n, n - 1)
    keys = np.take(dense, through.ravel(), axis=1).reshape(nb, ncard, ncard - 1)
    keys += board_base[:, None, None]
    keys += (np.arange(ncard, dtype=np.int32)[None, :] * groups[:, None])[:, :, None]
    total = int(board_base[-1]) + int(groups[-1]) * ncard
    hist = np.bincount(keys.ravel(), minlength=total).astype(np.int32)
    below = np.cumsum(hist, dtype=np.int32)
    below -= hist                                                        # exclusive running sum
    # ``less`` counts the blocked columns and each card's row its ``board_cards`` blocked ones.
    out_w = less - lay.blocked_columns(board_cards) + 2 * board_cards
    out_t = equal + 1
    for k in range(2):
        card = lay.pairs[:, k].astype(np.int32) - low                    # (C,)
        at = dense + board_base[:, None]
        at += card[None, :] * groups[:, None]
        out_w -= np.take(below, at)
        out_w += (np.arange(nb, dtype=np.int32)[:, None] * ncard + card[None, :]) * (ncard - 1)
        out_t -= np.take(hist, at)
    valid = dense > 0
    wins = np.where(valid, out_w, 0).astype(np.uint16)
    ties = np.where(valid, out_t, 0).astype(np.uint16)
    return wins, ties
