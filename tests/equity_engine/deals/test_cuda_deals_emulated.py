"""gpu_eval.equity_engine.deals.cuda_engine (stud, stud hi/lo, razz and the draw games on CUDA) without a GPU.

tests/emulation/fake_cupy/ stands in for CuPy: device arrays are NumPy arrays and each launch
runs kernels/equity_deals.cu built for the host in the block emulator
(tests/emulation/kernel_build.py), with the bitmask and low tables uploaded through the module's
``__constant__`` symbols exactly as on a device. Exact ``ge.equity(..., backend="cuda")``
must give the NumPy engine's integers field for field; Monte Carlo is the device's own streams
(reproducible, split-free, within standard errors of exact).
"""

from __future__ import annotations

import numpy as np
import pytest
from equity_jobs import job_of

import gpu_eval as ge
from gpu_eval.equity_engine.deals import cuda_engine as cuda_deals
from gpu_eval.equity_engine.deals import numpy_engine as deals

from result_fields import assert_same_fields

FIELDS = ("equity", "win", "tie", "tie_share", "wins", "ties", "high", "low", "scoop")


@pytest.fixture
def fake(stand_in_cupy):
    return stand_in_cupy


@pytest.mark.parametrize("game, players, dead", [
    ("razz", ["Ah2h3h4h5h", "Kh2d3d4d5d"], ""),
    ("razz", ["Ah2h3h4h5h6c", "Kh2d3d4d5d", "7s8s9sTs2c"], "Qc"),
    ("stud", ["AhAcAdKhQc", "KsKcKdQhJc"], "2s"),
    ("stud", ["AhKhQhJh9h2h", "2c2d2s3c3d4c", "7s7h8c8d9c"], ""),
    ("stud-hilo", ["AhAcAdKhQc", "KsKcKdQhJc"], ""),
    ("stud-hilo", ["Ah2c3dKhQc6s", "4s5c6dQhJc", "8c8dAs2h7s"], "9c"),
    ("deuce-seven-draw", ["7d5h4c3s2h", "5s4h3d2c"], "Ad"),
    ("deuce-seven-draw", ["7d5h4c", "8h6d4s2c"], ""),          # the first player draws most
    ("badugi-draw", ["Ac2d3h", "4s5h6c7d", "2c"], "Kd"),
    ("five-card-draw", ["AhAdKcKs", "QhJhTh9h", "2s3s4s"], "2c2d"),
])
def test_cuda_exact_equals_numpy(gpu, game, players, dead):
    want = ge.equity(players, game=game, dead=dead, backend="numpy", exact=True)
    got = ge.equity(players, game=game, dead=dead, backend="cuda", exact=True)
    assert want.exact and got.exact and got.backend == "cuda" and want.backend == "numpy"
    assert_same_fields(want, got, FIELDS)
    assert got.boards == want.boards and got.labels == want.labels
    assert got.method.startswith("exact (grid)") and got.strategy == "deal enumeration"
    if not gpu.real:
        names = [name for name, _, _ in gpu.cp.launches]
        assert names.count("ge_deals_strengths") == len(players)
        assert names.count(f"ge_deals_grid_{len(players)}") >= 1


@pytest.mark.parametrize("game, players", [("razz", ["Ah2h3h4h5h", "Kh2d3d4d5d"]),
                                           ("stud-hilo", ["Ah2c3dKhQc", "KsKcKdQhJc"])])
def test_heads_up_grid_stages_its_rows_in_tiles(fake, monkeypatch, game, players):
    """The heads-up grid (ge_deals_grid_2) walks a block's run of rows through shared memory,
    256 at a time: two blocks of 430 rows each take two tiles, and the counts are NumPy's."""
    from gpu_eval.cuda import modules

    monkeypatch.setattr(modules.DeviceState, "grid", lambda self, name, n: 2)
    want = ge.equity(players, game=game, backend="numpy", exact=True)
    got = ge.equity(players, game=game, backend="cuda", exact=True)
    assert_same_fields(want, got, FIELDS)
    grids = [grid for name, grid, _ in fake.launches if name == "ge_deals_grid_2"]
    assert grids == [(2,)] and want.boards == 861 * 780  # C(42, 2) rows, C(40, 2) columns each


def test_exact_none_walks_what_a_gpu_walks_in_seconds(fake):
    """Heads-up stud from AhKh against QsQd7h is a grid of 2.7e11 deals: about 1.5 s at the
    rate the grid kernels' instruction counts give (deals.CUDA_RATE), 0.2 s on the heads-up
    path. exact=None enumerates it on CUDA (at the old 2e10 a second it sampled it), and
    still samples on NumPy."""
    job = job_of(["AhKh", "QsQd7h"], game="stud", backend="cuda")
    assert (job.method, job.backend) == ("grid", "cuda") and job.work == pytest.approx(2.74e11,
                                                                                      rel=0.01)
    assert 1.0 < job.seconds < 2.0
    assert job_of(["AhKh", "QsQd7h"], game="stud", backend="numpy").method == "monte carlo"
    rate = deals.H200_THREAD_INSTRUCTIONS * deals.GRID_ISSUE_EFFICIENCY
    assert deals.CUDA_RATE == rate / deals.GRID_INSTRUCTIONS_PER_DEAL


def test_the_grid_kernel_counts_a_row_range(fake, monkeypatch):
    """A task over rows [a, b) counts just those rows, in several launches: spans add up to
    the whole (Dask)."""
    # each emulated launch builds its blocks' fibers: a few launches, not hundreds
    monkeypatch.setattr(cuda_deals, "ROWS_PER_LAUNCH", 400)
    job = job_of(["Ah2h3h4h5h6c", "Kh2d3d4d5d6d", "7s8s9sTs2c"], game="razz",
                     backend="cuda", exact=True)
    assert job.backend == "cuda" and job.method == "grid" and 800 < job.span < 1600
    whole = deals.task(job, 0, job.span)
    cut = job.span // 3
    parts = [deals.task(job, 0, cut), deals.task(job, cut, job.span)]
    for w, a, b in zip(whole, *parts):
        np.testing.assert_array_equal(w, a + b)
    assert int(whole[5]) == job.prob.deals()


@pytest.mark.parametrize("game, players, dead", [
    ("stud", ["AhKh3c", "QsQd7h"], ""),
    ("stud-hilo", ["Ah2c3d", "KsKdQh", "7c8c9c"], "Tc"),
    ("razz", ["Ah2h3h4h", "Kh2d3d4d"], ""),
    ("badugi-draw", ["Ac2d", "4s5h6c"], ""),
])
def test_cuda_monte_carlo(fake, game, players, dead):
    kw = dict(game=game, dead=dead, seed=11, exact=False)
    got = ge.equity(players, backend="cuda", samples=4_000, **kw)
    again = ge.equity(players, backend="cuda", samples=4_000, **kw)
    assert got.backend == "cuda" and not got.exact and got.samples == 4_000
    assert got.strategy == "deal monte carlo"
    for name in FIELDS + ("stderr",):  # a seed reproduces a CUDA run
        a, b = getattr(got, name), getattr(again, name)
        assert (a is None and b is None) or np.array_equal(a, b), name
    # however the samples are split (the device streams are per sample)
    job = job_of(players, game=game, dead=dead, seed=11, exact=False, samples=4_000,
                     backend="cuda")
    whole = deals.task(job, 0, 4_000)
    for w, a, b in zip(whole, deals.task(job, 0, 1_234), deals.task(job, 1_234, 4_000)):
        np.testing.assert_array_equal(w, a + b)
    assert abs(got.equity.sum() - 1) < 1e-12
    exact = ge.equity(players, game=game, dead=dead, backend="numpy", exact=True) \
        if deals.costs(job.prob)["grid"] < 3e7 else \
        ge.equity(players, backend="numpy", samples=200_000, **kw)
    tol = 5 * np.hypot(got.stderr, exact.stderr) + 1e-9
    assert np.all(np.abs(got.equity - exact.equity) < tol), (got.equity, exact.equity)
    if got.high is not None:
        np.testing.assert_allclose(got.high + got.low, got.equity, atol=1e-12)
    assert any(name == f"ge_deals_sample_{len(players)}" for name, _, _ in fake.launches)


def test_cuda_plans_walk_third_street_exactly(fake):
    """Heads-up third street (18,265,297,050 deals, 2.7e10 pairs) is exact on CUDA by
    default, hi/lo too (NumPy samples hi/lo there); three-handed third street samples."""
    for game in ("stud", "stud-hilo", "razz"):
        job = job_of(["AhKh3c", "QsQd7h"], game=game, backend="cuda")
        assert (job.backend, job.method, job.span) == ("cuda", "grid", 163_185)
        assert job.prob.deals() == 18_265_297_050
        assert 0.1 < job.seconds < 0.2  # 2.66e10 pairs at deals.CUDA_RATE (1.9e11 a second)
    assert job_of(["AhKh3c", "QsQd7h"], game="stud-hilo", backend="numpy").method == \
        "monte carlo"
    three = job_of(["AhKh3c", "QsQd7h", "2c2d9s"], game="stud", backend="cuda")
    assert (three.backend, three.method) == ("cuda", "monte carlo")
    with pytest.raises(ValueError, match="exact=False"):
        job_of(["AhKh3c", "QsQd7h", "2c2d9s"], game="stud", backend="cuda", exact=True)


def test_player_order_puts_the_most_completions_last():
    p = deals.prepare(["-", "7d5h4c", "8h6d4s2c"], "", "", "deuce-seven-draw")
    dev, order = deals.device_order(p)
    assert order == [1, 2, 0] and dev.need == (2, 1, 5)
    assert dev.labels == ("7d5h4c", "8h6d4s2c", "-")


def test_auto_keeps_quick_walks_on_the_host(fake):
    """backend="auto" with a device: a deal NumPy walks in well under HOST_SECONDS stays on
    the host; third street goes to the device; exact=False always samples on the device."""
    tiny = job_of(["7d5h4c3s2h", "5s4h3d2c"], game="deuce-seven-draw", dead="Ad")
    assert tiny.backend == "numpy" and tiny.exact
    assert ge.equity(["7d5h4c3s2h", "5s4h3d2c"], game="deuce-seven-draw", dead="Ad"
                     ).backend == "numpy"
    big = job_of(["AhKh3c", "QsQd7h"], game="stud-hilo")
    assert (big.backend, big.method) == ("cuda", "grid")
    assert job_of(["7d5h4c3s2h", "5s4h3d2c"], game="deuce-seven-draw", dead="Ad",
                      exact=False, samples=1000).backend == "cuda"


def _counting_runs(fake, monkeypatch) -> list[str]:
    """Names of the deal kernels as the stand-in device runs them (its host builds' launches,
    not the launches queued on a stream)."""
    from emulation import kernel_build

    ran: list[str] = []
    run = kernel_build.KernelLibrary.launch

    def counted(self, name, grid, block, args, symbols):
        ran.append(name)
        run(self, name, grid, block, args, symbols)

    monkeypatch.setattr(kernel_build.KernelLibrary, "launch", counted)
    return ran


@pytest.mark.parametrize("exact", [True, False])
def test_progress_advances_as_launches_complete(fake, monkeypatch, exact):
    """On a stream that queues its work (the stand-in runs it when the host waits on it), the
    bar hears of a launch only once it has run: at the i-th update at least i launches of the
    kernel ran (it used to advance as launches were queued, before any ran)."""
    monkeypatch.setattr(cuda_deals, "ROWS_PER_LAUNCH", 200)
    monkeypatch.setattr(cuda_deals, "SAMPLES_PER_LAUNCH", 1024)
    ran = _counting_runs(fake, monkeypatch)
    kernel = "ge_deals_grid_3" if exact else "ge_deals_sample_3"
    seen: list[int] = []

    class Bar:
        def update(self, n):
            seen.append(ran.count(kernel))

    players = ["Ah2h3h4h5h6c", "Kh2d3d4d5d6d", "7s8s9sTs2c"]
    with fake.cuda.Stream(non_blocking=True):
        job = job_of(players, game="razz", backend="cuda", exact=exact,
                         samples=None if exact else 5_000, seed=None if exact else 3)
        deals.task(job, 0, job.span, Bar())
    assert len(seen) >= 4
    assert all(done >= i + 1 for i, done in enumerate(seen)), seen
    assert not fake.races


def test_ctrl_c_stops_queueing_launches(fake, monkeypatch):
    """A KeyboardInterrupt (here raised by the bar when the first launch completes) stops the
    engine: no launch is queued after it, two at most were in flight, of the many the walk
    needs."""
    from gpu_eval.cuda import launch_progress

    monkeypatch.setattr(cuda_deals, "ROWS_PER_LAUNCH", 100)

    class Interrupt:
        def update(self, n):
            raise KeyboardInterrupt

    job = job_of(["Ah2h3h4h5h6c", "Kh2d3d4d5d6d", "7s8s9sTs2c"], game="razz",
                     backend="cuda", exact=True)
    assert -(-job.span // 100) >= 8
    with fake.cuda.Stream(non_blocking=True), pytest.raises(KeyboardInterrupt):
        deals.task(job, 0, job.span, Interrupt())
    queued = [name for name, _, _ in fake.launches if name == "ge_deals_grid_3"]
    assert len(queued) <= launch_progress.DEPTH


# --- on a real device: spots a GPU walks in a second ------------------------------------------

@pytest.mark.parametrize("game, players, dead", [
    ("stud", ["AhKh3c", "QsQd7h"], ""),                  # third street: 18,265,297,050 deals
    ("razz", ["Ah2h3h4h", "Kh2d3d4d"], "Qc"),
    ("badugi-draw", ["Ac2d3h", "4s5h6c", "2c7h"], ""),
    ("five-card-draw", ["AhAd", "KsKcQd"], ""),
])
def test_large_exact_spots_equal_numpy(gpu, game, players, dead):
    gpu.only_real("billions of deals (test_cuda_exact_equals_numpy walks smaller ones)")
    want = ge.equity(players, game=game, dead=dead, backend="numpy", exact=True)
    got = ge.equity(players, game=game, dead=dead, backend="cuda", exact=True)
    assert got.backend == "cuda" and got.boards == want.boards
    assert_same_fields(want, got, FIELDS)


def test_third_street_hilo_is_walked_and_agrees_with_sampling(gpu):
    """Heads-up third-street stud hi/lo: exact on the device (NumPy can only sample it)."""
    gpu.only_real("18,265,297,050 deals")
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
def test_monte_carlo_is_seeded_and_near_numpy(gpu, game, players):
    kw = dict(game=game, exact=False, samples=gpu.size(400_000, 4_000), seed=9)
    a = ge.equity(players, backend="cuda", **kw)
    b = ge.equity(players, backend="cuda", **kw)
    assert a.backend == "cuda" and np.array_equal(a.equity, b.equity)
    ref = ge.equity(players, backend="numpy", **kw)
    assert np.all(np.abs(a.equity - ref.equity) < 5 * np.hypot(a.stderr, ref.stderr) + 1e-9)
