"""Every bad input raises a clear error naming the hand and the reason; or is masked to 0."""

import numpy as np
import pytest

import gpu_eval as ge


@pytest.mark.parametrize("hands,match", [
    ("AsKsQsJsXs", r"unknown card text 'Xs'"),
    ("AsKsQsJs1s", r"unknown card text"),
    ("AsKsQsJsAs", r"card As is used twice"),
    (["AsKsQsJsTs", "2c2c3c4c5c"], r"card 2c is used twice .*row 1"),
    ("AsKsQsJs", r"4 cards; this game takes 5 to 9"),
    ("AsKsQsJsTs9s8s7s6s5s", r"10 cards"),
    (np.array([[0, 1, 2, 3, 60, 5, 6]]), r"row 0.*card id 60 is out of range 0..51"),
    (np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, -1]]), r"row 1.*card id -1 is out of range"),
    (np.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 8]]), r"hand 3d3h3s4c4c \(row 1\): a card is used twice"),
    (np.array([0x1FFF | (1 << 13)], dtype=np.uint64), r"row 0.*bits set outside the 52 card"),
    (np.array([0b11111], dtype=np.uint64), r"row 0.*1 cards|row 0.*5 cards"),
    (np.zeros((2, 3, 5), np.uint8), r"shape"),
    (np.array([[1 << 14 | 1 << 13, 65537, 65538, 65540, 65544]]), None),
])
def test_bad_hands_raise_value_error(hands, match):
    if match is None:  # DeadHorse: a card with two suit bits
        with pytest.raises(ValueError, match=r"row 0: 24576 is not a DeadHorse card"):
            ge.evaluate(hands, encoding="deadhorse")
        return
    if isinstance(hands, np.ndarray) and hands.dtype == np.uint64 and hands[0] == 0b11111:
        # five distinct 2..6 of clubs is a valid hand: not an error
        assert int(ge.evaluate(hands)[0]) > 0
        return
    with pytest.raises(ValueError, match=match):
        ge.evaluate(hands, backend="numpy")


@pytest.mark.parametrize("hands", [np.array([[0.0, 1, 2, 3, 4]]), [[None] * 5], 3.5,
                                   np.array(["As", "Kd"])])
def test_wrong_types_raise_type_error(hands):
    with pytest.raises(TypeError):
        ge.evaluate(hands)


def test_bad_keywords():
    with pytest.raises(ValueError, match="unknown game 'pineapple'"):
        ge.evaluate("AsKsQsJsTs", game="pineapple")
    with pytest.raises(ValueError, match="backend='gpu'"):
        ge.evaluate("AsKsQsJsTs", backend="gpu")
    with pytest.raises(ValueError, match="invalid='drop'"):
        ge.evaluate("AsKsQsJsTs", invalid="drop")
    with pytest.raises(ValueError, match="encoding='bits'"):
        ge.evaluate(np.zeros((1, 5), np.uint8), encoding="bits")


def test_mask_mode_zeroes_exactly_the_invalid_rows():
    rng = np.random.default_rng(0)
    ids = np.argsort(rng.random((1000, 52)), axis=1)[:, :7].astype(np.int16)
    good = ge.evaluate(ids)
    good_ids = ids.copy()
    bad_rows = [3, 17, 500, 999]
    ids[3, 2] = ids[3, 5]      # duplicate card
    ids[17, 0] = 52            # out of range
    ids[500, 6] = -3           # negative
    ids[999, 1] = ids[999, 0]  # duplicate card
    before = ids.copy()
    got = ge.evaluate(ids, invalid="mask")
    assert (ids == before).all(), "the input must not be modified"
    expected = good.copy()
    expected[bad_rows] = 0
    assert (got == expected).all()
    with pytest.raises(ValueError, match=r"row 17\): card id 52 is out of range"):
        ge.evaluate(ids)
    ids[[17, 500]] = good_ids[[17, 500]]
    with pytest.raises(ValueError, match=r"\(row 3\): a card is used twice"):
        ge.evaluate(ids)


def test_mask_mode_on_masks_and_text():
    masks = ge.cards.to_mask(["AsKsQsJsTs", "2c3c4c5c7d"])
    bad = np.array([masks[0], masks[1] | np.uint64(1 << 15), np.uint64(0b111)], dtype=np.uint64)
    got = ge.evaluate(bad, invalid="mask")
    assert got.tolist() == [7462, 0, 0]
    got = ge.evaluate(["AsKsQsJsTs", "AsAsQsJsTs", "AsKsQsJsZz", "AsKs"], invalid="mask")
    assert got.tolist() == [7462, 0, 0, 0]
