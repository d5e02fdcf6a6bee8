"""Exact showdown counts summed over complete boards of five cards of one suit, sorting only
the columns that hold a card of that suit.

On such a board (five ranks, so no full house) every column holds at least the board's own
flush ``f_B``: the columns with no card of the suit ``s`` (``N``) play exactly that, and they
never touch the board; a column holding a card of ``s`` (``F``) plays ``f_B`` or better. So,
per board:

* a column ``h`` of ``N`` beats nothing and ties the other ``N`` columns that miss it
  (``W_N - T_N(a) - T_N(b) + u_h``, the same on every board: ``T_N(c)`` is the weight of the
  ``N`` columns through card ``c``) and the ``F`` columns that miss the board and ``h`` and
  play ``f_B`` (summed over the boards per card: ``E - E(a) - E(b)``, ``E(c)`` their weight
  through ``c`` times the boards on which they play ``f_B``);
* a column ``g`` of ``F`` that misses the board against ``F``: the sorting count
  (:func:`gpu_eval.range_reports.showdowns.sorted_counts`, given as ``sort``), against ``N``:
  it beats (if better than ``f_B``) or ties (if ``f_B``) all of ``N`` that misses it, again
  the same weight on every board.

Only ``F`` (the columns through the suit's 8 to 10 unseen cards, about a third) is sorted.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpu_eval.range_reports import bits
from gpu_eval.range_reports.strengths import column_strengths
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["five_flush", "five_flush_sums"]

Sort = Callable[[np.ndarray, DeckLayout, list[np.ndarray], np.ndarray],
                list[tuple[np.ndarray, np.ndarray]]]


def _suit_counts(boards: np.ndarray) -> np.ndarray:
    return np.bitwise_count(bits.lanes(boards))


def five_flush(boards: np.ndarray) -> np.ndarray:
    """Per complete board, the suit of its five cards (-1 where they are not all one suit).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> five_flush(cards.to_mask(["Kh7h2h5h9h", "Kh7h2h5h9d", "As2s3s4s5s"])).tolist()
    [2, -1, 3]
    """
    counts = _suit_counts(boards)
    return np.where(counts.max(axis=1) == 5, np.argmax(counts, axis=1), -1).astype(np.intp)


def five_flush_sums(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
                    cols: np.ndarray, times: np.ndarray, sort: Sort
                    ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per weight vector, ``(less, equal)`` of the columns ``cols`` summed over boards of five
    cards of one suit (each times ``times``), ``(K,)`` of the vector's dtype.

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(n,)`` masks of complete boards, each of five cards of one suit (:func:`five_flush`).
    lay : DeckLayout
        The game's columns.
    vectors : list of numpy.ndarray
        Weight vectors over ``cols`` (float64, or int64 holding two 0/1 vectors, as in
        :mod:`gpu_eval.range_reports.showdowns`).
    cols : numpy.ndarray of int
        ``(K,)`` the columns counted and counted against.
    times : numpy.ndarray of int
        ``(n,)`` how many boards each board stands for.
    sort : callable
        ``sort(boards, lay, vectors, cols)``: per vector ``(less, equal)`` of ``cols`` on each
        board, ``(n, K)`` (:func:`gpu_eval.range_reports.showdowns.sorted_counts`).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        The same sums as ``sort``'s counts times ``times`` summed over the boards.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.range_reports.showdowns import sorted_counts
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> lay = deck_layout("holdem")
    >>> b = cards.to_mask(["Kh7h2h5h9h", "Qh8h3h5h9h", "As2s3s4s5s"])
    >>> cols, t, w = np.arange(lay.columns), np.array([2, 1, 3]), [np.ones(lay.columns)]
    >>> [(less, equal)] = five_flush_sums(b, lay, w, cols, t, sorted_counts)
    >>> [(lo, eq)] = sorted_counts(b, lay, w, cols)
    >>> bool((less == lo.T @ t).all()), bool((equal == eq.T @ t).all())
    (True, True)
    """
    K, D = len(cols), lay.deck_size
    pc = lay.pairs[cols].astype(np.intp) - lay.lowest_card             # (K, 2) deck-relative
    sums = [(np.zeros(K, dtype=v.dtype), np.zeros(K, dtype=v.dtype)) for v in vectors]
    suit = five_flush(boards)
    for s in np.unique(suit):
        rows = np.flatnonzero(suit == s)
        bs, ms = boards[rows], np.asarray(times)[rows].astype(np.int64)
        suited = (lay.pairs[cols] & 3) == s
        fi, ni = np.flatnonzero(suited.any(axis=1)), np.flatnonzero(~suited.any(axis=1))
        # The board's flush: what any column without a card of s plays (it misses the board).
        plain = np.flatnonzero(((lay.pairs & 3) != s).all(axis=1))[:1]
        flush = column_strengths(bs, lay, plain)[:, 0]                        # (n,)
        sf = column_strengths(bs, lay, cols[fi])                              # (n, |F|), 0 blocked
        better, level = sf > flush[:, None], sf == flush[:, None]
        n_better = (better * ms[:, None]).sum(axis=0)                   # boards each g beats N
        n_level = (level * ms[:, None]).sum(axis=0)                     # ... and ties N
        total = int(ms.sum())
        counted = sort(bs, lay, [np.ascontiguousarray(v[fi]) for v in vectors], cols[fi]) \
            if len(fi) else None
        for k, vec in enumerate(vectors):
            dt = vec.dtype
            lo, eq = sums[k]
            vn, vf = vec[ni], vec[fi]
            through_n = np.zeros(D, dtype=dt)                           # N's weight per card
            np.add.at(through_n, pc[ni, 0], vn)
            np.add.at(through_n, pc[ni, 1], vn)
            all_n = vn.sum()
            # Each F column against N: the N columns that miss it (none holds both its cards).
            miss_n = all_n - through_n[pc[fi, 0]] - through_n[pc[fi, 1]]
            if counted is not None:
                fl, fe = counted[k]
                t = ms.astype(dt)[:, None]
                lo[fi] += (fl * t).sum(axis=0) + miss_n * n_better.astype(dt)
                eq[fi] += (fe * t).sum(axis=0) + miss_n * n_level.astype(dt)
            # Each N column: N that misses it on every board, F at the board's flush.
            e = vf * n_level.astype(dt)
            e_card = np.zeros(D, dtype=dt)
            np.add.at(e_card, pc[fi, 0], e)
            np.add.at(e_card, pc[fi, 1], e)
            a, b = pc[ni, 0], pc[ni, 1]
            eq[ni] += ((all_n - through_n[a] - through_n[b] + vn) * dt.type(total)
                       + e.sum() - e_card[a] - e_card[b])
    return sums
