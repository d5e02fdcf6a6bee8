"""Stud, stud hi/lo, razz and the draw games' equity on a real GPU against the NumPy engine.

Skipped, with the reason, unless CuPy imports and sees a CUDA device;
tests/equity_engine/deals/test_cuda_deals_emulated.py runs the same comparisons without one (CuPy emulated).
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cuda import availability

from result_fields import assert_same_fields

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)

FIELDS = ("equity", "wins", "ties", "high", "low", "scoop")


@pytest.mark.parametrize("game, players, dead", [
    ("stud", ["AhKh3c", "QsQd7h"], ""),                  # third street: 18,265,297,050 deals
    ("razz", ["Ah2h3h4h", "Kh2d3d4d"], "Qc"),
    ("stud-hilo", ["AhAcAdKhQc", "KsKcKdQhJc"], ""),
    ("stud-hilo", ["Ah2c3dKhQc6s", "4s5c6dQhJc", "8c8dAs2h7s"], "9c"),
    ("deuce-seven-draw", ["7d5h4c3s2h", "5s4h3d2c"], "Ad"),
    ("badugi-draw", ["Ac2d3h", "4s5h6c", "2c7h"], ""),
    ("five-card-draw", ["AhAd", "KsKcQd"], ""),
])
def test_gpu_exact_equals_numpy(game, players, dead):
    want = ge.equity(players, game=game, dead=dead, backend="numpy", exact=True)
    got = ge.equity(players, game=game, dead=dead, backend="cuda", exact=True)
    assert got.backend == "cuda" and got.boards == want.boards
    assert_same_fields(want, got, FIELDS)


def test_gpu_third_street_hilo_is_walked_and_agrees_with_sampling():
    """Heads-up third-street stud hi/lo: exact on the device (NumPy can only sample it)."""
    players = ["Ah2c3d", "KsKdQh"]
    got = ge.equity(players, game="stud-hilo", backend="cuda")
    assert got.exact and got.boards == 18_265_297_050
    np.testing.assert_allclose(got.high + got.low, got.equity, atol=1e-12)
    mc = ge.equity(players, game="stud-hilo", backend="cuda", exact=False,
                   samples=2_000_000, seed=5)
    assert np.all(np.abs(mc.equity - got.equity) < 5 * mc.stderr + 1e-9)


@pytest.mark.parametrize("game, players", [
    ("stud", ["AhKh3c", "QsQd7h", "2c2d9s"]),
    ("stud-hilo", ["Ah2c3d", "KsKdQh"]),
    ("deuce-seven-draw", ["7d5h", "8h6d4s", "2c3c"]),
])
def test_gpu_monte_carlo_is_seeded_and_near_numpy(game, players):
    kw = dict(game=game, exact=False, samples=400_000, seed=9)
    a = ge.equity(players, backend="cuda", **kw)
    b = ge.equity(players, backend="cuda", **kw)
    assert a.backend == "cuda" and np.array_equal(a.equity, b.equity)
    ref = ge.equity(players, backend="numpy", **kw)
    assert np.all(np.abs(a.equity - ref.equity) < 5 * np.hypot(a.stderr, ref.stderr) + 1e-9)
