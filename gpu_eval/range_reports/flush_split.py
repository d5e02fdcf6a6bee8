"""Exact showdown counts summed over complete boards of five ranks with three or four cards
of one suit, split into the columns that make a flush there and those that do not.

On a board of five ranks with three (four) cards of a suit ``s``, the columns holding two
(one) cards of ``s`` (``F``) make a flush or better; the others (``N``) play their ranks, a
straight at best, below every ``F`` column. So, per board:

* ``N`` among themselves: by rank pair (:func:`gpu_eval.range_reports.rank_sums.sums_by_rank`
  over the boards of a group, ``N`` only: no flush cells);
* ``F`` among themselves: the sorting count (``sort``,
  :func:`gpu_eval.range_reports.showdowns.sorted_counts`);
* every ``F`` column beats every ``N`` column that misses it and the board (their weight by
  inclusion-exclusion over its two cards).

Only ``F`` is sorted; a group (suit, cards needed) is one rank count and one sort. On paired
boards the ``N`` columns' full houses and quads may beat flushes: those boards are not split
(a split with a full-house threshold was tried: no faster than the rank count's flush cells
or the sort, see benchmarks/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpu_eval import cards
from gpu_eval.range_reports import bits
from gpu_eval.range_reports.rank_sums import sums_by_rank
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["SPLIT_BOARDS", "SPLIT_NEEDS", "split_flush", "split_groups", "split_rows",
           "split_sums"]

Sort = Callable[[np.ndarray, DeckLayout, list[np.ndarray], np.ndarray],
                list[tuple[np.ndarray, np.ndarray]]]

#: From this many boards of one group (suit and cards needed) up, they are split: below it
#: the group's own rank count and sort (a fixed cost of a few ms) is more than what it saves
#: (45 four-flush boards of Ts9s4d's runouts: 4.1 ms sorting, 5.4 ms split; 90 of Qh8h3h's:
#: 17.7 ms and 7.3 ms; Kd7c2h's three three-flush groups of 45 boards as cells of the rank
#: count: 36.5 ms its counting, 46.2 ms split; 2026-12-02, the 2-vCPU VM, one core).
SPLIT_BOARDS = 48

#: The cards of the suit a flush column needs on the boards split off: one (four cards of a
#: suit on the board) and two (three cards). A three-flush group too small to split stays in
#: the rank count with its flush columns as cells (:mod:`gpu_eval.range_reports.rank_sums`).
SPLIT_NEEDS = (1, 2)


def _suit_counts(boards: np.ndarray) -> np.ndarray:
    return np.bitwise_count(bits.lanes(boards)).reshape(-1, 4)


def split_flush(boards: np.ndarray) -> np.ndarray:
    """Per complete board of five ranks with three or four cards of one suit, how many cards
    of that suit a column needs for a flush (2 or 1; 0 on the other boards): there every such
    column makes a flush and beats every other column (those play their ranks, a straight at
    best).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> split_flush(cards.to_mask(["Kh7h2h5h9d", "Kh7h2h5c9d", "Kh7h2h5h7d", "Kh7h2c5c9d"])
    ...             ).tolist()
    [1, 2, 0, 0]
    """
    lanes = bits.lanes(boards).reshape(-1, 4)
    most = np.bitwise_count(lanes).max(axis=1)
    five = np.bitwise_count(np.bitwise_or.reduce(lanes, axis=1)) == 5
    return np.where(five & (most >= 3) & (most <= 4), 5 - most, 0).astype(np.intp)


def _keys(boards: np.ndarray) -> np.ndarray:
    """Per board its group: the suit with the most cards times 4 plus :func:`split_flush`."""
    return np.argmax(_suit_counts(boards), axis=1) * 4 + split_flush(boards)


def split_rows(boards: np.ndarray) -> np.ndarray:
    """Which boards :func:`split_sums` counts: those of :data:`SPLIT_NEEDS` whose group (suit
    and cards needed) holds at least :data:`SPLIT_BOARDS` boards.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> b = cards.to_mask(["Kh7h2h5h9d"] * SPLIT_BOARDS + ["Kh7h2h5c9d"])
    >>> split_rows(b)[[0, -1]].tolist()
    [True, False]
    """
    key = _keys(boards)
    _, inverse, count = np.unique(key, return_inverse=True, return_counts=True)
    return np.isin(key % 4, SPLIT_NEEDS) & (count >= SPLIT_BOARDS)[inverse.ravel()]


def split_groups(boards: np.ndarray, rows: np.ndarray, nw: int) -> list[np.ndarray]:
    """The split boards ``rows`` in at most ``nw`` pieces of whole groups (each group is one
    rank count and one sort wherever it goes), the largest group first into the smallest
    piece."""
    key = _keys(boards[rows])
    groups = sorted((rows[key == k] for k in np.unique(key)), key=len, reverse=True)
    bins: list[list[np.ndarray]] = [[] for _ in range(min(nw, len(groups)))]
    for g in groups:
        min(bins, key=lambda b: sum(len(x) for x in b)).append(g)
    return [np.concatenate(b) for b in bins]


def split_sums(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
               cols: np.ndarray, times: np.ndarray, sort: Sort
               ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per weight vector, ``(less, equal)`` of the columns ``cols`` summed over boards of five
    ranks with three or four cards of one suit (each times ``times``), ``(K,)`` of the
    vector's dtype: per group (suit, cards needed) the split of the module docstring.

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(n,)`` masks of complete boards, each with a :func:`split_flush`.
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
    >>> b = cards.to_mask(["Kh7h2h5h9d", "Qh8h3h5h4d", "Kh7h2h8d9c"])
    >>> cols, t, w = np.arange(lay.columns), np.array([2, 1, 3]), [np.ones(lay.columns)]
    >>> [(less, equal)] = split_sums(b, lay, w, cols, t, sorted_counts)
    >>> [(lo, eq)] = sorted_counts(b, lay, w, cols)
    >>> bool((less == lo.T @ t).all()), bool((equal == eq.T @ t).all())
    (True, True)
    """
    K = len(cols)
    n = len(boards)
    key = _keys(boards)
    low, D = lay.lowest_card, lay.deck_size
    pc = lay.pairs[cols].astype(np.intp)
    bc = cards.from_mask(boards).reshape(n, -1).astype(np.intp) - low
    sums = [(np.zeros(K, dtype=v.dtype), np.zeros(K, dtype=v.dtype)) for v in vectors]
    for group in np.unique(key):
        s, nd = divmod(int(group), 4)
        rows = np.flatnonzero(key == group)
        bs, ms, bb = boards[rows], np.asarray(times)[rows], bc[rows]
        flushing = ((pc & 3) == s).sum(axis=1) >= nd
        fi, ri = np.flatnonzero(flushing), np.flatnonzero(~flushing)
        ranked = sums_by_rank(bs, lay, [np.ascontiguousarray(v[ri]) for v in vectors], cols[ri],
                              ms) if len(ri) else None
        sorted_ = sort(bs, lay, [np.ascontiguousarray(v[fi]) for v in vectors],
                       cols[fi]) if len(fi) else None
        apart = (bs[:, None] & lay.pair_masks[cols[fi]][None, :]) == 0
        fa, fb = pc[fi, 0] - low, pc[fi, 1] - low
        i1, i2 = np.triu_indices(bb.shape[1], 1)
        for k, vec in enumerate(vectors):
            lo, eq = sums[k]
            if ranked is not None:
                lo[ri] += ranked[k][0]
                eq[ri] += ranked[k][1]
            if sorted_ is None:
                continue
            dt = vec.dtype
            t = ms.astype(dt)[:, None]
            fl, fe = sorted_[k]
            # The weight of the other columns that miss the board and the flush column {a, b}
            # (inclusion-exclusion over their cards: no other column holds both a and b).
            w = np.zeros((D, D), dtype=dt)
            rv = np.where(flushing, 0, vec)
            w[pc[:, 0] - low, pc[:, 1] - low] = rv
            w[pc[:, 1] - low, pc[:, 0] - low] = rv
            through = w.sum(axis=1)
            board = rv.sum() - through[bb].sum(axis=1) + w[bb[:, i1], bb[:, i2]].sum(axis=1)
            # (Per card y, the columns {y, a} and {y, b}: one (D, F) table, read per board.)
            pair = w[:, fa] + w[:, fb]
            beaten = (board[:, None] - (through[fa] + through[fb])[None, :]
                      + pair[bb].sum(axis=1))
            lo[fi] += ((fl + beaten * apart) * t).sum(axis=0)
            eq[fi] += (fe * t).sum(axis=0)
    return sums
