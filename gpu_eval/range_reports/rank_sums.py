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
``a`` is on the board) and ``Q1(x, a) = sum_{B through x} L_B(a, rank x)``. Per column a dozen
lookups are left.

The card tables are linear in the weights, and their order (which partner ranks make a weaker
pair) depends on the board's ranks alone: boards with the same ranks (a *rank pattern*; a
flop's 1,176 runouts have at most 91) share it. A board's weights are the whole range's less
the columns through its few cards some column holds, so ``Q0`` is one product per pattern of
the pattern's summed weights, and ``Q1`` reads each pattern's table of the whole range less a
few corrections per board card. The rank pairs' table ``L_B(p)`` (91 entries) is made per
board.

Boards with exactly three cards of one suit ``s`` are counted the same way: only the columns
holding two cards of ``s`` can make a flush there (at most 45), every other column plays its
rank pair. With ``r(g)`` a column's strength by rank and ``f(g) >= r(g)`` its strength, a
column ``h`` played by rank beats the rank count less the flush columns ``g`` with
``r(g) < r(h) <= f(g)`` (counted weaker by rank, not weaker): subtracted from the rank pairs'
table and, for those through a card of ``s``, from the card's table. The flush columns' own
counts are made directly (each against the rank count at its strength and against the other
flush columns) and replace what the tables would give them.

The same numbers as :func:`gpu_eval.range_reports.showdowns.sorted_counts` summed over the
boards: the same integers for 0/1 weights (int64 throughout, or float64 products where every
sum is an integer below ``2**53``), the same sums up to rounding for other weights.
"""

from __future__ import annotations

import numpy as np

from gpu_eval import cards
from gpu_eval.range_reports import bits
from gpu_eval.range_reports.rank_runouts import RANKS, rank_rows, sorted_runs
from gpu_eval.solver_tables.board_strengths import rank_pair_strengths
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["rank_countable", "rank_patterns", "sums_by_rank"]

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
    return np.asarray(bits.suit_most(boards) <= 3)


def rank_patterns(boards: np.ndarray) -> np.ndarray:
    """Per complete board, a number for its ranks (with repeats): boards with the same ranks
    order the rank pairs alike.

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(n,)`` masks of 5-card boards.

    Returns
    -------
    numpy.ndarray of intp
        ``(n,)``, equal for boards with the same ranks.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> p = rank_patterns(cards.to_mask(["Kd7c2h5s9d", "Ks7c2d5s9h", "Ks7c2d5s8h"]))
    >>> bool(p[0] == p[1]), bool(p[0] == p[2])
    (True, False)
    """
    n = len(boards)
    ranks = np.sort(cards.from_mask(boards).reshape(n, BOARD).astype(np.intp) >> 2, axis=1)
    return ranks @ (16 ** np.arange(BOARD, dtype=np.intp))


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
    >>> [(less, equal)] = sums_by_rank(cards.to_mask(["AsKdQcJhTs"]), lay,
    ...                                [np.ones(lay.columns)], cols, mult=np.array([3]))
    >>> int(less.sum()), int(equal.sum())     # everyone plays the ace-high straight, 3 times
    (0, 3210570)
    """
    out = []
    if not len(boards):
        return [(np.zeros(len(cols), dtype=v.dtype), np.zeros(len(cols), dtype=v.dtype))
                for v in vectors]
    b = _Setup(boards, lay, cols, mult)
    for vec in vectors:
        out.append(_sums(b, vec))
    return out


class _Setup:
    """What does not depend on the weights: the boards' rank patterns and their orders, the
    board cards some column holds, the columns inside the boards, the flush columns."""

    def __init__(self, boards: np.ndarray, lay: DeckLayout, cols: np.ndarray,
                 mult: np.ndarray | None):
        n = len(boards)
        self.n = n
        self.D = D = lay.deck_size
        low = lay.lowest_card
        lowest = low >> 2
        self.nr = nr = RANKS - lowest
        self.R = R = len(lay.rank_pairs)
        self.K = K = len(cols)
        self.m = (np.ones(n, dtype=np.int64) if mult is None
                  else np.asarray(mult, dtype=np.int64))
        ar = np.arange(n)

        # The boards' cards (deck-relative ids: rank-major, 4 a rank); the rank patterns (the
        # ranks' multiset decides every rank pair's strength and so every order below).
        bc = cards.from_mask(boards).reshape(n, BOARD).astype(np.intp) - low
        _, rep, pid = np.unique(rank_patterns(boards), return_index=True, return_inverse=True)
        self.pid = pid = pid.ravel()
        self.P = P = len(rep)
        self.ps = ps = rank_pair_strengths(boards[rep], lay).astype(np.int32)   # (P, R)
        pair_of = rank_rows(lay.game)[lowest:, lowest:]                 # (nr, nr) -> pair row
        g_order, g_first, g_last = sorted_runs(ps)
        self.g_first, self.g_last = g_first, g_last
        self.sorted_ps = np.take_along_axis(ps, g_order, axis=1)
        self.p_sort = (g_order[pid] + (ar * R)[:, None]).ravel()
        self.p_first = (g_first[pid] + (ar * (R + 1))[:, None]).ravel()
        self.p_last = (g_last[pid] + 1 + (ar * (R + 1))[:, None]).ravel()
        # Per pattern, card rank rho and partner ranks r, q: is the pair (rho, r) weaker than
        # (rho, q) (``lt``), at most as strong (``le``).
        # Laid out ``(rho, r, P, q)`` as 0/1 floats: one product per card rank makes every
        # pattern's table.
        self.keys = keys = ps[:, pair_of]                               # (P, nr, nr)
        k_r = keys.transpose(1, 2, 0)[:, :, :, None]                    # (rho, r, P, 1)
        k_q = keys.transpose(1, 0, 2)[:, None, :, :]                    # (rho, 1, P, q)
        self.lt_b = np.ascontiguousarray(k_r < k_q)                     # (nr, nr, P, nr)
        self.le_b = np.ascontiguousarray(k_r <= k_q)
        self.lt = self.lt_b.astype(float)
        self.le = self.le_b.astype(float)
        # Each (pattern, card rank) row of partner keys, sorted, and where each partner's tie
        # run starts in it.
        _, k_first, k_last = sorted_runs(keys.reshape(P * nr, nr))
        self.k_lo, self.k_hi = k_first.reshape(P, nr, nr), k_last.reshape(P, nr, nr) + 1
        self.k_first = (k_first
                        + (np.arange(P * nr) * (nr + 1))[:, None]).reshape(P, nr, nr)
        self.crank = np.arange(D) >> 2

        # The columns: cards, ranks, rank pairs.
        pc = lay.pairs[cols].astype(np.intp) - low
        self.ca, self.cb = ca, cb = pc[:, 0], pc[:, 1]
        self.ra, self.rb = ca >> 2, cb >> 2
        self.rp = lay.column_rank_pair[cols]
        rprs = lay.rank_pairs.astype(np.intp) - lowest
        self.of_pair = rprs[:, 0] * nr + rprs[:, 1]
        self.pocket = np.flatnonzero(rprs[:, 0] == rprs[:, 1])
        where = np.full(lay.columns, -1, dtype=np.intp)
        where[cols] = np.arange(K)

        # The board cards some column holds ("hits"; the others weigh nothing): per board a
        # few slots (padded with card ``D``, of no weight), and all of them grouped by card.
        used = np.zeros(D, dtype=bool)
        used[pc.ravel()] = True
        hit = used[bc]
        self.slots = np.take_along_axis(
            np.where(hit, bc, D), np.argsort(~hit, axis=1, kind="stable"),
            axis=1)[:, :int(hit.sum(axis=1).max(initial=0))]
        self.srank = np.minimum(self.slots >> 2, nr - 1)
        inc_b = np.broadcast_to(ar[:, None], bc.shape)[hit]
        inc_x = bc[hit]
        order, self.present, self.starts = _groups(inc_x)
        self.inc_b, self.inc_x = inc_b[order], inc_x[order]
        # Where each hit's card's weights go in its pattern's (card, partner rank) table.
        self.v_at = (((pid[self.inc_b] * D)[:, None] + np.arange(D)) * nr
                     + (self.inc_x >> 2)[:, None]).ravel()
        # Per hit (board b, card x), every card c and each slot's card y of b: is the pair
        # (rank c, rank y) weaker than (rank c, rank x) in b's pattern (at most as strong)?
        at = self.crank[None, :] * (nr * P * nr) + (pid[self.inc_b] * nr + (self.inc_x >> 2)
                                                    )[:, None]            # (n_inc, D)
        ys = [at + (self.srank[self.inc_b, j] * (P * nr))[:, None]
              for j in range(self.slots.shape[1])]
        self.hit_lt = [self.lt_b.ravel().take(y) for y in ys]
        self.hit_le = [self.le_b.ravel().take(y) for y in ys]
        # Each board slot's row among the hits (-1: the padding).
        self.hit_row = np.full(self.slots.shape, -1, dtype=np.intp)
        for j in range(self.slots.shape[1]):
            same = self.slots[self.inc_b, j] == self.inc_x
            self.hit_row[self.inc_b[same], j] = np.flatnonzero(same)
        # The counted columns inside each board (P2): its ten card pairs.
        i1, i2 = np.triu_indices(BOARD, 1)
        lo_c, hi_c = np.minimum(bc[:, i1], bc[:, i2]), np.maximum(bc[:, i1], bc[:, i2])
        inside = where[hi_c * (hi_c - 1) // 2 + lo_c]                  # (n, 10), -1: not counted
        self.in_b, in_k = np.nonzero(inside >= 0)
        self.in_k = inside[self.in_b, in_k]
        self._flush(boards, lay, cols, where)

    def _flush(self, boards: np.ndarray, lay: DeckLayout, cols: np.ndarray,
               where: np.ndarray) -> None:
        """The flush columns: on a board with three cards of a suit s, the counted columns of
        two cards of s that miss the board; their strength by rank and with the flush."""
        n, D, nr, P, pid = self.n, self.D, self.nr, self.P, self.pid
        lanes = np.ascontiguousarray(boards, dtype=np.uint64).view(np.uint16).reshape(n, 4)
        f_b, f_s = np.nonzero(np.bitwise_count(lanes) == 3)            # one suit at most
        self.f_b = f_b
        self.frow = np.full(n, -1, dtype=np.intp)
        self.frow[f_b] = np.arange(len(f_b))
        fcols = lay.suited_columns[f_s]                                 # (n3, 78)
        ok = (where[fcols] >= 0) & ((boards[f_b][:, None] & lay.pair_masks[fcols]) == 0)
        # Those first in each row, the rest cut off.
        keep = np.argsort(~ok, axis=1, kind="stable")[:, :int(ok.sum(axis=1).max(initial=0))]
        fcols = np.take_along_axis(fcols, keep, axis=1)
        ok = np.take_along_axis(ok, keep, axis=1)
        n3, S = fcols.shape
        fk_all = where[fcols]
        self.fb = fb = np.broadcast_to(f_b[:, None], (n3, S))[ok]       # flat over flush cells
        self.fi = fi = np.broadcast_to(np.arange(n3)[:, None], (n3, S))[ok]
        self.slot = slot = np.broadcast_to(np.arange(S), (n3, S))[ok]
        self.fk = fk = fk_all[ok]
        self.fc = fc = np.stack([self.ca[fk], self.cb[fk]], axis=1)     # (F, 2)
        if not len(fk):                                                 # no flush cell: done
            return
        fpid = pid[fb]
        f_r = self.ps[fpid, self.rp[fk]]
        flush = lay.tables.flush[lanes[fb, f_s[fi]] | lay.hole_lanes[f_s[fi], cols[fk]]]
        f_f = np.maximum(f_r, flush.astype(np.int32))
        # Flush column g against flush column h (both miss each other): weaker by rank, not by
        # strength (or at most as strong): what the rank count at h's strength adds too much.
        pad_r = np.zeros((n3, S), dtype=np.int16)                       # strengths < 2**15
        pad_f = np.zeros((n3, S), dtype=np.int16)
        pad_r[fi, slot] = f_r
        pad_f[fi, slot] = f_f
        pad_m = np.where(ok, lay.hole_lanes[f_s[:, None], fcols], np.uint16(0))   # s's ranks
        apart = (pad_m[:, :, None] & pad_m[:, None, :]) == 0            # (n3, S, S)
        f_h = pad_f[:, :, None]
        self.pad_k = np.where(ok, fk_all, -1)
        # And the flush columns g through a card of h (h itself too): those the card tables
        # (corrected at h's rank key r(h)) leave out, (r(g), f(g)] (or [r(g), f(g))) holding it.
        at = np.where(apart, f_h, pad_r[:, :, None])
        r_g, f_g = pad_r[:, None, :], pad_f[:, None, :]
        self.fix_less = (r_g < at) & (f_g >= at)
        self.fix_thr = (r_g <= at) & (f_g > at)
        # Each flush cell's rank-pair intervals (r, f] and [r, f) in the sorted rank pairs.
        sp = self.sorted_ps
        self.lo_open = self.g_last[fpid, self.rp[fk]] + 1               # r is a pair's key
        self.hi_open = _rowwise_search(sp, f_f, fpid, "right")
        self.lo_closed = self.g_first[fpid, self.rp[fk]]
        self.hi_closed = _rowwise_search(sp, f_f, fpid, "left")
        # Per flush cell and each of its cards: the partner ranks whose key lies in (r, f]
        # (in [r, f)), and those below (at most) f: against the rank count at its strength.
        krows = (fpid[:, None] * nr + (fc >> 2)).ravel()                # each card's row
        fkeys = self.keys.reshape(P * nr, nr).take(krows, axis=0).reshape(len(fk), 2, nr)
        # Those partner ranks as an interval of each card's sorted row of keys: the ends,
        # where the flush column goes in and out of the pattern's card table (``(F, 2)``).
        base = ((fpid[:, None] * D + fc) * (nr + 1)).ravel()
        self.own_lt = fkeys < f_f[:, None, None]
        self.own_le = fkeys <= f_f[:, None, None]
        # (r is the key of the pair of the cell's two ranks, in each card's row.)
        fq = np.stack([self.rb[fk], self.ra[fk]], axis=1)               # the other card's rank
        below_r = self.k_lo[fpid[:, None], fc >> 2, fq].ravel()
        upto_r = self.k_hi[fpid[:, None], fc >> 2, fq].ravel()
        self.card_ends = [(base + upto_r, base + self.own_le.sum(axis=2).ravel()),
                          (base + below_r, base + self.own_lt.sum(axis=2).ravel())]
        # Per hit (row of the hits) on a flush board, per flush cell's card: is the hit's rank
        # in the cell's interval for that card?
        hr = self.hit_row[fb]                                           # (F, h)
        cell, sl = np.nonzero(hr >= 0)
        self.q1_cell = np.repeat(cell, 2)
        self.q1_at = (hr[cell, sl][:, None] * (D + 1) + fc[cell]).ravel()
        hk = fkeys[cell, :, self.srank[fb[cell], sl]]                   # (cells, 2)
        lo, hi = f_r[cell, None], f_f[cell, None]
        self.q1_in = [((hk > lo) & (hk <= hi)).ravel(), ((hk >= lo) & (hk < hi)).ravel()]
        self.r_lt = f_r < f_f
        # Per cell card j and board slot: the slot's card, and where the cell's card value
        # reads its order (``(rank c, rank y, pattern, q)``) and its pattern's table.
        h = self.slots.shape[1]
        self.f_y = [self.slots[fb, j] for j in range(h)]
        at_c = [((fc[:, j] >> 2) * nr * P) for j in range(2)]
        self.f_order = [[((at_c[j] + self.srank[fb, sl] * P + fpid) * nr + fq[:, j])
                         for sl in range(h)] for j in range(2)]
        self.f_table = [(fpid * D + fc[:, j]) * nr + fq[:, j] for j in range(2)]
        # The partner rank of each slot's card in the cells' rows below (at most) f.
        slot_keys = [self.keys.reshape(-1).take(krows * nr + np.repeat(self.srank[fb, sl], 2))
                     .reshape(-1, 2) for sl in range(h)]
        self.f_own = [[k < f_f[:, None] for k in slot_keys], [k <= f_f[:, None] for k in slot_keys]]
        # The other card's rank of each of the cell's cards.
        self.f_q = np.stack([self.rb[fk], self.ra[fk]], axis=1)         # (F, 2)


def _pair_tables(b: _Setup, w: np.ndarray, tc: np.ndarray, dt) -> tuple[np.ndarray, ...]:
    """Per board: the weight of the rank pairs (of the columns that miss the board),
    ``thr_p`` (``(n, R + 1)``: the running sum in the board's order, before each position),
    ``lp`` and ``ep`` (``(n, R)``: weaker than and at most as strong as each pair)."""
    n, nr, R, ar = b.n, b.nr, b.R, np.arange(b.n)
    # m[rho1, rho2]: every column's weight by its two ranks (a pocket pair's twice), less the
    # columns through the board's cards (through two of them: added back once).
    mm = np.empty((n, nr, nr), dtype=dt)
    mm[...] = tc[:-1].reshape(nr, 4, nr).sum(axis=1)
    h = b.slots.shape[1]
    for j in range(h):
        x, rx = b.slots[:, j], b.srank[:, j]
        mm[ar, :, rx] -= tc[x]
        mm[ar, rx, :] -= tc[x]
        for k in range(h):
            if k != j:
                mm[ar, rx, b.srank[:, k]] += w[x, b.slots[:, k]]
    u = mm.reshape(n, nr * nr)[:, b.of_pair]
    if dt.kind == "f":
        u[:, b.pocket] *= 0.5
    else:
        u[:, b.pocket] >>= 1
    thr_p = np.zeros((n, R + 1), dtype=dt)
    np.cumsum(u.ravel().take(b.p_sort).reshape(n, R), axis=1, out=thr_p[:, 1:])
    lp = thr_p.ravel().take(b.p_first).reshape(n, R)
    ep = thr_p.ravel().take(b.p_last).reshape(n, R)
    return thr_p, lp, ep


def _ordered(b: _Setup, tc: np.ndarray, tp: np.ndarray, dt) -> list[tuple[np.ndarray,
                                                                      np.ndarray]]:
    """For each order (weaker, at most as strong): ``op(tc)`` per pattern (``(P, D, nr)``)
    and the sum over the patterns of ``op(tp[p])`` (``(D, nr)``), ``op(t)[c, q] = sum_r
    t[c, r] [(rank c, r) below (rank c, q)]``. Floating point products (BLAS) where every sum
    is an integer below ``2**53`` (or the weights are floats anyway)."""
    P, D, nr = b.P, b.D, b.nr
    exact = dt.kind == "f" or (float(b.m.sum()) + 1) * nr * max(float(tc.max(initial=0)), 1) < 2 ** 52
    ft = float if exact else dt
    t4 = tc.reshape(nr, 4, nr).astype(ft)
    tq = tp.reshape(P, nr, 4, nr).transpose(1, 2, 3, 0).reshape(nr, 4, nr * P).astype(ft)
    out = []
    for order in (b.lt, b.le):
        table = np.matmul(t4, order.reshape(nr, nr, P * nr).astype(ft, copy=False))
        table = table.reshape(nr, 4, P, nr).transpose(2, 0, 1, 3).reshape(P, D, nr)
        q0 = np.matmul(tq, order.reshape(nr, nr * P, nr).astype(ft, copy=False)).reshape(D, nr)
        out.append((np.ascontiguousarray(table, dtype=dt), q0.astype(dt, copy=False)))
    return out


def _sums(b: _Setup, vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(less, equal)`` of :func:`sums_by_rank` for one weight vector."""
    n, D, nr, P, K = b.n, b.D, b.nr, b.P, b.K
    dt = vec.dtype
    ca, cb, ra, rb, rp = b.ca, b.cb, b.ra, b.rb, b.rp
    w = np.zeros((D + 1, D + 1), dtype=dt)                              # card D: no weight
    w[ca, cb] = vec
    w[cb, ca] = vec
    tc = np.zeros((D + 1, nr), dtype=dt)                                # by partner rank
    tc[:D] = w[:D, :D].reshape(D, nr, 4).sum(axis=2)
    thr_p, lp, ep = _pair_tables(b, w, tc, dt)
    mt = b.m.astype(dt)

    # Per pattern, the sum of the boards' card tables t_B (times their multiplicity): all
    # of the weight, less the columns through each board card some column holds (``v``), less
    # those cards' own rows (``z``: what is left of them).
    mp = np.bincount(b.pid, weights=b.m, minlength=P).astype(dt)        # exact integers
    mu = np.bincount(b.pid[b.inc_b] * (D + 1) + b.inc_x, weights=b.m[b.inc_b],
                     minlength=P * (D + 1)).reshape(P, D + 1).astype(dt)
    v = np.bincount(b.v_at, weights=(w[b.inc_x, :D] * mt[b.inc_b][:, None]).ravel()
                    .astype(float), minlength=P * D * nr).reshape(P, D, nr).astype(dt)
    z = mu[:, :D, None] * tc[None, :D]
    h = b.slots.shape[1]
    if h > 1:
        jj, kk = np.nonzero(~np.eye(h, dtype=bool))
        x, y = b.slots[:, jj], b.slots[:, kk]                           # (n, h(h-1))
        at = ((b.pid[:, None] * (D + 1) + x) * nr + b.srank[:, kk]).ravel()
        z2 = np.bincount(at, weights=(w[x, y] * mt[:, None]).ravel().astype(float),
                         minlength=P * (D + 1) * nr).reshape(P, D + 1, nr)[:, :D]
        z -= z2.astype(dt)
    tp = mp[:, None, None] * tc[None, :D] - v - z                       # (P, D, nr)

    # The flush columns (boards with three of a suit).
    fk, fb, fc = b.fk, b.fb, b.fc
    nf = len(fk)
    fw = vec[fk]
    fix = []
    if nf:
        # The rank count at the flush column's own strength, less the flush columns by
        # rank, plus by strength.
        tf = np.take(tc, fc, axis=0)                                    # (F, 2, nr)
        wy = [w.ravel().take(fc * (D + 1) + y[:, None]) for y in b.f_y]  # (F, 2) per slot
        pad_w = np.where(b.pad_k >= 0, vec[b.pad_k.clip(0)], 0).astype(dt)
        # (Each cell card's weights by partner rank, less its columns through the board's
        # cards, below f.)
        below = [np.einsum("fjr,fjr->f", tf, own)
                 - sum((x * o).sum(axis=1) for x, o in zip(wy, b.f_own[k], strict=True))
                 for k, own in enumerate((b.own_lt, b.own_le))]
        f_less = (thr_p[fb, b.hi_closed] - below[0] + fw * b.r_lt
                  - np.einsum("ihg,ig->ih", b.fix_less, pad_w)[b.fi, b.slot])
        f_thr = (thr_p[fb, b.hi_open] - below[1] + fw * ~b.r_lt
                 - np.einsum("ihg,ig->ih", b.fix_thr, pad_w)[b.fi, b.slot])
        # The pair tables less the flush columns a rank count wrongly counts weaker (tied);
        # per card, the same summed over the boards (``fix``, from the cells' intervals in
        # each card's row of keys).
        fwm = fw * mt[fb]
        for table, lo_q, hi_q, (lo_c, hi_c) in ((lp, b.lo_open, b.hi_open, b.card_ends[0]),
                                                (ep, b.lo_closed, b.hi_closed, b.card_ends[1])):
            diff = np.zeros((n, b.R + 1), dtype=dt)
            np.add.at(diff, (fb, lo_q), fw)
            np.add.at(diff, (fb, hi_q), -fw)
            np.cumsum(diff, axis=1, out=diff)
            table -= diff.ravel().take(b.p_first).reshape(n, b.R)
            size = P * D * (nr + 1)
            wts = np.repeat(fwm, 2).astype(float)
            cdiff = (np.bincount(lo_c, weights=wts, minlength=size)
                     - np.bincount(hi_c, weights=wts, minlength=size)).astype(dt)
            cdiff = np.cumsum(cdiff.reshape(P, D, nr + 1), axis=2)
            fix.append(cdiff.reshape(P, nr, 4, nr + 1).reshape(P * nr, 4, nr + 1)[
                np.arange(P * nr)[:, None, None], np.arange(4)[:, None],
                (b.k_first.reshape(P * nr, nr) % (nr + 1))[:, None, :]]
                .reshape(P, D, nr).sum(axis=0))

    res = []
    ordered = _ordered(b, tc[:D], tp, dt)
    ib = b.inc_b
    idx = np.arange(len(ib))
    # Each hit's board cards' rows of weights (both orders read them).
    w_slots = [np.take(w[:, :D], b.slots[ib, j], axis=0) for j in range(h)]
    for k, (od, pt) in enumerate(((b.lt_b, lp), (b.le_b, ep))):
        table, q0 = ordered[k]
        # Per board card x some column holds: the card tables at x's rank, every card,
        # summed over the boards through x.
        rows_v = np.zeros((len(ib), D + 1), dtype=dt)
        rows_v[:, :D] = table[b.pid[ib], :, b.inc_x >> 2]               # (n_inc, D)
        for ws, below in zip(w_slots, b.hit_lt if k == 0 else b.hit_le, strict=True):
            rows_v[:, :D] -= ws * below
        for j in range(h):
            rows_v[idx, b.slots[ib, j]] = 0                             # the board's cards
        if nf:
            np.subtract.at(rows_v.reshape(-1), b.q1_at, fw[b.q1_cell] * b.q1_in[k])
            q0 -= fix[k]
        rows_v = rows_v[:, :D] * mt[ib][:, None]
        q1 = np.zeros((D, D), dtype=dt)
        p1 = np.zeros((D, b.R), dtype=dt)
        ptm = pt * mt[:, None]
        if len(ib):
            q1[b.present] = np.add.reduceat(rows_v, b.starts, axis=0)
            p1[b.present] = np.add.reduceat(ptm[ib], b.starts, axis=0)
        p0 = ptm.sum(axis=0)
        p2 = np.zeros(K, dtype=dt)
        np.add.at(p2, b.in_k, ptm[b.in_b, rp[b.in_k]])
        tot = p0[rp] - p1[ca, rp] - p1[cb, rp] + p2
        tot -= q0[ca, rb] - q1[cb, ca]
        tot -= q0[cb, ra] - q1[ca, cb]
        if nf:
            # The flush columns: their own counts instead of the tables'.
            cv, cv2 = (table.ravel().take(b.f_table[j])
                       - sum(wy[sl][:, j] * od.ravel().take(b.f_order[j][sl])
                             for sl in range(h))
                       for j in range(2))
            formula = pt[fb, rp[fk]] - cv - cv2
            own = f_less if k == 0 else f_thr - fw
            np.add.at(tot, fk, (own - formula) * mt[fb])
        res.append(tot)
    less, thr = res
    # The column itself, on the boards that miss it (it is in all three tied tables).
    m = b.m
    m1 = np.zeros(D, dtype=np.int64)
    if len(b.inc_b):
        m1[b.present] = np.add.reduceat(m[b.inc_b], b.starts)
    m2 = np.zeros(K, dtype=np.int64)
    np.add.at(m2, b.in_k, m[b.in_b])
    thr += vec * (m.sum() - m1[ca] - m1[cb] + m2).astype(dt)
    thr -= less
    return less, thr
