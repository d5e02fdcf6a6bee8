"""Draws on the flop and the turn: flush draws, straight draws by the ranks that complete
them, backdoor draws, two overcards, combo draws. A combo can hold several (bits of a
``uint16``); on the river nothing is a draw.

Definitions (hold'em and short deck; Omaha in :mod:`gpu_eval.range_reports.omaha`):

* **flush draw**: four cards of one suit among the hole cards and the board, at least one of
  them a hole card; **nut flush draw**: a flush draw whose hole cards hold the highest rank
  of that suit that is not on the board; **backdoor flush draw** (flop only): three cards of
  one suit, at least one a hole card.
* A rank *completes a straight* when one card of it gives the combo a straight that it does
  not have yet and that needs a hole card (the board and the new card alone do not hold
  it). With no straight yet: **gutshot** when one rank completes one, **open-ended** when
  two do and they are the two ends of four ranks in a row (both straights share those
  four), **double gutshot** when two do otherwise, **wrap** when three or more do (Omaha).
* **backdoor straight draw** (flop only): no straight and no straight draw, but two more
  cards (turn and river) give a straight that needs a hole card.
* **two overcards**: two hole cards of different ranks, both above every board card.
* **combo draw**: a flush draw and a straight draw (any of the four) together.
"""

from __future__ import annotations

import numpy as np

from gpu_eval.games.registry import Game
from gpu_eval.range_reports import bits
from gpu_eval.range_reports.made_hands import Kind
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["DRAWS", "FLUSH_DRAW", "NUT_FLUSH_DRAW", "BACKDOOR_FLUSH", "OPEN_ENDED",
           "DOUBLE_GUTSHOT", "GUTSHOT", "WRAP", "BACKDOOR_STRAIGHT", "TWO_OVERCARDS",
           "COMBO_DRAW", "draw_columns", "StraightParts", "straight_parts", "finish_draws"]

DRAWS: tuple[Kind, ...] = (
    Kind("flush_draw", "flush draw"),
    Kind("nut_flush_draw", "nut flush draw"),
    Kind("backdoor_flush_draw", "backdoor flush draw"),
    Kind("open_ended", "open-ended straight draw"),
    Kind("double_gutshot", "double gutshot"),
    Kind("gutshot", "gutshot"),
    Kind("wrap", "wrap"),
    Kind("backdoor_straight_draw", "backdoor straight draw"),
    Kind("two_overcards", "two overcards"),
    Kind("combo_draw", "combo draw"),
)
(FLUSH_DRAW, NUT_FLUSH_DRAW, BACKDOOR_FLUSH, OPEN_ENDED, DOUBLE_GUTSHOT, GUTSHOT, WRAP,
 BACKDOOR_STRAIGHT, TWO_OVERCARDS, COMBO_DRAW) = (np.uint16(1 << i) for i in range(len(DRAWS)))


class StraightParts:
    """What the straight draws are read from, per hand (arrays that broadcast together):
    ``made`` (a straight already), ``ranks`` (the rank set that completes one),
    ``windows`` (bit ``i``: straight ``i`` of :func:`bits.straights` is one card away),
    ``backdoor`` (a straight two cards away)."""

    def __init__(self, made, ranks, windows, backdoor):
        self.made, self.ranks, self.windows, self.backdoor = made, ranks, windows, backdoor

    def __or__(self, other: StraightParts) -> StraightParts:
        """The parts of a hand that holds both (Omaha: its two-card holdings)."""
        return StraightParts(self.made | other.made, self.ranks | other.ranks,
                             self.windows | other.windows, self.backdoor | other.backdoor)

    def reduce(self, axis: int) -> StraightParts:
        """The parts of hands made of the holdings along ``axis`` (OR over it)."""
        return StraightParts(self.made.any(axis=axis),
                             np.bitwise_or.reduce(self.ranks, axis=axis),
                             np.bitwise_or.reduce(self.windows, axis=axis),
                             self.backdoor.any(axis=axis))


def straight_parts(held: np.ndarray, used: np.ndarray, board_ranks: np.ndarray, game: Game,
                   *, need_all: bool) -> StraightParts:
    """Straight draws of hands whose hole ranks ``used`` play with the board.

    ``held`` is the rank set of the hole cards and board together (hold'em), ``used`` the
    rank set of the hole cards; a straight must contain a hole rank that is not on the board
    (hold'em), or, with ``need_all`` (Omaha), both ``used`` ranks and otherwise board ranks.
    """
    made = np.zeros(np.broadcast_shapes(held.shape, used.shape, board_ranks.shape), dtype=bool)
    ranks = np.zeros(made.shape, dtype=np.uint16)
    windows = np.zeros(made.shape, dtype=np.uint16)
    backdoor = np.zeros(made.shape, dtype=bool)
    two = bits.popcount(used) == 2
    for i, w in enumerate(bits.straights(game)):
        if need_all:  # both hole ranks in the straight, the other three from the board
            fits = two & ((w & used) == used)
            miss = w & ~used & ~board_ranks
        else:         # a hole rank the board does not hold
            fits = (w & used & ~board_ranks) != 0
            miss = w & ~held
        n = bits.popcount(miss)
        made |= (n == 0) & (fits if need_all else True)
        one = fits & (n == 1)
        ranks |= np.where(one, miss, 0).astype(np.uint16)
        windows |= np.where(one, np.uint16(1 << i), 0).astype(np.uint16)
        backdoor |= fits & (n == 2)
    return StraightParts(made, ranks, windows, backdoor)


def finish_draws(flush: np.ndarray, parts: StraightParts, overcards: np.ndarray,
                 board_cards: int, game: Game) -> tuple[np.ndarray, np.ndarray]:
    """``(draw bits, completing ranks)`` of hands from their flush bits (flush draw, nut flush
    draw, backdoor flush draw), straight parts and two-overcard flags; nothing on the river."""
    none = ~parts.made
    n = np.where(none, bits.popcount(parts.ranks), 0).astype(np.uint8)
    # Open-ended: the two ranks are the two ends of two neighbouring straights, both one card
    # away (so the four ranks they share are held).
    adjacent = np.zeros(n.shape, dtype=bool)
    ws = bits.straights(game)
    for i in range(len(ws) - 1):
        both = ((parts.windows >> np.uint16(i)) & 3) == 3
        adjacent |= both & (parts.ranks == (ws[i] ^ ws[i + 1]))
    out = flush.astype(np.uint16)
    out |= np.where(n >= 3, WRAP, 0).astype(np.uint16)
    out |= np.where((n == 2) & adjacent, OPEN_ENDED, 0).astype(np.uint16)
    out |= np.where((n == 2) & ~adjacent, DOUBLE_GUTSHOT, 0).astype(np.uint16)
    out |= np.where(n == 1, GUTSHOT, 0).astype(np.uint16)
    if board_cards == 3:
        out |= np.where(none & (n == 0) & parts.backdoor, BACKDOOR_STRAIGHT, 0).astype(np.uint16)
    out |= np.where(overcards, TWO_OVERCARDS, 0).astype(np.uint16)
    out |= np.where(((out & FLUSH_DRAW) != 0) & (n >= 1), COMBO_DRAW, 0).astype(np.uint16)
    if board_cards >= 5:
        return np.zeros(n.shape, dtype=np.uint16), np.zeros(n.shape, dtype=np.uint8)
    return out, n


def flush_bits(hole_lanes: np.ndarray, board_lanes: np.ndarray, game: Game, board_cards: int,
               *, hole_needed: int) -> np.ndarray:
    """Flush draw, nut flush draw and backdoor flush draw bits from suit lanes (``(4, ...)``
    each, broadcasting); ``hole_needed`` hole cards of the suit must play (hold'em: at least
    one, with the board up to four; Omaha: exactly two, so the board holds two or one)."""
    deck = np.uint16(bits.deck_ranks(game))
    out = np.zeros(np.broadcast_shapes(hole_lanes.shape[1:], board_lanes.shape[1:]),
                   dtype=np.uint16)
    for s in range(4):
        h, b = hole_lanes[s], board_lanes[s]
        nh, nb = bits.popcount(h), bits.popcount(b)
        if hole_needed == 1:
            draw = (nh >= 1) & (nh + nb == 4)
            back = (nh >= 1) & (nh + nb == 3)
        else:
            draw = (nh >= 2) & (nb == 2)
            back = (nh >= 2) & (nb == 1)
        top_missing = bits.rank_bits(np.maximum(bits.high_bit(deck & ~b), 0))
        nut = draw & ((h & top_missing) != 0)
        out |= np.where(draw, FLUSH_DRAW, 0).astype(np.uint16)
        out |= np.where(nut, NUT_FLUSH_DRAW, 0).astype(np.uint16)
        if board_cards == 3:
            out |= np.where(back, BACKDOOR_FLUSH, 0).astype(np.uint16)
    return out


def draw_columns(boards: np.ndarray, lay: DeckLayout, game: Game
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(draw bits, completing ranks)``, each ``(B, C)``, of every column of ``lay`` on each
    board (3 or 4 cards; zeros on 5), hold'em rules (short deck included)."""
    k = int(bits.popcount(boards[:1])[0]) if len(boards) else 3
    board_lanes = bits.lanes(boards).T[:, :, None]                          # (4, B, 1)
    hole = lay.hole_lanes[:, None, :]                                       # (4, 1, C)
    flush = flush_bits(hole, board_lanes, game, k, hole_needed=1)
    board_ranks = bits.rank_planes(boards)[0][:, None]
    pr = (lay.pairs >> 2).astype(np.int8)
    used = (bits.rank_bits(pr[:, 0]) | bits.rank_bits(pr[:, 1]))[None, :]
    parts = straight_parts(board_ranks | used, used, board_ranks, game, need_all=False)
    over = (pr[:, 0] != pr[:, 1])[None, :] & (pr.min(axis=1)[None, :] > bits.high_bit(board_ranks))
    return finish_draws(flush, parts, over, k, game)
