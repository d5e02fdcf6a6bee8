"""Card encodings and conversions."""

import numpy as np
import pytest

from gpu_eval import cards


def test_ids_follow_the_design_convention():
    assert cards.parse("2c").tolist() == [0]
    assert cards.parse("As").tolist() == [51]
    assert cards.parse("Td Jh").tolist() == [4 * 8 + 1, 4 * 9 + 2]


@pytest.mark.parametrize("text", ["AsKd", "As Kd", "As,Kd", "as kd", "A♠K♦", "AS, KD"])
def test_text_forms(text):
    assert cards.parse(text).tolist() == [51, 45]


def test_ten_alias_and_format_round_trip():
    assert cards.parse("10h").tolist() == cards.parse("Th").tolist()
    all_ids = np.arange(52, dtype=np.uint8)
    text = cards.format(all_ids, sep=" ")
    assert (cards.parse(text) == all_ids).all()


def test_mask_layout_and_round_trip():
    assert int(cards.to_mask("2c")) == 1
    assert int(cards.to_mask("As")) == 1 << (16 * 3 + 12)
    ids = np.array([[0, 51, 17, 30, 44]], dtype=np.uint8)
    m = cards.to_mask(ids)
    assert (cards.from_mask(m) == np.sort(ids, axis=1)).all()
    assert int(cards.mask_popcount(m)[0]) == 5
    # order-free and OR-combinable
    assert cards.to_mask("AhKh") | cards.to_mask("Qh") == cards.to_mask("QhKhAh")


def test_deadhorse_values_from_the_seed():
    assert cards.to_deadhorse("2s").tolist() == [65537]
    assert cards.to_deadhorse("Ad").tolist() == [12288]
    assert cards.to_deadhorse("5c").tolist() == [16392]
    assert cards.to_deadhorse("As").tolist() == [69632]
    ids = np.arange(52, dtype=np.uint8)
    assert (cards.from_deadhorse(cards.to_deadhorse(ids)) == ids).all()


@pytest.mark.parametrize("bad,match", [("Zs", "unknown card"), ("A", "unknown card"),
                                       ("AsAs", "used twice"), ("Jk", "joker")])
def test_parse_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        cards.parse(bad)


def test_conversion_errors():
    with pytest.raises(ValueError, match="out of range"):
        cards.to_mask(np.array([0, 52]))
    with pytest.raises(ValueError, match="row 1"):
        cards.to_mask(np.array([[0, 1], [2, 2]]))
    with pytest.raises(ValueError, match="outside the 52 card positions"):
        cards.from_mask(np.array([1 << 13], dtype=np.uint64))
    with pytest.raises(ValueError, match="not a DeadHorse card"):
        cards.from_deadhorse([3])
    with pytest.raises(TypeError):
        cards.to_mask(np.array([0.5]))


def test_joker_is_id_52_when_allowed():
    assert cards.parse("Jk", allow_joker=True).tolist() == [52]
    assert cards.parse("xx", allow_joker=True).tolist() == [52]
