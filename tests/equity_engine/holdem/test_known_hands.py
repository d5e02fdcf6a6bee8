"""equity() of known hands after the flop (gpu_eval.equity_engine.holdem.shortcuts.known_hands) equals the
general path."""

import numpy as np
import pytest

from gpu_eval import cards
from gpu_eval.equity_engine.api import equity
from gpu_eval.equity_engine.holdem.shortcuts import known_hands


def _text(ids):
    return "".join(cards.RANKS[c // 4] + cards.SUITS[c % 4] for c in ids)


@pytest.mark.parametrize("players,board,dead", [(2, 3, 0), (3, 3, 1), (4, 4, 0), (2, 5, 2),
                                                (5, 3, 0)])
def test_fast_equals_general(monkeypatch, players, board, dead):
    rng = np.random.default_rng(players * 7 + board)
    spots = []
    for _ in range(4):
        deal = rng.permutation(52)[:2 * players + board + dead]
        spots.append(([_text(deal[2 * i:2 * i + 2]) for i in range(players)],
                      _text(deal[2 * players:2 * players + board]),
                      _text(deal[2 * players + board:])))
    fast = [equity(*s) for s in spots]
    monkeypatch.setattr(known_hands, "counts", lambda *a: None)
    for s, f in zip(spots, fast):
        ref = equity(*s)
        assert f.method == ref.method and f.board == ref.board and f.dead == ref.dead
        assert f.labels == ref.labels and f.boards == ref.boards
        np.testing.assert_array_equal(f.wins, ref.wins)
        np.testing.assert_array_equal(f.ties, ref.ties)
        np.testing.assert_allclose(f.equity, ref.equity, rtol=0, atol=1e-12)
        np.testing.assert_allclose(f.tie, ref.tie, rtol=0, atol=1e-12)


@pytest.mark.parametrize("board", [3, 4, 5])
def test_flush_heavy_spots_equal_the_evaluator(board):
    # Most cards of one suit, so the flush lookups (one per suit a hand can still fill) and
    # straight flushes decide many boards; compared with the evaluator on every hand mask.
    from gpu_eval.equity_engine import enumerate_boards as eb
    from gpu_eval.evaluator.bitmask import evaluate_masks
    rng = np.random.default_rng(board)
    for _ in range(40):
        n = int(rng.integers(2, 6))
        suited = [c for c in rng.permutation(52).tolist() if c % 4 == 2]
        other = [c for c in rng.permutation(52).tolist() if c % 4 != 2]
        deal = suited[:int(rng.integers(3, 9))] + other
        deal = [deal[i] for i in rng.permutation(2 * n + board)]
        players = [_text(deal[2 * i:2 * i + 2]) for i in range(n)]
        text = _text(deal[2 * n:])
        c = known_hands.counts(players, text, "")
        pool = cards.to_mask(players)
        known = int(np.bitwise_or.reduce(pool)) | int(cards.to_mask(text))
        k = 5 - board
        boards = (eb.completions(eb.FULL_DECK & ~known, k) if k else np.zeros(1, np.uint64)) \
            | cards.to_mask(text)
        st = evaluate_masks((pool[:, None] | boards[None, :]).ravel()).reshape(n, -1)
        win = st == st.max(axis=0)
        solo = win.sum(axis=0) == 1
        np.testing.assert_array_equal(c.wins, (win & solo).sum(axis=1))
        np.testing.assert_array_equal(c.ties, (win & ~solo).sum(axis=1))


def test_other_input_goes_the_general_way():
    assert known_hands.counts(["AhKh", "QQ"], "2c7d9h", "") is None
    assert known_hands.counts(["AhKh", "QsQd"], "", "") is None
    assert known_hands.counts(["AhKh", "QsQd"], "2c7d9x", "") is None
    assert known_hands.counts(["AhKh", "QsQd"], "2c7dKh", "") is None  # Kh twice
    with pytest.raises(ValueError, match="card Kh is used twice"):
        equity(["AhKh", "QsQd"], board="2c7dKh")
    with pytest.raises(ValueError, match="unknown card"):
        equity(["AhKh", "QsQd"], board="2c7d9x")
