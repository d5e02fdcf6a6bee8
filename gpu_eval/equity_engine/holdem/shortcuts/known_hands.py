"""One spot with every hand known, on the flop, turn or river: counted with a handful of
NumPy calls.

:func:`gpu_eval.equity` is built for ranges: it parses each player into a
:class:`~gpu_eval.Range`, removes cards, enumerates matchups, looks for suit symmetry and
plays chunks on a thread pool. For the common one-spot call (``equity(["AhKh", "QsQd"],
board="2c7d9h")``, at most 990 boards) all of that costs far more than the showdowns
themselves. :func:`counts` takes only plain hand texts, checks them, and plays the board
completions directly; anything else (ranges, bad input, preflop) returns None, and the general
path runs and raises its usual errors.

No hand is evaluated card by card: at a few thousand hands the evaluator's forty NumPy calls
cost far more than their arithmetic. A 7-card hand's strength is the better of its strength
without flushes, which depends only on its rank multiset, and its flush (the flush table of one
suit lane, 0 under five cards). So per deck the completions' rank keys (``sum 5^rank``; at most
91 distinct ones after a flop) and suit lanes are cached, and per call each player's rank key
is added to the distinct completion keys, looked up in the table of every 7-card rank multiset
(:func:`gpu_eval.equity_engine.holdem.shortcuts.flush_free_ranks.plain7`), spread over the boards, and
raised to the
flush value where the player's known cards leave a flush possible: the evaluator's integers.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb, lcm

import numpy as np

from gpu_eval.card_input import plain_text_ids
from gpu_eval.card_spelling import CARD_BIT, CARD_POW5_INTS
from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.holdem.shortcuts import flush_free_ranks
from gpu_eval.evaluator.tables import bitmask_tables
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM

__all__ = ["counts"]

#: Hold'em's record: board sizes, hole cards and the deck are read from it.
_HOLDEM = registry.get(HOLDEM)



_LANE = np.uint64(0x1FFF)


@lru_cache(maxsize=256)
def _deck_tables(deck: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per deck and number of cards to come: the completions (``uint64``), the index of each
    one's rank key among the distinct keys, the distinct keys (``int64``), and the
    completions' suit lanes ``(4, N)`` (``intp``, to index the flush table). Read-only; the
    same spot asked again skips building them."""
    boards = enumerate_boards.completions(deck, k) if k else np.zeros(1, dtype=np.uint64)
    uniq, inv = np.unique(flush_free_ranks.rank_keys(boards), return_inverse=True)
    inv = inv.reshape(-1).astype(np.intp)
    lanes = np.stack([((boards >> np.uint64(16 * s)) & _LANE).astype(np.intp)
                      for s in range(4)])
    for a in (uniq, inv, lanes):
        a.flags.writeable = False
    return boards, inv, uniq, lanes


def _strengths(holes: list[list[int]], board: list[int], deck: int, k: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """``(strengths (n, N) uint16, completions (N,))`` of each known hand on each board
    completion: the same integers as :func:`evaluate_masks` on ``hole | board``."""
    boards, inv, uniq, lanes = _deck_tables(deck, k)
    keys7, plain7 = flush_free_ranks.plain7()
    known = [h + board for h in holes]
    base = np.array([sum(CARD_POW5_INTS[c] for c in cs) for cs in known], dtype=np.int64)
    plain = plain7[np.searchsorted(keys7, base[:, None] + uniq[None, :])]
    st = np.take(plain, inv, axis=1)  # a quarter of the time of plain[:, inv]
    flush = bitmask_tables().flush
    for i, cs in enumerate(known):
        suits = [c % 4 for c in cs]
        for s in range(4):
            if suits.count(s) + k >= 5:  # this suit can still reach five cards
                lane = sum(1 << (c // 4) for c in cs if c % 4 == s)
                np.maximum(st[i], np.take(flush, lanes[s] | lane), out=st[i])
    return st, boards


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
        h = plain_text_ids(p)
        if h is None:
            return None
        holes.append(h)
    b = plain_text_ids(board)
    d = plain_text_ids(dead or "")
    if b is None or d is None or len(b) == 0 or len(b) not in _HOLDEM.board_sizes:
        return None
    every = [c for h in holes for c in h] + b + d
    if len(set(every)) != len(every) or _HOLDEM.hole_cards * len(holes) \
            + _HOLDEM.full_board + len(d) > _HOLDEM.deck_size:
        return None  # the general path names the card used twice
    used = 0
    for c in every:
        used |= CARD_BIT[c]
    k = _HOLDEM.cards_to_come(len(b))
    deck = enumerate_boards.FULL_DECK & ~used
    n = len(holes)
    st, boards = _strengths(holes, b, deck, k)
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
