"""Each case of issue 27's "input read differently" list, at every public entry point that takes
cards (the table in ``tests/bad_input.py``): ids checked before any cast (304 never wraps into
48, Ac), lists answered with ``ValueError`` not ``OverflowError``, floats and bools refused by
name, every integer width and DLPack read as ``uint8`` NumPy ids are, 0-d and empty where the
shape allows. The seeded random version of the same rules: ``test_bad_input_fuzz.py``."""

from __future__ import annotations

import numpy as np
import pytest
from array_objects import DLPackOnly
from bad_input import INT_DTYPES, outcome, params

import gpu_eval as ge


def _with(good: np.ndarray, value, dtype) -> np.ndarray:
    a = good.astype(dtype)
    a.reshape(-1)[-1] = value
    return a


def _past(entry) -> list:
    """``(value, dtype)``: values past the entry point's range, each in a type that holds it."""
    out = [(v, d) for v, d in ((304, np.int16), (256, np.uint16)) if v > entry.hi]
    return out + [(entry.hi + 1 + 256, np.int32)]


def _last_row(x: list, ndim: int) -> list:
    return x if ndim == 1 else x[-1] if ndim == 2 else x[-1][-1]


def _raises(entry, x, kind, *words):
    got = outcome(entry, x)
    assert got[0] == "raise", f"answered {x!r}"
    assert isinstance(got[1], kind), repr(got[1])
    for w in words:
        assert w in str(got[1]), repr(got[1])


@pytest.mark.parametrize("entry", params("wrap"))
def test_an_id_past_the_deck_never_wraps_into_a_card(entry):
    # 304 is 48 (Ac) and 256 is 0 (2c) once cast to uint8; neither may be read as a card.
    for value, dtype in _past(entry):
        _raises(entry, _with(entry.good, value, dtype), ValueError, str(value))


@pytest.mark.parametrize("entry", params("negative"))
def test_a_negative_id_is_refused(entry):
    _raises(entry, _with(entry.good, -208, np.int16), ValueError, "-208")  # -208 % 256 == 48


@pytest.mark.parametrize("entry", params("list past"))
def test_a_python_list_past_the_deck_is_a_value_error(entry):
    for value in (entry.hi + 1, 2**64 + 48, -(2**70)):
        x = entry.good.tolist()
        _last_row(x, entry.good.ndim)[-1] = value
        _raises(entry, x, ValueError, str(value))


@pytest.mark.parametrize("entry", params("float"))
def test_floats_are_no_cards(entry):
    _raises(entry, entry.good.astype(np.float64), TypeError, "float")     # 48.0 is not Ac
    x = entry.good.tolist()
    _last_row(x, entry.good.ndim)[-1] = 48.7
    _raises(entry, x, TypeError, "float", "48.7")
    _raises(entry, DLPackOnly(entry.good.astype(np.float32)), TypeError, "float")


@pytest.mark.parametrize("entry", params("bool"))
def test_bools_are_no_cards(entry):
    x = entry.good.tolist()
    _last_row(x, entry.good.ndim)[0] = True  # True is not 2d (nor index 1)
    _raises(entry, x, TypeError, "bool")
    _raises(entry, entry.good != 0, TypeError, "bool")


@pytest.mark.parametrize("entry", params("widths"))
def test_every_integer_width_and_dlpack_read_as_uint8_ids(entry):
    want = outcome(entry, entry.good)
    assert want[0] == "ok", want
    for dtype in INT_DTYPES:
        if (entry.masks and dtype == np.uint64) or np.iinfo(dtype).max < entry.hi:
            continue  # uint64 is the hand-mask encoding there
        assert outcome(entry, entry.good.astype(dtype)) == want, dtype
        assert outcome(entry, DLPackOnly(entry.good.astype(dtype))) == want, dtype
    assert outcome(entry, entry.good.tolist()) == want


@pytest.mark.parametrize("entry", params("empty and 0-d"))
def test_no_rows_and_0d_give_an_answer_or_a_clear_error(entry):
    for x in (entry.good[:0], np.array(entry.good.reshape(-1)[0])):
        got = outcome(entry, x)
        if got[0] == "raise":
            assert isinstance(got[1], (ValueError, TypeError)) and str(got[1]), repr(got[1])


# -- the other encodings: hand masks and DeadHorse ints ------------------------------------------

MASKS = ge.cards.to_mask(["AsKsQsJsTs", "2c3c4c5c7d"])
MASK_CALLS = [
    ("cards.from_mask", ge.cards.from_mask),
    ("cards.mask_popcount", ge.cards.mask_popcount),
    ("evaluate masks", lambda x: ge.evaluate(x, encoding="mask")),
]


@pytest.mark.parametrize("fn", [c[1] for c in MASK_CALLS], ids=[c[0] for c in MASK_CALLS])
def test_hand_masks_are_checked_as_given(fn):
    want = fn(MASKS)
    for dtype in (np.int64, np.uint64):
        np.testing.assert_array_equal(fn(DLPackOnly(MASKS.astype(dtype))), want)
    bad = [
        (np.array([int(MASKS[0]), -1], dtype=np.int64), ValueError, "-1"),
        (MASKS | np.uint64(1 << 13), ValueError, "outside the 52 card positions"),
        ([int(MASKS[0]), 2**64 + 1], ValueError, str(2**64 + 1)),
        (MASKS.astype(np.float64), TypeError, "float"),
        ([int(MASKS[0]), True], TypeError, "bool"),
    ]
    for x, kind, word in bad:
        with pytest.raises(kind, match=word):
            fn(x)


DEADHORSE = ge.cards.to_deadhorse(ge.cards.parse(["AsKsQsJsTs", "2c3c4c5c7d"]))
DEADHORSE_CALLS = [
    ("cards.from_deadhorse", ge.cards.from_deadhorse),
    ("evaluate deadhorse", lambda x: ge.evaluate(x, encoding="deadhorse")),
]


@pytest.mark.parametrize("fn", [c[1] for c in DEADHORSE_CALLS],
                         ids=[c[0] for c in DEADHORSE_CALLS])
def test_deadhorse_ints_are_checked_as_given(fn):
    want = fn(DEADHORSE)
    np.testing.assert_array_equal(fn(DLPackOnly(DEADHORSE.astype(np.uint64))), want)
    for value in (-65537, 3, 2**17 + 65537, 2**64 - 1, 2**70):
        x = DEADHORSE.tolist()
        x[1][2] = value  # never wrapped into a card by a cast
        with pytest.raises(ValueError, match=str(value)):
            fn(x)
    with pytest.raises(TypeError, match="float"):
        fn(DEADHORSE.astype(np.float64))
    with pytest.raises(TypeError, match="bool"):
        fn([[True] + DEADHORSE[0, 1:].tolist()])
