"""The low kernel (2-7, A-5, badugi) on a real GPU against the NumPy path, every hand of each
game's size. Skipped, with the reason, unless CuPy imports and sees a CUDA device;
tests/games/test_lows.py runs the same kernel host-built and through the stand-in CuPy."""

from __future__ import annotations

import numpy as np
import pytest

import gpu_eval as ge
from gpu_eval import cards
from gpu_eval.combinatorics import subset_masks
from gpu_eval.cuda import availability
from gpu_eval.games import lowball

OK, REASON = availability.cuda_available()
pytestmark = pytest.mark.skipif(not OK, reason=REASON)


@pytest.mark.parametrize("game, k", [("deuce-seven", 5), ("ace-five", 5), ("badugi", 4)])
def test_every_hand_on_the_device(game, k):
    import cupy

    m = subset_masks(52, k)
    got = ge.evaluate(cupy.asarray(m), game=game, backend="cuda")
    assert isinstance(got, cupy.ndarray)
    assert np.array_equal(got.get(), lowball.evaluate_masks(m, game))


def test_seven_card_razz_hands_and_errors():
    import cupy

    rng = np.random.default_rng(7)
    ids = np.array([rng.choice(52, 7, replace=False) for _ in range(100_000)], dtype=np.uint8)
    got = ge.evaluate(cupy.asarray(ids), game="ace-five", backend="cuda").get()
    assert np.array_equal(got, lowball.evaluate_masks(cards.to_mask(ids), "ace-five"))
    with pytest.raises(ValueError, match="used twice"):
        ge.evaluate(cupy.asarray(np.array([[0, 4, 8, 12, 12]], dtype=np.uint8)),
                    game="deuce-seven", backend="cuda")
