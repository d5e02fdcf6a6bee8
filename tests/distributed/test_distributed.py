"""gpu_eval.distributed on a two-process LocalCluster: exact results equal the single-process
ones bit for bit, Monte Carlo is reproducible across cluster sizes, lost workers change
nothing, bad input submits nothing, Ctrl-C cancels."""

import importlib
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import gpu_eval.distributed as ged
from gpu_eval import cards, combinatorics, evaluate
from gpu_eval.distributed import runner, sweeps
from gpu_eval.equity_engine import api as equity_api
from gpu_eval.equity_engine import problem, strategies
from gpu_eval.equity_engine.holdem import numpy_engine, shipped_table
from gpu_eval.equity_engine.holdem import strategies as holdem_strategies

# Skipped without dask, which is found here but imported only where a cluster starts: every
# process that collects the suite (each xdist worker, the device script's collection) would
# otherwise pay ~0.3 s for its import.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="dask[distributed] is not installed (pip install 'gpu-eval[test]')")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def distributed():
    """The ``distributed`` module (imported by the first test that starts a cluster)."""
    return importlib.import_module("distributed")


def _cluster(distributed, n_workers: int):
    # Worker processes must import gpu_eval even when it is not installed.
    path = os.environ.get("PYTHONPATH", "")
    if str(ROOT) not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), path) if p)
    return distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                    dashboard_address=":0")


@pytest.fixture(scope="module")
def client(distributed):
    with _cluster(distributed, 2) as cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(2)
        yield c


def _same(a, b, fields):
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y, equal_nan=True), f
        else:
            assert x == y, f


def _worker_ids(client) -> set[str]:
    """The ids of the running workers (unique per process, unlike a possibly reused port)."""
    def ids(dask_scheduler):
        return {ws.server_id for ws in dask_scheduler.workers.values()}

    return client.run_on_scheduler(ids)


def _transitions(client) -> int:
    """The scheduler's transition count, once earlier jobs' tasks are all forgotten."""
    def state(dask_scheduler):
        return len(dask_scheduler.tasks), dask_scheduler.transition_counter

    # Forgetting is asynchronous: wait for it (a condition, not a window); a scheduler that
    # still holds tasks after two minutes fails here rather than miscounting below.
    deadline = time.monotonic() + 120
    while (now := client.run_on_scheduler(state))[0]:
        assert time.monotonic() < deadline, f"the scheduler still holds {now[0]} tasks"
        time.sleep(0.05)
    return now[1]


# --- exact: identical to the single-process results ------------------------------------------

_EQ_FIELDS = ("labels", "equity", "win", "tie", "tie_share", "stderr", "exact", "boards",
              "matchups", "wins", "ties", "method", "board", "dead")


@pytest.mark.parametrize("players, board, dead, block", [
    (["AhKh", "QsQd"], "", "2c", None),                   # preflop with a dead card
    (["AhKh", "QQ+,AKs"], "Kd 7c 2h", "", 97),             # many tiny slices
    (["AhAd", "KcKd", "QsJs"], "Ts 9s 2h", "3c", None),    # 3-way, dead card
])
def test_exact_equity_identical(client, players, board, dead, block):
    single = equity_api.equity(players, board=board, dead=dead)
    dist = ged.equity(client, players, board=board, dead=dead, block_size=block)
    assert single.exact and dist.exact
    _same(single, dist, _EQ_FIELDS)
    assert dist.backend == "numpy"
    assert not dist.method.startswith("exact (table)")


def test_heads_up_preflop_reads_the_table_and_submits_nothing(client):
    """As in a single process: the shipped table answers, no task is submitted."""
    cells = [("AA", "KK"), ("AKs", "QQ"), ("T9s", "T9s")]
    before = _transitions(client)
    single = equity_api.equity(["AhKh", "QQ+,AKs"])
    dist = ged.equity(client, ["AhKh", "QQ+,AKs"])
    m0 = equity_api.equity_matrix("AA", "KK, AKs")
    m1 = ged.equity_matrix(client, "AA", "KK, AKs")
    t0 = equity_api.preflop_table(cells=cells, exact=True)
    t1 = ged.preflop_table(client, cells=cells, exact=True)
    assert _transitions(client) == before
    _same(single, dist, _EQ_FIELDS)
    assert dist.method.startswith("exact (table):") and dist.backend == "numpy"
    _same(m0, m1, ("matrix", "win", "tie", "equity_a", "equity_b", "equity", "method",
                   "combos_a", "backend"))
    assert m1.method.startswith("exact (table):")
    _same(t0, t1, ("table", "classes", "exact", "boards", "method", "backend"))
    assert t1.method == "exact (table): 2,598,960 boards"
    assert round(t1.cell("AA", "KK"), 4) == 0.8195


def test_distributed_engines_equal_the_table(client, monkeypatch):
    """On purpose with the table off: the cluster's board slices give the table's integers."""
    cells = [("AA", "KK"), ("AKs", "QQ"), ("T9s", "T9s")]
    table_eq = equity_api.equity(["AhKh", "QsQd"])
    table_pf = equity_api.preflop_table(cells=cells, exact=True)
    monkeypatch.setattr(shipped_table, "USE_TABLE", False)  # the engines, not the table
    dist = ged.equity(client, ["AhKh", "QsQd"])
    assert dist.method.startswith("exact:") and not table_eq.method.startswith("exact:")
    assert dist.wins.tolist() == table_eq.wins.tolist() == [787_966, 917_606]
    assert dist.ties.tolist() == table_eq.ties.tolist() == [6_732] * 2
    _same(table_eq, dist, ("equity", "win", "tie", "tie_share", "boards", "matchups"))
    pf = ged.preflop_table(client, cells=cells, exact=True)
    _same(table_pf, pf, ("table", "classes", "exact", "boards"))


def test_exact_matrix_identical(client):
    m0 = equity_api.equity_matrix("AA", "KK, AKs", board="Kd 7c 2h")
    m1 = ged.equity_matrix(client, "AA", "KK, AKs", board="Kd 7c 2h", block_size=50)
    _same(m0, m1, ("matrix", "win", "tie", "equity_a", "equity_b", "equity", "method",
                   "combos_a"))


def test_evaluation_counts_exhaustive(client):
    c5 = ged.evaluation_counts(client, k=5, slices=7)
    assert (c5.total, c5.distinct, c5.slices) == (2_598_960, 7462, 7)
    assert c5.categories[::-1].tolist() == [40, 624, 3_744, 5_108, 10_200, 54_912, 123_552,
                                            1_098_240, 1_302_540]
    # A slice of the 7-card hands, against the public evaluator on unranked hands (all
    # 133,784,560 are counted once, in tests/evaluator/test_evaluate_exhaustive.py; here the
    # whole space's slicing is the 5-card one's).
    start, stop = 60_000_000, 62_000_000
    c7 = ged.evaluation_counts(client, k=7, start=start, stop=stop, slices=5)
    hands = combinatorics.unrank(np.arange(start, stop), 7)
    ref = np.bincount(evaluate(hands, backend="numpy"), minlength=7463)
    assert np.array_equal(c7.counts, ref) and c7.total == stop - start


# --- the flop sweep ----------------------------------------------------------------------------

def test_flop_sweep_fixed_hands_invariant(client):
    s = ged.flop_sweep(client, "AhKh", "QsQd")
    assert len(s.flops) == 1755 and int(s.weights.sum()) == 22_100
    # Every 5-card board is flop + turn-river of 10 flops: integer identity (README, "Running on many GPUs").
    assert int(s.units.sum()) == 10 * (2 * 787_966 + 6_732)
    assert int(s.showdowns.sum()) == 10 * 1_712_304
    # Weighted by the compatible matchups per flop (here 1 per flop that avoids the hole
    # cards: C(48, 3) = 17,296 flops), the flop equities average to the preflop equity.
    assert float(s.matchup_weight.sum()) == 17_296
    assert s.overall == pytest.approx((787_966 + 6_732 / 2) / 1_712_304, abs=1e-13)


def test_flop_sweep_ranges_match_preflop(client):
    # Weighted ranges and a dead card (flops holding it are never dealt).
    a, b = "AKs, 0.5(AQs)", "QQ"
    s = ged.flop_sweep(client, a, b, dead="2c")
    r = equity_api.equity([a, b], dead="2c", exact=True)
    assert int(s.showdowns.sum()) == 10 * r.matchups * r.boards
    assert int(s.units.sum()) == 10 * (2 * int(r.wins[0]) + int(r.ties[0]))
    assert s.overall == pytest.approx(float(r.equity[0]), abs=1e-13)
    assert set(s.texture) == {"trips", "paired", "monotone", "two-tone", "rainbow"}
    grid = s.by_top_two()
    assert grid.shape == (13, 13) and np.isnan(grid[0, 12]) and not np.isnan(grid[12, 11])


def test_flop_sweep_block_counts_are_the_engine_flop_by_flop():
    # The NumPy pass over a block of flops (few matchups, as in the two sweeps above) gives
    # the integers of one engine call per flop (dense ranges, CUDA), per flop and matchup:
    # pools that evaluate every combo (AhKh, AcKd) and one that looks strengths up by rank.
    rng = np.random.default_rng(5)
    for a, b, dead in (("AhKh", "QsQd", ""), ("AKs, 0.5(AQs)", "QQ", "2c"),
                       ("AcKd", "AhKs", "7h 8h")):
        prob = problem.prepare([a, b], "", dead)
        pa, pb = prob.players
        ia, ib = np.nonzero((pa.masks[:, None] & pb.masks[None, :]) == 0)
        plan = sweeps._SweepPlan(pa.masks, pa.weights, pb.masks, pb.weights, ia, ib,
                                 prob.dead_mask, *[None] * 6, "numpy")
        every = combinatorics.subset_masks(52, 3)
        every = every[(every & np.uint64(prob.dead_mask)) == 0]
        flops = rng.choice(every, 40, replace=False)
        flops[0] = every[(every & pa.masks[0]) != 0][0]  # one of A's hole cards on it
        two = combinatorics.subset_masks(52, 2)
        two = two[(two & np.uint64(prob.dead_mask)) == 0]
        pm = plan.mask_a[ia] | plan.mask_b[ib]
        got = sweeps._block_counts(numpy_engine, plan, pm, two, flops)
        want = sweeps._engine_counts(numpy_engine, plan, pm, two, flops)
        assert not got[0][0].all() and got[0].any()
        for x, y in zip(got, want):
            assert np.array_equal(x, y)


# --- Monte Carlo: the same seed and block size give the same answer on any cluster -----------

def test_monte_carlo_same_on_one_and_two_workers(client, distributed):
    def jobs(c):
        return (ged.equity(c, ["AA", "KK", "random"], exact=False, samples=120_000, seed=7,
                           block_size=30_000),
                ged.preflop_table(c, cells=[("AKs", "QQ")], exact=False, samples=3_000,
                                  seed=7, block_size=1_000),
                ged.flop_sweep(c, "AKs", "QQ", exact=False, samples=200, seed=7))

    two = jobs(client)
    # Cluster size is what varies here, not processes (the two-worker cluster is of
    # processes): one in-process worker spares a process start and its imports.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as one_client:
        one = jobs(one_client)
    here = jobs(None)
    for other in (one, here):
        _same(two[0], other[0], ("equity", "win", "tie", "tie_share", "stderr", "wins",
                                     "ties", "seed"))
        _same(two[1], other[1], ("table", "method", "seed"))
        _same(two[2], other[2], ("equity", "units", "overall", "seed"))
    eq = two[0]
    assert not eq.exact and eq.samples == 120_000 and abs(eq.equity.sum() - 1) < 1e-12
    assert (eq.tie == eq.ties / 120_000).all() and (eq.tie >= eq.tie_share).all()
    ref = equity_api.equity(["AA", "KK", "random"], exact=False, samples=120_000, seed=1)
    assert np.all(np.abs(eq.equity - ref.equity) < 6 * np.hypot(eq.stderr, ref.stderr))
    different = ged.equity(client, ["AA", "KK", "random"], exact=False, samples=120_000,
                           seed=8, block_size=30_000)
    assert not np.array_equal(different.wins, eq.wins)


# --- bad input, interruption, progress, lost workers -----------------------------------------

@pytest.mark.parametrize("call, error", [
    (lambda c: ged.equity(c, ["AhKh", "AhQd"]), ValueError),           # card used twice
    (lambda c: ged.equity(c, ["AhKh", "QsXd"]), ValueError),           # bad card text
    (lambda c: ged.equity(c, ["AhKh"]), ValueError),                   # one player
    (lambda c: ged.equity(c, ["AA", "KK"], board="2c 3c"), ValueError),
    (lambda c: ged.equity(c, ["AA", "KK"], samples=-5), ValueError),
    (lambda c: ged.equity(c, ["AA", "KK"], backend="gpu"), ValueError),
    (lambda c: ged.equity(c, ["AA", "KK"], block_size=0), ValueError),
    (lambda c: ged.equity_matrix(c, "AhAs", "AhAs"), ValueError),      # no compatible pair
    (lambda c: ged.preflop_table(c, cells=[("AA", "XX")]), ValueError),
    (lambda c: ged.flop_sweep(c, "AsKs", "QQ", dead="As Ks Ah Kh Ad Kd Ac Kc"), ValueError),
    (lambda c: ged.flop_sweep(c, "AK", "QQ", exact=None), TypeError),
    (lambda c: ged.evaluation_counts(c, k=4), ValueError),
    (lambda c: ged.evaluation_counts(c, k=5, start=10, stop=5), ValueError),
    (lambda c: ged.equity("not a client", ["AA", "KK"]), TypeError),
])
def test_bad_input_submits_nothing(client, call, error):
    before = _transitions(client)
    with pytest.raises(error):
        call(client)
    assert _transitions(client) == before


def test_interrupt_cancels_submitted_tasks(client, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(client, "gather", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ged.equity(client, ["AhKh", "QsQd"], dead="2c", block_size=20_000)  # not the table
    monkeypatch.undo()

    def left(dask_scheduler):
        return [str(k) for k in dask_scheduler.tasks if "gpu_eval-" in str(k)]

    # A barrier, not a wait: the client's submissions and releases travel on one ordered
    # stream, so once a task submitted after them has run, the scheduler has seen the job's
    # tasks (an earlier poll could run before it had, find nothing, and pass too soon).
    assert client.submit(int, 7, pure=False).result() == 7
    deadline = time.monotonic() + 120  # forgetting is asynchronous: wait for it to finish
    while client.run_on_scheduler(left) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.run_on_scheduler(left) == []
    # The client still works afterwards.
    assert ged.equity(client, ["AhKh", "QsQd"], board="2c7d9s").wins.tolist() == [237, 753]


def test_progress_bar(client, capsys):
    r = ged.evaluation_counts(client, k=5, slices=4, progress=True)
    assert r.total == 2_598_960


def test_killed_worker_does_not_change_the_result(client, distributed, monkeypatch, tmp_path):
    # The problem description is scattered to both workers (the path for large ones), and
    # one worker dies mid-job: its copy and its results are gone, the tasks are rerun.
    # The kill is an event of the job itself, never a timing window: the task holding the
    # middle board kills its own worker process (as a crash would) the first time it runs,
    # so the job cannot finish without the loss; the rerun finds the flag and counts.
    monkeypatch.setattr(runner, "INLINE_BYTES", 0)
    # Board slices on purpose (the planner would count this spot by rank classes, a few
    # tasks): without that strategy, here and on the cluster alike.
    monkeypatch.setattr(strategies, "STRATEGIES",
                        [s for s in strategies.STRATEGIES
                         if not isinstance(s, holdem_strategies.RankClasses)])
    expected = equity_api.equity(["AhKh", "QsQd", "JJ"], exact=True)
    old = _worker_ids(client)
    flag = str(tmp_path / "killed")
    run_tasks = runner.run_tasks

    def dying_job(client_, fn, shared, args, **kw):
        middle = tuple(args[len(args) // 2])

        def dies_once_mid_job(shared_, *span):
            if span == middle:
                try:
                    fd = os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                except FileExistsError:
                    pass  # the rerun, after the kill
                else:
                    os.write(fd, distributed.get_worker().id.encode())
                    os.close(fd)
                    os._exit(1)
            return fn(shared_, *span)

        return run_tasks(client_, dies_once_mid_job, shared, args, **kw)

    monkeypatch.setattr(runner, "run_tasks", dying_job)
    got = ged.equity(client, ["AhKh", "QsQd", "JJ"], exact=True, block_size=12_000)
    victim = Path(flag).read_text()  # the id of the worker that died
    assert victim in old
    _same(expected, got, _EQ_FIELDS)
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it
    assert victim not in _worker_ids(client)


def test_import_does_not_import_dask():
    code = ("import sys, gpu_eval, gpu_eval.distributed; "
            "print(any(m == 'dask' or m == 'distributed' or m.startswith(('dask.', "
            "'distributed.')) for m in sys.modules))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True)
    assert out.stdout.strip() == "False"


def test_colex_slices_match_unrank():
    vals = cards.ID_TO_MASK
    for k, start, stop in [(5, 0, 2_598_960), (7, 133_784_560 - 3_000, 133_784_560),
                           (9, 10**9, 10**9 + 2_000), (6, 123_456, 125_000), (0, 0, 1)]:
        got = ged.colex_masks(vals, k, start, stop)
        ref = cards.to_mask(combinatorics.unrank(np.arange(start, stop), k)) if k else [0]
        assert np.array_equal(got, ref)


def test_docstring_examples_run():
    import doctest
    import importlib

    total = 0
    for name in ("runner", "equity", "sweeps", "counts"):
        module = importlib.import_module(f"gpu_eval.distributed.{name}")
        failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE
                                          | doctest.ELLIPSIS)
        assert failures == 0, name
        total += tried
    assert total > 10
