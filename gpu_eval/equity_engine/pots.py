"""One pot split for every game: pot units, and the units each player wins per deal.

A pot is counted in integer *units* so that every split is exact: with ``n`` players a pot is
``lcm(1..n)`` units (each way of splitting it gives whole units), twice that in the hi/lo
games (each half splits again). Exact results are integer counts of these units underneath,
identical on every backend and any number of workers; the CUDA kernels split pots the same way
(``kernels/pots.cuh``).

Hi/lo: with a qualifying low the pot is halved, the high half divided among the players tied
for the best high hand and the low half among those tied for the best low; with no qualifying
low the high hand(s) take the whole pot.
"""

from __future__ import annotations

from functools import cache
from math import lcm

import numpy as np

__all__ = ["pot_units", "game_units", "split"]


@cache  # read on every call: a handful of player counts
def pot_units(n_players: int) -> int:
    """Units in one pot: ``lcm(1..n)``, so every split ``1/c`` is a whole number of units.

    Examples
    --------
    >>> pot_units(2), pot_units(3), pot_units(10)
    (2, 6, 2520)
    """
    return lcm(*range(1, n_players + 1))


def game_units(n_players: int, hilo: bool) -> int:
    """Units in one pot of a game: :func:`pot_units`, doubled when the pot can be halved
    between a high and a low hand.

    Examples
    --------
    >>> game_units(3, False), game_units(3, True)
    (6, 12)
    """
    return 2 * pot_units(n_players) if hilo else pot_units(n_players)


def split(hi: np.ndarray, lo: np.ndarray | None, scale: int
          ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray]:
    """Pot units won per player on each deal, from strengths ``hi`` (and lows ``lo``) of
    shape ``(m, n, c)``: ``m`` matchups, ``n`` players, ``c`` deals.

    A high strength of 0 marks a deal the player cannot take part in (a shared card); a low of
    0 means no qualifying low.

    Returns
    -------
    total, high, low : ndarray
        ``(m, n, c)`` int32 units: in all, and the high and low parts (``None`` without lows).
    valid : ndarray
        ``(m, c)`` bool: deals every player takes part in.

    Examples
    --------
    >>> hi = np.array([[[5, 3], [5, 4]]], dtype=np.uint16)   # a tie, then player 2 alone
    >>> split(hi, None, pot_units(2))[0].tolist()
    [[[1, 0], [1, 2]]]
    >>> lo = np.array([[[0, 7], [0, 2]]], dtype=np.uint8)    # no low, then player 1's low
    >>> split(hi, lo, game_units(2, True))[0].tolist()
    [[[2, 2], [2, 2]]]
    """
    n = hi.shape[1]
    valid = hi.min(axis=1) != 0
    best = hi.max(axis=1)
    win = (hi == best[:, None, :]) & valid[:, None, :]
    cnt = win.sum(axis=1, dtype=np.int32)
    np.maximum(cnt, 1, out=cnt)
    share = np.zeros(n + 1, dtype=np.int32)
    share[1:] = scale // np.arange(1, n + 1)
    if lo is None:
        return win * share[cnt][:, None, :], None, None, valid
    lbest = lo.max(axis=1)
    has_low = (lbest > 0) & valid
    lwin = (lo == lbest[:, None, :]) & has_low[:, None, :]
    lcnt = np.maximum(lwin.sum(axis=1, dtype=np.int32), 1)
    half = share // 2  # scale is even: 2 * lcm(1..n)
    hshare = np.where(has_low, half[cnt], share[cnt])
    hu = win * hshare[:, None, :]
    lu = lwin * half[lcnt][:, None, :]
    return hu + lu, hu, lu, valid
