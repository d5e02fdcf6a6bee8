"""Exact per-combo showdown counts on complete boards: one sort, card removal by
inclusion-exclusion.

For one complete board (5 cards) every hole pair ``g`` (a column of
:func:`gpu_eval.hole_pairs`) has a strength ``s_g`` (0 where it touches the board). Against
an opponent's weights ``u`` (one value per column), a column ``h = {a, b}`` wins against

    less(h) = L(s_h) - L_a(s_h) - L_b(s_h)

where ``L(s)`` is the weight of every valid column weaker than ``s`` and ``L_a(s)`` that of the
columns through card ``a`` (no weaker column holds both ``a`` and ``b``: that is ``h``). Ties:

    equal(h) = E(s_h) - E_a(s_h) - E_b(s_h) + u_h

(``h`` itself is in all three). ``L`` and ``E`` come from one sort of the board's columns by
strength and a running sum of the weights; ``L_a`` and ``E_a`` from a second sort that groups
the columns by card (each card lies in ``deck - 1`` columns, so the groups are fixed blocks),
keeping the strength order inside each group, and a running sum per block. No ``C x C``
comparison is made. Several weight vectors (the villain's weights, their 0/1 indicator, the
hero's, ...) share both sorts.

The counts are exact: with 0/1 weights they are integers (the number of opponent combos
beaten or tied), and the weighted sums are what an equity average needs.

A few columns (at most :data:`gpu_eval.range_reports.pairwise.PAIR_COLUMNS`) are counted
board by board comparing every pair of columns instead
(:func:`gpu_eval.range_reports.pairwise.pair_counts`, the same numbers): for a few dozen
columns the sorts cost more than the ``K x K`` comparisons.

The boards on which no flush can be made (at most two cards of a suit) skip both sorts:
their columns' strengths depend on the ranks alone, and
:mod:`gpu_eval.range_reports.rank_runouts` counts them by rank pair, with the same results.
Summed over many boards (one board's report), :mod:`gpu_eval.range_reports.rank_sums` counts
the boards with at most three cards of a suit by rank pair without a count per board, and
the boards of three or four cards of a suit (in groups large enough,
:mod:`gpu_eval.range_reports.flush_split`) are split into the columns that make a flush,
sorted among themselves, and those that do not, by rank pair; on
boards of five cards of a suit (:mod:`gpu_eval.range_reports.five_flush`) only the columns
through the suit are sorted.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import numpy as np

from gpu_eval.range_reports.five_flush import five_flush, five_flush_sums
from gpu_eval.range_reports.flush_split import split_flush, split_groups, split_rows, split_sums
from gpu_eval.range_reports.pairwise import PAIR_COLUMNS, pair_counts
from gpu_eval.range_reports.rank_runouts import counts_by_rank, flush_free
from gpu_eval.range_reports.rank_sums import rank_countable, rank_patterns, sums_by_rank
from gpu_eval.range_reports.strengths import column_strengths
from gpu_eval.solver_tables.layout import DeckLayout, deck_layout

__all__ = ["CELLS", "RANK_PAIR_COLUMNS", "count_boards", "sorted_counts", "split_flush", "workers"]

#: Board-column cells per piece of work (boards per piece: this over the columns counted):
#: the (boards, 2K) sort keys and running sums stay a few megabytes.
CELLS = 120_000

#: From this many columns up, the boards on which no flush can be made are counted by rank
#: pair: its cost a board is nearly fixed (the 91 rank pairs' table and a 13 x 26 matrix per
#: rank, ~80-140 us on one core), the sort's grows with the columns (~10 us at 64 columns,
#: ~30 us at 192, ~230 us at 1,000); they cross between 256 and 384 columns, in hold'em and
#: short deck alike (2026-12-02, the 2-vCPU VM). Two small ranges (a few dozen columns) on
#: every flop sort.
RANK_PAIR_COLUMNS = 320

#: Boards per piece of the counting by rank pair summed over the boards (its tables are a few
#: hundred entries a board).
SUM_BOARDS = 4096

#: Boards a piece of the rank-pair count at least (its fixed cost, a few ms, is paid per
#: piece): a few dozen boards counted by rank pair go to one worker.
RANK_PIECE_BOARDS = 128

@cache
def _pool(n: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=n, thread_name_prefix="gpu_eval-report")


def workers() -> int:
    """Threads the NumPy counting uses (every core)."""
    return max(1, os.cpu_count() or 1)


@cache
def _column_cards(game: str) -> np.ndarray:
    """Per column its two card ids minus the deck's lowest card (``(C, 2)`` uint32)."""
    lay = deck_layout(game)
    out = lay.pairs.astype(np.uint32) - np.uint32(lay.lowest_card)
    out.flags.writeable = False
    return out


def _runs(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Along the sorted rows of ``key`` (``(rows, width)``): for each entry, the flat index of
    the first and of the last entry of its run of equal keys (a row never runs into the next)."""
    new = np.empty(key.shape, dtype=bool)
    new[:, 0] = True
    np.not_equal(key[:, 1:], key[:, :-1], out=new[:, 1:])
    flat = new.ravel()
    run = np.cumsum(flat, dtype=np.int32)
    run -= 1
    starts = np.flatnonzero(flat)
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:] - 1
    ends[-1] = flat.size - 1
    return starts.take(run), ends.take(run)


def sorted_counts(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
                   cols: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per weight vector over ``cols`` (float64, or two packed 0/1 vectors in an int64, see
    :func:`_lanes`), ``(less, equal)`` of the columns ``cols`` on each complete board, each
    ``(n, K)`` of the vector's dtype in column order; zeros where a column touches the board.
    Any boards: the sorting count of the module docstring."""
    n = len(boards)
    K = len(cols)
    S = column_strengths(boards, lay, cols)                             # (n, K), 0 blocked
    # A stable sort (ties in column order): of uint16 strengths a radix sort, faster than a
    # sort of ``strength << 11 | column``.
    order = np.argsort(S, axis=1, kind="stable")                        # column at position p
    ss = np.take_along_axis(S, order, axis=1)                           # strength at p
    live = ss > 0                                                       # blocked: weigh nothing
    first, last = _runs(ss)

    # The 2K (card, slot) entries grouped by card, positions increasing inside each group
    # (a stable radix sort of the entries' cards): a column's card-mates are the entries of
    # its card's group. Which cards the columns hold does not depend on the board, so neither
    # do the groups' sizes and places.
    pc = _column_cards(lay.game)[cols]                                  # (K, 2)
    card = pc.astype(np.uint8)[order].reshape(n, 2 * K)                 # card at 2p + k
    slot = np.argsort(card, axis=1, kind="stable")                      # grouped by card
    sizes = np.bincount(pc.ravel(), minlength=lay.deck_size)
    sizes = sizes[sizes > 0]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    gcard = np.take_along_axis(card, slot, axis=1)
    slot += (np.arange(n, dtype=np.intp) * (2 * K))[:, None]
    slot = slot.ravel()                                                 # flat (board, 2p + k)
    gpos = slot >> 1                                                    # flat (board, p)
    gkey = (gcard.astype(np.uint32) << 16) | ss.ravel().take(gpos).reshape(n, 2 * K)
    tfirst, tlast = _runs(gkey)

    flat = (order + (np.arange(n, dtype=np.intp) * K)[:, None]).ravel()
    out = []
    for vec in vectors:
        ws = vec.take(order)                                            # (n, K)
        ws *= live
        inc = np.cumsum(ws, axis=1).ravel()                             # through each entry
        exc = inc - ws.ravel()                                          # before each entry
        less = exc.take(first)                                          # before its tie run
        equal = inc.take(last)
        equal -= less                                                   # its tie run
        gw = ws.ravel().take(gpos)
        ginc = np.cumsum(gw.reshape(n, 2 * K), axis=1)
        gexc = (ginc - gw.reshape(n, 2 * K)).ravel()
        base = np.repeat(gexc.reshape(n, 2 * K)[:, starts], sizes, axis=1).ravel()
        t0 = gexc.take(tfirst)
        sub = np.empty(n * 2 * K, dtype=vec.dtype)
        sub[slot] = t0 - base                                           # weaker, same card
        less -= sub[0::2]                                               # the first card's
        less -= sub[1::2]                                               # and the second's
        sub[slot] = ginc.ravel().take(tlast) - t0                       # tied, same card
        equal -= sub[0::2]
        equal -= sub[1::2]
        equal += ws.ravel()                                             # the column itself
        lo = np.empty(n * K, dtype=less.dtype)
        eq = np.empty(n * K, dtype=equal.dtype)
        lo[flat] = less
        eq[flat] = equal
        out.append((lo.reshape(n, K), eq.reshape(n, K)))
    return out


def _board_counts(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
                  cols: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per vector ``(less, equal)`` of the columns ``cols`` on each board, ``(n, K)`` of the
    vector's dtype: the boards on which no flush can be made by rank pair
    (:func:`gpu_eval.range_reports.rank_runouts.counts_by_rank`) when there are at least
    :data:`RANK_PAIR_COLUMNS` columns, the others by sorting (:func:`sorted_counts`), or
    every board comparing every pair of columns when there are at most
    :data:`gpu_eval.range_reports.pairwise.PAIR_COLUMNS`
    (:func:`gpu_eval.range_reports.pairwise.pair_counts`): the same numbers."""
    n = len(boards)
    K = len(cols)
    if K <= PAIR_COLUMNS:
        return pair_counts(boards, lay, vectors, cols)
    plain = flush_free(boards) if K >= RANK_PAIR_COLUMNS else np.zeros(n, dtype=bool)
    if plain.all():
        return counts_by_rank(boards, lay, vectors, cols)
    if not plain.any():
        return sorted_counts(boards, lay, vectors, cols)
    rows = np.flatnonzero(plain), np.flatnonzero(~plain)
    parts = (counts_by_rank(boards[rows[0]], lay, vectors, cols),
             sorted_counts(boards[rows[1]], lay, vectors, cols))
    counts = []
    for k, vec in enumerate(vectors):
        less = np.empty((n, K), dtype=vec.dtype)
        equal = np.empty((n, K), dtype=vec.dtype)
        for where, part in zip(rows, parts):
            less[where], equal[where] = part[k]
        counts.append((less, equal))
    return counts


def _summed_counts(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
                   cols: np.ndarray, mult: np.ndarray | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per vector ``(less, equal)`` of the columns ``cols`` summed over the boards (each times
    its multiplicity), ``(K,)`` of the vector's dtype. With :data:`RANK_PAIR_COLUMNS` columns
    or more: the boards of three or four cards of a suit in large groups
    (:mod:`gpu_eval.range_reports.flush_split`) split into flush and other columns, the other
    boards with at most three cards of a suit by rank pair without a count per
    board (:func:`gpu_eval.range_reports.rank_sums.sums_by_rank`), the
    boards of five cards of a suit sorting only the columns through the suit
    (:func:`gpu_eval.range_reports.five_flush.five_flush_sums`); the rest one board at a
    time."""
    n = len(boards)
    times = np.ones(n, dtype=np.int64) if mult is None else np.asarray(mult, dtype=np.int64)
    wide = len(cols) >= RANK_PAIR_COLUMNS
    by_rank = rank_countable(boards) if wide else np.zeros(n, dtype=bool)
    four = split_rows(boards) if wide else np.zeros(n, dtype=bool)
    by_rank &= ~four
    five = (five_flush(boards) >= 0) if wide else np.zeros(n, dtype=bool)
    rest = np.flatnonzero(~by_rank & ~four & ~five)
    sums = [(np.zeros(len(cols), dtype=v.dtype), np.zeros(len(cols), dtype=v.dtype))
            for v in vectors]
    if by_rank.any():
        rows = np.flatnonzero(by_rank)
        sums = sums_by_rank(boards[rows], lay, vectors, cols, times[rows])
    if four.any():
        rows = np.flatnonzero(four)
        for (lo, eq), (less, equal) in zip(
                sums, split_sums(boards[rows], lay, vectors, cols, times[rows], sorted_counts),
                strict=True):
            lo += less
            eq += equal
    if five.any():
        rows = np.flatnonzero(five)
        for (lo, eq), (less, equal) in zip(
                sums, five_flush_sums(boards[rows], lay, vectors, cols, times[rows],
                                      sorted_counts), strict=True):
            lo += less
            eq += equal
    if len(rest):
        for (lo, eq), (less, equal) in zip(sums, _board_counts(boards[rest], lay, vectors, cols),
                                           strict=True):
            t = times[rest].astype(less.dtype)[:, None]
            # Per column over the boards, board after board (a packed lane's int64 sums are
            # exact; a float lane's add in the boards' order).
            lo += (less * t).sum(axis=0)
            eq += (equal * t).sum(axis=0)
    return sums


def _counts_chunk(boards: np.ndarray, lay: DeckLayout, weights: np.ndarray, cols: np.ndarray,
                  reduce: str, mult: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(less, equal)`` of the columns ``cols`` on each board against each of the ``m``
    weight vectors (``weights`` is ``(m, K)`` over ``cols``): ``(m, n, K)`` float64, or
    summed over the boards (each times ``mult``) ``(m, K)``; zeros where a column touches the
    board."""
    n = len(boards)
    K = len(cols)
    m = weights.shape[0]
    lanes = _lanes(weights)
    vectors = [vec for vec, _ in lanes]
    if reduce == "sum":
        counts = _summed_counts(boards, lay, vectors, cols, mult)
    else:
        counts = _board_counts(boards, lay, vectors, cols)
    shape = (m, K) if reduce == "sum" else (m, n, K)
    out_l = np.empty(shape)
    out_e = np.empty(shape)
    for (_, targets), (lo, eq) in zip(lanes, counts, strict=True):
        if mult is not None and reduce != "sum":                       # boards standing for more
            times = mult.astype(lo.dtype)[:, None]
            lo *= times
            eq *= times
        for j, shift in targets:
            if shift is None:
                out_l[j] = lo
                out_e[j] = eq
            else:
                out_l[j] = (lo >> shift) & 0xFFFFFFFF
                out_e[j] = (eq >> shift) & 0xFFFFFFFF
    return out_l, out_e


def _lanes(weights: np.ndarray) -> list[tuple[np.ndarray, list[tuple[int, int | None]]]]:
    """The vectors to count with: the 0/1 rows two to an int64 (one in the low 32 bits, one in
    the high: int64 sums and differences are exact modulo 2**64, and every count they end at
    lies in [0, 2**31), so both halves unpack exactly), the other rows as they are. Each with
    the rows it stands for and their bit offset (None: a float row)."""
    m = weights.shape[0]
    ones = [j for j in range(m) if np.all((weights[j] == 0) | (weights[j] == 1))]
    out: list[tuple[np.ndarray, list[tuple[int, int | None]]]] = []
    for i in range(0, len(ones), 2):
        pair = ones[i:i + 2]
        vec = weights[pair[0]].astype(np.int64)
        if len(pair) == 2:
            vec |= weights[pair[1]].astype(np.int64) << 32
        out.append((vec, [(j, 32 * k) for k, j in enumerate(pair)]))
    out += [(weights[j], [(j, None)]) for j in range(m) if j not in ones]
    return out


def _sum_pieces(boards: np.ndarray, step: int) -> list[np.ndarray]:
    """The rows of ``boards`` in pieces for ``reduce="sum"``, in whole rounds of the workers
    so that each worker gets a like share of each kind, the largest pieces first (the
    workers take them in order: the last to start should be short): those counted by rank
    pair (:func:`gpu_eval.range_reports.rank_sums.sums_by_rank`, whose work grows with the
    rank patterns a piece holds more than with its boards) grouped by rank pattern, at least
    :data:`RANK_PIECE_BOARDS` and at most :data:`SUM_BOARDS` a piece; the
    boards split by :mod:`gpu_eval.range_reports.flush_split` in whole groups; the boards of
    five cards of a suit, one piece a suit; the boards the sorting count takes, at most ``step`` a piece."""
    nw = workers()
    four = split_rows(boards)
    by_rank = rank_countable(boards) & ~four
    suit = five_flush(boards)
    rest = np.flatnonzero(~by_rank & ~four & (suit < 0))
    rows = np.flatnonzero(by_rank)
    rows = rows[np.argsort(rank_patterns(boards[rows]), kind="stable")]
    pieces = []
    if len(rows):
        k = -(-len(rows) // SUM_BOARDS)
        k = min(-(-k // nw) * nw, max(1, len(rows) // RANK_PIECE_BOARDS))
        pieces += np.array_split(rows, k)
    if four.any():
        pieces += split_groups(boards, np.flatnonzero(four), nw)
    pieces += [np.flatnonzero(suit == s) for s in np.unique(suit[suit >= 0])]   # one a suit
    if len(rest):
        k = -(-len(rest) // step)                                       # pieces needed
        pieces += np.array_split(rest, min(len(rest), -(-k // nw) * nw))  # whole rounds
    return pieces


def count_boards(boards: np.ndarray, lay: DeckLayout, weights: np.ndarray, *,
                 reduce: str = "sum", segments: np.ndarray | None = None, bar=None,
                 backend: str = "numpy", multiplicity: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Weighted counts of every column against each weight vector, on each complete board.

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(N,)`` masks of 5-card boards of the layout's deck.
    lay : DeckLayout
        The game's columns (:func:`gpu_eval.solver_tables.layout.deck_layout`).
    weights : numpy.ndarray
        ``(m, C)`` float64: ``m`` opponent weight vectors over the columns (0 for a column
        out of the opponent's range or touching a known card; a column touching a board
        counts nothing on it anyway).
    reduce : {"sum", "none", "segments"}
        ``"sum"``: totals over the boards, ``(m, C)``; ``"none"``: per board ``(m, N, C)``;
        ``"segments"``: totals per segment ``(m, S, C)``.
    segments : numpy.ndarray, optional
        With ``reduce="segments"``: each board's segment, ``0 .. S - 1``, non-decreasing.
    bar : Progress, optional
        Advanced by the number of boards counted.
    backend : {"numpy", "cuda"}
        ``"cuda"``: the kernel of :mod:`gpu_eval.range_reports.cuda` (the same integers).
    multiplicity : numpy.ndarray, optional
        With ``"sum"`` or ``"segments"``: each board's counts times this (the boards a
        representative stands for, :mod:`gpu_eval.range_reports.symmetry`).

    Returns
    -------
    less, equal : numpy.ndarray
        The weight of the opponent columns (disjoint from the column and the board) that the
        column beats, and that it ties; zeros where the column touches a board, and for the
        columns no vector weighs (they are left out of the work).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> lay = deck_layout("holdem")
    >>> less, equal = count_boards(cards.to_mask(["AsKsQsJsTs"]), lay, np.ones((1, lay.columns)))
    >>> int(equal.sum()), int(less.sum())     # every pair of the 47 cards left ties the royal
    (1070190, 0)
    """
    boards = np.ascontiguousarray(boards, dtype=np.uint64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    nb = len(boards)
    m, C = w.shape
    # Only the columns some vector weighs: the others neither count nor are asked about.
    cols = np.flatnonzero((w != 0).any(axis=0))
    wk = np.ascontiguousarray(w[:, cols])
    K = max(len(cols), 1)
    step = int(np.clip(CELLS // K, 8, 4096))
    if reduce == "none":
        shape: tuple[int, ...] = (m, nb, C)
    elif reduce == "segments":
        seg = np.asarray(segments, dtype=np.intp)
        if seg.shape != (nb,) or (nb and (np.any(np.diff(seg) < 0) or seg[0] < 0)):
            raise ValueError("segments must give each board a non-decreasing segment number")
        shape = (m, int(seg[-1]) + 1 if nb else 0, C)
    elif reduce == "sum":
        shape = (m, C)
    else:
        raise ValueError(f"reduce={reduce!r}: expected 'sum', 'none' or 'segments'")
    out_l = np.zeros(shape)
    out_e = np.zeros(shape)
    if backend == "cuda":
        from gpu_eval.range_reports.cuda import counts_cuda  # noqa: PLC0415 -- CuPy here only

        seg_ids = {"sum": None, "none": np.arange(nb), "segments": segments}[reduce]
        lo, eq = counts_cuda(boards, lay, wk, cols, segments=seg_ids, multiplicity=multiplicity)
        if reduce == "sum":
            lo, eq = lo[:, 0], eq[:, 0]
        out_l[..., cols] = lo
        out_e[..., cols] = eq
        if bar is not None:
            bar.update(nb)
        return out_l, out_e

    def run(span):
        if not len(cols):
            return None
        if reduce == "sum":                                             # rows, not a span
            mult = None if multiplicity is None else np.asarray(multiplicity)[span]
            out = _counts_chunk(boards[span], lay, wk, cols, reduce, mult)
            if bar is not None:
                bar.update(len(span))
            return out
        a, b = span
        mult = None if multiplicity is None else np.asarray(multiplicity)[a:b]
        if reduce == "segments":
            lo, eq = _counts_chunk(boards[a:b], lay, wk, cols, "none", mult)
            first, last = int(seg[a]), int(seg[b - 1]) + 1
            key = ((seg[a:b] - first)[:, None] * len(cols) + np.arange(len(cols))).ravel()
            n = (last - first) * len(cols)
            lo = np.stack([np.bincount(key, weights=x.ravel(), minlength=n) for x in lo])
            eq = np.stack([np.bincount(key, weights=x.ravel(), minlength=n) for x in eq])
            out = (first, last, lo.reshape(m, last - first, -1), eq.reshape(m, last - first, -1))
        else:
            out = _counts_chunk(boards[a:b], lay, wk, cols, reduce, mult)
        if bar is not None:
            bar.update(b - a)
        if reduce == "none":
            out_l[:, a:b, cols] = out[0]
            out_e[:, a:b, cols] = out[1]
            return None
        return out

    spans: list = (_sum_pieces(boards, step) if reduce == "sum"
                   else [(a, min(a + step, nb)) for a in range(0, nb, step)])
    n_workers = min(workers(), len(spans))
    results = (list(_pool(n_workers).map(run, spans)) if n_workers > 1
               else [run(s) for s in spans])
    for r in results:
        if r is None:
            continue
        if reduce == "sum":
            out_l[:, cols] += r[0]
            out_e[:, cols] += r[1]
        elif reduce == "segments":
            first, last, lo, eq = r
            out_l[:, first:last, cols] += lo
            out_e[:, first:last, cols] += eq
    return out_l, out_e
