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
  a genuine strength of a lower category, so taking the maximum is exact.
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

    flush: np.ndarray      # uint16[8192]: flush / straight flush from one suit lane
    high: np.ndarray       # uint16[8192]: straight / high card from the rank mask O
    row: np.ndarray        # uint32[8192]: rank of the highest bit * 8192, or 13 * 8192
    pair: np.ndarray       # uint16[14 * 8192]: [row(D) + O] -> pair strength
    trips: np.ndarray      # uint16[14 * 8192]: [row(T) + O] -> trips strength
    full_house: np.ndarray  # uint16[14 * 8192]: [row(T) + P] -> full house strength
    quads: np.ndarray      # uint16[14 * 8192]: [row(Q) + O] -> quads strength
    two_pair_row: np.ndarray  # uint16[8192]: [D] -> colex(top two pairs) * 16, or 78 * 16
    top_rank: np.ndarray   # uint8[8192]: rank of the highest bit (0 for an empty mask)
    two_pair: np.ndarray   # uint16[79 * 16]: [two_pair_row(D) + top_rank(O & ~top2)]
    top_two: np.ndarray    # uint16[8192]: the two highest bits if there are two, else 0

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _rows_by_rank(fill) -> np.ndarray:
    """A [14 * 8192] table whose row r (0..12) is ``fill(r, masks)`` and row 13 is zero."""
    out = np.zeros((EMPTY_ROW + 1, RANKMASKS), dtype=np.int64)
    for r in range(13):
        out[r] = fill(r, S._ALL)
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
    top = S.highest_bit(allm)
    rank = S.bit_rank(top)
    top2 = S.top_bits(allm, 2)
    has2 = np.bitwise_count(allm) >= 2
    return BitmaskTables(**_readonly(
        flush=S.five_distinct_strength(allm, flush=True).astype(np.uint16),
        high=S.five_distinct_strength(allm, flush=False).astype(np.uint16),
        row=(np.where(rank >= 0, rank, EMPTY_ROW) * RANKMASKS).astype(np.uint32),
        pair=_rows_by_rank(_pair_row),
        trips=_rows_by_rank(_trips_row),
        full_house=_rows_by_rank(_full_house_row),
        quads=_rows_by_rank(_quads_row),
        two_pair_row=(np.where(has2, S.colex(top2), 78) * 16).astype(np.uint16),
        top_rank=np.maximum(rank, 0).astype(np.uint8),
        two_pair=_two_pair_table(),
        top_two=np.where(has2, top2, 0).astype(np.uint16),
    ))
