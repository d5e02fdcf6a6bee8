"""Heads-up counts by outer comparison (gpu_eval.equity_engine.holdem.shortcuts.combo_pair_grid) equal the
per-matchup path."""

import numpy as np
import pytest

from gpu_eval import cards
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.api import equity
from gpu_eval.equity_engine.holdem import numpy_engine
from gpu_eval.equity_engine.holdem.shortcuts import combo_pair_grid


def _problem(a, b, board):
    from gpu_eval.ranges import Range
    known = cards.to_mask(board) if board else np.uint64(0)
    ra, rb = Range(a).without(known), Range(b).without(known)
    pool, inv = np.unique(np.concatenate([ra.masks, rb.masks]), return_inverse=True)
    ia, ib = np.nonzero((ra.masks[:, None] & rb.masks[None, :]) == 0)
    return pool, np.column_stack([inv[ia], inv[len(ra) + ib]]), int(known)


@pytest.mark.parametrize("board,sampled", [("2c7d9h", False), ("2c7d9hKs", False),
                                           ("", True), ("Ah7h2s", True)])
def test_dense_path_equals_per_matchup_path(monkeypatch, board, sampled):
    pool, matchups, known = _problem("QQ+,AKs,T9s", "22+,A2s+,KTs+", board)
    assert combo_pair_grid.plan(matchups) is not None
    deck = enumerate_boards.FULL_DECK & ~known
    k = 5 - (len(board) // 2)
    if sampled:
        boards = enumerate_boards.sample(np.random.default_rng(4), 3000, deck, k)
    else:
        boards = enumerate_boards.completions(deck, k)
    dense = numpy_engine.showdown_counts(pool, matchups, boards, base=known)
    monkeypatch.setattr(combo_pair_grid, "plan", lambda m: None)
    plain = numpy_engine.showdown_counts(pool, matchups, boards, base=known)
    for name in ("wins", "ties", "units", "valid"):
        np.testing.assert_array_equal(getattr(dense, name), getattr(plain, name))


def test_heads_up_against_a_loop():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 30, (7, 50)).astype(np.uint16)
    b = rng.integers(0, 30, (5, 50)).astype(np.uint16)
    gt, eq, valid = combo_pair_grid.heads_up(a, b)
    for i in range(7):
        for j in range(5):
            ok = (a[i] != 0) & (b[j] != 0)
            assert gt[i, j] == np.sum((a[i] > b[j]) & ok)
            assert eq[i, j] == np.sum((a[i] == b[j]) & ok)
            assert valid[i, j] == np.sum(ok)


def test_flop_range_equity_unchanged(monkeypatch):
    r = equity(["QQ+,AKs", "22+,A2s+,KTs+"], board="2c7d9h")
    monkeypatch.setattr(combo_pair_grid, "plan", lambda m: None)
    ref = equity(["QQ+,AKs", "22+,A2s+,KTs+"], board="2c7d9h")
    np.testing.assert_array_equal(r.wins, ref.wins)
    np.testing.assert_array_equal(r.ties, ref.ties)
    np.testing.assert_allclose(r.equity, ref.equity, rtol=0, atol=1e-12)


@pytest.mark.parametrize("board", ["2c7d9h", "2c7d9hKs", "AsKsQs", "7c7d7h", "2c2d7h7s3s"])
def test_rank_pairs_path_equals_combo_path(board):
    from gpu_eval.equity_engine.holdem.shortcuts import flush_free_pairs

    pool, matchups, known = _problem("QQ+,AKs,T9s,72o", "22+,A2s+,KTs+", board)
    ra, rb = np.unique(matchups[:, 0]), np.unique(matchups[:, 1])
    k = 5 - len(board) // 2
    boards = np.atleast_1d(enumerate_boards.completions(enumerate_boards.FULL_DECK & ~known,
                                                         k) | np.uint64(known))
    st = numpy_engine.evaluate_masks((pool[:, None] | boards[None, :]).reshape(-1)).reshape(
        len(pool), -1)
    st[(pool[:, None] & boards[None, :] & ~np.uint64(known)) != 0] = 0
    want = combo_pair_grid.heads_up(st[ra], st[rb], True)
    got = flush_free_pairs.heads_up(pool, boards, ra, rb)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
