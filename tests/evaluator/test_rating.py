"""Seed 004's 16-bit rating: the issue's fixed values, round trips, order and hand types."""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.rating import HAND_TYPES, ROYAL_FLUSH, from_rating, hand_type, to_rating

HOLDEM_CASES = [
    ("As Ks Qs Js Ts", 0xEC00),   # royal flush
    ("5h 4h 3h 2h Ah", 0xE300),   # 5-high straight flush
    ("Ac Ad Ah As Kc", 0xE0CB),   # AAAA + K
    ("Ac Ad Ah Kc Kd", 0xDFCB),   # AAA + KK
    ("Ad Kd Qd Jd 9d", 0xBE80),   # flush AKQJ9
    ("Ac Kd Qh Js Tc", 0x800C),   # A-high straight
    ("5c 4d 3h 2s Ac", 0x8003),   # wheel
    ("Ac Ad Ah Kc Qd", 0x6C41),   # AAA + K + Q
    ("Ac Ad Kh Kc Qd", 0x44DA),   # AA + KK + Q
    ("Ac Ad Kh Qc Jd", 0x38DB),   # AA + K + Q + J
    ("Ac Kd Qh Jc 9d", 0x1E80),   # high card AKQJ9
]
SHORT_CASES = [
    ("As Ks Qs Js 9s", 0xFE80),   # flush AKQJ9
    ("Ac Ad Ah Kc Kd", 0xBFCB),   # AAA + KK
]


@pytest.mark.parametrize("hand, rating", HOLDEM_CASES)
def test_fixed_holdem_values(hand, rating):
    s = ge.evaluate(hand)
    assert int(to_rating(s)) == rating
    assert int(from_rating(rating)) == int(s)
    assert int(to_rating(s, game="omaha")) == rating  # Omaha: the same scale


@pytest.mark.parametrize("game", ["shortdeck", "shortdeck-triton"])
@pytest.mark.parametrize("hand, rating", SHORT_CASES)
def test_fixed_shortdeck_values(hand, rating, game):
    s = ge.evaluate(hand, game=game)
    assert int(to_rating(s)) == rating            # the dtype's tag says short deck
    back = from_rating(rating, game=game)
    assert int(back) == int(s) and back.dtype.metadata["game"] == game


def test_holdem_round_trip_and_order():
    s = np.arange(1, 7463)
    r = to_rating(s)
    assert r.dtype == np.uint16
    assert (np.diff(r.astype(np.int64)) > 0).all()  # strictly increasing with strength
    assert np.array_equal(from_rating(r), s)


@pytest.mark.parametrize("game", ["shortdeck", "shortdeck-triton"])
def test_shortdeck_round_trip(game):
    s = np.arange(1, 1405)
    r = to_rating(s, game=game)
    assert len(np.unique(r)) == 1404
    assert np.array_equal(from_rating(r, game=game), s)


def test_shortdeck_ratings_do_not_order_as_integers():
    flush = ge.evaluate("As Ks Qs Js 9s", game="shortdeck")
    quads = ge.evaluate("Ac Ad Ah As Kc", game="shortdeck")
    assert int(flush) < int(quads) and int(to_rating(flush)) > int(to_rating(quads))


def test_shortdeck_games_share_ratings():
    # The same class (e.g. a straight) has one rating and each game's own strength.
    s = ge.evaluate("As 6d 7c 8h 9s", game="shortdeck")
    t = ge.evaluate("As 6d 7c 8h 9s", game="shortdeck-triton")
    assert int(to_rating(s)) == int(to_rating(t)) == 0x8007   # nine high
    assert int(from_rating(0x8007, game="shortdeck")) == int(s) != int(t)


@pytest.mark.parametrize("game", ["holdem", "shortdeck", "shortdeck-triton"])
def test_hand_type_of_every_class(game):
    n = 7462 if game == "holdem" else 1404
    s = np.arange(1, n + 1)
    r = to_rating(s, game=game)
    cat = ge.category(s, game=game)
    expected = np.where(np.array(ge.describe(s, game=game)) == "Royal Flush", ROYAL_FLUSH, cat)
    assert (expected == ROYAL_FLUSH).sum() == 1
    assert np.array_equal(hand_type(r), expected)            # decoded without the game
    assert np.array_equal(hand_type(r, game=game), expected)
    assert HAND_TYPES[int(hand_type(0xEC00))] == "RoyalFlush"


def test_bad_input():
    with pytest.raises(ValueError, match="0x0000 at index"):
        from_rating([0xEC00, 0])
    with pytest.raises(ValueError, match=r"0xbfcb at index \(1,\)"):
        from_rating([0xEC00, 0xBFCB])                        # a short-deck code
    with pytest.raises(ValueError, match="0xdfcb"):
        from_rating(0xDFCB, game="shortdeck")                # a hold'em code
    with pytest.raises(ValueError, match="outside"):
        to_rating([1, 7463])
    with pytest.raises(ValueError, match="wild"):
        to_rating(7475, game="wild")
    with pytest.raises(ValueError, match="dtype says"):
        to_rating(ge.evaluate("As Ks Qs Js 9s", game="shortdeck"), game="holdem")
    with pytest.raises(TypeError, match="float"):
        to_rating([1.0])
    with pytest.raises(ValueError, match="0x10000"):
        hand_type(0x10000)
    with pytest.raises(ValueError, match="0xbfcb"):
        hand_type(0xBFCB, game="holdem")
    s = np.array([1, 2, 3])
    to_rating(s)
    assert s.tolist() == [1, 2, 3]


def test_docstring_examples_run():
    import doctest

    import gpu_eval.rating as mod
    failures, tried = doctest.testmod(mod)
    assert tried > 0 and failures == 0
