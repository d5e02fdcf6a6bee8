"""Exact showdown counts summed over many complete boards, by rank pair, without a count per
board and column.

:mod:`gpu_eval.range_reports.rank_runouts` counts each flush-free board's columns by rank pair:

    less_B(h) = L_B(p) - L_B(a, rb) - L_B(b, ra)

for a column ``h = {a, b}`` of ranks ``(ra, rb)`` and rank pair ``p`` (``L_B(p)``: the weight
of the rank pairs weaker than ``p``; ``L_B(a, r)``: that of the columns through card ``a``
whose partner rank makes a pair weaker than ``(ra, r)``), each table over the columns that miss
the board. When only the sum over the boards is wanted, the boards that miss ``h`` are all
boards, less those through ``a``, less those through ``b``, plus those through both:

    sum_B less_B(h) = P0(p) - P1(a, p) - P1(b, p) + P2(h) - Q0(a, rb) + Q1(b, a)
                      - Q0(b, ra) + Q1(a, b)

with ``P0(p) = sum_B L_B(p)``, ``P1(x, p)`` that sum over the boards through card ``x``,
``P2(h)`` over those through both cards, ``Q0(a, r) = sum_B L_B(a, r)`` (``L_B(a, .)`` is 0 when
``a`` is on the board) and ``Q1(x, a) = sum_{B through x} L_B(a, rank x)``. Every table is a few
hundred entries a board (the 52 x 13 card table, the 91 rank pairs), so the work per board no
longer grows with the columns counted; per column only a dozen lookups are left. The tables
of a board come from one 52 x 13 table of the weights (each card's columns by partner rank)
less the columns through the board's cards.

Boards with exactly three cards of one suit ``s`` are counted the same way: only the columns
holding two cards of ``s`` can make a flush there (at most 45), every other column plays its
rank pair. With ``r(g)`` a column's strength by rank and ``f(g) >= r(g)`` its strength, a
column ``h`` played by rank beats the rank count less the flush columns ``g`` with
``r(g) < r(h) <= f(g)`` (counted weaker by rank, not weaker): subtracted from the rank pairs'
table and, for those through a card of ``s``, from the card's table. The flush columns' own
counts are made directly (each against the rank count at its strength and against the other
flush columns) and replace what the tables would give them.

The same numbers as :func:`gpu_eval.range_reports.showdowns.sorted_counts` summed over the
boards: the same integers for 0/1 weights (int64 throughout), the same sums up to rounding for
other weights.
"""

from __future__ import annotations

import numpy as np

from gpu_eval import cards
from gpu_eval.range_reports.rank_runouts import RANKS, rank_rows, sorted_runs
from gpu_eval.solver_tables.board_strengths import rank_pair_strengths
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["rank_countable", "sums_by_rank"]

#: Board cards (complete boards).
BOARD = 5


def rank_countable(boards: np.ndarray) -> np.ndarray:
    """Which boards show at most three cards of every suit (counted by :func:`sums_by_rank`).

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
    >>> rank_countable(cards.to_mask(["Kd7d2d5s9c", "Kd7d2d5d9c"])).tolist()
    [True, False]
    """
    suits = np.ascontiguousarray(boards, dtype=np.uint64).view(np.uint16).reshape(-1, 4)
    return np.asarray((np.bitwise_count(suits) <= 3).all(axis=1))


def _groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(order, present, starts)``: ``keys`` sorted stably, the distinct keys and where each
    one's run starts (for ``np.add.reduceat``)."""
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    present, starts = np.unique(ks, return_index=True)
    return order, present, starts


def _rowwise_search(sorted_rows: np.ndarray, values: np.ndarray, rows: np.ndarray,
                    side: str) -> np.ndarray:
    """Per value, its insertion position in its row of ``sorted_rows`` (``(n, w)`` int,
    each row increasing, entries below ``2**16``)."""
    n, w = sorted_rows.shape
    flat = (sorted_rows.astype(np.int64) + (np.arange(n, dtype=np.int64) << 17)[:, None]).ravel()
    pos = np.searchsorted(flat, values.astype(np.int64) + (rows.astype(np.int64) << 17),
                          side=side)  # type: ignore[call-overload]
    return pos - rows * w


def sums_by_rank(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
                 cols: np.ndarray, mult: np.ndarray | None = None
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per weight vector, the ``(less, equal)`` counts of the columns ``cols`` summed over the
    complete boards (each times its multiplicity).

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(n,)`` masks of 5-card boards of the layout's deck, each with at most three cards of
        a suit (:func:`rank_countable`).
    lay : DeckLayout
        The game's columns (:func:`gpu_eval.solver_tables.layout.deck_layout`).
    vectors : list of numpy.ndarray
        Weight vectors over ``cols`` (``(K,)`` each): float64, or int64 holding two 0/1
        vectors, one in the low and one in the high 32 bits (sums and differences of those
        stay exact modulo ``2**64``; see :mod:`gpu_eval.range_reports.showdowns`).
    cols : numpy.ndarray of int
        ``(K,)`` the columns counted and counted against (columns of ``lay``, increasing).
    mult : numpy.ndarray of int, optional
        ``(n,)`` how many boards each board stands for (1 each if not given).

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        Per vector ``(less, equal)``, each ``(K,)`` of the vector's dtype: summed over the
        boards that miss the column, the weight of the columns of ``cols`` (disjoint from the
        column and the board) that the column beats and that it ties.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> lay = deck_layout("holdem")
    >>> cols = np.arange(lay.columns)
    >>> [(less, equal)] = sums_by_rank(cards.to_mask(["AsKdQcJhTs", "AsKdQc2h3h"]), lay,
    ...                                [np.ones(lay.columns)], cols)
    >>> int(less.sum() + equal.sum()) == 1070190 + 1070190 - int(equal.sum()) + int(equal.sum())
    True
    """
    n = len(boards)
    D, low = lay.deck_size, lay.lowest_card
    lowest = low >> 2
    nr = RANKS - lowest
    R = len(lay.rank_pairs)
    K = len(cols)
    m = np.ones(n, dtype=np.int64) if mult is None else np.asarray(mult, dtype=np.int64)
    ar = np.arange(n)

    # The boards' cards (deck-relative ids: rank-major, 4 a rank) and their rank-pair keys.
    bc = cards.from_mask(boards).reshape(n, BOARD).astype(np.intp) - low
    ps = rank_pair_strengths(boards, lay).astype(np.int32)             # (n, R)
    pair_of = rank_rows(lay.game)[lowest:, lowest:]                     # (nr, nr) -> pair row
    g_order, g_first, g_last = sorted_runs(ps)
    # Per card rank rho (row) and partner rank r: the key of the pair (rho, r), sorted per row.
    keys = ps[:, pair_of]                                               # (n, nr, nr)
    k_order, k_first, k_last = (a.reshape(n, nr, 1, nr)
                                for a in sorted_runs(keys.reshape(n * nr, nr)))
    # Flat positions for the per-card tables ``(n, nr, 4, nr)`` (a card's rank, its suit, the
    # partner rank) in each row's key order, and of the first / past the last entry of each
    # partner's tie run in the running sums ``(n, nr, 4, nr + 1)``.
    rows = np.arange(n * nr * 4, dtype=np.intp).reshape(n, nr, 4, 1)
    c_sort = (rows * nr + k_order).ravel()
    c_first = (rows * (nr + 1) + k_first).ravel()
    c_last = (rows * (nr + 1) + k_last + 1).ravel()
    p_sort = (g_order + (ar * R)[:, None]).ravel()
    p_first = (g_first + (ar * (R + 1))[:, None]).ravel()
    p_last = (g_last + 1 + (ar * (R + 1))[:, None]).ravel()

    # The columns: cards, ranks, rank pairs.
    pc = lay.pairs[cols].astype(np.intp) - low
    ca, cb = pc[:, 0], pc[:, 1]
    ra, rb = ca >> 2, cb >> 2
    rp = lay.column_rank_pair[cols]
    rprs = lay.rank_pairs.astype(np.intp) - lowest
    of_pair = rprs[:, 0] * nr + rprs[:, 1]
    pocket = np.flatnonzero(rprs[:, 0] == rprs[:, 1])
    where = np.full(lay.columns, -1, dtype=np.intp)
    where[cols] = np.arange(K)

    # The boards through each card some column holds (P1, Q1), grouped by card.
    used = np.zeros(D, dtype=bool)
    used[pc.ravel()] = True
    hit = used[bc]
    inc_b = np.broadcast_to(ar[:, None], bc.shape)[hit]
    inc_x = bc[hit]
    # Those cards, a few slots a board (padded with a card ``D`` of no weight): each slot's
    # columns leave its card's tables.
    slots = np.take_along_axis(np.where(hit, bc, D), np.argsort(~hit, axis=1, kind="stable"),
                               axis=1)[:, :int(hit.sum(axis=1).max(initial=0))]
    slot_rank = np.minimum(slots >> 2, nr - 1)
    order, present, starts = _groups(inc_x)
    inc_b, inc_x = inc_b[order], inc_x[order]
    # The counted columns inside each board (P2): its ten card pairs.
    i1, i2 = np.triu_indices(BOARD, 1)
    lo_c, hi_c = np.minimum(bc[:, i1], bc[:, i2]), np.maximum(bc[:, i1], bc[:, i2])
    inside = where[hi_c * (hi_c - 1) // 2 + lo_c]                      # (n, 10), -1: not counted
    in_b, in_k = np.nonzero(inside >= 0)
    in_k = inside[in_b, in_k]

    # Boards with three cards of a suit s: the columns of two cards of s (flush columns) that
    # are counted and miss the board; their strength by rank and with the flush.
    lanes = np.ascontiguousarray(boards, dtype=np.uint64).view(np.uint16).reshape(n, 4)
    three = np.bitwise_count(lanes) == 3
    f_b, f_s = np.nonzero(three)
    fcols = lay.suited_columns[f_s]                                     # (n3, S)
    ok = (where[fcols] >= 0) & ((boards[f_b][:, None] & lay.pair_masks[fcols]) == 0)
    # Those first in each row, the rest cut off.
    keep = np.argsort(~ok, axis=1, kind="stable")[:, :int(ok.sum(axis=1).max(initial=0))]
    fcols = np.take_along_axis(fcols, keep, axis=1)
    ok = np.take_along_axis(ok, keep, axis=1)
    fk = where[fcols]
    fb = np.broadcast_to(f_b[:, None], fk.shape)[ok]                   # flat over flush cells
    fi = np.broadcast_to(np.arange(len(f_b))[:, None], fk.shape)[ok]  # its board's flush row
    fk = fk[ok]
    f_r = ps[fb, rp[fk]]
    flush = lay.tables.flush[lanes[fb, f_s[fi]] | lay.hole_lanes[f_s[fi], cols[fk]]]
    f_s_all = np.maximum(f_r, flush.astype(np.int32))
    n3, S = fcols.shape
    # Padded per flush board for the flush-against-flush counts.
    pad_k = np.full((n3, S), -1, dtype=np.intp)
    pad_r = np.zeros((n3, S), dtype=np.int32)
    pad_f = np.zeros((n3, S), dtype=np.int32)
    slot = np.broadcast_to(np.arange(S), (n3, S))[ok]
    pad_k[fi, slot] = fk
    pad_r[fi, slot] = f_r
    pad_f[fi, slot] = f_s_all
    pad_m = np.where(pad_k >= 0, lay.pair_masks[cols[pad_k.clip(0)]], np.uint64(0))
    apart = (pad_m[:, :, None] & pad_m[:, None, :]) == 0                # (n3, S, S)
    # Flush column g against flush column h (both miss each other): weaker by rank, not by
    # strength (or at most as strong): what the rank count at h's strength adds too much.
    f_h = pad_f[:, :, None]
    over_less = apart & (pad_r[:, None, :] < f_h) & (pad_f[:, None, :] >= f_h)
    over_thr = apart & (pad_r[:, None, :] <= f_h) & (pad_f[:, None, :] > f_h)
    # Each flush cell's rank-pair interval (r, f] and [r, f) in the sorted rank pairs.
    sorted_ps = np.take_along_axis(ps, g_order, axis=1)
    lo_open = _rowwise_search(sorted_ps, f_r, fb, "right")
    hi_open = _rowwise_search(sorted_ps, f_s_all, fb, "right")
    lo_closed = _rowwise_search(sorted_ps, f_r, fb, "left")
    hi_closed = _rowwise_search(sorted_ps, f_s_all, fb, "left")
    # Per flush cell and each of its cards: the partner ranks r whose key lies in (r(g), f(g)].
    fc = pc[fk]                                                         # (F, 2)
    fkeys = keys[fb[:, None], fc >> 2]                                  # (F, 2, nr)
    in_less = (fkeys > f_r[:, None, None]) & (fkeys <= f_s_all[:, None, None])
    in_thr = (fkeys >= f_r[:, None, None]) & (fkeys < f_s_all[:, None, None])
    f_at = ((fb[:, None] * D + fc)[:, :, None] * nr + np.arange(nr)).ravel()
    # Against the rank count at the flush column's own strength: the rank pairs below it (and
    # at most as strong) and, per card, the partner ranks whose key is below it.
    thr_lo, thr_hi = hi_closed, hi_open
    own_lt = fkeys < f_s_all[:, None, None]                             # (F, 2, nr)
    own_le = fkeys <= f_s_all[:, None, None]
    r_lt = f_r < f_s_all

    out = []
    for vec in vectors:
        dt = vec.dtype
        w = np.zeros((D, D), dtype=dt)
        w[ca, cb] = vec
        w[cb, ca] = vec
        # Per board and card: the weight of its columns that miss the board, by partner rank.
        tc = w.reshape(D, nr, 4).sum(axis=2)                            # (D, nr)
        t = np.empty((n, D, nr), dtype=dt)
        t[...] = tc
        w_pad = np.zeros((D + 1, D), dtype=dt)
        w_pad[:D] = w
        for j in range(slots.shape[1]):
            t[ar[:, None], np.arange(D), slot_rank[:, j, None]] -= w_pad[slots[:, j]]
        t[inc_b, inc_x] = 0
        # Per rank pair: its columns' weight (a pocket pair's counted from both cards).
        u = t.reshape(n, nr, 4, nr).sum(axis=2).reshape(n, nr * nr)[:, of_pair]
        if dt.kind == "f":
            u[:, pocket] *= 0.5
        else:
            u[:, pocket] >>= 1
        thr_p = np.zeros((n, R + 1), dtype=dt)
        np.cumsum(u.ravel().take(p_sort).reshape(n, R), axis=1, out=thr_p[:, 1:])
        lp = thr_p.ravel().take(p_first).reshape(n, R)                  # weaker
        ep = thr_p.ravel().take(p_last).reshape(n, R)                   # at most as strong
        # Per card: the weight of its columns weaker than (at most as strong as) each partner.
        thr_c = np.zeros((n, nr, 4, nr + 1), dtype=dt)
        np.cumsum(t.ravel().take(c_sort).reshape(n, nr, 4, nr), axis=3, out=thr_c[..., 1:])
        lc = thr_c.ravel().take(c_first).reshape(n, D, nr)
        ec = thr_c.ravel().take(c_last).reshape(n, D, nr)

        # The flush columns' own counts, before the tables are corrected: against the rank
        # count at their strength, less the flush columns by rank, plus by strength.
        fw = vec[fk]
        pad_w = np.where(pad_k >= 0, vec[pad_k.clip(0)], 0).astype(dt)
        ft_less = (thr_p[fb, thr_lo] - (t.reshape(n * D, nr)[(fb[:, None] * D + fc)]
                                        * own_lt).sum(axis=(1, 2)) + fw * r_lt)
        ft_thr = (thr_p[fb, thr_hi] - (t.reshape(n * D, nr)[(fb[:, None] * D + fc)]
                                       * own_le).sum(axis=(1, 2)) + fw)
        f_less = ft_less - (over_less * pad_w[:, None, :]).sum(axis=2)[fi, slot]
        f_thr = ft_thr - (over_thr * pad_w[:, None, :]).sum(axis=2)[fi, slot]

        # The tables less the flush columns that a rank count wrongly counts weaker (tied).
        if len(fk):
            for table, lo_q, hi_q, inner in ((lp, lo_open, hi_open, in_less),
                                             (ep, lo_closed, hi_closed, in_thr)):
                diff = np.zeros((n, R + 1), dtype=dt)
                np.add.at(diff, (fb, lo_q), fw)
                np.add.at(diff, (fb, hi_q), -fw)
                np.cumsum(diff, axis=1, out=diff)
                table -= np.take_along_axis(diff, g_first, axis=1)
                card_t = lc if table is lp else ec
                np.add.at(card_t.reshape(-1), f_at,
                          -(inner * fw[:, None, None]).astype(dt).ravel())
            f_less -= lp[fb, rp[fk]] - lc[fb, fc[:, 0], rb[fk]] - lc[fb, fc[:, 1], ra[fk]]
            f_thr -= ep[fb, rp[fk]] - ec[fb, fc[:, 0], rb[fk]] - ec[fb, fc[:, 1], ra[fk]] + fw

        # Sums over the boards, each times its multiplicity.
        mt = m.astype(dt)
        lp *= mt[:, None]
        ep *= mt[:, None]
        lc *= mt[:, None, None]
        ec *= mt[:, None, None]
        res = []
        for pt, ct, extra in ((lp, lc, f_less), (ep, ec, f_thr)):
            p0 = pt.sum(axis=0)                                         # (R,)
            p1 = np.zeros((D, R), dtype=dt)
            q1 = np.zeros((D, D), dtype=dt)
            if len(inc_b):
                p1[present] = np.add.reduceat(pt[inc_b], starts, axis=0)
                q1[present] = np.add.reduceat(ct[inc_b, :, inc_x >> 2], starts, axis=0)
            p2 = np.zeros(K, dtype=dt)
            np.add.at(p2, in_k, pt[in_b, rp[in_k]])
            q0 = ct.sum(axis=0)                                         # (D, nr)
            tot = p0[rp] - p1[ca, rp] - p1[cb, rp] + p2
            tot -= q0[ca, rb] - q1[cb, ca]
            tot -= q0[cb, ra] - q1[ca, cb]
            if len(fk):
                np.add.at(tot, fk, extra * mt[fb])
            res.append(tot)
        less, thr = res
        # The column itself, on the boards that miss it (it is in all three tied tables).
        m1 = np.zeros(D, dtype=np.int64)
        if len(inc_b):
            m1[present] = np.add.reduceat(m[inc_b], starts)
        m2 = np.zeros(K, dtype=np.int64)
        np.add.at(m2, in_k, m[in_b])
        thr += vec * (m.sum() - m1[ca] - m1[cb] + m2).astype(dt)
        thr -= less
        out.append((less, thr))
    return out
