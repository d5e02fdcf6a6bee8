"""Lookup tables for the bitmask evaluator, generated from ``_scale`` (never copied).

Every table is indexed by a 13-bit rank mask, or by ``row + mask`` where ``row`` is a rank
times 8192 (``ROW``). They are generated once, on first use, in well under a second, and the
same arrays feed the NumPy path and the CUDA kernels (which receive them as device arrays), so
both backends compute bit-identical strengths.

The evaluation itself (see ``_bitmask.py`` and ``kernels/bitmask.cuh``), from the four 13-bit
suit lanes c, d, h, s of a hand mask:

* ``O = c|d|h|s`` ranks present; ``X = c^d^h^s`` ranks held an odd number of times;
* ``P = (c&d) | (h&s) | ((c^d) & (h^s))`` ranks held at least twice;
  ``Q = c&d&h&s`` quads; ``T = P & X`` trips; ``D = P & ~X & ~Q`` exact pairs;
* flush: ``FLUSH[c] | FLUSH[d] | FLUSH[h] | FLUSH[s]`` (at most one lane holds 5 cards in up to
  9 cards; the table is 0 for lanes with fewer than 5);
* each remaining category gives a candidate strength that is 0 when the category is absent
  and otherwise a strength inside that category; the answer is the largest candidate. A
  candidate built from a "wrong" reading (e.g. the pair candidate of a two-pair hand) is still
  a genuine strength of a lower category, so taking the maximum is exact:

  - ``pair_high[row(D) + O]``: the better of the pair (top pair of D, top 3 kickers) and the
    straight or high card of O (row 13, D empty, holds only the latter);
  - two pair: ``info = two_pair_info[D]``, ``two_pair[(info >> 16) + top_rank[O & ~info]]``;
  - only when ``T | Q`` is non-zero (under 10% of 7-card hands; the NumPy path evaluates
    these rows as a sparse subset): ``trips[row(T) + O]``, ``full_house[row(T) + P]``,
    ``quads[row(Q) + O]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import _scale as S

RANKMASKS = 1 << 13
EMPTY_ROW = 13  # the row used when the selecting mask is empty: all zeros


@dataclass(frozen=True)
class BitmaskTables:
    """The bitmask evaluator's tables (read-only NumPy arrays)."""

    flush: np.ndarray       # uint16[8192]: flush / straight flush of one suit lane (0 if < 5)
    row: np.ndarray         # uint32[8192]: rank of the highest bit * 8192, or 13 * 8192
    pair_high: np.ndarray   # uint16[14 * 8192]: [row(D) + O] -> max(pair, straight/high card)
    two_pair_info: np.ndarray  # uint32[8192]: [D] -> colex(top two) * 16 << 16 | top two bits
    top_rank: np.ndarray    # uint8[8192]: rank of the highest bit (0 for an empty mask)
    two_pair: np.ndarray    # uint16[79 * 16]: [info >> 16 + top_rank(O & ~top two)]
    trips: np.ndarray       # uint16[14 * 8192]: [row(T) + O] -> trips strength
    full_house: np.ndarray  # uint16[14 * 8192]: [row(T) + P] -> full house strength
    quads: np.ndarray       # uint16[14 * 8192]: [row(Q) + O] -> quads strength

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _rows_by_rank(fill, empty_row=0) -> np.ndarray:
    """A [14 * 8192] table whose row r (0..12) is ``fill(r, masks)``; row 13 is ``empty_row``."""
    out = np.zeros((EMPTY_ROW + 1, RANKMASKS), dtype=np.int64)
    for r in range(13):
        out[r] = fill(r, S._ALL)
    out[EMPTY_ROW] = empty_row
    return out.reshape(-1).astype(np.uint16)


def _pair_row(r: int, o: np.ndarray) -> np.ndarray:
    kick = S.top_bits(o & ~(1 << r), 3)
    return S.BASE[S.PAIR] + r * 220 + S.colex(S.remove_rank(kick, r)) + 1


def _trips_row(r: int, o: np.ndarray) -> np.ndarray:
    kick = S.top_bits(o & ~(1 << r), 2)
    return S.BASE[S.TRIPS] + r * 66 + S.colex(S.remove_rank(kick, r)) + 1


def _quads_row(r: int, o: np.ndarray) -> np.ndarray:
    kr = np.maximum(S.bit_rank(S.highest_bit(o & ~(1 << r))), 0)
    return S.BASE[S.QUADS] + r * 12 + kr - (kr > r) + 1


def _full_house_row(r: int, p: np.ndarray) -> np.ndarray:
    pr = S.bit_rank(S.highest_bit(p & ~(1 << r)))
    return np.where(pr >= 0, S.BASE[S.FULL_HOUSE] + r * 12 + pr - (pr > r) + 1, 0)


def _two_pair_table() -> np.ndarray:
    """[colex(pairs) * 16 + kicker rank] -> two pair strength; row 78 is zero."""
    out = np.zeros((79, 16), dtype=np.int64)
    pairs = S._ALL[np.bitwise_count(S._ALL) == 2]
    for pm in pairs:
        c2 = int(S.colex(pm))
        for kr in range(13):
            if pm >> kr & 1:
                continue
            below = int(np.bitwise_count(pm & ((1 << kr) - 1)))
            out[c2, kr] = S.BASE[S.TWO_PAIR] + c2 * 11 + kr - below + 1
    return out.reshape(-1).astype(np.uint16)


def _readonly(**arrays: np.ndarray) -> dict[str, np.ndarray]:
    for a in arrays.values():
        a.flags.writeable = False
    return arrays


@lru_cache(maxsize=None)
def bitmask_tables() -> BitmaskTables:
    """Generate (once) and return the bitmask evaluator's tables."""
    allm = S._ALL
    rank = S.bit_rank(S.highest_bit(allm))
    top2 = S.top_bits(allm, 2)
    has2 = np.bitwise_count(allm) >= 2
    high = S.five_distinct_strength(allm, flush=False)
    return BitmaskTables(**_readonly(
        flush=S.five_distinct_strength(allm, flush=True).astype(np.uint16),
        row=(np.where(rank >= 0, rank, EMPTY_ROW) * RANKMASKS).astype(np.uint32),
        # a pair and a straight can share 7 cards: the pair row keeps the better of the two
        pair_high=_rows_by_rank(lambda r, o: np.maximum(_pair_row(r, o), high), high),
        two_pair_info=(np.where(has2, S.colex(top2), 78) * 16 << 16
                       | np.where(has2, top2, 0)).astype(np.uint32),
        top_rank=np.maximum(rank, 0).astype(np.uint8),
        two_pair=_two_pair_table(),
        trips=_rows_by_rank(_trips_row),
        full_house=_rows_by_rank(_full_house_row),
        quads=_rows_by_rank(_quads_row),
    ))
