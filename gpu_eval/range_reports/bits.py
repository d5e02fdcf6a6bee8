"""Rank and suit bit tricks the classifiers share: 13-bit rank sets, rank planes of a hand
mask, the highest set bit, the straights of a game as rank sets.

A *rank set* is a 13-bit integer with bit ``r`` set for rank ``r`` (0 = deuce .. 12 = ace).
A hand mask (:mod:`gpu_eval.cards`) holds one such lane per suit, so a mask's lanes, OR-ed,
are its rank set; the *planes* of a hand are four rank sets: the ranks it holds at least once,
twice, three and four times.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gpu_eval.games.registry import Game
from gpu_eval.rank_planes import add_rank, planes_of_lanes

__all__ = ["ACE", "lanes", "rank_planes", "add_rank", "high_bit", "popcount", "straights",
           "deck_ranks", "rank_bits"]

ACE = 12

#: HIGH[x]: the highest set bit of a 13-bit x (-1 for 0), as int8.
HIGH = np.full(1 << 13, -1, dtype=np.int8)
for _b in range(13):
    HIGH[1 << _b:2 << _b] = _b
HIGH.flags.writeable = False
del _b


def lanes(masks: np.ndarray) -> np.ndarray:
    """``(..., 4)`` uint16 suit lanes (clubs, diamonds, hearts, spades) of hand masks."""
    m = np.ascontiguousarray(masks, dtype=np.uint64)
    return m.view(np.uint16).reshape(*m.shape, 4)


def suit_most(masks: np.ndarray) -> np.ndarray:
    """``(...)`` the most cards of one suit in each hand mask (which counts can play a flush).

    Examples
    --------
    >>> from gpu_eval import cards
    >>> suit_most(cards.to_mask(["Kd7c2h5s9d", "Kd7d2d5d9c"])).tolist()
    [2, 4]
    """
    return np.bitwise_count(lanes(masks)).max(axis=-1)


def rank_planes(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ranks held at least once, twice, three and four times by each hand mask.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> [int(p[0]) for p in rank_planes(cards.to_mask(["AsAhAd7c7d"]))]
    [4128, 4128, 4096, 0]
    """
    ln = lanes(masks)
    return planes_of_lanes(*(ln[..., i] for i in range(4)))


def high_bit(x: np.ndarray) -> np.ndarray:
    """The highest rank in each rank set (int8; -1 for the empty set).

    Examples
    --------
    >>> high_bit(np.array([0, 1, 0x1000, 0x0A0], dtype=np.uint16)).tolist()
    [-1, 0, 12, 7]
    """
    return HIGH[np.asarray(x, dtype=np.uint16) & 0x1FFF]


def popcount(x: np.ndarray) -> np.ndarray:
    """Bits set in each value (uint8)."""
    return np.bitwise_count(np.asarray(x))


def rank_bits(ranks: np.ndarray) -> np.ndarray:
    """The one-rank sets ``1 << rank`` (uint16)."""
    return (np.uint16(1) << np.asarray(ranks).astype(np.uint16)).astype(np.uint16)


def deck_ranks(game: Game) -> int:
    """The rank set of the game's deck (ranks ``lowest_rank`` .. ace)."""
    return ((1 << 13) - 1) & ~((1 << game.lowest_rank) - 1)


@cache
def straights(game: Game) -> np.ndarray:
    """The straights of the game as rank sets, lowest first (uint16): hold'em's ten, from
    A-2-3-4-5 to T-J-Q-K-A; short deck's six, from A-6-7-8-9.

    Examples
    --------
    >>> from gpu_eval.games import registry
    >>> [bin(int(w)) for w in straights(registry.get("holdem"))[:2]]
    ['0b1000000001111', '0b11111']
    >>> len(straights(registry.get("shortdeck")))
    6
    """
    low = game.lowest_rank
    wheel = (1 << ACE) | sum(1 << r for r in range(low, low + 4))
    out = [wheel] + [sum(1 << r for r in range(a, a + 5)) for a in range(low, ACE - 3)]
    arr = np.array(out, dtype=np.uint16)
    arr.flags.writeable = False
    return arr
