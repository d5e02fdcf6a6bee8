"""Heads-up showdown counts for every pair of two combo lists at once (an outer comparison).

Range against range, most pairs of an A combo and a B combo are matchups, so instead of
gathering two strength rows per matchup and comparing them (memory traffic of two rows per
matchup and board), each A combo's strengths are compared with all B combos' strengths in one
broadcast operation, and the matchups then read their counts from the ``(A, B)`` result.

A strength of 0 marks a board that collides with the combo (that board does not count for
any pair holding the combo): it is replaced by values that never compare as a win or a tie,
so no separate mask is needed for wins and ties.
"""

from __future__ import annotations

import numpy as np

__all__ = ["heads_up", "plan", "popcount_rows", "BLOCK"]

#: Elements per broadcast comparison.
BLOCK = 1 << 20
_NEVER_B = np.uint16(65535)  # a colliding B combo: never below or equal to an A strength
_NEVER_A = np.uint16(65534)  # a colliding A combo: never equal to a B strength


def popcount_rows(packed: np.ndarray) -> np.ndarray:
    """Set bits along the last axis of a C-contiguous uint8 array, read in the widest words
    that divide the row (a reduction over 8-byte words is several times faster than over
    bytes).

    Examples
    --------
    >>> popcount_rows(np.array([[255, 1, 0, 3], [0, 0, 0, 128]], dtype=np.uint8)).tolist()
    [11, 1]
    """
    n = packed.shape[-1]
    for dt in (np.uint64, np.uint32, np.uint16):
        if n % np.dtype(dt).itemsize == 0:
            packed = packed.view(dt)
            break
    return np.bitwise_count(packed).sum(axis=-1, dtype=np.int64)


def _row_counts(x: np.ndarray) -> np.ndarray:
    """True values along the last axis (packed to bits and popcounted: fast)."""
    return popcount_rows(np.packbits(x, axis=-1))


def plan(matchups: np.ndarray, min_matchups: int = 64
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``(rows_a, pos_a, rows_b, pos_b)`` when heads-up matchups are dense enough in the
    product of their distinct first and second combos for :func:`heads_up` to pay, else None.

    Examples
    --------
    >>> m = np.array([[0, 2], [0, 3], [1, 2], [1, 3]])
    >>> [x.tolist() for x in plan(m, min_matchups=1)]
    [[0, 1], [0, 0, 1, 1], [2, 3], [0, 1, 0, 1]]
    """
    if matchups.ndim != 2 or matchups.shape[1] != 2 or len(matchups) < min_matchups:
        return None
    out = []
    for col in (matchups[:, 0], matchups[:, 1]):  # distinct small ints: no sort needed
        present = np.zeros(int(col.max()) + 1, dtype=bool)
        present[col] = True
        out += [np.flatnonzero(present), (np.cumsum(present) - 1)[col]]
    if len(out[0]) * len(out[2]) > 2 * len(matchups):
        return None
    return tuple(out)


def heads_up(a: np.ndarray, b: np.ndarray, collisions: bool = True
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Wins of A, ties and valid boards of every pair of rows of ``a`` ``(na, C)`` and ``b``
    ``(nb, C)`` (uint16 strengths, 0 on colliding boards): three ``(na, nb)`` int64 arrays
    (valid is None without collisions: every board counts).

    Examples
    --------
    >>> a = np.array([[5, 0, 3]], dtype=np.uint16)
    >>> b = np.array([[4, 4, 3], [0, 9, 1]], dtype=np.uint16)
    >>> [x.tolist() for x in heads_up(a, b)]
    [[[1, 1]], [[1, 0]], [[2, 1]]]
    """
    na, c = a.shape
    nb = len(b)
    gt = np.empty((na, nb), dtype=np.int64)
    eq = np.empty((na, nb), dtype=np.int64)
    valid = np.empty((na, nb), dtype=np.int64) if collisions else None
    if collisions:
        bb = np.where(b == 0, _NEVER_B, b)
        aeq = np.where(a == 0, _NEVER_A, a)
        # Valid boards of a pair: all, less those hitting either combo, plus those hitting
        # both (an AND of bit-packed rows: 8 boards per byte).
        hit_a, hit_b = np.packbits(a == 0, axis=1), np.packbits(b == 0, axis=1)
        lost = popcount_rows(hit_a)[:, None] + popcount_rows(hit_b)[None, :]
    else:
        bb, aeq = b, a
    step = max(1, BLOCK // max(1, nb * c))
    for lo in range(0, na, step):
        hi = min(lo + step, na)
        gt[lo:hi] = _row_counts(a[lo:hi, None, :] > bb[None, :, :])
        eq[lo:hi] = _row_counts(aeq[lo:hi, None, :] == bb[None, :, :])
        if collisions:
            both = popcount_rows(hit_a[lo:hi, None, :] & hit_b[None, :, :])
            valid[lo:hi] = c - lost[lo:hi] + both
    return gt, eq, valid
