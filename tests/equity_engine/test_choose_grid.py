"""Every well-formed request gets an answer: a seeded grid of equity requests over every game,
street, kind of player (hands, ranges, ``random``), dead cards, ``exact`` None/True/False and
``samples``, planned on NumPy, on the stand-in device, and on a cluster's client with and
without a device, finds no "no method answers" and no error that is not the user's input.

Planning only (``choose`` and the chosen strategy's ``plan``): the engines' counting is tested
beside each engine; here the decision is under test, and the specific requests that once
crashed on a device (Omaha ranges whose NumPy cost is past the CUDA limit) are answered with
the same integers as NumPy.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.equity_engine import strategies
from gpu_eval.equity_engine.planner import Request
from gpu_eval.games import registry

from result_fields import assert_same_fields

# What a refusal of the user's request may say: the request cannot be answered as asked (an
# exact run too large to list, players that cannot all be dealt, more cards than the deck).
ALLOWED = re.compile(r"no matchup is possible|exact=False|too many players|is empty after|"
                     r"almost never fit|used twice")

# Per deal shape, spots to draw from: (players, board, dead).
HOLDEM_PLAYERS = ["AhKh", "QsQd", "QQ+,AKs", "22+,A2s+,KTs+", "random", "0.5(A5s-A2s),KK",
                  "JTs", "7c2d"]
OMAHA_PLAYERS = ["AsAhKdQc", "KQJT", "AAxx$ds", "random", "JhTc9s8d", "KK$ss"]
SHORT_PLAYERS = ["AhKh", "QsQd", "TT+,AKs", "random", "9c8c"]
STUD_PLAYERS = ["AhKh3c", "QsQd7h", "2c2d9s", "Ah2h3h4h", "KsKcQd", "5h6h7h8h"]
DRAW_PLAYERS = ["7d5h4c3s", "8h6d4s2c", "-", "AcKd", "9s8s7s"]


def _known_cards(players) -> set[int]:
    out: set[int] = set()
    for p in players:
        try:
            ids = ge.cards.parse(p)
        except ValueError:  # a range
            continue
        out |= {int(c) for c in np.atleast_1d(ids)}
    return out


def _request_args(rng, game: str) -> dict:
    record = registry.get(game)
    n = int(rng.integers(2, 4))
    exact = [None, None, True, False][int(rng.integers(0, 4))]
    if not record.full_board:
        pool = DRAW_PLAYERS if record.draws else STUD_PLAYERS
        players = [str(p) for p in rng.choice(pool, size=n, replace=False)]
    else:
        pool = OMAHA_PLAYERS if record.is_omaha else SHORT_PLAYERS if record.lowest_rank \
            else HOLDEM_PLAYERS
        players = [str(p) for p in rng.choice(pool, size=n, replace=False)]
        if record.is_omaha and record.hole_cards != 4:  # 5- and 6-card hands: random
            h = record.hole_cards
            players = [ge.cards.format(np.arange(52 - h * (i + 1), 52 - h * i, dtype=np.uint8)
                                       ).replace(" ", "") for i in range(n)]
            if exact is not True:  # an exact run would list every hand of a random player
                players[1:] = ["random"] * (n - 1)
    used = _known_cards(players)
    free = [c for c in range(4 * record.lowest_rank, 52) if c not in used]
    size = int(rng.choice(record.board_sizes))
    picked = [int(c) for c in rng.choice(free, size=size + 1, replace=False)]
    board, dead = picked[:size], picked[size:]
    if rng.random() < 0.7:
        dead = []
    samples = None if exact is True or rng.random() < 0.6 else int(rng.integers(1, 5)) * 1000
    text = lambda ids: ge.cards.format(np.array(ids, np.uint8)) if ids else ""  # noqa: E731
    return dict(players=players, board=text(board), dead=text(dead), exact=exact,
                samples=samples, seed=int(rng.integers(0, 100)), game=game)


def _grid(n: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    games = [g for g in registry.names() if g not in registry.LOW_SCALES]
    return [_request_args(rng, games[i % len(games)]) for i in range(n)]


GRID = _grid(540, 2026)


def _answer_or_refusal(args: dict, backend: str, here: bool) -> str:
    """The chosen strategy (its plan built), or ``"refused"`` for the user's own input."""
    kw = dict(args)
    req = Request("equity", kw.pop("players"), kw.pop("board"), kw.pop("dead"), backend=backend,
                  here=here, progress=False, **kw)
    try:
        s = strategies.choose(req)
        s.plan(req)
    except ValueError as exc:
        assert ALLOWED.search(str(exc)), f"{args}: {exc}"
        return "refused"
    assert s.exact or args["exact"] is not True, (args, s.name)
    assert not s.exact or args["exact"] is not False, (args, s.name)
    return s.name


def test_the_grid_covers_every_game_street_and_option():
    games = {a["game"] for a in GRID}
    assert games == {g for g in registry.names() if g not in registry.LOW_SCALES}
    assert {a["exact"] for a in GRID} == {None, True, False}
    assert any(a["samples"] for a in GRID) and any(a["dead"] for a in GRID)
    streets = {(a["game"], len(a["board"].replace(" ", "")) // 2) for a in GRID}
    for game in games:
        sizes = {s for g, s in streets if g == game}
        assert len(sizes) >= min(2, len(registry.get(game).board_sizes)), (game, sizes)
    assert len(GRID) >= 500


@pytest.mark.parametrize("here", [True, False], ids=["one process", "cluster client"])
def test_every_request_is_answered_on_numpy(here):
    names = {_answer_or_refusal(a, "numpy", here) for a in (GRID if here else GRID[1::2])}
    assert {"game monte carlo", "deal monte carlo", "game board enumeration",
            "deal enumeration"} <= names
    assert not here or {"board enumeration", "monte carlo"} <= names


def test_every_request_is_answered_on_a_device(stand_in_cupy):
    names = [_answer_or_refusal(a, "auto", True) for a in GRID[::3]]
    assert "game board enumeration" in names and "deal enumeration" in names


def test_a_client_without_a_device_plans_for_gpu_workers():
    """``gpu_eval.distributed`` on a CPU-only client, ``backend="cuda"``: planned for the
    workers' device (their rates and limits), never resolved on the client."""
    assert not ge.backend_choice.cuda_status()[0]
    names = {_answer_or_refusal(a, "cuda", False) for a in GRID[::2]}
    assert "game board enumeration" in names and "deal enumeration" in names
    job = strategies.plan(Request("equity", ["AsAhKdQc", "KQJT"], game="omaha", backend="cuda",
                                  here=False)).job
    assert job.backend == "cuda" and job.exact


@pytest.mark.parametrize("players, game", [
    (["AsAhKdQc", "KQJT"], "omaha"),
    (["AsAhKdQc", "AAxx$ds"], "omaha-hilo"),
])
def test_omaha_ranges_preflop_are_exact_on_a_device(stand_in_cupy, players, game):
    """These raised "no strategy answers" with a device present: their NumPy cost was past
    the CUDA engine's limit and the sampler refused a job already decided exact. Now the exact
    job is costed at the device's rate and chosen."""
    s = strategies.choose(Request("equity", players, game=game))
    assert s.name == "game board enumeration"
    assert strategies.plan(Request("equity", players, game=game)).job.backend == "cuda"


@pytest.mark.parametrize("players, board, game", [
    (["AsAhKdQc", "KQJT"], "2c7d9h", "omaha"),
    (["AsAh2d3c", "AAxx$ds"], "4c7d9h", "omaha-hilo"),
])
def test_omaha_ranges_give_the_numpy_integers_on_a_device(stand_in_cupy, players, board,
                                                          game):
    on_device = ge.equity(players, board=board, game=game)
    on_host = ge.equity(players, board=board, game=game, backend="numpy")
    assert on_device.backend == "cuda" and on_host.exact and on_device.exact
    assert_same_fields(on_host, on_device, ("wins", "ties", "equity", "win", "tie", "boards",
                                            "matchups", "high", "low", "scoop", "method"))
