"""Made-hand classes: what a combo holds on a board, each combo in exactly one class.

The class refines the evaluator's category (:func:`gpu_eval.category`) by what the hole cards
contribute. From the best hand down:

* **straight flush, quads, full house, flush, straight**: the evaluator's category of the
  best five cards (the board may play);
* **set**: three of a kind with a pocket pair and one board card; **trips**: one hole card
  and a pair on the board; **trips on the board**: the board's three of a kind, neither hole
  card of that rank;
* two pair, read from the two pairs of the best five cards: **two pair** (each hole card
  pairs a different board rank), **pocket pair + board pair** (a pocket pair and a pair on
  the board), **pair + board pair** (one hole card pairs a board card, the other pair is on
  the board), **two pair on the board** (both pairs on the board);
* one pair made with the hole cards (so the board has no pair): **overpair** (a pocket pair
  above every board card), **top pair** with a **top / good / weak kicker** (a hole card pairs
  the highest board rank; the kicker is top when no rank above it is missing from the board,
  good when one or two are, weak otherwise), **pocket pair below top pair** (between the
  highest and the second-highest board rank), **middle pair** (a hole card pairs the second
  board rank), **weak pair** (a hole card pairs a lower board rank, or a pocket pair below the
  second board rank);
* no pair made with the hole cards (high card, or the board's own pair): **ace high** (an ace
  in the hole), **nothing**.

So every class of two pair or better has one evaluator category (and every combo of category
two pair or better is in one of those classes); ace high and nothing hold categories 0 and 1.
The order (a class's index, 0 the best) is the order of the list above with two changes:
*trips on the board* and *two pair on the board* sit just below *ace high*, and *pocket pair +
board pair* and *pair + board pair* just below *weak pair*, since the hole cards add no more
than there. Games whose categories rank differently (short deck: a flush beats a full house;
Triton rules: trips beat a straight) order those classes by their own category order. An
*out* (:mod:`gpu_eval.range_reports.outs`) is a card that moves a combo up this order.

Omaha (:mod:`gpu_eval.range_reports.omaha`) classifies each two-card holding with three board
cards by the same rules and takes the hand's best holding.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from gpu_eval.games import registry
from gpu_eval.games.registry import Game
from gpu_eval.range_reports import bits
from gpu_eval.solver_tables.board_strengths import rank_pair_strengths
from gpu_eval.solver_tables.layout import DeckLayout

__all__ = ["Kind", "CLASSES", "class_order", "classes_for", "classify_columns",
           "category_table", "find_kind"]


@dataclass(frozen=True)
class Kind:
    """A made-hand class or a draw: its name (the identifier filters and columns use), the
    label tables show, and (classes) the evaluator category every combo of it has (None:
    high card or a pair on the board)."""

    name: str
    label: str
    category: int | None = None


#: The classes, in hold'em's order (the index is the class's number there).
CLASSES: tuple[Kind, ...] = (
    Kind("straight_flush", "straight flush", 8),
    Kind("quads", "quads", 7),
    Kind("full_house", "full house", 6),
    Kind("flush", "flush", 5),
    Kind("straight", "straight", 4),
    Kind("set", "set", 3),
    Kind("trips", "trips", 3),
    Kind("two_pair", "two pair", 2),
    Kind("overpair", "overpair", 1),
    Kind("top_pair_top_kicker", "top pair, top kicker", 1),
    Kind("top_pair_good_kicker", "top pair, good kicker", 1),
    Kind("top_pair_weak_kicker", "top pair, weak kicker", 1),
    Kind("pocket_pair_below_top_pair", "pocket pair below top pair", 1),
    Kind("middle_pair", "middle pair", 1),
    Kind("weak_pair", "weak pair", 1),
    Kind("pocket_pair_board_pair", "pocket pair + board pair", 2),
    Kind("pair_board_pair", "pair + board pair", 2),
    Kind("ace_high", "ace high", None),
    Kind("board_trips", "trips on the board", 3),
    Kind("board_two_pair", "two pair on the board", 2),
    Kind("nothing", "nothing", None),
)
_ID = {k.name: i for i, k in enumerate(CLASSES)}
(SF, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, SET, TRIPS, TWO_PAIR, OVERPAIR, TP_TOP, TP_GOOD,
 TP_WEAK, UNDERPAIR, MIDDLE, WEAK, PP_BOARD_PAIR, PAIR_BOARD_PAIR, ACE_HIGH, BOARD_TRIPS,
 BOARD_TWO_PAIR, NOTHING) = range(len(CLASSES))
#: Category -> class id of the categories the class is read from directly.
_BY_CATEGORY = {8: SF, 7: QUADS, 6: FULL_HOUSE, 5: FLUSH, 4: STRAIGHT}


@cache
def category_table(scale: str) -> np.ndarray:
    """``category[strength]`` of a scale (uint8; index 0, "no hand", maps to 255)."""
    from gpu_eval.strength import category  # noqa: PLC0415 -- the strength readers' tables

    top = registry.SCALES[scale]
    out = np.full(top + 1, 255, dtype=np.uint8)
    out[1:] = category(np.arange(1, top + 1), game=scale)
    out.flags.writeable = False
    return out


@cache
def class_order(game: Game) -> np.ndarray:
    """``order[class id]``: each class's place in ``game``'s order (0 best), ``int8``.

    The classes read from a category (straight flush .. straight, set, trips) follow the
    game's category order; the rest keep hold'em's.

    Examples
    --------
    >>> g = registry.get("shortdeck")
    >>> [CLASSES[i].name for i in np.argsort(class_order(g))[:4]]
    ['straight_flush', 'quads', 'flush', 'full_house']
    """
    cats = category_table(game.scale)
    best = {c: int(np.flatnonzero(cats == c).max()) for c in range(9)}   # top strength of each
    top = [SF, QUADS, FULL_HOUSE, FLUSH, STRAIGHT, SET, TRIPS]

    def place(i: int) -> tuple[int, int]:
        cat = CLASSES[i].category
        assert cat is not None, CLASSES[i].name  # each class of top is one category
        return -best[cat], i

    top.sort(key=place)
    ids = top + [i for i in range(len(CLASSES)) if i not in top]
    order = np.empty(len(CLASSES), dtype=np.int8)
    order[ids] = np.arange(len(CLASSES))
    order.flags.writeable = False
    return order


def classes_for(game: Game) -> tuple[Kind, ...]:
    """The classes in ``game``'s order, best first.

    Examples
    --------
    >>> [k.name for k in classes_for(registry.get("holdem"))][:3]
    ['straight_flush', 'quads', 'full_house']
    """
    return tuple(CLASSES[i] for i in np.argsort(class_order(game)))


def find_kind(name: str, kinds: tuple[Kind, ...], what: str) -> int:
    """The index of the kind called ``name`` (its name or label, any case); ``ValueError``
    naming it and listing the known names otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"a {what} is named by text such as {kinds[0].name!r}, got "
                        f"{type(name).__name__}: {name!r}")
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    for i, k in enumerate(kinds):
        if key in (k.name, k.label.lower().replace(" ", "_").replace(",", "")):
            return i
    raise ValueError(f"unknown {what} {name!r}; known: {', '.join(k.name for k in kinds)}")


def _hole_count(hr0: np.ndarray, hr1: np.ndarray, rank: np.ndarray) -> np.ndarray:
    return (hr0 == rank).astype(np.int8) + (hr1 == rank)


def classify(cat: np.ndarray, planes, hr0: np.ndarray, hr1: np.ndarray,
             board_ranks: np.ndarray, deck: int) -> np.ndarray:
    """Class ids (hold'em numbering, uint8) of hands given by arrays that broadcast together.

    Parameters
    ----------
    cat : evaluator category of the best five cards (255 where there is no hand).
    planes : the rank planes (:func:`bits.rank_planes`) of the cards the hand is made of
        (hold'em: hole plus board; Omaha: the two hole cards and three board cards played).
    hr0, hr1 : the ranks of the two hole cards played.
    board_ranks : the rank set of the whole board (where a pair sits).
    deck : the rank set of the deck (which kickers exist).
    """
    p1, p2, p3, _ = planes
    hr0 = np.asarray(hr0, dtype=np.int8)
    hr1 = np.asarray(hr1, dtype=np.int8)
    out = np.full(np.broadcast_shapes(cat.shape, p1.shape, hr0.shape, board_ranks.shape),
                  NOTHING, dtype=np.uint8)
    ace = (hr0 == bits.ACE) | (hr1 == bits.ACE)
    out[...] = np.where(ace, ACE_HIGH, NOTHING)

    # One pair (category 1): where it sits and who holds it.
    pr = bits.high_bit(p2)
    held = _hole_count(hr0, hr1, pr)
    above = bits.popcount(board_ranks >> np.maximum(pr + 1, 0).astype(np.uint16))
    kicker = np.where(hr0 == pr, hr1, hr0)
    missing_above = np.uint16(deck) & ~board_ranks & ~((np.uint16(2) << kicker.astype(np.uint16)) - 1)
    better = bits.popcount(missing_above.astype(np.uint16))
    top = np.where(better == 0, TP_TOP, np.where(better <= 2, TP_GOOD, TP_WEAK))
    one_card = np.where(above == 0, top, np.where(above == 1, MIDDLE, WEAK))
    pocket = np.where(above == 0, OVERPAIR, np.where(above == 1, UNDERPAIR, WEAK))
    pair_cls = np.where(held == 2, pocket, np.where(held == 1, one_card, out))
    out = np.where(cat == 1, pair_cls, out)

    # Two pair (category 2): the two highest pairs.
    pairs = p2 & ~p3
    t1 = bits.high_bit(pairs)
    t2 = bits.high_bit(pairs & ~bits.rank_bits(np.maximum(t1, 0)))
    h1, h2 = _hole_count(hr0, hr1, t1), _hole_count(hr0, hr1, t2)
    two = np.where((h1 == 1) & (h2 == 1), TWO_PAIR,
                   np.where((h1 == 2) | (h2 == 2), PP_BOARD_PAIR,
                            np.where(h1 + h2 == 1, PAIR_BOARD_PAIR, BOARD_TWO_PAIR)))
    out = np.where(cat == 2, two, out)

    # Three of a kind (category 3).
    held3 = _hole_count(hr0, hr1, bits.high_bit(p3))
    out = np.where(cat == 3, np.where(held3 == 2, SET, np.where(held3 == 1, TRIPS, BOARD_TRIPS)),
                   out)
    for c, cls in _BY_CATEGORY.items():
        out = np.where(cat == c, cls, out)
    return out.astype(np.uint8)


@cache
def _fixed_classes(scale: str) -> np.ndarray:
    """``class[strength]`` where the category alone gives the class (straight and up; index 0,
    no hand, 255), :data:`_RANKS_DECIDE` elsewhere."""
    cat = category_table(scale)
    out = np.full(len(cat), _RANKS_DECIDE, dtype=np.uint8)
    for c, cls in _BY_CATEGORY.items():
        out[cat == c] = cls
    out[0] = 255
    out.flags.writeable = False
    return out


#: Marks the strengths whose class the ranks decide (categories high card to trips).
_RANKS_DECIDE = 254


def classify_columns(boards: np.ndarray, strengths: np.ndarray, lay: DeckLayout, game: Game,
                     position_boards: np.ndarray | None = None) -> np.ndarray:
    """Class ids (hold'em numbering) of every column of ``lay`` on each board.

    Parameters
    ----------
    boards : ``(B,)`` uint64 masks of the cards played with the two hole cards.
    strengths : ``(B, C)`` their strengths (:func:`gpu_eval.board_strengths`), 0 blocked.
    position_boards : the whole boards the pairs are placed on (Omaha: the full board when
        ``boards`` are three of its cards); default ``boards``.

    Returns
    -------
    numpy.ndarray
        ``(B, C)`` uint8 class ids; 255 where the column touches the board.

    Notes
    -----
    Without ``position_boards``, the classes that depend on more than the category (high card
    to three of a kind) are those of the column's hole *ranks*: a column of such a category
    makes no flush, so its strength is its rank pair's with the board
    (:func:`gpu_eval.solver_tables.board_strengths.rank_pair_strengths`). They are classified
    once per rank pair (91 in hold'em) and gathered to the columns; the category decides the
    rest.
    """
    if position_boards is None:
        rs = rank_pair_strengths(boards, lay)                               # (B, R)
        rp = lay.rank_pairs
        by_pair = _classify_planes(boards, category_table(game.scale)[rs], rp[:, 0], rp[:, 1],
                                   boards, game)
        fixed = _fixed_classes(game.scale)[strengths]                       # (B, C)
        ranked = np.take(by_pair, lay.column_rank_pair, axis=1)
        return np.where(fixed == _RANKS_DECIDE, ranked, fixed)
    cat = category_table(game.scale)[strengths]                             # (B, C)
    pr = lay.pairs >> 2
    out = _classify_planes(boards, cat, pr[:, 0], pr[:, 1], position_boards, game)
    out[strengths == 0] = 255
    return out


def _classify_planes(boards: np.ndarray, cat: np.ndarray, r0: np.ndarray, r1: np.ndarray,
                     pos: np.ndarray, game: Game) -> np.ndarray:
    """:func:`classify` of the hole ranks ``(r0, r1)`` (``(W,)`` each) on every board:
    ``(B, W)``."""
    planes = bits.rank_planes(boards)
    hr0, hr1 = r0.astype(np.int8), r1.astype(np.int8)
    cols = bits.add_rank(bits.add_rank(tuple(p[:, None] for p in planes),
                                       bits.rank_bits(hr0)[None, :]), bits.rank_bits(hr1)[None, :])
    board_ranks = bits.rank_planes(pos)[0][:, None]
    return classify(cat, cols, hr0[None, :], hr1[None, :], board_ranks, bits.deck_ranks(game))
