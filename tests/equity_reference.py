"""A slow, obviously correct equity calculator used only by the equity tests.

Every board completion is listed with ``itertools.combinations``, every hand is scored by the
test suite's own reference evaluator (``reference.best_key``, which shares no code with the
package), and wins, split pots and pot shares are counted in plain Python with exact
fractions. Ranges are handled by listing every matchup and averaging by the product of the
combo weights.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, product

import numpy as np

from gpu_eval import cards
from gpu_eval.ranges import Range

from reference import best_key


def ids(text: str) -> list[int]:
    return [int(c) for c in cards.parse(text).reshape(-1)] if text.strip() else []


def showdowns(hands: list[list[int]], board: list[int], dead: list[int] = ()):
    """Known hands: ``(wins, ties, shares, boards)`` per player over every completion.

    ``shares`` are exact Fractions of the pot summed over boards.
    """
    used = set(board) | set(dead) | {c for h in hands for c in h}
    deck = [c for c in range(52) if c not in used]
    completions = list(combinations(deck, 5 - len(board)))
    rows = [h + board + list(b) for b in completions for h in hands]
    keys = best_key(np.array(rows)).reshape(len(completions), len(hands)).tolist()
    n = len(hands)
    wins, ties, shares = [0] * n, [0] * n, [Fraction(0)] * n
    for k in keys:
        best = max(k)
        winners = [p for p in range(n) if k[p] == best]
        for p in winners:
            if len(winners) == 1:
                wins[p] += 1
            else:
                ties[p] += 1
            shares[p] += Fraction(1, len(winners))
    return wins, ties, shares, len(completions)


def range_equity(players: list, board: str = "", dead: str = "") -> list[float]:
    """Weighted equity per player; each player a hand or range text, or a Range."""
    b, d = ids(board), ids(dead)
    rs = [p if isinstance(p, Range) else Range(p) for p in players]
    combos = [[(r.combos[i].tolist(), float(r.weights[i])) for i in range(len(r))] for r in rs]
    n = len(players)
    total_w = 0.0
    acc = [0.0] * n
    for pick in product(*combos):
        cs = [c for hand, _ in pick for c in hand]
        if len(set(cs)) != len(cs) or set(cs) & (set(b) | set(d)):
            continue
        w = float(np.prod([wt for _, wt in pick]))
        _, _, shares, nb = showdowns([hand for hand, _ in pick], b, d)
        for p in range(n):
            acc[p] += w * float(shares[p]) / nb
        total_w += w
    return [a / total_w for a in acc]
