"""Omaha: against brute force over every 2 + 3 choice (with gpu_eval.evaluate on 5 cards),
input forms, bad input, and the device code built as host C++."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cuda import variants as CV
from gpu_eval.games import omaha as O

GAMES = {4: "omaha", 5: "omaha5", 6: "omaha6"}


def brute_force(hole: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Best of every (2 hole, 3 board) choice, each a 5-card hold'em evaluation."""
    board = np.broadcast_to(board, (len(hole), board.shape[-1]))
    best = np.zeros(len(hole), dtype=np.uint16)
    for hc in combinations(range(hole.shape[1]), 2):
        for bc in combinations(range(board.shape[1]), 3):
            five = np.concatenate([hole[:, list(hc)], board[:, list(bc)]], axis=1)
            np.maximum(best, ge.evaluate(five, backend="numpy"), out=best)
    return best


def deal(rng, n: int, h: int, k: int, deck: np.ndarray | None = None):
    deck = np.arange(52, dtype=np.uint8) if deck is None else deck
    pos = np.argsort(rng.random((n, len(deck))), axis=1)[:, :h + k]
    cards = deck[pos]
    return cards[:, :h], cards[:, h:]


@pytest.mark.parametrize("h", [4, 5, 6])
@pytest.mark.parametrize("k", [3, 4, 5])
def test_random_hands_match_brute_force(h, k):
    rng = np.random.default_rng(10 * h + k)
    hole, board = deal(rng, 6000, h, k)
    np.testing.assert_array_equal(ge.evaluate_omaha(hole, board, game=GAMES[h], backend="numpy"),
                                  brute_force(hole, board))


@pytest.mark.parametrize("h", [4, 6])
def test_flush_heavy_hands_match_brute_force(h):
    """Two suits only (and one suit): flushes and straight flushes on most rows."""
    rng = np.random.default_rng(h)
    two_suits = np.array([c for c in range(52) if c % 4 in (1, 3)], dtype=np.uint8)
    hole, board = deal(rng, 6000, h, 5, two_suits)
    got = ge.evaluate_omaha(hole, board, game=GAMES[h])
    np.testing.assert_array_equal(got, brute_force(hole, board))
    assert (ge.category(got) >= 5).mean() > 0.3
    one_suit = np.arange(2, 52, 4, dtype=np.uint8)
    hole, board = deal(rng, 3000, h, 5, one_suit)
    got = ge.evaluate_omaha(hole, board, game=GAMES[h])
    np.testing.assert_array_equal(got, brute_force(hole, board))
    assert (ge.category(got) == 8).any()


def test_shared_board_and_single_hands():
    rng = np.random.default_rng(5)
    board = np.array([51, 46, 41, 8, 0], dtype=np.uint8)        # As Kh Qd 4c 2c
    deck = np.setdiff1d(np.arange(52), board).astype(np.uint8)
    hole = deck[np.argsort(rng.random((3000, len(deck))), axis=1)[:, :4]]
    ref = brute_force(hole, board[None, :])
    np.testing.assert_array_equal(ge.evaluate_omaha(hole, board), ref)
    np.testing.assert_array_equal(ge.evaluate_omaha(hole, "As Kh Qd 4c 2c"), ref)
    np.testing.assert_array_equal(ge.evaluate_omaha(ge.cards.to_mask(hole),
                                                   ge.cards.to_mask(board)), ref)
    texts = ge.cards.format(hole[:50])
    np.testing.assert_array_equal(ge.evaluate_omaha(texts, "AsKhQd4c2c"), ref[:50])
    one = ge.evaluate_omaha(texts[0], "As Kh Qd 4c 2c")
    assert one.shape == () and int(one) == ref[0]
    # one hole hand against many boards
    boards = np.stack([np.roll(board, i) for i in range(5)])
    assert ge.evaluate_omaha(hole[0], boards).tolist() == [ref[0]] * 5


def test_known_hands():
    assert ge.describe(ge.evaluate_omaha("AsAhKdQc", "Ad 7c 2h 3s 9d")) == \
        "Three of a Kind, Aces, Nine Seven kickers"
    # one spade in the hole: no flush, though the board has four
    assert ge.category(ge.evaluate_omaha("As Kd Qc Jh", "2s 5s 8s 9s Td")) != 5
    assert ge.describe(ge.evaluate_omaha("AsKs2c3d", "Qs Js Ts 4h 5h")) == "Royal Flush"
    # four of a kind on the board plays only three: at best a full house here
    assert ge.describe(ge.evaluate_omaha("KcKd2h3h", "As Ad Ah Ac 7d")) == \
        "Full House, Aces full of Kings"
    assert ge.describe(ge.evaluate_omaha("5c4d9h9s", "Ac2h3s Kd Kh", game="omaha")) == \
        "Straight, Five high"
    assert int(ge.evaluate_omaha("AsKs2c3d4h5h", "Qs Js Ts", game="omaha6")) == 7462


def test_tables_are_dense_and_cached():
    t = O.omaha_tables()
    assert t is O.omaha_tables()
    sizes = [455, 1820, 6175]
    assert len(t.noflush) == sum(sizes) * 169
    assert t.noflush.max() <= 7462 and not t.noflush.flags.writeable
    assert t.sf_best[0] == 0 and t.sf_best.max() == 7462
    assert int(t.flush5[0b1111100000000]) == 7462 and t.flush5[0b111] == 0


@pytest.mark.parametrize("hole, board, kwargs, match", [
    ("AsKsQsJs", "AsTd2c", {}, r"As is used twice"),
    ("AsAsQsJs", "Td2c3h", {}, r"card As is used twice in hand AsAsQsJs"),
    ("AsKsQsJs", "Td2cTd", {}, r"card Td is used twice"),
    (np.array([0, 0, 1, 2]), "Td2c3h", {}, r"hole cards 2c2c2d2h \(row 0\): a card is used"),
    ("AsKsQsJs", np.array([[9, 10, 11], [9, 9, 11]]), {}, r"board 4d4d4s \(row 1\): a card"),
    ("AsKsQsJsTs", "Td2c3h", {}, r"5 cards per row; this game takes 4"),
    ("AsKsQsJs", "Td2c", {}, r"2 cards per row; this game takes 3 to 5"),
    ("AsKsQsJs", "Td2c3h", {"game": "omaha7"}, r"game 'omaha7'"),
    ("AsKsQsJs", "Td2c3h", {"invalid": "drop"}, r"invalid='drop'"),
    ("AsKsQsJs", "Td2c3x", {}, r"unknown card text"),
    (np.array([[0, 1, 2, 60]]), np.array([[4, 5, 6]]), {}, r"row 0\): card id 60 is out of"),
])
def test_bad_input_raises(hole, board, kwargs, match):
    with pytest.raises(ValueError, match=match):
        ge.evaluate_omaha(hole, board, **kwargs)


def test_bad_rows_named_or_masked():
    rng = np.random.default_rng(1)
    hole0, board0 = deal(rng, 100, 4, 5)
    good = ge.evaluate_omaha(hole0, board0)
    hole, board = hole0.copy(), board0.copy()
    hole[7, 1] = hole[7, 0]          # a card twice in the hole
    board[20, 4] = hole[20, 2]       # the board repeats a hole card
    hole[33, 3] = 77                 # out of range
    with pytest.raises(ValueError, match=r"row 33\): card id 77 is out of range"):
        ge.evaluate_omaha(hole, board)
    with pytest.raises(ValueError, match=r"row 7\): a card is used twice"):
        ge.evaluate_omaha(hole[:30], board[:30])
    got = ge.evaluate_omaha(hole, board, invalid="mask")
    expected = good.copy()
    expected[[7, 20, 33]] = 0
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(ValueError, match=r"and board .* \(row 20\): \w\w is used twice"):
        ge.evaluate_omaha(hole0, board)
    texts = ["AsKsQsJs", "AsAsQsJs", "2c3c4c5c"]
    assert (ge.evaluate_omaha(texts, "7h8h9h", invalid="mask") > 0).tolist() == [True, False, True]
    with pytest.raises(ValueError, match="rows of hole cards but"):
        ge.evaluate_omaha(hole0[:3], board0[:2])
    with pytest.raises(TypeError):
        ge.evaluate_omaha(np.zeros((2, 4)), board0[:2])


def test_evaluate_points_to_evaluate_omaha():
    for game in GAMES.values():
        with pytest.raises(ValueError, match="evaluate_omaha"):
            ge.evaluate("AsKsQsJs 2c 3d 4h", game=game)
    from gpu_eval.evaluator import api

    assert ge.evaluate_omaha is api.evaluate_omaha
    assert ge.describe(7462, game="omaha6") == "Royal Flush"


# ------------------------------------------------------------------------------ device code

def test_table_struct_matches_tables():
    import re

    from gpu_eval.cuda import nvrtc

    body = (nvrtc.kernel_dir() / "omaha.cuh").read_text()
    fields = re.findall(r"const\s+ge_(u8|u16|u32)\*\s+(\w+);",
                        re.search(r"GeOmahaTables\s*\{(.*?)\};", body, re.S).group(1))
    assert [f for _, f in fields] == list(CV.OMAHA_TABLE_ORDER)
    assert list(O.OmahaTables.__dataclass_fields__) == list(CV.OMAHA_TABLE_ORDER)
    tables = O.omaha_tables().as_dict()
    for ctype, name in fields:
        assert tables[name].dtype == np.dtype(f"uint{ctype[1:]}"), name


@pytest.mark.parametrize("h", [4, 5, 6])
def test_host_kernels_match_numpy(variant_host, h):
    rng = np.random.default_rng(h)
    for k in (3, 4, 5):
        hole, board = deal(rng, 30_000, h, k)
        np.testing.assert_array_equal(variant_host.omaha(hole, board),
                                      ge.evaluate_omaha(hole, board, game=GAMES[h]))
    two_suits = np.array([c for c in range(52) if c % 4 in (0, 2)], dtype=np.uint8)
    hole, board = deal(rng, 30_000, h, 5, two_suits)
    np.testing.assert_array_equal(variant_host.omaha(hole, board),
                                  ge.evaluate_omaha(hole, board, game=GAMES[h]))
    shared = np.array([51, 47, 43, 39, 2], dtype=np.uint8)
    deck = np.setdiff1d(np.arange(52), shared).astype(np.uint8)
    hole = deck[np.argsort(rng.random((5000, len(deck))), axis=1)[:, :h]]
    np.testing.assert_array_equal(variant_host.omaha(hole, shared),
                                  ge.evaluate_omaha(hole, shared, game=GAMES[h]))


def test_agrees_with_phevaluator_omaha():
    """PokerHandEvaluator's Omaha (Cactus Kev ranks, 1 best) on random PLO4 hands."""
    phe = pytest.importorskip("phevaluator")
    rng = np.random.default_rng(99)
    hole, board = deal(rng, 20_000, 4, 5)
    theirs = np.array([phe.evaluate_omaha_cards(*b, *h)
                       for h, b in zip(hole.tolist(), board.tolist())])
    np.testing.assert_array_equal(ge.evaluate_omaha(hole, board), 7463 - theirs)
