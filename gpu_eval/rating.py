"""The 16-bit ``HandRating``: an interchange format for hold'em, Omaha and short deck.

Every hand class becomes one ``uint16`` laid out exactly as the HandRating format draws it
(bit 15 left; ``r`` are rank bits, 2 = bit 0 .. A = bit 12; a rank is its index 0..12):

==============  =====================  ==================================================
hand type       bits [15..0]           fields
==============  =====================  ==================================================
straight flush  ``1110ssss 00000000``  ``s``: rank of the highest card (royal: ``0xEC00``)
quads           ``11100000 qqqqkkkk``  ``q``: rank of the quads, ``k``: of the kicker
full house      ``11011111 ttttpppp``  ``t``: trips, ``p``: pair; short deck ``10111111``
flush           ``101rrrrr rrrrrrrr``  the five rank bits; short deck ``111rrrrr ...``
straight        ``10000000 0000ssss``  ``s``: rank of the highest card (the wheel: 5)
trips           ``0110tttt 0kkkkkkk``  ``t``: trips; ``k``: index of the 2 kickers
two pair        ``01000ppp ppppkkkk``  ``p``: index of the 2 pair ranks; ``k``: kicker
pair            ``001ppppk kkkkkkkk``  ``p``: the pair; ``k``: index of the 3 kickers
high card       ``000rrrrr rrrrrrrr``  the five rank bits
==============  =====================  ==================================================

The format's "index of combination" of ranks ``a < b (< c)`` is their rank in the combinatorial
number system, ``C(b, 2) + C(a, 1)`` (``C(c, 3) + C(b, 2) + C(a, 1)``), taken over all 13
ranks: it orders sets as poker compares them (highest rank first), so on the hold'em scale
(Omaha too) ratings compare as integers exactly as strengths do. In short deck (the 36-card
deck 6..A, A-6-7-8-9 the lowest straight, whose highest card is the 9) the format's flush code
``111...`` lies above its quads and straight-flush codes ``1110...``, and its full house
below the flush only by the same code: there ratings do **not** order as integers; compare
strengths. Both short-deck games (``"shortdeck"``, ``"shortdeck-triton"``) share one
rating per hand class; only their strength scales differ.

:func:`hand_type` decodes the type from the bits alone, as the format's ``HandType`` does
(ten types, the royal flush apart from the other straight flushes). Wild-card strengths
(five of a kind) have no rating.
"""

from __future__ import annotations

from functools import cache
from math import comb

import numpy as np

from gpu_eval.array_interop import accepts_arrays
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM, SHORTDECK, WILD
from gpu_eval.strength import game_of, strength_dtype, to_value

__all__ = ["HAND_TYPES", "ROYAL_FLUSH", "from_rating", "hand_type", "to_rating"]

#: The format's ten hand types, lowest first: ``HAND_TYPES[hand_type(r)]`` names a rating.
#: Codes 0..8 are the ``category`` numbers; 9 is the royal flush (a straight flush elsewhere).
HAND_TYPES = ("HighCard", "Pair", "TwoPair", "Trips", "Straight", "Flush", "FullHouse",
              "Quads", "StraightFlush", "RoyalFlush")
ROYAL_FLUSH = 9

# The scale each game's strengths are on, and the layout of its ratings.
# The games with a rating (every game but the wild-card scale) and the scale each is on.
_SCALES = {name: game.scale for name, game in registry.GAMES.items()}
_SHORT = registry.names(SHORTDECK)
_SIZES = registry.SCALES


def _game(game: str) -> str:
    if game not in _SCALES:
        extra = " (wild-card strengths have no rating)" if game == WILD else ""
        raise ValueError(f"game {game!r} has no 16-bit HandRating{extra}; known: "
                         f"{', '.join(_SCALES)}")
    return game


def _ranks(bits: int) -> list[int]:
    """The ranks of a 13-bit mask, ascending."""
    return [r for r in range(13) if bits >> r & 1]


def _index(bits: int) -> int:
    """Rank of a set of ranks in the combinatorial number system: sum of C(r_j, j), j >= 1."""
    return sum(comb(r, j) for j, r in enumerate(_ranks(bits), start=1))


def _rating_of_value(value: int, short: bool) -> int:
    """Seed 004's rating of the class whose seed 000 value is ``value``."""
    cat, imp, kick = value >> 26, (value >> 13) & 0x1FFF, value & 0x1FFF
    top = max(_ranks(imp | kick), default=0)
    if cat == 8:                    # straight flush: the wheel's kick bits are 0b1111, top = 5
        return 0xE000 | top << 8
    if cat == 7:
        return 0xE000 | _ranks(imp)[0] << 4 | _ranks(kick)[0]
    if cat == 6:
        return (0xBF00 if short else 0xDF00) | _ranks(imp)[0] << 4 | _ranks(kick)[0]
    if cat == 5:
        return (0xE000 if short else 0xA000) | kick
    if cat == 4:
        return 0x8000 | top
    if cat == 3:
        return 0x6000 | _ranks(imp)[0] << 8 | _index(kick)
    if cat == 2:
        return 0x4000 | _index(imp) << 4 | _ranks(kick)[0]
    if cat == 1:
        return 0x2000 | _ranks(imp)[0] << 9 | _index(kick)
    return kick


@cache
def _tables(scale: str) -> tuple[np.ndarray, np.ndarray]:
    """``(RATING[strength], STRENGTH[rating])`` of a scale; 0 marks "none" in both."""
    values = to_value(np.arange(1, _SIZES[scale] + 1), game=scale).tolist()
    rating = np.zeros(_SIZES[scale] + 1, dtype=np.uint16)
    rating[1:] = [_rating_of_value(v, scale in _SHORT) for v in values]
    strength = np.zeros(1 << 16, dtype=np.uint16)
    strength[rating[1:]] = np.arange(1, _SIZES[scale] + 1)
    assert np.count_nonzero(strength) == _SIZES[scale]  # one rating per class
    rating.flags.writeable = strength.flags.writeable = False
    return rating, strength


def _int_array(x, what: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{what} must be integers, got dtype {arr.dtype}")
    return arr


def _first_bad(bad: np.ndarray) -> tuple:
    return tuple(int(w) for w in np.argwhere(bad)[0]) if bad.ndim else ()


def _at(bad: np.ndarray) -> str:
    """`` at index (i, ...)`` of the first bad entry; nothing for a single (0-d) rating."""
    return f" at index {_first_bad(bad)}" if bad.ndim else ""


@accepts_arrays("strength", host_only=True)
def to_rating(strength, game: str | None = None) -> np.ndarray:
    """The 16-bit HandRating of each strength, a self-describing interchange format.

    Parameters
    ----------
    strength : array_like of int
        Strengths on the game's scale (1..7462 hold'em and Omaha, 1..1404 short deck).
    game : str, optional
        ``"holdem"``, ``"omaha"``, ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``,
        ``"omaha5-hilo"``, ``"courchevel"``, ``"courchevel-hilo"``, ``"stud"``,
        ``"stud-hilo"``, ``"five-card-draw"`` (the hold'em scale), ``"shortdeck"`` or
        ``"shortdeck-triton"``; default: the game the
        strengths carry in their dtype, else hold'em. A game contradicting the dtype, or a
        strength off the scale, raises ``ValueError``. Wild-card and low strengths have no
        rating.

    Returns
    -------
    numpy.ndarray
        ``uint16`` ratings, same shape as ``strength``. On the hold'em scale they order as
        the strengths do; in short deck they do not (compare strengths there).

    Notes
    -----
    The 16-bit layout (bit 15 first; ``r`` are rank bits, 2 = bit 0 up to A = bit 12; a rank
    is its index 0..12; an "index" of two or three ranks is their rank in the combinatorial
    number system, ``C(b, 2) + C(a, 1)`` for ranks ``a < b``):

    ==============  =====================  ==============================================
    hand type       bits [15..0]           fields
    ==============  =====================  ==============================================
    straight flush  ``1110ssss 00000000``  ``s``: highest rank (royal flush ``0xEC00``)
    quads           ``11100000 qqqqkkkk``  ``q``: the quads, ``k``: the kicker
    full house      ``11011111 ttttpppp``  ``t``: trips, ``p``: pair; short deck
                                           ``10111111``
    flush           ``101rrrrr rrrrrrrr``  the five rank bits; short deck ``111rrrrr``
    straight        ``10000000 0000ssss``  ``s``: highest rank (the wheel: 5)
    trips           ``0110tttt 0kkkkkkk``  ``t``: trips, ``k``: index of the 2 kickers
    two pair        ``01000ppp ppppkkkk``  ``p``: index of the 2 pairs, ``k``: kicker
    pair            ``001ppppk kkkkkkkk``  ``p``: the pair, ``k``: index of the 3 kickers
    high card       ``000rrrrr rrrrrrrr``  the five rank bits
    ==============  =====================  ==============================================

    Examples
    --------
    >>> import gpu_eval as ge
    >>> hex(int(to_rating(ge.evaluate("As Ks Qs Js Ts"))))
    '0xec00'
    >>> [hex(r) for r in to_rating(ge.evaluate(["Ac Ad Ah Kc Qd", "5c 4d 3h 2s Ac"]))]
    ['0x6c41', '0x8003']
    >>> hex(int(to_rating(ge.evaluate("As Ks Qs Js 9s", game="shortdeck"))))
    '0xfe80'
    """
    game = _game(game_of(strength) if game is None else game)
    arr = _int_array(strength, "strengths")
    to_value(arr, game=game)  # validates the range and the dtype's game, naming the bad one
    rating, _ = _tables(_SCALES[game])
    return rating[arr.astype(np.int64)]


@accepts_arrays("rating", host_only=True)
def from_rating(rating, game: str = HOLDEM) -> np.ndarray:
    """Strengths from 16-bit HandRatings (the inverse of :func:`to_rating`).

    Parameters
    ----------
    rating : array_like of int
        Ratings in the 16-bit HandRating layout (see :func:`to_rating`).
    game : str
        The game whose strengths to return (default ``"holdem"``): ``"holdem"``, ``"omaha"``,
        ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``, ``"omaha5-hilo"``, ``"courchevel"``,
        ``"courchevel-hilo"``, ``"stud"``, ``"stud-hilo"``, ``"five-card-draw"`` (the hold'em
        scale), ``"shortdeck"`` or ``"shortdeck-triton"``. The short-deck games share their
        ratings, so the same rating gives each game's own strength.

    Returns
    -------
    numpy.ndarray
        ``uint16`` strengths with the game's dtype (tagged for short deck).

    Raises
    ------
    ValueError
        For a rating that is no hand class of the game, naming it and its index.

    Examples
    --------
    >>> int(from_rating(0xEC00))
    7462
    >>> from_rating([0x8003, 0x800C]).tolist()
    [5854, 5863]
    >>> int(from_rating(0xFE80, game="shortdeck"))
    1326
    """
    game = _game(game)
    arr = _int_array(rating, "ratings").astype(np.int64)
    _, strength = _tables(_SCALES[game])
    bad = (arr < 0) | (arr > 0xFFFF)
    bad |= strength[np.where(bad, 0, arr)] == 0
    if bad.any():
        raise ValueError(f"rating {int(arr[_first_bad(bad)]):#06x}{_at(bad)} is not the 16-bit "
                         f"HandRating of any {game!r} hand class")
    out = np.asarray(strength[arr])
    dtype = strength_dtype(game)
    return out.view(dtype) if dtype.metadata else out[()]


def _decode(r: np.ndarray) -> np.ndarray:
    """Hand type from the bits alone (valid ratings of either layout)."""
    high, low = r >> 8, r & 0xFF
    t = np.select(
        [r < 0x2000, r < 0x4000, r < 0x4800, (r >> 12) == 6, high == 0x80,
         (high >= 0xA0) & (high <= 0xBE), (high == 0xBF) | (high == 0xDF), high == 0xE0,
         (high > 0xE0) & (high <= 0xEC) & (low == 0)],
        [0, 1, 2, 3, 4, 5, 6, 7, 8], default=5)  # the rest: short deck's 111rrrrr flushes
    return np.where(r == 0xEC00, ROYAL_FLUSH, t).astype(np.uint8)


@accepts_arrays("rating", host_only=True)
def hand_type(rating, game: str | None = None) -> np.ndarray:
    """The hand type of each 16-bit HandRating, decoded from its bits alone.

    Parameters
    ----------
    rating : array_like of int
        Ratings in the 16-bit HandRating layout (see :func:`to_rating`).
    game : str, optional
        When given, every rating must be one of that game's: ``"holdem"``, ``"omaha"``,
        ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``, ``"omaha5-hilo"``, ``"courchevel"``,
        ``"courchevel-hilo"``, ``"stud"``, ``"stud-hilo"``, ``"five-card-draw"`` (the hold'em
        scale), ``"shortdeck"`` or ``"shortdeck-triton"``; by default one of hold'em's or
        short deck's (the two layouts share no code that means different types).

    Returns
    -------
    numpy.ndarray
        ``uint8`` codes, same shape as ``rating``: 0 ``HighCard``, 1 ``Pair``, 2 ``TwoPair``,
        3 ``Trips``, 4 ``Straight``, 5 ``Flush``, 6 ``FullHouse``, 7 ``Quads``,
        8 ``StraightFlush``, 9 ``RoyalFlush`` (the names are
        ``gpu_eval.rating.HAND_TYPES[code]``). Codes 0 to 8 equal ``category``.

    Examples
    --------
    >>> [HAND_TYPES[t] for t in hand_type([0xEC00, 0xE300, 0xDFCB, 0xBE80, 0x1E80])]
    ['RoyalFlush', 'StraightFlush', 'FullHouse', 'Flush', 'HighCard']
    >>> HAND_TYPES[int(hand_type(0xBFCB, game="shortdeck"))]
    'FullHouse'
    """
    arr = _int_array(rating, "ratings").astype(np.int64)
    games = (HOLDEM, SHORTDECK) if game is None else (_game(game),)
    out_of_range = (arr < 0) | (arr > 0xFFFF)
    safe = np.where(out_of_range, 0, arr)
    known = np.zeros(arr.shape, dtype=bool)
    for g in games:
        known |= _tables(_SCALES[g])[1][safe] != 0
    bad = out_of_range | ~known
    if bad.any():
        name = "hold'em or short-deck" if game is None else repr(game)
        raise ValueError(f"rating {int(arr[_first_bad(bad)]):#06x}{_at(bad)} is not the 16-bit "
                         f"HandRating of any {name} hand class")
    return _decode(arr)
