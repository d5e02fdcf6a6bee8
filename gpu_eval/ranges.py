"""Hand ranges: parse range text into weighted two-card combos.

A :class:`Range` is a set of hold'em starting hands (two-card combos), each with a weight in
``(0, 1]``. Range text is the union of the common syntaxes, separated by ``,``, ``;`` or
whitespace, case-insensitive, with ``10`` accepted for ``T``:

============================  ==================================================================
``QQ``, ``QQ+``, ``88-JJ``    a pair; that pair and every higher one; pairs from 88 to JJ
``AKs``, ``AKo``, ``AK``      suited (4 combos), offsuit (12), both (16)
``A2s+``, ``KTo+``            the kicker rises up to one below the top card (A2s .. AKs)
``A5s-A2s``                   same top card, kickers A5s .. A2s (either order)
``JTs-76s``                   same gap, both cards shift: JTs, T9s, 98s, 87s, 76s (either order)
``AhKh``, ``2c7d``            one exact combo
``random``, ``any``           all 1326 combos (also ``100%``)
``top 15%``                   the best 15% of combos by :func:`preflop_order` (also ``top15%``)
``0.6(AA)``, ``40%(AK, QQ)``  a weight for every hand inside the parentheses
``AA:0.5``, ``AKs:40%``       a weight for one hand
============================  ==================================================================

Every hand without a weight has weight 1; a weight is a number or a percentage in ``(0, 1]``.
A hand inside a weighted group cannot carry its own ``:weight``, and groups do not nest. When a
spec names the same combo twice, the later mention wins: ``"AA, 0.5(AsAh)"`` holds AsAh at 0.5
and the other five aces at 1. An empty spec gives an empty range.

``top X%`` takes whole hand classes in :func:`preflop_order` until they hold at least
``floor(X / 100 * 1326 + 0.5)`` combos (at least one class), so the class that crosses the
threshold is included whole. A bare ``15%`` is an error (did you mean ``top 15%``?), except
``100%``, which means every combo.

Bad text raises ``ValueError`` naming the token, its 0-based character position and the spec.

Combos are stored as ``uint8`` card ids (``4 * rank + suit``, see :mod:`gpu_eval.cards`), each
row with the higher id first and rows sorted by ``(high id, low id)`` descending, so ``AsAh``
(51, 50) is always the first combo of a range that holds it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NoReturn

import numpy as np

from gpu_eval import card_input, cards
from gpu_eval.games import registry
from gpu_eval.games.registry import HOLDEM

__all__ = ["Range", "preflop_order", "chen_score"]

_RANKS = cards.RANKS  # "23456789TJQKA"
_N_COMBOS = 1326

# ---------------------------------------------------------------------------------------------
# Tables: every combo and every hand class, built once at import.
# ---------------------------------------------------------------------------------------------

# All 1326 combos, higher id first, rows in descending (high, low) order: the canonical order
# that every Range keeps, so equal ranges have equal arrays.
ALL_COMBOS = np.array([(h, lo) for h in range(51, 0, -1) for lo in range(h - 1, -1, -1)],
                dtype=np.uint8)
ALL_COMBOS.setflags(write=False)
COMBO_INDEX = np.full((52, 52), -1, dtype=np.int64)  # (card, card) -> row of ALL_COMBOS, either order
COMBO_INDEX[ALL_COMBOS[:, 0], ALL_COMBOS[:, 1]] = np.arange(_N_COMBOS)
COMBO_INDEX[ALL_COMBOS[:, 1], ALL_COMBOS[:, 0]] = np.arange(_N_COMBOS)
ALL_COMBO_MASKS = cards.to_mask(ALL_COMBOS)
ALL_COMBO_MASKS.setflags(write=False)

_PAIR, _SUITED, _OFFSUIT = 0, 1, 2


def class_name(hi: int, lo: int, kind: int) -> str:
    return _RANKS[hi] + _RANKS[lo] + ("", "s", "o")[kind]


# The 169 classes in grid order (top rank down, then kicker down; pair, suited, offsuit).
_CLASS_KEYS: list[tuple[int, int, int]] = []
for _hi in range(12, -1, -1):
    for _lo in range(_hi, -1, -1):
        _CLASS_KEYS += [(_hi, _lo, _PAIR)] if _hi == _lo else [(_hi, _lo, _SUITED),
                                                                  (_hi, _lo, _OFFSUIT)]
CLASS_NAMES = [class_name(*k) for k in _CLASS_KEYS]
_CLASS_ID = {k: i for i, k in enumerate(_CLASS_KEYS)}

_rank_hi = ALL_COMBOS[:, 0] // 4
_rank_lo = ALL_COMBOS[:, 1] // 4
_kind = np.where(_rank_hi == _rank_lo, _PAIR,
                 np.where(ALL_COMBOS[:, 0] % 4 == ALL_COMBOS[:, 1] % 4, _SUITED, _OFFSUIT))
COMBO_CLASS = np.array([_CLASS_ID[(int(h), int(lo), int(k))]
                         for h, lo, k in zip(_rank_hi, _rank_lo, _kind)], dtype=np.int64)
_CLASS_COMBOS = [np.flatnonzero(COMBO_CLASS == c) for c in range(len(_CLASS_KEYS))]
del _hi, _lo, _rank_hi, _rank_lo, _kind

# ---------------------------------------------------------------------------------------------
# Preflop order (Chen formula).
# ---------------------------------------------------------------------------------------------


def _chen_high_points(rank: int) -> float:
    # A=10, K=8, Q=7, J=6; T..2 score half their face value (T=5 .. 2=1).
    return {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}.get(rank, (rank + 2) / 2)


def _chen_raw(hi: int, lo: int, kind: int) -> float:
    if kind == _PAIR:
        return max(5.0, 2 * _chen_high_points(hi))
    score = _chen_high_points(hi)
    if kind == _SUITED:
        score += 2
    gap = hi - lo - 1
    score -= (0, 1, 2, 4, 5)[min(gap, 4)]
    if gap <= 1 and hi < 10:  # both cards below a queen can still make many straights
        score += 1
    return score


def parse_class_name(text: str) -> tuple[int, int, int]:
    t = text.strip().upper().replace("10", "T")
    m = re.fullmatch(r"([2-9TJQKA])([2-9TJQKA])([SO]?)", t)
    if m is None:
        raise ValueError(f"unknown hand class {text!r}: expected a pair such as 'AA' or a "
                         f"suited/offsuit hand such as 'AKs' or 'T9o'")
    hi, lo = _RANKS.index(m.group(1)), _RANKS.index(m.group(2))
    if hi == lo:
        if m.group(3):
            raise ValueError(f"hand class {text!r}: a pair is neither suited nor offsuit; "
                             f"write {m.group(1) * 2!r}")
        return hi, lo, _PAIR
    if hi < lo:
        raise ValueError(f"hand class {text!r}: write the higher rank first "
                         f"({m.group(2) + m.group(1) + m.group(3).lower()!r})")
    if not m.group(3):
        raise ValueError(f"hand class {text!r} needs 's' (suited) or 'o' (offsuit)")
    return hi, lo, _SUITED if m.group(3) == "S" else _OFFSUIT


def chen_score(hand_class: str, *, rounded: bool = True) -> int | float:
    """Bill Chen's preflop score of a hand class.

    High card points A=10, K=8, Q=7, J=6, T..2 half their face value (T=5 .. 2=1). A pair
    doubles its card's points, with a minimum of 5. A suited hand adds 2. The gap between the
    ranks costs 0/1/2/4/5 points for gaps of 0/1/2/3/4 or more, and a hand with a gap of 0 or
    1 whose cards are both below a queen gets 1 point back. Halves round up
    (``floor(x + 0.5)``, so -1.5 rounds to -1).

    Parameters
    ----------
    hand_class : str
        A class name such as ``"AA"``, ``"AKs"`` or ``"72o"`` (any case, ``10`` for ``T``).
    rounded : bool
        Return the rounded integer score (default) or the unrounded half-point score.

    Returns
    -------
    int or float
        The score.

    Raises
    ------
    ValueError
        If `hand_class` is not a class name, or a non-pair lacks its ``s``/``o`` suffix.

    Examples
    --------
    >>> chen_score("AA"), chen_score("AKs"), chen_score("T9s"), chen_score("72o")
    (20, 12, 8, -1)
    >>> chen_score("72o", rounded=False)
    -1.5
    """
    if not isinstance(hand_class, str):
        raise TypeError(f"hand class must be text such as 'AKs', got "
                        f"{type(hand_class).__name__}")
    raw = _chen_raw(*parse_class_name(hand_class))
    return math.floor(raw + 0.5) if rounded else raw


def _compute_preflop_order() -> tuple[str, ...]:
    def key(k: tuple[int, int, int]) -> tuple:
        hi, lo, kind = k
        # Ties: pairs, then suited before offsuit, then higher top card, then higher kicker.
        return (-math.floor(_chen_raw(hi, lo, kind) + 0.5), kind, -hi, -lo)
    return tuple(class_name(*k) for k in sorted(_CLASS_KEYS, key=key))


_PREFLOP_ORDER = _compute_preflop_order()
_PREFLOP_CLASS_IDS = np.array([CLASS_NAMES.index(n) for n in _PREFLOP_ORDER], dtype=np.int64)
_PREFLOP_CUMULATIVE = np.cumsum([len(_CLASS_COMBOS[c]) for c in _PREFLOP_CLASS_IDS])


def preflop_order() -> list[str]:
    """The 169 hand classes, best first, in the order that ``top X%`` uses.

    The order is computed from :func:`chen_score` (rounded), higher first; ties go to pairs
    first, then suited before offsuit, then the higher top card, then the higher kicker.
    It is a heuristic: it may later be replaced by an order measured from each class's equity
    against a random hand, which would change what ``top X%`` selects.

    Returns
    -------
    list of str
        A new list of the 169 class names (``"AA"``, ``"KK"``, ..., ``"62o"``).

    Examples
    --------
    >>> preflop_order()[:6]
    ['AA', 'KK', 'QQ', 'JJ', 'AKs', 'AQs']
    >>> len(preflop_order()), preflop_order()[-1]
    (169, '62o')
    """
    return list(_PREFLOP_ORDER)


def _top_combos(percent: float) -> np.ndarray:
    """Combo rows of the best `percent` % by preflop order (whole classes, at least one)."""
    # Round half up, and never select nothing for a positive percentage: the first class
    # crosses any threshold above zero.
    target = max(1, math.floor(percent / 100 * _N_COMBOS + 0.5))
    n_classes = min(int(np.searchsorted(_PREFLOP_CUMULATIVE, target)) + 1, len(_PREFLOP_ORDER))
    return np.concatenate([_CLASS_COMBOS[c] for c in _PREFLOP_CLASS_IDS[:n_classes]])


# ---------------------------------------------------------------------------------------------
# Range text parsing.
# ---------------------------------------------------------------------------------------------

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_SEP_RE = re.compile(r"[\s,;]+")
_GROUP_OPEN_RE = re.compile(rf"({_NUM})\s*(%?)\s*\(")
_TOP_RE = re.compile(rf"top\s*({_NUM})\s*(%?)", re.IGNORECASE)
_WORD_RE = re.compile(r"[^\s,;():]+")
_WEIGHT_SUFFIX_RE = re.compile(r"\s*:\s*([^\s,;()]*)")
_WEIGHT_RE = re.compile(rf"({_NUM})(%?)")
_CARD_RE = re.compile(r"(?:10|[2-9tjqka])[cdhs♣♦♥♠♧♢♡♤]", re.IGNORECASE)
_EXACT_RE = re.compile(r"(?:(?:10|[2-9tjqka])[cdhs♣♦♥♠♧♢♡♤]){2}", re.IGNORECASE)
_R = "[2-9TJQKA]"
_PLAIN_RE = re.compile(rf"({_R})({_R})([SO]?)(\+?)")
_DASH_RE = re.compile(rf"({_R})({_R})([SO]?)-({_R})({_R})([SO]?)")
_BAD_SUFFIX_RE = re.compile(rf"({_R})({_R})([^-+]+)\+?")

_HELP = ("expected a hand such as 'QQ', 'QQ+', '88-JJ', 'AKs', 'AKo', 'A2s+', 'A5s-A2s', "
         "'JTs-76s', 'AhKh', 'random' or 'top 15%'")


class _TokenError(Exception):
    """A reason a token is bad; turned into a ValueError that names the token and place."""


def _parse_weight(text: str) -> float:
    if not text:
        raise _TokenError("missing weight after ':'; write e.g. 'AA:0.5' or 'AA:50%'")
    m = _WEIGHT_RE.fullmatch(text)
    if m is None:
        raise _TokenError(f"bad weight {text!r}: write a number in (0, 1] such as 0.5, "
                          f"or a percentage such as 50%")
    value = float(m.group(1)) / (100 if m.group(2) else 1)
    if not 0 < value <= 1:
        raise _TokenError(f"weight {text} is out of range: a weight must be above 0 and at "
                          f"most 1 (100%)")
    return value


def _pairs(a: int, b: int) -> list[int]:
    return [_CLASS_ID[(r, r, _PAIR)] for r in range(min(a, b), max(a, b) + 1)]


def _kinds(suffix: str) -> tuple[int, ...]:
    return {"S": (_SUITED,), "O": (_OFFSUIT,), "": (_SUITED, _OFFSUIT)}[suffix]


def _check_order(hi: int, lo: int, suffix: str, plus: str = "") -> None:
    if hi < lo:
        raise _TokenError(f"write the higher rank first "
                          f"({_RANKS[lo] + _RANKS[hi] + suffix.lower() + plus!r})")


def _expand_token(token: str) -> np.ndarray:
    """Combo rows named by one token without weight (raises _TokenError)."""
    low = token.lower()
    if low in ("random", "any", "100%"):
        return np.arange(_N_COMBOS)
    if low == "top":
        raise _TokenError("'top' needs a percentage, e.g. 'top 15%'")
    if _CARD_RE.fullmatch(token):
        raise _TokenError("a single card is not a hand; write two cards such as 'AhKh'")
    if _EXACT_RE.fullmatch(token):
        try:
            ids = cards.parse(token)
        except ValueError as exc:
            raise _TokenError(str(exc)) from None
        return np.array([COMBO_INDEX[ids[0], ids[1]]])

    t = token.upper().replace("10", "T")
    m = _PLAIN_RE.fullmatch(t)
    if m:
        r1, r2, suffix, plus = m.groups()
        hi, lo = _RANKS.index(r1), _RANKS.index(r2)
        if hi == lo:
            if suffix:
                raise _TokenError(f"a pair is neither suited nor offsuit; write "
                                  f"{r1 * 2 + plus!r}")
            classes = _pairs(hi, 12) if plus else _pairs(hi, hi)
        else:
            _check_order(hi, lo, suffix, plus)
            kickers = range(lo, hi) if plus else (lo,)
            classes = [_CLASS_ID[(hi, k, kind)] for k in kickers for kind in _kinds(suffix)]
        return np.concatenate([_CLASS_COMBOS[c] for c in classes])

    m = _DASH_RE.fullmatch(t)
    if m:
        r1, r2, s1, r3, r4, s2 = m.groups()
        a1, b1, a2, b2 = (_RANKS.index(r) for r in (r1, r2, r3, r4))
        if (a1 == b1) != (a2 == b2):
            raise _TokenError("a '-' range joins two pairs ('88-JJ') or two non-pairs "
                              "('A5s-A2s', 'JTs-76s'), not a pair and a non-pair")
        if a1 == b1:
            if s1 or s2:
                raise _TokenError(f"a pair is neither suited nor offsuit; write "
                                  f"{r1 * 2 + '-' + r3 * 2!r}")
            classes = _pairs(a1, a2)
        else:
            _check_order(a1, b1, s1)
            _check_order(a2, b2, s2)
            if s1 != s2:
                raise _TokenError("both ends of a '-' range need the same suffix "
                                  "('A5s-A2s', not 'A5s-A2o')")
            if a1 == a2:  # same top card: the kicker runs between the two ends
                pairs = [(a1, k) for k in range(min(b1, b2), max(b1, b2) + 1)]
            elif a1 - b1 == a2 - b2:  # same gap: both cards shift together
                start = min(b1, b2)
                pairs = [(start + d + a1 - b1, start + d) for d in range(abs(a1 - a2) + 1)]
            else:
                raise _TokenError("the two ends of a '-' range must share the top card "
                                  "('A5s-A2s') or the gap between the cards ('JTs-76s')")
            classes = [_CLASS_ID[(h, k, kind)] for h, k in pairs for kind in _kinds(s1)]
        return np.concatenate([_CLASS_COMBOS[c] for c in classes])

    # Numbers are checked only now: '99' and '1010' are pairs.
    if re.fullmatch(rf"{_NUM}%", token):
        raise _TokenError(f"a bare percentage is not a range; for the best {token} of hands "
                          f"write 'top {token}', or put a weight on hands as '{token}(AA, KK)'")
    if re.fullmatch(_NUM, token):
        raise _TokenError(f"a weight needs hands to apply to: write '{token}(AA, KK)' or "
                          f"'AA:{token}'")
    m = _BAD_SUFFIX_RE.fullmatch(t)
    if m and "-" not in t:
        raise _TokenError(f"unknown suffix {token[2:].rstrip('+')!r}: use 's' (suited), "
                          f"'o' (offsuit) or nothing (both)")
    raise _TokenError(_HELP)


#: Range.without results by (id of the source weights, removed cards): ranges from the same
#: text share their weights (:func:`_parsed_range`), so equity() on the same board asks the
#: same question every call. Each entry keeps its source alive and is checked against it.
_WITHOUT: dict[tuple[int, int], tuple[np.ndarray, tuple[str | None, int], Range]] = {}


@lru_cache(maxsize=512)
def _parsed_range(spec: str) -> tuple[tuple[str, object], ...]:
    """The slots of ``Range(spec)`` for range text (arrays read-only): the same text is
    parsed once, since equity() on a small spot spends a tenth of its time on its ranges."""
    w = np.zeros(_N_COMBOS, dtype=np.float64)
    _parse_into(w, spec)
    r = Range._from_dense(w, spec, 0)
    return tuple((name, getattr(r, name)) for name in Range.__slots__)


def _parse_into(w: np.ndarray, spec: str, where: str = "") -> None:
    """Parse range text and write its weights into the dense vector `w` (later wins)."""

    def fail(token: str, pos: int, reason: str) -> NoReturn:
        raise ValueError(f"bad range token {token!r} at position {pos} in {spec!r}{where}: "
                         f"{reason}")

    n = len(spec)
    pos = 0
    group: tuple[float, int, str] | None = None  # (weight, position, text) of an open '('
    while True:
        m = _SEP_RE.match(spec, pos)
        if m:
            pos = m.end()
        if pos >= n:
            break
        ch = spec[pos]
        if ch == ")":
            if group is None:
                fail(")", pos, "this ')' closes no '('")
            group = None
            pos += 1
            continue
        if ch == "(":
            fail("(", pos, "a '(' needs a weight in front, e.g. '0.5(AA, KK)' or '40%(ATs+)'")
        m = _GROUP_OPEN_RE.match(spec, pos)
        if m:
            weight_text = m.group(1) + m.group(2)
            if group is not None:
                fail(weight_text, pos, f"weighted groups cannot be nested (the group opened "
                                       f"at position {group[1]} is still open)")
            try:
                group = (_parse_weight(weight_text), pos, m.group(0))
            except _TokenError as exc:
                fail(weight_text, pos, str(exc))
            pos = m.end()
            continue

        start = pos
        m = _TOP_RE.match(spec, pos)
        try:
            if m:
                if not m.group(2):
                    raise _TokenError(f"write the percentage with '%': "
                                      f"'top {m.group(1)}%'")
                percent = float(m.group(1))
                if not 0 < percent <= 100:
                    raise _TokenError("the percentage must be above 0 and at most 100")
                rows = _top_combos(percent)
            else:
                m = _WORD_RE.match(spec, pos)
                if m is None:  # only ':' can start here
                    fail(re.match(r":[^\s,;()]*", spec[pos:]).group(0), pos,
                         "a ':weight' must follow a hand, e.g. 'AA:0.5'")
                rows = _expand_token(m.group(0))
        except _TokenError as exc:
            fail(m.group(0), start, str(exc))
        pos = m.end()

        weight = 1.0 if group is None else group[0]
        m = _WEIGHT_SUFFIX_RE.match(spec, pos)
        if m:
            token = spec[start:m.end()]
            if group is not None:
                fail(token, start, f"a hand inside the weighted group at position {group[1]} "
                                   f"cannot carry its own weight")
            try:
                weight = _parse_weight(m.group(1))
            except _TokenError as exc:
                fail(token, start, str(exc))
            pos = m.end()
        w[rows] = weight
    if group is not None:
        fail(group[2], group[1], "this '(' is never closed")


# ---------------------------------------------------------------------------------------------
# Range.
# ---------------------------------------------------------------------------------------------

DeadLike = str | int | np.integer | np.ndarray | Sequence[int] | Sequence[str]


def _dead_mask(dead: DeadLike) -> int:
    """OR of the cards in `dead` (card text, ids, or uint64 masks) as a Python int mask."""
    return card_input.cards_mask(dead, "dead cards")


def _mask_text(mask: int) -> str:
    return cards.format(np.uint64(mask), sep=" ") if mask else "no cards"


class Range:
    """A hold'em hand range: two-card combos, each with a weight in ``(0, 1]``.

    A Range is immutable: :meth:`without` returns a new one, and the arrays it hands out are
    read-only. Combos are kept in one canonical order (rows ``(high id, low id)``, sorted
    descending), so two equal ranges have equal arrays.

    Parameters
    ----------
    spec : str, Range, or list of str
        Range text (the syntax is below, under Notes), another Range (copied), or a list of
        range texts such as ``["AhKh", "QQ+"]`` whose union is taken in order. A later
        mention of a combo replaces the weight of an earlier one.
    game : str
        ``"holdem"`` (default), and every game with two-card hands of the 52-card deck
        (``"stud"``, ``"stud-hilo"``, ``"razz"``, ``"deuce-seven"``, ``"ace-five"``,
        ``"badugi"``, ``"deuce-seven-draw"``, ``"badugi-draw"``, ``"five-card-draw"``: the
        same combos); ``"shortdeck"`` / ``"shortdeck-triton"`` (the same syntax, combos with
        a card below 6 left out); ``"omaha"``, ``"omaha5"``, ``"omaha6"``, ``"omaha-hilo"``,
        ``"omaha5-hilo"``, ``"courchevel"``, ``"courchevel-hilo"`` give an Omaha range of 4,
        5 or 6-card hands instead, in the Omaha syntax below (same methods: ``len``,
        ``hands()``, ``weights``, ``masks``, ``without``).

    Raises
    ------
    ValueError
        On bad range text, naming the token, its 0-based character position and the spec.
    TypeError
        If `spec` is not text, a Range or a list of text.

    Notes
    -----
    Hold'em range text: tokens separated by ``,``, ``;`` or whitespace, case-insensitive,
    ``10`` accepted for ``T``.

    ============================  ==============================================================
    ``QQ``, ``QQ+``, ``88-JJ``    a pair; that pair and every higher one; pairs from 88 to JJ
    ``AKs``, ``AKo``, ``AK``      suited (4 combos), offsuit (12), both (16)
    ``A2s+``, ``KTo+``            the kicker rises up to one below the top card (A2s to AKs)
    ``A5s-A2s``                   same top card, kickers A5s down to A2s (either order)
    ``JTs-76s``                   same gap, both cards shift: JTs, T9s, 98s, 87s, 76s
    ``AhKh``, ``2c7d``            one exact combo
    ``random``, ``any``           all 1326 combos (also ``100%``)
    ``top 15%``                   the best 15% of combos in the preflop order (also ``top15%``)
    ``0.6(AA)``, ``40%(AK, QQ)``  a weight for every hand inside the parentheses
    ``AA:0.5``, ``AKs:40%``       a weight for one hand
    ============================  ==============================================================

    A hand without a weight has weight 1; a weight is a number or a percentage in ``(0, 1]``;
    groups do not nest, and a hand inside one cannot carry its own ``:weight``. ``top X%``
    takes whole hand classes, best first by the Chen formula's score (pairs, then suited,
    then higher cards breaking ties), until they hold at least ``floor(X / 100 * 1326 +
    0.5)`` combos.

    Omaha range text (``game="omaha"`` and the other Omaha games): the same separators,
    weights and groups, and

    ==========================  ================================================================
    ``AsKs``                    every hand holding all these cards (a whole 4/5/6-card hand is
                                that one hand)
    ``AA``, ``AAKK``, ``KQJT``  ranks the hand holds, at least that many of each; ``x`` is any
                                rank (``AAxx`` is ``AA``)
    ``$ds`` ``$ss`` ``$r``      double-suited, single-suited, rainbow
    ``$np`` ``$1p`` ``$2p``     no pair, exactly one pair, exactly two pairs
    ``AAKK$ds``, ``$ds$np``     qualifiers follow ranks or cards, or stand alone, and combine
    ``random``, ``any``         every hand
    ==========================  ================================================================

    Examples
    --------
    >>> r = Range("QQ+, AKs, 0.5(A5s-A2s)")
    >>> len(r), r.total_weight()
    (38, 30.0)
    >>> Range("AA:0.5").weights.tolist()
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    >>> Range(["AhKh", "2c7d"]).hands()
    ['AhKh', '7d2c']
    """

    __slots__ = ("_w", "_spec", "_removed", "_rows", "_combos", "_weights", "_masks")

    def __new__(cls, spec: str | Range | Sequence[str] = "", game: str = HOLDEM):
        # Omaha ranges are 4..6-card hands: their own class (gpu_eval.omaha_ranges).
        if registry.get(game, where="a range").is_omaha:
            from gpu_eval.omaha_ranges import OmahaRange  # noqa: PLC0415
            return OmahaRange(spec, game=game)  # type: ignore[arg-type]
        return super().__new__(cls)

    def __init__(self, spec: str | Range | Sequence[str], game: str = HOLDEM) -> None:
        lowest = registry.get(game, where="a range").lowest_rank
        if lowest:  # short deck: hold'em syntax, only the cards the deck has
            Range.__init__(self, spec)
            w = self._w.copy()
            w[(ALL_COMBOS[:, 1] < 4 * lowest) | (ALL_COMBOS[:, 0] < 4 * lowest)] = 0
            self._set(w, self._spec, self._removed)
            return
        if isinstance(spec, Range):
            self._set(spec._w, spec._spec, spec._removed)
            return
        if isinstance(spec, str):  # parsed once per text; every array is read-only, shared
            for name, value in _parsed_range(spec):
                setattr(self, name, value)
            return
        w = np.zeros(_N_COMBOS, dtype=np.float64)
        if isinstance(spec, (list, tuple)):
            for i, item in enumerate(spec):
                if not isinstance(item, str):
                    raise TypeError(f"range list item {i} must be text such as 'AhKh' or "
                                    f"'QQ+', got {type(item).__name__}: {item!r}")
                _parse_into(w, item, where=f" (list item {i})")
            label = ", ".join(spec)
        else:
            raise TypeError(f"a range must be text such as 'QQ+, AKs', a Range, or a list of "
                            f"text; got {type(spec).__name__} (for an array of card ids "
                            f"use Range.from_combos)")
        self._set(w, label, 0)

    def _set(self, w: np.ndarray, spec: str | None, removed: int) -> None:
        self._w = w
        self._w.setflags(write=False)
        self._spec = spec
        self._removed = removed
        self._rows = np.flatnonzero(w)
        self._combos = ALL_COMBOS[self._rows]
        self._weights = w[self._rows]
        self._masks = ALL_COMBO_MASKS[self._rows]
        for a in (self._rows, self._combos, self._weights, self._masks):
            a.setflags(write=False)

    @classmethod
    def _from_dense(cls, w: np.ndarray, spec: str | None, removed: int) -> Range:
        r = object.__new__(cls)
        r._set(w, spec, removed)
        return r

    @classmethod
    def from_combos(cls, ids: np.ndarray | Sequence[Sequence[int]],
                    weights: np.ndarray | Sequence[float] | None = None) -> Range:
        """Build a range from an ``(M, 2)`` array of card ids.

        Parameters
        ----------
        ids : array_like of int, shape (M, 2)
            Card ids 0..51, either card first. Not modified.
        weights : array_like of float, shape (M,), optional
            Weights in ``[0, 1]``; default all 1. Combos of weight 0 are left out.

        Returns
        -------
        Range
            The combos in canonical order; its ``spec`` is None.

        Raises
        ------
        ValueError
            On a wrong shape, an id out of range, a card twice in one combo, the same combo
            twice, or a weight outside ``[0, 1]`` (each naming the row).
        TypeError
            If the ids are not integers.

        Examples
        --------
        >>> r = Range.from_combos([[0, 51], [50, 49]], weights=[1.0, 0.25])
        >>> r.hands(), r.weights.tolist()
        (['As2c', 'AhAd'], [1.0, 0.25])
        """
        arr = card_input.integer_array(ids, "combos")
        if arr.size == 0 and arr.shape in ((0,), (0, 2)):
            arr = np.zeros((0, 2), dtype=np.int64)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise ValueError(f"combos must have shape (M, 2), got {arr.shape}")
        card_input.check_range(arr, "combos", 0, 51, axes=("combo row",))
        a = arr.astype(np.int64)
        same = np.flatnonzero(a[:, 0] == a[:, 1])
        if same.size:
            r = int(same[0])
            raise ValueError(f"combo row {r} uses card {cards.format(a[r, :1])} twice")
        rows = COMBO_INDEX[a[:, 0], a[:, 1]]
        order = np.argsort(rows, kind="stable")
        dup = np.flatnonzero(np.diff(rows[order]) == 0)
        if dup.size:
            i, j = sorted((int(order[dup[0]]), int(order[dup[0] + 1])))
            raise ValueError(f"combo {cards.format(ALL_COMBOS[rows[i]])} appears twice "
                             f"(rows {i} and {j})")
        if weights is None:
            wts = np.ones(len(a))
        else:
            wts = np.asarray(weights, dtype=np.float64)
            if wts.shape != (len(a),):
                raise ValueError(f"weights must have shape ({len(a)},) to match the combos, "
                                 f"got {wts.shape}")
            bad = np.flatnonzero(~((wts >= 0) & (wts <= 1)))  # also catches NaN
            if bad.size:
                r = int(bad[0])
                raise ValueError(f"weight {wts[r]} of combo row {r} is outside [0, 1]")
        w = np.zeros(_N_COMBOS, dtype=np.float64)
        w[rows] = wts
        return cls._from_dense(w, None, 0)

    # -- data -------------------------------------------------------------------------------

    @property
    def combos(self) -> np.ndarray:
        """``(M, 2)`` read-only ``uint8`` card ids, higher id first, rows descending.

        Examples
        --------
        >>> Range("AsAh, 2d2c").combos.tolist()
        [[51, 50], [1, 0]]
        """
        return self._combos

    @property
    def weights(self) -> np.ndarray:
        """``(M,)`` read-only ``float64`` weights in ``(0, 1]``, one per combo.

        Examples
        --------
        >>> Range("AsAh:0.3, KsKh").weights.tolist()
        [0.3, 1.0]
        """
        return self._weights

    @property
    def masks(self) -> np.ndarray:
        """``(M,)`` read-only ``uint64`` hand masks (see :func:`gpu_eval.cards.to_mask`).

        Examples
        --------
        >>> hex(int(Range("AsAh").masks[0]))
        '0x1000100000000000'
        """
        return self._masks

    @property
    def spec(self) -> str | None:
        """The range text it was built from (list items joined by ``", "``), or None.

        Examples
        --------
        >>> Range("QQ+").without("As").spec
        'QQ+'
        """
        return self._spec

    def __len__(self) -> int:
        """Number of combos (all have a nonzero weight).

        Examples
        --------
        >>> len(Range("AK"))
        16
        """
        return len(self._rows)

    def total_weight(self) -> float:
        """Sum of the weights: the range's size in "effective combos".

        Examples
        --------
        >>> Range("0.5(AA), KK").total_weight()
        9.0
        """
        return float(self._weights.sum())

    def hands(self) -> list[str]:
        """The combos as text, in the range's order.

        Examples
        --------
        >>> Range("AKs").hands()
        ['AsKs', 'AhKh', 'AdKd', 'AcKc']
        """
        return cards.format(self._combos) if len(self) else []

    def classes(self) -> dict[str, tuple[int, float]]:
        """Combo count and total weight of every hand class present.

        Returns
        -------
        dict
            Class name (``"AA"``, ``"AKs"``, ``"AKo"``) -> ``(combo count, total weight)``,
            in grid order: top rank down, then kicker down, pair/suited/offsuit.

        Examples
        --------
        >>> Range("AK, 0.5(QQ)").without("Ah").classes()
        {'AKs': (3, 3.0), 'AKo': (9, 9.0), 'QQ': (6, 3.0)}
        """
        cls_ids = COMBO_CLASS[self._rows]
        counts = np.bincount(cls_ids, minlength=len(CLASS_NAMES))
        totals = np.bincount(cls_ids, weights=self._weights, minlength=len(CLASS_NAMES))
        return {CLASS_NAMES[c]: (int(counts[c]), float(totals[c]))
                for c in np.flatnonzero(counts)}

    # -- card removal -----------------------------------------------------------------------

    def without(self, dead: DeadLike, *, allow_empty: bool = False) -> Range:
        """A new range without the combos that use any of the `dead` cards.

        Parameters
        ----------
        dead : str, int, array_like of int, list of str, or uint64
            Card text (``"AhKd2c"``, ``"Ah Kd"``), card ids (any shape), or ``uint64`` hand
            masks (any shape, OR-ed together). A ``uint64`` array is always read as masks.
        allow_empty : bool
            Return an empty range instead of raising when nothing is left.

        Returns
        -------
        Range
            A new Range; this one is unchanged.

        Raises
        ------
        ValueError
            If no combo is left (unless `allow_empty`), naming the range and the removed
            cards; on bad card text or ids.

        Examples
        --------
        >>> len(Range("AA").without("As")), len(Range("AK").without("AsKd"))
        (3, 9)
        >>> len(Range("AA").without("AsAhAd", allow_empty=True))
        0
        """
        mask = _dead_mask(dead)
        key = (id(self._w), mask)
        hit = _WITHOUT.get(key)
        if hit is not None and hit[0] is self._w and hit[1] == (self._spec, self._removed):
            out = hit[2]  # the same text's weights less the same cards: built before
        else:
            w = self._w.copy()
            w[(ALL_COMBO_MASKS & np.uint64(mask)) != 0] = 0
            out = Range._from_dense(w, self._spec, self._removed | mask)
            if len(_WITHOUT) >= 256:
                _WITHOUT.clear()
            _WITHOUT[key] = (self._w, (self._spec, self._removed), out)
        if not allow_empty and not len(out):
            raise ValueError(f"range {self._label()} is empty after removing "
                             f"{_mask_text(mask)}")
        return out

    # -- protocols --------------------------------------------------------------------------

    def __contains__(self, hand: object) -> bool:
        """Whether an exact two-card combo (text such as ``"AhKh"``, or 2 ids) is in the range.

        Examples
        --------
        >>> "AhKh" in Range("AKs"), "Kh Ah" in Range("AKs"), "AhKd" in Range("AKs")
        (True, True, False)
        """
        if isinstance(hand, str):
            try:
                ids = cards.parse(hand)
            except ValueError as exc:
                raise ValueError(f"{hand!r} is not a two-card hand such as 'AhKh' ({exc}); "
                                 f"use Range.classes() to look up a hand class") from None
        else:
            ids = card_input.integer_array(hand, "the hand")
        if ids.shape != (2,) or not ((ids >= 0) & (ids <= 51)).all() or ids[0] == ids[1]:
            raise ValueError(f"{hand!r} is not a two-card hand such as 'AhKh'")
        return bool(self._w[COMBO_INDEX[int(ids[0]), int(ids[1])]] > 0)

    def __eq__(self, other: object) -> bool:
        """Equal when both hold the same combos with the same weights (spec text ignored).

        Examples
        --------
        >>> Range("AKs") == Range("AsKs AhKh AdKd AcKc"), Range("AA") == Range("AA:0.5")
        (True, False)
        """
        if not isinstance(other, Range):
            return NotImplemented
        return bool(np.array_equal(self._w, other._w))

    def __hash__(self) -> int:
        return hash(self._w.tobytes())

    def __reduce__(self) -> tuple:
        # Rebuild through _set so an unpickled range's arrays are read-only again.
        return (Range._from_dense, (self._w.copy(), self._spec, self._removed))

    def _label(self) -> str:
        text = "<from_combos>" if self._spec is None else repr(self._spec)
        if self._removed:
            text += f" without {_mask_text(self._removed)}"
        return text

    def __repr__(self) -> str:
        """Spec, removed cards, combo count and (when not all 1) total weight.

        Examples
        --------
        >>> Range("QQ+, 0.5(AKs)")
        Range('QQ+, 0.5(AKs)', 22 combos, weight 20)
        >>> Range("AA").without("As")
        Range('AA' without As, 3 combos)
        """
        n = len(self)
        text = f"Range({self._label()}, {n} combo{'' if n == 1 else 's'}"
        if (self._weights < 1).any():
            text += f", weight {self.total_weight():g}"
        return text + ")"
