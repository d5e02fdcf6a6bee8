"""One spot with every hand known, on the flop, turn or river: counted with a handful of
NumPy calls.

:func:`gpu_eval.equity` is built for ranges: it parses each player into a
:class:`~gpu_eval.Range`, removes cards, enumerates matchups, looks for suit symmetry and
plays chunks on a thread pool. For the common one-spot call (``equity(["AhKh", "QsQd"],
board="2c7d9h")``, at most 990 boards) all of that costs far more than the showdowns
themselves. :func:`counts` takes only plain hand texts, checks them, and plays the board
completions directly; anything else (ranges, bad input, preflop) returns None, and the general
path runs and raises its usual errors.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, lcm

import numpy as np

from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.evaluator.bitmask import evaluate_masks

__all__ = ["counts"]

_CARD = {r + s: 4 * i + j for i, r in enumerate("23456789TJQKA") for j, s in enumerate("cdhs")}
_CARD.update({k[0].lower() + k[1]: v for k, v in _CARD.items()})
_CARD.update({k[0] + k[1].upper(): v for k, v in list(_CARD.items())})
_BIT = [1 << (16 * (c % 4) + c // 4) for c in range(52)]


@lru_cache(maxsize=256)
def _completions(deck: int, k: int) -> np.ndarray:
    """Board completions of a deck (read-only; the same spot asked again skips the 20 us
    that building the list from the deck's card ids takes)."""
    return enumerate_boards.completions(deck, k)


def _ids(text: str) -> list[int] | None:
    """Card ids of text such as ``"2c7d9h"`` or ``"2c 7d 9h"``; None if it is anything else."""
    t = text.replace(" ", "").replace(",", "")
    if len(t) % 2:
        return None
    out = []
    for i in range(0, len(t), 2):
        c = _CARD.get(t[i:i + 2])
        if c is None:
            return None
        out.append(c)
    return out


def counts(players, board, dead) -> tuple | None:
    """``(wins (1, n), ties (1, n), units (1, n), valid (1,), scale, boards, board ids,
    dead ids)`` of a spot of known hands on a 3- to 5-card board, or None.

    Examples
    --------
    >>> c = counts(["AhKh", "QsQd"], "2c7d9s", "")
    >>> c[0].tolist(), c[5]
    ([[237, 753]], 990)
    >>> counts(["AhKh", "QQ+"], "2c7d9s", "") is None   # a range: the general path
    True
    """
    if not isinstance(players, (list, tuple)) or not 2 <= len(players) <= 10 \
            or not isinstance(board, str) or not isinstance(dead, (str, type(None))):
        return None
    holes = []
    for p in players:
        if not isinstance(p, str) or len(p) != 4:
            return None
        h = _ids(p)
        if h is None:
            return None
        holes.append(h)
    b = _ids(board)
    d = _ids(dead or "")
    if b is None or d is None or len(b) not in (3, 4, 5):
        return None
    every = [c for h in holes for c in h] + b + d
    if len(set(every)) != len(every) or 2 * len(holes) + 5 + len(d) > 52:
        return None  # the general path names the card used twice
    used = 0
    for c in every:
        used |= _BIT[c]
    k = 5 - len(b)
    deck = enumerate_boards.FULL_DECK & ~used
    base = np.uint64(sum(_BIT[c] for c in b))
    boards = _completions(deck, k) | base if k else np.array([base])
    n = len(holes)
    hole = np.array([_BIT[h[0]] | _BIT[h[1]] for h in holes], dtype=np.uint64)
    st = evaluate_masks((hole[:, None] | boards[None, :]).reshape(-1)).reshape(n, -1)
    scale = lcm(*range(1, n + 1))
    if n == 2:
        w0 = int(np.count_nonzero(st[0] > st[1]))
        t = int(np.count_nonzero(st[0] == st[1]))
        wins = np.array([[w0, len(boards) - w0 - t]], dtype=np.int64)
        ties = np.array([[t, t]], dtype=np.int64)
        units = ties * (scale // 2)
    else:
        share = np.zeros(n + 1, dtype=np.int64)
        share[2:] = scale // np.arange(2, n + 1)
        win = st == st.max(axis=0)
        cnt = win.sum(axis=0)
        solo = cnt == 1
        wins = np.count_nonzero(win & solo, axis=1)[None, :].astype(np.int64)
        ties = np.count_nonzero(win & ~solo, axis=1)[None, :].astype(np.int64)
        units = (win * share[cnt]).sum(axis=1)[None, :].astype(np.int64)
    per = comb(bin(deck).count("1"), k)
    return wins, ties, units, np.array([per]), scale, per, b, d
