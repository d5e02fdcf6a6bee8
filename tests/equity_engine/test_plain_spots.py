"""The plain-text readers of the commonest spots (gpu_eval.equity_engine.plain_spots) read
exactly what the general reader reads, and leave everything else to it."""

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.equity_engine.deals import numpy_engine as deals
from gpu_eval.equity_engine.plain_spots import plain, plain_deal
from gpu_eval.equity_engine.problem import prepare
from gpu_eval.games import registry

DEAL_GAMES = registry.names(deal=registry.OWN_CARDS)
_NAMES = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def _text(ids):
    return "".join(_NAMES[c] for c in ids)


def _same(fast, general):
    assert fast.game == general.game and fast.labels == general.labels
    assert fast.known == general.known and fast.need == general.need
    assert fast.dead == general.dead and fast.hilo == general.hilo
    assert fast.scale == general.scale
    np.testing.assert_array_equal(fast.deck, general.deck)


@pytest.mark.parametrize("game", DEAL_GAMES)
def test_plain_deals_read_as_the_general_reader(game):
    record = registry.get(game)
    lo, hi = record.hand_cards
    rng = np.random.default_rng(len(game))
    read = 0
    for _ in range(60):
        n = int(rng.integers(2, 5))
        sizes = rng.integers(max(lo, 1), hi + 1, size=n)  # no cards kept: "-", the general way
        n_dead = int(rng.integers(0, 3))
        deal = rng.permutation(52)[:int(sizes.sum()) + n_dead].tolist()
        players, at = [], 0
        for k in sizes:
            players.append(_text(deal[at:at + k]))
            at += k
        dead = _text(deal[at:])
        fast = plain_deal(players, "", dead, record)
        try:
            general = deals.deal_problem(prepare(players, "", dead, game))
        except ValueError:  # too many cards for the deck: the general reader names it
            assert fast is None
            continue
        assert fast is not None
        _same(deals.plain_problem(fast, record), general)
        read += 1
    assert read > 20


@pytest.mark.parametrize("players,board,dead", [
    (["7d5h4c3s2h", "7d4h3d2c"], "", ""),          # a card twice, between players
    (["7d5h4c3s2h", "5s4h3d2c"], "", "7d"),        # a player's card in the dead cards
    (["7d7d4c3s2h", "5s4h3d2c"], "", ""),          # a card twice in one hand
    (["7d5h4c3s2h3h", "5s4h3d2c"], "", ""),        # six cards kept
    (["7d5h4c3s2x", "5s4h3d2c"], "", ""),          # unknown card
    ([" 7d5h4c", "5s4h3d2c"], "", ""),            # padded: the general reader's
    (["", "5s4h3d2c"], "", ""),
    (["-", "5s4h3d2c"], "", ""),
    (["7d5h4c3s2h"], "", ""),                      # one player
    (["7d5h4c3s2h", "5s4h3d2c"], "2c", ""),        # a board
    (["7d5h4c3s2h", "5s4h3d2c"], None, ""),
    (["7d5h4c3s2h", "5s4h3d2c"], "", None),
    (["7d5h4c3s2h", "5s4h3d2c"], "", ["Ad"]),
    ("7d5h4c3s2h", "", ""),
    ([np.array([20, 14]), "5s4h3d2c"], "", ""),
    ([[20, 14], "5s4h3d2c"], "", ""),
    ([20, "5s4h3d2c"], "", ""),
    ([True, "5s4h3d2c"], "", ""),
    ([7.0, "5s4h3d2c"], "", ""),
])
def test_anything_else_is_left_to_the_general_reader(players, board, dead):
    assert plain_deal(players, board, dead, registry.get("deuce-seven-draw")) is None


def test_too_many_cards_for_the_deck_are_left_to_the_general_reader():
    record = registry.get("five-card-draw")
    players = [_NAMES[c] for c in range(8)]  # one card kept each: 32 to come
    assert plain_deal(players, "", _text(range(8, 20)), record) is not None  # 32 left
    assert plain_deal(players, "", _text(range(8, 21)), record) is None      # 31 left
    with pytest.raises(ValueError, match="too many players for the deck"):
        ge.equity(players, game="five-card-draw", dead=_text(range(8, 21)))


def test_spaced_text_reads_as_the_general_reader():
    players, dead = ["7d 5h 4c", "5s,4h,3d,2c"], "Ad Kd"
    record = registry.get("deuce-seven-draw")
    _same(deals.plain_problem(plain_deal(players, "", dead, record), record),
          deals.deal_problem(prepare(players, "", dead, "deuce-seven-draw")))


def test_a_board_game_is_not_a_deal():
    assert plain_deal(["AhKh", "QsQd"], "", "", registry.get("holdem")) is None


@pytest.mark.parametrize("text", ["2c2c", "2c 2c", "10h", "2c7x", "2c7", "♣2", "Ah,Kh "])
def test_plain_refuses_what_it_cannot_read_plainly(text):
    got = plain(text)
    if got is not None:  # spacing and commas are plain
        assert got == plain(text.replace(" ", "").replace(",", ""))
    else:
        assert text in ("2c2c", "2c 2c", "10h", "2c7x", "2c7", "♣2")


@pytest.mark.parametrize("players,dead,message", [
    (["7d5h4c3s2h", "7d4h3d2c"], "", "card 7d is used twice"),
    (["7d5h4c3s2h", "5s4h3d2c"], "7d", "card 7d is used twice"),
    (["7d5h4c3s2x", "5s4h3d2c"], "", "player 1"),
    (["7d5h4c3s2h3h", "5s4h3d2c"], "", "player 1"),
])
def test_bad_plain_deals_get_the_general_errors(players, dead, message):
    with pytest.raises(ValueError, match=message):
        ge.equity(players, game="deuce-seven-draw", dead=dead)


def test_the_draw_spots_answer_as_before():
    r = ge.equity(["7d5h4c3s2h", "5s4h3d2c"], game="deuce-seven-draw", dead="Ad")
    assert r.wins.tolist() == [39, 0] and r.ties.tolist() == [3, 3]
    assert r.method == "exact (grid): 42 deals" and r.strategy == "deal enumeration"
    assert r.dead == "Ad" and r.labels == ("7d5h4c3s2h", "5s4h3d2c")
    r = ge.equity(["Ac2d3h", "4s5h6c7d"], game="badugi-draw", dead="Kd")
    assert r.boards == 44 and r.wins.sum() + r.ties[0] == 44


HOSTILE = [  # (players, board, dead, error, words the message names)
    ([np.array([304, 14], dtype=np.int64), "QsQd"], "2c7d9h", "", ValueError, "player 1"),
    ([np.array([48.0, 14.0]), "QsQd"], "2c7d9h", "", TypeError, "player 1"),
    ([np.array([True, False]), "QsQd"], "2c7d9h", "", TypeError, "player 1"),
    ([np.array([50, 46], dtype=np.uint16), np.array([43, 41], dtype=np.int8)], "2c7d9h", "",
     None, ""),
    (["AhKh", "QsQd"], np.array([0, 21, 286], dtype=np.int16), "", ValueError, "board"),
    (["AhKh", "QsQd"], np.array(0), "", ValueError, "board"),
    (["AhKh", "QsQd"], [0.0, 21.0, 30.0], "", TypeError, "board"),
    (["AhKh", "QsQd"], "2c7d9h", [True], TypeError, "dead"),
    (["AhKh", "QsQd"], "2c7d9h", np.array(304, dtype=np.int32), ValueError, "dead"),
    (["AhKh", "QsQd"], "2c7d9h", "Kh", ValueError, "Kh"),
    (["AhKx", "QsQd"], "2c7d9h", "", ValueError, "player 1"),
]


@pytest.mark.parametrize("players,board,dead,error,words", HOSTILE)
def test_hostile_input_around_the_known_hands_reader(players, board, dead, error, words):
    if error is None:  # any integer width: the same answer as the text
        r = ge.equity(players, board=board, dead=dead)
        assert r.wins.tolist() == ge.equity(["AhKh", "QsQd"], board="2c7d9h").wins.tolist()
        return
    with pytest.raises(error, match=words):
        ge.equity(players, board=board, dead=dead)


DRAW_HOSTILE = [
    ([np.array([20, 14, 304]), "5s4h3d2c"], "", ValueError, "player 1"),
    ([np.array([20.0, 14.0]), "5s4h3d2c"], "", TypeError, "player 1"),
    ([np.array([True, False]), "5s4h3d2c"], "", TypeError, "player 1"),
    ([[20, 14, 10, 5, 2], "5s4h3d2c"], np.array(304, dtype=np.int64), ValueError, "dead"),
    ([[20, 14, 10, 5, 2], "5s4h3d2c"], [48.0], TypeError, "dead"),
    ([np.array(20, dtype=np.int8), "5s4h3d2c"], "", None, ""),
    (["7d5h4c3s2h", "5s4h3d2c"], "Ac Ac", ValueError, "Ac"),
]


@pytest.mark.parametrize("players,dead,error,words", DRAW_HOSTILE)
def test_hostile_input_around_the_deal_reader(players, dead, error, words):
    if error is None:  # a 0-d id (20: 7c) is one card kept: as its text
        r = ge.equity(players, game="deuce-seven-draw", dead=dead)
        assert r.wins.tolist() == ge.equity(["7c", "5s4h3d2c"], game="deuce-seven-draw").wins.tolist()
        return
    with pytest.raises(error, match=words):
        ge.equity(players, game="deuce-seven-draw", dead=dead)
