"""gpu_eval.equity_batch: many spots at once, row for row equal to gpu_eval.equity."""

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.equity_engine.api import equity
from gpu_eval.equity_engine.batch import spot_counts
from gpu_eval.equity_engine.holdem import shipped_table


def _text(ids) -> str:
    return "".join(cards.RANKS[c // 4] + cards.SUITS[c % 4] for c in ids)


def _random_spots(rng, n, players, board, dead=0):
    deals = np.array([rng.permutation(52)[:2 * players + board + dead] for _ in range(n)])
    hands = deals[:, :2 * players].reshape(n, players, 2)
    return hands, deals[:, 2 * players:2 * players + board], deals[:, 2 * players + board:]


@pytest.mark.parametrize("players,board,dead", [(2, 3, 0), (3, 3, 0), (4, 3, 1), (2, 4, 0),
                                                (3, 4, 2), (4, 5, 0), (2, 5, 1), (3, 0, 0),
                                                (2, 0, 0), (2, 0, 1)])
def test_rows_equal_equity(players, board, dead):
    rng = np.random.default_rng(100 * players + 10 * board + dead)
    n = 3 if board == 0 and (players > 2 or dead) else 12
    hands, boards, deads = _random_spots(rng, n, players, board, dead)
    r = ge.equity_batch(hands, boards, deads if dead else None)
    assert r.equity.shape == r.win.shape == r.tie.shape == (n, players)
    for i in range(n):
        one = equity([_text(h) for h in hands[i]], board=_text(boards[i]),
                     dead=_text(deads[i]), exact=True, progress=False)
        np.testing.assert_array_equal(r.wins[i], one.wins)
        np.testing.assert_array_equal(r.ties[i], one.ties)
        assert r.boards[i] == one.boards
        np.testing.assert_allclose(r.equity[i], one.equity, rtol=0, atol=1e-12)
        np.testing.assert_allclose(r.win[i], one.win, rtol=0, atol=1e-12)
        np.testing.assert_allclose(r.tie[i], one.tie, rtol=0, atol=1e-12)
        np.testing.assert_allclose(r.tie_share[i], one.tie_share, rtol=0, atol=1e-12)


def test_text_input_and_mixed_dead_counts():
    hands = [["AhKh", "QsQd"], ["7c7d", "AsKs"], ["Tc9c", "8h8d"]]
    boards = ["2c7d9h", "Ah Kd 3c", "2s3s4s"]
    dead = ["", "Qc", "5h 6h"]
    r = ge.equity_batch(hands, boards, dead)
    for i in range(3):
        one = equity(hands[i], board=boards[i], dead=dead[i])
        np.testing.assert_array_equal(r.wins[i], one.wins)
        np.testing.assert_allclose(r.equity[i], one.equity, rtol=0, atol=1e-12)
    ids = np.array([[[50, 46], [43, 41]]] * 2)
    np.testing.assert_array_equal(ge.equity_batch(ids, "2c7d9h").wins,
                                  ge.equity_batch([["AhKh", "QsQd"]] * 2, "2c7d9h").wins)


def test_preflop_table_rows_and_engine_rows_agree(monkeypatch):
    rng = np.random.default_rng(3)
    hands, _, _ = _random_spots(rng, 4, 2, 0)
    fast = ge.equity_batch(hands)
    monkeypatch.setattr(shipped_table, "USE_TABLE", False)
    slow = ge.equity_batch(hands)
    np.testing.assert_array_equal(fast.wins, slow.wins)
    np.testing.assert_array_equal(fast.ties, slow.ties)
    assert (fast.boards == 1_712_304).all()


def test_chunks_give_the_same_counts(monkeypatch):
    rng = np.random.default_rng(9)
    hands, boards, _ = _random_spots(rng, 40, 3, 3)
    whole = ge.equity_batch(hands, boards)
    monkeypatch.setattr(spot_counts, "CHUNK_EVALS", 1)  # one row per chunk
    parts = ge.equity_batch(hands, boards)
    np.testing.assert_array_equal(whole.wins, parts.wins)
    np.testing.assert_array_equal(whole.ties, parts.ties)
    assert not whole.equity.flags.writeable


def test_input_is_not_mutated():
    hands = np.array([[[50, 46], [43, 41]]])
    board = np.array([[0, 21, 30]])
    before = hands.copy(), board.copy()
    ge.equity_batch(hands, board)
    np.testing.assert_array_equal(hands, before[0])
    np.testing.assert_array_equal(board, before[1])


@pytest.mark.parametrize("kw,error,match", [
    ({"hands": [["AhKh", "QsQd"], ["AhKh", "AhQd"]], "boards": None}, ValueError,
     r"spot 1: card Ah is used twice \(player 1 and player 2\)"),
    ({"hands": [["AhKh", "QsQd"], ["AhKh", "JsJd"]], "boards": ["2c7d9h", "2c7dJs"]},
     ValueError, r"spot 1: card Js is used twice \(player 2 and the board\)"),
    ({"hands": [["AhKh", "QsQd"]] * 2, "boards": ["2c7d9h", "2c7d9x"]}, ValueError,
     r"boards, row 1: .*'9x'"),
    ({"hands": [["AhKh", "QsQd"]] * 2, "boards": ["2c7d9h", "2c7d"]}, ValueError,
     r"boards, row 1: 2 cards, but row 0 has 3"),
    ({"hands": [["AhKh", "QsQd"]] * 2, "boards": ["2c7d", "2c7d"]}, ValueError,
     r"0, 3, 4 or 5"),
    ({"hands": [["AhKh", "QsQd"], ["AhKh", "QsQd", "JcJd"]]}, ValueError,
     r"hands, row 1: 3 players, but row 0 has 2"),
    ({"hands": [["AhKh", "QsQdJc"]]}, ValueError, r"hands, row 0: hand 2 .* has 3 cards"),
    ({"hands": np.array([[[50, 46], [43, 52]]])}, ValueError,
     r"hands, row 0, player 2: card id 52 is out of range"),
    ({"hands": np.zeros((3, 2, 3), dtype=int)}, ValueError, r"shape \(N, P, 2\)"),
    ({"hands": [["AhKh"]]}, ValueError, r"2 to 10 players"),
    ({"hands": "AhKh QsQd"}, TypeError, r"N lists of hand texts"),
    ({"hands": [["AhKh", "QsQd"]], "dead": ["Ah"]}, ValueError,
     r"spot 0: card Ah is used twice \(player 1 and the dead cards\)"),
    ({"hands": [["AhKh", "QsQd"]], "backend": "tpu"}, ValueError, r"backend='tpu'"),
    ({"hands": [["AhKhQhJhTh", "QsQdQcJs"]], "game": "omaha"}, ValueError,
     r"spot 0: player 1 \('AhKhQhJhTh'\): 5 hole cards; 'omaha' deals 4"),
    ({"hands": [["AhKh", "QsQd"]], "game": "pineapple"}, ValueError, r"unknown game"),
])
def test_bad_rows_are_named(kw, error, match):
    with pytest.raises(error, match=match):
        ge.equity_batch(**kw)


def test_exported():
    from gpu_eval.equity_engine.batch import api as batch

    assert "equity_batch" in ge.__all__ and ge.equity_batch is batch.equity_batch


def test_cupy_in_cupy_out(monkeypatch):
    import sys

    from emulation import fake_cupy

    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    ids = np.array([[[50, 46], [43, 41]], [[0, 1], [51, 47]]])
    # The NumPy path with CuPy arrays (the device path: tests/equity_engine/batch/test_batch_cuda.py).
    got = ge.equity_batch(fake_cupy.asarray(ids), np.array([[4, 21, 30], [8, 12, 16]]),
                          backend="numpy")
    want = ge.equity_batch(ids, np.array([[4, 21, 30], [8, 12, 16]]), backend="numpy")
    assert got.backend == "numpy"
    assert isinstance(got.equity, fake_cupy.ndarray) and isinstance(got.wins, fake_cupy.ndarray)
    np.testing.assert_array_equal(got.wins.get(), want.wins)
    np.testing.assert_array_equal(got.equity.get(), want.equity)
