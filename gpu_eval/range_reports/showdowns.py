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
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import numpy as np

from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.solver_tables.board_strengths import strengths_of_masks
from gpu_eval.solver_tables.layout import DeckLayout, deck_layout

__all__ = ["CELLS", "count_boards", "workers"]

#: Board-column cells per piece of work (boards per piece: this over the columns counted):
#: the (boards, 2K) sort keys and running sums stay a few megabytes.
CELLS = 120_000


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


def _bounds(key: np.ndarray, width: int, group: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Along the sorted rows of ``key``: each entry's tie run ``[start, stop)`` (equal
    ``key``) and, with ``group`` (a coarser key), the start of its group; int32 offsets."""
    pos = np.arange(width, dtype=np.int32)
    new = np.empty(key.shape, dtype=bool)
    new[..., 0] = True
    np.not_equal(key[..., 1:], key[..., :-1], out=new[..., 1:])
    start = np.where(new, pos, 0)
    np.maximum.accumulate(start, axis=-1, out=start)
    last = np.empty(key.shape, dtype=bool)
    last[..., -1] = True
    last[..., :-1] = new[..., 1:]
    stop = np.where(last, pos + 1, width)[..., ::-1]
    stop = np.minimum.accumulate(stop, axis=-1)[..., ::-1]
    first = None
    if group is not None:
        gnew = np.empty(key.shape, dtype=bool)
        gnew[..., 0] = True
        np.not_equal(group[..., 1:], group[..., :-1], out=gnew[..., 1:])
        first = np.where(gnew, pos, 0)
        np.maximum.accumulate(first, axis=-1, out=first)
    return start, stop, first


def _prefix(values: np.ndarray) -> np.ndarray:
    """Running sums of the rows of ``values`` (``(rows, width)``) with a 0 in front,
    flattened: entry ``r * (width + 1) + i`` is the sum of row ``r``'s first ``i``."""
    rows, width = values.shape
    run = np.zeros((rows, width + 1))
    np.cumsum(values, axis=1, out=run[:, 1:])
    return run.ravel()


def _flat(offsets: np.ndarray) -> np.ndarray:
    """Row offsets ``(rows, width)`` as indices into :func:`_prefix`'s flat result."""
    rows, width = offsets.shape
    return (offsets + (np.arange(rows, dtype=np.intp) * (width + 1))[:, None]).ravel()


def _strengths(boards: np.ndarray, lay: DeckLayout, cols: np.ndarray) -> np.ndarray:
    """``(n, K)`` strengths of the columns ``cols`` on each board (0 where blocked): the
    board-major rank-pair table for many columns, one evaluation per cell for a few."""
    if len(cols) * 4 >= lay.columns:
        return strengths_of_masks(boards, lay)[:, cols]
    pm = lay.pair_masks[cols]
    hands = boards[:, None] | pm[None, :]
    out = evaluate_masks(hands.ravel(), tables=lay.tables).reshape(hands.shape)
    out[(boards[:, None] & pm[None, :]) != 0] = 0
    return out


def _counts_chunk(boards: np.ndarray, lay: DeckLayout, weights: np.ndarray, cols: np.ndarray,
                  reduce: str) -> tuple[np.ndarray, np.ndarray]:
    """``(less, equal)`` of the columns ``cols`` on each board against each of the ``m``
    weight vectors (``weights`` is ``(m, K)`` over ``cols``): ``(m, n, K)`` float64, or
    summed over the boards ``(m, K)``; zeros where a column touches the board."""
    n = len(boards)
    K = len(cols)
    m = weights.shape[0]
    S = _strengths(boards, lay, cols)                                   # (n, K), 0 blocked
    key = S.astype(np.uint32)
    key <<= 11
    key |= np.arange(K, dtype=np.uint32)
    key.sort(axis=1)
    order = (key & 0x7FF).astype(np.intp)                               # column at position p
    ss = (key >> 11).astype(np.uint16)                                  # strength at p
    live = ss > 0                                                       # blocked: weigh nothing
    start, stop, _ = _bounds(ss, K)
    start, stop = _flat(start), _flat(stop)

    # The 2K (card, slot) entries grouped by card, positions increasing inside each group
    # (key = card << 13 | 2p + k): a column's card-mates are the entries of its card's group.
    ck = _column_cards(lay.game)[cols][order]                           # (n, K, 2)
    ck <<= 13
    ck |= np.arange(2 * K, dtype=np.uint32).reshape(K, 2)
    ck = ck.reshape(n, 2 * K)
    ck.sort(axis=1)
    card = ck >> 13
    slot = (ck & 0x1FFF).astype(np.intp)
    slot += (np.arange(n, dtype=np.intp) * (2 * K))[:, None]
    slot = slot.ravel()                                                 # flat (board, 2p + k)
    gpos = slot >> 1                                                    # flat (board, p)
    gkey = (card << 16) | ss.ravel().take(gpos).reshape(n, 2 * K)
    tstart, tstop, gstart = (_flat(x) for x in _bounds(gkey, 2 * K, card))

    cols_flat = order.ravel()
    shape = (m, K) if reduce == "sum" else (m, n, K)
    out_l = np.empty(shape)
    out_e = np.empty(shape)
    flat = (order + (np.arange(n, dtype=np.intp) * K)[:, None]).ravel()
    sub = np.empty(n * 2 * K)
    for j in range(m):
        ws = weights[j].take(order)                                     # (n, K)
        ws *= live
        run = _prefix(ws)
        less = run.take(start)
        equal = run.take(stop)
        equal -= less
        equal += ws.ravel()                                             # the column itself
        grun = _prefix(ws.ravel().take(gpos).reshape(n, 2 * K))
        t0 = grun.take(tstart)
        sub[slot] = t0 - grun.take(gstart)
        less -= sub[0::2]                                               # the first card's
        less -= sub[1::2]                                               # and the second's
        sub[slot] = grun.take(tstop) - t0
        equal -= sub[0::2]
        equal -= sub[1::2]
        if reduce == "sum":
            out_l[j] = np.bincount(cols_flat, weights=less, minlength=K)
            out_e[j] = np.bincount(cols_flat, weights=equal, minlength=K)
        else:
            out_l[j].reshape(-1)[flat] = less
            out_e[j].reshape(-1)[flat] = equal
    return out_l, out_e


def count_boards(boards: np.ndarray, lay: DeckLayout, weights: np.ndarray, *,
                 reduce: str = "sum", segments: np.ndarray | None = None, bar=None
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
    spans = [(a, min(a + step, nb)) for a in range(0, nb, step)]
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

    def run(span):
        a, b = span
        if not len(cols):
            return None
        if reduce == "segments":
            lo, eq = _counts_chunk(boards[a:b], lay, wk, cols, "none")
            first, last = int(seg[a]), int(seg[b - 1]) + 1
            key = ((seg[a:b] - first)[:, None] * len(cols) + np.arange(len(cols))).ravel()
            n = (last - first) * len(cols)
            lo = np.stack([np.bincount(key, weights=x.ravel(), minlength=n) for x in lo])
            eq = np.stack([np.bincount(key, weights=x.ravel(), minlength=n) for x in eq])
            out = (first, last, lo.reshape(m, last - first, -1), eq.reshape(m, last - first, -1))
        else:
            out = _counts_chunk(boards[a:b], lay, wk, cols, reduce)
        if bar is not None:
            bar.update(b - a)
        if reduce == "none":
            out_l[:, a:b, cols] = out[0]
            out_e[:, a:b, cols] = out[1]
            return None
        return out

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
