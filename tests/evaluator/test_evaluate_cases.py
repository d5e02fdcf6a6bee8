"""Random k-card hands against the reference, and hand-picked edge cases."""

from math import comb

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import combinatorics

import reference


@pytest.fixture(scope="module")
def key_to_strength():
    """Map reference keys to strengths using all 5-card hands (every class appears there)."""
    ids = combinatorics.unrank(np.arange(comb(52, 5)), 5)
    key = reference.key5(ids)
    uniq, first = np.unique(key, return_index=True)
    return uniq, ge.evaluate(ids[first], backend="numpy")


def random_hands(n, k, seed):
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


@pytest.mark.parametrize("k,n", [(6, 60000), (7, 40000), (8, 15000), (9, 6000)])
@pytest.mark.parametrize("algorithm", ["bitmask", "perfect-hash"])
def test_random_hands_match_best_of_all_five_card_subsets(k, n, algorithm, key_to_strength):
    uniq, strengths = key_to_strength
    ids = random_hands(n, k, seed=k)
    expected = strengths[np.searchsorted(uniq, reference.best_key(ids))]
    got = ge.evaluate(ids, backend="numpy", algorithm=algorithm)
    assert (got == expected).all()
    # Masks, shuffled columns and text give the same answer.
    assert (ge.evaluate(ge.cards.to_mask(ids), backend="numpy") == expected).all()
    shuffled = ids[:, np.random.default_rng(1).permutation(k)]
    assert (ge.evaluate(shuffled, backend="numpy") == expected).all()
    assert (ge.evaluate(ge.cards.format(ids[:50], sep=" "), backend="numpy") == expected[:50]).all()


def ev(text):
    return int(ge.evaluate(text, backend="numpy"))


def test_wheel_and_steel_wheel():
    assert ge.describe(ev("Ac 2d 3h 4s 5c")) == "Straight, Five high"
    assert ev("Ac 2d 3h 4s 5c") == 5854  # the lowest straight
    assert ge.describe(ev("Ah 2h 3h 4h 5h")) == "Straight Flush, Five high"
    assert ev("Ah 2h 3h 4h 5h") == 7453  # the lowest straight flush
    assert ev("6c 2d 3h 4s 5c") > ev("Ac 2d 3h 4s 5c")  # six-high beats the wheel
    assert ev("6h 2h 3h 4h 5h") > ev("Ah 2h 3h 4h 5h")
    # an ace with 2-3-4-5 and a 6: the six-high straight plays
    assert ge.describe(ev("Ac 2d 3h 4s 5c 6d 9h")) == "Straight, Six high"


def test_three_pairs_play_the_best_two_and_the_best_kicker():
    s = ev("Ac Ad Kc Kd Qc Qd 2s")
    assert ge.describe(s) == "Two Pair, Aces and Kings, Queen kicker"
    assert s == ev("Ac Ad Kc Kd Qs")


def test_two_trips_make_a_full_house():
    s = ev("9c 9d 9h 5c 5d 5h Ks")
    assert ge.describe(s) == "Full House, Nines full of Fives"
    assert s == ev("9c 9d 9h 5c 5d")


def test_flush_and_straight_in_the_same_seven_cards():
    s = ev("2h 7h 9h Jh Kh Tc 8d")
    assert ge.category(s) == 5
    assert ge.describe(s) == "Flush, King high, Jack Nine Seven Two"


def test_straight_flush_hidden_in_six_suited_cards():
    s = ev("4s 5s 6s 7s 8s Ks 2c")
    assert ge.describe(s) == "Straight Flush, Eight high"
    assert ev("Ts Js Qs Ks As 9s") == 7462  # royal flush among six spades
    assert ge.describe(7462) == "Royal Flush"


def test_quads_with_a_pair_vs_quads_with_a_higher_single():
    with_pair = ev("7c 7d 7h 7s 5c 5d 2h")
    with_high_single = ev("7c 7d 7h 7s 5c Kd 2h")
    assert with_high_single > with_pair
    assert ge.describe(with_pair) == "Four of a Kind, Sevens, Five kicker"
    assert ge.describe(with_high_single) == "Four of a Kind, Sevens, King kicker"


def test_eight_and_nine_card_specials():
    # two quads in 8 cards: the higher quads play with the other rank as kicker
    assert ge.describe(ev("7c 7d 7h 7s 9c 9d 9h 9s")) == "Four of a Kind, Nines, Seven kicker"
    # flush and full house in 8 cards: the full house wins
    assert ge.describe(ev("Ah Kh 9h 5h 2h Ac Ad Kc")) == "Full House, Aces full of Kings"
    # three trips in 9 cards
    assert ge.describe(ev("2c 2d 2h 3c 3d 3h 4c 4d 4h")) == "Full House, Fours full of Threes"


def test_scalar_and_list_shapes():
    assert ge.evaluate("AsKsQsJsTs").shape == ()
    assert ge.evaluate(["AsKsQsJsTs"]).shape == (1,)
    assert ge.evaluate(np.zeros((0, 7), np.uint8)).shape == (0,)
    assert ge.evaluate(np.array([51, 47, 43, 39, 35])).shape == ()
    # hands of different sizes in one list of text
    got = ge.evaluate(["AsKsQsJsTs", "2c3d4h5s7c 9d", "AcAd AhAs 2c 3c 4d 5c 6d"])
    assert got.tolist() == [7462, ev("2c3d4h5s7c9d"), ev("AcAdAhAs6d")]


def test_deadhorse_encoding_matches_ids():
    ids = random_hands(1000, 7, seed=3)
    dh = ge.cards.to_deadhorse(ids)
    assert dh.dtype == np.int32
    assert (ge.evaluate(dh, encoding="deadhorse") == ge.evaluate(ids)).all()


def test_inputs_are_not_mutated():
    ids = random_hands(5000, 7, seed=4)
    before = ids.copy()
    masks = ge.cards.to_mask(ids)
    mbefore = masks.copy()
    ge.evaluate(ids)
    ge.evaluate(masks)
    assert (ids == before).all() and (masks == mbefore).all()
