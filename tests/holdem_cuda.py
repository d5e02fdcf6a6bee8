"""The Monte Carlo cases the hold'em CUDA engine's tests share (on the stand-in CuPy and on a
real device): the players and boards, and what gpu_eval.equity_engine.api hands the engine's
sample_counts for them."""

from __future__ import annotations

from math import comb

import numpy as np

from gpu_eval.equity_engine import problem as equity_problem


def mc_setup(players, board="", dead=""):
    """What gpu_eval.equity_engine.api hands sample_counts: holes, cum weights, deck, base, k, dealt."""
    prob = equity_problem.prepare(players, board, dead)
    holes = [p.masks for p in prob.players]
    cum = [None if p.fixed else np.cumsum(p.weights) for p in prob.players]
    n_any = comb(bin(prob.deck_mask).count("1"), 2)
    dealt = [not p.fixed and len(p.masks) == n_any for p in prob.players]
    return holes, cum, prob.deck_mask, prob.board_mask, prob.k, dealt


MC_CASES = {
    "hand vs hand preflop": (["AhKh", "QsQd"], ""),
    "weighted ranges, flop": (["QQ+:0.7,AKs,0.3(A5s-A2s)", "JJ+,AQs+,0.5(KQo)"], "Kd 7c 2h"),
    "uniform + weighted + random, turn": (["TT+", "AK:0.4,KQs", "random"], "2c 7d 9s Jh"),
    "two random players and a hand": (["random", "AsAd", "random"], ""),
    "clashing ranges, 4 players": (["AA,KK", "AK,AQs", "KQ,AKs", "QQ+"], "2c 3d 4h"),
}
