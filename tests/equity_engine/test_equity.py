"""Tests for gpu_eval.equity: exact and Monte Carlo equity against a brute-force reference."""

import dataclasses
import doctest
import importlib
import io
import json
from fractions import Fraction

import numpy as np
import pytest

from gpu_eval import backend_choice, cards
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.api import equity
from gpu_eval.equity_engine.holdem import numpy_engine, shipped_table
from gpu_eval.equity_engine.holdem.shortcuts import board_rank_classes, flush_free_pairs
from gpu_eval.equity_engine.results import EquityResult
from gpu_eval.progress import Progress, wanted
from gpu_eval.ranges import Range

import equity_reference as ref

# --- the acceptance figure -------------------------------------------------------------------


def test_ahkh_vs_qsqd_preflop_exact():
    r = equity(["AhKh", "QsQd"])
    assert r.exact and r.boards == 1_712_304 and r.matchups == 1
    assert r.wins.tolist() == [787_966, 1_712_304 - 787_966 - 6_732]
    assert r.ties.tolist() == [6_732, 6_732]
    assert r.method == "exact (table): 1,712,304 boards"
    assert r.equity[0] == pytest.approx((787_966 + 6_732 / 2) / 1_712_304, abs=1e-15)
    # PokerStove's meaning: win = the pot alone, tie = a split pot; tie_share = the pot won in it.
    assert r.win[0] == pytest.approx(787_966 / 1_712_304, abs=1e-15)
    assert r.tie.tolist() == [6_732 / 1_712_304] * 2
    assert r.tie_share[0] == pytest.approx(6_732 / 2 / 1_712_304, abs=1e-15)
    np.testing.assert_allclose(r.win + r.tie_share, r.equity, rtol=0, atol=1e-15)


def test_ahkh_vs_range_exact_win_and_tie_as_poker_equity():
    # poker-equity (and PokerStove) give AhKh vs QQ+,AKs: win 28.8055%, tie 17.7265%.
    r = equity(["AhKh", "QQ+,AKs"], exact=True)
    assert r.method == "exact (table): 15 matchups x 1,712,304 boards"
    assert round(float(r.win[0]), 6) == 0.288055 and round(float(r.tie[0]), 6) == 0.177265
    assert r.tie[1] == r.tie[0]  # heads-up, every split involves both players
    assert r.tie[0] == pytest.approx(r.ties[0] / (15 * 1_712_304), abs=1e-15)  # equal weights
    np.testing.assert_allclose(r.win + r.tie_share, r.equity, rtol=0, atol=1e-15)
    assert r.stderr.tolist() == [0.0, 0.0]


def test_symmetric_boards_count_like_all_boards():
    # AsAh vs KsKh keeps 4 suit permutations: one board per orbit is played and weighted.
    pool = cards.to_mask(["AsAh", "KsKh"])
    deck = enumerate_boards.FULL_DECK & ~int(pool[0] | pool[1])
    full = numpy_engine.showdown_counts(pool, np.array([[0, 1]]),
                                         enumerate_boards.completions(deck, 5))
    r = equity(["AsAh", "KsKh"])
    assert r.wins.tolist() == full.wins[0].tolist()
    assert r.ties.tolist() == full.ties[0].tolist()


# --- exact against brute force ---------------------------------------------------------------

@pytest.mark.parametrize("hands, board, dead", [
    (["AhKh", "QsQd"], "2c 7d 9s", ""),
    (["AhKh", "QsQd"], "Qh Jh 2c", "Ts"),
    (["7c7d", "AsKs"], "Kd 8s 2s 3c", ""),
    (["Tc9c", "AdAh"], "Jc 8d 2c Qs", "Kc"),
    (["AhKh", "QsQd"], "2c 7d 9s Qh Jc", ""),
    (["5c4c", "5d4d"], "Ac 2d 3h Ks", ""),            # chopped straights
    (["AhAd", "KcKd", "QsJs"], "Ts 9s 2h 3c", ""),     # 3-way
    (["AhAd", "KcKd", "QsJs", "7h6h"], "8h 5c 2h Kh", ""),  # 4-way
    (["2c3d", "4h5s", "6c7d"], "As Ks Qs Js", ""),      # many split pots
])
def test_exact_hands_match_brute_force(hands, board, dead):
    wins, ties, shares, nb = ref.showdowns([ref.ids(h) for h in hands], ref.ids(board),
                                           ref.ids(dead))
    r = equity(hands, board=board, dead=dead)
    assert r.exact and r.boards == nb
    assert r.wins.tolist() == wins and r.ties.tolist() == ties
    np.testing.assert_allclose(r.equity, [float(s / nb) for s in shares], rtol=0, atol=1e-14)
    np.testing.assert_allclose(r.tie, [t / nb for t in ties], rtol=0, atol=1e-15)
    np.testing.assert_allclose(r.tie_share, [float((s - w) / nb) for s, w in zip(shares, wins)],
                               rtol=0, atol=1e-14)
    assert r.equity.sum() == pytest.approx(1, abs=1e-12)


def test_three_way_ranges_win_tie_share_match_brute_force():
    # Weighted three-way ranges: win, tie (split-pot probability) and tie_share, each the
    # matchup-weighted mean of brute-force board counts.
    players, board = ["Ts9s, 0.5(Th8h), KK", "Td7d, 0.25(33)", "Tc6c, 55, AhKh"], "Ac Kd Qh 2c"
    b = ref.ids(board)
    rs = [Range(p).without(cards.to_mask(b)) for p in players]
    tot_w, win, tie, share = 0.0, np.zeros(3), np.zeros(3), np.zeros(3)
    for i in range(len(rs[0])):
        for j in range(len(rs[1])):
            for k in range(len(rs[2])):
                hs = [rs[0].combos[i].tolist(), rs[1].combos[j].tolist(), rs[2].combos[k].tolist()]
                if len({c for h in hs for c in h}) < 6:
                    continue
                wt = float(rs[0].weights[i] * rs[1].weights[j] * rs[2].weights[k])
                w, t, sh, nb = ref.showdowns(hs, b)
                tot_w += wt
                win += wt * np.array(w) / nb
                tie += wt * np.array(t) / nb
                share += wt * np.array([float(x - y) / nb for x, y in zip(sh, w)])
    r = equity(players, board=board, exact=True)
    assert r.ties.min() > 0 and (r.tie > 0.01).all()  # splits for every player
    np.testing.assert_allclose(r.win, win / tot_w, rtol=0, atol=1e-14)
    np.testing.assert_allclose(r.tie, tie / tot_w, rtol=0, atol=1e-14)
    np.testing.assert_allclose(r.tie_share, share / tot_w, rtol=0, atol=1e-14)
    np.testing.assert_allclose(r.equity, (win + share) / tot_w, rtol=0, atol=1e-14)


def test_monte_carlo_tie_is_the_split_pot_frequency():
    r = equity(["AhKh", "AdKd", "QsQd"], exact=False, samples=20_000, seed=3)
    np.testing.assert_array_equal(r.tie, r.ties / 20_000)
    np.testing.assert_allclose(r.win + r.tie_share, r.equity, rtol=0, atol=1e-15)
    assert (r.tie > r.tie_share).all() and r.tie[0] > 0.25  # AK vs AK split often


def test_royal_board_splits_evenly_four_ways():
    r = equity(["2c3d", "4h5s", "6c7d", "8h9d"], board="As Ks Qs Js Ts")
    assert r.boards == 1 and r.ties.tolist() == [1] * 4 and r.wins.tolist() == [0] * 4
    np.testing.assert_array_equal(r.equity, [0.25] * 4)
    np.testing.assert_array_equal(r.tie, [1.0] * 4)        # every board is a split
    np.testing.assert_array_equal(r.tie_share, [0.25] * 4)


@pytest.mark.parametrize("players, board", [
    (["AhKh", "QQ+,AKs"], "Kd 7c 2h"),
    (["JJ, 0.5(TT)", "AKs, 0.25(KQs)"], "9h 8h 2c 3s"),
    (["AsAd", "KK:0.5, QhJh", "0.01(JTs+), 22"], "Kc Qd 2s 3s 4h"),
    (["AA", "KK", "76s"], "Ah 7c 2d Kd"),                       # 3 ranges, turn
    (["AhKd", "QQ", "JTs", "9c9d"], "Qs Jc 2h 8d"),             # 4-way, turn
])
def test_exact_ranges_match_brute_force(players, board):
    expect = ref.range_equity(players, board=board)
    r = equity(players, board=board, exact=True)
    assert r.exact
    np.testing.assert_allclose(r.equity, expect, rtol=0, atol=1e-12)


def test_matchup_and_board_counts_for_ranges():
    r = equity(["AhKh", "QQ+,AKs"], board="Kd 7c 2h")
    assert r.matchups == 12 and r.boards == 990  # C(45 - 2, 2): each matchup's own boards
    assert r.method == "exact: 12 matchups x 990 boards"
    assert r.wins.sum() + r.ties[0] == 12 * 990


# --- symmetry, weights, card removal ---------------------------------------------------------

def test_swapping_players_swaps_results():
    a = equity(["AhKh", "JJ,AQs", "76s"], board="Qh 7h 2d")
    b = equity(["76s", "AhKh", "JJ,AQs"], board="Qh 7h 2d")
    np.testing.assert_allclose(b.equity, a.equity[[2, 0, 1]], rtol=0, atol=1e-14)
    np.testing.assert_array_equal(b.wins, a.wins[[2, 0, 1]])
    assert b.labels == ("76s", "AhKh", "JJ,AQs")


def test_weights_give_the_weighted_average():
    board = "Qs 7d 2c"
    hero = "JhTh"
    rng = Range("AA, 0.5(KK)")
    per_combo = {h: float(equity([h, hero], board=board).equity[0]) for h in rng.hands()}
    w = dict(zip(rng.hands(), rng.weights.tolist()))
    expect = sum(w[h] * e for h, e in per_combo.items()) / sum(w.values())
    r = equity([rng, hero], board=board)
    assert r.equity[0] == pytest.approx(expect, abs=1e-13)
    # Scaling every weight by the same factor changes nothing.
    assert equity(["0.3(AA), 0.15(KK)", hero], board=board).equity[0] == pytest.approx(
        expect, abs=1e-13)


def test_weights_of_incompatible_combos_drop_out():
    # Against AhKd the combos holding Ah or Kd are removed before weighting.
    full = equity(["AA:0.5, KK", "AhKd"], board="2c 3c 4d")
    left = equity(["AsAd:0.5, AsAc:0.5, AdAc:0.5, KsKh, KsKc, KhKc", "AhKd"],
                  board="2c 3c 4d")
    np.testing.assert_allclose(full.equity, left.equity, rtol=0, atol=1e-14)


def test_range_left_with_one_combo_is_a_known_hand():
    a = equity(["AA", "AsAh"], board="Kd 7c 2h 3s")
    assert a.matchups == 1 and a.boards == 44  # AdAc is a known hand: 52 - 4 - 4 cards left
    b = equity(["AdAc", "AsAh"], board="Kd 7c 2h 3s")
    np.testing.assert_array_equal(a.equity, b.equity)


def test_board_and_dead_cards_in_every_encoding():
    base = equity(["AhKh", "QQ"], board="2c 7d 9s", dead="Qc")
    for board, dead in [(cards.parse("2c7d9s"), cards.parse("Qc")),
                        (cards.to_mask("2c7d9s"), cards.to_mask("Qc")),
                        (["2c", "7d", "9s"], ["Qc"]), ("2c,7d,9s", [int(cards.parse_card("Qc"))])]:
        r = equity(["AhKh", "QQ"], board=board, dead=dead)
        np.testing.assert_array_equal(r.equity, base.equity)
    assert base.board == "2c 7d 9s" and base.dead == "Qc"


def test_player_given_as_ids_mask_or_range_object():
    b = equity(["AhKh", "QsQd"], board="2c 7d 9s")
    for hero, villain in [(cards.parse("AhKh"), Range("QsQd")),
                          (cards.to_mask("AhKh"), ["QsQd"]),
                          ([50, 46], np.array([[43, 41]]))]:
        a = equity([hero, villain], board="2c 7d 9s")
        np.testing.assert_array_equal(a.equity, b.equity)
    assert a.labels == ("AhKh", "QsQd")


# --- Monte Carlo -----------------------------------------------------------------------------

def test_monte_carlo_within_four_standard_errors():
    exact = equity(["AhKh", "QsQd"])
    mc = equity(["AhKh", "QsQd"], exact=False, samples=200_000, seed=3)
    assert not mc.exact and mc.samples == 200_000 and mc.boards is None
    assert mc.method == "monte carlo: 200,000 samples"
    assert np.all(np.abs(mc.equity - exact.equity) < 4 * mc.stderr)
    assert 0.0005 < mc.stderr[0] < 0.002  # about sqrt(p (1 - p) / n)


def test_monte_carlo_ranges_multiway_within_four_standard_errors():
    players = ["AA, 0.5(KK)", "AKs, QJs", "77"]
    exact = equity(players, board="Qs 7h 2d", exact=True)
    mc = equity(players, board="Qs 7h 2d", exact=False, samples=150_000, seed=11)
    assert np.all(np.abs(mc.equity - exact.equity) < 4 * mc.stderr)
    assert mc.equity.sum() == pytest.approx(1, abs=1e-12)
    assert np.all(mc.win <= mc.equity)


def test_monte_carlo_random_players_are_dealt_exactly():
    # "random" players are dealt from the deck instead of drawn from their range.
    board = "Qs 7h 2d 9c 3h"
    exact = equity(["AhKh", "random", "0.5(random)"], board=board, exact=True)
    mc = equity(["AhKh", "random", "0.5(random)"], board=board, exact=False,
                samples=200_000, seed=4)
    assert np.all(np.abs(mc.equity - exact.equity) < 4 * mc.stderr)
    ten = equity(["random"] * 10, samples=70_000, seed=1)
    assert ten.equity.sum() == pytest.approx(1) and np.all(np.abs(ten.equity - 0.1) < 0.01)


def test_monte_carlo_is_reproducible_from_the_seed():
    a = equity(["QQ+,AKs", "22+"], exact=False, samples=70_000, seed=5)
    b = equity(["QQ+,AKs", "22+"], exact=False, samples=70_000, seed=5)
    c = equity(["QQ+,AKs", "22+"], exact=False, samples=70_000, seed=6)
    np.testing.assert_array_equal(a.equity, b.equity)
    assert not np.array_equal(a.equity, c.equity)
    d = equity(["QQ+,AKs", "22+"], exact=False, samples=70_000)
    e = equity(["QQ+,AKs", "22+"], exact=False, samples=70_000, seed=d.seed)
    np.testing.assert_array_equal(d.equity, e.equity)


def test_monte_carlo_honours_weights():
    # KK at weight 0.01 barely counts: AA's share against JJ dominates.
    exact = equity(["AA, 0.01(KK)", "JJ"], board="2c 3d 8h", exact=True)
    mc = equity(["AA, 0.01(KK)", "JJ"], board="2c 3d 8h", exact=False, samples=100_000,
                seed=2)
    assert abs(mc.equity[0] - exact.equity[0]) < 4 * mc.stderr[0]


def test_auto_picks_exact_or_monte_carlo():
    assert equity(["AhKh", "QsQd"]).exact
    assert equity(["AhKh", "QQ+,AKs"], board="Kd 7c 2h").exact
    r = equity(["random", "22+"], samples=20_000, seed=1)
    assert not r.exact and r.method == "monte carlo: 20,000 samples"


# --- result object ---------------------------------------------------------------------------

def test_result_object():
    r = equity(["AhKh", "QsQd"], board="2c 7d 9s")
    assert isinstance(r, EquityResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.exact = False
    with pytest.raises(ValueError):
        r.equity[0] = 1.0  # read-only
    np.testing.assert_allclose(r.win + r.tie_share, r.equity)
    text = str(r)
    assert "AhKh" in text and "QsQd" in text and "exact: 990 boards" in text
    d = json.loads(json.dumps(r.to_dict()))
    assert d["wins"] == [237, 753] and d["labels"] == ["AhKh", "QsQd"] and d["exact"] is True
    mc = equity(["AhKh", "QsQd"], exact=False, samples=1000, seed=1)
    assert "stderr" in str(mc) and json.dumps(mc.to_dict())


# --- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("players, kw, error, match", [
    (["AhKh", "AhQh"], {}, ValueError, r"card Ah is used twice: by player 2 \(AhQh\) and "
                                       r"player 1 \(AhKh\)"),
    (["AhKh", "QsQd"], {"board": "Kh 2c 3c"}, ValueError, r"Kh .*player 1.*the board"),
    (["AhKh", "QsQd"], {"dead": "Qd"}, ValueError, r"Qd .*player 2.*the dead cards"),
    (["AhKh", "QsQd"], {"board": "2c 3c 4c", "dead": "3c"}, ValueError,
     r"3c is both on the board and in the dead cards"),
    (["AhKh", "QsQd"], {"board": "2c 3c 3c"}, ValueError, r"card 3c appears twice in the board"),
    (["AhKh", "QsQd"], {"board": "2c 3c"}, ValueError, r"board has 2 cards"),
    (["AhKh", "QsQd"], {"board": "2c"}, ValueError, r"board has 1 card "),
    (["AhKh", "QsQd"], {"board": "2c 3c 4c 5c 6c 7c"}, ValueError, r"board has 6 cards"),
    (["AhKh", "QsQd"], {"board": "2c 3x 4c"}, ValueError, r"the board: unknown card"),
    (["AhKh", "QsQz"], {}, ValueError, r"player 2 \('QsQz'\)"),
    (["AhKh", "QQ++"], {}, ValueError, r"player 2"),
    (["AhKh", ""], {}, ValueError, r"player 2: empty"),
    (["AhKh", "AA"], {"board": "As Ad 2c"}, ValueError,
     r"player 2's range 'AA' is empty after removing"),
    (["AA", "AA", "AA"], {}, ValueError, r"no matchup is possible"),
    (["AA", "AA", "AA"], {"exact": False}, ValueError, r"no matchup is possible"),
    (["AhKh"], {}, ValueError, r"2 to 10 players, got 1"),
    (["AhKh"] * 11, {}, ValueError, r"2 to 10 players, got 11"),
    (["random"] * 10, {"dead": list(range(28))}, ValueError,
     r"too many players for the deck: 10 players need 20 hole cards, plus 5 board cards and "
     r"28 dead cards: 53 > 52"),
    ("AhKh", {}, TypeError, r"players must be a list"),
    (["AhKh", 3.5], {}, TypeError, r"player 2 must be a hand or range"),
    (["AhKh", np.array([1, 2, 3])], {}, ValueError, r"player 2: card ids must have shape"),
    (["AhKh", np.array([5, 5])], {}, ValueError, r"player 2: .*twice"),
    (["AhKh", "QsQd"], {"dead": [52]}, ValueError, r"dead cards: card id 52 is out of range"),
    (["AhKh", "QsQd"], {"exact": "yes"}, TypeError, r"exact must be"),
    (["AhKh", "QsQd"], {"exact": True, "samples": 10}, ValueError, r"samples= applies"),
    (["AhKh", "QsQd"], {"samples": 0}, ValueError, r"samples must be"),
    (["AhKh", "QsQd"], {"seed": -1}, ValueError, r"seed must be"),
    (["AhKh", "Qs2d"], {"game": "shortdeck"}, ValueError,
     r"player 2 .*card 2d is not in the 36-card short deck"),
    (["AhKh", "QsQd"], {"game": "chess"}, ValueError, r"unknown game 'chess'"),
    (["AhKh", "QsQd"], {"backend": "tpu"}, ValueError, r"backend='tpu'"),
    (["AhKh", "QsQd"], {"progress": "yes"}, TypeError, r"progress must be"),
])
def test_bad_input_raises_clearly(players, kw, error, match):
    with pytest.raises(error, match=match):
        equity(players, **kw)


def test_exact_true_warns_when_very_long(monkeypatch):
    import dataclasses

    from gpu_eval.equity_engine.holdem import strategies

    slow = dataclasses.replace(strategies.ENGINE, rates={"numpy": 10.0, "cuda": 10.0})
    monkeypatch.setattr(strategies, "ENGINE", slow)  # pretend the engine is very slow
    with pytest.warns(RuntimeWarning, match=r"exact equity needs about .* exact=False"):
        r = equity(["AhKh", "QQ"], board="2c 7d 9s", exact=True, progress=False)
    assert r.exact


def test_cuda_backend_runs_the_cuda_engine(monkeypatch):
    # tests/equity_engine/holdem/test_cuda_equity.py runs the engine itself (emulated); here: what picks it.
    from gpu_eval.equity_engine.holdem import cuda_engine as cuda_equity
    from gpu_eval.equity_engine.holdem.strategies import engine_for

    monkeypatch.setattr(backend_choice, "resolve", lambda backend, *inputs: "cuda")
    assert engine_for("cuda") == (cuda_equity, "cuda")
    assert engine_for("auto") == (cuda_equity, "cuda")
    monkeypatch.setattr(backend_choice, "resolve", lambda backend, *inputs: "numpy")
    assert engine_for("auto") == (numpy_engine, "numpy")


# --- progress and interrupts -----------------------------------------------------------------

def test_progress_bar_only_when_asked_or_long(capsys):
    equity(["AhKh", "QsQd"], board="2c 7d 9s", progress=True)
    err = capsys.readouterr().err
    assert "equity (exact)" in err and "100.0%" in err and err.endswith("done\n")
    equity(["AhKh", "QsQd"], board="2c 7d 9s")
    equity(["AhKh", "QsQd"], board="2c 7d 9s", progress=False)
    assert capsys.readouterr().err == ""
    assert wanted(None, 100.0) and not wanted(None, 0.1) and not wanted(False, 100.0)


def test_progress_class_draws_and_closes():
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        with Progress(100, "job", unit="boards", stream=out) as bar:
            bar.update(50)
            raise KeyboardInterrupt
    assert "job" in out.getvalue() and out.getvalue().endswith("interrupted\n")
    quiet = io.StringIO()
    with Progress(10, "job", enabled=False, stream=quiet) as bar:
        bar.update(10)
    assert quiet.getvalue() == ""


def test_keyboard_interrupt_stops_cleanly(monkeypatch):
    real = numpy_engine.evaluate_masks
    calls = {"n": 0}
    many = ["AhKh", "22+,A2s+,KTs+"]
    expected = equity(many, exact=True, progress=False).equity
    monkeypatch.setattr(shipped_table, "USE_TABLE", False)  # not the shipped table
    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 10**18)  # enumerate boards

    def flaky(masks, out=None):  # Ctrl-C arrives during the third evaluation of a run
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(masks, out)

    real_heads_up = flush_free_pairs.heads_up

    def flaky_heads_up(*args, **kwargs):  # range vs range by rank pair looks strengths up
        calls["n"] += 1                   # instead of evaluating: its chunks count instead
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real_heads_up(*args, **kwargs)

    monkeypatch.setattr(numpy_engine, "evaluate_masks", flaky)
    monkeypatch.setattr(flush_free_pairs, "heads_up", flaky_heads_up)
    with pytest.raises(KeyboardInterrupt):
        equity(many, exact=True, progress=False)
    calls["n"] = 0
    with pytest.raises(KeyboardInterrupt):
        equity(["AhKh", "QsQd"], exact=False, samples=300_000, seed=1, progress=True)

    # The rank-class path (no board, few matchups) stops too, here at its third matchup.
    real_counts, seen = board_rank_classes.matchup_counts, {"n": 0}

    def interrupted(holes, deck):
        seen["n"] += 1
        if seen["n"] == 3:
            raise KeyboardInterrupt
        return real_counts(holes, deck)

    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 0)  # count by rank class
    monkeypatch.setattr(board_rank_classes, "matchup_counts", interrupted)
    with pytest.raises(KeyboardInterrupt):
        equity(["AhKh", "QQ+,AKs"], exact=True, progress=False)
    monkeypatch.undo()
    # Nothing half-updated is left behind: the same calls now give the exact answers.
    assert equity(["AhKh", "QsQd"]).wins[0] == 787_966
    np.testing.assert_array_equal(equity(many, exact=True, progress=False).equity, expected)


# --- pot units and docstrings ----------------------------------------------------------------

def test_pot_units_make_every_split_whole():
    for n in range(1, 11):
        u = numpy_engine.pot_units(n)
        assert all(u % c == 0 for c in range(1, n + 1))


def test_sampled_boards_avoid_used_cards():
    rng = np.random.default_rng(0)
    used = cards.to_mask(["AsKs"] * 500)
    b = enumerate_boards.sample(rng, 500, enumerate_boards.FULL_DECK, 5, used)
    assert np.all(cards.mask_popcount(b) == 5) and np.all((b & used) == 0)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_sampled_boards_are_uniform_over_the_allowed_subsets(k):
    """Every k-subset of the deck minus each row's used cards is equally likely: a chi-square
    test over all of them (pairs, single cards and whole-row rejection all take part)."""
    from itertools import combinations
    from math import comb

    deck_ids = [0, 5, 9, 14, 22, 30, 41, 51]
    deck = int(np.bitwise_or.reduce(cards.ID_TO_MASK[deck_ids]))
    n = 20_000 * comb(7, k)
    rng = np.random.default_rng(11)
    # Half the rows may not use card 22, the other half may not use card 51.
    used = np.where(np.arange(n) % 2 == 0, cards.ID_TO_MASK[22], cards.ID_TO_MASK[51])
    b = enumerate_boards.sample(rng, n, deck, k, used)
    assert np.all(cards.mask_popcount(b) == k) and np.all((b & used) == 0)
    assert np.all((b & ~np.uint64(deck)) == 0)
    for half, banned in ((0, 22), (1, 51)):
        allowed = [c for c in deck_ids if c != banned]
        subsets = [int(np.bitwise_or.reduce(cards.ID_TO_MASK[list(s)]))
                   for s in combinations(allowed, k)]
        got = b[half::2]
        counts = np.array([np.count_nonzero(got == s) for s in subsets])
        assert counts.sum() == len(got)          # nothing outside the allowed subsets
        expected = len(got) / len(subsets)
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        dof = len(subsets) - 1
        assert chi2 < dof + 6 * np.sqrt(2 * dof), (half, chi2, dof)


def test_few_rows_draw_the_same_boards_as_the_tables(monkeypatch):
    """A draw of few rows picks its pairs and cards by ``v % count``, a large one by the 65,536-
    entry tables (the uniformity test above runs on those): the same seed gives the same boards
    either way, on decks of 1 to 52 cards, every k, with and without used cards."""
    rng = np.random.default_rng(3)
    for trial in range(120):
        deck_ids = rng.choice(52, int(rng.integers(1, 53)), replace=False)
        deck = int(np.bitwise_or.reduce(cards.ID_TO_MASK[deck_ids]))
        k = int(rng.integers(0, min(6, len(deck_ids)) + 1))
        n = int(rng.choice([1, 9, 400]))
        used = None if trial % 2 else np.zeros(n, np.uint64)
        by_items = enumerate_boards.sample(np.random.default_rng(trial), n, deck, k, used)
        monkeypatch.setattr(enumerate_boards, "_TABLE_ROWS", 0)
        by_tables = enumerate_boards.sample(np.random.default_rng(trial), n, deck, k, used)
        monkeypatch.undo()
        np.testing.assert_array_equal(by_items, by_tables, err_msg=f"trial {trial}")


@pytest.mark.parametrize("module", ["gpu_eval.equity_engine.api",
                                    "gpu_eval.equity_engine.holdem.numpy_engine",
                                    "gpu_eval.equity_engine.enumerate_boards", "gpu_eval.progress"])
def test_docstring_examples_run(module):
    mod = importlib.import_module(module)
    failures, tried = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0


def test_fractions_of_brute_force_are_exact():
    # The reference itself: on a river board there is one completion and shares are exact.
    wins, ties, shares, nb = ref.showdowns([ref.ids("2c3d"), ref.ids("4h5s")],
                                           ref.ids("As Ks Qs Js Ts"))
    assert nb == 1 and shares == [Fraction(1, 2), Fraction(1, 2)]


# --- exact preflop by rank class (the NumPy fast path) ----------------------------------------

@pytest.mark.parametrize("seed", range(8))
def test_rank_classes_match_board_enumeration(seed):
    """Counting boards by rank class gives the very integers that playing every board gives:
    2 to 4 players, random hands (suited, paired, sharing suits), some dead cards."""
    rng = np.random.default_rng(100 + seed)
    n = (2, 2, 3, 4)[seed % 4]
    ids = rng.permutation(52)[:2 * n + seed % 3]
    holes = [int(cards.to_mask(ids[2 * p:2 * p + 2])) for p in range(n)]
    deck = enumerate_boards.FULL_DECK & ~int(cards.to_mask(ids))
    wins, ties, units, boards = board_rank_classes.matchup_counts(holes, deck)
    c = numpy_engine.showdown_counts(np.array(holes, dtype=np.uint64), np.arange(n)[None, :],
                                      enumerate_boards.completions(deck, 5))
    assert boards == c.valid[0]
    np.testing.assert_array_equal(wins, c.wins[0])
    np.testing.assert_array_equal(ties, c.ties[0])
    np.testing.assert_array_equal(units, c.units[0])


def test_rank_classes_cover_flush_heavy_hands():
    """Two suited hands of the same suit, and a hand holding two suits the other lacks."""
    for a, b in (("AhKh", "QhJh"), ("7s6s", "As2s"), ("AhKd", "QhQd")):
        holes = [int(cards.to_mask(a)), int(cards.to_mask(b))]
        deck = enumerate_boards.FULL_DECK & ~(holes[0] | holes[1])
        w, t, _, boards = board_rank_classes.matchup_counts(holes, deck)
        c = numpy_engine.showdown_counts(np.array(holes, dtype=np.uint64), np.array([[0, 1]]),
                                          enumerate_boards.completions(deck, 5))
        assert boards == 1_712_304
        np.testing.assert_array_equal(w, c.wins[0])
        np.testing.assert_array_equal(t, c.ties[0])


def test_equity_by_rank_class_equals_equity_by_board(monkeypatch):
    players = ["AhKh", "QQ+,AKs"]
    table = equity(players, exact=True, backend="numpy", progress=False)
    assert table.method == "exact (table): 15 matchups x 1,712,304 boards"
    monkeypatch.setattr(shipped_table, "USE_TABLE", False)  # the engines, not the table
    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 0)  # count by rank class
    fast = equity(players, exact=True, backend="numpy", progress=False)
    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 10**18)  # enumerate boards
    slow = equity(players, exact=True, backend="numpy", progress=False)
    assert fast.method == slow.method == "exact: 15 matchups x 1,712,304 boards"
    np.testing.assert_allclose(fast.equity, slow.equity, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast.win, slow.win, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(fast.wins, slow.wins)
    np.testing.assert_array_equal(fast.ties, slow.ties)
    assert fast.wins.sum() + fast.ties.sum() // 2 == 15 * 1_712_304
    np.testing.assert_array_equal(table.wins, slow.wins)
    np.testing.assert_array_equal(table.ties, slow.ties)
    np.testing.assert_allclose(table.equity, slow.equity, rtol=0, atol=1e-12)


def test_multiway_ranges_by_rank_class_equal_boards(monkeypatch):
    """Three players with ranges and a dead card: both exact ways give the same integers."""
    players, dead = ["AhKh", "QQ", "JTs"], "2c"
    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 0)  # count by rank class
    fast = equity(players, dead=dead, exact=True, backend="numpy", progress=False)
    monkeypatch.setattr(numpy_engine, "PREFLOP_CLASS_WORK", 10**18)  # enumerate boards
    slow = equity(players, dead=dead, exact=True, backend="numpy", progress=False)
    assert fast.method == slow.method and fast.matchups == slow.matchups > 1
    np.testing.assert_array_equal(fast.wins, slow.wins)
    np.testing.assert_array_equal(fast.ties, slow.ties)
    np.testing.assert_allclose(fast.equity, slow.equity, rtol=0, atol=1e-12)
