"""Heads-up showdown counts of every hole pair on a board against every opponent pair.

For one board (5 cards) of ``C`` columns and the board's strengths ``S`` (``board_strengths``,
0 where blocked), the hero pair ``h = {a, b}`` wins against the opponent pairs that share no
card with ``h`` and are weaker. Instead of comparing ``h`` with all of them, the columns are
sorted once and counted with card removal (inclusion-exclusion on the cards ``h`` holds):

    wins(h) = less(h) - less_a(h) - less_b(h)           (no pair weaker than h holds both)
    ties(h) = equal(h) - equal_a(h) - equal_b(h) + 1    (h itself is in all three)

where ``less`` counts every valid column weaker than ``h`` and ``less_a`` those through card
``a``. One sort of each board's columns numbers its tie groups (``less`` and ``equal`` are the
group's start and size); the per-card counts come from a histogram of (card, group) over every
column's two cards and its running sum, so the work is a few passes over the board's columns,
not ``C x C`` comparisons. The counts are exact integers: ``wins + ties + losses`` is the
number of opponent pairs, 990 in hold'em (``C(45, 2)``) and 406 in short deck (``C(29, 2)``).
"""

from __future__ import annotations

from math import comb

import numpy as np

from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["count_columns", "twice_counts", "weighted_counts", "opponents", "BATCH"]

#: Boards counted per NumPy pass: the (card, group) histogram and the temporaries stay in L2.
BATCH = 24


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
    wins = np.empty((nb, nc), dtype=np.uint16)
    ties = np.empty((nb, nc), dtype=np.uint16)
    for a in range(0, nb, BATCH):
        packed = weighted_counts(s[a:a + BATCH], lay, board_cards, 1, 1 << 16)
        np.copyto(wins[a:a + BATCH], packed, casting="unsafe")    # the low 16 bits
        np.right_shift(packed, 16, out=packed)
        np.copyto(ties[a:a + BATCH], packed, casting="unsafe")
    return wins, ties


def twice_counts(strengths: np.ndarray, lay: DeckLayout, board_cards: int) -> np.ndarray:
    """``2 * wins + ties`` (``(B, C)`` int32) of :func:`count_columns`, counted directly.

    Examples
    --------
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> from gpu_eval.solver_tables.board_strengths import strengths_of_masks
    >>> from gpu_eval import cards
    >>> lay = deck_layout()
    >>> s = strengths_of_masks(cards.to_mask(["Kd7c3h5s9d"]), lay)
    >>> w, t = count_columns(s, lay, 5)
    >>> bool((twice_counts(s, lay, 5) == 2 * w.astype(int) + t).all())
    True
    """
    s = np.ascontiguousarray(strengths).view(np.uint16)
    nb, nc = s.shape
    out = np.empty((nb, nc), dtype=np.int32)
    for a in range(0, nb, BATCH):
        np.copyto(out[a:a + BATCH], weighted_counts(s[a:a + BATCH], lay, board_cards, 2, 1),
                  casting="unsafe")
    return out


def weighted_counts(s: np.ndarray, lay: DeckLayout, board_cards: int, win: int, tie: int
                    ) -> np.ndarray:
    """``win * wins + tie * ties`` (``(B, C)`` uint32) of a few boards' contiguous strengths.

    Both counts are a per-group term minus two per-(card, group) terms, so any such sum is
    three gathers (``win=1, tie=65536`` packs the two fields into one uint32). uint32
    arithmetic wraps, which is exact modulo ``2**32``; the true result lies in ``[0, 2**32)``.
    """
    nb, nc = s.shape
    ncard = lay.deck_size
    order = np.argsort(s, axis=1, kind="stable")           # radix sort of 16-bit keys
    order += (np.arange(nb) * nc)[:, None]
    order = order.ravel()
    sv = np.take(s.ravel(), order)
    # Tie groups numbered across the whole batch; each board's first group (strength 0, the
    # blocked columns) is the one whose heroes count nothing.
    new = np.empty(nb * nc, dtype=bool)
    new[0] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:])
    new[::nc] = True
    g_sorted = np.cumsum(new, dtype=np.int32)
    g_sorted -= 1
    group = np.empty(nb * nc, dtype=np.int32)              # each column's group
    group[order] = g_sorted
    first = g_sorted[::nc]
    start = np.flatnonzero(new)
    ng = len(start)
    size = np.diff(start, append=nb * nc)
    board, less = np.divmod(start, nc)

    # (card, group) histogram, card-major; its running sum at (a, g) counts every column of
    # earlier cards (``nb * (ncard - 1)`` a card: each card lies in ``ncard - 1`` columns a
    # board), those through ``a`` on earlier boards (``ncard - 1`` each) and on this board
    # up to group ``g``. ``per_card`` = win * below + tie * equal less the earlier cards'
    # share; the earlier boards' share goes into the per-group term.
    card = (lay.pairs.astype(np.int32) - lay.lowest_card) * ng
    keys = np.empty((2, nb, nc), dtype=np.int32)
    np.add(group.reshape(nb, nc), card[:, 0], out=keys[0])
    np.add(group.reshape(nb, nc), card[:, 1], out=keys[1])
    hist = np.bincount(keys.ravel(), minlength=ng * ncard)
    running = np.cumsum(hist)
    if win != 1:
        running *= win
    hist *= tie - win                                      # win * (running - hist) + tie * hist
    hist += running
    per_card = hist.astype(np.uint32).reshape(ncard, ng)
    per_card -= (np.arange(ncard) * (win * nb * (ncard - 1))).astype(np.uint32)[:, None]
    per_card[:, first] = 0
    # ``less`` counts the blocked columns and each card's row its ``board_cards`` blocked ones.
    w = less - lay.blocked_columns(board_cards) + 2 * board_cards + 2 * (ncard - 1) * board
    per_group = (win * w + tie * (size + 1)).astype(np.uint32)
    per_group[first] = 0
    out = np.take(per_group, group)
    flat = per_card.ravel()
    out -= np.take(flat, keys[0].ravel())
    out -= np.take(flat, keys[1].ravel())
    return out.reshape(nb, nc)
