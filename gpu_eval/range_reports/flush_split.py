"""Exact showdown counts summed over complete boards with three or four cards of one suit,
split into the columns that can make a flush there and those that cannot.

On a board with three (four) cards of a suit ``s`` and not five, the columns holding two
(one) cards of ``s`` (``F``) make a flush or better; the others (``N``) play their ranks. Let
``T`` be the weakest strength above every flush (a full house in hold'em, quads in short
deck). A hand below ``T`` that is no flush is below every flush, so per board:

* ``N`` among themselves: by rank pair (:func:`gpu_eval.range_reports.rank_sums.sums_by_rank`
  over the boards of a group, ``N`` only: no flush cells);
* ``F`` among themselves: the sorting count (``sort``,
  :func:`gpu_eval.range_reports.showdowns.sorted_counts`);
* every ``F`` column beats every ``N`` column below ``T`` that misses it and the board (their
  weight by inclusion-exclusion over its two cards);
* the ``N`` columns at ``T`` or above (only on paired boards: full houses, quads) beat every
  ``F`` column below ``T`` that misses them (the same way), and meet the ``F`` columns at
  ``T`` or above one pair at a time (straight flushes: an ``F`` column cannot fill up there,
  the cards it would pair are on the board); both kinds are few.

Only ``F`` is sorted; a group (suit, cards needed) is one rank count and one sort. Which
boards are split: :func:`split_rows`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from gpu_eval import cards
from gpu_eval.cards import ID_TO_MASK
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.range_reports import bits
from gpu_eval.range_reports.rank_sums import rank_countable, rank_patterns, sums_by_rank
from gpu_eval.range_reports.strengths import column_strengths
from gpu_eval.solver_tables.board_strengths import rank_pair_strengths
from gpu_eval.solver_tables.layout import DeckLayout, deck_layout

__all__ = ["SPLIT_BOARDS", "SPLIT_NEEDS", "flush_need", "split_flush", "split_groups",
           "split_rows", "split_sums"]

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


def flush_need(boards: np.ndarray) -> np.ndarray:
    """Per complete board with three or four cards of one suit, how many cards of that suit a
    column needs for a flush (2 or 1; 0 on the other boards).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> flush_need(cards.to_mask(["Kh7h2h5h9d", "Kh7h2h5c9d", "Kh7h2h5h7d", "Kh7h2c5c9d"])
    ...            ).tolist()
    [1, 2, 1, 0]
    """
    most = _suit_counts(boards).max(axis=1)
    return np.where((most >= 3) & (most <= 4), 5 - most, 0).astype(np.intp)


def split_flush(boards: np.ndarray) -> np.ndarray:
    """:func:`flush_need` on the boards of five ranks (0 on paired boards): there every flush
    column beats every other column (those play their ranks, a straight at best).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> split_flush(cards.to_mask(["Kh7h2h5h9d", "Kh7h2h5c9d", "Kh7h2h5h7d", "Kh7h2c5c9d"])
    ...             ).tolist()
    [1, 2, 0, 0]
    """
    lanes = bits.lanes(boards).reshape(-1, 4)
    five = np.bitwise_count(np.bitwise_or.reduce(lanes, axis=1)) == 5
    return np.where(five, flush_need(boards), 0).astype(np.intp)


def _keys(boards: np.ndarray) -> np.ndarray:
    """Per board its group: the suit with the most cards times 4 plus :func:`flush_need`."""
    return np.argmax(_suit_counts(boards), axis=1) * 4 + flush_need(boards)


def split_rows(boards: np.ndarray) -> np.ndarray:
    """Which boards :func:`split_sums` counts: those of five ranks of :data:`SPLIT_NEEDS` whose
    group (suit and cards needed) holds at least :data:`SPLIT_BOARDS` of them; and the paired
    boards of those groups where no other board is left to count by rank pair.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> b = cards.to_mask(["Kh7h2h5h9d"] * SPLIT_BOARDS + ["Kh7h2h5h5d", "Kh7h2h5c9d"])
    >>> split_rows(b).tolist()[-3:], split_rows(b[:-1]).tolist()[-2:]
    ([True, False, False], [True, True])
    """
    key = _keys(boards)
    present, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.ravel()
    five = split_flush(boards) > 0
    # Groups counted by their boards of five ranks: a flop's few dozen paired boards of a suit
    # do not pay for a rank count and a sort of their own.
    big = (np.isin(key % 4, SPLIT_NEEDS)
           & (np.bincount(inverse, weights=five, minlength=len(present)) >= SPLIT_BOARDS)[inverse])
    # A paired board costs about as much split (its share of the rank count and the sort, its
    # full-house cells) as with flush cells in the rank count: its boards join the split only
    # where that saves a whole rank count (a monotone flop's; one process, interleaved,
    # 2026-12-02: Qh8h3h's counting 30.6 -> 27.2 ms, Ts9s4d's 43.5 -> 45.1 ms had they joined).
    return big & five if (rank_countable(boards) & ~big).any() else big


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


@cache
def _above_flush(game: str) -> int:
    """The weakest strength above every flush: the best flush that is no straight, plus 1."""
    lay = deck_layout(game)
    top = [(12 - i) * 4 for i in (0, 1, 2, 3, 5)]                      # A K Q J 9 of a suit
    return int(evaluate_masks(np.array([np.bitwise_or.reduce(ID_TO_MASK[top])]),
                              tables=lay.tables)[0]) + 1


def _cells(mask: np.ndarray, vec: np.ndarray, pc: np.ndarray, D: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """Per board, the weight of the columns ``mask`` marks (``(n, K)``) and that through each
    card (``(n, D)``), in the vector's dtype (float sums: exact for the packed lanes, whose
    sums stay below ``2**53``)."""
    n = len(mask)
    b, k = np.nonzero(mask)
    wk = vec[k].astype(float)
    total = np.bincount(b, weights=wk, minlength=n).astype(vec.dtype)
    card = (np.bincount(b * D + pc[k, 0], weights=wk, minlength=n * D)
            + np.bincount(b * D + pc[k, 1], weights=wk, minlength=n * D))
    return total, card.astype(vec.dtype).reshape(n, D)


def _pairs(fh: np.ndarray, nh: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of an ``fh`` cell and an ``nh`` cell (``(n, K)`` masks) on the same board:
    the board and the two columns."""
    rows = np.flatnonzero(fh.any(axis=1))                               # straight flushes: rare
    if not len(rows):
        return (np.zeros(0, dtype=np.intp),) * 3
    fb, fk = np.nonzero(fh[rows])
    nb, nk = np.nonzero(nh[rows])                                       # by board
    count = np.bincount(nb, minlength=len(rows))
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    reps = count[fb]
    first = np.repeat(start[fb] - np.concatenate([[0], np.cumsum(reps)[:-1]]), reps)
    at = first + np.arange(int(reps.sum()))
    return rows[np.repeat(fb, reps)], np.repeat(fk, reps), nk[at]


def split_sums(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
               cols: np.ndarray, times: np.ndarray, sort: Sort
               ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per weight vector, ``(less, equal)`` of the columns ``cols`` summed over boards with
    three or four cards of one suit (each times ``times``), ``(K,)`` of the vector's dtype:
    per group (suit, cards needed) the split of the module docstring.

    The parameters and the result are
    :func:`gpu_eval.range_reports.five_flush.five_flush_sums`'s, on boards each with a
    :func:`flush_need` instead of five cards of a suit.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.range_reports.showdowns import sorted_counts
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> lay = deck_layout("holdem")
    >>> b = cards.to_mask(["Kh7h2h5h9d", "Qh8h3h5h5d", "Kh7h2h7d7c"])
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
        # The paired boards: which columns reach T (``high``), which F are below it.
        lanes = bits.lanes(bs).reshape(-1, 4)
        pb = np.flatnonzero(np.bitwise_count(np.bitwise_or.reduce(lanes, axis=1)) < 5)
        if len(pb) and len(fi):
            top = _above_flush(lay.game)
            # N plays its rank pair; F needs its own strength (a few columns, or the table).
            live = (bs[pb][:, None] & lay.pair_masks[cols][None, :]) == 0
            _, rep, pat = np.unique(rank_patterns(bs[pb]), return_index=True,
                                    return_inverse=True)               # (a few patterns)
            high = rank_pair_strengths(bs[pb][rep], lay)[:, lay.column_rank_pair[cols]] >= top
            nh = high[pat.ravel()] & live & ~flushing
            st = np.zeros(nh.shape, dtype=np.int32)
            st[:, fi] = column_strengths(bs[pb], lay, cols[fi])         # 0 blocked
            fh = st >= top
            f_low = (st > 0) & ~fh
            pair_b, pair_f, pair_n = _pairs(fh, nh)
            if len(pair_b):                                             # (nh: live cells)
                st[pair_b, pair_n] = evaluate_masks(
                    bs[pb][pair_b] | lay.pair_masks[cols[pair_n]], tables=lay.tables)
            pair_ok = (lay.pair_masks[cols[pair_f]] & lay.pair_masks[cols[pair_n]]) == 0
            s_f, s_n = st[pair_b, pair_f], st[pair_b, pair_n]
            nh_b, nh_k = np.nonzero(nh)
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
            if len(pb):
                # Less the N columns at T or above (none holds both of a flush column's cards).
                h_all, h_card = _cells(nh, vec, pc - low, D)
                beaten[pb] -= h_all[:, None] - h_card[:, fa] - h_card[:, fb]
                # Those against F below T (all of it that misses them), and F at T or above
                # against N at T or above, pair by pair.
                tp = ms[pb].astype(dt)
                f_all, f_card = _cells(f_low, vec, pc - low, D)
                np.add.at(lo, nh_k, (f_all[nh_b] - f_card[nh_b, pc[nh_k, 0] - low]
                                     - f_card[nh_b, pc[nh_k, 1] - low]) * tp[nh_b])
                wt = tp[pair_b] * pair_ok
                for a_, b_, s_a, s_b in ((pair_f, pair_n, s_f, s_n), (pair_n, pair_f, s_n, s_f)):
                    np.add.at(lo, a_, vec[b_] * (s_b < s_a) * wt)
                    np.add.at(eq, a_, vec[b_] * (s_b == s_a) * wt)
            lo[fi] += ((fl + beaten * apart) * t).sum(axis=0)
            eq[fi] += (fe * t).sum(axis=0)
    return sums
