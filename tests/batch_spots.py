"""Random spots of ``equity_batch`` (disjoint cards per spot): shared by the batch tests on the
stand-in device and on a real one."""

from __future__ import annotations

import numpy as np


def random_spots(rng, n: int, p: int, b: int, max_dead: int = 3):
    """``(hands (n, p, 2), boards (n, b), dead texts)``: random disjoint cards per spot."""
    hands = np.empty((n, p, 2), dtype=np.int16)
    boards = np.empty((n, b), dtype=np.int16)
    dead = []
    for i in range(n):
        d = int(rng.integers(0, max_dead + 1))
        deck = rng.permutation(52)[:2 * p + b + d]
        hands[i] = deck[:2 * p].reshape(p, 2)
        boards[i] = deck[2 * p:2 * p + b]
        dead.append("".join("23456789TJQKA"[c // 4] + "cdhs"[c % 4] for c in deck[2 * p + b:]))
    return hands, boards, dead
