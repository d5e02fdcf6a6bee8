"""Showdowns: who wins each deal, with ties split, from the players' strengths."""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from gpu_eval.array_interop import accepts_arrays
from gpu_eval.games.registry import HOLDEM
from gpu_eval.strength import check_game, strength_dtype, tag_of

__all__ = ["compare", "Showdown"]


class Showdown(NamedTuple):
    """The result of :func:`compare`, one row per deal and one column per player.

    Attributes
    ----------
    winners : array of bool, shape (N, P)
        True for every player holding the best hand of the row (several on a tie).
    share : array of float64, shape (N, P)
        The player's share of the pot: ``1 / number of winners`` for winners, else 0.
    best : array of uint16, shape (N,)
        The winning strength of each row (0 when no player has a valid hand).
    """

    winners: np.ndarray
    share: np.ndarray
    best: np.ndarray


@accepts_arrays("strengths")
def compare(strengths: npt.ArrayLike, *, axis: int = -1) -> Showdown:
    """Winners and pot shares per deal, from the strengths of several players.

    Parameters
    ----------
    strengths : array_like or sequence of array_like
        Strengths from one game's scale (``evaluate``, ``evaluate_omaha``, or with the same
        ``game``/``wild``: never mix scales; strengths whose dtypes carry different games,
        a plain ``uint16`` array counting as hold'em, raise ``ValueError``, see
        ``gpu_eval.strength``). Either one array with players along ``axis``
        (default: the last, i.e. ``(N, P)``), or a sequence of P per-player arrays of equal
        shape (``(N,)`` each, or scalars for one deal). Strength 0 ("no valid hand", from
        ``invalid="mask"``) never wins; a row where every player has 0 has no winner.
    axis : int
        The players' axis of a single array input.

    Returns
    -------
    Showdown
        ``(winners, share, best)`` with players on the last axis; NumPy in, NumPy out,
        CuPy in, CuPy out. ``best`` keeps the players' game in its dtype (NumPy).

    Raises
    ------
    ValueError
        Players' strengths tagged with different games, no player, a negative strength.
    TypeError
        Strengths that are not integers.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> board = "Ah Kd 7c 7s 2h"
    >>> s = [ge.evaluate(h + " " + board) for h in ("AsQd", "AcQh", "KhKs")]
    >>> r = compare(s)
    >>> r.winners.tolist(), r.share.tolist()
    ([False, False, True], [0.0, 0.0, 1.0])
    >>> compare([[7000, 5000], [7000, 6000]]).share.tolist()   # (N=2 deals, P=2 players)
    [[1.0, 0.0], [1.0, 0.0]]
    >>> compare([[7000, 7000]]).share.tolist()                 # a tie splits the pot
    [[0.5, 0.5]]
    """
    xp = _array_module(strengths)
    game = _common_game(strengths)
    if isinstance(strengths, (list, tuple)) and strengths and \
            all(hasattr(s, "shape") or np.ndim(s) == 0 for s in strengths) and \
            any(hasattr(s, "shape") for s in strengths):
        arr = xp.stack([xp.asarray(s) for s in strengths], axis=-1)
    else:
        arr = xp.moveaxis(xp.asarray(strengths), axis, -1)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"strengths must be integers, got dtype {arr.dtype}")
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"compare() needs at least one player; got shape {arr.shape}")
    if bool((arr < 0).any()):
        raise ValueError("strengths must not be negative")
    best = arr.max(axis=-1)
    winners = (arr == best[..., None]) & (best[..., None] > 0)
    count = winners.sum(axis=-1, keepdims=True)
    share = xp.where(winners, 1.0 / xp.maximum(count, 1), 0.0)
    best = best.astype(xp.uint16)
    if xp is np and game is not None:
        best = best.view(strength_dtype(game))
    return Showdown(winners, share, best)


def _common_game(strengths) -> str | None:
    """The game of the players' strengths (from their dtypes), None if none says; raises
    ``ValueError`` when two players' strengths belong to games on different scales."""
    items = strengths if isinstance(strengths, (list, tuple)) else [strengths]
    found: dict[str, str] = {}  # scale -> first game seen on it
    for item in items:
        dtype = getattr(item, "dtype", None)
        if dtype is None:
            continue  # Python ints, nested lists: no game to check
        tagged = tag_of(item)
        if tagged is None:
            if dtype != np.uint16:
                continue  # e.g. int64 arrays: no claim either way
            tagged = HOLDEM  # plain uint16 strengths are hold'em's
        found.setdefault(check_game(tagged), tagged)
    if len(found) > 1:
        games = ", ".join(repr(g) for g in found.values())
        raise ValueError(f"compare() got strengths of different games ({games}, read from "
                         f"their dtypes; plain uint16 means hold'em): their scales cannot be "
                         f"compared. Evaluate every player with the same game= / wild=")
    return next(iter(found.values()), None)


def _array_module(x):
    cp = sys.modules.get("cupy")
    if cp is None:
        return np
    items = x if isinstance(x, (list, tuple)) else [x]
    return cp if any(isinstance(i, cp.ndarray) for i in items) else np
