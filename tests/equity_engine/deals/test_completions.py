"""A player's completion strengths (deals/completions.player_strengths) read from the cached
tables equal the evaluator's on every completion."""

import numpy as np
import pytest

from gpu_eval.equity_engine.deals import completions


@pytest.mark.parametrize("game,kept", [("badugi-draw", 3), ("badugi-draw", 2),
                                       ("deuce-seven-draw", 4), ("deuce-seven-draw", 5),
                                       ("deuce-seven-draw", 2), ("five-card-draw", 4),
                                       ("five-card-draw", 3), ("five-card-draw", 1),
                                       ("five-card-draw", 0)])
def test_player_strengths_equal_the_evaluator(game, kept):
    rng = np.random.default_rng(kept)
    # Nothing kept: each deal is nearly every five cards of the deck (1.2 million), so three
    # decks cover it; a kept hand's completions are few, thirty hands of them.
    for _ in range(3 if kept == 0 else 30):
        cards = rng.permutation(52)
        hand, out = cards[:kept].tolist(), cards[kept:kept + int(rng.integers(0, 9))].tolist()
        known = 0
        for c in hand:
            known |= 1 << (16 * (c % 4) + c // 4)
        deck = bytes(sorted(set(range(52)) - set(hand) - set(out)))
        need = (4 if game == "badugi-draw" else 5) - kept
        pos, masks, st, lo = completions.player_strengths(game, deck, need, known)
        ref, ref_lo = completions.strengths(game, masks | np.uint64(known))
        np.testing.assert_array_equal(st, ref)
        assert lo is None and ref_lo is None and st.dtype == ref.dtype
