"""Shared rank work (gpu_eval.equity_engine.holdem.shortcuts.flush_free_ranks) gives every combo's
strength on every board."""

import numpy as np
import pytest

from gpu_eval import cards
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.holdem.shortcuts import flush_free_ranks
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.ranges import Range


def _check(pool, boards):
    direct = evaluate_masks((pool[:, None] | boards[None, :]).reshape(-1)).reshape(
        len(pool), len(boards))
    got = flush_free_ranks.strengths(pool, boards)
    ok = (pool[:, None] & boards[None, :]) == 0
    np.testing.assert_array_equal(got[ok], direct[ok])


@pytest.mark.parametrize("board", ["2c7d9h", "2c7d9hKs", "7c7d7h", "AsKsQs", "2c2d7h7s",
                                   "5h6h7h8h9h"])
def test_every_completion_of_a_board(board):
    known = np.uint64(int(cards.to_mask(board)))
    pool = np.unique(np.concatenate([Range("QQ+,AKs,76s").without(known).masks,
                                     Range("22+,A2s+,KTs+").without(known).masks]))
    k = 5 - len(board) // 2
    boards = enumerate_boards.completions(enumerate_boards.FULL_DECK & ~int(known), k) | known
    _check(pool, np.atleast_1d(boards))


def test_random_pools_on_random_boards():
    rng = np.random.default_rng(11)
    every = Range("random").masks
    for size in (3, 40, 300, 1326):
        pool = np.unique(rng.choice(every, size, replace=False))
        _check(pool, enumerate_boards.sample(rng, 2000, enumerate_boards.FULL_DECK, 5))
