"""Short deck (6+) hold'em: the 36-card deck 6..A, its own dense strength scale and tables.

Two rule sets, ``game="shortdeck"`` and ``game="shortdeck-triton"``. In both, A-6-7-8-9 is a
straight (the lowest; the ace plays low) and a flush beats a full house (five suited cards are
rarer than a full house in a 36-card deck); under Triton rules three of a kind also beats a
straight. Categories keep the README numbering (0 high card .. 8 straight flush); only their
order on the scale differs:

==============  =====  =======================  =======================
category        count  ``shortdeck`` strengths  ``shortdeck-triton``
==============  =====  =======================  =======================
high card         120  1..120                   1..120
pair              504  121..624                 121..624
two pair          252  625..876                 625..876
trips             252  877..1128                883..1134
straight            6  1129..1134               877..882
full house         72  1135..1206               1135..1206
flush             120  1207..1326               1207..1326
quads              72  1327..1398               1327..1398
straight flush      6  1399..1404               1399..1404
==============  =====  =======================  =======================

Both scales run 1..1404 (``NUM_CLASSES``), higher is better: 1404 is the royal flush and 1 is
J-9-8-7-6 unsuited (6-7-8-9-T is a straight). They are *not* the hold'em scale: never compare
a short-deck strength with a hold'em one.

How the scale is built (from first principles, not from an evaluator): every hand class is a
category plus its ranks in the order poker compares them (the pair, then the kickers, highest
first; a straight by its top card, A-6-7-8-9 lowest). Each class gets the key
``position(category) * 16**5 + digits`` with one hex digit per rank (rank + 1, so 0 means "no
card"), and the classes, sorted by key, are numbered 1..1404. A table entry is the number of
classes whose key is at most the entry's key, so an entry built from an incomplete reading
(say a pair read from what is really two pair) is still a genuine strength, never above the
hand's true class.

Evaluation is the hold'em bitmask evaluator (``gpu_eval.evaluator.bitmask``, ``kernels/bitmask.cuh``) run with
short-deck tables of the same layout: each candidate (pair/straight/high card, two pair,
trips, full house, quads, flush) is a genuine strength of an achievable hand and the best
hand is among them, so the maximum is exact whatever the category order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache
from itertools import combinations
from typing import cast

import numpy as np

from gpu_eval import cards
from gpu_eval import scale as S
from gpu_eval.evaluator import inputs
from gpu_eval.evaluator.bitmask import evaluate_masks
from gpu_eval.evaluator.numpy_path import ids_to_masks, run_chunked
from gpu_eval.evaluator.tables import (
    EMPTY_ROW,
    RANKMASKS,
    BitmaskTables,
    bitmask_tables,
    dup_table,
)
from gpu_eval.games import registry
from gpu_eval.games.registry import SHORTDECK, SHORTDECK_TRITON, tag

__all__ = ["GAMES", "NUM_CLASSES", "CATEGORY_ORDER", "RANKS", "LOW_RANK_BITS", "STRAIGHTS",
           "shortdeck_tables", "class_values", "category_ranges", "evaluate_hands"]

#: The short-deck games and their category order, lowest first.
CATEGORY_ORDER: dict[str, tuple[int, ...]] = {
    SHORTDECK: (S.HIGH_CARD, S.PAIR, S.TWO_PAIR, S.TRIPS, S.STRAIGHT, S.FULL_HOUSE, S.FLUSH,
                  S.QUADS, S.STRAIGHT_FLUSH),
    SHORTDECK_TRITON: (S.HIGH_CARD, S.PAIR, S.TWO_PAIR, S.STRAIGHT, S.TRIPS, S.FULL_HOUSE,
                         S.FLUSH, S.QUADS, S.STRAIGHT_FLUSH),
}
GAMES = tuple(CATEGORY_ORDER)
#: Ranks in the deck: 6 (rank 4) .. A (rank 12).
RANKS = tuple(range(4, 13))
SHORT_BITS = sum(1 << r for r in RANKS)  # 0x1FF0
#: Mask bits of the cards a short deck does not have (2..5 of every suit).
LOW_RANK_BITS = np.uint64(sum(0xF << (16 * s) for s in range(4)))
#: The six straights as 13-bit rank masks, lowest (A-6-7-8-9) first.
STRAIGHTS = (0x10F0,) + tuple(0x1F << low for low in range(4, 9))
NUM_CLASSES = 1404

_DIGITS = 5
_CAT_SHIFT = 4 * _DIGITS


def _key(order: tuple[int, ...], cat: int, digits: np.ndarray) -> np.ndarray:
    """Keys of classes of category ``cat`` from an ``(N, <=5)`` array of digits (rank + 1)."""
    digits = np.asarray(digits, dtype=np.int64).reshape(len(digits), -1)
    key = np.full(len(digits), order.index(cat), dtype=np.int64)
    for j in range(_DIGITS):
        key = key * 16 + (digits[:, j] if j < digits.shape[1] else 0)
    return key


def _class_ranks() -> dict[int, list[tuple[int, ...]]]:
    """Every class of each category as its ranks in comparison order (straights: index)."""
    r = RANKS
    straight_sets = {frozenset(i for i in range(13) if m >> i & 1) for m in STRAIGHTS}
    high = [tuple(sorted(c, reverse=True)) for c in combinations(r, 5)
            if frozenset(c) not in straight_sets]
    others = {p: [x for x in r if x != p] for p in r}
    return {
        S.HIGH_CARD: high,
        S.PAIR: [(p, *sorted(k, reverse=True)) for p in r for k in combinations(others[p], 3)],
        S.TWO_PAIR: [(hi, lo, k) for lo, hi in combinations(r, 2) for k in r if k not in (hi, lo)],
        S.TRIPS: [(t, *sorted(k, reverse=True)) for t in r for k in combinations(others[t], 2)],
        S.STRAIGHT: [(i,) for i in range(len(STRAIGHTS))],
        S.FLUSH: high,
        S.FULL_HOUSE: [(t, p) for t in r for p in others[t]],
        S.QUADS: [(q, k) for q in r for k in others[q]],
        S.STRAIGHT_FLUSH: [(i,) for i in range(len(STRAIGHTS))],
    }


@cache
def _sorted_keys(game: str) -> np.ndarray:
    """The keys of all classes of ``game``, ascending: strength ``s`` is ``keys[s - 1]``."""
    order = category_order(game)
    keys = np.concatenate([_key(order, cat, np.array(ranks) + 1)
                           for cat, ranks in _class_ranks().items()])
    keys = np.sort(keys)
    assert len(keys) == NUM_CLASSES and len(np.unique(keys)) == NUM_CLASSES
    keys.flags.writeable = False
    return keys


def category_order(game: str) -> tuple[int, ...]:
    try:
        return CATEGORY_ORDER[game]
    except KeyError:
        raise ValueError(f"game {game!r} is not a short-deck game; known: "
                         f"{', '.join(GAMES)}") from None


def _strength(game: str, cat: int, digits: np.ndarray) -> np.ndarray:
    """Strength of the best class whose key is at most the given one (0 if none)."""
    keys = _sorted_keys(game)
    return np.searchsorted(keys, _key(category_order(game), cat, digits), side="right")


def _digits_desc(masks: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` highest ranks of each mask as digits (rank + 1), 0 where it has fewer."""
    rest = np.asarray(masks, dtype=np.int64).copy()
    out = np.zeros((len(rest), n), dtype=np.int64)
    for j in range(n):
        hb = S.highest_bit(rest)
        out[:, j] = S.bit_rank(hb) + 1
        rest &= ~hb
    return out


def _best_straight(masks: np.ndarray) -> np.ndarray:
    """Index (0..5) of the best short-deck straight in each rank mask, -1 if none."""
    out = np.full(masks.shape, -1, dtype=np.int64)
    for i, s in enumerate(STRAIGHTS):
        out[(masks & s) == s] = i
    return out


def _five_distinct(game: str, masks: np.ndarray, flush: bool) -> np.ndarray:
    """Best straight (flush) or high card (flush) from distinct ranks; 0 under 5 ranks."""
    st = _best_straight(masks)
    cat_st, cat_hi = (S.STRAIGHT_FLUSH, S.FLUSH) if flush else (S.STRAIGHT, S.HIGH_CARD)
    out = np.where(st >= 0, _strength(game, cat_st, (st + 1)[:, None]),
                   _strength(game, cat_hi, _digits_desc(masks, 5)))
    return np.where(np.bitwise_count(masks) >= 5, out, 0)


def _rows(fill, empty) -> np.ndarray:
    """A ``[14 * 8192]`` table: row ``r`` is ``fill(r, masks)`` for short-deck ranks, rows of
    ranks the deck lacks (never selected by a valid hand) and row 13 are ``empty``."""
    masks = S.ALL_RANK_MASKS & SHORT_BITS  # bits of absent ranks never occur; ignore them
    out = np.zeros((EMPTY_ROW + 1, RANKMASKS), dtype=np.int64)
    for r in range(EMPTY_ROW + 1):
        out[r] = fill(r, masks) if r in RANKS else empty(masks)
    return out.reshape(-1).astype(np.uint16)


@cache
def shortdeck_tables(game: str = SHORTDECK) -> BitmaskTables:
    """The bitmask evaluator's tables for a short-deck game (generated once, ~0.2 s).

    Same layout as :func:`gpu_eval.evaluator.tables.bitmask_tables` (the rank-mask helpers ``row``
    and ``dup_row`` are shared); the strength tables hold short-deck strengths.

    Examples
    --------
    >>> t = shortdeck_tables("shortdeck")
    >>> int(t.flush[0x1F00])   # T-J-Q-K-A suited: the royal flush
    1404
    """
    category_order(game)
    allm = S.ALL_RANK_MASKS & SHORT_BITS
    zero = lambda m: np.zeros(m.shape, dtype=np.int64)  # noqa: E731
    high = lambda m: _five_distinct(game, m, flush=False)  # noqa: E731

    def pair(r, o):
        digits = np.concatenate([np.full((len(o), 1), r + 1), _digits_desc(o & ~(1 << r), 3)],
                                axis=1)
        return np.maximum(_strength(game, S.PAIR, digits), high(o))

    def trips(r, o):
        digits = np.concatenate([np.full((len(o), 1), r + 1), _digits_desc(o & ~(1 << r), 2)],
                                axis=1)
        return _strength(game, S.TRIPS, digits)

    def full_house(r, p):
        pr = _digits_desc(p & ~(1 << r), 1)
        digits = np.concatenate([np.full((len(p), 1), r + 1), pr], axis=1)
        return np.where(pr[:, 0] > 0, _strength(game, S.FULL_HOUSE, digits), 0)

    def quads(r, o):
        digits = np.concatenate([np.full((len(o), 1), r + 1), _digits_desc(o & ~(1 << r), 1)],
                                axis=1)
        return _strength(game, S.QUADS, digits)

    def two_pair(pm, o):
        hi, lo = pm.bit_length() - 1, (pm & -pm).bit_length() - 1
        if hi not in RANKS or lo not in RANKS:
            return zero(o)
        kick = _digits_desc(o & SHORT_BITS & ~pm, 1)
        digits = np.concatenate([np.full((len(o), 2), [hi + 1, lo + 1]), kick], axis=1)
        return np.where(kick[:, 0] > 0, _strength(game, S.TWO_PAIR, digits), 0)

    def pair_or_none(r, o):
        return pair(r, o & SHORT_BITS) if r in RANKS else zero(o)

    return replace(
        bitmask_tables(),
        flush=_readonly(_five_distinct(game, allm, flush=True).astype(np.uint16)),
        dup=_readonly(dup_table(two_pair, pair_or_none, high(allm))),
        trips=_readonly(_rows(trips, zero)),
        full_house=_readonly(_rows(full_house, zero)),
        quads=_readonly(_rows(quads, zero)),
    )


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _bits(ranks) -> int:
    return sum(1 << (r - 1) for r in ranks if r > 0)


@cache
def class_values(game: str = SHORTDECK) -> np.ndarray:
    """Seed 000's self-describing value of every class: ``values[strength]`` (``values[0]`` 0).

    The value is ``category << 26 | important << 13 | kickers`` with rank bits as in hold'em;
    a straight carries its five rank bits, A-6-7-8-9 without the ace (``0xF0``: nine high).
    Values order the classes by category number, not by this game's category order, so use
    them to read a class, and strengths to compare hands.

    Examples
    --------
    >>> v = class_values("shortdeck")
    >>> int(v[1404] >> 26), int(v[1] >> 26)
    (8, 0)
    """
    keys = _sorted_keys(game)
    order = category_order(game)
    out = np.zeros(NUM_CLASSES + 1, dtype=np.uint32)
    for s, key in enumerate(keys.tolist(), start=1):
        cat = order[key >> _CAT_SHIFT]
        d = [(key >> (4 * (_DIGITS - 1 - j))) & 15 for j in range(_DIGITS)]
        if cat in (S.STRAIGHT, S.STRAIGHT_FLUSH):
            imp, kick = 0, STRAIGHTS[d[0] - 1] & ~(0x1000 if d[0] == 1 else 0)
        elif cat in (S.HIGH_CARD, S.FLUSH):
            imp, kick = 0, _bits(d)
        elif cat == S.TWO_PAIR:
            imp, kick = _bits(d[:2]), _bits(d[2:])
        else:  # pair, trips, full house, quads: one important rank
            imp, kick = _bits(d[:1]), _bits(d[1:])
        out[s] = cat << 26 | imp << 13 | kick
    out.flags.writeable = False
    return out


def category_ranges(game: str = SHORTDECK) -> dict[int, tuple[int, int]]:
    """``{category: (lowest strength, highest strength)}`` on ``game``'s scale.

    Examples
    --------
    >>> category_ranges("shortdeck-triton")[4]   # straights sit below trips under Triton
    (877, 882)
    """
    cat = class_values(game)[1:] >> 26
    return {int(c): (int(np.flatnonzero(cat == c)[0]) + 1, int(np.flatnonzero(cat == c)[-1]) + 1)
            for c in range(9)}


def low_card_text(h: inputs.Hands, row: int) -> str:
    """The first card below 6 in ``row`` of ``h``, as text."""
    if h.ids is not None:
        ids = h.ids[row]
        return cast(str, cards.format(ids[ids < 16][:1]))  # one card: its text
    assert h.masks is not None, "Hands holds ids or masks"
    m = int(h.masks[row]) & int(LOW_RANK_BITS)
    return cast(str, cards.format(np.uint64(m & -m)))


def evaluate_hands(hands, *, game: str = SHORTDECK, invalid: str = "raise",
                   encoding: str = "auto"):
    """NumPy evaluation behind ``gpu_eval.evaluate(hands, game="shortdeck")``.

    Takes the same inputs as :func:`gpu_eval.evaluate` (5 to 9 cards from the 36-card deck)
    and returns strengths on ``game``'s scale (1..1404), with the game in their dtype
    (``gpu_eval.strength.strength_dtype``; one hand gives a 0-d array). A card below 6
    raises ``ValueError`` naming the card and the row (or gives 0 with ``invalid="mask"``).

    Examples
    --------
    >>> evaluate_hands(["As Ks Qs Js Ts", "Ah 6d 7c 8s 9h"]).tolist()
    [1404, 1129]
    """
    return evaluate_rows(hands, game, invalid, encoding, None)


def evaluate_rows(hands, game: str, invalid: str, encoding: str,
              device: Callable[[np.ndarray], np.ndarray] | None):
    """Validate, evaluate (on NumPy, or with ``device(masks)`` -> strengths of every row's
    mask), apply ``invalid`` and tag the result with the game."""
    category_order(game)
    h = inputs.coerce(hands, encoding=encoding, invalid=invalid)
    n = h.n
    out = np.empty(n, dtype=np.uint16)
    counts = np.empty(n, dtype=np.uint8)
    low = np.zeros(n, dtype=bool)
    tables = shortdeck_tables(game) if device is None else None
    masks = np.empty(n, dtype=np.uint64) if device is not None else None

    def work(start: int, stop: int) -> None:
        if h.ids is not None:
            m = ids_to_masks(h.ids[start:stop])
        else:
            assert h.masks is not None, "Hands holds ids or masks"
            m = h.masks[start:stop] & cards.VALID_MASK_BITS
        cnt = np.bitwise_count(m)
        counts[start:stop] = cnt
        has_low = (m & LOW_RANK_BITS) != 0
        low[start:stop] = has_low
        if masks is not None:  # evaluated on the device
            masks[start:stop] = m
            return
        res = evaluate_masks(m, out[start:stop], tables=tables)
        res[(cnt < 5) | (cnt > 9) | has_low] = 0

    run_chunked(n, work)
    if device is not None and masks is not None and n:
        out[:] = device(masks)
        out[(counts < 5) | (counts > 9) | low] = 0
    if low.any():
        if invalid == "raise":
            r = int(np.flatnonzero(low)[0])
            raise inputs.row_error(h, r, f"card {low_card_text(h, r)} is not in the 36-card "
                                          f"short deck (ranks 6 to A)")
        h.bad = low if h.bad is None else (h.bad | low)
    lo, hi = registry.GAMES[game].hand_cards
    inputs.finish(h, out, counts, lo, hi, invalid)
    return tag(out, game, scalar=h.scalar)
