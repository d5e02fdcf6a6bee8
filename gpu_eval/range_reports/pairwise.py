"""Exact per-combo showdown counts on complete boards for a few columns: every pair compared.

For a few dozen columns the sort of :func:`gpu_eval.range_reports.showdowns.sorted_counts`
(two row-wise sorts and some twenty passes over ``(boards, 2K)`` arrays) costs more than
comparing every column with every other one. Against weights ``u``, a column ``h`` on one
board wins against and ties

    less(h) = sum of u_j over the columns j disjoint from h with 0 < s_j < s_h
    equal(h) = sum of u_j over the columns j disjoint from h with s_j = s_h

(``h`` itself is not disjoint from ``h``; a column touching the board, ``s = 0``, weighs
nothing and counts nothing). Per board and column the ``K`` comparisons are packed into
bytes, eight columns a byte, and each byte looks its weight up in a 256-entry table of the
sums of the eight columns' weights: ``ceil(K / 8)`` look-ups a cell instead of ``K``
products. Integer weights (the packed 0/1 lanes) add exactly, modulo ``2**64`` like the
sort's running sums; float weights add in another order than the sort's, within a few ulps.
"""

from __future__ import annotations

import numpy as np

from gpu_eval.range_reports.strengths import column_strengths
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["PAIR_COLUMNS", "pair_counts"]

#: Up to this many columns :func:`pair_counts` is faster than the sorting count (its work
#: grows with ``K**2``, the sort's with ``K log K`` at a larger cost an entry): 2.5 against
#: 7 us a board at 28 columns, 9 against 13 at 64, about even at 128 (2026-12-02, the 2-vCPU
#: VM).
PAIR_COLUMNS = 64

#: Bytes of the ``(boards, K, 8 * ceil(K / 8))`` comparison block (kept in cache).
BLOCK_CELLS = 1 << 18

#: Bit ``i`` of entry ``x``: which of a byte's eight columns ``x`` holds.
_BITS = (np.arange(256)[:, None] >> np.arange(8)) & 1

#: Times eight 0/1 bytes read as a little-endian uint64, the top byte is their bits (bit ``i``
#: from byte ``i``): the partial products land on distinct bits, so nothing carries.
_GATHER = np.uint64(0x0102040810204080)


def _tables(vec: np.ndarray, nb: int) -> np.ndarray:
    """``(nb, 256)``: for byte ``p`` of a column mask and each value ``x`` of it, the sum of
    ``vec`` over the columns ``8p + i`` whose bit ``i`` is set in ``x``."""
    pad = np.zeros(8 * nb, dtype=vec.dtype)
    pad[:len(vec)] = vec
    return np.ascontiguousarray((_BITS.astype(vec.dtype) @ pad.reshape(nb, 8).T).T)


def pair_counts(boards: np.ndarray, lay: DeckLayout, vectors: list[np.ndarray],
                cols: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per weight vector over ``cols``, ``(less, equal)`` of the columns ``cols`` on each
    complete board, each ``(n, K)`` of the vector's dtype in column order: the numbers of
    :func:`gpu_eval.range_reports.showdowns.sorted_counts` (the same integers; floats
    within rounding), by comparing every pair of columns.

    Parameters
    ----------
    boards : numpy.ndarray of uint64
        ``(n,)`` masks of complete boards.
    lay : DeckLayout
        The game's columns.
    vectors : list of numpy.ndarray
        ``(K,)`` weights over ``cols``: float64, or int64 (two 0/1 vectors packed, see
        :func:`gpu_eval.range_reports.showdowns.sorted_counts`; any int64 adds modulo
        ``2**64``).
    cols : numpy.ndarray
        The ``K`` columns counted.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        Per vector the weight each column beats and ties on each board, zeros where the
        column touches the board.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.solver_tables.layout import deck_layout
    >>> lay = deck_layout("holdem")
    >>> from gpu_eval.range_reports.showdowns import sorted_counts
    >>> boards = cards.to_mask(["Kd7c2hTs9s", "AsKsQsJsTs"])
    >>> cols, w = np.arange(40), [np.ones(40)]
    >>> [(less, equal)] = pair_counts(boards, lay, w, cols)
    >>> [(lo, eq)] = sorted_counts(boards, lay, w, cols)
    >>> bool((less == lo).all() and (equal == eq).all()), int(equal[1].sum())
    (True, 980)
    """
    n = len(boards)
    K = len(cols)
    nb = -(-K // 8)                                                     # mask bytes a cell
    S = column_strengths(boards, lay, cols)                             # (n, K), 0 blocked
    # Strength minus one, wrapping: a blocked column (0) is above every live one, so it is
    # never weaker than nor tied with a live column (a blocked column's own counts are
    # cleared at the end). The padding columns to whole bytes are blocked too.
    key = np.full((n, 8 * nb), np.iinfo(S.dtype).max, dtype=S.dtype)
    np.subtract(S, S.dtype.type(1), out=key[:, :K])
    pm = lay.pair_masks[cols]
    disjoint = np.zeros((K, 8 * nb), dtype=bool)
    disjoint[:, :K] = (pm[:, None] & pm[None, :]) == 0                  # not h itself
    dwords = disjoint.view(np.uint64)                                   # (K, nb)
    tables = [_tables(vec, nb) for vec in vectors]
    out = [(np.empty((n, K), dtype=vec.dtype), np.empty((n, K), dtype=vec.dtype))
           for vec in vectors]
    step = max(1, BLOCK_CELLS // (K * 8 * nb))
    cmp = np.empty((min(step, n), K, 8 * nb), dtype=bool)
    index = np.empty((nb, min(step, n), K), dtype=np.intp)              # byte p's, contiguous
    for a in range(0, n, step):
        s = key[a:a + step]
        m = len(s)
        c = cmp[:m]
        idx = index[:, :m]
        for k, op in enumerate((np.less, np.equal)):                    # less, then equal
            op(s[:, None, :], s[:, :K, None], out=c)                    # [h, j]: s_j vs s_h
            packed = c.view(np.uint64)                                  # 8 columns a word
            packed &= dwords
            packed *= _GATHER
            packed >>= np.uint64(56)                                    # (m, K, nb) bytes
            idx[...] = packed.view(np.int64).transpose(2, 0, 1)
            for table, counts in zip(tables, out):
                dst = counts[k][a:a + m]
                np.take(table[0], idx[0], out=dst)
                for p in range(1, nb):
                    dst += table[p].take(idx[p])
    live = S > 0
    for less, equal in out:
        less *= live
        equal *= live
    return out
