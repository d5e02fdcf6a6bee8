"""Reading strengths: category, description, Cactus Kev ranks and the self-describing 30-bit
value.

Every hold'em strength 1..7462 is one hand class. The table of classes is built here from the
definition of the scale in ``gpu_eval.scale`` (never from an evaluator), and DeadHorseEval's
30-bit value ``category << 26 | important << 13 | kickers`` is derived for each: a bijection
that orders the classes exactly as ``strength`` does (the tests check it).

``category`` and ``describe`` also read the other games' scales, chosen by ``game=``: Omaha
uses the hold'em scale; ``"shortdeck"`` / ``"shortdeck-triton"`` have 1..1404
(``gpu_eval.games.shortdeck``); ``"wild"`` (``evaluate(..., wild=...)``) is hold'em plus five of a
kind, 7463..7475 (``gpu_eval.games.wild``). A strength outside the named game's scale raises.

**The game tag.** Strengths on a scale other than hold'em's carry their game in the dtype:
``evaluate(..., game="shortdeck")`` returns ``np.dtype(np.uint16, metadata={"game":
"shortdeck"})`` (likewise ``"shortdeck-triton"``, and ``"wild"`` for ``wild=``); a plain
``uint16`` array means hold'em (Omaha strengths are on the hold'em scale, so they are plain
too). With ``game=None`` (the default) the functions here read the tag, falling back to
hold'em; an explicit ``game=`` that contradicts the tag raises ``ValueError``, and so does
:func:`gpu_eval.compare` for players whose strengths carry different games.

The tag is NumPy dtype metadata. It survives indexing with slices, index arrays and boolean
masks, copies (``a.copy()``, ``np.array(a)``), reshaping, ``np.sort``, ``np.unique`` and
pickling. It does not survive taking a single element (``a[0]`` is a plain NumPy scalar: use
``a[0:1]`` or pass ``game=``), ``a.astype(np.uint16)``, ``np.concatenate``/``np.stack``,
``np.where``, full reductions such as ``a.max()``, or ``np.save`` (NumPy does not store dtype
metadata in ``.npy`` files); arithmetic may keep or drop it, so do not rely on it there.
CuPy arrays cannot carry metadata: strengths computed on the GPU from CuPy input are plain
``uint16`` whatever the game, so pass ``game=`` explicitly when reading them.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gpu_eval import scale as S
from gpu_eval.array_interop import accepts_arrays
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM, WILD, strength_dtype, tag_of

__all__ = ["category", "describe", "to_cactus_kev", "from_cactus_kev", "to_value", "from_value",
           "CATEGORY_NAMES", "CATEGORY_KEYS", "strength_dtype", "game_of"]

CATEGORY_NAMES = ("High Card", "Pair", "Two Pair", "Three of a Kind", "Straight", "Flush",
                  "Full House", "Four of a Kind", "Straight Flush", "Five of a Kind")
#: Short names of the categories, as keys of count tables (``EvaluationCounts.category_counts``).
CATEGORY_KEYS = ("high card", "pair", "two pair", "trips", "straight", "flush", "full house",
                 "quads", "straight flush", "five of a kind")
_RANK_NAMES = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack",
               "Queen", "King", "Ace")
_PLURALS = ("Twos", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines", "Tens",
            "Jacks", "Queens", "Kings", "Aces")


def _decompress(kc: np.ndarray, r: int) -> np.ndarray:
    """Inverse of ``gpu_eval.scale.remove_rank``: open a gap at bit ``r``."""
    low = (1 << r) - 1
    return (kc & low) | ((kc & ~low) << 1)


@cache
def _class_values() -> np.ndarray:
    """``VALUE[strength]`` (uint32) for strengths 0..7462 (0 -> 0), in the scale's own order."""
    allm = S.ALL_RANK_MASKS
    by_pop = {k: allm[np.bitwise_count(allm) == k] for k in range(6)}
    sub12 = {k: v[v < (1 << 12)] for k, v in by_pop.items()}
    five = S.top_bits(allm, 5)[S.FIVE_RANK_INDEX >= 0]  # colex order, straights excluded
    straight_kick = np.array([0xF] + list(S.STRAIGHT_MASKS[1:]))  # the wheel plays A low
    per_cat = [
        five,
        np.concatenate([(1 << r) << 13 | _decompress(sub12[3], r) for r in range(13)]),
        np.array([pm << 13 | (1 << kr) for pm in by_pop[2] for kr in range(13)
                  if not pm >> kr & 1]),
        np.concatenate([(1 << r) << 13 | _decompress(sub12[2], r) for r in range(13)]),
        straight_kick,
        five,
        np.array([(1 << r) << 13 | 1 << pr for r in range(13) for pr in range(13) if pr != r]),
        np.array([(1 << r) << 13 | 1 << kr for r in range(13) for kr in range(13) if kr != r]),
        straight_kick,
    ]
    values = np.concatenate([[0]] + [(c << 26) | v for c, v in enumerate(per_cat)])
    assert len(values) == S.NUM_CLASSES + 1
    values = values.astype(np.uint32)
    values.flags.writeable = False
    return values


@cache
def _scale_values(scale: str) -> np.ndarray:
    """``VALUE[strength]`` of every class of a scale: hold'em, a short deck, or wild cards
    (hold'em plus the 13 five-of-a-kind classes on top, 7463..7475)."""
    if scale == HOLDEM:
        return _class_values()
    if scale == WILD:
        five = np.array([S.FIVE_OF_A_KIND << 26 | (1 << r) << 13 for r in range(13)])
        values = np.concatenate([_class_values(), five]).astype(np.uint32)
        values.flags.writeable = False
        return values
    if scale in registry.LOW_SCALES:
        raise ValueError(f"{scale!r} strengths have no 30-bit value or Cactus Kev rank (low "
                         f"scales: use category() and describe())")
    from gpu_eval.games.shortdeck import class_values  # noqa: PLC0415 -- its tables load on demand
    return class_values(scale)


@cache
def _category_table(scale: str = HOLDEM) -> np.ndarray:
    cat = (_scale_values(scale) >> 26).astype(np.uint8)
    cat.flags.writeable = False
    return cat


def check_game(game: str) -> str:
    """The scale ``game``'s strengths are on; ``ValueError`` for an unknown game."""
    return registry.check_scale(game)


def game_of(strength) -> str:
    """The game a strength array belongs to, read from its dtype: the ``"game"`` of its
    metadata when tagged, else ``"holdem"`` (plain integers mean hold'em).

    Examples
    --------
    >>> import gpu_eval as ge
    >>> game_of(ge.evaluate(["As Ks Qs Js Ts", "6c 7d 8h 9s Ac"], game="shortdeck"))
    'shortdeck'
    >>> game_of(ge.evaluate("As Ks Qs Js Ts"))
    'holdem'
    """
    return tag_of(strength) or HOLDEM


def _resolve_game(strength, game: str | None) -> str:
    """The game whose scale ``strength`` is read on: ``game``, or the dtype's tag when
    ``game`` is None (hold'em without one). A ``game`` contradicting the tag raises."""
    tagged = tag_of(strength)
    if game is None:
        game = tagged or HOLDEM
        check_game(game)
        return game
    scale = check_game(game)
    if tagged is not None and check_game(tagged) != scale:
        raise ValueError(f"these strengths are {tagged!r} strengths (their dtype says so), but "
                         f"game={game!r} was passed: the two games have different strength "
                         f"scales; pass game={tagged!r} or leave game= out")
    return game


def _as_strength(strength, *, allow_zero: bool = False, scale: str = HOLDEM) -> np.ndarray:
    arr = np.asarray(strength)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"strengths must be integers, got dtype {arr.dtype}")
    low = 0 if allow_zero else 1
    top = len(_scale_values(scale)) - 1
    bad = (arr < low) | (arr > top)
    if bad.any():
        where = tuple(int(w) for w in np.argwhere(bad)[0]) if arr.ndim else ()
        name = "hold'em" if scale == HOLDEM else repr(scale)
        at = f" at index {where}" if arr.ndim else ""  # a single strength has no index
        raise ValueError(f"strength {int(arr[where])}{at} is outside the {name} "
                         f"scale {low}..{top} (a strength from another game?)")
    return arr.astype(np.int64)


@accepts_arrays("strength", host_only=True)
def category(strength, game: str | None = None) -> np.ndarray:
    """Hand category of each strength: 0 high card, 1 pair, ..., 8 straight flush.

    Parameters
    ----------
    strength : array_like of int
        Strengths on the game's scale: 1..7462 for hold'em and Omaha, 1..1404 for the short
        deck games, 1..7475 for ``"wild"`` (``evaluate(..., wild=...)``, where category 9 is
        five of a kind). A value outside the scale raises ``ValueError``.
    game : str, optional
        The game whose scale the strengths belong to: any game (``"holdem"``, ``"shortdeck"``,
        ``"shortdeck-triton"``, ``"omaha"``, ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``,
        ``"omaha5-hilo"``, ``"courchevel"``, ``"courchevel-hilo"``, ``"stud"``,
        ``"stud-hilo"``, ``"razz"``, ``"deuce-seven"``, ``"ace-five"``, ``"badugi"``,
        ``"deuce-seven-draw"``, ``"badugi-draw"``, ``"five-card-draw"``) or ``"wild"``
        (hold'em with wild cards). Omaha, Courchevel, stud, stud hi/lo and five-card draw
        share the hold'em scale; the short-deck games, wild cards and the low games (razz on
        A-5, the draw lows on their own) have theirs. Default: the game the strengths carry in
        their dtype, else hold'em. :func:`evaluate` tags the strengths of every scale but
        hold'em's, ``np.dtype(np.uint16, metadata={"game": ...})``; a plain ``uint16`` means
        hold'em. The tag survives slicing, fancy indexing, copies, reshaping and sorting, but
        not taking one element (``a[0]``), ``astype``, ``np.concatenate`` or a CuPy array:
        pass ``game=`` there. A game that contradicts the tag raises ``ValueError``.

    Returns
    -------
    numpy.ndarray
        ``uint8`` categories, same shape as ``strength``.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> int(category(ge.evaluate("AsKsQsJsTs")))
    8
    >>> category([1, 1278, 7462]).tolist()
    [0, 1, 8]
    >>> category(ge.evaluate("6s 7s 8s 9s As", game="shortdeck")).tolist()   # the dtype's game
    8
    """
    scale = check_game(_resolve_game(strength, game))
    if scale in registry.LOW_SCALES:
        from gpu_eval.games import lowball  # noqa: PLC0415 -- its tables load on demand
        return lowball.category(strength, scale)
    return _category_table(scale)[_as_strength(strength, scale=scale)]


@accepts_arrays("strength", host_only=True)
def to_value(strength, game: str | None = None) -> np.ndarray:
    """The self-describing 30-bit value ``category << 26 | important << 13 | kickers`` of
    each strength (DeadHorseEval's layout).

    Important ranks are the pair(s), trips or quads (for a full house the trips, with the pair
    as kicker); kickers are the remaining ranks that play. Straights carry their five rank
    bits, the wheel as ``0b1111`` (ace low). On the hold'em scale higher values are better
    hands; on the short-deck scales values order classes by category number, not by the
    game's category order, and five of a kind (``"wild"``) is category 9.

    Parameters
    ----------
    strength : int or array_like of int
        Strengths on the game's scale.
    game : str, optional
        The game whose scale the strengths belong to: ``"holdem"``, ``"omaha"``, ``"omaha5"``,
        ``"omaha6"``, ``"omaha-hilo"``, ``"omaha5-hilo"``, ``"courchevel"``,
        ``"courchevel-hilo"``, ``"stud"``, ``"stud-hilo"``, ``"five-card-draw"`` (the hold'em
        scale), ``"shortdeck"``, ``"shortdeck-triton"`` or ``"wild"``; the low games have no
        such value. Default: the game the strengths carry in their dtype, else hold'em (see
        :func:`category`).

    Returns
    -------
    numpy.ndarray
        ``uint32`` values, the shape of ``strength``.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> int(to_value(ge.evaluate("5c Ad 5h 2c Ac")))   # Aces and Fives, Two kicker
    167837697
    """
    scale = check_game(_resolve_game(strength, game))
    return _scale_values(scale)[_as_strength(strength, scale=scale)]


@cache
def _value_index(scale: str) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted values, their strengths)`` of a scale, for inverting :func:`to_value`."""
    values = _scale_values(scale).astype(np.int64)
    order = np.argsort(values, kind="stable")
    return values[order], order


@accepts_arrays("value", host_only=True)
def from_value(value, game: str | None = None) -> np.ndarray:
    """Inverse of :func:`to_value`; raises ``ValueError`` on a value that is no hand class.

    Parameters
    ----------
    value : int or array_like of int
        30-bit values, ``category << 26 | important << 13 | kickers``.
    game : str, optional
        The scale to map onto (default hold'em): ``"holdem"``, ``"omaha"``, ``"omaha5"``,
        ``"omaha6"``, ``"omaha-hilo"``, ``"omaha5-hilo"``, ``"courchevel"``,
        ``"courchevel-hilo"``, ``"stud"``, ``"stud-hilo"``, ``"five-card-draw"`` (the hold'em
        scale), ``"shortdeck"``, ``"shortdeck-triton"`` or ``"wild"``.

    Returns
    -------
    numpy.ndarray
        ``uint16`` strengths, tagged with the game in their dtype when its scale is not
        hold'em's.

    Examples
    --------
    >>> int(from_value(to_value(1234)))
    1234
    >>> from_value(to_value(1404, game="shortdeck"), game="shortdeck").dtype.metadata["game"]
    'shortdeck'
    """
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"values must be integers, got dtype {arr.dtype}")
    game = HOLDEM if game is None else game
    scale = check_game(game)
    values, strengths = _value_index(scale)
    a = arr.astype(np.int64)
    pos = np.searchsorted(values, a).clip(0, len(values) - 1)
    bad = (values[pos] != a) | (a <= 0)
    if bad.any():
        where = tuple(int(w) for w in np.argwhere(bad)[0]) if a.ndim else ()
        name = "" if scale == HOLDEM else f"{game!r} "
        at = f" at index {where}" if a.ndim else ""
        raise ValueError(f"{int(a[where])}{at} is not the value of any {name}hand class")
    out = np.asarray(strengths[pos], dtype=np.uint16)
    if strength_dtype(game).metadata is None:
        return out[()]  # as before: a NumPy scalar for a scalar value
    return out.view(strength_dtype(game))  # a 0-d array for a scalar: it keeps the tag


@accepts_arrays("strength", host_only=True)
def to_cactus_kev(strength, game: str | None = None) -> np.ndarray:
    """Cactus Kev / PokerHandEvaluator rank (1 = royal flush, 7462 = 7-5-4-3-2).

    Cactus Kev ranks exist for the hold'em scale only: strengths of another game (by ``game``
    or their dtype's tag) raise ``ValueError``.

    Parameters
    ----------
    strength : int or array_like of int
        Hold'em-scale strengths, 1..7462.
    game : str, optional
        A game on the hold'em scale: ``"holdem"``, ``"omaha"``, ``"omaha5"``, ``"omaha6"``,
        ``"omaha-hilo"``, ``"omaha5-hilo"``, ``"courchevel"``, ``"courchevel-hilo"``,
        ``"stud"``, ``"stud-hilo"`` or ``"five-card-draw"``. Default: the strengths' dtype
        tag, else hold'em.

    Returns
    -------
    numpy.ndarray
        ``uint16`` ranks, ``7463 - strength``.

    Examples
    --------
    >>> to_cactus_kev([7462, 1]).tolist()
    [1, 7462]
    """
    game = _resolve_game(strength, game)
    if check_game(game) != HOLDEM:
        raise ValueError(f"Cactus Kev ranks exist for hold'em-scale strengths only; these are "
                         f"{game!r} strengths")
    return (S.NUM_CLASSES + 1 - _as_strength(strength)).astype(np.uint16)


@accepts_arrays("rank", host_only=True)
def from_cactus_kev(rank) -> np.ndarray:
    """Strength from a Cactus Kev rank (1 best, up to 7462 worst): ``7463 - rank``.

    Parameters
    ----------
    rank : int or array_like of int
        Cactus Kev / PokerHandEvaluator ranks, 1 (a royal flush) to 7462 (7-5-4-3-2
        unsuited).

    Returns
    -------
    numpy.ndarray
        ``uint16`` hold'em strengths (higher is better), the shape of ``rank``.

    Raises
    ------
    ValueError
        A rank outside 1..7462 (naming it and, in an array, its index).
    TypeError
        Ranks that are not integers.

    Examples
    --------
    >>> int(from_cactus_kev(1))
    7462
    """
    arr = np.asarray(rank)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"Cactus Kev ranks must be integers, got dtype {arr.dtype}")
    bad = (arr < 1) | (arr > S.NUM_CLASSES)
    if bad.any():
        where = tuple(int(w) for w in np.argwhere(bad)[0]) if arr.ndim else ()
        at = f" at index {where}" if arr.ndim else ""
        raise ValueError(f"Cactus Kev rank {int(arr[where])}{at} is outside 1..{S.NUM_CLASSES}")
    return (S.NUM_CLASSES + 1 - arr.astype(np.int64)).astype(np.uint16)


def _ranks_desc(bits: int) -> list[int]:
    return [r for r in range(12, -1, -1) if bits >> r & 1]


def _describe_one(value: int) -> str:
    cat, imp, kick = value >> 26, (value >> 13) & 0x1FFF, value & 0x1FFF
    ks = [_RANK_NAMES[r] for r in _ranks_desc(kick)]
    ims = [_PLURALS[r] for r in _ranks_desc(imp)]
    kickers = " ".join(ks)
    if cat == S.HIGH_CARD:
        return f"High Card, {ks[0]} high, {' '.join(ks[1:])} kickers"
    if cat == S.PAIR:
        return f"Pair, {ims[0]}, {kickers} kickers"
    if cat == S.TWO_PAIR:
        return f"Two Pair, {ims[0]} and {ims[1]}, {kickers} kicker"
    if cat == S.TRIPS:
        return f"Three of a Kind, {ims[0]}, {kickers} kickers"
    if cat in (S.STRAIGHT, S.STRAIGHT_FLUSH):
        high = "Five" if kick == 0xF else ks[0]
        if cat == S.STRAIGHT_FLUSH and high == "Ace":
            return "Royal Flush"
        return f"{CATEGORY_NAMES[cat]}, {high} high"
    if cat == S.FLUSH:
        return f"Flush, {ks[0]} high, {' '.join(ks[1:])}"
    if cat == S.FULL_HOUSE:
        return f"Full House, {ims[0]} full of {_PLURALS[_ranks_desc(kick)[0]]}"
    if cat == S.FIVE_OF_A_KIND:
        return f"Five of a Kind, {ims[0]}"
    return f"Four of a Kind, {ims[0]}, {kickers} kicker"


@cache
def _descriptions(scale: str = HOLDEM) -> tuple[str, ...]:
    return ("no valid hand",) + tuple(_describe_one(int(v)) for v in _scale_values(scale)[1:])


@accepts_arrays("strength", host_only=True)
def describe(strength, game: str | None = None):
    """Describe strengths in words ("Two Pair, Aces and Fives, Two kicker").

    Parameters
    ----------
    strength : int or array_like of int
        Strengths on the game's scale; 0 (a masked invalid row) reads "no valid hand".
    game : str, optional
        The game whose scale the strengths belong to: any game (``"holdem"``, ``"shortdeck"``,
        ``"shortdeck-triton"``, ``"omaha"``, ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``,
        ``"omaha5-hilo"``, ``"courchevel"``, ``"courchevel-hilo"``, ``"stud"``,
        ``"stud-hilo"``, ``"razz"``, ``"deuce-seven"``, ``"ace-five"``, ``"badugi"``,
        ``"deuce-seven-draw"``, ``"badugi-draw"``, ``"five-card-draw"``) or ``"wild"``;
        default: the game the strengths carry in their dtype, else hold'em (the tag is
        explained under :func:`category`).

    Returns
    -------
    str or list of str
        One description for a scalar, a nested list for an array.

    Examples
    --------
    >>> import gpu_eval as ge
    >>> describe(ge.evaluate("Ac Ad 5c 5h 2s"))
    'Two Pair, Aces and Fives, Two kicker'
    >>> describe([7462, 5854])
    ['Royal Flush', 'Straight, Five high']
    >>> describe(ge.evaluate("As 6d 7c 8h 9s", game="shortdeck"))   # tagged: read as short deck
    'Straight, Nine high'
    >>> describe(ge.evaluate("Ac Ad Ah As Jk", wild="joker"))
    'Five of a Kind, Aces'
    >>> describe(7475, game="wild")                                   # untagged: say the game
    'Five of a Kind, Aces'
    """
    scale = check_game(_resolve_game(strength, game))
    if scale in registry.LOW_SCALES:
        from gpu_eval.games import lowball  # noqa: PLC0415 -- its tables load on demand
        return lowball.describe(strength, scale)
    arr = _as_strength(strength, allow_zero=True, scale=scale)
    names = _descriptions(scale)
    if arr.ndim == 0:
        return names[int(arr)]
    return np.array(names, dtype=object)[arr].tolist()
