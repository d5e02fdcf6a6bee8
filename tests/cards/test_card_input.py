"""The one reader of card inputs (gpu_eval.card_input): every array kind, every integer width,
values checked before any cast, floats and bools refused, errors that say where and why."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from array_objects import DLPackOnly

from gpu_eval import card_input
from gpu_eval.card_input import (
    card_ids,
    card_masks,
    card_rows,
    card_set,
    indices,
    integer_array,
    whole_number,
)

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
WIDE_DTYPES = [d for d in INT_DTYPES if np.iinfo(d).max >= 304]


def test_module_examples_run():
    failures, tried = doctest.testmod(card_input)
    assert tried and not failures


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_every_integer_width_reads_the_same_ids(dtype):
    rows = np.array([[51, 0, 27], [3, 4, 5]], dtype=dtype)
    got = card_ids(rows, "hands")
    assert got.dtype == np.uint8 and got.tolist() == [[51, 0, 27], [3, 4, 5]]


@pytest.mark.parametrize("dtype", WIDE_DTYPES)
def test_an_id_past_the_deck_is_refused_before_the_cast(dtype):
    # 304 % 256 == 48 (Ac): a cast first would read it as a card.
    with pytest.raises(ValueError, match=r"^boards, row 1: card id 304 is out of range 0\.\.51$"):
        card_ids(np.array([[0, 1, 2], [3, 304, 5]], dtype=dtype), "boards")


@pytest.mark.parametrize("value", [-1, -128, 52, 256, 2**63 - 1, 2**64 - 1, 2**70, -(2**70)])
def test_python_lists_name_any_bad_int_as_given(value):
    with pytest.raises(ValueError, match=rf"^dead, row 0: card id {value} is out of range"):
        card_ids([[1, value]], "dead")


def test_mixed_python_ints_numpy_would_make_float_are_still_ints():
    # NumPy reads [2**64 - 1, -1] as float64: the reader reads the ints themselves.
    with pytest.raises(ValueError, match=r"card id 18446744073709551615 is out of range"):
        card_ids([2**64 - 1, 1], "the hand")
    assert integer_array([2**63, 1], "x").dtype == object  # never uint64: that means masks
    assert integer_array([2**64 - 1], "x").dtype == object
    assert integer_array([np.uint64(5)], "x").dtype == np.uint64  # the caller's own uint64
    assert integer_array([np.uint64(5), -1], "x").tolist() == [5, -1]


@pytest.mark.parametrize("bad,got", [
    (True, "the bool True"),
    (np.bool_(False), "the bool False"),
    (48.7, "the float 48.7"),
    (np.float32(1), "the float32 1.0"),
    (float("nan"), "the float nan"),
    (1j, "the complex 1j"),
    ("As", "the text 'As'"),
    (None, "a NoneType"),
    (object(), "a object"),
    (np.array([[1.0, 2.0]]), "dtype float64"),
    (np.array([True, False]), "dtype bool"),
    (np.array([np.nan]), "dtype float64"),
    (np.array(["As"]), "dtype <U2"),
    ([[1, True]], "the bool True at index (0, 1)"),
    ([[48.7, 1]], "the float 48.7 at index (0, 0)"),
    ([1, None], "a NoneType at index (1,)"),
    ([2**70, 0.5], "the float 0.5 at index (1,)"),
    (np.array([1, True], dtype=object), "the bool True at index (1,)"),
    (["As", 5], "text inside a list"),
])
def test_no_bools_floats_or_objects(bad, got):
    with pytest.raises(TypeError) as err:
        card_ids(bad, "the board")
    assert str(err.value).startswith("the board must be integer card ids, got " + got), \
        str(err.value)


def test_zero_d_and_empty():
    assert card_ids(np.uint8(5), "x").shape == () and int(card_ids(7, "x")) == 7
    assert card_ids([], "x").shape == (0,)
    assert card_ids([[]], "x").shape == (1, 0)
    assert card_ids(np.zeros((0, 3), np.int64), "x").shape == (0, 3)
    with pytest.raises(ValueError, match=r"^x: card id 52 is out of range 0\.\.51$"):
        card_ids(np.int64(52), "x")


def test_ragged_lists_are_a_clear_value_error():
    with pytest.raises(ValueError, match=r"^hands: rows of different lengths"):
        card_ids([[1, 2], [3]], "hands")


def test_the_place_names_spot_and_player():
    hands = np.zeros((3, 2, 2), dtype=np.uint64)
    hands[2, 1, 1] = 300
    with pytest.raises(ValueError, match=r"^hands, spot 2, player 2: card id 300 is out"):
        card_ids(hands, "hands", axes=("spot", "player"))


def test_dlpack_arrays_are_read_without_a_cast():
    ids = np.array([[51, 304]], dtype=np.int16)
    with pytest.raises(ValueError, match="card id 304"):
        card_ids(DLPackOnly(ids), "boards")
    assert card_ids(DLPackOnly(ids[:, :1]), "boards").tolist() == [[51]]
    assert card_ids([DLPackOnly(ids[0, :1]), DLPackOnly(ids[0, :1])], "rows").tolist() == \
        [[51], [51]]
    with pytest.raises(TypeError, match="dtype float64"):
        card_ids(DLPackOnly(np.array([[1.5]])), "boards")


def test_joker_only_where_allowed():
    assert card_ids([52], "x", top=52).tolist() == [52]
    with pytest.raises(ValueError, match=r"card id 52 is out of range 0\.\.51"):
        card_ids([52], "x")


def test_masks_any_width_negative_stray_huge():
    assert card_masks(np.array([1, 2], dtype=np.int8), "m").dtype == np.uint64
    with pytest.raises(ValueError, match=r"^m, row 1: hand mask -1 is out of range"):
        card_masks([0, -1], "m")
    with pytest.raises(ValueError, match=r"^m, row 0: hand mask 0x2000 has bits set outside"):
        card_masks(np.array([1 << 13], dtype=np.uint64), "m")
    with pytest.raises(ValueError, match=rf"hand mask {2**64} is out of range"):
        card_masks([2**64], "m")
    with pytest.raises(TypeError, match="hand masks"):
        card_masks(np.array([1.0]), "m")


def test_card_set_reads_every_form_once():
    want = [45, 20, 2]
    assert card_set("Kd 7c 2h", "b") == want
    assert card_set("Kd7c10h", "b") == [45, 20, 34]          # not plain: the full reader
    assert card_set(["Kd", "7c2h"], "b") == want
    assert card_set(np.array(want, dtype=np.uint16), "b") == want
    assert card_set(np.array([want], dtype=np.int8), "b") == want
    assert card_set(np.uint8(45), "b") == [45]
    assert card_set(np.uint64(1 | 1 << 60), "b") == [0, 51]     # a mask
    assert card_set(np.array([1, 1 << 60], dtype=np.uint64), "b") == [0, 51]
    assert card_set(None, "b") == card_set("", "b") == card_set([], "b") == []
    assert card_set(DLPackOnly(np.array(want, dtype=np.int32)), "b") == want


@pytest.mark.parametrize("bad,kind,msg", [
    ("Kd Kd", ValueError, "card Kd appears twice in the board"),
    (np.array([45, 45]), ValueError, "card Kd appears twice in the board"),
    (np.array([1, 1], dtype=np.uint64), ValueError, "card 2c appears twice in the board"),
    ("Kd Xq", ValueError, "the board: unknown card text 'Xq'"),
    (np.array([45, 304], dtype=np.int16), ValueError,
     "the board: card id 304 is out of range 0..51"),
    (np.array([1 << 13], dtype=np.uint64), ValueError, "has bits set outside"),
    ([48.7], TypeError, "got the float 48.7"),
    (True, TypeError, "got the bool True"),
    (np.array([True]), TypeError, "dtype bool"),
])
def test_card_set_errors_say_what_and_why(bad, kind, msg):
    with pytest.raises(kind) as err:
        card_set(bad, "the board")
    assert msg in str(err.value)


def test_card_rows():
    ids, masks = card_rows(np.array([[0, 1, 2], [3, 4, 5]], dtype=np.uint64), 2, "boards")
    assert ids.dtype == np.uint8 and ids.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert masks.tolist() == [1 | 1 << 16 | 1 << 32, 1 << 48 | 2 | 1 << 17]
    assert card_rows(None, 3, "dead")[0].shape == (3, 0)
    assert card_rows([], 3, "dead")[0].shape == (3, 0)
    ragged, m = card_rows(["2c", "3c 4c"], 2, "dead")
    assert ragged is None and m.tolist() == [1, 6]
    with pytest.raises(ValueError, match=r"^boards, row 1: card id 304 is out of range"):
        card_rows([[0, 1, 2], [3, 304, 5]], 2, "boards")
    with pytest.raises(ValueError, match=r"boards must have shape \(N, cards\) with N = 2"):
        card_rows(np.zeros((3, 3), np.uint8), 2, "boards")
    with pytest.raises(ValueError, match=r"^dead: 1 rows for 2 spots"):
        card_rows(["2c"], 2, "dead")
    with pytest.raises(ValueError, match=r"^card 2c appears twice in dead, row 1$"):
        card_rows(["3c", "2c 2c"], 2, "dead")
    with pytest.raises(TypeError, match="float 48.7"):
        card_rows([[48.7, 1, 2]], 1, "boards")


@pytest.mark.parametrize("bad,kind", [(2.5, TypeError), (2.0, TypeError), ("2", TypeError),
                                      (True, TypeError), (None, TypeError), (0, ValueError),
                                      (8, ValueError), (np.float64(3), TypeError)])
def test_whole_number(bad, kind):
    with pytest.raises(kind, match="^a round "):
        whole_number(bad, "a round", 1, 7)


def test_whole_number_takes_numpy_ints():
    assert whole_number(np.uint8(3), "a round", 1, 7) == 3
    assert whole_number(np.array(3), "a round", 1, 7) == 3


def test_indices():
    assert indices(np.int64(5), 10).shape == ()
    assert indices(DLPackOnly(np.array([1, 2], dtype=np.uint16)), 10).tolist() == [1, 2]
    with pytest.raises(ValueError, match=r"^indices, position 0: index -1 is out of range"):
        indices([-1], 10)
    with pytest.raises(ValueError, match=rf"index {2**64 - 1} is out of range 0\.\.9"):
        indices(np.array([2**64 - 1], dtype=np.uint64), 10)
    with pytest.raises(TypeError, match="^indices must be integer indices"):
        indices([0.0], 10)
