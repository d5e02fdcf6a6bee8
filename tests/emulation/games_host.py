"""kernels/equity_games.cu on the CPU for the tests: the module's host build
(:mod:`emulation.kernel_build`) on NumPy arrays, with the tables the NumPy path uses (the
short-deck and Omaha structs, the Omaha low table), two blocks of 64 threads striding over
the work.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gpu_eval.games import eight_or_better

from emulation import kernel_build

_GRID, _BLOCK = (2,), (64,)
_NULL = np.uint64(0)


class GameKernels:
    """The games' equity kernels on the CPU, with NumPy wrappers (inputs not validated)."""

    def __init__(self) -> None:
        kernel_build.load("games")
        self.low_table = np.ascontiguousarray(eight_or_better.low_tables()["OMAHA"])

    def strengths(self, pool_ids: np.ndarray, boards: np.ndarray, variant: int, hilo: bool
                  ) -> tuple[np.ndarray, np.ndarray | None]:
        """``(S, L)``: ``(n_boards, n_pool)`` high strengths and (hi/lo) lows."""
        pool = np.ascontiguousarray(pool_ids, dtype=np.uint8)
        b = np.ascontiguousarray(boards, dtype=np.uint8)
        n_pool, h = pool.shape
        S = np.full((len(b), n_pool), 0xFFFF, dtype=np.uint16)
        L = np.full((len(b), n_pool), 0xFF, dtype=np.uint8) if hilo else None
        kernel_build.launch("ge_games_strengths", _GRID, _BLOCK, (
            pool, np.int32(h), np.uint32(n_pool), b, np.uint32(len(b)), np.int32(variant),
            self.low_table, S, _NULL if L is None else L, np.uint32(n_pool)))
        return S, L

    def showdown(self, S: np.ndarray, L: np.ndarray | None, matchups: np.ndarray, scale: int,
                 per_task: int = 7) -> tuple[np.ndarray, ...]:
        """``(wins, ties, units, valid, high, low)`` as uint64 arrays."""
        mu = np.ascontiguousarray(matchups, dtype=np.int32)
        m, n = mu.shape
        out = [np.zeros((m, n), dtype=np.uint64) for _ in range(3)] + \
            [np.zeros(m, dtype=np.uint64)] + [np.zeros((m, n), dtype=np.uint64) for _ in range(2)]
        kernel_build.launch(f"ge_games_showdown_{n}", _GRID, _BLOCK, (
            S, _NULL if L is None else L, np.uint32(S.shape[1]), np.uint32(S.shape[0]), mu,
            np.uint32(m), np.uint32(per_task), np.uint32(scale), *out))
        return tuple(out)

    def sample(self, n: int, combos: np.ndarray, offsets: np.ndarray, cum: np.ndarray,
               modes: np.ndarray, deck: np.ndarray, base: int, k: int, h: int, variant: int,
               hilo: bool, scale: int, key: tuple[int, int], start: int, stop: int,
               max_tries: int, grid: int = 3, block: int = 64
               ) -> tuple[np.ndarray, int]:
        """``(totals (6, n), failures)`` of ``ge_games_sample_n`` over ``grid`` blocks of
        ``block`` threads (its block sums and barriers in the block emulator)."""
        totals = np.zeros(6 * n, dtype=np.uint64)
        failures = np.zeros(1, dtype=np.uint64)
        arrays = [np.ascontiguousarray(a, dtype=t) for a, t in (
            (combos, np.uint64), (offsets, np.uint32), (cum, np.float64), (modes, np.uint8),
            (deck, np.uint64))]
        kernel_build.launch(f"ge_games_sample_{n}", (grid,), (block,), (
            *arrays, np.uint32(len(arrays[4])), np.uint64(base), np.int32(k), np.int32(h),
            np.int32(variant), self.low_table if hilo else _NULL, np.uint32(scale),
            np.uint32(key[0]), np.uint32(key[1]), np.uint64(start), np.uint64(stop),
            np.uint32(max_tries), totals, failures))
        return totals.reshape(6, n), int(failures[0])


@cache
def load() -> GameKernels:
    return GameKernels()
