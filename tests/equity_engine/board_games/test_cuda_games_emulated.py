"""gpu_eval.equity_engine.board_games.cuda_engine (exact equity for Omaha, hi/lo and short deck on CUDA)
without a GPU.

tests/emulation/fake_cupy/ stands in for CuPy: device arrays are NumPy arrays and each launch runs
kernels/equity_games.cu built for the host (tests/emulation/kernel_build.py), with the tables uploaded
through the module's ``__constant__`` symbols exactly as on a device. ``ge.equity(...,
backend="cuda")`` must give the NumPy engine's result field for field.
"""

from __future__ import annotations

import numpy as np
import pytest
from equity_jobs import job_of

import gpu_eval as ge
from gpu_eval.cuda import availability
from gpu_eval.equity_engine.board_games import cuda_engine as cuda_board_games

from result_fields import assert_same_fields


@pytest.fixture
def fake(stand_in_cupy, monkeypatch):
    monkeypatch.setattr(cuda_board_games, "MAX_CELLS", 3_000)  # several chunks per part
    return stand_in_cupy

FIELDS = ("equity", "win", "tie", "wins", "ties", "high", "low", "scoop")


@pytest.mark.parametrize("game, players, board", [
    ("omaha", ["AsAhKdQc", "JhTc9s8d"], "Ac2h3s"),
    ("omaha", ["KsKhQsQh", "JcTc9d8d", "5s5h4s4h"], "Kc7d2s"),
    ("omaha", ["AsAhKdQc", "KK$ds"], "Kc7d2s"),
    ("omaha5", ["AsAhKdQcJc", "2c3c4d5dTh"], "Kc7d2s9h"),
    ("omaha6", ["AsAhKdQcJc9h", "2c3c4d5dTh8s", "6s6h7c7s8c8d"], "Kc7d2s9d"),
    ("omaha-hilo", ["AsAh2d3c", "KsKhQdJc"], "4c7d9s"),
    ("omaha-hilo", ["4c3sKhQd", "4h5cQhKs"], "Ac2d6cKcJs"),
    ("omaha5-hilo", ["AsAh2d3cTc", "KsKh4dJc5h", "A2$ds"], "6c7d9s8h"),
    ("shortdeck", ["AhAd", "KsKc"], ""),
    ("shortdeck-triton", ["AhAd", "KK,QQ,AKs"], "Tc7d6s"),
])
def test_cuda_exact_equals_numpy(gpu, game, players, board, monkeypatch):
    monkeypatch.setattr(cuda_board_games, "MAX_CELLS", 3_000)  # several chunks per part
    want = ge.equity(players, board=board, game=game, backend="numpy")
    got = ge.equity(players, board=board, game=game, backend="cuda")
    assert want.exact and got.exact
    assert got.backend == "cuda" and want.backend == "numpy"
    assert_same_fields(want, got, FIELDS)
    assert (want.method, want.boards, want.matchups) == (got.method, got.boards, got.matchups)
    if not gpu.real:
        names = {name for name, _, _ in gpu.cp.launches}
        assert {"ge_games_strengths"} <= names
        assert any(n.startswith("ge_games_showdown_") for n in names)


@pytest.mark.parametrize("game, players, board", [
    ("omaha", ["AsAhKdQc", "JhTc9s8d"], "Kc7d2s"),
    ("omaha", ["AsAhKdQc", "KK$ds", "random"], "Kc7d2s"),
    ("omaha6", ["AsAhKdQcJc9h", "2c3c4d5dTh8s"], ""),
    ("omaha-hilo", ["AsAh2d3c", "KsKhQdJc"], "4c7d9s"),
    ("omaha5-hilo", ["AsAh2d3cTc", "A2K$ds"], "6c7d9s"),
    ("shortdeck-triton", ["AhAd", "0.5(KK), QQ, AKs"], ""),
])
def test_cuda_monte_carlo_agrees_with_numpy(fake, game, players, board):
    kw = dict(board=board, game=game, seed=3)
    exact = ge.equity(players, backend="numpy", exact=False, samples=200_000, **kw) \
        if "random" in players else ge.equity(players, backend="numpy", exact=True, **kw)
    got = ge.equity(players, backend="cuda", exact=False, samples=6_000, **kw)
    again = ge.equity(players, backend="cuda", exact=False, samples=6_000, **kw)
    assert got.backend == "cuda" and not got.exact and got.samples == 6_000
    for name in FIELDS + ("stderr",):  # a seed reproduces a CUDA run
        a, b = getattr(got, name), getattr(again, name)
        assert (a is None and b is None) or np.array_equal(a, b), name
    assert abs(got.equity.sum() - 1) < 1e-12
    tol = 5 * np.hypot(got.stderr, exact.stderr) + 1e-9
    assert np.all(np.abs(got.equity - exact.equity) < tol), (got.equity, exact.equity)
    if got.high is not None:
        np.testing.assert_allclose(got.high + got.low, got.equity, atol=1e-12)
    n = len(players)
    assert any(name == f"ge_games_sample_{n}" for name, _, _ in fake.launches)


def test_cuda_monte_carlo_split_is_the_same(fake):
    job = job_of(["AsAh2d3c", "random"], game="omaha-hilo", board="4c7d9s", exact=False,
                  samples=3_000, seed=9, backend="cuda")
    whole = cuda_board_games.sample_counts(job, 0, 3_000)
    parts = [cuda_board_games.sample_counts(job, a, b) for a, b in ((0, 1_000), (1_000, 3_000))]
    for w, a, b in zip(whole, *parts):
        np.testing.assert_array_equal(w, a + b)


def test_ranges_that_cannot_be_dealt_answer_at_once(fake, monkeypatch):
    """Three players who each need two of the four aces: CUDA answers as NumPy does (a
    ValueError about the players' ranges), found before any launch (the sampler had no stop
    flag and spun MAX_TRIES draws a sample; lowered here so the old path ends too)."""
    from gpu_eval.equity_engine.holdem import cuda_engine as CE

    monkeypatch.setattr(CE, "MAX_TRIES", 1 << 10)
    kw = dict(game="omaha", exact=False, samples=2_000, seed=1)
    with pytest.raises(ValueError, match="the players' ranges"):
        ge.equity(["AA", "AA", "AA"], backend="numpy", **kw)
    with pytest.raises(ValueError, match="the players' ranges cannot be dealt together"):
        ge.equity(["AA", "AA", "AA"], backend="cuda", **kw)
    assert not [name for name, _, _ in fake.launches if name.startswith("ge_games_sample")]


def test_cuda_without_device_raises():
    availability.cuda_available.cache_clear()
    try:
        if availability.cuda_available()[0]:
            pytest.skip("a CUDA device is present")
        with pytest.raises(RuntimeError, match="backend='cuda' is not available"):
            ge.equity(["AhAd", "KsKc"], game="shortdeck", backend="cuda")
    finally:
        availability.cuda_available.cache_clear()


def test_cuda_lows_equal_numpy(fake):
    rng = np.random.default_rng(5)
    ids = np.array([rng.choice(52, 11, replace=False) for _ in range(500)], dtype=np.uint8)
    for h in (4, 5, 6):
        want = ge.evaluate_low(ids[:, :h], ids[:, 6:], backend="numpy")
        got = ge.evaluate_low(ids[:, :h], ids[:, 6:], backend="cuda")
        np.testing.assert_array_equal(want, got)
    free = np.setdiff1d(np.arange(52), ge.cards.parse("2c 3d 8h Ks"))
    holes = np.array([rng.choice(free, 4, replace=False) for _ in range(300)], dtype=np.uint8)
    shared = ge.evaluate_low(holes, "2c 3d 8h Ks", backend="cuda")
    np.testing.assert_array_equal(shared, ge.evaluate_low(holes, "2c 3d 8h Ks"))
    np.testing.assert_array_equal(ge.evaluate_low(ids[:, :7], backend="cuda"),
                                  ge.evaluate_low(ids[:, :7]))


@pytest.mark.parametrize("game, players, board", [
    ("omaha", ["AsAhKdQc", "JhTc9s8d"], ""),            # 1,086,008 boards
    ("omaha6", ["AsAhKdQcJc9h", "2c3c4d5dTh8s", "6s6h7c7s8c8d"], "Kc7d2s"),
    ("omaha-hilo", ["AsAh2d3c", "KsKhQdJc"], ""),
    ("shortdeck-triton", ["AhAd", "KK,QQ,AKs"], ""),
])
def test_preflop_and_multiway_exact_equals_numpy(gpu, game, players, board):
    gpu.only_real("every preflop board (test_cuda_exact_equals_numpy walks smaller spots)")
    want = ge.equity(players, board=board, game=game, backend="numpy")
    got = ge.equity(players, board=board, game=game, backend="cuda")
    assert got.backend == "cuda"
    assert_same_fields(want, got, ("equity", "wins", "ties", "high", "low", "scoop"))


@pytest.mark.parametrize("game, players", [
    ("omaha", ["AsAhKdQc", "JhTc9s8d"]),
    ("omaha-hilo", ["AsAh2d3c", "KsKhQdJc", "random"]),
    ("shortdeck-triton", ["AhAd", "random"]),
])
def test_monte_carlo_agrees_with_numpy(gpu, game, players):
    ref = ge.equity(players, game=game, backend="numpy", exact=False,
                    samples=gpu.size(400_000, 20_000), seed=1)
    got = ge.equity(players, game=game, backend="cuda", exact=False,
                    samples=gpu.size(4_000_000, 20_000), seed=1)
    assert got.backend == "cuda"
    assert np.all(np.abs(got.equity - ref.equity) < 5 * np.hypot(got.stderr, ref.stderr))


def test_sampler_progress_follows_each_launch(fake, monkeypatch):
    """The games sampler reports each launch's samples to the bar once it has run."""
    monkeypatch.setattr(cuda_board_games, "SAMPLES_PER_LAUNCH", 1_000)
    job = job_of(["AsAh2d3c", "random"], game="omaha", board="4c7d9s", exact=False,
                 samples=2_500, seed=9, backend="cuda")
    steps = []

    class Bar:
        def update(self, n):
            steps.append(n)

    cuda_board_games.sample_counts(job, 0, 2_500, Bar())
    assert steps == [1_000, 1_000, 500]
