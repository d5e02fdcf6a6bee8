"""The game registry: one record per game, the only place a game's name and rules are spelled.

Everything that depends on the game reads its record here: :func:`gpu_eval.evaluate` and
:func:`gpu_eval.evaluate_omaha` (which evaluator, how many cards), the strength readers
(``category``, ``describe``, the dtype game tag), ranges, the equity engine, the CUDA
launchers and the command line. Adding a game is adding a :class:`Game` record below and, where
its family is new, an evaluator for that family.

A game's *family* names the evaluator that plays it (``"holdem"``: the bitmask evaluator on
5..9 cards; ``"shortdeck"``: the same evaluator with short-deck tables; ``"omaha"``: exactly two
hole cards and three board cards); its *scale* names the strength scale its strengths are on.
Strengths of different scales never compare: a scale other than hold'em's is carried in the
strengths' dtype (:func:`strength_dtype`, :func:`tag`).

This module imports nothing of the package, so any layer can read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Game", "GAMES", "SCALES", "get", "names", "check_scale", "strength_dtype", "tag",
           "tag_of", "HOLDEM", "SHORTDECK", "SHORTDECK_TRITON", "OMAHA", "OMAHA5", "OMAHA6",
           "OMAHA_HILO", "OMAHA5_HILO", "WILD", "DEUCE_SEVEN", "ACE_FIVE", "BADUGI", "STUD",
           "STUD_HILO", "RAZZ", "DEUCE_SEVEN_DRAW", "BADUGI_DRAW", "FIVE_CARD_DRAW",
           "COURCHEVEL", "COURCHEVEL_HILO", "LOW_SCALES", "DRAW"]

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
#: The family of the single-draw games.
DRAW = "draw"
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
    family : str
        The evaluator that plays it: ``"holdem"``, ``"shortdeck"`` or ``"omaha"``.
    scale : str
        The strength scale (a key of :data:`SCALES`).
    lowest_rank : int
        The lowest rank in the deck (0 = deuce; 4 = six for the 36-card short deck).
    hole_cards : int
        Cards each player holds (2 for hold'em and short deck, 4..6 for Omaha).
    hand_cards : tuple of int
        ``(fewest, most)`` cards :func:`gpu_eval.evaluate` takes in one hand (hold'em: 5..9).
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
        Which equity path plans the game; empty: the family's (``"holdem"`` for the
        hold'em family, ``"games"`` -- :mod:`gpu_eval.equity_engine.board_games.numpy_engine` -- for the
        others), see :attr:`equity_family`.
    low : str
        The low game a hand is ranked by when the whole pot goes to the best low (razz:
        ``"ace-five"``; 2-7 draw: ``"deuce-seven"``; badugi draw: ``"badugi"``); empty for
        high games and hi/lo splits.
    max_players : int
        The most players a deal can take (0: as many as the deck allows).
    """

    name: str
    family: str
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

    @property
    def full_board(self) -> int:
        """Board cards of a finished deal (0 without a shared board).

        Examples
        --------
        >>> get("omaha").full_board, Game("stud-like", "x", HOLDEM, board_sizes=(0,)).full_board
        (5, 0)
        """
        return max(self.board_sizes) if self.board_sizes else 0

    @property
    def equity_family(self) -> str:
        """The equity path: ``"holdem"``, ``"games"`` (a shared board: Omaha, hi/lo, short
        deck, Courchevel) or ``"deals"`` (no shared board: stud, razz, the draw games); see
        ``equity_engine``.

        Examples
        --------
        >>> [get(g).equity_family for g in ("holdem", "shortdeck", "razz")]
        ['holdem', 'games', 'deals']
        """
        if self.equity_engine:
            return self.equity_engine
        if self.family == HOLDEM:
            return HOLDEM
        return "deals" if self.deals_only else "games"

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
    def is_evaluator(self) -> bool:
        """:func:`gpu_eval.evaluate` (or ``evaluate_omaha``) plays it: a high game without a
        low half, or one of the low evaluators (stud and draw games are equity games)."""
        return not self.hilo and self.family in (HOLDEM, SHORTDECK, OMAHA, *LOW_SCALES)

    @property
    def deals_only(self) -> bool:
        """No shared board: every card is a player's (stud, razz, the draw games)."""
        return self.family in (STUD, DRAW)

    @property
    def is_omaha(self) -> bool:
        """Exactly two hole cards and three board cards make a hand."""
        return self.family == OMAHA


#: Every game, by name.
GAMES: dict[str, Game] = {g.name: g for g in (
    Game(HOLDEM, family=HOLDEM, scale=HOLDEM),
    Game(SHORTDECK, family=SHORTDECK, scale=SHORTDECK, lowest_rank=4,
         flush_beats_full_house=True, ace_six_straight=True),
    Game(SHORTDECK_TRITON, family=SHORTDECK, scale=SHORTDECK_TRITON, lowest_rank=4,
         flush_beats_full_house=True, trips_beat_straight=True, ace_six_straight=True),
    Game(OMAHA, family=OMAHA, scale=HOLDEM, hole_cards=4),
    Game(OMAHA5, family=OMAHA, scale=HOLDEM, hole_cards=5),
    Game(OMAHA6, family=OMAHA, scale=HOLDEM, hole_cards=6),
    Game(OMAHA_HILO, family=OMAHA, scale=HOLDEM, hole_cards=4, hilo=True),
    Game(OMAHA5_HILO, family=OMAHA, scale=HOLDEM, hole_cards=5, hilo=True),
    # The low evaluators: one hand of cards each, no board.
    Game(DEUCE_SEVEN, family=DEUCE_SEVEN, scale=DEUCE_SEVEN, hole_cards=5, hand_cards=(5, 5),
         board_sizes=(0,)),
    Game(ACE_FIVE, family=ACE_FIVE, scale=ACE_FIVE, hole_cards=5, hand_cards=(5, 7),
         board_sizes=(0,)),
    Game(BADUGI, family=BADUGI, scale=BADUGI, hole_cards=4, hand_cards=(4, 4),
         board_sizes=(0,)),
    # Seven-card stud: each player's known cards (2..7), no board; dealt to seven.
    Game(STUD, family=STUD, scale=HOLDEM, hole_cards=7, hand_cards=(2, 7), board_sizes=(0,),
         max_players=8),
    Game(STUD_HILO, family=STUD, scale=HOLDEM, hole_cards=7, hand_cards=(2, 7),
         board_sizes=(0,), hilo=True, max_players=8),
    Game(RAZZ, family=STUD, scale=ACE_FIVE, hole_cards=7, hand_cards=(2, 7), board_sizes=(0,),
         low=ACE_FIVE, max_players=8),
    # Single draw: a player's cards are those kept (0..hand size), drawn up to the hand size.
    Game(DEUCE_SEVEN_DRAW, family=DRAW, scale=DEUCE_SEVEN, hole_cards=5, hand_cards=(0, 5),
         board_sizes=(0,), low=DEUCE_SEVEN, draws=1),
    Game(BADUGI_DRAW, family=DRAW, scale=BADUGI, hole_cards=4, hand_cards=(0, 4),
         board_sizes=(0,), low=BADUGI, draws=1),
    Game(FIVE_CARD_DRAW, family=DRAW, scale=HOLDEM, hole_cards=5, hand_cards=(0, 5),
         board_sizes=(0,), draws=1),
    # Courchevel: five-card Omaha with the first board card dealt before the first round.
    Game(COURCHEVEL, family=OMAHA, scale=HOLDEM, hole_cards=5, board_sizes=(1, 3, 4, 5)),
    Game(COURCHEVEL_HILO, family=OMAHA, scale=HOLDEM, hole_cards=5, board_sizes=(1, 3, 4, 5),
         hilo=True),
)}


def names(family: str | None = None, *, hilo: bool | None = None) -> tuple[str, ...]:
    """Names of the games of a family (all games by default), in registry order.

    Examples
    --------
    >>> names("shortdeck")
    ('shortdeck', 'shortdeck-triton')
    >>> names("omaha", hilo=False)
    ('omaha', 'omaha5', 'omaha6', 'courchevel')
    """
    return tuple(g.name for g in GAMES.values()
                 if (family is None or g.family == family) and (hilo is None or g.hilo == hilo))


def get(name: str, *, where: str = "", families: tuple[str, ...] | None = None) -> Game:
    """The record of game ``name``; ``ValueError`` listing the known games otherwise.

    Parameters
    ----------
    name : str
        A game name.
    where : str
        The function asking, for the message (``"evaluate()"``).
    families : tuple of str, optional
        The families the caller supports; a game of another family raises.

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
    if families is not None and game.family not in families:
        known = ", ".join(g for g in GAMES if GAMES[g].family in families)
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
