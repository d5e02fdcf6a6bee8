"""The counting of :func:`gpu_eval.equity_batch`: many independent spots (every hand known),
exact, as tasks over spans of spots (the planner's ``spots`` strategies): preflop rows from
the shipped table or by rank class, flop/turn/river rows by enumerating each row's
completions at once on NumPy (or :mod:`gpu_eval.equity_engine.batch.cuda_engine` on a device), and the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

from gpu_eval.card_spelling import ID_TO_MASK as _ID_TO_MASK
from gpu_eval.equity_engine.holdem import shipped_table
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.evaluator.numpy_path import run_chunked

__all__ = ["BatchResult", "SpotJob", "spot_task", "batch_result", "CHUNK_EVALS"]

_FULL_DECK = int(np.bitwise_or.reduce(_ID_TO_MASK))
#: Hand evaluations per chunk of flop/turn/river rows (bounds memory).
CHUNK_EVALS = 1 << 19

@dataclass(frozen=True, eq=False)
class BatchResult:
    """What :func:`equity_batch` found, one row per spot (arrays read-only).

    Attributes
    ----------
    equity, win, tie, tie_share : numpy.ndarray of float64, shape (N, P)
        Per spot and player, as in :class:`gpu_eval.EquityResult`: the expected share of the
        pot, the probability of winning it alone, the probability of splitting it, and the
        share won in splits (a 2-way split gives each 1/2), so ``equity = win + tie_share``.
    wins, ties : numpy.ndarray of int64, shape (N, P)
        Board completions won outright and split, per spot and player.
    boards : numpy.ndarray of int64, shape (N,)
        Board completions each spot was played on.
    backend : str
        Where it ran (``"numpy"`` or ``"cuda"``; preflop spots always run on the host).
    method : str
        What was done.
    high, low, scoop : numpy.ndarray of float64, shape (N, P), or None
        Hi/lo games only (the registry's ``hilo`` games: Omaha hi/lo, stud hi/lo, Courchevel
        hi/lo; None for every other game and for hold'em): per spot and player, the pot
        share won through the high and the low half (``equity == high + low``) and the
        probability of scooping the whole pot, as in :class:`gpu_eval.EquityResult`.
    """

    equity: Any
    win: Any
    tie: Any
    tie_share: Any
    wins: Any
    ties: Any
    boards: Any
    backend: str
    method: str
    high: Any = None
    low: Any = None
    scoop: Any = None

    def __len__(self) -> int:
        return len(self.boards)


def batch_result(wins, ties, units, n_boards, scale: int, backend: str, method: str) -> BatchResult:
    """The shares from the counts (NumPy or CuPy arrays alike); NumPy results read-only."""
    c = n_boards[:, None].astype(np.float64)
    win = wins / c
    tie = ties / c
    tie_share = units / (scale * c)
    out = (win + tie_share, win, tie, tie_share, wins, ties, n_boards)
    for a in out:
        if isinstance(a, np.ndarray) and not type(a).__module__.startswith('cupy'):
            a.flags.writeable = False
    return BatchResult(*out, backend=backend, method=method)


def _preflop(hole: np.ndarray, d_mask: np.ndarray, wins, ties, units, share) -> None:
    """Heads-up rows without dead cards from the table; the others by rank class."""
    n, p = hole.shape
    todo = np.arange(n)
    if p == 2 and shipped_table.USE_TABLE:
        fast = np.flatnonzero(d_mask == 0)
        if fast.size:
            w, t = shipped_table.counts_of_masks(hole[fast].reshape(-1),
                                                np.arange(2 * fast.size).reshape(-1, 2))
            wins[fast] = w
            ties[fast] = t[:, None]
            units[fast] = t[:, None] * share[2]
        todo = np.flatnonzero(d_mask != 0)
    if todo.size:
        from gpu_eval.equity_engine.holdem.shortcuts import board_rank_classes  # noqa: PLC0415 -- only rows the table cannot answer

        for i in todo.tolist():
            holes = [int(m) for m in hole[i]]
            deck = _FULL_DECK & ~int(d_mask[i])
            for m in holes:
                deck &= ~m
            wins[i], ties[i], units[i], _ = board_rank_classes.matchup_counts(holes, deck)


@lru_cache(maxsize=16)
def _positions(r: int, k: int) -> np.ndarray:
    """``(C(r, k), k)`` index tuples into a row's ``r`` remaining cards."""
    out = np.array(list(combinations(range(r), k)), dtype=np.intp).reshape(math.comb(r, k), k)
    out.flags.writeable = False
    return out


def _postflop(rows: np.ndarray, hole: np.ndarray, used: np.ndarray, b_mask: np.ndarray,
              r: int, k: int, wins, ties, units, share) -> None:
    """Spots ``rows`` (each with ``r`` cards left, ``k`` to come): every completion at once."""
    p = hole.shape[1]
    pos = _positions(r, k)
    n_c = len(pos)
    per_chunk = max(1, CHUNK_EVALS // (n_c * p))
    card_bits = _ID_TO_MASK

    def work(s: int, e: int) -> None:
        idx = rows[s:e]
        m = e - s
        free = (used[idx, None] & card_bits[None, :]) == 0  # (m, 52), r per row
        # Each row's remaining cards in id order, as mask bits, with the known board folded
        # into the first column a completion takes.
        rem = card_bits[np.nonzero(free)[1]].reshape(m, r)
        if k == 0:
            board = b_mask[idx, None]
        else:
            board = np.take(rem, pos[:, 0], axis=1)
            board |= b_mask[idx, None]
            for j in range(1, k):
                board |= np.take(rem, pos[:, j], axis=1)
        st = np.empty((p, m, n_c), dtype=np.uint16)
        hand = np.empty((m, n_c), dtype=np.uint64)
        for q in range(p):
            np.bitwise_or(hole[idx, q, None], board, out=hand)
            evaluate_masks(hand.reshape(-1), st[q].reshape(-1))
        if p == 2:
            a, b = st
            w0 = np.count_nonzero(a > b, axis=1)
            t = np.count_nonzero(a == b, axis=1)
            wins[idx, 0] = w0
            wins[idx, 1] = n_c - w0 - t
            ties[idx] = t[:, None]
            units[idx] = t[:, None] * share[2]
            return
        best = st.max(axis=0)
        win = st == best
        cnt = win.sum(axis=0, dtype=np.int64)
        solo = cnt == 1
        wins[idx] = np.count_nonzero(win & solo, axis=2).T
        ties[idx] = np.count_nonzero(win & ~solo, axis=2).T
        units[idx] = (win * share[cnt]).sum(axis=2).T

    run_chunked(len(rows), work, per_chunk)


@dataclass(frozen=True, eq=False)
class SpotJob:
    """Validated spots: per row the players' hole masks, the board and dead cards, every
    used card, the cards left, the board cards to come (the same ``k`` in every row), the
    completions per row and the pot's units; whether the caller gave CuPy arrays."""

    hole: np.ndarray
    b_mask: np.ndarray
    d_mask: np.ndarray
    used: np.ndarray
    left: np.ndarray
    k: int
    n_boards: np.ndarray
    scale: int
    cupy_out: bool

    @property
    def method(self) -> str:
        n, p = self.hole.shape
        street = {5: "preflop", 2: "flop", 1: "turn", 0: "river"}[self.k]
        return f"exact: {n:,} {street} spot{'s' * (n != 1)}, {p} players"


def spot_task(job: SpotJob, start: int, stop: int, bar: Any = None) -> tuple:
    """``(wins, ties, units)`` of spots ``[start, stop)`` on the host, each ``(n, P)``.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> hole = cards.to_mask(["AhKh", "QsQd"]).reshape(1, 2)
    >>> b = cards.to_mask(["2c7d9h"])
    >>> used = hole[:, 0] | hole[:, 1] | b
    >>> job = SpotJob(hole, b, np.zeros(1, np.uint64), used, np.array([45]), 2,
    ...               np.array([990]), 2, False)
    >>> spot_task(job, 0, 1)[0].tolist()
    [[280, 710]]
    """
    sl = slice(start, stop)
    n, p = stop - start, job.hole.shape[1]
    wins = np.zeros((n, p), dtype=np.int64)
    ties = np.zeros((n, p), dtype=np.int64)
    units = np.zeros((n, p), dtype=np.int64)
    share = np.zeros(p + 1, dtype=np.int64)
    share[2:] = job.scale // np.arange(2, p + 1)  # split shares only: wins count apart
    if job.k == 5:
        _preflop(job.hole[sl], job.d_mask[sl], wins, ties, units, share)
    else:
        left = job.left[sl]
        for r in np.unique(left):
            rows = np.flatnonzero(left == r)
            _postflop(rows, job.hole[sl], job.used[sl], job.b_mask[sl], int(r), job.k, wins,
                      ties, units, share)
    return wins, ties, units
