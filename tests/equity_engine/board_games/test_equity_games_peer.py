"""Exact equity for Omaha, Omaha hi/lo and short deck against poker-equity (a peer, in the
``test`` extra), on random spots of every street, preflop included, 2 to 4 players."""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import cards

pe = pytest.importorskip("poker_equity", reason="poker-equity is not installed (pip install "
                         "-e '.[test]' installs it)")

PEER = {"omaha": "omaha", "omaha5": "omaha_five", "omaha6": "omaha_six",
        "omaha-hilo": "omaha_hi_lo", "omaha5-hilo": "omaha_five_hi_lo",
        "shortdeck": "short_deck"}
HOLE = {"omaha": 4, "omaha5": 5, "omaha6": 6, "omaha-hilo": 4, "omaha5-hilo": 5,
        "shortdeck": 2}


def _spot(rng, game, n, board_size):
    low = 16 if game == "shortdeck" else 0
    h = HOLE[game]
    ids = rng.choice(np.arange(low, 52), size=h * n + board_size, replace=False)
    hands = [cards.format(ids[i * h:(i + 1) * h].astype(np.uint8)) for i in range(n)]
    board = " ".join(cards.format(ids[h * n + j:h * n + j + 1].astype(np.uint8))
                     for j in range(board_size))
    return hands, board


@pytest.mark.parametrize("game", list(PEER))
@pytest.mark.parametrize("n, board_size", [(2, 3), (3, 4), (4, 5), (2, 4), (3, 3)])
def test_exact_equals_poker_equity(game, n, board_size):
    rng = np.random.default_rng(abs(hash((game, n, board_size, "peer"))) % 2**32)
    for _ in range(3):
        hands, board = _spot(rng, game, n, board_size)
        peer = pe.exact_from_text(PEER[game], hands, board)
        assert peer is not None and peer["exact"]
        r = ge.equity(hands, board=board, game=game, exact=True)
        np.testing.assert_allclose(r.equity, [p["equity"] for p in peer["players"]],
                                   atol=1e-12, err_msg=f"{game} {hands} {board}")
        if game.endswith("hilo"):
            np.testing.assert_allclose(r.low, [p["low_equity"] for p in peer["players"]],
                                       atol=1e-12)
            np.testing.assert_allclose(r.scoop, [p["scoop"] for p in peer["players"]],
                                       atol=1e-12)


@pytest.mark.parametrize("game, hands", [
    ("shortdeck", ["9h9d", "AcKd"]),
    ("shortdeck", ["JsTs", "6h6d"]),
    ("omaha", ["AsAhKdQc", "JhTc9s8d"]),
    ("omaha-hilo", ["AsAh2d3c", "KsKhQdJc"]),
])
def test_preflop_equals_poker_equity(game, hands):
    peer = pe.exact_from_text(PEER[game], hands, "")
    r = ge.equity(hands, game=game)
    assert r.exact
    np.testing.assert_allclose(r.equity, [p["equity"] for p in peer["players"]], atol=1e-12)
