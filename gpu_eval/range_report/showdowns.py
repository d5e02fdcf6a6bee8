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

from gpu_eval.solver_tables.board_strengths import strengths_of_masks
from gpu_eval.solver_tables.layout import DeckLayout, deck_layout

__all__ = ["CHUNK", "count_boards", "workers"]

#: Boards per piece of work: the (chunk, 2C) sort keys and the (chunk, 2C, m) running sums
#: stay a few megabytes.
CHUNK = 96


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


def _tie_bounds(ss: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """``[start, stop)`` of the run of equal values around each entry of the sorted rows of
    ``ss`` (last axis of length ``width``), as int32 offsets inside the row."""
    pos = np.arange(width, dtype=np.int32)
    new = np.empty(ss.shape, dtype=bool)
    new[..., 0] = True
    np.not_equal(ss[..., 1:], ss[..., :-1], out=new[..., 1:])
    start = np.where(new, pos, 0)
    np.maximum.accumulate(start, axis=-1, out=start)
    last = np.empty(ss.shape, dtype=bool)
    last[..., -1] = True
    last[..., :-1] = new[..., 1:]
    stop = np.where(last, pos + 1, width)[..., ::-1]
    stop = np.minimum.accumulate(stop, axis=-1)[..., ::-1]
    return start, stop


def _run_sums(values: np.ndarray, start: np.ndarray, stop: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per entry, the sum of ``values`` (``(m, rows, width)``) before its tie run and inside
    it, ``(m, rows * width)`` each."""
    m, rows, width = values.shape
    run = np.zeros((m, rows, width + 1))
    np.cumsum(values, axis=2, out=run[:, :, 1:])
    run = run.reshape(m, -1)
    off = (np.arange(rows, dtype=np.intp) * (width + 1))[:, None]
    lo = run.take((start + off).ravel(), axis=1)
    hi = run.take((stop + off).ravel(), axis=1)
    hi -= lo
    return lo, hi


def _counts_chunk(boards: np.ndarray, lay: DeckLayout, weights: np.ndarray, reduce: str
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(less, equal)`` of every column on each board against each of the ``m`` weight
    vectors (``weights`` is ``(m, C)``): ``(m, n, C)`` float64, or summed over the boards
    ``(m, C)``; zeros where the column touches the board."""
    n = len(boards)
    C = lay.columns
    m = weights.shape[0]
    S = strengths_of_masks(boards, lay)                                 # (n, C), 0 blocked
    key = S.astype(np.uint32)
    key <<= 11
    key |= np.arange(C, dtype=np.uint32)
    key.sort(axis=1)
    order = (key & 0x7FF).astype(np.intp)                               # column at position p
    ss = (key >> 11).astype(np.uint16)                                  # strength at p
    start, stop = _tie_bounds(ss, C)

    # Weights in sorted order (the blocked columns, sorted first, weigh nothing).
    ws = weights.take(order, axis=1)                                    # (m, n, C)
    ws[:, :, :lay.blocked_columns(5)] = 0.0
    less, equal = _run_sums(ws, start, stop)                            # (m, n * C)
    equal += ws.reshape(m, -1)                                          # the column itself

    # The 2C (card, slot) entries grouped by card, positions increasing inside each group:
    # key = card << 13 | 2p + k.
    ck = _column_cards(lay.game)[order]                                 # (n, C, 2)
    ck <<= 13
    ck |= np.arange(2 * C, dtype=np.uint32).reshape(C, 2)
    ck = ck.reshape(n, 2 * C)
    ck.sort(axis=1)
    slot = (ck & 0x1FFF).astype(np.intp)
    slot += (np.arange(n, dtype=np.intp) * (2 * C))[:, None]
    slot = slot.ravel()                                                 # flat (board, 2p + k)
    gpos = slot >> 1                                                    # flat (board, p)
    deck = lay.deck_size
    gs = ss.ravel().take(gpos).reshape(n * deck, deck - 1)
    gstart, gstop = _tie_bounds(gs, deck - 1)
    gw = ws.reshape(m, -1).take(gpos, axis=1).reshape(m, n * deck, deck - 1)
    gless, gequal = _run_sums(gw, gstart, gstop)                        # (m, n * 2C)
    sub = np.empty((m, n * 2 * C))
    sub[:, slot] = gless
    less -= sub.reshape(m, n * C, 2).sum(axis=2)
    sub[:, slot] = gequal
    equal -= sub.reshape(m, n * C, 2).sum(axis=2)

    cols = order.ravel()
    if reduce == "sum":
        out_l = np.stack([np.bincount(cols, weights=less[j], minlength=C) for j in range(m)])
        out_e = np.stack([np.bincount(cols, weights=equal[j], minlength=C) for j in range(m)])
        return out_l, out_e
    flat = (order + (np.arange(n, dtype=np.intp) * C)[:, None]).ravel()
    out_l = np.empty((m, n * C))
    out_e = np.empty((m, n * C))
    out_l[:, flat] = less
    out_e[:, flat] = equal
    return out_l.reshape(m, n, C), out_e.reshape(m, n, C)


def count_boards(boards: np.ndarray, lay: DeckLayout, weights: np.ndarray, *,
                 reduce: str = "sum", bar=None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted counts of every column against each weight vector, on each complete board.

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(N,)`` masks of 5-card boards of the layout's deck.
    lay : DeckLayout
        The game's columns (:func:`gpu_eval.solver_tables.layout.deck_layout`).
    weights : numpy.ndarray
        ``(m, C)`` float64: ``m`` opponent weight vectors over the columns (0 for a column
        out of the opponent's range or touching a known card).
    reduce : {"sum", "none"}
        ``"sum"``: totals over the boards, ``(m, C)``; ``"none"``: per board ``(m, N, C)``.
    bar : Progress, optional
        Advanced by the number of boards counted.

    Returns
    -------
    less, equal : numpy.ndarray
        The weight of the opponent columns (disjoint from the column and the board) that the
        column beats, and that it ties; zeros where the column touches a board.

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
    spans = [(a, min(a + CHUNK, nb)) for a in range(0, nb, CHUNK)]
    if reduce == "none":
        out_l = np.zeros((m, nb, C))
        out_e = np.zeros((m, nb, C))
    else:
        out_l = np.zeros((m, C))
        out_e = np.zeros((m, C))

    def run(span):
        a, b = span
        lo, eq = _counts_chunk(boards[a:b], lay, w, reduce)
        if bar is not None:
            bar.update(b - a)
        if reduce == "none":
            out_l[:, a:b] = lo
            out_e[:, a:b] = eq
            return None
        return lo, eq

    n_workers = min(workers(), len(spans))
    results = (list(_pool(n_workers).map(run, spans)) if n_workers > 1
               else [run(s) for s in spans])
    if reduce != "none":
        for r in results:
            out_l += r[0]
            out_e += r[1]
    return out_l, out_e
