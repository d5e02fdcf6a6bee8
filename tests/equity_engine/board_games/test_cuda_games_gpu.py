"""Exact equity for Omaha, hi/lo and short deck on a real GPU against the NumPy engine.

Skipped, with the reason, unless CuPy imports and sees a CUDA device;
tests/equity_engine/board_games/test_cuda_games_emulated.py runs the same comparison without one (CuPy
emulated).
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cuda import availability

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)


@pytest.mark.parametrize("game, players, board", [
    ("omaha", ["AsAhKdQc", "JhTc9s8d"], ""),            # 1,086,008 boards
    ("omaha", ["AsAhKdQc", "KK$ds"], "Kc7d2s"),
    ("omaha6", ["AsAhKdQcJc9h", "2c3c4d5dTh8s", "6s6h7c7s8c8d"], "Kc7d2s"),
    ("omaha-hilo", ["AsAh2d3c", "KsKhQdJc"], ""),
    ("omaha5-hilo", ["AsAh2d3cTc", "KsKh4dJc5h", "A2$ds"], "6c7d9s8h"),
    ("shortdeck", ["AhAd", "KsKc"], ""),
    ("shortdeck-triton", ["AhAd", "KK,QQ,AKs"], ""),
])
def test_gpu_exact_equals_numpy(game, players, board):
    want = ge.equity(players, board=board, game=game, backend="numpy")
    got = ge.equity(players, board=board, game=game, backend="cuda")
    assert got.backend == "cuda"
    for name in ("equity", "wins", "ties", "high", "low", "scoop"):
        a, b = getattr(want, name), getattr(got, name)
        if a is None:
            assert b is None
        else:
            np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize("game, players", [
    ("omaha", ["AsAhKdQc", "JhTc9s8d"]),
    ("omaha-hilo", ["AsAh2d3c", "KsKhQdJc", "random"]),
    ("shortdeck-triton", ["AhAd", "random"]),
])
def test_gpu_monte_carlo_agrees_with_numpy(game, players):
    ref = ge.equity(players, game=game, backend="numpy", exact=False, samples=400_000, seed=1)
    got = ge.equity(players, game=game, backend="cuda", exact=False, samples=4_000_000, seed=1)
    assert got.backend == "cuda"
    assert np.all(np.abs(got.equity - ref.equity) < 5 * np.hypot(got.stderr, ref.stderr))
