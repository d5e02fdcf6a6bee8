"""Whether the players of a Monte Carlo run can be dealt at all, decided before launching.

The Monte Carlo kernels redraw a whole matchup while two ranged players share a card; on
ranges that can never be dealt together every sample would redraw up to its limit (2^22
times) before the run fails. :func:`can_deal` finds one compatible matchup by a depth-first
search (smallest range first, candidates filtered with one vectorised test per level), so
impossible input is rejected on the host in microseconds to milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["can_deal", "NODE_BUDGET"]

#: Search nodes before giving up with "unknown" (the kernels' own early stop then applies).
NODE_BUDGET = 200_000


def can_deal(holes: Sequence[np.ndarray], cum_weights: Sequence[np.ndarray | None],
             dealt: Sequence[bool], deck_cards: int, k: int,
             budget: int = NODE_BUDGET) -> bool | None:
    """Whether one combo per ranged player, no card twice, leaves enough cards to deal.

    Parameters
    ----------
    holes : sequence of numpy.ndarray
        Per player, the ``uint64`` masks of its combos (one for a known hand).
    cum_weights : sequence of numpy.ndarray or None
        Per player, cumulative combo weights, or None for a known hand (already out of the
        deck and the other ranges); combos of weight 0 are never drawn, so do not count.
    dealt : sequence of bool
        Players dealt two cards from the deck instead of from their range.
    deck_cards : int
        Cards the deck holds for completions (the ranged players' cards come out of it).
    k : int
        Board cards still to deal.
    budget : int
        Search nodes to spend before answering ``None``.

    Returns
    -------
    bool or None
        True when a compatible matchup exists, False when none does, None when the search
        ran out of budget.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> aa = cards.to_mask(["AcAd", "AcAh", "AcAs", "AdAh", "AdAs", "AhAs"])
    >>> w = np.arange(1.0, 7.0)  # cumulative weights of six equal combos
    >>> can_deal([aa, aa], [w, w], [False, False], 52, 5)
    True
    >>> can_deal([aa, aa, aa], [w, w, w], [False] * 3, 52, 5)
    False
    """
    ranged = []  # the players drawn from their range (known hands are out of them already)
    for p, h in enumerate(holes):
        cw = cum_weights[p]
        if dealt[p] or cw is None:
            continue
        m = np.asarray(h, dtype=np.uint64).reshape(-1)
        w = np.diff(np.asarray(cw, dtype=np.float64), prepend=0.0)
        ranged.append(np.unique(m[w > 0]))
    n_dealt = sum(bool(d) for d in dealt)
    # Each ranged combo takes two deck cards; what is left must deal the rest.
    if deck_cards - 2 * len(ranged) < 2 * n_dealt + k or any(len(m) == 0 for m in ranged):
        return False
    ranged.sort(key=len)
    nodes = 0

    def search(level: int, used: np.uint64) -> bool | None:
        nonlocal nodes
        if level == len(ranged):
            return True
        for m in ranged[level][(ranged[level] & used) == 0]:
            nodes += 1
            if nodes > budget:
                return None
            found = search(level + 1, used | m)
            if found is not False:
                return found
        return False

    return search(0, np.uint64(0))
