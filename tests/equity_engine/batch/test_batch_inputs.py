"""equity_batch reads hands, boards and dead cards one way for every game: ids are checked
before any cast (issue 27: a Courchevel board 304 was read as Ac), bools and floats are
refused, every integer width works for every game, and errors name the row and the card."""

from __future__ import annotations

import numpy as np
import pytest
from array_objects import DLPackOnly

import gpu_eval as ge

COURCHEVEL = [["AsAhKdQcJc", "2s3s4s5s6h"]]
OMAHA = [["AsAhKdQc", "2s3s4s5s"]]
STUD = [["AsAhKdQcJc9h", "2s3s4s5s6h7c"]]  # one card to come: a few dozen deals
HOLDEM = [["AhKh", "QsQd"]]


@pytest.mark.parametrize("game,hands,kw,match", [
    ("courchevel", COURCHEVEL, {"boards": np.array([[304]])},
     r"^boards, row 0: card id 304 is out of range 0\.\.51$"),
    ("omaha", OMAHA, {"boards": np.array([[256, 260, 264]])},
     r"^boards, row 0: card id 256 is out of range 0\.\.51$"),
    ("stud", STUD, {"dead": np.array([[307]])},
     r"^dead cards, row 0: card id 307 is out of range 0\.\.51$"),
    ("stud", STUD, {"dead": np.array([[307]], dtype=np.uint16)},
     r"^dead cards, row 0: card id 307 is out of range 0\.\.51$"),
    ("courchevel", COURCHEVEL, {"boards": [[304]]},
     r"^boards, row 0: card id 304 is out of range 0\.\.51$"),
    ("omaha", OMAHA, {"boards": [[5, 9, -3]]},
     r"^boards, row 0: card id -3 is out of range 0\.\.51$"),
    ("omaha", OMAHA, {"boards": [[5, 9, 2**70]]},
     rf"^boards, row 0: card id {2**70} is out of range 0\.\.51$"),
    ("holdem", HOLDEM, {"boards": [[5, 9, 304]]},
     r"^boards, row 0: card id 304 is out of range 0\.\.51$"),
    ("holdem", HOLDEM, {"dead": np.array([[300]], dtype=np.uint64)},
     r"^dead, row 0: card id 300 is out of range 0\.\.51$"),
])
def test_out_of_range_boards_and_dead_cards_raise(game, hands, kw, match):
    with pytest.raises(ValueError, match=match):
        ge.equity_batch(hands, game=game, **kw)


@pytest.mark.parametrize("game,hands", [("omaha", OMAHA), ("courchevel", COURCHEVEL),
                                        ("holdem", HOLDEM)])
@pytest.mark.parametrize("board,got", [
    (np.array([[48.7, 5, 9]]), "boards must be integer card ids, got dtype float64"),
    (np.array([[True, False, True]]), "boards must be integer card ids, got dtype bool"),
    (DLPackOnly(np.array([[1.0, 5.0, 9.0]])), "boards must be integer card ids, got dtype "
                                              "float64"),
    ([[48.7, 5, 9]], "got the float 48.7 at index"),
    ([[True, 5, 9]], "got the bool True at index"),
])
def test_floats_and_bools_are_no_cards(game, hands, board, got):
    with pytest.raises(TypeError) as err:
        ge.equity_batch(hands, board, game=game)
    assert got in str(err.value)
    # A list is one (N, b) array in hold'em, and a row per spot (sizes may differ) elsewhere.
    assert str(err.value).startswith("boards must be integer card ids" if game == "holdem" or
                                     not isinstance(board, list) else
                                     "boards, row 0 must be integer card ids"), str(err.value)


def test_a_stud_dead_bool_is_no_card():
    with pytest.raises(TypeError, match="the bool True"):
        ge.equity_batch(STUD, dead=[[True]], game="stud")


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.uint64])
@pytest.mark.parametrize("game,hands,board", [
    ("stud", STUD, None),
    ("razz", [["Ah2h3h4h5h6d", "Kh2d3d4d5d9c"]], None),
    ("omaha", OMAHA, "Ac2h3c"),
    ("holdem", HOLDEM, "2c7d9h"),
])
def test_every_integer_width_works_for_every_game(dtype, game, hands, board):
    ids = np.array([[ge.cards.parse(h) for h in spot] for spot in hands]).astype(dtype)
    want = ge.equity_batch(hands, board, game=game)
    got = ge.equity_batch(ids, board, game=game)
    np.testing.assert_array_equal(got.wins, want.wins)
    np.testing.assert_array_equal(got.ties, want.ties)
    if board is not None:  # the board as ids of the same width, one row per spot
        b = ge.cards.parse(board).reshape(1, -1).astype(dtype)
        np.testing.assert_array_equal(ge.equity_batch(ids, b, game=game).wins, want.wins)


def test_dead_cards_as_ids_match_text_for_other_games():
    want = ge.equity_batch(STUD * 2, dead=["Kh", "Kh Qh"], game="stud")
    got = ge.equity_batch(STUD * 2, dead=[[46], np.array([46, 42], dtype=np.int64)], game="stud")
    np.testing.assert_array_equal(got.wins, want.wins)
    same = ge.equity_batch(STUD, dead=np.array([[46]], dtype=np.uint64), game="stud")
    np.testing.assert_array_equal(same.wins, want.wins[:1])


@pytest.mark.parametrize("game,hands", [("stud", STUD), ("omaha", OMAHA)])
def test_hand_ids_out_of_range_name_row_and_player(game, hands):
    ids = np.array([[ge.cards.parse(h) for h in spot] for spot in hands]).astype(np.int16)
    ids[0, 1, 0] = 304
    with pytest.raises(ValueError, match=r"^hands, row 0, player 2: card id 304 is out of range"):
        ge.equity_batch(ids, game=game)


@pytest.mark.parametrize("game", ["holdem", "stud", "omaha"])
def test_unknown_backend_is_refused_for_every_game(game):
    hands = {"holdem": HOLDEM, "stud": STUD, "omaha": OMAHA}[game]
    with pytest.raises(ValueError, match=r"^backend='tpu': expected one of auto, numpy, cuda$"):
        ge.equity_batch(hands, game=game, backend="tpu")
