"""Per-combo equity, wins and ties of ``range_report`` against ``gpu_eval.equity(...,
exact=True)``, combo by combo; every turn and river; every flop against ``flop_sweep`` and
the exact preflop equity."""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
import gpu_eval.distributed as ged
from gpu_eval.range_reports.api import range_report

#: The integers are compared exactly; the weighted fractions equal up to the order their
#: float sums run in (the matchups one by one there, the boards' running sums here).
TOL = 1e-10
# Weighted ranges with card removal to do: pairs, suited and offsuit hands, fractions.
HERO = "0.5(QQ+), AKs, KQo:0.3, 76s, 22, A5s:0.7"
VILLAIN = "JJ-55, AQs:0.7, KJs, T9s, 0.25(A4s-A2s), 98o"
SPOTS = [  # (game, board, hero, villain)
    ("holdem", "Kd7c2h", HERO, VILLAIN),
    ("holdem", "Ts9s2c", HERO, VILLAIN),
    ("holdem", "7h7d7c", HERO, VILLAIN),
    ("holdem", "AhKh3d7s", HERO, VILLAIN),
    ("holdem", "6c5c4d3h2s", HERO, VILLAIN),
    ("shortdeck", "Kd7cTh", "0.5(QQ+), AKs, 76s, A6s", "JJ-77, AQs:0.7, T9s, 98o"),
    ("shortdeck-triton", "9s8s6h7d", "0.5(QQ+), AKs, T9s", "JJ-77, AQs:0.7, 98o"),
    ("omaha", "Kd7c2h", "AAK$ds, 0.5(JT98$ds)", "KKQQ, QJT9:0.4"),
    ("omaha", "AhKh3d7s", "AAK$ds", "KKQQ, QJT9:0.4"),
    ("omaha", "6c5c4d3h2s", "AA$ds", "KKQQ"),
]


@pytest.fixture(scope="session")
def reports():
    return [range_report(h, v, board=b, game=g) for g, b, h, v in SPOTS]


def _check(sd, i, other, board, game):
    e = ge.equity([sd.hands[i], other], board=board, exact=True, game=game)
    where = f"{game} {board} {sd.hands[i]} vs {other}"
    assert (int(e.wins[0]), int(e.ties[0]), e.matchups, e.boards) == \
        (sd.wins[i], sd.ties[i], sd.matchups[i], sd.boards), where
    for name in ("equity", "win", "tie"):
        assert abs(float(getattr(e, name)[0]) - float(getattr(sd, name)[i])) < TOL, where


@pytest.mark.parametrize("spot", range(len(SPOTS)))
def test_every_sampled_combo_matches_equity(reports, spot):
    game, board, hero, villain = SPOTS[spot]
    r = reports[spot]
    rng = np.random.default_rng(spot)
    n = 6 if game.startswith("omaha") else 16
    for sd, other in ((r.hero, villain), (r.villain, hero)):
        for i in rng.choice(len(sd.combos), min(n, len(sd.combos)), replace=False):
            _check(sd, int(i), other, board, game)
    full = ge.equity([hero, villain], board=board, exact=True, game=game)
    assert abs(float(full.equity[0]) - r.equity) < TOL


def test_turn_report_is_equity_on_every_turn():
    h, v = "QQ+, AKs, 0.5(76s)", "JJ-99, AQs:0.7, KQs"
    s = range_report(h, v, board="Kd7c2h", street="turn")
    assert len(s) == 49 and s.board == "Kd7c2h"
    rng = np.random.default_rng(3)
    for i, c in enumerate(s.cards):
        rep = s[c]
        assert rep.board == "Kd7c2h" + c
        full = ge.equity([h, v], board=rep.board, exact=True)
        assert abs(float(full.equity[0]) - float(s.hero_equity[i])) < TOL, c
        assert abs(float(full.equity[1]) - float(s.villain_equity[i])) < TOL, c
        if i % 7 == 0:
            for sd, other in ((rep.hero, v), (rep.villain, h)):
                for j in rng.choice(len(sd.combos), 3, replace=False):
                    _check(sd, int(j), other, rep.board, "holdem")
    # a report per turn card is the one-board report on that turn board
    one = range_report(h, v, board="Kd7c2hAs")
    assert np.array_equal(one.hero.wins, s["As"].hero.wins)
    assert one.hero.hands == s["As"].hero.hands
    assert np.array_equal(one.hero.outs, s["As"].hero.outs)


def test_river_report_is_equity_on_every_river():
    h, v = "QQ+, AKs", "JJ-99, AQs:0.7"
    s = range_report(h, v, board="Kd7c2hAs", street="river")
    assert len(s) == 48
    for i, c in enumerate(s.cards[::6]):
        rep = s[c]
        full = ge.equity([h, v], board=rep.board, exact=True)
        assert abs(float(full.equity[0]) - float(s.hero_equity[6 * i])) < TOL, c
        _check(rep.hero, 0, v, rep.board, "holdem")


def test_omaha_turn_report():
    s = range_report("AA$ds", "KKQQ", board="Kd7c2h", game="omaha", street="turn")
    for c in ("As", "8d"):
        full = ge.equity(["AA$ds", "KKQQ"], board=s[c].board, exact=True, game="omaha")
        assert abs(float(full.equity[0]) - s[c].equity) < TOL


@pytest.fixture(scope="session")
def all_flops():
    a, b = "AKs, QQ", "JJ, AQo:0.5"
    return a, b, range_report(a, b, boards="flops", per_combo=True, progress=False)


def test_all_flops_equal_flop_sweep_and_preflop(all_flops):
    a, b, r = all_flops
    s = ged.flop_sweep(None, a, b)
    assert r.boards == s.flops and int(r.flops.sum()) == 22_100
    assert np.array_equal(r.flops, s.weights)
    assert np.array_equal(r.units, s.units)
    assert np.array_equal(r.showdowns, s.showdowns)
    np.testing.assert_allclose(r.matchup_weight, s.matchup_weight, rtol=TOL)
    np.testing.assert_allclose(r.hero_equity, s.equity, rtol=0, atol=TOL)
    pre = ge.equity([a, b], exact=True)
    assert abs(r.overall - s.overall) < TOL and abs(r.overall - float(pre.equity[0])) < TOL
    assert int(r.units.sum()) == 10 * (2 * int(pre.wins[0]) + int(pre.ties[0]))


def test_all_flops_per_combo_rows_are_the_one_board_reports(all_flops):
    a, b, r = all_flops
    for j in (0, 400, 1754):
        one = range_report(a, b, board=r.boards[j])
        hero = r.combos["hero"]
        fit = np.asarray(hero["made"][j]) != 255
        assert int(fit.sum()) == len(one.hero.combos)
        np.testing.assert_array_equal(np.asarray(hero["wins"][j])[fit], one.hero.wins)
        np.testing.assert_array_equal(np.asarray(hero["made"][j])[fit], one.hero.made)
        np.testing.assert_allclose(np.asarray(hero["equity"][j])[fit], one.hero.equity,
                                   rtol=0, atol=TOL)
        assert abs(float(r.hero_equity[j]) - one.equity) < TOL


def test_boards_of_asymmetric_ranges_play_every_flop_they_tell_apart():
    # AhKh is not suit-symmetric: every flop of a class is played that the ranges tell apart.
    boards = ["AsKd7h", "7c7d2h", "9h8h7h", "Qs5d2c", "AhKhQh"]
    r = range_report("AhKh, QQ", "JJ, AQs", boards=boards)
    for j, bd in enumerate(boards):
        one = range_report("AhKh, QQ", "JJ, AQs", board=bd)
        assert abs(float(r.hero_equity[j]) - one.equity) < TOL
        full = ge.equity(["AhKh, QQ", "JJ, AQs"], board=bd, exact=True)
        assert abs(float(full.equity[0]) - one.equity) < TOL


def test_one_runout_per_suit_orbit_gives_every_runouts_integers(monkeypatch):
    # Two-tone, monotone, paired and trips flops have suit permutations that keep them and
    # suit-symmetric ranges: one runout per orbit is counted. Against counting every runout:
    from gpu_eval.range_reports import many_boards, one_board

    boards = ["Ts9s4d", "Qh8h3h", "7c7d2h", "7h7d7c"]
    sym = [range_report(HERO, VILLAIN, board=b) for b in boards]
    many = range_report(HERO, VILLAIN, boards=boards, per_combo=True)
    identity = lambda known, sides: ((0, 1, 2, 3),)  # noqa: E731
    monkeypatch.setattr(one_board, "report_group", identity)
    monkeypatch.setattr(many_boards, "report_group", identity)
    for b, s in zip(boards, sym):
        plain = range_report(HERO, VILLAIN, board=b)
        for x, y in ((s.hero, plain.hero), (s.villain, plain.villain)):
            assert np.array_equal(x.wins, y.wins) and np.array_equal(x.ties, y.ties), b
            np.testing.assert_allclose(x.equity, y.equity, rtol=0, atol=TOL)
    plain_many = range_report(HERO, VILLAIN, boards=boards, per_combo=True)
    assert np.array_equal(many.units, plain_many.units)
    assert np.array_equal(many.combos["villain"]["ties"], plain_many.combos["villain"]["ties"])


def test_features_and_counts_map_keep_each_array_in_its_field():
    """``Features.map`` and ``Counts.map`` (a board's row, a range's columns) send every array
    to its own field, absent outs stay absent and ``boards`` is kept."""
    from gpu_eval.range_reports.columns import Features
    from gpu_eval.range_reports.equity import Counts

    arrays = ("strength", "made", "draws", "straight_ranks", "nut_rank")
    f = Features(**{n: np.arange(3) + 10 * i for i, n in enumerate(arrays)})
    row = f.map(lambda a: a[1:])
    assert [getattr(row, n).tolist() for n in arrays] == [[10 * i + 1, 10 * i + 2]
                                                         for i in range(len(arrays))]
    assert row.outs is None and row.nut_outs is None
    full = Features(**{n: np.arange(3) for n in arrays}, outs=np.array([4, 5, 6]),
                    nut_outs=np.array([7, 8, 9]))
    assert full.map(lambda a: a[2]).nut_outs == 9
    fields = ("wins", "ties", "matchups", "win_weight", "tie_weight", "weight")
    c = Counts(**{n: np.array([i, i + 100]) for i, n in enumerate(fields)}, boards=990)
    one = c.map(lambda a: a[1])
    assert [int(getattr(one, n)) for n in fields] == [100 + i for i in range(len(fields))]
    assert one.boards == 990
