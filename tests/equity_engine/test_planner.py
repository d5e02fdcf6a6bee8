"""The equity planner: one process and a Dask cluster choose the same strategy and give the
same integers, for every game, street, kind of player, dead cards, ``exact`` None/True/False,
``samples``, and the NumPy and (stand-in) CUDA engines; the drift the planner removed stays
fixed; a new fast path is one class and one list entry."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import gpu_eval as ge
import gpu_eval.distributed as ged
from gpu_eval.equity_engine import api as equity_api
from gpu_eval.equity_engine import planner, strategies
from gpu_eval.equity_engine.holdem import strategies as holdem
from gpu_eval.equity_engine.holdem.strategies import HoldemSetup
from gpu_eval.equity_engine.planner import Request
from gpu_eval.equity_engine.results import EquityResult
from gpu_eval.equity_engine.strategies import choose

# Skipped without dask, which is found here but imported only where a cluster starts: every
# process that collects the suite (each xdist worker, the device script's collection) would
# otherwise pay ~0.3 s for its import.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="dask[distributed] is not installed (pip install 'gpu-eval[test]')")


@pytest.fixture(scope="session")
def client():
    """Two in-process (thread) workers: the tasks still go through the scheduler, are
    pickled and summed on the workers, and see this process's stand-in CuPy."""
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture
def cuda_equity(stand_in_cupy):
    """The hold'em CUDA engine on the stand-in CuPy (equity.cu's kernels run as host C++)."""
    return stand_in_cupy


@pytest.fixture
def cuda_games(stand_in_cupy):
    """The other games' CUDA engine on the stand-in CuPy (conftest)."""
    return stand_in_cupy


_FIELDS = ("strategy", "method", "exact", "boards", "samples", "matchups", "seed", "labels",
           "board", "dead", "wins", "ties", "equity", "win", "tie", "stderr", "high", "low",
           "scoop")


def _same(a, b, fields=_FIELDS):
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert np.array_equal(x, y, equal_nan=True), f
        else:
            assert x == y, f


# (players, keyword arguments, the strategy that must run)
HOLDEM = [
    (["AhKh", "QsQd"], {}, "shipped table"),
    (["AhKh", "QsQd"], dict(exact=True), "shipped table"),
    (["AhKh", "QsQd"], dict(dead="2c"), "rank classes"),
    (["AA", "KK"], dict(samples=5_000), "rank classes"),  # exact=None: cheap enough to count
    (["AhKh", "QQ+,AKs"], dict(board="Kd 7c 2h"), "board enumeration"),
    (["AA", "KK", "QQ"], dict(board="Kd7c2h", exact=True), "board enumeration"),
    (["AhAd", "KcKd", "QsJs"], dict(board="Ts 9s 2h", dead="3c"), "known hands"),
    (["AhAd", "KcKd"], dict(board="Ts 9s 2h 4d 5c"), "known hands"),
    (["QQ+,AKs", "JJ,AQs"], dict(board="Kd7c2h5s"), "two ranges"),
    (["AA", "KK"], dict(board="Kd7c2h5s9d", exact=True), "two ranges"),
    (["AhKh", "QQ"], dict(board="Kd7c2h", exact=False, samples=1_000, seed=1), "monte carlo"),
    (["AA", "KK", "random"], dict(exact=False, samples=70_000, seed=3), "monte carlo"),
    (["AhKh", "QQ"], dict(board="Kd7c2h5s", dead="9d", exact=False, samples=2_000, seed=4),
     "monte carlo"),
]
GAMES = [
    (["AsAhKdQc", "JhTc9s8d"], dict(board="Ac2h3s", game="omaha"), "game board enumeration"),
    (["AsAhKdQc", "KK$ds"], dict(board="Kc7d2s9h", game="omaha"), "game board enumeration"),
    (["AsAhKdQc", "JhTc9s8d"], dict(board="Ac2h3s", game="omaha", exact=False, samples=3_000,
                                    seed=9), "game monte carlo"),
    (["AsAhKdQcJc", "2c3c4d5dTh"], dict(board="Kc7d2s9h5s", game="omaha5"),
     "game board enumeration"),
    (["AsAhKdQcJcTc", "2c3c4d5dTh9h"], dict(board="Kc7d2s", game="omaha6"),
     "game board enumeration"),
    (["AsAhKdQc", "JhTc9s8d"], dict(board="Ac2h3s", dead="4d", game="omaha-hilo"),
     "game board enumeration"),
    (["AsAhKdQcJc", "2c3c4d5dTh"], dict(game="omaha5-hilo", exact=False, samples=40_000,
                                        seed=5), "game monte carlo"),
    (["AsKs", "QdQc"], dict(game="shortdeck"), "game board enumeration"),
    (["AsKs", "QQ"], dict(board="Jd7c6h", dead="9s", game="shortdeck-triton"),
     "game board enumeration"),
    (["AsKsQdJd2c", "9h8h7c6c5s"], dict(board="Ah", game="courchevel"),
     "game board enumeration"),
    (["AsKsQd3c2h", "JhTh9d8c4s"], dict(board="Ah7c2d", game="courchevel-hilo"),
     "game board enumeration"),
    # No shared board: the deal strategies.
    (["Ah2h3h4h5h", "Kh2d3d4d5d"], dict(game="razz"), "deal enumeration"),
    (["AhKh3c", "QsQd7h"], dict(game="stud"), "deal enumeration"),
    (["AhAcAdKhQc", "KsKcKdQhJc"], dict(game="stud-hilo"), "deal enumeration"),
    (["AhKh3c", "QsQd7h", "2c2d9s"], dict(game="stud", dead="Tc", exact=False, samples=40_000,
                                         seed=6), "deal monte carlo"),
    (["7d5h4c3s2h", "5s4h3d2c"], dict(dead="Ad", game="deuce-seven-draw"), "deal enumeration"),
    (["Ac2d", "4s5h6c"], dict(game="badugi-draw"), "deal enumeration"),
    (["AhAd", "KsKcQd"], dict(game="five-card-draw", exact=False, samples=35_000, seed=2),
     "deal monte carlo"),
]


@pytest.mark.parametrize("players, kw, strategy", HOLDEM + GAMES)
def test_one_process_and_dask_agree(client, players, kw, strategy):
    single = ge.equity(players, **kw)
    small = single.exact and single.boards * (single.matchups or 1) < 200_000
    # Small runs in odd spans of 97 items (cutting orbits and chunks at odd places), at most
    # 16 of them: Courchevel with one board card has 101,270 boards (1,045 tasks of scheduler
    # overhead at 97 a span; the same odd cuts in 17).
    block = max(97, strategies.plan(Request("equity", players, **kw)).total // 16) | 1 \
        if small else None
    dist = ged.equity(client, players, block_size=block, **kw)
    assert single.strategy == strategy
    _same(single, dist)


@pytest.mark.parametrize("players, kw, strategy", [
    (["AhKh", "QQ"], dict(board="Kd7c2h"), "board enumeration"),  # no NumPy shortcut on CUDA
    (["AhKh", "QQ"], dict(board="Kd7c2h5s", exact=False, samples=3_000, seed=2),
     "monte carlo"),
])
def test_one_process_and_dask_agree_on_stand_in_cuda(client, cuda_equity, players, kw,
                                                     strategy):
    single = ge.equity(players, backend="cuda", **kw)
    dist = ged.equity(client, players, backend="cuda", block_size=200, **kw)
    assert single.strategy == strategy and single.backend == dist.backend == "cuda"
    _same(single, dist)


@pytest.mark.parametrize("kw, strategy", [
    (dict(board="Ac2h3s"), "game board enumeration"),
    (dict(board="Ac2h3s", exact=False, samples=2_000, seed=3), "game monte carlo"),
])
def test_games_agree_on_stand_in_cuda(client, cuda_games, kw, strategy):
    single = ge.equity(["AsAhKdQc", "JhTc9s8d"], game="omaha", backend="cuda", **kw)
    dist = ged.equity(client, ["AsAhKdQc", "JhTc9s8d"], game="omaha", backend="cuda", **kw)
    assert single.strategy == strategy and single.backend == dist.backend == "cuda"
    _same(single, dist)


_PAIR_FIELDS = ("strategy", "method", "exact", "boards", "samples", "seed", "backend")


@pytest.mark.parametrize("kw, strategy", [
    (dict(board="Kd 7c 2h"), "board enumeration"),
    (dict(board="Kd 7c 2h 5s", dead="9d", exact=True), "board enumeration"),
    ({}, "shipped table"),
    (dict(board="Kd 7c 2h", exact=False, samples=5_000, seed=1), "monte carlo"),
])
def test_matrix_agrees(client, kw, strategy):
    single = ge.equity_matrix("AA", "KK, AKs", **kw)
    dist = ged.equity_matrix(client, "AA", "KK, AKs", block_size=300, **kw)
    assert single.strategy == strategy
    _same(single, dist, _PAIR_FIELDS + ("matrix", "win", "tie", "equity_a", "equity"))


@pytest.mark.parametrize("kw, strategy", [
    (dict(exact=True), "shipped table"),
    (dict(exact=False, samples=3_000, seed=7), "monte carlo"),
])
def test_preflop_table_agrees(client, kw, strategy):
    cells = [("AKs", "QQ"), ("AA", "AA")]
    single = ge.preflop_table(cells=cells, **kw)
    dist = ged.preflop_table(client, cells=cells, block_size=1_000, **kw)
    assert single.strategy == strategy
    _same(single, dist, _PAIR_FIELDS + ("table", "classes"))


def test_only_the_diagonal_reports_the_strategy_that_would_run():
    t = ge.preflop_table(cells=[("AA", "AA")])
    assert (t.strategy, t.backend, t.classes) == ("shipped table", "numpy", 0)


# --- the drift the planner removed -----------------------------------------------------------

def test_drifted_spot_is_exact_on_dask_too(client):
    """It was exact (2,562 matchups) in one process and 1,000,000 Monte Carlo samples on
    Dask, whose copy of the planning skipped the rank-class cost."""
    players = ["QQ+,AKs", "22+,A2s+,KTs+"]
    single = ge.equity(players, dead="2c")
    dist = ged.equity(client, players, dead="2c")
    assert single.exact and single.matchups == 2_562 and single.strategy == "rank classes"
    _same(single, dist)


# --- the rules of choose() ----------------------------------------------------------------------

def test_choose_follows_cost_and_exact():
    three = ["random", "random", "random"]
    assert choose(Request("equity", three)).name == "monte carlo"  # far over the limit
    assert choose(Request("equity", three, exact=False)).name == "monte carlo"
    req = Request("equity", ["AA", "KK"], dead="2c")
    costs = {s.name: s.cost(req) for s in strategies.STRATEGIES if s.kind == "equity"
             and s.exact and s.applies(req)}
    assert set(costs) == {"board enumeration", "rank classes"}
    assert choose(req).name == min(costs, key=costs.get) == "rank classes"
    assert choose(Request("equity", ["AA", "KK"], dead="2c", exact=False)).name == "monte carlo"


@pytest.mark.parametrize("game, players, board, dead", [
    ("holdem", ["AhKh", "QsQd"], "", ""), ("holdem", ["AhKh", "QQ+"], "2c7d9h", "Ks"),
    ("omaha", ["AsAhKdQc", "KQJT"], "", ""), ("omaha-hilo", ["AsAh2d3c", "KsKhQdJc"], "2h7d", ""),
    ("stud", ["AhKh3c", "QsQd7h"], "", ""), ("razz", ["Ah2h3h4h5h", "Kh2d3d4d5d"], "", ""),
    ("deuce-seven-draw", ["7d5h4c3s2h", "5s4h3d2c"], "", "Ad"),
    ("badugi-draw", ["Ac2d3h", "4s5h6c7d"], "", "Kd"),
    ("five-card-draw", ["AhAdKcKs", "QhJhTh9h", "2c3c"], "", "")])
@pytest.mark.parametrize("exact", [None, True, False])
def test_choose_asks_only_the_requests_engine(game, players, board, dead, exact):
    """choose() asks only the strategies of the request's engine: every other one declines
    (board="2h7d" is a two-card board no game deals: both raise the same error)."""
    def chosen(pick):
        try:
            return pick(Request("equity", players, board, dead, exact=exact, game=game)).name
        except ValueError as e:
            return str(e)

    assert chosen(choose) == chosen(lambda r: planner.choose(r, strategies.STRATEGIES))


def test_request_prepares_lazily():
    """The shipped table answers without the matchups, the symmetry or the board work."""
    req = Request("equity", ["AhKh", "QsQd"])
    assert choose(req).name == "shipped table"
    assert not {"matchups", "group", "board_work", "matchup_orbits"} & \
        set(vars(req.state(HoldemSetup)))


def test_bad_input_raises_before_planning():
    with pytest.raises(ValueError, match="used twice"):
        Request("equity", ["AhKh", "AhQd"]).state(HoldemSetup).problem  # noqa: B018
    with pytest.raises(ValueError, match="unknown game|not a game|game"):
        Request("equity", ["AhKh", "QsQd"], game="checkers")
    with pytest.raises(ValueError, match="no matchup"):
        choose(Request("equity", ["AsAh, AsAd", "AsKs, AsKh"], exact=False))


# --- a new fast path: one class, one list entry --------------------------------------------------

class RiverKnownHands(planner.Strategy):
    """Every hand known on the river: one evaluation per player, no board to enumerate."""

    name = "river known hands"
    engine = holdem.ENGINE

    def applies(self, req):
        if req.kind != "equity" or req.engine != holdem.ENGINE.name or req.exact is False:
            return False
        prob = req.state(HoldemSetup).problem
        return prob.k == 0 and all(p.fixed for p in prob.players)

    def cost(self, req):
        return 0.0

    def plan(self, req):
        prob = req.state(HoldemSetup).problem
        holes = [ge.cards.from_mask(p.masks[0]).tolist() for p in prob.players]
        s = np.array([int(ge.evaluate([h + prob.board])[0]) for h in holes])
        best = s == s.max()
        n = len(s)

        def finish(part):
            win = (best & (best.sum() == 1)).astype(np.int64)
            tie = (best & (best.sum() > 1)).astype(np.int64)
            share = best / best.sum()
            return EquityResult(
                labels=tuple(p.label for p in prob.players), equity=share, win=win * 1.0,
                tie=tie * 1.0, tie_share=share * tie, stderr=np.zeros(n), exact=True,
                boards=1, samples=None, matchups=1, wins=win, ties=tie, backend="numpy",
                method="exact: 1 board")
        return planner.Plan(self.name, finish)


def test_a_new_strategy_is_one_class_and_one_entry(client, monkeypatch):
    monkeypatch.setattr(strategies, "STRATEGIES", [RiverKnownHands(), *strategies.STRATEGIES])
    spot = (["AhAd", "KcKd"], dict(board="Ts 9s 2h 4d Kh"))
    single = ge.equity(*spot[0:1], **spot[1])
    dist = ged.equity(client, *spot[0:1], **spot[1])
    assert single.strategy == dist.strategy == "river known hands"
    assert single.wins.tolist() == dist.wins.tolist() == [0, 1]
    monkeypatch.undo()
    usual = ge.equity(*spot[0:1], **spot[1])
    assert usual.strategy == "known hands" and usual.wins.tolist() == [0, 1]


def test_equity_reads_in_a_screen():
    import inspect

    src = inspect.getsource(equity_api.equity)
    body = src[src.index('"""', src.index('"""') + 3) + 3:]
    assert len([line for line in body.splitlines() if line.strip()]) <= 5


def test_board_sizes_and_hole_cards_are_read_from_the_record(monkeypatch):
    """A record's board sizes decide which boards the equity set-up takes (not a copy)."""
    import dataclasses

    from gpu_eval.games import registry

    omaha = registry.GAMES["omaha"]
    monkeypatch.setitem(registry.GAMES, "omaha", dataclasses.replace(omaha, board_sizes=(0, 4, 5)))
    with pytest.raises(ValueError, match="a 'omaha' board has 0, 4 or 5 cards"):
        ge.equity(["AsAhKdQc", "JhTc9s8d"], board="Ac2h3s", game="omaha")
    r = ge.equity(["AsAhKdQc", "JhTc9s8d"], board="Ac2h3s4d", game="omaha")
    assert r.boards == 52 - 8 - 4  # one card to come: full_board - 4
    assert registry.get("holdem").cards_to_come(3) == 2 and omaha.full_board == 5
