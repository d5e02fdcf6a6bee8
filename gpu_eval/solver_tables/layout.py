"""The column layout of the solver tables: a game's hole pairs in colex order, and per-deck
lookup arrays every table builder reads (rank pairs, suit lanes, the pairs through each card).

Hold'em has 1,326 columns (every pair of the 52 cards); short deck has 630 (every pair of its
36 cards, ids 16..51). Column ``j`` is the colex pair number ``j`` of the deck's cards, so the
hold'em column of ``(a, b)``, ``a < b``, is ``b * (b - 1) / 2 + a``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np

from gpu_eval.cards import ID_TO_MASK
from gpu_eval.combinatorics import unrank
from gpu_eval.evaluator.tables import BitmaskTables, bitmask_tables
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM

__all__ = ["hole_pairs", "DeckLayout", "deck_layout"]

#: The evaluators of the games the solver tables support (the bitmask evaluator's, on a board).
EVALUATORS = (registry.HOLDEM, registry.SHORTDECK)


@dataclass(frozen=True)
class DeckLayout:
    """Read-only arrays describing one game's columns (see the module docstring)."""

    game: str
    lowest_card: int          # the deck's lowest card id (0 hold'em, 16 short deck)
    deck_size: int            # 52 or 36
    pairs: np.ndarray         # uint8 (C, 2): the two card ids of each column, a < b
    pair_masks: np.ndarray    # uint64 (C,): each column's hand mask
    rank_pairs: np.ndarray    # uint8 (R, 2): the hole rank pairs r1 <= r2 of the deck's ranks
    column_rank_pair: np.ndarray  # intp (C,): each column's row of rank_pairs
    hole_lanes: np.ndarray    # uint16 (4, C): each column's ranks in suit s
    suited_columns: np.ndarray    # intp (4, S): the columns whose two cards are both of suit s
    card_columns: np.ndarray  # intp (52, deck - 1): the columns through each card (-1 rows off-deck)
    tables: BitmaskTables

    @property
    def columns(self) -> int:
        return len(self.pairs)

    def blocked_columns(self, board_cards: int) -> int:
        """Columns that touch a board of ``board_cards`` cards."""
        return self.columns - comb(self.deck_size - board_cards, 2)


def _game(game: str):
    return registry.get(game, where="the solver tables", evaluators=EVALUATORS,
                        deals=(registry.BOARD,))


@cache
def deck_layout(game: str = HOLDEM) -> DeckLayout:
    """The layout of ``game``'s columns (built once).

    Examples
    --------
    >>> deck_layout("holdem").columns, deck_layout("shortdeck").columns
    (1326, 630)
    """
    g = _game(game)
    low = 4 * g.lowest_rank
    n = g.deck_size
    pairs = (unrank(np.arange(comb(n, 2)), 2) + low).astype(np.uint8)
    ranks = np.arange(g.lowest_rank, 13)
    r1, r2 = np.triu_indices(len(ranks))
    rank_pairs = np.stack([ranks[r1], ranks[r2]], axis=1).astype(np.uint8)
    lookup = np.full((13, 13), -1, dtype=np.intp)
    lookup[rank_pairs[:, 0], rank_pairs[:, 1]] = np.arange(len(rank_pairs))
    pr = pairs >> 2
    column_rank_pair = lookup[pr.min(axis=1), pr.max(axis=1)]
    ps = pairs & 3
    hole_lanes = np.zeros((4, len(pairs)), dtype=np.uint16)
    for s in range(4):
        for k in range(2):
            hole_lanes[s] |= np.where(ps[:, k] == s, np.uint16(1) << pr[:, k].astype(np.uint16), 0
                                      ).astype(np.uint16)
    suited = np.stack([np.flatnonzero((ps[:, 0] == s) & (ps[:, 1] == s)) for s in range(4)])
    card_columns = np.full((52, n - 1), -1, dtype=np.intp)
    for c in range(low, 52):
        card_columns[c] = np.flatnonzero((pairs == c).any(axis=1))
    if g.evaluator == registry.SHORTDECK:
        from gpu_eval.games.shortdeck import shortdeck_tables  # its tables load on demand
        tables = shortdeck_tables(game)
    else:
        tables = bitmask_tables()
    arrays = dict(pairs=pairs, pair_masks=np.bitwise_or(ID_TO_MASK[pairs[:, 0]], ID_TO_MASK[pairs[:, 1]]),
                  rank_pairs=rank_pairs, column_rank_pair=column_rank_pair, hole_lanes=hole_lanes,
                  suited_columns=suited, card_columns=card_columns)
    for a in arrays.values():
        a.flags.writeable = False
    return DeckLayout(game=game, lowest_card=low, deck_size=n, tables=tables, **arrays)


def hole_pairs(game: str = HOLDEM) -> np.ndarray:
    """The hole pairs in column order: ``(1326, 2)`` card ids for hold'em (colex order),
    ``(630, 2)`` for short deck (the pairs of its 36 cards, also colex).

    Parameters
    ----------
    game : str
        ``"holdem"`` (default), ``"shortdeck"`` or ``"shortdeck-triton"``.

    Returns
    -------
    numpy.ndarray
        ``uint8`` array, each row ``(a, b)`` with ``a < b``; a fresh copy.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> p = ge.hole_pairs()
    >>> p.shape, ge.cards.format(p[0]), ge.cards.format(p[-1])
    ((1326, 2), '2c2d', 'AhAs')
    >>> ge.hole_pairs("shortdeck").shape
    (630, 2)
    """
    return deck_layout(game).pairs.copy()
