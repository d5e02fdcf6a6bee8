"""Whether the players of a Monte Carlo run can be dealt at all, decided before launching.

The Monte Carlo kernels redraw a whole matchup while two ranged players share a card; on
ranges that can never be dealt together every sample would redraw up to its limit (2^22
times) before the run fails. :func:`can_deal` finds one compatible matchup by a depth-first
search (smallest range first, candidates filtered with one vectorised test per level), after
a count of the cards each rank, suit and card must supply, so impossible input is rejected on
the host in microseconds to milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["can_deal", "check_dealable", "NODE_BUDGET"]

#: Search nodes before giving up with "unknown" (the kernels' own early stop then applies).
NODE_BUDGET = 200_000


def can_deal(holes: Sequence[np.ndarray], cum_weights: Sequence[np.ndarray | None],
             dealt: Sequence[bool], deck_cards: int, k: int,
             budget: int = NODE_BUDGET, *, hole_cards: int = 2) -> bool | None:
    """Whether one combo per ranged player, no card twice, leaves enough cards to deal.

    Parameters
    ----------
    holes : sequence of numpy.ndarray
        Per player, the ``uint64`` masks of its combos (one for a known hand).
    cum_weights : sequence of numpy.ndarray or None
        Per player, cumulative combo weights, or None for a known hand (already out of the
        deck and the other ranges); combos of weight 0 are never drawn, so do not count.
    dealt : sequence of bool
        Players dealt their hole cards from the deck instead of from their range.
    deck_cards : int
        Cards the deck holds for completions (the ranged players' cards come out of it).
    k : int
        Board cards still to deal.
    budget : int
        Search nodes to spend before answering ``None``.
    hole_cards : int
        Cards in a hand (2 in hold'em and short deck, 4 to 6 in Omaha): what each ranged
        combo takes out of the deck and each dealt player needs.

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
    >>> can_deal([aa, aa], [w, w], [False, True], 12, 5, hole_cards=4)  # 12 - 4 < 4 + 5
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
    # Each ranged combo takes its cards from the deck; what is left must deal the rest.
    if deck_cards - hole_cards * len(ranged) < hole_cards * n_dealt + k or any(
            len(m) == 0 for m in ranged):
        return False
    if _overbooked(ranged):
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


# Card groups whose demand is compared with their size: each rank's four cards, each suit's
# thirteen, each single card (hand-mask bits).
_GROUPS = np.array([0x1000100010001 << r for r in range(13)]
                   + [0x1FFF << (16 * s) for s in range(4)]
                   + [1 << (16 * s + r) for r in range(13) for s in range(4)], dtype=np.uint64)


def _overbooked(ranged: Sequence[np.ndarray]) -> bool:
    """Whether some card group is needed more often than it has cards: every combo of a
    player holds at least that player's need of the group's cards, and the needs add up past
    the group's size (three Omaha players who each hold two aces need six of four). A quick
    proof that no matchup exists, before (and often instead of) the search.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> aces = cards.to_mask(["AcAd", "AhAs", "AcAh"])
    >>> _overbooked([aces, aces, aces]), _overbooked([aces, aces])
    (True, False)
    """
    need = np.zeros(len(_GROUPS), dtype=np.int64)
    for m in ranged:
        need += np.bitwise_count(m[:, None] & _GROUPS[None, :]).min(axis=0)
    return bool(np.any(need > np.bitwise_count(_GROUPS)))


def check_dealable(holes: Sequence[np.ndarray], cum_weights: Sequence[np.ndarray | None],
                   dealt: Sequence[bool], deck_cards: int, k: int, *,
                   hole_cards: int = 2) -> None:
    """Raise ``ValueError`` when :func:`can_deal` finds that the players cannot be dealt
    together (the Monte Carlo engines' check before any launch; an unknown answer passes,
    and the kernels' stop flag then ends the run at the first sample that fails).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> aa = cards.to_mask(["AcAd", "AhAs"])
    >>> check_dealable([aa] * 3, [np.arange(1.0, 3.0)] * 3, [False] * 3, 52, 5)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the players' ranges cannot be dealt together (every matchup of their hands ...
    """
    if can_deal(holes, cum_weights, dealt, deck_cards, k, hole_cards=hole_cards) is False:
        raise ValueError("the players' ranges cannot be dealt together (every matchup of "
                         "their hands shares a card or leaves too few cards for the board)")

