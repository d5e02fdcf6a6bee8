"""Courchevel (five-card Omaha with the first board card dealt preflop), high and hi/lo:
poker-equity's exact walks, the board sizes, and the CUDA engine through the stand-in CuPy."""

from __future__ import annotations

import numpy as np
import poker_equity as pe
import pytest

import gpu_eval as ge
from gpu_eval import cards

PEER = {"courchevel": "courchevel", "courchevel-hilo": "courchevel_hi_lo"}


def _spot(rng, board_cards: int):
    deck = rng.permutation(52).astype(np.uint8)
    hands = [cards.format(np.sort(deck[i * 5:i * 5 + 5])) for i in range(2)]
    board = cards.format(deck[10:10 + board_cards]) if board_cards else ""
    return hands, board


@pytest.mark.parametrize("game", list(PEER))
@pytest.mark.parametrize("board_cards", [1, 3, 4])
def test_walked_spots_agree_with_poker_equity(game, board_cards):
    rng = np.random.default_rng(board_cards + 10 * list(PEER).index(game))
    hands, board = _spot(rng, board_cards)
    r = ge.equity(hands, board=board, game=game, backend="numpy")
    peer = pe.exact_from_text(PEER[game], hands, board, "")
    assert r.exact
    for i, p in enumerate(peer["players"]):
        assert abs(r.equity[i] - p["equity"]) < 1e-9
        assert abs(r.win[i] - p["win"]) < 1e-9
        if r.low is not None:
            assert abs(r.low[i] - p["low_equity"]) < 1e-9 and abs(r.scoop[i] - p["scoop"]) < 1e-9


def test_board_sizes():
    with pytest.raises(ValueError, match="'courchevel' board has 1, 3, 4 or 5 cards"):
        ge.equity(["AsKsQd3c2h", "JhTh9d8c4s"], game="courchevel")
    with pytest.raises(ValueError, match="player 1"):
        ge.equity(["AsKsQd3c5c6c", "JhTh9d8c4s"], board="Ah", game="courchevel")


def test_monte_carlo_is_within_four_standard_errors():
    hands, board = ["AsKsQd3c2h", "JhTh9d8c4s"], "Ah"
    ex = ge.equity(hands, board=board, game="courchevel-hilo", backend="numpy")
    mc = ge.equity(hands, board=board, game="courchevel-hilo", samples=30_000, seed=5,
                   backend="numpy")
    assert np.all(np.abs(mc.equity - ex.equity) <= 4 * mc.stderr)


def test_cuda_engine_counts_the_same_integers(stand_in_cupy, monkeypatch):
    from gpu_eval.cuda import games_module

    monkeypatch.setattr(games_module, "_STATES", {})
    hands, board = ["AsKsQd3c2h", "JhTh9d8c4s"], "Ah7c2d"
    a = ge.equity(hands, board=board, game="courchevel-hilo", backend="numpy")
    b = ge.equity(hands, board=board, game="courchevel-hilo", backend="cuda")
    assert b.backend == "cuda"
    assert np.array_equal(a.wins, b.wins) and np.array_equal(a.equity, b.equity)
    assert np.array_equal(a.low, b.low)


def test_omaha_family_progress_bars(capsys):
    ge.equity(["AsKsQd3c2h", "JhTh9d8c4s"], board="Ah7c2d", game="courchevel", progress=True)
    assert "courchevel exact" in capsys.readouterr().err
    ge.equity(["AsKsQd3c2h", "JhTh9d8c4s"], board="Ah7c2d", game="courchevel", progress=False)
    assert capsys.readouterr().err == ""
