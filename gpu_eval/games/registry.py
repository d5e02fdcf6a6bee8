"""The game registry: one record per game, the only place a game's name and rules are spelled.

Everything that depends on the game reads its record here: :func:`gpu_eval.evaluate` and
:func:`gpu_eval.evaluate_omaha` (which evaluator, how many cards), the strength readers
(``category``, ``describe``, the dtype game tag), ranges, the equity engine, the CUDA
launchers and the command line. Adding a game is adding a :class:`Game` record below and, where
its evaluator is new, that evaluator.

A game's *evaluator* names what plays a hand (``"holdem"``: the best five of its cards, the
bitmask evaluator; ``"shortdeck"``: the same with short-deck tables; ``"omaha"``: exactly two
hole cards and three board cards; the lows ``"deuce-seven"``, ``"ace-five"``, ``"badugi"``);
its *deal* the deal shape (``"board"``: hole cards and a shared board; ``"own cards"``: every
card is a player's, as in stud and the draw games; empty for the lows, which are evaluators
only); its *scale* the strength scale its strengths are on.
Strengths of different scales never compare: a scale other than hold'em's is carried in the
strengths' dtype (:func:`strength_dtype`, :func:`tag`).

This module imports nothing of the package, so any layer can read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np

__all__ = ["Game", "GAMES", "SCALES", "get", "names", "check_scale", "strength_dtype", "tag",
           "tag_of", "HOLDEM", "SHORTDECK", "SHORTDECK_TRITON", "OMAHA", "OMAHA5", "OMAHA6",
           "OMAHA_HILO", "OMAHA5_HILO", "WILD", "DEUCE_SEVEN", "ACE_FIVE", "BADUGI", "STUD",
           "STUD_HILO", "RAZZ", "DEUCE_SEVEN_DRAW", "BADUGI_DRAW", "FIVE_CARD_DRAW",
           "COURCHEVEL", "COURCHEVEL_HILO", "LOW_SCALES", "BOARD", "OWN_CARDS", "ENGINES",
           "OneScaleGame", "PairGame"]

#: Game names (use these constants rather than spelling the strings elsewhere).
HOLDEM = "holdem"
SHORTDECK = "shortdeck"
SHORTDECK_TRITON = "shortdeck-triton"
OMAHA = "omaha"
OMAHA5 = "omaha5"
OMAHA6 = "omaha6"
OMAHA_HILO = "omaha-hilo"
OMAHA5_HILO = "omaha5-hilo"
DEUCE_SEVEN = "deuce-seven"
ACE_FIVE = "ace-five"
BADUGI = "badugi"
STUD = "stud"
STUD_HILO = "stud-hilo"
RAZZ = "razz"
DEUCE_SEVEN_DRAW = "deuce-seven-draw"
BADUGI_DRAW = "badugi-draw"
FIVE_CARD_DRAW = "five-card-draw"
COURCHEVEL = "courchevel"
COURCHEVEL_HILO = "courchevel-hilo"
#: The same names for type checkers (``gpu_eval.evaluate``'s overloads): the games whose hands
#: ``evaluate`` answers with one array of strengths (every game but the hi/lo ones and the
#: Omaha games, which take ``evaluate_omaha``), and the one it answers with a pair
#: ``(high, low)``. ``tests/package/test_typing.py`` checks them against the records.
OneScaleGame = Literal["holdem", "shortdeck", "shortdeck-triton", "deuce-seven", "ace-five",
                       "badugi", "stud", "razz", "deuce-seven-draw", "badugi-draw",
                       "five-card-draw"]
PairGame = Literal["stud-hilo"]
#: Deal shapes: hole cards and a shared board; every card a player's own (stud, draw games).
BOARD = "board"
OWN_CARDS = "own cards"
#: The equity engines a deal shape calls for (:attr:`Game.engine`).
ENGINES = ("holdem", "board games", "deals")
#: The scale of wild-card hold'em (``evaluate(..., wild=...)``): hold'em plus five of a kind.
WILD = "wild"

#: Strength scales: name -> number of classes (strengths run 1..n).
SCALES: dict[str, int] = {HOLDEM: 7462, SHORTDECK: 1404, SHORTDECK_TRITON: 1404, WILD: 7475,
                          DEUCE_SEVEN: 7462, ACE_FIVE: 6175, BADUGI: 1092}
#: The low scales (``gpu_eval.games.lowball``): dense, higher is better, like every scale.
LOW_SCALES = (DEUCE_SEVEN, ACE_FIVE, BADUGI)


@dataclass(frozen=True)
class Game:
    """One game's rules, as data.

    Attributes
    ----------
    name : str
        The ``game=`` string.
    evaluator : str
        What plays a hand: ``"holdem"`` (the best five of its cards), ``"shortdeck"``,
        ``"omaha"`` (two hole cards and three board cards), ``"deuce-seven"``,
        ``"ace-five"`` or ``"badugi"``.
    scale : str
        The strength scale (a key of :data:`SCALES`).
    lowest_rank : int
        The lowest rank in the deck (0 = deuce; 4 = six for the 36-card short deck).
    hole_cards : int
        Cards each player holds (2 for hold'em and short deck, 4..6 for Omaha).
    hand_cards : tuple of int
        ``(fewest, most)`` cards in one hand: what :func:`gpu_eval.evaluate` takes (hold'em:
        5..9) where the game has a board or is an evaluator only; a player's known cards in
        stud (2..7) and kept cards in the draw games (0..5), see :attr:`evaluate_cards`.
    board_sizes : tuple of int
        Board sizes an equity spot may have (the full board is the last).
    flush_beats_full_house, trips_beat_straight : bool
        Category order flags (short deck; Triton rules).
    ace_six_straight : bool
        A-6-7-8-9 is a straight (short deck).
    hilo : bool
        The pot is split between the best high hand and the best 8-or-better low.
    draws : int
        Draws in the hand (the draw games: 1); a player's cards are the cards kept, drawn
        up to ``hand_size``. A deal without a shared board (stud, draw) has
        ``board_sizes=(0,)``: every card is a player's, dead cards are folded or discarded.
    hand_size : int
        Cards of a finished hand (5 in every game so far).
    equity_engine : str
        Which equity engine plans the game; empty: the one its deal shape calls for, see
        :attr:`engine`.
    low : str
        The low game a hand is ranked by when the whole pot goes to the best low (razz:
        ``"ace-five"``; 2-7 draw: ``"deuce-seven"``; badugi draw: ``"badugi"``); empty for
        high games and hi/lo splits.
    max_players : int
        The most players a deal can take (0: as many as the deck allows).
    deal : str
        The deal shape: :data:`BOARD`, :data:`OWN_CARDS`, or empty (an evaluator only).
    """

    name: str
    evaluator: str
    scale: str
    lowest_rank: int = 0
    hole_cards: int = 2
    hand_cards: tuple[int, int] = (5, 9)
    board_sizes: tuple[int, ...] = (0, 3, 4, 5)
    flush_beats_full_house: bool = False
    trips_beat_straight: bool = False
    ace_six_straight: bool = False
    hilo: bool = False
    # Added later, with defaults (older records and positional uses stay valid).
    draws: int = 0
    hand_size: int = 5
    equity_engine: str = ""
    low: str = ""
    max_players: int = 0
    deal: str = BOARD

    @cached_property  # read on every equity call: worked out once per record
    def full_board(self) -> int:
        """Board cards of a finished deal (0 without a shared board).

        Examples
        --------
        >>> get("omaha").full_board, Game("stud-like", "x", HOLDEM, board_sizes=(0,)).full_board
        (5, 0)
        """
        return max(self.board_sizes) if self.board_sizes else 0

    @cached_property
    def engine(self) -> str:
        """The equity engine that plays the game (one of :data:`ENGINES`): ``"holdem"`` for
        hold'em, ``"board games"`` for the other shared-board games (Omaha, hi/lo, short deck,
        Courchevel), ``"deals"`` without a board (stud, razz, the draw games); empty for the
        evaluators only (no equity). ``equity_engine`` overrides it.

        Examples
        --------
        >>> [get(g).engine for g in ("holdem", "shortdeck", "razz", "badugi")]
        ['holdem', 'board games', 'deals', '']
        """
        if self.equity_engine:
            return self.equity_engine
        if self.deal == OWN_CARDS:
            return "deals"
        if self.deal != BOARD:
            return ""
        return "holdem" if self.evaluator == HOLDEM else "board games"

    @property
    def evaluate_cards(self) -> tuple[int, int]:
        """``(fewest, most)`` cards :func:`gpu_eval.evaluate` takes in one hand: a finished
        hand of a game without a board (stud: 5..7; a draw game: its hand size), else
        :attr:`hand_cards`.

        Examples
        --------
        >>> get("stud").evaluate_cards, get("badugi-draw").evaluate_cards, get("holdem").evaluate_cards
        ((5, 7), (4, 4), (5, 9))
        """
        if self.deal == OWN_CARDS:
            return (self.hand_size if not self.draws else self.hole_cards, self.hole_cards)
        return self.hand_cards

    def cards_to_come(self, n_board: int) -> int:
        """Board cards still to be dealt after ``n_board`` known ones.

        Examples
        --------
        >>> get("holdem").cards_to_come(3)
        2
        """
        return self.full_board - n_board

    @property
    def deck_size(self) -> int:
        """Cards in the deck: ``4 * (13 - lowest_rank)``."""
        return 4 * (13 - self.lowest_rank)

    @property
    def is_omaha(self) -> bool:
        """Exactly two hole cards and three board cards make a hand."""
        return self.evaluator == OMAHA


#: Every game, by name.
GAMES: dict[str, Game] = {g.name: g for g in (
    Game(HOLDEM, evaluator=HOLDEM, scale=HOLDEM),
    Game(SHORTDECK, evaluator=SHORTDECK, scale=SHORTDECK, lowest_rank=4,
         flush_beats_full_house=True, ace_six_straight=True),
    Game(SHORTDECK_TRITON, evaluator=SHORTDECK, scale=SHORTDECK_TRITON, lowest_rank=4,
         flush_beats_full_house=True, trips_beat_straight=True, ace_six_straight=True),
    Game(OMAHA, evaluator=OMAHA, scale=HOLDEM, hole_cards=4),
    Game(OMAHA5, evaluator=OMAHA, scale=HOLDEM, hole_cards=5),
    Game(OMAHA6, evaluator=OMAHA, scale=HOLDEM, hole_cards=6),
    Game(OMAHA_HILO, evaluator=OMAHA, scale=HOLDEM, hole_cards=4, hilo=True),
    Game(OMAHA5_HILO, evaluator=OMAHA, scale=HOLDEM, hole_cards=5, hilo=True),
    # The low evaluators: one hand of cards each, no board.
    Game(DEUCE_SEVEN, evaluator=DEUCE_SEVEN, scale=DEUCE_SEVEN, hole_cards=5, hand_cards=(5, 5),
         board_sizes=(0,), deal=""),
    Game(ACE_FIVE, evaluator=ACE_FIVE, scale=ACE_FIVE, hole_cards=5, hand_cards=(5, 7),
         board_sizes=(0,), deal=""),
    Game(BADUGI, evaluator=BADUGI, scale=BADUGI, hole_cards=4, hand_cards=(4, 4),
         board_sizes=(0,), deal=""),
    # Seven-card stud: each player's known cards (2..7), no board; dealt to seven. evaluate()
    # plays a finished hand of 5..7 cards (the best high five; razz: the best A-5 low).
    Game(STUD, evaluator=HOLDEM, scale=HOLDEM, hole_cards=7, hand_cards=(2, 7),
         board_sizes=(0,), max_players=8, deal=OWN_CARDS),
    Game(STUD_HILO, evaluator=HOLDEM, scale=HOLDEM, hole_cards=7, hand_cards=(2, 7),
         board_sizes=(0,), hilo=True, max_players=8, deal=OWN_CARDS),
    Game(RAZZ, evaluator=ACE_FIVE, scale=ACE_FIVE, hole_cards=7, hand_cards=(2, 7),
         board_sizes=(0,), low=ACE_FIVE, max_players=8, deal=OWN_CARDS),
    # Single draw: a player's cards are those kept (0..hand size), drawn up to the hand size.
    Game(DEUCE_SEVEN_DRAW, evaluator=DEUCE_SEVEN, scale=DEUCE_SEVEN, hole_cards=5,
         hand_cards=(0, 5), board_sizes=(0,), low=DEUCE_SEVEN, draws=1, deal=OWN_CARDS),
    Game(BADUGI_DRAW, evaluator=BADUGI, scale=BADUGI, hole_cards=4, hand_cards=(0, 4),
         board_sizes=(0,), low=BADUGI, draws=1, deal=OWN_CARDS),
    Game(FIVE_CARD_DRAW, evaluator=HOLDEM, scale=HOLDEM, hole_cards=5, hand_cards=(0, 5),
         board_sizes=(0,), draws=1, deal=OWN_CARDS),
    # Courchevel: five-card Omaha with the first board card dealt before the first round.
    Game(COURCHEVEL, evaluator=OMAHA, scale=HOLDEM, hole_cards=5, board_sizes=(1, 3, 4, 5)),
    Game(COURCHEVEL_HILO, evaluator=OMAHA, scale=HOLDEM, hole_cards=5, board_sizes=(1, 3, 4, 5),
         hilo=True),
)}


def names(evaluator: str | None = None, *, hilo: bool | None = None,
          deal: str | None = None) -> tuple[str, ...]:
    """Names of the games a given evaluator plays (all games by default), in registry order;
    ``hilo`` and ``deal`` (a deal shape) narrow them.

    Examples
    --------
    >>> names("shortdeck")
    ('shortdeck', 'shortdeck-triton')
    >>> names("omaha", hilo=False)
    ('omaha', 'omaha5', 'omaha6', 'courchevel')
    >>> names("holdem", deal="own cards")
    ('stud', 'stud-hilo', 'five-card-draw')
    """
    return tuple(g.name for g in GAMES.values()
                 if (evaluator is None or g.evaluator == evaluator)
                 and (hilo is None or g.hilo == hilo) and (deal is None or g.deal == deal))


def get(name: str, *, where: str = "", evaluators: tuple[str, ...] | None = None,
        deals: tuple[str, ...] | None = None) -> Game:
    """The record of game ``name``; ``ValueError`` listing the known games otherwise.

    Parameters
    ----------
    name : str
        A game name.
    where : str
        The function asking, for the message (``"evaluate()"``).
    evaluators, deals : tuple of str, optional
        The evaluators and deal shapes the caller supports; a game of another raises, listing
        those it supports.

    Examples
    --------
    >>> get("omaha5").hole_cards
    5
    >>> get("pineapple")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown game 'pineapple'; known: holdem, shortdeck, ..., courchevel-hilo
    """
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise ValueError(f"unknown game {name!r}{' for ' + where if where else ''}; "
                         f"known: {', '.join(GAMES)}")

    def fits(g: Game) -> bool:
        return (evaluators is None or g.evaluator in evaluators) \
            and (deals is None or g.deal in deals)

    if not fits(game):
        known = ", ".join(g for g in GAMES if fits(GAMES[g]))
        raise ValueError(f"game {name!r} is not supported by {where or 'this function'}; "
                         f"known: {known}")
    return game


def check_scale(game: str) -> str:
    """The strength scale of ``game`` (a game name, or the ``"wild"`` scale); ``ValueError``
    for an unknown name.

    Examples
    --------
    >>> check_scale("omaha6"), check_scale("wild")
    ('holdem', 'wild')
    """
    if game in SCALES and game not in GAMES:
        return game
    if game in GAMES:
        return GAMES[game].scale
    known = (*GAMES, *(s for s in SCALES if s not in GAMES))
    raise ValueError(f"game {game!r} has no strength scale here; known: {', '.join(known)}")


_PLAIN = np.dtype(np.uint16)
_TAGGED = {name: np.dtype(np.uint16, metadata={"game": name})
           for name in (*GAMES, WILD) if check_scale(name) != HOLDEM}


def strength_dtype(game: str) -> np.dtype:
    """The dtype of ``game``'s strengths: plain ``uint16`` for the hold'em scale (hold'em and
    Omaha), ``uint16`` tagged with ``metadata={"game": game}`` for the other scales.

    Examples
    --------
    >>> strength_dtype("holdem") == np.uint16, strength_dtype("holdem").metadata
    (True, None)
    >>> strength_dtype("shortdeck").metadata
    mappingproxy({'game': 'shortdeck'})
    """
    check_scale(game)
    return _TAGGED.get(game, _PLAIN)


def tag(strengths: np.ndarray, game: str, scalar: bool = False) -> np.ndarray:
    """``strengths`` (a ``uint16`` NumPy array) viewed with ``game``'s dtype; with ``scalar``,
    its one element as a 0-d array (a 0-d array keeps the tag, a NumPy scalar would not).

    Examples
    --------
    >>> tag(np.array([1404], dtype=np.uint16), "shortdeck").dtype.metadata["game"]
    'shortdeck'
    """
    dtype = strength_dtype(game)
    if dtype is _PLAIN:
        return strengths[0] if scalar else strengths
    out = strengths.view(dtype)
    return out.reshape(()) if scalar else out


def tag_of(strength) -> str | None:
    """The game in ``strength``'s dtype metadata, or None (also for objects without a dtype).

    Examples
    --------
    >>> tag_of(np.zeros(2, dtype=np.uint16)) is None
    True
    """
    meta = getattr(getattr(strength, "dtype", None), "metadata", None)
    return meta.get("game") if meta else None
