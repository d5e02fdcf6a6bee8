"""``evaluate`` of the games without a board (issue 27: the registry says apart which evaluator
plays a hand and which deal shape a game has): stud's best high five of 5 to 7 cards, razz's
best A-5 low, stud hi/lo's pair of both, the draw games' finished hands. Each against a slow
reference written here: the best of every five-card subset, through the five-card evaluators."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.games import registry


def _deals(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


def _best_of_fives(hands: np.ndarray, game: str) -> np.ndarray:
    """The best strength over every 5-card subset of each hand (the rules, written out)."""
    subsets = list(combinations(range(hands.shape[1]), 5))
    fives = hands[:, subsets].reshape(-1, 5)
    return np.asarray(ge.evaluate(fives, game=game)).reshape(len(hands), -1).max(axis=1)


@pytest.mark.parametrize("k", [5, 6, 7])
def test_stud_is_the_best_high_five(k):
    hands = _deals(400, k, k)
    got = ge.evaluate(hands, game="stud")
    np.testing.assert_array_equal(got, _best_of_fives(hands, "holdem"))
    assert got.dtype == np.uint16 and got.dtype.metadata is None  # the hold'em scale


@pytest.mark.parametrize("k", [5, 6, 7])
def test_razz_is_the_best_ace_five_low(k):
    hands = _deals(400, k, 10 + k)
    got = ge.evaluate(hands, game="razz")
    np.testing.assert_array_equal(got, _best_of_fives(hands, "ace-five"))
    assert registry.tag_of(got) == "razz"
    assert ge.describe(ge.evaluate("Ah2h3h4h5hKsKc", game="razz")) == "5-4-3-2-A"


def test_stud_hilo_is_the_high_and_the_eight_or_better_low():
    hands = _deals(300, 7, 3)
    high, low = ge.evaluate(hands, game="stud-hilo")
    np.testing.assert_array_equal(high, ge.evaluate(hands, game="stud"))
    np.testing.assert_array_equal(low, ge.evaluate_low(hands))
    h, lo = ge.evaluate("Ah2h3h4c9sKsKc", game="stud-hilo")  # four low cards: no low
    assert ge.describe(h) == "Pair, Kings, Ace Nine Four kickers" and int(lo) == 0
    h, lo = ge.evaluate("Ah2h3h4c5sKsKc", game="stud-hilo")  # the wheel both ways
    assert ge.describe(h) == "Straight, Five high" and int(lo) == 56
    with pytest.raises(ValueError, match="invalid='mask' applies to one scale"):
        ge.evaluate(hands, game="stud-hilo", invalid="mask")


@pytest.mark.parametrize("game, low, k", [("five-card-draw", "holdem", 5),
                                          ("deuce-seven-draw", "deuce-seven", 5),
                                          ("badugi-draw", "badugi", 4)])
def test_draw_games_evaluate_a_finished_hand(game, low, k):
    hands = _deals(500, k, 7)
    np.testing.assert_array_equal(ge.evaluate(hands, game=game), ge.evaluate(hands, game=low))


@pytest.mark.parametrize("game, hand, sizes", [
    ("stud", "AhKhQh2c", "5 to 7"), ("stud", "AhKhQh2c3c4d5s9d", "5 to 7"),
    ("razz", "Ah2h3h4h", "5 to 7"), ("five-card-draw", "AhKhQhJhThTc", "5 to 5"),
    ("badugi-draw", "Ac2d3h", "4 to 4"),
])
def test_a_hand_of_the_wrong_size_is_named(game, hand, sizes):
    with pytest.raises(ValueError, match=rf"hand '{hand}': \d cards; this game takes {sizes}"):
        ge.evaluate(hand, game=game)


def test_the_registry_says_evaluator_and_deal_apart():
    g = registry.GAMES
    assert (g["stud"].evaluator, g["stud"].deal) == ("holdem", registry.OWN_CARDS)
    assert (g["razz"].evaluator, g["badugi-draw"].evaluator) == ("ace-five", "badugi")
    assert (g["omaha"].evaluator, g["omaha"].deal) == ("omaha", registry.BOARD)
    assert [g[n].engine for n in ("holdem", "shortdeck", "courchevel", "stud", "ace-five")] == \
        ["holdem", "board games", "board games", "deals", ""]
    assert registry.names("holdem", deal=registry.BOARD) == ("holdem",)


def test_a_hand_evaluator_is_no_equity_game():
    with pytest.raises(ValueError, match="'badugi' is a hand evaluator .* 'badugi-draw'"):
        ge.equity(["Ac2d3h", "4s5h6c"], game="badugi")


def test_stud_on_the_stand_in_device_equals_numpy(stand_in_cupy):
    hands = _deals(200, 7, 11)
    got = ge.evaluate(stand_in_cupy.asarray(hands), game="stud")
    np.testing.assert_array_equal(np.asarray(got), ge.evaluate(hands, game="stud",
                                                              backend="numpy"))
