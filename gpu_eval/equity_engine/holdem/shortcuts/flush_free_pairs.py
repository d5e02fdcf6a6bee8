"""Heads-up range against range, counted per hole-rank pair on flush-free boards.

On a board where nobody can make a flush (:mod:`gpu_eval.equity_engine.holdem.shortcuts.flush_free_ranks`)
every combo of a hole
rank pair has the same strength, so A's pairs are compared with B's pairs once per board:
``QQ+,AKs`` (22 combos) has 4 rank pairs and ``22+,A2s+,KTs+`` (about 110 combos) 28, a
twentieth of the comparisons. What remains per combo pair is which boards count for it (those
sharing no card with either combo); with the comparisons and the validities packed eight boards
to a byte, a combo pair's wins are ``popcount(GT[rank pair a, rank pair b] & valid_a &
valid_b)``. Boards where a flush is possible are compared combo by combo
(:func:`gpu_eval.equity_engine.holdem.shortcuts.combo_pair_grid.heads_up`).

The counts are the same integers as comparing every combo's strength (the tests check).
"""

from __future__ import annotations

import numpy as np

from gpu_eval.equity_engine.holdem.shortcuts import combo_pair_grid, flush_free_ranks

__all__ = ["heads_up", "pays"]

#: Bytes per block of the packed (A combos, B combos, boards) arrays.
BLOCK = 1 << 20


def _words(x: np.ndarray) -> np.ndarray:
    """A bool array packed along its last axis into uint64 words (zero padding bits)."""
    packed = np.packbits(x, axis=-1)
    pad = -packed.shape[-1] % 8
    if pad:
        packed = np.concatenate([packed, np.zeros(packed.shape[:-1] + (pad,), np.uint8)],
                                axis=-1)
    return packed.view(np.uint64)


def pays(pool: np.ndarray, pairs: tuple | None = None) -> bool:
    """Whether the pool's combos share rank pairs enough for :func:`heads_up` to pay.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> pays(cards.to_mask(["QsQh", "QdQc", "QsQd", "QhQc"])), pays(cards.to_mask(["AsKd"]))
    (True, False)
    """
    if pairs is None:
        pairs = flush_free_ranks.rank_pairs(np.asarray(pool, dtype=np.uint64))
    return 3 * len(pairs[1]) <= len(pool)


def heads_up(pool: np.ndarray, boards: np.ndarray, ra: np.ndarray, rb: np.ndarray,
             pairs: tuple | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wins of A, ties and valid boards, ``(len(ra), len(rb))`` int64 each, of every pair of
    the combos ``pool[ra]`` (player 1) and ``pool[rb]`` (player 2) over five-card ``boards``.
    No hand is evaluated: every strength is read from
    :func:`gpu_eval.equity_engine.holdem.shortcuts.flush_free_ranks.lookup_strengths` or ``plain_by_key``.
    ``pairs``: ``flush_free_ranks.rank_pairs(pool)`` when the caller has it (chunks share it).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> from gpu_eval.equity_engine import enumerate_boards as eb
    >>> pool = cards.to_mask(["AhKh", "QsQd", "QcQh"])
    >>> flop = int(cards.to_mask("2c7d9s"))
    >>> boards = eb.completions(eb.FULL_DECK & ~flop, 2) | np.uint64(flop)  # 1,176 boards
    >>> gt, eq, ok = heads_up(pool, boards, np.array([0]), np.array([1, 2]))
    >>> gt[0, 0], ok[0, 0]   # AhKh vs QsQd: 990 boards avoid all four hole cards
    (np.int64(237), np.int64(990))
    """
    pool = np.asarray(pool, dtype=np.uint64)
    boards = np.asarray(boards, dtype=np.uint64)
    na, nb = len(ra), len(rb)
    gt = np.zeros((na, nb), dtype=np.int64)
    eq = np.zeros((na, nb), dtype=np.int64)
    ok = np.zeros((na, nb), dtype=np.int64)
    free = flush_free_ranks.flush_free(boards)
    fl = np.flatnonzero(~free)
    nf = np.flatnonzero(free)
    bf, bn = boards[fl], boards[nf]
    rp, r1, r2 = flush_free_ranks.rank_pairs(pool) if pairs is None else pairs
    if fl.size:  # flushes possible: combo by combo (looked up, not evaluated)
        st = flush_free_ranks.lookup_strengths(pool, bf, rp, r1, r2)
        st[(pool[:, None] & bf[None, :]) != 0] = 0  # a shared card: the board does not count
        g, e, v = combo_pair_grid.heads_up(st[ra], st[rb], True)
        gt += g
        eq += e
        ok += v
    if nf.size:
        plain = flush_free_ranks.plain_by_key(r1, r2, bn)  # (pairs, boards), looked up
        ua, ia = flush_free_ranks.small_unique(rp[ra], len(r1))
        ub, ib = flush_free_ranks.small_unique(rp[rb], len(r1))
        pa, pb = plain[ua], plain[ub]
        gt_bits = _words(pa[:, None, :] > pb[None, :, :])  # (|ua|, |ub|, words)
        eq_bits = _words(pa[:, None, :] == pb[None, :, :])
        valid = _words((pool[:, None] & bn[None, :]) == 0)  # (pool, words)
        va, vb = valid[ra], valid[rb]
        n_bytes = 8 * valid.shape[1]
        step = max(1, BLOCK // max(1, nb * n_bytes))
        for lo in range(0, na, step):
            hi = min(lo + step, na)
            both = va[lo:hi, None, :] & vb[None, :, :]
            rows = ia[lo:hi]
            g = gt_bits[rows][:, ib]
            g &= both
            gt[lo:hi] += np.bitwise_count(g).sum(axis=-1, dtype=np.int64)
            e = eq_bits[rows][:, ib]
            e &= both
            eq[lo:hi] += np.bitwise_count(e).sum(axis=-1, dtype=np.int64)
            ok[lo:hi] += np.bitwise_count(both).sum(axis=-1, dtype=np.int64)
    return gt, eq, ok
