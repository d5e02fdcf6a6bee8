"""Lookup tables for the bitmask evaluator, generated from ``gpu_eval.scale`` (never copied).

Every table is indexed by a 13-bit rank mask, or by ``row + mask`` where ``row`` is a row
number times 8192 (``RANKMASKS``). They are generated once, on first use, in under a second,
and the same arrays feed the NumPy path and the CUDA kernels (which receive them as device
arrays), so both backends compute bit-identical strengths.

The evaluation itself (see ``gpu_eval/evaluator/bitmask.py`` and ``kernels/bitmask.cuh``), from
the four 13-bit suit lanes c, d, h, s of a hand mask:

* ``O = c|d|h|s`` ranks present; ``X = c^d^h^s`` ranks held an odd number of times;
* ``P = (c&d) | (h&s) | ((c^d) & (h^s))`` ranks held at least twice;
  ``Q = c&d&h&s`` quads; ``T = P & X`` trips; ``D = P & ~X & ~Q`` exact pairs;
* flush, only for hands with a lane of five or more cards: ``FLUSH[c] | FLUSH[d] | FLUSH[h] |
  FLUSH[s]`` (at most one lane holds 5 cards in up to 9 cards; the table is 0 for shorter lanes);
* each remaining category gives a candidate strength that is 0 when the category is absent
  and otherwise a strength inside that category; the answer is the largest candidate. A
  candidate built from a "wrong" reading (e.g. the pair candidate of a full house) is still
  a genuine strength of a lower category, so taking the maximum is exact:

  - ``dup[dup_row[D] + O]``: the pairs and the ranks present decide the best of one pair, two
    pair, a straight and a high card. ``dup_row`` sends the exact pairs ``D`` to one of 92 rows:
    the colex index of its top two ranks (two pair, 78 rows), 78 + the rank of a single pair, or
    91 when there is none. Every row already holds the max with the straight/high card of ``O``;
  - only when some rank is held three or more times, ``(c&d&(h|s)) | (h&s&(c|d))`` non-zero
    (under 10% of 7-card hands; the NumPy path evaluates these rows as a sparse subset):
    ``trips[row(T) + O]``, ``full_house[row(T) + P]``, ``quads[row(Q) + O]``, where ``row``
    is the rank of the highest bit times 8192.

Since ``D = P & ~(ranks held three or more times)``, the common case needs neither ``X`` nor
``Q``: they are computed only for the rare rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from gpu_eval import scale as S

RANKMASKS = 1 << 13
EMPTY_ROW = 13  # the row used when the selecting mask is empty: all zeros
#: Rows of the ``dup`` table: 78 two-pair rows (colex of the top two pair ranks), 13
#: single-pair rows, and the no-pair row.
TWO_PAIR_ROWS = 78
SINGLE_PAIR_ROW = TWO_PAIR_ROWS          # + the pair's rank
NO_PAIR_ROW = SINGLE_PAIR_ROW + 13       # 91
DUP_ROWS = NO_PAIR_ROW + 1               # 92


@dataclass(frozen=True)
class BitmaskTables:
    """The bitmask evaluator's tables (read-only NumPy arrays)."""

    flush: np.ndarray       # uint16[8192]: flush / straight flush of one suit lane (0 if < 5)
    dup_row: np.ndarray     # uint32[8192]: [D] -> dup row * 8192 (see DUP_ROWS)
    dup: np.ndarray         # uint16[92 * 8192]: [dup_row(D) + O] -> max(pairs, straight/high)
    row: np.ndarray         # uint32[8192]: rank of the highest bit * 8192, or 13 * 8192
    trips: np.ndarray       # uint16[14 * 8192]: [row(T) + O] -> trips strength
    full_house: np.ndarray  # uint16[14 * 8192]: [row(T) + P] -> full house strength
    quads: np.ndarray       # uint16[14 * 8192]: [row(Q) + O] -> quads strength

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _rows_by_rank(fill, empty_row=0) -> np.ndarray:
    """A [14 * 8192] table whose row r (0..12) is ``fill(r, masks)``; row 13 is ``empty_row``."""
    out = np.zeros((EMPTY_ROW + 1, RANKMASKS), dtype=np.int64)
    for r in range(13):
        out[r] = fill(r, S.ALL_RANK_MASKS)
    out[EMPTY_ROW] = empty_row
    return out.reshape(-1).astype(np.uint16)


def dup_row_table() -> np.ndarray:
    """``dup_row[D]``: the ``dup`` row of the exact-pairs mask ``D``, times 8192 (any game)."""
    allm = S.ALL_RANK_MASKS
    count = np.bitwise_count(allm)
    top = S.bit_rank(S.highest_bit(allm))
    rows = np.where(count >= 2, S.colex(S.top_bits(allm, 2)),
                    np.where(count == 1, SINGLE_PAIR_ROW + np.maximum(top, 0), NO_PAIR_ROW))
    return (rows * RANKMASKS).astype(np.uint32)


def dup_table(two_pair, pair, high: np.ndarray) -> np.ndarray:
    """The ``[92 * 8192]`` table of the best pair, two pair, straight or high card.

    ``two_pair(pm, o)`` is the strength of the two pair ``pm`` (a 2-bit rank mask) with the
    best kicker of ``o`` outside ``pm`` (0 where there is none); ``pair(r, o)`` the strength
    of a pair of rank ``r`` with the best three kickers of ``o``; ``high`` the straight or
    high card of every mask. Each row holds the max of its own candidate and ``high``: a
    straight beats a pair or two pair that the same cards also make.
    """
    out = np.zeros((DUP_ROWS, RANKMASKS), dtype=np.int64)
    for pm in S.ALL_RANK_MASKS[np.bitwise_count(S.ALL_RANK_MASKS) == 2]:
        out[int(S.colex(pm))] = np.maximum(two_pair(int(pm), S.ALL_RANK_MASKS), high)
    for r in range(13):
        out[SINGLE_PAIR_ROW + r] = np.maximum(pair(r, S.ALL_RANK_MASKS), high)
    out[NO_PAIR_ROW] = high
    return out.reshape(-1).astype(np.uint16)


def _pair_row(r: int, o: np.ndarray) -> np.ndarray:
    kick = S.top_bits(o & ~(1 << r), 3)
    return S.BASE[S.PAIR] + r * 220 + S.colex(S.remove_rank(kick, r)) + 1


def _two_pair_row(pm: int, o: np.ndarray) -> np.ndarray:
    kr = S.bit_rank(S.highest_bit(o & ~pm))
    below = np.bitwise_count(pm & ((1 << np.maximum(kr, 0)) - 1))
    strength = S.BASE[S.TWO_PAIR] + int(S.colex(pm)) * 11 + kr - below + 1
    return np.where(kr >= 0, strength, 0)


def _trips_row(r: int, o: np.ndarray) -> np.ndarray:
    kick = S.top_bits(o & ~(1 << r), 2)
    return S.BASE[S.TRIPS] + r * 66 + S.colex(S.remove_rank(kick, r)) + 1


def _quads_row(r: int, o: np.ndarray) -> np.ndarray:
    kr = np.maximum(S.bit_rank(S.highest_bit(o & ~(1 << r))), 0)
    return S.BASE[S.QUADS] + r * 12 + kr - (kr > r) + 1


def _full_house_row(r: int, p: np.ndarray) -> np.ndarray:
    pr = S.bit_rank(S.highest_bit(p & ~(1 << r)))
    return np.where(pr >= 0, S.BASE[S.FULL_HOUSE] + r * 12 + pr - (pr > r) + 1, 0)


def _readonly(**arrays: np.ndarray) -> dict[str, np.ndarray]:
    for a in arrays.values():
        a.flags.writeable = False
    return arrays


@cache
def bitmask_tables() -> BitmaskTables:
    """Generate (once) and return the bitmask evaluator's tables."""
    allm = S.ALL_RANK_MASKS
    rank = S.bit_rank(S.highest_bit(allm))
    high = S.five_distinct_strength(allm, flush=False)
    return BitmaskTables(**_readonly(
        flush=S.five_distinct_strength(allm, flush=True).astype(np.uint16),
        dup_row=dup_row_table(),
        dup=dup_table(_two_pair_row, _pair_row, high),
        row=(np.where(rank >= 0, rank, EMPTY_ROW) * RANKMASKS).astype(np.uint32),
        trips=_rows_by_rank(_trips_row),
        full_house=_rows_by_rank(_full_house_row),
        quads=_rows_by_rank(_quads_row),
    ))
