"""The strength scale: categories, Cactus Kev ranks, the seed's 30-bit value, descriptions."""

import numpy as np
import pytest

import gpu_eval as ge

ALL = np.arange(1, 7463)


def test_value_is_a_monotone_bijection():
    values = ge.to_value(ALL).astype(np.int64)
    assert (np.diff(values) > 0).all(), "value must order classes exactly as strength does"
    assert (ge.from_value(values) == ALL).all()
    assert (values >> 26).max() == 8


def test_value_matches_the_seed_examples():
    # seed 000: Aces and Fives with a Two kicker = 167837697; Nines and Eights, Jack = 135791104
    assert int(ge.to_value(ge.evaluate("5c Ad 5h 2c Ac"))) == 167837697
    assert int(ge.to_value(ge.evaluate("9s 9h 8h Jc 8d"))) == 135791104


def test_value_errors():
    with pytest.raises(ValueError, match="not the value of any hand class"):
        ge.from_value(12345)
    with pytest.raises(ValueError, match="outside the hold'em scale"):
        ge.to_value(7463)


def test_cactus_kev_round_trip_and_ends():
    assert ge.to_cactus_kev(7462) == 1 and ge.to_cactus_kev(1) == 7462
    assert (ge.from_cactus_kev(ge.to_cactus_kev(ALL)) == ALL).all()
    with pytest.raises(ValueError, match="Cactus Kev rank 0"):
        ge.from_cactus_kev(0)


def test_categories_are_contiguous_blocks():
    cats = ge.category(ALL)
    assert (np.diff(cats.astype(int)) >= 0).all()
    assert np.bincount(cats).tolist() == [1277, 2860, 858, 858, 10, 1277, 156, 156, 10]


def test_descriptions_are_unique_and_named():
    names = ge.describe(ALL)
    assert len(set(names)) == 7462
    assert names[-1] == "Royal Flush"
    assert names[0] == "High Card, Seven high, Five Four Three Two kickers"
    assert ge.describe(0) == "no valid hand"
    assert ge.describe(ge.evaluate("KsKdKh7c7d")) == "Full House, Kings full of Sevens"


def test_strength_type_errors():
    with pytest.raises(TypeError):
        ge.category(1.5)
    with pytest.raises(ValueError, match="game 'omaha9'"):
        ge.category(1, game="omaha9")
