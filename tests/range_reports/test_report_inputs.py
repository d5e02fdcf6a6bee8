"""Hostile input to ``range_report`` (a clear ``ValueError`` / ``TypeError`` naming what is
wrong), and every kind of array in: ids of any integer width, masks, lists, DLPack objects,
CuPy (the stand-in) in and out."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.range_reports.api import range_report

BOARD = "Kd7c2h"
IDS = ge.cards.parse(BOARD)

BAD = [  # (what, call, error type, words the message must hold)
    ("a combo that cannot fit", lambda: range_report("AsKs", board="AsKdQh"), ValueError,
     ["hero range 'AsKs'", "no combo left", "AsKdQh"]),
    ("a villain emptied by the board", lambda: range_report("AA", "KsQs", board="KsQsJs"),
     ValueError, ["villain range 'KsQs'", "no combo left"]),
    ("a range sharing every card with the board and dead cards",
     lambda: range_report("AsAh", board="Kd7c2h", dead="As"), ValueError, ["no combo left"]),
    ("a board of 2 cards", lambda: range_report("AA", board="AsKd"), ValueError,
     ["the board has 2 cards", "3, 4 or 5"]),
    ("a board of 6 cards", lambda: range_report("AA", board="AsKdQh2c3c4c"), ValueError,
     ["the board has 6 cards"]),
    ("no board", lambda: range_report("AA"), ValueError, ["the board has 0 cards"]),
    ("a card twice on the board", lambda: range_report("AA", board="AsAsQh"), ValueError,
     ["As", "twice"]),
    ("bad card text", lambda: range_report("AA", board="AsXdQh"), ValueError, ["Xd"]),
    ("a board id out of range", lambda: range_report("AA", board=np.array([1, 2, 60])),
     ValueError, ["60", "out of range"]),
    ("a negative board id", lambda: range_report("AA", board=np.array([1, 2, -3])),
     ValueError, ["-3", "out of range"]),
    ("a 304 in uint16 never wraps", lambda: range_report(
        "AA", board=np.array([1, 5, 304], dtype=np.uint16)), ValueError, ["304"]),
    ("float board ids", lambda: range_report("AA", board=np.array([1.0, 2.0, 3.0])),
     TypeError, ["float64"]),
    ("bool board ids", lambda: range_report("AA", board=np.array([True, False, True])),
     TypeError, ["bool"]),
    # A 0-d id or a Python int is one card (as every entry point reads a set of cards).
    ("a 0-d board", lambda: range_report("AA", board=np.array(5)), ValueError,
     ["the board", "1 card (3d)"]),
    ("a board that is a number", lambda: range_report("AA", board=5), ValueError,
     ["the board", "1 card (3d)"]),
    ("a board id past the deck, int16", lambda: range_report("AA", board=np.array(
        [45, 20, 304], np.int16)), ValueError, ["the board", "304"]),
    ("a negative dead card", lambda: range_report("AA", board=BOARD, dead=[-208]), ValueError,
     ["dead", "-208"]),
    ("a hero combo past the deck", lambda: range_report(np.array([[51, 47], [2, 300]],
                                                                 np.uint16), board=BOARD),
     ValueError, ["hero range, combo 1", "300"]),
    ("a villain combo with a bool", lambda: range_report("AA", [[51, 47], [True, 3]],
                                                          board=BOARD),
     TypeError, ["villain range", "bool"]),
    ("a float board among boards", lambda: range_report("AA", boards=[BOARD, [45, 20.5, 2]]),
     TypeError, ["board 1", "float", "20.5"]),
    ("board ids past the deck", lambda: range_report("AA", boards=np.array(
        [[45, 20, 2], [45, 20, 1000]], np.int32)), ValueError, ["boards, board 1", "1000"]),
    ("a street report indexed by a bool",
     lambda: range_report("QQ+", "AK", board=BOARD, street="turn")[True], TypeError, ["bool"]),
    ("a street report indexed past its cards",
     lambda: range_report("QQ+", "AK", board=BOARD, street="turn")[np.int64(304)], IndexError,
     ["304", "49 next cards"]),
    ("three cards a combo", lambda: range_report(np.array([[51, 47, 43]]), board=BOARD),
     ValueError, ["hero range", "(N, 2)"]),
    ("a mask with stray bits", lambda: range_report("AA", board=np.uint64(1 << 14 | 3)),
     ValueError, ["bits"]),
    ("a float range", lambda: range_report(1.5, board=BOARD), TypeError, ["hero", "float"]),
    ("a bool range", lambda: range_report(True, board=BOARD), TypeError, ["hero", "bool"]),
    ("float combo ids", lambda: range_report(np.array([[1.0, 2.0]]), board=BOARD), TypeError,
     ["hero", "float64"]),
    ("a combo id out of range", lambda: range_report(np.array([[1, 99]]), board=BOARD),
     ValueError, ["hero", "99"]),
    ("an empty range", lambda: range_report("", board=BOARD), ValueError, ["hero", "empty"]),
    ("an empty list", lambda: range_report([], board=BOARD), ValueError, ["hero", "empty"]),
    ("no combo ids", lambda: range_report(np.zeros((0, 2), np.uint8), board=BOARD),
     ValueError, ["hero", "empty"]),
    ("bad range text", lambda: range_report("QQ+", "AKx", board=BOARD), ValueError,
     ["villain", "AKx"]),
    ("a game without a board", lambda: range_report("AA", board=BOARD, game="stud"),
     ValueError, ["stud", "holdem"]),
    ("a hi/lo game", lambda: range_report("AA", board=BOARD, game="omaha-hilo"),
     ValueError, ["omaha-hilo", "high/low"]),
    ("an unknown street", lambda: range_report("AA", board=BOARD, street="flop"),
     ValueError, ["street='flop'"]),
    ("turns of a turn", lambda: range_report("AA", board=BOARD + "5s", street="turn"),
     ValueError, ["needs a flop"]),
    ("rivers of a flop", lambda: range_report("AA", board=BOARD, street="river"),
     ValueError, ["needs a turn"]),
    ("board and boards", lambda: range_report("AA", board=BOARD, boards="flops"),
     ValueError, ["not both"]),
    ("boards as text", lambda: range_report("AA", boards=BOARD), ValueError, ["boards"]),
    ("no boards", lambda: range_report("AA", boards=[]), ValueError, ["empty"]),
    ("a bad board in a list", lambda: range_report("AA", boards=[BOARD, "AsAs2c"]),
     ValueError, ["board 1", "twice"]),
    ("a dead card on the board", lambda: range_report("AA", board=BOARD, dead="Kd"),
     ValueError, ["Kd", "dead"]),
    ("float dead cards", lambda: range_report("AA", board=BOARD, dead=1.5), TypeError,
     ["dead"]),
    ("a card below the short deck", lambda: range_report("AA", board=BOARD, game="shortdeck"),
     ValueError, ["2h", "36-card"]),
    ("an unknown backend", lambda: range_report("AA", board=BOARD, backend="gpu"),
     ValueError, ["backend"]),
    ("Omaha on the CUDA backend", lambda: range_report("AA$ds", board=BOARD, game="omaha",
                                                       backend="cuda"),
     NotImplementedError, ["omaha", "NumPy"]),
    ("per_combo that is not a bool", lambda: range_report("AA", board=BOARD, per_combo=1),
     TypeError, ["per_combo"]),
    ("per_combo on one board", lambda: range_report("AA", board=BOARD, per_combo=True),
     ValueError, ["boards="]),
    ("progress that is not a bool", lambda: range_report("AA", board=BOARD, progress="yes"),
     TypeError, ["progress"]),
    ("an Omaha range as ids", lambda: range_report(np.array([[1, 2, 3, 4]]), board=BOARD,
                                                   game="omaha"), TypeError, ["Omaha"]),
    ("an unknown class in a filter",
     lambda: range_report("QQ+", board=BOARD).hero.select(made="monster"), ValueError,
     ["monster", "overpair"]),
    ("an unknown draw", lambda: range_report("QQ+", board=BOARD).hero.has("flushdraw"),
     ValueError, ["flushdraw", "flush_draw"]),
    ("a class filter that is a number",
     lambda: range_report("QQ+", board=BOARD).hero.select(made=3), TypeError, ["3"]),
    ("an unknown texture", lambda: range_report("AA", "KK", boards=[BOARD]).by_texture("wet"),
     ValueError, ["wet", "suits"]),
    ("bad buckets", lambda: range_report("AA", "KK", board=BOARD).hero.buckets([0.5, 0.2]),
     ValueError, ["increasing"]),
    ("a distribution without a villain",
     lambda: range_report("AA", board=BOARD).hero.distribution(), ValueError, ["villain"]),
    ("a side that is neither", lambda: range_report("AA", board=BOARD, street="turn").share(
        made="set", side="both"), ValueError, ["side"]),
    ("a card that is not next", lambda: range_report("AA", board=BOARD, street="turn")["Kd"],
     KeyError, ["Kd"]),
]


@pytest.mark.parametrize("what,call,kind,words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_names_what_is_wrong(what, call, kind, words):
    with pytest.raises(kind) as e:
        call()
    for w in words:
        assert w in str(e.value), f"{what}: {e.value}"


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                   np.uint32, np.int64, np.uint64])
def test_any_integer_width_of_ids(dtype):
    want = range_report("QQ+, AKs", "JJ", board=BOARD)
    if dtype == np.uint64:   # uint64 is read as a hand mask
        board = ge.cards.to_mask(BOARD)
    else:
        board = IDS.astype(dtype)
    got = range_report(ge.cards.parse(want.hero.hands).astype(dtype), "JJ", board=board)
    assert got.hero.hands == want.hero.hands
    np.testing.assert_array_equal(got.hero.wins, want.hero.wins)


def test_lists_of_cards_and_ids():
    want = range_report("QQ+", board=BOARD)
    for board in (["Kd", "7c", "2h"], IDS.tolist(), "Kd 7c 2h", "kd,7c,2h"):
        assert range_report("QQ+", board=board).hero.hands == want.hero.hands
    both = range_report(["QQ+", "AKs"], board=BOARD)
    assert len(both.hero.combos) == len(range_report("QQ+, AKs", board=BOARD).hero.combos)


class DLPackOnly:
    """A producer that speaks DLPack and nothing else, over a NumPy array (host)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)


def test_dlpack_board_and_combos_give_numpy():
    want = range_report("QQ+, AKs", "JJ", board=BOARD)
    combos = ge.cards.parse(want.hero.hands)
    got = range_report(DLPackOnly(combos), "JJ", board=DLPackOnly(IDS))
    assert isinstance(got.hero.wins, np.ndarray)
    np.testing.assert_array_equal(got.hero.wins, want.hero.wins)
    np.testing.assert_array_equal(got.villain.equity, want.villain.equity)


def test_cupy_in_cupy_out(monkeypatch):
    from gpu_eval.cuda import availability

    from emulation import fake_cupy

    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    availability.cuda_available.cache_clear()
    try:
        want = range_report("QQ+, AKs", "JJ", board=BOARD, backend="numpy")
        got = range_report("QQ+, AKs", "JJ", board=fake_cupy.asarray(IDS), backend="numpy")
        for a, b in ((got.hero.wins, want.hero.wins), (got.villain.made, want.villain.made),
                     (got.hero.combos, want.hero.combos)):
            assert isinstance(a, fake_cupy.ndarray)
            np.testing.assert_array_equal(a.get(), b)
        s = range_report("QQ+", "JJ", board=fake_cupy.asarray(IDS), street="turn",
                         backend="numpy")
        assert isinstance(s.hero_equity, fake_cupy.ndarray)
        assert isinstance(s.reports[0].hero.wins, fake_cupy.ndarray)
    finally:
        availability.cuda_available.cache_clear()


def test_jax_in_jax_out():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    got = range_report("QQ+, AKs", "JJ", board=jnp.asarray(IDS))
    want = range_report("QQ+, AKs", "JJ", board=BOARD)
    assert isinstance(got.hero.nut_rank, jax.Array)
    np.testing.assert_array_equal(np.asarray(got.hero.nut_rank), want.hero.nut_rank)
