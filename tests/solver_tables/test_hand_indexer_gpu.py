"""The hand indexer's CUDA kernel on a real GPU against the NumPy path.

Skipped, with the reason, unless CuPy imports and sees a CUDA device;
tests/solver_tables/test_hand_indexer_cuda.py runs the same comparisons without one (host build, stand-in
CuPy).
"""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval.cuda import availability

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)


@pytest.mark.parametrize("layout, game", [((2, 5), "holdem"), ((2, 3, 1, 1), "holdem"),
                                          ((7,), "holdem"), ((2, 3, 1, 1), "shortdeck")])
def test_gpu_index_equals_numpy(layout, game):
    import cupy

    idx = ge.HandIndexer(layout, game=game)
    rng = np.random.default_rng(11)
    deck = 52 - 4 * idx.lowest_rank
    hands = (np.argsort(rng.random((1_000_000, deck)), axis=1)[:, :sum(layout)]
             + 4 * idx.lowest_rank).astype(np.uint8)
    want = idx.index(hands, all_rounds=True, backend="numpy")
    got = idx.index(cupy.asarray(hands), all_rounds=True)
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(idx.index(hands, backend="cuda"), want[:, -1])


def test_gpu_every_flop_class_round_trips():
    import cupy

    idx = ge.HandIndexer((2, 3))
    every = np.arange(idx.size(1))
    got = idx.index(cupy.asarray(idx.unindex(1, every)))
    np.testing.assert_array_equal(got.get(), every)


def test_gpu_bad_row_is_named():
    import cupy

    idx = ge.HandIndexer((2, 5))
    hands = ge.cards.parse(["AsKs 2c7d9hTs3c"] * 100)
    hands[42, 6] = hands[42, 0]
    with pytest.raises(ValueError, match="row 42: card As appears twice"):
        idx.index(cupy.asarray(hands))
