"""Rank planes: the four 13-bit rank sets of a hand (ranks held at least once, twice, three
and four times), from its four suit lanes, with bitwise arithmetic only.

A hand mask (:mod:`gpu_eval.cards`) holds one 13-bit rank lane per suit. The solver tables'
board strengths and the range reports' classifiers both read a hand's pairs, trips and quads
off these planes, so the arithmetic lives here once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np

__all__ = ["planes_of_lanes", "add_rank"]

_A = TypeVar("_A", np.ndarray, int)


def planes_of_lanes(c: _A, d: _A, h: _A, s: _A) -> tuple[_A, _A, _A, _A]:
    """The rank planes of hands given by their club, diamond, heart and spade lanes (arrays
    of any shape, or ints).

    Examples
    --------
    >>> [bin(p) for p in planes_of_lanes(0b1000001, 0b1000001, 0b1, 0)]  # 8c 2c 8d 2d 2h
    ['0b1000001', '0b1000001', '0b1', '0b0']
    """
    cd, hs = c & d, h & s
    b1 = c | d | h | s
    b2 = ((c ^ d) & (h ^ s)) | cd | hs
    b3 = (cd & (h | s)) | (hs & (c | d))
    b4 = cd & hs
    return b1, b2, b3, b4


def add_rank(planes: Sequence[_A], bit: _A) -> tuple[_A, _A, _A, _A]:
    """The planes with one more card of the rank(s) ``bit`` (a one-bit rank set).

    Examples
    --------
    >>> [bin(p) for p in add_rank(planes_of_lanes(0b1, 0, 0, 0), 0b1)]  # 2c, then a deuce
    ['0b1', '0b1', '0b0', '0b0']
    """
    b1, b2, b3, b4 = planes
    return b1 | bit, b2 | (b1 & bit), b3 | (b2 & bit), b4 | (b3 & bit)
