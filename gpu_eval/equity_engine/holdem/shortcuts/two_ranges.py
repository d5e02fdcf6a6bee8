"""Heads-up range against range on the turn or the river: counted with a handful of NumPy
calls.

On the turn only 44 rivers are left per matchup, so in the general path of
:func:`gpu_eval.equity` (ranges parsed, matchups enumerated, the card pool made unique, suit
symmetry looked for, rank pairs shared, results built per matchup) the per-call overhead costs
several times the showdowns themselves. :func:`counts` takes two range texts and a 4- or
5-card board of plain text; anything else (one known hand, three or more players, the flop,
bad input) returns None, and the general path runs and raises its usual errors.

Per (range text, board, dead cards), cached: the range with the known cards removed, and each
combo's strength on every river card of the deck (the rank-multiset table
:func:`gpu_eval.equity_engine.holdem.shortcuts.flush_free_ranks.plain7`, raised to the flush table where the
suit
can reach five cards), 0 on a river that is one of the combo's own cards. Per call: the 2-D
matchup grid of disjoint combos and one broadcast comparison ``(A, B, rivers)``. A river that
is one of a valid matchup's four hole cards compares a real strength with 0 (never a tie), so
it is a "win" of the other side: each side's raw count is two too high, and nothing else is
off. The integers are those of the general path.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from gpu_eval.card_input import plain_text_ids
from gpu_eval.card_spelling import CARD_BIT, CARD_POW5, RANK_BIT
from gpu_eval.equity_engine.holdem.shortcuts import flush_free_ranks
from gpu_eval.evaluator.tables import bitmask_tables
from gpu_eval.ranges import Range

__all__ = ["counts", "MAX_GRID"]

#: The largest comparison grid (combos x combos x rivers) played here at once (memory).
MAX_GRID = 20_000_000

_SUIT = np.arange(52) % 4
_BYTES = np.uint64(0x0101010101010101)




def _strengths(combos: np.ndarray, board: tuple[int, ...], rivers: np.ndarray) -> np.ndarray:
    """``(M, R)`` ``uint16`` strengths of each combo with the board and each river card (the
    evaluator's integers; with ``R = 1`` and no river card for a full board), 0 where the
    river is one of the combo's cards."""
    keys7, plain7 = flush_free_ranks.plain7()
    c = combos.astype(np.intp)
    b = np.array(board, dtype=np.intp)
    key = CARD_POW5[c].sum(axis=1) + int(CARD_POW5[b].sum())                      # (M,)
    r = rivers.astype(np.intp)
    key = key[:, None] + (CARD_POW5[r][None, :] if len(r) else np.zeros((1, 1), np.int64))
    # A river that is one of the combo's cards can make a fifth copy of a rank, a key past
    # the table's end: clip it (those cells are zeroed below).
    pos = np.searchsorted(keys7, key)
    np.minimum(pos, len(keys7) - 1, out=pos)
    st = plain7[pos]  # uint16: half the bytes to compare
    flush = bitmask_tables().flush
    board_suits = np.bincount(_SUIT[b], minlength=4)
    for s in range(4):
        if board_suits[s] + 2 < len(board):   # 7 - len(board) cards to come cannot make five
            continue
        lane = sum(int(RANK_BIT[x]) for x in board if x % 4 == s)
        hole = ((_SUIT[c] == s) * RANK_BIT[c]).sum(axis=1)                # (M,)
        riv = (_SUIT[r] == s) * RANK_BIT[r] if len(r) else np.zeros(1, np.intp)
        np.maximum(st, flush[(hole[:, None] | riv[None, :]) | lane], out=st)
    if len(r):
        st[(c[:, :1] == r[None, :]) | (c[:, 1:] == r[None, :])] = 0
    return st


def _count(grid: np.ndarray) -> np.ndarray:
    """``grid.sum(axis=2)`` of a C-contiguous boolean ``(A, B, R)`` grid, ``R`` a multiple of
    8: eight booleans summed at once as the bytes of a ``uint64`` (each byte's sum is at most
    ``R / 8``), then the eight byte sums added by one multiplication (at most ``R < 256``).
    A third less time than ``np.count_nonzero(grid, axis=2)``."""
    words = np.add.reduce(grid.view(np.uint64), axis=2)
    return (words * _BYTES) >> np.uint64(56)


@lru_cache(maxsize=128)
def _range(text: str) -> Range | None:
    """The range of a text; None when it is not one of at least two combos (cached by the
    text alone: a known hand is told apart once, not once per board)."""
    try:
        r = Range(text)
    except ValueError:
        return None
    return r if len(r) >= 2 else None


@lru_cache(maxsize=128)
def _live_range(text: str, board: tuple[int, ...], dead: tuple[int, ...]) -> Range | None:
    """The range with the board and dead cards removed; None when the text is not a range of
    at least two combos after the removal (the general path: a known hand, or an error to
    name)."""
    r = _range(text)
    if r is None:
        return None
    known = 0
    for x in board + dead:
        known |= CARD_BIT[x]
    r = r.without(np.uint64(known), allow_empty=True)
    return r if len(r) >= 2 else None


@lru_cache(maxsize=128)
def _player(text: str, board: tuple[int, ...], dead: tuple[int, ...], side: int
            ) -> tuple | None:
    """``(masks, weights, strengths (M, R))`` of a range with the board and dead cards
    removed, read-only; None where :func:`_live_range` is. ``side`` (0 for the first player,
    1 for the second) fills the padding columns."""
    r = _live_range(text, board, dead)
    if r is None:
        return None
    known = 0
    for x in board + dead:
        known |= CARD_BIT[x]
    rivers = np.array([x for x in range(52) if not known >> (16 * (x % 4) + x // 4) & 1]
                      if len(board) == 4 else [], dtype=np.intp)
    st = _strengths(np.asarray(r.combos), board, rivers)
    # Columns padded to a multiple of 8 for _count: 0 here and 1 for the other side (as
    # player 2), so a padded column is neither a win nor a tie of either side.
    pad = -st.shape[1] % 8
    st = np.concatenate([st, np.full((len(st), pad), side, dtype=st.dtype)], axis=1)
    st.flags.writeable = False
    return r.masks, r.weights, st


def counts(players, board, dead) -> tuple | None:
    """``(wins (M, 2), ties (M, 2), units (M, 2), valid (M,), scale, weights (M,), boards per
    matchup, labels, board ids, dead ids)`` of two ranges on a turn or river, or None.

    The rows are the matchups in the order of
    :func:`gpu_eval.equity_engine.problem.enumerate_matchups` (disjoint combo pairs, row-major).

    Examples
    --------
    >>> c = counts(["QQ+,AKs", "22+,A2s+,KTs+"], "2c7d9hKs", "")
    >>> c[0].sum(axis=0).tolist(), c[1].sum(axis=0).tolist(), c[6]
    ([65496, 14628], [792, 792], 44)
    >>> counts(["AhKh", "QQ+"], "2c7d9hKs", "") is None   # a known hand: the general path
    True
    """
    if not isinstance(players, (list, tuple)) or len(players) != 2 \
            or not isinstance(board, str) or not isinstance(dead, (str, type(None))):
        return None
    if not all(isinstance(p, str) and p.strip() for p in players):
        return None
    b = plain_text_ids(board)
    d = plain_text_ids(dead or "")
    if b is None or d is None or len(b) not in (4, 5) or len(set(b + d)) != len(b) + len(d) \
            or 9 + len(d) > 52:
        return None
    labels = tuple(p.strip() for p in players)
    # both ranges first: a known hand against a range (every river spot against "random")
    # goes the general way without the range's strengths on this board
    if any(_live_range(x, tuple(b), tuple(d)) is None for x in labels):
        return None
    pa = _player(labels[0], tuple(b), tuple(d), 0)
    pb = _player(labels[1], tuple(b), tuple(d), 1)
    if pa is None or pb is None:
        return None
    (ma, wa, sa), (mb, wb, sb) = pa, pb
    rows, cols = np.nonzero((ma[:, None] & mb[None, :]) == 0)
    if len(rows) == 0:
        return None  # the general path says no matchup is possible
    n_riv = 48 - len(d) if len(b) == 4 else 1   # river cards left (before the hole cards)
    if len(ma) * len(mb) * sa.shape[1] > MAX_GRID:
        return None  # the general path, chunked
    grid_a, grid_b = sa[:, None, :], sb[None, :, :]
    win = _count(grid_a > grid_b)[rows, cols].astype(np.int64)
    tie = _count(grid_a == grid_b)[rows, cols].astype(np.int64)
    extra = 2 if len(b) == 4 else 0    # the rivers that are the other side's hole cards
    per = n_riv - 2 * extra
    wins = np.column_stack([win - extra, n_riv - win - tie - extra])
    ties = np.column_stack([tie, tie])
    valid = np.full(len(rows), per, dtype=np.int64)
    weights = wa[rows] * wb[cols]
    return wins, ties, ties.copy(), valid, 2, weights, per, labels, b, d
