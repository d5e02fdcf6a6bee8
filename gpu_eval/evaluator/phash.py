"""The second, independent evaluator: seed 001's perfect hash of the rank-count vector.

A hand is a flush, read from a flush table over the 13-bit rank mask of its flush suit, or it is
decided by its rank counts alone ``q[0..12]`` (how many twos, threes, ..., aces; each 0..4,
summing to k). Those count vectors are hashed perfectly and densely: the hash is the vector's
position in the lexicographic list of all count vectors with the same sum (the "quinary" hash),

    hash(q) = sum_i  DP[q[i], 12 - i, k_i]   with k_i = k - q[0] - ... - q[i-1],

where ``DP[v, n, s]`` counts the vectors of length n with entries 0..4 and sum ``s - u`` for
``u < v``, i.e. how many vectors with the same prefix come before this one at position i.
``NOFLUSH[k][hash]`` then gives the strength. The tables are built here from the count vectors
themselves with an explicit, category-by-category reading of the counts (not from the bitmask
evaluator), so the two algorithms check each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from gpu_eval import scale as S

MAX_CARDS = 9


@dataclass(frozen=True)
class PerfectHashTables:
    """Tables of the perfect-hash evaluator (read-only NumPy arrays)."""

    dp: np.ndarray        # uint32[5, 13, 10]: see the module docstring
    flush: np.ndarray     # uint16[8192]: best flush / straight flush of a suit's rank mask
    noflush: np.ndarray   # uint16[sum of sizes]: all k = 5..9 concatenated
    offset: np.ndarray    # uint32[10]: where k's block starts in ``noflush``

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@cache
def count_vectors(total: int) -> np.ndarray:
    """All rank-count vectors (entries 0..4) summing to ``total``, in lexicographic order
    (read-only: built once a process, for the hold'em, low and wild tables alike)."""
    rows = np.zeros((1, 0), dtype=np.int8)
    sums = np.zeros(1, dtype=np.int64)
    for i in range(13):
        # Each prefix followed by its five extensions in digit order: prefixes in lexicographic
        # order stay so without a sort. Kept: those that can still reach ``total`` exactly.
        digit = np.tile(np.arange(5, dtype=np.int8), len(rows))
        s = np.repeat(sums, 5) + digit
        ok = (s <= total) & (s + 4 * (12 - i) >= total)
        rows = np.concatenate([np.repeat(rows, 5, axis=0), digit[:, None]], axis=1)[ok]
        sums = s[ok]
    rows.flags.writeable = False
    return rows


def dp_table() -> np.ndarray:
    # n_vectors[n, s]: vectors of length n, entries 0..4, sum s.
    n_vectors = np.zeros((14, 40), dtype=np.int64)
    n_vectors[0, 0] = 1
    for n in range(1, 14):
        for s in range(40):
            n_vectors[n, s] = sum(n_vectors[n - 1, s - v] for v in range(5) if s - v >= 0)
    dp = np.zeros((5, 13, MAX_CARDS + 1), dtype=np.int64)
    for v in range(5):
        for n in range(13):
            for s in range(MAX_CARDS + 1):
                dp[v, n, s] = sum(n_vectors[n, s - u] for u in range(v) if s - u >= 0)
    return dp


def quinary_hash(counts: np.ndarray, k: int, dp: np.ndarray) -> np.ndarray:
    """Perfect hash of rank-count vectors ``counts`` (shape ``(N, 13)``, rows summing to k)."""
    h = np.zeros(len(counts), dtype=np.int64)
    left = np.full(len(counts), k, dtype=np.int64)
    for i in range(13):
        q = counts[:, i].astype(np.int64)
        h += dp[q, 12 - i, left]
        left -= q
    return h


def _top_ranks(mask: np.ndarray, n: int) -> np.ndarray:
    return S.top_bits(mask, n)


def noflush_strength(counts: np.ndarray) -> np.ndarray:
    """Strength of the best non-flush hand for each count vector, by explicit category rules."""
    c = counts.astype(np.int64)
    bit = np.int64(1) << np.arange(13)
    at_least = [(c >= n) @ bit for n in range(5)]  # rank masks with count >= n
    present, two, three, four = at_least[1], at_least[2], at_least[3], at_least[4]
    quad = S.highest_bit(four)
    trip = S.highest_bit(three)
    pair_for_house = S.highest_bit(two & ~trip)
    pairs = _top_ranks(two, 2)
    straight = S.straight_index(present)

    def rank(b):
        return S.bit_rank(b)

    def kickers(exclude, n, removed):
        kick = _top_ranks(present & ~exclude, n)
        for r_bits in removed:
            # remove the higher removed rank first so the lower one keeps its place
            kick = S.remove_rank(kick, np.maximum(rank(r_bits), 0))
        return S.colex(kick)

    qr, tr = rank(quad), rank(trip)
    pr_house = rank(pair_for_house)
    one_pair = S.highest_bit(two)
    kick1 = rank(S.highest_bit(present & ~pairs))
    below = np.bitwise_count(pairs & ((np.int64(1) << np.maximum(kick1, 0)) - 1)).astype(np.int64)
    conditions = [
        four != 0,
        (three != 0) & (pair_for_house != 0),
        straight >= 0,
        three != 0,
        np.bitwise_count(two) >= 2,
        two != 0,
    ]
    choices = [
        S.BASE[S.QUADS] + qr * 12 + rank(S.highest_bit(present & ~quad))
        - (rank(S.highest_bit(present & ~quad)) > qr),
        S.BASE[S.FULL_HOUSE] + tr * 12 + pr_house - (pr_house > tr),
        S.BASE[S.STRAIGHT] + straight,
        S.BASE[S.TRIPS] + tr * 66 + kickers(trip, 2, [trip]),
        S.BASE[S.TWO_PAIR] + S.colex(pairs) * 11 + kick1 - below,
        S.BASE[S.PAIR] + rank(one_pair) * 220 + kickers(one_pair, 3, [one_pair]),
    ]
    high = S.BASE[S.HIGH_CARD] + S.FIVE_RANK_INDEX[_top_ranks(present, 5)]
    return (np.select(conditions, choices, high) + 1).astype(np.uint16)


@cache
def phash_tables() -> PerfectHashTables:
    """Generate (once) and return the perfect-hash evaluator's tables."""
    dp = dp_table()
    blocks, offset = [], np.zeros(MAX_CARDS + 1, dtype=np.uint32)
    pos = 0
    for k in range(5, MAX_CARDS + 1):
        vectors = count_vectors(k)
        h = quinary_hash(vectors, k, dp)
        assert (h == np.arange(len(vectors))).all(), "quinary hash must be dense and ordered"
        offset[k] = pos
        blocks.append(noflush_strength(vectors))
        pos += len(vectors)
    flush = S.five_distinct_strength(S.ALL_RANK_MASKS, flush=True).astype(np.uint16)
    tables = PerfectHashTables(dp=dp.astype(np.uint32), flush=flush,
                               noflush=np.concatenate(blocks), offset=offset)
    for a in tables.as_dict().values():
        a.flags.writeable = False
    return tables


def group_tables(dp: np.ndarray) -> list[np.ndarray]:
    """For each rank group, ``[left * 2**bits + packed counts] -> contribution | used << 24``.

    The quinary hash is a sum over ranks whose term at rank i depends only on ``q[i]`` and
    the cards left to place; walking a whole group of ranks at once turns 13 dependent steps
    into four table lookups. ``packed`` holds 3 bits of count per rank of the group.
    """
    tables = []
    for lo, hi in RANK_GROUPS:
        width = hi - lo
        packed = np.arange(1 << (3 * width), dtype=np.int64)
        counts = (packed[:, None] >> (3 * np.arange(width))) & 7
        used = counts.sum(axis=1)
        table = np.zeros((MAX_CARDS + 1, len(packed)), dtype=np.int64)
        for left in range(MAX_CARDS + 1):
            contrib = np.zeros(len(packed), dtype=np.int64)
            remaining = np.full(len(packed), left, dtype=np.int64)
            ok = (counts <= 4).all(axis=1) & (used <= left)
            for j in range(width):
                q = np.minimum(counts[:, j], 4)
                contrib += dp[q, 12 - (lo + j), np.clip(remaining, 0, MAX_CARDS)]
                remaining -= counts[:, j]
            table[left] = np.where(ok, contrib | (used << 24), 0)
        tables.append(table.reshape(-1).astype(np.uint32))
    return tables


RANK_GROUPS = ((0, 4), (4, 7), (7, 10), (10, 13))
# SPREAD[lane] puts each rank bit r of a suit lane at bit 3r: four lanes summed give packed
# 3-bit rank counts. (One array pass per rank: a Python sum per lane cost ~15 ms an import.)
_LANES = np.arange(1 << 13, dtype=np.uint64)
SPREAD = sum(((_LANES >> np.uint64(r)) & np.uint64(1)) << np.uint64(3 * r) for r in range(13))
del _LANES


@cache
def rank_groups() -> tuple[np.ndarray, ...]:
    return tuple(group_tables(phash_tables().dp.astype(np.int64)))


def evaluate_masks(masks: np.ndarray, out: np.ndarray | None = None,
                   chunk: int = 1 << 14) -> np.ndarray:
    """Strength of each ``uint64`` hand mask (5 to 9 cards each; not validated here)."""
    t = phash_tables()
    groups = rank_groups()
    masks = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    if out is None:
        out = np.empty(masks.shape, dtype=np.uint16)
    for start in range(0, len(masks), chunk):
        m = masks[start:start + chunk]
        lanes = m.view(np.uint16).reshape(-1, 4)
        c, d, h, s = (np.ascontiguousarray(lanes[:, i]) for i in range(4))
        # flush: the flush table is 0 for a lane of fewer than 5 cards
        flush = np.take(t.flush, c)
        flush |= np.take(t.flush, d)
        flush |= np.take(t.flush, h)
        flush |= np.take(t.flush, s)
        packed = np.take(SPREAD, c)
        packed += np.take(SPREAD, d)
        packed += np.take(SPREAD, h)
        packed += np.take(SPREAD, s)
        left = np.bitwise_count(m).astype(np.uint32)
        h_ = np.take(t.offset, left) + rank_count_hash(packed, left, groups)
        np.maximum(flush, np.take(t.noflush, h_), out=out[start:start + chunk])
    return out


def rank_count_hash(packed: np.ndarray, cards: np.ndarray,
                    groups: tuple[np.ndarray, ...]) -> np.ndarray:
    """The quinary hash of rank counts, walked a rank group at a time (:func:`group_tables`).

    ``packed`` (uint64) holds 3 bits of count per rank (the sum of ``SPREAD`` over the suit
    lanes), ``cards`` the number of cards counted. Returns the hash without the per-card-count
    ``offset``, as ``uint32``. Shared by this evaluator and the wild-card one.

    Examples
    --------
    >>> masks = np.array([0x1F00], dtype=np.uint64)      # T J Q K A of clubs
    >>> packed = np.take(SPREAD, masks.view(np.uint16).reshape(-1, 4)[:, 0])
    >>> h = rank_count_hash(packed, np.array([5]), rank_groups())
    >>> h.dtype, h.shape
    (dtype('uint32'), (1,))
    """
    left = np.asarray(cards).astype(np.uint32)  # a copy: it counts down
    h = np.zeros(len(packed), dtype=np.uint32)
    for (lo, hi), table in zip(RANK_GROUPS, groups):
        bits = 3 * (hi - lo)
        key = ((packed >> np.uint64(3 * lo)) & np.uint64((1 << bits) - 1)).astype(np.uint32)
        key += left << np.uint32(bits)
        v = np.take(table, key)
        h += v & np.uint32(0xFFFFFF)
        left -= v >> np.uint32(24)
    return h
