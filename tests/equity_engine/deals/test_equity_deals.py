"""Stud, stud hi/lo, razz and the draw games' equity (gpu_eval.equity_engine.deals.numpy_engine): published
walked values, poker-equity's exact walks on random spots, the two exact methods against each
other, Monte Carlo against exact, and bad input."""

from __future__ import annotations

import numpy as np
import poker_equity as pe
import pytest
from equity_jobs import job_of

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.equity_engine.deals import numpy_engine as deals

RNG = np.random.default_rng(2207)
PEER_KEY = {"stud": "stud", "stud-hilo": "stud_hi_lo", "razz": "razz",
            "deuce-seven-draw": "deuce_seven", "badugi-draw": "badugi",
            "five-card-draw": "five_card_draw"}


@pytest.mark.parametrize("game, players, dead, want", [
    ("razz", ["Ah2h3h4h5h", "Kh2d3d4d5d"], "", [0.93031359, 0.06968641]),
    ("stud-hilo", ["AhAcAdKhQc", "KsKcKdQhJc"], "", [0.74956074, 0.25043926]),
    ("deuce-seven-draw", ["7d5h4c3s2h", "5s4h3d2c"], "Ad", [0.96428571, 0.03571429]),
])
def test_published_walked_values(game, players, dead, want):
    r = ge.equity(players, game=game, dead=dead)
    assert r.exact
    np.testing.assert_allclose(r.equity, want, atol=1e-8)  # published to 1e-6 (as percent)


def _spot(game: str, n: int, rng) -> tuple[list[str], str]:
    size = 7 if game.startswith(("stud", "razz")) else (4 if game == "badugi-draw" else 5)
    deck = rng.permutation(52)
    at, players = 0, []
    k = int(rng.integers(size - 2, size + 1)) if n == 2 else size - 1  # poker-equity: one size
    for _ in range(n):
        players.append(cards.format(np.sort(deck[at:at + k]).astype(np.uint8)) if k else "")
        at += k
    dead = cards.format(np.sort(deck[at:at + 3]).astype(np.uint8))
    return players, dead


@pytest.mark.parametrize("game", list(PEER_KEY))
def test_random_walked_spots_agree_with_poker_equity(game):
    rng = np.random.default_rng(list(PEER_KEY).index(game))
    checked = 0
    for n in (2, 2, 2, 3):
        players, dead = _spot(game, n, rng)
        peer = pe.exact_from_text(PEER_KEY[game], players, "", dead)
        assert peer is not None, (players, dead)
        r = ge.equity(players, game=game, dead=dead, exact=True)
        assert r.boards == peer["samples"]
        for i, p in enumerate(peer["players"]):
            assert abs(r.equity[i] - p["equity"]) < 1e-9, (players, dead)
            assert abs(r.win[i] - p["win"]) < 1e-9 and abs(r.tie[i] - p["tie"]) < 1e-9
            if r.low is not None:
                assert abs(r.low[i] - p["low_equity"]) < 1e-9
                assert abs(r.scoop[i] - p["scoop"]) < 1e-9
        checked += 1
    assert checked == 4


@pytest.mark.parametrize("game", ["stud", "razz", "deuce-seven-draw", "badugi-draw"])
def test_inclusion_exclusion_counts_the_grid(game):
    for _ in range(3):
        players, dead = _spot(game, 2, RNG)
        p = deals.prepare(players, "", dead, game)
        _, a = deals.exact_counts(p, "grid")
        _, b = deals.exact_counts(p, "inclusion-exclusion")
        for x, y in zip(a, b):
            assert np.array_equal(x, y), (players, dead)


def test_heads_up_hilo_count_equals_the_pot_shares():
    """Heads-up hi/lo is counted directly (a dozen boolean counts); every deal's pot shares
    through pots.split (the multiway grid's rule) give the same integers."""
    from gpu_eval.equity_engine import pots

    rng = np.random.default_rng(77)
    for _ in range(6):
        players, dead = _spot("stud-hilo", 2, rng)
        p = deals.prepare(players, "", dead, "stud-hilo")
        _, got = deals.exact_counts(p, "grid")
        (_, ma, sa, la), (_, mb, sb, lb) = (deals._completions(p, i) for i in range(2))
        ok = (ma[:, None] & mb[None, :]) == 0
        hi = np.stack([np.broadcast_to(sa[:, None], ok.shape), sb[None, :] * ok], axis=1)
        lo = np.stack([np.broadcast_to(la[:, None], ok.shape),
                       np.broadcast_to(lb[None, :], ok.shape)], axis=1)
        t, hu, lu, good = pots.split(hi, lo, p.scale)
        whole = t == p.scale
        want = (whole.sum(axis=(0, 2)), ((t > 0) & ~whole).sum(axis=(0, 2)),
                np.where(whole, 0, t).sum(axis=(0, 2)), hu.sum(axis=(0, 2)),
                lu.sum(axis=(0, 2)), int(good.sum()))
        for x, y in zip(got, want):
            assert np.array_equal(x, y), (players, dead)
        assert int(got[5]) == p.deals()


def test_third_street_heads_up_is_walked():
    r = ge.equity(["AhKh3c", "QsQd7h"], game="stud")
    assert r.exact and r.boards == 18_265_297_050
    assert int(r.wins.sum() + r.ties[0]) == r.boards
    mc = ge.equity(["AhKh3c", "QsQd7h"], game="stud", exact=False, samples=60_000, seed=3)
    assert np.all(np.abs(mc.equity - r.equity) < 4 * mc.stderr)


@pytest.mark.parametrize("game", ["stud-hilo", "razz", "badugi-draw", "five-card-draw"])
def test_monte_carlo_is_within_four_standard_errors(game):
    players, dead = _spot(game, 3, RNG)
    ex = ge.equity(players, game=game, dead=dead, exact=True)
    mc = ge.equity(players, game=game, dead=dead, exact=False, samples=40_000, seed=11)
    assert not mc.exact and mc.samples == 40_000
    assert np.all(np.abs(mc.equity - ex.equity) <= 4 * mc.stderr + 1e-12)
    if ex.high is not None:
        assert np.allclose(mc.high + mc.low, mc.equity)
    again = ge.equity(players, game=game, dead=dead, exact=False, samples=40_000, seed=11)
    assert np.array_equal(again.equity, mc.equity)  # a seed reproduces the run


def test_large_multiway_spots_sample_by_the_cost_model():
    r = ge.equity(["Ah2h3h", "Kh2d3d", "5c6c7c"], game="razz", seed=1)
    assert not r.exact and r.samples > 0
    assert abs(r.equity.sum() - 1) < 1e-12


def test_hilo_results_carry_high_low_scoop():
    r = ge.equity(["Ah2h3h4c9s", "KsKcKdQhJh"], game="stud-hilo")
    assert r.exact and np.allclose(r.high + r.low, r.equity)
    assert np.array_equal(r.scoop, r.win) and r.low[0] > 0 and r.low[1] == 0


@pytest.mark.parametrize("players, kw, msg", [
    (["AhAh3c", "KsKdQc"], {"game": "stud"}, r"player 1 \('AhAh3c'\): card Ah is used twice"),
    (["Ah2h3c", "Kh2d3c"], {"game": "razz"}, r"card 3c is used twice: by player 2"),
    (["AhKhQhJhTh9h8h7h", "KsKd"], {"game": "stud"}, r"player 1 .*8 cards.*2 to 7"),
    (["AhKh", "QsQd"], {"game": "stud", "board": "2c7d9s"}, r"'stud' has no board"),
    (["7d5h4c3s2h6h", "5s4h3d2c"], {"game": "deuce-seven-draw"},
     r"player 1 .*6 cards.*0 to 5"),
    (["AhKh", "QsQd"], {"game": "seven-stud"}, r"unknown game 'seven-stud'"),
    (["AhKh", "QsQd", "Jc"], {"game": "stud"}, r"player 3 \('Jc'\): 1 card"),
    (["AhKh"] * 1, {"game": "razz"}, r"2 to 8 players"),
    ([r + "c" + r + "d" for r in "23456789"], {"game": "stud"}, r"too many players"),
    (["Ah2h", "Kh2d"], {"game": "razz", "dead": "Ah"}, r"card Ah is used twice"),
])
def test_bad_input_is_one_line_naming_the_player(players, kw, msg):
    with pytest.raises(ValueError, match=msg) as info:
        ge.equity(players, **kw)
    assert "\n" not in str(info.value)


def test_progress_bar_can_be_shown_and_turned_off(capsys):
    ge.equity(["AhKh3c", "QsQd7h"], game="stud", progress=True)
    assert "stud exact" in capsys.readouterr().err
    ge.equity(["Ah2h3h4h", "Kh2d3d4d"], game="razz", exact=False, samples=1000, seed=1, progress=False)
    assert capsys.readouterr().err == ""


def test_draw_players_may_keep_nothing():
    r = ge.equity(["", "7d5h4c3s2h"], game="deuce-seven-draw", exact=False, samples=20_000, seed=4)
    assert r.equity[1] > 0.9


@pytest.mark.parametrize("game, players, dead", [
    ("razz", ["Ah2h3h4h5h", "Kh2d3d4d5d"], ""),
    ("stud-hilo", ["AhAcAdKhQc", "KsKcKdQhJc"], ""),
    ("badugi-draw", ["Ac2d3h", "4s5s6c"], "Kd"),
    ("five-card-draw", ["AhAdAc2c", "KsKcQd8h", "7c8c9cTc"], ""),
])
def test_distributed_tasks_give_the_single_process_result(game, players, dead):
    from gpu_eval import distributed

    one = ge.equity(players, game=game, dead=dead, exact=True)
    many = distributed.equity(None, players, game=game, dead=dead, exact=True, block_size=7)
    assert one.to_dict() == many.to_dict()
    a = ge.equity(players, game=game, dead=dead, exact=False, samples=40_000, seed=9)
    b = distributed.equity(None, players, game=game, dead=dead, exact=False, samples=40_000, seed=9)
    assert a.to_dict() == b.to_dict()


def test_cli_equity_for_a_stud_game(capsys):
    from gpu_eval import cli

    assert cli.main(["equity", "Ah2h3h4h5h", "Kh2d3d4d5d", "--game", "razz", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"exact": true' in out and "0.9303135888" in out
    assert cli.main(["equity", "AhKh", "QsQd", "--game", "stud", "--board", "2c7d9s"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'stud' has no board" in err[0]


@pytest.mark.parametrize("game, spots, boards", [
    ("razz", [["Ah2h3h4h5h", "Kh2d3d4d5d"], ["AhAcAdKhQc", "KsKcKdQhJc"]], None),
    ("stud-hilo", [["AhAcAdKhQc", "KsKcKdQhJc"]], None),
    ("deuce-seven-draw", [["7d5h4c3s2h", "5s4h3d2c"], ["Kc", "7d5h4c3s"]], None),
    ("omaha-hilo", [["4c3sKhQd", "4h5cQhKs"]], ["Ac2d6cKcJs"]),
    ("courchevel", [["AsKsQd3c2h", "JhTh9d8c4s"]], ["Ah7c2d"]),
])
def test_equity_batch_runs_every_game(game, spots, boards):
    r = ge.equity_batch(spots, boards, game=game)
    for i, s in enumerate(spots):
        one = ge.equity(s, board=boards[i] if boards else "", game=game, exact=True)
        assert np.array_equal(r.equity[i], one.equity) and np.array_equal(r.wins[i], one.wins)
        assert r.boards[i] == one.boards


@pytest.mark.parametrize("game", ["deuce-seven-draw", "badugi-draw", "five-card-draw", "razz"])
def test_completion_strengths_are_the_evaluators(game):
    """The draw games' table lookups (rank keys and flush lanes; badugi by colex number) give
    the evaluator's integers for every completion, kept cards in one suit or several."""
    from gpu_eval.equity_engine.deals import completions

    rng = np.random.default_rng(31)
    size = deals.registry.GAMES[game].hole_cards
    kept_sets = [[], cards.parse("2h5h9h").tolist(), cards.parse("AsKs").tolist(),
                 cards.parse("7d5h4c3s").tolist()[:size - 1]]
    kept_sets += [sorted(rng.choice(52, k, replace=False).tolist())
                  for k in range(size + 1) for _ in range(3)]
    for kept in kept_sets:
        kept = kept[:size]
        need = min(size - len(kept), 3)
        kept = kept + sorted(set(range(52)) - set(kept))[:size - len(kept) - need]
        deck = bytes(c for c in range(52) if c not in kept)
        known = sum(int(cards.ID_TO_MASK[c]) for c in kept)
        _, masks, hi, _ = completions.player_strengths(game, deck, need, known)
        want, _ = deals.strengths(game, masks | np.uint64(known))
        assert len(hi) == len(want) and np.array_equal(hi, want), (game, kept)


@pytest.mark.parametrize("game, spots, boards", [
    ("omaha-hilo", [["4c3sKhQd", "4h5cQhKs"], ["Ac2d3hKs", "AhKd7c8c"], ["2c3dKhKs", "AsAd4h5h"]],
     ["Ac2d6cKcJs", "7s8d2h", "Kd4d5c6h"]),
    ("omaha-hilo", [["Ac2d3hKs", "AhKd7c8c", "4c5c9dTd"]], ["6h7h8s"]),
    ("omaha5-hilo", [["Ac2d3hKsQs", "AhKd7c8c9c"], ["2c3d4h5s6s", "AsAdKhKdQc"]],
     ["Kc7d2h", "9h8h7s6d"]),
    ("stud-hilo", [["AhAcAdKhQc", "KsKcKdQhJc"], ["Ah2h3h4c9s", "KsKcKdQhJh"]], None),
    ("stud-hilo", [["Ah2h3h4c9s6d", "KsKcKdQhJh2d", "5c6c7c8cTs9c"]], None),
    ("courchevel-hilo", [["AsKsQd3c2h", "JhTh9d8c4s"], ["Ac2c3d4d5h", "KsKhQsQhJd"]],
     ["Ah7c2d", "6c7c8s9d"]),
])
def test_equity_batch_of_hilo_games_carries_high_low_scoop(game, spots, boards):
    """A hi/lo batch holds each spot's high, low and scoop, field for field as ge.equity."""
    r = ge.equity_batch(spots, boards, game=game)
    assert r.high is not None and r.high.shape == r.equity.shape == (len(spots), len(spots[0]))
    np.testing.assert_allclose(r.high + r.low, r.equity, rtol=0, atol=1e-12)
    assert (r.low > 0).any()  # some spot has a qualifying low: the columns are filled
    assert not r.high.flags.writeable
    for i, s in enumerate(spots):
        one = ge.equity(s, board=boards[i] if boards else "", game=game, exact=True)
        for k in ("equity", "win", "tie", "tie_share", "high", "low", "scoop"):
            assert np.array_equal(getattr(r, k)[i], getattr(one, k)), (k, s)
        assert np.array_equal(r.wins[i], one.wins) and r.boards[i] == one.boards


@pytest.mark.parametrize("game, spots, boards", [
    ("holdem", [["AhKh", "QsQd"]], ["2c7d9h"]),
    ("razz", [["Ah2h3h4h5h", "Kh2d3d4d5d"]], None),
    ("omaha", [["4c3sKhQd", "4h5cQhKs"]], ["Ac2d6cKcJs"]),
    ("deuce-seven-draw", [["7d5h4c3s2h", "5s4h3d2c"]], None),
])
def test_equity_batch_without_a_low_has_no_high_low_columns(game, spots, boards):
    r = ge.equity_batch(spots, boards, game=game)
    assert r.high is None and r.low is None and r.scoop is None


@pytest.mark.parametrize("game", list(PEER_KEY))
def test_small_heads_up_spots_walked_together_equal_each_alone(game):
    """equity_batch walks the small heads-up spots of a board-less game together
    (deals.batch_counts over the whole deck's completions): each row is the spot's own
    ge.equity, field for field, larger spots (walked alone) in between keep their rows."""
    rng = np.random.default_rng(100 + list(PEER_KEY).index(game))
    spots, dead = [], []
    for _ in range(24):
        players, d = _spot(game, 2, rng)
        spots.append(players)
        dead.append(d)
    probs = [deals.prepare(s, "", d, game) for s, d in zip(spots, dead)]
    small = [deals.batchable(p) for p in probs]
    assert any(small) and not all(small)
    r = ge.equity_batch(spots, dead=dead, game=game, backend="numpy")
    for i, (s, d) in enumerate(zip(spots, dead)):
        one = ge.equity(s, dead=d, game=game, exact=True, backend="numpy")
        for k in ("equity", "win", "tie", "tie_share", "wins", "ties", "high", "low", "scoop"):
            a = getattr(r, k)
            if a is None:
                assert getattr(one, k) is None or k in ("high", "low", "scoop")
            else:
                assert np.array_equal(a[i], getattr(one, k)), (k, s, d)
        assert r.boards[i] == one.boards == probs[i].deals()
    with pytest.raises(ValueError, match=r"^spot 2: card .. is used twice: by player 2"):
        ge.equity_batch(spots[:2] + [[spots[2][0], spots[2][0][:4]]], game=game)


def test_heads_up_hilo_fourth_street_is_walked_by_the_cost_model():
    """The direct hi/lo count makes heads-up fourth street (1.75e8 pairs, under a second
    measured) exact by default on NumPy; third street (2.7e10 pairs) is sampled there."""
    fourth = job_of(["Ah2h3h4h", "Kh2d3d4d"], game="stud-hilo", backend="numpy")
    assert fourth.method == "grid" and fourth.seconds <= deals.EXACT_SECONDS
    assert deals.costs(fourth.prob)["grid"] > deals.EXACT_LIMIT  # by seconds, not work
    third = job_of(["Ah2h3h", "Kh2d3d"], game="stud-hilo", backend="numpy")
    assert third.method == "monte carlo"


@pytest.mark.parametrize("players, dead, game", [
    (["7d5h4c3s2h", "5s4h3d2c"], "Ad", "deuce-seven-draw"), (["AhKh3c", "QsQd7h"], "", "stud"),
    (["7d5h4c", "8h6d4s2c", "3c9c"], "", "deuce-seven-draw"),
    (["Ah2h3h4h5h", "Kh2d3d4d5d"], "", "razz"), (["Ah2h3h4h5h", "Kh2d3d4d5d"], "", "stud-hilo"),
    (["Ac2d", "4s5h6c"], "", "badugi-draw")])
def test_exact_job_is_the_constructed_one(players, dead, game):
    """exact_job sets its DealJob's fields (and its seconds, exact, heads-up span) at once:
    the same job, figures and spans the dataclass's own __init__ gives."""
    prob = deals.prepare(players, "", dead, game)
    job = deals.exact_job(prob, "numpy", True)
    made = deals.DealJob(prob, job.method, None, None, job.work)
    assert job == made and vars(job).keys() >= {"prob", "method", "work", "backend"}
    assert (job.seconds, job.span, job.exact, job.spans()) == \
        (made.seconds, made.span, made.exact, made.spans())
