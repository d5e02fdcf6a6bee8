"""Omaha ranges: ``gpu_eval.Range(text, game="omaha")`` (also ``"omaha5"``, ``"omaha6"``).

Range text is tokens separated by ``,``, ``;`` or whitespace, case-insensitive:

==========================  ====================================================================
``AsKs``                    cards: every hand holding all of them (up to the hole size; a whole
                            hand of 4/5/6 cards is that one hand)
``AA``, ``AAKK``, ``KQJT``  ranks the hand must hold, at least that many of each: ``AA`` is
                            every hand with two or more aces; ``x`` stands for any rank, so
                            ``AAxx`` is ``AA``
``$ds`` ``$ss`` ``$r``      suits: double-suited (two suits held exactly twice each, no suit
                            more), single-suited (exactly one suit held twice, the others at
                            most once), rainbow (no suit twice)
``$np`` ``$1p`` ``$2p``     pairs: no two cards of a rank; exactly one pair (and no trips);
                            exactly two pairs (and no trips)
``AAKK$ds``, ``$ds$np``     qualifiers follow ranks or cards, or stand alone, and combine (all
                            must hold)
``random``, ``any``         every hand
``0.5(AA$ds, KKQQ)``        a weight for every token inside (also ``40%(...)``)
``AA:0.5``                  a weight for one token
==========================  ====================================================================

As in hold'em ranges, a later mention of a hand replaces its earlier weight, and a weight is
a number or a percentage in ``(0, 1]``. Bad text raises ``ValueError`` naming the token, its
0-based position in the text and what was expected. PLO4 counts: ``random`` 270,725; ``AA``
6,961; ``AAKK`` 36; ``AAKK$ds`` 6; ``$ds`` 36,504; ``$r`` 28,561; ``$np`` 183,040; ``$2p``
2,808; ``AsKs`` 1,225.

Every hand of the game is enumerated once per game and cached (270,725 rows for PLO4,
2,598,960 for PLO5, 20,358,520 for PLO6: the last takes a few seconds and a few hundred MB).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NoReturn, cast

import numpy as np

from gpu_eval import card_input, cards, combinatorics
from gpu_eval.card_spelling import ID_TO_MASK
from gpu_eval.games import registry
from gpu_eval.games.registry import OMAHA

__all__ = ["OmahaRange", "all_hands", "HOLE_CARDS"]

#: Hole cards of the Omaha games whose ranges this module parses.
HOLE_CARDS = {g: registry.GAMES[g].hole_cards for g in registry.names(OMAHA)}
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_GROUP_RE = re.compile(rf"({_NUM})\s*(%?)\s*\(")
_WORD_RE = re.compile(r"[^\s,;():]+")
_WEIGHT_SUFFIX_RE = re.compile(r"\s*:\s*([^\s,;()]*)")
_WEIGHT_RE = re.compile(rf"({_NUM})(%?)")
_SEP_RE = re.compile(r"[\s,;]+")
_CARDS_RE = re.compile(r"(?:(?:10|[2-9tjqka])[cdhs])+", re.IGNORECASE)
_RANKS_RE = re.compile(r"[2-9tjqkax]+", re.IGNORECASE)
_QUALS = ("ds", "ss", "r", "np", "1p", "2p")
_HELP = ("expected cards such as 'AsKs', ranks such as 'AA', 'AAKK', 'AAxx' or 'KQJT', "
         "optionally followed by '$ds', '$ss', '$r', '$np', '$1p' or '$2p' (or those alone), "
         "'random', or a weight as in '0.5(AA$ds)' or 'AA:0.5'")


def all_hands(h: int) -> np.ndarray:
    """Every ``h``-card hand as sorted ``uint8`` ids, colex order (read-only, cached by
    :func:`gpu_eval.combinatorics.subsets`).

    Examples
    --------
    >>> all_hands(4).shape, all_hands(4)[0].tolist()
    ((270725, 4), [0, 1, 2, 3])
    """
    return combinatorics.subsets(52, h)


@lru_cache(maxsize=3)
def _masks(h: int) -> np.ndarray:
    ids = all_hands(h)
    m = np.zeros(len(ids), dtype=np.uint64)
    for j in range(h):
        m |= np.take(ID_TO_MASK, ids[:, j])
    m.flags.writeable = False
    return m


def _fail(spec: str, token: str, pos: int, why: str = "") -> NoReturn:
    why = f"{why}; " if why else ""
    raise ValueError(f"bad Omaha range token {token!r} at position {pos} in {spec!r}: {why}"
                     f"{_HELP}")


def _weight(spec: str, text: str, pos: int) -> float:
    m = _WEIGHT_RE.fullmatch(text.strip())
    if not m:
        _fail(spec, text, pos, "a weight must be a number or a percentage")
    v = float(m.group(1)) / (100 if m.group(2) else 1)
    if not 0 < v <= 1:
        _fail(spec, text, pos, f"weight {v:g} is outside (0, 1]")
    return v


def _select(spec: str, token: str, pos: int, h: int) -> np.ndarray:
    """The rows of ``all_hands(h)`` one token selects: a boolean mask over them, or the row
    indices of a whole hand's token (one row at most: no scan of every hand)."""
    low = token.lower()
    ids = all_hands(h)
    if low in ("random", "any"):
        return np.ones(len(ids), dtype=bool)
    body, *quals = low.split("$")
    sel = np.ones(len(ids), dtype=bool)
    if body:
        if _CARDS_RE.fullmatch(body):
            try:
                want = [int(c) for c in np.atleast_1d(cards.parse(body)).reshape(-1)]
            except ValueError as exc:
                _fail(spec, token, pos, str(exc))
            if len(set(want)) != len(want):
                _fail(spec, token, pos, "a card is named twice")
            if len(want) > h:
                _fail(spec, token, pos, f"{len(want)} cards; an Omaha hand here holds {h}")
            if len(want) == h:
                # A whole hand is one row, its colex rank (all_hands' order), kept if its
                # qualifiers hold.
                row = combinatorics.rank([sorted(want)]).astype(np.intp)
                for q in quals:
                    if q not in _QUALS:
                        _fail(spec, token, pos, f"unknown qualifier '${q}'")
                    row = row[_qualifier(q, h)[row]]
                return row
            m = np.uint64(int(np.bitwise_or.reduce(ID_TO_MASK[want])))
            sel &= (_masks(h) & m) == m
        elif _RANKS_RE.fullmatch(body):
            if len(body) > h:
                _fail(spec, token, pos, f"{len(body)} ranks; an Omaha hand here holds {h}")
            for ch in set(body) - {"x"}:
                r = cards.RANKS.lower().index(ch)
                need = body.count(ch)
                if need > 4:
                    _fail(spec, token, pos, "a rank has only four cards")
                sel &= _rank_count(_masks(h), r) >= need
        else:
            _fail(spec, token, pos)
    elif not quals:
        _fail(spec, token, pos)
    for q in quals:
        if q not in _QUALS:
            _fail(spec, token, pos, f"unknown qualifier '${q}'")
        sel &= _qualifier(q, h)
    return sel


# One bit per suit lane (a hand mask holds bit ``16 * suit + rank`` per card).
_LANES = np.uint64(0x0001_0001_0001_0001)


def _rank_count(masks: np.ndarray, rank: int) -> np.ndarray:
    """Cards of ``rank`` in each hand mask (0 to 4).

    The rank's bit of each suit lane, shifted to bit 0 of its lane; multiplying by the four
    lane bits adds the lanes into the top one (no carry: at most 4). One pass over the masks
    instead of comparing every card of every hand.

    Examples
    --------
    >>> from gpu_eval import cards
    >>> _rank_count(cards.to_mask(["AsAhKd2c", "KsQdJhTc"]), 12).tolist()
    [2, 0]
    """
    lanes = (masks >> np.uint64(rank)) & _LANES
    return (lanes * _LANES) >> np.uint64(48)


@lru_cache(maxsize=18)
def _qualifier(q: str, h: int) -> np.ndarray:
    ids = all_hands(h)
    if q in ("ds", "ss", "r"):
        suits = ids & 3
        counts = np.sort(np.stack([(suits == s).sum(axis=1) for s in range(4)], axis=1),
                         axis=1)[:, ::-1]
        out = {"ds": (counts[:, 0] == 2) & (counts[:, 1] == 2),
               "ss": (counts[:, 0] == 2) & (counts[:, 1] <= 1),
               "r": counts[:, 0] <= 1}[q]
    else:
        ranks = ids >> 2  # rows are sorted, so equal ranks sit side by side
        same = ranks[:, 1:] == ranks[:, :-1]
        pairs = same.sum(axis=1)
        trips = (same[:, 1:] & same[:, :-1]).any(axis=1)
        out = {"np": pairs == 0, "1p": (pairs == 1), "2p": (pairs == 2) & ~trips}[q]
    out = np.ascontiguousarray(out)
    out.flags.writeable = False
    return out


def _parse(spec: str, h: int) -> np.ndarray:
    """Dense weights over ``all_hands(h)`` of range text."""
    w = np.zeros(len(all_hands(h)), dtype=np.float64)
    i, n = 0, len(spec)

    def apply(token: str, pos: int, weight: float) -> None:
        w[_select(spec, token, pos, h)] = weight

    while i < n:
        m = _SEP_RE.match(spec, i)
        if m:
            i = m.end()
            continue
        g = _GROUP_RE.match(spec, i)
        if g:
            weight = _weight(spec, g.group(1) + g.group(2), i)
            close = spec.find(")", g.end())
            if close < 0:
                _fail(spec, spec[i:], i, "a '(' is never closed")
            inner = spec[g.end():close]
            if "(" in inner:
                _fail(spec, spec[i:close + 1], i, "weighted groups do not nest")
            for word in _WORD_RE.finditer(inner):
                if ":" in inner[word.end():word.end() + 1]:
                    _fail(spec, word.group(), g.end() + word.start(),
                          "a token inside a weighted group cannot carry its own weight")
                apply(word.group(), g.end() + word.start(), weight)
            i = close + 1
            continue
        t = _WORD_RE.match(spec, i)
        if not t:
            _fail(spec, spec[i], i)
        token, pos = t.group(), i
        i = t.end()
        weight = 1.0
        s = _WEIGHT_SUFFIX_RE.match(spec, i)
        if s:
            weight = _weight(spec, s.group(1), s.start(1))
            i = s.end()
        apply(token, pos, weight)
    return w


# Parsed range texts, (text, cards per hand) -> (rows, weights), read-only: a spot's ranges
# are read again for every board and every call (a scan of up to 270,725 hands per token).
# Only ranges of at most _CACHED_HANDS hands are kept, at most _CACHED_TEXTS of them (then
# the cache starts over): at most ~10 MB held.
_PARSED: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
_CACHED_TEXTS = 64
_CACHED_HANDS = 10_000


def _parsed(spec: str, h: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows of all_hands(h), weights)`` of range text (read-only; cached when small)."""
    key = (spec, h)
    hit = _PARSED.get(key)
    if hit is not None:
        return hit
    w = _parse(spec, h)
    idx = np.flatnonzero(w)
    out = (idx, w[idx])
    for a in out:
        a.flags.writeable = False
    if len(idx) <= _CACHED_HANDS:
        if len(_PARSED) >= _CACHED_TEXTS:
            _PARSED.clear()
        _PARSED[key] = out
    return out


class OmahaRange:
    """A weighted set of Omaha hands (4, 5 or 6 cards), from range text.

    Built by ``gpu_eval.Range(text, game="omaha")`` (see the module docstring for the
    syntax). Arrays are read-only; hands are sorted ``uint8`` id rows in colex order.

    Parameters
    ----------
    spec : str
        Range text.
    game : {"omaha", "omaha5", "omaha6"}
        The number of hole cards (``"omaha-hilo"`` and ``"omaha5-hilo"`` are accepted too).

    Examples
    --------
    >>> import gpu_eval as ge
    >>> len(ge.Range("AAKK", game="omaha")), len(ge.Range("AAKK$ds", game="omaha"))
    (36, 6)
    >>> r = ge.Range("0.5(AA$ds), KKQQ", game="omaha")
    >>> len(r), r.total_weight()   # 864 AA$ds at 0.5, 36 KKQQ at 1
    (900, 468.0)
    """

    __slots__ = ("game", "_idx", "_weights", "_spec", "_removed")

    def __init__(self, spec: str, game: str = OMAHA) -> None:
        if game not in HOLE_CARDS:
            raise ValueError(f"game {game!r} has no Omaha ranges; known: "
                             f"{', '.join(HOLE_CARDS)}")
        if not isinstance(spec, str):
            raise TypeError(f"an Omaha range must be text such as 'AA$ds, KKQQ', got "
                            f"{type(spec).__name__}")
        idx, weights = _parsed(spec, HOLE_CARDS[game])
        self._set(game, idx, weights, spec, 0)

    def _set(self, game: str, idx: np.ndarray, weights: np.ndarray, spec: str | None,
             removed: int) -> None:
        self.game = game
        self._idx, self._weights = idx, weights
        self._spec, self._removed = spec, removed
        for a in (idx, weights):
            a.flags.writeable = False

    @property
    def hole_cards(self) -> int:
        """Cards per hand (4, 5 or 6)."""
        return HOLE_CARDS[self.game]

    @property
    def combos(self) -> np.ndarray:
        """``(M, h)`` sorted ``uint8`` card ids of the hands.

        Examples
        --------
        >>> OmahaRange("AsAhKsKh").combos.tolist()
        [[46, 47, 50, 51]]
        """
        return all_hands(self.hole_cards)[self._idx]

    @property
    def masks(self) -> np.ndarray:
        """``(M,)`` ``uint64`` hand masks."""
        return _masks(self.hole_cards)[self._idx]

    @property
    def weights(self) -> np.ndarray:
        """``(M,)`` ``float64`` weights in ``(0, 1]``."""
        return self._weights

    @property
    def spec(self) -> str | None:
        """The range text."""
        return self._spec

    def __len__(self) -> int:
        return len(self._idx)

    def total_weight(self) -> float:
        """Sum of the weights."""
        return float(self._weights.sum())

    def hands(self) -> list[str]:
        """The hands as text, highest card first.

        Examples
        --------
        >>> OmahaRange("AAKK$ds").hands()[:2]
        ['AdAcKdKc', 'AhAcKhKc']
        """
        return [cast(str, cards.format(row[::-1])) for row in self.combos] if len(self) else []

    def without(self, dead: str | np.ndarray | int, *, allow_empty: bool = False
                ) -> OmahaRange:
        """A new range without the hands that use any of the ``dead`` cards.

        Examples
        --------
        >>> len(OmahaRange("AA").without("As"))   # two or three of the other aces
        3432
        """
        mask = card_input.cards_mask(dead, "dead cards")
        keep = (self.masks & np.uint64(mask)) == 0
        if not allow_empty and not keep.any():
            raise ValueError(f"Omaha range {self._spec!r} is empty after removing "
                             f"{cards.format(np.uint64(mask))}")
        out = object.__new__(OmahaRange)
        out._set(self.game, self._idx[keep], self._weights[keep], self._spec,
                 self._removed | mask)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OmahaRange):
            return NotImplemented
        return self.game == other.game and np.array_equal(self._idx, other._idx) and \
            np.array_equal(self._weights, other._weights)

    def __hash__(self) -> int:
        return hash((self.game, self._idx.tobytes(), self._weights.tobytes()))

    def __repr__(self) -> str:
        """Spec, game, hand count and (when not all 1) total weight.

        Examples
        --------
        >>> OmahaRange("AAKK")
        OmahaRange('AAKK', game='omaha', 36 hands)
        """
        n = len(self)
        text = f"OmahaRange({self._spec!r}, game={self.game!r}, {n} hand{'s' * (n != 1)}"
        if len(self._weights) and (self._weights < 1).any():
            text += f", weight {self.total_weight():g}"
        return text + ")"
