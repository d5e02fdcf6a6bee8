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
suit lane, 0 under five cards). So per deck the completions' distinct rank keys (``sum
5^rank``; at most 91 after a flop), their multiplicities and suit lanes are cached; per call
each player's strengths on them are one row of the table of flush-free strengths by the
known cards' and the cards to come's rank multisets
(:func:`gpu_eval.equity_engine.holdem.shortcuts.flush_free_ranks.plain_rows`, built once), the
keys are tallied with their multiplicities, and only the completions on which some hand can
still make a flush are played one by one, raised to the flush value: the evaluator's integers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from gpu_eval.equity_engine import enumerate_boards
from gpu_eval.equity_engine.holdem.shortcuts import flush_free_ranks
from gpu_eval.equity_engine.plain_spots import plain
from gpu_eval.equity_engine.pots import pot_units
from gpu_eval.evaluator.tables import bitmask_tables
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM

__all__ = ["counts", "Spot"]

#: Hold'em's record: board sizes, hole cards and the deck are read from it.
_HOLDEM = registry.get(HOLDEM)
_BOARD_SIZES = frozenset(_HOLDEM.board_sizes) - {0}
_FULL_BOARD = _HOLDEM.full_board
_CARDS_LEFT = _HOLDEM.deck_size - _FULL_BOARD  # for hole and dead cards

_LANE = np.uint64(0x1FFF)


@lru_cache(maxsize=256)
def _deck_tables(deck: int, k: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per deck and number of cards to come: the distinct rank keys of the completions
    (``int64``), how many completions have each (``int64``), the index of each completion's
    key among them, the completions' suit lanes ``(4, N)`` (``intp``, to index the flush
    table) and each distinct key's column in
    :func:`~gpu_eval.equity_engine.holdem.shortcuts.flush_free_ranks.plain_rows`'s table.
    Read-only; the same deck asked again skips building them."""
    boards = enumerate_boards.completions(deck, k) if k else np.zeros(1, dtype=np.uint64)
    uniq, inv = np.unique(flush_free_ranks.rank_keys(boards), return_inverse=True)
    inv = inv.reshape(-1).astype(np.intp)
    mult = np.bincount(inv, minlength=len(uniq)).astype(np.int64)
    lanes = np.stack([((boards >> np.uint64(16 * s)) & _LANE).astype(np.intp)
                      for s in range(4)])
    col = flush_free_ranks.plain_rows(k)[2].searchsorted(uniq)
    for a in (uniq, mult, inv, lanes, col):
        a.flags.writeable = False
    return uniq, mult, inv, lanes, col


@lru_cache(maxsize=1024)
def _columns(deck: int, k: int, needs: tuple[tuple[int, int], ...]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The columns a spot is tallied over: first one per distinct rank key, weighted by how
    many completions have it and on which no hand can make a flush (the rank keys alone
    decide there), then one per completion on which some hand may make a flush, weight 1.
    ``needs`` lists ``(suit, cards of it the board must bring)``. Returns each column's
    column in :func:`~gpu_eval.equity_engine.holdem.shortcuts.flush_free_ranks.plain_rows`'s
    table, the columns' weights, the suit lanes ``(4, m)`` of the completions in the last
    ``m`` columns, and the number of completions. Read-only."""
    uniq, mult, inv, lanes, col = _deck_tables(deck, k)
    may = np.zeros(len(inv), dtype=bool)
    for s, need in needs:
        cnt = np.zeros(len(inv), dtype=np.intp)
        for r in range(13):
            cnt += (lanes[s] >> r) & 1
        may |= cnt >= need
    idx = np.flatnonzero(may)
    rest = mult - np.bincount(inv[idx], minlength=len(uniq))
    key_of = np.concatenate([np.arange(len(uniq)), inv[idx]])
    weight = np.concatenate([rest, np.ones(len(idx), dtype=np.int64)])
    out = (col[key_of], weight, np.ascontiguousarray(lanes[:, idx]))
    for x in out:
        x.flags.writeable = False
    return (*out, len(inv))


def _tally(st: np.ndarray, weight: np.ndarray, total: int, scale: int
           ) -> tuple[list[int], list[int], list[int]]:
    """Wins, ties and pot units per player of strengths ``(n, m)``, each column counted
    ``weight`` times (``total`` in all), as Python ints."""
    n = len(st)
    if n == 2:  # two comparisons and two dot products: the fewest NumPy calls
        a, b = st
        w0 = int(weight.dot(a > b))
        t = int(weight.dot(a == b))
        return [w0, total - w0 - t], [t, t], [t * (scale // 2)] * 2
    share = np.zeros(n + 1, dtype=np.int64)
    share[2:] = scale // np.arange(2, n + 1)
    win = st == st.max(axis=0)
    cnt = win.sum(axis=0)
    solo = cnt == 1
    return (((win & solo) @ weight).tolist(), ((win & ~solo) @ weight).tolist(),
            ((win * share[cnt]) @ weight).tolist())


def _counts(masks: list[int], keys: list[int], k: int, deck: int, scale: int
            ) -> tuple[list[int], list[int], list[int], int]:
    """Wins, ties and pot units per player of known hands over every completion of the board
    from ``deck``, and the number of completions: the evaluator's strengths compared.
    ``masks`` and ``keys``: each player's known cards (hole and board) as a hand mask and as
    a rank key (``sum 5^rank``).

    The strengths are not spread over every completion: without a flush a 7-card hand's
    strength is that of its rank multiset, so the completions are tallied by their distinct
    rank keys (at most 91 after a flop, each hand's strengths on them one row of a table),
    each weighted by its multiplicity, and only the completions on which some hand can still
    make a flush are played one by one."""
    _, mult, inv, _, col = _deck_tables(deck, k)
    row_of, table, _ = flush_free_ranks.plain_rows(k)
    rows = table.take([row_of[x] for x in keys], axis=0)  # each hand's row: every column
    flushes = []  # (player, suit, the player's lane of that suit, cards the board must bring)
    for i, m in enumerate(masks):
        for s in range(4):
            lane = (m >> (16 * s)) & 0x1FFF
            n_s = lane.bit_count()
            if n_s + k >= 5:  # this suit can still reach five cards
                flushes.append((i, s, lane, 5 - n_s))
    if not flushes:
        return (*_tally(rows.take(col, axis=1), mult, len(inv), scale), len(inv))
    cols, weight, lanes, total = _columns(
        deck, k, tuple(sorted({(s, need) for _, s, _, need in flushes})))
    st = rows.take(cols, axis=1)
    flush = bitmask_tables().flush
    first = len(cols) - lanes.shape[1]
    for i, s, lane, _ in flushes:
        row = st[i, first:]
        np.maximum(row, flush.take(lanes[s] | lane), out=row)
    return (*_tally(st, weight, total, scale), total)


class Spot(NamedTuple):
    """The counts of a spot of known hands (:func:`counts`), per player as Python ints."""

    wins: list[int]
    ties: list[int]
    units: list[int]   #: pot units won in splits (``scale`` units make a pot)
    scale: int
    boards: int        #: the completions of the board every player is counted over
    board: tuple[int, ...]
    dead: tuple[int, ...]


def counts(players, board, dead) -> Spot | None:
    """The :class:`Spot` of known hands on a 3- to 5-card board, or None.

    Examples
    --------
    >>> c = counts(["AhKh", "QsQd"], "2c7d9s", "")
    >>> c.wins, c.ties, c.boards
    ([237, 753], [0, 0], 990)
    >>> counts(["AhKh", "QQ+"], "2c7d9s", "") is None   # a range: the general path
    True
    """
    if type(players) not in (list, tuple) or not 2 <= len(players) <= 10 \
            or type(board) is not str or not (dead is None or type(dead) is str):
        return None
    n = len(players)
    used = 0
    read = []
    for i, p in enumerate((*players, board, dead or "")):
        if type(p) is not str or (i < n and len(p) != 4):
            return None  # a hand is "AhKh": other spellings take the general path
        got = plain(p)
        if got is None or used & got[1]:
            return None  # the general path names the card used twice, or reads the text
        used |= got[1]
        read.append(got)
    b, d = read[n][0], read[n + 1][0]
    if len(b) not in _BOARD_SIZES or _HOLDEM.hole_cards * n + len(d) > _CARDS_LEFT:
        return None
    _, board_mask, board_key = read[n]
    scale = pot_units(n)
    wins, ties, units, per = _counts([h[1] | board_mask for h in read[:n]],
                                     [h[2] + board_key for h in read[:n]],
                                     _FULL_BOARD - len(b), enumerate_boards.FULL_DECK & ~used,
                                     scale)
    return Spot(wins, ties, units, scale, per, b, d)
