"""Exact showdown counts on the complete boards on which no flush can be made, by rank pair.

When no suit shows three cards on a complete (5-card) board, no hole pair makes a flush, so a
pair's strength depends on its two ranks alone: one strength per rank pair (91 in hold'em, 45
in short deck, :func:`gpu_eval.solver_tables.board_strengths.rank_pair_strengths`). The counts
of :mod:`gpu_eval.range_reports.showdowns` then need no sort of the board's columns. For a
column ``h = {a, b}`` of ranks ``(ra, rb)``, against opponent weights ``u`` (0 on the columns
that touch the board):

    less(h) = L(s_h) - L_a(s_h) - L_b(s_h)
    equal(h) = E(s_h) - E_a(s_h) - E_b(s_h) + u_h

* ``L`` and ``E`` (the weight of all weaker and of all equal columns) are those of the weaker
  and equal *rank pairs*: the weights added up per rank pair, a running sum over the rank pairs
  sorted by strength (``R`` entries a board instead of ``K``);
* ``L_a`` and ``E_a`` (the columns through card ``a``) are those of the partner ranks ``r``
  whose pair ``(ra, r)`` is weaker than (equal to) ``(ra, rb)``: per card a 13-entry table of
  the weights of the columns through it, added up by partner rank, times a 13 x 26 0/1 matrix
  per board and rank (``r`` weaker than ``rb`` in ``ra``'s row of strengths, and at most as
  strong), one small product shared by the four cards of the rank.

The rank pairs' sort and the matrices depend on the board only, so they are made once per
board and shared by every weight vector; per column and vector what is left is two lookups
for ``less`` and two for ``equal`` (``L - L_a`` is tabled per card and partner rank). The
boards with three or more cards of a suit keep the sorting count of
:mod:`gpu_eval.range_reports.showdowns`; both give the same numbers (the same integers for 0/1
weights, the same sums up to rounding for other weights).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gpu_eval import cards
from gpu_eval.range_reports import bits
from gpu_eval.solver_tables.board_strengths import rank_pair_strengths
from gpu_eval.solver_tables.layout import DeckLayout, deck_layout

__all__ = ["flush_free", "counts_by_rank", "rank_rows", "sorted_runs"]

#: Ranks of the bitmask layout (a deck's ranks are a top part of them).
RANKS = 13


def flush_free(boards: np.ndarray) -> np.ndarray:
    """Which boards show at most two cards of every suit (no flush with two more cards).

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(n,)`` card masks.

    Returns
    -------
    numpy.ndarray of bool
        ``(n,)``.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> flush_free(cards.to_mask(["Kd7c2h5s9d", "Kd7d2d5s9c"])).tolist()
    [True, False]
    """
    return np.asarray(bits.suit_most(boards) <= 2)


@cache
def rank_rows(game: str) -> np.ndarray:
    """``(13, 13)``: the rank-pair row of each (rank, rank), -1 where a rank is not dealt."""
    rp = deck_layout(game).rank_pairs.astype(np.intp)
    pair_of = np.full((RANKS, RANKS), -1, dtype=np.intp)
    pair_of[rp[:, 0], rp[:, 1]] = np.arange(len(rp))
    pair_of[rp[:, 1], rp[:, 0]] = np.arange(len(rp))
    pair_of.flags.writeable = False
    return pair_of


def sorted_runs(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the rows of ``key`` (``(rows, w)``, entries in ``[0, 2**20)``), each sorted:
    ``(order, first, last)``, all ``(rows, w)`` row-local positions: the entry at each sorted
    position (ties in place order), and for each entry (in its original place) the sorted
    positions of the first and the last entry of its run of equal keys.

    One sort of ``row << 40 | key << 20 | place`` for all rows (faster than a sort per row).

    Examples
    --------
    >>> order, first, last = sorted_runs(np.array([[5, 3, 5, 1]]))
    >>> order.tolist(), first.tolist(), last.tolist()
    ([[3, 1, 0, 2]], [[2, 1, 2, 0]], [[3, 1, 3, 0]])
    """
    rows, w = key.shape
    n = rows * w
    v = ((np.arange(rows, dtype=np.int64) << 40)[:, None] | (key.astype(np.int64) << 20)
         | np.arange(w, dtype=np.int64)).ravel()
    v.sort()
    order = (v & 0xFFFFF).astype(np.intp)
    v >>= 20                                                            # row and key
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(v[1:], v[:-1], out=new[1:])
    run = np.cumsum(new, dtype=np.intp)
    run -= 1
    starts = np.flatnonzero(new)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:] - 1
    ends[-1:] = n - 1
    row_start = np.repeat(np.arange(0, n, w, dtype=np.intp), w)
    flat = order + row_start                                            # flat place at each position
    first = np.empty(n, dtype=np.intp)
    last = np.empty(n, dtype=np.intp)
    first[flat] = starts.take(run) - row_start
    last[flat] = ends.take(run) - row_start
    return order.reshape(rows, w), first.reshape(rows, w), last.reshape(rows, w)


def _sums(values: np.ndarray, gather: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Running sums along sorted rows: ``values`` (``(rows, w)``) taken in the flat order
    ``gather``; flat ``(before, through)`` each sorted position."""
    vs = values.ravel().take(gather)
    through = np.cumsum(vs, axis=1)
    before = through - vs
    return before.ravel(), through.ravel()


def counts_by_rank(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
                   cols: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per weight vector, the ``(less, equal)`` counts of the columns ``cols`` on each
    flush-free complete board.

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(n,)`` masks of 5-card boards of the layout's deck, each with at most two cards of a
        suit (:func:`flush_free`).
    lay : DeckLayout
        The game's columns (:func:`gpu_eval.solver_tables.layout.deck_layout`).
    vectors : list of numpy.ndarray
        Weight vectors over ``cols`` (``(K,)`` each): float64, or int64 holding two 0/1
        vectors, one in the low and one in the high 32 bits (sums and differences of those
        stay exact; see :mod:`gpu_eval.range_reports.showdowns`).
    cols : numpy.ndarray of int
        ``(K,)`` the columns counted and counted against (columns of ``lay``, increasing).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        Per vector ``(less, equal)``, each ``(n, K)`` of the vector's dtype: the weight of the
        columns of ``cols`` (disjoint from the column and the board) that the column beats and
        that it ties; 0 where the column touches the board.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> lay = deck_layout("holdem")
    >>> cols = np.arange(lay.columns)
    >>> [(less, equal)] = counts_by_rank(cards.to_mask(["AsKdQcJhTs"]), lay,
    ...                                  [np.ones(lay.columns)], cols)
    >>> int(less.sum()), int(equal.sum())      # everyone holds the ace-high straight
    (0, 1070190)
    """
    n = len(boards)
    pair_of = rank_rows(lay.game)
    R = len(lay.rank_pairs)
    deck, low = lay.deck_size, lay.lowest_card
    Z = n * deck * RANKS                                               # the zero entry
    ps = rank_pair_strengths(boards, lay)                              # (n, R)
    pc = lay.pairs[cols].astype(np.intp)
    ra, rb = pc[:, 0] >> 2, pc[:, 1] >> 2
    ca, cb = pc[:, 0] - low, pc[:, 1] - low                            # deck-relative cards
    board = np.arange(n, dtype=np.intp)[:, None]
    # The cells (board, column) whose column touches the board, flat: those through each of
    # the board's five cards (a few hundred a board, not a test of every cell).
    where = np.full(lay.columns, -1, dtype=np.intp)
    where[cols] = np.arange(len(cols))
    through = where[lay.card_columns[cards.from_mask(boards).reshape(n, -1)]].reshape(n, -1)
    blocked = (board * len(cols) + through)[through >= 0]

    # Each column's entries of its cards' tables, (board, a, rb) and (board, b, ra), flat; the
    # columns that touch the board read (and add to) the zero entry instead.
    at_a = (board * (deck * RANKS) + (ca * RANKS + rb)).ravel()
    at_b = (board * (deck * RANKS) + (cb * RANKS + ra)).ravel()
    at_a[blocked] = Z
    at_b[blocked] = Z

    # All columns: the rank pairs in strength order, per board; and per (board, dealt rank ra,
    # partner rank rb) the sorted positions of the pair (ra, rb)'s tie run.
    lowest = low >> 2
    dealt = np.arange(lowest, RANKS)
    nr = len(dealt)
    g_order, g_first, g_last = sorted_runs(ps)
    g_gather = g_order + board * R
    at_pair = (board[:, :, None] * R + pair_of.clip(0)[dealt][None]).ravel()
    g_lo = (g_first + board * R).ravel().take(at_pair)
    g_hi = (g_last + board * R).ravel().take(at_pair)

    # Through one card of rank ra: the partner ranks r weaker than rb in ra's row of strengths
    # and those at most as strong, interleaved, ``order[board, ra, r, 2 rb + (0 | 1)]`` (the
    # ranks that are not dealt have key -1 and no weight): a card's 13-entry table times this
    # matrix is its weight below and through each partner rank's tie run, the two side by
    # side as the real and imaginary parts of a complex number.
    keys = np.where(pair_of >= 0, ps[:, pair_of.clip(0)], -1)[:, dealt].astype(np.int32)
    r_key, rb_key = keys[:, :, :, None], keys[:, :, None, :]
    below = np.empty((n, nr, RANKS, 2, RANKS), dtype=bool)
    np.less(r_key, rb_key, out=below[..., 0, :])
    np.less_equal(r_key, rb_key, out=below[..., 1, :])
    order = below.astype(np.float64).reshape(n, nr, RANKS, 2 * RANKS)

    # A rank pair's weight from the cards' tables: the columns of ranks (r1, r2) through the
    # cards of rank r1 with partner rank r2 (a pocket pair's through both of its cards).
    rp = lay.rank_pairs.astype(np.intp)
    of_pair = (rp[:, 0] - lowest) * RANKS + rp[:, 1]
    halve = np.where(rp[:, 0] == rp[:, 1], 0.5, 1.0)

    out = []
    for vec in vectors:
        ws = np.tile(vec, n)                                            # flat (n, K)
        ws[blocked] = 0
        t = np.bincount(at_a, weights=ws, minlength=Z + 1)
        t += np.bincount(at_b, weights=ws, minlength=Z + 1)
        t4 = t[:Z].reshape(n, nr, 4, RANKS)                            # (board, rank, suit, r)
        u = t4.sum(axis=2).reshape(n, nr * RANKS)[:, of_pair] * halve   # (n, R)
        g_before, g_through = _sums(u, g_gather)
        card = np.matmul(t4, order)                                     # (n, nr, 4, 26)
        # Per (board, card, partner rank), the weight below and through the tie run: ``mine``
        # of the columns through the card, ``pair`` of the rank pair's others; one more entry,
        # zero, for the columns that touch the board. In the vector's dtype (an integer
        # vector's sums are exact integers below 2**53 in the floats).
        tables = []
        for part, g in ((slice(None, RANKS), g_before.take(g_lo)),
                        (slice(RANKS, None), g_through.take(g_hi))):
            mine = np.zeros(Z + 1, dtype=vec.dtype)
            pair = np.zeros(Z + 1, dtype=vec.dtype)
            mine[:Z].reshape(n, nr, 4, RANKS)[...] = card[..., part]
            pair[:Z].reshape(n, nr, 4, RANKS)[...] = g.reshape(n, nr, 1, RANKS) - card[..., part]
            tables.append((pair, mine))
        (pair_b, mine_b), (pair_t, mine_t) = tables
        less = pair_b.take(at_a)
        less -= mine_b.take(at_b)
        equal = pair_t.take(at_a)
        equal -= mine_t.take(at_b)
        equal += ws
        equal -= less
        out.append((less.reshape(n, -1), equal.reshape(n, -1)))
    return out
